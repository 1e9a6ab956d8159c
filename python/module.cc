// `anvil._anvil`: the native half of the Python package (python/anvil/__init__.py is the public
// API and its documentation). What it binds:
//
//   Error                    anvil.Error, a ValueError; the message is the tools' one line
//   Session(bytes, path, threads, backend)
//                            runtime::Session ("interpreter") or lower::TirSession
//                            ("compiled": the JIT), with ONNX Runtime's run/get_inputs shape
//   run_pipeline(bytes, path, pipeline, input_shapes, output_path, external_data_threshold)
//                            anvil-opt's work: -> (serialized model or None, warnings)
//
// Every call that does real work (load, a run, a pipeline) releases the GIL, so Python threads
// run sessions in parallel; a session serializes its own runs (runtime sessions are not
// thread-safe), so sharing one between threads is safe but not parallel.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/excerpt.h"
#include "base/status_macros.h"
#include "graph/model_io.h"
#include "graph/pass.h"
#include "graph/pass_registry.h"
#include "graph/pipeline_text.h"
#include "kernels/tensor.h"
#include "lower/evaluator/tir_session.h"
#include "passes/default_pipeline.h"
#include "pybind11/pybind11.h"
#include "pybind11/stl.h"
#include "python/model_source.h"
#include "python/numpy_tensor.h"
#include "runtime/session.h"
#include "shape/dim_ranges.h"

namespace anvil::python {
namespace {
namespace py = pybind11;

// Thrown for a non-OK status; pybind11 turns it into anvil.Error with the status message.
class AnvilError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

[[noreturn]] void Raise(const absl::Status& status) {
  const absl::string_view message = status.message();
  throw AnvilError(OneLineMessage(std::string_view(message.data(), message.size())));
}

template <typename T>
T ValueOrRaise(absl::StatusOr<T> v) {
  if (!v.ok()) Raise(v.status());
  return *std::move(v);
}

void OkOrRaise(const absl::Status& s) {
  if (!s.ok()) Raise(s);
}

// A model argument: bytes (kept alive by `holder` while they are read) or a path.
ModelSource SourceOf(const py::object& bytes, const std::optional<std::string>& path,
                     py::object* holder) {
  ModelSource source;
  if (path) {
    source.path = *path;
  } else {
    *holder = bytes;
    char* data = nullptr;
    py::ssize_t size = 0;
    if (PyBytes_AsStringAndSize(bytes.ptr(), &data, &size) != 0) {
      throw py::error_already_set();
    }
    source.bytes = std::string_view(data, static_cast<size_t>(size));
  }
  return source;
}

class PySession {
 public:
  PySession(const py::object& bytes, const std::optional<std::string>& path, int threads,
            const std::string& backend, const std::string& input_ranges) {
    if (threads < 0) Raise(absl::InvalidArgumentError("threads must be >= 0 (0: every CPU)"));
    absl::StatusOr<std::vector<SymbolRange>> ranges = ParseSymbolRanges(input_ranges);
    if (!ranges.ok()) {
      Raise(absl::InvalidArgumentError(absl::StrCat("input_ranges: ", ranges.status().message())));
    }
    if (backend != "interpreter" && backend != "compiled") {
      Raise(absl::InvalidArgumentError(absl::StrCat("unknown backend '", Excerpt(backend),
                                                    "'; expected 'interpreter' or 'compiled'")));
    }
    py::object holder;
    const ModelSource source = SourceOf(bytes, path, &holder);
    absl::Status status;
    {
      py::gil_scoped_release release;
      status = Load(source, threads, backend == "compiled", *ranges);
    }
    OkOrRaise(status);
    for (const Value* v : inputs_) input_keys_.push_back(py::str(v->name()));
    for (size_t i = 0; i < outputs_.size(); ++i) all_outputs_.push_back(static_cast<int>(i));
  }

