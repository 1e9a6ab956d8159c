// Lazy elementwise folds, in-place folds and release inside the pass, on constants large enough
// to trigger them:
//  - random chains of elementwise ops (unary math, Cast through float16/bfloat16/double/int,
//    scalar and broadcast operands on either side, Where, Clip, CastLike) and views (Transpose,
//    Reshape, Slice with steps, Unsqueeze), folded lazily, give bit for bit the constants eager
//    folding gives, as dense copies, one element at a time and piece by piece; so do chains
//    heavy in layout ops (any Reshape, Flatten, Squeeze, Split, Gather with 2-D indices, negative
//    axes, values read by a second user);
//  - layout ops after a lazy chain (Reshape before or after a Slice, Split, Gather, Reshape of a
//    Concat, a second user of the weight) compute and allocate nothing when they fold;
//  - an elementwise fold reuses its input's buffer only when nothing else reads it;
//  - a chain folded eagerly holds at most two intermediates at once.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <numeric>
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

  // Chains where every other step is a layout op (LayoutStep).
  void set_layout_heavy(bool on) { layout_heavy_ = on; }

  Value* Step(Value* x) {
    if (layout_heavy_ && rng_() % 2 == 0) return LayoutStep(x);
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

  // Layout ops whose results strided views often cannot express, with negative axes; now and
  // then the value is also a graph output (a second reader of what the next op reads).
  Value* LayoutStep(Value* x) {
    if (rng_() % 6 == 0 && !x->IsGraphOutput()) g_.AddOutput(x);
    switch (rng_() % 6) {
      case 0:
        return ReshapeAny(x);
      case 1:
        return Flatten(x);
      case 2:
        return Squeeze(x);
      case 3:
        return Split(x);
      case 4:
        return Gather2D(x);
      default:
        return Transpose(x);
    }
  }

 private:
  int64_t Axis(int64_t axis, int64_t rank) {  // as written: negative half the time
    return rng_() % 2 == 0 ? axis : axis - rank;
  }
  // Any dims of the same count (a random factorization), written with a -1 and maybe a 0.
  Value* ReshapeAny(Value* x) {
    int64_t n = 1;
    for (int64_t d : dims_) n *= d;
    std::vector<int64_t> factors;
    for (int64_t p = 2; p * p <= n; ++p) {
      while (n % p == 0) {
        factors.push_back(p);
        n /= p;
      }
    }
    if (n > 1) factors.push_back(n);
    std::shuffle(factors.begin(), factors.end(), rng_);
    std::vector<int64_t> dims(1 + rng_() % 4, 1);
    for (int64_t f : factors) dims[rng_() % dims.size()] *= f;
    std::vector<int64_t> written = dims;
    written[rng_() % dims.size()] = -1;
    if (!dims_.empty() && dims.size() > 1 && written[0] != -1 && dims[0] == dims_[0])
      written[0] = 0;
    dims_ = dims;
    return Out(Add("Reshape", {x, g_.AddInitializer(Name("shape"), Int64s(written))}));
  }
  Value* Flatten(Value* x) {
    const int64_t rank = static_cast<int64_t>(dims_.size());
    const int64_t axis = static_cast<int64_t>(rng_() % (rank + 1));
    int64_t outer = 1, inner = 1;
    for (int64_t k = 0; k < rank; ++k) (k < axis ? outer : inner) *= dims_[k];
    Node* n = Add("Flatten", {x});
    n->SetAttribute(Attribute::Int("axis", axis == rank ? axis : Axis(axis, rank)));
    dims_ = {outer, inner};
    return Out(n);
  }
  // Squeezes a dim of 1 (after unsqueezing one at a random place when there is none).
  Value* Squeeze(Value* x) {
    auto one = std::find(dims_.begin(), dims_.end(), 1);
    if (one == dims_.end()) {
      if (dims_.size() >= 5) return x;
      const int64_t rank = static_cast<int64_t>(dims_.size()) + 1;
      const int64_t axis = static_cast<int64_t>(rng_() % rank);
      dims_.insert(dims_.begin() + axis, 1);
      return Out(
          Add("Unsqueeze", {x, g_.AddInitializer(Name("axes"), Int64s({Axis(axis, rank)}))}));
    }
    const int64_t rank = static_cast<int64_t>(dims_.size());
    const int64_t axis = one - dims_.begin();
    dims_.erase(one);
    return Out(Add("Squeeze", {x, g_.AddInitializer(Name("axes"), Int64s({Axis(axis, rank)}))}));
  }
  // Splits an axis in 2 or 3 parts; the chain goes on with one, the others are outputs too.
  Value* Split(Value* x) {
    if (dims_.empty()) return x;
    const int64_t rank = static_cast<int64_t>(dims_.size());
    const int64_t axis = static_cast<int64_t>(rng_() % rank);
    const int64_t n = dims_[axis];
    if (n < 3) return x;
    const int64_t a = 1 + static_cast<int64_t>(rng_() % (n - 2));
    const int64_t b = 1 + static_cast<int64_t>(rng_() % (n - a - 1));
    const std::vector<int64_t> sizes = {a, b, n - a - b};
    Node* split = Add("Split", {x, g_.AddInitializer(Name("split"), Int64s(sizes))});
    split->SetAttribute(Attribute::Int("axis", Axis(axis, rank)));
    const size_t kept = rng_() % 3;
    Value* result = nullptr;
    for (size_t k = 0; k < 3; ++k) {
      Value* part = Out(split);
      if (k == kept) {
        result = part;
      } else {
        g_.AddOutput(part);
      }
    }
    dims_[axis] = sizes[kept];
    return result;
  }
  // Gather with [2, k] indices (repeats, negative ones) along a random axis.
  Value* Gather2D(Value* x) {
    if (dims_.empty() || dims_.size() >= 5) return x;
    const int64_t rank = static_cast<int64_t>(dims_.size());
    const int64_t axis = static_cast<int64_t>(rng_() % rank);
    const int64_t n = dims_[axis];
    const int64_t k = 1 + static_cast<int64_t>(rng_() % std::max<int64_t>(1, n / 2 + 1));
    std::vector<int64_t> indices(2 * k);
    for (int64_t& i : indices) i = static_cast<int64_t>(rng_() % n) - (rng_() % 4 == 0 ? n : 0);
    Node* g =
        Add("Gather",
            {x, g_.AddInitializer(Name("indices"), DenseElements::FromVector<int64_t>(
                                                       ElementType::kInt64, {2, k}, indices))});
    g->SetAttribute(Attribute::Int("axis", Axis(axis, rank)));
    dims_[axis] = k;
    dims_.insert(dims_.begin() + axis, 2);
    return Out(g);
  }

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
  bool layout_heavy_ = false;
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
std::unique_ptr<Model> ChainModel(uint32_t seed, bool layout_heavy = false) {
  auto model = std::make_unique<Model>();
  model->ir_version = 8;
  model->opset_imports = {{"", 17}};
  std::mt19937 rng(seed);
  for (int chain = 0; chain < 3; ++chain) {
    ChainBuilder b(*model, seed * 7 + chain);
    b.set_layout_heavy(layout_heavy);
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

// Folds the chains of `seed` lazily and eagerly; every output must be bit for bit the same,
// read densely, piece by piece and element by element. Adds the statistics of the lazy fold.
void ExpectLazyMatchesEager(uint32_t seed, bool layout_heavy, PassContext& ctx, int64_t* outputs) {
  SCOPED_TRACE(seed);
  std::unique_ptr<Model> lazy_model = ChainModel(seed, layout_heavy);
  std::unique_ptr<Model> eager_model = ChainModel(seed, layout_heavy);
  std::vector<std::shared_ptr<const Elements>> lazy = Fold(*lazy_model, {}, &ctx);
  ConstPropOptions eager_options;
  eager_options.lazy = false;
  eager_options.in_place = false;
  eager_options.tiled = false;  // one kernel call per node on whole tensors
  std::vector<std::shared_ptr<const Elements>> eager = Fold(*eager_model, eager_options, nullptr);
  {
    ASSERT_EQ(lazy.size(), eager.size());
    for (size_t i = 0; i < lazy.size(); ++i) {
      ASSERT_NE(lazy[i], nullptr) << "output " << i << " did not fold";
      ASSERT_NE(eager[i], nullptr);
      ++*outputs;
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
}

TEST(LazyFoldTest, RandomChainsMatchEagerFoldingBitForBit) {
  PassContext ctx;
  int64_t outputs = 0;
  for (uint32_t seed = 1; seed <= 40; ++seed) {
    ExpectLazyMatchesEager(seed, /*layout_heavy=*/false, ctx, &outputs);
  }
  EXPECT_GT(ctx.GetStatistic("lazy-ops"), 100);  // the chains did fold lazily
  EXPECT_GT(ctx.GetStatistic("selections") + ctx.GetStatistic("remaps"), 10);
  EXPECT_EQ(outputs, 120);
}

TEST(LazyFoldTest, LayoutHeavyChainsMatchEagerFoldingBitForBit) {
  PassContext ctx;
  int64_t outputs = 0;
  for (uint32_t seed = 1; seed <= 40; ++seed) {
    ExpectLazyMatchesEager(seed, /*layout_heavy=*/true, ctx, &outputs);
  }
  EXPECT_GT(ctx.GetStatistic("lazy-ops"), 50);
  EXPECT_GT(ctx.GetStatistic("remaps"), 30);  // layout ops no strided view can express
  EXPECT_GT(outputs, 120);                    // split parts and second readers too
}

// The constprop memory benchmark's layout models (testdata/gen_constprop_memory_model.py --layout)
// at 512 KiB: W [512, 256] -> Transpose -> Cast float16 -> Cast float -> Mul by a scalar -> Add a
// bias row [512] -> layout ops keeping a quarter; `second_user` also outputs W.
// kGatherFew keeps 8 rows (8 KiB) only.
enum class Layout { kReshapeSlice, kSliceReshape, kSplit, kGather, kGatherFew, kConcatReshape };

std::unique_ptr<Model> LayoutModel(Layout layout, bool second_user) {
  auto model = std::make_unique<Model>();
  model->ir_version = 8;
  model->opset_imports = {{"", 17}};
  Graph& g = model->graph();
  std::mt19937 rng(11);
  auto node = [&](const char* op, std::vector<Value*> inputs) {
    Node* n = g.AddNode(op);
    for (Value* v : inputs) n->AddInput(v);
    return n;
  };
  auto ints = [&](std::vector<int64_t> v) {
    return g.AddInitializer(g.UniqueName("i"), Int64s(v));
  };
  Value* w = g.AddInitializer("w", RandomFloats({512, 256}, rng));
  Node* t = node("Transpose", {w});
  t->SetAttribute(Attribute::Ints("perm", {1, 0}));
  auto chain = [&](Value* x) {  // the elementwise chain on [256, 512]
    Node* h = node("Cast", {x});
    h->SetAttribute(Attribute::Int("to", static_cast<int64_t>(ElementType::kFloat16)));
    Node* f = node("Cast", {h->AddOutput(g.UniqueName("h"))});
    f->SetAttribute(Attribute::Int("to", static_cast<int64_t>(ElementType::kFloat)));
    Value* m = node("Mul", {f->AddOutput(g.UniqueName("f")),
                            g.AddInitializer(g.UniqueName("s"), Scalar(0.5f))})
                   ->AddOutput(g.UniqueName("m"));
    Value* bias = g.AddInitializer(g.UniqueName("bias"), RandomFloats({512}, rng));
    return node("Add", {m, bias})->AddOutput(g.UniqueName("a"));
  };
  Value* a = chain(t->AddOutput("t"));
  Value* k = nullptr;
  switch (layout) {
    case Layout::kReshapeSlice: {
      Value* r = node("Reshape", {a, ints({512, 256})})->AddOutput("r");
      k = node("Slice", {r, ints({0}), ints({128}), ints({0})})->AddOutput("k");
      break;
    }
    case Layout::kSliceReshape: {
      Value* s = node("Slice", {a, ints({0}), ints({64}), ints({0})})->AddOutput("s");
      k = node("Reshape", {s, ints({128, 256})})->AddOutput("k");
      break;
    }
    case Layout::kSplit: {
      Value* r = node("Reshape", {a, ints({512, 256})})->AddOutput("r");
      Node* split = node("Split", {r, ints({128, 128, 256})});
      k = split->AddOutput("k");
      split->AddOutput("k1");
      split->AddOutput("k2");
      break;
    }
    case Layout::kGather: {
      Value* r = node("Reshape", {a, ints({512, 256})})->AddOutput("r");
      std::vector<int64_t> rows(512);
      std::iota(rows.begin(), rows.end(), 0);
      std::shuffle(rows.begin(), rows.end(), rng);
      rows.resize(128);
      Value* index = g.AddInitializer(
          "index", DenseElements::FromVector<int64_t>(ElementType::kInt64, {2, 64}, rows));
      Value* picked = node("Gather", {r, index})->AddOutput("g");
      k = node("Reshape", {picked, ints({128, 256})})->AddOutput("k");
      break;
    }
    case Layout::kGatherFew: {
      Value* r = node("Reshape", {a, ints({512, 256})})->AddOutput("r");
      k = node("Gather", {r, ints({5, 500, -3, 77, 5, 128, 0, 300})})->AddOutput("k");
      break;
    }
    case Layout::kConcatReshape: {  // [a; chain(-t)] along the columns, mixed by a Reshape
      Value* neg = chain(node("Neg", {g.FindValue("t")})->AddOutput("n"));
      Node* c = node("Concat", {a, neg});
      c->SetAttribute(Attribute::Int("axis", 1));
      Value* r = node("Reshape", {c->AddOutput("c"), ints({1024, 256})})->AddOutput("r");
      k = node("Slice", {r, ints({0}), ints({128}), ints({0})})->AddOutput("k");
      break;
    }
  }
  g.AddOutput(k);
  if (second_user) g.AddOutput(w);
  return model;
}

TEST(LayoutFoldTest, LayoutOpsAfterALazyChainComputeNothingWhenFolded) {
  for (Layout layout : {Layout::kReshapeSlice, Layout::kSliceReshape, Layout::kSplit,
                        Layout::kGather, Layout::kGatherFew, Layout::kConcatReshape}) {
    for (bool second_user : {false, true}) {
      SCOPED_TRACE(static_cast<int>(layout));
      SCOPED_TRACE(second_user);
      std::unique_ptr<Model> lazy_model = LayoutModel(layout, second_user);
      PassContext ctx;
      std::vector<std::shared_ptr<const Elements>> lazy = Fold(*lazy_model, {}, &ctx);
      // Nothing was computed into the pool: the kept quarter is a lazy expression over W.
      EXPECT_EQ(PoolFor(*lazy_model).stats().bytes_peak, 0);
      ASSERT_NE(lazy[0], nullptr);
      const auto* k = dynamic_cast<const DisposableElements*>(lazy[0].get());
      ASSERT_NE(k, nullptr);
      EXPECT_TRUE(k->is_lazy());
      EXPECT_EQ(k->NumElements(), (layout == Layout::kGatherFew ? 8 : 128) * 256);
      std::unique_ptr<Model> eager_model = LayoutModel(layout, second_user);
      ConstPropOptions eager;
      eager.lazy = false;
      eager.in_place = false;
      eager.tiled = false;
      std::vector<std::shared_ptr<const Elements>> expected = Fold(*eager_model, eager, nullptr);
      ASSERT_EQ(lazy.size(), expected.size());
      for (size_t i = 0; i < lazy.size(); ++i) {
        ASSERT_NE(expected[i], nullptr);
        EXPECT_TRUE(lazy[i]->Equals(*expected[i])) << "output " << i;
      }
    }
  }
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
