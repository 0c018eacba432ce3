#!/usr/bin/env python3
"""Sparse-data benchmark: kernlearn `fit --sparse` beside LIBSVM `svm-train`, scikit-learn
`SVC` on a CSR matrix and ThunderSVM (each when installed), on the same LIBSVM files.

    python3 scripts/bench_sparse.py                      # adult + hashed text set
    python3 scripts/bench_sparse.py --adult-rows 5000 --repeats 1

Datasets (written once into the work directory):
* adult: <repo>/../shared/datasets/adult.csv (one-hot columns as published), min-max
  scaled to [0, 1] on the whole file (the benchmark times fitting, not generalisation),
  written as a sparse LIBSVM file; the first --adult-rows rows.
* text-hashed: a generated high-dimensional sparse set, reproducible without a download:
  every docstring (80 characters or more) of the public names of a fixed list of
  Python standard-library packages (text shipped with the interpreter), word uni- and bi-grams hashed (crc32) into 2^18 columns, tf scaled
  by the row's largest count; label +1 for modules under `email`, `http`, `urllib`,
  `xml`, `json` (networking / formats), -1 otherwise. Density is far below 0.1 %.

Per tool and dataset: median wall seconds of the fit (kernlearn and svm-train: the whole
process, reading the file and writing the model; scikit-learn: `SVC.fit` on the CSR
matrix), the peak resident memory of that process (`ru_maxrss` of the child), the model
file's size, and the number of support vectors. C = 4, RBF γ = 0.5 for adult, 1 for
text-hashed, ε = 0.001, 100 MB cache. Prints a Markdown table.
"""

import argparse
import csv
import importlib
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import zlib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def write_adult(path, rows):
    src = os.path.join(ROOT, "..", "shared", "datasets", "adult.csv")
    with open(src) as f:
        reader = csv.reader(f)
        next(reader)
        data = [list(map(float, r)) for _, r in zip(range(rows), reader)]
    d = len(data[0]) - 1
    lo = [min(r[j] for r in data) for j in range(d)]
    hi = [max(r[j] for r in data) for j in range(d)]
    with open(path, "w") as out:
        for r in data:
            cells = []
            for j in range(d):
                v = (r[j] - lo[j]) / (hi[j] - lo[j]) if hi[j] > lo[j] else 0.0
                if v != 0.0:
                    cells.append(f"{j + 1}:{v!r}")
            out.write(f"{int(r[d]):+d} " + " ".join(cells) + "\n")


def write_text_hashed(path, bits=18):
    import pkgutil

    positive = ("email", "http", "urllib", "xml", "json")
    packages = positive + ("asyncio", "collections", "concurrent", "ctypes", "importlib",
                           "logging", "multiprocessing", "sqlite3", "unittest", "encodings")
    names = []
    for pkg in packages:
        top = importlib.import_module(pkg)
        names.append(pkg)
        names += [m.name for m in pkgutil.walk_packages(top.__path__, pkg + ".")]
    lines = []
    for mod in sorted(names):
        if ".test" in mod:
            continue
        try:
            module = importlib.import_module(mod)
        except BaseException:  # noqa: BLE001 - any import failure just skips the module
            continue
        for name, obj in sorted(vars(module).items()):
            doc = getattr(obj, "__doc__", None) if not name.startswith("_") else None
            if not isinstance(doc, str) or len(doc) < 80:
                continue
            words = re.findall(r"[a-z]+", doc.lower())
            grams = words + [a + " " + b for a, b in zip(words, words[1:])]
            counts = {}
            for g in grams:
                h = zlib.crc32(g.encode()) & ((1 << bits) - 1)
                counts[h] = counts.get(h, 0) + 1
            top = max(counts.values())
            label = 1 if mod.split(".")[0] in positive else -1
            cells = " ".join(f"{h + 1}:{c / top!r}" for h, c in sorted(counts.items()))
            lines.append(f"{label:+d} {cells}\n")
        if len(lines) > 20000:
            break
    with open(path, "w") as out:
        out.writelines(lines)


