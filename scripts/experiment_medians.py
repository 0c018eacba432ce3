#!/usr/bin/env python3
"""Median test misclassification (the thesis's Fig. 3.1 statistic) from `kernlearn
experiment --json` outputs, one markdown row per (dataset, method).

    python3 scripts/experiment_medians.py uniform.json mwumkl.json ...
"""
import json
import statistics
import sys


def rows(path):
    for d in json.load(open(path))["datasets"]:
        acc = [r["test"]["accuracy"] for r in d["runs"]]
        err = sorted(100.0 * (1.0 - a) for a in acc)
        cs = [r["chosen"].get("c") for r in d["runs"] if r["chosen"].get("c") is not None]
        yield (d["dataset"], d["method"], len(acc), statistics.median(err), min(err), max(err),
               100.0 * statistics.mean(acc), 100.0 * (statistics.stdev(acc) if len(acc) > 1 else 0.0),
               statistics.median(cs) if cs else None,
               statistics.median(r["n_support"] for r in d["runs"]))


def main(paths):
    print("| dataset | method | repeats | median misclassification % (min–max) | test accuracy % mean ± std | median C | median #SV |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
    out = sorted((r for p in paths for r in rows(p)), key=lambda r: (r[0], r[1]))
    for ds, m, k, med, lo, hi, mean, sd, c, sv in out:
        c_txt = "–" if c is None else "%g" % c
        print(f"| {ds} | {m} | {k} | {med:.1f} ({lo:.1f}–{hi:.1f}) | {mean:.2f} ± {sd:.2f} | {c_txt} | {sv:g} |")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    main(sys.argv[1:])
