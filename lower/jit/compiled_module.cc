#include "lower/jit/compiled_module.h"

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/synchronization/mutex.h"
#include "base/absl_compat.h"
#include "base/checked_math.h"
#include "base/parallel.h"
#include "base/status_macros.h"
#include "base/subprocess.h"
#include "kernels/op_kernel.h"
#include "kernels/simd/gemm.h"
#include "lower/emit/abi.h"
#include "lower/ir/functor.h"
#include "lower/ir/printer.h"
#include "lower/jit/host_support.h"
#include "lower/jit/kernel_call.h"

namespace anvil::lower {
namespace {

using Clock = std::chrono::steady_clock;
double Since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

}  // namespace

// FNV-1a, twice with different offsets: a 128-bit name for a cache entry.
std::string JitCacheHash(const std::string& text) {
  uint64_t a = 14695981039346656037ull, b = 1099511628211ull * 31;
  for (unsigned char c : text) {
    a = (a ^ c) * 1099511628211ull;
    b = (b ^ c) * 1099511628211ull + 0x9e3779b97f4a7c15ull;
  }
  char buf[40];
  std::snprintf(buf, sizeof(buf), "%016llx%016llx", static_cast<unsigned long long>(a),
                static_cast<unsigned long long>(b));
  return buf;
}

namespace {

bool OnPath(const std::string& program) {
  const char* path = std::getenv("PATH");
  if (path == nullptr) return false;
  for (absl::string_view dir : absl::StrSplit(path, ':')) {
    if (!dir.empty() && access(absl::StrCat(dir, "/", program).c_str(), X_OK) == 0) return true;
  }
  return false;
}

// The CPU model and feature flags (Linux), or "".
std::string CpuIdentity() {
  std::ifstream in("/proc/cpuinfo");
  std::string line, model, flags;
  while (std::getline(in, line) && (model.empty() || flags.empty())) {
    if (model.empty() && line.rfind("model name", 0) == 0) model = line;
    if (flags.empty() && line.rfind("flags", 0) == 0) flags = line;
  }
  return model + "\n" + flags;
}

}  // namespace

std::string JitCacheDir(const JitOptions& options) {
  if (!options.cache_dir.empty()) return options.cache_dir;
  if (const char* d = std::getenv("ANVIL_JIT_CACHE"); d != nullptr && *d) return d;
  if (const char* d = std::getenv("XDG_CACHE_HOME"); d != nullptr && *d) {
    return absl::StrCat(d, "/anvil/jit");
  }
  if (const char* d = std::getenv("HOME"); d != nullptr && *d) {
    return absl::StrCat(d, "/.cache/anvil/jit");
  }
  return "/tmp/anvil-jit";
}

std::vector<std::string> JitSharedCacheDirs(const JitOptions& options) {
  if (!options.shared_cache_dirs.empty()) return options.shared_cache_dirs;
  std::vector<std::string> dirs;
  if (const char* d = std::getenv("ANVIL_JIT_CACHE_SHARED"); d != nullptr && *d) {
    for (absl::string_view dir : absl::StrSplit(d, ':', absl::SkipEmpty())) {
      dirs.emplace_back(dir);
    }
  }
  return dirs;
}

struct CompiledModule::Impl {
  const tir::Module* module = nullptr;
  JitOptions options;
  void* library = nullptr;
  AnvilEntry entry = nullptr;
  void (*sizes)(const int64_t*, int64_t*) = nullptr;
  void (*output_dims)(const int64_t*, int64_t*) = nullptr;
  std::vector<std::unique_ptr<OpKernel>> kernels;
  std::vector<KernelCallSite> sites;  // made with kernels[id]
  std::vector<ShapeCheckMemo> memos;  // per site
  absl::flat_hash_map<int64_t, std::vector<tir::DataType>> kernel_types;
  std::optional<WorkspacePlan> workspace_plan;
  Tensor workspace;
  std::vector<Tensor> globals;  // dense copies of the module's globals
  // Gemm, with the constant weights packed at load (by the address of the global the code
  // passes as B).
  GemmHost gemm;
  TensorRecycler output_recycler;  // the last two runs' outputs, reused once dropped

