// Lazy elementwise folds, in-place folds and release inside the pass, on constants large enough
// to trigger them:
//  - random chains of elementwise ops (unary math, Cast through float16/bfloat16/double/int,
//    scalar and broadcast operands on either side, Where, Clip, CastLike) and views (Transpose,
//    Reshape, Slice with steps, Unsqueeze), folded lazily, give bit for bit the constants eager
//    folding gives, as dense copies, one element at a time and piece by piece;
//  - an elementwise fold reuses its input's buffer only when nothing else reads it;
//  - a chain folded eagerly holds at most two intermediates at once.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "constprop/constprop.h"
#include "constprop/disposable.h"
#include "constprop/gc.h"
#include "graph/ir.h"
#include "gtest/gtest.h"

namespace anvil {
namespace {

std::shared_ptr<const Elements> RandomFloats(std::vector<int64_t> dims, std::mt19937& rng) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  std::uniform_real_distribution<float> dist(-4.0f, 4.0f);
  std::vector<float> v(n);
  for (float& x : v) x = dist(rng);
  return DenseElements::FromVector(ElementType::kFloat, std::move(dims), v);
}

std::shared_ptr<const Elements> Scalar(float v) {
  return DenseElements::FromVector<float>(ElementType::kFloat, {}, {v});
}

std::shared_ptr<const Elements> Int64s(std::vector<int64_t> v) {
  const int64_t n = static_cast<int64_t>(v.size());
  return DenseElements::FromVector(ElementType::kInt64, {n}, v);
}

// Builds random chains: every step adds one node reading the current value.
class ChainBuilder {
 public:
  ChainBuilder(Model& model, uint32_t seed) : g_(model.graph()), rng_(seed) {}

  Value* Weight(std::vector<int64_t> dims) {
    dims_ = dims;
    type_ = ElementType::kFloat;
    return g_.AddInitializer(Name("w"), RandomFloats(std::move(dims), rng_));
  }

  Value* Step(Value* x) {
    std::uniform_int_distribution<int> pick(0, 17);
    switch (pick(rng_)) {
      case 0:
        return Unary(x, Pick({"Neg", "Abs", "Relu", "Floor", "Round", "Sign"}));
      case 1:
        if (!IsFloat()) return Cast(x, ElementType::kFloat);
        return Unary(x, Pick({"Tanh", "Sigmoid", "Erf", "Sin", "Atan", "Softsign"}));
      case 2: {
        if (!IsFloat()) return Cast(x, ElementType::kFloat);
        Value* a = Unary(x, "Abs");
        return Unary(a, Pick({"Sqrt", "Log", "Exp"}));
      }
      case 3:
        return Cast(x, Pick({ElementType::kFloat16, ElementType::kBfloat16, ElementType::kDouble,
                             ElementType::kFloat}));
      case 4:
        return Cast(x, Pick({ElementType::kInt32, ElementType::kInt8, ElementType::kFloat}));
      case 5:
      case 6:
        return WithScalar(x, Pick({"Mul", "Add", "Sub", "Div", "Max", "Min", "Pow"}));
      case 7:
        return WithBroadcast(x, Pick({"Mul", "Add", "Sub"}));
      case 8:
        return Transpose(x);
      case 9:
        return Slice(x);
      case 10:
        return Reshape(x);
      case 11:
        return Where(x);
      case 12:
        return Clip(x);
      case 13:
        return Unsqueeze(x);
      case 14: {
        if (!IsFloat()) return Cast(x, ElementType::kFloat);
        Node* n = Add("LeakyRelu", {x});
        n->SetAttribute(Attribute::Float("alpha", 0.125f));
        return Out(n);
      }
      case 16:
        return Concat(x);
      case 17:
        return Gather(x);
      default: {  // CastLike against a small constant of another type
        Value* like = g_.AddInitializer(
            Name("like"), DenseElements::FromVector<double>(ElementType::kDouble, {2}, {1, 2}));
        type_ = ElementType::kDouble;
        return Out(Add("CastLike", {x, like}));
      }
    }
  }

