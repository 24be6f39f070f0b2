"""Fitting on a Dask cluster: histograms built where the rows are, then added up.

``fit(estimator, X, y, client)`` fits a ``DecisionTreeRegressor(splitter="hist")``, a
``HistGradientBoostingRegressor`` or a binary ``HistGradientBoostingClassifier``, each with
``histogram_sums="fixed_point"``, on ``X`` and ``y`` given as dask arrays partitioned by rows,
and the fitted estimator is the one ``estimator.fit(X.compute(), y.compute())`` gives,
bit for bit: the same tree arrays, leaf values, classes and predictions.  It works as
LightGBM's data-parallel learner and xgboost.dask do:

1. every row block becomes a ``treelib.growth.row_parts.RowPart`` on the worker that
   computed it, and stays there (each later task on it is pinned to that worker and
   returns the part, so the next one depends on it);
2. the bin thresholds come from each block's distinct values and their counts, merged
   (``treelib.binning.thresholds_from_counts``: the local thresholds, bit for bit);
3. per level of a tree (per split in boosting), each block builds its nodes' histograms
   from its own rows, the histograms are added by a **tree reduction** (pairs of futures
   summed on the workers), the driver gathers one sum, chooses the splits and sends them
   back; for boosting, the gradients and raw predictions stay on the workers.

The sums are fixed-point digits (``treelib.fixed_point``), exact in any order of
addition, which is why the reduction's shape does not matter.  What was communicated is
in the estimator's ``distributed_stats_``.  A worker's parts lost mid-fit are rebuilt on
the others (row blocks, every update replayed: bit for bit); with no worker left for
``timeout`` seconds, ``fit`` raises ``WorkerLostError``.  ``client``: any ``Client``
(``Client("tcp://scheduler:8786")``), or ``local_cluster()``'s, which closes silently.
This module is the only one of treelib that imports dask.
"""

import asyncio
import copy
import warnings
from collections import Counter
from typing import NamedTuple

import numpy as np
from dask import delayed
from dask.array import Array
from dask.distributed import Client, LocalCluster, WorkerPlugin, wait
from distributed.core import Status
from sklearn.utils import assert_all_finite
from sklearn.utils.multiclass import check_classification_targets

from treelib.estimators import (
    DecisionTreeRegressor,
    HistGradientBoostingClassifier,
    HistGradientBoostingRegressor,
)
from treelib.estimators.fixed_point import (
    fit_fixed_point_boosting,
    fit_fixed_point_tree,
    set_inputs,
)
from treelib.estimators.params import check_boosting_options, forget_fit, tree_settings
from treelib.estimators.trees import apply_ccp_alpha
from treelib.growth.row_parts import RowPart, Summary, ValueCounts, merge
from treelib.losses import HalfBinomialLoss, HalfSquaredError
from treelib.options import check

#: The estimators ``fit`` takes.
SUPPORTED = (DecisionTreeRegressor, HistGradientBoostingRegressor, HistGradientBoostingClassifier)

#: Seconds between checks that the parts' workers are there, while a round is awaited.
POLL_SECONDS = 1.0

#: Times a round is asked again after parts were lost, before ``WorkerLostError``.
ATTEMPTS = 3

#: Seconds a worker of ``local_cluster`` has to close before its nanny kills it.
CLOSE_SECONDS = 60.0

#: (``DaskParts.result`` when a worker holding parts left before the answer came.)
LOST = object()


class WorkerLostError(RuntimeError):
    """The workers holding a fit's row parts left, and no worker took their place."""


class DrainHeartbeats(WorkerPlugin):
    """A worker's heartbeats one at a time; on close, stopped and the one in flight awaited
    *before* its connections close (``Worker.close`` closes them first: a heartbeat in
    flight logs "Failed to communicate with scheduler during heartbeat").  A lock a beat."""

    name = "treelib-drain-heartbeats"

    def setup(self, worker):
        self.heartbeat = worker.periodic_callbacks["heartbeat"]
        self.beat, self.lock = self.heartbeat.callback, asyncio.Lock()

        async def one_at_a_time():
            async with self.lock:
                await self.beat()

        self.heartbeat.callback = one_at_a_time

    async def teardown(self, worker):
        if worker.status in (Status.running, Status.paused):   # only the plugin goes
            self.heartbeat.callback = self.beat
            return
        self.heartbeat.stop()
        async with self.lock:                    # the last heartbeat has its answer
            pass


