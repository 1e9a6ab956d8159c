// anvil-run: runs an ONNX model with Anvil's runtime (runtime/session.h), the counterpart of
// ../shared/bench/ort_run.js for ONNX Runtime.
//
//   anvil-run MODEL [--input-dir DIR] [--input NAME=FILE.pb]... [--shape NAME=D0,D1,...]...
//             [--seed N] [--iters N] [--warmup N] [--threads N] [--out DIR] [--memory]
//             [--pipeline=P] [--no-arena] [--keep-weights] [--profile[=nodes]]
//             [--max-allocation-bytes N]
//             [--backend=interpreter|tir-eval|compiled] [--lower=OPTIONS]
//             [--compare=BACKEND[:OPTIONS]]
//             [--generate N [--prompt-len P] [--rounds R] [--grow-cache]] [--quiet] [--help]
//
// Inputs are the graph inputs that are not initializers, in order: --input NAME=FILE, else
// input_K.pb from --input-dir (every input then needs one), else seeded random tensors with the
// --shape dims (symbolic dims not given are 1) made exactly as ort_run.js makes them (mulberry32,
// the same value rules), so the two tools see the same inputs for the same seed. A named source
// that cannot be read (a missing directory or file) is an error before the model loads. Prints
// one JSON line: median/min/max latency in ms over --iters runs after --warmup, the outputs' dims
// and types (a sequence's element dims), with --compare a second engine's latency over runs
// alternating with the first and the median ratio of adjacent pairs (robust to a machine whose
// speed drifts), and with --memory where the memory goes (MemoryBreakdown below). --out
// (created before the run) writes the inputs used and the outputs as input_K.pb / output_K.pb
// (tensor bytes past 1 GiB in a file go to <file>.data as ONNX external data: protobuf files hold
// 2 GB). Files are TensorProto, SequenceProto or OptionalProto as the value's declared type says
// (the backend suite's convention). Relative paths are relative to where `bazel run` was started.
//
// --generate runs a decoder LLM's greedy generation instead (tools/generate_loop.h): one JSON line
// with the tokens, time to first token, decode tokens/s and the peak RSS, as
// tools/ort_generate.js prints them for ONNX Runtime (with --memory, the breakdown too).
//
// Any error prints one line `anvil-run: error: ...` and exits 1 (2 for command-line mistakes).
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "base/absl_compat.h"
#include "base/excerpt.h"
#include "base/parallel.h"
#include "base/progress.h"
#include "base/status_macros.h"
#include "graph/model_io.h"
#include "kernels/tensor.h"
#include "kernels/tensor_file.h"
#include "lower/evaluator/tir_session.h"
#include "runtime/session.h"
#include "shape/dim_ranges.h"
#include "tools/command_line.h"
#include "tools/generate_loop.h"

namespace anvil {
namespace {

constexpr char kUsage[] = R"(usage: anvil-run MODEL [options]

Runs an ONNX model (.onnx or .onnxtxt) with Anvil's runtime and prints one JSON line with the
latency (median/min/max ms) and the outputs' dims and types (of a sequence: each element's dims).
Files are TensorProto, SequenceProto or OptionalProto as the value's declared type says.

options:
  --input-dir DIR        read input_K.pb (K-th graph input that is not an initializer) for
                         every input not given by --input (each must be there)
  --input NAME=FILE      read input NAME from a file
  --shape NAME=D0,D1,..  dims of a random input (others: declared dims, unknown ones 1, or
                         the low end of their range when 1 is outside it)
  --input-ranges=RANGES  ranges of the inputs' symbolic dims, e.g. batch=1:64,seq=1:4096 (hi
                         empty: unbounded): runs outside them are errors, and when they bound
                         every intermediate the arena is planned once for the upper bounds
  --seed N               seed of the random inputs (default 1, as ort_run.js)
  --iters N              timed runs (default 10)
  --warmup N             untimed runs first (default 2)
  --threads N            intra-op threads for the kernels, GEMMs and compiled parallel loops
                         (0: every CPU; default 1); results do not depend on it
  --out DIR              write input_K.pb and output_K.pb there (created first; tensor
                         bytes past 1 GiB per file go to <file>.data as external data)
  --memory               add where the memory goes to the JSON line and print it (stderr):
                         weights mapped from external data, weights in memory, the kernels'
                         packed copies, the activation arena, scratch, and the process's
                         resident bytes (anonymous, file-backed) with what none of these
                         accounts for; the arena planned (for the dims' upper bounds when
                         --input-ranges or the model's ranges bound them all) and what the
                         last run used of it
  --pipeline=P           passes run at load (default "shape-inference,einsum-decompose,
                         fuse-matmul-transpose,fold-batchnorm,fuse-qdq,fuse-layernorm,
                         fuse-attention,fuse-activations,widen-float16,nchwc,dce")
  --no-arena             every tensor on the heap (no memory plan)
  --keep-weights         keep the bytes of weights that kernels pack into their own copies
                         (by default they are released at load: --memory reports the bytes)
  --profile              print the time per op type over the timed runs (stderr)
  --profile=nodes        also the time of every node, with its input and output dims
  --backend=B            interpreter (default: the runtime's Session), tir-eval (lowered to
                         the Tensor IR with lower-to-tir and run by its reference evaluator) or
                         compiled (that IR emitted as C++, compiled with $CXX and cached;
                         before the first run a cost check puts the kernel call in place of
                         emitted loops measured slower than the interpreter's kernel, and
                         prints a line about it: lower/README.md)
  --lower=OPTIONS        lower-to-tir options of the tir-eval and compiled backends, as in a
                         pipeline without braces (e.g. tile-rows=false,tile-bytes=32768)
  --compare=B[:OPTIONS]  also load backend B (with lowering OPTIONS) and alternate its runs
                         with the first's; adds "vs" (its median and min, and the median of
                         first/second over adjacent pairs of runs) to the JSON line
  --max-allocation-bytes N
                         refuse any single allocation (a tensor, the arena) over N bytes with
                         an error naming the node (default: half the physical memory; 0: none)
  --generate N           greedy generation with a decoder LLM as ONNX Runtime's model builder
                         writes it: a prompt of --prompt-len tokens (default 16), then decode
                         steps up to N tokens, the key/value cache bound as both past and present
                         (no copy per token; --grow-cache: each present fed back as the next
                         past); prints tokens, time to first token and decode tokens/s, the best
                         of --rounds R generations (default 1), and the peak RSS
  --quiet                no progress lines (loading steps that take a second or more:
                         import, verification, each pass, planning and weight packing)
  --help                 show this text
)";

