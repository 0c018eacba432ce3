#!/usr/bin/env python3
"""Grid-search benchmark: `kernlearn select` against scikit-learn's GridSearchCV (over scikit-learn's SVC and scikit-learn-intelex's).

Run from anywhere (paths are resolved relative to the repository root, the
parent of this script's directory):

    python3 scripts/bench_select.py                                  # print the tables
    python3 scripts/bench_select.py --write-md docs/BENCHMARKS.md    # also update the docs
    python3 scripts/bench_select.py --datasets-list heart,pima --json /tmp/select.json
    python3 scripts/bench_select.py --datasets-list heart --tools sklearn,sklearnex --wait-idle 0 --retries 0

Requirements: numpy, scikit-learn, and an already built kernlearn binary
(target/release/kernlearn; this script never builds it); optionally
scikit-learn-intelex (`sklearnex.svm.SVC`, Intel oneDAL), probed with a toy fit in a
child process first (as bench_svm.py does) and reported as skipped with the reason
when it does not import or fit here; `--tools` picks the references (default both).

The claim checked: kernlearn's grid search is at least 10x faster than
GridSearchCV(n_jobs=2) and picks the same (C, gamma) or a point with an equal
cross-validation score.  `--grid-target` runs magic's 5,000-row sample alone
(4,000 training rows searched, 1,000 held out) and checks the stronger target,
at least 50x faster with the same held-out accuracy:

    python3 scripts/bench_select.py --grid-target --write-md docs/BENCHMARKS.md

Protocol
--------
* Data: <repo>/../shared/datasets/<name>.csv (override with --datasets DIR),
  the same files and loader as scripts/bench_svm.py.  heart, pima and wdbc are
  used whole; magic is first reduced to a stratified sample of --magic-rows
  (default 5000) rows: with numpy.random.default_rng(0), for each class in
  increasing label order, the row indices of that class are permuted and the
  first round(n * n_class / N) (half rounded up; the largest class absorbs any
  rounding remainder) are kept; the sample keeps the original row order.
* Split, scaling, files: exactly as bench_svm.py -- stratified 80/20 with a
  fresh numpy.random.default_rng(0), min-max scaling to [0, 1] with the train
  min/max, train/test written once as LIBSVM text (repr(float), zeros omitted).
* Grid: sigma in {2^-5, ..., 2^5} (Gaussian exp(-|x-x'|^2 / sigma^2), i.e.
  gamma = 1/sigma^2), C in {2^-5, ..., 2^5}: 121 points, handed explicitly to
  both tools (powers of two, so gamma = 1/sigma^2 is exact).
* kernlearn: `kernlearn select --data TRAIN --scale none --sigmas ... --cs ...
  --folds 5 --seed 0 --json --quiet`; the process is wall-clocked and its own
  `select_seconds` (grid search only) and `refit_seconds` are recorded.  Its
  JSON lists the test rows of each of its 5 stratified folds.
* scikit-learn: GridSearchCV(SVC(kernel="rbf", tol=1e-3, cache_size=200),
  param_grid={"C": Cs ascending, "gamma": 1/sigma^2 ascending (= sigma
  descending)}, cv=<kernlearn's folds as (train_idx, test_idx) pairs>,
  scoring="accuracy", n_jobs=2, refit=True) on the dense arrays read back from
  the same train file.  `.fit()` is timed (it includes the refit); search time
  = fit time - refit_time_.  Before each timed fit a tiny GridSearchCV starts
  joblib's worker pool, so pool start-up is not charged to sklearn.
* scikit-learn-intelex: the same GridSearchCV (grid, folds, n_jobs=2, refit,
  timing, warm-up with its own SVC) around `sklearnex.svm.SVC(kernel="rbf",
  tol=1e-3, cache_size=200)`; its n_jobs is left unset, so inside each joblib
  worker oneDAL takes the thread limit joblib sets (cpus // n_jobs).  sklearnex's
  log of the main process (the refit and the test predictions) is read; a call
  that fell back to scikit-learn's own SVC makes the tool fail for that dataset.
* Tie-breaking: kernlearn sends ties to the smaller C, then the wider sigma.
  sklearn's ParameterGrid iterates the keys sorted ('C' outer, 'gamma' inner)
  and best_index_ is the first point of best rank in that order; giving C
  ascending and gamma ascending (sigma descending) makes its ties go to the
  smaller C, then the wider sigma too.
* Comparison: same (C, gamma)?  If not, kernlearn's CV score at sklearn's
  choice against kernlearn's best, and sklearn's cv_results_ score at
  kernlearn's choice against sklearn's best (scores equal within 1e-9; two
  different fold-count vectors differ by far more).  Test accuracy of each
  refit model on the test file (kernlearn: `kernlearn evaluate --data TRAIN
  --test TEST --scale none --gamma G -c C --json` with its selected values;
  sklearn: best_estimator_.predict).  kernlearn's refit labels (`kernlearn fit`
  with the selected values, then `predict -o`, untimed) are compared with each
  reference's best_estimator_.predict: the number of test rows that differ.  Speed ratios sklearn / kernlearn: search
  only (fit - refit_time_ vs select_seconds) and whole (fit vs the wall clock
  of the kernlearn process, which also reads the file and refits).
* Timing: median of --repeats (default 1) runs, strictly sequential;
  kernlearn uses rayon's default thread count unless --kernlearn-threads.
  The machine may be shared (builds, tests): before each tool's timed phase
  the script waits (up to --wait-idle s) until other processes use less than
  --max-other-load (5 %) of the CPUs, measures what other processes used
  during the phase (/proc/stat busy time minus this script's and its
  children's) and reruns the phase (up to --retries times) when that share
  was above the threshold.  The share of the kept runs is reported.
"""

import argparse
import contextlib
import dataclasses
import datetime
import glob
import hashlib
import json
import os
import platform
import shlex
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from typing import Optional

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_svm import (  # noqa: E402  (sibling benchmark: shared data protocol and helpers)
    OneDalDispatch,
    parse_list,
    sklearnex_unavailable,
    sklearnex_version,
    run_json,
    write_markdown,
    DEFAULT_DATASETS_DIR,
    KERNLEARN_BIN,
    REPO_ROOT,
    SEED,
    accuracy_fraction,
    kernlearn_version,
    load_csv,
    machine_info,
    median,
    minmax_fit_transform,
    stratified_split,
    write_libsvm,
)

ALL_DATASETS = ["heart", "pima", "wdbc", "magic"]
REFERENCES = ["sklearn", "sklearnex"]  # GridSearchCV over scikit-learn's SVC / scikit-learn-intelex's
REF_TITLES = {"sklearn": "sklearn", "sklearnex": "sklearnex"}
SAMPLED = {"magic"}  # datasets reduced to a stratified sample of --magic-rows rows
MAGIC_ROWS = 5000

SIGMAS = [2.0 ** k for k in range(-5, 6)]
CS = [2.0 ** k for k in range(-5, 6)]
FOLDS = 5
TOL = 1e-3
CACHE_MB = 200
N_JOBS = 2
SCORE_TOL = 1e-9  # CV scores closer than this are "equal" (see the docstring)
CLAIM_RATIO = 10.0

