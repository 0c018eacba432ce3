#!/usr/bin/env python3
"""Side-by-side benchmark of kernlearn's SMO solver against LIBSVM, scikit-learn, scikit-learn-intelex and ThunderSVM.

Run from anywhere (paths are resolved relative to the repository root, the
parent of this script's directory):

    python3 scripts/bench_svm.py                                  # print the table
    python3 scripts/bench_svm.py --write-md docs/BENCHMARKS.md    # also update the docs
    python3 scripts/bench_svm.py --tools libsvm,sklearn --datasets-list heart,pima
    python3 scripts/bench_svm.py --tools sklearn,sklearnex,kernlearn --datasets-list heart --repeats 1
    python3 scripts/bench_svm.py --dense-target --write-md docs/BENCHMARKS.md  # magic, shuttle at C=4, gamma=0.5

Requirements: numpy; optional: Debian/Ubuntu `libsvm-tools` (svm-train,
svm-predict), scikit-learn, `scikit-learn-intelex` (`sklearnex.svm.SVC`, Intel
oneDAL) and `thundersvm-cpu` (each probed with a toy fit in a child process first;
a wheel that cannot load or fit here -- for sklearnex also one whose toy fit does
not run on oneDAL -- is reported as skipped with the reason), a Rust toolchain (the script runs
`cargo build --release -q` itself unless --no-build).  A missing tool is
reported and its columns are left empty.

Protocol (identical for the five tools)
----------------------------------------
* Data: <repo>/../shared/datasets/<name>.csv (override with --datasets DIR);
  header line, last column `label` in {-1, +1}, unscaled features.
* Split: stratified 80/20 with numpy.random.default_rng(0).  For each class
  (in increasing label order) the row indices of that class are permuted with
  the generator and the first round(0.2 * n_class) (half rounded up) go to the
  test set.  Both sets keep the original row order.
* Scaling: min-max to [0, 1] with the TRAIN minimum/maximum only (constant
  column -> 0; test values may fall outside [0, 1]).
* Files: train/test written once as LIBSVM sparse text (repr(float) values,
  zeros omitted) into the work directory; every tool reads these same files.
* Parameters: C-SVC, RBF kernel, C = 1, gamma = float32(1/d), eps = float32(0.001),
  shrinking on, 100 MB kernel cache.  Debian's svm-train parses real-valued
  options with strtof, so the values LIBSVM really uses are float32 roundings;
  the script hands exactly these values (printed with repr) to all five tools.
* Timing: median of --repeats runs.  svm-train and kernlearn: wall clock of the
  whole `fit` process (reading the file, solving, writing the model); kernlearn's
  own `fit_seconds` is recorded too.  scikit-learn: `SVC.fit` only (data already
  in memory); scikit-learn-intelex: `sklearnex.svm.SVC.fit` likewise, the same
  float64 arrays and parameters as scikit-learn (oneDAL's threads: every core
  unless --sklearnex-threads, its n_jobs; sklearnex's log is read, and a call that
  fell back to scikit-learn's own SVC makes the tool fail for that dataset); ThunderSVM: `thundersvm.SVC.fit` likewise (every core unless
  --thundersvm-threads; its wrapper passes data and parameters as float32 and
  has no cache or shrinking option).  Ratios compare like with like: LIBSVM
  wall / kernlearn wall, sklearn (sklearnex, ThunderSVM) fit / kernlearn `fit_seconds`.
  Runs are strictly sequential.
* Objective: LIBSVM's dual objective `obj` (printed by svm-train, reported by
  kernlearn); for scikit-learn, sklearnex and ThunderSVM it is recomputed from the model as
  0.5 * c^T K c - sum|c| with c = dual_coef_ (= y_i alpha_i) and K the RBF kernel
  on support_vectors_, which equals 0.5 a^T Q a - e^T a (sign-independent).
* Labels: every tool's predicted test labels are compared with kernlearn's
  (`kernlearn predict -o`); the agreement table gives the number that differ.
"""

import argparse
import dataclasses
import datetime
import importlib
import json
import os
import platform
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from typing import Optional

import numpy as np

REPO_ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir))
DEFAULT_DATASETS_DIR = os.path.join(REPO_ROOT, os.pardir, "shared", "datasets")
KERNLEARN_BIN = os.path.join(REPO_ROOT, "target", "release", "kernlearn")

ALL_DATASETS = ["heart", "sonar", "ionosphere", "wdbc", "pima", "magic", "shuttle-binary"]
ALL_TOOLS = ["libsvm", "sklearn", "sklearnex", "thundersvm", "kernlearn"]
TOOL_TITLES = {"libsvm": "LIBSVM", "sklearn": "sklearn", "sklearnex": "sklearnex", "thundersvm": "ThunderSVM",
               "kernlearn": "kernlearn"}

# The dense speed target: C = 4, gamma = 0.5 on magic and shuttle-binary ([0, 1] features).
TARGET_DATASETS = ["magic", "shuttle-binary"]
TARGET_C, TARGET_GAMMA = 4.0, 0.5
TARGET_SPEEDUP = 2.5  # LIBSVM process wall / kernlearn process wall
TARGET_OBJ_REL = 1e-6

SEED = 0
TEST_FRACTION = 0.2
C = 1.0
EPS = float(np.float32(0.001))  # what `svm-train -e 0.001` really uses (strtof)

MD_BEGIN = "<!-- bench_svm:begin -->"
MD_END = "<!-- bench_svm:end -->"
REPRODUCE = "python3 scripts/bench_svm.py --write-md docs/BENCHMARKS.md"
REPRODUCE_TARGET = "python3 scripts/bench_svm.py --dense-target --write-md docs/BENCHMARKS.md"
MD_TARGET_BEGIN = "<!-- bench_svm_target:begin -->"
MD_TARGET_END = "<!-- bench_svm_target:end -->"


def f32(x):
    """float32 rounding of x, as a Python float (see the module docstring)."""
    return float(np.float32(x))


# ----------------------------------------------------------------------------
# results
# ----------------------------------------------------------------------------


