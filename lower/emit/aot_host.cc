#include "lower/emit/aot_host.h"

#include <cstdio>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "base/parallel.h"
#include "base/scratch.h"
#include "base/status_macros.h"
#include "graph/element_type.h"
#include "graph/ir.h"
#include "graph/onnx_import.h"
#include "kernels/op_kernel.h"
#include "kernels/tensor.h"
#include "lower/jit/host_support.h"
#include "lower/jit/kernel_call.h"
#include "onnx/onnx_pb.h"
#include "runtime/session.h"

// The packed copies of one loaded library's constant gemm weights, which its hosts share.
struct AnvilAotPackedWeights {
  anvil::lower::PackedWeights weights;
};

struct AnvilAotHost {
  std::unique_ptr<anvil::Model> model;  // null without kernel calls
  std::vector<anvil::lower::KernelCallSite> sites;
  std::vector<anvil::lower::ShapeCheckMemo> memos;        // per site
  std::vector<std::unique_ptr<anvil::OpKernel>> kernels;  // made on first call
  anvil::lower::GemmHost gemm;
  // The kernels' scratch (im2col, Winograd blocks, attention scores), reused by every run of the
  // context and freed with it.
  anvil::ScratchPool scratch;
  // This run's.
  std::deque<anvil::Tensor> allocations;
  std::unique_ptr<anvil::parallel::ThreadScope> threads;
  std::unique_ptr<anvil::ScratchScope> scratch_scope;
  // The workspace plan, made by the first anvil_aot_host_plan.
  std::optional<anvil::lower::WorkspacePlan> workspace;
};

namespace anvil::lower {
namespace {

void Report(const absl::Status& status, char* error, int64_t error_size) {
  if (error != nullptr && error_size > 0) {
    std::snprintf(error, static_cast<size_t>(error_size), "%s",
                  std::string(status.message()).c_str());
  }
}

// The table entry's site in `model`, checked against its node.
absl::StatusOr<KernelCallSite> MakeSite(const Model& model, const std::vector<Node*>& nodes,
                                        const AnvilAotKernel& k, int32_t id) {
  const std::string what = absl::StrCat("kernel ", id, " (", k.op_type ? k.op_type : "?", ")");
  if (k.node < 0 || k.node >= static_cast<int64_t>(nodes.size())) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": node ", k.node, " of ", nodes.size()));
  }
  KernelCallSite site;
  site.node = nodes[k.node];
  site.opset = k.opset;
  if (k.op_type == nullptr || site.node->op_type() != k.op_type) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": the embedded graph's node ", k.node, " is ", site.node->Describe()));
  }
  for (int32_t i = 0; i < k.num_slots; ++i) {
    const int slot = k.slots[i];
    if (slot >= static_cast<int>(site.node->num_inputs()) ||
        -1 - slot >= static_cast<int>(site.node->num_outputs())) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, ": operand ", i, " names slot ", slot, " of ", site.node->Describe()));
    }
    site.slots.push_back(slot);
  }
  for (int32_t i = 0; i < k.num_captures; ++i) {
    const Value* v = model.graph().FindValue(k.captures[i]);
    if (v == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, ": captured value '", k.captures[i], "' is not in the graph"));
    }
    site.captures.push_back(v);
  }
  for (int32_t i = 0; i < k.num_slots + k.num_captures; ++i) {
    site.types.push_back(static_cast<ElementType>(k.types[i]));
  }
  ResolveSite(site);
  return site;
}

absl::StatusOr<std::unique_ptr<AnvilAotHost>> CreateHost(const void* bytes, int64_t size,
                                                         const AnvilAotTensorData* tensors,
                                                         int32_t num_tensors,
                                                         const AnvilAotKernel* kernels,
                                                         int32_t count) {
  if (bytes == nullptr && size == 0 && num_tensors == 0 && count == 0) {
    return std::make_unique<AnvilAotHost>();  // gemm and threads only
  }
  if (bytes == nullptr || size <= 0 || size > INT32_MAX) {
    return absl::InvalidArgumentError(absl::StrCat("an embedded graph of ", size, " bytes"));
  }
  onnx::ModelProto proto;
  if (!proto.ParseFromArray(bytes, static_cast<int>(size))) {
    return absl::DataLossError("the embedded graph is not a valid ONNX model");
  }
  // Initializers whose bytes the library holds as globals come back from there.
  absl::flat_hash_map<std::string_view, const AnvilAotTensorData*> held;
  for (int32_t i = 0; i < num_tensors; ++i) held[tensors[i].name] = &tensors[i];
  for (onnx::TensorProto& t : *proto.mutable_graph()->mutable_initializer()) {
    auto it = held.find(t.name());
    if (it == held.end()) continue;
    if (!t.raw_data().empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("the embedded graph's initializer '", t.name(), "' has bytes of its own"));
    }
    t.set_raw_data(it->second->data, static_cast<size_t>(it->second->bytes));
    held.erase(it);
  }
  if (!held.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("the embedded graph has no initializer '",
                                                   std::string(held.begin()->first),
                                                   "' to take bytes"));
  }
  ImportOptions options;
  options.consume_raw_data = true;
  absl::StatusOr<std::unique_ptr<Model>> model = ImportModelProto(proto, options);
  if (!model.ok()) {
    return absl::Status(model.status().code(),
                        absl::StrCat("the embedded graph: ", model.status().message()));
  }
  auto host = std::make_unique<AnvilAotHost>();
  host->model = *std::move(model);
  const std::vector<Node*> nodes = host->model->graph().NodesSnapshot();
  for (int32_t id = 0; id < count; ++id) {
    ANVIL_ASSIGN_OR_RETURN(KernelCallSite site, MakeSite(*host->model, nodes, kernels[id], id));
    host->sites.push_back(std::move(site));
    host->memos.emplace_back();
  }
  host->kernels.resize(count);
  return host;
}

}  // namespace
}  // namespace anvil::lower