struct Flags {
  std::string model;
  std::string input_dir;
  std::map<std::string, std::string> input_files;
  std::map<std::string, std::vector<int64_t>> shapes;
  uint32_t seed = 1;
  int64_t iters = 10;
  int64_t warmup = 2;
  int64_t threads = 1;
  std::string out;
  bool memory = false;
  std::optional<std::string> pipeline;
  bool arena = true;
  bool keep_weights = false;
  bool profile = false;
  bool profile_nodes = false;
  std::optional<int64_t> max_allocation_bytes;
  std::string backend = "interpreter";
  std::string lower;  // --lower
  std::optional<std::string> compare_backend;
  std::string compare_lower;
  GenerateOptions generate;
  bool generating = false;
  bool quiet = false;  // no progress lines
  std::vector<SymbolRange> input_ranges;
};

bool KnownBackend(std::string_view b) {
  return b == "interpreter" || b == "tir-eval" || b == "compiled";
}

absl::StatusOr<Flags> ParseFlags(int argc, char** argv) {
  Flags flags;
  CommandLine args(argc, argv);
  auto usage = [](std::string message) { return absl::InvalidArgumentError(message); };
  while (args.Next()) {
    const std::string& key = args.key();
    if (key == "--input-dir") {
      ANVIL_ASSIGN_OR_RETURN(flags.input_dir, args.Path());
    } else if (key == "--input" || key == "--shape") {
      ANVIL_ASSIGN_OR_RETURN(const std::string v, args.Value());
      const size_t eq = v.find('=');
      if (eq == std::string::npos || eq == 0) {
        return usage(absl::StrCat(key, " needs NAME=", key == "--input" ? "FILE" : "D0,D1,..."));
      }
      const std::string name = v.substr(0, eq), rest = v.substr(eq + 1);
      if (key == "--input") {
        flags.input_files[name] = ResolveUserPath(rest);
      } else {
        std::vector<int64_t> dims;
        for (absl::string_view d : absl::StrSplit(rest, ',', absl::SkipEmpty())) {
          int64_t n;
          if (!absl::SimpleAtoi(d, &n) || n < 0) {
            return usage(absl::StrCat("--shape ", v, ": '", d, "' is not a dim"));
          }
          dims.push_back(n);
        }
        flags.shapes[name] = dims;
      }
    } else if (key == "--seed") {
      ANVIL_ASSIGN_OR_RETURN(const int64_t seed, args.Count(0));
      flags.seed = static_cast<uint32_t>(seed);
    } else if (key == "--iters") {
      ANVIL_ASSIGN_OR_RETURN(flags.iters, args.Count(1));
    } else if (key == "--warmup") {
      ANVIL_ASSIGN_OR_RETURN(flags.warmup, args.Count(0));
    } else if (key == "--threads") {
      ANVIL_ASSIGN_OR_RETURN(flags.threads, args.Count(0));
      if (flags.threads == 0) flags.threads = parallel::HardwareThreads();
    } else if (key == "--out") {
      ANVIL_ASSIGN_OR_RETURN(flags.out, args.Path());
    } else if (key == "--pipeline") {
      ANVIL_ASSIGN_OR_RETURN(flags.pipeline, args.Value());
    } else if (key == "--backend") {
      ANVIL_ASSIGN_OR_RETURN(flags.backend, args.Value());
      if (!KnownBackend(flags.backend)) {
        return usage(absl::StrCat("--backend: unknown '", flags.backend,
                                  "'; expected interpreter, tir-eval or compiled"));
      }
    } else if (key == "--lower") {
      ANVIL_ASSIGN_OR_RETURN(flags.lower, args.Value());
    } else if (key == "--compare") {
      ANVIL_ASSIGN_OR_RETURN(const std::string v, args.Value());
      const size_t colon = v.find(':');
      flags.compare_backend = v.substr(0, colon);
      if (colon != std::string::npos) flags.compare_lower = v.substr(colon + 1);
      if (!KnownBackend(*flags.compare_backend)) {
        return usage(absl::StrCat("--compare: unknown backend '", *flags.compare_backend,
                                  "'; expected interpreter, tir-eval or compiled"));
      }
    } else if (key == "--input-ranges") {
      ANVIL_ASSIGN_OR_RETURN(const std::string v, args.Value());
      absl::StatusOr<std::vector<SymbolRange>> ranges = ParseSymbolRanges(v);
      if (!ranges.ok()) return usage(absl::StrCat("--input-ranges: ", ranges.status().message()));
      flags.input_ranges = *std::move(ranges);
    } else if (key == "--memory") {
      ANVIL_RETURN_IF_ERROR(args.NoValue());
      flags.memory = true;
    } else if (key == "--no-arena") {
      ANVIL_RETURN_IF_ERROR(args.NoValue());
      flags.arena = false;
    } else if (key == "--quiet") {
      ANVIL_RETURN_IF_ERROR(args.NoValue());
      flags.quiet = true;
    } else if (key == "--keep-weights") {
      ANVIL_RETURN_IF_ERROR(args.NoValue());
      flags.keep_weights = true;
    } else if (key == "--profile") {
      flags.profile = true;
      if (args.arg() != key) {
        ANVIL_ASSIGN_OR_RETURN(const std::string v, args.Value());
        if (v != "nodes") return absl::InvalidArgumentError("--profile=V: V must be 'nodes'");
        flags.profile_nodes = true;
      }
    } else if (key == "--generate") {
      ANVIL_ASSIGN_OR_RETURN(flags.generate.generate, args.Count(1));
      flags.generating = true;
    } else if (key == "--prompt-len") {
      ANVIL_ASSIGN_OR_RETURN(flags.generate.prompt_len, args.Count(1));
    } else if (key == "--rounds") {
      ANVIL_ASSIGN_OR_RETURN(flags.generate.rounds, args.Count(1));
    } else if (key == "--grow-cache") {
      ANVIL_RETURN_IF_ERROR(args.NoValue());
      flags.generate.share_cache = false;
    } else if (key == "--max-allocation-bytes") {
      ANVIL_ASSIGN_OR_RETURN(flags.max_allocation_bytes, args.Count(0));
    } else if (args.IsOption()) {
      return args.Unknown();
    } else if (flags.model.empty()) {
      flags.model = ResolveUserPath(args.arg());
    } else {
      return usage(absl::StrCat("unexpected argument '", args.arg(), "' (one model only)"));
    }
  }
  if (flags.model.empty()) return usage("no model given; see --help");
  if (flags.backend != "interpreter" && (flags.profile || !flags.arena || flags.keep_weights)) {
    return usage("--profile, --no-arena and --keep-weights are options of the interpreter backend");
  }
  if (flags.compare_backend && flags.memory) return usage("--memory and --compare together");
  if (flags.generating &&
      (flags.backend != "interpreter" || flags.compare_backend || !flags.out.empty())) {
    return usage("--generate runs the interpreter alone (no --backend, --compare, --out)");
  }
  if (!flags.lower.empty() && flags.backend == "interpreter") {
    return usage("--lower is an option of the tir-eval and compiled backends");
  }
  return flags;
}

