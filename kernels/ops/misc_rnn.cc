// RNN, GRU and LSTM (every version): one kernel for the three cells.
//
// Layouts (shape/ops/compute_rnn.cc): X [seq, batch, input] and Y [seq, dirs, batch, hidden]
// with layout 0, [batch, seq, input] and [batch, seq, dirs, hidden] with layout 1 (opset 14);
// states [dirs, batch, hidden] or [batch, dirs, hidden]. Weights W [dirs, gates*hidden, input],
// R [dirs, gates*hidden, hidden] and B [dirs, 2*gates*hidden] (Wb then Rb) are layout-free.
// Gate order: GRU z, r, h; LSTM i, o, f, c; peepholes P [dirs, 3*hidden] i, o, f.
//
// Semantics that the spec leaves open follow ONNX Runtime: `clip` bounds the input of every gate
// activation (not the cell state fed to LSTM's h); activation_alpha/beta are consumed in order
// by the activations that take them, with each op's defaults when the lists run out; an
// activation list of one direction's length serves both directions; with sequence_lens, batch
// entry b runs over its first sequence_lens[b] steps only (the reverse direction starts at its
// last valid step), Y is zero past them and Y_h/Y_c hold the state after the last valid step.
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "base/absl_compat.h"
#include "base/status_macros.h"
#include "kernels/ops/misc_internal.h"

namespace anvil::misc {
namespace {

enum class Cell { kRnn, kGru, kLstm };

enum class ActKind {
  kAffine,
  kElu,
  kHardSigmoid,
  kLeakyRelu,
  kRelu,
  kScaledTanh,
  kSigmoid,
  kSoftplus,
  kSoftsign,
  kTanh,
  kThresholdedRelu,
};

// An activation and how many of activation_alpha / activation_beta it consumes, with the
// defaults of the ONNX op of the same name.
struct ActivationInfo {
  const char* name;  // lower case
  ActKind kind;
  bool has_alpha;
  float default_alpha;
  bool has_beta;
  float default_beta;
};

constexpr ActivationInfo kActivationInfos[] = {
    {"affine", ActKind::kAffine, true, 1.0f, true, 0.0f},
    {"elu", ActKind::kElu, true, 1.0f, false, 0.0f},
    {"hardsigmoid", ActKind::kHardSigmoid, true, 0.2f, true, 0.5f},
    {"leakyrelu", ActKind::kLeakyRelu, true, 0.01f, false, 0.0f},
    {"relu", ActKind::kRelu, false, 0.0f, false, 0.0f},
    {"scaledtanh", ActKind::kScaledTanh, true, 1.0f, true, 1.0f},
    {"sigmoid", ActKind::kSigmoid, false, 0.0f, false, 0.0f},
    {"softplus", ActKind::kSoftplus, false, 0.0f, false, 0.0f},
    {"softsign", ActKind::kSoftsign, false, 0.0f, false, 0.0f},
    {"tanh", ActKind::kTanh, false, 0.0f, false, 0.0f},
    {"thresholdedrelu", ActKind::kThresholdedRelu, true, 1.0f, false, 0.0f},
};

struct Activation {
  ActKind kind = ActKind::kTanh;
  float alpha = 0;
  float beta = 0;

