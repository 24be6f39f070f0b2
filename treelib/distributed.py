"""Fitting on a Dask cluster: histograms built where the rows are, then added up.

``fit(estimator, X, y, client)`` fits a ``DecisionTreeRegressor(splitter="hist")``, a
``HistGradientBoostingRegressor`` or a binary ``HistGradientBoostingClassifier``, each with
``histogram_sums="exact"``, on ``X`` and ``y`` given as dask arrays partitioned by rows,
and the fitted estimator is the one ``estimator.fit(X.compute(), y.compute())`` gives,
bit for bit: the same tree arrays, leaf values and predictions.  It works as LightGBM's
data-parallel learner and xgboost.dask do:

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
in the estimator's ``distributed_stats_``.  ``client`` may be any ``dask.distributed
.Client``: ``Client("tcp://scheduler:8786")`` for a real cluster, or ``local_cluster()``
for one on this machine.  This module is the only one of treelib that imports dask.
"""

import numpy as np
from dask import delayed
from dask.array import Array
from dask.distributed import Client, LocalCluster, wait

from treelib.estimators import (
    DecisionTreeRegressor,
    HistGradientBoostingClassifier,
    HistGradientBoostingRegressor,
)
from treelib.estimators.boosting import AUTO_EARLY_STOPPING_SAMPLES
from treelib.estimators.exact import (
    check_exact_boosting,
    check_exact_tree,
    fit_exact_boosting,
    fit_exact_tree,
    set_inputs,
)
from treelib.estimators.params import forget_fit
from treelib.growth.row_parts import RowPart, Summary, merge
from treelib.losses import HalfBinomialLoss, HalfSquaredError

#: The estimators ``fit`` takes.
SUPPORTED = (DecisionTreeRegressor, HistGradientBoostingRegressor,
             HistGradientBoostingClassifier)


def local_cluster(n_workers=2):
    """``(cluster, client)``: a ``LocalCluster`` of ``n_workers`` single-threaded worker
    processes without a dashboard, and a client of it (close both when done)."""
    import warnings

    with warnings.catch_warnings():   # (its HTTP server moves if another cluster runs)
        warnings.filterwarnings("ignore", message="Port .* is already in use")
        cluster = LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True,
                               dashboard_address=None)
    return cluster, Client(cluster)


def row_blocks(array, chunks):
    """``array`` (numpy) as a dask array partitioned by rows: ``chunks`` rows per block,
    or a tuple of block sizes (for the benchmarks and the chapter, which do not import
    dask themselves)."""
    from dask.array import from_array

    return from_array(array, chunks=(chunks,) + (-1,) * (np.ndim(array) - 1))


def make_part(X, y, dtype):
    """A ``RowPart`` of one row block, its features rounded to ``dtype`` as the
    estimator's own ``fit`` rounds them."""
    return RowPart(np.asarray(X).astype(dtype), np.asarray(y))


def call_update(part, method, *args):
    getattr(part, method)(*args)
    return part


def call_query(part, method, *args):
    return getattr(part, method)(*args)


class DaskParts:
    """A row provider (``treelib.growth.row_parts``) whose ``RowPart`` s live on the
    workers of ``client``, one per row block of ``X`` and ``y``.  ``update`` chains a task
    on every part (pinned to its worker); ``reduce`` asks every part, adds the answers up
    a tree of pairwise merges on the workers and gathers the sum: one round."""

    def __init__(self, client, X, y, dtype):
        self.client = client
        blocks = zip(X.to_delayed().ravel(), y.to_delayed().ravel())
        self.parts = client.compute([delayed(make_part)(xb, yb, dtype) for xb, yb in blocks])
        wait(self.parts)
        for part in self.parts:
            if part.status == "error":
                raise part.exception()
        who = client.who_has(self.parts)
        self.workers = [who[p.key][0] for p in self.parts]
        self.rows = [int(c) for c in X.chunks[0]]
        self.n_rows = sum(self.rows)
        self.round_bytes, self.round_kinds, self.updates = [], [], 0

    def submit(self, function, part, worker, *args):
        return self.client.submit(function, part, *args, workers=[worker],
                                  allow_other_workers=False, pure=False)

    def update(self, method, *args):
        self.parts = [self.submit(call_update, p, w, method, *args)
                      for p, w in zip(self.parts, self.workers)]
        self.updates += 1

    def reduce(self, method, *args):
        answers = [self.submit(call_query, p, w, method, *args)
                   for p, w in zip(self.parts, self.workers)]
        while len(answers) > 1:            # a tree of pairwise merges, on the workers
            answers = [self.client.submit(merge, answers[i], answers[i + 1], pure=False)
                       if i + 1 < len(answers) else answers[i]
                       for i in range(0, len(answers), 2)]
        total = answers[0].result()
        self.round_kinds.append(method)
        self.round_bytes.append(total.nbytes if isinstance(total, Summary) else 0)
        return total

    def stats(self):
        """What the fit communicated: rounds (gathers), the bytes of one block's answer
        per round (summaries: counts, sums, histograms), the bytes the reduction moves
        at most ((partitions - 1) such answers per round), partitions, workers, rows."""
        per_round = np.array(self.round_bytes, dtype=np.int64)
        return {"rounds": len(per_round), "summary_rounds": int((per_round > 0).sum()),
                "bytes_per_round": per_round.tolist(),
                "bytes_reduced": int(per_round.sum()) * max(len(self.parts) - 1, 0),
                "updates": self.updates, "partitions": len(self.parts),
                "workers": len(set(self.workers)), "rows_per_partition": self.rows}