@dataclass
class ToolResult:
    """What one tool produced on one dataset (None = not available)."""

    tool: str
    ok: bool = False
    error: Optional[str] = None
    fit_seconds: Optional[float] = None  # median; process wall clock (libsvm, kernlearn) or SVC.fit (sklearn)
    fit_seconds_runs: list = field(default_factory=list)
    internal_fit_seconds: Optional[float] = None  # kernlearn's own `fit_seconds` (median)
    internal_fit_seconds_runs: list = field(default_factory=list)
    predict_seconds: Optional[float] = None
    n_test: Optional[int] = None
    n_correct: Optional[int] = None
    test_accuracy: Optional[float] = None  # fraction in [0, 1]
    train_accuracy: Optional[float] = None
    objective: Optional[float] = None
    rho: Optional[float] = None
    n_sv: Optional[int] = None
    n_bsv: Optional[int] = None
    iterations: Optional[int] = None
    labels_vs_kernlearn: Optional[int] = None  # test rows whose predicted label differs from kernlearn's
    raw: dict = field(default_factory=dict)  # tool-specific extras (parsed logs, JSON output)
    predictions: Optional[np.ndarray] = field(default=None, repr=False)  # test labels (not in --json)


@dataclass
class DatasetResult:
    name: str
    n_train: int
    n_test: int
    d: int
    C: float
    gamma: float
    eps: float
    cache_mb: int
    train_file: str
    test_file: str
    results: dict = field(default_factory=dict)  # tool -> ToolResult


@dataclass
class Split:
    name: str
    Xtr: np.ndarray
    ytr: np.ndarray
    Xte: np.ndarray
    yte: np.ndarray
    train_file: str
    test_file: str

    @property
    def d(self):
        return self.Xtr.shape[1]


# ----------------------------------------------------------------------------
# data
# ----------------------------------------------------------------------------


def load_csv(path):
    with open(path) as f:
        header = f.readline().strip().split(",")
    if header[-1] != "label":
        raise ValueError("%s: last column is %r, expected 'label'" % (path, header[-1]))
    data = np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2)
    X, y = data[:, :-1].astype(np.float64), data[:, -1].astype(np.float64)
    if not set(np.unique(y)) <= {-1.0, 1.0}:
        raise ValueError("%s: labels must be -1/+1, got %s" % (path, np.unique(y)))
    return X, y


def stratified_split(y, test_fraction=TEST_FRACTION, seed=SEED):
    """Sorted (train_idx, test_idx); see the module docstring for the exact rule."""
    rng = np.random.default_rng(seed)
    test = []
    for label in np.unique(y):
        idx = rng.permutation(np.flatnonzero(y == label))
        n_test = int(np.floor(test_fraction * len(idx) + 0.5))
        test.extend(idx[:n_test].tolist())
    test = np.sort(np.array(test, dtype=int))
    train = np.setdiff1d(np.arange(len(y)), test)
    return train, test


def minmax_fit_transform(Xtr, Xte):
    """Scale both sets with the TRAIN min/max; constant (in train) column -> 0."""
    lo, hi = Xtr.min(axis=0), Xtr.max(axis=0)
    span = hi - lo
    const = span == 0
    span[const] = 1.0
    Str, Ste = (Xtr - lo) / span, (Xte - lo) / span
    Str[:, const] = 0.0
    Ste[:, const] = 0.0
    return Str, Ste


def write_libsvm(path, X, y):
    with open(path, "w") as f:
        for row, label in zip(X, y):
            parts = [str(int(label))]
            parts += ["%d:%r" % (j + 1, float(v)) for j, v in enumerate(row) if v != 0.0]
            f.write(" ".join(parts) + "\n")


def prepare_split(name, datasets_dir, workdir):
    X, y = load_csv(os.path.join(datasets_dir, name + ".csv"))
    tr, te = stratified_split(y)
    Xtr, Xte = minmax_fit_transform(X[tr], X[te])
    train_file = os.path.join(workdir, name + ".train.libsvm")
    test_file = os.path.join(workdir, name + ".test.libsvm")
    write_libsvm(train_file, Xtr, y[tr])
    write_libsvm(test_file, Xte, y[te])
    return Split(name, Xtr, y[tr], Xte, y[te], train_file, test_file)


# ----------------------------------------------------------------------------
# helpers
# ----------------------------------------------------------------------------


def timed_run(cmd, env=None):
    """Run cmd, return (CompletedProcess, wall seconds)."""
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    return proc, time.perf_counter() - t0


def run_json(cmd, env=None):
    """Run a kernlearn command that prints one JSON object.

    Returns (object, wall seconds, None), or (None, wall seconds, failure message).
    """
    proc, secs = timed_run(cmd, env)
    if proc.returncode != 0:
        return None, secs, process_failure(cmd, proc)
    try:
        return parse_json_output(proc.stdout), secs, None
    except (json.JSONDecodeError, ValueError) as e:
        return None, secs, "kernlearn %s printed no JSON (%s)\n--- stdout ---\n%s--- stderr ---\n%s" % (
            cmd[1] if len(cmd) > 1 else "", e, proc.stdout[-2000:], proc.stderr)


def median(xs):
    return statistics.median(xs) if xs else None


def fail(result, message):
    result.ok = False
    result.error = message
    print("  [%s] FAILED: %s" % (result.tool, message), file=sys.stderr)
    return result


def process_failure(cmd, proc):
    """Failure message: a one-line summary (used in the report), then the details."""
    first = next((l.strip() for l in proc.stderr.splitlines() if l.strip()), "no message on stderr")
    return "`%s %s` exited with status %d: %s\ncommand: %s\n--- stderr ---\n%s--- stdout (tail) ---\n%s" % (
        os.path.basename(cmd[0]), cmd[1] if len(cmd) > 1 else "", proc.returncode, first,
        " ".join(cmd), proc.stderr, proc.stdout[-2000:])


# ----------------------------------------------------------------------------
# LIBSVM (svm-train / svm-predict)
# ----------------------------------------------------------------------------

FLOAT = r"([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|[-+]?nan|[-+]?inf)"


def parse_svm_train_log(text):
    out = {}
    patterns = {
        "iterations": (r"optimization finished, #iter = (\d+)", int),
        "objective": (r"obj = " + FLOAT, float),
        "rho": (r"rho = " + FLOAT, float),
        "n_sv_block": (r"^nSV = (\d+)", int),
        "n_bsv": (r"nBSV = (\d+)", int),
        "n_sv": (r"Total nSV = (\d+)", int),
    }
    for key, (pattern, conv) in patterns.items():
        m = re.search(pattern, text, re.MULTILINE)
        if m:
            out[key] = conv(m.group(1))
    return out


def model_labels(path):
    """The `label` line of a LIBSVM model file (the class order rho refers to)."""
    with open(path) as f:
        for line in f:
            if line.startswith("label "):
                return [int(v) for v in line.split()[1:]]
            if line.strip() == "SV":
                break
    return None


