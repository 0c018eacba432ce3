"""Paired comparison of two estimators on the same splits: does a learned kernel beat a
tuned SVM on this data? (The library's ``kernlearn experiment --baseline svm``.)"""

import json
import warnings
from typing import Any, Optional

import numpy as np
from numpy.typing import ArrayLike
from sklearn.base import clone, is_classifier
from sklearn.model_selection import ShuffleSplit, StratifiedShuffleSplit

from . import _core
from .exceptions import FallbackWarning

#: Score differences within this are ties (the library's ``TIE_TOLERANCE``).
TIE_TOLERANCE = 1e-12


def compare(estimator: Any, baseline: Any, X: ArrayLike, y: ArrayLike, *, n_splits: int = 10,
            test_size: float = 0.5, random_state: int = 0) -> dict[str, Any]:
    """Fits ``estimator`` and ``baseline`` on the same random splits and compares their
    test scores split by split.

    Both see the features as given; compare like with like, e.g. both unscaled, or both
    in a pipeline with the same scaler (``make_pipeline(MinMaxScaler(), est)``, fitted
    on each split's training part). A learned kernel that falls back to SVM-CV on a
    split scores what SVM-CV scores there: a fallback is not a win, so the result counts
    the splits on which each side kept its learned kernel, and the per-split
    :class:`~kernlearn.FallbackWarning` is replaced by that count.

    Parameters
    ----------
    estimator : estimator or Pipeline
        The method under test (e.g. ``DANKClassifier(select="grid")``).
    baseline : estimator or Pipeline
        The reference (e.g. ``GridSearch(SVC())``, the papers' SVM-CV).
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
    n_splits : int, default=10
        Number of random train/test splits (stratified for classifiers).
    test_size : float, default=0.5
        Fraction of each split held out.
    random_state : int, default=0
        Seed of the splits.

    Returns
    -------
    dict
        ``differences`` (estimator score − baseline score per split: accuracy, or R² for
        regressors; positive means the estimator did better), ``mean_difference``,
        ``standard_error`` (sample sd / √n), ``wins``/``ties``/``losses``, ``wilcoxon``
        (two-sided signed-rank test, SciPy's conventions: ``statistic``, ``p_value``,
        ``method``), the two mean scores, and ``estimator_fell_back`` /
        ``baseline_fell_back``: on how many splits each fell back to SVM-CV (``None``
        for an estimator without a fallback, e.g. SVM-CV itself).

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from kernlearn import SVC, KNPLClassifier, compare
    >>> X, y = make_classification(n_samples=60, n_features=4, random_state=0)
    >>> result = compare(KNPLClassifier(random_state=0), SVC(), X, y, n_splits=3)
    >>> result["wins"] + result["ties"] + result["losses"]
    3
    >>> result["estimator_fell_back"]  # 0 splits: KNPL without select="grid" never falls back
    0
    """
    X, y = np.asarray(X), np.asarray(y)
    splitter = (StratifiedShuffleSplit if is_classifier(estimator) else ShuffleSplit)(
        n_splits=n_splits, test_size=test_size, random_state=random_state
    )
    ours: list[float] = []
    theirs: list[float] = []
    fell_back: dict[str, list[Optional[bool]]] = {"estimator": [], "baseline": []}
    for train, test in splitter.split(X, y):
        for side, template, scores in (("estimator", estimator, ours), ("baseline", baseline, theirs)):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", FallbackWarning)
                fitted = clone(template).fit(X[train], y[train])
            scores.append(fitted.score(X[test], y[test]))
            fell_back[side].append(_fell_back(fitted))
    d = np.asarray(ours) - np.asarray(theirs)
    n = len(d)
    return {
        "differences": d,
        "mean_difference": float(d.mean()),
        "standard_error": float(d.std(ddof=1) / np.sqrt(n)) if n > 1 else 0.0,
        "wins": int(np.sum(d > TIE_TOLERANCE)),
        "ties": int(np.sum(np.abs(d) <= TIE_TOLERANCE)),
        "losses": int(np.sum(d < -TIE_TOLERANCE)),
        "wilcoxon": json.loads(_core.wilcoxon([float(v) for v in d])),
        "estimator_mean": float(np.mean(ours)),
        "baseline_mean": float(np.mean(theirs)),
        "estimator_fell_back": _count(fell_back["estimator"]),
        "baseline_fell_back": _count(fell_back["baseline"]),
    }


def _fell_back(fitted):
    """Whether a fitted estimator (or a pipeline's last step) fell back to SVM-CV;
    ``None`` when it has no fallback."""
    final = fitted.steps[-1][1] if hasattr(fitted, "steps") else fitted
    value = getattr(final, "fell_back_", None)
    return None if value is None else bool(value)


def _count(flags):
    """How many splits fell back, or ``None`` when the estimator has no fallback."""
    return None if any(f is None for f in flags) else int(sum(flags))