def check_inputs(estimator, X, y):
    """Raise a ValueError for anything ``fit`` does not take; returns ``y`` chunked as
    ``X``'s rows."""
    if not isinstance(estimator, SUPPORTED):
        raise ValueError(f"distributed.fit fits {[c.__name__ for c in SUPPORTED]}; got "
                         f"{type(estimator).__name__}")
    if getattr(estimator, "histogram_sums", None) != "exact":
        raise ValueError("distributed.fit needs histogram_sums='exact': float sums depend "
                         "on the order of the additions, so histograms added worker by "
                         "worker would not give the local fit's tree; got histogram_sums="
                         f"{estimator.histogram_sums!r}")
    if not isinstance(X, Array) or not isinstance(y, Array):
        raise ValueError("X and y must be dask arrays partitioned by rows (e.g. "
                         "dask.array.from_array(X, chunks=(rows, -1))); got "
                         f"{type(X).__name__} and {type(y).__name__}")
    if X.ndim != 2 or y.ndim != 1 or X.shape[0] != y.shape[0]:
        raise ValueError(f"X must be 2-d and y 1-d with as many rows; got shapes {X.shape} "
                         f"and {y.shape}")
    if np.isnan(X.shape[0]):
        raise ValueError("X has unknown chunk sizes: call X.compute_chunk_sizes() first")
    if X.numblocks[1] != 1:
        raise ValueError(f"X must be partitioned by rows only (one block of columns); got "
                         f"{X.numblocks[1]} blocks of columns: rechunk with "
                         "X.rechunk({1: -1})")
    if X.shape[0] == 0:
        raise ValueError("X has no rows")
    return y.rechunk({0: X.chunks[0]})


def fit(estimator, X, y, client):
    """Fit ``estimator`` (``histogram_sums="exact"``) on the dask arrays ``X`` (rows x
    features, partitioned by rows) and ``y`` on the workers of ``client``; the result is
    ``estimator.fit(X.compute(), y.compute())`` bit for bit.  Sets the estimator's fitted
    attributes and ``distributed_stats_``; returns the estimator."""
    y = check_inputs(estimator, X, y)
    tree = isinstance(estimator, DecisionTreeRegressor)
    forget_fit(estimator)
    n_features = X.shape[1]
    if tree:
        check_exact_tree(estimator, n_features)
    else:
        estimator._check_parameters()
        estimator.do_early_stopping_ = (X.shape[0] > AUTO_EARLY_STOPPING_SAMPLES
                                        if estimator.early_stopping == "auto"
                                        else estimator.early_stopping)
        check_exact_boosting(estimator)
    parts = DaskParts(client, X, y, np.float32 if tree else np.float64)
    classifier = isinstance(estimator, HistGradientBoostingClassifier)
    if not classifier and not np.isfinite(parts.reduce("max_abs_target").value):
        raise ValueError("y has NaN or infinite values")
    set_inputs(estimator, n_features)
    if tree:
        fit_exact_tree(estimator, parts, n_features)
    elif classifier:
        classes = parts.reduce("target_counts").values[0]
        check_exact_boosting(estimator, len(classes))
        estimator.classes_, estimator.n_classes_ = classes, len(classes)
        parts.update("encode_classes", classes)
        fit_exact_boosting(estimator, parts, HalfBinomialLoss())
    else:
        fit_exact_boosting(estimator, parts, HalfSquaredError())
    estimator.distributed_stats_ = parts.stats()
    return estimator
