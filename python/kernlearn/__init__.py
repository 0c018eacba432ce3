"""kernlearn: LIBSVM-grade kernel machines and learned kernels, for scikit-learn users.

The estimators follow scikit-learn's conventions (``fit``/``predict``/
``decision_function``, ``get_params``/``set_params``, fitted attributes ending in ``_``),
so they work in :class:`sklearn.pipeline.Pipeline`, :class:`~sklearn.model_selection.
GridSearchCV`, ``joblib`` and ``pickle``. The computation is the Rust library's: the
same solver, grid search and methods as the ``kernlearn`` command line.
"""

import json
import os
from typing import Any, Union

import numpy as np
from numpy.typing import ArrayLike, NDArray

from . import _core
from .compare import compare
from .exceptions import FallbackWarning
from .learned import (
    ARDClassifier,
    ARDRegressor,
    CKLClassifier,
    DANKClassifier,
    DANKRegressor,
    DKMOClassifier,
    HyperkernelClassifier,
    HyperkernelNovelty,
    HyperkernelRegressor,
    KNPLClassifier,
    LocalizedMKLClassifier,
    MKLClassifier,
    ScalableDANKClassifier,
)
from .model_selection import GridSearch
from .svm import SVC, SVR, NuSVC, NuSVR, OneClassSVM

__version__ = _core.__version__

__all__ = [
    "SVC",
    "NuSVC",
    "SVR",
    "NuSVR",
    "OneClassSVM",
    "GridSearch",
    "KNPLClassifier",
    "DANKClassifier",
    "DANKRegressor",
    "ScalableDANKClassifier",
    "MKLClassifier",
    "LocalizedMKLClassifier",
    "ARDClassifier",
    "ARDRegressor",
    "HyperkernelClassifier",
    "DKMOClassifier",
    "HyperkernelRegressor",
    "HyperkernelNovelty",
    "CKLClassifier",
    "FallbackWarning",
    "compare",
    "methods",
    "load",
]


def methods() -> list[dict[str, Any]]:
    """The library's method catalogue.

    Returns
    -------
    list of dict
        One entry per method: ``name``, ``family``, ``tasks``, ``summary``, ``selection``,
        the ``options`` it reads (command-line names), and what its fit takes:
        ``sample_weights`` (``fit(X, y, sample_weight=...)`` is honoured; the others
        raise ``ValueError``) and ``sparse`` (sparse input kept sparse).

    Examples
    --------
    >>> from kernlearn import methods
    >>> catalogue = {m["name"]: m for m in methods()}
    >>> catalogue["easymkl"]["family"]
    'multiple kernel learning'
    >>> catalogue["spg-gmkl"]["sample_weights"], catalogue["easymkl"]["sample_weights"]
    (True, False)
    """
    return json.loads(_core.catalogue())["methods"]


def load(path: Union[str, "os.PathLike[str]"]) -> "LoadedModel":
    """Reads a kernlearn model file (written by ``kernlearn fit --model-out`` or an
    estimator's ``save``), validated as the command line validates it.

    Parameters
    ----------
    path : str or path-like

    Returns
    -------
    LoadedModel
        ``predict``, ``decision_function`` and ``predict_proba`` laid out as the
        estimators lay them out (classes sorted; two classes: one column, positive
        meaning ``classes_[1]``); the low-level ``kernlearn._core.Model`` is ``model_``.

    Examples
    --------
    >>> import os
    >>> import tempfile
    >>> from sklearn.datasets import make_classification
    >>> from kernlearn import SVC, load
    >>> X, y = make_classification(n_samples=60, n_features=4, random_state=0)
    >>> clf = SVC().fit(X, y)
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = os.path.join(folder, "svc.model")
    ...     clf.save(path)
    ...     model = load(path)
    >>> model.method, model.task
    ('c-svc', 'classification')
    >>> bool((model.predict(X) == clf.predict(X)).all())
    True
    """
    return LoadedModel(_core.Model.from_json(_read_model_text(path)))