MD_BEGIN = "<!-- bench_select:begin -->"
MD_END = "<!-- bench_select:end -->"
REPRODUCE = "python3 scripts/bench_select.py --write-md docs/BENCHMARKS.md"
# --grid-target: the grid-search speed target, magic's sample only, checked at 50x.
TARGET_CLAIM_RATIO = 50.0
MD_TARGET_BEGIN = "<!-- bench_select_target:begin -->"
MD_TARGET_END = "<!-- bench_select_target:end -->"
REPRODUCE_TARGET = "python3 scripts/bench_select.py --grid-target --write-md docs/BENCHMARKS.md"


# ----------------------------------------------------------------------------
# results
# ----------------------------------------------------------------------------


@dataclass
class Pick:
    sigma: float
    gamma: float
    C: float
    cv_score: float  # the tool's own mean fold accuracy at this point


@dataclass
class KernlearnResult:
    ok: bool = False
    error: Optional[str] = None
    command: str = ""
    wall_seconds: Optional[float] = None  # median wall clock of the select process
    wall_seconds_runs: list = field(default_factory=list)
    select_seconds: Optional[float] = None  # median of its own select_seconds
    select_seconds_runs: list = field(default_factory=list)
    refit_seconds: Optional[float] = None
    refit_seconds_runs: list = field(default_factory=list)
    deterministic: Optional[bool] = None  # same pick and grid scores in every repeat
    pick: Optional[Pick] = None
    n_tied: Optional[int] = None
    tie_rule: Optional[str] = None
    used_gram: Optional[bool] = None
    fold_sizes: list = field(default_factory=list)
    grid: list = field(default_factory=list)  # [{sigma, c, score}]
    test_accuracy: Optional[float] = None
    n_test: Optional[int] = None
    n_correct: Optional[int] = None
    evaluate_command: str = ""
    labels_file: Optional[str] = None  # test labels of the refit model (`kernlearn predict -o`)


@dataclass
class SklearnResult:
    ok: bool = False
    error: Optional[str] = None
    estimator: str = ""
    fit_seconds: Optional[float] = None  # median of GridSearchCV.fit (search + refit)
    fit_seconds_runs: list = field(default_factory=list)
    refit_seconds: Optional[float] = None  # median refit_time_
    refit_seconds_runs: list = field(default_factory=list)
    search_seconds: Optional[float] = None  # median of fit - refit_time_
    search_seconds_runs: list = field(default_factory=list)
    deterministic: Optional[bool] = None
    pick: Optional[Pick] = None
    n_tied: Optional[int] = None  # grid points with the best mean score
    grid: list = field(default_factory=list)  # [{sigma, C, gamma, score, std, split_scores}] in sklearn's order
    test_accuracy: Optional[float] = None
    n_test: Optional[int] = None
    n_correct: Optional[int] = None
    labels_vs_kernlearn: Optional[int] = None  # test rows where best_estimator_ disagrees with kernlearn's refit
    onedal_fallbacks: list = field(default_factory=list)  # sklearnex only: calls that ran scikit-learn's code


@dataclass
class Comparison:
    same: Optional[bool] = None
    kl_score_at_sk_pick: Optional[float] = None  # kernlearn's CV score at sklearn's (C, gamma)
    kl_best: Optional[float] = None
    kl_tie: Optional[bool] = None  # kl_score_at_sk_pick == kl_best
    sk_score_at_kl_pick: Optional[float] = None  # sklearn's mean_test_score at kernlearn's (C, gamma)
    sk_best: Optional[float] = None
    sk_tie: Optional[bool] = None
    grid_points: int = 0
    grid_equal: Optional[int] = None  # points where both tools' CV scores agree within SCORE_TOL
    grid_max_abs_diff: Optional[float] = None
    ratio_search: Optional[float] = None  # sklearn search / kernlearn select_seconds
    ratio_whole: Optional[float] = None  # sklearn fit / kernlearn process wall clock
    claim_speed: Optional[bool] = None
    claim_selection: Optional[bool] = None


@dataclass
class DatasetResult:
    name: str
    n_rows: int  # rows used (after sampling)
    n_rows_file: int
    n_train: int
    n_test: int
    d: int
    train_file: str
    test_file: str
    kernlearn: KernlearnResult = field(default_factory=KernlearnResult)
    sklearn: SklearnResult = field(default_factory=SklearnResult)
    comparison: Comparison = field(default_factory=Comparison)
    sklearnex: SklearnResult = field(default_factory=SklearnResult)  # GridSearchCV over sklearnex's SVC
    comparison_sklearnex: Comparison = field(default_factory=Comparison)
    load_before: Optional[list] = None  # os.getloadavg() before the dataset's runs
    cpu_kernlearn: Optional[dict] = None  # CpuMonitor over the kept kernlearn phase (+ wait, attempts)
    cpu_sklearn: Optional[dict] = None
    cpu_sklearnex: Optional[dict] = None

    def reference(self, tool):
        """(result, comparison) of a reference: "sklearn" or "sklearnex"."""
        if tool == "sklearnex":
            return self.sklearnex, self.comparison_sklearnex
        return self.sklearn, self.comparison


@dataclass
class Split:
    name: str
    n_rows_file: int
    Xtr: np.ndarray
    ytr: np.ndarray
    Xte: np.ndarray
    yte: np.ndarray
    train_file: str
    test_file: str


# ----------------------------------------------------------------------------
# data
# ----------------------------------------------------------------------------


def stratified_sample(y, n, seed=SEED):
    """Sorted indices of a stratified sample of n rows (see the module docstring)."""
    if n >= len(y):
        return np.arange(len(y))
    rng = np.random.default_rng(seed)
    labels = np.unique(y)
    counts = np.array([np.sum(y == label) for label in labels])
    quotas = np.floor(n * counts / len(y) + 0.5).astype(int)
    quotas[np.argmax(counts)] += n - quotas.sum()
    keep = []
    for label, q in zip(labels, quotas):
        keep.extend(rng.permutation(np.flatnonzero(y == label))[:q].tolist())
    return np.sort(np.array(keep, dtype=int))


def prepare_split(name, datasets_dir, workdir, magic_rows):
    X, y = load_csv(os.path.join(datasets_dir, name + ".csv"))
    n_file = len(y)
    if name in SAMPLED:
        keep = stratified_sample(y, magic_rows)
        X, y = X[keep], y[keep]
    tr, te = stratified_split(y)
    Xtr, Xte = minmax_fit_transform(X[tr], X[te])
    train_file = os.path.join(workdir, name + ".train.libsvm")
    test_file = os.path.join(workdir, name + ".test.libsvm")
    write_libsvm(train_file, Xtr, y[tr])
    write_libsvm(test_file, Xte, y[te])
    return Split(name, n_file, Xtr, y[tr], Xte, y[te], train_file, test_file)


# ----------------------------------------------------------------------------
# kernlearn
# ----------------------------------------------------------------------------


def grid_arg(values):
    return ",".join(repr(float(v)) for v in values)


