// Selection ops with data-dependent results: TopK (every version), Unique-11 and
// TfIdfVectorizer-9. TopK and Unique allocate their outputs when the ShapeHelper could not size
// them (a runtime K; Unique's count).
//
// Ordering of floats: NaN sorts above every number and equals itself (numpy's sort order), so
// TopK and Unique give a deterministic answer for NaN inputs instead of depending on how the
// sort algorithm handles a non-strict-weak order.
#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "kernels/ops/misc_internal.h"

namespace anvil::misc {
namespace {

// a < b in numpy's sort order (NaN last).
template <typename K>
bool Less(K a, K b) {
  if constexpr (std::is_floating_point_v<K>) {
    if (std::isnan(a)) return false;
    if (std::isnan(b)) return true;
  }
  return a < b;
}

// ---- TopK ----

struct TopKAttrs {
  int64_t axis = -1;
  bool largest = true;
  std::optional<int64_t> k;  // the attribute (before opset 10)
};

template <typename T>
absl::Status TopKRun(KernelContext& ctx, const TopKAttrs& attrs) {
  using K = ComputeType<T>;
  const TensorView& xv = ctx.input(0);
  const int64_t rank = xv.rank();
  const int64_t axis = attrs.axis < 0 ? attrs.axis + rank : attrs.axis;
  if (axis < 0 || axis >= rank) {
    return ctx.Error(absl::StrCat("axis ", attrs.axis, " is out of range for ", xv.DebugString()));
  }
  int64_t k = 0;
  if (attrs.k) {
    k = *attrs.k;
  } else {
    ANVIL_ASSIGN_OR_RETURN(k, ScalarInt(ctx, 1, "K"));
  }
  const int64_t n = xv.dims[axis];
  if (k < 0 || k > n) {
    return ctx.Error(absl::StrCat("k ", k, " is outside [0, ", n, "] for ", xv.DebugString()));
  }
  Shape dims = xv.dims;
  dims[axis] = k;
  ANVIL_ASSIGN_OR_RETURN(TensorView* values_out, ctx.AllocateOutput(0, dims));
  ANVIL_ASSIGN_OR_RETURN(TensorView* indices_out, ctx.AllocateOutput(1, dims));
  if (k == 0) return absl::OkStatus();

  ANVIL_ASSIGN_OR_RETURN(std::vector<K> x, ReadAs<K>(xv, "TopK"));
  int64_t outer = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= xv.dims[d];
  int64_t inner = 1;
  for (int64_t d = axis + 1; d < rank; ++d) inner *= xv.dims[d];

  T* values = values_out->As<T>();
  int64_t* indices = indices_out->As<int64_t>();
  std::vector<int64_t> order(n);
  std::vector<K> line(n);
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      for (int64_t j = 0; j < n; ++j) line[j] = x[(o * n + j) * inner + i];
      std::iota(order.begin(), order.end(), 0);
      // Equal elements keep the lower index first.
      auto before = [&](int64_t a, int64_t b) {
        const bool a_first = attrs.largest ? Less(line[b], line[a]) : Less(line[a], line[b]);
        const bool b_first = attrs.largest ? Less(line[a], line[b]) : Less(line[b], line[a]);
        return a_first || (!b_first && a < b);
      };
      // Always sorted: a valid answer for sorted=0 too.
      std::partial_sort(order.begin(), order.begin() + k, order.end(), before);
      for (int64_t j = 0; j < k; ++j) {
        const int64_t dst = (o * k + j) * inner + i;
        values[dst] = ConvertElement<T>(line[order[j]]);
        indices[dst] = order[j];
      }
    }
  }
  return absl::OkStatus();
}

absl::Status TopKCompute(KernelContext& ctx, const TopKAttrs& attrs) {
  return DispatchNumeric(ctx.input(0).type, "TopK", [&](auto tag) -> absl::Status {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, bool>) {
      return UnsupportedType("TopK", ElementType::kBool);
    } else {
      return TopKRun<T>(ctx, attrs);
    }
  });
}

// ---- Unique ----

struct UniqueAttrs {
  std::optional<int64_t> axis;
  bool sorted = true;
};