  const std::vector<int64_t>& dims() const { return dims_; }

 private:
  bool IsFloat() const {
    return type_ == ElementType::kFloat || type_ == ElementType::kDouble ||
           type_ == ElementType::kFloat16 || type_ == ElementType::kBfloat16;
  }
  template <typename T>
  T Pick(std::initializer_list<T> options) {
    std::uniform_int_distribution<size_t> d(0, options.size() - 1);
    return *(options.begin() + d(rng_));
  }
  std::string Name(const char* base) { return g_.UniqueName(base); }
  Node* Add(const char* op, std::vector<Value*> inputs) {
    Node* n = g_.AddNode(op);
    for (Value* v : inputs) n->AddInput(v);
    return n;
  }
  Value* Out(Node* n) { return n->AddOutput(Name("v")); }
  Value* FloatConstant(std::shared_ptr<const Elements> e, Value* x) {
    Value* c = g_.AddInitializer(Name("c"), std::move(e));
    if (type_ == ElementType::kFloat) return c;
    Node* cast = Add("Cast", {c});
    cast->SetAttribute(Attribute::Int("to", static_cast<int64_t>(type_)));
    (void)x;
    return Out(cast);
  }
  Value* Unary(Value* x, const char* op) { return Out(Add(op, {x})); }
  Value* Cast(Value* x, ElementType to) {
    Node* n = Add("Cast", {x});
    n->SetAttribute(Attribute::Int("to", static_cast<int64_t>(to)));
    type_ = to;
    return Out(n);
  }
  Value* WithScalar(Value* x, const char* op) {
    if (!IsFloat()) x = Cast(x, ElementType::kFloat);
    std::uniform_real_distribution<float> d(0.5f, 2.0f);
    Value* c = FloatConstant(Scalar(std::string(op) == "Pow" ? 2.0f : d(rng_)), x);
    const bool left = std::string(op) != "Pow" && rng_() % 2 == 0;
    return Out(Add(op, left ? std::vector<Value*>{c, x} : std::vector<Value*>{x, c}));
  }
  Value* WithBroadcast(Value* x, const char* op) {
    if (!IsFloat()) x = Cast(x, ElementType::kFloat);
    // A constant over the last dim, or over the first dim with trailing 1s.
    std::vector<int64_t> dims;
    if (rng_() % 2 == 0 || dims_.size() < 2) {
      dims = {dims_.empty() ? 1 : dims_.back()};
    } else {
      dims.assign(dims_.size(), 1);
      dims[0] = dims_[0];
    }
    Value* c = FloatConstant(RandomFloats(dims, rng_), x);
    return Out(Add(op, rng_() % 2 == 0 ? std::vector<Value*>{c, x} : std::vector<Value*>{x, c}));
  }
  Value* Transpose(Value* x) {
    std::vector<int64_t> perm(dims_.size());
    for (size_t k = 0; k < perm.size(); ++k) perm[k] = static_cast<int64_t>(k);
    std::shuffle(perm.begin(), perm.end(), rng_);
    Node* n = Add("Transpose", {x});
    n->SetAttribute(Attribute::Ints("perm", perm));
    std::vector<int64_t> dims;
    for (int64_t p : perm) dims.push_back(dims_[p]);
    dims_ = dims;
    return Out(n);
  }
  Value* Slice(Value* x) {
    if (dims_.empty()) return x;
    const int64_t axis = static_cast<int64_t>(rng_() % dims_.size());
    const int64_t n = dims_[axis];
    if (n < 2) return x;
    const int64_t step = rng_() % 3 == 0 ? -1 : 1 + static_cast<int64_t>(rng_() % 2);
    const int64_t start = step > 0 ? static_cast<int64_t>(rng_() % (n / 2)) : n - 1;
    const int64_t end = step > 0 ? n : -n - 1;
    Value* starts = g_.AddInitializer(Name("starts"), Int64s({start}));
    Value* ends = g_.AddInitializer(Name("ends"), Int64s({end}));
    Value* axes = g_.AddInitializer(Name("axes"), Int64s({axis}));
    Value* steps = g_.AddInitializer(Name("steps"), Int64s({step}));
    dims_[axis] = step > 0 ? (n - start + step - 1) / step : n;
    return Out(Add("Slice", {x, starts, ends, axes, steps}));
  }
  Value* Reshape(Value* x) {
    // Split the last dim in two when it divides, else merge the first two.
    std::vector<int64_t> dims = dims_;
    if (!dims.empty() && dims.back() % 2 == 0 && dims.size() < 5) {
      const int64_t last = dims.back();
      dims.back() = 2;
      dims.push_back(last / 2);
    } else if (dims.size() >= 2) {
      dims[1] *= dims[0];
      dims.erase(dims.begin());
    } else {
      return x;
    }
    dims_ = dims;
    Value* shape = g_.AddInitializer(Name("shape"), Int64s(dims));
    return Out(Add("Reshape", {x, shape}));
  }
  Value* Unsqueeze(Value* x) {
    if (dims_.size() >= 5) return x;
    Value* axes = g_.AddInitializer(Name("axes"), Int64s({0}));
    dims_.insert(dims_.begin(), 1);
    return Out(Add("Unsqueeze", {x, axes}));
  }
  Value* Concat(Value* x) {
    if (dims_.empty()) return x;
    // x next to its negation (lazy, like x) or a new dense constant, along a random axis.
    const int64_t axis = static_cast<int64_t>(rng_() % dims_.size());
    Value* other;
    if (rng_() % 2 == 0) {
      other = Unary(x, "Neg");
    } else {
      other = Cast(g_.AddInitializer(Name("other"), RandomFloats(dims_, rng_)), type_);
    }
    Node* n = Add("Concat",
                  rng_() % 2 == 0 ? std::vector<Value*>{x, other} : std::vector<Value*>{other, x});
    n->SetAttribute(Attribute::Int("axis", axis - (rng_() % 2 == 0 ? 0 : dims_.size())));
    dims_[axis] *= 2;
    return Out(n);
  }
  Value* Gather(Value* x) {
    if (dims_.empty()) return x;
    const int64_t axis = static_cast<int64_t>(rng_() % dims_.size());
    const int64_t n = dims_[axis];
    Node* g = Add("Gather", {x});
    g->SetAttribute(Attribute::Int("axis", axis));
    if (rng_() % 4 == 0 && dims_.size() > 1) {  // a scalar index drops the axis
      g->AddInput(g_.AddInitializer(
          Name("index"), DenseElements::FromVector<int64_t>(
                             ElementType::kInt64, {}, {static_cast<int64_t>(rng_() % n) - n})));
      dims_.erase(dims_.begin() + axis);
      return Out(g);
    }
    std::vector<int64_t> indices;  // runs, repeats and negative indices
    const int64_t count = 1 + static_cast<int64_t>(rng_() % std::max<int64_t>(1, n));
    for (int64_t k = 0; k < count; ++k) {
      const int64_t i = rng_() % 3 == 0 ? static_cast<int64_t>(rng_() % n) : (k % n);
      indices.push_back(rng_() % 5 == 0 ? i - n : i);
    }
    g->AddInput(g_.AddInitializer(Name("indices"), Int64s(indices)));
    dims_[axis] = count;
    return Out(g);
  }
  Value* Where(Value* x) {
    if (!IsFloat()) x = Cast(x, ElementType::kFloat);
    Value* zero = FloatConstant(Scalar(0.0f), x);
    Value* positive = Out(Add("Greater", {x, zero}));
    Value* other = FloatConstant(Scalar(-1.5f), x);
    return Out(Add("Where", {positive, x, other}));
  }
  Value* Clip(Value* x) {
    if (!IsFloat()) x = Cast(x, ElementType::kFloat);
    Value* lo = FloatConstant(Scalar(-1.0f), x);
    Value* hi = FloatConstant(Scalar(2.5f), x);
    return Out(Add("Clip", {x, lo, hi}));
  }

