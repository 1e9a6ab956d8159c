// CreateKernel, HasKernel and ListKernelOps (declared in op_kernel.h): the registry over the
// family tables of kernel_rules.h, bound to the op table. Apart from op_kernel.cc because
// kernel_rules.h includes op_kernel.h.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "graph/op_table.h"
#include "kernels/kernel_rules.h"
#include "kernels/op_kernel.h"

namespace anvil {
namespace {

// Every family's kernels, bound to the op table's rows once.
const std::vector<KernelFactory>& Factories() {
  static const auto* fns = new std::vector<KernelFactory>(BindToOps<KernelRule>(
      {kernel_rules::kElementwiseKernels, kernel_rules::kComputeKernels, kernel_rules::kDataKernels,
       kernel_rules::kMiscKernels, kernel_rules::kControlFlowKernels,
       kernel_rules::kSequenceKernels, kernel_rules::kNchwcKernels}));
  return *fns;
}

KernelFactory FindFactory(std::string_view domain, std::string_view op_type, int64_t opset) {
  const OpInfo* op = FindOp(domain, op_type, opset);
  return op == nullptr ? nullptr : Factories()[OpIndex(*op)];
}

}  // namespace

absl::StatusOr<std::unique_ptr<OpKernel>> CreateKernel(const Node& node, int64_t opset) {
  const KernelFactory factory = FindFactory(node.domain(), node.op_type(), opset);
  if (factory == nullptr) {
    return absl::UnimplementedError(
        absl::StrCat(node.Describe(), ": no kernel for ",
                     node.domain().empty() ? "" : absl::StrCat(node.domain(), "."), node.op_type(),
                     " (opset ", opset, ")"));
  }
  return factory(node, opset);
}

bool HasKernel(std::string_view domain, std::string_view op_type, int64_t opset) {
  return FindFactory(domain, op_type, opset) != nullptr;
}

std::vector<std::pair<std::string, std::string>> ListKernelOps() {
  std::vector<std::pair<std::string, std::string>> ops;
  for (const OpInfo& op : AllOps()) {
    if (Factories()[OpIndex(op)] != nullptr) ops.emplace_back(op.domain, op.op_type);
  }
  return ops;
}

}  // namespace anvil
