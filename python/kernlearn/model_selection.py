"""Grid search over (σ or γ, C[, ε]) for RBF kernel machines, on the library's fast path:
one Gram matrix per width shared by every fold and every C, warm starts along C, (width,
fold) blocks in parallel with the GIL released. Searches the fast path cannot take (other
kernels, a ``Pipeline``, other scorers) run scikit-learn's ``GridSearchCV`` around
kernlearn's estimators."""

import json
import numbers
from typing import Any, Optional

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike, NDArray
from sklearn.base import BaseEstimator, MetaEstimatorMixin, clone, is_classifier
from sklearn.metrics import check_scoring
from sklearn.model_selection import GridSearchCV, KFold, StratifiedKFold, check_cv
from sklearn.pipeline import Pipeline
from sklearn.utils import get_tags
from sklearn.utils import _safe_indexing
from sklearn.utils.validation import _num_samples, check_is_fitted

from . import _core
from ._base import PAPER_POWERS, AtomicFitMixin, check_fit_data, csr_parts
from .svm import SVC, SVR, NuSVC, NuSVR


#: scikit-learn's scorer names the library's search computes from each fold's
#: predictions -> the library's ``select::Scoring`` (None: the task's default).
_LIBRARY_SCORING = {
    "classifier": {None: "accuracy", "accuracy": "accuracy", "balanced_accuracy": "balanced_accuracy"},
    "regressor": {None: "mse", "neg_mean_squared_error": "mse", "neg_mean_absolute_error": "mae"},
}


