"""kernlearn on a Ray cluster: the same grid searches, experiments, scalable DANK and
MWUMKL fits as on one machine, with the work spread over Ray's tasks and actors.

Ray does the scheduling, the transport (its object store) and the failure handling
(task retries, actor restarts); this module only cuts each computation into the pieces
the library already has and puts the pieces' results together in the library's order,
so every result equals the single-machine one (see ``docs/SCALING.md``):

- :func:`grid_search`: one task per Gaussian width σ, which computes the Gram matrix once
  and reuses it for every fold and every C (``select::GridSearch::score_sigmas``); the
  driver picks the best point with the library's rule.
- :func:`svc`: one exact C-SVC by divide and conquer (cascade SVM, Graf et al. 2005;
  DC-SVM, Hsieh, Si and Dhillon 2014): the parts of a stratified random partition are
  solved as Ray tasks, merged pairwise and re-solved from the union of their solutions,
  and the whole problem is solved last from the union, to the same KKT tolerance as a
  cold fit.
- :func:`experiment`: one task per (data set, method, repeat); the reports are the CLI's
  ``kernlearn experiment --json`` entries.
- :func:`mwumkl` and :func:`scalable_dank`: the library's one distributed-fit protocol
  (``kernlearn::learner::scale_out``): a coordinator in this process answers each step
  with the next requests for the workers (Ray actors holding a slice of the kernel
  family, or a row partition) or with the model; a lost actor is restarted by Ray and
  replays its earlier requests. Scalable DANK then regroups the rows by cluster and
  fits each cluster's DANK machine as a Ray task.

Connect with :func:`connect` (or let each function do it): ``address=None`` uses the
cluster in ``RAY_ADDRESS`` or starts a local one, ``address="HOST:PORT"`` joins a running
cluster (``ray start --head --port PORT`` on the head machine).
"""

import json
import os
import socket
import sys
import time
from typing import TYPE_CHECKING, Any, Callable, Optional

import numpy as np
import scipy.sparse
from numpy.typing import ArrayLike

try:
    import ray
    import ray.exceptions
except ImportError as err:  # pragma: no cover - exercised without ray installed
    raise ImportError(
        "kernlearn.ray needs Ray, which is not installed: pip install kernlearn[ray]"
    ) from err

from . import _core
from ._base import check_fit_data, label_values, seed_of
from ._learned import _require_binary
from .model_selection import GridSearch
from .nonparametric import ScalableDANKClassifier

if TYPE_CHECKING:
    from .svm import SVC

__all__ = ["connect", "grid_search", "experiment", "mwumkl", "scalable_dank", "svc"]


def connect(address: Optional[str] = None, **init_kwargs: Any) -> None:
    """Connects this process to a Ray cluster unless it already is.

    Parameters
    ----------
    address : str, default=None
        ``"HOST:PORT"`` of a running cluster's head (its GCS port, ``ray start --head
        --port PORT``), ``"auto"`` for the cluster this machine belongs to, or None for
        ``RAY_ADDRESS`` / a new local cluster.
    **init_kwargs
        Passed to :func:`ray.init`.

    Raises
    ------
    ConnectionError
        When nothing answers at ``address``.
    """
    if ray.is_initialized():
        return
    if address not in (None, "auto", "local"):
        _check_reachable(address)
    init_kwargs.setdefault("log_to_driver", False)
    try:
        ray.init(address=address, **init_kwargs)
    except ConnectionError as e:
        raise ConnectionError(f"no Ray cluster at {address!r}: {e}") from e


def _check_reachable(address):
    """Fails at once, with the reason, when no process listens at ``HOST:PORT``
    (Ray itself would keep retrying for a minute)."""
    text = address.split("://")[-1]
    host, _, port = text.rpartition(":")
    if not host or not port.isdigit():
        raise ValueError(f"address must be 'HOST:PORT' (the head's GCS port), got {address!r}")
    try:
        with socket.create_connection((host, int(port)), timeout=5):
            pass
    except OSError as e:
        raise ConnectionError(
            f"no Ray cluster at {address!r} ({e}); start one there with "
            f"`ray start --head --port {port}` or pass the right address"
        ) from None


