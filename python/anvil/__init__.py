"""Anvil: simplify ONNX models, infer their shapes, run and compile them, from Python.

The calls mirror the tools Python users already know::

    import anvil
    simplified = anvil.simplify("model.onnx")                   # onnxsim.simplify
    inferred = anvil.infer_shapes(model)                         # onnx.shape_inference
    session = anvil.InferenceSession("model.onnx")               # onnxruntime
    outputs = session.run(None, {"x": x})
    anvil.compile("model.onnx", "out_dir")                       # anvil-compile

Models are accepted as an ``onnx.ModelProto``, serialized bytes, or a path (a path keeps external
data next to the model and works past protobuf's 2 GB). Every error is an :class:`anvil.Error`
(a ``ValueError``) whose message is the one line Anvil's command-line tools print.

``python3 -m anvil`` runs the ``anvil-opt`` command line. (``anvil.compile`` is left out of
``__all__`` so that ``from anvil import *`` does not hide Python's built-in ``compile``.)
"""

from __future__ import annotations

import os
import subprocess
import tempfile
import warnings as _warnings
from typing import Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

from . import _anvil

__all__ = [
    "DEFAULT_PIPELINE",
    "Error",
    "InferenceSession",
    "NodeArg",
    "infer_shapes",
    "register_pass",
    "save",
    "simplify",
]

__version__ = "0.1.0"

Error = _anvil.Error
Error.__doc__ = ("An Anvil error: a ValueError whose message is the one line Anvil's tools print "
                 "(naming the node, op, input or file).")

#: The passes :func:`simplify` runs when ``passes`` is not given: the same as ``anvil-opt``'s
#: default pipeline.
DEFAULT_PIPELINE: str = _anvil.DEFAULT_PIPELINE

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))

# Passes written in Python (register_pass): name -> function(ModelProto) -> ModelProto.
_python_passes: Dict[str, Callable] = {}


def _onnx():
    import onnx  # imported on first use: running a model does not need it

    return onnx


def _model_arg(model) -> Tuple[Optional[bytes], Optional[str]]:
    """(serialized bytes, None) or (None, path) for a ModelProto, bytes or a path."""
    if isinstance(model, (str, os.PathLike)):
        path = os.fspath(model)
        if not isinstance(path, str):
            raise Error("model: a path must be a str (not bytes)")
        return None, path
    if isinstance(model, (bytes, bytearray, memoryview)):
        return bytes(model), None
    if hasattr(model, "SerializeToString") and hasattr(model, "graph"):
        if model.ByteSize() > 2**31 - 1:
            raise Error("the ModelProto is over protobuf's 2 GB: save it with external data "
                        "(onnx.save(..., save_as_external_data=True)) and pass its path")
        return model.SerializeToString(), None
    raise Error(f"model: expected an onnx.ModelProto, bytes or a path, got "
                f"{type(model).__name__}")


def _warn(messages: Iterable[str]) -> None:
    for message in dict.fromkeys(messages):  # each distinct one once, in order
        _warnings.warn(f"anvil: {message}", stacklevel=3)


def _split_pipeline(pipeline: str) -> List[Tuple[str, bool, Optional[str]]]:
    """Top-level entries of a pipeline, by Anvil's own parser: (name, has options, canonical
    text; None for a name Anvil's registry does not have)."""
    return _anvil.split_pipeline(pipeline)


def _entry_name(entry) -> str:
    return entry[0] if isinstance(entry, tuple) else getattr(entry, "__name__", repr(entry))


def register_pass(name: str, function: Callable) -> None:
    """Registers a pass written in Python under ``name`` for :func:`simplify` pipelines.

    ``function(model: onnx.ModelProto) -> onnx.ModelProto`` returns the rewritten model. A
    pipeline names it like any Anvil pass (``passes="constprop,my-pass,dce"``); the model is
    handed over as a ModelProto between the Anvil passes before and after it.
    """
    if not isinstance(name, str) or not name or "," in name or "{" in name:
        raise Error(f"register_pass: bad pass name {name!r}")
    if not callable(function):
        raise Error(f"register_pass: {name!r}: the pass must be callable")
    if _anvil.is_pass_registered(name):
        raise Error(f"register_pass: {name!r} is one of Anvil's own passes")
    _python_passes[name] = function