def run_libsvm(split, gamma, cache_mb, repeats, workdir):
    res = ToolResult("libsvm")
    model = os.path.join(workdir, split.name + ".libsvm.model")
    cmd = ["svm-train", "-s", "0", "-t", "2", "-c", repr(C), "-g", repr(gamma), "-e", repr(EPS),
           "-m", str(cache_mb), split.train_file, model]
    res.raw["train_command"] = " ".join(cmd)
    logs = []
    for _ in range(repeats):
        proc, secs = timed_run(cmd)
        if proc.returncode != 0:
            return fail(res, process_failure(cmd, proc))
        res.fit_seconds_runs.append(secs)
        logs.append(parse_svm_train_log(proc.stdout))
    log = logs[0]
    missing = [k for k in ("iterations", "objective", "rho", "n_sv") if k not in log]
    if missing:
        return fail(res, "could not parse %s from svm-train output:\n%s" % (missing, proc.stdout[-2000:]))
    res.raw["train_log"] = log
    res.raw["deterministic"] = all(l == log for l in logs)
    res.raw["model_labels"] = labels = model_labels(model)
    res.fit_seconds = median(res.fit_seconds_runs)
    res.objective, res.rho, res.n_sv = log["objective"], log["rho"], log["n_sv"]
    if labels and labels[0] == -1:  # report rho as "decision > 0 => +1", like the other tools
        res.rho = -res.rho
    res.n_bsv, res.iterations = log.get("n_bsv"), log["iterations"]

    out = os.path.join(workdir, split.name + ".libsvm.pred")
    pcmd = ["svm-predict", split.test_file, model, out]
    proc, secs = timed_run(pcmd)
    if proc.returncode != 0:
        return fail(res, process_failure(pcmd, proc))
    m = re.search(r"Accuracy = " + FLOAT + r"% \((\d+)/(\d+)\)", proc.stdout)
    if not m:
        return fail(res, "could not parse svm-predict output:\n" + proc.stdout)
    res.predict_seconds = secs
    res.n_correct, res.n_test = int(m.group(2)), int(m.group(3))
    res.predictions = np.loadtxt(out, ndmin=1)
    res.test_accuracy = res.n_correct / res.n_test
    res.ok = True
    return res


# ----------------------------------------------------------------------------
# kernlearn
# ----------------------------------------------------------------------------


