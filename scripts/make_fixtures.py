#!/usr/bin/env python3
"""Generate reference fixtures for kernlearn's SMO solver from LIBSVM's CLI tools.

Run from the repository root:

    python3 scripts/make_fixtures.py

Requirements: Debian/Ubuntu `libsvm-tools` (svm-train, svm-predict) and
`pip install numpy scikit-learn`.  Writes everything into tests/fixtures/
(see tests/fixtures/README.md for the layout).

What it does
------------
1. Reads the unscaled CSVs in /work/shared/datasets (override with the
   KERNLEARN_DATASETS environment variable), min-max scales every feature to
   [0, 1] using all rows of the problem (train + test; constant column -> 0),
   splits even-indexed rows -> train and odd-indexed rows -> test, and writes
   LIBSVM-format files (repr(float), zero values omitted) and CSVs.
2. Runs svm-train / svm-predict for every case, parses the solver log, the
   model file and the predictions, recomputes the decision values (and Platt
   probabilities) in Python, asserts that they reproduce svm-predict, and
   cross-checks against scikit-learn.
3. Writes one JSON file per case, plus the model files.
"""

import json
import math
import os
import re
import subprocess
import sys

import numpy as np

REPO_ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), os.pardir))
FIX_REL = "tests/fixtures"
FIX = os.path.join(REPO_ROOT, FIX_REL)
DATASETS = os.environ.get("KERNLEARN_DATASETS", "/work/shared/datasets")

EPS_STOP = 0.001
CACHE_MB = 100

# ----------------------------------------------------------------------------
# 1. data
# ----------------------------------------------------------------------------

# Tiny hand-checkable binary problem: integer coordinates in [0, 4] on both
# axes, so that after min-max scaling every value is k/4 (exact in binary).
# Rows alternate train/test (even index = train).  +1 = upper right.
TINY_ROWS = [
    # x, y, label          index  split
    (4, 4, +1),          # 0      train
    (4, 2, +1),          # 1      test
    (0, 0, -1),          # 2      train
    (0, 3, -1),          # 3      test
    (3, 2, +1),          # 4      train
    (3, 3, +1),          # 5      test
    (1, 2, -1),          # 6      train
    (1, 1, -1),          # 7      test
    (2, 3, +1),          # 8      train
    (2, 4, +1),          # 9      test
    (3, 0, -1),          # 10     train
    (2, 2, -1),          # 11     test (near the boundary; LIBSVM misclassifies it)
]
# Notes: row 2 scales to (0, 0), so its LIBSVM line has no features at all
# (an edge case for readers).  All 6 training points become SVs (4 at the bound
# C=1, 2 free), rho != 0.


def load_csv(path, max_rows=None):
    with open(path) as f:
        header = f.readline().strip().split(",")
    data = np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2)
    if max_rows is not None:
        data = data[:max_rows]
    return header, data[:, :-1].astype(np.float64), data[:, -1].astype(np.float64)


def minmax_scale(X):
    lo = X.min(axis=0)
    hi = X.max(axis=0)
    out = np.zeros_like(X)
    for j in range(X.shape[1]):
        if hi[j] > lo[j]:
            out[:, j] = (X[:, j] - lo[j]) / (hi[j] - lo[j])
        # constant column -> 0
    return out


def fmt_label(v, regression):
    if regression:
        return repr(float(v))
    assert float(v).is_integer()
    return str(int(v))


def write_libsvm(path, X, y, regression):
    with open(path, "w") as f:
        for row, lab in zip(X, y):
            parts = [fmt_label(lab, regression)]
            for j, v in enumerate(row):
                if v != 0.0:
                    parts.append("%d:%s" % (j + 1, repr(float(v))))
            f.write(" ".join(parts) + "\n")


def write_csv(path, X, y, regression):
    d = X.shape[1]
    with open(path, "w") as f:
        f.write(",".join(["f%d" % (j + 1) for j in range(d)] + ["target" if regression else "label"]) + "\n")
        for row, lab in zip(X, y):
            f.write(",".join([repr(float(v)) for v in row] + [fmt_label(lab, regression)]) + "\n")


def read_libsvm(path, d):
    X, y = [], []
    with open(path) as f:
        for line in f:
            parts = line.split()
            y.append(float(parts[0]))
            row = np.zeros(d)
            for p in parts[1:]:
                i, v = p.split(":")
                row[int(i) - 1] = float(v)
            X.append(row)
    return np.array(X), np.array(y)


DATASET_SPECS = {
    # name: (csv file, max rows, regression)
    "heart": ("heart.csv", None, False),
    "sonar": ("sonar.csv", None, False),
    "wine": ("wine.csv", None, False),
    "glass": ("glass.csv", None, False),
    "housing": ("housing.csv", 300, True),
}


def make_datasets():
    datasets = {}
    items = list(DATASET_SPECS.items()) + [("tiny", (None, None, False))]
    for name, (csv, max_rows, regression) in items:
        if name == "tiny":
            raw = np.array(TINY_ROWS, dtype=np.float64)
            Xraw, y = raw[:, :2], raw[:, 2]
            with open(os.path.join(FIX, "tiny.raw.csv"), "w") as f:
                f.write("x,y,label\n")
                for a, b, c in TINY_ROWS:
                    f.write("%d,%d,%d\n" % (a, b, c))
            source = "hand-made (TINY_ROWS in scripts/make_fixtures.py; unscaled copy in tiny.raw.csv)"
        else:
            _, Xraw, y = load_csv(os.path.join(DATASETS, csv), max_rows)
            source = "%s/%s%s" % (DATASETS, csv, "" if max_rows is None else " (first %d rows)" % max_rows)
        X = minmax_scale(Xraw)
        tr = np.arange(0, len(X), 2)
        te = np.arange(1, len(X), 2)
        for split, idx in (("train", tr), ("test", te)):
            write_libsvm(os.path.join(FIX, "%s.%s.libsvm" % (name, split)), X[idx], y[idx], regression)
            write_csv(os.path.join(FIX, "%s.%s.csv" % (name, split)), X[idx], y[idx], regression)
        # sanity: the written LIBSVM file reads back bit-identically
        Xr, yr = read_libsvm(os.path.join(FIX, "%s.train.libsvm" % name), X.shape[1])
        assert np.array_equal(Xr, X[tr]) and np.array_equal(yr, y[tr])
        datasets[name] = dict(
            Xtr=X[tr], ytr=y[tr], Xte=X[te], yte=y[te], regression=regression,
            d=X.shape[1], source=source, n=len(X),
        )
    return datasets