def _input_shape_list(input_shapes) -> List[Tuple[str, list]]:
    if input_shapes is None:
        return []
    if not isinstance(input_shapes, Mapping):
        raise Error("input_shapes: expected a dict {input name: [dims]}")
    out = []
    for name, dims in input_shapes.items():
        if not isinstance(name, str):
            raise Error(f"input_shapes: key {name!r} is not an input name (str)")
        try:
            dims = list(dims)
        except TypeError:
            raise Error(f"input_shapes[{name!r}]: expected a list of dims") from None
        out.append((name, [int(d) if isinstance(d, (int, np.integer)) else d for d in dims]))
    return out


def _random_feed(session: "InferenceSession", input_shapes, seed: int) -> Optional[dict]:
    """Random inputs for every input of `session`, or None when one cannot be made (strings,
    sequences, unknown ranks). Unknown dims take input_shapes' or 1."""
    rng = np.random.default_rng(seed)
    feed = {}
    for arg in session.get_inputs():
        if not arg.type.startswith("tensor(") or arg.shape is None:
            return None
        dims = list((input_shapes or {}).get(arg.name, arg.shape))
        dims = [d if isinstance(d, (int, np.integer)) and d >= 0 else 1 for d in dims]
        elem = arg.type[len("tensor("):-1]
        if elem in ("float", "double", "float16"):
            dtype = {"float": np.float32, "double": np.float64, "float16": np.float16}[elem]
            feed[arg.name] = rng.standard_normal(dims).astype(dtype)
        elif elem == "bool":
            feed[arg.name] = rng.integers(0, 2, dims).astype(np.bool_)
        elif elem in ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"):
            feed[arg.name] = rng.integers(0, 3, dims).astype(np.dtype(elem))
        else:
            return None
    return feed


def _check_same_outputs(original, simplified, input_shapes, check_n: int) -> None:
    """Raises Error when the simplified model's outputs differ from the original's."""
    with InferenceSession(original) as before, InferenceSession(simplified) as after:
        _compare_sessions(before, after, input_shapes, check_n)


def _compare_sessions(before, after, input_shapes, check_n: int) -> None:
    for n in range(check_n):
        feed = _random_feed(before, input_shapes, seed=n)
        if feed is None:
            _warnings.warn("anvil: simplify: check skipped: an input is not a numeric tensor "
                           "of known rank", stacklevel=3)
            return
        try:
            expected = before.run(None, feed)
        except Error as e:
            _warnings.warn(f"anvil: simplify: check skipped: the original model does not run on "
                           f"random inputs: {e}", stacklevel=3)
            return
        got = after.run(None, feed)
        names = [o.name for o in before.get_outputs()]
        for name, e, g in zip(names, expected, got):
            if not isinstance(e, np.ndarray):
                continue
            if e.shape != g.shape:
                raise Error(f"simplify: check failed: output '{name}' has shape {list(g.shape)} "
                            f"after the passes, {list(e.shape)} before")
            if e.dtype.kind in "fc":
                # Folded weights take other kernel paths (packed GEMM), which sum in another
                # order: the tolerance scales with the output's magnitude.
                scale = float(np.max(np.abs(e[np.isfinite(e)]), initial=1.0))
                ok = np.allclose(e, g, rtol=1e-4, atol=1e-5 * max(1.0, scale), equal_nan=True)
            else:
                ok = np.array_equal(e, g)
            if not ok:
                diff = (np.max(np.abs(e.astype(np.float64) - g.astype(np.float64)))
                        if e.dtype.kind in "fciub" and e.size else "n/a")
                raise Error(f"simplify: check failed: output '{name}' differs after the passes "
                            f"(max abs difference {diff}, random inputs, seed {n})")


