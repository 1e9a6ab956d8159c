// Shape-inference speed on a generated 10,000-node model with symbolic dims (batch `B`, sequence
// `S`): a transformer-like chain of MatMul, Add, Relu, Softmax, Transpose, ReduceMean/Sub/Div,
// Concat, and Shape -> Gather -> Concat -> Reshape shape computations. Three measurements, each
// the median of several runs in this process:
//   onnx      ONNX 1.12's C++ shape inference (with data propagation) on the same ModelProto;
//   analysis  Anvil's shape-inference pass (symbolic IndexExprs, written back into the IR);
//   runtime   the same ShapeHelpers through the runtime builder with concrete shapes
//             (B = 8, S = 128), as the runtime's shape engine runs them.
// Prints microseconds per node and the ratios. Usage:
//   bazel run -c opt //shape:shape_inference_benchmark [-- --nodes=10000 --runs=7]
// (`--only=onnx|analysis|runtime` repeats just that path, for profiling).
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "base/status_macros.h"
#include "graph/ir.h"
#include "graph/onnx_export.h"
#include "onnx/defs/schema.h"
#include "onnx/onnx_pb.h"
#include "onnx/shape_inference/implementation.h"
#include "shape/runtime_builder.h"
#include "shape/shape_helper.h"
#include "shape/shape_inference.h"

