"""Kernel machines over kernlearn's SMO solver, laid out as scikit-learn's ``sklearn.svm``.

The solver is LIBSVM's algorithm (second-order working-set selection, shrinking, kernel
cache) in Rust; fitting and prediction release the GIL. Fitted attributes follow
scikit-learn's layout: ``support_`` grouped by class in ``classes_`` order,
``dual_coef_`` of shape ``(n_classes - 1, n_SV)``, ``intercept_`` per class pair, and for
binary problems the signs scikit-learn uses (positive decision values mean
``classes_[1]``).
"""

import json
import numbers

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin, OutlierMixin, RegressorMixin
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.metaestimators import available_if

from . import _core
from ._base import (
    FittedModelMixin,
    NoveltyMixin,
    PairLayout,
    RegressorPredictMixin,
    as_features,
    check_fit_data,
    check_predict_data,
    classifier_scores,
    csr_parts,
    label_values,
    model_decision,
    seed_of,
)

_KERNELS = ("linear", "poly", "rbf", "sigmoid", "laplacian", "chi2", "precomputed")


def _kernel_json(kernel, gamma, degree, coef0):
    """The library's kernel (serde form) for scikit-learn's kernel arguments."""
    if kernel == "linear":
        return {"type": "linear"}
    if kernel == "precomputed":
        return {"type": "precomputed"}
    if kernel == "poly":
        return {"type": "polynomial", "gamma": gamma, "coef0": coef0, "degree": int(degree)}
    if kernel == "rbf":
        return {"type": "rbf", "gamma": gamma}
    if kernel == "laplacian":
        return {"type": "laplacian", "gamma": gamma}
    if kernel == "chi2":
        return {"type": "chi_squared", "gamma": gamma}
    if kernel == "sigmoid":
        return {"type": "sigmoid", "gamma": gamma, "coef0": coef0}
    raise ValueError(f"kernel={kernel!r} is not one of {', '.join(_KERNELS)}")


