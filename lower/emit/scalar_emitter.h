// The scalar part of the C++ emitter (emit_cc.h), on the IR's visitor: each Tensor IR expression
// kind prints as a C++ expression, each statement kind as lines of C++, with the evaluator's
// semantics through the prelude's helpers (prelude.inc: wrapping integers, checked division,
// saturating casts, f16/bf16 rounding after every operation). Like Halide's CodeGen_C, it keeps
// the names of the unit being written (graph names made C identifiers, each used once) and the
// text so far; VectorEmitter (vector_emitter.h) adds Highway loops through EmitVectorLoop, and
// the module's assembly (emit_cc.cc) drives both.
//
// Private to lower/emit.
#ifndef ANVIL_LOWER_EMIT_SCALAR_EMITTER_H_
#define ANVIL_LOWER_EMIT_SCALAR_EMITTER_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "lower/emit/emit_options.h"
#include "lower/ir/expr.h"
#include "lower/ir/functor.h"
#include "lower/ir/stmt.h"

namespace anvil::lower {

// The C++ type of values of scalar kind `t` in expressions (f16 and bf16 compute as float).
absl::StatusOr<std::string> ValueType(tir::DataType t);
// The C++ type elements of `t` are stored as (bool as uint8_t, f16 and bf16 as uint16_t).
absl::StatusOr<std::string> StorageType(tir::DataType t);
// The bytes of one stored element of `t` (0 for kinds without storage here).
int64_t StorageSize(tir::DataType t);
inline bool IsHalf(tir::DataType t) { return t.kind() == tir::ScalarKind::kF16; }
inline bool IsBf16(tir::DataType t) { return t.kind() == tir::ScalarKind::kBF16; }

// Whether an expression reads any of `vars`.
class MentionsAny final : public tir::IRVisitor {
 public:
  explicit MentionsAny(const absl::flat_hash_set<const tir::ExprNode*>& vars) : vars_(vars) {}
  bool found = false;

 protected:
  void VisitVar(const tir::VarNode&, const tir::Expr& e) override {
    found |= vars_.contains(e.get());
  }

 private:
  const absl::flat_hash_set<const tir::ExprNode*>& vars_;
};

class ScalarEmitter : public tir::IRVisitor {
 public:
  explicit ScalarEmitter(EmitOptions options) : options_(std::move(options)) {}

  const EmitOptions& options() const { return options_; }
  // The first failure (an IR form the emitter does not write); the text is then incomplete.
  const absl::Status& status() const { return status_; }
  void Fail(absl::Status s) {
    if (status_.ok()) status_ = std::move(s);
  }

  // ---- Names ----
  // The C identifier of a variable or tensor: its graph name made an identifier, unique in the
  // unit (a suffix _<n> when taken). Reserved names are never given out.
  std::string Name(const tir::Expr& e);
  void Reserve(const std::string& name) { used_.insert(name); }
  // A tensor's locals: its k-th dim and its data pointer.
  std::string Dim(const tir::Expr& t, size_t k);
  std::string Data(const tir::Expr& t);

  // ---- Text ----
  // The text written so far (the module's assembly moves pieces of it around).
  std::string& out() { return out_; }
  void set_indent(int indent) { indent_ = indent; }
  void Line(const std::string& text);
  // Declares a tensor's data pointer and dims as locals.
  void DeclareTensor(const tir::Expr& t, const std::string& data);
  // Row-major element offset.
  std::string Offset(const tir::Expr& t, const std::vector<tir::Expr>& indices);

  // ---- Code ----
  // A C++ expression for `e` ("0", with the failure recorded, when it has no C++ form here).
  std::string E(const tir::Expr& e);
  // The lines of `s` (nothing once a failure is recorded).
  void S(const tir::Stmt& s);

  // Emitting one group function of the entry: the names used meanwhile are recorded (the
  // module's assembly copies in only those fields of the state), and a Return ends the entry.
  void BeginGroup() {
    referenced_.clear();
    in_group_ = true;
  }
  void EndGroup() { in_group_ = false; }
  bool Referenced(const std::string& name) const { return referenced_.contains(name); }
  // Emitting a workspace size or an output dim: integer +, - and * set `anvil_overflow` when
  // they wrap (the size functions then report -1).
  void set_size_arithmetic(bool on) { size_arithmetic_ = on; }

