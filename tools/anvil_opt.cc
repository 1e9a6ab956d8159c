// anvil-opt: runs a pass pipeline on an ONNX model, like mlir-opt.
//
//   anvil-opt [MODEL] [--passes=PIPELINE] [-o OUT] [--emit=onnx|tir|cc] [--timing] [--stats]
//             [--print-ir-after-all] [--print-ir-after=NAME[,NAME...]] [--no-verify]
//             [--external-data-threshold=BYTES] [--quiet] [--list-passes] [--help]
//
// MODEL and OUT are .onnx (binary) or .onnxtxt (ONNX text). --print-ir-after, --timing and
// --stats reach into lower-to-tir: a Tensor IR pass named in --print-ir-after (tile-rows, ...)
// dumps the module after it, and the Tensor IR passes get their own timing and statistics tables.
// Without -o the result is printed as text on stdout; reports (timing, statistics, IR dumps) go to
// stderr. Without MODEL the embedded default model runs through the default pipeline with timing
// on.
//
// Contract relied on by other tools: `anvil-opt MODEL --passes=P -o OUT.onnx` writes binary
// ONNX and exits 0 on success. Any error prints one line `anvil-opt: error: ...` and exits 1
// (2 for command-line mistakes).
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "base/excerpt.h"
#include "base/progress.h"
#include "base/status_macros.h"
#include "constprop/gc.h"
#include "graph/instrumentation.h"
#include "graph/ir.h"
#include "graph/model_io.h"
#include "graph/pass_manager.h"
#include "graph/pass_registry.h"
#include "graph/text_format.h"
#include "graph/verifier.h"
#include "lower/emit/emit_cc.h"
#include "lower/ir/printer.h"
#include "lower/lowering/lower_to_tir.h"
#include "lower/passes/tir_instrumentation.h"
#include "lower/passes/tir_pass.h"
#include "shape/dim_ranges.h"
#include "shape/index_expr.h"
#include "shape/shape_inference.h"
#include "shape/shapes_report.h"
#include "tools/command_line.h"
#include "tools/default_model.h"