class OrderedLocalCluster(LocalCluster):
    """A ``LocalCluster`` whose ``close`` waits till the scheduler has let ``own_client``
    go if it is closed (its keys released), then closes every nanny with ``CLOSE_SECONDS``
    of grace (``LocalCluster`` gives 4 s, then kills the process with a warning on stderr):
    each worker drains its heartbeat (``DrainHeartbeats``), closes and leaves the
    scheduler, still up; then the scheduler closes.  Costs the workers' own shutdown."""

    own_client = None

    async def _close(self):
        if self.status == Status.running:
            own = self.own_client                # (the scheduler drops a closed client)
            for _ in range(int(CLOSE_SECONDS / 0.05)):        # waits CLOSE_SECONDS at most
                if own is None or own.status != "closed" or own.id not in self.scheduler.clients:
                    break
                await asyncio.sleep(0.05)
            await asyncio.gather(*(nanny.close(timeout=CLOSE_SECONDS, reason="cluster-close")
                                   for nanny in list(self.workers.values())))
        await super()._close()


class LocalDask(NamedTuple):
    """``(cluster, client)``: ``close()`` (or a ``with`` block) closes both, in order."""

    cluster: LocalCluster
    client: Client

    def close(self):
        self.client.close()
        self.cluster.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()


def local_cluster(n_workers=2):
    """``(cluster, client)``: an ``OrderedLocalCluster`` of ``n_workers`` single-threaded
    worker processes without a dashboard, and a client of it; ``with local_cluster() as
    (cluster, client):`` or ``client.close(); cluster.close()`` close it, silently.
    Costs the start of ``n_workers`` Python processes (seconds)."""
    with warnings.catch_warnings():   # (its HTTP server moves if another cluster runs)
        warnings.filterwarnings("ignore", message="Port .* is already in use")
        cluster = OrderedLocalCluster(n_workers=n_workers, threads_per_worker=1,
                                      processes=True, dashboard_address=None,
                                      plugins={DrainHeartbeats()})
    cluster.own_client = Client(cluster)
    return LocalDask(cluster, cluster.own_client)


def row_blocks(array, chunks):
    """``array`` (numpy) as a dask array partitioned by rows: ``chunks`` rows per block, or
    a tuple of block sizes (for the benchmarks and the chapter, which do not import dask)."""
    from dask.array import from_array

    return from_array(array, chunks=(chunks,) + (-1,) * (np.ndim(array) - 1))


class LabelPart(RowPart):
    """A ``RowPart`` whose class labels (bool, integers, strings) are kept as given till
    ``encode_classes``, so ``classes_`` has their dtype (``RowPart`` makes numbers float)."""

    def __init__(self, X, y):
        super().__init__(X, y)
        self.labels = np.asarray(y)

    def target_counts(self):
        """The distinct labels and their counts, a ``ValueCounts``.  O(n log n)."""
        values, counts = np.unique(self.labels, return_counts=True)
        return ValueCounts((values,), (counts,), False)

    def encode_classes(self, classes):
        """Labels as class codes (positions in ``classes``).  O(n log c)."""
        self.y = np.searchsorted(classes, self.labels).astype(np.float64)
        self.labels = None
        return self


def make_part(X, y, dtype, labels):
    """A ``RowPart`` (``LabelPart`` if ``labels``) of one row block, its features rounded to
    ``dtype`` as the estimator's ``fit`` rounds them, a regressor's targets float64.  O(n f)."""
    X = np.asarray(X).astype(dtype)
    if labels:
        return LabelPart(X, y)
    try:
        y = np.asarray(y, dtype=np.float64)
    except (TypeError, ValueError) as error:
        raise ValueError(f"y must be numbers for a regressor (the local fit converts it "
                         f"to float64): {error}") from None
    return RowPart(X, y)


def call_update(part, method, *args):
    """Run ``part.method(*args)`` on a worker and return the updated part.  O(the call)."""
    getattr(part, method)(*args)
    return part


def call_query(part, method, *args):
    """Return ``part.method(*args)``, computed on the part's worker.  O(the call)."""
    return getattr(part, method)(*args)