def _put(array, name):
    """``ray.put`` once, after checking that ``array`` fits the cluster's object store."""
    capacity = ray.cluster_resources().get("object_store_memory", 0.0)
    if capacity and array.nbytes > capacity:
        raise MemoryError(_too_large(name, array.nbytes, capacity))
    try:
        return ray.put(array)
    except ray.exceptions.ObjectStoreFullError as e:
        raise MemoryError(_too_large(name, array.nbytes, capacity)) from e


def _too_large(name, nbytes, capacity):
    return (
        f"{name} is {nbytes / 2**20:.1f} MiB, more than the Ray object store can hold "
        f"({capacity / 2**20:.1f} MiB in the cluster); start the nodes with a larger "
        f"--object-store-memory, or pass fewer rows"
    )


class _Progress:
    """A progress bar over finished tasks, on stderr (quiet when asked or not a TTY)."""

    def __init__(self, total, label, quiet):
        self.total, self.label, self.done = total, label, 0
        self.quiet = (not sys.stderr.isatty()) if quiet is None else bool(quiet)
        self.start = time.monotonic()
        self._draw()

    def advance(self, k=1):
        self.done += k
        self._draw()

    def _draw(self):
        if self.quiet:
            return
        width = 30
        filled = width * self.done // max(self.total, 1)
        bar = "#" * filled + "." * (width - filled)
        elapsed = time.monotonic() - self.start
        end = "\n" if self.done >= self.total else ""
        sys.stderr.write(f"\r{self.label} [{bar}] {self.done}/{self.total} ({elapsed:.0f}s){end}")
        sys.stderr.flush()


def _gather(refs, label, quiet):
    """The results of ``refs`` in their order, advancing a progress bar as tasks finish
    (``ray.wait``); a failed task raises its error here."""
    bar = _Progress(len(refs), label, quiet)
    index = {ref: i for i, ref in enumerate(refs)}
    results = [None] * len(refs)
    pending = list(refs)
    while pending:
        ready, pending = ray.wait(pending, num_returns=1)
        for ref in ready:
            results[index[ref]] = ray.get(ref)
        bar.advance(len(ready))
    return results


# ---------------------------------------------------------------------------- grid search


@ray.remote(num_cpus=1)
def _grid_block(params, grid, plan, sigmas, x, y):
    return _core.grid_search_block(params, grid, plan, sigmas, x, y)


def grid_search(estimator: Any = None, X: Optional[ArrayLike] = None, y: Optional[ArrayLike] = None,
                param_grid: Optional[dict[str, Any]] = None, cv: int = 5, *, random_state: int = 0,
                refit: bool = True, address: Optional[str] = None, quiet: Optional[bool] = None,
                max_retries: int = 3) -> GridSearch:
    """:class:`kernlearn.GridSearch` with one Ray task per Gaussian width.

    Each task computes its σ's Gram matrix once and reuses it for every fold and every
    C (warm starts along C), as the single-machine search does; ``X`` and ``y`` are put
    in the object store once. Picks, scores and folds equal the single-machine
    ``GridSearch(estimator, param_grid, cv=cv, random_state=random_state).fit(X, y)``.

    Parameters
    ----------
    estimator, param_grid, cv, random_state, refit
        As for :class:`kernlearn.GridSearch`.
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
    address : str, default=None
        The cluster (see :func:`connect`).
    quiet : bool, default=None
        No progress bar (default: quiet unless stderr is a terminal).
    max_retries : int, default=3
        Ray re-runs a task whose worker died up to this many times.

    Returns
    -------
    GridSearch
        Fitted: ``best_params_``, ``cv_results_``, ``selection_`` (the library's
        ``Selection``, as the CLI writes it), ``best_estimator_`` when ``refit``.
    """
    search = GridSearch(estimator, param_grid, cv=cv, random_state=random_state, refit=refit)

    def distributed(params, grid, folds, seed, X, y_lib):
        connect(address)
        plan = _core.grid_search_plan(params, grid, folds, seed, y_lib)
        x_ref, y_ref = _put(X, "X"), _put(y_lib, "y")
        sigmas = json.loads(grid)["sigmas"]
        # Narrow widths cost the most (more support vectors): they start first.
        order = sorted(range(len(sigmas)), key=lambda i: sigmas[i])
        task = _grid_block.options(max_retries=max_retries)
        refs = [task.remote(params, grid, plan, [sigmas[i]], x_ref, y_ref) for i in order]
        scores = [None] * len(sigmas)
        for i, text in zip(order, _gather(refs, "grid search", quiet)):
            scores[i] = json.loads(text)[0]
        return _core.grid_search_select(params, grid, plan, json.dumps(scores))

    return search._fit_with(distributed, X, y, distributed=True)


