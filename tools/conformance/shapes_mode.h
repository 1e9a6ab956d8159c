// Conformance mode `shapes`: does the shape-inference pass get every output shape of the ONNX
// backend tests right, starting from nothing but the input shapes?
//
// Per test: the model is imported, every output's and intermediate value's shape is dropped (so
// no shape recorded in the model can leak into the answer), the graph inputs get the shapes of
// the test's inputs, `shape-inference` runs, and each graph output is judged by CheckShape
// (shape_check.h) against output_K.pb. Variants:
//   --dynamic           every input dim becomes a fresh symbol `<input>_d<k>`; outputs must be
//                       literals or expressions over these that evaluate to the recorded dims.
//   --int-inputs-const  integer graph inputs become initializers (no longer graph inputs, so
//                       true constants) holding the test's values, as shapes, axes, pads and
//                       indices are constants in real models; their dims stay literal in dynamic
//                       mode too.
// Graph inputs that are already initializers keep their declared types.
#ifndef ANVIL_TOOLS_CONFORMANCE_SHAPES_MODE_H_
#define ANVIL_TOOLS_CONFORMANCE_SHAPES_MODE_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "graph/ir.h"
#include "onnx/onnx_pb.h"
#include "tools/conformance/runner.h"
#include "tools/conformance/shape_check.h"
#include "tools/conformance/test_suite.h"

namespace anvil::conformance {

struct ShapesOptions {
  bool dynamic = false;
  bool int_inputs_const = false;
  // --no-bounds: data-dependent dims left unknown (shape-inference{bounded-dims=false}), to
  // compare the counts with.
  bool bounds = true;
};

// Reads the mode's own flags; anything else is InvalidArgument "unknown option '--x' for mode
// shapes".
absl::StatusOr<ShapesOptions> ParseShapesFlags(const std::vector<std::string>& flags);

// "shapes (static)", "shapes (dynamic, int inputs constant)", ...: the summary's title.
std::string ShapesTitle(const ShapesOptions& options);

// "<input>_d<k>" made an identifier IndexExpr reads as one symbol: characters other than
// [A-Za-z0-9_] become '_', and a leading digit (or an empty name) gets the prefix "in_".
std::string InputSymbolName(const std::string& input_name, int dim);

// Rewrites `model` as described in the file comment: outputs and intermediates lose their shapes,
// the bound graph inputs get the shapes (and with int_inputs_const, the values) of `inputs`.
// Returns the input symbols with the test's values (empty unless dynamic).
absl::StatusOr<SymbolValues> PrepareShapesModel(Model& model,
                                                const std::vector<onnx::TensorProto>& inputs,
                                                const ShapesOptions& options);

// The whole per-test check: a TestFn for RunSuite.
TestResult RunShapesTest(const TestCase& test, const onnx::ModelProto& proto,
                         const ShapesOptions& options);

}  // namespace anvil::conformance

#endif  // ANVIL_TOOLS_CONFORMANCE_SHAPES_MODE_H_
