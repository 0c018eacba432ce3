#!/usr/bin/env python3
"""kernlearn from Python against scikit-learn and scikit-learn-intelex, side by side in one run.

1. ``kernlearn.SVC`` vs ``sklearn.svm.SVC`` and ``sklearnex.svm.SVC`` (Intel oneDAL): fit and
   predict time, and agreement, on magic and shuttle-binary (features scaled to [0, 1]; all
   with their defaults, which are the same: C = 1, γ = "scale" = 1 / (d · Var X)).
2. ``kernlearn.GridSearch`` vs ``GridSearchCV(SVC, n_jobs=2)`` over each of those SVCs on the
   same folds (ours, passed to scikit-learn as explicit splits): time, the pick and its CV
   score.

Build the extension optimised first, then run from the repository root::

    pip install maturin numpy scikit-learn scikit-learn-intelex
    maturin develop --release
    python scripts/bench_python.py [--datasets DIR] [--grid-rows 2000] [--repeats 3]
    python scripts/bench_python.py --datasets-list magic --grid-rows 300 --repeats 1   # quick check

Timings are the minimum over ``--repeats`` runs (fits) and one run (grid searches), the
data in memory and ``fit`` (or ``predict``) alone timed. scikit-learn-intelex is probed
first with a toy fit in a child process (``bench_svm.sklearnex_unavailable``); when it does
not import or fit here it is skipped with the reason and its rows are left out. Its SVC
gets the same parameters as scikit-learn's and oneDAL's default threads (every core; inside
GridSearchCV's joblib workers, the limit joblib sets); a fit or prediction that falls back
to scikit-learn's own SVC (sklearnex's log says so) is reported instead of its numbers.
"differing predictions" counts the rows where the tool's predicted label differs from
kernlearn's.
"""

import argparse
import contextlib
import os
import sys
import time

import numpy as np
from sklearn import svm
from sklearn.model_selection import GridSearchCV

import kernlearn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_svm as bs  # noqa: E402 (the sklearnex probe and dispatch log, shared with the CLI benchmarks)

DATASETS = ["magic", "shuttle-binary"]
TOOLS = ["sklearn", "sklearnex"]
TITLES = {"sklearn": "scikit-learn", "sklearnex": "sklearnex"}


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


def svc_class(tool):
    if tool == "sklearnex":
        from sklearnex.svm import SVC
        return SVC
    return svm.SVC


def watch(tool):
    """sklearnex's log of where its calls ran (see bench_svm.OneDalDispatch); nothing for scikit-learn."""
    return bs.OneDalDispatch() if tool == "sklearnex" else contextlib.nullcontext()


def bench_fit(name, X, y, repeats, tools):
    params = {}  # the defaults of all: C = 1, gamma = "scale"
    f0, k = best_time(lambda: kernlearn.SVC(**params).fit(X, y), repeats)
    p0, pred0 = best_time(lambda: k.predict(X), repeats)
    for tool in tools:
        cls = svc_class(tool)
        log = watch(tool)
        with log:
            f1, m = best_time(lambda: cls(**params).fit(X, y), repeats)
            p1, pred1 = best_time(lambda: m.predict(X), repeats)
        fallbacks = getattr(log, "fallbacks", [])
        if fallbacks:
            print(f"| {name} | {len(y)}×{X.shape[1]} | {TITLES[tool]} | fell back to scikit-learn: "
                  f"{'; '.join(fallbacks)} | | | | | | | |")
            continue
        differ = int(np.sum(pred0 != pred1))
        same_sv = np.array_equal(np.sort(k.support_), np.sort(m.support_))
        print(f"| {name} | {len(y)}×{X.shape[1]} | {TITLES[tool]} | {f0:.2f} | {f1:.2f} | {f1 / f0:.2f}× | "
              f"{p0:.2f} | {p1:.2f} | {p1 / p0:.2f}× | {differ} | {same_sv} |", flush=True)