# ----------------------------------------------------------------------------- experiment


@ray.remote(num_cpus=1)
def _experiment_repeat(args, name, r, x, y):
    return _core.experiment_repeat(args, name, r, x, y)


def _method_args(method, repeats, test_fraction, seed):
    """The library's experiment arguments of a catalogue method name or a kernlearn
    learned-kernel estimator (its options, scaling, grid and ``random_state``)."""
    if isinstance(method, str):
        spec = {"method": method, "options": [], "scale": "01", "grid_json": None, "regression": False}
    elif hasattr(method, "_options") and hasattr(method, "_method_name"):
        spec = {
            "method": method._method_name(),
            "options": method._options(),
            "scale": method.scale,
            "grid_json": method._grid_json(),
            "regression": bool(method._regression),
        }
        if getattr(method, "random_state", None) is not None:
            seed = seed_of(method.random_state, seed)
    else:
        raise TypeError(
            f"methods are catalogue names ('svm', 'dank', ...) or kernlearn learned-kernel "
            f"estimators, not {type(method).__name__}"
        )
    return {**spec, "seed": int(seed), "repeats": int(repeats), "test_fraction": float(test_fraction)}


def _as_dataset(name, data):
    if not (isinstance(data, tuple) and len(data) == 2):
        raise TypeError(f"datasets[{name!r}] must be an (X, y) pair")
    X = np.ascontiguousarray(data[0], dtype=np.float64)
    y = np.ascontiguousarray(data[1], dtype=np.float64)
    if X.ndim != 2 or y.ndim != 1 or len(X) != len(y):
        raise ValueError(f"datasets[{name!r}]: X must be 2-D and y 1-D with one label per row")
    return X, y


def experiment(datasets: Any, methods: Any, repeats: int = 10, *, test_fraction: float = 0.5,
               seed: int = 0, address: Optional[str] = None, quiet: Optional[bool] = None,
               max_retries: int = 3) -> dict[str, Any]:
    """``kernlearn experiment`` with every repeat a Ray task.

    Parameters
    ----------
    datasets : dict
        Name → ``(X, y)`` (numeric labels, as in the CSV files).
    methods : list
        Catalogue method names (``"svm"``, ``"dank"``, ...; the CLI's defaults) or
        kernlearn learned-kernel estimators (``DANKClassifier(select="grid")``: their
        options, ``scale``, ``grid`` and ``random_state``).
    repeats : int, default=10
        Random splits per (data set, method); repeat ``r`` is seeded ``seed + r``.
    test_fraction : float, default=0.5
        Fraction of each split held out.
    seed : int, default=0
        Base seed (an estimator's ``random_state`` replaces it for that method).
    address, quiet, max_retries
        As for :func:`grid_search`.

    Returns
    -------
    dict
        ``{"datasets": [report, ...]}``, the reports in data-set then method order, each
        as ``kernlearn experiment --json`` writes it (``runs``, ``summary``, ...).
    """
    connect(address)
    jobs = []  # (name, X, y, args)
    for name, data in datasets.items():
        X, y = _as_dataset(name, data)
        for method in methods:
            jobs.append((name, X, y, _method_args(method, repeats, test_fraction, seed)))
    refs_of = {}
    start = time.monotonic()
    task = _experiment_repeat.options(max_retries=max_retries)
    stored = {}
    for k, (name, X, y, args) in enumerate(jobs):
        if name not in stored:
            stored[name] = (_put(X, f"{name} X"), _put(y, f"{name} y"))
        x_ref, y_ref = stored[name]
        refs_of[k] = [task.remote(args, name, r, x_ref, y_ref) for r in range(repeats)]
    flat = [ref for k in range(len(jobs)) for ref in refs_of[k]]
    texts = _gather(flat, "experiment", quiet)
    elapsed = time.monotonic() - start
    reports = []
    for k, (name, X, y, args) in enumerate(jobs):
        runs = "[" + ",".join(texts[k * repeats:(k + 1) * repeats]) + "]"
        report = _core.experiment_report(args, name, X, y, runs, elapsed)
        reports.append(json.loads(report))
    return {"datasets": reports}