def kernlearn_env(threads):
    env = dict(os.environ)
    if threads is not None:
        env["RAYON_NUM_THREADS"] = str(threads)
    return env


def key(sigma, c):
    """Grid-point key; all grid values are powers of two, so exact floats match."""
    return (float(sigma), float(c))


def run_kernlearn(split, args):
    res = KernlearnResult()
    env = kernlearn_env(args.kernlearn_threads)
    cmd = [args.kernlearn_bin, "select", "--data", split.train_file, "--scale", "none",
           "--sigmas", grid_arg(SIGMAS), "--cs", grid_arg(CS), "--folds", str(FOLDS), "--seed", str(SEED),
           "--tol", repr(TOL), "--cache-mb", str(CACHE_MB), "--json", "--quiet"]
    res.command = " ".join(cmd)
    outputs = []
    for _ in range(args.repeats):
        out, secs, error = run_json(cmd, env)
        if error:
            return fail(res, "kernlearn", error), None
        outputs.append(out)
        res.wall_seconds_runs.append(secs)
        res.select_seconds_runs.append(float(out["select_seconds"]))
        res.refit_seconds_runs.append(float(out["refit_seconds"]))
    out = outputs[0]
    res.wall_seconds = median(res.wall_seconds_runs)
    res.select_seconds = median(res.select_seconds_runs)
    res.refit_seconds = median(res.refit_seconds_runs)
    sel = out["selected"]
    res.pick = Pick(float(sel["sigma"]), float(sel["rbf_gamma"]), float(sel["c"]), float(sel["cv_score"]))
    res.n_tied, res.tie_rule, res.used_gram = out.get("n_tied"), out.get("tie_rule"), out.get("used_gram")
    res.grid = [{"sigma": float(g["sigma"]), "c": float(g["c"]), "score": float(g["score"])} for g in out["grid"]]
    res.deterministic = all(o["selected"] == out["selected"] and o["grid"] == out["grid"] and o["folds"] == out["folds"]
                            for o in outputs)
    if out.get("cv_metric") != "accuracy":
        return fail(res, "kernlearn", "cv_metric is %r, expected 'accuracy'" % out.get("cv_metric")), None
    if len(res.grid) != len(SIGMAS) * len(CS):
        return fail(res, "kernlearn", "grid has %d points, expected %d" % (len(res.grid), len(SIGMAS) * len(CS))), None
    folds = [np.asarray(f, dtype=int) for f in out["folds"]]
    res.fold_sizes = [len(f) for f in folds]
    n = len(split.ytr)
    if len(folds) != FOLDS or not np.array_equal(np.sort(np.concatenate(folds)), np.arange(n)):
        return fail(res, "kernlearn", "the %d folds do not partition the %d training rows" % (len(folds), n)), None
    if int(out["n_train"]) != n:
        return fail(res, "kernlearn", "n_train = %s, expected %d" % (out["n_train"], n)), None

    # test accuracy of the refit model: evaluate with the selected values
    ecmd = [args.kernlearn_bin, "evaluate", "--data", split.train_file, "--test", split.test_file, "--scale", "none",
            "--gamma", repr(res.pick.gamma), "-c", repr(res.pick.C), "--tol", repr(TOL),
            "--cache-mb", str(CACHE_MB), "--json", "--quiet"]
    res.evaluate_command = " ".join(ecmd)
    ev, _, error = run_json(ecmd, env)
    if error:
        return fail(res, "kernlearn", error), None
    res.n_test = int(ev.get("n_test", len(split.yte)))
    res.test_accuracy = accuracy_fraction(float(ev["test_accuracy"]))
    res.n_correct = int(round(res.test_accuracy * res.n_test))
    res.labels_file = refit_labels(split, res.pick, args, env)
    res.ok = True
    return res, folds


def refit_labels(split, pick, args, env):
    """The refit model's test labels, for the references' label check (untimed): `kernlearn fit`
    with the selected values, then `predict -o`. Returns the CSV's path, or None with a warning."""
    work = os.path.dirname(split.train_file)
    model, labels = os.path.join(work, split.name + ".select.model.json"), os.path.join(work, split.name + ".select.pred.csv")
    fcmd = [args.kernlearn_bin, "fit", "--data", split.train_file, "--scale", "none", "--method", "svc",
            "--kernel", "rbf", "--gamma", repr(pick.gamma), "-c", repr(pick.C), "--tol", repr(TOL),
            "--cache-mb", str(CACHE_MB), "--model-out", model, "--no-train-score", "--force", "--json", "--quiet"]
    pcmd = [args.kernlearn_bin, "predict", "--model", model, "--data", split.test_file, "-o", labels, "--force",
            "--json", "--quiet"]
    for cmd in (fcmd, pcmd):
        _, _, error = run_json(cmd, env)
        if error:
            print("  [kernlearn] WARNING: no refit labels (%s)" % error.splitlines()[0], file=sys.stderr)
            return None
    return labels


# ----------------------------------------------------------------------------
# scikit-learn
# ----------------------------------------------------------------------------


def svc_class(tool):
    if tool == "sklearnex":
        from sklearnex.svm import SVC
    else:
        from sklearn.svm import SVC
    return SVC


def warm_up_pool(tool="sklearn"):
    """Start joblib's worker pool (loky) so that its start-up (and the workers' imports of the
    tool's SVC) is not timed."""
    from sklearn.model_selection import GridSearchCV

    SVC = svc_class(tool)
    rng = np.random.default_rng(1)
    X = rng.random((40, 2))
    y = np.where(X[:, 0] > 0.5, 1.0, -1.0)
    GridSearchCV(SVC(kernel="rbf"), {"C": [1.0, 2.0]}, cv=2, n_jobs=N_JOBS).fit(X, y)


def make_search(cv, tool="sklearn"):
    from sklearn.model_selection import GridSearchCV

    SVC = svc_class(tool) if cv is not None else None
    gammas = [1.0 / s ** 2 for s in sorted(SIGMAS, reverse=True)]  # ascending gamma = descending sigma
    param_grid = {"C": sorted(CS), "gamma": gammas}
    search = None
    if SVC is not None:
        est = SVC(kernel="rbf", tol=TOL, cache_size=CACHE_MB)
        search = GridSearchCV(est, param_grid=param_grid, cv=cv, scoring="accuracy", n_jobs=N_JOBS, refit=True)
    desc = ('GridSearchCV(%sSVC(kernel="rbf", tol=%r, cache_size=%d), param_grid={"C": [%s], "gamma": [%s]}, '
            'cv=<kernlearn folds>, scoring="accuracy", n_jobs=%d, refit=True)'
            % ("sklearnex.svm." if tool == "sklearnex" else "", TOL, CACHE_MB,
               ", ".join("%g" % c for c in param_grid["C"]), ", ".join(repr(g) for g in gammas), N_JOBS))
    return search, desc