namespace anvil {
namespace {

constexpr char kUsage[] = R"(usage: anvil-opt [MODEL] [options]

Runs a pass pipeline on an ONNX model. MODEL and -o take .onnx (binary protobuf) or .onnxtxt
(ONNX textual syntax). Without -o the resulting model is printed as text on stdout. Without
MODEL, the embedded default model (a transformer block with dynamic batch and sequence dims)
runs through the default pipeline )" ANVIL_DEFAULT_PIPELINE R"( with --timing.

options:
  --passes=PIPELINE          passes to run, e.g. "cse,dce" or "constprop{max-expansion=4}"
  -o OUT, --output=OUT       write the result to OUT (.onnx or .onnxtxt)
  --timing                   print a per-pass timing table (stderr)
  --quiet                    no progress lines (import, each pass and the export print one on
                             stderr when they take a second or more)
  --stats                    print pass statistics (stderr)
  --emit=onnx|tir|cc|shapes  what to write: the model (default), its Tensor IR (the module
                             of a lower-to-tir pass ending the pipeline, else lowered with
                             lower-to-tir's defaults), that module as the C++ the JIT
                             compiles, or every value's shape with each symbolic dim's range
                             (after the pipeline and a shape-inference run), as text on stdout
                             or to -o
  --input-ranges=RANGES      ranges of the graph inputs' symbolic dims, e.g.
                             batch=1:64,seq=1:4096 (hi empty: unbounded); shape inference
                             propagates them, and they are kept in the model's metadata
                             (anvil.dim_ranges, shape/README.md)
  --print-ir-after-all       print the model after every pass, and the Tensor IR after every
                             pass lower-to-tir runs (stderr)
  --print-ir-after=NAMES     print the model after the named passes (comma-separated); a
                             Tensor IR pass (fuse, tile-rows, ...) prints the Tensor IR after it
  --no-verify                do not verify the model after passes that changed it
  --no-gc                    keep every folded constant until exit (no collection between passes)
  --external-data-threshold=BYTES
                             binary output: tensors of at least BYTES go to OUT.data
  --list-passes              list the available passes and their options, then the Tensor IR
                             passes lower-to-tir{pipeline=...} runs
  --help                     show this text
)";

struct Flags {
  std::string model;
  std::optional<std::string> passes;
  std::string output;
  bool emit_tir = false;
  bool emit_cc = false;  // with emit_tir: the module as C++
  bool emit_shapes = false;
  std::vector<SymbolRange> input_ranges;
  bool timing = false;
  bool quiet = false;  // no progress lines
  bool stats = false;
  bool print_ir_after_all = false;
  std::vector<std::string> print_ir_after;
  bool verify = true;
  bool gc = true;
  int64_t external_data_threshold = -1;
  bool list_passes = false;
  bool help = false;
};

struct UsageError {
  std::string message;
};

absl::StatusOr<Flags> ParseFlags(int argc, char** argv) {
  Flags flags;
  CommandLine args(argc, argv);
  while (args.Next()) {
    const std::string& key = args.key();
    if (key == "--passes") {
      ANVIL_ASSIGN_OR_RETURN(flags.passes, args.Value());
    } else if (key == "-o" || key == "--output") {
      ANVIL_ASSIGN_OR_RETURN(flags.output, args.Value());
    } else if (key == "--print-ir-after") {
      ANVIL_ASSIGN_OR_RETURN(const std::string v, args.Value());
      for (absl::string_view name : absl::StrSplit(v, ',', absl::SkipEmpty())) {
        flags.print_ir_after.emplace_back(name);
      }
    } else if (key == "--external-data-threshold") {
      ANVIL_ASSIGN_OR_RETURN(flags.external_data_threshold, args.Count(0));
    } else if (key == "--emit") {
      ANVIL_ASSIGN_OR_RETURN(std::string emit, args.Value());
      if (emit == "tir" || emit == "cc") {
        flags.emit_tir = true;
        flags.emit_cc = emit == "cc";
      } else if (emit == "shapes") {
        flags.emit_shapes = true;
      } else if (emit != "onnx") {
        return absl::InvalidArgumentError(absl::StrCat("--emit: unknown '", Excerpt(emit),
                                                       "'; expected onnx, tir, cc or shapes"));
      }
    } else if (key == "--input-ranges") {
      ANVIL_ASSIGN_OR_RETURN(const std::string v, args.Value());
      absl::StatusOr<std::vector<SymbolRange>> ranges = ParseSymbolRanges(v);
      if (!ranges.ok()) {
        return absl::InvalidArgumentError(
            absl::StrCat("--input-ranges: ", ranges.status().message()));
      }
      flags.input_ranges = *std::move(ranges);
    } else if (key == "--timing") {
      ANVIL_RETURN_IF_ERROR(args.NoValue());
      flags.timing = true;
    } else if (key == "--quiet") {
      ANVIL_RETURN_IF_ERROR(args.NoValue());
      flags.quiet = true;
    } else if (key == "--stats") {
      ANVIL_RETURN_IF_ERROR(args.NoValue());
      flags.stats = true;
    } else if (key == "--print-ir-after-all") {
      ANVIL_RETURN_IF_ERROR(args.NoValue());
      flags.print_ir_after_all = true;
    } else if (key == "--no-verify") {
      ANVIL_RETURN_IF_ERROR(args.NoValue());
      flags.verify = false;
    } else if (key == "--no-gc") {
      ANVIL_RETURN_IF_ERROR(args.NoValue());
      flags.gc = false;
    } else if (key == "--list-passes") {
      ANVIL_RETURN_IF_ERROR(args.NoValue());
      flags.list_passes = true;
    } else if (key == "--help" || key == "-h") {
      flags.help = true;
    } else if (args.IsOption()) {
      return args.Unknown();
    } else if (flags.model.empty()) {
      flags.model = args.arg();
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat("more than one model given: '", flags.model, "' and '", args.arg(), "'"));
    }
  }
  return flags;
}

// Options indented under their pass, one per line.
void DescribeOptionsTo(std::ostream& os, const PassBase& pass) {
  if (pass.options().empty()) return;
  for (absl::string_view line : absl::StrSplit(pass.DescribeOptions(), '\n')) {
    os << "  " << line << "\n";
  }
}

void ListPassesTo(std::ostream& os) {
  os << "Available passes:\n";
  for (const RegisteredPass& p : ListPasses()) {
    os << "  " << p.name << "  " << p.description << "\n";
    absl::StatusOr<std::unique_ptr<Pass>> pass = CreatePass(p.name);
    if (pass.ok()) DescribeOptionsTo(os, **pass);
  }
  os << "Tensor IR passes (lower-to-tir{pipeline=...}):\n";
  for (const tir::RegisteredPass& p : tir::ListPasses()) {
    os << "  " << p.name << "  " << p.description << "\n";
    absl::StatusOr<std::unique_ptr<tir::Pass>> pass = tir::CreatePass(p.name);
    if (pass.ok()) DescribeOptionsTo(os, **pass);
  }
}

// The Tensor IR instrumentations the flags ask for, handed to every lowering of the run.
struct TirInstrumentations {
  std::unique_ptr<tir::PrintIrInstrumentation> print;
  std::unique_ptr<tir::StatisticsInstrumentation> stats;
  std::unique_ptr<tir::TimingInstrumentation> timer;

