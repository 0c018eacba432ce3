#!/usr/bin/env python3
"""Which base-kernel fallback rule? Every shared binary set, plain and with 3·d seeded
uniform noise columns (as scripts/kernel_learning_benchmark.py writes them), paired
stratified 50/50 splits; one learned-kernel method under ``--select grid`` against
SVM-CV (``kernlearn experiment --baseline svm --confirm-always``). Each fit records the
fallback's evidence: the learned kernel's and SVM-CV's scores on the selection folds and
on a fresh confirmation partition (always run here), and the test accuracy of the
learned kernel whether kept or declined. Every rule below is then applied to the same
fits, so the rules differ only in their decisions:

- ``two-stage 1-SE`` (the library's rule): the learned kernel wins by more than one
  standard error of the fold differences on the selection folds and again on the
  confirmation folds;
- ``1-SE selection``: the first check alone;
- ``1-SE confirmation``: the second check alone (both chosen models refitted on folds
  that did not choose them);
- ``1-SE pooled``: one check on the selection and confirmation folds together;
- ``higher mean confirmation``: the larger mean on the confirmation folds;
- ``never fall back`` / ``always SVM-CV``: the two extremes.

For each rule: the mean paired gain over SVM-CV in points of test accuracy (plain and
noisy sets), the number of noisy sets on which it beats SVM-CV by more than 2 paired
SEs, the worst plain set (gain / SE), and on how many splits the learned kernel was kept.

Usage (from the repository root, after ``cargo build --release``)::

    target/python-venv/bin/python scripts/fallback_rules.py --method ard --repeats 20 \\
        --out target/fallback-rules

Results are cached per set in ``--out`` (delete a file to rerun that set).
"""

import json
import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kernel_learning_benchmark import study_arguments, write_variants  # noqa: E402


def beats(learned, svm):
    """The library's one-standard-error rule (``selection::beats``) on fold scores."""
    d = np.asarray(learned) - np.asarray(svm)
    if len(d) == 0:
        return False
    se = d.std(ddof=1) / np.sqrt(len(d)) if len(d) > 1 else 0.0
    return d.mean() > se and d.mean() > 0


RULES = {
    "two-stage 1-SE (library)": lambda e: beats(e["learned"], e["svm"]) and beats(*e["confirmation"]),
    "1-SE selection": lambda e: beats(e["learned"], e["svm"]),
    "1-SE confirmation": lambda e: beats(*e["confirmation"]),
    "1-SE pooled": lambda e: beats(e["learned"] + e["confirmation"][0], e["svm"] + e["confirmation"][1]),
    "higher mean confirmation": lambda e: np.mean(e["confirmation"][0]) > np.mean(e["confirmation"][1]),
    "never fall back": lambda e: True,
    "always SVM-CV": lambda e: False,
}


def run(kernlearn, path, method, repeats, cache, confirmation_folds=None):
    """Per split: (evidence, learned test accuracy, SVM-CV test accuracy)."""
    if not os.path.exists(cache):
        cmd = [kernlearn, "experiment", "-q", "--json", "--data", path, "--method", method,
               "--select", "grid", "--baseline", "svm", "--repeats", str(repeats),
               "--confirm-always"]
        if confirmation_folds:
            cmd += ["--confirmation-folds", str(confirmation_folds)]
        out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
        with open(cache, "w") as f:
            f.write(out)
    with open(cache) as f:
        result = json.load(f)
    runs = result["datasets"][0]["runs"]
    base = {r["repeat"]: r["test"]["accuracy"] for r in result["baselines"][0]["runs"]}
    splits = []
    for r in runs:
        evidence = r["chosen"]["fallback_evidence"]
        learned = (r.get("declined_test") or r["test"])["accuracy"]
        splits.append((evidence, learned, base[r["repeat"]]))
    return splits


def summarise(table):
    """Per rule: the summary row over the (set, variant) results."""
    lines = ["| rule | mean Δ plain | mean Δ noisy | noisy sets won by > 2 SE | worst plain set (Δ / SE) | kept (plain / noisy) |",
             "| --- | --- | --- | --- | --- | --- |"]
    for rule, decide in RULES.items():
        gains = {"plain": [], "+3d noise": []}
        won, worst, kept = 0, (np.inf, ""), {"plain": 0, "+3d noise": 0}
        total = {"plain": 0, "+3d noise": 0}
        for (name, variant), splits in table.items():
            d = np.array([100 * ((l if decide(e) else b) - b) for e, l, b in splits])
            kept[variant] += sum(decide(e) for e, _, _ in splits)
            total[variant] += len(splits)
            se = d.std(ddof=1) / np.sqrt(len(d))
            gains[variant].append(d.mean())
            if variant != "plain" and d.mean() > 2 * se and d.mean() > 0:
                won += 1
            if variant == "plain":
                ratio = d.mean() / se if se > 1e-9 else (0.0 if d.mean() == 0 else np.sign(d.mean()) * np.inf)
                worst = min(worst, (ratio, f"{name} {d.mean():+.2f} ± {se:.2f}"))
        lines.append(
            f"| {rule} | {np.mean(gains['plain']):+.2f} | {np.mean(gains['+3d noise']):+.2f} | "
            f"{won} of {len(gains['+3d noise'])} | {worst[1]} ({worst[0]:+.1f}) | "
            f"{kept['plain']}/{total['plain']} · {kept['+3d noise']}/{total['+3d noise']} |")
    return lines


def per_set(table, rule):
    """The per-set gains of one rule."""
    decide = RULES[rule]
    lines = [f"| dataset | variant | Δ ± SE ({rule}) | kept | Δ ± SE (never fall back) |",
             "| --- | --- | --- | --- | --- |"]
    for (name, variant), splits in table.items():
        cells = []
        for rule_of in (decide, RULES["never fall back"]):
            d = np.array([100 * ((l if rule_of(e) else b) - b) for e, l, b in splits])
            cells.append(f"{d.mean():+.2f} ± {d.std(ddof=1) / np.sqrt(len(d)):.2f}")
        kept = sum(decide(e) for e, _, _ in splits)
        lines.append(f"| {name} | {variant} | {cells[0]} | {kept}/{len(splits)} | {cells[1]} |")
    return lines


def main():
    ap = study_arguments(__doc__.split("\n\n")[0], "fallback-rules")
    ap.add_argument("--method", default="ard")
    ap.add_argument("--confirmation-folds", type=int, default=None,
                    help="folds of the confirmation partition (default: as the selection's)")
    ap.add_argument("--per-set", default="two-stage 1-SE (library)",
                    help="the rule whose per-set gains are listed")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    table = {}
    for name in args.sets.split(","):
        plain, noisy, _ = write_variants(name, args.datasets, args.out, args.max_rows)
        for variant, path in (("plain", plain), ("+3d noise", noisy)):
            folds = f"-confirm{args.confirmation_folds}" if args.confirmation_folds else ""
            cache = os.path.join(args.out, f"{args.method}-{os.path.basename(path)}-{args.repeats}{folds}.json")
            table[(name, variant)] = run(args.kernlearn, path, args.method, args.repeats, cache,
                                         args.confirmation_folds)
            print(f"{name} {variant}: done", file=sys.stderr, flush=True)
    lines = summarise(table) + [""] + per_set(table, args.per_set)
    print("\n".join(lines))
    folds = f"-confirm{args.confirmation_folds}" if args.confirmation_folds else ""
    with open(os.path.join(args.out, f"{args.method}{folds}-rules.md"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
