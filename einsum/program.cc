#include "einsum/program.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace anvil::einsum {
namespace {

std::string AxisText(const Axis& axis) {
  if (axis.empty()) return "1";
  std::string s;
  for (int l : axis) s += LabelName(l);
  return axis.size() == 1 ? s : absl::StrCat("(", s, ")");
}

std::string TensorText(const ProgramTensor& t) {
  std::string s = "[";
  for (size_t k = 0; k < t.axes.size(); ++k) {
    if (k > 0) s += ",";
    s += AxisText(t.axes[k]);
  }
  return s + "]";
}

}  // namespace

std::string_view OpKindName(OpKind kind) {
  switch (kind) {
    case OpKind::kTranspose:
      return "transpose";
    case OpKind::kReshape:
      return "reshape";
    case OpKind::kDiagonal:
      return "diagonal";
    case OpKind::kReduceSum:
      return "reduce-sum";
    case OpKind::kMatMul:
      return "matmul";
    case OpKind::kMul:
      return "mul";
    case OpKind::kExpand:
      return "expand";
    case OpKind::kZeros:
      return "zeros";
  }
  return "?";
}

IndexExpr ProgramTensor::AxisSize(size_t axis) const {
  IndexExpr size = 1;
  for (int l : axes[axis]) size = size * labels.at(l).size;
  return size;
}

DimsExpr ProgramTensor::Dims() const {
  DimsExpr dims;
  for (size_t k = 0; k < axes.size(); ++k) dims.push_back(AxisSize(k));
  return dims;
}

std::vector<int> ProgramTensor::LabelSequence() const {
  std::vector<int> seq;
  for (const Axis& a : axes) seq.insert(seq.end(), a.begin(), a.end());
  return seq;
}

bool ProgramTensor::IsSimple() const {
  for (const Axis& a : axes) {
    if (a.size() != 1) return false;
  }
  return true;
}

std::string Program::ToString() const {
  std::string s;
  for (int i = 0; i < num_inputs; ++i) {
    absl::StrAppend(&s, "%", i, " = input ", i, " : ", TensorText(tensors[i]), "\n");
  }
  for (const ProgramOp& op : ops) {
    absl::StrAppend(&s, "%", op.output, " = ", std::string(OpKindName(op.kind)),
                    op.inputs.empty() ? "" : " ");
    for (size_t k = 0; k < op.inputs.size(); ++k) {
      absl::StrAppend(&s, k > 0 ? ", %" : "%", op.inputs[k]);
    }
    if (op.kind == OpKind::kTranspose)
      absl::StrAppend(&s, " perm=[", absl::StrJoin(op.perm, ","), "]");
    if (op.kind == OpKind::kReduceSum)
      absl::StrAppend(&s, " axes=[", absl::StrJoin(op.axes, ","), "]");
    absl::StrAppend(&s, " : ", TensorText(tensors[op.output]), "\n");
  }
  absl::StrAppend(&s, "result %", result, "\n");
  return s;
}

}  // namespace anvil::einsum