  // In the graph manager's order: printing outside, the timer innermost.
  std::vector<tir::PassInstrumentation*> All() const {
    std::vector<tir::PassInstrumentation*> all;
    if (print) all.push_back(print.get());
    if (stats) all.push_back(stats.get());
    if (timer) all.push_back(timer.get());
    return all;
  }
};

absl::Status WriteTextFile(const std::string& path, const std::string& text) {
  std::error_code ignored;
  if (std::filesystem::is_directory(path, ignored)) {
    return absl::InvalidArgumentError(absl::StrCat("cannot write '", path, "': a directory"));
  }
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) {
    return absl::PermissionDeniedError(
        absl::StrCat("cannot write '", path, "': ", std::strerror(errno)));
  }
  out << text;
  if (!out.flush()) return absl::DataLossError(absl::StrCat("error writing '", path, "'"));
  return absl::OkStatus();
}

// --emit=tir: the module a lower-to-tir pass left with the model, or a fresh lowering.
absl::Status EmitTir(const Model& model, const std::string& output, bool timing, bool cc,
                     const TirInstrumentations& tir_instrumentations) {
  const auto start = std::chrono::steady_clock::now();
  std::optional<tir::Module> lowered;
  const tir::Module* module = lower::LoweredModule(model);
  if (module == nullptr) {
    lower::LoweringStats stats;
    lower::LoweringOptions options;
    options.instrumentations = tir_instrumentations.All();
    ANVIL_ASSIGN_OR_RETURN(lowered, lower::LowerToTir(model, options, &stats));
    module = &*lowered;
  }
  std::string text;
  if (cc) {
    ANVIL_ASSIGN_OR_RETURN(lower::EmittedModule emitted, lower::EmitCc(*module));
    text = std::move(emitted.source);
  } else {
    text = tir::PrintModule(*module);
  }
  if (timing) {
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::cerr << absl::StrFormat("anvil-opt: Tensor IR %s%s in %.3f s\n",
                                 lowered ? "lowered and " : "", cc ? "emitted as C++" : "printed",
                                 seconds);
  }
  if (output.empty()) {
    std::cout << text;
    std::cout.flush();
    return absl::OkStatus();
  }
  return WriteTextFile(ResolveUserPath(output), text);
}

// Infers shapes (unknown ops skipped) and writes every value's shape with its ranges.
absl::Status EmitShapes(Model& model, const std::string& output) {
  ShapeInferenceOptions options;
  options.skip_unknown_ops = true;
  ANVIL_RETURN_IF_ERROR(InferShapes(model, options, nullptr).status());
  ANVIL_ASSIGN_OR_RETURN(ShapesReport report, ReportShapes(model));
  if (output.empty()) {
    std::cout << report.text;
    std::cout.flush();
    return absl::OkStatus();
  }
  return WriteTextFile(ResolveUserPath(output), report.text);
}

