#!/usr/bin/env python3
"""kernlearn.GridSearch's fast path beyond accuracy and a bare SVM, against
GridSearchCV on the same folds: a balanced-accuracy search and a
Pipeline(StandardScaler(), SVC()) search.

    target/python-venv/bin/python scripts/bench_gridsearch_paths.py [--rows 2000]

Data: a seeded 2,000-row sample of magic (numpy.random.RandomState(0) permutation of
<repo>/../shared/datasets/magic.csv), C, gamma in 2^-5 .. 2^5 (121 points),
StratifiedKFold(5), n_jobs=2 for both. Prints each search's time, the ratio, both picks
and CV scores, and the largest difference of a grid point's CV score.
"""

import argparse
import os
import time

import numpy as np
import pandas as pd
from sklearn import svm
from sklearn.model_selection import GridSearchCV, StratifiedKFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import kernlearn

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "..", "shared", "datasets", "magic.csv")


def timed(search, X, y):
    start = time.perf_counter()
    search.fit(X, y)
    return search, time.perf_counter() - start


def largest_difference(ours, ref):
    """Largest |CV score difference| over the grid, points matched by their parameters."""
    key = lambda p: tuple(sorted((k, round(float(v), 12)) for k, v in p.items()))  # noqa: E731
    theirs = {key(p): s for p, s in zip(ref.cv_results_["params"], ref.cv_results_["mean_test_score"])}
    return max(abs(theirs[key(p)] - s) for p, s in zip(ours.cv_results_["params"], ours.cv_results_["mean_test_score"]))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=2000)
    args = parser.parse_args()
    frame = pd.read_csv(DATA)
    X, y = frame.iloc[:, :-1].to_numpy(float), frame.iloc[:, -1].to_numpy()
    rows = np.random.RandomState(0).permutation(len(y))[: args.rows]
    X, y = X[rows], y[rows]
    grid = {"C": [2.0**e for e in range(-5, 6)], "gamma": [2.0**e for e in range(-5, 6)]}
    cv = StratifiedKFold(5)
    cases = [
        ("balanced accuracy", StandardScaler().fit_transform(X),
         kernlearn.GridSearch(kernlearn.SVC(), grid, cv=cv, scoring="balanced_accuracy", n_jobs=2),
         GridSearchCV(svm.SVC(), grid, cv=cv, scoring="balanced_accuracy", n_jobs=2)),
        ("Pipeline(StandardScaler(), SVC())", X,
         kernlearn.GridSearch(make_pipeline(StandardScaler(), kernlearn.SVC()),
                              {"svc__" + k: v for k, v in grid.items()}, cv=cv, n_jobs=2),
         GridSearchCV(make_pipeline(StandardScaler(), svm.SVC()),
                      {"svc__" + k: v for k, v in grid.items()}, cv=cv, n_jobs=2)),
    ]
    print("| search | kernlearn s | GridSearchCV s | ratio | fast path | same pick | best CV score | max Δ CV score |")
    print("| --- | ---: | ---: | ---: | --- | --- | ---: | ---: |")
    for name, data, ours, ref in cases:
        ours, t_ours = timed(ours, data, y)
        ref, t_ref = timed(ref, data, y)
        same = {k: round(v, 12) for k, v in ours.best_params_.items()} == {
            k: round(v, 12) for k, v in ref.best_params_.items()}
        print(f"| {name} | {t_ours:.2f} | {t_ref:.2f} | {t_ref / t_ours:.1f}× | {ours.fast_path_} | "
              f"{same} | {ours.best_score_:.6f} | {largest_difference(ours, ref):.1e} |")


if __name__ == "__main__":
    main()
