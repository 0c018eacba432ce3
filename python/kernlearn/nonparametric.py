"""Nonparametric kernel learning: KNPL (``G ⊙ K``), DANK (``F ⊙ K``) for classification
and regression, and scalable DANK (one DANK machine per k-means cluster)."""

import json
from typing import Any, Callable, Optional

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.utils.validation import check_is_fitted

from ._learned import _COMMON_DOC, _LearnedClassifier, _LearnedRegressor, _require_binary


def _learned_machines(node):
    """The learned-kernel machines (``support``, ``coef``, ``weights``) of a model's JSON,
    in the model's order (class pairs, or clusters for scalable DANK)."""
    if isinstance(node, dict):
        if {"support", "coef", "weights"} <= node.keys():
            return [node]
        return [m for v in node.values() for m in _learned_machines(v)]
    if isinstance(node, list):
        return [m for v in node for m in _learned_machines(v)]
    return []


class _LearnedMatrixMixin:
    """Access to the learned matrix of KNPL (``G``) and DANK (``F``)."""

    # What the mixin reads of the estimator it is mixed into (for type checkers).
    _learned_model: Callable[[], Any]

    def learned_matrix(self, machine: int = 0) -> tuple[NDArray[np.intp], NDArray[np.float64]]:
        """Rows of the learned matrix ``W`` (KNPL's ``G``, DANK's ``F``) that prediction
        uses: those of the support vectors, against every training point of the machine.
        After a fallback (``fell_back_``), those of the declined learned kernel's model
        (``declined_model_``).

        Parameters
        ----------
        machine : int, default=0
            Class pair (model order) or, for scalable DANK, cluster.

        Returns
        -------
        support : ndarray of shape (n_SV,)
            Indices of the support vectors among the machine's training points.
        rows : ndarray of shape (n_SV, n_train_machine)
            ``W[support[s], j]``.
        """
        check_is_fitted(self)
        machines = _learned_machines(json.loads(self._learned_model().to_json())["model"])
        if not 0 <= machine < len(machines):
            raise ValueError(f"machine={machine}: the model has {len(machines)} learned machines")
        m = machines[machine]
        support = np.asarray(m["support"], dtype=np.intp)
        rows = np.asarray(m["weights"], dtype=np.float64).reshape(len(support), -1)
        if m.get("column_of"):  # columns shared by the points off the support, stored once
            rows = rows[:, np.asarray(m["column_of"], dtype=np.intp)]
        return support, rows


class KNPLClassifier(_LearnedMatrixMixin, _LearnedClassifier):
    __doc__ = """KNPL (Liu et al., AAAI 2018): an SVM on a learned ``G ⊙ K``, with ``G``
    learned by alternating SMO and ADMM.

    Parameters
    ----------
    kernel : str or kernlearn.kernels.Kernel, default=None
        Base kernel (``"rbf"``; spec strings as ``--kernel``).
    sigma : float, default=None
        Gaussian width σ of the base kernel.
    C : float, default=None
        SVM trade-off.
    knpl_gamma : float, default=None
        KNPL's regulariser γ of γ‖G − 11ᵀ‖² (not the RBF width).
    knpl_alternate : bool, default=False
        Algorithm 2 as published (alternating SMO and ADMM; can 2-cycle for small γ)
        instead of the default monotone ascent on the saddle objective.
    tol : float, default=None
        SMO tolerance.
    """ + _COMMON_DOC + """
    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from kernlearn import KNPLClassifier
    >>> X, y = make_classification(n_samples=60, n_features=4, random_state=0)
    >>> knpl = KNPLClassifier(random_state=0).fit(X, y)
    >>> support, rows = knpl.learned_matrix()  # G's rows of the support vectors
    >>> rows.shape == (len(support), len(X))
    True
"""

    _method = "knpl"

    def __init__(self, *, kernel=None, sigma=None, C=None, knpl_gamma=None, knpl_alternate=False, tol=None,
                 select=None, grid=None, cv=5, fallback=True, scale="none", random_state=None, verbose=False):
        self.kernel = kernel
        self.sigma = sigma
        self.C = C
        self.knpl_gamma = knpl_gamma
        self.tol = tol
        self.select = select
        self.grid = grid
        self.cv = cv
        self.fallback = fallback
        self.knpl_alternate = knpl_alternate
        self.scale = scale
        self.random_state = random_state
        self.verbose = verbose