# ----------------------------------------------------------------------------
# 2. LIBSVM runs
# ----------------------------------------------------------------------------

SVM_TYPES = {0: "c_svc", 1: "nu_svc", 2: "one_class", 3: "epsilon_svr", 4: "nu_svr"}
KERNEL_TYPES = {0: "linear", 1: "polynomial", 2: "rbf", 3: "sigmoid"}

CASES = [
    # case name, dataset, svm-train options (without -e/-m/-h and files), extra
    ("heart_csvc_rbf", "heart", "-s 0 -t 2 -c 1 -g 0.1", {}),
    ("sonar_csvc_rbf", "sonar", "-s 0 -t 2 -c 10 -g 0.5", {}),
    ("tiny_csvc_rbf", "tiny", "-s 0 -t 2 -c 1 -g 1", {}),
    ("heart_csvc_linear", "heart", "-s 0 -t 0 -c 0.5", {}),
    ("heart_csvc_poly", "heart", "-s 0 -t 1 -d 3 -g 0.1 -r 1 -c 1", {}),
    ("heart_csvc_rbf_weighted", "heart", "-s 0 -t 2 -c 1 -g 0.1 -w1 2 -w-1 0.5", {}),
    ("wine_csvc_rbf", "wine", "-s 0 -t 2 -c 2 -g 0.2", {}),
    ("glass_csvc_rbf", "glass", "-s 0 -t 2 -c 10 -g 1", {}),
    ("heart_nusvc_rbf", "heart", "-s 1 -t 2 -n 0.3 -g 0.1", {}),
    ("wine_nusvc_rbf", "wine", "-s 1 -t 2 -n 0.2 -g 0.2", {}),
    ("housing_epssvr_rbf", "housing", "-s 3 -t 2 -c 10 -g 0.2 -p 0.1", {}),
    ("housing_nusvr_rbf", "housing", "-s 4 -t 2 -c 10 -g 0.2 -n 0.4", {}),
    ("heart_oneclass_rbf", "heart", "-s 2 -t 2 -n 0.1 -g 0.5", {}),
    ("heart_csvc_rbf_prob", "heart", "-s 0 -t 2 -c 1 -g 0.1 -b 1", {}),
    ("wine_csvc_rbf_prob", "wine", "-s 0 -t 2 -c 2 -g 0.2 -b 1", {}),
]


def parse_options(opts, d):
    """Parse an svm-train option string into LIBSVM's svm_parameter (with defaults),
    real values rounded to float32 as Debian's svm-train does (see f32)."""
    p = dict(s=0, t=2, d=3, g=None, r=0.0, c=1.0, n=0.5, p=0.1, b=0, weights={})
    toks = opts.split()
    i = 0
    while i < len(toks):
        k, v = toks[i], toks[i + 1]
        i += 2
        if k.startswith("-w"):
            p["weights"][k[2:]] = f32(v)
            continue
        key = k[1:]
        if key in ("s", "t", "d", "b"):
            p[key] = int(v)
        else:
            p[key] = f32(v)
    if p["g"] is None:
        p["g"] = 1.0 / d  # LIBSVM computes the default in double precision
    return p


def f32(text):
    """Debian's svm-train (libsvm-tools 3.24+ds) parses real-valued options with
    strtof, so the value LIBSVM actually uses is the float32 rounding of what was
    typed (e.g. -g 0.1 -> 0.10000000149011612; the model file shows this).  We
    record and use these effective values everywhere (also for scikit-learn)."""
    return float(np.float32(float(text)))


FLOAT = r"([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|[-+]?nan|[-+]?inf)"


def parse_train_log(text):
    blocks, totals, warnings = [], [], []
    cur = None
    for line in text.splitlines():
        m = re.search(r"optimization finished, #iter = (\d+)", line)
        if m:
            cur = {"iter": int(m.group(1))}
            continue
        if "WARNING" in line or "reaching max" in line:
            warnings.append(line.strip())
        m = re.match(r"^\s*(nu|C|epsilon) = " + FLOAT + r"\s*$", line)
        if m and cur is not None:
            cur[m.group(1)] = float(m.group(2))
            continue
        m = re.search(r"obj = " + FLOAT + r", rho = " + FLOAT, line)
        if m:
            cur["obj"] = float(m.group(1))
            cur["rho"] = float(m.group(2))
            continue
        m = re.search(r"^nSV = (\d+), nBSV = (\d+)", line)
        if m:
            cur["nSV"] = int(m.group(1))
            cur["nBSV"] = int(m.group(2))
            blocks.append(cur)
            cur = None
            continue
        m = re.search(r"Total nSV = (\d+)", line)
        if m:
            totals.append(int(m.group(1)))
    return blocks, totals, warnings