def simplify(model, *, passes: Union[str, Sequence, None] = None,
             input_shapes: Optional[Mapping[str, Sequence[Union[int, str, None]]]] = None,
             skip: Iterable[str] = (), check: bool = True, check_n: int = 1,
             output_path: Union[str, os.PathLike, None] = None,
             external_data_threshold: Optional[int] = None):
    """Simplifies an ONNX model: shape inference, constant folding, CSE and dead-code removal.

    Like ``onnxsim.simplify`` (or ``onnxslim.slim``), but Anvil's passes, as
    ``anvil-opt --passes=...`` runs them.

    Args:
      model: an ``onnx.ModelProto``, its serialized bytes, or a path to a ``.onnx`` (external
        data next to it is read; models past 2 GB need a path) or ``.onnxtxt`` file. It is never
        modified.
      passes: the pipeline, as text (``"shape-inference,constprop{max-expansion=4},dce"``) or a
        list of pass names, pipeline texts and Python functions (ModelProto -> ModelProto).
        Default: :data:`DEFAULT_PIPELINE`, anvil-opt's
        ``shape-inference,einsum-decompose,fuse-matmul-transpose{shared-only=true},constprop,``
        ``cse,dce``. Passes registered with :func:`register_pass` may be named too.
      input_shapes: ``{"x": [1, 3, 224, 224]}`` fixes the declared shapes of graph inputs first
        (onnxsim's ``overwrite_input_shapes``); a dim may be an int, a name (``"N"``) or None.
      skip: names of pipeline passes to leave out (onnxsim's ``skip_*`` options), e.g.
        ``skip=("cse",)``.
      check: run the original and the simplified model on random inputs with Anvil's runtime
        and raise :class:`Error` if an output differs (onnxsim's ``check_n``); ``check_n``
        sets how many random input sets.
      output_path: write the result there instead of returning it (binary ``.onnx`` or text
        ``.onnxtxt``; large tensors go to ``<path>.data`` as protobuf's 2 GB limit requires,
        or from ``external_data_threshold`` bytes on). Returns the path then.

    Returns:
      A new ``onnx.ModelProto``, or ``output_path`` when given.

    Raises:
      Error: the model does not load or verify, a pass fails (the message names the node and
      op), ``skip`` names a pass that is not in the pipeline, or the check finds a difference.
    """
    data, path = _model_arg(model)
    if passes is None:
        entries: List = _split_pipeline(DEFAULT_PIPELINE)
    elif isinstance(passes, str):
        entries = _split_pipeline(passes)
    else:
        entries = []
        for p in passes:
            entries.extend(_split_pipeline(p) if isinstance(p, str) else [p])
    skip = set([skip] if isinstance(skip, str) else skip)
    missing = skip - {_entry_name(e) for e in entries}
    if missing:
        raise Error(f"skip: {', '.join(sorted(missing))} not in the pipeline "
                    f"'{','.join(_entry_name(e) for e in entries)}'")
    entries = [e for e in entries if _entry_name(e) not in skip]
    shapes = _input_shape_list(input_shapes)
    threshold = -1 if external_data_threshold is None else int(external_data_threshold)
    out_path = None if output_path is None else os.fspath(output_path)

    # Runs of Anvil passes go to the native pipeline in one call; Python passes in between see
    # the model as a ModelProto.
    segments: List = []
    for e in entries:
        fn = e if callable(e) else _python_passes.get(e[0])
        if fn is not None and not callable(e) and e[1]:
            raise Error(f"pass {e[0]!r} is written in Python and takes no options")
        if fn is not None:
            segments.append(fn)
            continue
        text = e[2] if e[2] is not None else e[0]  # an unknown name: the native run reports it
        if segments and isinstance(segments[-1], str):
            segments[-1] += "," + text
        else:
            segments.append(text)
    # input_shapes and the verifier run natively first; after a Python pass the verifier runs
    # again, so what it returned is checked like the output of any pass.
    if not segments or callable(segments[0]):
        segments.insert(0, "")
    if callable(segments[-1]):
        segments.append("")

    all_warnings: List[str] = []
    current_bytes, current_path = data, path
    result_path = None
    for i, segment in enumerate(segments):
        last = i == len(segments) - 1
        if callable(segment):
            proto = _onnx().load_from_string(current_bytes) if current_path is None else \
                _onnx().load(current_path)
            rewritten = segment(proto)
            if rewritten is None:
                raise Error(f"pass {_entry_name(segment)!r} returned None, not a ModelProto")
            current_bytes, current_path = _model_arg(rewritten)
            continue
        write_here = last and out_path is not None
        produced, seg_warnings = _anvil.run_pipeline(
            current_bytes, current_path, segment, shapes if i == 0 else [],
            out_path if write_here else None, threshold)
        all_warnings.extend(seg_warnings)
        if write_here:
            result_path = out_path
        else:
            current_bytes, current_path = produced, None
    _warn(all_warnings)

    if check:
        # The reference is the original with input_shapes applied and nothing else.
        original = path if path is not None else data
        if shapes:
            original, _ = _anvil.run_pipeline(data, path, "", shapes, None, -1)
        simplified = result_path if result_path is not None else current_bytes
        _check_same_outputs(original, simplified, input_shapes, max(1, int(check_n)))
    if result_path is not None:
        return result_path
    return _onnx().load_from_string(current_bytes)


