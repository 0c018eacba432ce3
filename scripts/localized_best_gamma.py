#!/usr/bin/env python3
"""Best-γ table (the thesis's Tables 4.2 / 4.4 convention) from scripts/localized_gamma.sh:
per (dataset, method), the γ with the highest mean test accuracy, with its accuracy ±
std, fit seconds and support points as % of the training points.

    python3 scripts/localized_best_gamma.py OUT_DIR
"""
import glob
import json
import os
import re
import statistics
import sys


def runs(folder):
    for path in glob.glob(os.path.join(folder, "*_g*.json")):
        exponent = int(re.search(r"_g(-?\d+)\.json$", path).group(1))
        if os.path.getsize(path) == 0:
            print(f"skipping {path}: empty (run still in progress?)", file=sys.stderr)
            continue
        for d in json.load(open(path))["datasets"]:
            yield d["dataset"], d["method"], exponent, d["runs"]


def summary(rs):
    acc = [100.0 * r["test"]["accuracy"] for r in rs]
    sv = [100.0 * r["n_support"] / r["n_train"] for r in rs]
    fit = [r["fit_seconds"] for r in rs]
    sd = lambda v: statistics.stdev(v) if len(v) > 1 else 0.0
    return statistics.mean(acc), sd(acc), statistics.mean(fit), statistics.mean(sv), sd(sv), len(rs)


def main(folder):
    best = {}
    for ds, m, e, rs in runs(folder):
        s = summary(rs)
        if (ds, m) not in best or s[0] > best[(ds, m)][1][0]:
            best[(ds, m)] = (e, s)
    print("| dataset | method | repeats | best γ | test accuracy % (std) | fit s | support points % of n (std) |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
    for (ds, m), (e, (acc, sd, fit, sv, svsd, k)) in sorted(best.items()):
        print(f"| {ds} | {m} | {k} | 2^{e} | {acc:.2f} ({sd:.2f}) | {fit:.3f} | {sv:.1f} ({svsd:.1f}) |")


if __name__ == "__main__":
    main(sys.argv[1])