// ort_run.js's generator (mulberry32), so that the same seed gives the same inputs.
class Mulberry32 {
 public:
  explicit Mulberry32(uint32_t seed) : a_(seed) {}
  double Next() {
    a_ += 0x6D2B79F5u;
    uint32_t t = a_;
    t = (t ^ (t >> 15)) * (t | 1u);
    t ^= t + (t ^ (t >> 7)) * (t | 61u);
    return static_cast<double>(t ^ (t >> 14)) / 4294967296.0;
  }

 private:
  uint32_t a_;
};

// A random tensor as ort_run.js makes it: floats uniform in [-1, 1), integers in [0, 4),
// bools half true.
absl::StatusOr<Tensor> RandomTensor(const Value& input, ElementType type,
                                    const std::vector<int64_t>& dims, int64_t max_bytes,
                                    Mulberry32& rng) {
  absl::StatusOr<Tensor> allocated = Tensor::Allocate(type, dims, max_bytes, /*zero=*/false);
  if (!allocated.ok()) {
    return absl::Status(
        allocated.status().code(),
        absl::StrCat("random input '", input.name(), "': ", allocated.status().message()));
  }
  Tensor t = *std::move(allocated);
  const int64_t n = t.NumElements();
  for (int64_t i = 0; i < n; ++i) {
    const double u = rng.Next();
    switch (type) {
      case ElementType::kFloat:
        t.As<float>()[i] = static_cast<float>(u * 2 - 1);
        break;
      case ElementType::kDouble:
        t.As<double>()[i] = u * 2 - 1;
        break;
      case ElementType::kBool:
        t.As<uint8_t>()[i] = u < 0.5 ? 0 : 1;
        break;
      case ElementType::kInt64:
        t.As<int64_t>()[i] = static_cast<int64_t>(u * 4);
        break;
      case ElementType::kUint64:
        t.As<uint64_t>()[i] = static_cast<uint64_t>(u * 4);
        break;
      case ElementType::kInt32:
        t.As<int32_t>()[i] = static_cast<int32_t>(u * 4);
        break;
      case ElementType::kUint32:
        t.As<uint32_t>()[i] = static_cast<uint32_t>(u * 4);
        break;
      case ElementType::kInt16:
      case ElementType::kUint16:
        t.As<uint16_t>()[i] = static_cast<uint16_t>(u * 4);
        break;
      case ElementType::kInt8:
      case ElementType::kUint8:
        t.As<uint8_t>()[i] = static_cast<uint8_t>(u * 4);
        break;
      default:
        return absl::UnimplementedError(absl::StrCat("cannot make a random input of type ",
                                                     AsAbsl(ElementTypeName(type)), " for '",
                                                     input.name(), "'"));
    }
  }
  return t;
}

