"""Markdown tables of the DKMO reproduction on mfeat (docs/RESULTS.md, "DKMO and M-DKMO")
from the CSV files of scripts/dkmo_mfeat.sh (stdlib only).

    python3 scripts/dkmo_mfeat_tables.py OUT_DIR

Rows are paired by seed (repeat r of an `experiment --seed 1` run has seed 1 + r, and the
split depends only on the seed), so runs written as one repeat per file pair too.
"""
import csv, math, pathlib, sys

out = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "target/dkmo")
VIEWS = ["fou", "fac", "kar", "pix", "zer", "mor"]


def rows(pattern):
    """{(dataset, method): {seed: test accuracy %}} over the files matching `pattern`."""
    acc = {}
    for p in sorted(out.glob(pattern)):
        with p.open() as f:
            for r in csv.DictReader(f):
                acc.setdefault((r["dataset"], r["method"]), {})[int(r["seed"])] = 100 * float(
                    r["test_accuracy"]
                )
    return acc


def summary(by_seed):
    if not by_seed:
        return "—"
    v = list(by_seed.values())
    m = sum(v) / len(v)
    sd = math.sqrt(sum((x - m) ** 2 for x in v) / (len(v) - 1)) if len(v) > 1 else 0.0
    return f"{m:.2f} ± {sd:.2f} ({len(v)})"


def paired(a, b):
    """Mean of a − b over shared seeds ± its standard error, wins/ties/losses of a."""
    seeds = sorted(set(a) & set(b))
    if not seeds:
        return "—"
    d = [a[s] - b[s] for s in seeds]
    n = len(d)
    m = sum(d) / n
    se = math.sqrt(sum((x - m) ** 2 for x in d) / (n - 1) / n) if n > 1 else float("nan")
    w, l = sum(x > 1e-9 for x in d), sum(x < -1e-9 for x in d)
    return f"{m:+.2f} ± {se:.2f} ({w}/{n - w - l}/{l})"


views = rows("views.csv")
rule = rows("svmrule-*.csv")
print("Single kernels (test accuracy %, mean ± sd (repeats); Δ paired by split, ± one SE, W/T/L of DKMO):")
print()
print("| view | SVM-CV (σ, C by CV) | SVM, rule kernel (C by CV) | DKMO | Δ DKMO − SVM-CV | Δ DKMO − SVM rule kernel |")
print("| --- | --- | --- | --- | --- | --- |")
for v in VIEWS:
    ds = f"mfeat_{v}"
    svm = next((s for (d, m), s in views.items() if d == ds and m.lower().startswith("svm")), {})
    dk = next((s for (d, m), s in views.items() if d == ds and m.lower() == "dkmo"), {})
    rk = next((s for (d, m), s in rule.items() if d == ds), {})
    print(f"| {v} | {summary(svm)} | {summary(rk)} | {summary(dk)} | {paired(dk, svm)} | {paired(dk, rk)} |")

fusion = rows("fusion-*.csv")
print()
print("Fusion of the six kernels (test accuracy %, mean ± sd (repeats)):")
print()
print("| method | test accuracy | Δ vs UNIFORM (paired) |")
print("| --- | --- | --- |")
uniform = next((s for (d, m), s in fusion.items() if m == "UNIFORM"), {})
for (d, m), s in sorted(fusion.items(), key=lambda kv: kv[0][1]):
    name = "concatenated features + SVM-CV" if m == "SVM-CV" else m
    print(f"| {name} | {summary(s)} | {paired(s, uniform) if m != 'UNIFORM' else ''} |")