def parse_model(path, d):
    with open(path) as f:
        lines = f.read().splitlines()
    hdr = {}
    i = 0
    while lines[i] != "SV":
        parts = lines[i].split()
        hdr[parts[0]] = parts[1:]
        i += 1
    sv_lines = lines[i + 1:]
    m = {
        "svm_type": hdr["svm_type"][0],
        "kernel_type": hdr["kernel_type"][0],
        "nr_class": int(hdr["nr_class"][0]),
        "total_sv": int(hdr["total_sv"][0]),
        "rho": [float(v) for v in hdr["rho"]],
        "degree": int(hdr["degree"][0]) if "degree" in hdr else None,
        "gamma": float(hdr["gamma"][0]) if "gamma" in hdr else None,
        "coef0": float(hdr["coef0"][0]) if "coef0" in hdr else None,
        "label": [int(v) for v in hdr["label"]] if "label" in hdr else None,
        "nr_sv": [int(v) for v in hdr["nr_sv"]] if "nr_sv" in hdr else None,
        "probA": [float(v) for v in hdr["probA"]] if "probA" in hdr else None,
        "probB": [float(v) for v in hdr["probB"]] if "probB" in hdr else None,
    }
    ncoef = m["nr_class"] - 1
    coefs, svs = [], []
    for line in sv_lines:
        if not line.strip():
            continue
        parts = line.split()
        coefs.append([float(v) for v in parts[:ncoef]])
        row = np.zeros(d)
        for p in parts[ncoef:]:
            k, v = p.split(":")
            row[int(k) - 1] = float(v)
        svs.append(row)
    assert len(svs) == m["total_sv"]
    m["sv_coef"] = np.array(coefs)  # (nSV, k-1)
    m["SV"] = np.array(svs)
    return m


def kernel_matrix(kt, gamma, coef0, degree, A, B):
    """K[i, j] = k(A[i], B[j]) computed the way LIBSVM's Kernel::k_function does."""
    if kt == "linear":
        return A @ B.T
    if kt == "polynomial":
        return (gamma * (A @ B.T) + coef0) ** degree
    if kt == "rbf":
        diff = A[:, None, :] - B[None, :, :]
        return np.exp(-gamma * np.sum(diff * diff, axis=2))
    if kt == "sigmoid":
        return np.tanh(gamma * (A @ B.T) + coef0)
    raise ValueError(kt)


def decision_values(model, SV, X):
    """LIBSVM svm_predict_values.  Returns (dec (n, npairs), pred (n,))."""
    kt = model["kernel_type"]
    K = kernel_matrix(kt, model["gamma"], model["coef0"], model["degree"], X, SV)  # (n, nSV)
    coef = model["sv_coef"]
    st = model["svm_type"]
    if st in ("one_class", "epsilon_svr", "nu_svr"):
        dec = K @ coef[:, 0] - model["rho"][0]
        if st == "one_class":
            pred = np.where(dec > 0, 1.0, -1.0)
        else:
            pred = dec.copy()
        return dec[:, None], pred
    k = model["nr_class"]
    nr_sv = model["nr_sv"]
    start = np.concatenate([[0], np.cumsum(nr_sv)[:-1]]).astype(int)
    n = X.shape[0]
    decs = []
    vote = np.zeros((n, k), dtype=int)
    p = 0
    for i in range(k):
        for j in range(i + 1, k):
            si, sj, ci, cj = start[i], start[j], nr_sv[i], nr_sv[j]
            s = K[:, si:si + ci] @ coef[si:si + ci, j - 1] + K[:, sj:sj + cj] @ coef[sj:sj + cj, i]
            s = s - model["rho"][p]
            decs.append(s)
            vote[:, i] += (s > 0)
            vote[:, j] += ~(s > 0)
            p += 1
    dec = np.stack(decs, axis=1)
    pred = np.array([model["label"][int(np.argmax(v))] for v in vote], dtype=float)  # argmax = first max, as LIBSVM
    return dec, pred


def sigmoid_predict(dec, A, B):
    fApB = dec * A + B
    if fApB >= 0:
        return math.exp(-fApB) / (1.0 + math.exp(-fApB))
    return 1.0 / (1.0 + math.exp(fApB))


def multiclass_probability(k, r):
    """LIBSVM's multiclass_probability (Wu, Lin & Weng 2004, method 2), verbatim."""
    p = [1.0 / k] * k
    Q = [[0.0] * k for _ in range(k)]
    Qp = [0.0] * k
    max_iter = max(100, k)
    eps = 0.005 / k
    for t in range(k):
        Q[t][t] = 0.0
        for j in range(t):
            Q[t][t] += r[j][t] * r[j][t]
            Q[t][j] = Q[j][t]
        for j in range(t + 1, k):
            Q[t][t] += r[j][t] * r[j][t]
            Q[t][j] = -r[j][t] * r[t][j]
    it = 0
    while it < max_iter:
        pQp = 0.0
        for t in range(k):
            Qp[t] = 0.0
            for j in range(k):
                Qp[t] += Q[t][j] * p[j]
            pQp += p[t] * Qp[t]
        max_error = 0.0
        for t in range(k):
            err = abs(Qp[t] - pQp)
            if err > max_error:
                max_error = err
        if max_error < eps:
            break
        for t in range(k):
            diff = (-Qp[t] + pQp) / Q[t][t]
            p[t] += diff
            pQp = (pQp + diff * (diff * Q[t][t] + 2 * Qp[t])) / (1 + diff) / (1 + diff)
            for j in range(k):
                Qp[j] = (Qp[j] + diff * Q[t][j]) / (1 + diff)
                p[j] /= (1 + diff)
        it += 1
    return p


def predict_probability(model, dec_row):
    """LIBSVM svm_predict_probability for C-SVC / nu-SVC.  Returns (label, probs)."""
    k = model["nr_class"]
    min_prob = 1e-7
    r = [[0.0] * k for _ in range(k)]
    p = 0
    for i in range(k):
        for j in range(i + 1, k):
            v = min(max(sigmoid_predict(dec_row[p], model["probA"][p], model["probB"][p]), min_prob), 1 - min_prob)
            r[i][j] = v
            r[j][i] = 1 - v
            p += 1
    if k == 2:
        probs = [r[0][1], r[1][0]]
    else:
        probs = multiclass_probability(k, r)
    return model["label"][int(np.argmax(probs))], probs


