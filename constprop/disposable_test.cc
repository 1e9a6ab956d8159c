#include "constprop/disposable.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "constprop/lazy_op.h"
#include "graph/ir.h"
#include "gtest/gtest.h"

namespace anvil {
namespace {

// A 2x3 float constant 0..5 in a pool buffer.
std::shared_ptr<const DisposableElements> Iota23(DisposablePool& pool) {
  auto buffer = pool.Allocate(6 * sizeof(float));
  std::vector<float> values(6);
  std::iota(values.begin(), values.end(), 0.0f);
  std::memcpy(buffer->mutable_data(), values.data(), 6 * sizeof(float));
  return DisposableElements::Dense(buffer, ElementType::kFloat, {2, 3});
}

template <typename T>
std::vector<T> Read(const Elements& e) {
  std::vector<T> out(e.NumElements());
  e.CopyTo(reinterpret_cast<uint8_t*>(out.data()));
  return out;
}

TEST(DisposableTest, TransposeIsAViewThatReadsPermuted) {
  DisposablePool pool;
  auto a = Iota23(pool);
  auto t = a->Transpose({1, 0});
  EXPECT_EQ(t->buffer(), a->buffer());
  EXPECT_EQ(t->ContiguousData(), nullptr);
  EXPECT_EQ(Read<float>(*t), (std::vector<float>{0, 3, 1, 4, 2, 5}));
  EXPECT_EQ(pool.stats().bytes_live, 24);
}

TEST(DisposableTest, BroadcastSliceReshapeAndSplat) {
  DisposablePool pool;
  auto a = Iota23(pool);
  auto row = a->Slice({1, 0}, {1, 2}, {1, 2});  // a[1:2, ::2] = [[3, 5]]
  EXPECT_EQ(Read<float>(*row), (std::vector<float>{3, 5}));
  auto wide = row->BroadcastTo({3, 2});
  EXPECT_EQ(Read<float>(*wide), (std::vector<float>{3, 5, 3, 5, 3, 5}));
  auto flat = a->Reshape({3, 2});
  ASSERT_NE(flat, nullptr);
  EXPECT_NE(flat->ContiguousData(), nullptr);
  EXPECT_EQ(a->Transpose({1, 0})->Reshape({6}), nullptr);  // not dense: caller materializes
  auto one = a->Slice({0, 2}, {1, 1}, {1, 1})->BroadcastTo({4, 4});
  EXPECT_TRUE(one->IsSplat());
  EXPECT_EQ(Read<float>(*one), std::vector<float>(16, 2.0f));
}

TEST(DisposableTest, ReshapeIsAViewWheneverTheStridesAllowIt) {
  DisposablePool pool;
  auto a = Iota23(pool);
  auto t = a->Transpose({1, 0});  // [3, 2], strides [1, 3]
  // Splitting a dim of a transposed view is a view; merging its two dims is not.
  auto split = t->Reshape({3, 2, 1});
  ASSERT_NE(split, nullptr);
  EXPECT_EQ(split->buffer(), a->buffer());
  EXPECT_EQ(Read<float>(*split), (std::vector<float>{0, 3, 1, 4, 2, 5}));
  auto a6 = Iota23(pool)->Reshape({6});
  auto t23 = a6->Reshape({2, 3})->Transpose({1, 0})->Reshape({1, 3, 1, 2});
  ASSERT_NE(t23, nullptr);
  EXPECT_EQ(Read<float>(*t23), (std::vector<float>{0, 3, 1, 4, 2, 5}));
  EXPECT_EQ(t->Reshape({6}), nullptr);
  EXPECT_EQ(ReshapeStrides({3, 2}, {1, 3}, {3, 2, 1}), (std::vector<int64_t>{1, 3, 0}));
  EXPECT_EQ(ReshapeStrides({4, 6}, {1, 4}, {2, 2, 3, 2}), (std::vector<int64_t>{2, 1, 8, 4}));
  EXPECT_EQ(ReshapeStrides({4, 6}, {1, 4}, {24}), std::nullopt);
  // A broadcast dim (stride 0) splits into broadcast dims.
  EXPECT_EQ(ReshapeStrides({4, 6}, {1, 0}, {4, 2, 3}), (std::vector<int64_t>{1, 0, 0}));
}

TEST(DisposableTest, CollectorReleasesUnreachableBuffers) {
  DisposablePool pool;
  const Buffer* kept;
  {
    auto a = Iota23(pool);
    auto b = Iota23(pool);
    kept = a->buffer().get();
    EXPECT_EQ(pool.stats().bytes_live, 48);
    // `b` is still held here: releasing the pool's reference frees nothing yet.
    EXPECT_EQ(pool.ReleaseUnreachable({kept}), 0);
    EXPECT_EQ(pool.stats().bytes_live, 48);
  }
  // Both views are gone; `a`'s buffer is still owned by the pool (it was reachable).
  EXPECT_EQ(pool.stats().bytes_live, 24);
  EXPECT_EQ(pool.ReleaseUnreachable({}), 24);
  EXPECT_EQ(pool.stats().bytes_live, 0);
  EXPECT_EQ(pool.stats().bytes_peak, 48);
  EXPECT_EQ(pool.stats().bytes_released, 48);
}

TEST(DisposableTest, WrapSharesContiguousConstants) {
  DisposablePool pool;
  auto dense = DenseElements::FromVector<int32_t>(ElementType::kInt32, {3}, {7, 8, 9});
  auto wrapped = DisposableElements::Wrap(dense, pool);
  EXPECT_EQ(wrapped->ContiguousData(), dense->ContiguousData());
  EXPECT_EQ(pool.stats().bytes_live, 0);
  EXPECT_EQ(Read<int32_t>(*wrapped->BroadcastTo({2, 3})), (std::vector<int32_t>{7, 8, 9, 7, 8, 9}));
}

// ---- Layout ops over every kind of constant, against a dense reference ----

// A dense row-major float tensor: the reference every layout op is checked against.
struct Ref {
  std::vector<int64_t> dims;
  std::vector<float> v;
};

int64_t Count(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

// out[i] = x[source(multi-index of i)], the reference of every layout op.
Ref RefRemap(const Ref& x, std::vector<int64_t> dims,
             const std::function<std::vector<int64_t>(const std::vector<int64_t>&)>& source) {
  Ref out{dims, std::vector<float>(Count(dims))};
  std::vector<int64_t> index(dims.size(), 0);
  for (int64_t i = 0; i < Count(dims); ++i) {
    std::vector<int64_t> in = source(index);
    int64_t flat = 0;
    for (size_t k = 0; k < in.size(); ++k) flat = flat * x.dims[k] + in[k];
    out.v[i] = x.v[flat];
    for (size_t k = dims.size(); k-- > 0;) {
      if (++index[k] < dims[k]) break;
      index[k] = 0;
    }
  }
  return out;
}

// Applies random layout ops to a constant and to its dense reference alike.
class LayoutFuzzer {
 public:
  explicit LayoutFuzzer(uint32_t seed) : rng_(seed) {}

  void Step(std::shared_ptr<const DisposableElements>& x, Ref& ref, std::string& log) {
    const size_t rank = ref.dims.size();
    switch (rng_() % 6) {
      case 0: {  // Transpose
        std::vector<int64_t> perm(rank);
        std::iota(perm.begin(), perm.end(), 0);
        std::shuffle(perm.begin(), perm.end(), rng_);
        std::vector<int64_t> dims;
        for (int64_t p : perm) dims.push_back(ref.dims[p]);
        ref = RefRemap(ref, dims, [&](const std::vector<int64_t>& i) {
          std::vector<int64_t> in(rank);
          for (size_t k = 0; k < rank; ++k) in[perm[k]] = i[k];
          return in;
        });
        x = x->Transpose(perm);
        log += absl::StrCat(" transpose(", absl::StrJoin(perm, ","), ")");
        return;
      }
      case 1:
      case 2: {  // Reshape into a random factorization (dims of 1 included)
        std::vector<int64_t> factors;
        int64_t n = Count(ref.dims);
        for (int64_t p = 2; p * p <= n; ++p) {
          while (n % p == 0) {
            factors.push_back(p);
            n /= p;
          }
        }
        if (n > 1) factors.push_back(n);
        std::shuffle(factors.begin(), factors.end(), rng_);
        const size_t new_rank = 1 + rng_() % 4;
        std::vector<int64_t> dims(new_rank, 1);
        for (int64_t f : factors) dims[rng_() % new_rank] *= f;
        ref.dims = dims;
        x = x->Reshape(dims, /*remap=*/true);
        log += absl::StrCat(" reshape(", absl::StrJoin(dims, ","), ")");
        return;
      }
      case 3: {  // Slice with steps, negative ones included
        if (rank == 0) return;
        std::vector<int64_t> starts(rank, 0), steps(rank, 1), dims = ref.dims;
        for (size_t k = 0; k < rank; ++k) {
          const int64_t n = ref.dims[k];
          if (n < 2 || rng_() % 2 == 0) continue;
          const int64_t step = std::vector<int64_t>{1, 2, 3, -1, -2}[rng_() % 5];
          const int64_t start = static_cast<int64_t>(rng_() % n);
          starts[k] = start;
          steps[k] = step;
          dims[k] = step > 0 ? (n - start + step - 1) / step : start / -step + 1;
        }
        ref = RefRemap(ref, dims, [&](const std::vector<int64_t>& i) {
          std::vector<int64_t> in(rank);
          for (size_t k = 0; k < rank; ++k) in[k] = starts[k] + i[k] * steps[k];
          return in;
        });
        x = x->Slice(starts, steps, dims);
        log += absl::StrCat(" slice(", absl::StrJoin(starts, ","), ";", absl::StrJoin(steps, ","),
                            ")");
        return;
      }
      case 4: {  // Broadcast: a new leading dim, or a dim of 1 repeated
        if (Count(ref.dims) > 40000) return;
        std::vector<int64_t> dims = ref.dims;
        auto one = std::find(dims.begin(), dims.end(), 1);
        if (one != dims.end() && rng_() % 2 == 0) {
          *one = 3;
        } else {
          dims.insert(dims.begin(), 2);
        }
        const size_t lead = dims.size() - rank;
        ref = RefRemap(ref, dims, [&](const std::vector<int64_t>& i) {
          std::vector<int64_t> in(rank);
          for (size_t k = 0; k < rank; ++k) in[k] = ref.dims[k] == 1 ? 0 : i[lead + k];
          return in;
        });
        x = x->BroadcastTo(dims);
        log += absl::StrCat(" expand(", absl::StrJoin(dims, ","), ")");
        return;
      }
      default: {  // Gather: repeats and any order, or evenly stepping
        if (rank == 0) return;
        const size_t axis = rng_() % rank;
        const int64_t n = ref.dims[axis];
        std::vector<int64_t> indices(1 + rng_() % (n + 2));
        const bool even = rng_() % 3 == 0;
        for (size_t j = 0; j < indices.size(); ++j) {
          indices[j] = even ? (j * 2) % n : static_cast<int64_t>(rng_() % n);
        }
        std::vector<int64_t> dims = ref.dims;
        dims[axis] = static_cast<int64_t>(indices.size());
        ref = RefRemap(ref, dims, [&](const std::vector<int64_t>& i) {
          std::vector<int64_t> in = i;
          in[axis] = indices[i[axis]];
          return in;
        });
        x = x->Gather(static_cast<int64_t>(axis), indices);
        log += absl::StrCat(" gather(", axis, ";", absl::StrJoin(indices, ","), ")");
        return;
      }
    }
  }

  std::mt19937& rng() { return rng_; }

 private:
  std::mt19937 rng_;
};

std::shared_ptr<const DisposableElements> DenseOf(DisposablePool& pool, const Ref& ref) {
  auto buffer = pool.Allocate(ref.v.size() * sizeof(float));
  std::memcpy(buffer->mutable_data(), ref.v.data(), ref.v.size() * sizeof(float));
  return DisposableElements::Dense(buffer, ElementType::kFloat, ref.dims);
}

// Neg as a lazy op (kept with its own copy of the node).
std::shared_ptr<const LazyOp> NegOp() {
  Model model;
  model.opset_imports = {{"", 17}};
  Graph& g = model.graph();
  Node* neg = g.AddNode("Neg");
  neg->AddInput(g.AddInput("x", Type::Tensor(ElementType::kFloat)));
  neg->AddOutput("y")->set_type(Type::Tensor(ElementType::kFloat));
  absl::StatusOr<std::shared_ptr<const LazyOp>> op = LazyOp::Create(*neg, 17);
  EXPECT_TRUE(op.ok()) << op.status();
  return *op;
}

TEST(DisposableLayoutTest, EveryLayoutOpOfEveryKindMatchesADenseReference) {
  const std::shared_ptr<const LazyOp> neg = NegOp();
  int remaps = 0;
  for (uint32_t seed = 1; seed <= 300; ++seed) {
    LayoutFuzzer fuzz(seed);
    std::mt19937& rng = fuzz.rng();
    DisposablePool pool;
    // A producer: dense, transposed, broadcast, a selection (Concat along an axis), or a lazy op
    // over one of those; about 2K to 40K elements.
    Ref ref{{static_cast<int64_t>(2 + rng() % 40), static_cast<int64_t>(2 + rng() % 30),
             static_cast<int64_t>(1 + rng() % 33)},
            {}};
    ref.v.resize(Count(ref.dims));
    std::iota(ref.v.begin(), ref.v.end(), 0.0f);
    std::shared_ptr<const DisposableElements> x = DenseOf(pool, ref);
    std::string log = absl::StrCat("seed ", seed, ": [", absl::StrJoin(ref.dims, ","), "]");
    switch (rng() % 3) {
      case 0:
        break;
      case 1:
        fuzz.Step(x, ref, log);  // often a strided view
        break;
      default: {  // x and x + 100000 interleaved along a random axis
        const int64_t axis = rng() % 3;
        Ref other = ref;
        for (float& f : other.v) f += 100000.0f;
        std::vector<int64_t> dims = ref.dims;
        dims[axis] *= 2;
        std::vector<DisposableElements::Pick> picks;
        for (int64_t p = 0; p < dims[axis]; ++p) {
          picks.push_back({static_cast<int32_t>(p % 2), p / 2});  // interleaved
        }
        Ref joined = RefRemap(ref, dims, [&](const std::vector<int64_t>& i) {
          std::vector<int64_t> in = i;
          in[axis] = i[axis] / 2;
          return in;
        });
        for (int64_t i = 0; i < Count(dims); ++i) {
          // Odd positions along the axis come from `other`.
          int64_t rest = i;
          for (int64_t k = 2; k > axis; --k) rest /= dims[k];
          if (rest % dims[axis] % 2 == 1) joined.v[i] += 100000.0f;
        }
        x = DisposableElements::Select(ElementType::kFloat, dims, axis, {x, DenseOf(pool, other)},
                                       picks);
        ref = joined;
        log += absl::StrCat(" interleave(", axis, ")");
      }
    }
    if (rng() % 2 == 0) {
      std::vector<std::shared_ptr<const DisposableElements>> operands = {x};
      x = std::make_shared<DisposableElements>(neg, ElementType::kFloat, ref.dims, operands);
      for (float& f : ref.v) f = -f;
      log += " neg";
    }
    const int64_t bytes_before = pool.stats().bytes_live;
    const int steps = 1 + static_cast<int>(rng() % 6);
    for (int s = 0; s < steps; ++s) fuzz.Step(x, ref, log);
    SCOPED_TRACE(log);
    ASSERT_NE(x, nullptr);
    remaps += x->is_remap();
    // Building layout ops computes and allocates nothing.
    EXPECT_EQ(pool.stats().bytes_live, bytes_before);
    ASSERT_EQ(std::vector<int64_t>(x->dims().begin(), x->dims().end()), ref.dims);
    EXPECT_EQ(Read<float>(*x), ref.v);
    std::vector<float> pieces;
    ASSERT_TRUE(x->ForEachChunk(1000, [&](absl::Span<const uint8_t> piece) {
                   const size_t n = pieces.size();
                   pieces.resize(n + piece.size() / sizeof(float));
                   std::memcpy(pieces.data() + n, piece.data(), piece.size());
                   return absl::OkStatus();
                 }).ok());
    EXPECT_EQ(pieces, ref.v);
    for (int k = 0; k < 5 && !ref.v.empty(); ++k) {
      const int64_t i = static_cast<int64_t>(rng() % ref.v.size());
      float one;
      x->ReadElement(i, reinterpret_cast<uint8_t*>(&one));
      EXPECT_EQ(one, ref.v[i]) << "element " << i;
    }
  }
  EXPECT_GT(remaps, 60);  // the remap paths ran, not only views
}

TEST(DisposableLayoutTest, ReshapesAStridedViewCannotTakeAreRemapsOnlyWhenAsked) {
  DisposablePool pool;
  auto t = Iota23(pool)->Transpose({1, 0});  // [3, 2] strides [1, 3]
  EXPECT_EQ(t->Reshape({6}), nullptr);
  auto flat = t->Reshape({6}, /*remap=*/true);
  ASSERT_NE(flat, nullptr);
  EXPECT_TRUE(flat->is_remap());
  EXPECT_EQ(Read<float>(*flat), (std::vector<float>{0, 3, 1, 4, 2, 5}));
  // A remap's layout ops compose into its map; reshaping back gives the view again.
  auto back = flat->Reshape({3, 2}, /*remap=*/true);
  EXPECT_FALSE(back->is_remap());
  EXPECT_EQ(Read<float>(*back), (std::vector<float>{0, 3, 1, 4, 2, 5}));
  auto odd = flat->Slice({5}, {-2}, {3});
  EXPECT_EQ(Read<float>(*odd), (std::vector<float>{5, 4, 3}));
  // Evenly stepping indices are a view; others a remap.
  EXPECT_FALSE(Iota23(pool)->Gather(1, {0, 2})->is_lazy());
  auto picked = Iota23(pool)->Gather(1, {2, 0, 0});
  EXPECT_TRUE(picked->is_remap());
  EXPECT_EQ(Read<float>(*picked), (std::vector<float>{2, 0, 0, 5, 3, 3}));
  EXPECT_EQ(pool.stats().bytes_live, 3 * 24);  // three Iota23s, nothing else
}

}  // namespace
}  // namespace anvil
