// Conformance mode `run`; see run_mode.h.
#include "tools/conformance/run_mode.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "base/absl_compat.h"
#include "base/parallel.h"
#include "exec/interpreter.h"
#include "graph/element_type.h"
#include "graph/elements.h"
#include "graph/pass_manager.h"
#include "kernels/tensor_file.h"
#include "lower/evaluator/tir_session.h"
#include "runtime/session.h"
#include "tools/conformance/shapes_mode.h"

namespace anvil::conformance {

// tools/conformance/run_exclusions.txt, embedded by the conformance_run_exclusions genrule.
extern const char kRunExclusions[];

namespace {

bool IsFloating(ElementType type) {
  switch (type) {
    case ElementType::kFloat:
    case ElementType::kDouble:
    case ElementType::kFloat16:
    case ElementType::kBfloat16:
    case ElementType::kComplex64:
    case ElementType::kComplex128:
      return true;
    default:
      return false;
  }
}

// Element `i` of a floating tensor as double; complex numbers count as two elements (real,
// imaginary), which is how the suite compares them too.
double FloatAt(const Tensor& t, int64_t i) {
  const auto* bytes = t.As<uint8_t>();
  switch (t.type()) {
    case ElementType::kComplex64:
      return t.As<float>()[i];
    case ElementType::kComplex128:
      return t.As<double>()[i];
    default:
      return ReadElementAsDouble(t.type(), bytes, i);
  }
}

int64_t ScalarCount(const Tensor& t) {
  const bool complex = t.type() == ElementType::kComplex64 || t.type() == ElementType::kComplex128;
  return t.NumElements() * (complex ? 2 : 1);
}

std::string DimsString(absl::Span<const int64_t> dims) {
  return absl::StrCat("[", absl::StrJoin(dims, ","), "]");
}

// The multi-index of row-major element `flat` ("[1,2]"), for messages.
std::string IndexString(absl::Span<const int64_t> dims, int64_t flat) {
  std::vector<int64_t> index(dims.size());
  for (int k = static_cast<int>(dims.size()) - 1; k >= 0; --k) {
    if (dims[k] == 0) return "[]";
    index[k] = flat % dims[k];
    flat /= dims[k];
  }
  return DimsString(index);
}

// Where a wrong output comes from: the op of the node producing it (for single-op node tests
// that is the op under test).
std::vector<std::string> ProducerOp(const Value* output) {
  const Node* producer = output == nullptr ? nullptr : output->producer();
  if (producer == nullptr) return {};
  return {producer->domain().empty() ? producer->op_type()
                                     : absl::StrCat(producer->domain(), ".", producer->op_type())};
}

}  // namespace

Tensor AsBfloat16IfStoredAsUint16(const Tensor& t, ElementType declared) {
  if (t.type() != ElementType::kUint16 || declared != ElementType::kBfloat16) return t;
  Tensor retagged(ElementType::kBfloat16, t.dims());
  if (t.ByteSize() > 0) std::memcpy(retagged.data(), t.data(), t.ByteSize());
  return retagged;
}

absl::StatusOr<RunModeOptions> ParseRunFlags(const std::vector<std::string>& flags) {
  RunModeOptions options;
  for (const std::string& flag : flags) {
    std::string_view value;
    if (flag == "--engine=session" || flag == "--backend=session") {
      options.engine = RunModeOptions::Engine::kSession;
    } else if (flag == "--engine=reference" || flag == "--backend=reference") {
      options.engine = RunModeOptions::Engine::kReference;
    } else if (flag == "--engine=tir-eval" || flag == "--backend=tir-eval") {
      options.engine = RunModeOptions::Engine::kTirEval;
    } else if (flag == "--engine=compiled" || flag == "--backend=compiled") {
      options.engine = RunModeOptions::Engine::kCompiled;
    } else if (flag == "--dynamic") {
      options.dynamic = true;
    } else if (flag.rfind("--threads=", 0) == 0) {
      if (!absl::SimpleAtoi(flag.substr(10), &options.threads) || options.threads < 1) {
        return absl::InvalidArgumentError("--threads needs a positive count: --threads=2");
      }
    } else if (flag.rfind("--exclusions=", 0) == 0 && flag.size() > 13) {
      options.exclusions_path = flag.substr(13);
    } else if (flag == "--no-exclusions") {
      options.use_exclusions = false;
    } else if (flag.rfind("--rtol=", 0) == 0) {
      if (!absl::SimpleAtod(flag.substr(7), &options.rtol) || options.rtol < 0) {
        return absl::InvalidArgumentError("--rtol needs a non-negative number: --rtol=1e-3");
      }
    } else if (flag.rfind("--atol=", 0) == 0) {
      if (!absl::SimpleAtod(flag.substr(7), &options.atol) || options.atol < 0) {
        return absl::InvalidArgumentError("--atol needs a non-negative number: --atol=1e-7");
      }
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat("unknown option '", flag,
                       "' for mode run (--backend=session|reference|tir-eval|compiled, --dynamic, "
                       "--threads=N, --exclusions=FILE, "
                       "--no-exclusions, --rtol=X, --atol=X)"));
    }
  }
  return options;
}