def bench(path, gamma, repeats, work):
    rows = []
    kl = os.path.join(ROOT, "target", "release", "kernlearn")
    model = os.path.join(work, "kl.json")
    runs = []
    for _ in range(repeats):
        cmd = [kl, "fit", "-d", path, "--sparse", "--scale", "none", "--c", "4",
               "--gamma", str(gamma), "-o", model, "--force", "--json", "--no-train-score", "-q"]
        # A fresh interpreter per run, so that ru_maxrss is this run's own peak.
        runs.append(measure_isolated(cmd))
    out = json.loads(runs[-1][2])
    rows.append(("kernlearn --sparse", runs, os.path.getsize(model), out["n_support"]))
    if shutil.which("svm-train"):
        model = os.path.join(work, "libsvm.model")
        cmd = ["svm-train", "-c", "4", "-g", str(gamma), "-m", "100", path, model]
        runs = [measure_isolated(cmd) for _ in range(repeats)]
        n_sv = int(re.search(r"total_sv (\d+)", open(model).read()).group(1))
        rows.append(("LIBSVM svm-train", runs, os.path.getsize(model), n_sv))
    try:
        importlib.import_module("sklearn")
        code = (
            "import sys,time,json;from sklearn.datasets import load_svmlight_file;"
            "from sklearn.svm import SVC;X,y=load_svmlight_file(sys.argv[1]);"
            "t=time.perf_counter();m=SVC(C=4,gamma=float(sys.argv[2]),cache_size=100).fit(X,y);"
            "print(json.dumps({'fit':time.perf_counter()-t,'n_sv':int(m.n_support_.sum())}))"
        )
        runs = [measure_isolated([sys.executable, "-c", code, path, str(gamma)]) for _ in range(repeats)]
        res = json.loads(runs[-1][2])
        runs = [(json.loads(r[2])["fit"], r[1], r[2]) for r in runs]
        rows.append(("scikit-learn SVC (CSR)", runs, None, res["n_sv"]))
    except ImportError:
        pass
    return rows


def measure_isolated(cmd):
    """Runs `cmd` under a small Python wrapper so that its peak RSS is its own."""
    wrapper = (
        "import resource,subprocess,sys,time,json;t=time.perf_counter();"
        "p=subprocess.run(sys.argv[1:],capture_output=True,text=True);w=time.perf_counter()-t;"
        "sys.stderr.write(p.stderr);"
        "print(json.dumps({'rc':p.returncode,'wall':w,'rss':resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss,'out':p.stdout}))"
    )
    proc = subprocess.run([sys.executable, "-c", wrapper, *cmd], capture_output=True, text=True)
    res = json.loads(proc.stdout)
    if res["rc"] != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed: {proc.stderr.strip()[-400:]}")
    return res["wall"], res["rss"] / 1024, res["out"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--adult-rows", type=int, default=45222)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--no-build", action="store_true")
    args = ap.parse_args()
    if not args.no_build:
        subprocess.run(["cargo", "build", "--release", "-q", "-p", "kernlearn-cli"], cwd=ROOT, check=True)
    work = tempfile.mkdtemp(prefix="bench-sparse-")
    sets = []
    adult = os.path.join(work, "adult.svm")
    write_adult(adult, args.adult_rows)
    sets.append(("adult (one-hot, sparse file)", adult, 0.5))
    text = os.path.join(work, "text-hashed.svm")
    write_text_hashed(text)
    sets.append(("text-hashed (2^18 columns)", text, 1.0))
    print("| data | rows | columns | density | tool | fit s (median) | peak RSS MiB | model bytes | SVs |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, path, gamma in sets:
        lines = open(path).read().splitlines()
        nnz = sum(len(l.split()) - 1 for l in lines)
        d = max(int(tok.split(":")[0]) for l in lines for tok in l.split()[1:2] + l.split()[-1:] if ":" in tok)
        for tool, runs, size, n_sv in bench(path, gamma, args.repeats, work):
            wall = statistics.median(r[0] for r in runs)
            rss = max(r[1] for r in runs)
            print(f"| {name} | {len(lines)} | {d} | {nnz / (len(lines) * d):.2e} | {tool} | "
                  f"{wall:.3f} | {rss:.0f} | {size if size is not None else '—'} | {n_sv} |")


if __name__ == "__main__":
    main()
