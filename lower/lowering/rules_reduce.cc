// Lowering of reductions and the normalizations built on them: ReduceX, ArgMax/ArgMin, Softmax,
// LogSoftmax and LayerNormalization. Each becomes one loop nest over the kept dims whose body
// holds accumulator variables and inner loops over the reduced dims — the shape fusion extends
// (an element-wise producer inlines into the inner loops, a consumer into the outer ones).
//
// Which axes reduce is the ShapeHelper's fact (ShapeFacts::axes). Accumulators follow the
// kernels (kernels/ops/compute_reduce.cc, compute_norm.cc): f32 for f32/f16/bf16, f64 for f64,
// s64/u64 for integers; LogSumExp shifts by the maximum; ArgMax/ArgMin take the first extreme
// (the last with select_last_index) and count NaN as the extreme; LayerNormalization computes
// the variance in a second pass.
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
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
using tir::IndexConst;
using tir::IntrinsicOp;
using tir::ScalarKind;
using tir::Stmt;

// The accumulator type of a reduction over elements of `t` (the kernels' AccType).
std::optional<DataType> AccType(DataType t) {
  switch (t.kind()) {
    case ScalarKind::kF16:
    case ScalarKind::kBF16:
    case ScalarKind::kF32:
      return DataType::F32();
    case ScalarKind::kF64:
      return DataType::F64();
    default:
      if (t.is_signed_int()) return DataType::S64();
      if (t.is_unsigned_int()) return DataType(ScalarKind::kU64);
      return std::nullopt;
  }
}

// Loops over the dims of `dims` not in `reduced` around `body(full index, with the reduced
// positions left null)`.
Stmt OuterNest(Builder& b, const std::vector<Expr>& dims, const std::vector<bool>& reduced,
               const std::function<Stmt(std::vector<Expr>&)>& body) {
  std::vector<Expr> kept;
  for (size_t k = 0; k < dims.size(); ++k) {
    if (!reduced[k]) kept.push_back(dims[k]);
  }
  return b.Nest(kept, "i", [&](const std::vector<Expr>& vars) {
    std::vector<Expr> full(dims.size());
    size_t v = 0;
    for (size_t k = 0; k < dims.size(); ++k) {
      if (!reduced[k]) full[k] = vars[v++];
    }
    return body(full);
  });
}

// Loops over the reduced dims, filling their positions of `index`, around `body(index)`.
Stmt InnerNest(Builder& b, const std::vector<Expr>& dims, const std::vector<bool>& reduced,
               const std::vector<Expr>& outer,
               const std::function<Stmt(const std::vector<Expr>&)>& body) {
  std::vector<Expr> extents;
  for (size_t k = 0; k < dims.size(); ++k) {
    if (reduced[k]) extents.push_back(dims[k]);
  }
  return b.Nest(extents, "r", [&](const std::vector<Expr>& vars) {
    std::vector<Expr> full = outer;
    size_t v = 0;
    for (size_t k = 0; k < dims.size(); ++k) {
      if (reduced[k]) full[k] = vars[v++];
    }
    return body(full);
  });
}

// The output subscripts of a reduction for the input's kept subscripts: with keepdims the
// reduced positions are 0, without they are dropped.
std::vector<Expr> OutputIndex(const std::vector<Expr>& outer, const std::vector<bool>& reduced,
                              bool keepdims) {
  std::vector<Expr> out;
  for (size_t k = 0; k < outer.size(); ++k) {
    if (!reduced[k]) {
      out.push_back(outer[k]);
    } else if (keepdims) {
      out.push_back(IndexConst(0));
    }
  }
  return out;
}

Expr Extreme(Builder& b, DataType acc, DataType element, bool lowest) {
  if (acc.is_float()) {
    const double inf = std::numeric_limits<double>::infinity();
    return b.Const(acc, lowest ? -inf : inf);
  }
  // The element type's own extreme, as the accumulator holds it.
  Expr e = b.Const(element, lowest ? -1e300 : 1e300);  // saturates to lowest / max
  return b.Cast(acc, e);
}