class DaskParts:
    """A row provider (``treelib.growth.row_parts``) whose ``RowPart`` s live on the
    workers of ``client``, one per row block of ``X`` and ``y``.  ``update`` chains a task
    on every part (pinned to its worker) and logs it; ``reduce`` asks every part, adds the
    answers up a tree of pairwise merges on the workers and gathers the sum: one round,
    asked again after ``rebuild`` if a worker holding parts left meanwhile."""

    def __init__(self, client, X, y, dtype, labels=False, timeout=60.0):
        self.client, self.timeout, self.args = client, timeout, (dtype, labels)
        self.blocks = list(zip(X.to_delayed().ravel(), y.to_delayed().ravel()))
        self.parts = client.compute([delayed(make_part)(xb, yb, *self.args)
                                     for xb, yb in self.blocks])
        self.workers, self.log = [None] * len(self.parts), []
        while True:                              # (a worker may leave: dask recomputes)
            try:
                wait(self.parts, timeout=POLL_SECONDS)
                break
            except TimeoutError:
                self.alive()
        for part in (p for p in self.parts if p.status == "error"):
            raise part.exception()
        who = client.who_has(self.parts)
        self.workers = [(who.get(p.key) or [None])[0] for p in self.parts]
        self.rows = [int(c) for c in X.chunks[0]]
        self.n_rows = sum(self.rows)
        self.round_bytes, self.round_kinds, self.updates, self.rebuilt = [], [], 0, 0
        if None in self.workers:                 # lost already
            self.rebuild()

    def submit(self, function, part, worker, *args):
        return self.client.submit(function, part, *args, workers=[worker],
                                  allow_other_workers=False, pure=False)

    def update(self, method, *args):
        self.parts = [self.submit(call_update, p, w, method, *args)
                      for p, w in zip(self.parts, self.workers)]
        self.log.append((method, copy.deepcopy(args)))
        self.updates += 1

    def reduce(self, method, *args):
        for _ in range(ATTEMPTS):
            answers = [self.submit(call_query, p, w, method, *args)
                       for p, w in zip(self.parts, self.workers)]
            asked = list(answers)
            while len(answers) > 1:            # a tree of pairwise merges, on the workers
                answers = [self.client.submit(merge, answers[i], answers[i + 1], pure=False)
                           if i + 1 < len(answers) else answers[i]
                           for i in range(0, len(answers), 2)]
                asked += answers
            total = self.result(answers[0])
            if total is not LOST:
                break
            self.client.cancel(asked)
            self.rebuild()
        else:
            raise WorkerLostError(f"workers holding row parts left {ATTEMPTS} times in one "
                                  "round; the fit stops")
        self.round_kinds.append(method)
        self.round_bytes.append(total.nbytes if isinstance(total, Summary) else 0)
        return total

    def result(self, future):
        """``future``'s result, or ``LOST`` if a worker holding parts leaves first."""
        while True:
            try:
                return future.result(timeout=POLL_SECONDS)
            except TimeoutError:
                if future.done():                # the task itself timed out
                    return future.result()
                if not set(self.workers) <= self.alive():
                    return LOST

    def alive(self):
        """The workers of the cluster (waits ``timeout`` seconds for one if there is none,
        then raises ``WorkerLostError``).  Costs two calls to the scheduler."""
        if not self.client.nthreads():
            try:
                self.client.wait_for_workers(1, timeout=self.timeout)
            except TimeoutError:
                raise WorkerLostError(f"every worker left during the fit and none joined "
                                      f"within {self.timeout} s: the fit stops") from None
        return set(self.client.nthreads())

    def rebuild(self):
        """Rebuild the parts whose worker left on the workers still there (fewest parts
        first), each from its row block with every update replayed: the lost part bit for
        bit.  Costs the lost blocks computed again and the updates replayed; no round."""
        alive = self.alive()
        lost = [i for i, worker in enumerate(self.workers) if worker not in alive]
        self.client.cancel([self.parts[i] for i in lost])
        load = Counter(worker for worker in self.workers if worker in alive)
        for i in lost:
            worker = min(sorted(alive), key=lambda w: load[w])
            load[worker] += 1
            part = delayed(make_part, pure=False)(*self.blocks[i], *self.args)
            part = self.client.compute(part, workers=[worker], allow_other_workers=False)
            for method, args in self.log:
                part = self.submit(call_update, part, worker, method, *args)
            self.parts[i], self.workers[i] = part, worker
        self.rebuilt += len(lost)

    def stats(self):
        """What the fit communicated: rounds (gathers), the bytes of one block's answer
        per round (summaries: counts, sums, histograms), the bytes the reduction moves
        at most ((partitions - 1) such answers per round), partitions, workers, rows;
        parts rebuilt."""
        per_round = np.array(self.round_bytes, dtype=np.int64)
        return {"rounds": len(per_round), "summary_rounds": int((per_round > 0).sum()),
                "bytes_per_round": per_round.tolist(),
                "bytes_reduced": int(per_round.sum()) * max(len(self.parts) - 1, 0),
                "updates": self.updates, "partitions": len(self.parts),
                "workers": len(set(self.workers)), "rows_per_partition": self.rows,
                "parts_rebuilt": self.rebuilt}