template <typename T>
absl::Status UniqueRun(KernelContext& ctx, const UniqueAttrs& attrs) {
  using K = ComputeType<T>;
  const TensorView& xv = ctx.input(0);
  const int64_t rank = xv.rank();
  ANVIL_ASSIGN_OR_RETURN(std::vector<K> x, ReadAs<K>(xv, "Unique"));

  // Entries are slices along the axis ([outer, inner] elements each), or single elements.
  int64_t outer = 1, n = xv.NumElements(), inner = 1, axis = 0;
  if (attrs.axis) {
    axis = *attrs.axis < 0 ? *attrs.axis + rank : *attrs.axis;
    if (axis < 0 || axis >= rank) {
      return ctx.Error(
          absl::StrCat("axis ", *attrs.axis, " is out of range for ", xv.DebugString()));
    }
    n = xv.dims[axis];
    outer = 1;
    for (int64_t d = 0; d < axis; ++d) outer *= xv.dims[d];
    for (int64_t d = axis + 1; d < rank; ++d) inner *= xv.dims[d];
  }
  auto element = [&](int64_t entry, int64_t o, int64_t i) -> K {
    return x[(o * n + entry) * inner + i];
  };
  // Lexicographic order of entries, element by element in row-major order.
  auto compare = [&](int64_t a, int64_t b) -> int {
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t i = 0; i < inner; ++i) {
        const K va = element(a, o, i), vb = element(b, o, i);
        if (Less(va, vb)) return -1;
        if (Less(vb, va)) return 1;
      }
    }
    return 0;
  };
  std::vector<int64_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  // Stable, so the first entry of each run of equal entries is their first occurrence.
  std::stable_sort(order.begin(), order.end(),
                   [&](int64_t a, int64_t b) { return compare(a, b) < 0; });
  std::vector<int64_t> first;  // per unique entry, in sorted order
  std::vector<int64_t> counts;
  std::vector<int64_t> group(n);
  for (int64_t j = 0; j < n; ++j) {
    if (j == 0 || compare(order[j - 1], order[j]) != 0) {
      first.push_back(order[j]);
      counts.push_back(0);
    }
    group[order[j]] = static_cast<int64_t>(first.size()) - 1;
    ++counts.back();
  }
  const int64_t unique = static_cast<int64_t>(first.size());
  std::vector<int64_t> rank_of(unique);  // sorted position -> output position
  std::iota(rank_of.begin(), rank_of.end(), 0);
  if (!attrs.sorted) {
    // Order of first occurrence.
    std::vector<int64_t> by_first(unique);
    std::iota(by_first.begin(), by_first.end(), 0);
    std::sort(by_first.begin(), by_first.end(),
              [&](int64_t a, int64_t b) { return first[a] < first[b]; });
    for (int64_t p = 0; p < unique; ++p) rank_of[by_first[p]] = p;
  }

  Shape y_dims = {unique};
  if (attrs.axis) {
    y_dims = xv.dims;
    y_dims[axis] = unique;
  }
  ANVIL_ASSIGN_OR_RETURN(TensorView* y, ctx.AllocateOutput(0, y_dims));
  T* yd = y->As<T>();
  std::vector<int64_t> out_first(unique), out_counts(unique);
  for (int64_t g = 0; g < unique; ++g) {
    const int64_t p = rank_of[g];
    out_first[p] = first[g];
    out_counts[p] = counts[g];
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t i = 0; i < inner; ++i) {
        yd[(o * unique + p) * inner + i] = ConvertElement<T>(element(first[g], o, i));
      }
    }
  }
  auto write = [&](int output, const std::vector<int64_t>& values) -> absl::Status {
    if (!ctx.HasOutput(output)) return absl::OkStatus();
    ANVIL_ASSIGN_OR_RETURN(TensorView* out,
                           ctx.AllocateOutput(output, {static_cast<int64_t>(values.size())}));
    std::copy(values.begin(), values.end(), out->As<int64_t>());
    return absl::OkStatus();
  };
  std::vector<int64_t> inverse(n);
  for (int64_t j = 0; j < n; ++j) inverse[j] = rank_of[group[j]];
  ANVIL_RETURN_IF_ERROR(write(1, out_first));
  ANVIL_RETURN_IF_ERROR(write(2, inverse));
  return write(3, out_counts);
}

absl::Status UniqueCompute(KernelContext& ctx, const UniqueAttrs& attrs) {
  return DispatchNumeric(ctx.input(0).type, "Unique",
                         [&](auto tag) { return UniqueRun<decltype(tag)>(ctx, attrs); });
}

// ---- TfIdfVectorizer ----

