// Shared helpers of the IndexExpr table tests (index_expr_test.cc, index_expr_io_test.cc), in
// the style of Halide's simplifier tests: one line per case, failures print Input / Output /
// Expected with the caller's line.
#ifndef ANVIL_SHAPE_INDEX_EXPR_TEST_UTIL_H_
#define ANVIL_SHAPE_INDEX_EXPR_TEST_UTIL_H_

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <source_location>
#include <string>
#include <string_view>

#include "gtest/gtest.h"
#include "shape/index_expr.h"

namespace anvil {
namespace index_expr_test {

inline constexpr int64_t kMin64 = std::numeric_limits<int64_t>::min();
inline constexpr int64_t kMax64 = std::numeric_limits<int64_t>::max();

// One-line cases run, reported at the end by index_expr_test.cc.
inline int checks = 0;

using Loc = std::source_location;

// The fixture of the table tests: each test makes its symbols in a context of its own, as every
// user of IndexExpr must (shape/index_expr.h), freed when the test ends.
class IndexExprTest : public ::testing::Test {
 private:
  ScopedIndexExprContext context_;
};

inline IndexExpr Sym(std::string_view name) { return IndexExpr::Symbol(name); }

inline IndexExpr ParseOrDie(std::string_view text, const Loc& loc) {
  absl::StatusOr<IndexExpr> e = IndexExpr::Parse(text);
  if (!e.ok()) {
    ADD_FAILURE_AT(loc.file_name(), loc.line()) << "cannot parse " << text << ": " << e.status();
    return IndexExpr::Undefined("unparsable test input");
  }
  return *e;
}

// `input` simplifies to `expected`, which is written in canonical printed form: equal as values
// and printed exactly as `expected`.
inline void Check(std::string_view input, std::string_view expected,
                  const Loc& loc = Loc::current()) {
  ++checks;
  IndexExpr out = ParseOrDie(input, loc);
  IndexExpr want = ParseOrDie(expected, loc);
  if (!(out == want) || out.ToString() != expected) {
    ADD_FAILURE_AT(loc.file_name(), loc.line())
        << "\n  Input:    " << input << "\n  Output:   " << out.ToString()
        << "\n  Expected: " << expected;
  }
}

// Same, for an expression built with the C++ API (described by `input` in messages).
inline void Check(const IndexExpr& out, std::string_view expected,
                  const Loc& loc = Loc::current()) {
  ++checks;
  IndexExpr want = ParseOrDie(expected, loc);
  if (!(out == want) || out.ToString() != expected) {
    ADD_FAILURE_AT(loc.file_name(), loc.line())
        << "\n  Output:   " << out.ToString() << "\n  Expected: " << expected;
  }
}

// Two inputs are the same canonical value (neither needs to be in printed form).
inline void CheckSame(std::string_view a, std::string_view b, const Loc& loc = Loc::current()) {
  ++checks;
  IndexExpr x = ParseOrDie(a, loc), y = ParseOrDie(b, loc);
  if (!(x == y) || x.Hash() != y.Hash()) {
    ADD_FAILURE_AT(loc.file_name(), loc.line())
        << "\n  Input:    " << a << "  ==>  " << x.ToString() << "\n  Expected: " << b << "  ==>  "
        << y.ToString();
  }
}

// A predicate: "true", "false" or "?" (unknown).
inline void CheckPred(const IndexExpr& p, std::string_view expected,
                      const Loc& loc = Loc::current()) {
  ++checks;
  if (!p.IsPredicate() || p.ToString() != expected) {
    ADD_FAILURE_AT(loc.file_name(), loc.line())
        << "\n  Output:   " << p.ToString() << "\n  Expected: " << expected;
  }
}

// Undefined, with a reason that contains `reason`.
inline void CheckUndefined(const IndexExpr& e, std::string_view reason,
                           const Loc& loc = Loc::current()) {
  ++checks;
  if (!e.IsUndefined() || e.undefined_reason().find(reason) == std::string::npos) {
    ADD_FAILURE_AT(loc.file_name(), loc.line())
        << "\n  Output:   " << e.ToString() << "\n  Expected: <undefined: ..." << reason << "...>";
  }
}

// Printed form, and (for symbolic values) that it parses back to the same value.
inline void CheckPrint(const IndexExpr& e, std::string_view expected,
                       const Loc& loc = Loc::current()) {
  ++checks;
  if (e.ToString() != expected) {
    ADD_FAILURE_AT(loc.file_name(), loc.line())
        << "\n  Output:   " << e.ToString() << "\n  Expected: " << expected;
    return;
  }
  if (e.IsLiteral() || e.IsAffine() || e.kind() == IndexExpr::Kind::kNonAffine) {
    // A bare symbol prints its name as is (what a dim_param holds): read it back as one.
    absl::StatusOr<IndexExpr> back =
        e.IsSymbol() ? IndexExpr::FromDimParam(e.ToString()) : IndexExpr::Parse(e.ToString());
    if (!back.ok() || !(*back == e)) {
      ADD_FAILURE_AT(loc.file_name(), loc.line())
          << "\n  Round trip of " << expected << " gives "
          << (back.ok() ? back->ToString() : back.status().ToString());
    }
  }
}

// Parse fails with a message naming the column.
inline void CheckParseError(std::string_view text, int column, std::string_view what,
                            const Loc& loc = Loc::current()) {
  ++checks;
  absl::StatusOr<IndexExpr> e = IndexExpr::Parse(text);
  std::string col = "column " + std::to_string(column) + ":";
  std::string message = e.ok() ? "" : std::string(e.status().message());
  if (e.ok() || e.status().code() != absl::StatusCode::kInvalidArgument ||
      message.find(col) == std::string::npos || message.find(what) == std::string::npos) {
    ADD_FAILURE_AT(loc.file_name(), loc.line())
        << "\n  Input:    " << text
        << "\n  Output:   " << (e.ok() ? e->ToString() : e.status().ToString())
        << "\n  Expected: error at " << col << " " << what;
  }
}

inline void CheckKind(std::string_view text, IndexExpr::Kind kind,
                      const Loc& loc = Loc::current()) {
  ++checks;
  IndexExpr e = ParseOrDie(text, loc);
  if (e.kind() != kind) {
    ADD_FAILURE_AT(loc.file_name(), loc.line())
        << "\n  Input: " << text << " kind " << static_cast<int>(e.kind()) << ", expected "
        << static_cast<int>(kind);
  }
}

inline std::optional<int64_t> Eval(std::string_view text,
                                   const std::map<std::string, int64_t>& values,
                                   const Loc& loc = Loc::current()) {
  return ParseOrDie(text, loc).Evaluate([&](std::string_view s) -> std::optional<int64_t> {
    auto it = values.find(std::string(s));
    if (it == values.end()) return std::nullopt;
    return it->second;
  });
}

}  // namespace index_expr_test
}  // namespace anvil

#endif  // ANVIL_SHAPE_INDEX_EXPR_TEST_UTIL_H_