absl::Status Reduce(NodeLowering& n) {
  const std::string& op = n.node().op_type();
  const Expr& x = n.input(0);
  const Expr& y = n.output(0);
  std::optional<DataType> acc_type = AccType(x.type());
  if (!acc_type) return n.Unimplemented(absl::StrCat("reducing ", x.type().ToString()));
  const DataType a = *acc_type;
  const std::vector<Expr>& dims = NodeLowering::TensorDims(x);
  std::vector<bool> reduced(dims.size(), false);
  for (int64_t axis : n.facts().axes) reduced[axis] = true;
  const bool keepdims = NodeLowering::TensorDims(y).size() == dims.size();
  // Axes read from a runtime input are no fact, though the output's dims may be known (a rank-0
  // output of a rank-1 input): the kernel reduces.
  const size_t kept = static_cast<size_t>(std::count(reduced.begin(), reduced.end(), false));
  if (!keepdims && kept != NodeLowering::TensorDims(y).size()) {
    return n.Unimplemented("the axes are known only at run time");
  }
  Builder& b = n.b();
  auto load = [&](const std::vector<Expr>& i) { return b.Cast(a, b.Load(x, i)); };
  // The count of reduced elements, for Mean.
  Expr count = IndexConst(1);
  for (size_t k = 0; k < dims.size(); ++k) {
    if (reduced[k]) count = b.Mul(count, dims[k]);
  }
  const bool is_float = a.is_float();
  n.Emit(OuterNest(b, dims, reduced, [&](std::vector<Expr>& outer) -> Stmt {
    std::vector<Stmt> body;
    Expr acc = b.Var("acc", a);
    auto fold = [&](const std::function<Expr(const Expr&, const Expr&)>& combine, Expr init,
                    const std::function<Expr(const Expr&)>& transform) {
      body.push_back(b.Define(acc, init));
      body.push_back(InnerNest(b, dims, reduced, outer, [&](const std::vector<Expr>& i) {
        return b.Assign(acc, combine(acc, transform(load(i))));
      }));
    };
    auto identity = [](const Expr& v) { return v; };
    auto add = [&](const Expr& p, const Expr& q) { return b.Add(p, q); };
    Expr result;
    if (op == "ReduceSum" || op == "ReduceMean") {
      fold(add, b.Zero(a), identity);
      result = op == "ReduceSum" ? acc : b.Div(acc, b.Cast(a, count));
    } else if (op == "ReduceMax" || op == "ReduceMin") {
      const bool max = op == "ReduceMax";
      fold([&](const Expr& p, const Expr& q) { return max ? b.Max(p, q) : b.Min(p, q); },
           Extreme(b, a, x.type(), max), identity);
      result = acc;
    } else if (op == "ReduceProd") {
      fold([&](const Expr& p, const Expr& q) { return b.Mul(p, q); }, b.One(a), identity);
      result = acc;
    } else if (op == "ReduceSumSquare" || op == "ReduceL2") {
      fold(add, b.Zero(a), [&](const Expr& v) { return b.Mul(v, v); });
      result = acc;
      if (op == "ReduceL2") {
        result = is_float ? b.Call(IntrinsicOp::kSqrt, {acc})
                          : b.Cast(a, b.Call(IntrinsicOp::kSqrt, {b.Cast(DataType::F64(), acc)}));
      }
    } else if (op == "ReduceL1") {
      fold(add, b.Zero(a), [&](const Expr& v) { return b.Call(IntrinsicOp::kAbs, {v}); });
      result = acc;
    } else if (op == "ReduceLogSum") {
      fold(add, b.Zero(a), identity);
      result = is_float ? b.Call(IntrinsicOp::kLog, {acc})
                        : b.Cast(a, b.Call(IntrinsicOp::kLog, {b.Cast(DataType::F64(), acc)}));
    } else if (op == "ReduceLogSumExp") {
      fold([&](const Expr& p, const Expr& q) { return b.Max(p, q); }, Extreme(b, a, x.type(), true),
           identity);
      if (!is_float) {
        result = acc;  // the kernels' integer LogSumExp is the maximum
      } else {
        // shift = the maximum when finite; sum exp(x - shift); shift + log(sum).
        Expr finite =
            b.Not(b.Or(b.Call(IntrinsicOp::kIsInf, {acc}), b.Call(IntrinsicOp::kIsNaN, {acc})));
        Expr shift = b.Var("shift", a);
        body.push_back(b.Define(shift, b.Select(finite, acc, b.Zero(a))));
        Expr sum = b.Var("sum", a);
        body.push_back(b.Define(sum, b.Zero(a)));
        body.push_back(InnerNest(b, dims, reduced, outer, [&](const std::vector<Expr>& i) {
          return b.Assign(sum, b.Add(sum, b.Call(IntrinsicOp::kExp, {b.Sub(load(i), shift)})));
        }));
        result = b.Select(finite, b.Add(shift, b.Call(IntrinsicOp::kLog, {sum})), acc);
      }
    } else {
      return Stmt();
    }
    body.push_back(b.Store(y, OutputIndex(outer, reduced, keepdims), b.Cast(y.type(), result)));
    return tir::MakeBlock(std::move(body));
  }));
  return b.status();
}