enum class TfIdfMode { kTf, kIdf, kTfIdf };

struct TfIdfAttrs {
  TfIdfMode mode = TfIdfMode::kTf;
  int64_t min_gram = 1;
  int64_t max_gram = 1;
  int64_t max_skip = 0;
  std::map<std::vector<int64_t>, int64_t> pool;  // n-gram -> its index in the pool
  std::vector<int64_t> ngram_indexes;            // pool index -> output column
  std::vector<float> weights;                    // pool index -> weight (empty: all 1)
  // pool_strings: each distinct string's token id (its n-grams are kept in `pool` as ids);
  // an input string the pool lacks gets id -1, which no n-gram holds.
  absl::flat_hash_map<std::string, int64_t> string_ids;
  bool strings = false;
};

// Counts the pool's n-grams in each row: n-grams of min_gram..max_gram tokens whose tokens are
// skip + 1 apart, for every skip in 0..max_skip; unigrams do not depend on the skip and are
// counted once.
absl::Status TfIdfCompute(KernelContext& ctx, const TfIdfAttrs& attrs) {
  const TensorView& xv = ctx.input(0);
  const bool strings = xv.type == ElementType::kString;
  if (strings != attrs.strings ||
      (!strings && xv.type != ElementType::kInt32 && xv.type != ElementType::kInt64)) {
    return ctx.Error(absl::StrCat("input ", xv.DebugString(), " does not match the pool (",
                                  attrs.strings ? "pool_strings" : "pool_int64s", ")"));
  }
  if (xv.rank() != 1 && xv.rank() != 2) {
    return ctx.Error(absl::StrCat("input ", xv.DebugString(), " must be [C] or [N, C]"));
  }
  absl::StatusOr<std::vector<int64_t>> x;
  if (strings) {
    // Tokens as the pool's ids.
    x.emplace();
    x->reserve(xv.NumElements());
    const std::string* data = xv.As<const std::string>();
    ForEachOffset(xv, [&](int64_t offset) {
      auto it = attrs.string_ids.find(data[offset]);
      x->push_back(it == attrs.string_ids.end() ? -1 : it->second);
    });
  } else {
    x = ReadAs<int64_t>(xv, "TfIdfVectorizer");
  }
  if (!x.ok()) return x.status();
  const int64_t rows = xv.rank() == 1 ? 1 : xv.dims[0];
  const int64_t row_size = xv.dims.back();
  TensorView& out = ctx.output(0);
  const int64_t width = out.dims.back();
  float* y = out.As<float>();
  std::fill(y, y + out.NumElements(), 0.0f);

  std::vector<int64_t> counts(attrs.ngram_indexes.size());
  std::vector<int64_t> key;
  for (int64_t row = 0; row < rows; ++row) {
    const int64_t* tokens = x->data() + row * row_size;
    std::fill(counts.begin(), counts.end(), 0);
    int64_t start_n = attrs.min_gram;
    // A skip past the row fits no n-gram of two or more tokens: the work is bounded by the row,
    // not by the attribute (a hostile max_skip of 2^62 must not loop for years).
    const int64_t max_distance = std::min(attrs.max_skip, row_size) + 1;
    for (int64_t distance = 1; distance <= max_distance; ++distance) {
      int64_t span;
      if (start_n > 1 && (__builtin_mul_overflow(distance, start_n - 1, &span) || span >= row_size)) {
        break;
      }
      for (int64_t start = 0; start < row_size; ++start) {
        int64_t last;
        if (__builtin_mul_overflow(distance, start_n - 1, &last) || start + last >= row_size) break;
        key.clear();
        for (int64_t n = 1; n <= attrs.max_gram; ++n) {
          const int64_t pos = start + (n - 1) * distance;
          if (pos >= row_size) break;
          key.push_back(tokens[pos]);
          if (n < start_n) continue;
          auto it = attrs.pool.find(key);
          if (it != attrs.pool.end()) ++counts[it->second];
        }
      }
      if (start_n == 1 && ++start_n > attrs.max_gram) break;
    }
    float* yr = y + row * width;
    for (size_t id = 0; id < counts.size(); ++id) {
      if (counts[id] == 0) continue;
      const float weight = attrs.weights.empty() ? 1.0f : attrs.weights[id];
      float value = static_cast<float>(counts[id]);
      if (attrs.mode == TfIdfMode::kIdf) value = weight;
      if (attrs.mode == TfIdfMode::kTfIdf) value *= weight;
      yr[attrs.ngram_indexes[id]] = value;
    }
  }
  return absl::OkStatus();
}

}  // namespace