class GridSearch(AtomicFitMixin, MetaEstimatorMixin, BaseEstimator):
    """Cross-validated grid search for :class:`SVC`, :class:`NuSVC`, :class:`SVR` and
    :class:`NuSVR` with the RBF kernel (the papers' SVM-CV / SVR-CV).

    Equivalent to ``GridSearchCV(estimator, param_grid, cv=StratifiedKFold(...))`` with
    accuracy (classification) or mean squared error (regression) as the score, but much
    faster: see ``docs/BENCHMARKS.md``. The fast path takes an RBF machine, a grid over
    C, γ or σ (and ε) and a score of the predictions (accuracy, balanced accuracy, mean
    squared or absolute error), on dense or sparse ``X``; anything else (a linear, polynomial or
    sigmoid kernel and its grid, a ``Pipeline`` whose last step is a kernlearn SVM with
    ``step__param`` keys, another ``scoring``) runs ``sklearn.model_selection.GridSearchCV``
    around kernlearn's estimator on the same folds, with the same results it would give.

    Parameters
    ----------
    estimator : SVC, NuSVC, SVR, NuSVR or Pipeline, default=None
        The machine to tune (a ``Pipeline`` ending in one: its preprocessing is fitted
        on each training fold); ``SVC()`` when None. Its other parameters (tol,
        class_weight, ...) are kept.
    param_grid : dict, default=None
        Fast path: ``"C"`` and either ``"gamma"`` or ``"sigma"`` (``γ = 1/σ²``), plus
        ``"epsilon"`` for SVR; absent keys take the papers' grid ``2^-5 … 2^5`` (σ and
        C). Otherwise any grid ``GridSearchCV`` accepts (required then).
    scoring : str, callable or None, default=None
        None: accuracy (classifiers) or negative mean squared error (regressors). The
        fast path computes these, ``"balanced_accuracy"`` and
        ``"neg_mean_absolute_error"`` from each fold's predictions; any other
        scikit-learn scorer name or callable is scored by ``GridSearchCV``.
    cv : int, cross-validation generator or iterable, default=5
        An integer: that many folds, stratified for classifiers, shuffled with
        ``random_state``. A splitter (``StratifiedKFold(5)``, ``KFold``, ...) or an
        iterable of ``(train, test)`` index pairs whose training rows are the rows outside
        the test fold: those folds, as ``GridSearchCV`` uses them.
    n_jobs : int or None, default=None
        Parallel jobs of a ``GridSearchCV`` search; the fast path always uses every core
        of the library's thread pool (``RAYON_NUM_THREADS``).
    refit : bool, default=True
        Refit the best parameters on the whole training data (``best_estimator_``).
    verbose : int, default=0
        Above 0: a line when the search starts and ends (and ``GridSearchCV``'s own
        messages on that path).
    random_state : int, default=0
        Seed of the fold assignment when ``cv`` is an integer.

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
    fast_path_ : bool
        Whether the library's search ran (False: ``GridSearchCV`` around kernlearn's
        estimator).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.model_selection import StratifiedKFold
    >>> from kernlearn import SVC, GridSearch
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(60, 2))
    >>> y = (X[:, 0] ** 2 + X[:, 1] ** 2 > 1.2).astype(int)
    >>> gs = GridSearch(SVC(), {"C": [1, 10], "gamma": [0.5, 2]}, cv=StratifiedKFold(3)).fit(X, y)
    >>> sorted(gs.best_params_)
    ['C', 'gamma']
    """

    _accepts_sparse = True  # scipy.sparse X: the library's search on CSR rows

    def __init__(self, estimator=None, param_grid=None, *, scoring=None, cv=5, n_jobs=None,
                 refit=True, verbose=0, random_state=0):
        self.estimator = estimator
        self.param_grid = param_grid
        self.scoring = scoring
        self.cv = cv
        self.n_jobs = n_jobs
        self.refit = refit
        self.verbose = verbose
        self.random_state = random_state

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        base = SVC() if self.estimator is None else self.estimator
        tags.input_tags.sparse = get_tags(base).input_tags.sparse  # as the tuned estimator
        return tags

    def _base(self):
        base = SVC() if self.estimator is None else self.estimator
        machine = base.steps[-1][1] if isinstance(base, Pipeline) else base
        if not isinstance(machine, (SVC, NuSVC, SVR, NuSVR)):
            raise TypeError(
                f"GridSearch tunes kernlearn.SVC, NuSVC, SVR or NuSVR (or a Pipeline ending in "
                f"one), not {type(machine).__name__}; use sklearn.model_selection.GridSearchCV "
                f"for other estimators"
            )
        return base

    def _fast(self, base, sample_weight=None):
        """Whether the library's search can run: an RBF machine (or a ``Pipeline``
        ending in one, unweighted), a grid of its C, γ or σ (and ε), and a score of the
        predictions the library computes (:data:`_LIBRARY_SCORING`)."""
        machine, prefix = _machine_and_prefix(base)
        # A key without the machine's prefix is another step's (or a mistake that
        # GridSearchCV reports): not the fast path.
        keys = {k[len(prefix):] if k.startswith(prefix) else None for k in (self.param_grid or {})}
        return (
            machine.kernel == "rbf"
            and keys <= {"C", "gamma", "sigma", "epsilon"}
            and self._library_scoring(machine) is not None
            and not (prefix and sample_weight is not None)
        )

    def _library_scoring(self, base):
        """The library's name of ``scoring`` for ``base``'s task, or None when the library
        does not compute it."""
        names = _LIBRARY_SCORING["classifier" if is_classifier(base) else "regressor"]
        return names.get(self.scoring) if isinstance(self.scoring, (str, type(None))) else None

    def _int_cv(self):
        """``cv`` when it is a number of folds (checked >= 2), else None."""
        if not isinstance(self.cv, numbers.Integral) or isinstance(self.cv, bool):
            return None
        if self.cv < 2:
            raise ValueError(f"cv must be an integer >= 2, a splitter or an iterable, got {self.cv!r}")
        return int(self.cv)

    def _splits(self, X, y, classifier):
        """``(folds, test_folds)`` for the library: the integer fold count, or the test
        rows of a splitter's or iterable's folds, each checked to train on the rest."""
        if self._int_cv() is not None:
            return self._int_cv(), None
        splitter = check_cv(self.cv, y, classifier=classifier)
        n, tests = len(y), []
        for k, (train, test) in enumerate(splitter.split(X, y)):
            train, test = np.sort(np.asarray(train, dtype=np.intp)), np.asarray(test, dtype=np.intp)
            if not np.array_equal(train, np.setdiff1d(np.arange(n), test)):
                raise ValueError(
                    f"cv split {k} trains on {len(train)} rows, not on the {n - len(np.unique(test))} "
                    f"rows outside its test fold (e.g. ShuffleSplit); GridSearch's fast path trains "
                    f"each fold on the rest: use sklearn.model_selection.GridSearchCV"
                )
            tests.append(test.tolist())
        if len(tests) < 2:
            raise ValueError(f"cv gives {len(tests)} split; GridSearch needs at least 2")
        return len(tests), tests

    def _say(self, message):
        if self.verbose:
            print(f"[GridSearch] {message}", flush=True)

    def _grid(self, prefix=""):
        """The library's grid (σ, C, ε) of ``param_grid`` (keys after ``prefix``), and
        the values as given, by the library's (``{"gamma": {σ: γ}, "C": {C: C}, ...}``),
        so that ``best_params_`` and ``cv_results_`` report them as given."""
        grid = {k[len(prefix):]: v for k, v in (self.param_grid or {}).items()}
        if "gamma" in grid:
            gammas = np.asarray(grid["gamma"], dtype=np.float64)
            if np.any(~np.isfinite(gammas)) or np.any(gammas <= 0):
                raise ValueError("every gamma in param_grid must be finite and > 0")
            sigmas = list(1.0 / np.sqrt(gammas))
        else:
            sigmas = [float(s) for s in grid.get("sigma", PAPER_POWERS)]
        library = {
            "sigmas": sigmas,
            "cs": [float(c) for c in grid.get("C", PAPER_POWERS)],
            "epsilons": [float(e) for e in grid.get("epsilon", [])],
        }
        given = {
            "gamma": dict(zip(sigmas, grid["gamma"])) if "gamma" in grid else {},
            "C": dict(zip(library["cs"], grid.get("C", PAPER_POWERS))),
            "epsilon": dict(zip(library["epsilons"], grid.get("epsilon", []))),
        }
        return library, given

    def fit(self, X: ArrayLike, y: ArrayLike, sample_weight: Optional[ArrayLike] = None) -> "GridSearch":
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

    def _fit_with(self, search, X, y, sample_weight=None, distributed=False):
        """``fit`` with ``search(params_json, grid_json, folds, seed, X, y_lib, **extra)``
        giving the library's ``Selection`` JSON (here or spread over a Ray cluster)."""
        base = self._base()
        prefix = _machine_and_prefix(base)[1]
        if {prefix + "gamma", prefix + "sigma"} <= set(self.param_grid or {}):
            raise ValueError("param_grid gives both gamma and sigma; give one (gamma = 1/sigma^2)")
        fast = self._fast(base, sample_weight)
        if fast and prefix:
            if distributed:
                raise ValueError("the distributed grid search takes an SVM, not a Pipeline")
            self._fit_pipeline_fast(base, X, y)
        elif fast:
            self._fit_fast(base, search, X, y, sample_weight, distributed)
        elif distributed:
            raise ValueError(
                "the distributed grid search takes an RBF kernlearn SVM, a grid of C, gamma or "
                "sigma (and epsilon) and the default scoring"
            )
        else:
            self._fit_general(base, X, y, sample_weight)
        self.fast_path_ = fast
        self._say(f"best {self.best_params_}, score {self.best_score_:.6g}")
        return self

    def _fit_fast(self, base, search, X, y, sample_weight, distributed):
        """The library's search (one Gram matrix per width, warm starts along C)."""
        grid, given = self._grid()
        classifier = is_classifier(base)
        X, y_lib = check_fit_data(self, X, y, classifier=classifier)
        folds, tests = self._splits(X, y_lib, classifier)
        params = base._params_json(X)
        extra = {}
        if sample_weight is not None:
            extra["sample_weight"] = base._sample_weight(sample_weight, X)
        if tests is not None:
            if distributed:
                raise ValueError("the distributed grid search takes an integer cv")
            extra["test_folds"] = tests
        scoring = self._library_scoring(base)
        if scoring not in ("accuracy", "mse"):
            if distributed:
                raise ValueError("the distributed grid search scores accuracy or MSE")
            extra["scoring"] = scoring
        n_points = len(grid["sigmas"]) * len(grid["cs"]) * max(1, len(grid["epsilons"]))
        self._say(f"fast path: {n_points} grid points x {folds} folds on {X.shape[0]} rows")
        rows = X
        if sp.issparse(X):  # the library's sparse search: the same folds and scores
            if distributed:
                raise ValueError("the distributed grid search takes dense X")
            rows = csr_parts(X)
        selection = json.loads(
            search(params, json.dumps(grid), folds, int(self.random_state), rows, y_lib, **extra)
        )
        self._record(selection, given)
        if self.scoring is not None:
            self.scorer_ = check_scoring(base, scoring=self.scoring)
        if self.refit:
            best = clone(base).set_params(**self.best_params_)
            self.best_estimator_ = best.fit(X, y, sample_weight=sample_weight)

    def _fit_pipeline_fast(self, base, X, y):
        """The library's search for a ``Pipeline`` ending in an RBF machine: on each
        split the preprocessing is fitted on the training rows and transforms every row,
        and the library scores the whole grid on that one held-out split (one Gram matrix
        per width, warm starts along C); the fold scores are then picked from as one
        search (the library's tie rule), as ``GridSearchCV`` scores the pipeline."""
        machine, prefix = _machine_and_prefix(base)
        preprocessing = base[:-1]
        grid, given = self._grid(prefix)
        classifier = is_classifier(machine)
        _, y_lib = check_fit_data(self, np.zeros((_num_samples(y), 1)), y, classifier=classifier)
        n = len(y_lib)
        if self._int_cv() is not None:  # the plain search's seeded folds for this cv
            plan = json.loads(_core.grid_search_plan(
                machine._params_json(np.zeros((n, 1))), json.dumps(grid), self._int_cv(),
                int(self.random_state), y_lib))
            tests = plan["folds"]
        else:
            tests = self._splits(X, y_lib, classifier)[1]
        scoring = self._library_scoring(machine)
        self._say(f"fast path per split: {len(tests)} pipelines, then the grid on each")
        per_split = []
        for test in tests:
            train = np.setdiff1d(np.arange(n), test)
            fitted = clone(preprocessing).fit(_safe_indexing(X, train), _safe_indexing(y, train))
            Xt, _ = check_fit_data(self, fitted.transform(X), y, classifier=classifier)
            rows = csr_parts(Xt) if sp.issparse(Xt) else Xt
            per_split.append(json.loads(_core.grid_search(
                machine._params_json(Xt), json.dumps(grid), 2, int(self.random_state), rows,
                y_lib, test_folds=[list(map(int, test))], scoring=scoring)))
        selection = _pooled_selection(machine, grid, per_split, tests, scoring)
        self._record(selection, given, prefix)
        for name in ("n_features_in_", "feature_names_in_"):  # the input's, not the machine's
            self.__dict__.pop(name, None)
        if self.scoring is not None:
            self.scorer_ = check_scoring(base, scoring=self.scoring)
        if self.refit:
            self.best_estimator_ = clone(base).set_params(**self.best_params_).fit(X, y)
            for name in ("n_features_in_", "feature_names_in_"):
                if hasattr(self.best_estimator_, name):
                    setattr(self, name, getattr(self.best_estimator_, name))

    def _fit_general(self, base, X, y, sample_weight):
        """``GridSearchCV`` around kernlearn's estimator (on the folds ``cv`` gives; an
        integer ``cv``: shuffled (stratified) k-fold seeded with ``random_state``)."""
        if not self.param_grid:
            raise ValueError(
                "param_grid is required outside the fast path (an RBF machine, C/gamma/sigma/"
                "epsilon and the default scoring): there is no default grid for it"
            )
        grid = dict(self.param_grid)
        if "sigma" in grid:
            grid["gamma"] = [1.0 / float(s) ** 2 for s in grid.pop("sigma")]
        cv = self.cv
        if self._int_cv() is not None:
            kind = StratifiedKFold if is_classifier(base) else KFold
            cv = kind(n_splits=self._int_cv(), shuffle=True, random_state=self.random_state)
        splits = list(check_cv(cv, y, classifier=is_classifier(base)).split(X, y))
        self._say(f"GridSearchCV around {type(base).__name__}: {len(splits)} folds")
        inner = GridSearchCV(base, grid, scoring=self.scoring, cv=splits, n_jobs=self.n_jobs,
                             refit=self.refit, verbose=max(0, int(self.verbose) - 1))
        fit_params = {} if sample_weight is None else {"sample_weight": sample_weight}
        if fit_params and isinstance(base, Pipeline):
            fit_params = {f"{base.steps[-1][0]}__sample_weight": sample_weight}
        inner.fit(X, y, **fit_params)
        for name in ("best_params_", "best_score_", "best_index_", "cv_results_", "n_splits_",
                     "scorer_", "n_features_in_", "feature_names_in_"):
            if hasattr(inner, name):
                setattr(self, name, getattr(inner, name))
        if self.refit:
            self.best_estimator_ = inner.best_estimator_
        self.folds_ = [np.asarray(test, dtype=np.intp) for _, test in splits]

    def _record(self, selection, given, prefix=""):
        points = selection["points"]
        # scikit-learn maximises: negative errors
        sign = 1.0 if selection["metric"] in ("accuracy", "balanced_accuracy") else -1.0
        scores = sign * np.asarray([p["score"] for p in points])
        folds = sign * np.asarray([p["fold_scores"] for p in points])

        def params_of(p):
            out = {prefix + "C": given["C"].get(p["c"], p["c"])}
            out[prefix + "gamma"] = given["gamma"].get(p["sigma"], 1.0 / p["sigma"] ** 2)
            if p.get("epsilon") is not None:
                out[prefix + "epsilon"] = given["epsilon"].get(p["epsilon"], p["epsilon"])
            return out

        params = [params_of(p) for p in points]
        results = {"params": params, f"param_{prefix}sigma": np.asarray([p["sigma"] for p in points])}
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

    def predict(self, X: ArrayLike) -> NDArray[Any]:
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

    def decision_function(self, X: ArrayLike) -> NDArray[np.float64]:
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

    def score(self, X: ArrayLike, y: ArrayLike) -> float:
        """Score of ``best_estimator_``: the search's scorer when one was given
        (as ``GridSearchCV``), else accuracy or R².

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)

        Returns
        -------
        float
        """
        check_is_fitted(self, "best_estimator_")
        if getattr(self, "scorer_", None) is not None and self.scoring is not None:
            return self.scorer_(self.best_estimator_, X, y)
        return self.best_estimator_.score(X, y)


