"""Paired comparison of two estimators on the same splits: does a learned kernel beat a
tuned SVM on this data? (The library's ``kernlearn experiment --baseline svm``.)"""

import json

import numpy as np
from sklearn.base import clone, is_classifier
from sklearn.model_selection import ShuffleSplit, StratifiedShuffleSplit

from . import _core

#: Score differences within this are ties (the library's ``TIE_TOLERANCE``).
TIE_TOLERANCE = 1e-12


def compare(estimator, baseline, X, y, *, n_splits=10, test_size=0.5, random_state=0):
    """Fits ``estimator`` and ``baseline`` on the same random splits and compares their
    test scores split by split.

    Both see the features as given; compare like with like, e.g. both unscaled, or both
    in a pipeline with the same scaler (``make_pipeline(MinMaxScaler(), est)``, fitted
    on each split's training part). A learned kernel that falls back to SVM-CV on a
    split warns with :class:`~kernlearn.FallbackWarning` there, and scores what SVM-CV
    scores.

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
        ``method``), and the two mean scores.
    """
    X, y = np.asarray(X), np.asarray(y)
    splitter = (StratifiedShuffleSplit if is_classifier(estimator) else ShuffleSplit)(
        n_splits=n_splits, test_size=test_size, random_state=random_state
    )
    ours, theirs = [], []
    for train, test in splitter.split(X, y):
        ours.append(clone(estimator).fit(X[train], y[train]).score(X[test], y[test]))
        theirs.append(clone(baseline).fit(X[train], y[train]).score(X[test], y[test]))
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
    }