def run_sklearn(split, folds, args, tool="sklearn", kernlearn_labels=None):
    """GridSearchCV over scikit-learn's SVC, or with tool="sklearnex" over scikit-learn-intelex's."""
    from sklearn.datasets import load_svmlight_file

    res = SklearnResult()
    d = split.Xtr.shape[1]
    Xtr, ytr = load_svmlight_file(split.train_file, n_features=d)
    Xte, yte = load_svmlight_file(split.test_file, n_features=d)
    Xtr, Xte = Xtr.toarray(), Xte.toarray()
    if not (np.array_equal(Xtr, split.Xtr) and np.array_equal(Xte, split.Xte)
            and np.array_equal(ytr, split.ytr) and np.array_equal(yte, split.yte)):
        return fail(res, tool, "load_svmlight_file did not read back the written values exactly")
    everything = np.arange(len(ytr))
    cv = [(np.setdiff1d(everything, f), np.sort(f)) for f in folds]
    picks, searches = [], []
    dispatch = OneDalDispatch() if tool == "sklearnex" else contextlib.nullcontext()
    for _ in range(args.repeats):
        search, res.estimator = make_search(cv, tool)
        if not args.no_warmup:
            warm_up_pool(tool)
        with dispatch:  # sklearnex: its log of the refit (the CV fits run in joblib's workers)
            t0 = time.perf_counter()
            search.fit(Xtr, ytr)
            secs = time.perf_counter() - t0
        res.fit_seconds_runs.append(secs)
        res.refit_seconds_runs.append(float(search.refit_time_))
        res.search_seconds_runs.append(secs - float(search.refit_time_))
        picks.append(int(search.best_index_))
        searches.append(search)
    search = searches[0]
    cvr = search.cv_results_
    res.deterministic = all(p == picks[0] for p in picks) and all(
        np.array_equal(s.cv_results_["mean_test_score"], cvr["mean_test_score"]) for s in searches)
    res.fit_seconds = median(res.fit_seconds_runs)
    res.refit_seconds = median(res.refit_seconds_runs)
    res.search_seconds = median(res.search_seconds_runs)
    means = np.asarray(cvr["mean_test_score"], dtype=float)
    for i, params in enumerate(cvr["params"]):
        gamma, c = float(params["gamma"]), float(params["C"])
        res.grid.append({"sigma": float(1.0 / np.sqrt(gamma)), "C": c, "gamma": gamma, "score": float(means[i]),
                         "std": float(cvr["std_test_score"][i]),
                         "split_scores": [float(cvr["split%d_test_score" % k][i]) for k in range(len(folds))]})
    b = int(search.best_index_)
    best = res.grid[b]
    res.pick = Pick(best["sigma"], best["gamma"], best["C"], best["score"])
    res.n_tied = int(np.sum(means == means[b]))
    with dispatch:
        pred = search.best_estimator_.predict(Xte)
    res.n_test = len(yte)
    res.n_correct = int(np.sum(pred == yte))
    res.test_accuracy = res.n_correct / res.n_test
    if kernlearn_labels is not None:
        ref = np.loadtxt(kernlearn_labels, delimiter=",", skiprows=1, usecols=0, ndmin=1)
        if len(ref) == len(pred):
            res.labels_vs_kernlearn = int(np.sum(ref != pred))
    if tool == "sklearnex":
        res.onedal_fallbacks = dispatch.fallbacks
        if res.onedal_fallbacks:  # the numbers would be scikit-learn's, not oneDAL's
            return fail(res, tool, "sklearnex fell back to scikit-learn: " + "; ".join(res.onedal_fallbacks))
    res.ok = True
    return res


# ----------------------------------------------------------------------------
# comparison
# ----------------------------------------------------------------------------


def equal_score(a, b):
    return a is not None and b is not None and abs(a - b) <= SCORE_TOL


def ratio(num, den):
    return num / den if num is not None and den else None


def compare(ds, tool="sklearn"):
    kl = ds.kernlearn
    sk, cmp = ds.reference(tool)
    if not (kl.ok and sk.ok):
        return cmp
    kl_scores = {key(g["sigma"], g["c"]): g["score"] for g in kl.grid}
    sk_scores = {key(g["sigma"], g["C"]): g["score"] for g in sk.grid}
    if set(kl_scores) != set(sk_scores):
        print("WARNING: %s: the two grids differ" % ds.name, file=sys.stderr)
    kl_key, sk_key = key(kl.pick.sigma, kl.pick.C), key(sk.pick.sigma, sk.pick.C)
    cmp.same = kl_key == sk_key
    cmp.kl_best = max(kl_scores.values())
    cmp.sk_best = max(sk_scores.values())
    cmp.kl_score_at_sk_pick = kl_scores.get(sk_key)
    cmp.sk_score_at_kl_pick = sk_scores.get(kl_key)
    cmp.kl_tie = equal_score(cmp.kl_score_at_sk_pick, cmp.kl_best)
    cmp.sk_tie = equal_score(cmp.sk_score_at_kl_pick, cmp.sk_best)
    common = [k for k in kl_scores if k in sk_scores]
    diffs = [abs(kl_scores[k] - sk_scores[k]) for k in common]
    cmp.grid_points = len(common)
    cmp.grid_equal = sum(dv <= SCORE_TOL for dv in diffs)
    cmp.grid_max_abs_diff = max(diffs) if diffs else None
    cmp.ratio_search = ratio(sk.search_seconds, kl.select_seconds)
    cmp.ratio_whole = ratio(sk.fit_seconds, kl.wall_seconds)
    cmp.claim_speed = cmp.ratio_search is not None and cmp.ratio_search >= CLAIM_RATIO
    cmp.claim_selection = bool(cmp.same or cmp.kl_tie or cmp.sk_tie)
    return cmp


# ----------------------------------------------------------------------------
# environment
# ----------------------------------------------------------------------------


def fail(result, tool, message):
    result.ok = False
    result.error = message
    print("  [%s] FAILED: %s" % (tool, message), file=sys.stderr)
    return result


def file_sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def binary_info(binary):
    """Identity of the kernlearn binary, and whether sources are newer than it."""
    st = os.stat(binary)
    info = {"path": os.path.relpath(binary, REPO_ROOT), "sha256": file_sha256(binary)[:16],
            "mtime": datetime.datetime.fromtimestamp(st.st_mtime).astimezone().strftime("%Y-%m-%d %H:%M:%S %Z")}
    newer = []
    for path in glob.glob(os.path.join(REPO_ROOT, "crates", "**", "*.rs"), recursive=True) + \
            glob.glob(os.path.join(REPO_ROOT, "crates", "**", "Cargo.toml"), recursive=True):
        if os.stat(path).st_mtime > st.st_mtime:
            newer.append(os.path.relpath(path, REPO_ROOT))
    info["sources_newer_than_binary"] = sorted(newer)
    try:
        git = lambda *a: subprocess.run(["git", "-C", REPO_ROOT] + list(a), stdout=subprocess.PIPE,
                                        stderr=subprocess.DEVNULL, text=True).stdout.strip()
        info["git_head"] = git("rev-parse", "--short", "HEAD") or None
        dirty = git("status", "--porcelain", "--", "crates")
        info["git_crates_dirty"] = bool(dirty)
    except OSError:
        info["git_head"], info["git_crates_dirty"] = None, None
    return info


