"""Kernel machines over kernlearn's SMO solver, laid out as scikit-learn's ``sklearn.svm``.

The solver is LIBSVM's algorithm (second-order working-set selection, shrinking, kernel
cache) in Rust; fitting and prediction release the GIL. Fitted attributes follow
scikit-learn's layout: ``support_`` grouped by class in ``classes_`` order,
``dual_coef_`` of shape ``(n_classes - 1, n_SV)``, ``intercept_`` per class pair, and for
binary problems the signs scikit-learn uses (positive decision values mean
``classes_[1]``).
"""

import inspect
import json
import numbers
import warnings
from typing import Any, Optional, TypeVar, Union

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike, NDArray
from sklearn.base import BaseEstimator, ClassifierMixin, OutlierMixin, RegressorMixin
from sklearn.exceptions import ConvergenceWarning, NotFittedError
from sklearn.utils import deprecated
from sklearn.utils._param_validation import Hidden, Interval, StrOptions
from sklearn.utils.class_weight import compute_class_weight
from sklearn.utils.extmath import safe_sparse_dot
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import _check_sample_weight, _num_samples, check_is_fitted

from sklearn.svm._base import _one_vs_one_coef

from . import _core
from ._base import (
    FittedModelMixin,
    NoveltyMixin,
    PairLayout,
    RegressorPredictMixin,
    check_fit_data,
    check_predict_data,
    classifier_scores,
    csr_parts,
    label_values,
    model_decision,
    seed_of,
    unpacked_json,
)

#: All-zero weights reach the library, which refuses them with the SVMs' own message
#: (newer scikit-learn checks them itself unless told not to).
_ALL_ZERO_WEIGHTS = (
    {"allow_all_zero_weights": True}
    if "allow_all_zero_weights" in inspect.signature(_check_sample_weight).parameters
    else {}
)

#: The bound that stands for C = inf: no α reaches it on separable data (so the solution
#: is the hard-margin one), with room for class and sample weights up to 1e8 in f64.
_HARD_MARGIN_C = 1e300

#: ``X`` of the SVMs: array-like, or a scipy.sparse matrix (fitted on the sparse kernels).
MatrixLike = Union[ArrayLike, Any]

_SVC = TypeVar("_SVC", bound="_BaseSVC")
_SVR = TypeVar("_SVR", bound="_BaseSVR")

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


def _numeric(X):
    return isinstance(X, np.ndarray) and np.issubdtype(X.dtype, np.number)


def _stored_support_vectors(model_json, support):
    """The rows of the model file's support vectors in the order of ``support`` (their
    training indices, scikit-learn's order), or None where the model does not store
    them dense and unscaled under those indices."""
    document = json.loads(model_json)
    fitted = document.get("model", {}).get("fitted", {})
    stored = fitted.get("support_vectors")
    if (
        support is None
        or document.get("scaler", {}).get("mode", "None") != "None"
        or not isinstance(stored, dict)
        or not {"n_rows", "n_cols", "values"} <= stored.keys()
    ):
        return None
    values = np.asarray(stored["values"], dtype=np.float64).reshape(stored["n_rows"], stored["n_cols"])
    indices = np.asarray(fitted.get("sv_indices", []))
    if len(indices) != len(values) or len(support) != len(indices):
        return None
    order = np.argsort(indices, kind="stable")
    rows = order[np.clip(np.searchsorted(indices[order], support), 0, len(indices) - 1)]
    if not np.array_equal(indices[rows], support):
        return None
    return values[rows]