  Graph& g_;
  std::mt19937 rng_;
  std::vector<int64_t> dims_;
  ElementType type_ = ElementType::kFloat;
};

std::vector<int64_t> RandomDims(std::mt19937& rng) {
  // 20K to ~200K elements (above the 64 KiB lazy threshold for 4-byte types), ranks 1 to 4,
  // dims that are not multiples of the evaluation tiles.
  const int rank = 1 + static_cast<int>(rng() % 4);
  std::vector<int64_t> dims(rank, 1);
  int64_t target = 20000 + static_cast<int64_t>(rng() % 180000);
  for (int k = 0; k < rank; ++k) {
    const int64_t d =
        k == rank - 1 ? std::max<int64_t>(1, target) : 2 + static_cast<int64_t>(rng() % 37);
    dims[k] = d;
    target /= d;
  }
  return dims;
}

// One model: a few chains from random weights to graph outputs.
std::unique_ptr<Model> ChainModel(uint32_t seed) {
  auto model = std::make_unique<Model>();
  model->ir_version = 8;
  model->opset_imports = {{"", 17}};
  std::mt19937 rng(seed);
  for (int chain = 0; chain < 3; ++chain) {
    ChainBuilder b(*model, seed * 7 + chain);
    Value* v = b.Weight(RandomDims(rng));
    const int steps = 1 + static_cast<int>(rng() % 7);
    for (int s = 0; s < steps; ++s) v = b.Step(v);
    model->graph().AddOutput(v);
  }
  return model;
}

std::vector<std::shared_ptr<const Elements>> Fold(Model& model, ConstPropOptions options,
                                                  PassContext* ctx) {
  absl::StatusOr<bool> folded = PropagateConstants(model, options, PoolFor(model), ctx);
  EXPECT_TRUE(folded.ok()) << folded.status();
  std::vector<std::shared_ptr<const Elements>> outputs;
  for (const Value* v : model.graph().outputs()) outputs.push_back(v->constant());
  return outputs;
}

std::vector<uint8_t> Dense(const Elements& e) {
  std::vector<uint8_t> bytes(e.ByteSize());
  e.CopyTo(bytes.data());
  return bytes;
}

TEST(LazyFoldTest, RandomChainsMatchEagerFoldingBitForBit) {
  int64_t lazy_ops = 0, selections = 0, outputs = 0;
  for (uint32_t seed = 1; seed <= 40; ++seed) {
    SCOPED_TRACE(seed);
    std::unique_ptr<Model> lazy_model = ChainModel(seed);
    std::unique_ptr<Model> eager_model = ChainModel(seed);
    PassContext ctx;
    std::vector<std::shared_ptr<const Elements>> lazy = Fold(*lazy_model, {}, &ctx);
    ConstPropOptions eager_options;
    eager_options.lazy = false;
    eager_options.in_place = false;
    eager_options.tiled = false;  // one kernel call per node on whole tensors
    std::vector<std::shared_ptr<const Elements>> eager = Fold(*eager_model, eager_options, nullptr);
    lazy_ops += ctx.GetStatistic("lazy-ops");
    selections += ctx.GetStatistic("selections");
    ASSERT_EQ(lazy.size(), eager.size());
    for (size_t i = 0; i < lazy.size(); ++i) {
      ASSERT_NE(lazy[i], nullptr) << "output " << i << " did not fold";
      ASSERT_NE(eager[i], nullptr);
      ++outputs;
      EXPECT_TRUE(lazy[i]->Equals(*eager[i])) << "output " << i;
      // Piece by piece and element by element give the same bytes as a dense copy.
      const std::vector<uint8_t> dense = Dense(*lazy[i]);
      std::vector<uint8_t> pieces;
      ASSERT_TRUE(lazy[i]
                      ->ForEachChunk(1000,
                                     [&](absl::Span<const uint8_t> piece) {
                                       pieces.insert(pieces.end(), piece.begin(), piece.end());
                                       return absl::OkStatus();
                                     })
                      .ok());
      EXPECT_EQ(pieces, dense);
      const size_t size = ElementSize(lazy[i]->element_type());
      for (int64_t k : {int64_t{0}, lazy[i]->NumElements() / 3, lazy[i]->NumElements() - 1}) {
        if (k < 0) continue;
        uint8_t one[16];
        lazy[i]->ReadElement(k, one);
        EXPECT_EQ(std::memcmp(one, dense.data() + k * size, size), 0) << "element " << k;
      }
    }
  }
  EXPECT_GT(lazy_ops, 100);  // the chains did fold lazily
  EXPECT_GT(selections, 10);
  EXPECT_EQ(outputs, 120);
}

// w -> Neg -> Abs -> output, w large, computed eagerly; `second_user` also outputs Neg's result.
std::unique_ptr<Model> NegAbs(bool second_user) {
  auto model = std::make_unique<Model>();
  model->ir_version = 8;
  model->opset_imports = {{"", 17}};
  Graph& g = model->graph();
  std::mt19937 rng(7);
  Value* w = g.AddInitializer("w", RandomFloats({256, 1024}, rng));
  Node* neg = g.AddNode("Neg");
  neg->AddInput(w);
  Value* n = neg->AddOutput("n");
  Node* abs = g.AddNode("Abs");
  abs->AddInput(n);
  g.AddOutput(abs->AddOutput("a"));
  if (second_user) g.AddOutput(n);
  return model;
}

TEST(InPlaceFoldTest, OnlyWhenNothingElseReadsTheInput) {
  for (bool tiled : {true, false})
    for (bool second_user : {false, true}) {
      SCOPED_TRACE(tiled);
      ConstPropOptions options;
      options.lazy = false;
      options.tiled = tiled;
      SCOPED_TRACE(second_user);
      std::unique_ptr<Model> model = NegAbs(second_user);
      const std::vector<uint8_t> w = Dense(*model->graph().FindValue("w")->constant());
      PassContext ctx;
      std::vector<std::shared_ptr<const Elements>> out = Fold(*model, options, &ctx);
      // Neg reads an imported weight (not a pool buffer): never in place. Abs reads Neg's result:
      // in place unless Neg's result is also an output.
      EXPECT_EQ(ctx.GetStatistic("in-place"), second_user ? 0 : 1);
      const std::vector<uint8_t> a = Dense(*out[0]);
      for (size_t k = 0; k < w.size(); k += 4) {
        float wv, av;
        std::memcpy(&wv, &w[k], 4);
        std::memcpy(&av, &a[k], 4);
        ASSERT_EQ(av, std::abs(wv)) << k;
      }
      if (second_user) {
        const std::vector<uint8_t> n = Dense(*out[1]);
        for (size_t k = 0; k < w.size(); k += 4) {
          float wv, nv;
          std::memcpy(&wv, &w[k], 4);
          std::memcpy(&nv, &n[k], 4);
          ASSERT_EQ(nv, -wv) << k;
        }
      }
    }
}

TEST(ReleaseInPassTest, AnEagerChainHoldsAtMostTwoIntermediates) {
  // w -> Neg -> Abs -> Neg -> Abs -> Neg -> output, each 1 MiB, no in-place, no laziness: each
  // result frees its input as soon as it exists (collections alone would wait for 16 MiB).
  auto model = std::make_unique<Model>();
  model->ir_version = 8;
  model->opset_imports = {{"", 17}};
  Graph& g = model->graph();
  std::mt19937 rng(3);
  Value* v = g.AddInitializer("w", RandomFloats({256, 1024}, rng));
  for (int k = 0; k < 5; ++k) {
    Node* n = g.AddNode(k % 2 == 0 ? "Neg" : "Abs");
    n->AddInput(v);
    v = n->AddOutput(absl::StrCat("v", k));
  }
  g.AddOutput(v);
  ConstPropOptions options;
  options.lazy = false;
  options.in_place = false;
  Fold(*model, options, nullptr);
  const DisposablePool::Stats stats = PoolFor(*model).stats();
  EXPECT_EQ(stats.bytes_live, 1 << 20);
  EXPECT_LE(stats.bytes_peak, 2 << 20);
  EXPECT_EQ(stats.buffers_released, 4);
}

}  // namespace
}  // namespace anvil
