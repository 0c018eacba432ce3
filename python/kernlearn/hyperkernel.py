"""Hyperkernels (Ong, Smola and Williamson, JMLR 2005): the kernel learned in a
hyper-RKHS, for classification, ν-regression and novelty detection."""

from typing import Any, Optional

import numpy as np
from numpy.typing import ArrayLike
from sklearn.base import OutlierMixin

from ._base import NoveltyMixin, check_fit_data
from ._learned import _LearnedClassifier, _LearnedKernel, _LearnedRegressor, _require_binary


_HYPERKERNEL_DOC = """
    hyperkernel : {"ard", "harmonic", "exp", "sinh", "cosh", "arctanh", "neglog", "explicit"}, default=None
        The hyperkernel (paper: ARD (14), harmonic (12)-(13), the power series of Table 2,
        the explicit expansion (16)).
    lambda_h : float, default=None
        λ_h in (0, 1) of the harmonic and ARD hyperkernels (paper: 0.6).
    lambda_q : float, default=None
        Regularisation λ_Q of the kernel in the hyper-RKHS (paper: 1).
    width_factor : float, default=None
        Base-kernel widths = this factor × the 90 % quantile of pairwise distances on a
        20 % sample (paper: 50).
    delta : float, default=None
        Tolerance of the incomplete Cholesky of the hyperkernel matrix (paper: 1e-6).
    rank : int, default=None
        Rank cap of that factorisation (default 100).
    scale : {"none", "01", "pm1", "standard"}, default="none"
        Feature scaling fitted on the training data; ``"none"`` takes the features as
        given, as every kernlearn and scikit-learn estimator does (scale explicitly, e.g.
        ``make_pipeline(MinMaxScaler(), estimator)``); ``"01"`` scales to [0, 1].
    random_state : int or None, default=None
        Seed (the width sample).
    verbose : bool, default=False
        Print the fit's report on standard output (parameters used, selection scores,
        the machine's size).

    Attributes
    ----------
    n_features_in_ : int
    chosen_ : dict
    fell_back_ : bool
        Always False: this method has no fallback to the SVM on the base kernel (the
        attribute, and ``declined_model_ = None``, keep the learned-kernel estimators
        uniform).
    model_ : kernlearn._core.Model
    offset_ : float
        (novelty detection) 0: ``decision_function = score_samples - offset_``.
"""


class _HyperkernelParams:
    def _init_hyperkernel(self, hyperkernel, lambda_h, lambda_q, width_factor, delta, rank,
                          scale, random_state, verbose):
        self.hyperkernel = hyperkernel
        self.lambda_h = lambda_h
        self.lambda_q = lambda_q
        self.width_factor = width_factor
        self.delta = delta
        self.rank = rank
        self.scale = scale
        self.random_state = random_state
        self.verbose = verbose


class HyperkernelClassifier(_HyperkernelParams, _LearnedClassifier):
    __doc__ = """Hyperkernel classifier (Ong, Smola and Williamson, JMLR 2005): the kernel
    is learned in a hyper-RKHS by a conic program, jointly with the machine.

    Parameters
    ----------
    problem : {"c-svm", "nu-svm", "lsvm", "kta"}, default="c-svm"
        Quality functional: C-SVM (27), ν-SVM (28), Lagrangian SVM (29) or kernel-target
        alignment (32, hypothesis by a C-SVM on the learned kernel).
    C : float, default=None
        Trade-off (paper: 100).
    nu : float, default=None
        ν of the ν-SVM (paper: 0.3).
    """ + _HYPERKERNEL_DOC

    _method = "hyperkernel"
    _problems = ("c-svm", "nu-svm", "lsvm", "kta")

    def __init__(self, problem="c-svm", *, C=None, nu=None, hyperkernel=None, lambda_h=None,
                 lambda_q=None, width_factor=None, delta=None, rank=None, scale="none",
                 random_state=None, verbose=False):
        self.problem = problem
        self.C = C
        self.nu = nu
        self._init_hyperkernel(hyperkernel, lambda_h, lambda_q, width_factor, delta, rank,
                               scale, random_state, verbose)

    def fit(self, X: ArrayLike, y: ArrayLike, sample_weight: Optional[ArrayLike] = None) -> "HyperkernelClassifier":
        """Learns the kernel and the classifier (two classes).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None
            Refused (``ValueError`` naming the method) unless ``kernlearn.methods()``
            lists the method as taking ``sample_weights``: its kernel learning has no
            weighted form.

        Returns
        -------
        self : object
        """
        if self.problem not in self._problems:
            raise ValueError(f"problem={self.problem!r} is not one of {', '.join(self._problems)}")
        _require_binary(y, "the hyperkernel programs are binary")
        return super().fit(X, y, sample_weight=sample_weight)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags


class HyperkernelRegressor(_HyperkernelParams, _LearnedRegressor):
    __doc__ = """Hyperkernel ν-regression (Ong et al. 2005, Example 11, problem (31)).

    Parameters
    ----------
    C : float, default=None
        Trade-off (paper: 100).
    nu : float, default=None
        ν (paper: 0.3).
    """ + _HYPERKERNEL_DOC

    _method = "hyperkernel"
    _problem = "nu-svr"

    def __init__(self, *, C=None, nu=None, hyperkernel=None, lambda_h=None, lambda_q=None,
                 width_factor=None, delta=None, rank=None, scale="none", random_state=None, verbose=False):
        self.C = C
        self.nu = nu
        self._init_hyperkernel(hyperkernel, lambda_h, lambda_q, width_factor, delta, rank,
                               scale, random_state, verbose)


class HyperkernelNovelty(NoveltyMixin, _HyperkernelParams, OutlierMixin, _LearnedKernel):
    __doc__ = """Hyperkernel novelty detection (Ong et al. 2005, Example 10, problem (30)):
    a one-class machine on a learned kernel.

    Parameters
    ----------
    nu : float, default=None
        Fraction of outliers (paper: 0.1 for novelty detection).
    """ + _HYPERKERNEL_DOC

    _method = "hyperkernel"
    _problem = "one-class"

    def __init__(self, *, nu=None, hyperkernel=None, lambda_h=None, lambda_q=None,
                 width_factor=None, delta=None, rank=None, scale="none", random_state=None, verbose=False):
        self.nu = nu
        self._init_hyperkernel(hyperkernel, lambda_h, lambda_q, width_factor, delta, rank,
                               scale, random_state, verbose)

    def fit(self, X: ArrayLike, y: Any = None, sample_weight: Optional[ArrayLike] = None) -> "HyperkernelNovelty":
        """Learns the kernel and the support of the training distribution.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : ignored
        sample_weight : array-like of shape (n_samples,), default=None
            Refused (``ValueError`` naming the method) unless ``kernlearn.methods()``
            lists the method as taking ``sample_weights``: its kernel learning has no
            weighted form.

        Returns
        -------
        self : object
        """
        data, _ = check_fit_data(self, X, None, classifier=False, supervised=False)
        self._fit(data, np.zeros(data.shape[0]), sample_weight)
        self.offset_ = 0.0
        return self
