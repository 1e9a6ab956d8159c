// Compute ops, part 4: the recurrent layers RNN, GRU and LSTM.
//
//   layout 0 (default; the only one before opset 14)   layout 1
//   X    [seq, batch, input]                            [batch, seq, input]
//   Y    [seq, dirs, batch, hidden]                     [batch, seq, dirs, hidden]
//   Y_h  [dirs, batch, hidden]                          [batch, dirs, hidden]
//   Y_c  (LSTM) as Y_h
// W [dirs, gates*hidden, input] and R [dirs, gates*hidden, hidden] are layout-independent, so
// they also give `hidden` when the hidden_size attribute is absent, and `dirs` is checked
// against them. All outputs are optional.
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "shape/ops/compute_ops.h"
#include "shape/ops/op_util.h"

namespace anvil::shape_ops::compute {

absl::Status InferRecurrent(ShapeContext& ctx) {
  const Node& node = ctx.node();
  const ElementType type = ctx.InputType(0);
  const std::optional<DimsExpr>& x = ctx.InputDims(0);
  const std::optional<DimsExpr>& w = ctx.InputDims(1);
  const std::optional<DimsExpr>& r = ctx.InputDims(2);
  ANVIL_RETURN_IF_ERROR(CheckRank(ctx, x, 3, "X"));
  ANVIL_RETURN_IF_ERROR(CheckRank(ctx, w, 3, "W"));
  ANVIL_RETURN_IF_ERROR(CheckRank(ctx, r, 3, "R"));

  // GRU-1 documents the misspelled default "foward".
  const std::string direction = node.GetString("direction", "forward");
  int64_t dirs = 1;
  if (direction == "bidirectional") {
    dirs = 2;
  } else if (direction != "forward" && direction != "reverse" && direction != "foward") {
    return ctx.Error(
        absl::StrCat("direction '", direction, "' is not forward, reverse or bidirectional"));
  }
  for (const std::optional<DimsExpr>* weights : {&w, &r}) {
    if (*weights && ProvablyDifferent((**weights)[0], dirs)) {
      return ctx.Error(absl::StrCat(weights == &w ? "W " : "R ", DimsToString(**weights), " has ",
                                    (**weights)[0].ToString(), " directions, direction '",
                                    direction, "' needs ", dirs));
    }
  }
  const int64_t gates = node.op_type() == "LSTM" ? 4 : node.op_type() == "GRU" ? 3 : 1;

  IndexExpr hidden = IndexExpr::Questionmark();
  if (node.FindAttribute("hidden_size") != nullptr) {
    const int64_t h = node.GetInt("hidden_size", 0);
    if (h < 1) return ctx.Error(absl::StrCat("hidden_size ", h, " must be >= 1"));
    hidden = h;
  }
  if (r) {
    ANVIL_ASSIGN_OR_RETURN(hidden, UnifyDims(ctx, hidden, (*r)[2], "hidden_size and R's dim 2"));
  }
  for (const std::optional<DimsExpr>* weights : {&w, &r}) {
    if (*weights && ProvablyDifferent((**weights)[1], hidden * gates)) {
      return ctx.Error(absl::StrCat(weights == &w ? "W " : "R ", DimsToString(**weights),
                                    " does not hold ", gates, " gates of hidden size ",
                                    hidden.ToString()));
    }
  }
  if (w && hidden.IsQuestionmark()) hidden = FloorDiv((*w)[1], gates);
  if (w && x && ProvablyDifferent((*w)[2], (*x)[2])) {
    return ctx.Error(absl::StrCat("W ", DimsToString(*w), " and X ", DimsToString(*x),
                                  " disagree on the input size"));
  }

  const int64_t layout = ctx.opset() >= 14 ? node.GetInt("layout", 0) : 0;
  if (layout != 0 && layout != 1) {
    return ctx.Error(absl::StrCat("layout ", layout, " is not 0 or 1"));
  }
  const IndexExpr seq = x ? (*x)[layout == 0 ? 0 : 1] : IndexExpr::Questionmark();
  IndexExpr batch = x ? (*x)[layout == 0 ? 1 : 0] : IndexExpr::Questionmark();
  // sequence_lens [batch] and initial_h (LSTM: also initial_c), shaped like Y_h, may know a
  // batch size that X does not.
  struct BatchSource {
    int input;
    int64_t rank;
    int64_t batch_dim;
    const char* name;
  };
  const int64_t state_batch_dim = layout == 0 ? 1 : 0;
  for (const BatchSource& source :
       {BatchSource{4, 1, 0, "sequence_lens"}, BatchSource{5, 3, state_batch_dim, "initial_h"},
        BatchSource{6, 3, state_batch_dim, "initial_c"}}) {
    if (source.input == 6 && gates != 4) break;
    if (!ctx.HasInput(source.input)) continue;
    const std::optional<DimsExpr>& dims = ctx.InputDims(source.input);
    ANVIL_RETURN_IF_ERROR(CheckRank(ctx, dims, source.rank, source.name));
    if (!dims) continue;
    ANVIL_ASSIGN_OR_RETURN(batch, UnifyDims(ctx, batch, (*dims)[source.batch_dim],
                                            absl::StrCat("batch sizes of X and ", source.name)));
  }

  const DimsExpr state =
      layout == 0 ? DimsExpr{dirs, batch, hidden} : DimsExpr{batch, dirs, hidden};
  ctx.SetOutput(
      0, type,
      layout == 0 ? DimsExpr{seq, dirs, batch, hidden} : DimsExpr{batch, seq, dirs, hidden});
  ctx.SetOutput(1, type, state);
  if (gates == 4) ctx.SetOutput(2, type, state);
  return absl::OkStatus();
}

}  // namespace anvil::shape_ops::compute