def _machine_and_prefix(base):
    """The kernlearn machine a search tunes and the prefix of its parameters in
    ``param_grid``: ``(base, "")``, or for a ``Pipeline`` its last step and ``"name__"``."""
    if isinstance(base, Pipeline):
        name, machine = base.steps[-1]
        return machine, f"{name}__"
    return base, ""


def _pooled_selection(machine, grid, per_split, tests, scoring):
    """One ``Selection`` from single-split searches over the same grid: the library's
    pick (``grid_search_select``) from their fold scores ``[σ][split][ε][C]``."""
    first = per_split[0]
    epsilons = list(dict.fromkeys(p.get("epsilon") for p in first["points"]))
    n_sigma, n_eps, n_c = len(grid["sigmas"]), len(epsilons), len(grid["cs"])
    scores = [
        [
            [
                [split["points"][(s * n_eps + e) * n_c + c]["fold_scores"][0] for c in range(n_c)]
                for e in range(n_eps)
            ]
            for split in per_split
        ]
        for s in range(n_sigma)
    ]
    plan = {"folds": [list(map(int, t)) for t in tests], "epsilons": epsilons,
            "used_gram": all(split["used_gram"] for split in per_split)}
    return json.loads(_core.grid_search_select(
        machine._params_json(np.zeros((1, 1))), json.dumps(grid), json.dumps(plan),
        json.dumps(scores), scoring=scoring))
