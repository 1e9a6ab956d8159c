// Status propagation without the boilerplate:
//
//   ANVIL_RETURN_IF_ERROR(RunSomething());            // returns the status when it is an error
//   ANVIL_ASSIGN_OR_RETURN(Tensor t, MakeTensor());   // t is the value, or the error returns
//
// Both work in functions returning absl::Status or any absl::StatusOr<T>. The expression is
// evaluated once. The left-hand side of ANVIL_ASSIGN_OR_RETURN is a declaration or an lvalue
// without a top-level comma (a structured binding needs a variable first); the expression may
// have commas.
#ifndef ANVIL_BASE_STATUS_MACROS_H_
#define ANVIL_BASE_STATUS_MACROS_H_

#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define ANVIL_STATUS_CONCAT_INNER_(a, b) a##b
#define ANVIL_STATUS_CONCAT_(a, b) ANVIL_STATUS_CONCAT_INNER_(a, b)

// Variadic so that an expression with a top-level comma (a template argument list) needs no
// extra parentheses.
#define ANVIL_RETURN_IF_ERROR(...)                                                               \
  do {                                                                                           \
    if (::absl::Status anvil_status_ = (__VA_ARGS__); !anvil_status_.ok()) return anvil_status_; \
  } while (false)

#define ANVIL_ASSIGN_OR_RETURN(lhs, ...) \
  ANVIL_ASSIGN_OR_RETURN_IMPL_(ANVIL_STATUS_CONCAT_(anvil_statusor_, __LINE__), lhs, (__VA_ARGS__))

#define ANVIL_ASSIGN_OR_RETURN_IMPL_(statusor, lhs, expr)  \
  auto statusor = (expr);                                  \
  if (!statusor.ok()) return std::move(statusor).status(); \
  lhs = *std::move(statusor)

#endif  // ANVIL_BASE_STATUS_MACROS_H_
