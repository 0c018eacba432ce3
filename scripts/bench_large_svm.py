"""Exact C-SVC on a large stand-in, side by side: kernlearn (`kernlearn evaluate`, the
command line), scikit-learn's SVC (LIBSVM) and scikit-learn-intelex's SVC (oneDAL),
each in its own process under `/usr/bin/time` for its peak resident memory.

    python scripts/bench_large_svm.py --train cov_train.csv --test cov_test.csv \
        --C 32 --gamma 32 [--rows 50000] [--tools kernlearn,sklearn,sklearnex]

`--rows N` keeps the first N training rows (an anchor that would take hours runs on a
subsample; say so next to its numbers). Features are scaled to [0, 1] per column with
the training rows' range, as `kernlearn evaluate`'s default `--scale 01`; every tool
sees the same scaled numbers. Prints one JSON line per tool: fit and predict seconds,
test accuracy, support vectors, peak RSS.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CLI = os.path.join(ROOT, "target", "release", "kernlearn")


def load(path, rows=None):
    data = np.loadtxt(path, delimiter=",", skiprows=1, max_rows=rows)
    return np.ascontiguousarray(data[:, :-1]), data[:, -1]


def scaled(train, test):
    lo, hi = train.min(axis=0), train.max(axis=0)
    span = np.where(hi > lo, hi - lo, 1.0)
    return (train - lo) / span, (test - lo) / span


def python_tool(tool, args):
    """Fits and predicts with scikit-learn's or scikit-learn-intelex's SVC."""
    if tool == "sklearnex":
        from sklearnex.svm import SVC
    else:
        from sklearn.svm import SVC
    Xtr, ytr = load(args.train, args.rows)
    Xte, yte = load(args.test)
    Xtr, Xte = scaled(Xtr, Xte)
    est = SVC(C=args.C, gamma=args.gamma, cache_size=1000)
    t = time.perf_counter()
    est.fit(Xtr, ytr)
    fit_s = time.perf_counter() - t
    t = time.perf_counter()
    acc = float((est.predict(Xte) == yte).mean())
    return {"fit_s": fit_s, "predict_s": time.perf_counter() - t, "accuracy": acc,
            "n_sv": int(est.n_support_.sum())}


def kernlearn_tool(args):
    """`kernlearn evaluate` on the same rows (its own 0-1 scaling from the training rows)."""
    train = args.train
    if args.rows:
        train = os.path.join(tempfile.mkdtemp(), "train.csv")
        with open(args.train) as src, open(train, "w") as dst:
            for i, line in enumerate(src):
                if i > args.rows:
                    break
                dst.write(line)
    out = subprocess.run([CLI, "evaluate", "-d", train, "--test", args.test, "-m", "svm",
                          "-c", str(args.C), "--gamma", str(args.gamma), "--cache-mb", "1000",
                          "--json", "--quiet"], check=True, capture_output=True, text=True)
    rep = json.loads(out.stdout)
    return {"fit_s": rep["fit_seconds"], "predict_s": rep.get("predict_seconds"),
            "accuracy": rep["test_accuracy"], "n_sv": rep.get("n_support")}


def measured(tool, argv):
    """Runs this script for one tool under /usr/bin/time; its JSON plus peak RSS."""
    with tempfile.NamedTemporaryFile("r", suffix=".time") as tf:
        out = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", tf.name, sys.executable,
                              __file__, "--one", tool, *argv], check=True,
                             capture_output=True, text=True)
        peak_kb = int(tf.read().strip().splitlines()[-1])
    rep = json.loads(out.stdout.strip().splitlines()[-1])
    rep.update(tool=tool, peak_rss_gb=round(peak_kb / 2**20, 2))
    return rep


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--train", required=True)
    ap.add_argument("--test", required=True)
    ap.add_argument("--C", type=float, required=True)
    ap.add_argument("--gamma", type=float, required=True)
    ap.add_argument("--rows", type=int, default=None)
    ap.add_argument("--tools", default="kernlearn,sklearn,sklearnex")
    ap.add_argument("--one", default=None, help=argparse.SUPPRESS)
    args, _ = ap.parse_known_args()
    if args.one:
        rep = kernlearn_tool(args) if args.one == "kernlearn" else python_tool(args.one, args)
        print(json.dumps(rep))
        return
    argv = [a for a in sys.argv[1:]]
    for tool in args.tools.split(","):
        rep = measured(tool, argv)
        rep["rows"] = args.rows or "all"
        print(json.dumps(rep), flush=True)


if __name__ == "__main__":
    main()