extern "C" {

AnvilAotPackedWeights* anvil_aot_packed_weights_create(const AnvilAotGemmWeight* weights,
                                                       int32_t num_weights) {
  auto packed = std::make_unique<AnvilAotPackedWeights>();
  for (int32_t i = 0; i < num_weights; ++i) {
    const AnvilAotGemmWeight& w = weights[i];
    packed->weights.Pack(w.data, w.elements, w.trans_b != 0, w.k, w.n, w.ldb);
  }
  return packed.release();
}

void anvil_aot_packed_weights_destroy(AnvilAotPackedWeights* weights) { delete weights; }

AnvilAotHost* anvil_aot_host_create(const void* model, int64_t model_bytes,
                                    const AnvilAotTensorData* tensors, int32_t num_tensors,
                                    const AnvilAotKernel* kernels, int32_t count,
                                    const AnvilAotPackedWeights* weights, char* error,
                                    int64_t error_size) {
  absl::StatusOr<std::unique_ptr<AnvilAotHost>> host =
      anvil::lower::CreateHost(model, model_bytes, tensors, num_tensors, kernels, count);
  if (!host.ok()) {
    anvil::lower::Report(host.status(), error, error_size);
    return nullptr;
  }
  // The library's packed weights: this host holds the same copies as its other contexts'.
  if (weights != nullptr) (*host)->gemm.ShareWeights(weights->weights);
  return host->release();
}

void anvil_aot_host_begin_run(AnvilAotHost* host, int32_t threads) {
  host->threads = std::make_unique<anvil::parallel::ThreadScope>(threads);
  host->scratch_scope = std::make_unique<anvil::ScratchScope>(&host->scratch);
}

void anvil_aot_host_destroy(AnvilAotHost* host) { delete host; }

int32_t anvil_aot_host_kernel(AnvilAotHost* host, int64_t id, AnvilBuffer* const* operands,
                              int32_t count, void* ctx,
                              void (*fail)(void* ctx, const char* message)) {
  auto failed = [&](const absl::Status& s) {
    fail(ctx, std::string(s.message()).c_str());
    return 1;
  };
  if (id < 0 || id >= static_cast<int64_t>(host->sites.size())) {
    return failed(absl::InternalError(absl::StrCat("kernel ", id, " is not in the table")));
  }
  const anvil::lower::KernelCallSite& site = host->sites[id];
  if (host->kernels[id] == nullptr) {
    absl::StatusOr<std::unique_ptr<anvil::OpKernel>> k =
        anvil::CreateKernel(*site.node, site.opset);
    if (!k.ok()) return failed(k.status());
    host->kernels[id] = *std::move(k);
  }
  const absl::Status s = anvil::lower::RunKernelCall(
      site, *host->kernels[id], host->model.get(), operands, count,
      anvil::DefaultMaxAllocationBytes(), host->allocations, &host->memos[id]);
  return s.ok() ? 0 : failed(s);
}

void anvil_aot_host_end_run(AnvilAotHost* host) {
  host->allocations.clear();
  host->scratch_scope.reset();
  host->threads.reset();
}

int32_t anvil_aot_host_gemm(AnvilAotHost* host, void* ctx,
                            void (*fail)(void* ctx, const char* message), int32_t f64,
                            int32_t trans_a, int32_t trans_b, int64_t m, int64_t n, int64_t k,
                            double alpha, const void* a, int64_t lda, const void* b, int64_t ldb,
                            double beta, void* c, int64_t ldc) {
  const absl::Status s = host->gemm.Gemm(f64 != 0, trans_a != 0, trans_b != 0, m, n, k, alpha, a,
                                         lda, b, ldb, beta, c, ldc);
  if (s.ok()) return 0;
  fail(ctx, std::string(s.message()).c_str());
  return 1;
}

int64_t anvil_aot_host_plan(AnvilAotHost* host, int32_t count, const int32_t* lifetimes,
                            const int64_t* sizes, int64_t* offsets) {
  if (count <= 0) return 0;
  if (!host->workspace) {
    std::vector<std::pair<int, int>> spans(static_cast<size_t>(count));
    for (int32_t i = 0; i < count; ++i) spans[i] = {lifetimes[2 * i], lifetimes[2 * i + 1]};
    absl::StatusOr<anvil::lower::WorkspacePlan> plan = anvil::lower::WorkspacePlan::Make(spans);
    if (!plan.ok()) return -1;
    host->workspace = *std::move(plan);
  }
  absl::StatusOr<int64_t> bytes =
      host->workspace->Place(absl::MakeConstSpan(sizes, static_cast<size_t>(count)),
                             absl::MakeSpan(offsets, static_cast<size_t>(count)));
  return bytes.ok() ? *bytes : -1;
}

int32_t anvil_aot_host_parallel_for(int64_t trips, int64_t work_per_trip,
                                    int32_t (*chunk)(void* closure, int64_t lo, int64_t hi),
                                    void* closure) {
  return anvil::lower::HostParallelFor(trips, work_per_trip, chunk, closure);
}

}  // extern "C"
