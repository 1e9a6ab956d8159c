// The Einsum equation: one parser and validator for everything that reads an equation — the
// Einsum shape rule, the Einsum kernel and the einsum-decompose rewrite. A leaf library (Abseil
// only) in shape, the lowest package that reads equations, so that the shape rule never includes
// the einsum package and the kernels and einsum use it from here. Namespace anvil::einsum: it is
// the vocabulary of the einsum rewrite.
//
// Syntax (numpy.einsum's, which ONNX adopts): comma-separated input terms, optionally `->` and
// an output term. A term is a sequence of labels `a-z`, `A-Z` and at most one `...` standing for
// the dims the labels do not name. Spaces are ignored. A label repeated within one input term
// takes the diagonal; a label that occurs in inputs but not in the output is summed over. An empty
// term is a scalar operand (or a scalar output: `i,i->`).
//
// Implicit output (no `->`): `...` when any input has one, then every letter that occurs exactly
// once over all inputs, in ASCII order (uppercase first) — numpy's rule and ONNX Runtime's. So
// `ii` is the trace and `ij,jk` is `ij,jk->ik`.
//
// Ellipsis broadcasting: the dims each operand's `...` covers are right-aligned against the
// longest ones and broadcast numpy-style; labels broadcast the same way (a dim of 1 yields).
//
// Labels are small integers: letters in ASCII order ('A'..'Z' = 0..25, 'a'..'z' = 26..51), so
// sorting ids sorts letters as the implicit output does; the dims of the broadcast ellipsis part
// are kFirstEllipsisLabel + 0, 1, ... from the left (an operand whose `...` covers fewer dims
// uses the rightmost ones).
//
// Errors are one line: `einsum 'ij,jk->ik': column 7: label 'q' ...` (columns are 1-based and
// count the equation as written, spaces included).
#ifndef ANVIL_SHAPE_EINSUM_EQUATION_H_
#define ANVIL_SHAPE_EINSUM_EQUATION_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace anvil::einsum {

inline constexpr int kNumLetters = 52;
inline constexpr int kFirstEllipsisLabel = kNumLetters;

// 'A'..'Z' -> 0..25, 'a'..'z' -> 26..51, anything else -> -1.
int LetterLabel(char c);
// The letter of a letter label; "..." dims print as "...[k]".
std::string LabelName(int label);

// An InvalidArgument "einsum '<equation>': column C: <reason>" (no column part when column <= 0).
absl::Status EquationError(std::string_view equation, int column, std::string_view reason);

// One term as written.
struct Term {
  std::vector<int> letters;  // letter labels in order ("..." not included)
  std::vector<int> columns;  // 1-based column of each letter
  int ellipsis_index = -1;   // position in `letters` before which "..." sits; -1: none
  int ellipsis_column = 0;   // column of the "..."
  int column = 0;            // column where the term starts
  std::string text;          // the term without spaces, for messages

  bool has_ellipsis() const { return ellipsis_index >= 0; }
};

// An equation bound to its operands' ranks: every dim of every operand has a label.
struct BoundEquation {
  struct Operand {
    std::vector<int> labels;   // one per dim; empty when !rank_known
    std::vector<int> columns;  // column of each dim's label (the "..." for ellipsis dims)
    bool rank_known = true;    // false: the term has "..." and the rank was not given
  };
  std::string equation;  // as written, for messages
  std::vector<Operand> operands;
  // Dims of the broadcast ellipsis part over the operands of known rank (0 when no term has
  // "..."); not final when some operand with "..." has an unknown rank.
  int ellipsis_rank = 0;
  bool ellipsis_rank_known = true;
  // The output's labels, one per output dim; valid when output_known (false only when the
  // output has "..." and the ellipsis rank is not known).
  std::vector<int> output;
  bool output_known = true;

  // Labels are in [0, num_labels()).
  int num_labels() const { return kFirstEllipsisLabel + ellipsis_rank; }
  absl::Status Error(int column, std::string_view reason) const {
    return EquationError(equation, column, reason);
  }
};

class Equation {
 public:
  // Parses and validates the syntax and the output term (labels absent from the inputs or
  // repeated, "..." in the output without one in the inputs).
  static absl::StatusOr<Equation> Parse(std::string_view text);

  const std::string& text() const { return text_; }
  const std::vector<Term>& inputs() const { return inputs_; }
  int num_inputs() const { return static_cast<int>(inputs_.size()); }
  bool explicit_output() const { return explicit_output_; }
  // The output term, as written or derived (implicit mode, see the file comment).
  const Term& output() const { return output_; }
  bool any_ellipsis() const { return any_ellipsis_; }

  // Spaces removed and the output made explicit: "bij, bjk" -> "bij,bjk->bik".
  std::string Canonical() const;
  // Canonical() with the letters renamed a, b, c, ... in order of first appearance, so that
  // equations that differ only in their letters compare equal: "dk,kv->dv" -> "ab,bc->ac".
  std::string Normalized() const;

  // Binds the terms to operand ranks (-1: unknown). Errors: a term count that differs from the
  // operand count, a rank that the term's letters do not fit.
  absl::StatusOr<BoundEquation> Bind(absl::Span<const int64_t> ranks) const;

  absl::Status Error(int column, std::string_view reason) const {
    return EquationError(text_, column, reason);
  }

 private:
  std::string text_;
  std::vector<Term> inputs_;
  Term output_;
  bool explicit_output_ = false;
  bool any_ellipsis_ = false;
};

}  // namespace anvil::einsum

#endif  // ANVIL_SHAPE_EINSUM_EQUATION_H_