def _ranges_text(input_ranges) -> str:
    """``{"N": (1, 16), "S": (1, None)}`` (or the text ``"N=1:16,S=1:"``) as Anvil's text."""
    if input_ranges is None:
        return ""
    if isinstance(input_ranges, str):
        return input_ranges
    if not isinstance(input_ranges, Mapping):
        raise Error('input_ranges: expected a dict {symbol: (lo, hi)} or text "N=1:16,S=1:"')
    parts = []
    for name, bounds in input_ranges.items():
        try:
            lo, hi = bounds
        except (TypeError, ValueError):
            raise Error(f"input_ranges[{name!r}]: expected (lo, hi), hi None for no bound") from None
        quoted = name if not any(c in name for c in ",=:`") else "`" + name.replace("`", "``") + "`"
        parts.append(f"{quoted}={int(lo)}:{'' if hi is None else int(hi)}")
    return ",".join(parts)


def infer_shapes(model, *, check_type: bool = False, strict_mode: bool = False,
                 data_prop: bool = True, input_ranges=None):
    """Infers the element type and shape of every value, like ``onnx.shape_inference.infer_shapes``.

    Returns a new ``onnx.ModelProto`` whose ``graph.value_info`` (and outputs) carry the types;
    the graph is otherwise unchanged. Dims are Anvil's exact symbolic dims: where ONNX's
    inference gives up (``?``), Anvil writes expressions over the input dims as ``dim_param``
    (``"N*2"``, ``"floor((H+-1)/2)+1"``).

    Args:
      model: an ``onnx.ModelProto``, bytes or a path (never modified).
      check_type: accepted for compatibility; Anvil always checks every node against its op
        schema and raises on a type error.
      strict_mode: raise on ops without a shape rule (custom domains) instead of leaving their
        outputs untyped.
      data_prop: accepted for compatibility; Anvil always propagates the values of shape
        computations (Shape -> Gather -> Concat -> Reshape), so the result is at least as
        precise as ONNX's with ``data_prop=True``.
      input_ranges: ranges of the graph inputs' symbolic dims, ``{"N": (1, 16), "S": (1,
        None)}`` (None: unbounded). Data-dependent dims (NonZero's count, ...) are named
        symbols with ranges either way; the ranges of all symbols are in the result's
        ``metadata_props`` under ``anvil.dim_ranges``.

    Raises:
      Error: the model does not load, or a node's inputs contradict its schema (naming node,
      op and dims).
    """
    del check_type, data_prop  # see the docstring
    data, path = _model_arg(model)
    options = [] if strict_mode else ["unknown-ops=skip"]
    ranges = _ranges_text(input_ranges)
    if ranges:
        options.append('input-ranges="' + ranges.replace("\\", "\\\\").replace('"', '\\"') + '"')
    pipeline = "shape-inference" + ("{" + ",".join(options) + "}" if options else "")
    produced, seg_warnings = _anvil.run_pipeline(data, path, pipeline, [], None, -1)
    _warn(seg_warnings)
    return _onnx().load_from_string(produced)