def build_kernlearn():
    """cargo build --release -q; returns an error message or None."""
    if shutil.which("cargo") is None:
        return "cargo not found on PATH"
    print("building kernlearn: cargo build --release -q", file=sys.stderr)
    proc = subprocess.run(["cargo", "build", "--release", "-q"], cwd=REPO_ROOT,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        return "cargo build --release failed (status %d):\n%s" % (proc.returncode, proc.stderr)
    return None


def parse_json_output(stdout):
    """The single JSON object kernlearn prints (tolerates stray lines around it)."""
    try:
        return json.loads(stdout)
    except json.JSONDecodeError:
        start, end = stdout.find("{"), stdout.rfind("}")
        if start >= 0 and end > start:
            return json.loads(stdout[start:end + 1])
        raise


def accuracy_fraction(value):
    """kernlearn reports accuracies as fractions; accept percentages defensively."""
    return value / 100.0 if value > 1.0 else value


def run_kernlearn(split, gamma, cache_mb, repeats, workdir, binary, threads):
    res = ToolResult("kernlearn")
    model = os.path.join(workdir, split.name + ".kernlearn.json")
    env = dict(os.environ)
    if threads is not None:
        env["RAYON_NUM_THREADS"] = str(threads)
    cmd = [binary, "fit", "--data", split.train_file, "--scale", "none", "--method", "svc",
           "--kernel", "rbf", "--gamma", repr(gamma), "-c", repr(C), "--tol", repr(EPS),
           "--cache-mb", str(cache_mb), "--model-out", model, "--no-train-score", "--force", "--json", "--quiet"]
    res.raw["train_command"] = " ".join(cmd)
    outputs = []
    for _ in range(repeats):
        out, secs, error = run_json(cmd, env)
        if error:
            return fail(res, error)
        outputs.append(out)
        res.fit_seconds_runs.append(secs)
        if outputs[-1].get("fit_seconds") is not None:
            res.internal_fit_seconds_runs.append(float(outputs[-1]["fit_seconds"]))
    fit = outputs[0]
    res.raw["fit"] = fit
    res.fit_seconds = median(res.fit_seconds_runs)
    res.internal_fit_seconds = median(res.internal_fit_seconds_runs)
    res.objective = fit.get("objective")
    res.n_sv = fit.get("n_support")
    res.iterations = fit.get("iterations")
    res.rho = fit.get("rho", ((fit.get("details") or {}).get("rho") or [None])[0])
    if fit.get("train_accuracy") is not None:
        res.train_accuracy = accuracy_fraction(float(fit["train_accuracy"]))
    res.raw["deterministic"] = all(
        (o.get("objective"), o.get("n_support"), o.get("iterations")) ==
        (fit.get("objective"), fit.get("n_support"), fit.get("iterations")) for o in outputs)

    labels = os.path.join(workdir, split.name + ".kernlearn.pred.csv")
    pcmd = [binary, "predict", "--model", model, "--data", split.test_file, "-o", labels, "--force",
            "--json", "--quiet"]
    pred, secs, error = run_json(pcmd, env)
    if error:
        return fail(res, error)
    res.raw["predict"] = pred
    res.predict_seconds = secs
    res.n_test = int(pred.get("n_test", len(split.yte)))
    res.test_accuracy = accuracy_fraction(float(pred["test_accuracy"]))
    res.n_correct = int(round(res.test_accuracy * res.n_test))
    res.predictions = np.loadtxt(labels, delimiter=",", skiprows=1, usecols=0, ndmin=1)
    res.ok = True
    return res


def kernlearn_version(binary):
    try:
        proc = subprocess.run([binary, "--version"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    text = proc.stdout.strip()
    if proc.returncode != 0 or not text:
        return None
    return text[len("kernlearn "):] if text.startswith("kernlearn ") else text


# ----------------------------------------------------------------------------
# scikit-learn
# ----------------------------------------------------------------------------


def rbf_dual_objective(coef, SV, gamma, block=1024):
    """0.5 * coef^T K coef - sum|coef| with K[i, j] = exp(-gamma |sv_i - sv_j|^2),
    accumulated over row blocks so that large SV sets do not need the full matrix."""
    coef = np.asarray(coef, dtype=np.float64).ravel()
    sq = np.einsum("ij,ij->i", SV, SV)
    quad = 0.0
    for s in range(0, len(SV), block):
        A = SV[s:s + block]
        d2 = sq[s:s + block, None] + sq[None, :] - 2.0 * (A @ SV.T)
        np.maximum(d2, 0.0, out=d2)
        quad += coef[s:s + block] @ (np.exp(-gamma * d2) @ coef)
    return 0.5 * quad - np.abs(coef).sum()


def run_sklearn(split, gamma, cache_mb, repeats, tool="sklearn", threads=None):
    """scikit-learn's SVC, or with tool="sklearnex" scikit-learn-intelex's (oneDAL; `threads` is
    its n_jobs, None = oneDAL's default), on the same files read back into dense arrays."""
    import sklearn.svm
    from sklearn.datasets import load_svmlight_file

    res = ToolResult(tool)
    # Same files as the other tools; dense arrays (sklearn's usual, faster path
    # for dense data; the sparse path would use its libsvm_sparse build).
    Xtr, ytr = load_svmlight_file(split.train_file, n_features=split.d)
    Xte, yte = load_svmlight_file(split.test_file, n_features=split.d)
    Xtr, Xte = Xtr.toarray(), Xte.toarray()
    if not (np.array_equal(Xtr, split.Xtr) and np.array_equal(Xte, split.Xte)):
        return fail(res, "load_svmlight_file did not read back the written values exactly")
    params = dict(C=C, kernel="rbf", gamma=gamma, tol=EPS, cache_size=cache_mb, shrinking=True)
    if tool == "sklearnex":
        from sklearnex.svm import SVC
        params["n_jobs"] = threads
        res.raw["estimator"] = "sklearnex.svm.SVC(%s)" % ", ".join("%s=%r" % kv for kv in params.items())
    else:
        SVC = sklearn.svm.SVC
        res.raw["estimator"] = "sklearn.svm.SVC(%s)" % ", ".join("%s=%r" % kv for kv in params.items())
    clf = None
    dispatch = OneDalDispatch() if tool == "sklearnex" else None
    for _ in range(repeats):
        clf = SVC(**params)
        t0 = time.perf_counter()
        if dispatch is None:
            clf.fit(Xtr, ytr)
        else:
            with dispatch:
                clf.fit(Xtr, ytr)
        res.fit_seconds_runs.append(time.perf_counter() - t0)
    res.fit_seconds = median(res.fit_seconds_runs)
    res.rho = float(-clf.intercept_[0])  # sklearn's classes_ order: [-1, +1]
    n_iter = getattr(clf, "n_iter_", None)
    res.iterations = int(np.sum(n_iter)) if n_iter is not None else None
    if tool == "sklearnex":  # oneDAL counts its working-set solver's outer passes, not SMO steps
        res.raw["onedal_n_iter"], res.iterations = res.iterations, None
    if dispatch is None:
        score_fitted(res, clf, int(clf.n_support_.sum()), C, gamma, Xte, yte)
    else:
        with dispatch:
            score_fitted(res, clf, int(clf.n_support_.sum()), C, gamma, Xte, yte)
        res.raw["onedal_fallbacks"] = dispatch.fallbacks
        if dispatch.fallbacks:  # the numbers would be scikit-learn's, not oneDAL's
            return fail(res, "sklearnex fell back to scikit-learn: " + "; ".join(dispatch.fallbacks))
    res.train_accuracy = float(np.mean(clf.predict(Xtr) == ytr))
    return res


def score_fitted(res, clf, n_sv, c_bound, gamma, Xte, yte):
    """Fills the model-derived fields of `res` from a fitted scikit-learn-style SVC: #SV,
    the dual objective recomputed from `dual_coef_`, bounded SVs (|coef| >= `c_bound`),
    prediction time and test accuracy."""
    res.n_sv = n_sv
    res.objective = float(rbf_dual_objective(clf.dual_coef_[0], clf.support_vectors_, gamma))
    res.n_bsv = int(np.sum(np.abs(clf.dual_coef_[0]) >= c_bound))
    t0 = time.perf_counter()
    pred = clf.predict(Xte)
    res.predict_seconds = time.perf_counter() - t0
    res.n_test = len(yte)
    res.n_correct = int(np.sum(pred == yte))
    res.test_accuracy = res.n_correct / res.n_test
    res.predictions = np.asarray(pred, dtype=np.float64)
    res.ok = True


# ----------------------------------------------------------------------------
# ThunderSVM (CPU build, Python package `thundersvm-cpu`)
# ----------------------------------------------------------------------------

# A tiny fit in a child process: the wheel ships a prebuilt libthundersvm.so, and a
# loader or ABI failure may kill the interpreter instead of raising.
THUNDERSVM_PROBE = (
    "import numpy as np\n"
    "from thundersvm import SVC\n"
    "X = np.random.default_rng(0).random((60, 3)); y = np.where(X[:, 0] > 0.5, 1, -1)\n"
    "m = SVC(kernel='rbf', C=1.0, gamma=0.5).fit(X, y)\n"
    "assert m.n_sv > 0 and np.mean(m.predict(X) == y) > 0.8, 'probe fit is wrong'\n"
)


def probe_failure(probe, python, tool):
    """None when the `probe` script runs in a child `python`, else why `tool` cannot fit
    here (its last line of stderr, or how the child died)."""
    proc = subprocess.run([python, "-c", probe], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True)
    if proc.returncode == 0:
        return None
    lines = [l.strip() for l in proc.stderr.splitlines() if l.strip()]
    why = lines[-1] if lines else ("killed by signal %d" % -proc.returncode if proc.returncode < 0
                                   else "exit status %d" % proc.returncode)
    return "%s cannot fit here: %s" % (tool, why)


def distribution_version(name):
    """The installed distribution's version (informative only: "unknown" when absent)."""
    try:
        from importlib.metadata import version
        return version(name)
    except Exception:  # noqa: BLE001 - a version is informative only
        return "unknown"


def thundersvm_unavailable(python=sys.executable):
    """None when `thundersvm` imports and fits a toy problem here, else the reason."""
    return probe_failure(THUNDERSVM_PROBE, python, "thundersvm (pip install thundersvm-cpu)")


def thundersvm_version():
    return distribution_version("thundersvm-cpu")


def run_thundersvm(split, gamma, cache_mb, repeats, threads):
    """ThunderSVM's scikit-learn-style SVC on the same files (dense arrays).

    Its Python wrapper hands the data, C, gamma and eps to the library as float32 and has
    no cache-size or shrinking option (its solver works on batches of violating pairs with
    a memory budget, `max_mem_size`, left at its default); the objective is recomputed from
    `dual_coef_` (float32) as for scikit-learn, so agreement is at float32 precision."""
    from sklearn.datasets import load_svmlight_file
    from thundersvm import SVC

    res = ToolResult("thundersvm")
    Xtr, ytr = load_svmlight_file(split.train_file, n_features=split.d)
    Xte, yte = load_svmlight_file(split.test_file, n_features=split.d)
    Xtr, Xte = Xtr.toarray(), Xte.toarray()
    n_jobs = threads if threads is not None else -1
    res.raw["estimator"] = "thundersvm.SVC(kernel='rbf', C=%r, gamma=%r, tol=%r, n_jobs=%d)" % (C, gamma, EPS, n_jobs)
    clf = None
    for _ in range(repeats):
        clf = SVC(kernel="rbf", C=C, gamma=gamma, tol=EPS, n_jobs=n_jobs)
        t0 = time.perf_counter()
        clf.fit(Xtr, ytr)
        res.fit_seconds_runs.append(time.perf_counter() - t0)
    res.fit_seconds = median(res.fit_seconds_runs)
    score_fitted(res, clf, int(clf.n_sv), np.float32(C), gamma, Xte, yte)
    return res


# ----------------------------------------------------------------------------
# scikit-learn-intelex (Intel oneDAL), shared by bench_sparse, bench_select and bench_python
# ----------------------------------------------------------------------------

# Import and a tiny fit in a child process (as bench_onedal.py probes it): a wheel whose
# native libraries do not load may kill the interpreter instead of raising. The probe also
# asks sklearnex's log whether the fit ran on oneDAL or fell back to scikit-learn's SVC.
SKLEARNEX_PROBE = (
    "import logging, numpy as np\n"
    "from sklearnex.svm import SVC\n"
    "records = []\n"
    "h = logging.Handler(); h.emit = lambda r: records.append(r.getMessage())\n"
    "log = logging.getLogger('sklearnex'); log.addHandler(h); log.setLevel(logging.INFO)\n"
    "X = np.random.default_rng(0).random((60, 3)); y = np.where(X[:, 0] > 0.5, 1.0, -1.0)\n"
    "m = SVC(kernel='rbf', C=1.0, gamma=0.5).fit(X, y)\n"
    "assert m.support_.size > 0 and np.mean(m.predict(X) == y) > 0.8, 'probe fit is wrong'\n"
    "fit = [r for r in records if 'SVC.fit' in r]\n"
    "assert fit and 'accelerated' in fit[-1], 'fit did not run on oneDAL: %s' % (fit or ['no log'])[-1]\n"
)


def sklearnex_unavailable(python=sys.executable):
    """None when `sklearnex.svm.SVC` imports and fits a toy problem on oneDAL here, else the reason."""
    return probe_failure(SKLEARNEX_PROBE, python, "sklearnex (pip install scikit-learn-intelex)")


def sklearnex_version():
    """The installed distribution's version (`sklearnex.__version__` may be a placeholder)."""
    return distribution_version("scikit-learn-intelex")


def sklearnex_threads_text(threads):
    return "n_jobs = %d" % threads if threads is not None else "oneDAL's default (every core)"


class OneDalDispatch:
    """Collects sklearnex's own log of where each call ran ("running accelerated version on
    CPU" or "fallback to original Scikit-learn"), so a fit that fell back is reported as such.

        with OneDalDispatch() as d:
            clf.fit(X, y)
        d.fallbacks  # [] when every call ran on oneDAL
    """

    def __init__(self):
        self.messages = []  # accumulated over every `with` block of this object

    def __enter__(self):
        import logging

        self.handler = logging.Handler()
        self.handler.emit = lambda record: self.messages.append(record.getMessage().strip())
        self.logger = logging.getLogger("sklearnex")
        # Only this collector while inside (sklearnex's own handler would print every call).
        self.saved = (self.logger.level, self.logger.handlers[:], self.logger.propagate)
        self.logger.handlers = [self.handler]
        self.logger.propagate = False
        self.logger.setLevel(logging.INFO)
        return self

    def __exit__(self, *exc):
        self.logger.setLevel(self.saved[0])
        self.logger.handlers = self.saved[1]
        self.logger.propagate = self.saved[2]
        return False

    @property
    def fallbacks(self):
        return sorted({m for m in self.messages if "fallback" in m.lower()})


# ----------------------------------------------------------------------------
# environment
# ----------------------------------------------------------------------------


def check_tools(tools, args):
    """Drop unavailable tools (with a clear message); returns (tools, {tool: reason})."""
    skipped = {}
    if "libsvm" in tools:
        missing = [t for t in ("svm-train", "svm-predict") if shutil.which(t) is None]
        if missing:
            skipped["libsvm"] = "%s not found on PATH (Debian/Ubuntu: apt-get install libsvm-tools)" % " and ".join(missing)
    if "sklearn" in tools:
        try:
            importlib.import_module("sklearn.svm")
        except ImportError as e:
            skipped["sklearn"] = "scikit-learn cannot be imported (%s; pip install scikit-learn)" % e
    if "thundersvm" in tools:
        reason = thundersvm_unavailable()
        if reason is not None:
            skipped["thundersvm"] = reason
    if "sklearnex" in tools:
        reason = sklearnex_unavailable()
        if reason is not None:
            skipped["sklearnex"] = reason
    if "kernlearn" in tools:
        error = None if args.no_build else build_kernlearn()
        if error is None and not os.access(args.kernlearn_bin, os.X_OK):
            error = "binary %s not found (build it with `cargo build --release`)" % args.kernlearn_bin
        if error is not None:
            skipped["kernlearn"] = error
    for tool, reason in skipped.items():
        print("WARNING: skipping %s: %s" % (TOOL_TITLES[tool], reason), file=sys.stderr)
    return [t for t in tools if t not in skipped], skipped


def make_workdir(path, prefix):
    """The work directory (`path`, created if missing, or a fresh temporary one); returns
    (temporary?, absolute path)."""
    temp = path is None
    workdir = tempfile.mkdtemp(prefix=prefix) if temp else os.path.abspath(path)
    os.makedirs(workdir, exist_ok=True)
    print("work directory: %s" % workdir, file=sys.stderr)
    return temp, workdir


def machine_info():
    try:
        nproc = subprocess.run(["nproc"], stdout=subprocess.PIPE, text=True).stdout.strip()
    except OSError:
        nproc = str(len(os.sched_getaffinity(0)))
    cpu = platform.processor() or "unknown"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return {"nproc": nproc, "cpu": cpu, "platform": platform.platform()}


def tool_versions(tools, args):
    versions = {"python": platform.python_version(), "numpy": np.__version__}
    if "libsvm" in tools:
        try:
            proc = subprocess.run(["dpkg", "-s", "libsvm-tools"], stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True)
            m = re.search(r"^Version:\s*(\S+)", proc.stdout, re.MULTILINE)
            versions["libsvm-tools"] = m.group(1) if m else "unknown (not a dpkg package)"
        except OSError:
            versions["libsvm-tools"] = "unknown (no dpkg)"
    if "sklearn" in tools:
        import sklearn
        versions["scikit-learn"] = sklearn.__version__
    if "sklearnex" in tools:
        versions["scikit-learn-intelex"] = sklearnex_version()
    if "thundersvm" in tools:
        versions["thundersvm-cpu"] = thundersvm_version()
    if "kernlearn" in tools:
        versions["kernlearn"] = kernlearn_version(args.kernlearn_bin) or "unknown (`kernlearn --version` failed)"
    return versions


# ----------------------------------------------------------------------------
# report
# ----------------------------------------------------------------------------


def get(ds, tool):
    r = ds.results.get(tool)
    return r if r is not None and r.ok else None


def fmt(v, spec):
    return "–" if v is None else spec % v


def rel_diff(value, ref):
    if value is None or ref is None:
        return None
    if value == ref:
        return 0.0
    return (value - ref) / abs(ref) if ref != 0 else float("inf")


def fmt_seconds(v):
    if v is None:
        return "–"
    return "%.4f" % v if v < 1.0 else "%.2f" % v


def fmt_rel(v):
    if v is None:
        return "–"
    return "0" if v == 0 else "%+.1e" % v


def ratio(num, den):
    return num / den if num is not None and den else None


def accuracy_equal(r, ref):
    if r is None or ref is None:
        return "–"
    return "yes" if (r.n_correct, r.n_test) == (ref.n_correct, ref.n_test) else "no"


def main_table(datasets):
    tools = ALL_TOOLS
    head = ["dataset", "n_train", "d"]
    head += ["%s s" % TOOL_TITLES[t] for t in tools] + ["kernlearn fit_seconds"]
    in_memory = ["sklearn", "sklearnex", "thundersvm"]  # timed on the fit call, compared with fit_seconds
    head += ["LIBSVM / kernlearn"] + ["%s / kernlearn" % TOOL_TITLES[t] for t in in_memory]
    head += ["%s acc %%" % TOOL_TITLES[t] for t in tools]
    head += ["%s obj" % TOOL_TITLES[t] for t in tools]
    head += ["%s #SV" % TOOL_TITLES[t] for t in tools]
    head += ["acc = LIBSVM", "obj rel diff", "#SV rel diff"]
    align = ["---"] + ["---:"] * (len(head) - 1)
    rows = [head, align]
    for ds in datasets:
        by = {t: get(ds, t) for t in tools}
        lib, kl = by["libsvm"], by["kernlearn"]
        row = [ds.name, str(ds.n_train), str(ds.d)]
        row += [fmt_seconds(by[t] and by[t].fit_seconds) for t in tools]
        row += [fmt_seconds(kl and kl.internal_fit_seconds)]
        row += [fmt(ratio(lib and lib.fit_seconds, kl and kl.fit_seconds), "%.2f")]
        row += [fmt(ratio(by[t] and by[t].fit_seconds, kl and kl.internal_fit_seconds), "%.2f") for t in in_memory]
        row += [fmt(by[t] and 100.0 * by[t].test_accuracy, "%.2f") for t in tools]
        row += [fmt(by[t] and by[t].objective, "%.4f") for t in tools]
        row += [fmt(by[t] and by[t].n_sv, "%d") for t in tools]
        row += [accuracy_equal(kl, lib),
                fmt_rel(rel_diff(kl and kl.objective, lib and lib.objective)),
                fmt_rel(rel_diff(kl and kl.n_sv, lib and lib.n_sv))]
        rows.append(row)
    return "\n".join("| " + " | ".join(r) + " |" for r in rows)


def agreement_table(datasets):
    """Per dataset and non-LIBSVM tool: how close it gets to LIBSVM, and how many test labels
    it predicts differently from kernlearn (LIBSVM's own count is on its kernlearn row)."""
    head = ["dataset", "tool", "acc = LIBSVM", "obj rel diff", "#SV rel diff", "#iter", "LIBSVM #iter", "rho",
            "LIBSVM rho", "test labels ≠ kernlearn"]
    rows = [head, ["---", "---"] + ["---:"] * (len(head) - 2)]
    for ds in datasets:
        lib, kl = get(ds, "libsvm"), get(ds, "kernlearn")
        for tool in ("sklearn", "sklearnex", "thundersvm", "kernlearn"):
            r = get(ds, tool)
            if r is None:
                continue
            other = lib if tool == "kernlearn" else r
            differ = other.labels_vs_kernlearn if other is not None else None
            rows.append([ds.name, TOOL_TITLES[tool], accuracy_equal(r, lib),
                         fmt_rel(rel_diff(r.objective, lib and lib.objective)),
                         fmt_rel(rel_diff(r.n_sv, lib and lib.n_sv)),
                         fmt(r.iterations, "%d"), fmt(lib and lib.iterations, "%d"),
                         fmt(r.rho, "%.6f"), fmt(lib and lib.rho, "%.6f"),
                         fmt(differ, "%d") + (" (LIBSVM)" if tool == "kernlearn" and differ is not None else "")])
    if len(rows) == 2:
        return None
    return "\n".join("| " + " | ".join(r) + " |" for r in rows)


def render_report(datasets, meta):
    lines = ["Generated %s by `python3 %s` (%d timing repeat%s, median). To reproduce:" % (
        meta["date"], meta["command"], meta["repeats"], "" if meta["repeats"] == 1 else "s")]
    lines += ["", "```", meta["reproduce"], "```", ""]
    lines.append("- Machine: %s, `nproc` = %s; 1-min load average before each dataset (other "
                 "processes included): %s" % (meta["machine"]["cpu"], meta["machine"]["nproc"],
                                              ", ".join("%s %.2f" % kv for kv in meta["load"].items())))
    lines.append("- Versions: " + ", ".join("%s %s" % kv for kv in meta["versions"].items()))
    if "kernlearn" in meta["tools"]:
        lines.append("- kernlearn threads: " + meta["kernlearn_threads"])
    if "sklearnex" in meta["tools"]:
        lines.append("- sklearnex threads: " + meta.get("sklearnex_threads", sklearnex_threads_text(None)))
    lines.append("- Parameters: C-SVC, RBF, C = %r, gamma = %s, eps = %r, shrinking on, cache %d MB"
                 % (C, meta["gamma"], EPS, meta["cache_mb"]))
    lines.append("- Split: stratified 80/20, `numpy.random.default_rng(%d)`; min-max scaling with train min/max" % SEED)
    for tool, reason in meta["skipped"].items():
        lines.append("- **%s skipped**: %s" % (TOOL_TITLES[tool], reason.splitlines()[0]))
    for ds in datasets:
        for tool, r in ds.results.items():
            if not r.ok:
                lines.append("- **%s failed on %s**: %s" % (TOOL_TITLES[tool], ds.name, r.error.splitlines()[0]))
    lines += ["", main_table(datasets), ""]
    lines.append("Times in seconds: LIBSVM and kernlearn = wall clock of the `fit` process "
                 "(file reading + solving + model writing), sklearn = `SVC.fit` only; "
                 "`kernlearn fit_seconds` = the time kernlearn reports for itself. "
                 "ThunderSVM = `thundersvm.SVC.fit` only (all cores, float32 data and parameters, no "
                 "cache-size or shrinking option). "
                 "sklearnex = scikit-learn-intelex's `sklearnex.svm.SVC.fit` (Intel oneDAL; same "
                 "parameters as sklearn, float64 data, every core unless --sklearnex-threads; a fit that "
                 "falls back to scikit-learn's own SVC is reported as failed). "
                 "Ratios > 1 mean kernlearn is faster: `LIBSVM / kernlearn` compares the two process "
                 "wall clocks, `sklearn / kernlearn`, `sklearnex / kernlearn` and `ThunderSVM / kernlearn` "
                 "compare the in-memory fit with kernlearn's `fit_seconds`. "
                 "acc = test accuracy; obj = dual objective; checks compare kernlearn with LIBSVM "
                 "(rel diff = (kernlearn - LIBSVM) / |LIBSVM|).")
    agreement = agreement_table(datasets)
    if agreement:
        lines += ["", "Agreement with LIBSVM. scikit-learn wraps a modified LIBSVM (it orders the classes "
                  "differently, so SMO visits the points in another order): its rows show the differences "
                  "to expect between two correct runs of the same solver. rho is given in the convention "
                  "decision(x) = sum_i y_i alpha_i K(x_i, x) - rho, > 0 means +1 (kernlearn: as it reports "
                  "it); LIBSVM prints obj and rho with 6 decimals. ThunderSVM's objective is recomputed "
                  "from its float32 dual coefficients, sklearnex's (oneDAL's working-set solver, not "
                  "LIBSVM's) from its float64 ones. `test labels ≠ kernlearn` counts the test rows where "
                  "the tool's predicted label differs from kernlearn's (on kernlearn's row: LIBSVM's).",
                  "", agreement]
    if meta.get("dense_target"):
        lines += ["", target_claims(datasets)]
    return "\n".join(lines)


def target_claims(datasets):
    """The dense speed target, checked per dataset against LIBSVM."""
    out = ["Target (kernlearn's process >= %.1fx faster than LIBSVM's, objective within %.0e relative, "
           "same number of support vectors, same test accuracy):" % (TARGET_SPEEDUP, TARGET_OBJ_REL), ""]
    for ds in datasets:
        lib, kl = get(ds, "libsvm"), get(ds, "kernlearn")
        if lib is None or kl is None:
            out.append("- %s: not checked (LIBSVM or kernlearn missing)" % ds.name)
            continue
        speed = ratio(lib.fit_seconds, kl.fit_seconds)
        obj = rel_diff(kl.objective, lib.objective)
        checks = [("speed %.2fx" % speed, speed >= TARGET_SPEEDUP),
                  ("objective rel diff %s" % fmt_rel(obj), obj is not None and abs(obj) <= TARGET_OBJ_REL),
                  ("#SV %d vs %d" % (kl.n_sv, lib.n_sv), kl.n_sv == lib.n_sv),
                  ("accuracy %s" % ("equal" if accuracy_equal(kl, lib) == "yes" else "differs"),
                   accuracy_equal(kl, lib) == "yes")]
        failed = [text for text, ok in checks if not ok]
        out.append("- %s: %s -> %s" % (ds.name, "; ".join(text for text, _ in checks),
                                        "target met" if not failed else "NOT met (%s)" % ", ".join(failed)))
    return "\n".join(out)


def write_markdown(path, section, begin=MD_BEGIN, end=MD_END):
    """Replace the text between `begin` and `end`; append the block if they are absent."""
    MD_BEGIN, MD_END = begin, end  # noqa: N806 (the markers of the calling benchmark)
    block = MD_BEGIN + "\n" + section.rstrip() + "\n" + MD_END
    text = open(path).read() if os.path.exists(path) else "# Benchmarks\n\n"
    b, e = text.find(MD_BEGIN), text.find(MD_END)
    if b >= 0 and e > b:
        text = text[:b] + block + text[e + len(MD_END):]
    else:
        text = text.rstrip("\n") + "\n\n" + block + "\n"
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


# ----------------------------------------------------------------------------
# main
# ----------------------------------------------------------------------------


def parse_list(text, allowed, what):
    items = [s.strip() for s in text.split(",") if s.strip()]
    bad = [s for s in items if s not in allowed]
    if bad or not items:
        raise SystemExit("unknown %s %s; choose from %s" % (what, ",".join(bad) or "(none)", ",".join(allowed)))
    return items


def set_cost(c):
    """Sets the C every runner reads (a module constant, so the report states it)."""
    global C
    if not (c > 0 and np.isfinite(c)):
        raise SystemExit("--c must be a positive finite number, got %r" % c)
    C = float(np.float32(c))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--datasets", default=DEFAULT_DATASETS_DIR, metavar="DIR",
                    help="directory with <name>.csv (default: <repo>/../shared/datasets)")
    ap.add_argument("--datasets-list", default=",".join(ALL_DATASETS), metavar="A,B",
                    help="comma-separated subset of " + ",".join(ALL_DATASETS))
    ap.add_argument("--tools", default=",".join(ALL_TOOLS), metavar="A,B",
                    help="comma-separated subset of " + ",".join(ALL_TOOLS))
    ap.add_argument("--repeats", type=int, default=3, help="timing repeats, the median is reported (default 3)")
    ap.add_argument("--cache-mb", type=int, default=100, help="kernel cache size in MB for all tools (default 100)")
    ap.add_argument("--workdir", help="where to write the LIBSVM files and models (default: a fresh temp dir, removed afterwards)")
    ap.add_argument("--no-build", action="store_true", help="do not run `cargo build --release -q`")
    ap.add_argument("--kernlearn-bin", default=KERNLEARN_BIN, help="kernlearn binary (default: target/release/kernlearn)")
    ap.add_argument("--kernlearn-threads", type=int, metavar="N",
                    help="set RAYON_NUM_THREADS=N for kernlearn (default: leave the environment alone)")
    ap.add_argument("--write-md", metavar="FILE", help="(re)write the section between the bench_svm markers of FILE")
    ap.add_argument("--json", metavar="FILE", help="dump all raw numbers to FILE")
    ap.add_argument("--dense-target", action="store_true",
                    help="the dense speed target: magic and shuttle-binary at C = %g, gamma = %g, checked "
                         "against LIBSVM (>= %.1fx, objective %.0e); --write-md then rewrites the "
                         "bench_svm_target section" % (TARGET_C, TARGET_GAMMA, TARGET_SPEEDUP, TARGET_OBJ_REL))
    ap.add_argument("--thundersvm-threads", type=int, metavar="N",
                    help="n_jobs of ThunderSVM (default -1: every core)")
    ap.add_argument("--sklearnex-threads", type=int, metavar="N",
                    help="n_jobs of sklearnex's SVC, i.e. oneDAL's threads (default: oneDAL's, every core)")
    ap.add_argument("--c", type=float, default=C, help="C of every fit (default %r)" % C)
    ap.add_argument("--gamma", type=float, metavar="G",
                    help="RBF gamma of every fit, rounded to float32 (default float32(1/d) per dataset)")
    args = ap.parse_args(argv)
    if args.dense_target:
        args.datasets_list, args.c, args.gamma = ",".join(TARGET_DATASETS), TARGET_C, TARGET_GAMMA
    set_cost(args.c)
    if args.repeats < 1:
        ap.error("--repeats must be >= 1")

    names = parse_list(args.datasets_list, ALL_DATASETS, "dataset")
    requested = parse_list(args.tools, ALL_TOOLS, "tool")
    datasets_dir = os.path.abspath(args.datasets)
    if not os.path.isdir(datasets_dir):
        raise SystemExit("datasets directory %s does not exist (use --datasets DIR)" % datasets_dir)
    tools, skipped = check_tools(requested, args)
    if not tools:
        raise SystemExit("no tool available to benchmark")

    temp, workdir = make_workdir(args.workdir, "bench_svm_")

    runners = {
        "libsvm": lambda s, g: run_libsvm(s, g, args.cache_mb, args.repeats, workdir),
        "sklearn": lambda s, g: run_sklearn(s, g, args.cache_mb, args.repeats),
        "sklearnex": lambda s, g: run_sklearn(s, g, args.cache_mb, args.repeats, "sklearnex",
                                              args.sklearnex_threads),
        "thundersvm": lambda s, g: run_thundersvm(s, g, args.cache_mb, args.repeats, args.thundersvm_threads),
        "kernlearn": lambda s, g: run_kernlearn(s, g, args.cache_mb, args.repeats, workdir,
                                                args.kernlearn_bin, args.kernlearn_threads),
    }
    results = []
    load = {}
    try:
        for name in names:
            load[name] = os.getloadavg()[0]
            split = prepare_split(name, datasets_dir, workdir)
            gamma = f32(args.gamma if args.gamma is not None else 1.0 / split.d)
            ds = DatasetResult(name, len(split.ytr), len(split.yte), split.d, C, gamma, EPS, args.cache_mb,
                               split.train_file, split.test_file)
            print("%s: n_train=%d n_test=%d d=%d gamma=%r" % (name, ds.n_train, ds.n_test, ds.d, gamma),
                  file=sys.stderr)
            for tool in tools:
                try:
                    r = runners[tool](split, gamma)
                except Exception as e:  # keep going with the other tools / datasets
                    r = fail(ToolResult(tool), "%s: %s" % (type(e).__name__, e))
                if r.ok:
                    print("  [%s] %.3f s, acc %.4f, obj %.6f, nSV %s" % (
                        tool, r.fit_seconds, r.test_accuracy, r.objective if r.objective is not None else float("nan"),
                        r.n_sv), file=sys.stderr)
                ds.results[tool] = r
            label_differences(ds)
            results.append(ds)
    finally:
        if temp:
            shutil.rmtree(workdir, ignore_errors=True)

    meta = {
        "date": datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z"),
        "machine": machine_info(),
        "versions": tool_versions(tools, args),
        "repeats": args.repeats,
        "cache_mb": args.cache_mb,
        "gamma": "float32(%r)" % args.gamma if args.gamma is not None else "float32(1/d)",
        "kernlearn_threads": ("RAYON_NUM_THREADS=%d (--kernlearn-threads)" % args.kernlearn_threads
                              if args.kernlearn_threads is not None else
                              "default (RAYON_NUM_THREADS=%s)" % os.environ["RAYON_NUM_THREADS"]
                              if "RAYON_NUM_THREADS" in os.environ else "default (RAYON_NUM_THREADS unset)"),
        "sklearnex_threads": sklearnex_threads_text(args.sklearnex_threads),
        "tools": tools,
        "skipped": skipped,
        "load": load,
        "dense_target": args.dense_target,
        "reproduce": REPRODUCE_TARGET if args.dense_target else REPRODUCE,
        "command": shlex.join([os.path.relpath(__file__, REPO_ROOT)] + (argv if argv is not None else sys.argv[1:])),
    }
    report = render_report(results, meta)
    print(report)
    if args.write_md:
        if args.dense_target:
            write_markdown(args.write_md, report, MD_TARGET_BEGIN, MD_TARGET_END)
        else:
            write_markdown(args.write_md, report)
        print("wrote %s" % args.write_md, file=sys.stderr)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"meta": meta, "datasets": [json_dataset(d) for d in results]}, f, indent=2)
        print("wrote %s" % args.json, file=sys.stderr)
    return 0


def label_differences(ds):
    """Sets each tool's `labels_vs_kernlearn`: test rows whose predicted label differs from kernlearn's."""
    kl = get(ds, "kernlearn")
    for tool, r in ds.results.items():
        if tool == "kernlearn" or not r.ok or kl is None or kl.predictions is None or r.predictions is None:
            continue
        if len(r.predictions) == len(kl.predictions):
            r.labels_vs_kernlearn = int(np.sum(r.predictions != kl.predictions))


def json_dataset(ds):
    """The dataset's results for --json, without the per-row predictions."""
    out = dataclasses.asdict(ds)
    for r in out["results"].values():
        r.pop("predictions", None)
    return out


if __name__ == "__main__":
    sys.exit(main())