# ------------------------------------------------------------------- distributed fits


@ray.remote
class _ScaleOutWorker:
    """A worker of the library's distributed-fit protocol (``_core.ScaleOutWorker``):
    its rows, labels and state. After a restart (its process was lost) the state is new:
    ``work`` then answers None and the driver replays the requests sent before."""

    def __init__(self, method, setup, x, y):
        self.x, self.y = x, y
        self.worker = _core.ScaleOutWorker(method, setup, x, y)

    def pid(self):
        return os.getpid()

    def work(self, t, request):
        return self.worker.work(t, request)

    def replay(self, requests):
        return self.worker.replay(requests)

    def split(self, k):
        """The rows and labels of each of ``k`` groups (row order kept)."""
        groups = self.worker.groups()
        parts = tuple((self.x[groups == g], self.y[groups == g]) for g in range(k))
        return parts if k > 1 else parts[0]


@ray.remote(num_cpus=1)
def _group_work(method, request, *parts):
    """A regroup request on one group's rows gathered in worker order."""
    x = np.concatenate([p[0] for p in parts])
    y = np.concatenate([p[1] for p in parts])
    return _core.scale_out_group(method, request, x, y)


def _as_packet(head, values=()):
    return (json.dumps(head), np.asarray(values, dtype=np.float64))


def _ask(workers, logs, requests, after_submit):
    """Request ``w`` to worker ``w``; a worker that lost its state (restarted by Ray) is
    rebuilt by replaying its earlier requests and asked again."""
    refs = [w.work.remote(len(log), req) for w, log, req in zip(workers, logs, requests)]
    if after_submit is not None:  # tests: lose workers while the requests run
        after_submit(requests[0][0])
    replies = ray.get(refs)
    for k, reply in enumerate(replies):
        if reply is None:
            ray.get(workers[k].replay.remote(logs[k]))
            replies[k] = ray.get(workers[k].work.remote(len(logs[k]), requests[k]))
    for log, req in zip(logs, requests):
        log.append(req)
    return replies


def _regroup(method, workers, requests, max_retries, label, quiet):
    """The rows regrouped by the workers' groups, request ``g`` answered on group ``g``
    by a Ray task; the workers are released first (their CPUs go to the tasks)."""
    k = len(requests)
    splits = [w.split.options(num_returns=k).remote(k) for w in workers]
    splits = [s if k > 1 else [s] for s in splits]
    flat = [ref for s in splits for ref in s]
    ray.wait(flat, num_returns=len(flat), fetch_local=False)
    for w in workers:
        ray.kill(w)
    task = _group_work.options(max_retries=max_retries)
    kept = [g for g in range(k) if requests[g] is not None]
    refs = [task.remote(method, requests[g], *[s[g] for s in splits]) for g in kept]
    replies = [None] * k
    for g, reply in zip(kept, _gather(refs, label, quiet)):
        replies[g] = reply
    return replies


