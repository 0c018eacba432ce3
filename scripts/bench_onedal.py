#!/usr/bin/env python3
"""Fit and prediction side by side with scikit-learn-intelex (oneDAL), the fastest SVM a
CPU user can `pip install`, in one process and one run.

    target/python-venv/bin/python scripts/bench_onedal.py                 # every case
    target/python-venv/bin/python scripts/bench_onedal.py --cases magic,ring-50k --repeats 3

Both tools get the same in-memory arrays and the same parameters: `kernlearn.SVC` and
`sklearnex.svm.SVC` (probed first; reported as skipped with the reason when it does not
import or fit here), C-SVC, RBF kernel, tol = 1e-3, a 200 MB cache, shrinking on.
Timings are the best of `--repeats` calls of `fit` and of `predict` (the wall clock of
the call; data already in memory). For every case the script checks that the two
predict the same labels (counts the rows where they differ) and compares the dual
objectives `0.5 cᵀKc − Σ|c|` recomputed from each model's dual coefficients and
support vectors, so a faster fit that stops elsewhere shows.

Cases (the shapes of the speed issue's table):

* magic, shuttle-binary: `../shared/datasets`, the stratified 80/20 split of
  `bench_svm.py` (seed 0), min-max scaled with the training rows' range, C = 4,
  gamma = 0.5.
* adult-10k: the first 20,000 rows of adult.csv split 50/50 (stratified, seed 0), min-max,
  C = 1, gamma = 1/103.
* ring-25k, ring-50k: `../shared/datasets/make_ring.py 200000 ring.csv` (d = 20, seed 7;
  the script writes it into `--workdir` once), the first n rows for training and rows
  150,000–159,999 as the test set, unscaled (standard normal features), C = 1,
  gamma = 0.1.
* text-hashed: `bench_sparse.py`'s hashed docstring set (2^18 columns, unit-norm CSR rows),
  its 80/20 split, C = 4, gamma = 1.

`--grid` also times the grid search of `bench_select.py --grid-target` (magic's stratified
5,000-row sample, its 80/20 split: 4,000 training rows, min-max; sigma and C in
2^-5 … 2^5, 121 points, 5 folds): `kernlearn.GridSearch` against
`GridSearchCV(sklearnex.svm.SVC(), n_jobs=2)` on kernlearn's folds, both timed with
their refit, and checks that both pick the same point or points of equal CV score.
"""

import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_svm as bs  # noqa: E402 (split and scaling shared with the LIBSVM benchmark)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, os.pardir, "shared", "datasets")
CASES = ["magic", "shuttle-binary", "adult-10k", "ring-25k", "ring-50k", "text-hashed"]


def csv_case(name, C, gamma, rows=None, test_fraction=0.2):
    X, y = bs.load_csv(os.path.join(DATA, name + ".csv"))
    if rows is not None:
        X, y = X[:rows], y[:rows]
    tr, te = bs.stratified_split(y, test_fraction)
    Xtr, Xte = bs.minmax_fit_transform(X[tr], X[te])
    return Xtr, y[tr], Xte, y[te], C, gamma


def ring_case(n, workdir):
    path = os.path.join(workdir, "ring.csv")
    if not os.path.exists(path):
        subprocess.run([sys.executable, os.path.join(DATA, "make_ring.py"), "200000", path], check=True)
    data = np.loadtxt(path, delimiter=",", skiprows=1, max_rows=160000)
    X, y = np.ascontiguousarray(data[:, :-1]), data[:, -1]
    return X[:n], y[:n], X[150000:160000], y[150000:160000], 1.0, 0.1


def text_case():
    import scipy.sparse as sp

    import bench_sparse

    rows, y = bench_sparse.hashed_documents()
    indptr = np.cumsum([0] + [len(c) for c, _ in rows])
    X = sp.csr_matrix((np.concatenate([v for _, v in rows]), np.concatenate([c for c, _ in rows]), indptr),
                      shape=(len(rows), 1 << bench_sparse.HASH_BITS))
    tr, te = bs.stratified_split(y)
    return X[tr], y[tr], X[te], y[te], 4.0, 1.0


def load_case(name, workdir):
    if name in ("magic", "shuttle-binary"):
        return csv_case(name, 4.0, 0.5)
    if name == "adult-10k":
        return csv_case("adult", 1.0, 1.0 / 103, rows=20000, test_fraction=0.5)
    if name.startswith("ring-"):
        return ring_case(int(name.split("-")[1].rstrip("k")) * 1000, workdir)
    if name == "text-hashed":
        return text_case()
    raise SystemExit("unknown case %r (choose from %s)" % (name, ", ".join(CASES)))


def dual_objective(est, gamma):
    """0.5 cᵀKc − Σ|c| from the fitted model's dual coefficients (RBF), by row blocks."""
    import scipy.sparse as sp

    coef = est.dual_coef_
    coef = np.asarray(coef.toarray() if sp.issparse(coef) else coef, dtype=np.float64).ravel()
    SV = est.support_vectors_
    if sp.issparse(SV):
        sq = np.asarray(SV.multiply(SV).sum(axis=1)).ravel()
        quad = 0.0
        for s in range(0, SV.shape[0], 1024):
            d2 = sq[s:s + 1024, None] + sq[None, :] - 2.0 * (SV[s:s + 1024] @ SV.T).toarray()
            quad += coef[s:s + 1024] @ (np.exp(-gamma * np.maximum(d2, 0.0)) @ coef)
        return 0.5 * quad - np.abs(coef).sum()
    return bs.rbf_dual_objective(coef, np.asarray(SV, dtype=np.float64), gamma)


