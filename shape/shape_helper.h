// ShapeHelpers: each ONNX op's shape (and element type) rule, written once against an
// IndexExprBuilder, so that the same code serves the shape-inference pass (analysis builder:
// symbols for dynamic dims), the runtime's shape engine (runtime builder: concrete shapes) and
// lowering (IR builder).
//
// A ShapeFn reads the node's attributes from `ctx.node()` and its inputs through `ctx` (element
// type, dims, and — for small integer tensors such as shapes, axes and pads — their values), and
// fills `ctx.output(i)`: element type, dims (nullopt = rank unknown), and optionally `values`
// (the contents of a small integer output, e.g. Shape's, so later Reshape/Expand/Tile/Range/
// ConstantOfShape targets built from dynamic dims get exact shapes).
//
// Contract:
//  - Never guess: a dim that cannot be computed is IndexExpr::Questionmark(), an unknown rank is
//    a nullopt dims. A data-dependent dim (NonZero's count, Unique's size, a shape read from a
//    runtime tensor whose values are unknown) is ctx.DataDependentDim(...) with what bounds it:
//    shape analysis names it with a bounded symbol, other builders give a questionmark.
//  - A contradiction in the model (incompatible broadcast, MatMul K mismatch, Reshape of 10
//    elements into 3x4, axis out of range) is `ctx.Error(...)`: InvalidArgument naming the node,
//    the op and the dims, e.g. "node 'mm' (MatMul): inner dims differ: [N, 3] x [4, 5]".
//    A literal vs. symbolic mismatch that cannot be decided is not an error.
//  - Every version of the op (opsets 1-26) is handled by the one ShapeFn: check ctx.opset()
//    where versions differ (axes as attribute before 13 and input after, Slice-1 attributes vs
//    Slice-10 inputs, Reshape allowzero from 14, ...).
//  - Output element types follow the op's type constraints (Cast's `to`, ArgMax's int64, ...).
#ifndef ANVIL_SHAPE_SHAPE_HELPER_H_
#define ANVIL_SHAPE_SHAPE_HELPER_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "graph/element_type.h"
#include "graph/elements.h"
#include "graph/ir.h"
#include "shape/index_expr.h"

namespace anvil {

// What is known about one value: for a tensor its element type, dims, and (small integer
// tensors) values. A sequence or optional has no type or dims of its own (ShapeFns written for
// tensors see an unknown tensor); `elem` describes its elements: for a sequence, what all of them
// share (the union: a dim two elements disagree on is a questionmark, a rank they disagree on is
// unknown), for an optional, its value when present.
struct TensorInfo {
  enum class Kind : uint8_t { kTensor, kSequence, kOptional };

  ElementType type = ElementType::kUndefined;
  std::optional<DimsExpr> dims;         // nullopt: rank unknown
  std::optional<IndexExprList> values;  // row-major contents, when known
  Kind kind = Kind::kTensor;
  std::shared_ptr<const TensorInfo> elem;  // kSequence, kOptional (nullptr: nothing known)
  // kSequence: each element, when the length is known (nullptr: not known). `elem` is then
  // their union.
  std::shared_ptr<const std::vector<TensorInfo>> elements;