 protected:
  // Writes the part of loop `n` (statement `s`, variable `v`, first trip `begin`) that runs
  // vectors, up to and including the header of the scalar loop that finishes it; false, having
  // written nothing, when the loop stays scalar. The scalar emitter has no vector code.
  virtual bool EmitVectorLoop(const tir::ForNode& n, const tir::Stmt& s, const std::string& v,
                              const std::string& begin) {
    return false;
  }

  // The visitor: every expression kind prints through Print() into id_ (read by E()), every
  // statement kind writes its lines through Emit(), each overloaded per node class.
#define ANVIL_TIR_EXPR(kind, node_class, spelling) \
  void Visit##kind(const tir::node_class& n, const tir::Expr& e) final { id_ = Print(n, e); }
#define ANVIL_TIR_STMT(kind, node_class) \
  void Visit##kind(const tir::node_class& n, const tir::Stmt& s) final { Emit(n, s); }
#include "lower/ir/node_kinds.inc"

  std::string Print(const tir::ConstantNode& n, const tir::Expr& e);
  std::string Print(const tir::VarNode& n, const tir::Expr& e);
  std::string Print(const tir::TensorNode& n, const tir::Expr& e);
  std::string Print(const tir::CastNode& n, const tir::Expr& e);
  std::string Print(const tir::BroadcastNode& n, const tir::Expr& e);
  std::string Print(const tir::BinaryNode& n, const tir::Expr& e);
  std::string Print(const tir::UnaryNode& n, const tir::Expr& e);
  std::string Print(const tir::SelectNode& n, const tir::Expr& e);
  std::string Print(const tir::IndexingNode& n, const tir::Expr& e);
  std::string Print(const tir::TensorPtrNode& n, const tir::Expr& e);
  std::string Print(const tir::CallNode& n, const tir::Expr& e);
  std::string Print(const tir::IntrinsicNode& n, const tir::Expr& e);
  // A cast of `value` to `to`: saturating from float to integer, rounded to f16/bf16.
  std::string Cast(tir::DataType to, const tir::Expr& value);
  // Rounds a float result to the type's precision (f16/bf16).
  std::string Round(tir::DataType t, std::string v);

  void Emit(const tir::AssignNode& n, const tir::Stmt& s);
  void Emit(const tir::StoreNode& n, const tir::Stmt& s);
  void Emit(const tir::BlockNode& n, const tir::Stmt& s);
  void Emit(const tir::IfElseNode& n, const tir::Stmt& s);
  void Emit(const tir::ForNode& n, const tir::Stmt& s);
  void Emit(const tir::EvaluateNode& n, const tir::Stmt& s);
  void Emit(const tir::ReturnNode& n, const tir::Stmt& s);
  void Emit(const tir::DefineNode& n, const tir::Stmt& s);
  void Emit(const tir::AssertNode& n, const tir::Stmt& s);
  void Emit(const tir::CommentNode& n, const tir::Stmt& s);

  // A C expression for the element operations one trip of a parallel loop costs.
  std::string WorkPerTrip(const tir::ForNode& n);
  std::string Work(const tir::Stmt& s, absl::flat_hash_set<const tir::ExprNode*>& inner);

  EmitOptions options_;
  std::string out_;
  int indent_ = 0;
  absl::Status status_;
  std::string id_;                          // the last expression printed
  std::vector<const tir::ForNode*> loops_;  // the loops around the statement being emitted
  absl::flat_hash_map<const tir::ExprNode*, std::string> names_;
  absl::flat_hash_set<std::string> used_;
  absl::flat_hash_set<std::string> referenced_;  // names used while emitting a group
  bool in_group_ = false;
  // Tensors whose data and dims a kernel call fills (dynamic outputs not yet produced).
  absl::flat_hash_set<const tir::ExprNode*> dynamic_;
  int next_temp_ = 0;
  bool size_arithmetic_ = false;
};

}  // namespace anvil::lower

#endif  // ANVIL_LOWER_EMIT_SCALAR_EMITTER_H_