def match_sv_indices(model, SV, Xtr, ytr, tol=1e-7):
    """1-based indices of the model's SVs in the training file.

    Model SV values are printed with %.8g, so match with a tolerance; within
    a class (classification) or globally (regression / one-class) LIBSVM keeps
    the SVs in increasing training-row order, which we assert.
    """
    st = model["svm_type"]
    if model["nr_sv"] is not None and st in ("c_svc", "nu_svc"):
        sv_class = np.repeat(model["label"], model["nr_sv"])
    else:
        sv_class = [None] * len(SV)
    idx = []
    for s, c in zip(SV, sv_class):
        close = np.all(np.abs(Xtr - s[None, :]) <= tol * np.maximum(1.0, np.abs(s[None, :])), axis=1)
        if c is not None:
            close &= (ytr == c)
        cand = np.nonzero(close)[0]
        assert len(cand) == 1, "SV matched %d training rows" % len(cand)
        idx.append(int(cand[0]) + 1)
    # ordering check
    if sv_class[0] is None:
        assert all(a < b for a, b in zip(idx, idx[1:]))
    else:
        pos = 0
        for n in model["nr_sv"]:
            grp = idx[pos:pos + n]
            assert all(a < b for a, b in zip(grp, grp[1:]))
            pos += n
    return idx


def run(cmd):
    res = subprocess.run(cmd, cwd=REPO_ROOT, shell=True, capture_output=True, text=True)
    if res.returncode != 0:
        sys.exit("command failed (%d): %s\n%s\n%s" % (res.returncode, cmd, res.stdout, res.stderr))
    return res.stdout


def parse_predict_stdout(text):
    out = {}
    m = re.search(r"Accuracy = " + FLOAT + r"% \((\d+)/(\d+)\)", text)
    if m:
        out["accuracy_percent"] = float(m.group(1))
        out["correct"] = int(m.group(2))
        out["total"] = int(m.group(3))
    m = re.search(r"Mean squared error = " + FLOAT, text)
    if m:
        out["mse"] = float(m.group(1))
    m = re.search(r"Squared correlation coefficient = " + FLOAT, text)
    if m:
        out["scc"] = float(m.group(1))
    return out


def read_predictions(path, prob):
    with open(path) as f:
        lines = f.read().splitlines()
    if not prob:
        return [float(l) for l in lines], None, None
    hdr = lines[0].split()
    assert hdr[0] == "labels"
    order = [int(v) for v in hdr[1:]]
    labs, probs = [], []
    for l in lines[1:]:
        parts = l.split()
        labs.append(float(parts[0]))
        probs.append([float(v) for v in parts[1:]])
    return labs, probs, order


def sklearn_decision(opts, ds, model):
    """Fit the equivalent scikit-learn estimator; return decision values mapped to
    LIBSVM's layout/sign convention, and a note describing the mapping."""
    from sklearn.svm import SVC, NuSVC, SVR, NuSVR, OneClassSVM

    kern = {0: "linear", 1: "poly", 2: "rbf", 3: "sigmoid"}[opts["t"]]
    kw = dict(kernel=kern, gamma=opts["g"], coef0=opts["r"], degree=opts["d"], tol=f32(EPS_STOP),
              shrinking=True, cache_size=CACHE_MB)
    X, y, Xte = ds["Xtr"], ds["ytr"], ds["Xte"]
    s = opts["s"]
    if s == 0:
        cw = {int(k): v for k, v in opts["weights"].items()} or None
        est = SVC(C=opts["c"], class_weight=cw, decision_function_shape="ovo", **kw)
    elif s == 1:
        est = NuSVC(nu=opts["n"], decision_function_shape="ovo", **kw)
    elif s == 2:
        est = OneClassSVM(nu=opts["n"], **kw)
    elif s == 3:
        est = SVR(C=opts["c"], epsilon=opts["p"], **kw)
    elif s == 4:
        est = NuSVR(C=opts["c"], nu=opts["n"], **kw)
    if s == 2:
        est.fit(X)
    else:
        est.fit(X, y)
    if s in (2, 3, 4):
        dec = est.decision_function(Xte) if s == 2 else est.predict(Xte)
        return np.asarray(dec).reshape(-1, 1), "same convention as LIBSVM (no sign change)"
    dec = np.asarray(est.decision_function(Xte))
    classes = [int(c) for c in est.classes_]  # sorted ascending
    labels = model["label"]
    k = len(labels)
    if k == 2:
        # sklearn: dec > 0 -> classes_[1] (the larger label).  LIBSVM: dec > 0 -> label[0].
        sign = 1.0 if labels[0] == classes[1] else -1.0
        note = ("binary: sklearn dec>0 means classes_[1]=%d, LIBSVM dec>0 means label[0]=%d, so sklearn values were "
                "multiplied by %+d" % (classes[1], labels[0], int(sign)))
        return (sign * dec).reshape(-1, 1), note
    # multiclass ovo: sklearn pairs (a<b) in sorted class order, dec > 0 -> a.
    pairs_sk = {}
    p = 0
    for a in range(k):
        for b in range(a + 1, k):
            pairs_sk[(classes[a], classes[b])] = p
            p += 1
    cols, signs = [], []
    for i in range(k):
        for j in range(i + 1, k):
            li, lj = labels[i], labels[j]
            if li < lj:
                cols.append(pairs_sk[(li, lj)])
                signs.append(1.0)
            else:
                cols.append(pairs_sk[(lj, li)])
                signs.append(-1.0)
    note = ("multiclass ovo: sklearn pairs are in ascending class order with dec>0 meaning the smaller class; "
            "mapped onto LIBSVM's pair order (label order %s), flipping sign where LIBSVM's first class of the pair "
            "is the larger label (flips: %d)" % (labels, int(sum(1 for v in signs if v < 0))))
    return dec[:, cols] * np.array(signs), note