  // Per run.
  absl::Status status;
  std::deque<Tensor> allocations;
  // While ProfileGroups runs: nanoseconds per group of the current run, and when the group
  // being timed began.
  std::vector<int64_t>* group_nanos = nullptr;
  Clock::time_point group_start;

  ~Impl() {
    if (library != nullptr) dlclose(library);
  }

  // Called from the threads of a parallel loop too: the first failure wins.
  void Fail(absl::Status s) {
    absl::MutexLock lock(&status_mu);
    if (status.ok()) status = std::move(s);
  }
  absl::Mutex status_mu;

  int32_t Kernel(int64_t id, AnvilBuffer* const* operands, int32_t count);
};

namespace {

int32_t HostKernel(void* ctx, int64_t id, AnvilBuffer* const* operands, int32_t count) {
  return static_cast<CompiledModule::Impl*>(ctx)->Kernel(id, operands, count);
}

int32_t HostGemm(void* ctx, int32_t f64, int32_t ta, int32_t tb, int64_t m, int64_t n, int64_t k,
                 double alpha, const void* a, int64_t lda, const void* b, int64_t ldb, double beta,
                 void* c, int64_t ldc) {
  auto* impl = static_cast<CompiledModule::Impl*>(ctx);
  const absl::Status s =
      impl->gemm.Gemm(f64 != 0, ta != 0, tb != 0, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  if (!s.ok()) {
    impl->Fail(s);
    return 1;
  }
  return 0;
}

void* HostAlloc(void* ctx, int64_t bytes) {
  auto* impl = static_cast<CompiledModule::Impl*>(ctx);
  absl::StatusOr<Tensor> t =
      Tensor::Allocate(ElementType::kUint8, {bytes}, impl->options.max_allocation_bytes,
                       /*zero=*/false);
  if (!t.ok()) {
    impl->Fail(t.status());
    return nullptr;
  }
  impl->allocations.push_back(*std::move(t));
  return impl->allocations.back().data();
}

void HostFail(void* ctx, const char* message) {
  static_cast<CompiledModule::Impl*>(ctx)->Fail(absl::InvalidArgumentError(message));
}

void HostGroupDone(void* ctx, int32_t group) {
  auto* impl = static_cast<CompiledModule::Impl*>(ctx);
  const Clock::time_point now = Clock::now();
  if (impl->group_nanos != nullptr && group >= 0 &&
      group < static_cast<int32_t>(impl->group_nanos->size())) {
    (*impl->group_nanos)[group] +=
        std::chrono::duration_cast<std::chrono::nanoseconds>(now - impl->group_start).count();
  }
  impl->group_start = now;
}

// Parallel loops of the emitted code on the runtime's threads (base/parallel.h).
int32_t ParallelFor(void*, int64_t trips, int64_t work_per_trip,
                    int32_t (*chunk)(void* closure, int64_t lo, int64_t hi), void* closure) {
  return HostParallelFor(trips, work_per_trip, chunk, closure);
}

}  // namespace

int32_t CompiledModule::Impl::Kernel(int64_t id, AnvilBuffer* const* operands, int32_t count) {
  if (id < 0 || id >= static_cast<int64_t>(module->kernels.size())) {
    Fail(absl::InternalError(absl::StrCat("kernel ", id, " is not in the table")));
    return 1;
  }
  const tir::KernelBinding& binding = module->kernels[id];
  if (binding.node == nullptr) {
    Fail(absl::FailedPreconditionError(
        absl::StrCat("kernel ", id, " (", binding.op_type, ") has no node to run")));
    return 1;
  }
  if (kernels.size() < module->kernels.size()) {
    kernels.resize(module->kernels.size());
    sites.resize(module->kernels.size());
    memos.resize(module->kernels.size());
  }
  if (kernels[id] == nullptr) {
    absl::StatusOr<std::unique_ptr<OpKernel>> k = CreateKernel(*binding.node, binding.opset);
    if (!k.ok()) {
      Fail(k.status());
      return 1;
    }
    KernelCallSite& site = sites[id];
    site.node = binding.node;
    site.opset = binding.opset;
    ResolveSite(site);
    site.slots = binding.slots;
    site.captures = binding.captured_values;
    site.captures.resize(binding.captures.size(), nullptr);
    for (const tir::DataType& t : kernel_types[id]) {
      site.types.push_back(tir::ElementTypeOf(t.kind()));
      site.values.push_back(t.kind() == tir::ScalarKind::kValue);
    }
    kernels[id] = *std::move(k);
  }
  absl::Status s = RunKernelCall(sites[id], *kernels[id], module->source.get(), operands, count,
                                 options.max_allocation_bytes, allocations, &memos[id]);
  if (!s.ok()) {
    Fail(s);
    return 1;
  }
  return 0;
}

CompiledModule::CompiledModule(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

int64_t CompiledModule::shape_checks_skipped() const {
  int64_t skipped = 0;
  for (const ShapeCheckMemo& memo : impl_->memos) skipped += memo.skipped;
  return skipped;
}
int64_t CompiledModule::packed_gemm_calls() const { return impl_->gemm.packed_products(); }

CompiledModule::~CompiledModule() = default;

absl::StatusOr<std::unique_ptr<CompiledModule>> CompiledModule::Compile(const tir::Module& module,
                                                                        const JitOptions& options) {
  auto impl = std::make_unique<Impl>();
  impl->module = &module;
  impl->options = options;
  JitStats stats;
  auto start = Clock::now();
  EmitOptions emit_options;
  emit_options.vectorize = options.vectorize;
  ANVIL_ASSIGN_OR_RETURN(EmittedModule emitted, EmitCc(module, emit_options));
  stats.emit_seconds = Since(start);

  std::string cxx = options.cxx;
  if (cxx.empty()) {
    const char* env = std::getenv("CXX");
    cxx = env != nullptr && *env ? env : (OnPath("c++") || !OnPath("g++") ? "c++" : "g++");
  }
  std::vector<std::string> flags = {
      "-std=c++17", options.opt_level, "-ffp-contract=off", "-fno-math-errno", "-fPIC", "-shared",
      "-w"};
  if (options.native) flags.push_back("-march=native");
  // -march=native code is only for this CPU: its identity is part of the key, so that a cache
  // that moves to another machine is not loaded there.
  const std::string key =
      JitCacheHash(absl::StrCat(emitted.source, "\n", cxx, "\n", absl::StrJoin(flags, " "), "\n",
                                options.native ? CpuIdentity() : std::string()));
  std::error_code error;
  std::string library;
  for (const std::string& shared : JitSharedCacheDirs(options)) {
    const std::string candidate = absl::StrCat(shared, "/", key, ".so");
    if (std::filesystem::exists(candidate, error)) {
      library = candidate;
      break;
    }
  }
  const std::string dir = JitCacheDir(options);
  if (library.empty()) {
    std::filesystem::create_directories(dir, error);
    if (error) {
      return absl::PermissionDeniedError(absl::StrCat(
          "cannot create the JIT cache '", dir, "': ", error.message(), " (set ANVIL_JIT_CACHE)"));
    }
    library = absl::StrCat(dir, "/", key, ".so");
  }
  stats.library_path = library;
  if (std::filesystem::exists(library, error)) {
    stats.cached = true;
  } else {
    start = Clock::now();
    const std::string base = absl::StrCat(dir, "/", key, ".", getpid());
    const std::string source = base + ".cc", temp = base + ".so", log = base + ".log";
    {
      std::ofstream out(source, std::ios::binary | std::ios::trunc);
      out << emitted.source;
      if (!out.flush()) return absl::DataLossError(absl::StrCat("cannot write '", source, "'"));
    }
    std::vector<std::string> argv = {cxx};
    argv.insert(argv.end(), flags.begin(), flags.end());
    argv.insert(argv.end(), {"-o", temp, source});
    const int rc = RunCommand(argv, log);
    if (rc == 127) {
      return absl::FailedPreconditionError(
          absl::StrCat("cannot run the C++ compiler '", cxx, "' (set CXX to a C++17 compiler)"));
    }
    if (rc != 0) {
      // The compiler's first error line (not the "In function" context before it).
      std::ifstream in(log);
      std::string first, line;
      while (std::getline(in, line)) {
        if (first.empty()) first = line;
        if (line.find("error") != std::string::npos) {
          first = line;
          break;
        }
      }
      return absl::InternalError(absl::StrCat("compiling the emitted code failed (", cxx, " exit ",
                                              rc, "; ", source, "): ", first));
    }
    std::filesystem::rename(temp, library, error);  // atomic: concurrent loads see all or nothing
    if (error) return absl::InternalError(absl::StrCat("cannot store '", library, "'"));
    std::filesystem::remove(source, error);
    std::filesystem::remove(log, error);
    stats.compile_seconds = Since(start);
  }
  start = Clock::now();
  impl->library = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (impl->library == nullptr) {
    return absl::InternalError(absl::StrCat("dlopen '", library, "': ", dlerror()));
  }
  impl->entry = reinterpret_cast<AnvilEntry>(dlsym(impl->library, emitted.entry_symbol.c_str()));
  impl->output_dims = reinterpret_cast<void (*)(const int64_t*, int64_t*)>(
      dlsym(impl->library, emitted.output_dims_symbol.c_str()));
  if (!emitted.sizes_symbol.empty()) {
    impl->sizes = reinterpret_cast<void (*)(const int64_t*, int64_t*)>(
        dlsym(impl->library, emitted.sizes_symbol.c_str()));
  }
  if (impl->entry == nullptr || impl->output_dims == nullptr ||
      (!emitted.sizes_symbol.empty() && impl->sizes == nullptr)) {
    return absl::InternalError(absl::StrCat("'", library, "' lacks the emitted functions"));
  }
  stats.load_seconds = Since(start);
  impl->kernel_types = KernelOperandTypes(module);
  for (const tir::Global& g : module.globals) {
    if (g.data == nullptr) {
      return absl::FailedPreconditionError("a global without contents (a parsed module)");
    }
    impl->globals.push_back(Tensor::FromElements(*g.data));
  }
  for (const GemmWeightUse& u : ConstantGemmWeights(module)) {
    const Tensor& g = impl->globals[u.global];
    if (g.type() != ElementType::kFloat) continue;
    impl->gemm.PackWeight(g.As<float>(), g.NumElements(), u.trans_b, u.k, u.n, u.ldb);
  }
  std::unique_ptr<CompiledModule> compiled(new CompiledModule(std::move(impl)));
  compiled->stats_ = stats;
  compiled->emitted_ = std::move(emitted);
  return compiled;
}

absl::StatusOr<std::vector<Tensor>> CompiledModule::Run(const std::vector<Tensor>& given) {
  Impl& impl = *impl_;
  impl.status = absl::OkStatus();
  impl.allocations.clear();
  const tir::Module& m = *impl.module;
  const tir::EntryBinding& binding = m.binding;
  const tir::Function* entry = m.FindFunction(m.entry);
  // Inputs, with defaults; their ranks and literal dims checked against the parameters.
  std::vector<Tensor> inputs(binding.inputs.size());
  for (size_t k = 0; k < binding.inputs.size(); ++k) {
    const tir::EntryBinding::Tensor& b = binding.inputs[k];
    if (k < given.size() && given[k].defined()) {
      inputs[k] = given[k];
    } else if (b.default_value != nullptr) {
      inputs[k] = Tensor::FromElements(*b.default_value);
    } else {
      return absl::InvalidArgumentError(absl::StrCat("input '", b.name, "' is missing"));
    }
    const auto* t = b.tensor.as<tir::TensorNode>();
    if (t->type().kind() == tir::ScalarKind::kValue) continue;  // a sequence or optional, whole
    bool ok = inputs[k].dims().size() == t->dims.size() &&
              inputs[k].type() == tir::ElementTypeOf(t->type().kind());
    for (size_t d = 0; ok && d < t->dims.size(); ++d) {
      int64_t c = 0;
      if (tir::AsIntConstant(t->dims[d], &c)) ok = c == inputs[k].dims()[d];
    }
    if (!ok) {
      return absl::InvalidArgumentError(absl::StrCat(
          "input '", b.name, "' is ", AsAbsl(ElementTypeName(inputs[k].type())),
          ::anvil::DimsToString(absl::Span<const int64_t>(inputs[k].dims())), ", the model takes ",
          t->type().ToString(), "[",
          absl::StrJoin(
              t->dims, ", ",
              [](std::string* out, const tir::Expr& d) { out->append(tir::PrintExpr(d)); }),
          "]"));
    }
  }
  // Index parameters from the inputs' dims.
  std::vector<int64_t> indices;
  for (const tir::Expr& p : entry->params) {
    if (!p.as<tir::VarNode>()) continue;
    int64_t v = -1;
    for (const tir::EntryBinding::DimSource& d : binding.dims) {
      if (d.var.same(p)) v = inputs[d.input].dims()[d.axis];
    }
    indices.push_back(v);
  }
  // Every input named by one symbol must agree on it.
  for (const tir::EntryBinding::DimSource& d : binding.dims) {
    int at = 0;
    for (const tir::Expr& p : entry->params) {
      if (!p.as<tir::VarNode>()) continue;
      if (d.var.same(p) && inputs[d.input].dims()[d.axis] != indices[at]) {
        return absl::InvalidArgumentError(absl::StrCat(
            "input '", binding.inputs[d.input].name, "' dim ", d.axis, " is ",
            inputs[d.input].dims()[d.axis], ", another input gives that dim ", indices[at]));
      }
      ++at;
    }
  }
  // Tensor slots.
  std::vector<AnvilBuffer> buffers(emitted_.tensor_slots.size());
  auto fill = [](AnvilBuffer& b, void* data, absl::Span<const int64_t> dims) {
    b.data = static_cast<uint8_t*>(data);
    b.rank = static_cast<int32_t>(dims.size());
    for (size_t d = 0; d < dims.size() && d < 8; ++d) b.dims[d] = dims[d];
  };
  size_t ranks = 0;
  for (const tir::EntryBinding::Tensor& b : binding.outputs) {
    if (!b.dynamic) ranks += b.tensor.as<tir::TensorNode>()->dims.size();
  }
  std::vector<int64_t> out_dims(ranks + 1);
  impl.output_dims(indices.data(), out_dims.data());
  std::vector<Tensor> outputs(binding.outputs.size());
  {
    size_t at = 0;
    for (size_t k = 0; k < binding.outputs.size(); ++k) {
      const tir::EntryBinding::Tensor& b = binding.outputs[k];
      if (b.dynamic) continue;
      const auto* t = b.tensor.as<tir::TensorNode>();
      std::vector<int64_t> dims(out_dims.begin() + at, out_dims.begin() + at + t->dims.size());
      at += t->dims.size();
      for (int64_t d : dims) {
        if (d < 0) {
          return absl::InvalidArgumentError(absl::StrCat(
              "output '", b.name, "': its dims overflow 64 bits for these input dims"));
        }
      }
      // Not zeroed: the module writes every element of its static outputs.
      ANVIL_ASSIGN_OR_RETURN(
          outputs[k],
          impl.output_recycler.Allocate(static_cast<int>(k), tir::ElementTypeOf(t->type().kind()),
                                        dims, impl.options.max_allocation_bytes, /*zero=*/false));
    }
  }
  for (size_t s = 0; s < emitted_.tensor_slots.size(); ++s) {
    const tir::Expr& t = emitted_.tensor_slots[s];
    const int slot = static_cast<int>(s);
    if (slot >= emitted_.first_dynamic_output) continue;  // the function fills them
    if (slot >= emitted_.first_global && slot != emitted_.offsets_slot) {
      const Tensor& g = impl.globals[slot - emitted_.first_global];
      fill(buffers[s], g.data(), g.dims());
      continue;
    }
    if (slot == emitted_.offsets_slot) continue;  // below
    bool found = false;
    for (size_t k = 0; k < binding.inputs.size() && !found; ++k) {
      if (binding.inputs[k].tensor.same(t)) {
        if (t.type().kind() == tir::ScalarKind::kValue) {
          // The code passes a value's buffer to kernel calls only, which read the Tensor.
          fill(buffers[s], const_cast<Tensor*>(&inputs[k]), {});
        } else {
          fill(buffers[s], inputs[k].data(), inputs[k].dims());
        }
        found = true;
      }
    }
    for (size_t k = 0; k < binding.outputs.size() && !found; ++k) {
      if (binding.outputs[k].tensor.same(t)) {
        fill(buffers[s], outputs[k].data(), outputs[k].dims());
        found = true;
      }
    }
    if (!found) return absl::InternalError("a tensor parameter the binding does not name");
  }
  // The workspace.
  Tensor offsets;
  int64_t workspace_bytes = emitted_.workspace_bytes;
  if (impl.sizes != nullptr) {
    std::vector<int64_t> sizes(emitted_.lifetimes.size());
    impl.sizes(indices.data(), sizes.data());
    if (!impl.workspace_plan) {
      ANVIL_ASSIGN_OR_RETURN(impl.workspace_plan, WorkspacePlan::Make(emitted_.lifetimes));
    }
    const int64_t n = static_cast<int64_t>(sizes.size());
    offsets = Tensor(ElementType::kInt64, {n});
    ANVIL_ASSIGN_OR_RETURN(
        workspace_bytes,
        impl.workspace_plan->Place(sizes, absl::MakeSpan(offsets.As<int64_t>(), sizes.size())));
    fill(buffers[emitted_.offsets_slot], offsets.data(), offsets.dims());
  }
  if (static_cast<int64_t>(impl.workspace.ByteSize()) < workspace_bytes) {
    ANVIL_ASSIGN_OR_RETURN(impl.workspace,
                           Tensor::Allocate(ElementType::kUint8, {workspace_bytes},
                                            impl.options.max_allocation_bytes, /*zero=*/false));
  }
  std::vector<AnvilBuffer*> slots;
  for (AnvilBuffer& b : buffers) slots.push_back(&b);
  AnvilHost host{&impl,
                 HostKernel,
                 HostGemm,
                 HostAlloc,
                 HostFail,
                 ParallelFor,
                 impl.group_nanos != nullptr ? HostGroupDone : nullptr};
  impl.group_start = Clock::now();
  const int32_t rc =
      impl.entry(&host, indices.data(), slots.data(), static_cast<uint8_t*>(impl.workspace.data()));
  if (rc != 0 || !impl.status.ok()) {
    if (!impl.status.ok()) return impl.status;
    return absl::InternalError("the compiled code failed without saying why");
  }
  // Dynamic outputs: copied out of the run's allocations.
  int s = emitted_.first_dynamic_output;
  for (size_t k = 0; k < binding.outputs.size(); ++k) {
    if (!binding.outputs[k].dynamic) continue;
    const AnvilBuffer& b = buffers[s++];
    const tir::Expr& t = binding.outputs[k].tensor;
    if (t.type().kind() == tir::ScalarKind::kValue) {
      if (b.data == nullptr) {
        return absl::InternalError(absl::StrCat("output '", binding.outputs[k].name,
                                                "' was not set by the compiled code"));
      }
      outputs[k] = *reinterpret_cast<const Tensor*>(b.data);
      continue;
    }
    // Within the limit, as every allocation of a run (sizes here come from the data).
    ANVIL_ASSIGN_OR_RETURN(
        outputs[k], Tensor::CopyOf(TensorView::Dense(tir::ElementTypeOf(t.type().kind()), b.data,
                                                     std::vector<int64_t>(b.dims, b.dims + b.rank)),
                                   impl.options.max_allocation_bytes));
  }
  impl.allocations.clear();
  return outputs;
}

}  // namespace anvil::lower

namespace anvil::lower {

absl::StatusOr<GroupProfile> CompiledModule::ProfileGroups(const std::vector<Tensor>& inputs,
                                                           int runs) {
  GroupProfile profile;
  profile.group_seconds.assign(emitted_.groups.size(), std::numeric_limits<double>::infinity());
  profile.run_seconds = std::numeric_limits<double>::infinity();
  std::vector<int64_t> nanos;
  for (int r = 0; r < std::max(runs, 1); ++r) {
    nanos.assign(emitted_.groups.size(), 0);
    impl_->group_nanos = &nanos;
    const Clock::time_point start = Clock::now();
    absl::StatusOr<std::vector<Tensor>> out = Run(inputs);
    const double seconds = Since(start);
    impl_->group_nanos = nullptr;
    ANVIL_RETURN_IF_ERROR(out.status());
    profile.run_seconds = std::min(profile.run_seconds, seconds);
    for (size_t g = 0; g < nanos.size(); ++g) {
      profile.group_seconds[g] = std::min(profile.group_seconds[g], nanos[g] * 1e-9);
    }
  }
  return profile;
}

}  // namespace anvil::lower
