// Conformance mode `run`: does Anvil's runtime compute every output of the ONNX backend tests?
//
// Per test: the model is imported, input_K.pb bound to the graph inputs (test_suite.h; the inputs'
// declared dims become the test data's, and bfloat16 data the suite stores as uint16 is read as
// bfloat16), the model loaded into a runtime Session (its default pipeline, one kernel per node)
// and run, and every
// output compared with output_K.pb: same element type and dims, then element by element —
// floating types within |actual - expected| <= atol + rtol * |expected| (rtol 1e-3, atol 1e-7,
// as the suite's own runner; NaN equals NaN, infinities must match), integers and bools exactly.
// Verdicts: pass; wrong (an output differs; the runner's word for "fail"); error (the runtime
// failed: a missing kernel is Unimplemented naming the op, a crash or a timeout).
//
// Tests listed in tools/conformance/run_exclusions.txt (`<test> <reason>`, embedded in the binary;
// --exclusions=FILE reads another list) are not run and are reported apart from the verdicts.
// --engine=reference runs the reference interpreter (exec/interpreter.h) instead of the Session,
// to tell a kernel bug from a runtime one; --backend=tir-eval (also --engine=tir-eval) lowers the
// model to the Tensor IR and runs it with the reference evaluator (lower/evaluator/tir_session.h),
// tagging each test by how its nodes were lowered: "native" (loops only), "intrinsic" (loops and
// compute intrinsics), "fallback" (some node called its kernel).
#ifndef ANVIL_TOOLS_CONFORMANCE_RUN_MODE_H_
#define ANVIL_TOOLS_CONFORMANCE_RUN_MODE_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "kernels/tensor.h"
#include "onnx/onnx_pb.h"
#include "tools/conformance/runner.h"
#include "tools/conformance/test_suite.h"

namespace anvil::conformance {

struct RunModeOptions {
  enum class Engine { kSession, kReference, kTirEval, kCompiled };
  Engine engine = Engine::kSession;
  // "" = the embedded tools/conformance/run_exclusions.txt.
  std::string exclusions_path;
  bool use_exclusions = true;
  // Every input dim a fresh symbol `<input>_d<k>` instead of the test's literal dims: the
  // engine runs code made for any dims (lowering's dim parameters, the runtime's re-inference).
  bool dynamic = false;
  // Intra-op threads of the session (SessionOptions::threads): the same tests must pass with
  // the kernels' work split across threads; above 1, every parallel loop splits whatever its
  // size (parallel::ScopedSplitAll), so the suite's small tensors run the parallel paths.
  int threads = 1;
  double rtol = 1e-3;
  double atol = 1e-7;
};

// Reads the mode's own flags (--engine=session|reference|tir-eval|compiled, --backend= the same,
// --dynamic, --threads=N, --exclusions=FILE, --no-exclusions, --rtol=X, --atol=X); anything else is
// InvalidArgument.
absl::StatusOr<RunModeOptions> ParseRunFlags(const std::vector<std::string>& flags);

// "run (session)", "run (reference)", "run (tir-eval)", "run (compiled, dynamic)", ...
std::string RunTitle(const RunModeOptions& options);

// Parses an exclusion list: one `<test> <reason>` per line (the test as `folder/name` or just
// `name`), `#` comments and blank lines ignored. A line without a reason is an error.
absl::StatusOr<std::map<std::string, std::string>> ParseExclusions(const std::string& text);

// The exclusions `options` selects (embedded list, a file, or none).
absl::StatusOr<std::map<std::string, std::string>> LoadExclusions(const RunModeOptions& options);

// Compares one output: pass, or wrong with a one-line reason ("y: 3 of 60 elements differ ...").
TestResult CompareTensors(const std::string& name, const Tensor& actual, const Tensor& expected,
                          double rtol, double atol);

// The whole per-test check: a TestFn for RunSuite.
TestResult RunRunTest(const TestCase& test, const onnx::ModelProto& proto,
                      const RunModeOptions& options);

// The suite stores bfloat16 tensors as uint16 (onnx's numpy helpers have no bfloat16): the
// same bits, retagged with the type the model declares.
Tensor AsBfloat16IfStoredAsUint16(const Tensor& t, ElementType declared);

}  // namespace anvil::conformance

#endif  // ANVIL_TOOLS_CONFORMANCE_RUN_MODE_H_