class _BaseSVM(FittedModelMixin, BaseEstimator):
    """Parameters and fitting shared by the five formulations."""

    _svm_type = None  # the library's SvmType (serde name)
    _classifier = False
    _accepts_sparse = True  # scipy.sparse X (CSR/CSC/COO) fits on the sparse kernels

    _parameter_constraints = {
        "kernel": [StrOptions(set(_KERNELS))],
        "degree": [Interval(numbers.Integral, 0, None, closed="left")],
        "gamma": [StrOptions({"scale", "auto"}), Interval(numbers.Real, 0.0, None, closed="neither")],
        "coef0": [Interval(numbers.Real, None, None, closed="neither")],
        "tol": [Interval(numbers.Real, 0.0, None, closed="neither")],
        "shrinking": ["boolean"],
        "cache_size": [Interval(numbers.Real, 0, None, closed="neither")],
        "max_iter": [Interval(numbers.Integral, -1, None, closed="left")],
    }

    def _gamma_value(self, X):
        if self.gamma == "scale":
            if sp.issparse(X):  # E[X²] − E[X]², as scikit-learn computes it for sparse X
                var = X.multiply(X).mean() - X.mean() ** 2
            else:
                var = X.var()
            return 1.0 / (X.shape[1] * var) if var != 0 else 1.0
        if self.gamma == "auto":
            return 1.0 / X.shape[1]
        return float(self.gamma)

    def _params_json(self, X, class_weights=()):
        max_iter = None if self.max_iter == -1 else int(self.max_iter)
        return json.dumps(
            {
                "svm_type": self._svm_type,
                "kernel": _kernel_json(self.kernel, self._gamma_value(X), self.degree, self.coef0),
                "c": float(getattr(self, "C", 1.0)),
                "nu": float(getattr(self, "nu", 0.5)),
                "epsilon": float(getattr(self, "epsilon", 0.1)),
                "class_weights": [list(w) for w in class_weights],
                "probability": bool(getattr(self, "probability", False)),
                "seed": seed_of(getattr(self, "random_state", None), 1),
                "class_order": "sorted",
                "solver": {
                    "tol": float(self.tol),
                    "shrinking": bool(self.shrinking),
                    "cache_bytes": int(self.cache_size * (1 << 20)),
                    "max_iter": max_iter,
                },
            }
        )

    def _fit_model(self, X, y, class_weights=()):
        if self.kernel == "precomputed" and X.shape[0] != X.shape[1]:
            raise ValueError(
                f"Precomputed matrix must be a square matrix. Input is a "
                f"{X.shape[0]}x{X.shape[1]} matrix."
            )
        labels = np.zeros(X.shape[0]) if y is None else y
        labels = np.ascontiguousarray(labels, dtype=np.float64)
        if sp.issparse(X):
            if self.kernel == "precomputed":
                raise TypeError(
                    f"{type(self).__name__} with kernel='precomputed' cannot take sparse "
                    "input: the Gram matrix must be a dense array"
                )
            params = self._params_json(X, class_weights)
            self.model_ = _core.fit_svm_sparse(params, *csr_parts(X), labels)
        else:
            self.model_ = _core.fit_svm(self._params_json(X, class_weights), X, labels)
        self._set_layout(X)
        return self

    def _set_layout(self, X):
        fitted = json.loads(self.model_.to_json())["model"]["fitted"]
        info = fitted["info"]
        self.n_iter_ = np.asarray([info["iterations"]], dtype=np.int32)
        self.fit_status_ = 1 if info.get("hit_max_iter") else 0
        self.shape_fit_ = X.shape
        sv_indices = np.asarray(fitted["sv_indices"], dtype=np.int32)
        sv_coef = np.asarray(fitted["sv_coef"], dtype=np.float64).reshape(
            len(fitted["sv_coef"]), len(sv_indices)
        )
        rho = np.asarray(fitted["rho"], dtype=np.float64)
        if not self._classifier:
            self.support_ = sv_indices
            self.dual_coef_ = sv_coef
            self.intercept_ = -rho
            self.n_support_ = np.asarray([len(sv_indices)], dtype=np.int32)
        else:
            self._layout = PairLayout(fitted["classes"], self.classes_)
            self._classifier_layout(fitted, sv_indices, sv_coef, rho)
        if self.kernel == "precomputed":
            self.support_vectors_ = np.empty((0, 0), dtype=np.float64)
        else:
            self.support_vectors_ = X[self.support_]
        # scikit-learn's layout for a sparse fit: sparse support vectors and dual_coef_.
        self._sparse = sp.issparse(X)
        if self._sparse:
            self.dual_coef_ = sp.csr_matrix(self.dual_coef_)

    def _classifier_layout(self, fitted, sv_indices, sv_coef, rho):
        layout = self._layout
        k = layout.n_classes
        counts = fitted["n_sv_per_class"]
        starts = np.concatenate([[0], np.cumsum(counts)])
        blocks = [np.arange(starts[r], starts[r + 1]) for r in range(k)]
        order = np.concatenate([blocks[layout.position[c]] for c in range(k)]).astype(np.intp)
        column = np.empty(len(order), dtype=np.intp)
        column[order] = np.arange(len(order))
        dual = np.zeros((k - 1, len(order)))
        codes = layout.codes
        for a in range(k):  # model class of the support vectors
            ca = codes[a]
            for b in range(k):
                if b == a:
                    continue
                cb = codes[b]
                value = sv_coef[b - 1 if a < b else b, blocks[a]]
                if (a < b) != (ca < cb):
                    value = -value
                dual[cb - 1 if ca < cb else cb, column[blocks[a]]] = value
        intercept = -rho[layout.columns] * layout.signs
        if k == 2:  # scikit-learn's binary convention: positive means classes_[1]
            dual, intercept = -dual, -intercept
        self.support_ = sv_indices[order]
        self.dual_coef_ = dual
        self.intercept_ = intercept
        self.n_support_ = np.asarray([counts[layout.position[c]] for c in range(k)], dtype=np.int32)

    def _check_sparse_predict(self, X):
        """scikit-learn refuses sparse input on a model fitted on dense data (its dense
        LIBSVM path cannot read it); kernlearn could, but keeps the same contract."""
        if sp.issparse(X) and not getattr(self, "_sparse", False):
            raise ValueError(
                f"cannot use sparse input in {type(self).__name__!r} trained on dense data"
            )

    def _model_decision(self, X):
        self._check_sparse_predict(X)
        return model_decision(self.model_, X)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self.kernel == "precomputed"
        tags.input_tags.sparse = self.kernel != "precomputed"
        return tags