class _BaseSVM(FittedModelMixin, BaseEstimator):
    """Parameters and fitting shared by the five formulations."""

    _svm_type: Optional[str] = None  # the library's SvmType (serde name)
    _classifier = False
    _accepts_sparse = True  # scipy.sparse X (CSR/CSC/COO) fits on the sparse kernels

    _parameter_constraints = {
        "kernel": [StrOptions(set(_KERNELS)), callable],
        "degree": [Interval(numbers.Integral, 0, None, closed="left")],
        "gamma": [StrOptions({"scale", "auto"}), Interval(numbers.Real, 0.0, None, closed="neither")],
        "coef0": [Interval(numbers.Real, None, None, closed="neither")],
        "tol": [Interval(numbers.Real, 0.0, None, closed="neither")],
        "shrinking": ["boolean"],
        "cache_size": [Interval(numbers.Real, 0, None, closed="neither")],
        "max_iter": [Interval(numbers.Integral, -1, None, closed="left")],
        "verbose": ["verbose"],
    }

    def __getstate__(self):
        # The model holds the support vectors: a dense ``support_vectors_`` equal to
        # them is left out of the pickle and rebuilt on unpickling (halves its size).
        state = super().__getstate__()
        sv = state.get("support_vectors_")
        packed = state.get("_model_json")
        if isinstance(sv, np.ndarray) and sv.size > 0 and packed is not None:
            stored = _stored_support_vectors(unpacked_json(packed), state.get("support_"))
            if stored is not None and stored.dtype == sv.dtype and np.array_equal(stored, sv):
                del state["support_vectors_"]
        return state

    def __setstate__(self, state):
        super().__setstate__(state)
        if "support_vectors_" not in self.__dict__ and self.__dict__.get("model_") is not None:
            self.support_vectors_ = _stored_support_vectors(self.model_.to_json(), self.support_)

    def _gamma_value(self, X):
        if self.gamma == "scale":
            if sp.issparse(X):  # E[X²] − E[X]², as scikit-learn computes it for sparse X
                var = X.multiply(X).mean() - X.mean() ** 2
            else:
                var = X.var()
            if not np.isfinite(var):
                raise ValueError(
                    "The dual coefficients or intercepts are not finite: the features are "
                    "too large for float64 arithmetic (their variance overflows); scale "
                    "them first, e.g. with StandardScaler or MinMaxScaler"
                )
            return 1.0 / (X.shape[1] * var) if var != 0 else 1.0
        if self.gamma == "auto":
            return 1.0 / X.shape[1]
        return float(self.gamma)

    def _kernel_name(self):
        """The library's kernel name: a callable kernel is evaluated here and handed over
        as a precomputed Gram matrix."""
        return "precomputed" if callable(self.kernel) else self.kernel

    def _c_value(self):
        # C = inf (the hard margin): the largest finite bound, which no α reaches on
        # separable data, so the solution is the hard-margin one.
        c = float(getattr(self, "C", 1.0))
        return _HARD_MARGIN_C if np.isinf(c) else c

    def _params_json(self, X, class_weights=()):
        max_iter = None if self.max_iter == -1 else int(self.max_iter)
        kernel = self._kernel_name()
        gamma = 0.0 if kernel == "precomputed" else self._gamma_value(X)
        return json.dumps(
            {
                "svm_type": self._svm_type,
                "kernel": _kernel_json(kernel, gamma, self.degree, self.coef0),
                "c": self._c_value(),
                "nu": float(getattr(self, "nu", 0.5)),
                "epsilon": float(getattr(self, "epsilon", 0.1)),
                "class_weights": [list(w) for w in class_weights],
                "probability": self._effective_probability(),
                "seed": seed_of(getattr(self, "random_state", None), 1),
                "class_order": "sorted",
                "solver": {
                    "tol": float(self.tol),
                    "shrinking": bool(self.shrinking),
                    # A cache never holds more than the n x n kernel: any size above
                    # 2^62 bytes means "unbounded", as the command line's --cache-mb.
                    "cache_bytes": int(min(self.cache_size * (1 << 20), 2**62)),
                    "max_iter": max_iter,
                },
            }
        )

    def _effective_probability(self):
        return False

    def _sample_weight(self, sample_weight, X):
        """``sample_weight`` checked as scikit-learn checks it (``_check_sample_weight``:
        None, a scalar, or a finite 1-D array of one value per sample of ``X``; any
        other shape, ``(n, 2)`` included, is its ``ValueError``)."""
        if sample_weight is None:
            return None
        w = _check_sample_weight(sample_weight, X, dtype=np.float64, **_ALL_ZERO_WEIGHTS)
        return np.ascontiguousarray(w)

    def _gram(self, X, Y):
        """A callable kernel's values ``kernel(X, Y)`` as the float64 matrix the
        precomputed path reads."""
        K = self.kernel(X, Y)
        if sp.issparse(K):  # e.g. ``x @ y.T`` of sparse samples
            K = K.toarray()
        K = np.asarray(K, dtype=np.float64)
        shape = (_num_samples(X), _num_samples(Y))
        if K.shape != shape:
            raise ValueError(
                f"the kernel callable returned shape {K.shape}, expected {shape} (one "
                f"row per sample of its first argument, one column per sample of its "
                f"second)"
            )
        return np.ascontiguousarray(K)

    def _fit_model(self, X, y, class_weights=(), sample_weight=None, solve=None):
        if self.kernel == "precomputed" and X.shape[0] != X.shape[1]:  # validated array
            raise ValueError(
                f"Precomputed matrix must be a square matrix. Input is a "
                f"{X.shape[0]}x{X.shape[1]} matrix."
            )
        sample_weight = self._sample_weight(sample_weight, X)
        if callable(self.kernel):
            self._gamma = 0.0
            self._X_fit = X
            data = self._gram(X, X)
        else:
            self._gamma = 0.0 if self.kernel == "precomputed" else self._gamma_value(X)
            data = X
        labels = np.zeros(_num_samples(data)) if y is None else y
        labels = np.ascontiguousarray(labels, dtype=np.float64)
        params = self._params_json(data, class_weights)
        if sp.issparse(data):
            if self.kernel == "precomputed":
                raise TypeError(
                    "Sparse precomputed kernels are not supported: "
                    f"{type(self).__name__} with kernel='precomputed' reads the Gram "
                    "matrix as a dense array"
                )
            self.model_ = _core.fit_svm(params, csr_parts(data), labels, sample_weight)
        elif solve is not None:  # a dense fit solved elsewhere (kernlearn.ray.svc)
            self.model_ = solve(params, data, labels)
        else:
            self.model_ = _core.fit_svm(params, data, labels, sample_weight)
        self._set_layout(X)
        self._probability_fitted = self._effective_probability()
        dual = self.dual_coef_.data if sp.issparse(self.dual_coef_) else self.dual_coef_
        if not (np.all(np.isfinite(dual)) and np.all(np.isfinite(self.intercept_))):
            raise ValueError(
                "The dual coefficients or intercepts are not finite. The input data may "
                "contain large values and need to be preprocessed."
            )
        if self.verbose:
            self._print_fit()
        if self.fit_status_ == 1:
            warnings.warn(
                f"Solver terminated early (max_iter={self.max_iter}).  Consider "
                f"pre-processing your data with StandardScaler or MinMaxScaler.",
                ConvergenceWarning,
            )
        return self

    def _print_fit(self):
        """LIBSVM's report of a fit (``svm-train`` without ``-q``), on standard output:
        per class pair its iterations, objective and offset, then the support vectors
        (``nBSV``: at their upper bound)."""
        info = json.loads(self.model_.to_json())["model"]["fitted"]
        iterations = info["info"].get("subproblem_iterations") or [info["info"]["iterations"]]
        for n_iter, obj, rho in zip(iterations, info["info"]["objectives"], info["rho"]):
            print(f"optimization finished, #iter = {n_iter}")
            print(f"obj = {obj:f}, rho = {rho:f}")
        n_sv = len(info["sv_indices"])
        print(f"nSV = {n_sv}, nBSV = {info['info']['n_bounded']}")
        print(f"Total nSV = {n_sv}", flush=True)

    def _check_predict(self, X):
        """Validated ``X`` for prediction (a callable kernel's input is passed to it as
        given), after checking that the fitted attributes still agree with each other."""
        check_is_fitted(self)
        sv = self.support_vectors_
        if sv.size > 0 and self._n_support.sum() != sv.shape[0]:
            raise ValueError(
                f"The internal representation of {type(self).__name__} was altered: "
                f"n_support_ sums to {self._n_support.sum()} for {sv.shape[0]} support vectors"
            )
        if callable(self.kernel):
            return X
        return check_predict_data(self, X)

    def _features(self, X):
        """What the fitted model reads for ``X``: the features, or a callable kernel's
        values against the training samples."""
        if callable(self.kernel):
            return self._gram(X, self._X_fit)
        return super()._features(X)

    @property
    def coef_(self) -> Any:
        """Weights of the features, ``dual_coef_ @ support_vectors_`` (per class pair
        for more than two classes, as scikit-learn); linear kernel only.

        Returns
        -------
        ndarray of shape (n_classes * (n_classes - 1) / 2, n_features)
        """
        if self.kernel != "linear":
            raise AttributeError("coef_ is only available when using a linear kernel")
        coef = self._get_coef()
        if sp.issparse(coef):  # a sparse fit's coef_ is sparse, as scikit-learn's
            coef.data.flags.writeable = False
        else:
            coef.flags.writeable = False
        return coef

    def _get_coef(self):
        return safe_sparse_dot(self._dual_coef_, self.support_vectors_)

    def _set_layout(self, X):
        fitted = json.loads(self.model_.to_json())["model"]["fitted"]
        info = fitted["info"]
        self._num_iter = np.asarray(
            info.get("subproblem_iterations") or [info["iterations"]], dtype=np.int32
        )
        self.fit_status_ = 1 if info.get("hit_max_iter") else 0
        self.shape_fit_ = X.shape if hasattr(X, "shape") else (_num_samples(X),)
        sv_indices = np.asarray(fitted["sv_indices"], dtype=np.int32)
        sv_coef = np.asarray(fitted["sv_coef"], dtype=np.float64).reshape(
            len(fitted["sv_coef"]), len(sv_indices)
        )
        rho = np.asarray(fitted["rho"], dtype=np.float64)
        if not self._classifier:
            self.support_ = sv_indices
            self.dual_coef_ = sv_coef
            self.intercept_ = -rho
            self._n_support = np.asarray([len(sv_indices), 0], dtype=np.int32)
            self.n_iter_ = int(self._num_iter.sum())
        else:
            self._layout = PairLayout(fitted["classes"], self.classes_)
            self._classifier_layout(fitted, sv_indices, sv_coef, rho)
            self.n_iter_ = self._num_iter[self._layout.columns]
        if self.kernel == "precomputed" or (callable(self.kernel) and not _numeric(X)):
            self.support_vectors_ = np.empty((0, 0), dtype=np.float64)
        else:
            self.support_vectors_ = X[self.support_] if sp.issparse(X) else np.asarray(X)[self.support_]
        # scikit-learn's internal (binary: unflipped) coefficients, which its tests read.
        flip = -1.0 if self._classifier and len(self.classes_) == 2 else 1.0
        self._dual_coef_ = flip * self.dual_coef_
        self._intercept_ = flip * self.intercept_
        # scikit-learn's layout for a sparse fit: sparse support vectors and dual_coef_.
        self._sparse = sp.issparse(X)
        if self._sparse:
            self.dual_coef_ = sp.csr_matrix(self.dual_coef_)
            self._dual_coef_ = sp.csr_matrix(self._dual_coef_)

    @property
    def n_support_(self) -> NDArray[np.int32]:
        """Number of support vectors per class (one count for SVR / one-class)."""
        if not hasattr(self, "_n_support"):
            raise AttributeError("n_support_: the estimator is not fitted yet")
        if self._classifier:
            return self._n_support
        return np.array([self._n_support[0]], dtype=np.int32)

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
        self._n_support = np.asarray([counts[layout.position[c]] for c in range(k)], dtype=np.int32)

    def _check_sparse_predict(self, X):
        """scikit-learn refuses sparse input on a model fitted on dense data (its dense
        LIBSVM path cannot read it); kernlearn could, but keeps the same contract."""
        if sp.issparse(X) and not getattr(self, "_sparse", False):
            raise ValueError(
                f"cannot use sparse input in {type(self).__name__!r} trained on dense data"
            )

    def _model_decision(self, X):
        return model_decision(self.model_, self._features(X), self)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self.kernel == "precomputed"
        tags.input_tags.sparse = self.kernel != "precomputed"
        return tags


