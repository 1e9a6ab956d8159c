#include "einsum/emit_graph.h"

#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "graph/attribute.h"
#include "graph/elements.h"
#include "shape/tensor_info.h"

namespace anvil::einsum {
namespace {

bool IsLiteral(const IndexExpr& e, int64_t v) { return e.IsLiteral() && e.literal() == v; }

// Whether `perm` keeps the relative order of every dim not known to be 1 (then it is a Reshape).
bool OnlyMovesUnitDims(const DimsExpr& in, const std::vector<int64_t>& perm) {
  int64_t last = -1;
  for (int64_t k : perm) {
    if (IsLiteral(in[k], 1)) continue;
    if (k < last) return false;
    last = k;
  }
  return true;
}

class GraphEmitter {
 public:
  GraphEmitter(const Program& program, Node& einsum, int64_t opset)
      : p_(program),
        einsum_(einsum),
        g_(*einsum.graph()),
        opset_(opset),
        type_(einsum.input(0)->type().element_type()),
        base_(einsum.output(0)->name()),
        einsum_name_(einsum.name()) {}

  absl::Status Run(EmittedOps* ops) {
    values_.assign(p_.tensors.size(), nullptr);
    for (int i = 0; i < p_.num_inputs; ++i) values_[i] = einsum_.input(i);
    for (const ProgramOp& op : p_.ops) {
      if (absl::Status s = EmitOp(op); !s.ok()) {
        Rollback();
        return s;
      }
    }
    Finish();
    for (Node* n : created_nodes_) ++(*ops)[n->op_type()];
    return absl::OkStatus();
  }

 private:
  // ---- Building blocks ----

  Type TensorType(int t) const {
    std::vector<Dim> dims;
    for (const IndexExpr& d : p_.tensors[t].Dims()) dims.push_back(DimFromIndexExpr(d));
    return Type::Tensor(type_, std::move(dims));
  }

  // A node before the Einsum with one output of `type`.
  Node* AddNode(std::string_view op_type, const std::vector<Value*>& inputs, Type type) {
    Node* n = g_.InsertNodeBefore(&einsum_, std::string(op_type));
    for (Value* v : inputs) n->AddInput(v);
    Value* out = n->AddOutput(
        g_.UniqueName(absl::StrCat(base_, "_", absl::AsciiStrToLower(AsAbsl(op_type)))));
    out->set_type(std::move(type));
    created_nodes_.push_back(n);
    return n;
  }
  Value* Add(std::string_view op_type, const std::vector<Value*>& inputs, Type type) {
    return AddNode(op_type, inputs, std::move(type))->output(0);
  }
  static absl::string_view AsAbsl(std::string_view s) { return {s.data(), s.size()}; }

  // An int64 vector constant (an initializer of the Einsum's graph), one per distinct value.
  Value* Const(const std::vector<int64_t>& v) {
    std::string key;
    for (int64_t x : v) absl::StrAppend(&key, x, ",");
    if (auto it = consts_.find(key); it != consts_.end()) return it->second;
    Value* c = g_.AddInitializer(
        g_.UniqueName(absl::StrCat(base_, "_const")),
        DenseElements::FromVector(ElementType::kInt64, {static_cast<int64_t>(v.size())}, v));
    created_initializers_.push_back(c);
    consts_[key] = c;
    return c;
  }

  static Type Int64s(int64_t n) { return Type::Tensor(ElementType::kInt64, {Dim::Literal(n)}); }

  // int64[1] holding dim `k` of Einsum operand `i` at run time.
  Value* OperandDim(int i, int k) {
    const std::string key = absl::StrCat(i, ":", k);
    if (auto it = runtime_dims_.find(key); it != runtime_dims_.end()) return it->second;
    Value*& shape = shapes_[i];
    if (shape == nullptr) {
      shape = Add("Shape", {einsum_.input(i)}, Int64s(einsum_.input(i)->type().rank()));
    }
    Node* gather = AddNode("Gather", {shape, Const({k})}, Int64s(1));
    gather->SetAttribute(Attribute::Int("axis", 0));
    return runtime_dims_[key] = gather->output(0);
  }