class DANKClassifier(_LearnedMatrixMixin, _LearnedClassifier):
    __doc__ = """DANK-SVM (Liu et al.): an SVM on a learned ``F ⊙ K`` with a nuclear-norm
    penalty on ``F``.

    Parameters
    ----------
    kernel : str or kernlearn.kernels.Kernel, default=None
        Base kernel.
    sigma : float, default=None
        Gaussian width σ.
    C : float, default=None
        SVM trade-off.
    tau : float, default=None
        Nuclear-norm weight τ.
    eta : float, default=None
        Proximity weight η (keeps ``F`` near ``11ᵀ``).
    scheme : {"ascent", "newton", ...}, default=None
        Optimisation scheme (``--dank-scheme``).
    step : str, default=None
        Step rule (``--dank-step``).
    start : {"svm", "zero"}, default=None
        Where the solver starts (``--dank-start``): the SVM solution on the base kernel
        (the papers; the default) or zero.
    """ + _COMMON_DOC + """
    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from kernlearn import DANKClassifier
    >>> X, y = make_classification(n_samples=60, n_features=4, random_state=0)
    >>> dank = DANKClassifier(random_state=0).fit(X, y)
    >>> support, rows = dank.learned_matrix()  # F's rows of the support vectors
    >>> rows.shape == (len(support), len(X))
    True
"""

    _method = "dank"

    def __init__(self, *, kernel=None, sigma=None, C=None, tau=None, eta=None, scheme=None,
                 step=None, start=None, select=None, grid=None, cv=5, fallback=True, scale="none",
                 random_state=None, verbose=False):
        self.kernel = kernel
        self.sigma = sigma
        self.C = C
        self.tau = tau
        self.eta = eta
        self.scheme = scheme
        self.step = step
        self.start = start
        self.select = select
        self.grid = grid
        self.cv = cv
        self.fallback = fallback
        self.scale = scale
        self.random_state = random_state
        self.verbose = verbose


class DANKRegressor(_LearnedMatrixMixin, _LearnedRegressor):
    __doc__ = """DANK-SVR: ε-SVR on a learned ``F ⊙ K``.

    Parameters
    ----------
    kernel, sigma, C, tau, eta, scheme, step, start
        As in :class:`DANKClassifier`.
    epsilon : float, default=None
        Width of the insensitive tube.
    """ + _COMMON_DOC

    _method = "dank-svr"

    def __init__(self, *, kernel=None, sigma=None, C=None, epsilon=None, tau=None, eta=None,
                 scheme=None, step=None, start=None, select=None, grid=None, cv=5, fallback=True,
                 scale="none", random_state=None, verbose=False):
        self.kernel = kernel
        self.sigma = sigma
        self.C = C
        self.epsilon = epsilon
        self.tau = tau
        self.eta = eta
        self.scheme = scheme
        self.step = step
        self.start = start
        self.select = select
        self.grid = grid
        self.cv = cv
        self.fallback = fallback
        self.scale = scale
        self.random_state = random_state
        self.verbose = verbose


class ScalableDANKClassifier(_LearnedMatrixMixin, _LearnedClassifier):
    __doc__ = """Scalable DANK: k-means clusters, one τ = 0 DANK machine per cluster, each
    point routed to its cluster's machine (binary classification).

    Parameters
    ----------
    kernel, sigma, C, eta, scheme, step, start
        As in :class:`DANKClassifier`.
    clusters : int, default=None
        Number of k-means clusters (default ``max(1, round(n / 1000))``).
    """ + _COMMON_DOC

    _method = "dank-scalable"

    def fit(self, X: ArrayLike, y: ArrayLike, sample_weight: Optional[ArrayLike] = None) -> "ScalableDANKClassifier":
        """Clusters the data and learns one DANK machine per cluster.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Two classes.
        sample_weight : array-like of shape (n_samples,), default=None
            Refused (``ValueError`` naming the method) unless ``kernlearn.methods()``
            lists the method as taking ``sample_weights``: its kernel learning has no
            weighted form.

        Returns
        -------
        self : object
        """
        _require_binary(y, "scalable DANK routes each point to one binary machine")
        return super().fit(X, y, sample_weight=sample_weight)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags

    def __init__(self, *, kernel=None, sigma=None, C=None, eta=None, scheme=None, step=None,
                 start=None, clusters=None, select=None, grid=None, cv=5, scale="none",
                 random_state=None, verbose=False):
        self.kernel = kernel
        self.sigma = sigma
        self.C = C
        self.eta = eta
        self.scheme = scheme
        self.step = step
        self.start = start
        self.clusters = clusters
        self.select = select
        self.grid = grid
        self.cv = cv
        self.scale = scale
        self.random_state = random_state
        self.verbose = verbose