def run_case(case, dsname, optstr, ds):
    d = ds["d"]
    opts = parse_options(optstr, d)
    prob = opts["b"] == 1
    train_file = "%s/%s.train.libsvm" % (FIX_REL, dsname)
    test_file = "%s/%s.test.libsvm" % (FIX_REL, dsname)
    model_file = "%s/%s.model" % (FIX_REL, case)
    pred_file = "%s/%s.pred.tmp" % (FIX_REL, case)
    cmd = "svm-train %s -e %g -m %d -h 1 %s %s" % (optstr, EPS_STOP, CACHE_MB, train_file, model_file)
    log = run(cmd)
    blocks, totals, warnings = parse_train_log(log)

    model = parse_model(os.path.join(REPO_ROOT, model_file), d)
    st = model["svm_type"]
    assert st == SVM_TYPES[opts["s"]]
    k = model["nr_class"]
    npairs = k * (k - 1) // 2 if st in ("c_svc", "nu_svc") else 1
    cv_blocks = []
    if prob:
        assert len(blocks) == 6 * npairs, "expected 5 CV + 1 final block per pair, got %d blocks" % len(blocks)
        final = [b for i, b in enumerate(blocks) if i % 6 == 5]
        cv_blocks = [b for i, b in enumerate(blocks) if i % 6 != 5]
        blocks = final
    assert len(blocks) == npairs, (case, len(blocks), npairs)

    # predictions (svm-predict)
    pcmd = "svm-predict %s%s %s %s" % ("-b 1 " if prob else "", test_file, model_file, pred_file)
    pout = run(pcmd)
    preds, probs_out, prob_order = read_predictions(os.path.join(REPO_ROOT, pred_file), prob)
    pstats = parse_predict_stdout(pout)
    vote_preds = None
    if prob:
        pcmd_vote = "svm-predict %s %s %s" % (test_file, model_file, pred_file)
        run(pcmd_vote)
        vote_preds, _, _ = read_predictions(os.path.join(REPO_ROOT, pred_file), False)
    os.remove(os.path.join(REPO_ROOT, pred_file))

    # SV indices, decision values from model-file SVs (reproduce svm-predict exactly)
    sv_idx = match_sv_indices(model, model["SV"], ds["Xtr"], ds["ytr"])
    dec_m, pred_m = decision_values(model, model["SV"], ds["Xte"])
    ref_preds = vote_preds if prob else preds
    if st in ("epsilon_svr", "nu_svr"):
        assert np.allclose(pred_m, ref_preds, rtol=1e-12, atol=1e-12), np.max(np.abs(pred_m - ref_preds))
    else:
        assert np.array_equal(pred_m, np.array(ref_preds)), "%s: decision values do not reproduce svm-predict" % case
    # decision values from the full-precision training rows (the values a
    # reimplementation training on the same files should reproduce)
    SV_full = ds["Xtr"][np.array(sv_idx) - 1]
    dec_f, pred_f = decision_values(model, SV_full, ds["Xte"])
    full_vs_model = float(np.max(np.abs(dec_f - dec_m)))
    flips = int(np.sum(pred_f != pred_m)) if st not in ("epsilon_svr", "nu_svr") else 0

    probabilities = probs_full = None
    if prob:
        assert prob_order == model["label"]
        probabilities = probs_out
        for row_dec, row_p, lab in zip(dec_m, probs_out, preds):
            l2, p2 = predict_probability(model, row_dec)
            assert l2 == lab, (case, l2, lab)
            assert np.allclose(p2, row_p, atol=1e-6, rtol=1e-5), (case, p2, row_p)
        probs_full = [predict_probability(model, row)[1] for row in dec_f]

    # accuracy / mse
    yte = ds["yte"]
    res = {}
    if st in ("epsilon_svr", "nu_svr"):
        mse = float(np.mean((np.array(preds) - yte) ** 2))
        assert abs(mse - pstats["mse"]) <= 1e-5 * max(1.0, abs(mse)), (mse, pstats)
        res["test_mse"] = mse
        res["test_squared_correlation"] = pstats.get("scc")
    elif st == "one_class":
        res["test_accuracy"] = None
        res["test_inlier_fraction"] = float(np.mean(np.array(preds) == 1.0))
    else:
        correct = int(np.sum(np.array(preds) == yte))
        assert correct == pstats["correct"]
        res["test_accuracy"] = correct / len(yte)
        if prob:
            res["test_accuracy_vote"] = float(np.mean(np.array(vote_preds) == yte))

    # scikit-learn cross-check
    skdec, sknote = sklearn_decision(opts, ds, model)
    sk_diff = float(np.max(np.abs(skdec - dec_f)))

    # For binary classification scikit-learn orders the classes ascending, so its
    # internal "first" (y = +1 in the dual) class is the smaller label (-1),
    # whereas LIBSVM 3.24 puts +1 first (it swaps a -1/+1 pair when -1 comes
    # first).  The dual is the same problem with y negated, but SMO then takes a
    # different path, so the two solutions only agree to within the stopping
    # tolerance.  To show that this is the only difference, retrain LIBSVM on the
    # label-negated file (weights swapped accordingly) and compare that too.
    sk_flip_diff = None
    if st in ("c_svc", "nu_svc") and k == 2:
        flip_train = "%s/%s.flip.tmp" % (FIX_REL, case)
        flip_model = "%s/%s.flipmodel.tmp" % (FIX_REL, case)
        with open(os.path.join(REPO_ROOT, train_file)) as f, open(os.path.join(REPO_ROOT, flip_train), "w") as g:
            for line in f:
                parts = line.split()
                g.write(" ".join([str(-int(parts[0]))] + parts[1:]) + "\n")
        fopts = []
        toks = optstr.split()
        for a, b in zip(toks[::2], toks[1::2]):
            if a.startswith("-w"):
                a = "-w%d" % (-int(a[2:]))
            if a != "-b":
                fopts += [a, b]
        run("svm-train -q %s -e %g -m %d -h 1 %s %s" % (" ".join(fopts), EPS_STOP, CACHE_MB, flip_train, flip_model))
        fm = parse_model(os.path.join(REPO_ROOT, flip_model), d)
        fsv = ds["Xtr"][np.array(match_sv_indices(fm, fm["SV"], ds["Xtr"], -ds["ytr"])) - 1]
        fdec, _ = decision_values(fm, fsv, ds["Xte"])
        # fdec > 0 means flipped label fm.label[0], i.e. original label -fm.label[0];
        # express it in this case's convention (dec > 0 -> model.label[0]).
        if -fm["label"][0] != model["label"][0]:
            fdec = -fdec
        sk_flip_diff = float(np.max(np.abs(skdec - fdec)))
        os.remove(os.path.join(REPO_ROOT, flip_train))
        os.remove(os.path.join(REPO_ROOT, flip_model))

    # params
    kt = model["kernel_type"]
    kernel = {
        "type": kt,
        "gamma": opts["g"] if kt in ("polynomial", "rbf", "sigmoid") else None,
        "coef0": opts["r"] if kt in ("polynomial", "sigmoid") else None,
        "degree": opts["d"] if kt == "polynomial" else None,
    }
    if model["gamma"] is not None:
        assert model["gamma"] == kernel["gamma"]
    params = {
        "C": opts["c"] if st in ("c_svc", "epsilon_svr", "nu_svr") else None,
        "nu": opts["n"] if st in ("nu_svc", "one_class", "nu_svr") else None,
        "epsilon_svr": opts["p"] if st == "epsilon_svr" else None,
        "weights": {k_: v for k_, v in opts["weights"].items()},
        "eps": f32(EPS_STOP),
        "shrinking": True,
        "cache_mb": CACHE_MB,
        "probability": prob,
    }

    requested = {"C": None, "nu": None, "epsilon_svr": None, "gamma": None, "coef0": None, "eps": EPS_STOP,
                 "weights": {}}
    toks = optstr.split()
    for a, b in zip(toks[::2], toks[1::2]):
        key = {"-c": "C", "-n": "nu", "-p": "epsilon_svr", "-g": "gamma", "-r": "coef0"}.get(a)
        if key:
            requested[key] = float(b)
        elif a.startswith("-w"):
            requested["weights"][a[2:]] = float(b)

    multi = st in ("c_svc", "nu_svc") and k > 2
    if multi:
        tdv = dec_f.tolist()
    else:
        tdv = dec_f[:, 0].tolist()
    regression = st in ("epsilon_svr", "nu_svr")
    out = {
        "case": case,
        "command": cmd,
        "predict_command": pcmd,
        "svm_type": st,
        "kernel": kernel,
        "params": params,
        "params_requested": requested,
        "params_note": ("kernel/params hold the values LIBSVM actually used: Debian's svm-train parses real-valued "
                        "options with strtof, so they are the float32 roundings of params_requested "
                        "(gamma 0.1 -> 0.10000000149011612)"),
        "dataset": dsname,
        "dataset_source": ds["source"],
        "train_file": train_file,
        "test_file": test_file,
        "train_csv": "%s/%s.train.csv" % (FIX_REL, dsname),
        "test_csv": "%s/%s.test.csv" % (FIX_REL, dsname),
        "model_file": model_file,
        "n_train": int(len(ds["ytr"])),
        "n_test": int(len(ds["yte"])),
        "n_features": d,
        "labels": model["label"],
        "nr_class": k,
        "nr_sv": model["nr_sv"],
        "subproblems": blocks,
        "total_nsv": model["total_sv"],
        "rho": model["rho"],
        "sv_indices": sv_idx,
        "sv_coef": model["sv_coef"].tolist(),
        "test_predictions": [float(v) if regression else int(v) for v in preds],
    }
    if totals:
        out["total_nsv_printed"] = totals[-1]
        assert totals[-1] == model["total_sv"]
    out.update(res)
    out["test_decision_values"] = tdv
    out["decision_values_full_vs_model_file_max_abs_diff"] = full_vs_model
    out["decision_values_full_vs_model_file_label_flips"] = flips
    if prob:
        out["test_predictions_vote"] = [int(v) for v in vote_preds]
        out["prob_A"] = model["probA"]
        out["prob_B"] = model["probB"]
        out["probabilities"] = probabilities
        out["probabilities_full_precision"] = probs_full
        out["probability_cv_subproblems"] = cv_blocks
    out["sklearn_max_abs_diff_decision"] = sk_diff
    out["sklearn_sign_convention"] = sknote
    if sk_flip_diff is not None:
        out["sklearn_max_abs_diff_decision_vs_libsvm_trained_on_negated_labels"] = sk_flip_diff
    if warnings:
        out["train_warnings"] = warnings
    out["train_stdout"] = log
    with open(os.path.join(FIX, case + ".json"), "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
    return out


def svm_train_version():
    try:
        r = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "libsvm-tools"], capture_output=True, text=True)
        return r.stdout.strip() or "unknown"
    except OSError:
        return "unknown"