  // int64[1] holding a label's size at run time.
  Value* LabelSize(const LabelDim& d) {
    if (d.size.IsLiteral()) return Const({d.size.literal()});
    std::string key = "max";
    for (const auto& [i, k] : d.sources) absl::StrAppend(&key, ":", i, ",", k);
    if (auto it = runtime_dims_.find(key); it != runtime_dims_.end()) return it->second;
    Value* v = nullptr;
    for (const auto& [i, k] : d.sources) {
      Value* s = OperandDim(i, k);
      v = v == nullptr ? s : Add("Max", {v, s}, Int64s(1));
    }
    return runtime_dims_[key] = v;
  }

  // int64[1] holding the size of `axis` of tensor `t` at run time.
  Value* AxisSize(const ProgramTensor& t, size_t axis) {
    if (const IndexExpr size = t.AxisSize(axis); size.IsLiteral()) return Const({size.literal()});
    Value* v = nullptr;
    for (int l : t.axes[axis]) {
      const LabelDim& d = t.labels.at(l);
      if (IsLiteral(d.size, 1)) continue;
      Value* s = LabelSize(d);
      v = v == nullptr ? s : Add("Mul", {v, s}, Int64s(1));
    }
    return v;
  }

  // A shape vector of literal entries and run-time int64[1] values: a constant when all are
  // literal, else a Concat.
  Value* ShapeVector(const std::vector<std::optional<int64_t>>& literal,
                     const std::vector<Value*>& runtime) {
    std::vector<Value*> parts;
    std::vector<int64_t> run;
    bool all_literal = true;
    for (size_t j = 0; j < literal.size(); ++j) {
      if (literal[j]) {
        run.push_back(*literal[j]);
        continue;
      }
      all_literal = false;
      if (!run.empty()) parts.push_back(Const(run));
      run.clear();
      parts.push_back(runtime[j]);
    }
    if (all_literal) return Const(run);
    if (!run.empty()) parts.push_back(Const(run));
    std::string key = "concat";
    for (Value* v : parts) absl::StrAppend(&key, ":", v->name());
    if (auto it = runtime_dims_.find(key); it != runtime_dims_.end()) return it->second;
    Node* concat = AddNode("Concat", parts, Int64s(static_cast<int64_t>(literal.size())));
    concat->SetAttribute(Attribute::Int("axis", 0));
    return runtime_dims_[key] = concat->output(0);
  }

  // ---- Ops ----

  absl::Status EmitOp(const ProgramOp& op) {
    const ProgramTensor& out = p_.tensors[op.output];
    if (op.kind == OpKind::kZeros) {
      values_[op.output] = Zeros(out, op.output);
      return absl::OkStatus();
    }
    const ProgramTensor& in = p_.tensors[op.inputs[0]];
    Value* x = values_[op.inputs[0]];
    switch (op.kind) {
      case OpKind::kTranspose:
        return EmitTranspose(op);
      case OpKind::kReshape: {
        ANVIL_ASSIGN_OR_RETURN(values_[op.output], Reshape(x, in.Dims(), op.output));
        return absl::OkStatus();
      }
      case OpKind::kDiagonal:
        values_[op.output] = Diagonal(x, out, op);
        return absl::OkStatus();
      case OpKind::kReduceSum: {
        Node* n;
        if (opset_ < 13) {
          n = AddNode("ReduceSum", {x}, TensorType(op.output));
          n->SetAttribute(Attribute::Ints("axes", op.axes));
        } else {
          n = AddNode("ReduceSum", {x, Const(op.axes)}, TensorType(op.output));
        }
        n->SetAttribute(Attribute::Int("keepdims", 0));
        values_[op.output] = n->output(0);
        return absl::OkStatus();
      }
      case OpKind::kMatMul:
      case OpKind::kMul:
        values_[op.output] = Add(op.kind == OpKind::kMatMul ? "MatMul" : "Mul",
                                 {x, values_[op.inputs[1]]}, TensorType(op.output));
        return absl::OkStatus();
      case OpKind::kZeros:
        break;
      case OpKind::kExpand: {
        std::vector<std::optional<int64_t>> literal;
        std::vector<Value*> runtime;
        for (size_t j = 0; j < out.axes.size(); ++j) {
          const IndexExpr size = out.AxisSize(j);
          const bool grows = size != in.AxisSize(j);
          literal.push_back(!grows             ? std::optional<int64_t>(1)
                            : size.IsLiteral() ? std::optional<int64_t>(size.literal())
                                               : std::nullopt);
          runtime.push_back(literal.back() ? nullptr : AxisSize(out, j));
        }
        values_[op.output] =
            Add("Expand", {x, ShapeVector(literal, runtime)}, TensorType(op.output));
        return absl::OkStatus();
      }
    }
    return absl::InternalError("unknown program op");
  }

