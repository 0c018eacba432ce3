"""Ray scale-out benchmark: two one-CPU Ray nodes against one one-CPU node on
this machine, for a magic-5k grid search and a 10^5-kernel MWUMKL, with every result
checked against the single-machine one. Also measures what docs/SCALING.md's speedup
model needs: per-task times and bytes sent per task / per MWUMKL round.

    python scripts/bench_ray.py [--rows 5000] [--kernels 100000] [--mwu-rows 200]

Needs the extension built in release mode (`maturin develop --release`) and ray
(`pip install kernlearn[ray]`). Each cluster is started with `ray start --block` in its
own process group (head on 127.0.0.1, `--num-cpus 1` per node, RAYON_NUM_THREADS=1) and
ended by signalling that group.
"""

import argparse
import json
import os
import pickle
import signal
import socket
import subprocess
import sys
import tempfile
import time

import numpy as np

# The driver reports 127.0.0.1 (read when Ray is imported); the nodes get "1", since with
# "0" `ray start --address` refuses to join, and are pinned by --node-ip-address.
os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MAGIC = os.path.join(os.path.dirname(ROOT), "shared", "datasets", "magic.csv")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Cluster:
    """``nodes`` one-CPU Ray nodes on 127.0.0.1, started and stopped by this process."""

    def __init__(self, nodes):
        self.port, self.procs = free_port(), []
        self.temp = tempfile.mkdtemp(prefix="klbench")
        env = dict(os.environ, RAYON_NUM_THREADS="1", RAY_ENABLE_UV_RUN_RUNTIME_ENV="0",
                   RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER="1")
        env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
        ray_cli = os.path.join(os.path.dirname(sys.executable), "ray")
        common = ["--num-cpus", "1", "--node-ip-address", "127.0.0.1", "--disable-usage-stats", "--block"]
        head = [ray_cli, "start", "--head", "--port", str(self.port), "--include-dashboard=false",
                "--temp-dir", os.path.join(self.temp, "r"), *common]
        self._spawn(head, env)
        self._wait_port()
        for _ in range(nodes - 1):
            self._spawn([ray_cli, "start", "--address", self.address, *common], env)
        import ray
        import kernlearn.ray as kray
        kray.connect(self.address)
        while sum(n["Alive"] for n in ray.nodes()) < nodes:
            time.sleep(0.5)

    @property
    def address(self):
        return f"127.0.0.1:{self.port}"

    def _spawn(self, cmd, env):
        log = open(os.path.join(self.temp, f"node{len(self.procs)}.log"), "w")
        self.procs.append(subprocess.Popen(cmd, env=env, stdout=log, stderr=subprocess.STDOUT,
                                           start_new_session=True))

    def _wait_port(self):
        for _ in range(240):
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                time.sleep(0.5)
        raise RuntimeError("ray head did not start")

    def close(self):
        import ray
        ray.shutdown()
        for p in reversed(self.procs):
            for sig in (signal.SIGTERM, signal.SIGKILL):
                try:
                    os.killpg(p.pid, sig)
                    p.wait(timeout=5)
                    break
                except (ProcessLookupError, subprocess.TimeoutExpired):
                    continue


def load_magic(rows):
    """A seeded sample of ``rows`` rows (the file is sorted by class), scaled to [0, 1]."""
    data = np.genfromtxt(MAGIC, delimiter=",", skip_header=1)
    keep = np.sort(np.random.default_rng(0).choice(len(data), size=rows, replace=False))
    X, y = data[keep, :-1], data[keep, -1]
    lo, hi = X.min(axis=0), X.max(axis=0)
    return np.ascontiguousarray((X - lo) / np.where(hi > lo, hi - lo, 1.0)), y


def run_grid(X, y, grid):
    import kernlearn
    import kernlearn.ray as kray
    t = time.perf_counter()
    gs = kray.grid_search(kernlearn.SVC(), X, y, grid, cv=5, refit=False, quiet=True)
    return time.perf_counter() - t, gs


def run_mwumkl(X, y, kernels, shards):
    import kernlearn.ray as kray
    t = time.perf_counter()
    out = kray.mwumkl(X, y, kernels, C=1.0, epsilon=0.2, shards=shards, quiet=True)
    return time.perf_counter() - t, out