absl::Status Run(const Flags& flags) {
  const Progress progress("anvil-opt", flags.quiet);
  std::unique_ptr<Model> model;
  std::string pipeline;
  bool timing = flags.timing;
  // Spec breaches that runtimes tolerate, found at load and after passes (and graphs the import
  // sorted): printed after the run.
  std::vector<std::string> warnings;
  if (flags.model.empty()) {
    absl::StatusOr<std::unique_ptr<Model>> parsed = ParseModelText(DefaultModelText());
    if (!parsed.ok()) {
      return absl::InternalError(
          absl::StrCat("the embedded default model does not parse: ", parsed.status().message()));
    }
    model = *std::move(parsed);
    pipeline = flags.passes.value_or(kDefaultPipeline);
    timing = true;
    std::cerr << "anvil-opt: no model given; running '" << Excerpt(pipeline)
              << "' on the embedded default model (see --help)\n";
  } else {
    const std::string path = ResolveUserPath(flags.model);
    ScopedProgress importing(&progress, absl::StrCat("import ", path), ModelFileBytes(path));
    ANVIL_ASSIGN_OR_RETURN(model, LoadModel(path, &warnings));
    pipeline = flags.passes.value_or("");
  }
  if (absl::Status valid = VerifyModel(*model, &warnings); !valid.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("invalid model: ", valid.message()));
  }
  if (!flags.input_ranges.empty()) {
    if (absl::Status s = AddInputRanges(*model, flags.input_ranges); !s.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("--", s.message()));
    }
  }
  if (!flags.output.empty() && !flags.emit_tir && !flags.emit_shapes) {
    // Fail on a bad output name before spending time on passes.
    absl::StatusOr<ModelFormat> format = ModelFormatFromPath(flags.output);
    if (!format.ok()) return format.status();
  }

  ANVIL_ASSIGN_OR_RETURN(PassManager manager, PassManager::Parse(pipeline));
  // --print-ir-after names graph passes and Tensor IR passes (which lower-to-tir runs).
  std::vector<std::string> print_after, print_tir_after;
  for (const std::string& name : flags.print_ir_after) {
    if (IsPassRegistered(name)) {
      print_after.push_back(name);
    } else if (tir::IsPassRegistered(name)) {
      print_tir_after.push_back(name);
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat("--print-ir-after: unknown pass '", Excerpt(name), "'; available passes: ",
                       AvailablePassNames(), "; Tensor IR passes: ", tir::AvailablePassNames()));
    }
  }
  TirInstrumentations tir_instrumentations;
  if (flags.print_ir_after_all) {
    tir_instrumentations.print = tir::PrintIrInstrumentation::AfterAll(std::cerr);
  } else if (!print_tir_after.empty()) {
    tir_instrumentations.print =
        tir::PrintIrInstrumentation::AfterPasses(std::cerr, print_tir_after);
  }
  if (flags.stats) tir_instrumentations.stats = std::make_unique<tir::StatisticsInstrumentation>();
  if (timing) tir_instrumentations.timer = std::make_unique<tir::TimingInstrumentation>();
  for (const std::unique_ptr<Pass>& pass : manager.passes()) {
    if (auto* lower_to_tir = dynamic_cast<lower::LowerToTirPass*>(pass.get())) {
      for (tir::PassInstrumentation* inst : tir_instrumentations.All()) {
        lower_to_tir->AddTirInstrumentation(inst);
      }
    }
  }
  // Order matters (see pass_manager.h): printing and verification wrap outside timing, so the
  // timer, added last, measures the passes alone.
  StatisticsInstrumentation* stats = nullptr;
  TimingInstrumentation* timer = nullptr;
  if (flags.print_ir_after_all) {
    manager.AddInstrumentation(PrintIrInstrumentation::AfterAll(std::cerr));
  } else if (!print_after.empty()) {
    manager.AddInstrumentation(PrintIrInstrumentation::AfterPasses(std::cerr, print_after));
  }
  VerifierInstrumentation* verifier =
      flags.verify ? manager.AddInstrumentation(std::make_unique<VerifierInstrumentation>())
                   : nullptr;
  // Releases folded constants that no pass references any more, between passes.
  DisposableGarbageCollector* gc =
      flags.gc ? manager.AddInstrumentation(std::make_unique<DisposableGarbageCollector>())
               : nullptr;
  if (flags.stats) {
    stats = manager.AddInstrumentation(std::make_unique<StatisticsInstrumentation>());
  }
  manager.AddInstrumentation(std::make_unique<ProgressInstrumentation>(&progress));
  if (timing) timer = manager.AddInstrumentation(std::make_unique<TimingInstrumentation>());

  absl::Status status = manager.Run(*model);
  if (verifier != nullptr) {
    warnings.insert(warnings.end(), verifier->warnings().begin(), verifier->warnings().end());
  }
  PrintWarnings(std::cerr, "anvil-opt", warnings);
  // The Tensor IR tables follow the graph's, when a lowering ran Tensor IR passes.
  auto print_tir_reports = [&] {
    if (tir_instrumentations.timer != nullptr && !tir_instrumentations.timer->entries().empty()) {
      std::cerr << "Tensor IR passes:\n";
      tir_instrumentations.timer->PrintReport(std::cerr);
    }
    if (tir_instrumentations.stats != nullptr &&
        !tir_instrumentations.stats->statistics().empty()) {
      std::cerr << "Tensor IR passes:\n";
      tir_instrumentations.stats->PrintReport(std::cerr);
    }
  };
  if (timer != nullptr) timer->PrintReport(std::cerr);
  if (stats != nullptr) {
    stats->PrintReport(std::cerr);
    if (gc != nullptr) gc->PrintReport(std::cerr);
  }
  if (!status.ok()) {
    print_tir_reports();
    return status;
  }

  if (flags.emit_shapes) {
    print_tir_reports();
    return EmitShapes(*model, flags.output);
  }
  if (flags.emit_tir) {
    absl::Status emitted =
        EmitTir(*model, flags.output, timing, flags.emit_cc, tir_instrumentations);
    print_tir_reports();
    return emitted;
  }
  print_tir_reports();
  if (flags.output.empty()) {
    std::cout << PrintModel(*model);
    std::cout.flush();
    return absl::OkStatus();
  }
  SaveOptions save;
  save.external_data_threshold = flags.external_data_threshold;
  std::vector<std::string> losses;
  save.text_losses = &losses;
  const auto save_start = std::chrono::steady_clock::now();
  const std::string output_path = ResolveUserPath(flags.output);
  absl::Status saved = SaveModel(*model, output_path, save);
  if (saved.ok() && timing) {
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - save_start).count();
    std::cerr << absl::StrFormat("anvil-opt: wrote %s (%.1f MiB) in %.2f s\n", output_path,
                                 static_cast<double>(ModelFileBytes(output_path)) / (1 << 20),
                                 seconds);
  } else if (saved.ok()) {
    progress.Report(absl::StrCat("export ", output_path),
                    std::chrono::steady_clock::now() - save_start, ModelFileBytes(output_path));
  }
  // Binary output keeps everything; say what the text syntax could not.
  for (const std::string& loss : losses) {
    std::cerr << "anvil-opt: warning: text output drops " << loss << "\n";
  }
  // The process ends here: freeing a million-node model would only cost time (as LLVM tools do,
  // unless a leak checker is watching).
#if !defined(__SANITIZE_ADDRESS__)
  (void)model.release();
#endif
  return saved;
}

}  // namespace
}  // namespace anvil

int main(int argc, char** argv) {
  absl::StatusOr<anvil::Flags> flags = anvil::ParseFlags(argc, argv);
  if (!flags.ok()) {
    anvil::PrintError(std::cerr, "anvil-opt", flags.status().message());
    return 2;
  }
  if (flags->help) {
    std::cout << anvil::kUsage;
    return 0;
  }
  if (flags->list_passes) {
    anvil::ListPassesTo(std::cout);
    return 0;
  }
  try {
    absl::Status status = anvil::Run(*flags);
    if (!status.ok()) {
      anvil::PrintError(std::cerr, "anvil-opt", status.message());
      return 1;
    }
  } catch (const std::exception& e) {
    // Third-party code (protobuf, the ONNX parser) may throw on malformed input, and an
    // allocation no limit bounds may fail.
    anvil::PrintError(std::cerr, "anvil-opt", anvil::ExceptionMessage(e));
    return 1;
  }
  return 0;
}