  absl::Status EmitTranspose(const ProgramOp& op) {
    Value* x = values_[op.inputs[0]];
    std::vector<int64_t> perm = op.perm;
    DimsExpr in_dims = p_.tensors[op.inputs[0]].Dims();
    // An operand that a Transpose node produced: transpose that node's input once instead.
    if (const std::vector<int64_t>& prev = p_.tensors[op.inputs[0]].producer_perm; !prev.empty()) {
      DimsExpr source_dims(in_dims.size());
      for (size_t k = 0; k < prev.size(); ++k) source_dims[prev[k]] = in_dims[k];
      for (int64_t& k : perm) k = prev[k];
      x = x->producer()->input(0);
      in_dims = source_dims;
    }
    bool identity = true;
    for (size_t k = 0; k < perm.size(); ++k)
      identity = identity && perm[k] == static_cast<int64_t>(k);
    if (identity) {
      values_[op.output] = x;
      return absl::OkStatus();
    }
    if (OnlyMovesUnitDims(in_dims, perm)) {
      ANVIL_ASSIGN_OR_RETURN(values_[op.output], Reshape(x, in_dims, op.output));
      return absl::OkStatus();
    }
    Node* n = AddNode("Transpose", {x}, TensorType(op.output));
    n->SetAttribute(Attribute::Ints("perm", std::move(perm)));
    values_[op.output] = n->output(0);
    return absl::OkStatus();
  }

  // `x` (dims `in`) reshaped to tensor `t`'s dims; `x` itself when they are the same.
  absl::StatusOr<Value*> Reshape(Value* x, const DimsExpr& in, int t) {
    const ProgramTensor& to = p_.tensors[t];
    const DimsExpr target = to.Dims();
    if (target == in) return x;
    const size_t rank = target.size();
    // Per target dim: a literal, 0 (copy the input dim at the same index), or dynamic; one
    // dynamic dim is -1 (inferred). A literal 0 would mean "copy": programs have none (a label
    // of size 0 makes the whole program one kZeros), and symbolic dims are assumed non-zero.
    std::vector<std::optional<int64_t>> literal(rank);
    std::vector<size_t> dynamic;
    for (size_t j = 0; j < rank; ++j) {
      if (target[j].IsLiteral()) {
        if (target[j].literal() == 0 && !(j < in.size() && IsLiteral(in[j], 0))) {
          return absl::InternalError(
              absl::StrCat("einsum program reshapes to a zero dim: ", DimsToString(target)));
        }
        literal[j] = target[j].literal();
      } else if (j < in.size() && target[j] == in[j]) {
        literal[j] = 0;
      } else {
        dynamic.push_back(j);
      }
    }
    if (!dynamic.empty()) {
      literal[dynamic.front()] = -1;
      dynamic.erase(dynamic.begin());
    }
    std::vector<Value*> runtime(rank, nullptr);
    for (size_t j : dynamic) runtime[j] = AxisSize(to, j);
    return Add("Reshape", {x, ShapeVector(literal, runtime)}, TensorType(t));
  }