namespace anvil {
namespace {

using Clock = std::chrono::steady_clock;

std::shared_ptr<const Elements> Int64s(std::vector<int64_t> values) {
  std::vector<int64_t> dims = {static_cast<int64_t>(values.size())};
  return DenseElements::FromVector<int64_t>(ElementType::kInt64, dims, values);
}

std::shared_ptr<const Elements> Floats(std::vector<int64_t> dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  std::vector<float> values(n, 0.01f);
  return DenseElements::FromVector<float>(ElementType::kFloat, dims, values);
}

// Appends nodes to `g` until it holds `target` nodes; returns the model.
std::unique_ptr<Model> GenerateModel(int target) {
  auto model = std::make_unique<Model>();
  model->opset_imports.push_back({"", 17});
  Graph& g = model->graph();
  g.set_name("bench");
  constexpr int64_t kD = 64;
  Value* x = g.AddInput(
      "x", Type::Tensor(ElementType::kFloat, {Dim::Param("B"), Dim::Param("S"), Dim::Literal(kD)}));
  Value* w = g.AddInitializer("w", Floats({kD, kD}));
  Value* bias = g.AddInitializer("bias", Floats({kD}));
  Value* idx0 = g.AddInitializer("idx0", Int64s({0}));
  Value* idx1 = g.AddInitializer("idx1", Int64s({1}));
  Value* minus1 = g.AddInitializer("minus1", Int64s({-1}));
  Value* axes = g.AddInitializer("axes", Int64s({-1}));
  int counter = 0;
  auto op = [&](const char* type, std::vector<Value*> inputs) {
    Node* n = g.AddNode(type);
    for (Value* in : inputs) n->AddInput(in);
    n->AddOutput("t" + std::to_string(counter++));
    return n;
  };
  Value* cur = x;
  while (static_cast<int>(g.num_nodes()) + 16 <= target) {
    Value* mm = op("MatMul", {cur, w})->output(0);
    Value* add = op("Add", {mm, bias})->output(0);
    Value* relu = op("Relu", {add})->output(0);
    Node* mean = op("ReduceMean", {relu});
    mean->SetAttribute(Attribute::Ints("axes", {-1}));
    Value* centered = op("Sub", {relu, mean->output(0)})->output(0);
    Node* sm = op("Softmax", {centered});
    sm->SetAttribute(Attribute::Int("axis", -1));
    Node* tr = op("Transpose", {sm->output(0)});
    tr->SetAttribute(Attribute::Ints("perm", {0, 2, 1}));
    Node* back = op("Transpose", {tr->output(0)});
    back->SetAttribute(Attribute::Ints("perm", {0, 2, 1}));
    // Reshape to [B, S*D/..] and back through a shape computation.
    Value* shape = op("Shape", {back->output(0)})->output(0);
    Value* b = op("Gather", {shape, idx0})->output(0);
    Value* s = op("Gather", {shape, idx1})->output(0);
    Node* cat = op("Concat", {b, minus1});
    cat->SetAttribute(Attribute::Int("axis", 0));
    Value* flat = op("Reshape", {back->output(0), cat->output(0)})->output(0);
    Node* cat2 = op("Concat", {b, s, minus1});
    cat2->SetAttribute(Attribute::Int("axis", 0));
    Value* unflat = op("Reshape", {flat, cat2->output(0)})->output(0);
    Node* sum = op("ReduceSum", {unflat, axes});
    sum->SetAttribute(Attribute::Int("keepdims", 1));
    cur = op("Div", {unflat, sum->output(0)})->output(0);
  }
  while (static_cast<int>(g.num_nodes()) < target) cur = op("Relu", {cur})->output(0);
  g.AddOutput(cur);
  return model;
}

template <typename F>
double MedianSeconds(int runs, F&& run_once) {
  std::vector<double> times;
  for (int r = 0; r < runs; ++r) {
    const auto start = Clock::now();
    run_once();
    times.push_back(std::chrono::duration<double>(Clock::now() - start).count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

// The runtime path as the runtime's shape engine runs it: a plan built once (slot indices per
// value, the ShapeFn resolved per node), then per run concrete shapes along the schedule with
// values for small int tensors.
class RuntimePath {
 public:
  explicit RuntimePath(const Model& model) {
    const Graph& g = model.graph();
    absl::flat_hash_map<const Value*, int> slot;
    auto slot_of = [&](const Value* v) {
      auto [it, inserted] = slot.emplace(v, static_cast<int>(slot.size()));
      return it->second;
    };
    input_slot_ = slot_of(g.inputs()[0]);
    for (const Value* init : g.initializers()) {
      Concrete c{init->constant()->element_type(),
                 {init->constant()->dims().begin(), init->constant()->dims().end()},
                 {}};
      if (c.type == ElementType::kInt64) {
        for (int64_t i = 0; i < init->constant()->NumElements(); ++i) {
          c.data.push_back(init->constant()->GetInt64(i));
        }
      }
      constants_.emplace_back(slot_of(init), std::move(c));
    }
    for (const Node* node : g.nodes()) {
      Step step{node, FindShapeFn(node->domain(), node->op_type(), 17), {}, {}};
      for (const Value* in : node->inputs()) step.inputs.push_back(slot_of(in));
      for (const Value* out : node->outputs()) step.outputs.push_back(slot_of(out));
      steps_.push_back(std::move(step));
    }
    slots_.resize(slot.size());
  }

  absl::Status Run(int64_t batch, int64_t seq) {
    ScopedIndexExprContext index_exprs;  // as the runtime's shape engine has one per inference
    slots_[input_slot_] = {ElementType::kFloat, {batch, seq, 64}, {}};
    for (const auto& [index, c] : constants_) slots_[index] = c;
    std::vector<RuntimeOperand> operands;
    for (const Step& step : steps_) {
      operands.clear();
      for (int in : step.inputs) {
        const Concrete& c = slots_[in];
        operands.push_back({c.type, c.dims, c.data.empty() ? nullptr : c.data.data()});
      }
      RuntimeBuilder builder(operands);
      ShapeContext ctx(*step.node, 17, builder);
      ANVIL_RETURN_IF_ERROR(step.fn(ctx));
      for (size_t i = 0; i < step.outputs.size(); ++i) {
        const TensorInfo& info = ctx.output(static_cast<int>(i));
        Concrete& out = slots_[step.outputs[i]];
        out.type = info.type;
        out.dims.clear();
        for (const IndexExpr& d : *info.dims) {
          if (!d.IsLiteral()) return absl::InternalError("non-literal dim at run time");
          out.dims.push_back(d.literal());
        }
        out.data.clear();
        if (info.values) {
          for (const IndexExpr& v : *info.values) out.data.push_back(v.literal());
        }
      }
    }
    return absl::OkStatus();
  }

 private:
  struct Concrete {
    ElementType type = ElementType::kUndefined;
    std::vector<int64_t> dims;
    std::vector<int64_t> data;  // int64 contents when small (shape tensors)
  };
  struct Step {
    const Node* node;
    ShapeFn fn;
    std::vector<int> inputs;
    std::vector<int> outputs;
  };
  int input_slot_ = 0;
  std::vector<std::pair<int, Concrete>> constants_;
  std::vector<Step> steps_;
  std::vector<Concrete> slots_;
};

int Main(int argc, char** argv) {
  int nodes = 10000;
  int runs = 7;
  std::string only;  // profile one path: onnx, analysis or runtime
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--nodes=", 8) == 0) nodes = std::atoi(argv[i] + 8);
    if (std::strncmp(argv[i], "--runs=", 7) == 0) runs = std::atoi(argv[i] + 7);
    if (std::strncmp(argv[i], "--only=", 7) == 0) only = argv[i] + 7;
  }
  auto wanted = [&](const char* path) { return only.empty() || only == path; };
  std::unique_ptr<Model> model = GenerateModel(nodes);
  const double n = static_cast<double>(model->graph().num_nodes());
  std::printf("model: %d nodes, input x: float[B, S, 64]\n", static_cast<int>(n));

  onnx::ModelProto proto;
  if (absl::Status s = ExportModelProto(*model, &proto); !s.ok()) {
    std::fprintf(stderr, "export failed: %s\n", std::string(s.message()).c_str());
    return 1;
  }
  const double onnx_s = MedianSeconds(wanted("onnx") ? runs : 1, [&] {
    onnx::ModelProto copy = proto;
    onnx::ShapeInferenceOptions options(/*check_type_val=*/false, /*strict_mode_val=*/0,
                                        /*data_prop_val=*/true);
    onnx::shape_inference::InferShapes(copy, onnx::OpSchemaRegistry::Instance(), options);
  });

  absl::Status analysis_status;
  std::vector<double> analysis_times;
  for (int r = 0; r < (wanted("analysis") ? runs : 1); ++r) {
    std::unique_ptr<Model> copy = model->Clone();  // untimed: a fresh, un-inferred model
    const auto start = Clock::now();
    absl::StatusOr<bool> changed = InferShapes(*copy);
    analysis_times.push_back(std::chrono::duration<double>(Clock::now() - start).count());
    if (!changed.ok()) analysis_status = changed.status();
  }
  std::sort(analysis_times.begin(), analysis_times.end());
  const double analysis_s = analysis_times[analysis_times.size() / 2];
  if (!analysis_status.ok()) {
    std::fprintf(stderr, "anvil shape inference failed: %s\n",
                 std::string(analysis_status.message()).c_str());
    return 1;
  }

  absl::Status runtime_status;
  RuntimePath runtime_path(*model);  // the plan: built once, as the runtime does
  const double runtime_s = MedianSeconds(wanted("runtime") ? runs : 1, [&] {
    absl::Status s = runtime_path.Run(8, 128);
    if (!s.ok()) runtime_status = s;
  });
  if (!runtime_status.ok()) {
    std::fprintf(stderr, "runtime path failed: %s\n",
                 std::string(runtime_status.message()).c_str());
    return 1;
  }

  const double us = 1e6 / n;
  std::printf("onnx 1.12 C++ inference (data propagation): %7.3f us/node\n", onnx_s * us);
  std::printf("anvil analysis (symbolic):                  %7.3f us/node  (%.2fx onnx)\n",
              analysis_s * us, analysis_s / onnx_s);
  std::printf("anvil runtime builder (concrete):           %7.3f us/node  (%.2fx onnx)\n",
              runtime_s * us, runtime_s / onnx_s);
  return 0;
}

}  // namespace
}  // namespace anvil

int main(int argc, char** argv) { return anvil::Main(argc, argv); }