class CpuMonitor:
    """CPU seconds used on the machine by processes other than this script and its children.

    foreign = (busy time in /proc/stat) - (this process + reaped children, from
    os.times()) - (live descendants such as joblib's workers, from
    /proc/<pid>/stat).  A few hundredths of a second per dataset are kernel
    noise; more means something else (a build, ...) competed for the 2 cores
    and the timings of that dataset are suspect.
    """

    def __init__(self):
        self.available = os.path.exists("/proc/stat")
        self.tick = os.sysconf("SC_CLK_TCK") if self.available else 100

    def _busy(self):
        with open("/proc/stat") as f:
            v = [int(x) for x in f.readline().split()[1:]]
        idle = v[3] + (v[4] if len(v) > 4 else 0)  # idle + iowait
        return (sum(v[:8]) - idle) / self.tick  # user nice system idle iowait irq softirq steal

    def _descendants(self):
        me, parent, ticks = os.getpid(), {}, {}
        for d in os.listdir("/proc"):
            if not d.isdigit():
                continue
            try:
                with open("/proc/%s/stat" % d) as f:
                    rest = f.read().rsplit(")", 1)[1].split()
            except (OSError, IndexError):
                continue
            pid = int(d)
            parent[pid] = int(rest[1])
            ticks[(pid, rest[19])] = (int(rest[11]) + int(rest[12])) / self.tick  # key: (pid, starttime)
        out = {}
        for (pid, start), t in ticks.items():
            p, seen = parent.get(pid), 0
            while p and p != me and seen < 64:
                p, seen = parent.get(p), seen + 1
            if p == me and pid != me:
                out[(pid, start)] = t
        return out

    def _own(self):
        t = os.times()
        return t.user + t.system + t.children_user + t.children_system

    def start(self):
        if self.available:
            self.t0 = (time.perf_counter(), self._busy(), self._own(), self._descendants())
        return self

    def stop(self):
        if not self.available:
            return None
        wall0, busy0, own0, desc0 = self.t0
        wall, busy, own, desc = time.perf_counter(), self._busy(), self._own(), self._descendants()
        kids = sum(t - desc0.get(k, 0.0) for k, t in desc.items())
        total, mine = busy - busy0, (own - own0) + kids
        return {"wall_seconds": wall - wall0, "busy_cpu_seconds": total, "own_cpu_seconds": mine,
                "foreign_cpu_seconds": max(0.0, total - mine)}



def other_load(seconds=2.0):
    """Fraction of the machine's CPUs used by other processes over `seconds` (this script is idle meanwhile)."""
    mon = CpuMonitor()
    if not mon.available:
        return 0.0
    mon.start()
    time.sleep(seconds)
    r = mon.stop()
    return r["foreign_cpu_seconds"] / (r["wall_seconds"] * (os.cpu_count() or 1))


def wait_idle(max_wait, threshold):
    """Wait (at most max_wait s) until other processes use < threshold of the machine; returns seconds waited."""
    t0 = time.perf_counter()
    announced = False
    while True:
        load = other_load()
        waited = time.perf_counter() - t0
        if load < threshold:
            return waited, load
        if waited >= max_wait:
            print("  WARNING: machine still busy (%.0f %% used by other processes) after waiting %.0f s; "
                  "running anyway" % (100 * load, waited), file=sys.stderr)
            return waited, load
        if not announced:
            print("  waiting for the machine to be idle (%.0f %% used by other processes)" % (100 * load),
                  file=sys.stderr)
            announced = True
        time.sleep(3.0)


def measured_phase(tool, fn, args):
    """Run one tool's timed phase on an idle machine, rerunning it (up to --retries times) when
    other processes used more than --max-other-load of the CPUs meanwhile; returns (result, cpu_info)."""
    attempts = []
    while True:
        waited, load_before = wait_idle(args.wait_idle, args.max_other_load)
        mon = CpuMonitor().start()
        try:
            result = fn()
        except Exception as e:  # keep going with the other datasets
            empty = KernlearnResult() if tool == "kernlearn" else SklearnResult()
            fail(empty, tool, "%s: %s" % (type(e).__name__, e))
            result = (empty, None) if tool == "kernlearn" else empty
        cpu = mon.stop() or {}
        share = (cpu["foreign_cpu_seconds"] / (cpu["wall_seconds"] * (os.cpu_count() or 1))) if cpu else None
        cpu.update({"other_load": share, "waited_seconds": waited, "other_load_before": load_before})
        attempts.append(cpu)
        if share is not None:
            print("  [%s] other processes used %.1f %% of the CPUs (%.2f CPU s over %.1f s)" % (
                tool, 100 * share, cpu["foreign_cpu_seconds"], cpu["wall_seconds"]), file=sys.stderr)
        if share is None or share <= args.max_other_load or len(attempts) > args.retries:
            break
        print("  [%s] rerunning: the machine was not idle" % tool, file=sys.stderr)
    info = dict(attempts[-1])
    info["attempts"] = len(attempts)
    info["other_load_attempts"] = [a.get("other_load") for a in attempts]
    return result, info


def versions(binary, refs=("sklearn",)):
    import sklearn
    import joblib

    out = {"python": platform.python_version(), "numpy": np.__version__, "scikit-learn": sklearn.__version__}
    if "sklearnex" in refs:
        out["scikit-learn-intelex"] = sklearnex_version()
    out.update({"joblib": joblib.__version__,
                "kernlearn": kernlearn_version(binary) or "unknown (`kernlearn --version` failed)"})
    return out


# ----------------------------------------------------------------------------
# report
# ----------------------------------------------------------------------------


def fmt(v, spec):
    return "–" if v is None else spec % v


def fmt_seconds(v):
    if v is None:
        return "–"
    return "%.3f" % v if v < 10.0 else "%.1f" % v


def fmt_pow2(v):
    """2^k for the grid's powers of two, else %g."""
    if v is None:
        return "–"
    k = np.log2(v)
    return "2^%d" % int(round(k)) if abs(k - round(k)) < 1e-12 else "%g" % v


def fmt_pick(p):
    return "–" if p is None else "%s / %s" % (fmt_pow2(p.sigma), fmt_pow2(p.C))


def fmt_acc(v):
    return "–" if v is None else "%.2f" % (100.0 * v)


def fmt_score(v):
    return "–" if v is None else "%.6f" % v


def fmt_share(cpu):
    if not cpu or cpu.get("other_load") is None:
        return "–"
    text = "%.1f %%" % (100 * cpu["other_load"])
    if cpu.get("attempts", 1) > 1:
        text += " (attempt %d)" % cpu["attempts"]
    return text


def yes_no(v):
    return "–" if v is None else ("yes" if v else "no")


def verdict(cmp, tool="sklearn"):
    if cmp.same is None:
        return "–"
    if cmp.same:
        return "same"
    return "no; equal score: kernlearn CV %s, %s CV %s" % (yes_no(cmp.kl_tie), REF_TITLES[tool], yes_no(cmp.sk_tie))


def table(rows):
    return "\n".join("| " + " | ".join(r) + " |" for r in rows)


def reference_rows(datasets, refs):
    """(dataset, tool, kernlearn result, reference result, comparison) for every reference run."""
    for ds in datasets:
        for tool in refs:
            sk, cmp = ds.reference(tool)
            yield ds, tool, ds.kernlearn, sk, cmp


