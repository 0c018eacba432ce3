"""Markdown tables from the JSON of scripts/hyperkernel_table3.sh (stdlib only)."""
import json, pathlib, sys

out = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "target/hyperkernel")
PAPER3 = {  # Table 3: C-SVM, nu-SVM, Lag-SVM, CV-tuned SVM (test error %, mean ± sd)
    "syndata": ("2.8±2.4", "1.9±1.9", "2.4±2.2", "5.9±5.4"),
    "pima": ("23.5±2.0", "27.7±2.1", "23.6±1.9", "24.1±2.1"),
    "ionosphere": ("6.6±1.8", "6.7±1.8", "6.4±1.9", "6.1±1.8"),
    "wdbc": ("3.3±1.2", "3.8±1.2", "3.0±1.1", "5.2±1.4"),
    "heart": ("19.7±3.3", "19.3±2.4", "20.1±2.8", "23.2±3.7"),
    "sonar": ("14.8±3.7", "15.3±3.7", "14.7±3.6", "15.3±4.1"),
    "glass": ("6.0±2.4", "8.9±2.6", "6.0±2.2", "7.2±2.7"),
}
PAPER5 = {"mpg": ("7.83±0.96", "9.47±1.55"), "housing": ("12.96±3.38", "15.78±4.30")}


def load_one(p):
    if not p.exists() or p.stat().st_size == 0:
        return None
    return json.loads(p.read_text())["datasets"][0]


def load(name):
    d = load_one(out / name)
    if d is None:
        # a shorter side run (t3b_*: fewer repeats), when the main one has not finished
        d = load_one(out / name.replace("t3_", "t3b_"))
    if d is None:
        return None
    # Later splits of the same run (FIRST_REPEAT=k in hyperkernel_table3.sh: *.r<k>.json),
    # merged by seed; the fit time is then the mean over all merged splits.
    stem = name[: -len(".json")]
    seen = {r["seed"] for r in d["runs"]}
    for extra in sorted(out.glob(stem + ".r*.json")):
        e = load_one(extra)
        if e is None:
            continue
        d["runs"] += [r for r in e["runs"] if r["seed"] not in seen]
        seen |= {r["seed"] for r in e["runs"]}
    d["runs"].sort(key=lambda r: r["seed"])
    d["repeats"] = len(d["runs"])
    fits = [r["fit_seconds"] for r in d["runs"] if "fit_seconds" in r]
    if fits:
        d["summary"]["fit_seconds"]["mean"] = sum(fits) / len(fits)
    return d


def err(d):
    if d is None:
        return "—"
    accs = [r["test"]["accuracy"] for r in d["runs"]]
    errs = [100 * (1 - a) for a in accs]
    m = sum(errs) / len(errs)
    sd = (sum((e - m) ** 2 for e in errs) / max(1, len(errs) - 1)) ** 0.5
    return f"{m:.1f}±{sd:.1f}"


def mse(d):
    if d is None:
        return "—"
    v = [r["test"]["mse"] for r in d["runs"]]
    m = sum(v) / len(v)
    sd = (sum((e - m) ** 2 for e in v) / max(1, len(v) - 1)) ** 0.5
    return f"{m:.2f}±{sd:.2f}"


print("| data | C-SVM (ours / paper) | ν-SVM (ours / paper) | Lag-SVM (ours / paper) | SVM-CV (ours) / CV-tuned SVM (paper) | repeats | C-SVM fit s |")
print("| --- | --- | --- | --- | --- | ---: | ---: |")
for ds, paper in PAPER3.items():
    runs = [load(f"t3_{ds}_{p}.json") for p in ("c-svm", "nu-svm", "lsvm", "svmcv")]
    reps = "/".join(str(r["repeats"]) if r else "–" for r in runs)
    fit = f"{runs[0]['summary']['fit_seconds']['mean']:.2f}" if runs[0] else "—"
    cells = [f"{err(r)} / {p}" for r, p in zip(runs, paper)]
    print(f"| {ds} | " + " | ".join(cells) + f" | {reps} | {fit} |")


