// anvil-compile: a model compiled ahead of time into a C library.
//
//   anvil-compile MODEL -o DIR [--shared] [--native] [--no-kernel-host] [--pipeline=P]
//                 [--weights=NAME] [--shape NAME=D0,D1,...]...
//   anvil-compile MODEL --jit-cache-dir=DIR [--pipeline=P] [--shape NAME=D0,D1,...]...
//
// Writes DIR/model.cc, DIR/model.h (the C API, see lower/emit/aot.h) and DIR/model.weights; with
// --shared also DIR/libmodel.so, compiled with $CXX (else c++) as
//   $CXX -std=c++17 -O3 -ffp-contract=off -fno-math-errno -fPIC -shared -I DIR -Wa,-I,DIR
// (--native adds -march=native: faster, for this CPU only). A model with nodes that call runtime
// kernels (convolutions, pooling, ops without a lowering rule), or with gemm calls, links Anvil's
// kernel host (lower/emit/aot_host.h: kernels, packed SGEMM, threads; and the per-run workspace
// plan of a model with dynamic dims): --shared copies
// libanvil_aot_host.so into DIR and links libmodel.so against it (rpath $ORIGIN); the library is
// found in $ANVIL_AOT_HOST_LIB, else in this tool's runfiles, else next to it in bazel-bin.
// --no-kernel-host makes a self-contained, serial library (a plain gemm loop nest) and refuses
// models that need kernels. The model goes through the same preparation and lowering as the
// runtime and the JIT (default pipeline runtime/session.h's kLoadPipeline, then lower-to-tir).
// --shape fixes an input's dims before that (graph/input_dims.h): a library for those shapes.
// --jit-cache-dir prepares a JIT cache instead (or as well, with -o): the library the runtime's
// compiled backend (TirSession, `anvil-run --backend=compiled`) builds for this model and
// options on this CPU, stored in DIR under its content hash, so that machines like this one load
// it from DIR read-only ($ANVIL_JIT_CACHE_SHARED, lower/jit/compiled_module.h) without compiling.
// The outputs depend only on the model, its external data and the flags: no time, path or host
// name is written into them, so a build farm may cache them (tools/anvil_compile_test.sh checks).
// Errors are one line `anvil-compile: error: ...`, exit 1 (2 for command-line mistakes).

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "base/subprocess.h"
#include "graph/input_dims.h"
#include "graph/model_io.h"
#include "lower/emit/aot.h"
#include "lower/evaluator/tir_session.h"
#include "lower/lowering/lower_to_tir.h"
#include "runtime/session.h"
#include "tools/command_line.h"