README_HEAD = """# LIBSVM reference fixtures

Independent ground truth for kernlearn's SMO solver, produced by LIBSVM's own
command-line tools (Debian `libsvm-tools`) and cross-checked against
scikit-learn.  **Everything in this directory is generated** (this README
included) by

    python3 scripts/make_fixtures.py        # run from the repository root

which needs `apt-get install libsvm-tools` and `pip install numpy scikit-learn`,
plus the unscaled CSVs in `/work/shared/datasets` (override with the
`KERNLEARN_DATASETS` environment variable).  Generated with:

- libsvm-tools (`dpkg -s libsvm-tools | grep Version`): **{libsvm}** (LIBSVM 3.24)
- numpy {numpy}, scikit-learn {sklearn}, Python {python}

Regeneration is deterministic (two consecutive runs give byte-identical files,
including the `-b 1` probability cases; see below).

## Data files

For every problem `<name>`:

| file | content |
| --- | --- |
| `<name>.train.libsvm`, `<name>.test.libsvm` | LIBSVM sparse format, `label idx:val ...`, 1-based indices, values written with `repr(float)` (round-trip exact), **zero values omitted** (a row can have no features at all: `tiny.train.libsvm` line 2 is just `-1`) |
| `<name>.train.csv`, `<name>.test.csv` | the same rows and values, dense, header `f1,...,fd,label` (or `target` for regression) |

Preparation: every feature is min-max scaled to [0, 1] using **all rows of the
problem** (train + test together; a constant column would become 0; none
occurs).  Rows are then split deterministically: even-indexed rows (0, 2, 4,
...) are the training set, odd-indexed rows the test set.  Class labels are
written as integers, regression targets (unscaled) with `repr(float)`.

| name | source | rows | features | train / test | task |
| --- | --- | ---: | ---: | ---: | --- |
{dataset_rows}

`housing` uses only the first 300 rows of `housing.csv`; the min-max scaling is
computed on those 300 rows.  `tiny` is a hand-made 12-point 2-D problem
(integer coordinates 0..4, so every scaled value is k/4 and exact in binary);
`tiny.raw.csv` holds the unscaled points.  `manifest.json` lists the versions,
datasets and cases.

## Cases

For each case `<case>`: `<case>.model` is the model file written by `svm-train`
and `<case>.json` the parsed results.  All runs use `-e 0.001 -m 100 -h 1`
(shrinking on).  obj/rho/nSV below are from the solver log (`obj`, `rho`
printed with `%f`); the exact `rho` values are in the JSON/model files.

| case | data | svm-train options | obj | rho | nSV (total) | nBSV | test metric | sklearn max abs diff (as is / vs LIBSVM on negated labels) |
| --- | --- | --- | --- | --- | ---: | --- | --- | --- |
{case_rows}

## JSON keys

- `case`, `command` (exact `svm-train` command line, run from the repository
  root), `predict_command` (`svm-predict`; its output file is deleted
  afterwards), `svm_type` (`c_svc`, `nu_svc`, `one_class`, `epsilon_svr`,
  `nu_svr`).
- `kernel` {{`type`, `gamma`, `coef0`, `degree`}}: `null` where the kernel does not
  use the parameter.  `params` {{`C`, `nu`, `epsilon_svr`, `weights`, `eps`,
  `shrinking`, `cache_mb`, `probability`}}: `null` where the formulation does not
  use it.  **These are the values LIBSVM actually used** (see "float32
  parameters" below); `params_requested` holds the values as typed.
- `train_file`, `test_file`, `train_csv`, `test_csv`, `model_file`, `n_train`,
  `n_test`, `n_features`, `dataset`, `dataset_source`.
- `labels`: LIBSVM's class order (model `label` line; `null` for
  regression/one-class), `nr_class`, `nr_sv` (SVs per class, in `labels` order).
- `subproblems`: one object per binary subproblem, in LIBSVM's pair order
  (0,1), (0,2), ..., (0,k-1), (1,2), ... over `labels`, with `iter`, `obj`, `rho`,
  `nSV`, `nBSV` and whatever extra line LIBSVM printed: `nu` (C-SVC without
  class weights, and epsilon-SVR: sum(alpha)/(C l)), `C` (nu-SVC: 1/r; there
  `obj` and `rho` are printed after the division by r), `epsilon` (nu-SVR).
- `total_nsv` (model file), `total_nsv_printed` (the `Total nSV` line, when
  printed: classification only), `rho` (list from the model file, full
  precision), `sv_coef` (one list of k-1 coefficients per SV, model-file order,
  full precision).
- `sv_indices`: 1-based row numbers in the training file of the SVs, in
  model-file order.  LIBSVM stores the SVs class by class (in `labels` order)
  and, within a class (or overall for regression/one-class), in increasing
  training-row order; the script asserts this.
- `test_predictions`: svm-predict's output (with `-b 1` for the probability
  cases), `test_accuracy` (fraction) or `test_mse` + `test_squared_correlation`;
  for one-class `test_accuracy` is `null` and `test_inlier_fraction` is given.
- `test_decision_values`: computed in Python from `rho`, `sv_coef` and the
  **full-precision training rows** given by `sv_indices` (the values a
  reimplementation training on these files should reproduce).  One number per
  test point for binary, regression and one-class; a list of k(k-1)/2 numbers
  (pair order as above) for multiclass.  Pair (i,j) value =
  sum over SVs of class i of coef[j-1] K + sum over SVs of class j of coef[i] K - rho[p];
  value > 0 votes for `labels[i]`, otherwise (including exactly 0) for
  `labels[j]`; the label with most votes wins, ties going to the earlier label.
  Binary: > 0 means `labels[0]`.  Regression: the value is the prediction.
  One-class: > 0 means +1 (inlier).
- `decision_values_full_vs_model_file_max_abs_diff`: the model file prints SV
  feature values with `%.8g`, so the decision values svm-predict computes
  differ from the full-precision ones by up to ~2e-7 (no predicted label
  changes: `..._label_flips`).  The script recomputes the decision values from
  the model-file SVs as well and asserts they reproduce svm-predict's labels
  exactly (regression: values to 1e-12 relative), so regression
  `test_predictions` (svm-predict) and `test_decision_values` (full precision)
  differ by this much.
- `sklearn_max_abs_diff_decision`, `sklearn_sign_convention`,
  `sklearn_max_abs_diff_decision_vs_libsvm_trained_on_negated_labels`: see
  below.
- probability cases only: `prob_A`, `prob_B` (model file, one per pair),
  `probabilities` (svm-predict `-b 1` output, `%g` = 6 significant digits,
  columns in `labels` order), `probabilities_full_precision` (recomputed from the
  full-precision decision values with LIBSVM's sigmoid and
  `multiclass_probability`, min_prob 1e-7; the script asserts that the same
  computation on the model-file decision values reproduces svm-predict's
  probabilities and labels), `test_predictions_vote` (plain svm-predict, no
  `-b`), `test_accuracy_vote`, `probability_cv_subproblems` (the 5 internal
  cross-validation trainings per pair, which svm-train runs before the final
  training of that pair; `subproblems` holds only the final ones).
- `train_stdout`: the complete svm-train log; `train_warnings` if any.

## Oddities and conventions worth knowing

1. **float32 parameters.**  Debian's `svm-train` 3.24+ds parses real-valued
   options (`-c -g -r -n -p -e -w`) with `strtof`, so e.g. `-g 0.1` trains with
   gamma = 0.10000000149011612 (the model file shows it; checked: `-g 0.1` and
   `-g 0.10000000149011612` give byte-identical models).  The JSON `kernel` and
   `params` hold these effective values and scikit-learn was given the same
   values.  A reimplementation comparing at the 1e-8 level should use them.
2. **Binary label order.**  LIBSVM orders classes by first appearance in the
   training file, except that a -1/+1 problem whose first row is -1 is swapped
   so that +1 comes first.  `sonar.train` starts with a -1 row, yet `labels` is
   `[1, -1]`.  All binary fixtures therefore have `labels = [1, -1]` and
   decision value > 0 means +1.
3. **scikit-learn vs svm-train.**  Multiclass, regression, one-class and `tiny`
   agree to ~1e-13.  The other binary cases differ by 5e-4 to 3e-2 (largest: nu-SVC on heart,
   3.4e-2, where the decision values are up to about 4.4 in size) because
   scikit-learn sorts the classes, so its internal "positive" class is -1
   while LIBSVM's is +1: the same dual with y negated, which SMO solves along a
   different path, so the two answers agree only to within the stopping
   tolerance.  Retraining svm-train on the label-negated training file (class
   weights swapped) agrees with scikit-learn to ~1e-13
   (`sklearn_max_abs_diff_decision_vs_libsvm_trained_on_negated_labels`).  So
   a reimplementation should expect exact agreement with LIBSVM only if it uses
   LIBSVM's class orientation.  Sign mapping: sklearn's binary decision > 0
   means `classes_[1]` (+1), the same as LIBSVM here, so no sign change was
   needed; for multiclass, sklearn's `ovo` columns (ascending class pairs,
   > 0 = smaller class) were mapped onto LIBSVM's pair order (wine and glass are
   in ascending order already, so no flips).
4. **Probabilities are LIBSVM-specific.**  Platt scaling runs a 5-fold CV whose
   shuffle uses the C library `rand()`, never seeded by svm-train, so the
   results are reproducible with the same glibc but not by another
   implementation.  The model itself (SVs, coefficients, rho) is identical to
   the run without `-b 1`, and here the probability argmax agrees with the
   vote on every test point.
5. **Precision of the log.**  `obj`, `rho`, `nu`, `C`, `epsilon` in
   `subproblems` are printed with `%f` (6 decimals); `rho` and `sv_coef` from the
   model are full precision (`%.17g`); model SV feature values are `%.8g`.
6. heart C-SVC RBF (C=1, g=0.1) scores 79.3% test accuracy on this
   even/odd split; the other heart classifiers score 80-85%.
7. `tiny`: training row 2 is the origin, so its LIBSVM line carries no
   features; all 6 training points are SVs (4 at the bound), and the test
   point (2,2) -> (0.5, 0.5) is misclassified (decision value +0.078, true label
   -1), hence accuracy 5/6.
"""


