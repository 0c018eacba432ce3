"""Divide-and-conquer C-SVC on Ray (``kernlearn.ray.svc``) against the single-machine
fit (``kernlearn.SVC().fit``, all cores), on the seeded ring set of
``../shared/datasets/make_ring.py`` (the first ``--rows`` rows, features as written).
Checks that both give the same objective (relative difference), the same support
vectors and the same decisions, and prints the times.

    python scripts/bench_ray_svc.py [--rows 200000] [--parts 4] [--nodes 2] [--tol 1e-3]

Needs the extension built in release mode (`maturin develop --release`) and ray. The
cluster is ``--nodes`` one-CPU Ray nodes on 127.0.0.1 (``scripts/bench_ray.py``'s
``Cluster``: RAYON_NUM_THREADS=1 on the nodes); the single-machine fit runs in this
process with rayon's default threads (one per core).
"""

import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_ray import ROOT, Cluster  # noqa: E402

MAKE_RING = os.path.join(os.path.dirname(ROOT), "shared", "datasets", "make_ring.py")


def ring(rows, path):
    if not os.path.exists(path):
        subprocess.run([sys.executable, MAKE_RING, "200000", path], check=True)
    data = np.loadtxt(path, delimiter=",", skiprows=1, max_rows=rows)
    return np.ascontiguousarray(data[:, :-1]), data[:, -1]


def summary(est):
    return json.loads(est.model_.info())["summary"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=200_000)
    ap.add_argument("--parts", type=int, default=4)
    ap.add_argument("--nodes", type=int, default=2)
    ap.add_argument("--C", type=float, default=1.0)
    ap.add_argument("--gamma", type=float, default=0.1)
    ap.add_argument("--tol", type=float, default=1e-3)
    ap.add_argument("--data", default="/tmp/ring.csv")
    args = ap.parse_args()
    import kernlearn
    import kernlearn.ray as kray

    X, y = ring(args.rows, args.data)
    est = kernlearn.SVC(C=args.C, gamma=args.gamma, tol=args.tol, cache_size=1000)
    t = time.perf_counter()
    single = kernlearn.SVC(**est.get_params()).fit(X, y)
    t_single = time.perf_counter() - t
    cluster = Cluster(args.nodes)
    try:
        t = time.perf_counter()
        dc = kray.svc(X, y, est, parts=args.parts, quiet=False)
        t_dc = time.perf_counter() - t
    finally:
        cluster.close()
    a, b = summary(single), summary(dc)
    same_sv = np.array_equal(np.sort(single.support_), np.sort(dc.support_))
    dec = np.abs(single.decision_function(X[:20000]) - dc.decision_function(X[:20000])).max()
    print(json.dumps({
        "rows": args.rows, "parts": args.parts, "nodes": args.nodes, "tol": args.tol,
        "single_s": round(t_single, 2), "ray_s": round(t_dc, 2),
        "speedup": round(t_single / t_dc, 2),
        "objective_single": a["objective"], "objective_ray": b["objective"],
        "objective_rel_diff": abs(a["objective"] - b["objective"]) / abs(a["objective"]),
        "n_sv": [a["n_support"], b["n_support"]], "same_support_vectors": bool(same_sv),
        "max_decision_diff": float(dec),
        "iterations": [a["iterations"], b["iterations"]],
    }, indent=1))


if __name__ == "__main__":
    main()