  // ONNX Runtime's InferenceSession.run: outputs in the order asked for (all when None).
  py::list Run(const py::object& output_names, const py::object& input_feed,
               const py::object& /*run_options*/) {
    if (closed_) Raise(absl::FailedPreconditionError("the session is closed"));
    std::vector<int> named;  // the outputs asked for by name
    const std::vector<int>& wanted = output_names.is_none() ? all_outputs_ : named;
    if (py::isinstance<py::str>(output_names)) {
      named.push_back(OutputIndex(output_names.cast<std::string>()));
    } else if (!output_names.is_none()) {
      if (!py::isinstance<py::iterable>(output_names)) {
        Raise(absl::InvalidArgumentError("output_names: expected None or a list of names"));
      }
      for (py::handle name : output_names) {
        if (!py::isinstance<py::str>(name)) {
          Raise(absl::InvalidArgumentError("output_names: every name must be a str"));
        }
        named.push_back(OutputIndex(name.cast<std::string>()));
      }
    }
    py::dict feed = AsDict(input_feed);
    // Looked up by the inputs' own name objects: no key is converted or hashed again.
    absl::flat_hash_map<std::string, Tensor> inputs;
    inputs.reserve(inputs_.size());
    size_t given = 0;
    for (size_t k = 0; k < inputs_.size(); ++k) {
      PyObject* value = PyDict_GetItemWithError(feed.ptr(), input_keys_[k].ptr());
      if (value == nullptr) {
        if (PyErr_Occurred() != nullptr) throw py::error_already_set();
        continue;  // missing: the session names it
      }
      ++given;
      const std::string& name = inputs_[k]->name();
      inputs.emplace(name, ValueOrRaise(TensorFromPython(name, value, inputs_[k]->type())));
    }
    if (given != feed.size()) RaiseUnknownInput(feed);
    absl::StatusOr<std::vector<Tensor>> outputs;
    {
      py::gil_scoped_release release;
      std::lock_guard<std::mutex> lock(mu_);
      if (session_ != nullptr) {
        outputs = session_->Run(inputs);
      } else if (tir_ != nullptr) {
        outputs = tir_->Run(inputs);
      } else {
        outputs = absl::FailedPreconditionError("the session is closed");
      }
    }
    inputs.clear();  // the borrowed arrays go with the GIL held
    if (!outputs.ok()) Raise(outputs.status());
    py::list result;
    for (int i : wanted) {
      result.append(ValueOrRaise(TensorToPython(outputs_[i]->name(), (*outputs)[i])));
    }
    return result;
  }

  // (name, shape, type) per graph input a caller provides, and per output.
  py::list Inputs() const { return Describe(inputs_); }
  py::list Outputs() const { return Describe(outputs_); }
  const std::vector<std::string>& warnings() const { return warnings_; }

  void Close() {
    py::gil_scoped_release release;
    std::lock_guard<std::mutex> lock(mu_);  // a run on another thread finishes first
    closed_ = true;
    session_.reset();
    tir_.reset();
  }

 private:
  absl::Status Load(const ModelSource& source, int threads, bool compiled,
                    const std::vector<SymbolRange>& input_ranges) {
    std::vector<std::string> import_warnings;
    ANVIL_ASSIGN_OR_RETURN(std::unique_ptr<Model> model, LoadSource(source, &import_warnings));
    // In the model's metadata both engines read them from: the interpreter's arena and input
    // checks, the compiled code's checks and bounded buffers.
    ANVIL_RETURN_IF_ERROR(AddInputRanges(*model, input_ranges));
    if (compiled) {
      lower::TirSessionOptions options;
      options.compile = true;
      options.threads = threads;
      ANVIL_ASSIGN_OR_RETURN(tir_, lower::TirSession::Load(std::move(model), options));
      inputs_ = tir_->inputs();
      outputs_ = tir_->outputs();
      warnings_ = tir_->warnings();
    } else {
      SessionOptions options;
      options.threads = threads;
      ANVIL_ASSIGN_OR_RETURN(session_, Session::Load(std::move(model), options));
      inputs_ = session_->inputs();
      outputs_ = session_->outputs();
      warnings_ = session_->warnings();
    }
    warnings_.insert(warnings_.begin(), import_warnings.begin(), import_warnings.end());
    return absl::OkStatus();
  }

