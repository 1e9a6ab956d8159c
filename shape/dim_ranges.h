// Ranges of symbolic dims as text: what `--input-ranges` takes and what a model carries in its
// metadata under kDimRangesKey, so that another tool (or a later Anvil run) reads the bounds
// shape analysis inferred.
//
// Text form: entries `name=lo:hi` separated by commas, `hi` empty for no upper bound:
// "batch=1:64,seq=1:4096,NonZero_nz_n=0:". A name holding ',', '=', ':' or '`', or space at
// either end, is written between backquotes (a backquote inside doubled). Ranges are dim ranges:
// 0 <= lo <= hi.
#ifndef ANVIL_SHAPE_DIM_RANGES_H_
#define ANVIL_SHAPE_DIM_RANGES_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "graph/ir.h"

namespace anvil {

// The metadata_props key of a model's symbol ranges (shape/README.md, "Bounded dims").
inline constexpr char kDimRangesKey[] = "anvil.dim_ranges";

struct SymbolRange {
  std::string name;
  int64_t lo = 0;
  std::optional<int64_t> hi;  // nullopt: unbounded
  bool operator==(const SymbolRange& other) const = default;
};

// InvalidArgument naming the entry on bad syntax, a bad range or a name given twice.
absl::StatusOr<std::vector<SymbolRange>> ParseSymbolRanges(std::string_view text);
std::string FormatSymbolRanges(absl::Span<const SymbolRange> ranges);

// The ranges in `model`'s metadata (none when the key is absent).
absl::StatusOr<std::vector<SymbolRange>> ReadModelRanges(const Model& model);
// The same for readers that must not refuse a model ONNX Runtime runs: a value that does not
// parse counts as no ranges, and `*problem` (when given) says why in one line.
std::vector<SymbolRange> ModelRangesOrNone(const Model& model, std::string* problem = nullptr);
// Replaces the key with `ranges` sorted by name; removes it when `ranges` is empty.
void WriteModelRanges(Model& model, std::vector<SymbolRange> ranges);
// Adds `ranges` to the model's (a name already there takes the new range).
absl::Status MergeModelRanges(Model& model, absl::Span<const SymbolRange> ranges);
// The ranges of graph inputs' symbolic dims a user gives (--input-ranges, SessionOptions,
// shape-inference{input-ranges=...}): InvalidArgument naming a range whose name is no symbol of
// a graph input's dims (listing those), else MergeModelRanges.
absl::Status AddInputRanges(Model& model, absl::Span<const SymbolRange> ranges);

// The ranges of the symbols that `model`'s value types name (dim_params, all graphs), as the
// IndexExprContext installed on this thread knows them, leaving out those with the default
// range [0, +inf): what shape analysis writes back with WriteModelRanges.
std::vector<SymbolRange> RangesOfTypes(Model& model);

// Declares each range in the IndexExprContext installed on this thread
// (IndexExpr::DeclareSymbolRange): FailedPrecondition when a symbol is already in use with
// another range.
absl::Status DeclareRanges(absl::Span<const SymbolRange> ranges);

}  // namespace anvil

#endif  // ANVIL_SHAPE_DIM_RANGES_H_
