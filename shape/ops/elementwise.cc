// ShapeHelpers of the element-wise family: ops whose outputs have the shape of an input (unary
// math, activations, casts, quantization) or the multidirectional broadcast of their inputs
// (arithmetic, comparisons, logic, Where). The normalizations with extra outputs
// (BatchNormalization, LayerNormalization, Dropout) are in elementwise_norm.cc.
//
// Value propagation: shape computations (Shape -> Gather -> Mul -> Concat -> Reshape) run through
// these ops on small integer tensors, so for them the rules also compute the output's `values`
// from the inputs' ones, exactly (IndexExpr arithmetic), element by element under broadcasting.
#include "shape/ops/elementwise.h"

#include <cctype>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/algorithm/container.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "base/absl_compat.h"
#include "base/status_macros.h"
#include "graph/element_type.h"
#include "shape/ops/op_util.h"
#include "shape/shape_rules.h"
#include "shape/tensor_info.h"

namespace anvil {
namespace shape_ops::elementwise {

std::optional<ElementType> ElementTypeFromAttr(int64_t value) {
  if (value < 0 || value > std::numeric_limits<int32_t>::max() ||
      !IsValidElementType(static_cast<int32_t>(value))) {
    return std::nullopt;
  }
  return static_cast<ElementType>(value);
}

}  // namespace shape_ops::elementwise

namespace {

using shape_ops::BroadcastInputs;
using shape_ops::elementwise::ElementTypeFromAttr;

// Contents of bigger tensors are data rather than shape computations: not tracked.
constexpr int64_t kMaxValues = kMaxTrackedValues;

// ---------------------------------------------------------------------------------------------
// Element types
// ---------------------------------------------------------------------------------------------

// Value range of an integer type, for deciding whether a literal survives a Cast or fits the
// output. uint64's upper half is not representable as an int64 literal and is left out.
std::pair<int64_t, int64_t> IntegerRange(ElementType t) {
  switch (t) {
    case ElementType::kInt8:
      return {INT8_MIN, INT8_MAX};
    case ElementType::kInt16:
      return {INT16_MIN, INT16_MAX};
    case ElementType::kInt32:
      return {INT32_MIN, INT32_MAX};
    case ElementType::kUint8:
      return {0, UINT8_MAX};
    case ElementType::kUint16:
      return {0, UINT16_MAX};
    case ElementType::kUint32:
      return {0, UINT32_MAX};
    case ElementType::kUint64:
      return {0, INT64_MAX};
    case ElementType::kBool:
      return {0, 1};
    default:
      return {INT64_MIN, INT64_MAX};
  }
}

// The type shared by the inputs of a type variable: the first of `inputs` whose type is known.
ElementType FirstKnownType(const ShapeContext& ctx, std::initializer_list<int> inputs) {
  for (int i : inputs) {
    ElementType t = ctx.InputType(i);
    if (t != ElementType::kUndefined) return t;
  }
  return ElementType::kUndefined;
}

// An element type given by an int attribute (Cast's `to`, EyeLike's `dtype`, ...), `fallback`
// when the attribute is absent.
absl::StatusOr<ElementType> TypeAttr(const ShapeContext& ctx, std::string_view name,
                                     ElementType fallback) {
  const Attribute* attr = ctx.node().FindAttribute(name);
  if (attr == nullptr) return fallback;
  std::optional<ElementType> type = ElementTypeFromAttr(attr->i);
  if (!type) {
    return ctx.Error(
        absl::StrCat("attribute ", AsAbsl(name), " = ", attr->i, " is not an element type"));
  }
  return *type;
}

// ---------------------------------------------------------------------------------------------
// Value propagation
// ---------------------------------------------------------------------------------------------

// Computes one output element from the corresponding (broadcast) input elements. An undefined
// result (overflow, division by zero, nothing exact to say) makes that element a questionmark.
using ElementFn = IndexExpr (*)(const ShapeContext& ctx, absl::Span<const IndexExpr> args);
using ElementFunction = std::function<IndexExpr(absl::Span<const IndexExpr> args)>;

const IndexExpr& Unknown() {
  static const IndexExpr* const kUnknown = new IndexExpr(IndexExpr::Undefined("not exact"));
  return *kUnknown;
}

bool IsTrue(const IndexExpr& predicate) { return predicate.IsKnown() && predicate.literal() == 1; }

// A decided predicate as a bool tensor element (1 or 0).
IndexExpr BoolValue(const IndexExpr& predicate) {
  return predicate.IsKnown() ? IndexExpr(predicate.literal() != 0 ? 1 : 0) : Unknown();
}

int64_t Product(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

// Sets output 0's `values` to `fn` applied element-wise to the values of `inputs`, broadcast
// (numpy rules) to output 0's dims. Nothing happens unless output 0 is a small integer or bool
// tensor with literal dims and every input has values (but for inputs in `may_lack_values`,
// whose elements are then questionmarks). A literal result outside the output type's range (the
// runtime would wrap) is not trusted either.
void PropagateValues(ShapeContext& ctx, const std::vector<int>& inputs, const ElementFunction& fn,
                     absl::Span<const int> may_lack_values = {}) {
  if (ctx.num_outputs() == 0) return;
  TensorInfo& out = ctx.output(0);
  if (!IsIntegerType(out.type) && out.type != ElementType::kBool) return;
  std::optional<std::vector<int64_t>> out_dims = out.dims ? LiteralDims(*out.dims) : std::nullopt;
  if (!out_dims) return;
  const int64_t count = Product(*out_dims);
  if (count > kMaxValues) return;
  const int64_t rank = static_cast<int64_t>(out_dims->size());

  // Each operand's element offset per output axis: its row-major stride, 0 where it broadcasts.
  struct Operand {
    IndexExprList values;
    std::vector<int64_t> strides;
  };
  std::vector<Operand> operands;
  for (int i : inputs) {
    if (!ctx.HasInput(i)) return;
    TensorInfo in = ctx.Input(i);
    std::optional<std::vector<int64_t>> dims = in.dims ? LiteralDims(*in.dims) : std::nullopt;
    if (!in.values && dims && Product(*dims) <= kMaxValues &&
        absl::c_linear_search(may_lack_values, i)) {
      in.values = IndexExprList(Product(*dims), IndexExpr::Questionmark());
    }
    if (!in.values || !dims || static_cast<int64_t>(dims->size()) > rank ||
        static_cast<int64_t>(in.values->size()) != Product(*dims)) {
      return;
    }
    Operand operand{*std::move(in.values), std::vector<int64_t>(rank, 0)};
    int64_t stride = 1;
    for (int64_t k = static_cast<int64_t>(dims->size()) - 1; k >= 0; --k) {
      const int64_t axis = rank - static_cast<int64_t>(dims->size()) + k;
      const int64_t d = (*dims)[k];
      if (d != 1) {
        if (d != (*out_dims)[axis]) return;
        operand.strides[axis] = stride;
      }
      stride *= d;
    }
    operands.push_back(std::move(operand));
  }

  const auto [lo, hi] = IntegerRange(out.type);
  IndexExprList values;
  values.reserve(count);
  IndexExprList args(operands.size());
  for (int64_t flat = 0; flat < count; ++flat) {
    int64_t rest = flat;
    std::vector<int64_t> offsets(operands.size(), 0);
    for (int64_t axis = rank - 1; axis >= 0; --axis) {
      const int64_t index = rest % (*out_dims)[axis];
      rest /= (*out_dims)[axis];
      for (size_t j = 0; j < operands.size(); ++j) offsets[j] += index * operands[j].strides[axis];
    }
    for (size_t j = 0; j < operands.size(); ++j) args[j] = operands[j].values[offsets[j]];
    IndexExpr v = fn(args);
    if (v.IsUndefined() || (v.IsLiteral() && (v.literal() < lo || v.literal() > hi))) {
      v = IndexExpr::Questionmark();
    }
    values.push_back(std::move(v));
  }
  out.values = std::move(values);
}

void PropagateValues(ShapeContext& ctx, const std::vector<int>& inputs, ElementFn fn) {
  if (fn == nullptr) return;
  PropagateValues(ctx, inputs, ElementFunction([&ctx, fn](absl::Span<const IndexExpr> args) {
                    return fn(ctx, args);
                  }));
}

IndexExpr AddValues(const ShapeContext&, absl::Span<const IndexExpr> args) {
  return args[0] + args[1];
}
IndexExpr SubValues(const ShapeContext&, absl::Span<const IndexExpr> args) {
  return args[0] - args[1];
}
IndexExpr MulValues(const ShapeContext&, absl::Span<const IndexExpr> args) {
  return args[0] * args[1];
}
IndexExpr SumValues(const ShapeContext&, absl::Span<const IndexExpr> args) {
  IndexExpr sum = 0;
  for (const IndexExpr& a : args) sum += a;
  return sum;
}
IndexExpr MaxValues(const ShapeContext&, absl::Span<const IndexExpr> args) { return Max(args); }
IndexExpr MinValues(const ShapeContext&, absl::Span<const IndexExpr> args) { return Min(args); }

// a / b rounded toward zero, as ONNX's integer Div does. Exact only with a literal divisor and a
// numerator of known sign: then truncation is floor division of the magnitudes (IndexExpr's
// division is floor division, which differs for negative quotients).
IndexExpr TruncDiv(const IndexExpr& a, const IndexExpr& b) {
  if (!b.IsLiteral() || b.literal() == 0 || b.literal() == INT64_MIN) return Unknown();
  const int64_t d = b.literal();
  if (a.IsLiteral()) {
    if (a.literal() == INT64_MIN && d == -1) return Unknown();
    return a.literal() / d;
  }
  const IndexExpr magnitude = d < 0 ? -d : d;
  if (IsTrue(Ge(a, 0))) {
    IndexExpr q = FloorDiv(a, magnitude);
    return d < 0 ? -q : q;
  }
  if (IsTrue(Le(a, 0))) {
    IndexExpr q = FloorDiv(-a, magnitude);
    return d < 0 ? q : -q;
  }
  return Unknown();
}

IndexExpr DivValues(const ShapeContext&, absl::Span<const IndexExpr> args) {
  return TruncDiv(args[0], args[1]);
}

// Integer Mod: with fmod=0 the result takes the divisor's sign (floor modulo, IndexExpr's Mod for
// a positive divisor); with fmod=1 the dividend's (C's %: a - b * trunc(a / b)).
IndexExpr ModValues(const ShapeContext& ctx, absl::Span<const IndexExpr> args) {
  const IndexExpr& a = args[0];
  const IndexExpr& b = args[1];
  if (!b.IsLiteral() || b.literal() == 0 || b.literal() == INT64_MIN) return Unknown();
  if (ctx.node().GetInt("fmod", 0) != 0) return a - b * TruncDiv(a, b);
  return b.literal() > 0 ? Mod(a, b) : -Mod(-a, -b);
}

IndexExpr EqualValues(const ShapeContext&, absl::Span<const IndexExpr> args) {
  return BoolValue(Eq(args[0], args[1]));
}
IndexExpr LessValues(const ShapeContext&, absl::Span<const IndexExpr> args) {
  return BoolValue(Lt(args[0], args[1]));
}
IndexExpr LessOrEqualValues(const ShapeContext&, absl::Span<const IndexExpr> args) {
  return BoolValue(Le(args[0], args[1]));
}
IndexExpr GreaterValues(const ShapeContext&, absl::Span<const IndexExpr> args) {
  return BoolValue(Gt(args[0], args[1]));
}
IndexExpr GreaterOrEqualValues(const ShapeContext&, absl::Span<const IndexExpr> args) {
  return BoolValue(Ge(args[0], args[1]));
}
IndexExpr NegValues(const ShapeContext&, absl::Span<const IndexExpr> args) { return -args[0]; }
// |v| when v's sign is known (always for literals and dims).
IndexExpr AbsValues(const ShapeContext&, absl::Span<const IndexExpr> args) {
  if (IsTrue(Ge(args[0], 0))) return args[0];
  if (IsTrue(Le(args[0], 0))) return -args[0];
  return Unknown();
}
IndexExpr NotValues(const ShapeContext&, absl::Span<const IndexExpr> args) {
  return BoolValue(Eq(args[0], 0));
}

// Where(cond, x, y): decided conditions pick; an undecided one still gives x when x == y.
IndexExpr WhereValues(const ShapeContext&, absl::Span<const IndexExpr> args) {
  const IndexExpr& cond = args[0];
  if (cond.IsKnown()) return cond.literal() != 0 ? args[1] : args[2];
  return args[1] == args[2] ? args[1] : Unknown();
}

// One element converted from `from` to the integer or bool type `to`. Literals convert exactly
// (wrapping like the runtime). Symbolic values are dims or dim arithmetic: they pass to int64
// unchanged, to int32 too (a model that casts its dims to int32 assumes they fit, as every
// exporter of such models does), to unsigned types when known non-negative, and to bool when
// their comparison with 0 is decided.
IndexExpr CastValue(const IndexExpr& v, ElementType from, ElementType to) {
  if (to == ElementType::kBool) return BoolValue(Ne(v, 0));
  if (v.IsLiteral()) {
    const int64_t x = v.literal();
    switch (to) {
      case ElementType::kInt8:
        return static_cast<int8_t>(x);
      case ElementType::kInt16:
        return static_cast<int16_t>(x);
      case ElementType::kInt32:
        return static_cast<int32_t>(x);
      case ElementType::kUint8:
        return static_cast<int64_t>(static_cast<uint8_t>(x));
      case ElementType::kUint16:
        return static_cast<int64_t>(static_cast<uint16_t>(x));
      case ElementType::kUint32:
        return static_cast<int64_t>(static_cast<uint32_t>(x));
      case ElementType::kUint64:
        return x < 0 ? Unknown() : v;  // wraps above INT64_MAX
      default:
        return v;
    }
  }
  if (!IsIntegerType(from)) return Unknown();  // e.g. a float whose rounding is unknown
  switch (to) {
    case ElementType::kInt64:
    case ElementType::kInt32:
      return v;
    case ElementType::kUint32:
    case ElementType::kUint64:
      return IsTrue(Ge(v, 0)) ? v : Unknown();
    default:
      return Unknown();
  }
}

// ---------------------------------------------------------------------------------------------
// Same shape as input 0
// ---------------------------------------------------------------------------------------------

// Unary math, activations, Clip, LRN, ...: output 0 is input 0's type and dims.
absl::Status SameAsInput(ShapeContext& ctx) {
  TensorInfo x = ctx.Input(0);
  ctx.SetOutput(0, x.type, std::move(x.dims));
  return absl::OkStatus();
}

// Neg and Abs of shape values: ONNX's own function bodies compute sizes with them (the expanded
// LayerNormalization makes its statistics' shape with ConstantOfShape(Neg(axis))).
template <ElementFn kValues>
absl::Status SameAsInputWithValues(ShapeContext& ctx) {
  absl::Status status = SameAsInput(ctx);
  if (status.ok()) PropagateValues(ctx, {0}, kValues);
  return status;
}

absl::Status IdentityShape(ShapeContext& ctx) {
  if (ctx.num_outputs() == 0) return absl::OkStatus();
  // Identity also forwards sequences and optionals (opset 14+); their TensorInfo passes as is.
  ctx.output(0) = ctx.Input(0);
  TensorInfo& out = ctx.output(0);
  if (out.values && (!IsIntegerType(out.type) && out.type != ElementType::kBool)) {
    out.values.reset();
  }
  return absl::OkStatus();
}

// Softmax, LogSoftmax, Hardmax: same shape; an explicit `axis` must be in range. Before opset 11
// the axis splits the input into 2-D [a_0*...*a_{k-1}, a_k*...], so k == rank is accepted too.
absl::Status AxisSoftmax(ShapeContext& ctx) {
  const int64_t rank = ctx.InputRank(0);
  if (const Attribute* axis = ctx.node().FindAttribute("axis"); axis != nullptr && rank >= 0) {
    absl::StatusOr<int64_t> normalized =
        ctx.NormalizeAxis(axis->i, ctx.opset() < 11 ? rank + 1 : rank, "axis");
    if (!normalized.ok()) return normalized.status();
  }
  if (ShapeFacts* facts = ctx.facts(); facts != nullptr && rank >= 0) {
    // The default axis: 1 (the 2-D split) before opset 13, the last dim from 13.
    const int64_t axis = ctx.node().GetInt("axis", ctx.opset() < 13 ? 1 : -1);
    absl::StatusOr<int64_t> normalized =
        ctx.NormalizeAxis(axis, ctx.opset() < 13 ? rank + 1 : rank, "axis");
    if (normalized.ok()) facts->axes = {*normalized};
  }
  return SameAsInput(ctx);
}

// CumSum: same shape; a known axis (input 1, a scalar) must be in range.
absl::Status CumSumShape(ShapeContext& ctx) {
  const int64_t rank = ctx.InputRank(0);
  std::optional<std::vector<int64_t>> axis = ctx.InputLiteralValues(1);
  if (axis && axis->size() == 1 && rank >= 0) {
    absl::StatusOr<int64_t> normalized = ctx.NormalizeAxis((*axis)[0], rank, "axis");
    if (!normalized.ok()) return normalized.status();
  }
  return SameAsInput(ctx);
}

// Trilu works on the last two axes.
absl::Status TriluShape(ShapeContext& ctx) {
  const std::optional<DimsExpr>& dims = ctx.InputDims(0);
  if (dims && dims->size() < 2) {
    return ctx.Error(absl::StrCat("input must have rank >= 2, got ", DimsToString(*dims)));
  }
  return SameAsInput(ctx);
}

// ---------------------------------------------------------------------------------------------
// Same shape, other element type
// ---------------------------------------------------------------------------------------------

// Not, IsNaN, IsInf.
template <ElementFn kValues>
absl::Status BoolUnary(ShapeContext& ctx) {
  ctx.SetOutput(0, ElementType::kBool, ctx.InputDims(0));
  PropagateValues(ctx, {0}, kValues);
  return absl::OkStatus();
}

void PropagateCast(ShapeContext& ctx, ElementType to) {
  const ElementType from = ctx.InputType(0);
  PropagateValues(ctx, {0}, ElementFunction([from, to](absl::Span<const IndexExpr> args) {
                    return CastValue(args[0], from, to);
                  }));
}

// Cast: `to` is a TensorProto.DataType number, a name such as "FLOAT" in opset 1.
absl::Status CastShape(ShapeContext& ctx) {
  const Attribute* to = ctx.node().FindAttribute("to");
  if (to == nullptr) return ctx.Error("missing attribute 'to'");
  std::optional<ElementType> type;
  if (to->type() == AttributeType::kString) {
    std::string name = to->s;
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    ElementType t = ElementTypeFromName(name);
    if (t != ElementType::kUndefined) type = t;
  } else {
    type = ElementTypeFromAttr(to->i);
  }
  if (!type) {
    return ctx.Error(absl::StrCat(
        "attribute to = ", to->type() == AttributeType::kString ? to->s : absl::StrCat(to->i),
        " is not an element type"));
  }
  ctx.SetOutput(0, *type, ctx.InputDims(0));
  PropagateCast(ctx, *type);
  return absl::OkStatus();
}

absl::Status CastLikeShape(ShapeContext& ctx) {
  const ElementType type = ctx.InputType(1);
  ctx.SetOutput(0, type, ctx.InputDims(0));
  PropagateCast(ctx, type);
  return absl::OkStatus();
}

// RandomUniformLike, RandomNormalLike, Bernoulli: `dtype`, else the input's type.
absl::Status DtypeOrInputType(ShapeContext& ctx) {
  ANVIL_ASSIGN_OR_RETURN(ElementType type, TypeAttr(ctx, "dtype", ctx.InputType(0)));
  ctx.SetOutput(0, type, ctx.InputDims(0));
  return absl::OkStatus();
}

// EyeLike: a 2-D input only.
absl::Status EyeLikeShape(ShapeContext& ctx) {
  const std::optional<DimsExpr>& dims = ctx.InputDims(0);
  if (dims && dims->size() != 2) {
    return ctx.Error(absl::StrCat("input must be 2-D, got ", DimsToString(*dims)));
  }
  return DtypeOrInputType(ctx);
}

// QuantizeLinear: y has x's shape and y_zero_point's type (uint8 without one). From opset 13 a
// 1-D y_scale quantizes per `axis`, which must be in range and match that dim.
absl::Status QuantizeShape(ShapeContext& ctx, ElementType type) {
  const std::optional<DimsExpr>& x = ctx.InputDims(0);
  const std::optional<DimsExpr>& scale = ctx.InputDims(1);
  if ((ctx.opset() >= 13 || ctx.node().domain() == "com.microsoft") && x && scale &&
      scale->size() == 1) {
    ANVIL_ASSIGN_OR_RETURN(
        int64_t axis,
        ctx.NormalizeAxis(ctx.node().GetInt("axis", 1), static_cast<int64_t>(x->size()), "axis"));
    const IndexExpr& n = (*scale)[0];
    const IndexExpr& d = (*x)[axis];
    if (n.IsLiteral() && d.IsLiteral() && n.literal() != 1 && n.literal() != d.literal()) {
      return ctx.Error(absl::StrCat("scale ", DimsToString(*scale), " does not match axis ", axis,
                                    " of ", DimsToString(*x)));
    }
  }
  ctx.SetOutput(0, type, x);
  return absl::OkStatus();
}

// Without a zero point, y is uint8, or (opset 21) of type `output_dtype`.
absl::Status QuantizeLinearShape(ShapeContext& ctx) {
  if (ctx.HasInput(2)) return QuantizeShape(ctx, ctx.InputType(2));
  const int64_t dtype =
      ctx.node().domain().empty() && ctx.opset() >= 21 ? ctx.node().GetInt("output_dtype", 0) : 0;
  if (dtype == 0) return QuantizeShape(ctx, ElementType::kUint8);
  if (dtype < 0 || dtype > std::numeric_limits<int32_t>::max() ||
      !IsValidElementType(static_cast<int32_t>(dtype))) {
    return ctx.Error(absl::StrCat("output_dtype ", dtype, " is not a tensor element type"));
  }
  return QuantizeShape(ctx, static_cast<ElementType>(dtype));
}

// y is float; from opset 19 of x_scale's type, from 23 of `output_dtype` when given.
absl::Status DequantizeLinearShape(ShapeContext& ctx) {
  if (!ctx.node().domain().empty() || ctx.opset() < 19) {
    return QuantizeShape(ctx, ElementType::kFloat);
  }
  const int64_t dtype = ctx.opset() >= 23 ? ctx.node().GetInt("output_dtype", 0) : 0;
  if (dtype == 0) return QuantizeShape(ctx, ctx.InputType(1));
  if (dtype < 0 || dtype > std::numeric_limits<int32_t>::max() ||
      !IsValidElementType(static_cast<int32_t>(dtype))) {
    return ctx.Error(absl::StrCat("output_dtype ", dtype, " is not a tensor element type"));
  }
  return QuantizeShape(ctx, static_cast<ElementType>(dtype));
}

// DynamicQuantizeLinear: y (uint8, x's shape), y_scale (float scalar), y_zero_point (uint8
// scalar).
absl::Status DynamicQuantizeLinearShape(ShapeContext& ctx) {
  ctx.SetOutput(0, ElementType::kUint8, ctx.InputDims(0));
  ctx.SetOutput(1, ElementType::kFloat, DimsExpr{});
  ctx.SetOutput(2, ElementType::kUint8, DimsExpr{});
  return absl::OkStatus();
}

// ---------------------------------------------------------------------------------------------
// Broadcasting
// ---------------------------------------------------------------------------------------------

std::vector<int> AllInputs(const ShapeContext& ctx) {
  std::vector<int> inputs;
  for (int i = 0; i < ctx.num_inputs(); ++i) inputs.push_back(i);
  return inputs;
}

// Output 0 = the multidirectional broadcast of `inputs`, with `type`; then its values.
absl::Status Broadcast(ShapeContext& ctx, const std::vector<int>& inputs, ElementType type,
                       ElementFn values) {
  ANVIL_ASSIGN_OR_RETURN(std::optional<DimsExpr> dims, BroadcastInputs(ctx, inputs));
  ctx.SetOutput(0, type, std::move(dims));
  PropagateValues(ctx, inputs, values);
  return absl::OkStatus();
}

// Before opset 7, binary ops broadcast only B into A, and only with broadcast=1 (B a suffix of
// A's shape, or matching A's dims from `axis`), so the output has A's shape; without
// broadcast=1 the two shapes must be equal.
absl::Status LegacyBinary(ShapeContext& ctx, ElementType type, ElementFn values) {
  std::optional<DimsExpr> a = ctx.InputDims(0);
  const std::optional<DimsExpr>& b = ctx.InputDims(1);
  const bool broadcast = ctx.node().GetInt("broadcast", 0) != 0;
  if (!broadcast && a && b) {
    bool equal = a->size() == b->size();
    for (size_t k = 0; equal && k < a->size(); ++k) {
      const IndexExpr& x = (*a)[k];
      const IndexExpr& y = (*b)[k];
      equal = !(x.IsLiteral() && y.IsLiteral() && x.literal() != y.literal());
    }
    if (!equal) {
      return ctx.Error(absl::StrCat("shapes ", DimsToString(*a), " and ", DimsToString(*b),
                                    " differ and broadcast is not set"));
    }
  }
  if (!a && !broadcast) a = b;
  ctx.SetOutput(0, type, std::move(a));
  // Suffix matching is numpy broadcasting into A's shape; an `axis` aligns B elsewhere.
  if (ctx.node().FindAttribute("axis") == nullptr) PropagateValues(ctx, {0, 1}, values);
  return absl::OkStatus();
}

// Add, Sub, Mul, Div, Pow, Mod, BitShift: the inputs' type.
template <ElementFn kValues>
absl::Status Arithmetic(ShapeContext& ctx) {
  const ElementType type = FirstKnownType(ctx, {0, 1});
  if (ctx.opset() < 7) return LegacyBinary(ctx, type, kValues);
  return Broadcast(ctx, {0, 1}, type, kValues);
}

// Comparisons and And, Or, Xor: bool.
template <ElementFn kValues>
absl::Status Predicate(ShapeContext& ctx) {
  if (ctx.opset() < 7) return LegacyBinary(ctx, ElementType::kBool, kValues);
  return Broadcast(ctx, {0, 1}, ElementType::kBool, kValues);
}

// Sum, Mean, Max, Min: any number of inputs (all of one shape before opset 8, which
// broadcasting accepts too).
template <ElementFn kValues>
absl::Status Variadic(ShapeContext& ctx) {
  const std::vector<int> inputs = AllInputs(ctx);
  ElementType type = ElementType::kUndefined;
  for (int i : inputs) {
    if (type == ElementType::kUndefined) type = ctx.InputType(i);
  }
  return Broadcast(ctx, inputs, type, kValues);
}

// Where(condition, X, Y): X's type. On shape values, an element whose condition is undecided
// and whose choices are both non-negative (dims, counts) is data-dependent: a symbol in the
// union of the two ranges, as If joins its branches' dims, not a questionmark.
absl::Status WhereShape(ShapeContext& ctx) {
  ANVIL_ASSIGN_OR_RETURN(std::optional<DimsExpr> dims, BroadcastInputs(ctx, {0, 1, 2}));
  ctx.SetOutput(0, FirstKnownType(ctx, {1, 2}), std::move(dims));
  int64_t element = 0;  // PropagateValues computes the elements in row-major order
  PropagateValues(
      ctx, {0, 1, 2},
      [&](absl::Span<const IndexExpr> args) {
        const int64_t k = element++;
        IndexExpr picked = WhereValues(ctx, args);
        if (!picked.IsUndefined()) return picked;
        const IndexExpr& x = args[1];
        const IndexExpr& y = args[2];
        if (x.IsQuestionmark() || y.IsQuestionmark() || !IsTrue(Ge(x, 0)) || !IsTrue(Ge(y, 0))) {
          return picked;
        }
        const IndexExpr symbol = ctx.DataDependentDim(absl::StrCat("e", k), Min(x, y), Max(x, y));
        return symbol.IsQuestionmark() ? picked : symbol;
      },
      /*may_lack_values=*/{0});
  return absl::OkStatus();
}

// PRelu: slope broadcasts into X one way (unidirectional from opset 7; before, it had X's shape
// or one element), so Y has X's shape.
absl::Status PReluShape(ShapeContext& ctx) {
  TensorInfo x = ctx.Input(0);
  const std::optional<DimsExpr>& slope = ctx.InputDims(1);
  if (ctx.opset() >= 7 && x.dims && slope) {
    bool ok = slope->size() <= x.dims->size();
    for (size_t k = 0; ok && k < slope->size(); ++k) {
      const IndexExpr& s = (*slope)[slope->size() - 1 - k];
      const IndexExpr& d = (*x.dims)[x.dims->size() - 1 - k];
      ok = !(s.IsLiteral() && s.literal() != 1 && d.IsLiteral() && d.literal() != s.literal());
    }
    if (!ok) {
      return ctx.Error(absl::StrCat("slope ", DimsToString(*slope), " does not broadcast to X ",
                                    DimsToString(*x.dims)));
    }
  }
  ctx.SetOutput(0, x.type, std::move(x.dims));
  return absl::OkStatus();
}

}  // namespace

namespace shape_rules {

// Every ONNX-domain op of the family, with the opsets its rule covers (from the op's first
// version; rules check ctx.opset() where versions differ). Sorted by op_type.
const ShapeRule kElementwiseRules[] = {
    {"", "Abs", &SameAsInputWithValues<&AbsValues>},
    {"", "Acos", &SameAsInput},
    {"", "Acosh", &SameAsInput},
    {"", "Add", &Arithmetic<&AddValues>},
    {"", "And", &Predicate<nullptr>},
    {"", "Asin", &SameAsInput},
    {"", "Asinh", &SameAsInput},
    {"", "Atan", &SameAsInput},
    {"", "Atanh", &SameAsInput},
    {"", "BatchNormalization", &shape_ops::elementwise::BatchNormalizationShape},
    {"", "Bernoulli", &DtypeOrInputType},
    {"", "BitShift", &Arithmetic<nullptr>},
    {"", "BitwiseAnd", &Arithmetic<nullptr>},
    {"", "BitwiseNot", &SameAsInput},
    {"", "BitwiseOr", &Arithmetic<nullptr>},
    {"", "BitwiseXor", &Arithmetic<nullptr>},
    {"", "Cast", &CastShape},
    {"", "CastLike", &CastLikeShape},
    {"", "Ceil", &SameAsInput},
    {"", "Celu", &SameAsInput},
    {"", "Clip", &SameAsInput},  // min/max: attributes before 11, scalar inputs after
    {"", "Cos", &SameAsInput},
    {"", "Cosh", &SameAsInput},
    {"", "CumSum", &CumSumShape},
    {"", "DequantizeLinear", &DequantizeLinearShape},
    {"", "Div", &Arithmetic<&DivValues>},
    {"", "Dropout", &shape_ops::elementwise::DropoutShape},
    {"", "DynamicQuantizeLinear", &DynamicQuantizeLinearShape},
    {"", "Elu", &SameAsInput},
    {"", "Equal", &Predicate<&EqualValues>},
    {"", "Erf", &SameAsInput},
    {"", "Exp", &SameAsInput},
    {"", "EyeLike", &EyeLikeShape},
    {"", "Floor", &SameAsInput},
    {"", "Gelu", &SameAsInput},
    {"", "Greater", &Predicate<&GreaterValues>},
    {"", "GreaterOrEqual", &Predicate<&GreaterOrEqualValues>},
    {"", "GroupNormalization", &SameAsInput},
    {"", "HardSigmoid", &SameAsInput},
    {"", "HardSwish", &SameAsInput},
    {"", "Hardmax", &AxisSoftmax},
    {"", "Identity", &IdentityShape},
    {"", "InstanceNormalization", &SameAsInput},
    {"", "IsInf", &BoolUnary<nullptr>},
    {"", "IsNaN", &BoolUnary<nullptr>},
    {"", "LRN", &SameAsInput},
    {"", "LayerNormalization", &shape_ops::elementwise::LayerNormalizationShape},
    {"", "LeakyRelu", &SameAsInput},
    {"", "Less", &Predicate<&LessValues>},
    {"", "LessOrEqual", &Predicate<&LessOrEqualValues>},
    {"", "Log", &SameAsInput},
    {"", "LogSoftmax", &AxisSoftmax},
    {"", "Max", &Variadic<&MaxValues>},
    {"", "Mean", &Variadic<nullptr>},
    {"", "MeanVarianceNormalization", &SameAsInput},
    {"", "Min", &Variadic<&MinValues>},
    {"", "Mish", &SameAsInput},
    {"", "Mod", &Arithmetic<&ModValues>},
    {"", "Mul", &Arithmetic<&MulValues>},
    {"", "Neg", &SameAsInputWithValues<&NegValues>},
    {"", "Not", &BoolUnary<&NotValues>},
    {"", "Or", &Predicate<nullptr>},
    {"", "PRelu", &PReluShape},
    {"", "Pow", &Arithmetic<nullptr>},
    {"", "QuantizeLinear", &QuantizeLinearShape},
    {"", "RandomNormalLike", &DtypeOrInputType},
    {"", "RandomUniformLike", &DtypeOrInputType},
    {"", "Reciprocal", &SameAsInput},
    {"", "Relu", &SameAsInput},
    {"", "Round", &SameAsInput},
    {"", "Selu", &SameAsInput},
    {"", "Shrink", &SameAsInput},
    {"", "Sigmoid", &SameAsInput},
    {"", "Sign", &SameAsInput},
    {"", "Sin", &SameAsInput},
    {"", "Sinh", &SameAsInput},
    {"", "Softmax", &AxisSoftmax},
    {"", "Softplus", &SameAsInput},
    {"", "Softsign", &SameAsInput},
    {"", "Sqrt", &SameAsInput},
    {"", "Sub", &Arithmetic<&SubValues>},
    {"", "Sum", &Variadic<&SumValues>},
    {"", "Swish", &SameAsInput},
    {"", "Tan", &SameAsInput},
    {"", "Tanh", &SameAsInput},
    {"", "TensorScatter", &SameAsInput},
    {"", "ThresholdedRelu", &SameAsInput},
    {"", "Trilu", &TriluShape},
    {"", "Where", &WhereShape},
    {"", "Xor", &Predicate<nullptr>},
    {"ai.onnx.preview.training", "Adagrad", &shape_ops::elementwise::OptimizerUpdateShape},
    {"ai.onnx.preview.training", "Adam", &shape_ops::elementwise::OptimizerUpdateShape},
    {"ai.onnx.preview.training", "Momentum", &shape_ops::elementwise::OptimizerUpdateShape},
    {"com.microsoft", "DequantizeLinear", &DequantizeLinearShape},
    {"com.microsoft", "Gelu", &SameAsInput},
    {"com.microsoft", "QuantizeLinear", &QuantizeLinearShape},
    {"com.microsoft", "QuickGelu", &SameAsInput},
    {nullptr, nullptr, nullptr},
};

}  // namespace shape_rules
}  // namespace anvil