  static py::dict AsDict(const py::object& feed) {
    if (PyDict_Check(feed.ptr())) return py::reinterpret_borrow<py::dict>(feed);
    try {
      return py::dict(feed);
    } catch (const py::error_already_set&) {
      Raise(absl::InvalidArgumentError("input_feed: expected a dict {input name: array}"));
    }
  }

  // A feed key that names no input of the model.
  [[noreturn]] void RaiseUnknownInput(const py::dict& feed) const {
    for (auto [key, value] : feed) {
      if (!py::isinstance<py::str>(key)) {
        Raise(absl::InvalidArgumentError("input_feed: every key must be an input name (str)"));
      }
      const std::string name = key.cast<std::string>();
      if (std::none_of(inputs_.begin(), inputs_.end(),
                       [&](const Value* v) { return v->name() == name; })) {
        Raise(absl::InvalidArgumentError(
            absl::StrCat("input '", Excerpt(name),
                         "' is not an input of the model (inputs: ", Excerpt(InputNames()), ")")));
      }
    }
    Raise(absl::InternalError("input_feed: a key matched no input"));
  }

  int OutputIndex(const std::string& name) const {
    for (size_t i = 0; i < outputs_.size(); ++i) {
      if (outputs_[i]->name() == name) return static_cast<int>(i);
    }
    std::vector<std::string> names;
    for (const Value* v : outputs_) names.push_back(v->name());
    Raise(absl::InvalidArgumentError(absl::StrCat(
        "output '", Excerpt(name),
        "' is not an output of the model (outputs: ", Excerpt(absl::StrJoin(names, ", ")), ")")));
  }

  std::string InputNames() const {
    std::vector<std::string> names;
    for (const Value* v : inputs_) names.push_back(v->name());
    return absl::StrJoin(names, ", ");
  }

  static py::list Describe(const std::vector<const Value*>& values) {
    py::list list;
    for (const Value* v : values) {
      list.append(py::make_tuple(v->name(), ShapeToPython(v->type()), OrtTypeString(v->type())));
    }
    return list;
  }

  std::mutex mu_;
  std::atomic<bool> closed_{false};
  std::unique_ptr<Session> session_;
  std::unique_ptr<lower::TirSession> tir_;
  std::vector<const Value*> inputs_;
  std::vector<const Value*> outputs_;
  std::vector<py::str> input_keys_;  // per input, its name as Python str (the feed's keys)
  std::vector<int> all_outputs_;
  std::vector<std::string> warnings_;
};

// The top-level passes of a pipeline text, parsed by the one pipeline parser
// (graph/pipeline_text.h): (name, has options, canonical text). The canonical text is that of
// a registered pass with its options set (so bad options fail here, as the pass manager would
// fail them); None for a name the registry does not have (a pass written in Python, or a
// mistake the native pipeline reports).
py::list SplitPipeline(const std::string& text) {
  absl::StatusOr<std::vector<PassSpec>> specs = ParsePipelineText(text);
  if (!specs.ok()) Raise(specs.status());
  py::list entries;
  for (const PassSpec& spec : *specs) {
    py::object canonical = py::none();
    if (IsPassRegistered(spec.name)) {
      std::unique_ptr<Pass> pass = ValueOrRaise(CreatePass(spec.name));
      for (const PassOptionSpec& option : spec.options) {
        OkOrRaise(pass->SetOption(option.key, option.value));
      }
      canonical = py::str(pass->ToPipelineText());
    }
    entries.append(py::make_tuple(spec.name, !spec.options.empty(), canonical));
  }
  return entries;
}

// anvil-opt's work on one model: load, fix input shapes, run `pipeline`, write to
// `output_path` or return the serialized model. Returns (bytes or None, warnings).
py::tuple RunPipelineOn(const py::object& bytes, const std::optional<std::string>& path,
                        const std::string& pipeline,
                        const std::vector<std::pair<std::string, py::list>>& input_shapes,
                        const std::optional<std::string>& output_path,
                        int64_t external_data_threshold) {
  std::vector<std::pair<std::string, std::vector<DimSpec>>> shapes;
  for (const auto& [name, dims] : input_shapes) {
    std::vector<DimSpec> spec;
    for (py::handle d : dims) {
      if (d.is_none()) {
        spec.push_back({});
      } else if (py::isinstance<py::str>(d)) {
        spec.push_back({std::nullopt, d.cast<std::string>()});
      } else if (py::isinstance<py::int_>(d)) {
        spec.push_back({d.cast<int64_t>(), ""});
      } else {
        Raise(absl::InvalidArgumentError(absl::StrCat("input_shapes['", Excerpt(name),
                                                      "']: a dim must be an int, a str or None")));
      }
    }
    shapes.emplace_back(name, std::move(spec));
  }
  py::object holder;
  const ModelSource source = SourceOf(bytes, path, &holder);
  std::vector<std::string> warnings;
  absl::StatusOr<std::string> serialized;
  absl::Status status;
  {
    py::gil_scoped_release release;
    status = [&]() -> absl::Status {
      ANVIL_ASSIGN_OR_RETURN(std::unique_ptr<Model> model, LoadSource(source, &warnings));
      ANVIL_RETURN_IF_ERROR(OverrideInputShapes(*model, shapes));
      ANVIL_RETURN_IF_ERROR(RunPipeline(*model, pipeline, &warnings));
      if (output_path) {
        SaveOptions save;
        save.external_data_threshold = external_data_threshold;
        return SaveModel(*model, *output_path, save);
      }
      serialized = SerializeModel(*model);
      return serialized.status();
    }();
  }
  OkOrRaise(status);
  py::object out = py::none();
  if (!output_path) out = py::bytes(*serialized);
  return py::make_tuple(out, py::cast(warnings));
}

}  // namespace
}  // namespace anvil::python

