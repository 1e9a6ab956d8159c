// Dim and shape comparison of the shapes mode; see shape_check.h.
#include "tools/conformance/shape_check.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "shape/index_expr.h"

namespace anvil::conformance {

DimCheck CheckDim(const Dim& dim, int64_t expected, const SymbolValues& symbols) {
  if (dim.is_literal()) {
    return {*dim.value == expected ? Verdict::kPass : Verdict::kWrong, absl::StrCat(*dim.value)};
  }
  if (dim.is_unknown()) return {Verdict::kUnknown, "?"};
  // The printed form of an undefined IndexExpr: the pass computed an error value.
  if (absl::StartsWith(dim.param, "<undefined")) return {Verdict::kWrong, dim.param};

  ScopedIndexExprContext index_exprs;  // the dim's expression is this check's alone
  const IndexExpr expr = IndexExpr::FromDimParam(dim.param);
  if (expr.IsQuestionmark()) return {Verdict::kUnknown, dim.param};
  if (expr.IsUndefined()) return {Verdict::kWrong, dim.param};
  for (const std::string& symbol : expr.Symbols()) {
    if (symbols.find(symbol) == symbols.end()) return {Verdict::kUnknown, dim.param};
  }
  std::optional<int64_t> value = expr.Evaluate([&symbols](std::string_view symbol) {
    auto it = symbols.find(symbol);
    return it == symbols.end() ? std::nullopt : std::optional<int64_t>(it->second);
  });
  if (!value) return {Verdict::kWrong, absl::StrCat(dim.param, " (does not evaluate)")};
  const Verdict verdict = *value == expected ? Verdict::kPass : Verdict::kWrong;
  if (expr.IsLiteral()) return {verdict, dim.param};
  return {verdict, absl::StrCat(dim.param, " = ", *value)};
}

bool IsDeterminedType(const Type& type, const SymbolValues& symbols) {
  if (type.kind() != Type::Kind::kTensor && type.kind() != Type::Kind::kSparseTensor) return false;
  if (!type.has_shape()) return false;
  ScopedIndexExprContext index_exprs;  // the dims' expressions are this check's alone
  for (const Dim& dim : type.shape()) {
    if (dim.is_literal()) continue;
    if (dim.is_unknown()) return false;
    const IndexExpr expr = IndexExpr::FromDimParam(dim.param);
    if (expr.IsQuestionmark() || expr.IsUndefined()) return false;
    for (const std::string& symbol : expr.Symbols()) {
      if (symbols.find(symbol) == symbols.end()) return false;
    }
  }
  return true;
}

TestResult CheckShape(const std::string& output_name, const Type& type,
                      const std::vector<int64_t>& expected, const SymbolValues& symbols) {
  const std::string label = absl::StrCat("output '", output_name, "'");
  if (type.kind() != Type::Kind::kTensor && type.kind() != Type::Kind::kSparseTensor) {
    return {Verdict::kUnknown, absl::StrCat(label, ": no tensor type")};
  }
  if (!type.has_shape()) return {Verdict::kUnknown, absl::StrCat(label, ": rank unknown")};
  const std::vector<Dim>& dims = type.shape();
  if (dims.size() != expected.size()) {
    return {Verdict::kWrong,
            absl::StrCat(label, ": rank ", dims.size(), " ", type.ToString(), ", expected ",
                         expected.size(), " [", absl::StrJoin(expected, ","), "]")};
  }
  TestResult result;
  std::vector<std::string> problems;
  for (size_t i = 0; i < dims.size(); ++i) {
    DimCheck check = CheckDim(dims[i], expected[i], symbols);
    if (check.verdict == Verdict::kPass) continue;
    result.verdict = Worse(result.verdict, check.verdict);
    problems.push_back(check.verdict == Verdict::kWrong
                           ? absl::StrCat("dim ", i, " is ", check.got, ", expected ", expected[i])
                           : absl::StrCat("dim ", i, " is ", check.got));
  }
  if (!problems.empty()) result.detail = absl::StrCat(label, ": ", absl::StrJoin(problems, "; "));
  return result;
}

TestResult CheckSequenceShape(const std::string& output_name, const Type& type,
                              const std::vector<std::vector<int64_t>>& elements,
                              const SymbolValues& symbols) {
  const std::string label = absl::StrCat("output '", output_name, "'");
  const Type& seq = type.is_optional() ? type.elem() : type;
  if (!seq.is_sequence()) return {Verdict::kUnknown, absl::StrCat(label, ": no sequence type")};
  const Type& elem = seq.elem();
  if (!elem.is_tensor() || !elem.has_shape()) {
    return {Verdict::kUnknown, absl::StrCat(label, ": element rank unknown")};
  }
  const std::vector<Dim>& dims = elem.shape();
  TestResult result;
  std::vector<std::string> problems;
  for (size_t k = 0; k < elements.size(); ++k) {
    if (elements[k].size() != dims.size()) {
      return {Verdict::kWrong, absl::StrCat(label, ": element rank ", dims.size(), " ",
                                            seq.ToString(), ", element ", k, " has rank ",
                                            elements[k].size())};
    }
  }
  for (size_t i = 0; i < dims.size(); ++i) {
    bool agree = true;
    for (const std::vector<int64_t>& e : elements) agree = agree && e[i] == elements[0][i];
    if (dims[i].is_unknown()) {
      if (agree && !elements.empty()) {
        result.verdict = Worse(result.verdict, Verdict::kUnknown);
        problems.push_back(absl::StrCat("dim ", i, " is ?"));
      }
      continue;
    }
    for (size_t k = 0; k < elements.size(); ++k) {
      DimCheck check = CheckDim(dims[i], elements[k][i], symbols);
      if (check.verdict == Verdict::kPass) continue;
      result.verdict = Worse(result.verdict, check.verdict);
      problems.push_back(absl::StrCat("dim ", i, " is ", check.got, ", element ", k, " has ",
                                      elements[k][i]));
      break;
    }
  }
  if (!problems.empty()) result.detail = absl::StrCat(label, ": ", absl::StrJoin(problems, "; "));
  return result;
}

}  // namespace anvil::conformance