  template <typename T>
  T operator()(T x) const {
    const T a = static_cast<T>(alpha);
    const T b = static_cast<T>(beta);
    switch (kind) {
      case ActKind::kAffine:
        return a * x + b;
      case ActKind::kElu:
        return x >= 0 ? x : a * (std::exp(x) - 1);
      case ActKind::kHardSigmoid:
        return std::clamp(a * x + b, T(0), T(1));
      case ActKind::kLeakyRelu:
        return x >= 0 ? x : a * x;
      case ActKind::kRelu:
        return std::max(x, T(0));
      case ActKind::kScaledTanh:
        return a * std::tanh(b * x);
      case ActKind::kSigmoid: {
        // Split by sign so that exp never overflows.
        if (x >= 0) return 1 / (1 + std::exp(-x));
        const T e = std::exp(x);
        return e / (1 + e);
      }
      case ActKind::kSoftplus:
        return x > 0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
      case ActKind::kSoftsign:
        return x / (1 + std::abs(x));
      case ActKind::kTanh:
        return std::tanh(x);
      case ActKind::kThresholdedRelu:
        return x > a ? x : T(0);
    }
    return x;
  }
};

template <typename T>
T Dot(const T* a, const T* b, int64_t n) {
  T sum = 0;
  for (int64_t i = 0; i < n; ++i) sum += a[i] * b[i];
  return sum;
}

class RecurrentKernel final : public OpKernel {
 public:
  static Factory Create(const Node& node, int64_t opset) {
    auto kernel = std::unique_ptr<RecurrentKernel>(new RecurrentKernel());
    RecurrentKernel& k = *kernel;
    const std::string& op = node.op_type();
    k.cell_ = op == "LSTM" ? Cell::kLstm : op == "GRU" ? Cell::kGru : Cell::kRnn;
    k.gates_ = k.cell_ == Cell::kLstm ? 4 : k.cell_ == Cell::kGru ? 3 : 1;

    // GRU-1 documents the misspelled default "foward".
    const std::string direction = node.GetString("direction", "forward");
    if (direction == "bidirectional") {
      k.dirs_ = 2;
    } else if (direction == "reverse") {
      k.reverse_ = true;
    } else if (direction != "forward" && direction != "foward") {
      return NodeError(node, absl::StrCat("direction '", direction,
                                          "' is not forward, reverse or bidirectional"));
    }
    k.layout_ = opset >= 14 ? node.GetInt("layout", 0) : 0;
    if (k.layout_ != 0 && k.layout_ != 1) {
      return NodeError(node, absl::StrCat("layout ", k.layout_, " is not 0 or 1"));
    }
    if (const Attribute* clip = node.FindAttribute("clip")) {
      if (clip->f < 0) return NodeError(node, absl::StrCat("clip ", clip->f, " is negative"));
      k.clip_ = clip->f;
    }
    k.linear_before_reset_ = node.GetInt("linear_before_reset", 0) != 0;
    k.input_forget_ = node.GetInt("input_forget", 0) != 0;

    // Activations: per direction f (RNN); f, g (GRU); f, g, h (LSTM).
    const int per_dir = k.cell_ == Cell::kLstm ? 3 : k.cell_ == Cell::kGru ? 2 : 1;
    std::vector<std::string> names;
    if (const Attribute* a = node.FindAttribute("activations")) names = a->strings;
    if (names.empty()) {
      if (k.cell_ == Cell::kRnn) names = {"Tanh"};
      if (k.cell_ == Cell::kGru) names = {"Sigmoid", "Tanh"};
      if (k.cell_ == Cell::kLstm) names = {"Sigmoid", "Tanh", "Tanh"};
    }
    if (static_cast<int>(names.size()) == per_dir && k.dirs_ == 2) {
      std::vector<std::string> both = names;
      both.insert(both.end(), names.begin(), names.end());
      names = std::move(both);
    }
    if (static_cast<int>(names.size()) != per_dir * k.dirs_) {
      return NodeError(node, absl::StrCat(names.size(), " activations given, ", op, " with ",
                                          k.dirs_, " direction(s) needs ", per_dir * k.dirs_));
    }
    const std::vector<float> alphas = GetFloats(node, "activation_alpha");
    const std::vector<float> betas = GetFloats(node, "activation_beta");
    size_t next_alpha = 0;
    size_t next_beta = 0;
    for (const std::string& name : names) {
      const std::string lower = absl::AsciiStrToLower(name);
      const ActivationInfo* info = nullptr;
      for (const ActivationInfo& candidate : kActivationInfos) {
        if (lower == candidate.name) info = &candidate;
      }
      if (info == nullptr) {
        return NodeError(node, absl::StrCat("unknown activation '", name, "'"));
      }
      Activation act{info->kind, info->default_alpha, info->default_beta};
      if (info->has_alpha && next_alpha < alphas.size()) act.alpha = alphas[next_alpha++];
      if (info->has_beta && next_beta < betas.size()) act.beta = betas[next_beta++];
      k.activations_.push_back(act);
    }
    k.per_dir_ = per_dir;
    return std::unique_ptr<OpKernel>(std::move(kernel));
  }

  absl::Status Compute(KernelContext& ctx) override {
    return DispatchFloatCompute(ctx.input(0).type, ctx.node().op_type(),
                                [&](auto tag) { return Run<decltype(tag)>(ctx); });
  }

 private:
  RecurrentKernel() = default;

  static std::vector<float> GetFloats(const Node& node, std::string_view name) {
    const Attribute* a = node.FindAttribute(name);
    return a == nullptr ? std::vector<float>{} : a->floats;
  }

  template <typename T>
  T Clip(T x) const {
    if (!clip_) return x;
    const T c = static_cast<T>(*clip_);
    return std::clamp(x, -c, c);
  }

  template <typename T>
  absl::Status Run(KernelContext& ctx);