def main_table(datasets, refs=("sklearn",)):
    head = ["dataset", "n_train", "reference", "kernlearn σ / C", "reference σ / C", "same? / equal score?",
            "kernlearn CV acc %", "reference CV acc %", "kernlearn test acc %", "reference test acc %",
            "kernlearn select s", "reference search s", "reference / kernlearn"]
    rows = [head, ["---", "---:", "---", "---:", "---:", "---"] + ["---:"] * (len(head) - 6)]
    for ds, tool, kl, sk, cmp in reference_rows(datasets, refs):
        rows.append([ds.name, str(ds.n_train), REF_TITLES[tool], fmt_pick(kl.pick if kl.ok else None),
                     fmt_pick(sk.pick if sk.ok else None), verdict(cmp, tool),
                     fmt_acc(kl.pick.cv_score if kl.ok else None), fmt_acc(sk.pick.cv_score if sk.ok else None),
                     fmt_acc(kl.test_accuracy), fmt_acc(sk.test_accuracy),
                     fmt_seconds(kl.select_seconds), fmt_seconds(sk.search_seconds),
                     fmt(cmp.ratio_search, "%.1f×")])
    return table(rows)


def timing_table(datasets, refs=("sklearn",)):
    head = ["dataset", "reference", "kernlearn select s", "kernlearn refit s", "kernlearn process s",
            "reference fit s", "reference refit_time_ s", "reference search s", "search ratio", "whole ratio",
            "≥ %g× (search)?" % CLAIM_RATIO]
    rows = [head, ["---", "---"] + ["---:"] * (len(head) - 2)]
    for ds, tool, kl, sk, cmp in reference_rows(datasets, refs):
        rows.append([ds.name, REF_TITLES[tool], fmt_seconds(kl.select_seconds), fmt(kl.refit_seconds, "%.4f"),
                     fmt_seconds(kl.wall_seconds), fmt_seconds(sk.fit_seconds), fmt(sk.refit_seconds, "%.4f"),
                     fmt_seconds(sk.search_seconds), fmt(cmp.ratio_search, "%.1f×"),
                     fmt(cmp.ratio_whole, "%.1f×"), yes_no(cmp.claim_speed)])
    return table(rows)


def agreement_table(datasets, refs=("sklearn",)):
    head = ["dataset", "reference", "kernlearn best", "kernlearn at reference's pick", "reference best",
            "reference at kernlearn's pick", "kernlearn ties", "reference ties", "grid points with equal CV score",
            "max abs Δ CV score", "kernlearn test", "reference test", "test labels ≠ kernlearn"]
    rows = [head, ["---", "---"] + ["---:"] * (len(head) - 2)]
    for ds, tool, kl, sk, cmp in reference_rows(datasets, refs):
        rows.append([ds.name, REF_TITLES[tool], fmt_score(cmp.kl_best), fmt_score(cmp.kl_score_at_sk_pick),
                     fmt_score(cmp.sk_best), fmt_score(cmp.sk_score_at_kl_pick),
                     fmt(kl.n_tied, "%d"), fmt(sk.n_tied, "%d"),
                     "–" if cmp.grid_equal is None else "%d / %d" % (cmp.grid_equal, cmp.grid_points),
                     fmt(cmp.grid_max_abs_diff, "%.2g"),
                     "–" if kl.n_correct is None else "%d / %d" % (kl.n_correct, kl.n_test),
                     "–" if sk.n_correct is None else "%d / %d" % (sk.n_correct, sk.n_test),
                     fmt(sk.labels_vs_kernlearn, "%d")])
    return table(rows)


def claim_lines(datasets, tool="sklearn"):
    lines = []
    name = REF_TITLES[tool]
    for ds in datasets:
        kl = ds.kernlearn
        sk, cmp = ds.reference(tool)
        if not (kl.ok and sk.ok):
            lines.append("- %s: not compared (a tool failed)" % ds.name)
            continue
        speed = "%.1f× faster (search only; whole process %.1f×)" % (cmp.ratio_search, cmp.ratio_whole)
        if not cmp.claim_speed:
            speed += " — **below %g×**" % CLAIM_RATIO
        if cmp.same:
            sel = "same (σ, C)"
        else:
            sel = ("**different (σ, C)**: kernlearn's CV score at %s's pick %s vs its best %s (%s); "
                   "%s's score at kernlearn's pick %s vs its best %s (%s)"
                   % (name, fmt_score(cmp.kl_score_at_sk_pick), fmt_score(cmp.kl_best),
                      "equal" if cmp.kl_tie else "not equal", name,
                      fmt_score(cmp.sk_score_at_kl_pick), fmt_score(cmp.sk_best),
                      "equal" if cmp.sk_tie else "not equal"))
        ok = cmp.claim_speed and cmp.claim_selection
        if tool == "sklearn":
            verdict_text = "claim holds" if ok else "claim **does not hold**"
        else:
            verdict_text = "the same claim would %s" % ("hold" if ok else "not hold")
        lines.append("- %s: %s; %s → %s" % (ds.name, speed, sel, verdict_text))
    return lines


