#include "kernels/op_kernel.h"

#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/absl_compat.h"
#include "base/checked_math.h"
#include "base/status_macros.h"
#include "graph/node_errors.h"

namespace anvil {

absl::StatusOr<TensorView*> KernelContext::AllocateOutput(int i, absl::Span<const int64_t> dims,
                                                          ElementType computed) {
  if (!HasOutput(i)) return Error(absl::StrCat("output ", i, " is not requested"));
  if (allocated_[i]) {
    if (!std::equal(outputs_[i].dims.begin(), outputs_[i].dims.end(), dims.begin(), dims.end())) {
      return Error(absl::StrCat("output ", i, " was allocated as ", outputs_[i].DebugString(),
                                ", the kernel needs another shape"));
    }
    return &outputs_[i];
  }
  if (!allocator_) return absl::InternalError("kernel context has no allocator");
  ANVIL_ASSIGN_OR_RETURN(outputs_[i], allocator_(i, dims, computed));
  allocated_[i] = true;
  return &outputs_[i];
}

absl::Status KernelContext::SetOutputValue(int i, Tensor value) {
  if (!HasOutput(i)) return absl::OkStatus();  // nobody reads it
  if (allocated_[i]) {
    return Error(absl::StrCat("output ", i, " was allocated as ", outputs_[i].DebugString(),
                              "; the kernel sets it whole"));
  }
  if (!value_sink_) {
    return absl::UnimplementedError(absl::StrCat(
        node_.Describe(), ": output ", i, " is a value this caller cannot hold (",
        value.kind() == ValueKind::kTensor ? "a shared tensor" : "a sequence or optional", ")"));
  }
  outputs_[i] = value.view();
  allocated_[i] = true;
  return value_sink_(i, std::move(value));
}

absl::StatusOr<std::vector<Tensor>> KernelContext::RunSubgraph(
    const Graph& body, const std::vector<TensorView>& inputs) const {
  if (!subgraph_runner_) {
    return absl::UnimplementedError(
        absl::StrCat(node_.Describe(), ": subgraphs cannot run in this context"));
  }
  return subgraph_runner_(body, inputs);
}

absl::Status KernelContext::Error(std::string_view what) const { return NodeError(node_, what); }

absl::Status KernelContext::CheckHeldBytes(int output, int64_t bytes, int64_t pieces,
                                           const Tensor& last) const {
  if (max_allocation_bytes_ == kNoAllocationLimit || bytes <= max_allocation_bytes_) {
    return absl::OkStatus();
  }
  return absl::ResourceExhaustedError(absl::StrCat(
      node_.Describe(), ": output ", output, ": ", pieces, " iterations (the last ",
      AsAbsl(ElementTypeName(last.type())), "[", absl::StrJoin(last.dims(), ","), "]) hold ", bytes,
      " bytes (", HumanBytes(bytes), "), over the allocation limit of ", max_allocation_bytes_,
      " bytes (", HumanBytes(max_allocation_bytes_), ")"));
}

}  // namespace anvil