std::string JsonString(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out += absl::StrFormat("\\u%04x", c);
    } else {
      out += c;
    }
  }
  return out + "\"";
}

// The engine a run uses: the runtime's Session, or lowering plus the Tensor IR evaluator.
struct Engine {
  std::unique_ptr<Session> session;
  std::unique_ptr<lower::TirSession> tir;
  const std::vector<const Value*>& inputs() const {
    return session ? session->inputs() : tir->inputs();
  }
  const std::vector<const Value*>& outputs() const {
    return session ? session->outputs() : tir->outputs();
  }
  absl::StatusOr<std::vector<Tensor>> Run(const absl::flat_hash_map<std::string, Tensor>& in) {
    return session ? session->Run(in) : tir->Run(in);
  }
};

// Loads the model into `backend` (lowered with `lower` for tir-eval and compiled).
absl::StatusOr<Engine> MakeEngine(const Flags& flags, const SessionOptions& options,
                                  const std::string& backend, const std::string& lower) {
  Engine engine;
  if (backend == "interpreter") {
    ANVIL_ASSIGN_OR_RETURN(engine.session, Session::Load(flags.model, options));
    return engine;
  }
  lower::TirSessionOptions tir_options;
  ANVIL_ASSIGN_OR_RETURN(tir_options.lowering, lower::ParseLoweringOptions(lower));
  tir_options.pipeline = options.pipeline;
  tir_options.evaluator.max_allocation_bytes = options.max_allocation_bytes;
  tir_options.compile = backend == "compiled";
  tir_options.threads = options.threads;
  tir_options.jit.max_allocation_bytes = options.max_allocation_bytes;
  if (options.input_ranges.empty()) {
    ANVIL_ASSIGN_OR_RETURN(engine.tir, lower::TirSession::Load(flags.model, tir_options));
  } else {
    // The ranges go into the model, where lowering reads them (checks, bounded buffers).
    ANVIL_ASSIGN_OR_RETURN(std::unique_ptr<Model> model, LoadModel(flags.model));
    ANVIL_RETURN_IF_ERROR(AddInputRanges(*model, options.input_ranges));
    ANVIL_ASSIGN_OR_RETURN(engine.tir, lower::TirSession::Load(std::move(model), tir_options));
  }
  if (const lower::CompiledModule* c = engine.tir->compiled()) {
    const lower::JitStats& js = c->stats();
    std::cerr << absl::StrFormat(
        "anvil-run: compiled: emit %.3f s, %s, dlopen %.3f s (%s)\n", js.emit_seconds,
        js.cached ? std::string("cached") : absl::StrFormat("compile %.2f s", js.compile_seconds),
        js.load_seconds, js.library_path);
  }
  return engine;
}

