#!/usr/bin/env python3
"""Sparse-data benchmark: kernlearn `fit --sparse` beside LIBSVM `svm-train`, scikit-learn
`SVC` on a CSR matrix, scikit-learn-intelex (`sklearnex.svm.SVC`, Intel oneDAL, on a CSR
matrix) and ThunderSVM-CPU (`thundersvm.SVC` on a CSR matrix), on the same sparse LIBSVM files.

    python3 scripts/bench_sparse.py                                   # both sets, 3 repeats
    python3 scripts/bench_sparse.py --adult-rows 5000 --repeats 1     # quick check
    python3 scripts/bench_sparse.py --datasets-list adult --adult-rows 500 --tools sklearn,sklearnex,kernlearn --repeats 1
    python3 scripts/bench_sparse.py --write-md docs/BENCHMARKS.md --json out/sparse.json

Datasets (written once into the work directory, then read by every tool):
* adult: <repo>/../shared/datasets/adult.csv (45,222 rows, 103 columns: the one-hot
  categorical columns as published plus 6 numeric ones); the first --adult-rows rows,
  split 80/20 stratified and min-max scaled with the training minimum / maximum exactly as
  scripts/bench_svm.py does, written as sparse LIBSVM files (zeros omitted).
* text-hashed: a generated high-dimensional sparse set, reproducible without a download:
  every distinct paragraph of 80 characters or more of the docstrings of the public names
  (and of the public methods of the classes) of the modules of a fixed list of Python
  standard-library packages, and of the interpreter's help topics (`pydoc_data`) (text shipped with the interpreter; `__main__` and test modules
  are not imported), word uni- and bi-grams hashed with crc32 into 2^18 columns, counts
  scaled to unit Euclidean norm per row; label +1 for the `email`, `http`, `urllib`, `xml`,
  `json`, `html`, `wsgiref`, `xmlrpc` packages (networking / formats), -1 otherwise; split
  80/20 stratified. Its exact size depends on the Python version (the report states n, d,
  nnz and density).

Parameters: C-SVC, RBF, C = 4, gamma = 0.5 (adult) and 1 (text-hashed; rows have unit norm),
eps = 0.001, 100 MB kernel cache, shrinking on, all rounded to float32 as Debian's
svm-train parses them (see bench_svm.py).

Per tool and dataset: the median wall seconds of the fit (kernlearn and svm-train: the
whole process, reading the file and writing the model; scikit-learn, sklearnex and
ThunderSVM: the `fit` call on an in-memory CSR matrix, and their process also loads the
file), the peak resident memory of that process (`ru_maxrss` of a child started for it
alone), the model file's size (scikit-learn and sklearnex: their pickle), the number of
support vectors, the dual objective (LIBSVM's and kernlearn's as they report it, recomputed
from the dual coefficients for scikit-learn, sklearnex and ThunderSVM), the test accuracy
and the number of test rows whose predicted label differs from kernlearn's. A tool that is
missing or cannot run here is reported as skipped with the reason (ThunderSVM and sklearnex
are first probed with a toy fit in a child process, as bench_svm.py does; a sklearnex fit
or prediction that falls back to scikit-learn's own SVC counts as a failure). sklearnex
gets scikit-learn's parameters (cache, shrinking) and oneDAL's threads (every core unless
--sklearnex-threads, its n_jobs).
"""

import argparse
import contextlib
import datetime
import importlib
import json
import os
import pickle
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import time
import zlib

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_svm as bs  # noqa: E402 (shared split, scaling, LIBSVM parsing, Markdown writer)

ROOT = bs.REPO_ROOT
TOOLS = ["libsvm", "sklearn", "sklearnex", "thundersvm", "kernlearn"]
TITLES = {"libsvm": "LIBSVM svm-train", "sklearn": "scikit-learn SVC (CSR)", "sklearnex": "sklearnex SVC (CSR)",
          "thundersvm": "ThunderSVM SVC (CSR)", "kernlearn": "kernlearn fit --sparse"}
C = bs.f32(4.0)
EPS = bs.EPS
CACHE_MB = 100
GAMMA = {"adult": bs.f32(0.5), "text-hashed": bs.f32(1.0)}
HASH_BITS = 18
MD_BEGIN = "<!-- bench_sparse:begin -->"
MD_END = "<!-- bench_sparse:end -->"
REPRODUCE = "python3 scripts/bench_sparse.py --write-md docs/BENCHMARKS.md"
ADULT_SPEEDUP = 1.5  # LIBSVM process wall / kernlearn process wall on adult
TEXT_MEMORY = 2.0  # kernlearn peak RSS / LIBSVM peak RSS on the high-dimensional set


