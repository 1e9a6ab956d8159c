// A Tensor IR module compiled to native code: emitted as C++ (lower/emit/emit_cc.h), compiled
// with the system compiler into a shared library, loaded with dlopen and run with a host that
// gives the generated code the runtime's kernels (kernel table through ExecuteNode, gemm through
// the Highway SGEMM/DGEMM), memory for local tensors and the workspace plan.
//
// Compiler and cache:
//  - the compiler is $CXX, else `c++` (`g++` where there is no c++); flags: -std=c++17 -O3
//    -ffp-contract=off -fno-math-errno -fPIC -shared, plus -march=native unless JitOptions say
//    otherwise (the CPU's model and flags then join the cache key). A missing compiler is
//    FailedPrecondition naming $CXX.
//  - libraries are cached on disk under a hash of (source, compiler, flags, CPU): $ANVIL_JIT_CACHE,
//    else $XDG_CACHE_HOME/anvil/jit, else $HOME/.cache/anvil/jit. A second load of the same
//    module costs a hash and a dlopen.
//  - shared caches: JitOptions::shared_cache_dirs, else $ANVIL_JIT_CACHE_SHARED (dirs separated
//    by ':'), are searched first and only read: a directory prepared once (`anvil-compile MODEL
//    --jit-cache-dir=DIR`, or `ANVIL_JIT_CACHE=DIR anvil-run MODEL --backend=compiled`) serves
//    many machines or users read-only. The source is part of the key, so the model, its options and
//    lowering are; with -march=native the CPU's model and flags are too, so a library is only found
//    on a CPU like the one that built it. A miss compiles into the writable cache above.
//  - dynamic dims stay parameters: one library serves every input shape.
#ifndef ANVIL_LOWER_JIT_COMPILED_MODULE_H_
#define ANVIL_LOWER_JIT_COMPILED_MODULE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "kernels/tensor.h"
#include "lower/emit/emit_cc.h"
#include "lower/ir/module.h"

namespace anvil::lower {

struct JitOptions {
  std::string cxx;        // "" = $CXX, else c++
  std::string cache_dir;  // "" = the default above
  // Read-only caches searched before cache_dir (empty: $ANVIL_JIT_CACHE_SHARED).
  std::vector<std::string> shared_cache_dirs;
  std::string opt_level = "-O3";
  bool native = true;     // -march=native
  bool vectorize = true;  // Highway vector loops (EmitOptions::vectorize)
  int64_t max_allocation_bytes = int64_t{1} << 40;
};

struct JitStats {
  bool cached = false;  // the library came from the cache
  double emit_seconds = 0;
  double compile_seconds = 0;  // 0 when cached
  double load_seconds = 0;     // dlopen
  std::string library_path;
};

// Where a module's runs spend their time, group by group (EmittedModule::groups): the least
// seconds each group took over the profiled runs, and the least seconds of a whole run.
struct GroupProfile {
  std::vector<double> group_seconds;
  double run_seconds = 0;
};

class CompiledModule {
 public:
  // `module` must outlive the compiled module (kernel bindings point into its source model).
  static absl::StatusOr<std::unique_ptr<CompiledModule>> Compile(const tir::Module& module,
                                                                 const JitOptions& options = {});
  ~CompiledModule();

  // Inputs in the order of the module's entry binding (a missing one: its default value, when
  // it has one); outputs in binding order.
  absl::StatusOr<std::vector<Tensor>> Run(const std::vector<Tensor>& inputs);

  // Runs `runs` times (at least once) on `inputs`, the host timing every group; the first
  // failing run's error.
  absl::StatusOr<GroupProfile> ProfileGroups(const std::vector<Tensor>& inputs, int runs);

  const JitStats& stats() const { return stats_; }
  const EmittedModule& emitted() const { return emitted_; }
  // Kernel calls that skipped their ShapeHelper check, having seen the same operands pass it
  // (ShapeCheckMemo in kernel_call.h), over every run so far.
  int64_t shape_checks_skipped() const;
  // Gemm calls that ran on a constant weight packed at load, over every run so far.
  int64_t packed_gemm_calls() const;

  // The loaded library and the host state its callbacks reach (compiled_module.cc).
  struct Impl;

 private:
  explicit CompiledModule(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
  JitStats stats_;
  EmittedModule emitted_;
};

// The hex name (128 bits, stable across processes) the cache files take for `text`.
std::string JitCacheHash(const std::string& text);

// The directory libraries are cached in, as the options and environment say.
std::string JitCacheDir(const JitOptions& options);

// The read-only caches searched first, as the options and environment say.
std::vector<std::string> JitSharedCacheDirs(const JitOptions& options);

}  // namespace anvil::lower

#endif  // ANVIL_LOWER_JIT_COMPILED_MODULE_H_
