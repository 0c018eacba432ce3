"""kernlearn.ray on a real local Ray cluster: a head and one more node on 127.0.0.1, one
CPU each, started with ``ray start`` for this module and torn down at its end (also on
failure). Every distributed result is compared with the single-machine one, also after
a worker process is killed mid-run."""

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

import numpy as np
import pytest

# This process (the driver) reports 127.0.0.1 as its address rather than the host's own
# (Ray reads the variable when it is imported). The nodes get "1": with "0", `ray start
# --address` refuses to join a multi-node cluster; they are pinned to 127.0.0.1 by
# --node-ip-address.
os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"
ray = pytest.importorskip("ray", reason="kernlearn.ray needs Ray: pip install kernlearn[ray]")

import kernlearn  # noqa: E402
from kernlearn import _core  # noqa: E402

from conftest import dataset, scaled  # noqa: E402

kray = pytest.importorskip("kernlearn.ray")

START_TIMEOUT = 120


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _ray_cli():
    path = os.path.join(os.path.dirname(sys.executable), "ray")
    return path if os.path.exists(path) else shutil.which("ray")


def _start_node(args, temp_dir, env):
    """``ray start ... --block`` in its own process group, so that teardown ends exactly
    the processes this test started."""
    cmd = [_ray_cli(), "start", *args, "--num-cpus", "1", "--node-ip-address", "127.0.0.1",
           "--disable-usage-stats", "--block"]
    log = open(os.path.join(temp_dir, f"node{len(os.listdir(temp_dir))}.log"), "w")
    return subprocess.Popen(cmd, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)