# ----------------------------------------------------------------------------
# data
# ----------------------------------------------------------------------------


def write_rows(path, rows, labels):
    """Sparse LIBSVM text; rows = list of (sorted column array (0-based), value array)."""
    with open(path, "w") as out:
        for (cols, vals), label in zip(rows, labels):
            cells = " ".join("%d:%r" % (j + 1, float(v)) for j, v in zip(cols, vals) if v != 0.0)
            out.write("%+d %s\n" % (int(label), cells))


def file_stats(path):
    """(rows, largest column index, non-zeros) of a LIBSVM file."""
    n = nnz = d = 0
    with open(path) as f:
        for line in f:
            toks = line.split()
            if not toks:
                continue
            n += 1
            feats = toks[1:]
            nnz += len(feats)
            if feats:
                d = max(d, int(feats[-1].split(":", 1)[0]))
    return n, d, nnz


def prepare_adult(workdir, rows):
    X, y = bs.load_csv(os.path.join(ROOT, os.pardir, "shared", "datasets", "adult.csv"))
    if rows is not None:
        if rows < 10:
            raise SystemExit("--adult-rows must be at least 10, got %d" % rows)
        X, y = X[:rows], y[:rows]
    tr, te = bs.stratified_split(y)
    Xtr, Xte = bs.minmax_fit_transform(X[tr], X[te])
    train, test = os.path.join(workdir, "adult.train.svm"), os.path.join(workdir, "adult.test.svm")
    bs.write_libsvm(train, Xtr, y[tr])
    bs.write_libsvm(test, Xte, y[te])
    return {"name": "adult", "train": train, "test": test, "d_declared": X.shape[1],
            "source": "adult.csv, %d rows, one-hot as published, min-max [0, 1]" % len(y)}


POSITIVE = ("email", "http", "urllib", "xml", "json", "html", "wsgiref", "xmlrpc")
PACKAGES = POSITIVE + ("asyncio", "collections", "concurrent", "ctypes", "importlib", "logging",
                       "multiprocessing", "sqlite3", "unittest", "encodings", "pydoc_data", "re",
                       "tomllib", "zoneinfo")


def hashed_documents(bits=HASH_BITS):
    """(rows, labels) of the text-hashed set; see the module docstring."""
    import pkgutil

    names = []
    for pkg in PACKAGES:
        top = importlib.import_module(pkg)
        names.append(pkg)
        names += [m.name for m in pkgutil.walk_packages(top.__path__, pkg + ".", onerror=lambda _: None)]
    rows, labels, seen = [], [], set()
    mask = (1 << bits) - 1
    for mod in sorted(set(names)):
        parts = mod.split(".")
        # __main__ modules run a program when imported; test suites are not library text.
        if "__main__" in parts or any(p.startswith("test") for p in parts[1:]):
            continue
        try:
            module = importlib.import_module(mod)
        except BaseException:  # noqa: BLE001 - a module that does not import here is skipped
            continue
        docs = []
        for name, obj in sorted(vars(module).items()):
            if name.startswith("_"):
                continue
            docs.append(getattr(obj, "__doc__", None))
            if isinstance(obj, type):  # the public methods a class defines itself
                docs += [getattr(m, "__doc__", None) for k, m in sorted(vars(obj).items()) if not k.startswith("_")]
        if mod == "pydoc_data.topics":  # the interpreter's help texts, one per topic
            docs += list(getattr(module, "topics", {}).values())
        paragraphs = [p for doc in docs if isinstance(doc, str) for p in re.split(r"\n\s*\n", doc)]
        for doc in paragraphs:
            if len(doc) < 80 or doc in seen:
                continue
            seen.add(doc)
            words = re.findall(r"[a-z]+", doc.lower())
            counts = {}
            for g in words + [a + " " + b for a, b in zip(words, words[1:])]:
                h = zlib.crc32(g.encode()) & mask
                counts[h] = counts.get(h, 0) + 1
            cols = np.array(sorted(counts), dtype=np.int64)
            vals = np.array([counts[c] for c in cols], dtype=np.float64)
            rows.append((cols, vals / np.linalg.norm(vals)))
            labels.append(1 if parts[0] in POSITIVE else -1)
    return rows, np.array(labels, dtype=np.float64)


