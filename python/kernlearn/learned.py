"""Estimators that learn their kernel: one class per family of the library's method
catalogue (``kernlearn.methods()``), fitted through the same path as ``kernlearn fit``.

The estimators live in one module per concept: :mod:`kernlearn._learned` (the shared
base and the catalogue's option table as Python parameters),
:mod:`kernlearn.nonparametric` (KNPL, DANK, scalable DANK), :mod:`kernlearn.mkl` (MKL and
localized MKL), :mod:`kernlearn.ard`, :mod:`kernlearn.hyperkernel`, :mod:`kernlearn.ckl` and
:mod:`kernlearn.dkmo`. This module gathers them (imports and pickles made when they all
lived here keep working) and maps each estimator to the catalogue methods it fits.
"""

from ._learned import OPTION_OF, OPTIONS, _require_binary  # noqa: F401 (imported from here before)
from .ard import ARDClassifier, ARDRegressor
from .ckl import CKLClassifier
from .dkmo import DKMOClassifier
from .hyperkernel import HyperkernelClassifier, HyperkernelNovelty, HyperkernelRegressor
from .mkl import LocalizedMKLClassifier, MKLClassifier
from .nonparametric import DANKClassifier, DANKRegressor, KNPLClassifier, ScalableDANKClassifier

__all__ = [
    "KNPLClassifier",
    "DANKClassifier",
    "DANKRegressor",
    "ScalableDANKClassifier",
    "MKLClassifier",
    "LocalizedMKLClassifier",
    "ARDClassifier",
    "ARDRegressor",
    "HyperkernelClassifier",
    "HyperkernelRegressor",
    "HyperkernelNovelty",
    "CKLClassifier",
    "DKMOClassifier",
    "ESTIMATOR_METHODS",
    "OPTIONS",
    "OPTION_OF",
]

#: Every learned-kernel estimator and the catalogue methods it fits.
ESTIMATOR_METHODS = {
    ARDClassifier: ("ard",),
    ARDRegressor: ("ard-svr",),
    CKLClassifier: CKLClassifier._methods,
    KNPLClassifier: ("knpl",),
    DANKClassifier: ("dank",),
    DANKRegressor: ("dank-svr",),
    ScalableDANKClassifier: ("dank-scalable",),
    MKLClassifier: MKLClassifier._methods,
    LocalizedMKLClassifier: LocalizedMKLClassifier._methods,
    HyperkernelClassifier: ("hyperkernel",),
    HyperkernelRegressor: ("hyperkernel",),
    HyperkernelNovelty: ("hyperkernel",),
    DKMOClassifier: DKMOClassifier._methods,
}
