"""Estimators that learn their kernel: one class per family of the library's method
catalogue (``kernlearn.methods()``), fitted through the same path as ``kernlearn fit``.

Every parameter left at ``None`` takes the paper's default, as on the command line; with
``select="grid"`` σ and C (and the method's own parameters where its catalogue entry says
so) are chosen by k-fold cross-validation on the training data (the papers' SVM-CV).
"""

import json

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, OutlierMixin, RegressorMixin
from sklearn.utils.multiclass import type_of_target

from . import _core
from ._base import (
    PAPER_POWERS,
    FittedModelMixin,
    NoveltyMixin,
    PairLayout,
    RegressorPredictMixin,
    as_features,
    check_fit_data,
    check_predict_data,
    classifier_scores,
    label_values,
    seed_of,
)
from .kernels import family_spec, kernel_spec

# Python parameter -> library option (command-line name). Parameters not listed here
# (method, select, grid, cv, scale, random_state) steer fitting itself.
OPTION_OF = {
    "kernel": "kernel",
    "sigma": "sigma",
    "gamma": "gamma",
    "degree": "degree",
    "coef0": "coef0",
    "C": "c",
    "epsilon": "epsilon",
    "tol": "tol",
    "cache_size": "cache-mb",
    "shrinking": "no-shrinking",
    "knpl_gamma": "knpl-gamma",
    "tau": "tau",
    "eta": "eta",
    "scheme": "dank-scheme",
    "step": "dank-step",
    "start": "dank-start",
    "clusters": "clusters",
    "kernels": "kernels",
    "mwu_epsilon": "mwu-epsilon",
    "easymkl_lambda": "lambda",
    "landmarks": "landmarks",
    "gmkl_reg": "gmkl-reg",
    "gmkl_p": "gmkl-p",
    "gmkl_lambda": "gmkl-lambda",
    "solver": "solver",
    "lkl_epsilon": "lkl-epsilon",
    "problem": "problem",
    "hyperkernel": "hyperkernel",
    "lambda_h": "lambda-h",
    "lambda_q": "lambda-q",
    "nu": "nu",
    "width_factor": "hk-width-factor",
    "delta": "hk-delta",
    "rank": "hk-rank",
    "fallback": "no-fallback",
    "knpl_alternate": "knpl-alternate",
    "fourier_features": "fourier-features",
    "init_variance": "init-variance",
    "feature_map": "feature-map",
    "norm_cap": "norm-cap",
    "embedding": "dkmo-embedding",
    "embeddings": "dkmo-embeddings",
    "hidden": "dkmo-hidden",
    "dropout": "dropout",
    "kernel_dropout": "kernel-dropout",
    "fusion": "dkmo-fusion",
    "optimizer": "optimizer",
    "learning_rate": "learning-rate",
    "weight_decay": "weight-decay",
    "epochs": "epochs",
    "patience": "patience",
    "batch_size": "batch-size",
    "validation_fraction": "validation-fraction",
    "configs": "configs",
    "ckl_search": "ckl-search",
}


def _option_value(param, value):
    """The option's text for a parameter value, or ``None`` to leave it unset."""
    if value is None:
        return None
    if param in ("shrinking", "fallback"):  # on by default; the option turns it off
        return None if value else "true"
    if param == "kernel":
        return kernel_spec(value)
    if param == "kernels":
        return family_spec(value)
    if param == "hidden" and not isinstance(value, str):
        return ",".join(str(int(v)) for v in value)
    if isinstance(value, bool):
        return "true" if value else None
    return str(value)