// One line on what the cost check did.
std::string CostCheckReport(const lower::CostCheckStats& c) {
  if (!c.skipped.empty()) return absl::StrCat("cost check skipped: ", c.skipped);
  if (c.cached) {
    return absl::StrCat("cost check cached: ", c.kernel_nodes.size(),
                        " nodes call their kernels instead of emitted loops");
  }
  std::string line = absl::StrFormat(
      "cost check: %d of %d groups of emitted loops slower than the interpreter's kernels",
      c.slower, c.groups);
  if (c.slower > 0) {
    absl::StrAppend(&line, absl::StrFormat("; with their %d nodes as kernel calls a run took "
                                           "%.3f ms instead of %.3f ms: %s",
                                           c.checked_nodes, c.checked_seconds * 1e3,
                                           c.first_seconds * 1e3, c.kept ? "kept" : "not kept"));
  }
  absl::StrAppend(&line, absl::StrFormat(" (interpreter %.3f ms; %.2f s)",
                                         c.interpreter_seconds * 1e3, c.seconds));
  return line;
}

std::string RuntimeName(const std::string& backend) {
  return backend == "compiled" ? "anvil-compiled"
                               : (backend == "tir-eval" ? "anvil-tir-eval" : "anvil");
}

// Named input sources must be readable, and --out creatable, before anything loads or runs: a
// typo must not silently become random inputs, nor a long run end in "cannot write".
absl::Status CheckPaths(const Flags& flags) {
  std::error_code error;
  if (!flags.input_dir.empty()) {
    const std::filesystem::file_status st = std::filesystem::status(flags.input_dir, error);
    if (!std::filesystem::exists(st)) {
      return absl::NotFoundError(
          absl::StrCat("--input-dir ", Quoted(flags.input_dir, 300), ": no such directory"));
    }
    if (!std::filesystem::is_directory(st)) {
      return absl::InvalidArgumentError(
          absl::StrCat("--input-dir ", Quoted(flags.input_dir, 300), " is not a directory"));
    }
  }
  for (const auto& [name, file] : flags.input_files) {
    const std::filesystem::file_status st = std::filesystem::status(file, error);
    if (!std::filesystem::is_regular_file(st)) {
      return absl::NotFoundError(
          absl::StrCat("--input ", Quoted(name), ": ", Quoted(file, 300),
                       std::filesystem::exists(st) ? " is not a regular file" : ": no such file"));
    }
  }
  if (!flags.out.empty()) {
    std::filesystem::create_directories(flags.out, error);
    if (error) {
      return absl::PermissionDeniedError(
          absl::StrCat("--out: cannot create ", Quoted(flags.out, 300), ": ", error.message()));
    }
  }
  return absl::OkStatus();
}

// The process's resident memory from /proc/self/status (bytes; 0 where the kernel has no line).
struct ResidentBytes {
  int64_t peak = 0;  // VmHWM
  int64_t anon = 0;  // RssAnon: heap, arena, packed copies, scratch, stacks
  int64_t file = 0;  // RssFile: mapped weights read so far, the binary and its libraries
};

ResidentBytes ReadResidentBytes() {
  ResidentBytes r;
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    char key[32];
    long long kb = 0;  // NOLINT(runtime/int): sscanf's %lld
    if (std::sscanf(line.c_str(), "%31s %lld kB", key, &kb) != 2) continue;
    const std::string name = key;
    if (name == "VmHWM:") r.peak = kb * 1024;
    if (name == "RssAnon:") r.anon = kb * 1024;
    if (name == "RssFile:") r.file = kb * 1024;
  }
  return r;
}

// --memory's figures: the session's accounting (MemoryStats) and the process's resident bytes,
// as (JSON key, bytes) pairs, and one readable stderr line. "unaccounted_anon_bytes" is RssAnon
// less what the session accounts for in memory (weights in memory, kernels' copies, arena,
// scratch): the allocator's slack, heap tensors, the model's protobuf, libraries' own memory.
std::vector<std::pair<std::string, int64_t>> MemoryBreakdown(const MemoryStats& m) {
  const ResidentBytes rss = ReadResidentBytes();
  const int64_t accounted =
      m.in_memory_weight_bytes + m.kernel_copy_bytes + m.arena_bytes + m.scratch_bytes;
  std::vector<std::pair<std::string, int64_t>> fields = {
      {"arena_bytes", m.arena_bytes},
      {"lower_bound_bytes", m.lower_bound_bytes},
      {"unshared_bytes", m.unshared_bytes},
      {"in_place_reuses", m.in_place_reuses},
      {"aliases", m.aliases},
      {"heap_tensors", m.heap_tensors},
      {"bounded_plan", m.bounded_plan ? 1 : 0},
      {"used_bytes", m.used_bytes},
      {"arena_allocations", m.arena_allocations},
      {"released_weight_bytes", m.released_weight_bytes},
      {"mapped_weight_bytes", m.mapped_weight_bytes},
      {"in_memory_weight_bytes", m.in_memory_weight_bytes},
      {"kernel_copy_bytes", m.kernel_copy_bytes},
      {"scratch_bytes", m.scratch_bytes},
      {"rss_peak_bytes", rss.peak},
      {"rss_anon_bytes", rss.anon},
      {"rss_file_bytes", rss.file},
      {"unaccounted_anon_bytes", rss.anon - accounted},
  };
  const auto mb = [](int64_t b) { return b / 1048576.0; };
  std::cerr << absl::StrFormat(
      "anvil-run: arena: %lld bytes planned %s, %lld used by the last run, allocated %lld "
      "time(s)\n",
      static_cast<long long>(m.arena_bytes),
      m.bounded_plan ? "once for the dims' upper bounds"
                     : absl::StrCat("for the last run's sizes (unbounded: ",
                                    m.unbounded.empty() ? "none" : m.unbounded, ")"),
      static_cast<long long>(m.used_bytes), static_cast<long long>(m.arena_allocations));
  std::cerr << absl::StrFormat(
      "anvil-run: memory (MB): weights mapped %.1f, in memory %.1f, kernels' copies %.1f "
      "(released %.1f); arena %.1f (lower bound %.1f); scratch %.1f; resident %.1f anon + %.1f "
      "file, peak %.1f; anon not accounted for %.1f\n",
      mb(m.mapped_weight_bytes), mb(m.in_memory_weight_bytes), mb(m.kernel_copy_bytes),
      mb(m.released_weight_bytes), mb(m.arena_bytes), mb(m.lower_bound_bytes), mb(m.scratch_bytes),
      mb(rss.anon), mb(rss.file), mb(rss.peak), mb(rss.anon - accounted));
  return fields;
}

