"""Scalable DANK on Ray: one one-CPU Ray node against two, on a magic sample,
each result checked against the single-machine fit (same saved model). Also measures
what docs/SCALING.md's model needs: the k-means part (requests, bytes) and the
per-cluster fit times.

    python scripts/bench_ray_dank.py [--rows 5000] [--clusters 10] [--sigma 0.5] [--C 4]

Uses ``scripts/bench_ray.py``'s cluster set-up (head on 127.0.0.1, ``--num-cpus 1`` per
node, RAYON_NUM_THREADS=1) and magic sample (seeded, scaled to [0, 1]).
"""

import argparse
import json
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_ray import Cluster, load, load_magic  # noqa: E402


def estimator(args):
    import kernlearn
    return kernlearn.ScalableDANKClassifier(sigma=args.sigma, C=args.C, clusters=args.clusters,
                                            scale="none", random_state=0)


def run(X, y, args, partitions):
    """Seconds of the distributed fit, the fit, and the k-means requests' bytes."""
    import kernlearn.ray as kray
    sent = []
    t = time.perf_counter()
    fit = kray.scalable_dank(X, y, estimator(args), partitions=partitions, quiet=True,
                             _after_submit=lambda request: sent.append(len(request)))
    return time.perf_counter() - t, fit, sent


def cluster_times(X, y, fit):
    """Seconds of each cluster's fit alone in this process (one thread)."""
    from kernlearn import _core
    model = json.loads(fit.model_.to_json())["model"]["fitted"]
    params = json.dumps(model["params"])
    centres = np.asarray(model["centres"])
    route = np.argmin(((X[:, None, :] - centres[None]) ** 2).sum(-1), axis=1)
    signed = np.where(y == model["classes"][0], 1.0, -1.0)
    out = []
    for c in range(len(centres)):
        rows = route == c
        t = time.perf_counter()
        _core.scalable_dank_fit_cluster(params, np.ascontiguousarray(X[rows]), signed[rows])
        out.append((int(rows.sum()), time.perf_counter() - t))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=5000)
    ap.add_argument("--clusters", type=int, default=10)
    ap.add_argument("--sigma", type=float, default=0.5)
    ap.add_argument("--C", type=float, default=4.0)
    args = ap.parse_args()
    os.environ["RAYON_NUM_THREADS"] = "1"
    X, y = load_magic(args.rows)
    t = time.perf_counter()
    single = estimator(args).fit(X, y)
    results = {"single_machine_s": time.perf_counter() - t, "load_before": load()}
    for nodes in (1, 2):
        cluster = Cluster(nodes)
        try:
            seconds, fit, sent = run(X, y, args, partitions=max(nodes, 2))
        finally:
            cluster.close()
        same = fit.model_.to_json() == single.model_.to_json()
        results[nodes] = {"seconds": seconds, "equal_model": same, "load": load(),
                          "kmeans_requests": len(sent), "kmeans_request_bytes": sum(sent)}
        print(f"{nodes} node(s): {seconds:.2f} s (same model: {same}), load {load()}", flush=True)
    times = cluster_times(X, y, single)
    results.update({
        "speedup": results[1]["seconds"] / results[2]["seconds"],
        "cluster_fits": times,
        "cluster_fit_total_s": sum(s for _, s in times),
        "cluster_fit_max_s": max(s for _, s in times),
    })
    print(json.dumps(results, indent=1, default=str))


if __name__ == "__main__":
    main()