class _LearnedKernel(FittedModelMixin, BaseEstimator):
    """Fitting through the library's method catalogue."""

    _regression = False

    def _method_name(self):
        return self._method

    def _options(self):
        options = [("problem", self._problem)] if getattr(self, "_problem", None) else []
        for param, option in OPTION_OF.items():
            if param in self.get_params(deep=False):
                text = _option_value(param, getattr(self, param))
                if text is not None:
                    options.append((option, text))
        return options

    def _grid_json(self):
        if getattr(self, "select", None) is None:  # the hyperkernel estimators have none
            return None
        if self.select != "grid":
            raise ValueError(f"select={self.select!r}: expected None or 'grid'")
        grid = dict(self.grid or {})
        unknown = set(grid) - {"sigma", "C", "epsilon"}
        if unknown:
            raise ValueError(f"grid has unknown keys {sorted(unknown)}; expected sigma, C, epsilon")
        return json.dumps(
            {
                "grid": {
                    "sigmas": [float(v) for v in grid.get("sigma", PAPER_POWERS)],
                    "cs": [float(v) for v in grid.get("C", PAPER_POWERS)],
                    "epsilons": [float(v) for v in grid.get("epsilon", [])],
                },
                "folds": int(self.cv),
                "gram_budget_bytes": 1 << 30,
            }
        )

    def _fit(self, X, y):
        if X.shape[0] < 2:
            raise ValueError(f"n_samples={X.shape[0]}: learning a kernel needs at least 2 training samples")
        model, chosen = _core.fit_method(
            self._method_name(), self._options(), self.scale, self._grid_json(),
            seed_of(self.random_state, 0), X, y, self._regression,
        )
        return self._adopt(model, chosen)

    def _adopt(self, model, chosen):
        """Takes a fitted ``_core.Model`` and its ``fit_method`` record (JSON) as this
        estimator's fit (also used by :mod:`kernlearn.ray`); returns the model's info."""
        self.model_ = model
        chosen = json.loads(chosen)
        self.chosen_ = {k: v for k, v in chosen["chosen"].items() if v is not None}
        self.selection_ = chosen["selection"]
        info = self._model_info()
        self.warnings_ = info["warnings"]
        self.summary_ = info["summary"]
        return info

    def learned_kernel(self):
        """What the method learned, as numpy arrays where it is numeric: kernel weights
        (MKL), learned matrices' statistics (KNPL, DANK), per-pair objectives.

        Returns
        -------
        dict
        """
        extra = self._model_info()["summary"].get("extra") or {}
        return {k: (np.asarray(v) if isinstance(v, list) else v) for k, v in extra.items()}