  Cell cell_ = Cell::kRnn;
  int gates_ = 1;
  int dirs_ = 1;
  bool reverse_ = false;  // direction "reverse" (one direction)
  int64_t layout_ = 0;
  std::optional<float> clip_;
  bool linear_before_reset_ = false;
  bool input_forget_ = false;
  int per_dir_ = 1;
  std::vector<Activation> activations_;  // per_dir_ per direction
};

template <typename T>
absl::Status RecurrentKernel::Run(KernelContext& ctx) {
  const TensorView& xv = ctx.input(0);
  const TensorView& wv = ctx.input(1);
  const TensorView& rv = ctx.input(2);
  if (xv.rank() != 3 || wv.rank() != 3 || rv.rank() != 3) {
    return ctx.Error("X, W and R must be 3-D");
  }
  const int64_t seq = xv.dims[layout_ == 0 ? 0 : 1];
  const int64_t batch = xv.dims[layout_ == 0 ? 1 : 0];
  const int64_t input = xv.dims[2];
  const int64_t hidden = rv.dims[2];
  const int64_t gh = gates_ * hidden;
  if (wv.dims[0] != dirs_ || rv.dims[0] != dirs_ || wv.dims[1] != gh || rv.dims[1] != gh ||
      wv.dims[2] != input) {
    return ctx.Error(absl::StrCat("W ", wv.DebugString(), " and R ", rv.DebugString(),
                                  " do not fit X ", xv.DebugString()));
  }

  ANVIL_ASSIGN_OR_RETURN(std::vector<T> x, ReadAs<T>(xv, "X"));
  ANVIL_ASSIGN_OR_RETURN(std::vector<T> w, ReadAs<T>(wv, "W"));
  ANVIL_ASSIGN_OR_RETURN(std::vector<T> r, ReadAs<T>(rv, "R"));

  // An optional input of `count` elements (zeros when omitted).
  auto optional_input = [&](int i, int64_t count,
                            std::string_view what) -> absl::StatusOr<std::vector<T>> {
    if (!ctx.HasInput(i)) return std::vector<T>(count, T(0));
    if (ctx.input(i).NumElements() != count) {
      return ctx.Error(absl::StrCat(AsAbsl(what), " ", ctx.input(i).DebugString(), " must have ",
                                    count, " elements"));
    }
    return ReadAs<T>(ctx.input(i), what);
  };
  ANVIL_ASSIGN_OR_RETURN(std::vector<T> bias, optional_input(3, dirs_ * 2 * gh, "B"));
  ANVIL_ASSIGN_OR_RETURN(std::vector<T> init_h,
                         optional_input(5, dirs_ * batch * hidden, "initial_h"));
  const bool lstm = cell_ == Cell::kLstm;
  ANVIL_ASSIGN_OR_RETURN(std::vector<T> init_c,
                         optional_input(6, lstm ? dirs_ * batch * hidden : 0, "initial_c"));
  ANVIL_ASSIGN_OR_RETURN(std::vector<T> peep,
                         optional_input(7, lstm ? dirs_ * 3 * hidden : 0, "P"));

  std::vector<int64_t> lens(batch, seq);
  if (ctx.HasInput(4)) {
    ANVIL_ASSIGN_OR_RETURN(std::vector<int64_t> l, ReadAs<int64_t>(ctx.input(4), "sequence_lens"));
    if (static_cast<int64_t>(l.size()) != batch) {
      return ctx.Error(absl::StrCat("sequence_lens ", ctx.input(4).DebugString(),
                                    " does not have batch size ", batch));
    }
    for (int64_t len : l) {
      if (len < 0 || len > seq) {
        return ctx.Error(absl::StrCat("sequence_lens value ", len, " is outside [0, ", seq, "]"));
      }
    }
    lens = std::move(l);
  }

  // Index of (t, d, b) in Y and of (d, b) in the states, per layout.
  auto y_index = [&](int64_t t, int64_t d, int64_t b) {
    return (layout_ == 0 ? (t * dirs_ + d) * batch + b : (b * seq + t) * dirs_ + d) * hidden;
  };
  auto state_index = [&](int64_t d, int64_t b) {
    return (layout_ == 0 ? d * batch + b : b * dirs_ + d) * hidden;
  };
  auto x_row = [&](int64_t t, int64_t b) {
    return x.data() + (layout_ == 0 ? t * batch + b : b * seq + t) * input;
  };

  const bool want_y = ctx.HasOutput(0);
  std::vector<T> y(want_y ? seq * dirs_ * batch * hidden : 0, T(0));
  std::vector<T> y_h(dirs_ * batch * hidden);
  std::vector<T> y_c(lstm ? dirs_ * batch * hidden : 0);

  std::vector<T> xw(seq * batch * gh);
  std::vector<T> h(batch * hidden);
  std::vector<T> c(lstm ? batch * hidden : 0);
  std::vector<T> gates(gh);
  std::vector<T> scratch(hidden);
  for (int64_t d = 0; d < dirs_; ++d) {
    const bool reverse = dirs_ == 2 ? d == 1 : reverse_;
    const T* wd = w.data() + d * gh * input;
    const T* rd = r.data() + d * gh * hidden;
    const T* wb = bias.data() + d * 2 * gh;
    const T* rb = wb + gh;
    const Activation* act = &activations_[d * per_dir_];

    // The input projection of every step at once: x W^T + Wb (+ Rb, except GRU's h gate with
    // linear_before_reset, where Rb is inside the reset product).
    for (int64_t t = 0; t < seq; ++t) {
      for (int64_t b = 0; b < batch; ++b) {
        const T* xr = x_row(t, b);
        T* out = xw.data() + (t * batch + b) * gh;
        for (int64_t j = 0; j < gh; ++j) {
          const bool rb_later = cell_ == Cell::kGru && linear_before_reset_ && j >= 2 * hidden;
          out[j] = Dot(xr, wd + j * input, input) + wb[j] + (rb_later ? T(0) : rb[j]);
        }
      }
    }
    for (int64_t b = 0; b < batch; ++b) {
      std::copy_n(init_h.data() + state_index(d, b), hidden, h.data() + b * hidden);
      if (lstm) std::copy_n(init_c.data() + state_index(d, b), hidden, c.data() + b * hidden);
    }
    const T* p = lstm ? peep.data() + d * 3 * hidden : nullptr;

    for (int64_t s = 0; s < seq; ++s) {
      for (int64_t b = 0; b < batch; ++b) {
        if (s >= lens[b]) continue;
        const int64_t t = reverse ? lens[b] - 1 - s : s;
        const T* xg = xw.data() + (t * batch + b) * gh;
        T* hb = h.data() + b * hidden;
        switch (cell_) {
          case Cell::kRnn:
            for (int64_t j = 0; j < hidden; ++j) {
              gates[j] = act[0](Clip(xg[j] + Dot(hb, rd + j * hidden, hidden)));
            }
            std::copy_n(gates.data(), hidden, hb);
            break;
          case Cell::kGru: {
            T* z = gates.data();
            T* rg = z + hidden;
            T* hh = rg + hidden;
            for (int64_t j = 0; j < 2 * hidden; ++j) {
              z[j] = act[0](Clip(xg[j] + Dot(hb, rd + j * hidden, hidden)));
            }
            const T* rh = rd + 2 * hidden * hidden;
            if (linear_before_reset_) {
              for (int64_t j = 0; j < hidden; ++j) {
                const T v = xg[2 * hidden + j] +
                            rg[j] * (Dot(hb, rh + j * hidden, hidden) + rb[2 * hidden + j]);
                hh[j] = act[1](Clip(v));
              }
            } else {
              for (int64_t j = 0; j < hidden; ++j) scratch[j] = rg[j] * hb[j];
              for (int64_t j = 0; j < hidden; ++j) {
                hh[j] =
                    act[1](Clip(xg[2 * hidden + j] + Dot(scratch.data(), rh + j * hidden, hidden)));
              }
            }
            for (int64_t j = 0; j < hidden; ++j) hb[j] = (1 - z[j]) * hh[j] + z[j] * hb[j];
            break;
          }
          case Cell::kLstm: {
            T* cb = c.data() + b * hidden;
            for (int64_t j = 0; j < gh; ++j) gates[j] = xg[j] + Dot(hb, rd + j * hidden, hidden);
            const T* gi = gates.data();
            const T* go = gi + hidden;
            const T* gf = go + hidden;
            const T* gc = gf + hidden;
            for (int64_t j = 0; j < hidden; ++j) {
              const T i = act[0](Clip(gi[j] + p[j] * cb[j]));
              const T f = input_forget_ ? 1 - i : act[0](Clip(gf[j] + p[2 * hidden + j] * cb[j]));
              const T cell = f * cb[j] + i * act[1](Clip(gc[j]));
              const T o = act[0](Clip(go[j] + p[hidden + j] * cell));
              cb[j] = cell;
              hb[j] = o * act[2](cell);
            }
            break;
          }
        }
        if (want_y) std::copy_n(hb, hidden, y.data() + y_index(t, d, b));
      }
    }
    for (int64_t b = 0; b < batch; ++b) {
      std::copy_n(h.data() + b * hidden, hidden, y_h.data() + state_index(d, b));
      if (lstm) std::copy_n(c.data() + b * hidden, hidden, y_c.data() + state_index(d, b));
    }
  }

  const std::string& op = ctx.node().op_type();
  if (want_y) {
    ANVIL_RETURN_IF_ERROR(WriteAs(ctx.output(0), y.data(), op));
  }
  if (ctx.HasOutput(1)) {
    ANVIL_RETURN_IF_ERROR(WriteAs(ctx.output(1), y_h.data(), op));
  }
  if (lstm && ctx.HasOutput(2)) {
    ANVIL_RETURN_IF_ERROR(WriteAs(ctx.output(2), y_c.data(), op));
  }
  return absl::OkStatus();
}

}  // namespace

Factory CreateRecurrent(const Node& node, int64_t opset) {
  return RecurrentKernel::Create(node, opset);
}

}  // namespace anvil::misc