  int64_t rank() const { return dims ? static_cast<int64_t>(dims->size()) : -1; }
  bool is_tensor() const { return kind == Kind::kTensor; }
  static TensorInfo Sequence(TensorInfo elem) {
    TensorInfo info;
    info.kind = Kind::kSequence;
    info.elem = std::make_shared<const TensorInfo>(std::move(elem));
    return info;
  }
  static TensorInfo Optional(TensorInfo elem) {
    TensorInfo info;
    info.kind = Kind::kOptional;
    info.elem = std::make_shared<const TensorInfo>(std::move(elem));
    return info;
  }
  // The element's info (a default TensorInfo when unknown).
  const TensorInfo& element() const {
    static const TensorInfo* const kUnknown = new TensorInfo();
    return elem != nullptr ? *elem : *kUnknown;
  }
};

// What a ShapeFn derives on the way to the output dims that lowering needs to index the data, so
// that no rule exists twice (lower/ reads these instead of re-deriving them). Filled only when
// the builder asks (IndexExprBuilder::WantsFacts), so analysis and the runtime pay nothing.
struct ShapeFacts {
  // Reductions (ReduceX, ArgMax, ArgMin): the reduced axes, sorted, without repeats.
  // Transpose: the permutation. Ops with one axis (Concat, Gather, Softmax, LogSoftmax, Hardmax,
  // LayerNormalization): {the axis, normalized} (Softmax before opset 13: the axis the input is
  // coerced to 2-D at).
  std::vector<int64_t> axes;
  // Slice: per input axis, the first index taken (0 where not sliced). Pad: per axis, the
  // leading pad (negative: elements removed).
  IndexExprList starts;
  // Slice: per input axis, the step (1 where not sliced).
  std::vector<int64_t> steps;
};

// How a ShapeHelper sees the operands of the node it is computing. Implementations: the
// analysis builder (shape-inference pass), the runtime builder (runtime), the IR builder
// (lowering).
class IndexExprBuilder {
 public:
  virtual ~IndexExprBuilder() = default;

  // Whether input slot `i` exists and is not an omitted optional input.
  virtual bool HasInput(int i) const = 0;
  virtual TensorInfo Input(int i) const = 0;
  // Input(i) written into `*out` (a default TensorInfo); builders on hot paths override it to
  // build in place instead of returning a copy.
  virtual void FillInput(int i, TensorInfo* out) const { *out = Input(i); }
  // The full constant payload of input `i` when it is a compile-time constant (any element
  // type; e.g. Resize's float scales), else nullptr.
  virtual std::shared_ptr<const Elements> InputConstant(int i) const = 0;

  // Infers the outputs of subgraph `body` (If branches, Loop/Scan bodies) given its inputs.
  // Builders that cannot (the runtime executes subgraphs itself) return Unimplemented.
  virtual absl::StatusOr<std::vector<TensorInfo>> InferSubgraph(
      const Graph& body, const std::vector<TensorInfo>& inputs) const {
    return absl::UnimplementedError("this builder does not infer subgraphs");
  }

  // Whether ShapeFns should record ShapeFacts (lowering's builder does).
  virtual bool WantsFacts() const { return false; }

  // A data-dependent dim of `node`'s outputs, in [lo, hi] (see ShapeContext::DataDependentDim):
  // a questionmark here; the analysis builder makes a bounded symbol.
  virtual IndexExpr DataDependentDim(const Node& node, std::string_view suffix, const IndexExpr& lo,
                                     const IndexExpr& hi) const {
    return IndexExpr::Questionmark();
  }
};

class ShapeContext {
 public:
  // `opset` is the model's version of the node's domain.
  ShapeContext(const Node& node, int64_t opset, const IndexExprBuilder& builder);

  const Node& node() const { return node_; }
  int64_t opset() const { return opset_; }
  const IndexExprBuilder& builder() const { return builder_; }

  // ---- Inputs ----
  int num_inputs() const { return node_.num_inputs(); }
  bool HasInput(int i) const { return i < num_inputs() && builder_.HasInput(i); }
  // Info of input `i`; an absent input has undefined type and unknown rank. Read from the
  // builder once per input and cached: ShapeFns may ask repeatedly at no cost.
  const TensorInfo& Input(int i) const {
    if (i >= 0 && i < static_cast<int>(inputs_.size()) && inputs_[i]) return *inputs_[i];
    return ReadInput(i);
  }
  ElementType InputType(int i) const { return Input(i).type; }
  // -1 when unknown or absent.
  int64_t InputRank(int i) const { return Input(i).rank(); }
  const std::optional<DimsExpr>& InputDims(int i) const { return Input(i).dims; }
  const std::optional<IndexExprList>& InputValues(int i) const { return Input(i).values; }
  // All values literal: the int64s, else nullopt.
  std::optional<std::vector<int64_t>> InputLiteralValues(int i) const;
  std::shared_ptr<const Elements> InputConstant(int i) const { return builder_.InputConstant(i); }