  // The last axis of `x` flattens `count` copies of one label of size n: its diagonal is every
  // (1 + n + ... + n^(count-1))-th element.
  Value* Diagonal(Value* x, const ProgramTensor& out, const ProgramOp& op) {
    const LabelDim& n = out.labels.at(out.axes.back()[0]);
    Value* step;
    if (n.size.IsLiteral()) {
      int64_t s = 1;
      for (int c = 1; c < op.diagonal_count; ++c) s = s * n.size.literal() + 1;
      step = Const({s});
    } else {
      Value* size = LabelSize(n);
      step = Add("Add", {size, Const({1})}, Int64s(1));
      for (int c = 2; c < op.diagonal_count; ++c) {
        step = Add("Add", {Add("Mul", {step, size}, Int64s(1)), Const({1})}, Int64s(1));
      }
    }
    return Add("Slice",
               {x, Const({0}), Const({std::numeric_limits<int64_t>::max()}), Const({-1}), step},
               TensorType(op.output));
  }

  // ConstantOfShape of `t`'s shape with a zero of the element type.
  Value* Zeros(const ProgramTensor& t, int id) {
    std::vector<std::optional<int64_t>> literal;
    std::vector<Value*> runtime;
    for (size_t j = 0; j < t.axes.size(); ++j) {
      const IndexExpr size = t.AxisSize(j);
      literal.push_back(size.IsLiteral() ? std::optional<int64_t>(size.literal()) : std::nullopt);
      runtime.push_back(literal.back() ? nullptr : AxisSize(t, j));
    }
    Node* n = AddNode("ConstantOfShape", {ShapeVector(literal, runtime)}, TensorType(id));
    const std::vector<uint8_t> zero(ElementSize(type_), 0);
    n->SetAttribute(
        Attribute::Tensor("value", DenseElements::FromBytes(type_, {1}, zero.data(), zero.size())));
    return n->output(0);
  }

  // ---- Commit or undo ----

  // The result takes over the Einsum output's name, type and uses; the Einsum goes.
  void Finish() {
    Value* out = einsum_.output(0);
    // New intermediates carry their inferred types in value_info, like the rest of the model.
    for (Node* n : created_nodes_) {
      if (n->output(0) != values_[p_.result]) g_.AddValueInfo(n->output(0));
    }
    Value* result = values_[p_.result];
    const bool ours = result->producer() != nullptr &&
                      std::find(created_nodes_.begin(), created_nodes_.end(), result->producer()) !=
                          created_nodes_.end();
    if (!ours && out->IsGraphOutput()) {
      result = Add("Identity", {result}, out->type());
    } else if (!ours) {
      out->ReplaceAllUsesWith(result);
      g_.EraseNode(&einsum_);
      return;
    }
    const std::string name = out->name();
    Type type = out->type().has_shape() ? out->type() : result->type();
    const bool in_value_info = out->in_value_info();
    std::string doc = out->doc_string();
    out->ReplaceAllUsesWith(result);
    g_.EraseNode(&einsum_);
    result->SetName(name);
    result->set_type(std::move(type));
    result->set_doc_string(std::move(doc));
    // The Einsum's output keeps its place: in value_info only when it was there.
    if (in_value_info) g_.AddValueInfo(result);
    result->producer()->set_name(einsum_name_);  // the final node stands for the Einsum
  }

  void Rollback() {
    for (auto it = created_nodes_.rbegin(); it != created_nodes_.rend(); ++it) g_.EraseNode(*it);
    for (Value* c : created_initializers_) g_.EraseValue(c);
    created_nodes_.clear();
    created_initializers_.clear();
  }

  const Program& p_;
  Node& einsum_;
  Graph& g_;
  int64_t opset_;
  ElementType type_;
  std::string base_;
  std::string einsum_name_;
  std::vector<Value*> values_;  // per program tensor
  std::vector<Node*> created_nodes_;
  std::vector<Value*> created_initializers_;
  absl::flat_hash_map<std::string, Value*> consts_;
  absl::flat_hash_map<std::string, Value*> runtime_dims_;  // run-time shape values by recipe
  absl::flat_hash_map<int, Value*> shapes_;
};

}  // namespace

absl::Status EmitProgram(const Program& program, Node& einsum, int64_t opset, EmittedOps* ops) {
  return GraphEmitter(program, einsum, opset).Run(ops);
}

}  // namespace anvil::einsum
