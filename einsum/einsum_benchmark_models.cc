// Writes the models of the Einsum benchmark (einsum_benchmark.sh) into a directory: for each
// named equation, NAME.onnx (one Einsum node, opset 17, static shapes) and NAME.rewritten.onnx
// (after shape-inference,einsum-decompose,dce), and prints one tab-separated line per case:
//   name  equation  input shapes (NAME=D0,D1;...)  ops after the rewrite  plan cost  left-to-right
//   cost
// where the costs are the planner's multiply-adds + intermediate elements (planner.h).
//
//   einsum_benchmark_models OUT_DIR
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "einsum/planner.h"
#include "graph/ir.h"
#include "graph/model_io.h"
#include "graph/pass_manager.h"
#include "shape/einsum_dims.h"
#include "shape/einsum_equation.h"

namespace anvil {
namespace {

struct Case {
  std::string name;
  std::string equation;
  std::vector<std::vector<int64_t>> shapes;
};

// B=8, H=12, S=128, D=64 for attention, as in the issue; the others sized so that each runs in
// about a millisecond or more.
const std::vector<Case>& Cases() {
  static const auto* cases = new std::vector<Case>{
      {"attention_scores", "bhqd,bhkd->bhqk", {{8, 12, 128, 64}, {8, 12, 128, 64}}},
      {"attention_context", "bhqk,bhkd->bhqd", {{8, 12, 128, 128}, {8, 12, 128, 64}}},
      {"ort5897", "bsnh,btnh->bnts", {{8, 128, 12, 64}, {8, 128, 12, 64}}},
      {"ort7375", "abc,cd,def->abd", {{16, 128, 256}, {256, 128}, {128, 16, 16}}},
      {"bilinear", "bn,anm,bm->ba", {{64, 128}, {32, 128, 128}, {64, 128}}},
      {"chain", "ij,jk,kl->il", {{1024, 16}, {16, 1024}, {1024, 8}}},
      {"batch_matmul", "...ij,...jk->...ik", {{8, 12, 128, 64}, {1, 12, 64, 128}}},
      {"trace", "ii->", {{2048, 2048}}},
      {"diagonal", "ii->i", {{2048, 2048}}},
      {"outer", "i,j->ij", {{2048}, {2048}}},
  };
  return *cases;
}

std::unique_ptr<Model> EinsumModel(const Case& c) {
  auto model = std::make_unique<Model>();
  model->opset_imports = {{"", 17}};
  model->producer_name = "anvil-einsum-benchmark";
  Graph& g = model->graph();
  Node* n = g.AddNode("Einsum");
  n->SetAttribute(Attribute::String("equation", c.equation));
  for (size_t i = 0; i < c.shapes.size(); ++i) {
    std::vector<Dim> dims;
    for (int64_t d : c.shapes[i]) dims.push_back(Dim::Literal(d));
    n->AddInput(g.AddInput(absl::StrCat("x", i), Type::Tensor(ElementType::kFloat, dims)));
  }
  Value* y = n->AddOutput("y");
  y->set_type(Type::Tensor(ElementType::kFloat));
  g.AddOutput(y);
  return model;
}

// The planner's cost of `c` with its default strategy and left to right.
std::pair<double, double> PlanCosts(const Case& c) {
  absl::StatusOr<einsum::Equation> eq = einsum::Equation::Parse(c.equation);
  std::vector<int64_t> ranks;
  std::vector<DimsExpr> dims(c.shapes.size());
  std::vector<const DimsExpr*> pointers;
  for (size_t i = 0; i < c.shapes.size(); ++i) {
    ranks.push_back(static_cast<int64_t>(c.shapes[i].size()));
    for (int64_t d : c.shapes[i]) dims[i].push_back(IndexExpr(d));
    pointers.push_back(&dims[i]);
  }
  absl::StatusOr<einsum::BoundEquation> bound = eq->Bind(ranks);
  absl::StatusOr<std::vector<IndexExpr>> sizes = EinsumLabelSizes(*bound, pointers);
  std::vector<std::vector<int>> operands;
  for (const auto& op : bound->operands) operands.push_back(op.labels);
  einsum::PlannerOptions best, l2r;
  l2r.strategy = einsum::Strategy::kLeftToRight;
  return {einsum::PlanContraction(operands, bound->output, *sizes, best).cost,
          einsum::PlanContraction(operands, bound->output, *sizes, l2r).cost};
}

int Main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: einsum_benchmark_models OUT_DIR\n";
    return 2;
  }
  const std::string dir = argv[1];
  for (const Case& c : Cases()) {
    std::unique_ptr<Model> model = EinsumModel(c);
    if (absl::Status s = SaveModel(*model, absl::StrCat(dir, "/", c.name, ".onnx")); !s.ok()) {
      std::cerr << "einsum_benchmark_models: error: " << s.message() << "\n";
      return 1;
    }
    absl::StatusOr<PassManager> pm = PassManager::Parse("shape-inference,einsum-decompose,dce");
    if (absl::Status s = pm.ok() ? pm->Run(*model) : pm.status(); !s.ok()) {
      std::cerr << "einsum_benchmark_models: error: " << c.name << ": " << s.message() << "\n";
      return 1;
    }
    std::map<std::string, int> ops;
    for (const Node* n : model->graph().nodes()) ++ops[n->op_type()];
    if (absl::Status s = SaveModel(*model, absl::StrCat(dir, "/", c.name, ".rewritten.onnx"));
        !s.ok()) {
      std::cerr << "einsum_benchmark_models: error: " << s.message() << "\n";
      return 1;
    }
    std::vector<std::string> shapes, op_counts;
    for (size_t i = 0; i < c.shapes.size(); ++i) {
      shapes.push_back(absl::StrCat("x", i, "=", absl::StrJoin(c.shapes[i], ",")));
    }
    for (const auto& [op, count] : ops) op_counts.push_back(absl::StrCat(count, " ", op));
    const auto [cost, l2r] = PlanCosts(c);
    std::cout << c.name << "\t" << c.equation << "\t" << absl::StrJoin(shapes, ";") << "\t"
              << absl::StrJoin(op_counts, ", ") << "\t" << cost << "\t" << l2r << "\n";
  }
  return 0;
}

}  // namespace
}  // namespace anvil

int main(int argc, char** argv) { return anvil::Main(argc, argv); }