def best_of(repeats, call):
    times, out = [], None
    for _ in range(repeats):
        t = time.perf_counter()
        out = call()
        times.append(time.perf_counter() - t)
    return min(times), out


def onedal_unavailable():
    """None when sklearnex imports and fits a toy problem in a child process, else why not."""
    probe = ("import numpy as np; from sklearnex.svm import SVC; "
             "SVC().fit(np.array([[0.0], [1.0], [2.0], [3.0]]), [0, 0, 1, 1])")
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    if proc.returncode != 0:
        return (proc.stderr.strip().splitlines() or ["exit %d" % proc.returncode])[-1]
    return None


def measure(tool, cls, case, repeats):
    Xtr, ytr, Xte, yte, C, gamma = case
    est = cls(C=C, gamma=gamma, kernel="rbf", tol=1e-3, cache_size=200)
    fit_s, _ = best_of(repeats, lambda: est.fit(Xtr, ytr))
    predict_s, pred = best_of(repeats, lambda: est.predict(Xte))
    return {"tool": tool, "fit_s": round(fit_s, 4), "predict_s": round(predict_s, 4),
            "accuracy": round(float(np.mean(pred == yte)), 5), "n_sv": int(est.support_.size),
            "objective": float(dual_objective(est, gamma)), "pred": pred}


def grid_search(repeats):
    """kernlearn.GridSearch against GridSearchCV over sklearnex's SVC (see the docstring)."""
    import bench_select
    import kernlearn
    from sklearn.model_selection import GridSearchCV
    from sklearnex.svm import SVC as OneDalSVC

    X, y = bs.load_csv(os.path.join(DATA, "magic.csv"))
    keep = bench_select.stratified_sample(y, 5000)
    X, y = X[keep], y[keep]
    tr, _ = bs.stratified_split(y)
    Xtr, _ = bs.minmax_fit_transform(X[tr], X[tr])
    ytr = y[tr]
    powers = [2.0 ** e for e in range(-5, 6)]
    ours = kernlearn.GridSearch(kernlearn.SVC(), {"C": powers, "sigma": powers}, cv=5, random_state=0)
    ours_s, _ = best_of(repeats, lambda: ours.fit(Xtr, ytr))
    n = len(ytr)
    folds = [(np.setdiff1d(np.arange(n), test), test) for test in ours.folds_]
    grid = {"C": powers, "gamma": sorted(1.0 / s ** 2 for s in powers)}
    ref = GridSearchCV(OneDalSVC(tol=1e-3, cache_size=200), grid, cv=folds, n_jobs=2)
    ref_s, _ = best_of(repeats, lambda: ref.fit(Xtr, ytr))
    same = np.isclose(ours.best_params_["C"], ref.best_params_["C"]) and np.isclose(
        ours.best_params_["gamma"], ref.best_params_["gamma"])
    print("\n| grid search (magic 4,000 rows, 121 points, 5 folds) | seconds | picks |")
    print("| --- | --- | --- |")
    print("| GridSearchCV(sklearnex SVC, n_jobs=2) | %.2f | C = %g, gamma = %g, CV %.5f |" % (
        ref_s, ref.best_params_["C"], ref.best_params_["gamma"], ref.best_score_))
    print("| kernlearn.GridSearch | %.2f | C = %g, gamma = %g, CV %.5f |" % (
        ours_s, ours.best_params_["C"], ours.best_params_["gamma"], ours.best_score_))
    print("| ratio | %.1f× | %s |" % (ref_s / ours_s, "same point" if same else
                                     "CV scores %s" % ("equal" if abs(ours.best_score_ - ref.best_score_) < 1e-9
                                                       else "differ")), flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", default=",".join(CASES), help="comma-separated subset of " + ",".join(CASES))
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--workdir", default=os.path.join(ROOT, "target", "bench_onedal"))
    ap.add_argument("--grid", action="store_true", help="also time the grid search (see the docstring)")
    args = ap.parse_args()
    if args.repeats < 1:
        raise SystemExit("--repeats must be at least 1, got %d" % args.repeats)
    os.makedirs(args.workdir, exist_ok=True)
    import kernlearn

    tools = [("kernlearn", kernlearn.SVC)]
    why = onedal_unavailable()
    if why is None:
        from sklearnex.svm import SVC as OneDalSVC

        tools.insert(0, ("sklearnex", OneDalSVC))
    else:
        print(json.dumps({"tool": "sklearnex", "skipped": why}), flush=True)
    print("| case | n train / test | sklearnex fit / predict s | kernlearn fit / predict s "
          "| fit ratio | predict ratio | labels differing | objective rel. diff |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for name in args.cases.split(","):
        case = load_case(name.strip(), args.workdir)
        res = {tool: measure(tool, cls, case, args.repeats) for tool, cls in tools}
        k = res["kernlearn"]
        shape = "%d / %d" % (case[0].shape[0], case[2].shape[0])
        if "sklearnex" not in res:
            print("| %s | %s | skipped | %.3f / %.3f | | | | |" % (name, shape, k["fit_s"], k["predict_s"]))
            continue
        x = res["sklearnex"]
        differ = int(np.sum(x["pred"] != k["pred"]))
        rel = abs(k["objective"] - x["objective"]) / abs(x["objective"])
        print("| %s | %s | %.3f / %.3f | %.3f / %.3f | %.2f× | %.2f× | %d | %.1e |" % (
            name, shape, x["fit_s"], x["predict_s"], k["fit_s"], k["predict_s"],
            x["fit_s"] / k["fit_s"], x["predict_s"] / k["predict_s"], differ, rel), flush=True)
    if args.grid and "sklearnex" in dict(tools):
        grid_search(args.repeats)


if __name__ == "__main__":
    main()
