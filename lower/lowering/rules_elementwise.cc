// Lowering of element-wise ops: one loop nest over the output, each input read at its
// numpy-broadcast subscripts (NodeLowering::BroadcastIndex), the op's scalar formula in between.
//
// The formulas follow the runtime's kernels (kernels/ops/elementwise_*.cc): float16 and bfloat16
// compute in f32 and round once when stored (Sum/Max/Min/Mean fold in the storage type, as the
// kernels do); integers wrap; Max/Min propagate NaN; the activations' attribute defaults and
// orders of operations are the kernels'. Ops or types not handled here (BitShift, integer Pow,
// legacy broadcasting before opset 7, strings) return Unimplemented and call the kernel.
#include <cmath>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "lower/lowering/node_lowering.h"

namespace anvil::lower {
namespace {

using tir::Builder;
using tir::DataType;
using tir::Expr;
using tir::IntrinsicOp;
using tir::ScalarKind;

// The type an element-wise formula computes in: f32 for the 16-bit floats, else the type itself.
DataType ComputeType(DataType t) {
  if (t.kind() == ScalarKind::kF16 || t.kind() == ScalarKind::kBF16) return DataType::F32();
  return t;
}

// Legacy broadcasting (before opset 7, `broadcast` with an `axis`) aligns B at `axis`: not numpy.
bool LegacyAxisBroadcast(const NodeLowering& n) {
  return n.opset() < 7 && n.node().GetInt("broadcast", 0) != 0 &&
         n.node().FindAttribute("axis") != nullptr;
}

// A scalar formula over the operands (already in their compute types) giving the result in
// `out` (the output's compute type).
using Formula = Expr (*)(NodeLowering& n, Builder& b, const std::vector<Expr>& x, DataType out);

enum class Compute {
  kWiden,    // operands and result in ComputeType (f32 for 16-bit floats)
  kStorage,  // operands and result in the storage type (folds that round each step)
};

// out[i] = formula(in_k[broadcast(i)] for k in `inputs`).
absl::Status Map(NodeLowering& n, const std::vector<int>& inputs, Formula formula,
                 Compute compute = Compute::kWiden) {
  if (LegacyAxisBroadcast(n)) return n.Unimplemented("legacy broadcasting with an axis");
  Builder& b = n.b();
  const Expr& y = n.output(0);
  for (int i : inputs) {
    if (!n.has_input(i)) return n.Unimplemented(absl::StrCat("input ", i, " is missing"));
    if (!n.input_type(i).is_arithmetic()) return n.Unimplemented("non-numeric elements");
    if (n.input_dims(i).size() > n.output_dims(0).size()) {
      return n.Unimplemented("an input of higher rank than the output");
    }
  }
  if (!y.type().is_arithmetic()) return n.Unimplemented("non-numeric elements");
  const DataType out_compute = compute == Compute::kWiden ? ComputeType(y.type()) : y.type();
  n.Emit(b.Nest(NodeLowering::TensorDims(y), "i", [&](const std::vector<Expr>& idx) {
    std::vector<Expr> x;
    for (int i : inputs) {
      Expr v = b.Load(n.input(i), n.BroadcastIndex(i, idx));
      const DataType t = n.input_type(i);
      x.push_back(compute == Compute::kWiden ? b.Cast(ComputeType(t), v) : v);
    }
    Expr r = formula(n, b, x, out_compute);
    return b.Store(y, idx, b.Cast(y.type(), r));
  }));
  return b.status();
}

Expr C(Builder& b, DataType t, double v) { return b.Const(t, v); }

// A float attribute as the kernels read it (a float, widened to the compute type).
Expr Attr(NodeLowering& n, const char* name, float def, DataType t) {
  return n.b().Const(t, static_cast<double>(n.node().GetFloat(name, def)));
}

// ---- Unary ----

template <IntrinsicOp kOp>
absl::Status FloatIntrinsic(NodeLowering& n) {
  if (!n.input_type(0).is_float()) return n.Unimplemented("a non-float input");
  return Map(n, {0}, [](NodeLowering&, Builder& b, const std::vector<Expr>& x, DataType) {
    return b.Call(kOp, {x[0]});
  });
}

absl::Status Abs(NodeLowering& n) {
  return Map(n, {0}, [](NodeLowering&, Builder& b, const std::vector<Expr>& x, DataType) {
    return b.Call(IntrinsicOp::kAbs, {x[0]});
  });
}

absl::Status Neg(NodeLowering& n) {
  if (n.input_type(0).is_unsigned_int()) return n.Unimplemented("unsigned Neg");
  return Map(n, {0}, [](NodeLowering&, Builder& b, const std::vector<Expr>& x, DataType) {
    return b.Neg(x[0]);
  });
}

absl::Status Sign(NodeLowering& n) {
  return Map(n, {0}, [](NodeLowering&, Builder& b, const std::vector<Expr>& x, DataType t) {
    Expr s = b.Select(b.Gt(x[0], C(b, t, 0)), C(b, t, 1),
                      b.Select(b.Lt(x[0], C(b, t, 0)), C(b, t, -1), C(b, t, 0)));
    if (t.is_unsigned_int()) s = b.Select(b.Gt(x[0], C(b, t, 0)), C(b, t, 1), C(b, t, 0));
    return t.is_float() ? b.Select(b.Call(IntrinsicOp::kIsNaN, {x[0]}), x[0], s) : s;
  });
}

absl::Status Reciprocal(NodeLowering& n) {
  if (!n.input_type(0).is_float()) return n.Unimplemented("a non-float input");
  return Map(n, {0}, [](NodeLowering&, Builder& b, const std::vector<Expr>& x, DataType t) {
    return b.Div(C(b, t, 1), x[0]);
  });
}

absl::Status IsNaN(NodeLowering& n) {
  if (!n.input_type(0).is_float()) return n.Unimplemented("a non-float input");
  return Map(n, {0}, [](NodeLowering&, Builder& b, const std::vector<Expr>& x, DataType) {
    return b.Call(IntrinsicOp::kIsNaN, {x[0]});
  });
}

absl::Status IsInf(NodeLowering& n) {
  if (!n.input_type(0).is_float()) return n.Unimplemented("a non-float input");
  return Map(n, {0}, [](NodeLowering& n, Builder& b, const std::vector<Expr>& x, DataType) {
    const bool neg = n.node().GetInt("detect_negative", 1) != 0;
    const bool pos = n.node().GetInt("detect_positive", 1) != 0;
    const DataType t = x[0].type();
    Expr inf = b.Call(IntrinsicOp::kIsInf, {x[0]});
    if (neg && pos) return inf;
    if (!neg && !pos) return b.Bool(false);
    return b.And(inf, neg ? b.Lt(x[0], C(b, t, 0)) : b.Gt(x[0], C(b, t, 0)));
  });
}

absl::Status Relu(NodeLowering& n) {
  return Map(n, {0}, [](NodeLowering&, Builder& b, const std::vector<Expr>& x, DataType t) {
    return b.Select(b.Lt(x[0], C(b, t, 0)), C(b, t, 0), x[0]);
  });
}

absl::Status LeakyRelu(NodeLowering& n) {
  if (!n.input_type(0).is_float()) return n.Unimplemented("a non-float input");
  return Map(n, {0}, [](NodeLowering& n, Builder& b, const std::vector<Expr>& x, DataType t) {
    return b.Select(b.Lt(x[0], C(b, t, 0)), b.Mul(x[0], Attr(n, "alpha", 0.01f, t)), x[0]);
  });
}

// exp(-|x|) never overflows: e * 1/(1+e) for x < 0, 1/(1+e) otherwise.
Expr SigmoidOf(Builder& b, DataType t, const Expr& x) {
  Expr e = b.Call(IntrinsicOp::kExp, {b.Neg(b.Call(IntrinsicOp::kAbs, {x}))});
  Expr r = b.Div(C(b, t, 1), b.Add(C(b, t, 1), e));
  return b.Select(b.Lt(x, C(b, t, 0)), b.Mul(e, r), r);
}

absl::Status Sigmoid(NodeLowering& n) {
  if (!n.input_type(0).is_float()) return n.Unimplemented("a non-float input");
  return Map(n, {0}, [](NodeLowering&, Builder& b, const std::vector<Expr>& x, DataType t) {
    return SigmoidOf(b, t, x[0]);
  });
}

// com.microsoft QuickGelu: x * Sigmoid(alpha * x).
absl::Status QuickGelu(NodeLowering& n) {
  if (!n.input_type(0).is_float()) return n.Unimplemented("a non-float input");
  return Map(n, {0}, [](NodeLowering& n, Builder& b, const std::vector<Expr>& x, DataType t) {
    return b.Mul(x[0], SigmoidOf(b, t, b.Mul(x[0], Attr(n, "alpha", 1.702f, t))));
  });
}

absl::Status Softplus(NodeLowering& n) {
  if (!n.input_type(0).is_float()) return n.Unimplemented("a non-float input");
  return Map(n, {0}, [](NodeLowering&, Builder& b, const std::vector<Expr>& x, DataType t) {
    Expr e = b.Call(IntrinsicOp::kExp, {b.Neg(b.Call(IntrinsicOp::kAbs, {x[0]}))});
    Expr y = b.Add(b.Max(x[0], C(b, t, 0)), b.Call(IntrinsicOp::kLog, {b.Add(C(b, t, 1), e)}));
    return b.Select(b.Call(IntrinsicOp::kIsNaN, {x[0]}), x[0], y);
  });
}

absl::Status Softsign(NodeLowering& n) {
  if (!n.input_type(0).is_float()) return n.Unimplemented("a non-float input");
  return Map(n, {0}, [](NodeLowering&, Builder& b, const std::vector<Expr>& x, DataType t) {
    return b.Div(x[0], b.Add(C(b, t, 1), b.Call(IntrinsicOp::kAbs, {x[0]})));
  });
}

// x > 0 ? gamma * x : (gamma * alpha) * (exp(beta * x) - 1), the kernels' Elu/Selu/Celu.
Expr ExpLinear(Builder& b, const Expr& x, Expr alpha, Expr beta, Expr gamma, bool scale_x) {
  const DataType t = x.type();
  Expr em1 = b.Sub(b.Call(IntrinsicOp::kExp, {beta.defined() ? b.Mul(x, beta) : x}), C(b, t, 1));
  Expr neg = b.Mul(gamma.defined() ? b.Mul(gamma, alpha) : alpha, em1);
  Expr pos = scale_x && gamma.defined() ? b.Mul(gamma, x) : x;
  return b.Select(b.Gt(x, C(b, t, 0)), pos, neg);
}

absl::Status Elu(NodeLowering& n) {
  if (!n.input_type(0).is_float()) return n.Unimplemented("a non-float input");
  return Map(n, {0}, [](NodeLowering& n, Builder& b, const std::vector<Expr>& x, DataType t) {
    return ExpLinear(b, x[0], Attr(n, "alpha", 1.0f, t), Expr(), Expr(), false);
  });
}

absl::Status Selu(NodeLowering& n) {
  if (!n.input_type(0).is_float()) return n.Unimplemented("a non-float input");
  return Map(n, {0}, [](NodeLowering& n, Builder& b, const std::vector<Expr>& x, DataType t) {
    const bool old = n.opset() < 6;
    Expr alpha = Attr(n, "alpha", old ? 1.6732f : 1.67326319217681884765625f, t);
    Expr gamma = Attr(n, "gamma", old ? 1.0507f : 1.05070102214813232421875f, t);
    return ExpLinear(b, x[0], alpha, Expr(), gamma, true);
  });
}

absl::Status Celu(NodeLowering& n) {
  if (!n.input_type(0).is_float()) return n.Unimplemented("a non-float input");
  const float alpha = n.node().GetFloat("alpha", 1.0f);
  if (alpha == 0) return n.Error("alpha must not be 0");
  return Map(n, {0}, [](NodeLowering& n, Builder& b, const std::vector<Expr>& x, DataType t) {
    const float a = n.node().GetFloat("alpha", 1.0f);
    return ExpLinear(b, x[0], C(b, t, a), C(b, t, 1.0f / a), Expr(), false);
  });
}

// std::min(1, t) and std::max(0, m) as the kernels compute them (NaN -> 1).
Expr HardClamp01(Builder& b, const Expr& t) {
  const DataType type = t.type();
  Expr m = b.Select(b.Lt(t, C(b, type, 1)), t, C(b, type, 1));
  return b.Select(b.Lt(C(b, type, 0), m), m, C(b, type, 0));
}

absl::Status HardSigmoid(NodeLowering& n) {
  if (!n.input_type(0).is_float()) return n.Unimplemented("a non-float input");
  return Map(n, {0}, [](NodeLowering& n, Builder& b, const std::vector<Expr>& x, DataType t) {
    return HardClamp01(b, b.Add(b.Mul(Attr(n, "alpha", 0.2f, t), x[0]), Attr(n, "beta", 0.5f, t)));
  });
}

absl::Status HardSwish(NodeLowering& n) {
  if (!n.input_type(0).is_float()) return n.Unimplemented("a non-float input");
  return Map(n, {0}, [](NodeLowering&, Builder& b, const std::vector<Expr>& x, DataType t) {
    return b.Mul(x[0], HardClamp01(b, b.Add(b.Div(x[0], C(b, t, 6)), C(b, t, 0.5))));
  });
}

// com.microsoft Gelu with the kernel's operations: x * 0.5 * (erf(x * (1 / sqrt(2))) + 1).
absl::Status Gelu(NodeLowering& n) {
  if (!n.input_type(0).is_float()) return n.Unimplemented("a non-float input");
  return Map(n, {0}, [](NodeLowering&, Builder& b, const std::vector<Expr>& x, DataType t) {
    const Expr e = b.Call(IntrinsicOp::kErf, {b.Mul(x[0], C(b, t, 0.707106781186547524))});
    return b.Mul(b.Mul(x[0], C(b, t, 0.5)), b.Add(e, C(b, t, 1)));
  });
}

absl::Status ThresholdedRelu(NodeLowering& n) {
  if (!n.input_type(0).is_float()) return n.Unimplemented("a non-float input");
  return Map(n, {0}, [](NodeLowering& n, Builder& b, const std::vector<Expr>& x, DataType t) {
    return b.Select(b.Gt(x[0], Attr(n, "alpha", 1.0f, t)), x[0], C(b, t, 0));
  });
}

absl::Status Shrink(NodeLowering& n) {
  return Map(n, {0}, [](NodeLowering& n, Builder& b, const std::vector<Expr>& x, DataType) {
    // In double for every type, as the kernel.
    const DataType d = DataType::F64();
    Expr v = b.Cast(d, x[0]);
    Expr l = Attr(n, "lambd", 0.5f, d), bias = Attr(n, "bias", 0.0f, d);
    return b.Select(b.Lt(v, b.Neg(l)), b.Add(v, bias),
                    b.Select(b.Gt(v, l), b.Sub(v, bias), C(b, d, 0)));
  });
}

absl::Status Clip(NodeLowering& n) {
  Builder& b = n.b();
  const DataType t = ComputeType(n.input_type(0));
  if (!t.is_arithmetic() || t.is_bool()) return n.Unimplemented("a non-numeric input");
  // The bounds: attributes before opset 11 (absent: none), one-element inputs from 11.
  Expr lo, hi;
  if (n.opset() < 11) {
    if (const Attribute* a = n.node().FindAttribute("min")) lo = b.Const(t, a->f);
    if (const Attribute* a = n.node().FindAttribute("max")) hi = b.Const(t, a->f);
  } else {
    for (int i : {1, 2}) {
      if (!n.has_input(i)) continue;
      const Expr& bound = n.input(i);
      const std::vector<Expr>& dims = NodeLowering::TensorDims(bound);
      int64_t elements = 1;
      for (const IndexExpr& d : n.input_dims(i)) {
        if (!d.IsLiteral()) return n.Unimplemented("a bound of unknown size");
        elements *= d.literal();
      }
      if (elements != 1 || bound.type() != n.input_type(0)) {
        return n.Error(absl::StrCat(i == 1 ? "min" : "max",
                                    " must be a single element of the "
                                    "input's type"));
      }
      Expr v = b.Cast(t, b.Load(bound, std::vector<Expr>(dims.size(), tir::IndexConst(0))));
      (i == 1 ? lo : hi) = v;
    }
  }
  const Expr& y = n.output(0);
  n.Emit(b.Nest(NodeLowering::TensorDims(y), "i", [&](const std::vector<Expr>& idx) {
    Expr v = b.Cast(t, b.Load(n.input(0), idx));
    if (lo.defined()) v = b.Select(b.Lt(v, lo), lo, v);
    if (hi.defined()) v = b.Select(b.Gt(v, hi), hi, v);
    return b.Store(y, idx, b.Cast(y.type(), v));
  }));
  return b.status();
}

absl::Status Not(NodeLowering& n) {
  return Map(n, {0}, [](NodeLowering&, Builder& b, const std::vector<Expr>& x, DataType) {
    return b.Not(x[0]);
  });
}

absl::Status CastOp(NodeLowering& n) {
  // Cast converts between every numeric type and bool with expr.h's Cast, which is the
  // kernel's conversion (saturating float -> int, NaN -> 0, to bool as != 0).
  if (!n.input_type(0).is_arithmetic() || !n.output_type(0).is_arithmetic()) {
    return n.Unimplemented("string elements");
  }
  Builder& b = n.b();
  const Expr& y = n.output(0);
  n.Emit(b.Nest(NodeLowering::TensorDims(y), "i", [&](const std::vector<Expr>& idx) {
    return b.Store(y, idx, b.Cast(y.type(), b.Load(n.input(0), idx)));
  }));
  return b.status();
}

// ---- Binary and variadic ----

template <tir::ExprKind kKind>
absl::Status Arithmetic(NodeLowering& n) {
  if (n.input_type(0) != n.input_type(1)) return n.Unimplemented("inputs of two types");
  return Map(n, {0, 1}, [](NodeLowering&, Builder& b, const std::vector<Expr>& x, DataType) {
    return b.Binary(kKind, x[0], x[1]);
  });
}

template <tir::ExprKind kKind>
absl::Status Compare(NodeLowering& n) {
  if (n.input_type(0) != n.input_type(1)) return n.Unimplemented("inputs of two types");
  return Map(n, {0, 1}, [](NodeLowering&, Builder& b, const std::vector<Expr>& x, DataType) {
    return b.Binary(kKind, x[0], x[1]);
  });
}

absl::Status Xor(NodeLowering& n) {
  return Map(n, {0, 1}, [](NodeLowering&, Builder& b, const std::vector<Expr>& x, DataType) {
    return b.Ne(x[0], x[1]);
  });
}

absl::Status Mod(NodeLowering& n) {
  if (n.input_type(0) != n.input_type(1)) return n.Unimplemented("inputs of two types");
  const int64_t fmod = n.node().GetInt("fmod", 0);
  if (fmod != 0 && fmod != 1) return n.Error(absl::StrCat("fmod must be 0 or 1, got ", fmod));
  return Map(n, {0, 1}, [](NodeLowering& n, Builder& b, const std::vector<Expr>& x, DataType t) {
    const bool c_remainder = n.node().GetInt("fmod", 0) != 0;
    if (c_remainder) return b.Call(IntrinsicOp::kFmod, {x[0], x[1]});
    if (t.is_int()) return b.Mod(x[0], x[1]);  // the divisor's sign, as Python's %
    Expr r = b.Call(IntrinsicOp::kFmod, {x[0], x[1]});
    Expr fix = b.And(b.Ne(r, C(b, t, 0)), b.Ne(b.Lt(r, C(b, t, 0)), b.Lt(x[1], C(b, t, 0))));
    return b.Select(fix, b.Add(r, x[1]), r);
  });
}

absl::Status Pow(NodeLowering& n) {
  const DataType base = n.input_type(0);
  if (!base.is_float() || n.input_type(1) != base) {
    return n.Unimplemented("Pow of integers or mixed types");
  }
  return Map(n, {0, 1}, [](NodeLowering&, Builder& b, const std::vector<Expr>& x, DataType) {
    return b.Call(IntrinsicOp::kPow, {x[0], x[1]});
  });
}

absl::Status PRelu(NodeLowering& n) {
  if (n.input_type(0) != n.input_type(1)) return n.Unimplemented("inputs of two types");
  if (n.opset() < 7) return n.Unimplemented("per-channel slopes before opset 7");
  return Map(n, {0, 1}, [](NodeLowering&, Builder& b, const std::vector<Expr>& x, DataType t) {
    return b.Select(b.Lt(x[0], C(b, t, 0)), b.Mul(x[0], x[1]), x[0]);
  });
}

absl::Status Where(NodeLowering& n) {
  if (n.input_type(1) != n.input_type(2)) return n.Unimplemented("branches of two types");
  return Map(
      n, {0, 1, 2},
      [](NodeLowering&, Builder& b, const std::vector<Expr>& x, DataType) {
        return b.Select(x[0], x[1], x[2]);
      },
      Compute::kStorage);
}

std::vector<int> AllInputs(const NodeLowering& n) {
  std::vector<int> inputs;
  for (int i = 0; i < n.node().num_inputs(); ++i) inputs.push_back(i);
  return inputs;
}

// Sum, Max, Min: a left fold in the storage type; Mean divides the sum by the count.
template <tir::ExprKind kKind>
absl::Status Fold(NodeLowering& n) {
  for (int i = 0; i < n.node().num_inputs(); ++i) {
    if (!n.has_input(i) || n.input_type(i) != n.output_type(0)) {
      return n.Unimplemented("a missing input or inputs of two types");
    }
  }
  return Map(
      n, AllInputs(n),
      [](NodeLowering&, Builder& b, const std::vector<Expr>& x, DataType) {
        Expr y = x[0];
        for (size_t k = 1; k < x.size(); ++k) y = b.Binary(kKind, y, x[k]);
        return y;
      },
      Compute::kStorage);
}

absl::Status Mean(NodeLowering& n) {
  if (!n.output_type(0).is_float()) return n.Unimplemented("a non-float Mean");
  for (int i = 0; i < n.node().num_inputs(); ++i) {
    if (!n.has_input(i) || n.input_type(i) != n.output_type(0)) {
      return n.Unimplemented("a missing input or inputs of two types");
    }
  }
  return Map(
      n, AllInputs(n),
      [](NodeLowering&, Builder& b, const std::vector<Expr>& x, DataType t) {
        Expr y = x[0];
        for (size_t k = 1; k < x.size(); ++k) y = b.Add(y, x[k]);
        const DataType c = ComputeType(t);
        return b.Cast(t, b.Div(b.Cast(c, y), C(b, c, static_cast<double>(x.size()))));
      },
      Compute::kStorage);
}

}  // namespace

// Sorted by op type.
const LowerRule kElementwiseLowerRules[] = {
    {"", "Abs", &Abs},
    {"", "Acos", &FloatIntrinsic<IntrinsicOp::kAcos>},
    {"", "Acosh", &FloatIntrinsic<IntrinsicOp::kAcosh>},
    {"", "Add", &Arithmetic<tir::ExprKind::kAdd>},
    {"", "And", &Arithmetic<tir::ExprKind::kAnd>},
    {"", "Asin", &FloatIntrinsic<IntrinsicOp::kAsin>},
    {"", "Asinh", &FloatIntrinsic<IntrinsicOp::kAsinh>},
    {"", "Atan", &FloatIntrinsic<IntrinsicOp::kAtan>},
    {"", "Atanh", &FloatIntrinsic<IntrinsicOp::kAtanh>},
    {"", "Cast", &CastOp},
    {"", "CastLike", &CastOp},
    {"", "Ceil", &FloatIntrinsic<IntrinsicOp::kCeil>},
    {"", "Celu", &Celu},
    {"", "Clip", &Clip},
    {"", "Cos", &FloatIntrinsic<IntrinsicOp::kCos>},
    {"", "Cosh", &FloatIntrinsic<IntrinsicOp::kCosh>},
    {"", "Div", &Arithmetic<tir::ExprKind::kDiv>},
    {"", "Elu", &Elu},
    {"", "Equal", &Compare<tir::ExprKind::kCmpEq>},
    {"", "Erf", &FloatIntrinsic<IntrinsicOp::kErf>},
    {"", "Exp", &FloatIntrinsic<IntrinsicOp::kExp>},
    {"", "Floor", &FloatIntrinsic<IntrinsicOp::kFloor>},
    {"", "Greater", &Compare<tir::ExprKind::kCmpGt>},
    {"", "GreaterOrEqual", &Compare<tir::ExprKind::kCmpGe>},
    {"", "HardSigmoid", &HardSigmoid},
    {"", "HardSwish", &HardSwish},
    {"", "IsInf", &IsInf},
    {"", "IsNaN", &IsNaN},
    {"", "LeakyRelu", &LeakyRelu},
    {"", "Less", &Compare<tir::ExprKind::kCmpLt>},
    {"", "LessOrEqual", &Compare<tir::ExprKind::kCmpLe>},
    {"", "Log", &FloatIntrinsic<IntrinsicOp::kLog>},
    {"", "Max", &Fold<tir::ExprKind::kMax>},
    {"", "Mean", &Mean},
    {"", "Min", &Fold<tir::ExprKind::kMin>},
    {"", "Mod", &Mod},
    {"", "Mul", &Arithmetic<tir::ExprKind::kMul>},
    {"", "Neg", &Neg},
    {"", "Not", &Not},
    {"", "Or", &Arithmetic<tir::ExprKind::kOr>},
    {"", "PRelu", &PRelu},
    {"", "Pow", &Pow},
    {"", "Reciprocal", &Reciprocal},
    {"", "Relu", &Relu},
    {"", "Round", &FloatIntrinsic<IntrinsicOp::kRound>},
    {"", "Selu", &Selu},
    {"", "Shrink", &Shrink},
    {"", "Sigmoid", &Sigmoid},
    {"", "Sign", &Sign},
    {"", "Sin", &FloatIntrinsic<IntrinsicOp::kSin>},
    {"", "Sinh", &FloatIntrinsic<IntrinsicOp::kSinh>},
    {"", "Softplus", &Softplus},
    {"", "Softsign", &Softsign},
    {"", "Sqrt", &FloatIntrinsic<IntrinsicOp::kSqrt>},
    {"", "Sub", &Arithmetic<tir::ExprKind::kSub>},
    {"", "Sum", &Fold<tir::ExprKind::kAdd>},
    {"", "Tan", &FloatIntrinsic<IntrinsicOp::kTan>},
    {"", "Tanh", &FloatIntrinsic<IntrinsicOp::kTanh>},
    {"", "ThresholdedRelu", &ThresholdedRelu},
    {"", "Where", &Where},
    {"", "Xor", &Xor},
    // ONNX Runtime's contrib ops that fuse-activations makes.
    {"com.microsoft", "Gelu", &Gelu},
    {"com.microsoft", "QuickGelu", &QuickGelu},
    {"", nullptr, nullptr},
};

}  // namespace anvil::lower
