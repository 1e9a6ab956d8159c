#include "shape/einsum_equation.h"

#include <algorithm>
#include <array>
#include <utility>

#include "absl/strings/str_cat.h"

namespace anvil::einsum {
namespace {

absl::string_view Absl(std::string_view s) { return absl::string_view(s.data(), s.size()); }

// Parses one term: text[begin, end) of the equation (columns count from 1 at text[0]).
absl::StatusOr<Term> ParseTerm(std::string_view text, size_t begin, size_t end) {
  Term term;
  term.column = static_cast<int>(begin) + 1;
  for (size_t p = begin; p < end;) {
    const char ch = text[p];
    const int column = static_cast<int>(p) + 1;
    if (ch == ' ') {
      ++p;
    } else if (const int label = LetterLabel(ch); label >= 0) {
      term.letters.push_back(label);
      term.columns.push_back(column);
      term.text.push_back(ch);
      ++p;
    } else if (ch == '.') {
      if (end - p < 3 || text.substr(p, 3) != "...") {
        return EquationError(text, column, "'.' is not part of an ellipsis '...'");
      }
      if (term.has_ellipsis()) {
        return EquationError(text, column, "a term has a second ellipsis '...'");
      }
      term.ellipsis_index = static_cast<int>(term.letters.size());
      term.ellipsis_column = column;
      term.text += "...";
      p += 3;
    } else {
      return EquationError(
          text, column,
          absl::StrCat("invalid character '", std::string(1, ch),
                       "' (labels are a-z and A-Z, with ',' between terms and one '->')"));
    }
  }
  return term;
}

std::string TermText(const Term& term) {
  std::string s;
  for (size_t k = 0; k <= term.letters.size(); ++k) {
    if (static_cast<int>(k) == term.ellipsis_index) s += "...";
    if (k < term.letters.size()) s += LabelName(term.letters[k]);
  }
  return s;
}

}  // namespace

int LetterLabel(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return 26 + (c - 'a');
  return -1;
}

std::string LabelName(int label) {
  if (label >= 0 && label < 26) return std::string(1, static_cast<char>('A' + label));
  if (label >= 26 && label < kNumLetters)
    return std::string(1, static_cast<char>('a' + label - 26));
  return absl::StrCat("...[", label - kFirstEllipsisLabel, "]");
}

absl::Status EquationError(std::string_view equation, int column, std::string_view reason) {
  if (column <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("einsum '", Absl(equation), "': ", Absl(reason)));
  }
  return absl::InvalidArgumentError(
      absl::StrCat("einsum '", Absl(equation), "': column ", column, ": ", Absl(reason)));
}

absl::StatusOr<Equation> Equation::Parse(std::string_view text) {
  Equation eq;
  eq.text_ = std::string(text);
  const size_t arrow = text.find("->");
  if (arrow != std::string_view::npos) {
    const size_t second = text.find("->", arrow + 2);
    if (second != std::string_view::npos) {
      return EquationError(text, static_cast<int>(second) + 1, "a second '->'");
    }
  }
  const size_t lhs_end = arrow == std::string_view::npos ? text.size() : arrow;
  for (size_t begin = 0;;) {
    size_t comma = text.find(',', begin);
    if (comma > lhs_end) comma = std::string_view::npos;
    const size_t end = comma == std::string_view::npos ? lhs_end : comma;
    absl::StatusOr<Term> term = ParseTerm(text, begin, end);
    if (!term.ok()) return term.status();
    eq.any_ellipsis_ |= term->has_ellipsis();
    eq.inputs_.push_back(*std::move(term));
    if (comma == std::string_view::npos) break;
    begin = comma + 1;
  }

  // Occurrences of each letter over all inputs (a diagonal counts twice).
  std::array<int, kNumLetters> count{};
  for (const Term& t : eq.inputs_) {
    for (int l : t.letters) ++count[l];
  }

  if (arrow != std::string_view::npos) {
    eq.explicit_output_ = true;
    const size_t begin = arrow + 2;
    if (size_t comma = text.find(',', begin); comma != std::string_view::npos) {
      return EquationError(text, static_cast<int>(comma) + 1, "the output term has a ','");
    }
    absl::StatusOr<Term> out = ParseTerm(text, begin, text.size());
    if (!out.ok()) return out.status();
    std::array<bool, kNumLetters> seen{};
    for (size_t k = 0; k < out->letters.size(); ++k) {
      const int l = out->letters[k];
      if (count[l] == 0) {
        return EquationError(
            text, out->columns[k],
            absl::StrCat("output label '", LabelName(l), "' does not occur in any input term"));
      }
      if (seen[l]) {
        return EquationError(text, out->columns[k],
                             absl::StrCat("output label '", LabelName(l), "' is repeated"));
      }
      seen[l] = true;
    }
    if (out->has_ellipsis() && !eq.any_ellipsis_) {
      return EquationError(text, out->ellipsis_column,
                           "the output has '...' but no input term has one");
    }
    eq.output_ = *std::move(out);
  } else {
    Term& out = eq.output_;
    out.column = static_cast<int>(text.size()) + 1;
    if (eq.any_ellipsis_) {
      out.ellipsis_index = 0;
      out.ellipsis_column = out.column;
    }
    for (int l = 0; l < kNumLetters; ++l) {
      if (count[l] != 1) continue;
      out.letters.push_back(l);
      out.columns.push_back(out.column);
    }
    out.text = TermText(out);
  }
  return eq;
}

