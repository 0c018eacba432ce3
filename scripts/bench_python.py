#!/usr/bin/env python3
"""kernlearn from Python against scikit-learn, side by side in one run.

1. ``kernlearn.SVC`` vs ``sklearn.svm.SVC``: fit and predict time, and agreement, on
   magic and shuttle-binary (features scaled to [0, 1]; both with their defaults, which
   are the same: C = 1, γ = "scale" = 1 / (d · Var X)).
2. ``kernlearn.GridSearch`` vs ``GridSearchCV(SVC, n_jobs=2)`` on the same folds (ours,
   passed to scikit-learn as explicit splits): time, the pick and its CV score.

Build the extension optimised first, then run from the repository root::

    pip install maturin numpy scikit-learn
    maturin develop --release
    python scripts/bench_python.py [--datasets DIR] [--grid-rows 2000] [--repeats 3]

Timings are the minimum over ``--repeats`` runs (fits) and one run (grid searches).
"""

import argparse
import os
import time

import numpy as np
from sklearn import svm
from sklearn.model_selection import GridSearchCV

import kernlearn


def load(path):
    data = np.genfromtxt(path, delimiter=",", skip_header=1, dtype=np.float64)
    X, y = data[:, :-1], data[:, -1]
    lo, hi = X.min(axis=0), X.max(axis=0)
    return np.ascontiguousarray((X - lo) / np.where(hi > lo, hi - lo, 1.0)), y


def best_time(fn, repeats):
    best, out = float("inf"), None
    for _ in range(repeats):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def bench_fit(name, X, y, repeats):
    params = {}  # the defaults of both: C = 1, gamma = "scale"
    rows = []
    for label, cls in (("kernlearn", kernlearn.SVC), ("scikit-learn", svm.SVC)):
        fit_s, model = best_time(lambda: cls(**params).fit(X, y), repeats)
        pred_s, pred = best_time(lambda: model.predict(X), repeats)
        rows.append((label, fit_s, pred_s, pred, model))
    (_, f0, p0, pred0, m0), (_, f1, p1, pred1, m1) = rows
    same = np.mean(pred0 == pred1)
    same_sv = np.array_equal(m0.support_, m1.support_)
    print(f"| {name} | {len(y)}×{X.shape[1]} | {f0:.2f} | {f1:.2f} | {f1 / f0:.2f}× | "
          f"{p0:.2f} | {p1:.2f} | {p1 / p0:.2f}× | {same:.4f} | {same_sv} |")


def bench_grid(name, X, y):
    grid = {"C": [2.0**e for e in range(-5, 6)], "gamma": [2.0**-e for e in range(-10, 11, 2)]}
    t = time.perf_counter()
    ours = kernlearn.GridSearch(kernlearn.SVC(), grid, cv=5, random_state=0, refit=False).fit(X, y)
    ours_s = time.perf_counter() - t
    folds = [(np.setdiff1d(np.arange(len(y)), test), test) for test in ours.folds_]
    t = time.perf_counter()
    ref = GridSearchCV(svm.SVC(), grid, cv=folds, n_jobs=2, refit=False).fit(X, y)
    ref_s = time.perf_counter() - t
    scores_diff = np.max(np.abs(np.sort(ours.cv_results_["mean_test_score"]) -
                                np.sort(ref.cv_results_["mean_test_score"])))
    print(f"| {name} | {len(y)}×{X.shape[1]} | {len(ours.cv_results_['params'])} × 5 | "
          f"{ours_s:.1f} | {ref_s:.1f} | {ref_s / ours_s:.1f}× | "
          f"C={ours.best_params_['C']:g}, γ={ours.best_params_['gamma']:g} ({ours.best_score_:.4f}) | "
          f"C={ref.best_params_['C']:g}, γ={ref.best_params_['gamma']:g} ({ref.best_score_:.4f}) | "
          f"{scores_diff:.1e} |")


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    default = os.path.join(here, "..", "..", "shared", "datasets")
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--datasets", default=default, help="folder with magic.csv, shuttle-binary.csv")
    ap.add_argument("--grid-rows", type=int, default=2000, help="rows (random sample) for the grid searches")
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    data = {n: load(os.path.join(args.datasets, f"{n}.csv")) for n in ("magic", "shuttle-binary")}
    print(f"kernlearn {kernlearn.__version__}; SVC() defaults (C = 1, γ = 'scale'); times in seconds\n")
    print("| data | n×d | kernlearn fit | sklearn fit | fit speed-up | kernlearn predict | "
          "sklearn predict | predict speed-up | same predictions | same SVs |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name, (X, y) in data.items():
        bench_fit(name, X, y, args.repeats)
    print(f"\nGrid search: σ/γ × C = 11 × 11, 5 folds, on a random sample of {args.grid_rows} rows\n")
    print("| data | n×d | grid × folds | kernlearn s | GridSearchCV (n_jobs=2) s | speed-up | "
          "kernlearn pick (CV acc.) | sklearn pick (CV acc.) | max CV-score diff |")
    print("|---|---|---|---|---|---|---|---|---|")
    rng = np.random.RandomState(0)
    for name, (X, y) in data.items():
        idx = np.sort(rng.choice(len(y), size=min(args.grid_rows, len(y)), replace=False))
        bench_grid(name, X[idx], y[idx])


if __name__ == "__main__":
    main()