def render_report(datasets, meta):
    refs = meta.get("references", ["sklearn"])
    onedal = "sklearnex" in refs
    title = ("## Grid-search target: magic's sample, `kernlearn select` vs `GridSearchCV`" if meta["grid_target"]
             else "## Grid search: `kernlearn select` vs scikit-learn `GridSearchCV`")
    lines = [title, "",
             "Written by `scripts/bench_select.py --write-md%s` (protocol in the script's docstring). The tools "
             "search the same 11 × 11 (σ, C) grid with the same 5 folds on the same training file: kernlearn and "
             "`GridSearchCV(n_jobs=2)` over scikit-learn's SVC (reference `sklearn`)%s. The claim checked is that "
             "kernlearn's search is at least %g× faster than `GridSearchCV(n_jobs=2)` over scikit-learn's SVC and "
             "picks the same parameters or ones with an equal CV score%s." % (
                 " --grid-target" if meta["grid_target"] else "",
                 " and over scikit-learn-intelex's (`sklearnex.svm.SVC`, Intel oneDAL; reference `sklearnex`)"
                 if onedal else "", CLAIM_RATIO,
                 "; the same check against sklearnex is listed beside it" if onedal else ""), "",
             "Generated %s by `python3 %s`. To reproduce:" % (meta["date"], meta["command"])]
    lines += ["", "```", REPRODUCE_TARGET if meta["grid_target"] else REPRODUCE, "```", ""]
    m = meta["machine"]
    lines.append("- Machine: %s, `nproc` = %s; 1-min load average before each dataset: %s" % (
        m["cpu"], m["nproc"], ", ".join("%s %s" % (ds.name, fmt(ds.load_before and ds.load_before[0], "%.2f"))
                                        for ds in datasets)))
    lines.append("- Other processes' share of the CPUs during the kept timed runs (/proc/stat busy time minus this "
                 "script's and its children's; a run is repeated when above %.0f %%, at most %d more time(s)): %s" % (
                     100 * meta["max_other_load"], meta["retries"], ", ".join(
                         "%s %s" % (ds.name, " / ".join(fmt_share(c) for c in [ds.cpu_kernlearn] + [
                             ds.cpu_sklearnex if t == "sklearnex" else ds.cpu_sklearn for t in refs]))
                         for ds in datasets) + " (%s)" % " / ".join(["kernlearn"] + [REF_TITLES[t] for t in refs])))
    lines.append("- Versions: " + ", ".join("%s %s" % kv for kv in meta["versions"].items()))
    b = meta["binary"]
    lines.append("- kernlearn binary: `%s` (built %s, sha256 %s…; repo HEAD %s%s); threads: %s" % (
        b["path"], b["mtime"], b["sha256"], b.get("git_head") or "?",
        ", uncommitted changes under crates/ at run time" if b.get("git_crates_dirty") else "",
        meta["kernlearn_threads"]))
    if b["sources_newer_than_binary"]:
        lines.append("- **Warning**: sources newer than the binary: %s" % ", ".join(b["sources_newer_than_binary"]))
    if meta.get("binary_changed"):
        lines.append("- **Warning**: the kernlearn binary changed during the run")
    lines.append("- Grid: σ ∈ {2^-5, …, 2^5} (γ = 1/σ²) × C ∈ {2^-5, …, 2^5} = %d points, %d stratified folds "
                 "(kernlearn's, `--seed %d`, reused by the references); timings: %s" % (
                     len(SIGMAS) * len(CS), FOLDS, SEED,
                     "one run each" if meta["repeats"] == 1 else "median of %d runs" % meta["repeats"]))
    lines.append("- Data: heart, pima, wdbc whole; magic: stratified sample of %d of its %s rows "
                 "(`default_rng(0)`); stratified 80/20 split (`default_rng(0)`), min-max scaling with the train "
                 "min/max, as in bench_svm" % (meta["magic_rows"], next(
                     (str(ds.n_rows_file) for ds in datasets if ds.name == "magic"), "19020")))
    pool = ("started before the timed fit" if not meta["no_warmup"] else "not warmed up (--no-warmup)")
    if "sklearn" in refs:
        lines.append("- sklearn: `%s`; the loky worker pool is %s" % (meta["sklearn_estimator"], pool))
    if onedal:
        lines.append("- sklearnex: `%s` (oneDAL's threads per joblib worker: the limit joblib sets, cpus // n_jobs); "
                     "the loky worker pool is %s" % (meta["sklearnex_estimator"], pool))
    for tool, reason in meta.get("skipped", {}).items():
        lines.append("- **%s skipped**: %s" % (REF_TITLES.get(tool, tool), reason.splitlines()[0]))
    for ds in datasets:
        for tool, r in [("kernlearn", ds.kernlearn)] + [(t, ds.reference(t)[0]) for t in refs]:
            if r.error:
                lines.append("- **%s failed on %s**: %s" % (tool, ds.name, r.error.splitlines()[0]))
            if r.ok and r.deterministic is False:
                lines.append("- **%s on %s**: the repeats did not give identical results" % (tool, ds.name))
    lines += ["", main_table(datasets, refs), ""]
    lines.append("reference = `GridSearchCV(n_jobs=2)` over scikit-learn's SVC (`sklearn`)%s. σ / C = the selected "
                 "Gaussian width and C. CV acc = the tool's own mean fold accuracy at its pick (same folds for all). "
                 "Test acc = the model refit on the whole training set with the picked values, scored on the "
                 "held-out 20 %%. `kernlearn select s` = its `select_seconds` (grid search, no refit, no file "
                 "reading); `reference search s` = `GridSearchCV.fit` time − `refit_time_`; the ratio is reference "
                 "/ kernlearn (> 1: kernlearn is faster). A differing pick is checked both ways: is kernlearn's CV "
                 "score at the reference's pick equal to kernlearn's best, and is the reference's score at "
                 "kernlearn's pick equal to its best (equal within %g)." % (
                     " or over scikit-learn-intelex's (`sklearnex`, Intel oneDAL)" if onedal else "", SCORE_TOL))
    if "sklearn" in refs:
        lines += ["", "Claim (≥ %g× faster than GridSearchCV(n_jobs=2) over scikit-learn's SVC, same pick or one "
                  "with an equal CV score):" % CLAIM_RATIO, ""]
        lines += claim_lines(datasets, "sklearn")
    if onedal:
        lines += ["", "The same check against GridSearchCV(n_jobs=2) over sklearnex's SVC (for information; the "
                  "claim is scikit-learn's):", ""]
        lines += claim_lines(datasets, "sklearnex")
    lines += ["", "Timings in seconds. `kernlearn process` = wall clock of the whole `kernlearn select` process "
              "(reading the file, search, refit); `reference fit` = `GridSearchCV.fit` (search + refit, data "
              "already in memory); whole ratio = reference fit / kernlearn process.", "",
              timing_table(datasets, refs)]
    lines += ["", "CV scores (mean fold accuracy, fractions) at the picks; ties = grid points sharing the best "
              "score; the last columns compare kernlearn's and the reference's CV scores over the whole grid "
              "(the solvers stop at slightly different points, so a few fold predictions can differ), give the "
              "test counts and the test rows where the reference's refit model predicts another label than "
              "kernlearn's. Ties: kernlearn sends them to the smaller C, then the wider σ. scikit-learn's "
              "ParameterGrid iterates the keys sorted ('C' outer, 'gamma' inner) and `best_index_` is the first "
              "best point in that order; C is given ascending and γ ascending (σ descending), so its ties also go "
              "to the smaller C, then the wider σ.", "", agreement_table(datasets, refs)]
    return "\n".join(lines)


# ----------------------------------------------------------------------------
# main
# ----------------------------------------------------------------------------