def paired(method, base, key="accuracy", sign=1.0):
    """Mean paired difference (base error − method error, in points; MSE for regression),
    its standard error and wins/ties/losses over the repeats both runs share (same seeds,
    hence the same splits)."""
    if method is None or base is None:
        return "—"
    by_seed = {r["seed"]: r["test"][key] for r in base["runs"]}
    pairs = [(r["test"][key], by_seed[r["seed"]]) for r in method["runs"] if r["seed"] in by_seed]
    if not pairs:
        return "—"
    scale = 100.0 if key == "accuracy" else 1.0
    d = [sign * scale * (m - b) for m, b in pairs]  # positive: the hyperkernel is better
    n = len(d)
    mean = sum(d) / n
    se = (sum((x - mean) ** 2 for x in d) / (n - 1) / n) ** 0.5 if n > 1 else float("nan")
    w = sum(x > 1e-12 for x in d)
    l = sum(x < -1e-12 for x in d)
    return f"{mean:+.1f} ± {se:.1f} ({w}/{n - w - l}/{l})"


print()
print("Paired against our SVM-CV on the same splits (Δ = SVM-CV error − hyperkernel error, points;")
print("positive: the hyperkernel is better; ± one standard error; wins/ties/losses):")
print()
print("| data | C-SVM | ν-SVM | Lag-SVM |")
print("| --- | --- | --- | --- |")
for ds in PAPER3:
    base = load(f"t3_{ds}_svmcv.json")
    cells = [paired(load(f"t3_{ds}_{p}.json"), base) for p in ("c-svm", "nu-svm", "lsvm")]
    print(f"| {ds} | " + " | ".join(cells) + " |")
print()
print("| data | ν-SVR hyperkernel (ours / paper) | SVR-CV (ours) / CV-tuned ε-SVR (paper) | repeats |")
print("| --- | --- | --- | ---: |")
for ds, paper in PAPER5.items():
    runs = [load(f"t5_{ds}_{p}.json") for p in ("nu-svr", "svrcv")]
    reps = runs[0]["repeats"] if runs[0] else 0
    print(f"| {ds} | {mse(runs[0])} / {paper[0]} | {mse(runs[1])} / {paper[1]} | {reps} |")
print()
print("Paired against our SVR-CV (Δ = SVR-CV MSE − hyperkernel MSE; positive: the hyperkernel is better):")
print()
print("| data | ν-SVR |")
print("| --- | --- |")
for ds in PAPER5:
    print(f"| {ds} | {paired(load(f't5_{ds}_nu-svr.json'), load(f't5_{ds}_svrcv.json'), 'mse', -1.0)} |")

# Width sensitivity (scripts/hyperkernel_width_sweep.sh): factor 50 is the Table 3 / 5 run.
factors = sorted({p.stem.split("_")[-1] for p in out.glob("tw_*.json")}, key=float, reverse=True)
if factors:
    print()
    print("Width factor (ARD widths = factor × 90 % quantile, `exp(−d²/w²)`); C-SVM test error % or ν-SVR MSE, mean ± sd, repeats:")
    print()
    print("| data | paper | " + " | ".join(f"factor {f}" for f in ["50"] + factors) + " |")
    print("| --- | --- | " + " | ".join("---" for _ in range(len(factors) + 1)) + " |")
    for ds in ["glass", "ionosphere", "sonar", "mpg", "housing"]:
        reg = ds in PAPER5
        first = load(f"t5_{ds}_nu-svr.json" if reg else f"t3_{ds}_c-svm.json")
        runs = [first] + [load(f"tw_{ds}_{f}.json") for f in factors]
        if all(r is None for r in runs[1:]):
            continue
        show = mse if reg else err
        cells = [f"{show(r)} ({r['repeats']})" if r else "—" for r in runs]
        paper = PAPER5[ds][0] if reg else PAPER3[ds][0]
        print(f"| {ds} | {paper} | " + " | ".join(cells) + " |")

# SELECT=grid runs: the width factor each training part chose by 5-fold CV.
chosen = []
for name in sorted(p.name for p in out.glob("t[35]_*.json") if ".r" not in p.name):
    d = load(name)
    if d is None or name.endswith(("svmcv.json", "svrcv.json")):
        continue
    f = [r["chosen"]["other"].get("hyperkernel_width_factor") for r in d["runs"]]
    cv = [k for k in d["runs"][0]["chosen"]["other"] if k.startswith("hyperkernel_cv_error")]
    if cv:
        chosen.append((name[3:-5], f))
if chosen:
    print()
    print("Width factor chosen by CV inside each training part (per split):")
    print()
    print("| run | factors chosen |")
    print("| --- | --- |")
    for name, f in chosen:
        print(f"| {name} | {', '.join(f'{v:g}' for v in f)} |")