class _BaseSVC(ClassifierMixin, _BaseSVM):
    _classifier = True

    _parameter_constraints = {
        **_BaseSVM._parameter_constraints,
        "probability": ["boolean", Hidden(StrOptions({"deprecated"}))],
        "class_weight": [StrOptions({"balanced"}), dict, None],
        "decision_function_shape": [StrOptions({"ovr", "ovo"})],
        "break_ties": ["boolean"],
        "random_state": ["random_state"],
    }

    def fit(self: _SVC, X: MatrixLike, y: ArrayLike, sample_weight: Optional[ArrayLike] = None) -> _SVC:
        """Fits the classifier.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training vectors; for ``kernel="precomputed"`` the ``(n_samples, n_samples)``
            Gram matrix.
        y : array-like of shape (n_samples,)
            Class labels (any hashable values; at least two classes).
        sample_weight : array-like of shape (n_samples,), default=None
            Per-sample weights: sample ``i`` gets ``C_i = C * sample_weight[i] *
            class_weight_[y_i]`` (ν-SVC: its box scaled by the weight), as LIBSVM's
            weighted variant; samples of zero or negative weight are left out.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        return self._fit_classifier(X, y, sample_weight)

    def _fit_classifier(self, X, y, sample_weight=None, solve=None):
        """``fit``, with the dual solved by ``solve(params_json, X, labels)`` when given."""
        self._validate_params()
        self._warn_probability()
        X, y = check_fit_data(self, X, y, classifier=True, validate_X=not callable(self.kernel))
        self.class_weight_ = compute_class_weight(
            self.class_weight, classes=self.classes_, y=self.classes_[self._codes(y)]
        )
        return self._fit_model(X, y, self._class_weights(y), sample_weight, solve)

    def _codes(self, y):
        return np.searchsorted(label_values(self.classes_), y)

    def _warn_probability(self):
        if self.probability != "deprecated":
            name = type(self).__name__
            warnings.warn(
                f"The `probability` parameter was deprecated in 1.9 and will be removed "
                f"in version 1.11. Use `CalibratedClassifierCV({name}(), ensemble=False)` "
                f"instead of `{name}(probability=True)`",
                FutureWarning,
            )

    def _effective_probability(self):
        return self.probability is True or (
            self.probability != "deprecated" and bool(self.probability)
        )

    def _class_weights(self, y):
        if self.class_weight is None or self._svm_type != "c_svc":
            return []
        return [(v, float(w)) for v, w in zip(label_values(self.classes_), self.class_weight_)]

    def _ovo(self, X):
        X = self._check_predict(X)
        return self._layout.ovo(self._model_decision(X))

    def decision_function(self, X: MatrixLike) -> NDArray[np.float64]:
        """Decision values.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Samples (for a precomputed kernel: their kernel values against the training
            samples).

        Returns
        -------
        ndarray of shape (n_samples,), (n_samples, n_classes) or (n_samples, n_pairs)
            Two classes: one column, positive meaning ``classes_[1]``. More: one column
            per class (``"ovr"``), or per class pair (``"ovo"``: ``n_classes *
            (n_classes - 1) / 2`` pairs in scikit-learn's order).
        """
        return classifier_scores(self._ovo(X), len(self.classes_), self.decision_function_shape)

    def predict(self, X: MatrixLike) -> NDArray[Any]:
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
        if self.break_ties and self.decision_function_shape == "ovo":
            raise ValueError("break_ties must be False when decision_function_shape is 'ovo'")
        dec = self._ovo(X)
        k = len(self.classes_)
        if self.break_ties and self.decision_function_shape == "ovr" and k > 2:
            return self.classes_[np.argmax(classifier_scores(dec, k), axis=1)]
        return self.classes_[self._layout.vote(dec)]

    def _check_proba(self):
        if self.probability == "deprecated" or not self.probability:
            raise AttributeError("predict_proba is not available when probability=False")
        return True

    def _platt(self, key):
        values = np.asarray(json.loads(self.model_.to_json())["model"]["fitted"][key])
        return values[self._layout.columns] if values.size else np.empty(0)

    @property
    def _probA(self):
        return self._platt("prob_a")

    @property
    def _probB(self):
        return self._platt("prob_b")

    @deprecated(  # type: ignore[prop-decorator]
        "Attribute `probA_` was deprecated in version 1.9 and will be removed in 1.11 as "
        "the `probability=True` option for SVC and NuSVC was deprecated and will be "
        "removed in 1.11."
    )
    @property
    def probA_(self):
        """Platt's ``A`` per class pair (``probability=True``)."""
        return self._probA

    @deprecated(  # type: ignore[prop-decorator]
        "Attribute `probB_` was deprecated in version 1.9 and will be removed in 1.11 as "
        "the `probability=True` option for SVC and NuSVC was deprecated and will be "
        "removed in 1.11."
    )
    @property
    def probB_(self):
        """Platt's ``B`` per class pair (``probability=True``)."""
        return self._probB

    def _get_coef(self):
        if self.dual_coef_.shape[0] == 1:
            return safe_sparse_dot(self.dual_coef_, self.support_vectors_)
        coef = _one_vs_one_coef(self.dual_coef_, self._n_support, self.support_vectors_)
        # a sparse fit's coef_ is sparse, as scikit-learn's
        return sp.vstack(coef).tocsr() if sp.issparse(coef[0]) else np.vstack(coef)

    @available_if(_check_proba)
    def predict_proba(self, X: MatrixLike) -> NDArray[np.float64]:
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
        X = self._check_predict(X)
        self._check_sparse_predict(X)
        if not self._probability_fitted:
            raise NotFittedError(
                "predict_proba is not available when fitted with probability=False; "
                "fit again with probability=True"
            )
        features = self._features(X)
        if sp.issparse(features):
            proba = self.model_.predict_proba(csr_parts(features))
        else:
            proba = self.model_.predict_proba(features)
        return proba[:, self._layout.proba_columns()]

    @available_if(_check_proba)
    def predict_log_proba(self, X: MatrixLike) -> NDArray[np.float64]:
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
    probability : bool, default="deprecated"
        Fit Platt probabilities (5-fold CV per class pair). As in scikit-learn 1.9,
        setting it (True or False) is deprecated (a ``FutureWarning``); the default
        means False.
    tol : float, default=1e-3
        Stopping tolerance on the maximal KKT violation.
    cache_size : float, default=200
        Kernel cache in MB.
    class_weight : dict or "balanced", default=None
        Multiplies C per class.
    verbose : bool, default=False
        Print LIBSVM's report of the fit on standard output: each class pair's
        iterations, objective and offset, then the number of support vectors (as
        ``svm-train`` prints it, after the fit rather than during it).
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

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from kernlearn import SVC
    >>> X, y = make_classification(n_samples=60, n_features=4, random_state=0)
    >>> clf = SVC(C=1.0).fit(X, y)
    >>> clf.predict(X[:5])
    array([1, 0, 1, 1, 1])
    >>> clf.n_support_
    array([15, 15], dtype=int32)
    >>> round(clf.score(X, y), 2)
    0.83
    """

    _svm_type = "c_svc"
    _parameter_constraints = {**_BaseSVC._parameter_constraints, "C": [Interval(numbers.Real, 0.0, None, closed="right")]}

    def __init__(self, *, C=1.0, kernel="rbf", degree=3, gamma="scale", coef0=0.0,
                 shrinking=True, probability="deprecated", tol=1e-3, cache_size=200,
                 class_weight=None, verbose=False, max_iter=-1, decision_function_shape="ovr",
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
        self.verbose = verbose
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
    kernel, degree, gamma, coef0, shrinking, probability, tol, cache_size, verbose, max_iter, decision_function_shape, break_ties, random_state
        As in :class:`SVC`.
    class_weight : None
        Accepted for scikit-learn compatibility; LIBSVM's ν-SVC ignores class weights.

    Attributes
    ----------
    classes_, support_, support_vectors_, n_support_, dual_coef_, intercept_, n_iter_, model_
        As in :class:`SVC`.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from kernlearn import NuSVC
    >>> X, y = make_classification(n_samples=60, n_features=4, random_state=0)
    >>> clf = NuSVC(nu=0.3).fit(X, y)
    >>> clf.classes_
    array([0, 1])
    >>> clf.decision_function(X[:3]).shape
    (3,)
    """

    _svm_type = "nu_svc"
    _parameter_constraints = {**_BaseSVC._parameter_constraints, "nu": [Interval(numbers.Real, 0.0, 1.0, closed="right")]}

    def __init__(self, *, nu=0.5, kernel="rbf", degree=3, gamma="scale", coef0=0.0,
                 shrinking=True, probability="deprecated", tol=1e-3, cache_size=200,
                 class_weight=None, verbose=False, max_iter=-1, decision_function_shape="ovr",
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
        self.verbose = verbose
        self.max_iter = max_iter
        self.decision_function_shape = decision_function_shape
        self.break_ties = break_ties
        self.random_state = random_state


class _BaseSVR(RegressorPredictMixin, RegressorMixin, _BaseSVM):
    def fit(self: _SVR, X: MatrixLike, y: ArrayLike, sample_weight: Optional[ArrayLike] = None) -> _SVR:
        """Fits the regressor.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training vectors (the Gram matrix for ``kernel="precomputed"``).
        y : array-like of shape (n_samples,)
            Real targets.
        sample_weight : array-like of shape (n_samples,), default=None
            Per-sample weights: both dual variables of sample ``i`` are bounded by
            ``C * sample_weight[i]``; samples of zero or negative weight are left out.

        Returns
        -------
        self : object
        """
        self._validate_params()
        X, y = check_fit_data(self, X, y, classifier=False, validate_X=not callable(self.kernel))
        self.class_weight_ = np.empty(0)
        return self._fit_model(X, y, sample_weight=sample_weight)


class SVR(_BaseSVR):
    """ε-support vector regression (LIBSVM's ε-SVR) on kernlearn's SMO solver.

    Drop-in for :class:`sklearn.svm.SVR`.

    Parameters
    ----------
    kernel, degree, gamma, coef0, tol, shrinking, cache_size, verbose, max_iter
        As in :class:`SVC`.
    C : float, default=1.0
        Trade-off (> 0).
    epsilon : float, default=0.1
        Width of the insensitive tube (>= 0).

    Attributes
    ----------
    support_, support_vectors_, dual_coef_ (shape (1, n_SV)), intercept_, n_iter_, model_
        As in :class:`sklearn.svm.SVR`.

    Examples
    --------
    >>> from sklearn.datasets import make_regression
    >>> from kernlearn import SVR
    >>> X, y = make_regression(n_samples=60, n_features=3, noise=0.1, random_state=0)
    >>> reg = SVR(C=100.0, epsilon=0.5).fit(X, y)
    >>> reg.predict(X[:3]).round()
    array([-33., -72.,  57.])
    >>> y[:3].round()
    array([-33., -73.,  57.])
    """

    _svm_type = "epsilon_svr"
    _parameter_constraints = {
        **_BaseSVM._parameter_constraints,
        "C": [Interval(numbers.Real, 0.0, None, closed="right")],
        "epsilon": [Interval(numbers.Real, 0.0, None, closed="left")],
    }

    def __init__(self, *, kernel="rbf", degree=3, gamma="scale", coef0=0.0, tol=1e-3,
                 C=1.0, epsilon=0.1, shrinking=True, cache_size=200, verbose=False, max_iter=-1):
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.tol = tol
        self.C = C
        self.epsilon = epsilon
        self.shrinking = shrinking
        self.cache_size = cache_size
        self.verbose = verbose
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
    kernel, degree, gamma, coef0, shrinking, tol, cache_size, verbose, max_iter
        As in :class:`SVC`.

    Attributes
    ----------
    support_, support_vectors_, dual_coef_, intercept_, n_iter_, model_
        As in :class:`sklearn.svm.NuSVR`.
    """

    _svm_type = "nu_svr"
    _parameter_constraints = {
        **_BaseSVM._parameter_constraints,
        "C": [Interval(numbers.Real, 0.0, None, closed="right")],
        "nu": [Interval(numbers.Real, 0.0, 1.0, closed="right")],
    }

    def __init__(self, *, nu=0.5, C=1.0, kernel="rbf", degree=3, gamma="scale", coef0=0.0,
                 shrinking=True, tol=1e-3, cache_size=200, verbose=False, max_iter=-1):
        self.nu = nu
        self.C = C
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.shrinking = shrinking
        self.tol = tol
        self.cache_size = cache_size
        self.verbose = verbose
        self.max_iter = max_iter


class OneClassSVM(NoveltyMixin, OutlierMixin, _BaseSVM):
    """One-class SVM (novelty detection, Schölkopf et al.) on kernlearn's SMO solver.

    Drop-in for :class:`sklearn.svm.OneClassSVM`.

    Parameters
    ----------
    nu : float, default=0.5
        Upper bound on the fraction of training outliers, in (0, 1].
    kernel, degree, gamma, coef0, tol, shrinking, cache_size, verbose, max_iter
        As in :class:`SVC`.

    Attributes
    ----------
    support_, support_vectors_, dual_coef_, intercept_, n_iter_, model_
        As in :class:`sklearn.svm.OneClassSVM`.
    offset_ : float
        ``decision_function = score_samples - offset_``.

    Examples
    --------
    >>> import numpy as np
    >>> from kernlearn import OneClassSVM
    >>> X = np.random.default_rng(0).normal(size=(100, 2))
    >>> detector = OneClassSVM(nu=0.1, gamma=0.2).fit(X)
    >>> detector.predict([[0.0, 0.0], [4.0, 4.0]])  # +1 inlier, -1 outlier
    array([ 1, -1])
    """

    _svm_type = "one_class"
    _parameter_constraints = {
        **_BaseSVM._parameter_constraints,
        "nu": [Interval(numbers.Real, 0.0, 1.0, closed="right")],
    }

    def __init__(self, *, kernel="rbf", degree=3, gamma="scale", coef0=0.0, tol=1e-3,
                 nu=0.5, shrinking=True, cache_size=200, verbose=False, max_iter=-1):
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.tol = tol
        self.nu = nu
        self.shrinking = shrinking
        self.cache_size = cache_size
        self.verbose = verbose
        self.max_iter = max_iter

    def fit(self, X: MatrixLike, y: Any = None, sample_weight: Optional[ArrayLike] = None) -> "OneClassSVM":
        """Fits the support of the training distribution.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training vectors.
        y : ignored
        sample_weight : array-like of shape (n_samples,), default=None
            Per-sample weights: sample ``i`` has the box ``[0, sample_weight[i]]`` and
            the budget is ``nu * sum(sample_weight)``; samples of zero or negative
            weight are left out.

        Returns
        -------
        self : object
        """
        self._validate_params()
        X, _ = check_fit_data(
            self, X, None, classifier=False, supervised=False, validate_X=not callable(self.kernel)
        )
        self.class_weight_ = np.empty(0)
        self._fit_model(X, None, sample_weight=sample_weight)
        self.offset_ = -self.intercept_[0]
        return self