absl::Status ArgExtreme(NodeLowering& n) {
  const bool max = n.node().op_type() == "ArgMax";
  const bool select_last = n.node().GetInt("select_last_index", 0) != 0;
  const Expr& x = n.input(0);
  const Expr& y = n.output(0);
  if (n.facts().axes.size() != 1) return n.Unimplemented("no axis");
  const size_t axis = static_cast<size_t>(n.facts().axes[0]);
  DataType c = x.type();
  if (c.kind() == ScalarKind::kF16 || c.kind() == ScalarKind::kBF16) c = DataType::F32();
  if (!c.is_arithmetic()) return n.Unimplemented("non-numeric elements");
  const std::vector<Expr>& dims = NodeLowering::TensorDims(x);
  std::vector<bool> reduced(dims.size(), false);
  reduced[axis] = true;
  const bool keepdims = NodeLowering::TensorDims(y).size() == dims.size();
  Builder& b = n.b();
  const std::string message =
      absl::StrCat(n.node().Describe(), ": cannot take an arg-extremum over an empty axis");
  n.Emit(OuterNest(b, dims, reduced, [&](std::vector<Expr>& outer) -> Stmt {
    std::vector<Expr> first = outer;
    first[axis] = IndexConst(0);
    Expr best = b.Var("best", c), at = b.Var("at", DataType::Index());
    std::vector<Stmt> body = {b.Assert(b.Gt(dims[axis], IndexConst(0)), message),
                              b.Define(best, b.Cast(c, b.Load(x, first))),
                              b.Define(at, IndexConst(0))};
    Expr a = b.Var("a", DataType::Index());
    std::vector<Expr> i = outer;
    i[axis] = a;
    Expr v = b.Cast(c, b.Load(x, i));
    Expr ordered =
        select_last ? (max ? b.Ge(v, best) : b.Le(v, best)) : (max ? b.Gt(v, best) : b.Lt(v, best));
    Expr better = ordered;
    if (c.is_float()) {
      // NaN is the extreme: the first NaN wins (the last with select_last_index).
      Expr best_nan = b.Call(IntrinsicOp::kIsNaN, {best});
      Expr v_nan = b.Call(IntrinsicOp::kIsNaN, {v});
      better = b.Select(best_nan, select_last ? v_nan : b.Bool(false),
                        b.Select(v_nan, b.Bool(true), ordered));
    }
    body.push_back(b.For(a, IndexConst(1), dims[axis],
                         b.If(better, tir::MakeBlock({b.Assign(best, v), b.Assign(at, a)}))));
    body.push_back(b.Store(y, OutputIndex(outer, reduced, keepdims), b.Cast(y.type(), at)));
    return tir::MakeBlock(std::move(body));
  }));
  return b.status();
}

