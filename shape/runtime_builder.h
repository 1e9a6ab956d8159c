// The runtime IndexExprBuilder: ShapeHelpers over concrete tensors. Every dim is a literal;
// integer operands small enough to be shapes/axes/pads expose their contents as literal values,
// and any operand with data can be read as a constant (e.g. Resize scales). The same ShapeFn code
// that analysis runs symbolically thus computes the runtime's output shapes.
#ifndef ANVIL_SHAPE_RUNTIME_BUILDER_H_
#define ANVIL_SHAPE_RUNTIME_BUILDER_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/types/span.h"
#include "graph/elements.h"
#include "graph/ir.h"
#include "shape/shape_helper.h"

namespace anvil {

// One operand as the runtime holds it. `data` (dense row-major, ElementSize(type) bytes per
// element) may be null when the operand's contents are not available (not computed yet, or not
// needed); ShapeHelpers then see no values for it.
struct RuntimeOperand {
  ElementType type = ElementType::kUndefined;
  absl::Span<const int64_t> dims;
  const void* data = nullptr;
  // A sequence (type: its element type; element_dims: each element's dims) or an empty optional
  // (type: its element type, when known).
  enum class Kind : uint8_t { kTensor, kSequence, kNoneOptional };
  Kind kind = Kind::kTensor;
  std::vector<std::vector<int64_t>> element_dims;
};

class RuntimeBuilder final : public IndexExprBuilder {
 public:
  // `operands[i]` describes input i of the node; an absent optional input has type kUndefined.
  explicit RuntimeBuilder(absl::Span<const RuntimeOperand> operands) : operands_(operands) {}

  bool HasInput(int i) const override;
  TensorInfo Input(int i) const override;
  void FillInput(int i, TensorInfo* out) const override;
  std::shared_ptr<const Elements> InputConstant(int i) const override;

  // Whether a ShapeHelper asked for an input's contents as a constant (InputConstant): its
  // answer then depends on more than the operands' types, dims and the values of small integer
  // operands, so a caller may not reuse it for other operands with the same dims.
  bool read_input_contents() const { return read_input_contents_; }

 private:
  absl::Span<const RuntimeOperand> operands_;
  mutable bool read_input_contents_ = false;
};

}  // namespace anvil

#endif  // ANVIL_SHAPE_RUNTIME_BUILDER_H_