def check_inputs(estimator, X, y):
    """Raise a ValueError for anything ``fit`` does not take; returns ``y`` chunked as
    ``X``'s rows."""
    if not isinstance(estimator, SUPPORTED):
        raise ValueError(f"distributed.fit fits {[c.__name__ for c in SUPPORTED]}; got "
                         f"{type(estimator).__name__}")
    if getattr(estimator, "histogram_sums", None) != "fixed_point":
        raise ValueError("distributed.fit needs histogram_sums='fixed_point': float sums depend "
                         "on the order of the additions, so histograms added worker by "
                         "worker would not give the local fit's tree; got histogram_sums="
                         f"{estimator.histogram_sums!r}")
    if not isinstance(X, Array) or not isinstance(y, Array):
        raise ValueError("X and y must be dask arrays partitioned by rows (e.g. "
                         "dask.array.from_array(X, chunks=(rows, -1))); got "
                         f"{type(X).__name__} and {type(y).__name__}")
    for name, array in (("X", X), ("y", y)):
        if np.isnan(array.shape).any():          # (nan != nan: checked before the shapes)
            raise ValueError(f"{name} has unknown chunk sizes (as after boolean indexing): "
                             f"call {name}.compute_chunk_sizes() first")
    if X.ndim != 2 or y.ndim != 1 or X.shape[0] != y.shape[0]:
        raise ValueError(f"X must be 2-d and y 1-d with as many rows; got shapes {X.shape} "
                         f"and {y.shape}")
    if X.numblocks[1] != 1:
        raise ValueError(f"X must be partitioned by rows only (one block of columns); got "
                         f"{X.numblocks[1]} blocks of columns: rechunk with "
                         "X.rechunk({1: -1})")
    if X.shape[0] == 0:
        raise ValueError("X has no rows")
    return y.rechunk({0: X.chunks[0]})


def fit_classes(estimator, parts):
    """``classes_`` (the labels' dtype, as the local ``np.unique(y)``) and ``n_classes_``,
    checked as the local fit checks them; the labels encoded on the workers.  One round."""
    classes = parts.reduce("target_counts").values[0]
    if classes.dtype.kind == "f":
        assert_all_finite(classes, input_name="y")
    check_classification_targets(classes)
    check(criterion="newton", histogram_sums=estimator.histogram_sums, classes=len(classes))
    estimator.classes_, estimator.n_classes_ = classes, len(classes)
    parts.update("encode_classes", classes)


def fit(estimator, X, y, client, timeout=60.0):
    """Fit ``estimator`` (``histogram_sums="fixed_point"``) on the dask arrays ``X`` (rows x
    features, partitioned by rows) and ``y`` on the workers of ``client``; the result is
    ``estimator.fit(X.compute(), y.compute())`` bit for bit.  Sets the estimator's fitted
    attributes and ``distributed_stats_``; returns the estimator.  Parts lost with a worker
    are rebuilt; ``WorkerLostError`` if no worker is left for ``timeout`` seconds.  Costs
    the rounds of the local fixed-point fit, each a tree reduction."""
    y = check_inputs(estimator, X, y)
    tree = isinstance(estimator, DecisionTreeRegressor)
    classifier = isinstance(estimator, HistGradientBoostingClassifier)
    forget_fit(estimator)
    n_features = X.shape[1]
    if tree:
        tree_settings(estimator, n_features)
    else:
        check_boosting_options(estimator, X.shape[0])
    parts = DaskParts(client, X, y, np.float32 if tree else np.float64, classifier,
                      timeout)
    if not classifier and not np.isfinite(parts.reduce("max_abs_target").value):
        raise ValueError("y has NaN or infinite values")
    set_inputs(estimator, n_features)
    if tree:
        fit_fixed_point_tree(estimator, parts, n_features)
        apply_ccp_alpha(estimator, n_features)
    elif classifier:
        fit_classes(estimator, parts)
        fit_fixed_point_boosting(estimator, parts, HalfBinomialLoss())
    else:
        fit_fixed_point_boosting(estimator, parts, HalfSquaredError())
    estimator.distributed_stats_ = parts.stats()
    return estimator