std::string Equation::Canonical() const {
  std::string s;
  for (size_t i = 0; i < inputs_.size(); ++i) {
    if (i > 0) s += ",";
    s += TermText(inputs_[i]);
  }
  return absl::StrCat(s, "->", TermText(output_));
}

std::string Equation::Normalized() const {
  std::array<int, kNumLetters> renamed;
  renamed.fill(-1);
  int next = 0;
  auto rename = [&](const Term& t) {
    Term r = t;
    for (int& l : r.letters) {
      if (renamed[l] < 0) renamed[l] = LetterLabel(static_cast<char>('a' + next++));
      l = renamed[l];
    }
    return r;
  };
  // More than 26 distinct letters cannot all become lowercase; keep such equations as they are.
  int distinct = 0;
  std::array<bool, kNumLetters> used{};
  for (const Term& t : inputs_) {
    for (int l : t.letters) distinct += !std::exchange(used[l], true);
  }
  if (distinct > 26) return Canonical();
  std::string s;
  for (size_t i = 0; i < inputs_.size(); ++i) {
    if (i > 0) s += ",";
    s += TermText(rename(inputs_[i]));
  }
  return absl::StrCat(s, "->", TermText(rename(output_)));
}

absl::StatusOr<BoundEquation> Equation::Bind(absl::Span<const int64_t> ranks) const {
  if (ranks.size() != inputs_.size()) {
    return Error(0, absl::StrCat(inputs_.size(), " input term", inputs_.size() == 1 ? "" : "s",
                                 " for ", ranks.size(), " operand", ranks.size() == 1 ? "" : "s"));
  }
  BoundEquation bound;
  bound.equation = text_;
  bound.operands.resize(inputs_.size());
  // The ellipsis part: the longest one any operand covers.
  for (size_t i = 0; i < inputs_.size(); ++i) {
    const Term& t = inputs_[i];
    const int64_t n_letters = static_cast<int64_t>(t.letters.size());
    const int64_t rank = ranks[i];
    if (rank < 0) {
      if (t.has_ellipsis()) {
        bound.operands[i].rank_known = false;
        bound.ellipsis_rank_known = false;
      }
      continue;
    }
    if (t.has_ellipsis() ? rank < n_letters : rank != n_letters) {
      return Error(t.column,
                   absl::StrCat("term '", t.text, "' has ", n_letters, " label",
                                n_letters == 1 ? "" : "s", t.has_ellipsis() ? " and '...'" : "",
                                " but operand ", i, " has rank ", rank));
    }
    if (t.has_ellipsis()) {
      bound.ellipsis_rank = std::max<int>(bound.ellipsis_rank, static_cast<int>(rank - n_letters));
    }
  }
  for (size_t i = 0; i < inputs_.size(); ++i) {
    const Term& t = inputs_[i];
    BoundEquation::Operand& op = bound.operands[i];
    // Letters of an operand whose rank is unknown are still known without an ellipsis.
    const int64_t rank = ranks[i] >= 0 ? ranks[i] : static_cast<int64_t>(t.letters.size());
    if (!op.rank_known) continue;
    const int64_t own = rank - static_cast<int64_t>(t.letters.size());  // dims of its "..."
    for (size_t k = 0; k <= t.letters.size(); ++k) {
      if (static_cast<int>(k) == t.ellipsis_index) {
        for (int64_t e = 0; e < own; ++e) {
          op.labels.push_back(kFirstEllipsisLabel +
                              static_cast<int>(bound.ellipsis_rank - own + e));
          op.columns.push_back(t.ellipsis_column);
        }
      }
      if (k == t.letters.size()) break;
      op.labels.push_back(t.letters[k]);
      op.columns.push_back(t.columns[k]);
    }
  }
  if (output_.has_ellipsis() && !bound.ellipsis_rank_known) {
    bound.output_known = false;
    return bound;
  }
  for (size_t k = 0; k <= output_.letters.size(); ++k) {
    if (static_cast<int>(k) == output_.ellipsis_index) {
      for (int e = 0; e < bound.ellipsis_rank; ++e) {
        bound.output.push_back(kFirstEllipsisLabel + e);
      }
    }
    if (k < output_.letters.size()) bound.output.push_back(output_.letters[k]);
  }
  return bound;
}

}  // namespace anvil::einsum