  // ---- Outputs ----
  int num_outputs() const { return static_cast<int>(outputs_.size()); }
  TensorInfo& output(int i) { return outputs_[i]; }
  absl::InlinedVector<TensorInfo, 2>& outputs() { return outputs_; }
  // Convenience: type and dims of output i.
  void SetOutput(int i, ElementType type, std::optional<DimsExpr> dims);

  // A dim only the data decides (NonZero's count, Unique's size, TopK's runtime k, a Range's
  // length, a shape read from a runtime tensor), known to lie in [lo, hi]: their RangeOf bounds
  // become the range (Questionmark() for `hi`: unbounded). `suffix` names the dim among the
  // node's ("n", "d1", ...). Shape analysis gives a symbol named after the node with that range
  // (the same one when the node is inferred again); the runtime and lowering a questionmark.
  IndexExpr DataDependentDim(std::string_view suffix, const IndexExpr& lo,
                             const IndexExpr& hi) const {
    return builder_.DataDependentDim(node_, suffix, lo, hi);
  }
  // `rank` such dims (suffixes d0, d1, ...), each in [lo, hi].
  DimsExpr DataDependentDims(int64_t rank, const IndexExpr& lo, const IndexExpr& hi) const;
  // The same with no bound but 0: an output shape read from a runtime tensor.
  DimsExpr UnboundedDims(int64_t rank) const {
    return DataDependentDims(rank, 0, IndexExpr::Questionmark());
  }

  // ---- Facts for lowering ----
  // Where a ShapeFn records ShapeFacts, or nullptr when the builder does not want them.
  ShapeFacts* facts() { return builder_.WantsFacts() ? &facts_ : nullptr; }
  const ShapeFacts& recorded_facts() const { return facts_; }

  // ---- Errors ----
  // InvalidArgument "node 'n' (Op): <what>" (see Node::Describe()).
  absl::Status Error(std::string_view what) const;
  // Normalizes a possibly negative axis into [0, rank); an error naming the attribute otherwise.
  absl::StatusOr<int64_t> NormalizeAxis(int64_t axis, int64_t rank, std::string_view what) const;

 private:
  const Node& node_;
  int64_t opset_;
  const IndexExprBuilder& builder_;
  absl::InlinedVector<TensorInfo, 2> outputs_;
  ShapeFacts facts_;
  const TensorInfo& ReadInput(int i) const;

  // Inputs read so far (lazily, see Input()).
  mutable absl::InlinedVector<std::optional<TensorInfo>, 4> inputs_;
};

using ShapeFn = absl::Status (*)(ShapeContext& ctx);

// One row of a family's table: the ShapeFn of an op of the op table (graph/op_table.h), which
// says which opsets it covers.
struct ShapeRule {
  const char* domain;  // "" for ai.onnx
  const char* op_type;
  ShapeFn fn;
};

// The ShapeFn for (domain, op, opset), or nullptr when Anvil has none (the caller reports
// Unimplemented naming op and opset).
ShapeFn FindShapeFn(std::string_view domain, std::string_view op_type, int64_t opset);
// Every registered (domain, op_type), sorted; for documentation and coverage tests.
std::vector<std::pair<std::string, std::string>> ListShapeOps();

// The node's ShapeFn, or Unimplemented "<node>: no shape rule for <Op> (opset N)".
absl::StatusOr<ShapeFn> ShapeFnFor(const Node& node, int64_t opset);

// Runs the op's ShapeFn: Unimplemented "no shape rule for <Op> (opset N)" when none.
absl::Status InferNodeShapes(ShapeContext& ctx);

}  // namespace anvil

#endif  // ANVIL_SHAPE_SHAPE_HELPER_H_