std::string RunTitle(const RunModeOptions& options) {
  const std::string suffix =
      absl::StrCat(options.dynamic ? ", dynamic" : "",
                   options.threads > 1 ? absl::StrCat(", ", options.threads, " threads") : "", ")");
  switch (options.engine) {
    case RunModeOptions::Engine::kSession:
      return absl::StrCat("run (session", suffix);
    case RunModeOptions::Engine::kReference:
      return absl::StrCat("run (reference", suffix);
    case RunModeOptions::Engine::kTirEval:
      return absl::StrCat("run (tir-eval", suffix);
    case RunModeOptions::Engine::kCompiled:
      return absl::StrCat("run (compiled", suffix);
  }
  return "run";
}

absl::StatusOr<std::map<std::string, std::string>> ParseExclusions(const std::string& text) {
  std::map<std::string, std::string> exclusions;
  int line_number = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++line_number;
    if (size_t hash = line.find('#'); hash != absl::string_view::npos) line = line.substr(0, hash);
    line = absl::StripAsciiWhitespace(line);
    if (line.empty()) continue;
    const size_t space = line.find_first_of(" \t");
    if (space == absl::string_view::npos) {
      return absl::InvalidArgumentError(absl::StrCat("exclusion list line ", line_number, ": '",
                                                     line, "' needs a reason: <test> <reason>"));
    }
    exclusions[std::string(line.substr(0, space))] =
        std::string(absl::StripAsciiWhitespace(line.substr(space)));
  }
  return exclusions;
}

absl::StatusOr<std::map<std::string, std::string>> LoadExclusions(const RunModeOptions& options) {
  if (!options.use_exclusions) return std::map<std::string, std::string>();
  if (options.exclusions_path.empty()) return ParseExclusions(kRunExclusions);
  std::ifstream in(options.exclusions_path);
  if (!in) {
    return absl::NotFoundError(
        absl::StrCat("cannot read exclusion list '", options.exclusions_path, "'"));
  }
  std::stringstream text;
  text << in.rdbuf();
  return ParseExclusions(text.str());
}