class _BaseSVC(ClassifierMixin, _BaseSVM):
    _classifier = True

    _parameter_constraints = {
        **_BaseSVM._parameter_constraints,
        "probability": ["boolean"],
        "class_weight": [StrOptions({"balanced"}), dict, None],
        "decision_function_shape": [StrOptions({"ovr", "ovo"})],
        "break_ties": ["boolean"],
        "random_state": ["random_state"],
    }

    def fit(self, X, y):
        """Fits the classifier.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training vectors; for ``kernel="precomputed"`` the ``(n_samples, n_samples)``
            Gram matrix.
        y : array-like of shape (n_samples,)
            Class labels (any hashable values; at least two classes).

        Returns
        -------
        self : object
            The fitted estimator.
        """
        self._validate_params()
        X, y = check_fit_data(self, X, y, classifier=True)
        return self._fit_model(X, y, self._class_weights(y))

    def _class_weights(self, y):
        if self.class_weight is None or self._svm_type != "c_svc":
            return []
        values, counts = np.unique(y, return_counts=True)
        if isinstance(self.class_weight, str):  # "balanced"
            return [(v, len(y) / (len(values) * n)) for v, n in zip(values, counts)]
        lookup = dict(zip(self.classes_, label_values(self.classes_)))
        weights = []
        for label, w in self.class_weight.items():
            if label not in lookup:
                raise ValueError(f"class_weight names class {label!r}, not among the classes {list(self.classes_)}")
            weights.append((lookup[label], float(w)))
        return weights

    def _ovo(self, X):
        X = check_predict_data(self, X)
        return self._layout.ovo(self._model_decision(X))

    def decision_function(self, X):
        """Decision values.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Samples (for a precomputed kernel: their kernel values against the training
            samples).

        Returns
        -------
        ndarray of shape (n_samples,) for two classes (positive means ``classes_[1]``),
        else ``(n_samples, n_classes)`` (``"ovr"``) or ``(n_samples, n_classes * (n_classes
        - 1) / 2)`` (``"ovo"``, pairs in scikit-learn's order).
        """
        return classifier_scores(self._ovo(X), len(self.classes_), self.decision_function_shape)

    def predict(self, X):
        """Predicted class labels (LIBSVM's one-vs-one vote; ``break_ties`` uses the
        one-vs-rest scores).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Samples.

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        dec = self._ovo(X)
        k = len(self.classes_)
        if self.break_ties and self.decision_function_shape == "ovr" and k > 2:
            return self.classes_[np.argmax(classifier_scores(dec, k), axis=1)]
        if self.break_ties and self.decision_function_shape == "ovo":
            raise ValueError("break_ties must be False when decision_function_shape is 'ovo'")
        return self.classes_[self._layout.vote(dec)]

    def _check_proba(self):
        if not self.probability:
            raise AttributeError("predict_proba is not available when probability=False")
        return True

    @available_if(_check_proba)
    def predict_proba(self, X):
        """Class probabilities (Platt scaling per pair fitted by internal 5-fold CV, then
        pairwise coupling, as LIBSVM).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Samples.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Columns in the order of ``classes_``.
        """
        X = check_predict_data(self, X)
        self._check_sparse_predict(X)
        if sp.issparse(X):
            proba = self.model_.predict_proba_sparse(*csr_parts(X))
        else:
            proba = self.model_.predict_proba(as_features(X))
        return proba[:, self._layout.proba_columns()]

    @available_if(_check_proba)
    def predict_log_proba(self, X):
        """Logarithm of :meth:`predict_proba`.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Samples.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
        """
        return np.log(self.predict_proba(X))


class SVC(_BaseSVC):
    """C-support vector classification (LIBSVM's C-SVC) on kernlearn's SMO solver.

    Drop-in for :class:`sklearn.svm.SVC`: same parameters, same fitted attributes and
    decision values.

    Parameters
    ----------
    C : float, default=1.0
        Trade-off between margin and training error (> 0).
    kernel : {"linear", "poly", "rbf", "sigmoid", "laplacian", "chi2", "precomputed"}, default="rbf"
        Kernel function.
    degree : int, default=3
        Degree of the polynomial kernel.
    gamma : {"scale", "auto"} or float, default="scale"
        Kernel coefficient; ``"scale"`` is ``1 / (n_features * X.var())``, ``"auto"``
        ``1 / n_features``.
    coef0 : float, default=0.0
        Independent term of the polynomial and sigmoid kernels.
    shrinking : bool, default=True
        Use the shrinking heuristic.
    probability : bool, default=False
        Fit Platt probabilities (5-fold CV per class pair).
    tol : float, default=1e-3
        Stopping tolerance on the maximal KKT violation.
    cache_size : float, default=200
        Kernel cache in MB.
    class_weight : dict or "balanced", default=None
        Multiplies C per class.
    max_iter : int, default=-1
        Iteration cap; -1 for LIBSVM's ``max(1e7, 100 n)``.
    decision_function_shape : {"ovr", "ovo"}, default="ovr"
        Shape of :meth:`decision_function` for more than two classes.
    break_ties : bool, default=False
        Predict by the one-vs-rest scores instead of the vote.
    random_state : int, RandomState or None, default=None
        Seed of the probability cross-validation.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    support_ : ndarray of shape (n_SV,)
        Training indices of the support vectors, grouped by class.
    support_vectors_ : ndarray of shape (n_SV, n_features)
    n_support_ : ndarray of shape (n_classes,)
    dual_coef_ : ndarray of shape (n_classes - 1, n_SV)
    intercept_ : ndarray of shape (n_classes * (n_classes - 1) / 2,)
    n_iter_ : ndarray
        Solver iterations (all pairs).
    n_features_in_ : int
    model_ : kernlearn._core.Model
        The library's fitted model (what :meth:`save` writes).
    """

    _svm_type = "c_svc"
    _parameter_constraints = {**_BaseSVC._parameter_constraints, "C": [Interval(numbers.Real, 0.0, None, closed="neither")]}

    def __init__(self, *, C=1.0, kernel="rbf", degree=3, gamma="scale", coef0=0.0,
                 shrinking=True, probability=False, tol=1e-3, cache_size=200,
                 class_weight=None, max_iter=-1, decision_function_shape="ovr",
                 break_ties=False, random_state=None):
        self.C = C
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.shrinking = shrinking
        self.probability = probability
        self.tol = tol
        self.cache_size = cache_size
        self.class_weight = class_weight
        self.max_iter = max_iter
        self.decision_function_shape = decision_function_shape
        self.break_ties = break_ties
        self.random_state = random_state


class NuSVC(_BaseSVC):
    """ν-support vector classification (LIBSVM's ν-SVC) on kernlearn's SMO solver.

    Drop-in for :class:`sklearn.svm.NuSVC`.

    Parameters
    ----------
    nu : float, default=0.5
        Upper bound on the fraction of margin errors, lower bound on the fraction of
        support vectors, in (0, 1].
    kernel, degree, gamma, coef0, shrinking, probability, tol, cache_size, max_iter, decision_function_shape, break_ties, random_state
        As in :class:`SVC`.
    class_weight : None
        Accepted for scikit-learn compatibility; LIBSVM's ν-SVC ignores class weights.

    Attributes
    ----------
    classes_, support_, support_vectors_, n_support_, dual_coef_, intercept_, n_iter_, model_
        As in :class:`SVC`.
    """

    _svm_type = "nu_svc"
    _parameter_constraints = {**_BaseSVC._parameter_constraints, "nu": [Interval(numbers.Real, 0.0, 1.0, closed="right")]}

    def __init__(self, *, nu=0.5, kernel="rbf", degree=3, gamma="scale", coef0=0.0,
                 shrinking=True, probability=False, tol=1e-3, cache_size=200,
                 class_weight=None, max_iter=-1, decision_function_shape="ovr",
                 break_ties=False, random_state=None):
        self.nu = nu
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.shrinking = shrinking
        self.probability = probability
        self.tol = tol
        self.cache_size = cache_size
        self.class_weight = class_weight
        self.max_iter = max_iter
        self.decision_function_shape = decision_function_shape
        self.break_ties = break_ties
        self.random_state = random_state


class _BaseSVR(RegressorPredictMixin, RegressorMixin, _BaseSVM):
    def fit(self, X, y):
        """Fits the regressor.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training vectors (the Gram matrix for ``kernel="precomputed"``).
        y : array-like of shape (n_samples,)
            Real targets.

        Returns
        -------
        self : object
        """
        self._validate_params()
        X, y = check_fit_data(self, X, y, classifier=False)
        return self._fit_model(X, y)


class SVR(_BaseSVR):
    """ε-support vector regression (LIBSVM's ε-SVR) on kernlearn's SMO solver.

    Drop-in for :class:`sklearn.svm.SVR`.

    Parameters
    ----------
    kernel, degree, gamma, coef0, tol, shrinking, cache_size, max_iter
        As in :class:`SVC`.
    C : float, default=1.0
        Trade-off (> 0).
    epsilon : float, default=0.1
        Width of the insensitive tube (>= 0).

    Attributes
    ----------
    support_, support_vectors_, dual_coef_ (shape (1, n_SV)), intercept_, n_iter_, model_
        As in :class:`sklearn.svm.SVR`.
    """

    _svm_type = "epsilon_svr"
    _parameter_constraints = {
        **_BaseSVM._parameter_constraints,
        "C": [Interval(numbers.Real, 0.0, None, closed="neither")],
        "epsilon": [Interval(numbers.Real, 0.0, None, closed="left")],
    }

    def __init__(self, *, kernel="rbf", degree=3, gamma="scale", coef0=0.0, tol=1e-3,
                 C=1.0, epsilon=0.1, shrinking=True, cache_size=200, max_iter=-1):
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.tol = tol
        self.C = C
        self.epsilon = epsilon
        self.shrinking = shrinking
        self.cache_size = cache_size
        self.max_iter = max_iter


class NuSVR(_BaseSVR):
    """ν-support vector regression (LIBSVM's ν-SVR) on kernlearn's SMO solver.

    Drop-in for :class:`sklearn.svm.NuSVR`.

    Parameters
    ----------
    nu : float, default=0.5
        Fraction bound of support vectors, in (0, 1].
    C : float, default=1.0
        Trade-off (> 0).
    kernel, degree, gamma, coef0, shrinking, tol, cache_size, max_iter
        As in :class:`SVC`.

    Attributes
    ----------
    support_, support_vectors_, dual_coef_, intercept_, n_iter_, model_
        As in :class:`sklearn.svm.NuSVR`.
    """

    _svm_type = "nu_svr"
    _parameter_constraints = {
        **_BaseSVM._parameter_constraints,
        "C": [Interval(numbers.Real, 0.0, None, closed="neither")],
        "nu": [Interval(numbers.Real, 0.0, 1.0, closed="right")],
    }

    def __init__(self, *, nu=0.5, C=1.0, kernel="rbf", degree=3, gamma="scale", coef0=0.0,
                 shrinking=True, tol=1e-3, cache_size=200, max_iter=-1):
        self.nu = nu
        self.C = C
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.shrinking = shrinking
        self.tol = tol
        self.cache_size = cache_size
        self.max_iter = max_iter


class OneClassSVM(NoveltyMixin, OutlierMixin, _BaseSVM):
    """One-class SVM (novelty detection, Schölkopf et al.) on kernlearn's SMO solver.

    Drop-in for :class:`sklearn.svm.OneClassSVM`.

    Parameters
    ----------
    nu : float, default=0.5
        Upper bound on the fraction of training outliers, in (0, 1].
    kernel, degree, gamma, coef0, tol, shrinking, cache_size, max_iter
        As in :class:`SVC`.

    Attributes
    ----------
    support_, support_vectors_, dual_coef_, intercept_, n_iter_, model_
        As in :class:`sklearn.svm.OneClassSVM`.
    offset_ : float
        ``decision_function = score_samples - offset_``.
    """

    _svm_type = "one_class"
    _parameter_constraints = {
        **_BaseSVM._parameter_constraints,
        "nu": [Interval(numbers.Real, 0.0, 1.0, closed="right")],
    }

    def __init__(self, *, kernel="rbf", degree=3, gamma="scale", coef0=0.0, tol=1e-3,
                 nu=0.5, shrinking=True, cache_size=200, max_iter=-1):
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.tol = tol
        self.nu = nu
        self.shrinking = shrinking
        self.cache_size = cache_size
        self.max_iter = max_iter

    def fit(self, X, y=None):
        """Fits the support of the training distribution.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training vectors.
        y : ignored

        Returns
        -------
        self : object
        """
        self._validate_params()
        X, _ = check_fit_data(self, X, None, classifier=False, supervised=False)
        self._fit_model(X, None)
        self.offset_ = -self.intercept_[0]
        return self