def bench_grid(name, X, y, tools):
    grid = {"C": [2.0**e for e in range(-5, 6)], "gamma": [2.0**-e for e in range(-10, 11, 2)]}
    t = time.perf_counter()
    ours = kernlearn.GridSearch(kernlearn.SVC(), grid, cv=5, random_state=0, refit=False).fit(X, y)
    ours_s = time.perf_counter() - t
    folds = [(np.setdiff1d(np.arange(len(y)), test), test) for test in ours.folds_]
    for tool in tools:
        log = watch(tool)
        with log:  # refit=False: the log sees none of the workers' fits, so check one fit here
            few = np.concatenate([np.flatnonzero(y == c)[:25] for c in np.unique(y)])
            svc_class(tool)(C=1.0, gamma=1.0).fit(X[few], y[few])
        if getattr(log, "fallbacks", []):
            print(f"| {name} | {len(y)}×{X.shape[1]} | {TITLES[tool]} | fell back to scikit-learn: "
                  f"{'; '.join(log.fallbacks)} | | | | | | |")
            continue
        t = time.perf_counter()
        ref = GridSearchCV(svc_class(tool)(), grid, cv=folds, n_jobs=2, refit=False).fit(X, y)
        ref_s = time.perf_counter() - t
        scores_diff = np.max(np.abs(np.sort(ours.cv_results_["mean_test_score"]) -
                                    np.sort(ref.cv_results_["mean_test_score"])))
        print(f"| {name} | {len(y)}×{X.shape[1]} | {TITLES[tool]} | {len(ours.cv_results_['params'])} × 5 | "
              f"{ours_s:.1f} | {ref_s:.1f} | {ref_s / ours_s:.1f}× | "
              f"C={ours.best_params_['C']:g}, γ={ours.best_params_['gamma']:g} ({ours.best_score_:.4f}) | "
              f"C={ref.best_params_['C']:g}, γ={ref.best_params_['gamma']:g} ({ref.best_score_:.4f}) | "
              f"{scores_diff:.1e} |", flush=True)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    default = os.path.join(here, "..", "..", "shared", "datasets")
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--datasets", default=default, help="folder with magic.csv, shuttle-binary.csv")
    ap.add_argument("--datasets-list", default=",".join(DATASETS), metavar="A,B",
                    help="comma-separated subset of " + ",".join(DATASETS))
    ap.add_argument("--tools", default=",".join(TOOLS), metavar="A,B",
                    help="references beside kernlearn, a subset of %s (default all)" % ",".join(TOOLS))
    ap.add_argument("--grid-rows", type=int, default=2000, help="rows (random sample) for the grid searches")
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    if args.repeats < 1:
        ap.error("--repeats must be >= 1")
    names = bs.parse_list(args.datasets_list, DATASETS, "dataset")
    tools = bs.parse_list(args.tools, TOOLS, "tool")
    versions = [f"kernlearn {kernlearn.__version__}"]
    import sklearn
    versions.append(f"scikit-learn {sklearn.__version__}")
    if "sklearnex" in tools:
        why = bs.sklearnex_unavailable()
        if why is None:
            versions.append(f"scikit-learn-intelex {bs.sklearnex_version()}")
        else:
            print(f"sklearnex skipped: {why}\n", flush=True)
            tools.remove("sklearnex")
    data = {n: load(os.path.join(args.datasets, f"{n}.csv")) for n in names}
    print(f"{', '.join(versions)}; SVC() defaults (C = 1, γ = 'scale'); times in seconds\n")
    print("| data | n×d | reference | kernlearn fit | reference fit | fit speed-up | kernlearn predict | "
          "reference predict | predict speed-up | differing predictions | same SVs |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for name, (X, y) in data.items():
        bench_fit(name, X, y, args.repeats, tools)
    print(f"\nGrid search: σ/γ × C = 11 × 11, 5 folds, on a random sample of {args.grid_rows} rows\n")
    print("| data | n×d | reference | grid × folds | kernlearn s | GridSearchCV (n_jobs=2) s | speed-up | "
          "kernlearn pick (CV acc.) | reference pick (CV acc.) | max CV-score diff |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    rng = np.random.RandomState(0)
    for name, (X, y) in data.items():
        idx = np.sort(rng.choice(len(y), size=min(args.grid_rows, len(y)), replace=False))
        bench_grid(name, X[idx], y[idx], tools)


if __name__ == "__main__":
    main()