def _scale_out(method, parts, y, n_features, *, options=(), settings=None, seed=0,
               max_restarts=3, max_retries=3, label="fit", quiet=None, after_step=None,
               after_submit=None):
    """Runs the library's distributed fit of ``method`` (``_core.scale_out_start``):
    ``parts`` are ``[(ref, rows)]`` of the workers' rows (row partitions, or all rows
    per worker). Returns ``(model or None, record dict, workers)``."""
    coordinator, setups, labels = _core.scale_out_start(
        method, list(options), json.dumps(settings), int(seed),
        np.ascontiguousarray(y, dtype=np.float64), int(n_features), [rows for _, rows in parts])
    if _core.scale_out_partitioned(method):
        offsets = np.cumsum([0] + [rows for _, rows in parts])[:-1].tolist()
    else:
        parts, offsets = [parts[0]] * len(setups), [0] * len(setups)
    cpus = ray.cluster_resources().get("CPU", 1.0)
    # A worker holds its CPUs while it lives: more workers than CPUs share them.
    per_cpu = -(-len(setups) // max(int(cpus), 1))
    actor = _ScaleOutWorker.options(num_cpus=1.0 / per_cpu, max_restarts=max_restarts,
                                    max_task_retries=max_restarts)
    # The labels' refs live as long as the workers: a restarted actor reads them again.
    y_refs = [_put(np.ascontiguousarray(labels[off:off + rows]), "y partition")
              for (_, rows), off in zip(parts, offsets)]
    workers = [actor.remote(method, setup, ref, y_ref)
               for (ref, _), y_ref, setup in zip(parts, y_refs, setups)]
    logs = [[] for _ in workers]
    bar = _Progress(1, label, quiet)
    replies, t = [], 0
    while True:
        kind, out = coordinator.step(replies)
        if kind == "done":
            bar.advance()
            for w in workers:
                ray.kill(w)
            model, record = out
            return model, json.loads(record), workers
        if kind == "ask":
            replies = _ask(workers, logs, out, after_submit)
            t += 1
            if after_step is not None:
                after_step(t, workers)
        else:
            replies = _regroup(method, workers, out, max_retries, label, True)


def _binary_labels(y):
    y = np.asarray(y)
    classes = np.unique(y)
    if len(classes) != 2:
        raise ValueError(f"MWUMKL is a binary classifier; y has {len(classes)} classes")
    # The library's one-vs-one convention: the first class of the pair is +1.
    return classes, np.where(y == classes[0], 1.0, -1.0)


def mwumkl(X: ArrayLike, y: Any, kernels: str = "family12", *, C: Optional[float] = None,
           epsilon: float = 0.2, width: float = 1.5, iterations: Optional[int] = None,
           shards: Optional[int] = None, address: Optional[str] = None, quiet: Optional[bool] = None,
           max_restarts: int = 3, _after_round: Optional[Callable[..., Any]] = None) -> dict[str, Any]:
    """MWUMKL (Moeller 2017, Algorithm 6) with the kernel family sharded over Ray actors.

    Each actor holds its slice of the family and that slice's state (``Ḡ_iα`` and
    ``αᵀḠ_iα`` per kernel) and computes its part of each round's ``g``; the library's
    coordinator (the same protocol for every distributed fit) adds the parts, takes the
    forward step, and at the end combines the shards' objectives into the weights. It
    plays the thesis's one dense game: the weights equal the single-machine
    ``MKLClassifier(method="mwumkl", kernels=kernels, C=C, mwu_epsilon=epsilon,
    mwu_prune=False, scale="none")`` ones to rounding (the sums run in another order).
    Its default ε = 0.2 (chapter 3's usual choice) keeps the rounds, each a round trip
    to every actor, few; sparse MWUMKL's repeated games run in one process.

    A lost actor is restarted by Ray (``max_restarts``) and its state rebuilt from the
    driver: the driver keeps the requests of every round and the actor replays them.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Used as given (scale it first, as ``MKLClassifier``'s ``scale`` would).
    y : array-like of shape (n_samples,), two classes
    kernels : str, default="family12"
        The base kernel family (a ``--kernels`` spec).
    C : float, default=None
        2-norm soft margin (None: hard margin).
    epsilon, width, iterations
        MWUMKL's ε, ρ and number of rounds (None: ``⌈4ρ ln n / ε⌉``).
    shards : int, default=None
        Number of actors (default: the cluster's CPUs, at most the number of kernels).
    address, quiet
        As for :func:`grid_search`.
    max_restarts : int, default=3
        Ray restarts a lost actor up to this many times.

    Returns
    -------
    dict
        ``weights`` (one per base kernel, summing to one), ``objective``, ``coef`` (per
        training point), ``rho``, ``rounds``, ``classes`` (``classes[0]`` is +1),
        ``shards``.
    """
    connect(address)
    X = np.ascontiguousarray(X, dtype=np.float64)
    if X.ndim != 2 or len(X) != len(y):
        raise ValueError("X must be 2-D with one row per label in y")
    classes, signed = _binary_labels(y)
    params = {"epsilon": float(epsilon), "width": float(width),
              "c": None if C is None else float(C),
              "iterations": None if iterations is None else int(iterations)}
    cpus = ray.cluster_resources().get("CPU", 1.0)
    shards = int(cpus) if shards is None else int(shards)
    if shards < 1:
        raise ValueError(f"shards must be >= 1, got {shards}")
    x_ref = _put(X, "X")
    _, out, workers = _scale_out(
        "mwumkl", [(x_ref, len(X))] * shards, signed, X.shape[1],
        settings={"kernels": kernels, "params": params}, max_restarts=max_restarts,
        label="MWUMKL", quiet=quiet, after_step=_after_round)
    out["weights"] = np.asarray(out["weights"])
    out["coef"] = np.asarray(out["coef"])
    out["classes"] = classes
    out["shards"] = len(workers)
    return out


# ------------------------------------------------------------------------- scalable DANK

#: Rows per block of the library's k-means reductions: partitions are whole blocks.
BLOCK_ROWS = 512


@ray.remote(num_cpus=0)
def _shape(x):
    return tuple(np.shape(x))


def _partitioned(X, partitions):
    """``[(ref, rows)]`` of block-aligned row partitions of ``X`` (one array, split at
    multiples of ``BLOCK_ROWS``) or of a list of arrays / ObjectRefs already split."""
    if isinstance(X, (list, tuple)):
        if partitions is not None:
            raise ValueError("partitions: give it only with a single array X")
        refs, shapes = [], []
        for i, part in enumerate(X):
            if isinstance(part, ray.ObjectRef):
                refs.append(part)
                shapes.append(ray.get(_shape.remote(part)))
            else:
                part = np.ascontiguousarray(part, dtype=np.float64)
                refs.append(_put(part, f"X partition {i}"))
                shapes.append(part.shape)
        if not refs:
            raise ValueError("X: the list of partitions is empty")
        for i, shape in enumerate(shapes):
            if len(shape) != 2 or shape[0] == 0:
                raise ValueError(f"X partition {i} must be a non-empty 2-D array, got shape {shape}")
            if shape[1] != shapes[0][1]:
                raise ValueError(f"X partition {i} has {shape[1]} features, partition 0 has {shapes[0][1]}")
            if i < len(shapes) - 1 and shape[0] % BLOCK_ROWS:
                raise ValueError(
                    f"X partition {i} has {shape[0]} rows: every partition but the last must "
                    f"hold a multiple of {BLOCK_ROWS} rows (k-means sums per block of "
                    f"{BLOCK_ROWS} rows)"
                )
        return [(r, s[0]) for r, s in zip(refs, shapes)], shapes[0][1]
    blocks = -(-len(X) // BLOCK_ROWS)
    count = int(ray.cluster_resources().get("CPU", 1.0)) if partitions is None else int(partitions)
    if count < 1:
        raise ValueError(f"partitions must be >= 1, got {partitions}")
    count = min(count, blocks)
    cuts = [BLOCK_ROWS * (blocks * i // count) for i in range(count)] + [len(X)]
    parts = [(_put(np.ascontiguousarray(X[lo:hi]), f"X partition {i}"), hi - lo)
             for i, (lo, hi) in enumerate(zip(cuts[:-1], cuts[1:]))]
    return parts, X.shape[1]


def scalable_dank(X: Any, y: ArrayLike, estimator: Optional[ScalableDANKClassifier] = None, *,
                  partitions: Optional[int] = None, address: Optional[str] = None,
                  quiet: Optional[bool] = None, max_retries: int = 3,
                  _after_submit: Optional[Callable[..., Any]] = None) -> ScalableDANKClassifier:
    """:class:`kernlearn.ScalableDANKClassifier` fitted on a Ray cluster.

    The library's distributed fit (the same protocol as :func:`mwumkl`): the k-means
    partition runs as Lloyd steps over row partitions held by Ray actors, the library's
    k-means driver sending each step (the centres, ``k × d`` numbers) to every
    partition, which returns per-block sums and keeps its labels; then the rows are
    regrouped by cluster and one Ray task per cluster fits that cluster's DANK machine.
    The model equals the single-machine fit's (same centres, clusters, machines and
    saved JSON) for the same seed, also when a worker is lost (Ray restarts it and the
    driver replays its requests) or a cluster task is lost and re-run by Ray.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features), or a list of them / ObjectRefs
        The rows, or the rows already split into partitions in row order (then the
        data need never sit whole in this process): every partition but the last must
        hold a multiple of ``BLOCK_ROWS`` (512) rows.
    y : array-like of shape (n_samples,)
        Two classes, in row order.
    estimator : ScalableDANKClassifier, default=None
        The settings (``kernel``, ``sigma``, ``C``, ``eta``, ``clusters``,
        ``random_state``, ...); it must have ``select=None`` (select σ and C first, e.g.
        with :func:`grid_search`) and ``scale="none"`` (the default; scale the data
        first).
    partitions : int, default=None
        Number of partitions a single array is split into (default: the cluster's CPUs;
        at most one per 512-row block).
    address, quiet, max_retries
        As for :func:`grid_search` (``max_retries`` also bounds the actors' restarts).

    Returns
    -------
    ScalableDANKClassifier
        A fitted copy of ``estimator``.
    """
    from sklearn.base import clone

    connect(address)
    est = ScalableDANKClassifier() if estimator is None else clone(estimator)
    if not isinstance(est, ScalableDANKClassifier):
        raise TypeError(f"estimator must be a ScalableDANKClassifier, not {type(est).__name__}")
    if est.select is not None:
        raise ValueError("select: the distributed fit takes σ and C as given (select=None); "
                         "select them first, e.g. with kernlearn.ray.grid_search")
    if est.scale != "none":
        raise ValueError(f"scale={est.scale!r}: the distributed fit takes the features as "
                         f"given; scale them first and pass scale='none'")
    _require_binary(y, "scalable DANK routes each point to one binary machine")
    if isinstance(X, (list, tuple)):
        y = np.asarray(y)
        est.classes_, codes = np.unique(y, return_inverse=True)
        y_lib = label_values(est.classes_)[codes]
    else:
        X, y_lib = check_fit_data(est, X, y, classifier=True)
    parts, d = _partitioned(X, partitions)
    est.n_features_in_ = d
    n = sum(rows for _, rows in parts)
    if len(y_lib) != n:
        raise ValueError(f"y has {len(y_lib)} labels for {n} rows")
    model, record, _ = _scale_out(
        "dank-scalable", parts, y_lib, d, options=est._options(),
        seed=seed_of(est.random_state, 0), max_restarts=max_retries, max_retries=max_retries,
        label="scalable DANK", quiet=quiet, after_submit=_after_submit)
    return est._classifier_fitted(est._adopt(model, json.dumps(record)))


# ------------------------------------------------------------------- divide-and-conquer SVC


@ray.remote(num_cpus=1)
def _svc_part(params, rows, warm, x, y):
    """The C-SVC on rows ``rows`` of ``x`` started from ``warm`` (cold when None): the
    rows' dual variables α (zero for a part of one class, a feasible start)."""
    ys = np.ascontiguousarray(y[rows])
    if np.unique(ys).size < 2:
        return np.zeros(len(rows))
    model = _core.fit_svm(params, np.ascontiguousarray(x[rows]), ys, None, warm)
    return model.row_alpha(len(rows))


def _stratified_parts(y, parts, seed):
    """``parts`` row sets of a seeded random partition, each class spread evenly."""
    rng = np.random.default_rng(seed)
    groups = [[] for _ in range(parts)]
    start = 0
    for label in np.unique(y):
        rows = rng.permutation(np.flatnonzero(y == label))
        for k in range(parts):
            groups[(start + k) % parts].append(rows[k::parts])
        start += len(rows) % parts
    return [np.sort(np.concatenate(g)) for g in groups]


def _cascade_parts(parts):
    """The number of leaves: ``parts`` (default: the cluster's CPUs), a power of two ≥ 2."""
    if parts is None:
        parts = int(ray.cluster_resources().get("CPU", 2))
    if isinstance(parts, bool) or not isinstance(parts, (int, np.integer)) or parts < 2:
        raise ValueError(f"parts={parts!r}: the divide-and-conquer fit needs an integer >= 2")
    return 1 << (int(parts).bit_length() - 1)


def svc(X: ArrayLike, y: ArrayLike, estimator: "Optional[SVC]" = None, *, parts: Optional[int] = None,
        address: Optional[str] = None, quiet: Optional[bool] = None, max_retries: int = 3,
        random_state: int = 0) -> "SVC":
    """One exact binary C-SVC (:class:`kernlearn.SVC`) by divide and conquer on Ray.

    The rows are split into ``parts`` parts by a stratified random partition (seeded);
    each part's C-SVC is solved as a Ray task; then neighbouring parts are merged
    pairwise and each merged part is solved again, starting from the union of its two
    halves' dual solutions (a feasible point: each satisfies ``yᵀα = 0`` and the box),
    until one part is left: the whole problem, solved in this process from the union
    (``SvmModel::fit_from_alpha``) to the estimator's tolerance ``tol``. That last solve
    runs the same solver to the same KKT condition as a cold fit, so the model is the
    exact solution to the tolerance (cascade SVM, Graf et al. 2005, with the last layer
    over all rows; DC-SVM, Hsieh, Si and Dhillon 2014, §3, with random rather than
    kernel k-means parts). ``X`` and ``y`` are put in the object store once; each task
    receives its rows' indices and its start. A task whose worker dies is re-run by Ray
    (``max_retries``) and gives the same answer.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Dense rows (scale them first: the estimator's kernel sees them as given).
    y : array-like of shape (n_samples,)
        Two classes.
    estimator : SVC, default=None
        The settings (``C``, ``kernel``, ``gamma``, ``tol``, ``class_weight``, ...);
        not ``probability``.
    parts : int, default=None
        Leaves of the cascade, rounded down to a power of two (default: the cluster's
        CPUs, at least 2).
    address, quiet, max_retries
        As for :func:`grid_search`.
    random_state : int, default=0
        Seed of the partition (the model does not depend on it beyond the tolerance).

    Returns
    -------
    SVC
        A fitted copy of ``estimator``, as ``estimator.fit(X, y)`` gives to ``tol``.
    """
    from sklearn.base import clone

    from .svm import SVC

    connect(address)
    est = SVC() if estimator is None else clone(estimator)
    if type(est) is not SVC:
        raise TypeError(f"estimator must be a kernlearn.SVC, not {type(est).__name__}")
    if est._effective_probability():
        raise ValueError("probability=True: the divide-and-conquer fit gives the SVM only")
    if est.kernel == "precomputed" or callable(est.kernel):
        raise ValueError(f"kernel={est.kernel!r}: the divide-and-conquer fit computes its "
                         f"kernel from feature rows")
    if scipy.sparse.issparse(X):
        raise TypeError("the divide-and-conquer fit takes dense rows; densify X")
    _require_binary(y, "the divide-and-conquer fit solves one binary C-SVC")
    leaves = _cascade_parts(parts)

    def solve(params, x, labels):
        levels = leaves.bit_length()  # leaves, their merges, ..., the whole problem
        bar = _Progress(2 * leaves - 1, "divide-and-conquer SVC", quiet)
        x_ref, y_ref = _put(x, "X"), _put(labels, "y")
        groups = _stratified_parts(labels, leaves, seed_of(random_state, 0))
        alpha = np.zeros(len(labels))
        task = _svc_part.options(max_retries=max_retries)
        for level in range(levels - 1):
            warm = [None if level == 0 else alpha[g] for g in groups]
            refs = [task.remote(params, g, w, x_ref, y_ref) for g, w in zip(groups, warm)]
            for g, a in zip(groups, ray.get(refs)):
                alpha[g] = a
            bar.advance(len(groups))
            groups = [np.sort(np.concatenate(groups[i:i + 2])) for i in range(0, len(groups), 2)]
        model = _core.fit_svm(params, x, labels, None, alpha)
        bar.advance()
        return model

    return est._fit_classifier(X, y, solve=solve)
