#include "lower/evaluator/evaluator.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/node_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/absl_compat.h"
#include "base/status_macros.h"
#include "exec/interpreter.h"
#include "exec/node_executor.h"
#include "kernels/op_kernel.h"
#include "kernels/simd/gemm.h"
#include "lower/emit/emit_cc.h"
#include "lower/ir/printer.h"
#include "lower/ir/scalar.h"
#include "lower/jit/host_support.h"
#include "runtime/memory_planner.h"
#include "shape/shape_helper.h"

namespace anvil::lower {

using tir::DataType;
using tir::Expr;
using tir::ExprKind;
using tir::Function;
using tir::IntrinsicOp;
using tir::Scalar;
using tir::ScalarKind;
using tir::Stmt;
using tir::StmtKind;

namespace {

// One expression value: a scalar, or the lanes of a vector.
struct Val {
  DataType type;
  Scalar s;
  std::vector<Scalar> lanes;  // when type.lanes() > 1

  Scalar lane(int k) const { return type.lanes() == 1 ? s : lanes[k]; }
};

// A tensor as the evaluator holds it: dense, row-major. A value tensor (ScalarKind::kValue: a
// sequence or optional) is `owner` itself, rank 0 in the IR whatever the value holds.
struct Buffer {
  DataType element;
  std::vector<int64_t> dims;
  std::vector<int64_t> strides;
  uint8_t* data = nullptr;
  Tensor owner;  // what keeps `data` alive when the evaluator allocated it
  bool ready = false;

  int64_t NumElements() const {
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    return n;
  }
  void SetDims(std::vector<int64_t> d) {
    dims = std::move(d);
    strides.assign(dims.size(), 1);
    for (size_t k = dims.size(); k-- > 1;) strides[k - 1] = strides[k] * dims[k];
  }
  bool is_value() const { return element.kind() == ScalarKind::kValue; }
  TensorView View() const {
    if (is_value()) return owner.view();
    return TensorView::Dense(tir::ElementTypeOf(element.kind()), data, dims);
  }
};

std::string Dims(const std::vector<int64_t>& d) {
  return absl::StrCat("[", absl::StrJoin(d, ", "), "]");
}

}  // namespace

class Evaluator::Impl {
 public:
  Impl(const tir::Module& module, EvaluatorOptions options, EvaluatorStats& stats)
      : module_(module), options_(options), stats_(stats) {}

  absl::StatusOr<std::vector<Tensor>> Run(const std::vector<Tensor>& inputs);

 private:
  // ---- Errors ----
  void Fail(absl::Status s) {
    if (status_.ok()) status_ = std::move(s);
  }
  void Fail(std::string_view what) { Fail(absl::InvalidArgumentError(std::string(what))); }

  // ---- Frames ----
  struct Frame {
    absl::node_hash_map<const tir::ExprNode*, Val> vars;
    absl::node_hash_map<const tir::ExprNode*, Buffer> tensors;
    uint8_t* workspace = nullptr;
    bool returned = false;
    Val result;
  };

  Buffer* FindBuffer(const Expr& tensor) {
    auto it = frame_->tensors.find(tensor.get());
    if (it != frame_->tensors.end()) return &it->second;
    auto g = globals_.find(tensor.get());
    if (g != globals_.end()) return &g->second;
    Fail(absl::StrCat("tensor ", tensor.as<tir::TensorNode>()->name, " is not defined here"));
    return nullptr;
  }

  // ---- Expressions ----
  Val Eval(const Expr& e);
  int64_t EvalIndex(const Expr& e) { return Eval(e).s.i; }
  // The flat element offset of `indices` in `b`, bounds-checked for `lanes` elements along the
  // last dim; -1 after an error.
  int64_t Offset(const Buffer& b, const tir::TensorNode& t, const std::vector<Expr>& indices,
                 int lanes, bool pointer);
  Val EvalIntrinsic(const tir::IntrinsicNode& n, const Expr& e);

  // ---- Statements ----
  void Exec(const Stmt& s);
  void ExecDefine(const tir::DefineNode& n);
  void RunKernel(const tir::IntrinsicNode& n);
  void RunGemm(const tir::IntrinsicNode& n);
  Val CallFunction(const Function& f, const std::vector<Expr>& args);

  // Allocates a dense tensor of `dims` for `name`, under the limit.
  absl::StatusOr<Tensor> Allocate(std::string_view name, DataType element,
                                  const std::vector<int64_t>& dims);

  absl::Status PrepareWorkspace(Frame& frame);