// Softmax and LogSoftmax: per row, the maximum, the sum of exp(x - max), then the outputs.
// Softmax into a float output of the computation's type stores exp(x - max) first and scales it.
absl::Status SoftmaxFamily(NodeLowering& n) {
  const bool log = n.node().op_type() == "LogSoftmax";
  const Expr& x = n.input(0);
  const Expr& y = n.output(0);
  if (!x.type().is_float()) return n.Unimplemented("non-float elements");
  if (n.facts().axes.size() != 1) return n.Unimplemented("no axis");
  const DataType c = x.type().kind() == ScalarKind::kF64 ? DataType::F64() : DataType::F32();
  const std::vector<Expr>& dims = NodeLowering::TensorDims(x);
  const size_t axis = static_cast<size_t>(n.facts().axes[0]);
  if (axis >= dims.size()) return n.Unimplemented("an axis past the last dim");
  // Before opset 13 the input is coerced to 2-D at `axis`: every dim from it is the row.
  std::vector<bool> reduced(dims.size(), false);
  for (size_t k = axis; k < dims.size(); ++k) reduced[k] = n.opset() < 13 || k == axis;
  Builder& b = n.b();
  n.Emit(OuterNest(b, dims, reduced, [&](std::vector<Expr>& outer) -> Stmt {
    auto load = [&](const std::vector<Expr>& i) { return b.Cast(c, b.Load(x, i)); };
    Expr m = b.Var("max", c), s = b.Var("sum", c);
    std::vector<Stmt> body;
    body.push_back(b.Define(m, b.Const(c, -std::numeric_limits<double>::infinity())));
    body.push_back(InnerNest(b, dims, reduced, outer, [&](const std::vector<Expr>& i) {
      return b.Assign(m, b.Max(m, load(i)));
    }));
    if (!log && y.type() == c) {
      // y = exp(x - max) once, summed from y, then scaled by 1 / sum (as the runtime's kernel):
      // one exp per element instead of two.
      body.push_back(InnerNest(b, dims, reduced, outer, [&](const std::vector<Expr>& i) {
        return b.Store(y, i, b.Call(IntrinsicOp::kExp, {b.Sub(load(i), m)}));
      }));
      body.push_back(b.Define(s, b.Zero(c)));
      body.push_back(InnerNest(b, dims, reduced, outer, [&](const std::vector<Expr>& i) {
        return b.Assign(s, b.Add(s, b.Load(y, i)));
      }));
      Expr inv = b.Var("inv", c);
      body.push_back(b.Define(inv, b.Div(b.One(c), s)));
      body.push_back(InnerNest(b, dims, reduced, outer, [&](const std::vector<Expr>& i) {
        return b.Store(y, i, b.Mul(b.Load(y, i), inv));
      }));
      return tir::MakeBlock(std::move(body));
    }
    body.push_back(b.Define(s, b.Zero(c)));
    body.push_back(InnerNest(b, dims, reduced, outer, [&](const std::vector<Expr>& i) {
      return b.Assign(s, b.Add(s, b.Call(IntrinsicOp::kExp, {b.Sub(load(i), m)})));
    }));
    body.push_back(InnerNest(b, dims, reduced, outer, [&](const std::vector<Expr>& i) {
      Expr v = log ? b.Sub(load(i), b.Add(m, b.Call(IntrinsicOp::kLog, {s})))
                   : b.Div(b.Call(IntrinsicOp::kExp, {b.Sub(load(i), m)}), s);
      return b.Store(y, i, b.Cast(y.type(), v));
    }));
    return tir::MakeBlock(std::move(body));
  }));
  return b.status();
}