def save(model, path: Union[str, os.PathLike], *,
         external_data_threshold: Optional[int] = None) -> str:
    """Writes a model (ModelProto, bytes or a path) to ``path`` as Anvil's tools write models:
    ``.onnx`` binary or ``.onnxtxt`` text; tensors of at least ``external_data_threshold`` bytes
    (and all large ones past protobuf's 2 GB) go to ``<path>.data``. Returns ``path``."""
    data, src = _model_arg(model)
    threshold = -1 if external_data_threshold is None else int(external_data_threshold)
    out = os.fspath(path)
    _, seg_warnings = _anvil.run_pipeline(data, src, "", [], out, threshold)
    _warn(seg_warnings)
    return out


class NodeArg:
    """An input or output of a session, as ``onnxruntime.NodeArg``: ``name``, ``shape`` (ints,
    dim_param names, None for an unknown dim; None for an unknown rank) and ``type``
    (``"tensor(float)"``, ``"seq(tensor(int64))"``, ``"optional(tensor(float))"``)."""

    __slots__ = ("name", "shape", "type")

    def __init__(self, name: str, shape, type: str):
        self.name, self.shape, self.type = name, shape, type

    def __repr__(self) -> str:
        return f"NodeArg(name={self.name!r}, type={self.type!r}, shape={self.shape!r})"


class InferenceSession(_anvil.Session):
    """Loads a model once and runs it many times, like ``onnxruntime.InferenceSession``.

    Args:
      path_or_bytes: a path, serialized bytes, or an ``onnx.ModelProto``.
      sess_options, providers, provider_options: accepted for drop-in compatibility with
        ONNX Runtime and ignored (Anvil runs on the CPU).
      threads: intra-op threads (GEMM, convolutions, large element-wise ops); 0 uses every CPU.
        Default 1. Results do not depend on it.
      backend: ``"interpreter"`` (Anvil's runtime: kernels over a planned arena) or
        ``"compiled"`` (the model lowered to loops and compiled to native code with the
        machine's C++ compiler at load; cached across loads).
      input_ranges: ranges of the graph inputs' symbolic dims, ``{"N": (1, 16)}`` (hi None:
        unbounded): a run outside them raises, and when they bound every intermediate the
        memory is planned once at load for the upper bounds.

    ``run(output_names, input_feed)`` reads each input in place when it is a C-contiguous array
    of the declared dtype (other layouts are converted once) and returns arrays over Anvil's own
    output buffers (no copy). The GIL is released while the model runs: two threads can run two
    sessions at once. A session runs one ``run`` at a time. (``run`` is the native method
    itself, so a call costs no Python frame.)

    Raises:
      Error: the file does not exist or does not parse, a node is invalid or has no kernel
      (``Unimplemented``, naming op and opset).
    """

    def __init__(self, path_or_bytes, sess_options=None, providers=None, provider_options=None,
                 *, threads: Optional[int] = None, backend: str = "interpreter",
                 input_ranges=None):
        del sess_options, providers, provider_options
        data, path = _model_arg(path_or_bytes)
        if threads is not None and not isinstance(threads, (int, np.integer)):
            raise Error(f"threads: expected an int, got {type(threads).__name__}")
        super().__init__(data, path, 1 if threads is None else int(threads), backend,
                         _ranges_text(input_ranges))
        self._input_args = [NodeArg(*t) for t in self.inputs()]
        self._output_args = [NodeArg(*t) for t in self.outputs()]
        _warn(super().warnings())

    def get_inputs(self) -> List[NodeArg]:
        """The graph inputs a caller provides (initializers excluded), in order."""
        return list(self._input_args)

    def get_outputs(self) -> List[NodeArg]:
        """The graph outputs, in the order ``run(None, ...)`` returns them."""
        return list(self._output_args)

    @property
    def warnings(self) -> List[str]:
        """Breaches of the ONNX spec the load tolerated (as ONNX Runtime does), one line each."""
        return list(super().warnings())

    def get_providers(self) -> List[str]:
        """ONNX Runtime's provider list, for scripts that ask: Anvil runs on the CPU."""
        return ["CPUExecutionProvider"]

    def __enter__(self) -> "InferenceSession":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _tool(name: str) -> str:
    """A tool binary: $ANVIL_TOOLS_DIR's when set, else the one in the package's bin/."""
    for directory in (os.environ.get("ANVIL_TOOLS_DIR"), os.path.join(_PACKAGE_DIR, "bin")):
        if directory and os.path.isfile(os.path.join(directory, name)):
            return os.path.join(directory, name)
    raise Error(f"{name} is not installed with this anvil package (expected in "
                f"{os.path.join(_PACKAGE_DIR, 'bin')}): install the wheel that "
                f"`bazel build //python:wheel` makes")