def _stop(proc):
    for sig, wait in ((signal.SIGTERM, 5), (signal.SIGKILL, 10)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue


def _wait_for_nodes(count):
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if sum(1 for n in ray.nodes() if n["Alive"]) >= count:
            return
        time.sleep(0.5)
    raise TimeoutError(f"the Ray cluster did not reach {count} nodes in {START_TIMEOUT}s")


@pytest.fixture(scope="module")
def cluster():
    port = _free_port()
    temp_dir = tempfile.mkdtemp(prefix="klray")
    env = dict(os.environ, RAYON_NUM_THREADS="1", RAY_ENABLE_UV_RUN_RUNTIME_ENV="0",
                   RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER="1")
    # Workers import kernlearn from the same place as this process.
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    nodes = []
    try:
        nodes.append(_start_node(["--head", "--port", str(port), "--include-dashboard=false",
                                  "--temp-dir", os.path.join(temp_dir, "r")], temp_dir, env))
        address = f"127.0.0.1:{port}"
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline or nodes[0].poll() is not None:
                    raise RuntimeError("the Ray head did not start") from None
                time.sleep(0.5)
        nodes.append(_start_node(["--address", address], temp_dir, env))
        kray.connect(address)
        _wait_for_nodes(2)
        yield address
    finally:
        if ray.is_initialized():
            ray.shutdown()
        for proc in reversed(nodes):
            _stop(proc)
        shutil.rmtree(temp_dir, ignore_errors=True)


class _Killer(threading.Thread):
    """Kills (SIGKILL) the first process whose title starts with ``title`` once it has
    run ``after`` seconds: a Ray worker lost mid-task."""

    def __init__(self, title, after=0.3):
        super().__init__(daemon=True)
        self.title, self.after, self.killed, self.stop = title.encode(), after, None, False

    def run(self):
        seen = {}
        while not self.stop and self.killed is None:
            for pid in os.listdir("/proc"):
                if not pid.isdigit():
                    continue
                try:
                    with open(f"/proc/{pid}/cmdline", "rb") as f:
                        cmd = f.read()
                except OSError:
                    continue
                if cmd.startswith(self.title):
                    first = seen.setdefault(pid, time.monotonic())
                    if time.monotonic() - first >= self.after:
                        os.kill(int(pid), signal.SIGKILL)
                        self.killed = int(pid)
                        return
            time.sleep(0.02)


def _heart():
    X, y = dataset("heart")
    return scaled(X), y


GRID = {"sigma": [0.25, 1.0, 4.0], "C": [0.5, 2.0, 8.0]}


def _same_search(a, b):
    assert a.best_params_ == b.best_params_
    assert a.best_score_ == b.best_score_
    for key in a.cv_results_:
        if key == "params":
            assert a.cv_results_[key] == b.cv_results_[key]
        else:
            np.testing.assert_array_equal(a.cv_results_[key], b.cv_results_[key])
    assert [f.tolist() for f in a.folds_] == [f.tolist() for f in b.folds_]
    sa, sb = dict(a.selection_), dict(b.selection_)
    assert sa == sb


def test_grid_search_equals_the_single_machine_search(cluster):
    X, y = _heart()
    single = kernlearn.GridSearch(kernlearn.SVC(), GRID, cv=3, random_state=4).fit(X, y)
    dist = kray.grid_search(kernlearn.SVC(), X, y, GRID, cv=3, random_state=4, quiet=True)
    _same_search(dist, single)
    np.testing.assert_array_equal(dist.predict(X), single.predict(X))


def test_grid_search_regression_equals_the_single_machine_search(cluster):
    X, y = dataset("housing")
    X, y = scaled(X)[:150], y[:150]
    grid = {"sigma": [0.5, 2.0], "C": [1.0, 4.0], "epsilon": [0.1, 1.0]}
    single = kernlearn.GridSearch(kernlearn.SVR(), grid, cv=3, refit=False).fit(X, y)
    dist = kray.grid_search(kernlearn.SVR(), X, y, grid, cv=3, refit=False, quiet=True)
    _same_search(dist, single)


def test_grid_search_survives_a_worker_killed_mid_task(cluster):
    X, y = _heart()
    # Long enough tasks to be caught running: the solver finishes a block of 6 copies
    # of heart between two looks of the killer on an idle machine.
    X = np.vstack([X] * 20)
    y = np.concatenate([y] * 20)
    grid = {"sigma": [0.1, 0.2, 0.5, 1.0], "C": [1.0, 16.0, 256.0]}
    single = kernlearn.GridSearch(kernlearn.SVC(), grid, cv=3, refit=False).fit(X, y)
    # A loaded machine can finish every block between two looks of the killer: each
    # search must equal the single-process one, and one of five must have lost a worker.
    killed = []
    for _ in range(5):
        killer = _Killer("ray::_grid_block", after=0.05)
        killer.start()
        try:
            dist = kray.grid_search(kernlearn.SVC(), X, y, grid, cv=3, refit=False, quiet=True)
        finally:
            killer.stop = True
            killer.join()
        _same_search(dist, single)
        if killer.killed is not None:
            killed.append(killer.killed)
            break
    assert killed, "no grid task was caught running in five searches"


def _mwumkl_reference(X, y, kernels, C, eps):
    est = kernlearn.MKLClassifier("mwumkl", kernels=kernels, C=C, mwu_epsilon=eps, mwu_prune=False,
                                 scale="none")
    return est.fit(X, y)


def _assert_weights_close(a, b):
    b = np.asarray(b)
    b = b[0] if b.ndim == 2 else b  # MKLClassifier: one row per class pair
    np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-300)


def test_mwumkl_over_actors_equals_the_single_machine_fit(cluster):
    X, y = _heart()
    X, y = X[:120], y[:120]
    kernels = "family12@each"
    single = _mwumkl_reference(X, y, kernels, 1.0, 0.3)
    dist = kray.mwumkl(X, y, kernels, C=1.0, epsilon=0.3, shards=3, quiet=True)
    assert dist["shards"] == 3
    assert len(dist["weights"]) == _core.kernel_count(kernels, X.shape[1])
    _assert_weights_close(dist["weights"], single.weights_)


def test_mwumkl_rebuilds_a_killed_actor_from_the_driver(cluster):
    X, y = _heart()
    X, y = X[:100], y[:100]
    kernels = "family12@each"
    single = _mwumkl_reference(X, y, kernels, 2.0, 0.3)
    killed = []

    def kill_one(t, actors):
        if t == 10 and not killed:
            pid = ray.get(actors[1].pid.remote())
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)

    dist = kray.mwumkl(X, y, kernels, C=2.0, epsilon=0.3, shards=2, quiet=True, _after_round=kill_one)
    assert killed
    _assert_weights_close(dist["weights"], single.weights_)


