"""Grid search over (σ or γ, C[, ε]) for RBF kernel machines, on the library's fast path:
one Gram matrix per width shared by every fold and every C, warm starts along C, (width,
fold) blocks in parallel with the GIL released."""

import json
import numbers

import numpy as np
from sklearn.base import BaseEstimator, MetaEstimatorMixin, clone, is_classifier
from sklearn.utils.validation import check_is_fitted

from . import _core
from ._base import PAPER_POWERS, AtomicFitMixin, check_fit_data
from .svm import SVC, SVR, NuSVC, NuSVR


class GridSearch(AtomicFitMixin, MetaEstimatorMixin, BaseEstimator):
    """Cross-validated grid search for :class:`SVC`, :class:`NuSVC`, :class:`SVR` and
    :class:`NuSVR` with the RBF kernel (the papers' SVM-CV / SVR-CV).

    Equivalent to ``GridSearchCV(estimator, param_grid, cv=StratifiedKFold(...))`` with
    accuracy (classification) or mean squared error (regression) as the score, but much
    faster: see ``docs/BENCHMARKS.md``.

    Parameters
    ----------
    estimator : SVC, NuSVC, SVR or NuSVR, default=None
        The machine to tune (kernel must be ``"rbf"``); ``SVC()`` when None. Its other
        parameters (tol, class_weight, ...) are kept.
    param_grid : dict, default=None
        ``"C"`` and either ``"gamma"`` or ``"sigma"`` (``γ = 1/σ²``), plus ``"epsilon"``
        for SVR; absent keys take the papers' grid ``2^-5 … 2^5`` (σ and C).
    cv : int, default=5
        Number of folds (stratified for classifiers).
    random_state : int, default=0
        Seed of the fold assignment.
    refit : bool, default=True
        Refit the best parameters on the whole training data (``best_estimator_``).

    Attributes
    ----------
    best_params_ : dict
        Best ``C``, ``gamma`` (and ``epsilon``), in the estimator's parameter names.
    best_score_ : float
        Mean cross-validated accuracy (classifiers) or negative MSE (regressors).
    best_index_ : int
        Index of the best candidate in ``cv_results_``.
    best_estimator_ : estimator
        Refitted on the whole data (when ``refit``).
    cv_results_ : dict of numpy arrays
        ``params``, ``param_C``, ``param_gamma``, ``mean_test_score``,
        ``std_test_score``, ``split{k}_test_score`` and ``rank_test_score``, as in
        scikit-learn.
    folds_ : list of ndarray
        Test indices of each fold (pass ``[(train, test), ...]`` to scikit-learn to
        reproduce the same folds).
    n_splits_ : int
    """

    def __init__(self, estimator=None, param_grid=None, *, cv=5, random_state=0, refit=True):
        self.estimator = estimator
        self.param_grid = param_grid
        self.cv = cv
        self.random_state = random_state
        self.refit = refit

    def _base(self):
        base = SVC() if self.estimator is None else self.estimator
        if not isinstance(base, (SVC, NuSVC, SVR, NuSVR)):
            raise TypeError(
                f"GridSearch tunes kernlearn.SVC, NuSVC, SVR or NuSVR, not {type(base).__name__}; "
                f"use sklearn.model_selection.GridSearchCV for other estimators"
            )
        if base.kernel != "rbf":
            raise ValueError(f"GridSearch searches RBF widths; the estimator's kernel is {base.kernel!r}")
        return base

    def _grid(self):
        grid = dict(self.param_grid or {})
        unknown = set(grid) - {"C", "gamma", "sigma", "epsilon"}
        if unknown:
            raise ValueError(f"param_grid has unknown keys {sorted(unknown)}; expected C, gamma or sigma, epsilon")
        if "gamma" in grid and "sigma" in grid:
            raise ValueError("param_grid gives both gamma and sigma; give one (gamma = 1/sigma^2)")
        if "gamma" in grid:
            gammas = np.asarray(grid["gamma"], dtype=np.float64)
            if np.any(~np.isfinite(gammas)) or np.any(gammas <= 0):
                raise ValueError("every gamma in param_grid must be finite and > 0")
            sigmas = list(1.0 / np.sqrt(gammas))
        else:
            sigmas = [float(s) for s in grid.get("sigma", PAPER_POWERS)]
        return {
            "sigmas": sigmas,
            "cs": [float(c) for c in grid.get("C", PAPER_POWERS)],
            "epsilons": [float(e) for e in grid.get("epsilon", [])],
        }, "gamma" in grid

    def fit(self, X, y, sample_weight=None):
        """Cross-validates every grid point and refits the best.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None
            Per-sample weights: each fold trains with its rows' weights and scores its
            test rows weighted by theirs, as ``GridSearchCV(...).fit(X, y,
            sample_weight=w)``; the refit uses them all.

        Returns
        -------
        self : object
        """
        return self._fit_with(_core.grid_search, X, y, sample_weight)

    def _fit_with(self, search, X, y, sample_weight=None):
        """``fit`` with ``search(params_json, grid_json, folds, seed, X, y_lib)`` giving
        the library's ``Selection`` JSON (here or spread over a Ray cluster)."""
        base = self._base()
        if not isinstance(self.cv, numbers.Integral) or self.cv < 2:
            raise ValueError(f"cv must be an integer >= 2, got {self.cv!r}")
        grid, by_gamma = self._grid()
        classifier = is_classifier(base)
        X, y_lib = check_fit_data(self, X, y, classifier=classifier)
        params = base._params_json(X)
        weights = {}
        if sample_weight is not None:
            weights["sample_weight"] = base._sample_weight(sample_weight, X)
        selection = json.loads(
            search(params, json.dumps(grid), int(self.cv), int(self.random_state), X, y_lib, **weights)
        )
        self._record(selection, by_gamma, classifier)
        if self.refit:
            best = clone(base).set_params(**self.best_params_)
            self.best_estimator_ = best.fit(X, y, sample_weight=sample_weight)
        return self

    def _record(self, selection, by_gamma, classifier):
        points = selection["points"]
        sign = 1.0 if classifier else -1.0  # scikit-learn maximises: negative MSE
        scores = sign * np.asarray([p["score"] for p in points])
        folds = sign * np.asarray([p["fold_scores"] for p in points])

        def params_of(p):
            out = {"C": p["c"]}
            out["gamma"] = 1.0 / p["sigma"] ** 2
            if p.get("epsilon") is not None:
                out["epsilon"] = p["epsilon"]
            return out

        params = [params_of(p) for p in points]
        results = {"params": params, "param_sigma": np.asarray([p["sigma"] for p in points])}
        for key in params[0]:
            results[f"param_{key}"] = np.asarray([p[key] for p in params])
        for k in range(folds.shape[1]):
            results[f"split{k}_test_score"] = folds[:, k]
        results["mean_test_score"] = scores
        results["std_test_score"] = folds.std(axis=1)
        order = np.argsort(-scores, kind="stable")
        rank = np.empty(len(scores), dtype=np.int32)
        rank[order] = np.arange(1, len(scores) + 1)
        # ties share the best rank, as scikit-learn's rankdata(method="min")
        for i in range(1, len(order)):
            if scores[order[i]] == scores[order[i - 1]]:
                rank[order[i]] = rank[order[i - 1]]
        results["rank_test_score"] = rank
        best = selection["best"]
        self.best_index_ = next(
            i for i, p in enumerate(points)
            if p["sigma"] == best["sigma"] and p["c"] == best["c"] and p.get("epsilon") == best.get("epsilon")
        )
        self.best_params_ = params[self.best_index_]
        self.best_score_ = float(scores[self.best_index_])
        self.cv_results_ = results
        self.folds_ = [np.asarray(f, dtype=np.intp) for f in selection["folds"]]
        self.n_splits_ = len(self.folds_)
        self.selection_ = selection

    def predict(self, X):
        """Predictions of ``best_estimator_``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        check_is_fitted(self, "best_estimator_")
        return self.best_estimator_.predict(X)

    def decision_function(self, X):
        """Decision values of ``best_estimator_``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray
        """
        check_is_fitted(self, "best_estimator_")
        return self.best_estimator_.decision_function(X)

    def score(self, X, y):
        """Score of ``best_estimator_`` (accuracy or R²).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)

        Returns
        -------
        float
        """
        check_is_fitted(self, "best_estimator_")
        return self.best_estimator_.score(X, y)