namespace anvil {
namespace {

constexpr char kUsage[] =
    R"(usage: anvil-compile MODEL -o DIR [--shared] [--native] [--pipeline=P] [--weights=NAME]
                     [--shape NAME=D0,D1,...]...
       anvil-compile MODEL --jit-cache-dir=DIR [--pipeline=P] [--shape NAME=D0,D1,...]...

Compiles an ONNX model ahead of time: DIR/model.cc, DIR/model.h (a C API: create, run, destroy)
and DIR/model.weights; --shared also builds DIR/libmodel.so with $CXX (else c++), --native for
this CPU (-march=native); --weights=NAME names the weights file (default model.weights).
Nodes that do not lower to loops or gemm (convolutions, pooling, ...) call Anvil's kernels
through the kernel host, which also runs gemm (packed SGEMM), threads and the per-run
workspace plan of dynamic dims: --shared copies
libanvil_aot_host.so next to libmodel.so (found in $ANVIL_AOT_HOST_LIB, the runfiles or
bazel-bin); --no-kernel-host makes a self-contained serial library and refuses models that need
kernels. --shape fixes input NAME's dims (a symbolic dim in every input that names it), for a
library specialised to those shapes. --jit-cache-dir=DIR compiles the library the runtime's
compiled backend (anvil-run --backend=compiled) loads for this model and options on this CPU
into DIR, a JIT cache other processes and machines with this CPU read with
ANVIL_JIT_CACHE_SHARED=DIR (read-only) instead of compiling.
)";

struct Flags {
  std::string model, out;
  bool shared = false, native = false, kernel_host = true;
  std::string pipeline = kLoadPipeline;
  std::string weights = "model.weights";
  InputDims shapes;
  std::string jit_cache_dir;
};

absl::Status Write(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
  if (!out.flush()) return absl::PermissionDeniedError(absl::StrCat("cannot write '", path, "'"));
  return absl::OkStatus();
}

// libanvil_aot_host.so: $ANVIL_AOT_HOST_LIB, else the runfiles of this binary (bazel run, a
// test), else bazel-bin's lower/ beside tools/.
absl::StatusOr<std::string> FindKernelHost() {
  namespace fs = std::filesystem;
  if (const char* env = std::getenv("ANVIL_AOT_HOST_LIB"); env != nullptr && *env) {
    if (fs::exists(env)) return std::string(env);
    return absl::NotFoundError(absl::StrCat("ANVIL_AOT_HOST_LIB='", env, "' does not exist"));
  }
  std::error_code error;
  const fs::path exe = fs::read_symlink("/proc/self/exe", error);
  std::vector<fs::path> candidates;
  for (const char* var : {"RUNFILES_DIR", "TEST_SRCDIR"}) {
    if (const char* dir = std::getenv(var); dir != nullptr && *dir) {
      candidates.push_back(fs::path(dir) / "anvil/lower/libanvil_aot_host.so");
    }
  }
  if (!error) {
    candidates.push_back(fs::path(exe.string() + ".runfiles") / "anvil/lower/libanvil_aot_host.so");
    candidates.push_back(exe.parent_path().parent_path() / "lower/libanvil_aot_host.so");
  }
  for (const fs::path& p : candidates) {
    if (fs::exists(p, error)) return p.string();
  }
  return absl::NotFoundError(
      "the library links Anvil's kernel host (for kernel calls, gemm or its workspace plan) and "
      "libanvil_aot_host.so was not found: bazel build //lower:libanvil_aot_host.so and set "
      "ANVIL_AOT_HOST_LIB to it (or --no-kernel-host for a self-contained library)");
}

// The JIT library TirSession compiles for the model, stored in flags.jit_cache_dir.
absl::Status PrepareJitCache(const Flags& flags) {
  std::vector<std::string> warnings;
  ANVIL_ASSIGN_OR_RETURN(std::unique_ptr<Model> model, LoadModel(flags.model, &warnings));
  ANVIL_RETURN_IF_ERROR(FixInputDims(*model, flags.shapes));
  PrintWarnings(std::cerr, "anvil-compile", warnings);
  lower::TirSessionOptions options;
  options.compile = true;
  options.pipeline = flags.pipeline;
  options.jit.cache_dir = flags.jit_cache_dir;
  // Only DIR is looked in: a library found in another shared cache would leave DIR without it.
  options.jit.shared_cache_dirs = {flags.jit_cache_dir};
  ANVIL_ASSIGN_OR_RETURN(std::unique_ptr<lower::TirSession> session,
                         lower::TirSession::Load(std::move(model), options));
  const lower::JitStats& stats = session->compiled()->stats();
  std::cerr << "anvil-compile: JIT library " << stats.library_path
            << (stats.cached
                    ? " (already in the cache)"
                    : absl::StrCat(" (compiled in ", absl::SixDigits(stats.compile_seconds), " s)"))
            << "\n";
  return absl::OkStatus();
}

absl::Status Compile(const Flags& flags) {
  std::vector<std::string> warnings;
  ANVIL_ASSIGN_OR_RETURN(std::unique_ptr<Model> model, LoadModel(flags.model, &warnings));
  ANVIL_RETURN_IF_ERROR(FixInputDims(*model, flags.shapes));
  ANVIL_RETURN_IF_ERROR(PrepareModelForRun(*model, flags.pipeline, &warnings));
  PrintWarnings(std::cerr, "anvil-compile", warnings);
  ANVIL_ASSIGN_OR_RETURN(tir::Module module, lower::LowerToTir(*model));
  lower::AotOptions aot;
  aot.weights_name = flags.weights;
  aot.kernel_host = flags.kernel_host;
  ANVIL_ASSIGN_OR_RETURN(lower::AotSources sources, lower::EmitAot(module, aot));
  std::error_code error;
  std::filesystem::create_directories(flags.out, error);
  if (error) {
    return absl::PermissionDeniedError(
        absl::StrCat("cannot create '", flags.out, "': ", error.message()));
  }
  ANVIL_RETURN_IF_ERROR(Write(flags.out + "/model.cc", sources.cc));
  ANVIL_RETURN_IF_ERROR(Write(flags.out + "/model.h", sources.header));
  ANVIL_RETURN_IF_ERROR(Write(flags.out + "/" + flags.weights, sources.weights));
  std::cerr << "anvil-compile: wrote " << flags.out << "/model.cc, model.h, " << flags.weights
            << " (" << sources.weights.size() << " bytes of weights";
  if (sources.kernel_calls > 0) {
    std::cerr << ", of which " << sources.graph_bytes << " the graph of " << sources.kernel_calls
              << " kernel call(s)";
  }
  if (sources.kernel_host) std::cerr << "; the library links the kernel host";
  std::cerr << ")\n";
  if (!flags.shared) return absl::OkStatus();
  std::vector<std::string> host_flags;
  if (sources.kernel_host) {
    ANVIL_ASSIGN_OR_RETURN(const std::string host, FindKernelHost());
    const std::string copy = flags.out + "/libanvil_aot_host.so";
    std::filesystem::copy_file(host, copy, std::filesystem::copy_options::overwrite_existing,
                               error);
    if (error) {
      return absl::PermissionDeniedError(
          absl::StrCat("cannot copy '", host, "' to '", copy, "': ", error.message()));
    }
    std::filesystem::permissions(copy, std::filesystem::perms::owner_write,
                                 std::filesystem::perm_options::add, error);
    host_flags = {"-L", flags.out, "-lanvil_aot_host", "-Wl,-rpath,$ORIGIN"};
  }
  const char* env = std::getenv("CXX");
  std::vector<std::string> argv = {env != nullptr && *env ? env : "c++",
                                   "-std=c++17",
                                   "-O3",
                                   "-ffp-contract=off",
                                   "-fno-math-errno",
                                   "-fPIC",
                                   "-shared",
                                   "-w",
                                   "-I",
                                   flags.out,
                                   absl::StrCat("-Wa,-I,", flags.out)};
  if (flags.native) argv.push_back("-march=native");
  argv.insert(argv.end(), {"-o", flags.out + "/libmodel.so", flags.out + "/model.cc"});
  argv.insert(argv.end(), host_flags.begin(), host_flags.end());
  const int rc = RunCommand(argv);
  if (rc == 127) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot run the C++ compiler '", argv[0], "' (set CXX)"));
  }
  if (rc != 0) {
    return absl::InternalError(
        absl::StrCat("compiling ", flags.out, "/model.cc failed: ", absl::StrJoin(argv, " ")));
  }
  std::cerr << "anvil-compile: wrote " << flags.out << "/libmodel.so"
            << (host_flags.empty() ? "" : " (and libanvil_aot_host.so, which it links)") << "\n";
  return absl::OkStatus();
}

}  // namespace
}  // namespace anvil

