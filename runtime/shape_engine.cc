#include "runtime/shape_engine.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "base/checked_math.h"
#include "base/status_macros.h"
#include "shape/index_expr.h"
#include "shape/runtime_builder.h"
#include "shape/tensor_info.h"

namespace anvil {
namespace {

// Stores `v` as element `index` of dense data of integral `type`.
void WriteInteger(ElementType type, int64_t v, uint8_t* data, int64_t index) {
  const size_t size = ElementSize(type);
  uint8_t* dst = data + index * size;
  if (type == ElementType::kBool) {
    *dst = v != 0;
    return;
  }
  // Little-endian: the low `size` bytes of the two's-complement value.
  const uint64_t bits = static_cast<uint64_t>(v);
  std::memcpy(dst, &bits, size);
}

int64_t NumElements(absl::Span<const int64_t> dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

void SetKnown(ValueShape& shape, ElementType type, absl::Span<const int64_t> dims,
              const void* data) {
  shape.known = true;
  shape.type = type;
  shape.dims.assign(dims.begin(), dims.end());
  shape.bytes = NumElements(dims) * static_cast<int64_t>(ElementSize(type));
  shape.values.clear();
  shape.data = data;
}

void SetUnknown(ValueShape& shape) {
  shape.known = false;
  shape.type = ElementType::kUndefined;
  shape.dims.clear();
  shape.bytes = -1;
  shape.values.clear();
  shape.data = nullptr;
}

}  // namespace

bool IsShapeRelevant(ElementType type, int64_t elements) {
  return IsIntegerOrBoolType(type) && elements <= kMaxTrackedValues;
}

ShapeInferenceEngine::ShapeInferenceEngine(const GraphPlan& plan)
    : plan_(plan), shapes_(plan.num_slots()), dynamic_steps_(plan.steps().size(), true) {
  // Weights: shapes and contents fixed once.
  for (int slot = 0; slot < plan.num_slots(); ++slot) {
    const Slot& s = plan.slots()[slot];
    if (s.kind != SlotKind::kConstant) continue;
    SetKnown(shapes_[slot], s.constant_view.type, s.constant_view.dims, s.constant_view.data);
  }
}

bool ShapeInferenceEngine::SameKey(absl::Span<const TensorView> inputs) const {
  if (!has_key_ || inputs.size() != key_types_.size()) return false;
  for (size_t k = 0; k < inputs.size(); ++k) {
    const TensorView& in = inputs[k];
    // A sequence or optional input changes what follows it on every run: never the same key.
    if (!in.is_tensor()) return false;
    if (in.type != key_types_[k] || in.dims != key_dims_[k]) return false;
    const std::vector<uint8_t>& contents = key_contents_[k];
    if (!contents.empty() && std::memcmp(contents.data(), in.data, contents.size()) != 0) {
      return false;
    }
  }
  return true;
}

void ShapeInferenceEngine::StoreKey(absl::Span<const TensorView> inputs) {
  key_types_.clear();
  key_dims_.clear();
  key_contents_.clear();
  for (const TensorView& in : inputs) {
    key_types_.push_back(in.type);
    key_dims_.push_back(in.dims);
    std::vector<uint8_t> contents;
    const int64_t n = in.NumElements();
    if (in.is_tensor() && IsShapeRelevant(in.type, n) && n > 0) {
      const auto* bytes = static_cast<const uint8_t*>(in.data);
      contents.assign(bytes, bytes + n * ElementSize(in.type));
    }
    key_contents_.push_back(std::move(contents));
  }
  has_key_ = true;
}

absl::StatusOr<bool> ShapeInferenceEngine::Infer(absl::Span<const TensorView> inputs) {
  if (SameKey(inputs)) return false;
  ScopedIndexExprContext index_exprs;  // questionmarks of data-dependent ops go with the call
  std::vector<int64_t> before(shapes_.size());
  for (size_t slot = 0; slot < shapes_.size(); ++slot) before[slot] = shapes_[slot].bytes;
  ++runs_;
  if (absl::Status s = Propagate(inputs); !s.ok()) {
    has_key_ = false;
    return s;
  }
  StoreKey(inputs);
  changed_.clear();
  for (size_t slot = 0; slot < shapes_.size(); ++slot) {
    if (shapes_[slot].bytes != before[slot]) changed_.push_back(static_cast<int>(slot));
  }
  return true;
}

absl::Status ShapeInferenceEngine::Propagate(absl::Span<const TensorView> inputs) {
  const std::vector<int>& input_slots = plan_.input_slots();
  for (size_t k = 0; k < input_slots.size() && k < inputs.size(); ++k) {
    const TensorView& in = inputs[k];
    if (!in.is_tensor()) {  // a sequence or optional: what reads it runs on the data
      SetUnknown(shapes_[input_slots[k]]);
      continue;
    }
    const bool relevant = IsShapeRelevant(in.type, in.NumElements());
    SetKnown(shapes_[input_slots[k]], in.type, in.dims, relevant ? in.data : nullptr);
  }
  std::vector<RuntimeOperand> operands;
  const std::vector<Step>& steps = plan_.steps();
  for (size_t s = 0; s < steps.size(); ++s) {
    const Step& step = steps[s];
    bool dynamic = step.shape_fn == nullptr;
    for (int slot : step.inputs) {
      if (slot >= 0 && !shapes_[slot].known) dynamic = true;
    }
    if (dynamic) {
      dynamic_steps_[s] = true;
      for (int slot : step.outputs) {
        if (slot >= 0) SetUnknown(shapes_[slot]);
      }
      continue;
    }
    operands.assign(step.inputs.size(), RuntimeOperand{});
    for (size_t i = 0; i < step.inputs.size(); ++i) {
      if (step.inputs[i] < 0) continue;
      const ValueShape& in = shapes_[step.inputs[i]];
      operands[i] = {in.type, in.dims, in.data};
    }
    RuntimeBuilder builder(operands);
    ShapeContext ctx(*step.node, step.opset, builder);
    ANVIL_RETURN_IF_ERROR(step.shape_fn(ctx));
    bool all_known = true;
    for (size_t i = 0; i < step.outputs.size(); ++i) {
      const int slot = step.outputs[i];
      if (slot < 0) continue;
      ValueShape& out = shapes_[slot];
      const TensorInfo& info = ctx.output(static_cast<int>(i));
      const std::optional<std::vector<int64_t>> literal = LiteralDims(info);
      if (!literal) {
        SetUnknown(out);
        all_known = false;
        continue;
      }
      // Dims from the model's arithmetic can describe a tensor that cannot exist.
      absl::StatusOr<int64_t> size = CheckedByteSize(*literal, ElementSize(info.type));
      if (!size.ok()) {
        return absl::Status(size.status().code(),
                            absl::StrCat(step.node->Describe(), ": output ", i, " '",
                                         step.node->output(static_cast<int>(i))->name(),
                                         "' cannot exist: ", size.status().message()));
      }
      const Shape dims(literal->begin(), literal->end());
      SetKnown(out, info.type, dims, nullptr);
      // Contents that shape computations know (Shape's output, a Gather of it, ...).
      const int64_t n = NumElements(dims);
      if (info.values && IsIntegerOrBoolType(info.type) &&
          static_cast<int64_t>(info.values->size()) == n) {
        std::vector<uint8_t> bytes(n * ElementSize(info.type));
        bool literal = true;
        for (int64_t k = 0; k < n && literal; ++k) {
          const IndexExpr& v = (*info.values)[k];
          if (!v.IsLiteral()) {
            literal = false;
          } else {
            WriteInteger(info.type, v.literal(), bytes.data(), k);
          }
        }
        if (literal) {
          out.values = std::move(bytes);
          out.data = out.values.empty() ? nullptr : out.values.data();
        }
      }
    }
    dynamic_steps_[s] = !all_known;
  }
  return absl::OkStatus();
}

}  // namespace anvil