def main(argv=None):
    global CLAIM_RATIO
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--datasets", default=DEFAULT_DATASETS_DIR, metavar="DIR",
                    help="directory with <name>.csv (default: <repo>/../shared/datasets)")
    ap.add_argument("--datasets-list", default=",".join(ALL_DATASETS), metavar="A,B",
                    help="comma-separated subset of " + ",".join(ALL_DATASETS))
    ap.add_argument("--tools", default=",".join(REFERENCES), metavar="A,B",
                    help="the GridSearchCV references to run beside kernlearn, a subset of %s (default all; "
                         "sklearnex is skipped with the reason when it cannot fit here)" % ",".join(REFERENCES))
    ap.add_argument("--magic-rows", type=int, default=MAGIC_ROWS,
                    help="rows of the stratified magic sample (default %d)" % MAGIC_ROWS)
    ap.add_argument("--repeats", type=int, default=1, help="timing repeats per tool, median reported (default 1)")
    ap.add_argument("--workdir", help="where to write the LIBSVM files (default: a fresh temp dir, removed afterwards)")
    ap.add_argument("--kernlearn-bin", default=KERNLEARN_BIN, help="kernlearn binary (default: target/release/kernlearn)")
    ap.add_argument("--kernlearn-threads", type=int, metavar="N",
                    help="set RAYON_NUM_THREADS=N for kernlearn (default: leave the environment alone)")
    ap.add_argument("--no-warmup", action="store_true",
                    help="do not start joblib's worker pool before each timed GridSearchCV.fit")
    ap.add_argument("--wait-idle", type=float, default=900, metavar="S",
                    help="before each tool's timed runs, wait up to S seconds for other processes to use less "
                         "than --max-other-load of the CPUs (default 900)")
    ap.add_argument("--max-other-load", type=float, default=0.05, metavar="F",
                    help="share of the CPUs other processes may use during a timed phase (default 0.05)")
    ap.add_argument("--retries", type=int, default=3,
                    help="rerun a tool's phase up to N times when other processes exceeded --max-other-load (default 3)")
    ap.add_argument("--write-md", metavar="FILE", help="(re)write the section between the bench_select markers of FILE")
    ap.add_argument("--json", metavar="FILE", help="dump all raw numbers to FILE")
    ap.add_argument("--grid-target", action="store_true",
                    help="the grid-search speed target: magic's %d-row sample only, claim checked at %g× "
                         "(instead of %g×); --write-md then rewrites the bench_select_target section"
                         % (MAGIC_ROWS, TARGET_CLAIM_RATIO, CLAIM_RATIO))
    args = ap.parse_args(argv)
    if args.grid_target:
        CLAIM_RATIO = TARGET_CLAIM_RATIO
        args.datasets_list = "magic"
    if args.repeats < 1:
        ap.error("--repeats must be >= 1")

    names = parse_list(args.datasets_list, ALL_DATASETS, "dataset")
    refs = parse_list(args.tools, REFERENCES, "tool")
    skipped = {}
    if "sklearnex" in refs:
        why = sklearnex_unavailable()
        if why is not None:
            print("WARNING: skipping sklearnex: %s" % why, file=sys.stderr)
            skipped["sklearnex"] = why
            refs.remove("sklearnex")
    datasets_dir = os.path.abspath(args.datasets)
    if not os.path.isdir(datasets_dir):
        raise SystemExit("datasets directory %s does not exist (use --datasets DIR)" % datasets_dir)
    if not os.access(args.kernlearn_bin, os.X_OK):
        raise SystemExit("kernlearn binary %s not found (build it with `cargo build --release`)" % args.kernlearn_bin)
    try:
        import sklearn.model_selection  # noqa: F401
    except ImportError as e:
        raise SystemExit("scikit-learn cannot be imported (%s; pip install scikit-learn)" % e)
    binfo = binary_info(args.kernlearn_bin)
    if binfo["sources_newer_than_binary"]:
        print("WARNING: sources newer than %s: %s" % (binfo["path"], ", ".join(binfo["sources_newer_than_binary"])),
              file=sys.stderr)

    temp = args.workdir is None
    workdir = tempfile.mkdtemp(prefix="bench_select_") if temp else os.path.abspath(args.workdir)
    os.makedirs(workdir, exist_ok=True)
    print("work directory: %s" % workdir, file=sys.stderr)

    results = []
    t_start = time.perf_counter()
    try:
        for name in names:
            split = prepare_split(name, datasets_dir, workdir, args.magic_rows)
            ds = DatasetResult(name, len(split.ytr) + len(split.yte), split.n_rows_file, len(split.ytr),
                               len(split.yte), split.Xtr.shape[1], split.train_file, split.test_file)
            ds.load_before = list(os.getloadavg())
            print("%s: n_train=%d n_test=%d d=%d (load %.2f)" % (name, ds.n_train, ds.n_test, ds.d, ds.load_before[0]),
                  file=sys.stderr)
            kl_out = measured_phase("kernlearn", lambda: run_kernlearn(split, args), args)
            (ds.kernlearn, folds), ds.cpu_kernlearn = kl_out
            kl = ds.kernlearn
            if kl.ok:
                print("  [kernlearn] select %.3f s (process %.3f s), pick σ=%g C=%g cv=%.6f, test %.4f" % (
                    kl.select_seconds, kl.wall_seconds, kl.pick.sigma, kl.pick.C, kl.pick.cv_score, kl.test_accuracy),
                    file=sys.stderr)
            for tool in refs:
                if folds is None:
                    fail(ds.reference(tool)[0], tool, "not run: it needs kernlearn's folds")
                    continue
                res, cpu = measured_phase(tool, lambda: run_sklearn(split, folds, args, tool, kl.labels_file), args)
                if tool == "sklearnex":
                    ds.sklearnex, ds.cpu_sklearnex = res, cpu
                else:
                    ds.sklearn, ds.cpu_sklearn = res, cpu
                sk = res
                if sk.ok:
                    print("  [%s] fit %.2f s (refit %.3f s, search %.2f s), pick σ=%g C=%g cv=%.6f, test %.4f" % (
                        tool, sk.fit_seconds, sk.refit_seconds, sk.search_seconds, sk.pick.sigma, sk.pick.C,
                        sk.pick.cv_score, sk.test_accuracy), file=sys.stderr)
                compare(ds, tool)
            results.append(ds)
    finally:
        if temp:
            import shutil
            shutil.rmtree(workdir, ignore_errors=True)
    total = time.perf_counter() - t_start

    binfo_after = binary_info(args.kernlearn_bin)
    meta = {
        "date": datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z"),
        "machine": machine_info(),
        "versions": versions(args.kernlearn_bin, refs),
        "binary": binfo,
        "binary_changed": binfo_after["sha256"] != binfo["sha256"],
        "repeats": args.repeats,
        "magic_rows": args.magic_rows,
        "grid_target": args.grid_target,
        "no_warmup": args.no_warmup,
        "max_other_load": args.max_other_load,
        "retries": args.retries,
        "wait_idle": args.wait_idle,
        "sklearn_estimator": make_search(None)[1],
        "sklearnex_estimator": make_search(None, "sklearnex")[1],
        "references": refs,
        "skipped": skipped,
        "kernlearn_threads": ("RAYON_NUM_THREADS=%d (--kernlearn-threads)" % args.kernlearn_threads
                              if args.kernlearn_threads is not None else
                              "default (RAYON_NUM_THREADS=%s)" % os.environ["RAYON_NUM_THREADS"]
                              if "RAYON_NUM_THREADS" in os.environ else "default (RAYON_NUM_THREADS unset)"),
        "total_seconds": total,
        "command": shlex.join([os.path.relpath(os.path.abspath(__file__), REPO_ROOT)]
                              + (argv if argv is not None else sys.argv[1:])),
    }
    if meta["binary_changed"]:
        print("WARNING: the kernlearn binary changed during the run", file=sys.stderr)
    report = render_report(results, meta)
    print(report)
    print("total time %.1f s" % total, file=sys.stderr)
    if args.write_md:
        if args.grid_target:
            write_markdown(args.write_md, report, MD_TARGET_BEGIN, MD_TARGET_END)
        else:
            write_markdown(args.write_md, report, MD_BEGIN, MD_END)
        print("wrote %s" % args.write_md, file=sys.stderr)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"meta": meta, "datasets": [dataclasses.asdict(d) for d in results]}, f, indent=2)
        print("wrote %s" % args.json, file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