namespace {
constexpr char kRunDoc[] = R"doc(Runs the model on input_feed ({input name: array}).

Returns the outputs named in output_names (all when None; one name may be a str), in that order:
numpy arrays over Anvil's own buffers (no copy), lists of arrays for sequences, None for an
empty optional, object arrays of str for strings. Inputs are read in place when they are
C-contiguous arrays of the declared dtype in native byte order; other layouts are converted
once; a dtype other than the declared one is an error. The GIL is released while the model
runs; a session runs one run at a time. run_options is accepted for ONNX Runtime compatibility.

Raises anvil.Error: a missing or unknown input, a wrong dtype or rank, a dim that contradicts
the model, a closed session, or a failure inside the model (naming node and op).)doc";
}  // namespace

PYBIND11_MODULE(_anvil, m) {
  namespace py = pybind11;
  using anvil::python::PySession;
  m.doc() = "Anvil's native module; use the `anvil` package.";
  py::register_exception<anvil::python::AnvilError>(m, "Error", PyExc_ValueError);
  py::class_<PySession>(m, "Session")
      .def(py::init<const py::object&, const std::optional<std::string>&, int, const std::string&,
                    const std::string&>(),
           py::arg("bytes"), py::arg("path"), py::arg("threads"), py::arg("backend"),
           py::arg("input_ranges") = "")
      .def("run", &PySession::Run, py::arg("output_names"), py::arg("input_feed"),
           py::arg("run_options") = py::none(), kRunDoc)
      .def("inputs", &PySession::Inputs, "(name, shape, type) of each input a caller provides")
      .def("outputs", &PySession::Outputs, "(name, shape, type) of each output")
      .def("warnings", &PySession::warnings, "spec breaches the load tolerated, one line each")
      .def("close", &PySession::Close,
           "Frees the session now (after a run in progress); later runs raise anvil.Error.");
  m.def(
      "is_pass_registered", [](const std::string& name) { return anvil::IsPassRegistered(name); },
      py::arg("name"));
  m.attr("DEFAULT_PIPELINE") = anvil::kDefaultPipeline;
  m.attr("LOAD_PIPELINE") = anvil::kLoadPipeline;
  m.def("split_pipeline", &anvil::python::SplitPipeline, py::arg("text"));
  m.def("run_pipeline", &anvil::python::RunPipelineOn, py::arg("bytes"), py::arg("path"),
        py::arg("pipeline"), py::arg("input_shapes"), py::arg("output_path"),
        py::arg("external_data_threshold"));
}