def _tool_error(tool: str, stderr: str) -> Error:
    """The tool's own one-line error (without its 'tool: error: ' prefix)."""
    prefix = f"{tool}: error: "
    lines = [l for l in stderr.splitlines() if l.startswith(prefix)]
    if lines:
        return Error(lines[-1][len(prefix):])
    return Error(f"{tool} failed: {stderr.strip().splitlines()[-1] if stderr.strip() else ''}")


def compile(model, path: Union[str, os.PathLike], *, shared: bool = True, native: bool = False,
            pipeline: Optional[str] = None, kernel_host: bool = True) -> str:
    """Compiles a model ahead of time into a C library, as ``anvil-compile`` does.

    Writes ``path/model.h`` (the C API: create, run, destroy), ``path/model.cc`` and
    ``path/model.weights``; with ``shared`` (default) also ``path/libmodel.so``, compiled with
    $CXX (else c++), and for models that call Anvil's kernels ``libanvil_aot_host.so`` next to
    it. ``native`` compiles for this CPU only (-march=native). ``kernel_host=False`` makes a
    self-contained serial library and refuses models that need kernels. ``pipeline`` replaces
    the passes run before lowering (default: the runtime's load pipeline). The tool's
    warnings become Python warnings. Returns ``path``.

    Raises:
      Error: the tool's one-line error (the model does not load or lower, the compiler failed).
    """
    out = os.fspath(path)
    data, src = _model_arg(model)
    with tempfile.TemporaryDirectory(prefix="anvil-compile-") as tmp:
        if src is None:
            src = os.path.join(tmp, "model.onnx")
            with open(src, "wb") as f:
                f.write(data)
        argv = [_tool("anvil-compile"), src, "-o", out]
        if shared:
            argv.append("--shared")
        if native:
            argv.append("--native")
        if not kernel_host:
            argv.append("--no-kernel-host")
        if pipeline is not None:
            argv.append(f"--pipeline={pipeline}")
        env = dict(os.environ)
        host = os.path.join(_PACKAGE_DIR, "lib", "libanvil_aot_host.so")
        if "ANVIL_AOT_HOST_LIB" not in env and os.path.isfile(host):
            env["ANVIL_AOT_HOST_LIB"] = host
        done = subprocess.run(argv, capture_output=True, text=True, env=env)
    if done.returncode != 0:
        raise _tool_error("anvil-compile", done.stderr)
    _warn(l[len("anvil-compile: warning: "):] for l in done.stderr.splitlines()
          if l.startswith("anvil-compile: warning: "))
    return out