TestResult CompareTensors(const std::string& name, const Tensor& actual, const Tensor& expected,
                          double rtol, double atol) {
  auto kind_name = [](const Tensor& t) {
    switch (t.kind()) {
      case ValueKind::kSequence:
        return absl::StrCat("a sequence of ", t.elements().size());
      case ValueKind::kNoneOptional:
        return std::string("an empty optional");
      case ValueKind::kTensor:
        break;
    }
    return std::string("a tensor");
  };
  if (actual.kind() != expected.kind() || actual.elements().size() != expected.elements().size()) {
    return {Verdict::kWrong,
            absl::StrCat(name, ": ", kind_name(actual), ", expected ", kind_name(expected))};
  }
  if (expected.kind() == ValueKind::kNoneOptional) return {};
  if (expected.kind() == ValueKind::kSequence) {
    for (size_t k = 0; k < expected.elements().size(); ++k) {
      TestResult r = CompareTensors(absl::StrCat(name, "[", k, "]"), actual.elements()[k],
                                    expected.elements()[k], rtol, atol);
      if (r.verdict != Verdict::kPass) return r;
    }
    return {};
  }
  if (actual.type() != expected.type()) {
    return {Verdict::kWrong,
            absl::StrCat(name, ": element type ", AsAbsl(ElementTypeName(actual.type())),
                         ", expected ", AsAbsl(ElementTypeName(expected.type())))};
  }
  if (actual.dims() != expected.dims()) {
    return {Verdict::kWrong, absl::StrCat(name, ": shape ", DimsString(actual.dims()),
                                          ", expected ", DimsString(expected.dims()))};
  }
  int64_t differ = 0, first = -1;
  double max_abs = 0;
  const int64_t n = ScalarCount(expected);
  if (expected.type() == ElementType::kString) {
    const std::string* a = actual.As<std::string>();
    const std::string* e = expected.As<std::string>();
    for (int64_t i = 0; i < n; ++i) {
      if (a[i] != e[i] && differ++ == 0) first = i;
    }
    if (differ == 0) return {};
    return {Verdict::kWrong,
            absl::StrCat(name, ": ", differ, " of ", n, " strings differ, first at ",
                         IndexString(expected.dims(), first), ": \"", absl::CHexEscape(a[first]),
                         "\" vs expected \"", absl::CHexEscape(e[first]), "\"")};
  }
  if (IsFloating(expected.type())) {
    // bfloat16 holds 8 significant bits: rtol 1e-3 is finer than the type. Within one bfloat16
    // ulp (2^-7 relative) truncation and round-to-nearest-even both pass (ONNX 1.12's recorded
    // casts truncate; ONNX 1.14+, ONNX Runtime and Anvil round), a wrong value does not.
    if (expected.type() == ElementType::kBfloat16) rtol = std::max(rtol, 0x1.0p-7);
    for (int64_t i = 0; i < n; ++i) {
      const double a = FloatAt(actual, i), e = FloatAt(expected, i);
      bool same;
      if (std::isnan(e) || std::isnan(a)) {
        same = std::isnan(e) && std::isnan(a);
      } else if (std::isinf(e) || std::isinf(a)) {
        same = a == e;
      } else {
        const double diff = std::fabs(a - e);
        same = diff <= atol + rtol * std::fabs(e);
        if (!same && diff > max_abs) max_abs = diff;
      }
      if (!same && differ++ == 0) first = i;
    }
  } else {
    const auto* a = actual.As<uint8_t>();
    const auto* e = expected.As<uint8_t>();
    const size_t size = ElementSize(expected.type());
    for (int64_t i = 0; i < n; ++i) {
      // Bools are 0/1 bytes in both; integers compare bit for bit.
      bool same = expected.type() == ElementType::kBool
                      ? (a[i] != 0) == (e[i] != 0)
                      : std::memcmp(a + i * size, e + i * size, size) == 0;
      if (!same && differ++ == 0) first = i;
    }
  }
  if (differ == 0) return {};
  const bool complex = ScalarCount(expected) != expected.NumElements();
  const int64_t element = complex ? first / 2 : first;
  auto show = [&](const Tensor& t) {
    return IsFloating(t.type())
               ? absl::StrCat(FloatAt(t, first))
               : absl::StrCat(ReadElementAsInt64(t.type(), t.As<uint8_t>(), first));
  };
  std::string detail = absl::StrCat(name, ": ", differ, " of ", n, " elements differ, first at ",
                                    IndexString(expected.dims(), element), ": ", show(actual),
                                    " vs expected ", show(expected));
  if (IsFloating(expected.type())) {
    absl::StrAppend(&detail, " (max abs diff ", max_abs, ", rtol ", rtol, ", atol ", atol, ")");
  }
  return {Verdict::kWrong, detail};
}

