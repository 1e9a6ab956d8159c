"""Anvil's native module; use the `anvil` package."""

from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

DEFAULT_PIPELINE: str
"""The pipeline run when a user names none (anvil-opt's and anvil.simplify's default)."""

LOAD_PIPELINE: str
"""The passes every engine runs on a model at load (Session, the compiled backend)."""

class Error(ValueError):
    """An Anvil error: a ValueError whose message is the one line Anvil's tools print."""

# A dim of an input shape (ints, dim_param names, None for unknown), as NodeArg.shape holds it.
_Dim = Union[int, str, None]

class Session:
    """A loaded model: the runtime's Session ("interpreter") or the JIT ("compiled")."""

    def __init__(self, bytes: Optional[bytes], path: Optional[str], threads: int,
                 backend: str, input_ranges: str = ...) -> None:
        """Loads serialized ``bytes``, or ``path`` when given; releases the GIL while loading."""

    def run(self, output_names: Union[None, str, Sequence[str]], input_feed: Mapping[str, Any],
            run_options: Any = ...) -> List[Any]:
        """Runs the model (GIL released, one run at a time) and returns the wanted outputs."""

    def inputs(self) -> List[Tuple[str, Optional[List[_Dim]], str]]:
        """(name, shape, type) of each graph input a caller provides."""

    def outputs(self) -> List[Tuple[str, Optional[List[_Dim]], str]]:
        """(name, shape, type) of each graph output."""

    def warnings(self) -> List[str]:
        """Breaches of the ONNX spec the load tolerated, one line each."""

    def close(self) -> None:
        """Frees the session after any run in progress; later runs raise Error."""

def run_pipeline(bytes: Optional[bytes], path: Optional[str], pipeline: str,
                 input_shapes: Sequence[Tuple[str, List[_Dim]]], output_path: Optional[str],
                 external_data_threshold: int) -> Tuple[Optional[bytes], List[str]]:
    """anvil-opt's work: load, fix input shapes, run ``pipeline``, then write ``output_path``
    (returning None) or return the serialized model; also returns the warnings."""

def is_pass_registered(name: str) -> bool:
    """Whether a pass of that name is registered in Anvil's pass registry."""

def split_pipeline(text: str) -> List[Tuple[str, bool, Optional[str]]]:
    """Top-level passes of a pipeline text, by Anvil's parser: (name, has options, canonical
    text of a registered pass with its options; None for a name the registry does not have)."""