def test_experiment_reports_equal_the_single_machine_run(cluster):
    X, y = _heart()
    X, y = X[:120], y[:120]
    wine_X, wine_y = dataset("wine")
    datasets = {"heart": (X, y), "wine": (wine_X, wine_y)}
    methods = ["svm", kernlearn.MKLClassifier("uniform", kernels="rbf(sigma=1);linear", C=1.0)]
    out = kray.experiment(datasets, methods, repeats=3, seed=5, quiet=True)
    reports = out["datasets"]
    assert [(r["dataset"], r["method"]) for r in reports][0][0] == "heart"
    assert len(reports) == 4
    k = 0
    for name, (Xd, yd) in datasets.items():
        for method in methods:
            args = kray._method_args(method, 3, 0.5, 5)
            single = json.loads(_core.experiment_report(args, name, Xd, yd))
            _assert_same_report(reports[k], single)
            k += 1


def _without_times(value):
    if isinstance(value, dict):
        return {k: _without_times(v) for k, v in value.items() if "seconds" not in k}
    if isinstance(value, list):
        return [_without_times(v) for v in value]
    return value


def _assert_same_report(a, b):
    assert _without_times(a) == _without_times(b)
    assert set(a) == set(b)


def _ionosphere_stacked():
    """1,404 rows (ionosphere four times, jittered so that no two rows coincide): three
    512-row blocks, so three partitions, and 3 does not divide n."""
    X, y = dataset("ionosphere")
    X = scaled(X)
    rng = np.random.default_rng(0)
    X = np.vstack([X] * 4) + 1e-3 * rng.standard_normal((4 * len(X), X.shape[1]))
    return np.ascontiguousarray(X), np.concatenate([y] * 4)


def _dank_estimator(clusters=5):
    return kernlearn.ScalableDANKClassifier(sigma=2.0, C=4.0, clusters=clusters, scale="none",
                                            random_state=3)


def _same_dank(dist, single, X):
    # Same centres, clusters, machines, every stored number: the same model file.
    assert dist.model_.to_json() == single.model_.to_json()
    np.testing.assert_array_equal(dist.predict(X), single.predict(X))
    np.testing.assert_array_equal(dist.decision_function(X), single.decision_function(X))
    assert dist.chosen_ == single.chosen_


def test_scalable_dank_equals_the_single_machine_fit(cluster):
    X, y = _ionosphere_stacked()
    single = _dank_estimator().fit(X, y)
    assert len(json.loads(single.model_.to_json())["model"]["fitted"]["clusters"]) == 5
    dist = kray.scalable_dank(X, y, _dank_estimator(), partitions=3, quiet=True)
    _same_dank(dist, single, X)


def test_scalable_dank_survives_killed_workers(cluster):
    X, y = _ionosphere_stacked()
    # Two clusters of about 700 points: cluster fits long enough to be caught running.
    single = _dank_estimator(clusters=2).fit(X, y)
    # Already partitioned, in the object store: the driver never holds X whole.
    parts = [ray.put(X[:512]), ray.put(X[512:1024]), ray.put(X[1024:])]
    killed, requests = [], []

    def kill_workers(request):
        # Right after a seeding request (4: the first centre's distances) and the first
        # Lloyd update (8) are submitted: the worker actors running (or about to run) them
        # die, Ray restarts them and the driver replays their requests.
        requests.append(request)
        if len(requests) in (4, 8):
            killed.extend(_kill_ray_workers())

    killer = _Killer("ray::_group_work", after=0.02)
    killer.start()
    try:
        dist = kray.scalable_dank(parts, y, _dank_estimator(clusters=2), quiet=True,
                                  _after_submit=kill_workers)
    finally:
        killer.stop = True
        killer.join()
    assert len(requests) >= 8 and '"Assign"' in requests[7]
    assert killed, "no k-means worker was killed"
    assert killer.killed is not None, "no cluster task was caught running"
    _same_dank(dist, single, X)


def _kill_ray_workers():
    """SIGKILLs every distributed-fit worker actor (titles ``ray::_ScaleOutWorker…``) of
    this machine."""
    pids = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    cmd = f.read()
            except OSError:
                continue
            if cmd.startswith(b"ray::_ScaleOutWorker"):
                try:
                    os.kill(int(pid), signal.SIGKILL)
                    pids.append(int(pid))
                except ProcessLookupError:
                    pass
    return pids