  const tir::Module& module_;
  EvaluatorOptions options_;
  EvaluatorStats& stats_;
  absl::Status status_;
  Frame* frame_ = nullptr;
  absl::node_hash_map<const tir::ExprNode*, Buffer> globals_;
  bool globals_bound_ = false;
  // Gemm, with the constant weights packed when the globals are bound (as CompiledModule does).
  GemmHost gemm_;
  std::vector<std::unique_ptr<OpKernel>> kernels_;
  std::unique_ptr<MemoryPlanner> planner_;
  Tensor workspace_;
};

absl::StatusOr<Tensor> Evaluator::Impl::Allocate(std::string_view name, DataType element,
                                                 const std::vector<int64_t>& dims) {
  const ElementType type = tir::ElementTypeOf(element.kind());
  absl::StatusOr<Tensor> t = Tensor::Allocate(type, dims, options_.max_allocation_bytes);
  if (!t.ok()) {
    return absl::Status(t.status().code(),
                        absl::StrCat("tensor ", AsAbsl(name), ": ", t.status().message()));
  }
  ++stats_.local_allocations;
  return t;
}

int64_t Evaluator::Impl::Offset(const Buffer& b, const tir::TensorNode& t,
                                const std::vector<Expr>& indices, int lanes, bool pointer) {
  int64_t offset = 0;
  std::vector<int64_t> at(indices.size());
  bool empty = false;
  for (size_t k = 0; k < indices.size(); ++k) {
    at[k] = EvalIndex(indices[k]);
    empty |= b.dims[k] == 0;
  }
  if (!status_.ok()) return -1;
  for (size_t k = 0; k < indices.size(); ++k) {
    const int64_t extent = (k + 1 == indices.size()) ? lanes : 1;
    // A pointer may point at the start of an empty tensor; nothing reads through it.
    const bool out = pointer && empty ? at[k] != 0 : at[k] < 0 || at[k] + extent > b.dims[k];
    if (out) {
      Fail(absl::OutOfRangeError(absl::StrCat("tensor IR: ", t.name, Dims(at),
                                              lanes > 1 ? absl::StrCat(" (", lanes, " lanes)") : "",
                                              " is out of range for dims ", Dims(b.dims))));
      return -1;
    }
    offset += at[k] * b.strides[k];
  }
  return offset;
}

Val Evaluator::Impl::Eval(const Expr& e) {
  Val out;
  out.type = e.type();
  if (!status_.ok()) return out;
  const int lanes = e.type().lanes();
  auto set_lanes = [&](auto fn) {
    if (lanes == 1) {
      out.s = fn(0);
    } else {
      out.lanes.resize(lanes);
      for (int k = 0; k < lanes; ++k) out.lanes[k] = fn(k);
    }
  };
  switch (e.kind()) {
    case ExprKind::kConstant: {
      const auto* c = e.as<tir::ConstantNode>();
      out.s = Scalar{c->int_value, c->float_value};
      return out;
    }
    case ExprKind::kVar: {
      auto it = frame_->vars.find(e.get());
      if (it == frame_->vars.end()) {
        Fail(absl::StrCat("variable ", e.as<tir::VarNode>()->name, " has no value"));
        return out;
      }
      return it->second;
    }
    case ExprKind::kTensor:
      Fail(absl::StrCat("tensor ", e.as<tir::TensorNode>()->name, " used as a value"));
      return out;
    case ExprKind::kCast: {
      const auto* c = e.as<tir::CastNode>();
      const Val v = Eval(c->value);
      set_lanes([&](int k) { return tir::ApplyCast(e.type(), c->value.type(), v.lane(k)); });
      return out;
    }
    case ExprKind::kBroadcast: {
      const Val v = Eval(e.as<tir::BroadcastNode>()->value);
      set_lanes([&](int) { return v.s; });
      return out;
    }
    case ExprKind::kNeg:
    case ExprKind::kNot: {
      const auto* u = e.as<tir::UnaryNode>();
      const Val v = Eval(u->a);
      set_lanes([&](int k) { return tir::ApplyUnary(e.kind(), u->a.type(), v.lane(k)); });
      return out;
    }
    case ExprKind::kSelect: {
      const auto* s = e.as<tir::SelectNode>();
      const Val c = Eval(s->cond);
      // Both branches are evaluated: expressions have no side effects, but a guarded division
      // by zero must not fail, so a failing branch not taken is forgiven.
      const absl::Status before = status_;
      const Val t = Eval(s->if_true);
      const absl::Status after_true = status_;
      status_ = before;
      const Val f = Eval(s->if_false);
      const absl::Status after_false = status_;
      status_ = before;
      if (!status_.ok()) return out;
      bool need_true = false, need_false = false;
      for (int k = 0; k < lanes; ++k) {
        (c.lane(c.type.lanes() == 1 ? 0 : k).i != 0 ? need_true : need_false) = true;
      }
      if (need_true && !after_true.ok()) Fail(after_true);
      if (need_false && !after_false.ok()) Fail(after_false);
      set_lanes([&](int k) {
        return c.lane(c.type.lanes() == 1 ? 0 : k).i != 0 ? t.lane(k) : f.lane(k);
      });
      return out;
    }
    case ExprKind::kIndexing: {
      const auto* n = e.as<tir::IndexingNode>();
      const auto* t = n->tensor.as<tir::TensorNode>();
      Buffer* b = FindBuffer(n->tensor);
      if (b == nullptr) return out;
      const int64_t offset = Offset(*b, *t, n->indices, lanes, /*pointer=*/false);
      if (offset < 0) return out;
      const size_t size = static_cast<size_t>(b->element.bits() / 8);
      set_lanes([&](int k) { return tir::LoadScalar(b->element, b->data + (offset + k) * size); });
      return out;
    }
    case ExprKind::kTensorPtr: {
      const auto* n = e.as<tir::TensorPtrNode>();
      Buffer* b = FindBuffer(n->tensor);
      if (b == nullptr) return out;
      const int64_t offset = Offset(*b, *n->tensor.as<tir::TensorNode>(), n->indices, 1, true);
      if (offset < 0) return out;
      out.s.i = reinterpret_cast<intptr_t>(b->data + offset * (b->element.bits() / 8));
      return out;
    }
    case ExprKind::kCall: {
      const auto* c = e.as<tir::CallNode>();
      const Function* f = module_.FindFunction(c->callee);
      if (f == nullptr) {
        Fail(absl::StrCat("call of unknown function ", c->callee));
        return out;
      }
      return CallFunction(*f, c->args);
    }
    case ExprKind::kIntrinsic:
      return EvalIntrinsic(*e.as<tir::IntrinsicNode>(), e);
    default: {  // binary operators
      const auto* b = e.as<tir::BinaryNode>();
      const Val x = Eval(b->a);
      const Val y = Eval(b->b);
      if (!status_.ok()) return out;
      const DataType operand = b->a.type();
      set_lanes([&](int k) {
        absl::StatusOr<Scalar> r = tir::ApplyBinary(e.kind(), operand, x.lane(k), y.lane(k));
        if (!r.ok()) {
          Fail(absl::InvalidArgumentError(
              absl::StrCat("tensor IR: ", r.status().message(), " in ", e.ToString())));
          return Scalar{};
        }
        return *r;
      });
      return out;
    }
  }
}

Val Evaluator::Impl::EvalIntrinsic(const tir::IntrinsicNode& n, const Expr& e) {
  Val out;
  out.type = e.type();
  if (tir::IsKernelIntrinsic(n.op)) {
    Fail(absl::StrCat("kernel intrinsic outside an evaluate statement: ", e.ToString()));
    return out;
  }
  std::vector<Val> args;
  for (const Expr& a : n.args) args.push_back(Eval(a));
  if (!status_.ok()) return out;
  if (n.op == IntrinsicOp::kReduceAdd || n.op == IntrinsicOp::kReduceMax ||
      n.op == IntrinsicOp::kReduceMin) {
    const ExprKind kind = n.op == IntrinsicOp::kReduceAdd   ? ExprKind::kAdd
                          : n.op == IntrinsicOp::kReduceMax ? ExprKind::kMax
                                                            : ExprKind::kMin;
    const DataType element = n.args[0].type().element();
    Scalar acc = args[0].lane(0);
    for (int k = 1; k < n.args[0].type().lanes(); ++k) {
      acc = *tir::ApplyBinary(kind, element, acc, args[0].lane(k));
    }
    out.s = acc;
    return out;
  }
  const int lanes = e.type().lanes();
  std::vector<Scalar> lane_args(args.size());
  auto lane = [&](int k) {
    for (size_t a = 0; a < args.size(); ++a) lane_args[a] = args[a].lane(k);
    absl::StatusOr<Scalar> r = tir::ApplyIntrinsic(n.op, n.args[0].type(), lane_args);
    if (!r.ok()) {
      Fail(absl::InvalidArgumentError(absl::StrCat("tensor IR: ", r.status().message())));
      return Scalar{};
    }
    return *r;
  };
  if (lanes == 1) {
    out.s = lane(0);
  } else {
    out.lanes.resize(lanes);
    for (int k = 0; k < lanes; ++k) out.lanes[k] = lane(k);
  }
  return out;
}

Val Evaluator::Impl::CallFunction(const Function& f, const std::vector<Expr>& args) {
  Frame callee;
  Val result;
  result.type = f.ret;
  if (args.size() != f.params.size()) {
    Fail(absl::StrCat("call of ", f.name, " with ", args.size(), " arguments"));
    return result;
  }
  for (size_t k = 0; k < args.size(); ++k) {
    if (f.params[k].as<tir::TensorNode>()) {
      Buffer* b = FindBuffer(args[k]);
      if (b == nullptr) return result;
      callee.tensors[f.params[k].get()] = *b;
    } else {
      callee.vars[f.params[k].get()] = Eval(args[k]);
    }
  }
  if (!status_.ok()) return result;
  callee.workspace = frame_->workspace;
  Frame* caller = frame_;
  frame_ = &callee;
  Exec(f.body);
  frame_ = caller;
  return callee.result;
}

void Evaluator::Impl::Exec(const Stmt& s) {
  if (!status_.ok() || frame_->returned) return;
  ++stats_.statements;
  switch (s.kind()) {
    case StmtKind::kAssign: {
      const auto* n = s.as<tir::AssignNode>();
      Val v = Eval(n->value);
      if (status_.ok()) frame_->vars[n->var.get()] = std::move(v);
      return;
    }
    case StmtKind::kStore: {
      const auto* n = s.as<tir::StoreNode>();
      const auto* t = n->tensor.as<tir::TensorNode>();
      Buffer* b = FindBuffer(n->tensor);
      if (b == nullptr) return;
      const int lanes = n->value.type().lanes();
      // A float16 or bfloat16 element moved unchanged keeps its bits (a NaN its payload), as
      // the kernels' data movement and the compiled code copy it.
      if (const auto* load = n->value.as<tir::IndexingNode>();
          load != nullptr && lanes == 1 && load->tensor.type() == n->tensor.type() &&
          (n->tensor.type().kind() == tir::ScalarKind::kF16 ||
           n->tensor.type().kind() == tir::ScalarKind::kBF16)) {
        Buffer* from = FindBuffer(load->tensor);
        if (from == nullptr) return;
        const int64_t source =
            Offset(*from, *load->tensor.as<tir::TensorNode>(), load->indices, 1, /*pointer=*/false);
        const int64_t offset = Offset(*b, *t, n->indices, 1, /*pointer=*/false);
        if (source < 0 || offset < 0 || !status_.ok()) return;
        std::memcpy(b->data + offset * 2, from->data + source * 2, 2);
        return;
      }
      const Val v = Eval(n->value);
      const int64_t offset = Offset(*b, *t, n->indices, lanes, /*pointer=*/false);
      if (offset < 0 || !status_.ok()) return;
      const size_t size = static_cast<size_t>(b->element.bits() / 8);
      for (int k = 0; k < lanes; ++k) {
        tir::StoreScalar(b->element, b->data + (offset + k) * size, v.lane(k));
      }
      return;
    }
    case StmtKind::kBlock:
      for (const Stmt& c : s.as<tir::BlockNode>()->stmts) {
        Exec(c);
        if (!status_.ok() || frame_->returned) return;
      }
      return;
    case StmtKind::kIfElse: {
      const auto* n = s.as<tir::IfElseNode>();
      const Val c = Eval(n->cond);
      if (!status_.ok()) return;
      if (c.s.i != 0) {
        Exec(n->then_body);
      } else if (n->else_body.defined()) {
        Exec(n->else_body);
      }
      return;
    }
    case StmtKind::kFor: {
      const auto* n = s.as<tir::ForNode>();
      const int64_t begin = EvalIndex(n->begin), end = EvalIndex(n->end), step = EvalIndex(n->step);
      if (!status_.ok()) return;
      if (step <= 0) return Fail(absl::StrCat("loop step ", step, " <= 0 in ", s.ToString()));
      Val& slot = frame_->vars[n->var.get()];  // node_hash_map: stable across inserts
      slot.type = DataType::Index();
      for (int64_t i = begin; i < end; i += step) {
        slot.s.i = i;
        Exec(n->body);
        if (!status_.ok() || frame_->returned) return;
        if (i > INT64_MAX - step) break;
      }
      return;
    }
    case StmtKind::kEvaluate: {
      const Expr& v = s.as<tir::EvaluateNode>()->value;
      if (const auto* c = v.as<tir::IntrinsicNode>();
          c != nullptr && tir::IsKernelIntrinsic(c->op)) {
        if (c->op == IntrinsicOp::kGemm) return RunGemm(*c);
        return RunKernel(*c);
      }
      Eval(v);
      return;
    }
    case StmtKind::kReturn: {
      const auto* n = s.as<tir::ReturnNode>();
      if (n->value.defined()) frame_->result = Eval(n->value);
      frame_->returned = true;
      return;
    }
    case StmtKind::kDefine:
      return ExecDefine(*s.as<tir::DefineNode>());
    case StmtKind::kAssert: {
      const auto* n = s.as<tir::AssertNode>();
      const Val c = Eval(n->cond);
      if (status_.ok() && c.s.i == 0) Fail(absl::InvalidArgumentError(n->message));
      return;
    }
    case StmtKind::kComment:
      return;
  }
}

void Evaluator::Impl::ExecDefine(const tir::DefineNode& n) {
  if (n.target.as<tir::VarNode>()) {
    Val v;
    v.type = n.target.type();
    if (v.type.lanes() > 1) v.lanes.resize(v.type.lanes());
    if (n.init.defined()) v = Eval(n.init);
    if (status_.ok()) frame_->vars[n.target.get()] = std::move(v);
    return;
  }
  const auto* t = n.target.as<tir::TensorNode>();
  Buffer b;
  b.element = t->type();
  if (n.tensor.dynamic) {  // the kernel call that writes it allocates it
    frame_->tensors[n.target.get()] = std::move(b);
    return;
  }
  std::vector<int64_t> dims;
  for (const Expr& d : t->dims) {
    dims.push_back(EvalIndex(d));
    if (status_.ok() && dims.back() < 0) {
      return Fail(absl::StrCat("tensor ", t->name, " has a negative dim: ", Dims(dims)));
    }
  }
  if (!status_.ok()) return;
  b.SetDims(dims);
  if (n.tensor.view_of.defined()) {
    Buffer* base = FindBuffer(n.tensor.view_of);
    if (base == nullptr) return;
    if (base->NumElements() != b.NumElements()) {
      return Fail(absl::StrCat("view ", t->name, Dims(dims), " of ", Dims(base->dims),
                               ": element counts differ"));
    }
    b.data = base->data;
    b.owner = base->owner;
  } else if (n.tensor.offset.defined()) {
    const int64_t offset = EvalIndex(n.tensor.offset);
    if (!status_.ok()) return;
    if (frame_->workspace == nullptr) {
      return Fail(absl::StrCat("tensor ", t->name, " is placed in a workspace this run has not"));
    }
    b.data = frame_->workspace + offset;
  } else {
    absl::StatusOr<Tensor> owner = Allocate(t->name, b.element, dims);
    if (!owner.ok()) return Fail(owner.status());
    b.owner = *std::move(owner);
    b.data = static_cast<uint8_t*>(b.owner.data());
  }
  b.ready = true;
  frame_->tensors[n.target.get()] = std::move(b);
}

void Evaluator::Impl::RunGemm(const tir::IntrinsicNode& n) {
  ++stats_.gemm_calls;
  std::vector<Val> a;
  for (const Expr& e : n.args) a.push_back(Eval(e));
  if (!status_.ok()) return;
  const bool ta = a[0].s.i != 0, tb = a[1].s.i != 0;
  const int64_t m = a[2].s.i, nn = a[3].s.i, k = a[4].s.i;
  if (m < 0 || nn < 0 || k < 0) return Fail("gemm with a negative size");
  if (m == 0 || nn == 0) return;
  // Compiled code's gemm host, with the same weights packed: the same bits as compiled code.
  const int64_t packed_before = gemm_.packed_products();
  const absl::Status s = gemm_.Gemm(n.args[6].type().kind() != ScalarKind::kF32, ta, tb, m, nn, k,
                                    a[5].s.f, reinterpret_cast<const void*>(a[6].s.i), a[7].s.i,
                                    reinterpret_cast<const void*>(a[8].s.i), a[9].s.i, a[10].s.f,
                                    reinterpret_cast<void*>(a[11].s.i), a[12].s.i);
  stats_.packed_gemm_calls += gemm_.packed_products() - packed_before;
  if (!s.ok()) Fail(s);
}

void Evaluator::Impl::RunKernel(const tir::IntrinsicNode& n) {
  ++stats_.kernel_calls;
  int64_t id = 0;
  tir::AsIntConstant(n.args[0], &id);
  const tir::KernelBinding& binding = module_.kernels[id];
  if (binding.node == nullptr) {
    return Fail(absl::FailedPreconditionError(absl::StrCat("kernel ", id, " (", binding.op_type,
                                                           ") has no node to run (a parsed "
                                                           "module runs only its own loops)")));
  }
  const Node& node = *binding.node;
  if (kernels_.size() < module_.kernels.size()) kernels_.resize(module_.kernels.size());
  if (kernels_[id] == nullptr) {
    absl::StatusOr<std::unique_ptr<OpKernel>> k = CreateKernel(node, binding.opset);
    if (!k.ok()) return Fail(k.status());
    kernels_[id] = *std::move(k);
  }
  std::vector<TensorView> inputs(node.num_inputs());
  std::vector<TensorView> planned(node.num_outputs());
  std::vector<Buffer*> outputs(node.num_outputs(), nullptr);
  std::vector<const tir::TensorNode*> output_nodes(node.num_outputs(), nullptr);
  for (size_t k = 0; k < binding.slots.size(); ++k) {
    const Expr& operand = n.args[k + 1];
    Buffer* b = FindBuffer(operand);
    if (b == nullptr) return;
    const int slot = binding.slots[k];
    if (slot >= 0) {
      inputs[slot] = b->View();
    } else {
      outputs[-1 - slot] = b;
      output_nodes[-1 - slot] = operand.as<tir::TensorNode>();
      if (b->ready) planned[-1 - slot] = b->View();
    }
  }
  // Values the node's subgraphs capture, as tensors the interpreter can read.
  absl::flat_hash_map<const Value*, Tensor> captured;
  for (size_t k = 0; k < binding.captures.size(); ++k) {
    Buffer* b = FindBuffer(n.args[1 + binding.slots.size() + k]);
    if (b == nullptr) return;
    if (k < binding.captured_values.size()) {
      captured[binding.captured_values[k]] = Tensor::CopyOf(b->View());
    }
  }
  NodeExecOptions exec;
  exec.default_seed = options_.seed;
  exec.max_allocation_bytes = options_.max_allocation_bytes;
  // The module was lowered over symbolic dims: this run's inputs must satisfy the op's rule
  // (not checkable for If/Loop/Scan, whose outputs come from running their bodies).
  exec.check_planned_dims = node.Subgraphs().empty();
  if (module_.source != nullptr) {
    exec.subgraph_runner = InterpreterSubgraphRunner(
        *module_.source,
        [&captured](const Value* v) -> const Tensor* {
          auto it = captured.find(v);
          return it == captured.end() ? nullptr : &it->second;
        },
        /*observer=*/nullptr, options_.max_allocation_bytes);
  }
  // Nodes with subgraphs size their outputs by running them, as in the runtime: no ShapeFn.
  const ShapeFn shape_fn = node.Subgraphs().empty()
                               ? FindShapeFn(node.domain(), node.op_type(), binding.opset)
                               : nullptr;
  auto make_output = [&](int i, ElementType type,
                         absl::Span<const int64_t> dims) -> absl::StatusOr<TensorView> {
    Buffer* b = outputs[i];
    std::vector<int64_t> d(dims.begin(), dims.end());
    std::optional<ScalarKind> kind = tir::ScalarKindOf(type);
    if (!kind) {
      return absl::InternalError(
          absl::StrCat(node.Describe(), ": output ", i, " has no element type to allocate"));
    }
    ANVIL_ASSIGN_OR_RETURN(
        Tensor t,
        Allocate(output_nodes[i] != nullptr ? output_nodes[i]->name : node.output(i)->name(),
                 b != nullptr && !b->is_value() ? b->element : DataType(*kind), d));
    if (b == nullptr) return t.view();  // an output nobody reads
    b->owner = t;
    b->data = static_cast<uint8_t*>(t.data());
    if (!b->is_value()) b->SetDims(d);  // (a value holding a tensor stays rank 0 in the IR)
    b->ready = true;
    return t.view();
  };
  // Sequences, optionals and tensors a kernel hands over whole.
  exec.value_sink = [&](int i, Tensor value) -> absl::Status {
    Buffer* b = outputs[i];
    if (b == nullptr) return absl::OkStatus();
    if (!b->is_value()) {
      if (!value.is_tensor() || tir::ScalarKindOf(value.type()) != b->element.kind()) {
        return absl::InternalError(absl::StrCat(node.Describe(), ": output ", i, " is a ",
                                                b->element.ToString(), " tensor, the kernel set ",
                                                value.view().DebugString()));
      }
      b->data = static_cast<uint8_t*>(value.data());
      b->SetDims({value.dims().begin(), value.dims().end()});
    }
    b->owner = std::move(value);
    b->ready = true;
    return absl::OkStatus();
  };
  // Outputs the graph omits or nobody reads still get somewhere to go.
  absl::Status s = ExecuteNode(node, binding.opset, *kernels_[id], shape_fn, std::move(inputs),
                               planned, make_output, exec);
  if (!s.ok()) return Fail(s);
  // A dynamic output's dims are variables the call assigns.
  for (size_t o = 0; o < outputs.size(); ++o) {
    if (outputs[o] == nullptr || output_nodes[o] == nullptr || outputs[o]->is_value()) continue;
    const auto& dims = output_nodes[o]->dims;
    if (dims.size() != outputs[o]->dims.size()) {
      return Fail(absl::StrCat(node.Describe(), ": output ", o, " has rank ",
                               outputs[o]->dims.size(), ", the IR expects ", dims.size()));
    }
    for (size_t k = 0; k < dims.size(); ++k) {
      if (dims[k].as<tir::VarNode>()) {
        Val v;
        v.type = DataType::Index();
        v.s.i = outputs[o]->dims[k];
        frame_->vars[dims[k].get()] = v;
      } else {
        int64_t c;
        if (tir::AsIntConstant(dims[k], &c) && c != outputs[o]->dims[k]) {
          return Fail(absl::StrCat(node.Describe(), ": output ", o, " is ", Dims(outputs[o]->dims),
                                   ", the IR expects dim ", k, " = ", c));
        }
      }
    }
  }
}

absl::Status Evaluator::Impl::PrepareWorkspace(Frame& frame) {
  const tir::Workspace& ws = module_.workspace;
  if (ws.empty()) return absl::OkStatus();
  int64_t bytes = 0;
  if (ws.bytes.defined()) {
    bytes = EvalIndex(ws.bytes);
  } else {
    std::vector<int64_t> sizes;
    for (const tir::WorkspaceBuffer& b : ws.buffers) sizes.push_back(EvalIndex(b.bytes));
    ANVIL_RETURN_IF_ERROR(status_);
    if (planner_ == nullptr) {
      std::vector<Lifetime> lifetimes;
      for (const tir::WorkspaceBuffer& b : ws.buffers) lifetimes.push_back({b.first, b.last});
      planner_ =
          std::make_unique<MemoryPlanner>(std::move(lifetimes), std::vector<ReuseCandidate>{});
    }
    planner_->Plan(sizes);
    bytes = planner_->arena_bytes();
    Buffer* offsets = FindBuffer(ws.offsets);
    if (offsets == nullptr) return status_;
    for (size_t k = 0; k < ws.buffers.size(); ++k) {
      reinterpret_cast<int64_t*>(offsets->data)[k] = planner_->offset(static_cast<int>(k));
    }
  }
  ANVIL_RETURN_IF_ERROR(status_);
  // At least one byte: buffers that are all empty this run are still placed in it.
  if (workspace_.data() == nullptr || workspace_.ByteSize() < static_cast<size_t>(bytes)) {
    ANVIL_ASSIGN_OR_RETURN(workspace_,
                           Tensor::Allocate(ElementType::kUint8, {std::max<int64_t>(bytes, 1)},
                                            options_.max_allocation_bytes,
                                            /*zero=*/false));
  }
  stats_.workspace_bytes = bytes;
  frame.workspace = static_cast<uint8_t*>(workspace_.data());
  return absl::OkStatus();
}

absl::StatusOr<std::vector<Tensor>> Evaluator::Impl::Run(const std::vector<Tensor>& inputs) {
  status_ = absl::OkStatus();
  stats_ = EvaluatorStats();
  const Function* entry = module_.FindFunction(module_.entry);
  if (entry == nullptr) return absl::InvalidArgumentError("the module has no entry function");
  const tir::EntryBinding& binding = module_.binding;
  if (inputs.size() != binding.inputs.size()) {
    return absl::InvalidArgumentError(absl::StrCat("the model takes ", binding.inputs.size(),
                                                   " inputs, ", inputs.size(), " given"));
  }
  if (!globals_bound_) {
    for (const tir::Global& g : module_.globals) {
      const auto* t = g.tensor.as<tir::TensorNode>();
      if (g.data == nullptr) {
        return absl::FailedPreconditionError(absl::StrCat("global ", t->name, " has no contents"));
      }
      Buffer b;
      b.element = t->type();
      b.SetDims({g.data->dims().begin(), g.data->dims().end()});
      b.owner = Tensor::FromElements(*g.data);
      b.data = static_cast<uint8_t*>(b.owner.data());
      b.ready = true;
      globals_[g.tensor.get()] = std::move(b);
    }
    for (const GemmWeightUse& u : ConstantGemmWeights(module_)) {
      const Buffer& w = globals_[module_.globals[u.global].tensor.get()];
      if (w.element.kind() != ScalarKind::kF32) continue;
      gemm_.PackWeight(reinterpret_cast<const float*>(w.data), w.NumElements(), u.trans_b, u.k, u.n,
                       u.ldb);
    }
    globals_bound_ = true;
  }
  Frame frame;
  frame_ = &frame;
  // Dims first: tensor parameters' dims are expressions over them.
  for (const tir::EntryBinding::DimSource& d : binding.dims) {
    const Tensor& in = inputs[d.input].defined() || binding.inputs[d.input].default_value == nullptr
                           ? inputs[d.input]
                           : Tensor::FromElements(*binding.inputs[d.input].default_value);
    if (d.axis >= static_cast<int>(in.dims().size())) {
      return absl::InvalidArgumentError(absl::StrCat("input ", binding.inputs[d.input].name,
                                                     " has rank ", in.dims().size(),
                                                     ", the model reads its dim ", d.axis));
    }
    Val v;
    v.type = DataType::Index();
    v.s.i = in.dims()[d.axis];
    frame.vars[d.var.get()] = v;
  }
  auto bind_dims = [&](const tir::TensorNode& t, std::vector<int64_t>* dims) {
    for (const Expr& d : t.dims) dims->push_back(EvalIndex(d));
    return status_;
  };
  std::vector<Tensor> defaults(binding.inputs.size());
  for (size_t k = 0; k < binding.inputs.size(); ++k) {
    if (!inputs[k].defined() && binding.inputs[k].default_value != nullptr) {
      defaults[k] = Tensor::FromElements(*binding.inputs[k].default_value);
    }
  }
  auto input_at = [&](size_t k) -> const Tensor& {
    return defaults[k].defined() ? defaults[k] : inputs[k];
  };
  for (size_t k = 0; k < binding.inputs.size(); ++k) {
    const Tensor& in = input_at(k);
    if (!in.defined()) {
      return absl::InvalidArgumentError(
          absl::StrCat("input ", binding.inputs[k].name, " is missing"));
    }
    const auto* t = binding.inputs[k].tensor.as<tir::TensorNode>();
    if (t->type().kind() == ScalarKind::kValue) {  // a sequence or optional, whole
      Buffer b;
      b.element = t->type();
      b.owner = in;
      b.ready = true;
      frame.tensors[binding.inputs[k].tensor.get()] = std::move(b);
      continue;
    }
    std::vector<int64_t> dims;
    ANVIL_RETURN_IF_ERROR(bind_dims(*t, &dims));
    if (tir::ElementTypeOf(t->type().kind()) != in.type()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "input ", binding.inputs[k].name, " is ", AsAbsl(ElementTypeName(in.type())),
          ", the model takes ", AsAbsl(ElementTypeName(tir::ElementTypeOf(t->type().kind())))));
    }
    if (std::vector<int64_t>(in.dims().begin(), in.dims().end()) != dims) {
      return absl::InvalidArgumentError(absl::StrCat("input ", binding.inputs[k].name, " is ",
                                                     Dims({in.dims().begin(), in.dims().end()}),
                                                     ", the model takes ", Dims(dims)));
    }
    Buffer b;
    b.element = t->type();
    b.SetDims(dims);
    b.owner = in;
    b.data = static_cast<uint8_t*>(in.data());
    b.ready = true;
    frame.tensors[binding.inputs[k].tensor.get()] = std::move(b);
  }
  for (const tir::EntryBinding::Tensor& out : binding.outputs) {
    if (out.dynamic) continue;
    const auto* t = out.tensor.as<tir::TensorNode>();
    std::vector<int64_t> dims;
    ANVIL_RETURN_IF_ERROR(bind_dims(*t, &dims));
    Buffer b;
    b.element = t->type();
    b.SetDims(dims);
    ANVIL_ASSIGN_OR_RETURN(b.owner, Allocate(t->name, b.element, dims));
    b.data = static_cast<uint8_t*>(b.owner.data());
    b.ready = true;
    frame.tensors[out.tensor.get()] = std::move(b);
  }
  if (module_.workspace.offsets.defined()) {
    const auto* t = module_.workspace.offsets.as<tir::TensorNode>();
    Buffer b;
    b.element = t->type();
    b.SetDims({static_cast<int64_t>(module_.workspace.buffers.size())});
    ANVIL_ASSIGN_OR_RETURN(b.owner, Allocate(t->name, b.element, b.dims));
    b.data = static_cast<uint8_t*>(b.owner.data());
    b.ready = true;
    frame.tensors[module_.workspace.offsets.get()] = std::move(b);
  }
  ANVIL_RETURN_IF_ERROR(PrepareWorkspace(frame));
  Exec(entry->body);
  frame_ = nullptr;
  ANVIL_RETURN_IF_ERROR(status_);
  std::vector<Tensor> results;
  for (const tir::EntryBinding::Tensor& out : binding.outputs) {
    auto it = frame.tensors.find(out.tensor.get());
    if (it == frame.tensors.end() || !it->second.ready) {
      return absl::InternalError(absl::StrCat("output ", out.name, " was not produced"));
    }
    const Buffer& b = it->second;
    if (b.is_value()) {
      results.push_back(b.owner);
      continue;
    }
    // Outputs own their memory: a view of something else (a workspace) is copied.
    if (b.owner.defined() && b.owner.data() == b.data && b.owner.NumElements() == b.NumElements()) {
      Tensor t = b.owner;
      if (std::vector<int64_t>(t.dims().begin(), t.dims().end()) != b.dims) {
        t = Tensor::CopyOf(b.View());
      }
      results.push_back(t);
    } else {
      results.push_back(Tensor::CopyOf(b.View()));
    }
  }
  return results;
}

Evaluator::Evaluator(const tir::Module& module, EvaluatorOptions options)
    : impl_(std::make_unique<Impl>(module, options, stats_)) {}
Evaluator::~Evaluator() = default;

absl::StatusOr<std::vector<Tensor>> Evaluator::Run(const std::vector<Tensor>& inputs) {
  return impl_->Run(inputs);
}

absl::StatusOr<std::vector<Tensor>> EvaluateModule(const tir::Module& module,
                                                   const std::vector<Tensor>& inputs,
                                                   const EvaluatorOptions& options) {
  Evaluator evaluator(module, options);
  return evaluator.Run(inputs);
}

}  // namespace anvil::lower