// --profile's tables on stderr: time per op type, and with --profile=nodes per node.
void PrintProfile(const Flags& flags, const Engine& session) {
  if (!flags.profile || !session.session) return;
  int64_t total = 0;
  for (const OpProfile& p : session.session->Profile()) total += p.total_nanos;
  std::cerr << absl::StrFormat("anvil-run: profile over %d runs (ms per run):\n",
                               session.session->runs());
  for (const OpProfile& p : session.session->Profile()) {
    std::cerr << absl::StrFormat(
        "  %-24s %4d nodes %10.4f ms %6.1f%%\n", p.op_type, p.nodes,
        p.total_nanos / 1e6 / std::max<int64_t>(1, session.session->runs()),
        total > 0 ? 100.0 * p.total_nanos / total : 0.0);
  }
  if (flags.profile_nodes) {
    std::cerr << "anvil-run: profile per node (ms per run):\n";
    for (const NodeProfile& p : session.session->NodeProfiles()) {
      std::cerr << absl::StrFormat(
          "  %10.4f %5.1f%%  %-20s %-24s %s\n",
          p.total_nanos / 1e6 / std::max<int64_t>(1, session.session->runs()),
          total > 0 ? 100.0 * p.total_nanos / total : 0.0, p.op_type, p.name, p.dims);
    }
  }
}