def task_times(X, y, grid):
    """Seconds of each σ block run alone in this process (one thread): the per-task
    times of the speedup model."""
    import kernlearn
    from kernlearn import _core
    base = kernlearn.SVC()
    params = base._params_json(X)
    g = json.dumps({"sigmas": grid["sigma"], "cs": grid["C"], "epsilons": []})
    plan = _core.grid_search_plan(params, g, 5, 0, y)
    out = {}
    for s in grid["sigma"]:
        t = time.perf_counter()
        _core.grid_search_block(params, g, plan, [s], X, y)
        out[s] = time.perf_counter() - t
    return out, len(pickle.dumps((params, g, plan, [grid["sigma"][0]]))), X.nbytes + y.nbytes


def mwumkl_round_cost(X, y, kernels, rounds=5):
    """Seconds per MWUMKL round for all kernels in one process (one thread)."""
    from kernlearn import _core
    import kernlearn.ray as kray
    _, signed = kray._binary_labels(y)
    params = json.dumps({"epsilon": 0.2, "width": 1.5, "c": 1.0, "iterations": None})
    m = _core.kernel_count(kernels, X.shape[1])
    t = time.perf_counter()
    shard = _core.MwumklShard(kernels, params, X, signed, 0, m)
    setup = time.perf_counter() - t
    t = time.perf_counter()
    for k in range(rounds):
        shard.round(k, k + 1, 0.0)
    return setup, (time.perf_counter() - t) / rounds, _core.mwumkl_rounds(params, len(y))


def load():
    with open("/proc/loadavg") as f:
        return f.read().split()[0]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=5000)
    ap.add_argument("--kernels", type=int, default=100_000)
    ap.add_argument("--mwu-rows", type=int, default=200)
    args = ap.parse_args()
    os.environ["RAYON_NUM_THREADS"] = "1"
    powers = [2.0 ** e for e in range(-5, 6)]
    grid = {"sigma": powers, "C": powers}
    X, y = load_magic(args.rows)
    pick = np.sort(np.random.default_rng(1).choice(len(X), size=args.mwu_rows, replace=False))
    Xm, ym = X[pick], y[pick]
    kernels = f"rbf(sigma=1)@random(subsets={args.kernels},size=3,seed=0)"

    import kernlearn
    single = kernlearn.GridSearch(kernlearn.SVC(), grid, cv=5, refit=False).fit(X, y)
    single_mwu = kernlearn.MKLClassifier("mwumkl", kernels=kernels, C=1.0, mwu_epsilon=0.2, scale="none").fit(Xm, ym)

    results = {"load_before": load()}
    for nodes in (1, 2):
        cluster = Cluster(nodes)
        try:
            tg, gs = run_grid(X, y, grid)
            tm, mw = run_mwumkl(Xm, ym, kernels, shards=nodes)
        finally:
            cluster.close()
        same_grid = gs.selection_ == single.selection_
        rel = float(np.max(np.abs(mw["weights"] - single_mwu.weights_) / np.abs(single_mwu.weights_)))
        results[nodes] = {"grid_s": tg, "mwumkl_s": tm, "grid_equal": same_grid, "mwumkl_max_rel": rel,
                          "load": load()}
        print(f"{nodes} node(s): grid {tg:.2f} s (equal: {same_grid}), MWUMKL {tm:.2f} s "
              f"(max rel. weight diff {rel:.1e}), load {results[nodes]['load']}", flush=True)
    times, task_bytes, data_bytes = task_times(X, y, grid)
    setup, per_round, rounds = mwumkl_round_cost(Xm, ym, kernels)
    results.update({
        "grid_speedup": results[1]["grid_s"] / results[2]["grid_s"],
        "mwumkl_speedup": results[1]["mwumkl_s"] / results[2]["mwumkl_s"],
        "task_seconds": times, "task_arg_bytes": task_bytes, "data_bytes": data_bytes,
        "mwumkl_setup_s": setup, "mwumkl_round_s": per_round, "mwumkl_rounds": rounds,
        "mwumkl_round_bytes_per_shard": 8 * len(ym) + 64,
        "n_kernels": kernlearn._core.kernel_count(kernels, X.shape[1]),
    })
    print(json.dumps(results, indent=1, default=str))


if __name__ == "__main__":
    main()
