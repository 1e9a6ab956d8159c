// Random ops (RandomUniform, RandomNormal, their *Like forms, Bernoulli, Multinomial) and
// Dropout.
//
// Determinism. A node with a `seed` attribute draws numpy's legacy stream, the one ONNX's
// reference implementation and the backend tests use (np.random.seed(int(seed)) then
// random_sample / normal): a 32-bit MT19937 seeded by init_genrand, uniforms from two draws with
// 53 bits, normals by numpy's polar method. A node without one seeds a std::mt19937_64 from
// ctx.default_seed() mixed with the node's first output name, so that two unseeded nodes draw
// different streams. No <random> distribution is used (their algorithms are
// implementation-defined): the same seed gives the same tensor with any standard library, and a
// node gives the same tensor on every run, which lets the runtime check itself against the
// reference path (RunNode). Bernoulli and Multinomial compare uniforms against probabilities,
// which is not numpy's binomial algorithm: their seeded values differ from numpy's.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <numbers>
#include <optional>
#include <random>
#include <utility>
#include <variant>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "kernels/ops/misc_internal.h"

namespace anvil::misc {
namespace {

// SplitMix64's finalizer: spreads a seed's bits over the whole word.
uint64_t Mix(uint64_t z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// FNV-1a, stable across processes (unlike absl::Hash).
uint64_t Fnv1a(const std::string& s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

class Rng {
 public:
  // numpy's legacy stream for an explicit seed (np.random.seed takes the integer's low 32 bits).
  static Rng Numpy(uint32_t seed) { return Rng(std::mt19937(seed)); }
  static Rng Keyed(uint64_t seed) { return Rng(std::mt19937_64(seed)); }

  // Uniform in [0, 1) with 53 random bits (numpy's random_sample for the numpy stream).
  double Uniform() {
    if (auto* mt = std::get_if<std::mt19937>(&engine_)) {
      const uint64_t a = (*mt)() >> 5, b = (*mt)() >> 6;
      return (static_cast<double>(a) * 67108864.0 + static_cast<double>(b)) / 9007199254740992.0;
    }
    return static_cast<double>(std::get<std::mt19937_64>(engine_)() >> 11) * 0x1.0p-53;
  }
  // Standard normal by numpy's legacy polar method (two variates per accepted pair; the second
  // is kept for the next call).
  double Normal() {
    if (has_spare_) {
      has_spare_ = false;
      return spare_;
    }
    double x1, x2, r2;
    do {
      x1 = 2.0 * Uniform() - 1.0;
      x2 = 2.0 * Uniform() - 1.0;
      r2 = x1 * x1 + x2 * x2;
    } while (r2 >= 1.0 || r2 == 0.0);
    const double f = std::sqrt(-2.0 * std::log(r2) / r2);
    spare_ = f * x1;
    has_spare_ = true;
    return f * x2;
  }

 private:
  template <typename Engine>
  explicit Rng(Engine engine) : engine_(std::move(engine)) {}
  std::variant<std::mt19937, std::mt19937_64> engine_;
  bool has_spare_ = false;
  double spare_ = 0;
};

// How a node seeds its generator: numpy's stream from the attribute, or a per-node offset to
// the context's default seed.
struct Seed {
  std::optional<float> attribute;
  uint64_t node_hash = 0;

  static Seed Of(const Node& node) {
    Seed s;
    if (const Attribute* a = node.FindAttribute("seed")) s.attribute = a->f;
    s.node_hash = Fnv1a(node.num_outputs() > 0 && node.output(0) != nullptr ? node.output(0)->name()
                                                                            : node.name());
    return s;
  }
  Rng Make(const KernelContext& ctx) const {
    if (attribute) {
      // np.random.seed(int(seed)): truncation toward zero, then the low 32 bits.
      const float f = *attribute;
      const int64_t whole = std::isfinite(f) && std::fabs(f) < 9.2e18f ? static_cast<int64_t>(f) : 0;
      return Rng::Numpy(static_cast<uint32_t>(static_cast<uint64_t>(whole)));
    }
    return Rng::Keyed(Mix(ctx.default_seed() ^ node_hash));
  }
};

// ---- RandomUniform(Like), RandomNormal(Like), Bernoulli ----

enum class Distribution { kUniform, kNormal, kBernoulli };

struct RandomAttrs {
  Distribution distribution = Distribution::kUniform;
  double low = 0, high = 1;    // uniform
  double mean = 0, scale = 1;  // normal
  Seed seed;
};

absl::Status RandomCompute(KernelContext& ctx, const RandomAttrs& attrs) {
  TensorView& out = ctx.output(0);
  const int64_t n = out.NumElements();
  Rng rng = attrs.seed.Make(ctx);
  std::vector<double> values(n);
  switch (attrs.distribution) {
    case Distribution::kUniform:
      for (double& v : values) v = attrs.low + (attrs.high - attrs.low) * rng.Uniform();
      break;
    case Distribution::kNormal:
      for (double& v : values) v = attrs.mean + attrs.scale * rng.Normal();
      break;
    case Distribution::kBernoulli: {
      ANVIL_ASSIGN_OR_RETURN(std::vector<double> p,
                             ReadAs<double>(ctx.input(0), "Bernoulli input"));
      for (int64_t i = 0; i < n; ++i) values[i] = rng.Uniform() < p[i] ? 1.0 : 0.0;
      break;
    }
  }
  return WriteAs(out, values.data(), ctx.node().op_type());
}

// ---- Multinomial ----

struct MultinomialAttrs {
  Seed seed;
};

// Input [batch, classes] of unnormalized log-probabilities; each of the sample_size draws per
// row picks class j with probability softmax(row)[j].
absl::Status MultinomialCompute(KernelContext& ctx, const MultinomialAttrs& attrs) {
  const TensorView& xv = ctx.input(0);
  if (xv.rank() != 2) {
    return ctx.Error(absl::StrCat("input ", xv.DebugString(), " must be [batch, classes]"));
  }
  ANVIL_ASSIGN_OR_RETURN(std::vector<double> x, ReadAs<double>(xv, "Multinomial input"));
  TensorView& out = ctx.output(0);
  const int64_t batch = xv.dims[0], classes = xv.dims[1], samples = out.dims[1];
  if (classes == 0 && samples > 0) return ctx.Error("cannot sample from zero classes");
  Rng rng = attrs.seed.Make(ctx);
  std::vector<double> cumulative(classes);
  std::vector<int64_t> drawn(batch * samples);
  for (int64_t b = 0; b < batch; ++b) {
    const double* row = x.data() + b * classes;
    // Relative weights exp(x - max); with a +inf logit only the +inf classes have mass.
    double max = -INFINITY;
    for (int64_t j = 0; j < classes; ++j) max = std::max(max, row[j]);
    if (classes > 0 && !(max > -INFINITY)) {
      return ctx.Error(absl::StrCat("row ", b, " has no finite log-probability"));
    }
    double total = 0;
    for (int64_t j = 0; j < classes; ++j) {
      total += std::isinf(max) ? (row[j] == max ? 1.0 : 0.0) : std::exp(row[j] - max);
      cumulative[j] = total;
    }
    for (int64_t s = 0; s < samples; ++s) {
      const double u = rng.Uniform() * total;
      const int64_t j =
          std::upper_bound(cumulative.begin(), cumulative.end(), u) - cumulative.begin();
      drawn[b * samples + s] = std::min(j, classes - 1);
    }
  }
  return WriteAs(out, drawn.data(), "Multinomial");
}

// ---- Dropout ----

struct DropoutAttrs {
  int64_t opset = 13;
  bool training = false;  // before opset 7: is_test == 0
  float ratio = 0.5f;     // before opset 12: the attribute
  Seed seed;
};

// Copies `src` (any strides) into the dense `dst` of the same type and element count.
absl::Status CopyView(const TensorView& src, TensorView& dst) {
  return DispatchBySize(src.type, "Dropout", [&](auto tag) -> absl::Status {
    using T = decltype(tag);
    const T* s = src.As<T>();
    T* d = dst.As<T>();
    int64_t i = 0;
    ForEachOffset(src, [&](int64_t offset) { d[i++] = s[offset]; });
    return absl::OkStatus();
  });
}

absl::Status DropoutCompute(KernelContext& ctx, const DropoutAttrs& attrs) {
  const TensorView& xv = ctx.input(0);
  double ratio = attrs.ratio;
  bool training = attrs.training;
  if (attrs.opset >= 12) {
    if (ctx.HasInput(1)) {
      ANVIL_ASSIGN_OR_RETURN(ratio, ScalarDouble(ctx, 1, "ratio"));
    }
    training = false;
    if (ctx.HasInput(2)) {
      ANVIL_ASSIGN_OR_RETURN(int64_t t, ScalarInt(ctx, 2, "training_mode"));
      training = t != 0;
    }
  }
  if (training && !(ratio >= 0 && ratio <= 1)) {
    return ctx.Error(absl::StrCat("ratio ", ratio, " is outside [0, 1]"));
  }
  const int64_t n = xv.NumElements();
  std::vector<bool> keep;
  if (!training || ratio == 0) {
    ANVIL_RETURN_IF_ERROR(CopyView(xv, ctx.output(0)));
  } else {
    Rng rng = attrs.seed.Make(ctx);
    keep.resize(n);
    for (int64_t i = 0; i < n; ++i) keep[i] = rng.Uniform() >= ratio;
    ANVIL_RETURN_IF_ERROR(DispatchFloatCompute(xv.type, "Dropout", [&](auto tag) -> absl::Status {
      using T = decltype(tag);
      ANVIL_ASSIGN_OR_RETURN(std::vector<T> x, ReadAs<T>(xv, "Dropout"));
      const T scale = static_cast<T>(1.0 / (1.0 - ratio));
      for (int64_t i = 0; i < n; ++i) (x)[i] = keep[i] ? x[i] * scale : T(0);
      return WriteAs(ctx.output(0), x.data(), "Dropout");
    }));
  }
  if (ctx.HasOutput(1)) {
    // bool from opset 10, the data's type before.
    std::vector<double> mask(n, 1.0);
    for (size_t i = 0; i < keep.size(); ++i) mask[i] = keep[i] ? 1.0 : 0.0;
    return WriteAs(ctx.output(1), mask.data(), "Dropout mask");
  }
  return absl::OkStatus();
}

}  // namespace

Factory CreateRandom(const Node& node, int64_t) {
  RandomAttrs attrs;
  const std::string& op = node.op_type();
  if (op == "Bernoulli") {
    attrs.distribution = Distribution::kBernoulli;
  } else if (op == "RandomNormal" || op == "RandomNormalLike") {
    attrs.distribution = Distribution::kNormal;
    attrs.mean = node.GetFloat("mean", 0.0f);
    attrs.scale = node.GetFloat("scale", 1.0f);
  } else {
    attrs.distribution = Distribution::kUniform;
    attrs.low = node.GetFloat("low", 0.0f);
    attrs.high = node.GetFloat("high", 1.0f);
  }
  attrs.seed = Seed::Of(node);
  return MakeAttrKernel(attrs, &RandomCompute);
}

Factory CreateMultinomial(const Node& node, int64_t) {
  if (node.GetInt("sample_size", 1) < 0) return NodeError(node, "sample_size is negative");
  return MakeAttrKernel(MultinomialAttrs{Seed::Of(node)}, &MultinomialCompute);
}

Factory CreateDropout(const Node& node, int64_t opset) {
  DropoutAttrs attrs;
  attrs.opset = opset;
  attrs.training = opset < 7 && node.GetInt("is_test", 0) == 0;
  attrs.ratio = node.GetFloat("ratio", 0.5f);
  attrs.seed = Seed::Of(node);
  return MakeAttrKernel(attrs, &DropoutCompute);
}

}  // namespace anvil::misc
