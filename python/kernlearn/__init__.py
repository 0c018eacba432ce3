"""kernlearn: LIBSVM-grade kernel machines and learned kernels, for scikit-learn users.

The estimators follow scikit-learn's conventions (``fit``/``predict``/
``decision_function``, ``get_params``/``set_params``, fitted attributes ending in ``_``),
so they work in :class:`sklearn.pipeline.Pipeline`, :class:`~sklearn.model_selection.
GridSearchCV`, ``joblib`` and ``pickle``. The computation is the Rust library's: the
same solver, grid search and methods as the ``kernlearn`` command line.
"""

import json

from . import _core
from .compare import compare
from .exceptions import FallbackWarning
from .learned import (
    ARDClassifier,
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


def methods():
    """The library's method catalogue.

    Returns
    -------
    list of dict
        One entry per method: ``name``, ``family``, ``tasks``, ``summary``, ``selection``
        and the ``options`` it reads (command-line names).
    """
    return json.loads(_core.catalogue())["methods"]


def load(path):
    """Reads a kernlearn model file (written by ``kernlearn fit --model-out`` or an
    estimator's ``save``) as a low-level model with ``predict`` and
    ``decision_function``.

    Parameters
    ----------
    path : str or path-like

    Returns
    -------
    kernlearn._core.Model
    """
    with open(path, encoding="utf-8") as f:
        return _core.Model.from_json(f.read())