absl::Status Run(const Flags& flags) {
  ANVIL_RETURN_IF_ERROR(CheckPaths(flags));
  SessionOptions options;
  if (flags.pipeline) options.pipeline = *flags.pipeline;
  options.plan_memory = flags.arena;
  options.release_packed_weights = !flags.keep_weights;
  options.profile = flags.profile;
  options.threads = static_cast<int>(flags.threads);
  options.input_ranges = flags.input_ranges;
  const Progress progress("anvil-run", flags.quiet);
  options.progress = &progress;
  if (flags.max_allocation_bytes) {
    options.max_allocation_bytes =
        *flags.max_allocation_bytes == 0 ? kNoAllocationLimit : *flags.max_allocation_bytes;
  }
  ANVIL_ASSIGN_OR_RETURN(Engine session, MakeEngine(flags, options, flags.backend, flags.lower));
  PrintWarnings(std::cerr, "anvil-run",
                session.session ? session.session->warnings() : session.tir->warnings());
  if (flags.generating) {
    GenerateOptions generate = flags.generate;
    generate.seed = flags.seed;
    ANVIL_ASSIGN_OR_RETURN(const GenerateResult result, Generate(*session.session, generate));
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    std::string memory;
    if (flags.memory) {
      for (const auto& [key, bytes] : MemoryBreakdown(session.session->memory_stats())) {
        absl::StrAppend(&memory, ", \"", key, "\": ", bytes);
      }
    }
    std::cout << "{\"engine\": \"anvil\", \"threads\": " << flags.threads << ", "
              << GenerateJsonFields(generate, result)
              << ", \"peak_rss_mb\": " << absl::StrFormat("%.1f", usage.ru_maxrss / 1024.0)
              << memory << "}" << std::endl;
    PrintProfile(flags, session);
    return absl::OkStatus();
  }
  std::optional<Engine> other;
  if (flags.compare_backend) {
    ANVIL_ASSIGN_OR_RETURN(other,
                           MakeEngine(flags, options, *flags.compare_backend, flags.compare_lower));
  }

  // --shape and --input must name inputs the caller provides.
  auto check_names = [&](const char* flag, const auto& named) -> absl::Status {
    for (const auto& [name, unused] : named) {
      bool found = false;
      for (const Value* in : session.inputs()) found = found || in->name() == name;
      if (found) continue;
      std::vector<std::string> names;
      for (const Value* in : session.inputs()) names.push_back(Quoted(in->name()));
      return absl::InvalidArgumentError(absl::StrCat(
          flag, " names no input ", Quoted(name),
          " (the model's inputs: ", names.empty() ? "none" : absl::StrJoin(names, ", "), ")"));
    }
    return absl::OkStatus();
  };
  ANVIL_RETURN_IF_ERROR(check_names("--shape", flags.shapes));
  ANVIL_RETURN_IF_ERROR(check_names("--input", flags.input_files));
  absl::flat_hash_map<std::string, Tensor> inputs;
  std::vector<Tensor> ordered;
  Mulberry32 rng(flags.seed);
  for (size_t k = 0; k < session.inputs().size(); ++k) {
    const Value& in = *session.inputs()[k];
    std::string file;
    if (auto it = flags.input_files.find(in.name()); it != flags.input_files.end()) {
      file = it->second;
    } else if (!flags.input_dir.empty()) {
      // Every input comes from the directory (or --input): none is made up silently.
      file = absl::StrCat(flags.input_dir, "/input_", k, ".pb");
      if (!std::filesystem::exists(file)) {
        return absl::NotFoundError(absl::StrCat("--input-dir ", Quoted(flags.input_dir, 300),
                                                " has no input_", k, ".pb for input ",
                                                Quoted(in.name()), " (give it with --input)"));
      }
    }
    Tensor tensor;
    if (!file.empty()) {
      ANVIL_ASSIGN_OR_RETURN(NamedTensor read, ReadValueFile(file, in.type()));
      tensor = read.tensor;
    } else {
      std::vector<int64_t> dims;
      if (auto it = flags.shapes.find(in.name()); it != flags.shapes.end()) {
        dims = it->second;
      } else if (in.type().has_shape()) {
        for (const Dim& d : in.type().shape()) {
          int64_t size = d.is_literal() && *d.value > 0 ? *d.value : 1;
          for (const SymbolRange& r : flags.input_ranges) {
            if (d.is_param() && r.name == d.param && size < r.lo) size = r.lo;
          }
          dims.push_back(size);
        }
      }
      ANVIL_ASSIGN_OR_RETURN(tensor, RandomTensor(in, in.type().element_type(), dims,
                                                  options.max_allocation_bytes, rng));
    }
    inputs[in.name()] = tensor;
    ordered.push_back(tensor);
  }

  // The compiled backend's cost check (lower/evaluator/cost_check.h) before any timed run.
  for (Engine* engine : {&session, other ? &*other : nullptr}) {
    if (engine == nullptr || engine->tir == nullptr || engine->tir->compiled() == nullptr) continue;
    ANVIL_RETURN_IF_ERROR(engine->tir->CheckCostsNow(inputs));
    std::cerr << "anvil-run: " << CostCheckReport(engine->tir->cost_check()) << "\n";
  }
  absl::StatusOr<std::vector<Tensor>> outputs;
  for (int64_t i = 0; i < flags.warmup; ++i) {
    outputs = session.Run(inputs);
    if (!outputs.ok()) return outputs.status();
    if (other) ANVIL_RETURN_IF_ERROR(other->Run(inputs).status());
  }
  if (session.session) session.session->ResetProfile();  // the timed runs only
  // With --compare the engines take turns, the first going first on even iterations.
  // (outputs keeps the first engine's results: they are what --out writes.)
  auto timed = [&](Engine& engine, std::vector<double>& times) -> absl::Status {
    const auto start = std::chrono::steady_clock::now();
    absl::StatusOr<std::vector<Tensor>> results = engine.Run(inputs);
    times.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
            .count());
    if (!results.ok()) return results.status();
    if (&engine == &session) outputs = *std::move(results);
    return absl::OkStatus();
  };
  std::vector<double> times, other_times;
  for (int64_t i = 0; i < flags.iters; ++i) {
    if (other && i % 2 == 1) ANVIL_RETURN_IF_ERROR(timed(*other, other_times));
    ANVIL_RETURN_IF_ERROR(timed(session, times));
    if (other && i % 2 == 0) ANVIL_RETURN_IF_ERROR(timed(*other, other_times));
  }
  std::vector<double> ratios;
  for (size_t i = 0; i < other_times.size(); ++i) ratios.push_back(times[i] / other_times[i]);
  std::sort(times.begin(), times.end());
  std::sort(other_times.begin(), other_times.end());
  std::sort(ratios.begin(), ratios.end());

  if (!flags.out.empty()) {  // created by CheckPaths
    for (size_t k = 0; k < ordered.size(); ++k) {
      ANVIL_RETURN_IF_ERROR(WriteValueFile(ordered[k], session.inputs()[k]->type(),
                                           session.inputs()[k]->name(),
                                           absl::StrCat(flags.out, "/input_", k, ".pb")));
    }
    for (size_t k = 0; k < outputs->size(); ++k) {
      ANVIL_RETURN_IF_ERROR(WriteValueFile((*outputs)[k], session.outputs()[k]->type(),
                                           session.outputs()[k]->name(),
                                           absl::StrCat(flags.out, "/output_", k, ".pb")));
    }
  }

  std::vector<std::string> out_json;
  for (size_t k = 0; k < outputs->size(); ++k) {
    const Tensor& t = (*outputs)[k];
    const std::string name = JsonString(session.outputs()[k]->name());
    const std::string element = JsonString(std::string(ElementTypeName(t.type())));
    if (t.kind() == ValueKind::kSequence) {
      // A sequence: its element type and each element's dims.
      std::vector<std::string> dims;
      for (const Tensor& e : t.elements())
        dims.push_back(absl::StrCat("[", absl::StrJoin(e.dims(), ","), "]"));
      out_json.push_back(absl::StrCat("{\"name\":", name, ",\"sequence\":[",
                                      absl::StrJoin(dims, ","), "],\"type\":", element, "}"));
    } else if (t.kind() == ValueKind::kNoneOptional) {
      out_json.push_back(
          absl::StrCat("{\"name\":", name, ",\"optional\":\"none\",\"type\":", element, "}"));
    } else {
      out_json.push_back(absl::StrCat("{\"name\":", name, ",\"dims\":[",
                                      absl::StrJoin(t.dims(), ","), "],\"type\":", element, "}"));
    }
  }
  const std::string base = std::filesystem::path(flags.model).filename().string();
  std::string line = absl::StrFormat(
      "{\"model\":%s,\"runtime\":\"%s\",\"threads\":%d,\"iters\":%d,\"median_ms\":%.6f,"
      "\"min_ms\":%.6f,\"max_ms\":%.6f",
      JsonString(base), RuntimeName(flags.backend), flags.threads, times.size(),
      times[times.size() / 2], times.front(), times.back());
  if (other) {
    absl::StrAppendFormat(&line,
                          ",\"vs\":{\"runtime\":\"%s\",\"lower\":%s,\"median_ms\":%.6f,"
                          "\"min_ms\":%.6f,\"paired_ratio_median\":%.4f}",
                          RuntimeName(*flags.compare_backend), JsonString(flags.compare_lower),
                          other_times[other_times.size() / 2], other_times.front(),
                          ratios[ratios.size() / 2]);
  }
  if (flags.memory && session.tir) {
    absl::StrAppendFormat(&line, ",\"workspace_bytes\":%d",
                          session.tir->evaluator_stats().workspace_bytes);
  } else if (flags.memory) {
    for (const auto& [key, bytes] : MemoryBreakdown(session.session->memory_stats())) {
      absl::StrAppend(&line, ",\"", key, "\":", bytes);
    }
  }
  absl::StrAppend(&line, ",\"outputs\":[", absl::StrJoin(out_json, ","), "]}");
  std::cout << line << std::endl;
  if (flags.memory && session.session) {
    const MemoryStats m = session.session->memory_stats();
    // The plan's quality (MemoryBreakdown's line above has the arena's size).
    std::cerr << absl::StrFormat(
        "anvil-run: memory plan: arena %.3fx its lower bound, %d bytes without sharing; %d "
        "in-place, %d aliased, %d heap tensors per run\n",
        m.lower_bound_bytes > 0 ? static_cast<double>(m.arena_bytes) / m.lower_bound_bytes : 1.0,
        m.unshared_bytes, m.in_place_reuses, m.aliases, m.heap_tensors);
  }
  PrintProfile(flags, session);
  return absl::OkStatus();
}

}  // namespace
}  // namespace anvil

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--help" || std::string(argv[i]) == "-h") {
      std::cout << anvil::kUsage;
      return 0;
    }
  }
  absl::StatusOr<anvil::Flags> flags = anvil::ParseFlags(argc, argv);
  if (!flags.ok()) {
    anvil::PrintError(std::cerr, "anvil-run", flags.status().message());
    return 2;
  }
  try {
    absl::Status status = anvil::Run(*flags);
    if (!status.ok()) {
      anvil::PrintError(std::cerr, "anvil-run", status.message());
      return 1;
    }
  } catch (const std::exception& e) {
    // Third-party code (protobuf, the ONNX parser) may throw on malformed input, and an
    // allocation no limit bounds may fail: an error line, not an abort.
    anvil::PrintError(std::cerr, "anvil-run", anvil::ExceptionMessage(e));
    return 1;
  }
  return 0;
}
