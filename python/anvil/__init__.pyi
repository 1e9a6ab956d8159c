"""Anvil: simplify ONNX models, infer their shapes, run and compile them, from Python."""

import os
from types import TracebackType
from typing import (Any, Callable, Iterable, List, Mapping, Optional, Sequence, Tuple, Type,
                    Union, overload)

import numpy as np
import numpy.typing as npt
import onnx

from . import _anvil

__all__: List[str]
__version__: str

# A model argument: a ModelProto, its serialized bytes, or a path to a .onnx / .onnxtxt file.
_Model = Union[onnx.ModelProto, bytes, bytearray, memoryview, str, os.PathLike[str]]
_Path = Union[str, os.PathLike[str]]
# A dim of a shape: an int, a dim_param name, or None (unknown).
_Dim = Union[int, str, None]
# A pass written in Python: rewrites a ModelProto.
_PythonPass = Callable[[onnx.ModelProto], onnx.ModelProto]
# An input value: an array (or anything np.asarray reads), a list of arrays for a sequence,
# None for an empty optional.
_InputValue = Union[npt.ArrayLike, Sequence[npt.ArrayLike], None]
# An output value: an array (object array of str for strings), a list of arrays, or None.
_OutputValue = Union[np.ndarray, List[np.ndarray], None]

Error = _anvil.Error
"""A ValueError whose message is the one line Anvil's tools print (the native module's Error)."""

DEFAULT_PIPELINE: str
"""The passes simplify runs when none are given (anvil-opt's default pipeline)."""

def register_pass(name: str, function: _PythonPass) -> None:
    """Registers a Python pass (ModelProto -> ModelProto) under ``name`` for pipelines."""

@overload
def simplify(model: _Model, *, passes: Union[str, Sequence[Union[str, _PythonPass]], None] = ...,
             input_shapes: Optional[Mapping[str, Sequence[_Dim]]] = ...,
             skip: Union[str, Iterable[str]] = ..., check: bool = ..., check_n: int = ...,
             output_path: None = ...,
             external_data_threshold: Optional[int] = ...) -> onnx.ModelProto:
    """Simplifies a model with Anvil's passes and returns a new ModelProto."""

@overload
def simplify(model: _Model, *, passes: Union[str, Sequence[Union[str, _PythonPass]], None] = ...,
             input_shapes: Optional[Mapping[str, Sequence[_Dim]]] = ...,
             skip: Union[str, Iterable[str]] = ..., check: bool = ..., check_n: int = ...,
             output_path: _Path, external_data_threshold: Optional[int] = ...) -> str:
    """Simplifies a model with Anvil's passes, writes it to ``output_path`` and returns that."""

def infer_shapes(model: _Model, *, check_type: bool = ..., strict_mode: bool = ...,
                 data_prop: bool = ...,
                 input_ranges: Union[None, str, Mapping[str, Tuple[int, Optional[int]]]] = ...
                 ) -> onnx.ModelProto:
    """Returns a new ModelProto whose values carry Anvil's inferred types and symbolic dims."""

def save(model: _Model, path: _Path, *, external_data_threshold: Optional[int] = ...) -> str:
    """Writes a model as .onnx or .onnxtxt (large tensors to ``<path>.data``); returns path."""

def compile(model: _Model, path: _Path, *, shared: bool = ..., native: bool = ...,
            pipeline: Optional[str] = ..., kernel_host: bool = ...) -> str:
    """Compiles a model ahead of time into a C library in ``path`` (anvil-compile)."""

class NodeArg:
    """A session input or output, as onnxruntime.NodeArg: name, shape and type."""

    name: str
    """The value's name."""
    shape: Optional[List[_Dim]]
    """Dims (int, dim_param name, or None if unknown); None when the rank is unknown."""
    type: str
    """ONNX Runtime's type string, e.g. ``"tensor(float)"`` or ``"seq(tensor(int64))"``."""

    def __init__(self, name: str, shape: Optional[List[_Dim]], type: str) -> None: ...

class InferenceSession(_anvil.Session):
    """Loads a model once and runs it many times, like onnxruntime.InferenceSession."""

    def __init__(self, path_or_bytes: _Model, sess_options: Any = ..., providers: Any = ...,
                 provider_options: Any = ..., *, threads: Optional[int] = ...,
                 backend: str = ...,
                 input_ranges: Union[None, str, Mapping[str, Tuple[int, Optional[int]]]] = ...
                 ) -> None:
        """Loads the model; ``backend`` is ``"interpreter"`` (default) or ``"compiled"``."""

    def get_inputs(self) -> List[NodeArg]:
        """The graph inputs a caller provides (initializers excluded), in order."""

    def get_outputs(self) -> List[NodeArg]:
        """The graph outputs, in the order ``run(None, ...)`` returns them."""

    def run(self, output_names: Union[None, str, Sequence[str]],  # type: ignore[override]
            input_feed: Mapping[str, _InputValue], run_options: Any = ...) -> List[_OutputValue]:
        """Runs the model and returns the named outputs (all when None), in that order."""

    @property
    def warnings(self) -> List[str]:  # type: ignore[override]
        """Breaches of the ONNX spec the load tolerated, one line each."""

    def get_providers(self) -> List[str]:
        """["CPUExecutionProvider"]: Anvil runs on the CPU."""

    def close(self) -> None:
        """Frees the session's memory now; later runs raise Error."""

    def __enter__(self) -> "InferenceSession":
        """Returns the session."""

    def __exit__(self, exc_type: Optional[Type[BaseException]],
                 exc_value: Optional[BaseException],
                 traceback: Optional[TracebackType]) -> None:
        """Closes the session."""
