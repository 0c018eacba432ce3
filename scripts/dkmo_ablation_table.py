"""Table of scripts/dkmo_ablation.sh: OUT_DIR/<view>-<seed>-<config>.json (evaluate --json).

Per view and configuration: training and test accuracy % (mean over the splits), the
test accuracy paired with the SVM on the same kernel and with the early-stopped network
without a refit (`no-refit`, from which the other factors are changed), mean ± one
standard error (wins/ties/losses), the epoch chosen and the fit seconds.
"""
import glob
import json
import math
import os
import re
import sys

ORDER = ["svm", "nystrom-svm-100", "nystrom-svm-400", "default", "no-refit", "no-dropout", "all-rows", "no-early-stop", "wide", "landmarks-200", "refit-landmarks-200", "refit-landmarks-400"]
out = sys.argv[1]
runs = {}
for f in glob.glob(os.path.join(out, "*.json")):
    m = re.match(r"([a-z]+)-(\d+)-(.+)\.json$", os.path.basename(f))
    if m:
        runs[(m[1], int(m[2]), m[3])] = json.load(open(f))


def mean(xs):
    return sum(xs) / len(xs)


def paired(a, b):
    d = [100 * (x - y) for x, y in zip(a, b)]
    se = math.sqrt(sum((x - mean(d)) ** 2 for x in d) / (len(d) - 1) / len(d)) if len(d) > 1 else 0
    w = sum(x > 1e-9 for x in d)
    l = sum(x < -1e-9 for x in d)
    return f"{mean(d):+.2f} ± {se:.2f} ({w}/{len(d) - w - l}/{l})"


for view in sorted({k[0] for k in runs}):
    print(f"\n{view}\n")
    print("| configuration | train acc | test acc | Δ test vs SVM rule kernel | Δ test vs no-refit | chosen epoch | fit s |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    configs = sorted({k[2] for k in runs if k[0] == view},
                     key=lambda c: ORDER.index(c) if c in ORDER else 99)
    for c in configs:
        seeds = sorted(s for (v, s, cc) in runs if v == view and cc == c)
        r = [runs[(view, s, c)] for s in seeds]
        tr = mean([x["train_accuracy"] for x in r]) * 100
        te = [x["test_accuracy"] for x in r]
        cols = [c, f"{tr:.2f}", f"{100 * mean(te):.2f} ({len(te)})"]
        for base in ["svm", "no-refit"]:
            both = [s for s in seeds if (view, s, base) in runs]
            if c == base or not both:
                cols.append("")
            else:
                cols.append(paired([runs[(view, s, c)]["test_accuracy"] for s in both],
                                   [runs[(view, s, base)]["test_accuracy"] for s in both]))
        ep = [x.get("chosen", {}).get("other", {}).get("dkmo_best_epoch") for x in r]
        cols.append(f"{mean(ep):.0f}" if None not in ep else "")
        cols.append(f"{mean([x.get('fit_seconds', 0) for x in r]):.0f}")
        print("| " + " | ".join(cols) + " |")