def _require_binary(y, why):
    """scikit-learn's error for a binary-only classifier given other targets."""
    kind = type_of_target(y, input_name="y", raise_unknown=True)
    if kind != "binary":
        raise ValueError(
            f"Only binary classification is supported. The type of the target is {kind}; {why}."
        )


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

    def learned_matrix(self, machine=0):
        """Rows of the learned matrix ``W`` (KNPL's ``G``, DANK's ``F``) that prediction
        uses: those of the support vectors, against every training point of the machine.

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
        machines = _learned_machines(json.loads(self.model_.to_json())["model"])
        if not 0 <= machine < len(machines):
            raise ValueError(f"machine={machine}: the model has {len(machines)} learned machines")
        m = machines[machine]
        support = np.asarray(m["support"], dtype=np.intp)
        rows = np.asarray(m["weights"], dtype=np.float64).reshape(len(support), -1)
        return support, rows


class _LearnedClassifier(ClassifierMixin, _LearnedKernel):
    def fit(self, X, y):
        """Learns the kernel and the classifier.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training samples.
        y : array-like of shape (n_samples,)
            Class labels.

        Returns
        -------
        self : object
        """
        X, y = check_fit_data(self, X, y, classifier=True)
        return self._classifier_fitted(self._fit(X, y))

    def _classifier_fitted(self, info):
        """The class layout of the fitted model (``classes_`` is set)."""
        self._layout = PairLayout(info["classes"], self.classes_)
        self._values = label_values(self.classes_)
        return self

    def decision_function(self, X):
        """Decision values, laid out as :meth:`kernlearn.SVC.decision_function`.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,) or (n_samples, n_classes)
        """
        X = check_predict_data(self, X)
        dec = self._layout.ovo(self.model_.decision_function(as_features(X)))
        return classifier_scores(dec, len(self.classes_))

    def predict(self, X):
        """Predicted class labels: the one-vs-one vote (the library's prediction) for two
        classes; for more, the largest :meth:`decision_function` score, i.e. the vote with
        its ties broken by the summed pair confidences (scikit-learn's ``break_ties``),
        so that ``predict`` and ``decision_function`` always agree.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        X = check_predict_data(self, X)
        if len(self.classes_) > 2:
            return self.classes_[np.argmax(self.decision_function(X), axis=1)]
        pred = self.model_.predict(as_features(X))
        return self.classes_[np.searchsorted(self._values, pred)]


class _LearnedRegressor(RegressorPredictMixin, RegressorMixin, _LearnedKernel):
    _regression = True

    def fit(self, X, y):
        """Learns the kernel and the regressor.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Real targets.

        Returns
        -------
        self : object
        """
        X, y = check_fit_data(self, X, y, classifier=False)
        self._fit(X, y)
        return self


_COMMON_DOC = """
    select : {None, "grid"}, default=None
        ``"grid"``: choose σ and C (and what the method's catalogue entry lists) by
        k-fold cross-validation on the training data.
    grid : dict, default=None
        Values for the grid search: keys ``"sigma"``, ``"C"`` (and ``"epsilon"``); the
        papers' ``2^-5 … 2^5`` where absent.
    cv : int, default=5
        Folds of the grid search.
    fallback : bool, default=True
        With ``select="grid"``: SVM-CV runs first and the learned kernel's candidates
        use its C; unless the best candidate beats that SVM by more than one standard
        error of the fold-wise gain, both on the selection folds and on a fresh fold
        partition, the fitted model is the SVM (``chosen_["other"]`` has
        ``fell_back_to_base_svm``, and ``learned_cv_score``, the learned kernel's best
        CV score). For MKL, localized methods and DANK, the candidates' CV stops as soon
        as none of them could win even with perfect scores on the remaining folds: the
        same decision, with fewer fits when there are fewer cores than fits per fold
        round (``learned_cv_folds``: the folds ``learned_cv_score`` averages). ``False``
        keeps the learned kernel and, for MKL and localized methods, chooses C over the
        grid (the papers' protocols).
    scale : {"01", "pm1", "standard", "none"}, default="01"
        Feature scaling fitted on the training data (the papers scale to [0, 1]).
    random_state : int or None, default=None
        Seed of every random choice (folds, initialisations, k-means).

    Attributes
    ----------
    classes_ : ndarray (classifiers)
    n_features_in_ : int
    chosen_ : dict
        Hyper-parameters used (selected or given).
    selection_ : dict or None
        The grid-search record when ``select="grid"``.
    warnings_ : list of str
        What the fit reported that a user should know (e.g. an iteration cap).
    model_ : kernlearn._core.Model
        The library's fitted model (what :meth:`save` writes).
"""


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
    """ + _COMMON_DOC

    _method = "knpl"

    def __init__(self, *, kernel=None, sigma=None, C=None, knpl_gamma=None, knpl_alternate=False, tol=None,
                 select=None, grid=None, cv=5, fallback=True, scale="01", random_state=None):
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
    """ + _COMMON_DOC

    _method = "dank"

    def __init__(self, *, kernel=None, sigma=None, C=None, tau=None, eta=None, scheme=None,
                 step=None, start=None, select=None, grid=None, cv=5, fallback=True, scale="01",
                 random_state=None):
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
                 scale="01", random_state=None):
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

    def fit(self, X, y):
        """Clusters the data and learns one DANK machine per cluster.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Two classes.

        Returns
        -------
        self : object
        """
        _require_binary(y, "scalable DANK routes each point to one binary machine")
        return super().fit(X, y)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags

    def __init__(self, *, kernel=None, sigma=None, C=None, eta=None, scheme=None, step=None,
                 start=None, clusters=None, select=None, grid=None, cv=5, scale="01",
                 random_state=None):
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


class _MethodChoice:
    """For estimators that fit one of several catalogue methods (``method=``)."""

    def _method_name(self):
        if self.method not in self._methods:
            raise ValueError(f"method={self.method!r} is not one of {', '.join(self._methods)}")
        return self.method


class MKLClassifier(_MethodChoice, _LearnedClassifier):
    __doc__ = """Multiple kernel learning: a classifier on a learned combination of base
    kernels.

    Parameters
    ----------
    method : {"uniform", "mwumkl", "easymkl", "spg-gmkl", "nystrom-linear"}, default="mwumkl"
        UNIFORM (average kernel), MWUMKL (Moeller 2017, ch. 3), EasyMKL (Aiolli and
        Donini 2015), SPG-GMKL (Jain, Vishwanathan and Varma 2012: spectral projected
        gradient on the weights around SMO) or Nyström features + linear SVM.
    kernels : str, Kernel or list of them, default=None
        The base kernel family (``--kernels`` spec, e.g. ``"family12@each"``, or
        :mod:`kernlearn.kernels` objects); default the thesis's 12 kernels.
    C : float, default=None
        Trade-off (UNIFORM, MWUMKL, SPG-GMKL, Nyström).
    mwu_epsilon : float, default=None
        MWUMKL's approximation error ε.
    easymkl_lambda : float, default=None
        EasyMKL's λ in (0, 1].
    landmarks : int, default=None
        Nyström landmarks per kernel.
    gmkl_reg : {"l1", "pnorm"}, default=None
        SPG-GMKL's regulariser: weights on the simplex (``"l1"``, the default) or
        ``(λ/p) Σ d^p`` on ``d ≥ 0``.
    gmkl_p : float, default=None
        SPG-GMKL's p > 1 of the p-norm regulariser (default 2).
    gmkl_lambda : float, default=None
        SPG-GMKL's λ > 0 of the p-norm regulariser (default 1).
    tol : float, default=None
        SPG-GMKL's SMO tolerance (default 1e-4).
    """ + _COMMON_DOC

    _methods = ("uniform", "mwumkl", "easymkl", "spg-gmkl", "nystrom-linear")

    def __init__(self, method="mwumkl", *, kernels=None, C=None, mwu_epsilon=None,
                 easymkl_lambda=None, landmarks=None, gmkl_reg=None, gmkl_p=None, gmkl_lambda=None,
                 tol=None, select=None, grid=None, cv=5, fallback=True, scale="01", random_state=None):
        self.method = method
        self.kernels = kernels
        self.C = C
        self.mwu_epsilon = mwu_epsilon
        self.easymkl_lambda = easymkl_lambda
        self.landmarks = landmarks
        self.gmkl_reg = gmkl_reg
        self.gmkl_p = gmkl_p
        self.gmkl_lambda = gmkl_lambda
        self.tol = tol
        self.select = select
        self.grid = grid
        self.cv = cv
        self.fallback = fallback
        self.scale = scale
        self.random_state = random_state

    def fit(self, X, y):
        """Learns the kernel weights and the classifier.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)

        Returns
        -------
        self : object
        """
        super().fit(X, y)
        weights = self.learned_kernel().get("weights")
        if weights is not None:
            self.weights_ = np.asarray(weights, dtype=np.float64)
        return self


class LocalizedMKLClassifier(_MethodChoice, _LearnedClassifier):
    __doc__ = """Localized multiple kernel learning: kernel weights that vary over the input
    space (gates).

    Parameters
    ----------
    method : {"lmkl", "ldmkl", "swmkl", "clmkl"}, default="lmkl"
        LMKL (softmax gates), LD-MKL, SWMKL or C-LMKL (Moeller 2017, ch. 4).
    kernels : str, Kernel or list of them, default=None
        Base kernel family, as in :class:`MKLClassifier`.
    C : float, default=None
        Trade-off.
    solver : {"smo", "mwu"}, default=None
        Solver of the inner classifiers.
    lkl_epsilon : float, default=None
        MWU solver accuracy.
    clusters : int, default=None
        C-LMKL's number of soft clusters.
    """ + _COMMON_DOC

    _methods = ("lmkl", "ldmkl", "swmkl", "clmkl")

    def __init__(self, method="lmkl", *, kernels=None, C=None, solver=None, lkl_epsilon=None,
                 clusters=None, select=None, grid=None, cv=5, fallback=True, scale="01", random_state=None):
        self.method = method
        self.kernels = kernels
        self.C = C
        self.solver = solver
        self.lkl_epsilon = lkl_epsilon
        self.clusters = clusters
        self.select = select
        self.grid = grid
        self.cv = cv
        self.fallback = fallback
        self.scale = scale
        self.random_state = random_state

    def gates(self, X, pair=0):
        """How much each base kernel is used at each sample.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        pair : int, default=0
            Class pair (in the model's one-vs-one order; 0 for two classes).

        Returns
        -------
        ndarray of shape (n_samples, n_kernels)
            Rows sum to one.
        """
        X = check_predict_data(self, X)
        return self.model_.gates(as_features(X), pair)


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
    scale : {"01", "pm1", "standard", "none"}, default="01"
        Feature scaling fitted on the training data.
    random_state : int or None, default=None
        Seed (the width sample).

    Attributes
    ----------
    n_features_in_ : int
    chosen_ : dict
    model_ : kernlearn._core.Model
    offset_ : float
        (novelty detection) 0: ``decision_function = score_samples - offset_``.
"""


class _HyperkernelParams:
    def _init_hyperkernel(self, hyperkernel, lambda_h, lambda_q, width_factor, delta, rank,
                          scale, random_state):
        self.hyperkernel = hyperkernel
        self.lambda_h = lambda_h
        self.lambda_q = lambda_q
        self.width_factor = width_factor
        self.delta = delta
        self.rank = rank
        self.scale = scale
        self.random_state = random_state


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
                 lambda_q=None, width_factor=None, delta=None, rank=None, scale="01",
                 random_state=None):
        self.problem = problem
        self.C = C
        self.nu = nu
        self._init_hyperkernel(hyperkernel, lambda_h, lambda_q, width_factor, delta, rank,
                               scale, random_state)

    def fit(self, X, y):
        """Learns the kernel and the classifier (two classes).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)

        Returns
        -------
        self : object
        """
        if self.problem not in self._problems:
            raise ValueError(f"problem={self.problem!r} is not one of {', '.join(self._problems)}")
        _require_binary(y, "the hyperkernel programs are binary")
        return super().fit(X, y)

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
                 width_factor=None, delta=None, rank=None, scale="01", random_state=None):
        self.C = C
        self.nu = nu
        self._init_hyperkernel(hyperkernel, lambda_h, lambda_q, width_factor, delta, rank,
                               scale, random_state)


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
                 width_factor=None, delta=None, rank=None, scale="01", random_state=None):
        self.nu = nu
        self._init_hyperkernel(hyperkernel, lambda_h, lambda_q, width_factor, delta, rank,
                               scale, random_state)

    def fit(self, X, y=None):
        """Learns the kernel and the support of the training distribution.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : ignored

        Returns
        -------
        self : object
        """
        X, _ = check_fit_data(self, X, None, classifier=False, supervised=False)
        self._fit(X, np.zeros(X.shape[0]))
        self.offset_ = 0.0
        return self


class DKMOClassifier(_MethodChoice, _LearnedClassifier):
    __doc__ = """DKMO and M-DKMO (Song, Thiagarajan, Sattigeri and Spanias, IEEE TNNLS 2018):
    kernel machines optimised as neural networks over dense Nyström embeddings of the
    kernels. One estimator for both: ``method="dkmo"`` (one kernel) or ``"m-dkmo"``
    (several kernels: ``kernels=``, or ``kernel="precomputed"`` with ``X`` the Gram rows of
    every kernel side by side, ``scale="none"``).

    Parameters
    ----------
    method : {"dkmo", "m-dkmo"}, default="dkmo"
    kernel : str or Kernel, default=None
        DKMO's kernel; default the Gaussian with the paper's width rule
        (γ = 1 / mean pairwise squared distance); ``"precomputed"``: ``X`` holds kernel
        values (training: the Gram matrix; prediction: rows against the training samples).
    sigma : float, default=None
        Gaussian width σ (γ = 1/σ²) instead of the rule.
    kernels : str, Kernel or list of them, default=None
        M-DKMO's kernels on features (``--kernels`` spec).
    embedding : {"clustered", "nystrom"}, default=None
        Dense embeddings (default: clustered with features, nystrom on kernel values).
    embeddings : int, default=None
        Nyström embeddings per kernel (paper: 6).
    landmarks : int, default=None
        Landmarks per embedding (default 100).
    hidden : str or list of int, default=None
        Hidden layers of each branch (paper: 256, 512, 256, 128).
    dropout, kernel_dropout : float, default=None
        Dropout and kernel-dropout rates (paper: 0.5 and 0.5).
    fusion : {"sum", "concat"}, default=None
        Fusion merge (paper: sum).
    optimizer, learning_rate, weight_decay, epochs, patience, batch_size, validation_fraction
        Training (defaults: Adam, 0.001, 0, 100, 10, 32, 0.1).
    scale : {"01", "pm1", "standard", "none"}, default="01"
        Feature scaling fitted on the training data ("none" for kernel values).
    random_state : int or None, default=None
        Seed of the embeddings, initial weights, dropout and batches.

    Attributes
    ----------
    classes_ : ndarray
    n_features_in_ : int
    chosen_ : dict
    model_ : kernlearn._core.Model
    """

    _methods = ("dkmo", "m-dkmo")

    def __init__(self, method="dkmo", *, kernel=None, sigma=None, kernels=None, embedding=None,
                 embeddings=None, landmarks=None, hidden=None, dropout=None, kernel_dropout=None,
                 fusion=None, optimizer=None, learning_rate=None, weight_decay=None, epochs=None,
                 patience=None, batch_size=None, validation_fraction=None, scale="01",
                 random_state=None):
        self.method = method
        self.kernel = kernel
        self.sigma = sigma
        self.kernels = kernels
        self.embedding = embedding
        self.embeddings = embeddings
        self.landmarks = landmarks
        self.hidden = hidden
        self.dropout = dropout
        self.kernel_dropout = kernel_dropout
        self.fusion = fusion
        self.optimizer = optimizer
        self.learning_rate = learning_rate
        self.weight_decay = weight_decay
        self.epochs = epochs
        self.patience = patience
        self.batch_size = batch_size
        self.validation_fraction = validation_fraction
        self.scale = scale
        self.random_state = random_state

    def fit(self, X, y):
        """Builds the embeddings and trains the network.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)

        Returns
        -------
        self : object
        """
        X, y = check_fit_data(self, X, y, classifier=True)
        info = self._fit(X, y)
        self._values = label_values(self.classes_)
        library = [float(c) for c in info["classes"]]
        self._order = [library.index(float(v)) for v in self._values]
        return self

    def predict_proba(self, X):
        """Softmax outputs, one column per class of ``classes_``."""
        X = check_predict_data(self, X)
        p = np.asarray(self.model_.decision_function(as_features(X)), dtype=np.float64)
        return p[:, self._order]

    def decision_function(self, X):
        """Class scores: ``predict_proba`` (two classes: the second minus the first)."""
        p = self.predict_proba(X)
        return p[:, 1] - p[:, 0] if p.shape[1] == 2 else p

    def predict(self, X):
        """The class of the largest softmax output."""
        proba = self.predict_proba(X)  # first: raises NotFittedError before fit
        return self.classes_[np.argmax(proba, axis=1)]

    def fused_representation(self, X):
        """The fused representation: the layer the softmax reads (M-DKMO: the global
        fusion layer), the paper's Fig. 7 object.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, width)
            One row per sample; ``width`` is the last hidden layer's size (times the
            number of embeddings, or of kernels, with concatenation fusion).
        """
        X = check_predict_data(self, X)
        return np.asarray(self.model_.fused(as_features(X)), dtype=np.float64)


#: Every learned-kernel estimator and the catalogue methods it fits.
class CKLClassifier(_MethodChoice, _LearnedClassifier):
    __doc__ = """Continuous kernel learning (Moeller 2017, ch. 5): random Fourier features whose
    frequencies and phases are trained end to end with a softmax layer, or (``method=
    "rff-linear"``) the same softmax layer on fixed random Fourier or Nyström features.

    Parameters
    ----------
    method : {"ckl", "rff-linear"}, default="ckl"
        CKL, or its "fixed features + linear model" baseline.
    fourier_features : int, default=None
        Number of features D (default 256).
    init_variance : float, default=None
        Variance σ² of the initial frequencies, ``W ~ N(0, σ²)`` (default 2^-3).
    feature_map : {"gaussian", "laplacian", "nystrom", "nystrom-kmeans"}, default=None
        Initial / fixed feature map (default Gaussian; CKL needs a Fourier map).
    norm_cap : float, default=None
        CKL: cap on each frequency vector's norm after every step (§5.2.4).
    optimizer : {"sgd", "adam"}, default=None
        SGD with momentum 0.5 → 0.99 (default) or AdamW.
    learning_rate : float, default=None
        Learning rate (default 0.01).
    weight_decay : float, default=None
        Weight decay (default 0).
    epochs : int, default=None
        Most epochs (default 10000).
    patience : int, default=None
        Early-stopping patience in epochs (default 100).
    batch_size : int, default=None
        Rows per mini-batch (default 128).
    validation_fraction : float, default=None
        Held-out fraction for early stopping (default 0.25; 0 turns it off).
    configs : int, default=None
        With ``select="grid"``: configurations of the random search over D, σ² and the
        learning rate (thesis Table 5.3; default 100).
    ckl_search : {"validation", "cv"}, default=None
        How the random search scores a configuration: ``"validation"`` (default, the
        thesis's §5.4.1: one fit each, scored on its early-stopping split, the best fit
        kept) or ``"cv"`` (``cv``-fold CV, then the best refitted).
    select : {None, "grid"}, default=None
        ``"grid"``: the random search over the configurations.
    grid : dict, default=None
        Unused by CKL (kept for a uniform interface).
    cv : int, default=5
        Folds of the random search's cross-validation (``ckl_search="cv"``).
    scale : {"01", "pm1", "standard", "none"}, default="01"
        Feature scaling fitted on the training data (the thesis scales to [-1, 1]).
    random_state : int or None, default=None
        Seed of the initial values, the validation split and the batch order.

    Attributes
    ----------
    classes_ : ndarray
    n_features_in_ : int
    chosen_ : dict
        Hyper-parameters used (D, σ², learning rate, epochs run, best epoch).
    selection_ : dict or None
    warnings_ : list of str
    model_ : kernlearn._core.Model
        The library's fitted model (what :meth:`save` writes).
    """

    _methods = ("ckl", "rff-linear")

    def __init__(self, method="ckl", *, fourier_features=None, init_variance=None,
                 feature_map=None, norm_cap=None, optimizer=None, learning_rate=None,
                 weight_decay=None, epochs=None, patience=None, batch_size=None,
                 validation_fraction=None, configs=None, ckl_search=None, select=None,
                 grid=None, cv=5, scale="01", random_state=None):
        self.method = method
        self.fourier_features = fourier_features
        self.init_variance = init_variance
        self.feature_map = feature_map
        self.norm_cap = norm_cap
        self.optimizer = optimizer
        self.learning_rate = learning_rate
        self.weight_decay = weight_decay
        self.epochs = epochs
        self.patience = patience
        self.batch_size = batch_size
        self.validation_fraction = validation_fraction
        self.configs = configs
        self.ckl_search = ckl_search
        self.select = select
        self.grid = grid
        self.cv = cv
        self.scale = scale
        self.random_state = random_state

    def _options(self):
        if self.method == "rff-linear" and self.norm_cap is not None:
            raise ValueError("norm_cap applies to method='ckl' only")
        return super()._options()


ESTIMATOR_METHODS = {
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