def prepare_text(workdir):
    rows, y = hashed_documents()
    if len(np.unique(y)) != 2:
        raise SystemExit("text-hashed: the documents found here have only one class")
    tr, te = bs.stratified_split(y)
    train, test = os.path.join(workdir, "text-hashed.train.svm"), os.path.join(workdir, "text-hashed.test.svm")
    write_rows(train, [rows[i] for i in tr], y[tr])
    write_rows(test, [rows[i] for i in te], y[te])
    return {"name": "text-hashed", "train": train, "test": test, "d_declared": 1 << HASH_BITS,
            "source": "%d docstring paragraphs of %d standard-library packages (Python %s), uni+bi-grams, "
                      "crc32 mod 2^%d, unit-norm rows" % (len(y), len(PACKAGES), sys.version.split()[0], HASH_BITS)}


# ----------------------------------------------------------------------------
# measuring
# ----------------------------------------------------------------------------

WRAPPER = (
    "import resource, subprocess, sys, time, json\n"
    "t = time.perf_counter()\n"
    "try:\n"
    "    p = subprocess.run(sys.argv[2:], capture_output=True, text=True, timeout=float(sys.argv[1]))\n"
    "    rc, out, err = p.returncode, p.stdout, p.stderr\n"
    "except subprocess.TimeoutExpired:\n"
    "    rc, out, err = 'timeout', '', ''\n"
    "w = time.perf_counter() - t\n"
    "print(json.dumps({'rc': rc, 'wall': w, 'out': out, 'err': err,\n"
    "                  'rss_kib': resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}))\n"
)
TIMEOUT = [1800.0]  # seconds per measured process (--timeout)


def measure_isolated(cmd, env=None):
    """Runs `cmd` as the only child of a fresh interpreter, so that the peak RSS is its own.

    Returns {'wall', 'rss_mib', 'out'}; raises RuntimeError with the command's stderr,
    or when it ran longer than --timeout (it is killed then)."""
    proc = subprocess.run([sys.executable, "-c", WRAPPER, repr(TIMEOUT[0]), *cmd], capture_output=True,
                          text=True, env=env)
    if proc.returncode != 0:
        raise RuntimeError("measuring wrapper failed: %s" % proc.stderr.strip()[-600:])
    res = json.loads(proc.stdout)
    if res["rc"] == "timeout":
        raise RuntimeError("`%s` did not finish within --timeout %g s (killed)" % (shlex.join(cmd), TIMEOUT[0]))
    if res["rc"] != 0:
        first = next((l for l in res["err"].splitlines() if l.strip()), "no message on stderr")
        raise RuntimeError("`%s` exited with status %d: %s\n%s" % (
            shlex.join(cmd), res["rc"], first, res["err"][-2000:]))
    return {"wall": res["wall"], "rss_mib": res["rss_kib"] / 1024.0, "out": res["out"]}


def libsvm_sv_nnz(model):
    """Non-zeros of the support vectors stored in a LIBSVM model file."""
    nnz, in_sv = 0, False
    with open(model) as f:
        for line in f:
            if in_sv:
                nnz += len(line.split()) - 1
            elif line.strip() == "SV":
                in_sv = True
    return nnz


def run_libsvm(ds, gamma, repeats, work):
    model = os.path.join(work, ds["name"] + ".libsvm.model")
    cmd = ["svm-train", "-s", "0", "-t", "2", "-c", repr(C), "-g", repr(gamma), "-e", repr(EPS),
           "-m", str(CACHE_MB), ds["train"], model]
    runs = [measure_isolated(cmd) for _ in range(repeats)]
    log = bs.parse_svm_train_log(runs[0]["out"])
    if "objective" not in log or "n_sv" not in log:
        raise RuntimeError("could not parse svm-train's output:\n" + runs[0]["out"][-1000:])
    labels = os.path.join(work, ds["name"] + ".libsvm.pred")
    pred = subprocess.run(["svm-predict", ds["test"], model, labels], capture_output=True, text=True)
    m = re.search(r"Accuracy = \S+% \((\d+)/(\d+)\)", pred.stdout)
    if pred.returncode != 0 or not m:
        raise RuntimeError("svm-predict failed: %s%s" % (pred.stdout[-500:], pred.stderr[-500:]))
    return {"runs": runs, "command": shlex.join(cmd), "objective": log["objective"], "n_sv": log["n_sv"],
            "iterations": log.get("iterations"), "model_bytes": os.path.getsize(model),
            "sv_nnz": libsvm_sv_nnz(model), "n_correct": int(m.group(1)), "n_test": int(m.group(2)),
            "labels_file": labels}


