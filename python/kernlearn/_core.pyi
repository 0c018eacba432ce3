"""Type stubs of ``kernlearn._core``, the Rust extension module (crates/kernlearn-py).

Thin on purpose: every function takes numpy arrays and JSON/strings and hands back numpy
arrays or JSON; the scikit-learn conventions live in the pure-Python layer.
"""

import os
from collections.abc import Mapping, Sequence
from typing import Any, Optional, Union, final

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "Model",
    "catalogue",
    "fit_svm",
    "fit_method",
    "grid_search",
    "grid_search_plan",
    "grid_search_block",
    "grid_search_select",
    "experiment_repeat",
    "experiment_report",
    "wilcoxon",
    "Coordinator",
    "ScaleOutWorker",
    "scale_out_partitioned",
    "scale_out_start",
    "scale_out_group",
    "kernel_count",
    "__version__",
    "FELL_BACK",
]

__version__: str
#: Key of ``chosen["other"]`` set when a learned kernel's selection fell back to SVM-CV.
FELL_BACK: str

_F64_1D = NDArray[np.float64]
_F64_2D = NDArray[np.float64]
#: A CSR matrix as ``(shape, indptr, indices, data)``: ``indptr`` and ``indices`` int64,
#: ``data`` float64, indices sorted and summed (``kernlearn._base.csr_parts``).
_CSRParts = tuple[tuple[int, int], NDArray[np.int64], NDArray[np.int64], NDArray[np.float64]]
#: Rows as the extension reads them: a C-contiguous float64 matrix, or CSR arrays.
_Rows = Union[_F64_2D, _CSRParts]
#: A message of the distributed-fit protocol: ``(head JSON, values)``.
_Packet = tuple[str, NDArray[np.float64]]
_Options = Sequence[tuple[str, str]]

@final
class Model:
    """A fitted estimator: the library's ``Pipeline`` (scaler + model), as saved in model
    files."""

    def __new__(cls, text: str) -> "Model": ...
    @staticmethod
    def from_json(text: str) -> "Model": ...
    def save(self, path: Union[str, "os.PathLike[str]"], force: bool = False) -> None: ...
    def to_json(self) -> str: ...
    def predict(self, x: _Rows) -> _F64_1D: ...
    def decision_function(self, x: _Rows) -> _F64_2D: ...
    def predict_proba(self, x: _Rows) -> _F64_2D: ...
    def representation(self, x: _F64_2D, name: str, pair: int) -> _F64_2D: ...
    def info(self) -> str: ...
    def row_alpha(self, n_rows: int) -> _F64_1D: ...
    def __getnewargs__(self) -> tuple[str]: ...

def catalogue() -> str: ...
def fit_svm(
    params_json: str,
    x: _Rows,
    y: _F64_1D,
    sample_weight: Optional[_F64_1D] = None,
    warm_alpha: Optional[_F64_1D] = None,
) -> Model: ...
def fit_method(
    method: str,
    options: _Options,
    scale: str,
    grid_json: Optional[str],
    seed: int,
    x: _F64_2D,
    y: _F64_1D,
    regression: bool = False,
    sample_weight: Optional[_F64_1D] = None,
    feature_names: Optional[Sequence[str]] = None,
) -> tuple[Model, str, Optional[Model]]: ...
def grid_search(
    params_json: str,
    grid_json: str,
    folds: int,
    seed: int,
    x: _Rows,
    y: _F64_1D,
    sample_weight: Optional[_F64_1D] = None,
    test_folds: Optional[Sequence[Sequence[int]]] = None,
    scoring: Optional[str] = None,
) -> str: ...
def grid_search_plan(params_json: str, grid_json: str, folds: int, seed: int, y: _F64_1D) -> str: ...
def grid_search_block(
    params_json: str,
    grid_json: str,
    plan_json: str,
    sigmas: Sequence[float],
    x: _F64_2D,
    y: _F64_1D,
) -> str: ...
def grid_search_select(
    params_json: str, grid_json: str, plan_json: str, scores_json: str, scoring: Optional[str] = None
) -> str: ...

#: ``args`` of the experiment functions: a mapping with the keys ``method``, ``options``,
#: ``scale``, ``grid_json``, ``seed``, ``repeats``, ``test_fraction`` and ``regression``.
_ExperimentArgs = Mapping[str, Any]

def experiment_repeat(args: _ExperimentArgs, name: str, r: int, x: _F64_2D, y: _F64_1D) -> str: ...
def experiment_report(
    args: _ExperimentArgs,
    name: str,
    x: _F64_2D,
    y: _F64_1D,
    runs_json: Optional[str] = None,
    total_seconds: float = 0.0,
) -> str: ...
def wilcoxon(d: Sequence[float]) -> str: ...

@final
class Coordinator:
    """A distributed fit's coordinator."""

    def step(self, replies: Sequence[Optional[_Packet]]) -> tuple[str, Any]:
        """``("ask", [request per worker])``, ``("regroup", [request or None per
        group])`` or ``("done", (model or None, record JSON))``."""

@final
class ScaleOutWorker:
    """A worker of a distributed fit on rows ``x`` with labels ``y``."""

    def __new__(cls, method: str, setup: _Packet, x: _F64_2D, y: _F64_1D) -> "ScaleOutWorker": ...
    def served(self) -> int: ...
    def work(self, t: int, request: _Packet) -> Optional[_Packet]: ...
    def replay(self, requests: Sequence[_Packet]) -> int: ...
    def groups(self) -> NDArray[np.int64]: ...

def scale_out_partitioned(method: str) -> bool: ...
def scale_out_start(
    method: str,
    options: _Options,
    settings: str,
    seed: int,
    y: _F64_1D,
    n_features: int,
    parts: Sequence[int],
) -> tuple[Coordinator, list[_Packet], _F64_1D]: ...
def scale_out_group(method: str, request: _Packet, x: _F64_2D, y: _F64_1D) -> _Packet: ...
def kernel_count(kernels: str, n_features: int) -> int: ...
