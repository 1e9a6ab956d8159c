#include "exec/testing/kernel_test_util.h"

#include <cmath>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/absl_compat.h"
#include "base/status_macros.h"
#include "graph/text_format.h"
#include "kernels/op_kernel.h"

namespace anvil::kernel_testing {

Tensor Floats(std::vector<int64_t> dims, const std::vector<float>& values) {
  return MakeTensor(ElementType::kFloat, std::move(dims), values);
}

Tensor Int64s(std::vector<int64_t> dims, const std::vector<int64_t>& values) {
  return MakeTensor(ElementType::kInt64, std::move(dims), values);
}

std::vector<int64_t> Dims(const Tensor& t) { return {t.dims().begin(), t.dims().end()}; }

double ElementAsDouble(const Tensor& t, int64_t i) {
  return ReadElementAsDouble(t.type(), t.As<uint8_t>(), i);
}

std::string CompareTensors(const Tensor& got, const Tensor& want, double rtol, double atol) {
  if (!got.defined()) return "no output";
  if (got.type() != want.type() || got.dims() != want.dims()) {
    return absl::StrCat("got ", got.view().DebugString(), ", want ", want.view().DebugString());
  }
  const ElementType t = want.type();
  const bool floating = t == ElementType::kFloat || t == ElementType::kDouble ||
                        t == ElementType::kFloat16 || t == ElementType::kBfloat16;
  int64_t mismatches = 0;
  std::string first;
  for (int64_t i = 0; i < want.NumElements(); ++i) {
    bool ok;
    std::string detail;
    if (floating) {
      const double g = ElementAsDouble(got, i), w = ElementAsDouble(want, i);
      ok = std::isnan(w) ? std::isnan(g) : (g == w || std::abs(g - w) <= atol + rtol * std::abs(w));
      detail = absl::StrCat(g, ", want ", w);
    } else {
      const int64_t g = ReadElementAsInt64(t, got.As<uint8_t>(), i);
      const int64_t w = ReadElementAsInt64(t, want.As<uint8_t>(), i);
      ok = g == w;
      detail = absl::StrCat(g, ", want ", w);
    }
    if (!ok && mismatches++ == 0) first = absl::StrCat("element ", i, ": got ", detail);
  }
  if (mismatches == 0) return "";
  return absl::StrCat(mismatches, " of ", want.NumElements(), " elements differ, first ", first);
}

std::string ModelText(int opset, std::string_view signature, std::string_view body) {
  return absl::StrCat("<ir_version: 8, opset_import: [\"\" : ", opset, "]>\n", AsAbsl(signature),
                      " {\n", AsAbsl(body), "\n}\n");
}

absl::StatusOr<std::vector<Tensor>> RunText(const std::string& text,
                                            const std::vector<Tensor>& inputs,
                                            const NodeExecOptions& options) {
  ANVIL_ASSIGN_OR_RETURN(std::unique_ptr<Model> model, ParseModelText(text));
  const Node& node = **model->graph().nodes().begin();
  return RunNode(node, model->OpsetVersion(node.domain()), inputs, options);
}

absl::StatusOr<std::vector<Tensor>> RunViews(const std::string& text,
                                             std::vector<TensorView> inputs,
                                             std::vector<std::vector<int64_t>> out_dims,
                                             ElementType out_type) {
  ANVIL_ASSIGN_OR_RETURN(std::unique_ptr<Model> model, ParseModelText(text));
  const Node& node = **model->graph().nodes().begin();
  const int64_t opset = model->OpsetVersion(node.domain());
  ANVIL_ASSIGN_OR_RETURN(std::unique_ptr<OpKernel> kernel, CreateKernel(node, opset));
  if (out_type == ElementType::kUndefined) out_type = inputs[0].type;
  std::vector<Tensor> outputs;
  std::vector<TensorView> views;
  for (const auto& dims : out_dims) {
    outputs.emplace_back(out_type, dims);
    views.push_back(outputs.back().view());
  }
  KernelContext ctx(node, opset);
  ctx.SetInputs(std::move(inputs));
  const KernelContext::Flags all(views.size(), true);
  ctx.SetOutputs(KernelContext::Views(views.begin(), views.end()), all, all);
  ANVIL_RETURN_IF_ERROR(kernel->Compute(ctx));
  return outputs;
}

}  // namespace anvil::kernel_testing