def write_readme(summary, datasets):
    ds_rows = []
    for name, v in datasets.items():
        task = "regression" if v["regression"] else (
            "binary" if len(np.unique(v["ytr"])) == 2 else "%d classes" % len(np.unique(v["ytr"])))
        ds_rows.append("| `%s` | %s | %d | %d | %d / %d | %s |" % (
            name, v["source"], v["n"], v["d"], len(v["ytr"]), len(v["yte"]), task))
    case_rows = []
    for o in summary:
        sp = o["subproblems"]
        opts = o["command"].split(" -e ")[0][len("svm-train "):]
        if len(sp) <= 3:
            obj = ", ".join(repr(b["obj"]) for b in sp)
            rho = ", ".join(repr(b["rho"]) for b in sp)
            nbsv = ", ".join(str(b["nBSV"]) for b in sp)
        else:
            obj = rho = nbsv = "%d pairs, see JSON" % len(sp)
        if o.get("test_accuracy") is not None:
            metric = "acc %.4f" % o["test_accuracy"]
        elif "test_mse" in o:
            metric = "MSE %.4f" % o["test_mse"]
        else:
            metric = "inliers %.3f" % o["test_inlier_fraction"]
        flip = o.get("sklearn_max_abs_diff_decision_vs_libsvm_trained_on_negated_labels")
        skd = "%.1e" % o["sklearn_max_abs_diff_decision"] + (" / %.1e" % flip if flip is not None else "")
        case_rows.append("| `%s` | %s | `%s` | %s | %s | %d | %s | %s | %s |" % (
            o["case"], o["dataset"], opts, obj, rho, o["total_nsv"], nbsv, metric, skd))
    text = README_HEAD.format(
        libsvm=svm_train_version(), numpy=np.__version__, sklearn=__import__("sklearn").__version__,
        python="%d.%d" % sys.version_info[:2], dataset_rows="\n".join(ds_rows), case_rows="\n".join(case_rows))
    with open(os.path.join(FIX, "README.md"), "w") as f:
        f.write(text)