def _read_model_text(path):
    """The model file's text; only a regular file is read (a device or FIFO would block
    or never end), and at most 4 GiB of it."""
    import os
    import stat

    path = os.fspath(path)
    mode = os.stat(path).st_mode
    if not stat.S_ISREG(mode):
        raise ValueError(f"{path}: not a regular file (a directory, device, FIFO or socket)")
    limit = 4 << 30
    with open(path, "rb") as f:
        data = f.read(limit + 1)
    if len(data) > limit:
        raise ValueError(f"{path}: larger than {limit} bytes, not a kernlearn model file")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ValueError(f"{path}: not UTF-8 text, not a kernlearn model file") from e


class LoadedModel:
    """A model read by :func:`load`: predictions, decision values and probabilities of
    dense or scipy.sparse ``X`` (svm models) with the estimators' layout, so a loaded model agrees in sign and shape with the
    estimator that saved it (its default ``decision_function_shape="ovr"``). Non-finite
    outputs (a damaged file) raise ``ValueError`` in ``predict`` as in
    ``decision_function``. ``representation(X, name, pair)`` gives a per-row artefact
    (``gates`` of a localized MKL model, ``fused`` of a DKMO one; also as ``gates(X,
    pair)`` and ``fused(X)``). Other attributes (``save``, ``to_json``, ``info``) are the
    low-level model's."""

    def __init__(self, model):
        self.model_ = model
        info = json.loads(model.info())
        self.method = info["method"]
        self.task = info["task"]
        self.n_features_in_ = info["n_features"]
        self._model_classes = [float(c) for c in info["classes"]]
        self.classes_ = np.array(sorted(self._model_classes))
        names = info.get("decision_names") or []
        self._per_class = self.task == "classification" and not any("_vs_" in n for n in names)

    def __getattr__(self, name):
        if name == "model_":
            raise AttributeError(name)
        return getattr(self.model_, name)

    def _X(self, X):
        """What the low-level model reads: a dense float64 matrix, or a scipy.sparse
        matrix (any format) as CSR arrays, for the svm's sparse kernels."""
        import scipy.sparse as sp

        from ._base import csr_parts

        if sp.issparse(X):
            return csr_parts(sp.csr_matrix(X, dtype=np.float64))
        X = np.ascontiguousarray(X, dtype=np.float64)
        if X.ndim != 2:
            raise ValueError(f"X must be 2-D (n_samples, n_features), got {X.ndim}-D")
        return X

    def _order(self):
        return [self._model_classes.index(c) for c in self.classes_]

    def predict(self, X: ArrayLike) -> NDArray[Any]:
        """Predicted labels (targets for regression, ±1 for novelty detection)."""
        return np.asarray(self.model_.predict(self._X(X)))

    def representation(self, X: ArrayLike, name: str, pair: int = 0) -> NDArray[np.float64]:
        """The model's per-row artefact ``name`` at each row of ``X``, ``(n, width)``."""
        X = np.ascontiguousarray(X, dtype=np.float64)
        return np.asarray(self.model_.representation(X, name, pair), dtype=np.float64)

    def gates(self, X: ArrayLike, pair: int = 0) -> NDArray[np.float64]:
        """Per-kernel gates of a localized MKL model at each row, ``(n, m)``."""
        return self.representation(X, "gates", pair)

    def fused(self, X: ArrayLike) -> NDArray[np.float64]:
        """The fused representation of a DKMO / M-DKMO model at each row."""
        return self.representation(X, "fused")

    def decision_function(self, X: ArrayLike) -> NDArray[np.float64]:
        """Decision values as the estimator that saved the model returns them."""
        from ._base import PairLayout, classifier_scores

        dec = np.asarray(self.model_.decision_function(self._X(X)), dtype=np.float64)
        if self.task != "classification":
            return dec[:, 0]
        k = len(self.classes_)
        if self._per_class:
            p = dec[:, self._order()]
            return p[:, 1] - p[:, 0] if k == 2 else p
        ovo = PairLayout(self._model_classes, self.classes_).ovo(dec)
        return classifier_scores(ovo, k, "ovr")

    def predict_proba(self, X: ArrayLike) -> NDArray[np.float64]:
        """Class probabilities, one column per class of ``classes_`` (sorted)."""
        p = np.asarray(self.model_.predict_proba(self._X(X)), dtype=np.float64)
        return p[:, self._order()]
