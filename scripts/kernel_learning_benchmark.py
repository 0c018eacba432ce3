#!/usr/bin/env python3
"""Where does learning the kernel pay? Every shared binary set, plain and with 3·d seeded
uniform noise columns appended, each learned method against SVM-CV on the same paired
splits (``kernlearn experiment --baseline svm``), with the relevance the ARD-SVM recovers
and two outside references on their own paired splits against scikit-learn's SVM-CV.

Usage (from the repository root, after ``cargo build --release`` and the Python
environment of scripts/test.sh)::

    target/python-venv/bin/python scripts/kernel_learning_benchmark.py \\
        --methods ard,uniform,mwumkl --repeats 20 --out target/kernel-learning

Columns of the table (docs/RESULTS.md, "Where learning the kernel pays"):

- paired Δ ± SE, W/T/L, Wilcoxon p: the method's test accuracy minus SVM-CV's on the
  same 50/50 stratified splits (positive: the method is better), with the base-kernel
  fallback as the method's default (``fell back``: on how many splits the learned kernel
  was dropped for the SVM-CV model);
- relevance on real: the share of the ARD-SVM's relevance on the original columns, from
  one fit on the whole set with ``--no-fallback`` (what the alignment learned, kept or
  not);
- RF Δ, SVM+FS Δ: a random forest (500 trees) and SVM-CV after univariate feature
  selection (ANOVA F, the number of columns chosen by CV from 25 %, 50 % and 100 %), each
  minus scikit-learn's SVM-CV (``GridSearchCV(SVC)`` over the same σ, C grid), on their
  own paired splits: references from outside the library, not run on kernlearn's splits.

Sets of more than ``--max-rows`` rows are a seeded random subset of that many rows (the
benchmark compares methods, not scale). Noise columns are U(0, 1), seed 0, written before
any scaling; every method scales features to [0, 1] on each training part.
"""

import argparse
import csv
import json
import os
import random
import subprocess
import sys

import numpy as np

BINARY_SETS = [
    "heart", "sonar", "ionosphere", "wdbc", "breast-cancer", "pima", "banana", "magic",
    "twonorm", "page-blocks-binary", "mushroom", "shuttle-binary", "adult",
]