def run_kernlearn(ds, gamma, repeats, work, binary, threads):
    model = os.path.join(work, ds["name"] + ".kernlearn.json")
    env = dict(os.environ)
    if threads is not None:
        env["RAYON_NUM_THREADS"] = str(threads)
    cmd = [binary, "fit", "--data", ds["train"], "--sparse", "--scale", "none", "--method", "svc",
           "--kernel", "rbf", "--gamma", repr(gamma), "-c", repr(C), "--tol", repr(EPS),
           "--cache-mb", str(CACHE_MB), "--model-out", model, "--force", "--json", "--no-train-score", "--quiet"]
    runs = [measure_isolated(cmd, env) for _ in range(repeats)]
    fit = bs.parse_json_output(runs[0]["out"])
    labels = os.path.join(work, ds["name"] + ".kernlearn.pred.csv")
    pcmd = [binary, "predict", "--model", model, "--data", ds["test"], "-o", labels, "--force", "--json", "--quiet"]
    proc = subprocess.run(pcmd, capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        raise RuntimeError("`%s` failed: %s" % (shlex.join(pcmd), proc.stderr.strip()[-1000:]))
    pred = bs.parse_json_output(proc.stdout)
    n_test = int(pred["n_test"])
    acc = bs.accuracy_fraction(float(pred["test_accuracy"]))
    return {"runs": runs, "command": shlex.join(cmd), "objective": fit.get("objective"),
            "n_sv": fit.get("n_support"), "iterations": fit.get("iterations"),
            "internal_fit_seconds": statistics.median(
                float(bs.parse_json_output(r["out"])["fit_seconds"]) for r in runs),
            "model_bytes": os.path.getsize(model), "n_correct": int(round(acc * n_test)), "n_test": n_test,
            "labels_file": labels}


def run_python_tool(tool, ds, gamma, repeats, work, threads):
    model = os.path.join(work, "%s.%s.model" % (ds["name"], tool))
    cmd = [sys.executable, os.path.abspath(__file__), "--child", tool, ds["train"], ds["test"],
           repr(gamma), model] + ([] if threads is None else ["--child-threads", str(threads)])
    runs = [measure_isolated(cmd) for _ in range(repeats)]
    outs = [json.loads(r["out"]) for r in runs]
    for r, o in zip(runs, outs):
        r["process_wall"] = r["wall"]
        r["wall"] = o["fit_seconds"]  # the fit call alone, as bench_svm.py times these tools
    o = outs[0]
    fallbacks = sorted({f for out in outs for f in out.get("onedal_fallbacks", [])})
    if fallbacks:  # the numbers would be scikit-learn's, not oneDAL's
        raise RuntimeError("sklearnex fell back to scikit-learn: " + "; ".join(fallbacks))
    return {"runs": runs, "command": o["estimator"], "objective": o["objective"], "n_sv": o["n_sv"],
            "iterations": None, "model_bytes": os.path.getsize(model),
            "n_correct": o["n_correct"], "n_test": o["n_test"], "labels_file": model + ".pred"}


def load_csr(path, n_features=None):
    """CSR with 32-bit indices (scikit-learn's SVC and ThunderSVM's C interface require them)."""
    import scipy.sparse as sp
    from sklearn.datasets import load_svmlight_file

    X, y = load_svmlight_file(path, n_features=n_features)
    X = sp.csr_matrix((X.data, X.indices.astype(np.int32), X.indptr.astype(np.int32)), shape=X.shape)
    return X, y


def sparse_rbf_objective(coef, SV, gamma, block=512):
    """0.5 c^T K c - sum |c| for CSR support vectors (see bench_svm.rbf_dual_objective)."""
    coef = np.asarray(coef.toarray() if hasattr(coef, "toarray") else coef, dtype=np.float64).ravel()
    SV = SV.tocsr().astype(np.float64)
    sq = np.asarray(SV.multiply(SV).sum(axis=1)).ravel()
    quad = 0.0
    for s in range(0, SV.shape[0], block):
        A = SV[s:s + block]
        d2 = sq[s:s + block, None] + sq[None, :] - 2.0 * (A @ SV.T).toarray()
        np.maximum(d2, 0.0, out=d2)
        quad += coef[s:s + block] @ (np.exp(-gamma * d2) @ coef)
    return 0.5 * quad - np.abs(coef).sum()


def thundersvm_svc():
    """thundersvm.SVC with the labels of its sparse path passed as float32.

    thundersvm-cpu 0.3.3's Python wrapper hands `sparse_model_scikit` the labels as int32,
    while the library reads float32 labels (its dense path passes float32): every label
    then becomes a class of its own (a 2-class problem is fitted as n classes, one pair
    of points at a time). The patched method is the wrapper's own with that one type
    changed, so ThunderSVM fits the CSR matrix as the other tools do."""
    import inspect
    import textwrap

    import thundersvm  # noqa: F401 - loads the package and its library

    # The package star-imports its module, whose CDLL handle is also named `thundersvm`
    # and hides the submodule attribute, so the module is taken from sys.modules.
    tsv = sys.modules["thundersvm.thundersvm"]

    src = textwrap.dedent(inspect.getsource(tsv.SvmModel._sparse_fit))
    bad = ("y = np.asarray(y, dtype=np.int32, order='C')", "label = y.ctypes.data_as(POINTER(c_int32))")
    good = ("y = np.asarray(y, dtype=np.float32, order='C')", "label = y.ctypes.data_as(POINTER(c_float))")
    if all(b in src for b in bad):
        for b, g in zip(bad, good):
            src = src.replace(b, g)
        namespace = {}
        exec(compile(src, tsv.__file__, "exec"), vars(tsv), namespace)  # noqa: S102 - the wrapper's own code
        tsv.SvmModel._sparse_fit = namespace["_sparse_fit"]
    return tsv.SVC


def child(args):
    """One fit of scikit-learn or ThunderSVM in this process; prints one JSON object."""
    tool, train, test, gamma, model = args.child
    gamma = float(gamma)
    Xtr, ytr = load_csr(train)
    Xte, yte = load_csr(test)
    if Xte.shape[1] > Xtr.shape[1]:  # test columns never seen in training carry no weight
        Xte = Xte[:, :Xtr.shape[1]].tocsr()
    else:
        Xte.resize(Xte.shape[0], Xtr.shape[1])
    dispatch = None
    if tool == "sklearn":
        from sklearn.svm import SVC
        clf = SVC(C=C, kernel="rbf", gamma=gamma, tol=EPS, cache_size=CACHE_MB, shrinking=True)
        desc = "sklearn.svm.SVC(C=%r, kernel='rbf', gamma=%r, tol=%r, cache_size=%d)" % (C, gamma, EPS, CACHE_MB)
    elif tool == "sklearnex":
        from sklearnex.svm import SVC
        clf = SVC(C=C, kernel="rbf", gamma=gamma, tol=EPS, cache_size=CACHE_MB, shrinking=True,
                  n_jobs=args.child_threads)
        desc = "sklearnex.svm.SVC(C=%r, kernel='rbf', gamma=%r, tol=%r, cache_size=%d, n_jobs=%r)" % (
            C, gamma, EPS, CACHE_MB, args.child_threads)
        dispatch = bs.OneDalDispatch()
    else:
        SVC = thundersvm_svc()
        n_jobs = args.child_threads if args.child_threads is not None else -1
        clf = SVC(kernel="rbf", C=C, gamma=gamma, tol=EPS, n_jobs=n_jobs)
        desc = "thundersvm.SVC(kernel='rbf', C=%r, gamma=%r, tol=%r, n_jobs=%d)" % (C, gamma, EPS, n_jobs)
    with dispatch if dispatch is not None else contextlib.nullcontext():
        t0 = time.perf_counter()
        clf.fit(Xtr, ytr)
        fit_seconds = time.perf_counter() - t0
        pred = clf.predict(Xte)
    np.savetxt(model + ".pred", pred, fmt="%g")
    if tool in ("sklearn", "sklearnex"):
        n_sv = int(clf.n_support_.sum())
        with open(model, "wb") as f:
            pickle.dump(clf, f)
    else:
        n_sv = int(clf.n_sv)
        clf.save_to_file(model)
    print(json.dumps({
        "estimator": desc, "fit_seconds": fit_seconds, "n_sv": n_sv,
        "objective": float(sparse_rbf_objective(clf.dual_coef_[0], clf.support_vectors_, gamma)),
        "n_correct": int(np.sum(pred == yte)), "n_test": int(len(yte)),
        "onedal_fallbacks": dispatch.fallbacks if dispatch is not None else [],
    }))
    return 0


# ----------------------------------------------------------------------------
# report
# ----------------------------------------------------------------------------


def label_differences(ds):
    """Each tool's `labels_vs_kernlearn`: test rows whose predicted label differs from kernlearn's."""
    kl = ds["results"].get("kernlearn")
    if kl is None or not kl.get("labels_file"):
        return
    ref = np.loadtxt(kl["labels_file"], delimiter=",", skiprows=1, usecols=0, ndmin=1)
    for tool, r in ds["results"].items():
        if tool == "kernlearn" or not r.get("labels_file"):
            continue
        labels = np.loadtxt(r["labels_file"], ndmin=1)
        if len(labels) == len(ref):
            r["labels_vs_kernlearn"] = int(np.sum(labels != ref))


def summarise(res):
    walls = [r["wall"] for r in res["runs"]]
    res["wall"] = statistics.median(walls)
    res["rss_mib"] = max(r["rss_mib"] for r in res["runs"])
    res["accuracy"] = res["n_correct"] / res["n_test"]
    return res


def fmt_s(v):
    return "–" if v is None else ("%.3f" % v if v < 1 else "%.2f" % v)


def clean(text, meta):
    """A message without this machine's paths (the report goes into the docs)."""
    for path, name in ((meta.get("workdir"), "<workdir>"), (sys.executable, "python"), (ROOT, "<repo>")):
        if path:
            text = text.replace(path, name)
    return text


def render(datasets, meta):
    lines = ["Generated %s by `python3 %s` (%d timing repeat%s, median wall, largest peak RSS). To reproduce:"
             % (meta["date"], clean(meta["command"], meta), meta["repeats"], "" if meta["repeats"] == 1 else "s"),
             "", "```", REPRODUCE, "```", ""]
    lines.append("- Machine: %s, `nproc` = %s; 1-min load average before each dataset (other processes "
                 "included): %s" % (meta["machine"]["cpu"], meta["machine"]["nproc"],
                                    ", ".join("%s %.2f" % kv for kv in meta["load"].items())))
    lines.append("- Versions: " + ", ".join("%s %s" % kv for kv in meta["versions"].items()))
    lines.append("- Parameters: C-SVC, RBF, C = %r, eps = %r, cache %d MB, shrinking on (ThunderSVM: no "
                 "cache or shrinking option); gamma %s" % (C, EPS, CACHE_MB, ", ".join(
                     "%s %r" % (d["name"], d["gamma"]) for d in datasets)))
    onedal = ("; sklearnex %s" % meta.get("sklearnex_threads", bs.sklearnex_threads_text(None))
              if "scikit-learn-intelex" in meta["versions"] else "")
    lines.append("- Threads: LIBSVM and scikit-learn 1; kernlearn %s%s; ThunderSVM n_jobs = %s" % (
        meta["kernlearn_threads"], onedal, meta["thundersvm_threads"]))
    for tool, why in meta["skipped"].items():
        lines.append("- **%s skipped**: %s" % (TITLES[tool], clean(why.splitlines()[0], meta)))
    for d in datasets:
        lines.append("- %s: %s; train n = %d, d = %d (largest index used %d), nnz = %d, density %.2e; "
                     "test n = %d" % (d["name"], d["source"], d["n_train"], d["d_declared"], d["d_used"],
                                      d["nnz"], d["nnz"] / (d["n_train"] * d["d_declared"]), d["n_test"]))
        for tool, why in d["failed"].items():
            lines.append("- **%s failed on %s**: %s" % (TITLES[tool], d["name"], clean(why.splitlines()[0], meta)))
    head = ["data", "tool", "fit s", "kernlearn fit_seconds", "LIBSVM / tool", "peak RSS MiB", "RSS / LIBSVM",
            "model bytes", "model bytes / SV nnz", "#SV", "objective", "obj rel diff", "test acc %", "acc = LIBSVM",
            "test labels ≠ kernlearn"]
    rows = [head, ["---", "---"] + ["---:"] * (len(head) - 2)]
    for d in datasets:
        lib = d["results"].get("libsvm")
        for tool in TOOLS:
            r = d["results"].get(tool)
            if r is None:
                continue
            sv_nnz = lib and lib["sv_nnz"]
            rows.append([
                d["name"], TITLES[tool], fmt_s(r["wall"]), fmt_s(r.get("internal_fit_seconds")),
                bs.fmt(bs.ratio(lib and lib["wall"], r["wall"]), "%.2f"), "%.0f" % r["rss_mib"],
                bs.fmt(bs.ratio(r["rss_mib"], lib and lib["rss_mib"]), "%.2f"), "%d" % r["model_bytes"],
                bs.fmt(bs.ratio(r["model_bytes"], sv_nnz), "%.1f"), "%d" % r["n_sv"],
                bs.fmt(r["objective"], "%.4f"), bs.fmt_rel(bs.rel_diff(r["objective"], lib and lib["objective"])),
                "%.2f" % (100 * r["accuracy"]),
                "–" if lib is None else ("yes" if (r["n_correct"], r["n_test"]) ==
                                         (lib["n_correct"], lib["n_test"]) else "no"),
                bs.fmt(r.get("labels_vs_kernlearn"), "%d")])
    lines += ["", "\n".join("| " + " | ".join(r) + " |" for r in rows), ""]
    lines.append("fit s: LIBSVM and kernlearn = wall clock of the whole fit process (reading the file, "
                 "solving, writing the model); scikit-learn, sklearnex (scikit-learn-intelex, Intel oneDAL) "
                 "and ThunderSVM = the `fit` call on the CSR matrix already in memory. `LIBSVM / tool` > 1: "
                 "the tool is faster than LIBSVM (for scikit-learn, sklearnex and ThunderSVM this compares a "
                 "fit call with a whole process). peak RSS = the process's `ru_maxrss` (Python tools: the "
                 "interpreter with scikit-learn and the data). model bytes / SV nnz = model file size over the "
                 "non-zeros of LIBSVM's support vectors (a dense model would grow with #SV × d instead; "
                 "scikit-learn's and sklearnex's are pickles). Objective: LIBSVM's `obj` (6 decimals), "
                 "kernlearn's as reported, recomputed from the dual coefficients for scikit-learn, sklearnex "
                 "and ThunderSVM (ThunderSVM's are float32). `test labels ≠ kernlearn` = test rows whose "
                 "predicted label differs from kernlearn's.")
    lines += ["", "Targets:", ""]
    for d in datasets:
        lib, kl = d["results"].get("libsvm"), d["results"].get("kernlearn")
        if lib is None or kl is None:
            lines.append("- %s: not checked (LIBSVM or kernlearn missing)" % d["name"])
        elif d["name"] == "adult":
            speed = lib["wall"] / kl["wall"]
            lines.append("- adult as a sparse file: kernlearn %.2fx LIBSVM's speed (target >= %.1fx) -> %s"
                         % (speed, ADULT_SPEEDUP, "met" if speed >= ADULT_SPEEDUP else "NOT met"))
        else:
            mem = kl["rss_mib"] / lib["rss_mib"]
            lines.append("- %s: kernlearn peak RSS %.2fx LIBSVM's (target <= %.1fx) -> %s; model file "
                         "%.1f bytes per support-vector non-zero (LIBSVM %.1f), %.2e of a dense #SV × d model "
                         "at 8 bytes a value" % (
                             d["name"], mem, TEXT_MEMORY, "met" if mem <= TEXT_MEMORY else "NOT met",
                             kl["model_bytes"] / lib["sv_nnz"], lib["model_bytes"] / lib["sv_nnz"],
                             kl["model_bytes"] / (8.0 * kl["n_sv"] * d["d_used"])))
    return "\n".join(lines)


# ----------------------------------------------------------------------------
# main
# ----------------------------------------------------------------------------


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--adult-rows", type=int, default=None,
                    help="use the first N rows of adult.csv (default: all 45,222)")
    ap.add_argument("--datasets-list", default="adult,text-hashed", metavar="A,B",
                    help="comma-separated subset of adult,text-hashed")
    ap.add_argument("--tools", default=",".join(TOOLS), metavar="A,B", help="subset of " + ",".join(TOOLS))
    ap.add_argument("--repeats", type=int, default=3, help="timing repeats (default 3)")
    ap.add_argument("--no-build", action="store_true", help="do not run cargo build")
    ap.add_argument("--kernlearn-bin", default=bs.KERNLEARN_BIN)
    ap.add_argument("--kernlearn-threads", type=int, metavar="N", help="RAYON_NUM_THREADS for kernlearn")
    ap.add_argument("--thundersvm-threads", type=int, metavar="N", help="n_jobs of ThunderSVM (default -1: all)")
    ap.add_argument("--sklearnex-threads", type=int, metavar="N",
                    help="n_jobs of sklearnex's SVC, i.e. oneDAL's threads (default: oneDAL's, every core)")
    ap.add_argument("--timeout", type=float, default=TIMEOUT[0], metavar="S",
                    help="kill a fit process after S seconds and report the tool as failed (default %g)" % TIMEOUT[0])
    ap.add_argument("--workdir", help="keep the data files and models here (default: a temp dir, removed)")
    ap.add_argument("--write-md", metavar="FILE", help="(re)write the bench_sparse section of FILE")
    ap.add_argument("--json", metavar="FILE", help="dump all raw numbers to FILE")
    ap.add_argument("--from-json", metavar="FILE",
                    help="render the report of an earlier run from its --json FILE (with --write-md: rewrite the docs)")
    ap.add_argument("--child", nargs=5, metavar=("TOOL", "TRAIN", "TEST", "GAMMA", "MODEL"), help=argparse.SUPPRESS)
    ap.add_argument("--child-threads", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        return child(args)
    if args.from_json:
        with open(args.from_json) as f:
            saved = json.load(f)
        if args.workdir and not saved["meta"].get("workdir"):
            saved["meta"]["workdir"] = os.path.abspath(args.workdir)
        return publish(render(saved["datasets"], saved["meta"]), args)
    if args.repeats < 1:
        ap.error("--repeats must be >= 1")
    if not args.timeout > 0:
        ap.error("--timeout must be positive")
    TIMEOUT[0] = args.timeout
    names = bs.parse_list(args.datasets_list, ["adult", "text-hashed"], "dataset")
    # The same checks as the dense benchmark (tools on PATH, imports, the kernlearn build).
    tools, skipped = bs.check_tools(bs.parse_list(args.tools, TOOLS, "tool"), args)
    if not tools:
        raise SystemExit("no tool available")
    temp, work = bs.make_workdir(args.workdir, "bench_sparse_")
    datasets, load = [], {}
    try:
        for name in names:
            ds = prepare_adult(work, args.adult_rows) if name == "adult" else prepare_text(work)
            ds["gamma"] = GAMMA[name]
            ds["n_train"], ds["d_used"], ds["nnz"] = file_stats(ds["train"])
            ds["n_test"] = file_stats(ds["test"])[0]
            ds["results"], ds["failed"] = {}, {}
            print("%s: n_train=%d d=%d nnz=%d" % (name, ds["n_train"], ds["d_declared"], ds["nnz"]), file=sys.stderr)
            load[name] = os.getloadavg()[0]
            for tool in tools:
                try:
                    if tool == "libsvm":
                        r = run_libsvm(ds, ds["gamma"], args.repeats, work)
                    elif tool == "kernlearn":
                        r = run_kernlearn(ds, ds["gamma"], args.repeats, work, args.kernlearn_bin,
                                          args.kernlearn_threads)
                    else:
                        r = run_python_tool(tool, ds, ds["gamma"], args.repeats, work,
                                            {"thundersvm": args.thundersvm_threads,
                                             "sklearnex": args.sklearnex_threads}.get(tool))
                except Exception as e:  # noqa: BLE001 - report it and go on with the other tools
                    ds["failed"][tool] = "%s: %s" % (type(e).__name__, e)
                    print("  [%s] FAILED: %s" % (tool, e), file=sys.stderr)
                    continue
                ds["results"][tool] = summarise(r)
                print("  [%s] %.3f s, %.0f MiB, acc %.4f, obj %s, nSV %d" % (
                    tool, r["wall"], r["rss_mib"], r["accuracy"], r["objective"], r["n_sv"]), file=sys.stderr)
            label_differences(ds)
            datasets.append(ds)
    finally:
        if temp:
            shutil.rmtree(work, ignore_errors=True)
    versions = bs.tool_versions([t for t in tools if t != "thundersvm"], args)
    if "thundersvm" in tools:
        versions["thundersvm-cpu"] = bs.thundersvm_version()
    meta = {
        "date": datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z"),
        "machine": bs.machine_info(), "versions": versions, "repeats": args.repeats, "load": load,
        "skipped": skipped, "workdir": work,
        "kernlearn_threads": ("RAYON_NUM_THREADS=%d" % args.kernlearn_threads if args.kernlearn_threads
                              else "default (every core)"),
        "thundersvm_threads": args.thundersvm_threads if args.thundersvm_threads else "-1 (every core)",
        "sklearnex_threads": bs.sklearnex_threads_text(args.sklearnex_threads),
        "command": shlex.join([os.path.relpath(os.path.abspath(__file__), ROOT)] +
                              (argv if argv is not None else sys.argv[1:])),
    }
    if args.json:
        for d in datasets:
            for r in d["results"].values():
                for run in r["runs"]:
                    run.pop("out", None)
        with open(args.json, "w") as f:
            json.dump({"meta": meta, "datasets": datasets}, f, indent=2, default=str)
    return publish(render(datasets, meta), args)


def publish(report, args):
    print(report)
    if args.write_md:
        bs.write_markdown(args.write_md, report, MD_BEGIN, MD_END)
        print("wrote %s" % args.write_md, file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
