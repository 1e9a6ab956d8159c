// How the shapes mode judges an inferred output shape against the shape the test recorded.
//
// A dim passes when it is the expected literal, or a dim_param that IndexExpr::FromDimParam reads
// as an expression whose symbols are all input symbols (those the runner gave the graph inputs)
// and that evaluates to the expected number with the test's values for them. It is unknown when
// it is Dim::Unknown(), a questionmark (`?`), or mentions a symbol that is not an input symbol
// (a fresh symbol such as `unk__3`: data-dependent, or not worked out). Anything else is wrong:
// another literal, an expression over input symbols that evaluates to another number or to
// nothing (division by zero, overflow), an undefined dim (`<undefined: ...>`), or a wrong rank.
// An unknown rank (no shape) is unknown.
#ifndef ANVIL_TOOLS_CONFORMANCE_SHAPE_CHECK_H_
#define ANVIL_TOOLS_CONFORMANCE_SHAPE_CHECK_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "graph/type.h"
#include "tools/conformance/runner.h"

namespace anvil::conformance {

// Input symbol -> the test's value of it.
using SymbolValues = std::map<std::string, int64_t, std::less<>>;

struct DimCheck {
  Verdict verdict = Verdict::kPass;  // kPass, kUnknown or kWrong
  // The dim as written ("4", "x_d0 + 1", "?"), with its value when it has one: "x_d0 + 1 = 5".
  std::string got;
};

DimCheck CheckDim(const Dim& dim, int64_t expected, const SymbolValues& symbols);

// Whether `type` says all that the inputs determine: a tensor of known rank whose dims are all
// literals or expressions over input symbols only (no `?`, no fresh symbol). Whether the values
// are right is CheckShape's business; this is for finding where inference lost information.
bool IsDeterminedType(const Type& type, const SymbolValues& symbols);

// Checks one output: `type` as inferred against the recorded dims. `detail` names the output
// and, when not passing, the offending dims, e.g. "output 'y': dim 1 is x_d1 + 1 = 6, expected 5"
// or "output 'y': rank 3, expected 2" or "output 'y': dim 0 is ?".
TestResult CheckShape(const std::string& output_name, const Type& type,
                      const std::vector<int64_t>& expected, const SymbolValues& symbols);

// Checks a sequence output: its inferred element type against each recorded element's dims. A
// dim passes when it is right for every element; a `?` passes only where the elements disagree
// (no single dim can say more), and is unknown where they all agree. An optional's type checks
// its value (an empty one passes on the type alone).
TestResult CheckSequenceShape(const std::string& output_name, const Type& type,
                              const std::vector<std::vector<int64_t>>& elements,
                              const SymbolValues& symbols);

}  // namespace anvil::conformance

#endif  // ANVIL_TOOLS_CONFORMANCE_SHAPE_CHECK_H_