TestResult RunRunTest(const TestCase& test, const onnx::ModelProto& proto,
                      const RunModeOptions& options) {
  absl::StatusOr<std::unique_ptr<Model>> model = ImportTestModel(test, proto);
  if (!model.ok()) return ErrorResult("import", model.status());

  absl::StatusOr<std::vector<BoundInput>> bound = ReadTestInputs(test, (*model)->graph());
  if (!bound.ok()) return ErrorResult("test data", bound.status());
  absl::flat_hash_map<std::string, Tensor> inputs;
  absl::flat_hash_set<std::string> symbols_taken;
  for (BoundInput& bound_input : *bound) {
    Value* input = bound_input.input;
    Tensor tensor = AsBfloat16IfStoredAsUint16(bound_input.value, input->type().element_type());
    // The test's inputs define the run: a few models declare other input dims than their test
    // data has (test_castlike_*'s `like`), which the Session would rightly reject.
    if (input->type().is_tensor()) {
      std::vector<Dim> dims;
      for (size_t d = 0; d < tensor.dims().size(); ++d) {
        if (!options.dynamic) {
          dims.push_back(Dim::Literal(tensor.dims()[d]));
          continue;
        }
        std::string symbol = InputSymbolName(input->name(), static_cast<int>(d));
        for (int n = 2; !symbols_taken.insert(symbol).second; ++n) {
          symbol = absl::StrCat(InputSymbolName(input->name(), static_cast<int>(d)), "_", n);
        }
        dims.push_back(Dim::Param(symbol));
      }
      input->mutable_type()->set_shape(std::move(dims));
    }
    inputs[input->name()] = std::move(tensor);
  }
  std::vector<Tensor> expected;
  for (const std::string& file : test.output_files) {
    const std::vector<Value*>& graph_outputs = (*model)->graph().outputs();
    const Type declared =
        expected.size() < graph_outputs.size() ? graph_outputs[expected.size()]->type() : Type();
    absl::StatusOr<NamedTensor> t = ReadValueFile(file, declared);
    if (!t.ok()) return ErrorResult("test data", t.status());
    expected.push_back(AsBfloat16IfStoredAsUint16(t->tensor, declared.element_type()));
  }

  // The runtime's failures: Unimplemented (a missing kernel or shape rule) said so explicitly,
  // blamed on the op the message names.
  auto runtime_error = [&proto](const absl::Status& s) {
    const std::string_view message(s.message().data(), s.message().size());
    return TestResult{Verdict::kError,
                      absl::IsUnimplemented(s) ? absl::StrCat("unimplemented: ", s.message())
                                               : std::string(message),
                      OpNamedIn(message, proto)};
  };
  absl::StatusOr<std::vector<Tensor>> actual;
  // With threads, every loop that can split does, however small: the suite's tensors are too
  // small to reach the kernels' thresholds otherwise.
  std::optional<parallel::ScopedSplitAll> split_all;
  if (options.threads > 1) split_all.emplace();
  // Output values, for blaming wrong outputs; the Session owns its (optimized) copy of the model.
  std::vector<const Value*> output_values;
  std::unique_ptr<Session> session;  // outlives the output values it owns
  std::unique_ptr<lower::TirSession> tir_session;
  std::string tag;
  std::string tag_detail;  // which ops called their kernels (reported for passing tests too)
  if (options.engine == RunModeOptions::Engine::kTirEval ||
      options.engine == RunModeOptions::Engine::kCompiled) {
    lower::TirSessionOptions tir_options;
    tir_options.compile = options.engine == RunModeOptions::Engine::kCompiled;
    tir_options.threads = options.threads;
    // Hundreds of small modules: compile time dominates, not the code's speed (Highway's
    // headers would add ~1.5 s per module; jit_test covers the vector loops).
    tir_options.jit.opt_level = "-O1";
    tir_options.jit.vectorize = false;
    // The emitted code is what conformance checks: no cost check trading it for kernels.
    tir_options.cost_check = false;
    absl::StatusOr<std::unique_ptr<lower::TirSession>> loaded =
        lower::TirSession::Load(*std::move(model), tir_options);
    if (!loaded.ok()) return runtime_error(loaded.status());
    tir_session = *std::move(loaded);
    const lower::LoweringStats& stats = tir_session->lowering_stats();
    tag = stats.fallback > 0 ? "fallback" : (stats.intrinsic > 0 ? "intrinsic" : "native");
    for (const auto& [op, n] : stats.fallback_ops) {
      absl::StrAppend(&tag_detail, tag_detail.empty() ? "kernel calls: " : ", ", op);
      if (auto it = stats.fallback_reasons.find(op); it != stats.fallback_reasons.end()) {
        absl::StrAppend(&tag_detail, " (", it->second, ")");
      }
    }
    actual = tir_session->Run(inputs);
    for (const Value* v : tir_session->model().graph().outputs()) output_values.push_back(v);
  } else if (options.engine == RunModeOptions::Engine::kReference) {
    // Shape inference gives If/Loop/Scan outputs the element types their kernels allocate
    // (models need not declare them); the reference runs the model even when it fails.
    if (absl::StatusOr<PassManager> pm = PassManager::Parse("shape-inference"); pm.ok()) {
      std::unique_ptr<Model> inferred = (*model)->Clone();
      if (pm->Run(*inferred).ok()) *model = std::move(inferred);
    }
    // Graph inputs in order; an initializer that is also an input keeps its value when the test
    // gives none (an undefined tensor).
    std::vector<Tensor> positional;
    for (const Value* in : (*model)->graph().inputs()) {
      auto it = inputs.find(in->name());
      positional.push_back(it == inputs.end() ? Tensor() : it->second);
    }
    actual = InterpretGraph(**model, (*model)->graph(), positional);
    for (const Value* v : (*model)->graph().outputs()) output_values.push_back(v);
  } else {
    SessionOptions session_options;
    session_options.threads = options.threads;
    absl::StatusOr<std::unique_ptr<Session>> loaded =
        Session::Load(*std::move(model), session_options);
    if (!loaded.ok()) return runtime_error(loaded.status());
    session = *std::move(loaded);
    actual = session->Run(inputs);
    for (const Value* v : session->model().graph().outputs()) output_values.push_back(v);
  }
  if (!actual.ok()) return runtime_error(actual.status());
  if (expected.size() > actual->size()) {
    return {Verdict::kError,
            absl::StrCat("the test has ", expected.size(), " outputs, the run ", actual->size())};
  }

  TestResult result;
  result.tag = tag;
  std::vector<std::string> details;
  for (size_t k = 0; k < expected.size(); ++k) {
    const Value* out = k < output_values.size() ? output_values[k] : nullptr;
    const std::string name = out != nullptr ? out->name() : absl::StrCat("output ", k);
    TestResult check = CompareTensors(name, (*actual)[k], expected[k], options.rtol, options.atol);
    if (check.verdict != Verdict::kPass) {
      if (result.verdict == Verdict::kPass) result.ops = ProducerOp(out);
      result.verdict = Worse(result.verdict, check.verdict);
      details.push_back(std::move(check.detail));
    }
  }
  result.detail = absl::StrJoin(details, "; ");
  if (result.verdict == Verdict::kPass) result.detail = tag_detail;
  return result;
}

}  // namespace anvil::conformance
