#include "kernels/op_kernel.h"

#include <algorithm>
#include <cstring>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "graph/absl_compat.h"
#include "kernels/kernel_rules.h"

namespace anvil {
namespace {

using RuleIndex = absl::flat_hash_map<std::string, std::vector<const KernelRule*>>;

const RuleIndex& Rules() {
  static const RuleIndex* index = [] {
    auto* map = new RuleIndex();
    for (const KernelRule* table :
         {kernel_rules::kElementwiseKernels, kernel_rules::kComputeKernels,
          kernel_rules::kDataKernels, kernel_rules::kMiscKernels,
          kernel_rules::kControlFlowKernels}) {
      for (const KernelRule* rule = table; rule->op_type != nullptr; ++rule) {
        (*map)[absl::StrCat(rule->domain, ":", rule->op_type)].push_back(rule);
      }
    }
    return map;
  }();
  return *index;
}

const KernelRule* FindRule(std::string_view domain, std::string_view op_type, int64_t opset) {
  if (domain == "ai.onnx") domain = "";
  const RuleIndex& index = Rules();
  auto it = index.find(absl::StrCat(AsAbsl(domain), ":", AsAbsl(op_type)));
  if (it == index.end()) return nullptr;
  for (const KernelRule* rule : it->second) {
    if (opset >= rule->since_version && opset <= rule->last_version) return rule;
  }
  return nullptr;
}

}  // namespace

absl::StatusOr<TensorView*> KernelContext::AllocateOutput(int i, absl::Span<const int64_t> dims) {
  if (!HasOutput(i)) return Error(absl::StrCat("output ", i, " is not requested"));
  if (allocated_[i]) {
    if (!std::equal(outputs_[i].dims.begin(), outputs_[i].dims.end(), dims.begin(), dims.end())) {
      return Error(absl::StrCat("output ", i, " was allocated as ", outputs_[i].DebugString(),
                                ", the kernel needs another shape"));
    }
    return &outputs_[i];
  }
  if (!allocator_) return absl::InternalError("kernel context has no allocator");
  absl::StatusOr<TensorView> view = allocator_(i, dims);
  if (!view.ok()) return view.status();
  outputs_[i] = *std::move(view);
  allocated_[i] = true;
  return &outputs_[i];
}

absl::StatusOr<std::vector<Tensor>> KernelContext::RunSubgraph(
    const Graph& body, const std::vector<TensorView>& inputs) const {
  if (!subgraph_runner_) {
    return absl::UnimplementedError(
        absl::StrCat(node_.Describe(), ": subgraphs cannot run in this context"));
  }
  return subgraph_runner_(body, inputs);
}

absl::Status KernelContext::Error(std::string_view what) const {
  return absl::InvalidArgumentError(absl::StrCat(node_.Describe(), ": ", AsAbsl(what)));
}

absl::StatusOr<std::unique_ptr<OpKernel>> CreateKernel(const Node& node, int64_t opset) {
  const KernelRule* rule = FindRule(node.domain(), node.op_type(), opset);
  if (rule == nullptr) {
    return absl::UnimplementedError(
        absl::StrCat(node.Describe(), ": no kernel for ",
                     node.domain().empty() ? "" : absl::StrCat(node.domain(), "."), node.op_type(),
                     " (opset ", opset, ")"));
  }
  return rule->factory(node, opset);
}

bool HasKernel(std::string_view domain, std::string_view op_type, int64_t opset) {
  return FindRule(domain, op_type, opset) != nullptr;
}

std::vector<std::pair<std::string, std::string>> ListKernelOps() {
  std::vector<std::pair<std::string, std::string>> ops;
  for (const auto& [key, rules] : Rules()) ops.emplace_back(rules[0]->domain, rules[0]->op_type);
  std::sort(ops.begin(), ops.end());
  return ops;
}

}  // namespace anvil