Factory CreateTopK(const Node& node, int64_t opset) {
  TopKAttrs attrs;
  attrs.axis = node.GetInt("axis", -1);
  if (opset >= 11) {
    attrs.largest = node.GetInt("largest", 1) != 0;
  }
  if (opset < 10) {
    if (node.FindAttribute("k") == nullptr) return NodeError(node, "attribute 'k' is required");
    attrs.k = node.GetInt("k", 0);
  }
  return MakeAttrKernel(attrs, &TopKCompute);
}

Factory CreateUnique(const Node& node, int64_t) {
  UniqueAttrs attrs;
  if (node.FindAttribute("axis") != nullptr) attrs.axis = node.GetInt("axis", 0);
  attrs.sorted = node.GetInt("sorted", 1) != 0;
  return MakeAttrKernel(attrs, &UniqueCompute);
}

Factory CreateTfIdfVectorizer(const Node& node, int64_t) {
  TfIdfAttrs attrs;
  const std::string mode = node.GetString("mode", "");
  if (mode == "TF") {
    attrs.mode = TfIdfMode::kTf;
  } else if (mode == "IDF") {
    attrs.mode = TfIdfMode::kIdf;
  } else if (mode == "TFIDF") {
    attrs.mode = TfIdfMode::kTfIdf;
  } else {
    return NodeError(node, absl::StrCat("mode '", mode, "' is not TF, IDF or TFIDF"));
  }
  attrs.min_gram = node.GetInt("min_gram_length", 0);
  attrs.max_gram = node.GetInt("max_gram_length", 0);
  attrs.max_skip = node.GetInt("max_skip_count", 0);
  if (attrs.min_gram < 1 || attrs.max_gram < attrs.min_gram || attrs.max_skip < 0) {
    return NodeError(node, absl::StrCat("gram lengths [", attrs.min_gram, ", ", attrs.max_gram,
                                        "] and max_skip_count ", attrs.max_skip, " are not valid"));
  }
  std::vector<int64_t> pool = node.GetInts("pool_int64s");
  if (const Attribute* strings = node.FindAttribute("pool_strings")) {
    if (node.FindAttribute("pool_int64s") != nullptr) {
      return NodeError(node, "has both pool_strings and pool_int64s");
    }
    // The same n-gram machinery over token ids: each distinct string one id.
    attrs.strings = true;
    pool.clear();
    for (const std::string& token : strings->strings) {
      pool.push_back(attrs.string_ids.emplace(token, attrs.string_ids.size()).first->second);
    }
  }
  const std::vector<int64_t> starts = node.GetInts("ngram_counts");
  attrs.ngram_indexes = node.GetInts("ngram_indexes");
  if (const Attribute* w = node.FindAttribute("weights")) attrs.weights = w->floats;
  // ngram_counts[i] is where the (i + 1)-grams start in the pool.
  int64_t id = 0;
  for (size_t i = 0; i < starts.size(); ++i) {
    const int64_t n = static_cast<int64_t>(i) + 1;
    const int64_t begin = starts[i];
    const int64_t end = i + 1 < starts.size() ? starts[i + 1] : static_cast<int64_t>(pool.size());
    if (begin < 0 || end < begin || end > static_cast<int64_t>(pool.size()) ||
        (end - begin) % n != 0) {
      return NodeError(node, absl::StrCat("ngram_counts does not split the pool into ", n,
                                          "-grams"));
    }
    for (int64_t p = begin; p < end; p += n, ++id) {
      attrs.pool.emplace(std::vector<int64_t>(pool.begin() + p, pool.begin() + p + n), id);
    }
  }
  if (static_cast<int64_t>(attrs.ngram_indexes.size()) != id ||
      (!attrs.weights.empty() && static_cast<int64_t>(attrs.weights.size()) != id)) {
    return NodeError(node, absl::StrCat("the pool holds ", id,
                                        " n-grams; ngram_indexes and weights must have as many"));
  }
  for (int64_t index : attrs.ngram_indexes) {
    if (index < 0) return NodeError(node, absl::StrCat("negative ngram index ", index));
  }
  return MakeAttrKernel(std::move(attrs), &TfIdfCompute);
}

}  // namespace anvil::misc
