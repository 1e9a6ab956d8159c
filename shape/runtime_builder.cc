#include "shape/runtime_builder.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "graph/element_type.h"
#include "shape/tensor_info.h"

namespace anvil {
namespace {

// Elements over memory the runtime owns, valid while the builder's caller keeps it alive.
class BorrowedElements final : public Elements {
 public:
  BorrowedElements(ElementType type, absl::Span<const int64_t> dims, const void* data)
      : type_(type), dims_(dims.begin(), dims.end()), data_(static_cast<const uint8_t*>(data)) {}
  ElementType element_type() const override { return type_; }
  absl::Span<const int64_t> dims() const override { return dims_; }
  const uint8_t* ContiguousData() const override { return data_; }
  void CopyTo(uint8_t* dst) const override { std::memcpy(dst, data_, ByteSize()); }

 private:
  ElementType type_;
  std::vector<int64_t> dims_;
  const uint8_t* data_;
};

}  // namespace

bool RuntimeBuilder::HasInput(int i) const {
  return i >= 0 && i < static_cast<int>(operands_.size()) &&
         (operands_[i].type != ElementType::kUndefined ||
          operands_[i].kind != RuntimeOperand::Kind::kTensor);
}

TensorInfo RuntimeBuilder::Input(int i) const {
  TensorInfo info;
  FillInput(i, &info);
  return info;
}

void RuntimeBuilder::FillInput(int i, TensorInfo* info) const {
  if (!HasInput(i)) return;
  const RuntimeOperand& op = operands_[i];
  if (op.kind != RuntimeOperand::Kind::kTensor) {
    // A sequence: the union of its elements (shape/shape_helper.h); an empty optional: its type.
    TensorInfo elem;
    elem.type = op.type;
    for (size_t k = 0; k < op.element_dims.size(); ++k) {
      const std::vector<int64_t>& d = op.element_dims[k];
      if (k == 0) {
        elem.dims.emplace(d.begin(), d.end());
      } else if (elem.dims && elem.dims->size() == d.size()) {
        for (size_t j = 0; j < d.size(); ++j) {
          if ((*elem.dims)[j] != IndexExpr(d[j])) (*elem.dims)[j] = IndexExpr::Questionmark();
        }
      } else {
        elem.dims.reset();
      }
    }
    *info = op.kind == RuntimeOperand::Kind::kSequence ? TensorInfo::Sequence(std::move(elem))
                                                       : TensorInfo::Optional(std::move(elem));
    if (op.kind == RuntimeOperand::Kind::kSequence) {
      // Every element is known at run time.
      std::vector<TensorInfo> items;
      for (const std::vector<int64_t>& d : op.element_dims) {
        TensorInfo item;
        item.type = op.type;
        item.dims.emplace(d.begin(), d.end());
        items.push_back(std::move(item));
      }
      info->elements = std::make_shared<const std::vector<TensorInfo>>(std::move(items));
    }
    return;
  }
  info->type = op.type;
  DimsExpr& dims = info->dims.emplace();
  int64_t n = 1;
  for (int64_t d : op.dims) {
    dims.emplace_back(d);
    n *= d;
  }
  if (op.data != nullptr && IsIntegerOrBoolType(op.type) && n <= kMaxTrackedValues) {
    const auto* bytes = static_cast<const uint8_t*>(op.data);
    IndexExprList& values = info->values.emplace();
    for (int64_t k = 0; k < n; ++k) values.emplace_back(ReadElementAsInt64(op.type, bytes, k));
  }
}

std::shared_ptr<const Elements> RuntimeBuilder::InputConstant(int i) const {
  read_input_contents_ = true;
  if (!HasInput(i) || operands_[i].data == nullptr) return nullptr;
  const RuntimeOperand& op = operands_[i];
  // Only fixed-size elements are borrowed as bytes: a string tensor's contents are not bytes
  // (Elements::strings() would be empty for all its elements).
  if (ElementSize(op.type) == 0) return nullptr;
  return std::make_shared<BorrowedElements>(op.type, op.dims, op.data);
}

}  // namespace anvil