def main():
    os.makedirs(FIX, exist_ok=True)
    datasets = make_datasets()
    summary = []
    for case, dsname, optstr, _ in CASES:
        out = run_case(case, dsname, optstr, datasets[dsname])
        summary.append(out)
        sp = out["subproblems"]
        acc = out.get("test_accuracy")
        metric = ("acc=%.4f" % acc) if acc is not None else (
            "mse=%.4f" % out["test_mse"] if "test_mse" in out else "inliers=%.3f" % out["test_inlier_fraction"])
        print("%-26s nSV=%-4d %s  sk_diff=%.2e  obj=%s rho=%s" % (
            case, out["total_nsv"], metric, out["sklearn_max_abs_diff_decision"],
            [b["obj"] for b in sp], [round(r, 6) for r in out["rho"]]))
    with open(os.path.join(FIX, "manifest.json"), "w") as f:
        json.dump({
            "generator": "scripts/make_fixtures.py",
            "libsvm_tools_version": svm_train_version(),
            "numpy_version": np.__version__,
            "sklearn_version": __import__("sklearn").__version__,
            "cases": [o["case"] for o in summary],
            "datasets": {k: {"source": v["source"], "n": v["n"], "n_features": v["d"],
                             "n_train": int(len(v["ytr"])), "n_test": int(len(v["yte"]))}
                         for k, v in datasets.items()},
        }, f, indent=1)
        f.write("\n")
    write_readme(summary, datasets)


if __name__ == "__main__":
    main()
