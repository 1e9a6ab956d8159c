// Randomized property test of einsum-decompose: thousands of seeded equations (1-4 operands,
// ranks 0-4, diagonals, "..." with size-1 broadcasting, labels of size 1 that broadcast, empty
// dims, implicit and explicit outputs, upper- and lower-case labels, static, symbolic and
// all-independent symbolic dims, every element type MatMul takes: float, double, float16, signed
// and unsigned 32/64-bit integers; opsets 12, 13 and 17). For each: the rewritten graph must hold
// no Einsum, keep the quality rules (no identity Transpose, no Transpose of a Transpose, no Reshape
// of a Reshape, no Reshape to the same shape, no Expand, Reshape targets constant unless a dim is
// symbolic), survive a second shape inference unchanged, and compute what the Einsum kernel
// computes on the same inputs.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "graph/instrumentation.h"
#include "graph/ir.h"
#include "graph/pass_manager.h"
#include "graph/text_format.h"
#include "gtest/gtest.h"
#include "kernels/dispatch.h"
#include "kernels/tensor.h"
#include "runtime/session.h"

namespace anvil {
namespace {

constexpr int kCases = 4000;

struct Case {
  std::string equation;
  std::vector<std::vector<int64_t>> shapes;  // concrete input shapes
  std::vector<std::vector<Dim>> declared;    // declared input dims (literal or symbolic)
  ElementType type = ElementType::kFloat;
  int64_t opset = 17;
  bool symbolic = false;
  // Every input dim its own symbol (as when an exporter leaves all dims dynamic): sizes einsum
  // broadcasts cannot be told apart, so contracted labels may need an Expand.
  bool independent = false;
};

char Letter(int id) {
  return id < 26 ? static_cast<char>('a' + id) : static_cast<char>('A' + id - 26);
}

Case RandomCase(std::mt19937& rng) {
  auto uniform = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  auto chance = [&](double p) { return std::bernoulli_distribution(p)(rng); };
  Case c;
  // Every type that MatMul, Mul and ReduceSum accept from opset 12 on.
  const ElementType types[] = {ElementType::kFloat,  ElementType::kFloat,  ElementType::kDouble,
                               ElementType::kInt32,  ElementType::kInt64,  ElementType::kUint32,
                               ElementType::kUint64, ElementType::kFloat16};
  c.type = types[uniform(0, 7)];
  const int64_t opsets[] = {12, 13, 17};
  c.opset = opsets[uniform(0, 2)];
  c.symbolic = chance(0.5);
  c.independent = c.symbolic && chance(0.2);

  // The label pool and sizes.
  std::vector<int> ids(52);
  for (int i = 0; i < 52; ++i) ids[i] = i;
  std::shuffle(ids.begin(), ids.end(), rng);
  const int pool = uniform(1, 7);
  std::vector<char> letters;
  absl::flat_hash_map<char, int64_t> size;
  absl::flat_hash_map<char, bool> symbolic_label;
  for (int i = 0; i < pool; ++i) {
    const char l = Letter(ids[i]);
    letters.push_back(l);
    // Now and then an empty dim (static cases only: a symbolic dim is assumed non-zero).
    size[l] = !c.symbolic && chance(0.03) ? 0 : uniform(1, 5);
    symbolic_label[l] = c.symbolic && chance(0.7);
  }
  const bool ellipsis = chance(0.3);
  const int ellipsis_rank = ellipsis ? uniform(0, 2) : 0;
  std::vector<int64_t> ellipsis_size;
  for (int k = 0; k < ellipsis_rank; ++k) ellipsis_size.push_back(uniform(1, 3));

  const int n_ops = uniform(1, 4);
  std::vector<std::string> terms;
  std::set<char> used;
  for (int i = 0; i < n_ops; ++i) {
    std::string term;
    const int rank = uniform(0, std::min(4, pool + 1));
    for (int k = 0; k < rank; ++k) {
      // Mostly distinct labels; sometimes a repeat (a diagonal).
      char l = letters[uniform(0, pool - 1)];
      if (term.find(l) != std::string::npos && !chance(0.3)) continue;
      term.push_back(l);
    }
    int own_ellipsis = -1;
    if (ellipsis && chance(0.8)) own_ellipsis = uniform(0, ellipsis_rank);
    const int at = uniform(0, static_cast<int>(term.size()));
    std::vector<int64_t> shape;
    std::vector<Dim> declared;
    auto add_letter = [&](char l) {
      used.insert(l);
      const bool repeated = std::count(term.begin(), term.end(), l) > 1;
      int64_t s = size[l];
      // A label of size 1 in one operand broadcasts against its size elsewhere.
      if (!repeated && s > 1 && chance(0.1)) s = 1;
      shape.push_back(s);
      declared.push_back(symbolic_label[l] && s == size[l]
                             ? Dim::Param(absl::StrCat("s", std::string(1, l)))
                             : Dim::Literal(s));
    };
    std::string written;
    for (int k = 0; k <= static_cast<int>(term.size()); ++k) {
      if (k == at && own_ellipsis >= 0) {
        written += "...";
        for (int e = ellipsis_rank - own_ellipsis; e < ellipsis_rank; ++e) {
          const bool one = chance(0.3);
          const int64_t s = one ? 1 : ellipsis_size[e];
          shape.push_back(s);
          declared.push_back(c.symbolic && !one ? Dim::Param(absl::StrCat("e", e))
                                                : Dim::Literal(s));
        }
      }
      if (k < static_cast<int>(term.size())) {
        written.push_back(term[k]);
        add_letter(term[k]);
      }
    }
    if (c.independent) {
      for (size_t k = 0; k < declared.size(); ++k) {
        declared[k] = Dim::Param(absl::StrCat("d", i, "_", k));
      }
    }
    terms.push_back(written);
    c.shapes.push_back(shape);
    c.declared.push_back(declared);
  }
  std::string equation;
  for (size_t i = 0; i < terms.size(); ++i) {
    if (i > 0) equation += chance(0.2) ? ", " : ",";
    equation += terms[i];
  }
  if (chance(0.7)) {
    std::vector<char> out(used.begin(), used.end());
    std::shuffle(out.begin(), out.end(), rng);
    std::string o;
    for (char l : out) {
      if (chance(0.6)) o.push_back(l);
    }
    if (equation.find("...") != std::string::npos && chance(0.8)) {
      o.insert(static_cast<size_t>(uniform(0, static_cast<int>(o.size()))), "...");
    }
    equation += chance(0.2) ? " -> " + o : "->" + o;
  }
  c.equation = equation;
  return c;
}

// Floats in [-1, 1]; integers in [-3, 3] ([0, 3] unsigned); float16 in {-1, 0, 1}, so that its
// sums stay exact integers below 2048 whatever order they are added in.
Tensor RandomTensor(ElementType type, const std::vector<int64_t>& shape, std::mt19937& rng) {
  Tensor t(type, shape);
  const int64_t n = t.NumElements();
  std::uniform_real_distribution<double> real(-1, 1);
  std::uniform_int_distribution<int> small(-3, 3), unsigned_small(0, 3), sign(-1, 1);
  for (int64_t i = 0; i < n; ++i) {
    switch (type) {
      case ElementType::kFloat:
        t.As<float>()[i] = static_cast<float>(real(rng));
        break;
      case ElementType::kDouble:
        t.As<double>()[i] = real(rng);
        break;
      case ElementType::kInt32:
        t.As<int32_t>()[i] = small(rng);
        break;
      case ElementType::kUint32:
        t.As<uint32_t>()[i] = unsigned_small(rng);
        break;
      case ElementType::kUint64:
        t.As<uint64_t>()[i] = unsigned_small(rng);
        break;
      case ElementType::kFloat16:
        t.As<Half>()[i] = Half(static_cast<float>(sign(rng)));
        break;
      default:
        t.As<int64_t>()[i] = small(rng);
    }
  }
  return t;
}

std::unique_ptr<Model> EinsumModel(const Case& c) {
  auto model = std::make_unique<Model>();
  model->opset_imports = {{"", c.opset}};
  Graph& g = model->graph();
  Node* n = g.AddNode("Einsum");
  n->SetAttribute(Attribute::String("equation", c.equation));
  for (size_t i = 0; i < c.shapes.size(); ++i) {
    n->AddInput(g.AddInput(absl::StrCat("x", i), Type::Tensor(c.type, c.declared[i])));
  }
  Value* y = n->AddOutput("y");
  y->set_type(Type::Tensor(c.type));
  g.AddOutput(y);
  return model;
}

double AsDouble(const Tensor& t, int64_t i) {
  switch (t.type()) {
    case ElementType::kFloat:
      return t.As<float>()[i];
    case ElementType::kDouble:
      return t.As<double>()[i];
    case ElementType::kInt32:
      return t.As<int32_t>()[i];
    case ElementType::kUint32:
      return t.As<uint32_t>()[i];
    case ElementType::kUint64:
      return static_cast<double>(t.As<uint64_t>()[i]);
    case ElementType::kFloat16:
      return static_cast<float>(t.As<Half>()[i]);
    default:
      return static_cast<double>(t.As<int64_t>()[i]);
  }
}

// The quality rules of the rewrite; "" when all hold.
std::string QualityViolation(const Model& model, bool symbolic, bool independent) {
  std::string why;
  for (const Node* n : model.graph().nodes()) {
    const std::string& op = n->op_type();
    const Node* producer = n->num_inputs() > 0 ? n->input(0)->producer() : nullptr;
    if (op == "Einsum") why += "an Einsum is left; ";
    if (op == "Expand" && !independent) why += "an Expand; ";
    if (op == "Transpose") {
      const std::vector<int64_t> perm = n->GetInts("perm");
      bool identity = true;
      for (size_t k = 0; k < perm.size(); ++k) identity = identity && perm[k] == (int64_t)k;
      if (identity) why += "an identity Transpose; ";
      if (producer != nullptr && producer->op_type() == "Transpose") {
        why += "a Transpose of a Transpose; ";
      }
    }
    if (op == "Reshape") {
      if (n->input(0)->type().shape() == n->output(0)->type().shape()) {
        why += absl::StrCat("a Reshape to the same shape ", n->output(0)->type().ToString(), "; ");
      }
      if (producer != nullptr && producer->op_type() == "Reshape") {
        why += "a Reshape of a Reshape; ";
      }
      if (!n->input(1)->IsInitializer() && !symbolic) why += "a computed static Reshape target; ";
      if (n->input(1)->IsInitializer()) {
        int minus_ones = 0;
        for (int64_t k = 0; k < n->input(1)->constant()->NumElements(); ++k) {
          minus_ones += n->input(1)->constant()->GetInt64(k) == -1;
        }
        if (minus_ones > 1) why += "a Reshape target with two -1; ";
      }
    }
    if (op == "Shape" && !symbolic) why += "a Shape of a static tensor; ";
  }
  return why;
}

TEST(EinsumDecomposePropertyTest, RandomEquationsMatchTheEinsumKernel) {
  std::mt19937 rng(20261124);
  int rewritten = 0, checked = 0, invalid = 0, diagonals = 0, ellipses = 0, symbolic = 0;
  int64_t elements = 0;
  std::map<std::string, int> op_counts;
  for (int i = 0; i < kCases; ++i) {
    const Case c = RandomCase(rng);
    SCOPED_TRACE(absl::StrCat("case ", i, ": '", c.equation, "' ", ElementTypeName(c.type).data(),
                              " opset ", c.opset,
                              c.independent ? " independent"
                              : c.symbolic  ? " symbolic"
                                            : " static"));
    // Reference: the Einsum kernel.
    SessionOptions reference_options;
    reference_options.pipeline = "shape-inference";
    absl::StatusOr<std::unique_ptr<Session>> reference =
        Session::Load(EinsumModel(c), reference_options);
    if (!reference.ok()) {
      // The generator may write an equation whose sizes conflict (a diagonal of a broadcast
      // label); the shape rule rejects those and so must the pass.
      ++invalid;
      auto model = EinsumModel(c);
      absl::StatusOr<PassManager> pm = PassManager::Parse("einsum-decompose");
      ASSERT_TRUE(pm.ok());
      EXPECT_FALSE(pm->Run(*model).ok()) << reference.status().message();
      continue;
    }
    absl::flat_hash_map<std::string, Tensor> inputs;
    for (size_t k = 0; k < c.shapes.size(); ++k) {
      inputs[absl::StrCat("x", k)] = RandomTensor(c.type, c.shapes[k], rng);
    }
    absl::StatusOr<std::vector<Tensor>> expected = (*reference)->Run(inputs);
    ASSERT_TRUE(expected.ok()) << expected.status().message();

    // The rewrite, verified after each pass.
    std::unique_ptr<Model> model = EinsumModel(c);
    absl::StatusOr<PassManager> pm = PassManager::Parse("shape-inference,einsum-decompose");
    ASSERT_TRUE(pm.ok());
    auto* stats = pm->AddInstrumentation(std::make_unique<StatisticsInstrumentation>());
    pm->AddInstrumentation(std::make_unique<VerifierInstrumentation>());
    absl::Status run = pm->Run(*model);
    ASSERT_TRUE(run.ok()) << run.message();
    ASSERT_EQ(stats->Get("einsum-decompose", "einsums-rewritten"), 1);
    ++rewritten;
    for (const Node* n : model->graph().nodes()) ++op_counts[n->op_type()];
    diagonals += stats->Get("einsum-decompose", "nodes-slice") > 0;
    ellipses += c.equation.find("...") != std::string::npos;
    symbolic += c.symbolic;
    elements += (*expected)[0].NumElements();
    const std::string violation = QualityViolation(*model, c.symbolic, c.independent);
    EXPECT_EQ(violation, "") << PrintModel(*model);

    // Shape inference again must agree with the types the pass wrote, then run.
    const std::string text = PrintModel(*model);
    SessionOptions options;
    options.pipeline = "shape-inference";
    absl::StatusOr<std::unique_ptr<Session>> session = Session::Load(std::move(model), options);
    ASSERT_TRUE(session.ok()) << session.status().message() << "\n" << text;
    absl::StatusOr<std::vector<Tensor>> actual = (*session)->Run(inputs);
    ASSERT_TRUE(actual.ok()) << actual.status().message() << "\n" << text;
    const Tensor& e = (*expected)[0];
    const Tensor& a = (*actual)[0];
    ASSERT_EQ(a.type(), e.type());
    ASSERT_EQ(a.dims(), e.dims()) << text;
    const bool is_float = c.type == ElementType::kFloat || c.type == ElementType::kDouble;
    for (int64_t k = 0; k < e.NumElements(); ++k) {
      const double x = AsDouble(a, k), y = AsDouble(e, k);
      if (is_float) {
        ASSERT_NEAR(x, y, 1e-4 + 1e-4 * std::fabs(y)) << "element " << k << "\n" << text;
      } else {
        ASSERT_EQ(x, y) << "element " << k << "\n" << text;
      }
    }
    ++checked;
  }
  std::cout << kCases << " equations: " << rewritten << " rewritten, " << checked
            << " checked against the Einsum kernel, " << invalid << " invalid (rejected by both); "
            << diagonals << " with diagonals, " << ellipses << " with '...', " << symbolic
            << " symbolic; " << elements << " output elements compared; nodes:";
  for (const auto& [op, count] : op_counts) std::cout << " " << op << " " << count;
  std::cout << "\n";
  EXPECT_GE(checked, kCases * 9 / 10);
}

}  // namespace
}  // namespace anvil