def read_csv(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    return rows[0], rows[1:]


def write_variants(name, datasets, out, max_rows):
    """The plain set (subset to max_rows) and its noisy version; their paths and d."""
    header, rows = read_csv(os.path.join(datasets, f"{name}.csv"))
    if len(rows) > max_rows:
        random.Random(0).shuffle(rows)
        rows = rows[:max_rows]
    d = len(header) - 1
    plain = os.path.join(out, f"{name}.csv")
    noisy = os.path.join(out, f"{name}-noise.csv")
    noise = np.random.default_rng(0).uniform(size=(len(rows), 3 * d))
    with open(plain, "w", newline="") as f:
        csv.writer(f).writerows([header] + rows)
    with open(noisy, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(header[:-1] + [f"noise{j + 1}" for j in range(3 * d)] + header[-1:])
        for row, extra in zip(rows, noise):
            w.writerow(row[:-1] + [f"{v:.6f}" for v in extra] + row[-1:])
    return plain, noisy, d


def paired(kernlearn, path, method, repeats):
    """kernlearn's paired comparison of `method` against SVM-CV on `path`."""
    cmd = [kernlearn, "experiment", "-q", "--json", "--data", path, "--method", method,
           "--baseline", "svm", "--repeats", str(repeats)]
    result = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
    row = result["datasets"][0]
    p = row["paired"]
    flags = [r["chosen"].get("other", {}).get("fell_back_to_base_svm") for r in row["runs"]]
    fell = sum(1 for v in flags if v == 1.0)
    return {
        "method": row["method"],
        "svm": 100 * p["baseline_mean"],
        "delta": 100 * p["mean_difference"],
        "se": 100 * p["standard_error"],
        "wtl": f"{p['wins']}/{p['ties']}/{p['losses']}",
        "p": p["wilcoxon"]["p_value"],
        "fell": f"{fell}/{len(flags)}" if any(v is not None for v in flags) else "–",
    }


def relevance_share(kernlearn, path, d, out):
    """Share of the ARD-SVM's relevance on the first d (real) columns."""
    model = os.path.join(out, "relevance-model.json")
    cmd = [kernlearn, "fit", "-q", "--json", "--force", "--data", path, "--method", "ard",
           "--select", "grid", "--no-fallback", "-o", model]
    fit = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
    return sum(r["relevance"] for r in fit["feature_relevance"][:d])


def outside_references(path, repeats):
    """Random forest and SVM-CV with feature selection, each minus scikit-learn's
    SVM-CV, on `repeats` stratified 50/50 splits: (Δ, SE) in points."""
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.feature_selection import SelectPercentile, f_classif
    from sklearn.model_selection import GridSearchCV, StratifiedShuffleSplit
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import MinMaxScaler
    from sklearn.svm import SVC

    _, rows = read_csv(path)
    X = np.array([[float(v) for v in r[:-1]] for r in rows])
    y = np.array([r[-1] for r in rows])
    sigmas = 2.0 ** np.arange(-5, 6)
    grid = {"svc__C": 2.0 ** np.arange(-5, 6), "svc__gamma": 1 / sigmas**2}
    svm = GridSearchCV(make_pipeline(MinMaxScaler(), SVC()), grid, cv=5, n_jobs=-1)
    coarse = {"svc__C": 2.0 ** np.arange(-5, 6, 2), "svc__gamma": 1 / sigmas[::2] ** 2,
              "selectpercentile__percentile": [25, 50, 100]}
    fs = GridSearchCV(make_pipeline(MinMaxScaler(), SelectPercentile(f_classif), SVC()),
                      coarse, cv=5, n_jobs=-1)
    rf = RandomForestClassifier(n_estimators=500, random_state=0, n_jobs=-1)
    splits = StratifiedShuffleSplit(n_splits=repeats, test_size=0.5, random_state=0)
    scores = {"svm": [], "rf": [], "fs": []}
    for train, test in splits.split(X, y):
        for key, est in (("svm", svm), ("rf", rf), ("fs", fs)):
            scores[key].append(est.fit(X[train], y[train]).score(X[test], y[test]))
    out = {}
    for key in ("rf", "fs"):
        d = 100 * (np.array(scores[key]) - np.array(scores["svm"]))
        out[key] = (d.mean(), d.std(ddof=1) / np.sqrt(len(d)))
    return out


def study_arguments(description, out):
    """The command line shared by the studies over the shared binary sets: sets, repeats,
    subset size, where the data, the binary and the results (``target/<out>``) are."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--sets", default=",".join(BINARY_SETS))
    ap.add_argument("--repeats", type=int, default=20)
    ap.add_argument("--max-rows", type=int, default=1000)
    ap.add_argument("--datasets", default=os.path.join(root, "..", "shared", "datasets"))
    ap.add_argument("--kernlearn", default=os.path.join(root, "target", "release", "kernlearn"))
    ap.add_argument("--out", default=os.path.join(root, "target", out))
    return ap


def main():
    ap = study_arguments(__doc__.split("\n\n")[0], "kernel-learning")
    ap.add_argument("--methods", default="ard")
    ap.add_argument("--no-references", action="store_true",
                    help="skip the random forest and feature-selection columns")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    header = ("| dataset | variant | method | SVM-CV % | paired Δ ± SE | W/T/L | Wilcoxon p "
              "| fell back | relevance on real | RF Δ ± SE | SVM+FS Δ ± SE |")
    lines = [header, "|" + " --- |" * 11]
    print(header, flush=True)
    for name in args.sets.split(","):
        plain, noisy, d = write_variants(name, args.datasets, args.out, args.max_rows)
        for variant, path in (("plain", plain), ("+3d noise", noisy)):
            refs = None if args.no_references else outside_references(path, args.repeats)
            share = relevance_share(args.kernlearn, path, d, args.out) if variant != "plain" else None
            for method in args.methods.split(","):
                r = paired(args.kernlearn, path, method, args.repeats)
                ref = ("–", "–") if refs is None else tuple(
                    f"{refs[k][0]:+.2f} ± {refs[k][1]:.2f}" for k in ("rf", "fs"))
                rel = "–" if share is None or method != "ard" else f"{100 * share:.0f} %"
                line = (f"| {name} | {variant} | {r['method']} | {r['svm']:.2f} | "
                        f"{r['delta']:+.2f} ± {r['se']:.2f} | {r['wtl']} | {r['p']:.3f} | "
                        f"{r['fell']} | {rel} | {ref[0]} | {ref[1]} |")
                lines.append(line)
                print(line, flush=True)
    with open(os.path.join(args.out, "table.md"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    sys.exit(main())