def test_clear_errors(cluster):
    with pytest.raises(ConnectionError, match="no Ray cluster at"):
        kray._check_reachable(f"127.0.0.1:{_free_port()}")
    with pytest.raises(MemoryError, match="object store"):
        _too_big()
    with pytest.raises(ValueError, match="binary"):
        kray.mwumkl(*dataset("wine"), "rbf(sigma=1)", quiet=True)
    X, y = _ionosphere_stacked()
    with pytest.raises(ValueError, match="partition 0 has 500 rows.*multiple of 512"):
        kray.scalable_dank([X[:500], X[500:]], y, _dank_estimator(), quiet=True)
    with pytest.raises(ValueError, match="select"):
        kray.scalable_dank(X, y, kernlearn.ScalableDANKClassifier(select="grid"))
    with pytest.raises(ValueError, match="scale"):
        kray.scalable_dank(X, y, kernlearn.ScalableDANKClassifier(scale="01"))


def _too_big():
    capacity = ray.cluster_resources()["object_store_memory"]

    class Huge:  # an array-like that reports more bytes than the store holds
        nbytes = int(capacity) + 1

    kray._put(Huge(), "X")


def test_import_error_names_the_extra():
    code = (
        "import sys; sys.modules['ray'] = None\n"
        "try:\n    import kernlearn.ray\nexcept ImportError as e:\n    print(e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert "pip install kernlearn[ray]" in out.stdout, out.stdout + out.stderr


def _objective(est):
    return json.loads(est.model_.info())["summary"]["objective"]


def test_divide_and_conquer_svc_is_the_exact_fit(cluster):
    X, y = _heart()
    est = kernlearn.SVC(C=4.0, gamma=0.2, tol=1e-6)
    single = kernlearn.SVC(**est.get_params()).fit(X, y)
    for parts in (2, 4):
        dist = kray.svc(X, y, est, parts=parts, quiet=True)
        assert abs(_objective(dist) - _objective(single)) <= 1e-6 * abs(_objective(single))
        np.testing.assert_array_equal(np.sort(dist.support_), np.sort(single.support_))
        np.testing.assert_array_equal(dist.predict(X), single.predict(X))
        np.testing.assert_allclose(dist.decision_function(X), single.decision_function(X),
                                   atol=1e-4)
        assert list(dist.classes_) == list(single.classes_)


def test_divide_and_conquer_svc_refuses_what_it_cannot_split(cluster):
    X, y = _heart()
    with pytest.raises(ValueError, match="parts=1"):
        kray.svc(X, y, parts=1, quiet=True)
    with pytest.raises(ValueError, match="binary"):
        kray.svc(X, np.arange(len(y)) % 3, quiet=True)
    with pytest.raises(ValueError, match="feature rows"):
        kray.svc(X, y, kernlearn.SVC(kernel="precomputed"), quiet=True)
    with pytest.raises(TypeError, match="kernlearn.SVC"):
        kray.svc(X, y, kernlearn.NuSVC(), quiet=True)


def test_divide_and_conquer_svc_survives_a_worker_killed_mid_task(cluster):
    # Parts that take about a second each: two overlapping classes of 5,000 points.
    rng = np.random.default_rng(0)
    y = np.repeat([1.0, -1.0], 5000)
    X = rng.normal(size=(10000, 8)) + 0.4 * y[:, None]
    est = kernlearn.SVC(C=64.0, gamma=0.5)
    calm = kray.svc(X, y, est, parts=2, quiet=True)
    killed = None
    for _ in range(5):
        killer = _Killer("ray::_svc_part", after=0.05)
        killer.start()
        try:
            dist = kray.svc(X, y, est, parts=2, quiet=True)
        finally:
            killer.stop = True
            killer.join()
        # A re-run task solves the same part from the same start: the same model.
        assert dist.model_.to_json() == calm.model_.to_json()
        if killer.killed is not None:
            killed = killer.killed
            break
    assert killed is not None, "no part task was caught running in five fits"