absl::Status LayerNormalization(NodeLowering& n) {
  const Expr& x = n.input(0);
  if (!x.type().is_float()) return n.Unimplemented("non-float elements");
  if (n.facts().axes.size() != 1) return n.Unimplemented("no axis");
  if (!n.has_input(1)) return n.Error("missing input Scale");
  const DataType c = x.type().kind() == ScalarKind::kF64 ? DataType::F64() : DataType::F32();
  const std::vector<Expr>& dims = NodeLowering::TensorDims(x);
  const size_t axis = static_cast<size_t>(n.facts().axes[0]);
  for (int i : {1, 2}) {
    if (n.has_input(i) && n.input_dims(i).size() > dims.size() - axis) {
      return n.Unimplemented("a scale or bias with more dims than the normalized shape");
    }
  }
  std::vector<bool> reduced(dims.size(), false);
  for (size_t k = axis; k < dims.size(); ++k) reduced[k] = true;
  Builder& b = n.b();
  Expr count = IndexConst(1);
  for (size_t k = axis; k < dims.size(); ++k) count = b.Mul(count, dims[k]);
  const Expr epsilon = b.Const(c, n.node().GetFloat("epsilon", 1e-5f));
  const Expr& y = n.output(0);
  n.Emit(OuterNest(b, dims, reduced, [&](std::vector<Expr>& outer) -> Stmt {
    auto load = [&](const Expr& t, const std::vector<Expr>& i) { return b.Cast(c, b.Load(t, i)); };
    Expr sum = b.Var("sum", c), mean = b.Var("mean", c), sq = b.Var("sq", c), inv = b.Var("inv", c);
    const Expr cnt = b.Cast(c, count);
    std::vector<Stmt> body;
    body.push_back(b.Define(sum, b.Zero(c)));
    body.push_back(InnerNest(b, dims, reduced, outer, [&](const std::vector<Expr>& i) {
      return b.Assign(sum, b.Add(sum, load(x, i)));
    }));
    // An empty row has mean and variance 0 (the kernel's choice).
    const Expr empty = b.Eq(count, IndexConst(0));
    body.push_back(b.Define(mean, b.Select(empty, b.Zero(c), b.Div(sum, cnt))));
    body.push_back(b.Define(sq, b.Zero(c)));
    body.push_back(InnerNest(b, dims, reduced, outer, [&](const std::vector<Expr>& i) {
      Expr d = b.Sub(load(x, i), mean);
      return b.Assign(sq, b.Add(sq, b.Mul(d, d)));
    }));
    Expr var = b.Select(empty, b.Zero(c), b.Div(sq, cnt));
    body.push_back(
        b.Define(inv, b.Div(b.One(c), b.Call(IntrinsicOp::kSqrt, {b.Add(var, epsilon)}))));
    body.push_back(InnerNest(b, dims, reduced, outer, [&](const std::vector<Expr>& i) {
      Expr v = b.Mul(b.Mul(b.Sub(load(x, i), mean), inv), load(n.input(1), n.BroadcastIndex(1, i)));
      if (n.has_input(2)) v = b.Add(v, load(n.input(2), n.BroadcastIndex(2, i)));
      return b.Store(y, i, b.Cast(y.type(), v));
    }));
    std::vector<Expr> stat = outer;
    for (size_t k = axis; k < dims.size(); ++k) stat[k] = IndexConst(0);
    if (n.num_outputs() > 1 && n.has_output(1)) {
      body.push_back(b.Store(n.output(1), stat, b.Cast(n.output_type(1), mean)));
    }
    if (n.num_outputs() > 2 && n.has_output(2)) {
      body.push_back(b.Store(n.output(2), stat, b.Cast(n.output_type(2), inv)));
    }
    return tir::MakeBlock(std::move(body));
  }));
  return b.status();
}

}  // namespace

// Sorted by op type.
const LowerRule kReduceLowerRules[] = {
    {"", "ArgMax", &ArgExtreme},
    {"", "ArgMin", &ArgExtreme},
    {"", "LayerNormalization", &LayerNormalization},
    {"", "LogSoftmax", &SoftmaxFamily},
    {"", "ReduceL1", &Reduce},
    {"", "ReduceL2", &Reduce},
    {"", "ReduceLogSum", &Reduce},
    {"", "ReduceLogSumExp", &Reduce},
    {"", "ReduceMax", &Reduce},
    {"", "ReduceMean", &Reduce},
    {"", "ReduceMin", &Reduce},
    {"", "ReduceProd", &Reduce},
    {"", "ReduceSum", &Reduce},
    {"", "ReduceSumSquare", &Reduce},
    {"", "Softmax", &SoftmaxFamily},
    {"", nullptr, nullptr},
};

}  // namespace anvil::lower
