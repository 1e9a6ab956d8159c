#include "kernels/tensor_view.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace anvil {

Shape DenseStrides(absl::Span<const int64_t> dims) {
  Shape strides(dims.size());
  int64_t s = 1;
  for (int64_t k = static_cast<int64_t>(dims.size()) - 1; k >= 0; --k) {
    strides[k] = s;
    s *= dims[k];
  }
  return strides;
}

TensorView TensorView::Dense(ElementType type, void* data, absl::Span<const int64_t> dims) {
  TensorView v;
  v.type = type;
  v.data = data;
  v.dims.assign(dims.begin(), dims.end());
  v.strides = DenseStrides(dims);
  return v;
}

int64_t TensorView::NumElements() const {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

bool TensorView::Contiguous() const {
  int64_t s = 1;
  for (int64_t k = rank() - 1; k >= 0; --k) {
    if (dims[k] != 1 && strides[k] != s) return false;
    s *= dims[k];
  }
  return true;
}

TensorView TensorView::AlignedTo(int64_t target_rank) const {
  TensorView v = *this;
  while (v.rank() < target_rank) {
    v.dims.insert(v.dims.begin(), 1);
    v.strides.insert(v.strides.begin(), 0);
  }
  return v;
}

bool TensorView::BroadcastsTo(absl::Span<const int64_t> target) const {
  if (dims.size() > target.size()) return false;
  for (size_t i = 1; i <= dims.size(); ++i) {
    const int64_t d = dims[dims.size() - i];
    if (d != 1 && d != target[target.size() - i]) return false;
  }
  return true;
}

TensorView TensorView::BroadcastTo(absl::Span<const int64_t> target) const {
  TensorView v = AlignedTo(static_cast<int64_t>(target.size()));
  for (size_t k = 0; k < target.size(); ++k) {
    if (v.dims[k] != target[k]) {  // a 1 stretched to target[k]
      v.dims[k] = target[k];
      v.strides[k] = 0;
    }
  }
  return v;
}

std::string TensorView::DebugString() const {
  return absl::StrCat(std::string(ElementTypeName(type)), "[", absl::StrJoin(dims, ","),
                      "] strides [", absl::StrJoin(strides, ","), "]");
}

}  // namespace anvil
