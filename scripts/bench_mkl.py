#!/usr/bin/env python3
"""kernlearn's MKL methods side by side with MKLpy (AverageMKL, EasyMKL).

Runs `cargo run --release -p kernlearn --example mkl_bench -- accuracy --json FILE`
(or reads FILE with --no-run), which fits UNIFORM, MWUMKL, EasyMKL and LIBLINEAR+ on
80/20 stratified splits and records the splits (training indices) and the learned
weights. Then, on exactly the same splits and the same kernels -- the thesis's family
(x x' + 1)^p, p = 1..3, and exp(-2^-k (x - x')^2), k = 0..8, on each single feature of
the data scaled to [0, 1] with the training minimum and maximum, every kernel
multiplied by n / trace on the training part (kernlearn's trace normalisation) -- it
fits MKLpy's AverageMKL (learner: scikit-learn SVC with the same C as UNIFORM) and
EasyMKL (same lambda; MKLpy's default KOMD learner). MKLpy sums the kernels it is
given, so they are passed divided by m: its sum is kernlearn's average and EasyMKL's
first problem is identical; AverageMKL averages its kernels, so it gets them as they are. Prints a markdown table: accuracies, fit seconds
(kernlearn: whole fit, kernels computed on demand; MKLpy: fit on the precomputed
kernels, plus the numpy kernel time), the time ratio, and the largest difference of
EasyMKL weights.

Needs MKLpy (pip install MKLpy; it pulls torch and cvxopt), numpy and scikit-learn.
"""

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent


def load(path):
    data = np.genfromtxt(path, delimiter=",", skip_header=1)
    return data[:, :-1], data[:, -1]


def scale01(xtr, xte):
    lo, hi = xtr.min(axis=0), xtr.max(axis=0)
    rng = np.where(hi > lo, hi - lo, 0.0)
    inv = np.where(rng > 0, 1.0 / np.where(rng > 0, rng, 1.0), 0.0)
    return (xtr - lo) * inv, (xte - lo) * inv


def family12_each(xtr, xte):
    """Train and test kernels of family12@each, kernel-major order, trace-normalised."""
    ktr, kte = [], []
    funcs = [("poly", p) for p in (1, 2, 3)] + [("rbf", 0.5 ** k) for k in range(9)]
    n = xtr.shape[0]
    for kind, par in funcs:
        for f in range(xtr.shape[1]):
            a, b = xtr[:, f], xte[:, f]
            if kind == "poly":
                gtr = (np.outer(a, a) + 1.0) ** par
                gte = (np.outer(b, a) + 1.0) ** par
            else:
                gtr = np.exp(-par * (a[:, None] - a[None, :]) ** 2)
                gte = np.exp(-par * (b[:, None] - a[None, :]) ** 2)
            factor = n / np.trace(gtr)
            ktr.append(gtr * factor)
            kte.append(gte * factor)
    return ktr, kte


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--datasets-list", default="breast-cancer,heart,ionosphere,pima,sonar,wdbc")
    ap.add_argument("--datasets", default=str(ROOT.parent / "shared" / "datasets"))
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--svm-c", type=float, default=100.0)
    ap.add_argument("--lam", type=float, default=0.1)
    ap.add_argument("--eps", type=float, default=0.2)
    ap.add_argument("--c", default="10")
    ap.add_argument("--json", default="/tmp/mkl_bench.json")
    ap.add_argument("--no-run", action="store_true", help="read --json instead of running kernlearn")
    ap.add_argument("--methods", default="average,easymkl", help="MKLpy methods to run")
    a = ap.parse_args()

    if not a.no_run:
        cmd = ["cargo", "run", "--release", "-q", "-p", "kernlearn", "--example", "mkl_bench", "--",
               "accuracy", "--datasets", a.datasets_list, "--repeats", str(a.repeats),
               "--datasets-dir", a.datasets, "--svm-c", str(a.svm_c), "--lambda", str(a.lam),
               "--eps", str(a.eps), "--c", a.c, "--json", a.json]
        print("$", " ".join(cmd), file=sys.stderr)
        subprocess.run(cmd, check=True, cwd=ROOT)
    ours = json.load(open(a.json))

    try:
        import torch  # noqa: F401
        from MKLpy.algorithms import AverageMKL, EasyMKL
        from sklearn.svm import SVC
    except ImportError as e:
        sys.exit(f"MKLpy is not importable ({e}); install it with `pip install MKLpy`")

    res = {(r["dataset"], r["method"]): r for r in ours["results"]}
    rows = []
    for name in a.datasets_list.split(","):
        x, y = load(Path(a.datasets) / f"{name}.csv")
        stats = {"average": ([], []), "easymkl": ([], [])}
        kernel_secs, wdiff = [], []
        for r, tr in enumerate(ours["splits"][name]):
            tr = np.array(tr)
            te = np.setdiff1d(np.arange(len(y)), tr)
            xtr, xte = scale01(x[tr], x[te])
            t0 = time.perf_counter()
            ktr, kte = family12_each(xtr, xte)
            kernel_secs.append(time.perf_counter() - t0)
            m = len(ktr)
            # MKLpy's EasyMKL sums its kernels, AverageMKL averages them.
            scaled = {"average": 1.0, "easymkl": 1.0 / m}
            for method, make in [
                ("average", lambda: AverageMKL(learner=SVC(C=a.svm_c))),
                ("easymkl", lambda: EasyMKL(lam=a.lam)),
            ]:
                if method not in a.methods.split(","):
                    continue
                ktr_t = [torch.tensor(k * scaled[method]) for k in ktr]
                kte_t = [torch.tensor(k * scaled[method]) for k in kte]
                t0 = time.perf_counter()
                model = make().fit(ktr_t, y[tr])
                secs = time.perf_counter() - t0
                acc = 100.0 * np.mean(np.asarray(model.predict(kte_t)) == y[te])
                stats[method][0].append(acc)
                stats[method][1].append(secs)
                if method == "easymkl":
                    w = np.asarray(model.solution.weights, dtype=float)
                    wdiff.append(float(np.max(np.abs(w - np.asarray(res[(name, "easymkl")]["weights"][r])))))
        for method, ours_name in [("average", "uniform"), ("easymkl", "easymkl")]:
            if method not in a.methods.split(","):
                continue
            o = res[(name, ours_name)]
            accs, secs = stats[method]
            ratio = np.mean(secs) / np.mean(o["fit_seconds"])
            rows.append(
                f"| {name} | {ours_name} | {np.mean(o['accuracy']):.1f} ± {np.std(o['accuracy'], ddof=1):.1f} "
                f"| {np.mean(accs):.1f} ± {np.std(accs, ddof=1):.1f} | {np.mean(o['fit_seconds']):.3f} "
                f"| {np.mean(secs):.3f} (+{np.mean(kernel_secs):.3f} kernels) | {ratio:.1f} "
                f"| {max(wdiff):.1e} |" if method == "easymkl" else
                f"| {name} | {ours_name} | {np.mean(o['accuracy']):.1f} ± {np.std(o['accuracy'], ddof=1):.1f} "
                f"| {np.mean(accs):.1f} ± {np.std(accs, ddof=1):.1f} | {np.mean(o['fit_seconds']):.3f} "
                f"| {np.mean(secs):.3f} (+{np.mean(kernel_secs):.3f} kernels) | {ratio:.1f} | – |"
            )
    print(f"Kernels: {ours['kernels']}; parameters {ours['params']}; {a.repeats} splits")
    print("| dataset | method | kernlearn acc % | MKLpy acc % | kernlearn fit s | MKLpy fit s | MKLpy / kernlearn time | max weight diff |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
