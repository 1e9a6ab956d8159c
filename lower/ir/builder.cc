#include "lower/ir/builder.h"

#include <utility>

#include "lower/ir/scalar.h"

namespace anvil::tir {

Expr Builder::Var(std::string name, DataType type) { return Take(MakeVar(std::move(name), type)); }

Expr Builder::Tensor(std::string name, DataType element, std::vector<Expr> dims) {
  return Take(MakeTensor(std::move(name), element, std::move(dims)));
}

Expr Builder::Const(DataType type, double v) {
  if (type.is_float()) return Take(MakeFloatConstant(type, v));
  const Scalar s = ApplyCast(type, DataType::F64(), Scalar{0, v});
  return Take(MakeIntConstant(type, s.i));
}

Expr Builder::Take(absl::StatusOr<Expr> e) {
  if (!e.ok()) {
    Fail(e.status());
    return Expr();
  }
  return *std::move(e);
}

Stmt Builder::Take(absl::StatusOr<Stmt> s) {
  if (!s.ok()) {
    Fail(s.status());
    return Stmt();
  }
  return *std::move(s);
}

}  // namespace anvil::tir