int main(int argc, char** argv) {
  anvil::Flags flags;
  anvil::CommandLine args(argc, argv);
  auto usage = [](const std::string& m) {
    anvil::PrintError(std::cerr, "anvil-compile", m);
    return 2;
  };
  while (args.Next()) {
    const std::string& key = args.key();
    if (key == "--help" || key == "-h") {
      std::cout << anvil::kUsage;
      return 0;
    } else if (key == "-o" || key == "--output") {
      absl::StatusOr<std::string> v = args.Path();
      if (!v.ok()) return usage(std::string(v.status().message()));
      flags.out = *v;
    } else if (key == "--pipeline") {
      absl::StatusOr<std::string> v = args.Value();
      if (!v.ok()) return usage(std::string(v.status().message()));
      flags.pipeline = *v;
    } else if (key == "--weights") {
      absl::StatusOr<std::string> v = args.Value();
      if (!v.ok()) return usage(std::string(v.status().message()));
      flags.weights = *v;
    } else if (key == "--shape") {
      absl::StatusOr<std::string> v = args.Value();
      if (!v.ok()) return usage(std::string(v.status().message()));
      if (absl::Status s = anvil::ParseInputDims(*v, &flags.shapes); !s.ok()) {
        return usage(absl::StrCat("--shape: ", s.message()));
      }
    } else if (key == "--jit-cache-dir") {
      absl::StatusOr<std::string> v = args.Path();
      if (!v.ok()) return usage(std::string(v.status().message()));
      flags.jit_cache_dir = *v;
    } else if (key == "--shared") {
      flags.shared = true;
    } else if (key == "--native") {
      flags.native = true;
    } else if (key == "--no-kernel-host") {
      flags.kernel_host = false;
    } else if (args.IsOption()) {
      return usage(std::string(args.Unknown().message()));
    } else if (flags.model.empty()) {
      flags.model = anvil::ResolveUserPath(args.arg());
    } else {
      return usage("more than one model given");
    }
  }
  if (flags.model.empty() || (flags.out.empty() && flags.jit_cache_dir.empty())) {
    return usage("needs MODEL and -o DIR (or --jit-cache-dir=DIR); see --help");
  }
  try {
    absl::Status status = absl::OkStatus();
    if (!flags.out.empty()) status = anvil::Compile(flags);
    if (status.ok() && !flags.jit_cache_dir.empty()) status = anvil::PrepareJitCache(flags);
    if (!status.ok()) {
      anvil::PrintError(std::cerr, "anvil-compile", status.message());
      return 1;
    }
  } catch (const std::exception& e) {
    anvil::PrintError(std::cerr, "anvil-compile", anvil::ExceptionMessage(e));
    return 1;
  }
  return 0;
}
