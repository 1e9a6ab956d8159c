// What the node factories of expr.cc and stmt.cc share: the error a factory returns for a node
// it refuses ("tensor IR: <what>", InvalidArgument), an operand as text for that error, and the
// allocation of a node behind its handle. Private to the :ir library.
#ifndef ANVIL_LOWER_IR_FACTORY_UTIL_H_
#define ANVIL_LOWER_IR_FACTORY_UTIL_H_

#include <memory>
#include <string>
#include <type_traits>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace anvil::tir {

// Declared by expr.h and stmt.h, which include this header's users; named here only, so that
// this header includes neither.
class Expr;
class ExprNode;
class Stmt;

namespace factory_internal {

inline absl::Status Invalid(absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("tensor IR: ", what));
}

// The operand (an Expr) as the printer writes it, or "<null>".
template <typename Handle>
std::string Show(const Handle& e) {
  return e.defined() ? e.ToString() : "<null>";
}

// A new node of class T behind its handle: an Expr for an expression node, else a Stmt.
template <typename T, typename... Args>
auto New(Args&&... args) {
  using Handle = std::conditional_t<std::is_base_of_v<ExprNode, T>, Expr, Stmt>;
  return Handle(std::make_shared<const T>(std::forward<Args>(args)...));
}

}  // namespace factory_internal
}  // namespace anvil::tir

#endif  // ANVIL_LOWER_IR_FACTORY_UTIL_H_
