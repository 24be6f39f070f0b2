"""Histograms on a cluster: what a distributed fit sends, and what it costs in time.

On a ``LocalCluster`` of two single-threaded worker processes (``treelib.distributed
.local_cluster``), each case is fitted three ways: the float histogram fit
(``histogram_sums="float"``, today's default), the local fixed-point fit (``"fixed_point"``,
one block of rows) and the distributed fixed-point fit (``treelib.distributed.fit``, the
rows in ``PARTITIONS`` blocks); the distributed fit is checked to be the local fixed-point
fit bit for bit.  Rows of the result:

- ``record="fit"``: one per fit, its wall seconds (``seconds``), and for the distributed
  fit its rounds and the bytes its reductions moved at most (``bytes``: (partitions - 1)
  answers per round);
- ``record="round"``: one per round of the first distributed fit of a case, the bytes of
  one block's answer (``bytes``: nodes x features x bins x statistics x digits x 8 for the
  histograms, plus the nodes' counts and sums), beside the data's bytes (``data_bytes``,
  X and y as float64).

On two cores shared with the driver, the distributed fit measures the price of the
rounds (scheduling, serialising, a tree reduction per level or split), not a speed-up.
"""

import time

import numpy as np

#: Row blocks of a distributed fit (more than the two workers).
PARTITIONS = 4


def cases(full):
    """``(name, model factory, rows)`` of the grid (quick: small; full: all of
    california, deeper trees, more iterations)."""
    from treelib.estimators import DecisionTreeRegressor, HistGradientBoostingRegressor

    def tree(depth):
        return lambda sums: DecisionTreeRegressor(splitter="hist", max_depth=depth,
                                                  histogram_sums=sums)

    def boosting(iterations):
        return lambda sums: HistGradientBoostingRegressor(max_iter=iterations,
                                                          early_stopping=False,
                                                          histogram_sums=sums)

    if not full:
        return [("tree_depth_6", tree(6), 5000), ("boosting_3", boosting(3), 5000)]
    return [("tree_depth_6", tree(6), None), ("tree_depth_10", tree(10), None),
            ("boosting_10", boosting(10), None)]


def same_fit(a, b, X):
    trees = ([(a.tree_, b.tree_)] if hasattr(a, "tree_")
             else [(p[0], q[0]) for p, q in zip(a.trees_, b.trees_)])
    return all(np.array_equal(getattr(p, name), getattr(q, name)) for p, q in trees
               for name in ("feature", "threshold", "value", "children_left")) and \
        np.array_equal(a.predict(X), b.predict(X))


def run(full=False, repeats=3, seed=0, progress=None):
    """The grid of ``cases`` (``full``: all of california), each fitted ``repeats`` times
    three ways on a two-worker ``LocalCluster`` (rows picked by ``seed``); ``progress``: a
    file to print each fit's time to.  Returns ``(records, info)``: the rows described in
    the module docstring as a DataFrame, and the cluster's description.  O(the fits)."""
    import pandas as pd
    from threadpoolctl import threadpool_limits

    from treelib import distributed
    from treelib.datasets import load_california_housing

    X_all, y_all = load_california_housing(return_X_y=True)
    records = []
    start = time.perf_counter()
    cluster, client = distributed.local_cluster(n_workers=2)
    startup = time.perf_counter() - start
    try:
        first = cases(False)[0][1]("fixed_point")       # the workers import treelib once, untimed
        distributed.fit(first, distributed.row_blocks(X_all[:200], 100),
                        distributed.row_blocks(y_all[:200], 100), client)
        with threadpool_limits(limits=1):
            for name, model, rows in cases(full):
                pick = np.random.default_rng(seed).permutation(len(y_all))[:rows]
                records += case_records(name, model, X_all[pick], y_all[pick], client,
                                        repeats, progress)
    finally:
        client.close()
        cluster.close()
    info = {"cluster": "LocalCluster, 2 worker processes x 1 thread, no dashboard",
            "cluster startup seconds": f"{startup:.1f}",
            "note": "two cores shared by the driver, the scheduler and both workers: the "
                    "distributed times are the cost of the rounds, not a speed-up"}
    return pd.DataFrame.from_records(records), info


def case_records(name, model, X, y, client, repeats, progress=None):
    """The records of one case (``name``, ``model(histogram_sums)`` a factory) on rows
    ``X``, ``y``: ``repeats`` times the three fits (``record="fit"``), each distributed
    fit checked to be the local fixed-point fit, and the rounds of the first distributed
    fit (``record="round"``).  O(3 repeats fits)."""
    from treelib import distributed

    data_bytes = X.astype(np.float64).nbytes + y.nbytes
    sizes = tuple(len(b) for b in np.array_split(np.arange(len(y)), PARTITIONS))
    Xd, yd = distributed.row_blocks(X, sizes), distributed.row_blocks(y, sizes)
    fitters = {"float": lambda: model("float").fit(X, y),
               "fixed_point": lambda: model("fixed_point").fit(X, y),
               "distributed": lambda: distributed.fit(model("fixed_point"), Xd, yd, client)}
    common = dict(data_bytes=data_bytes, rows=len(y), partitions=PARTITIONS)
    records = []
    for repeat in range(repeats):
        fits = {}
        for method, fit in fitters.items():
            started = time.perf_counter()
            fits[method] = fit()
            seconds = time.perf_counter() - started
            stats = getattr(fits[method], "distributed_stats_", {})
            records.append(dict(case=name, record="fit", method=method, repeat=repeat,
                                round=-1, kind="", seconds=seconds,
                                rounds=stats.get("rounds", 0),
                                bytes=stats.get("bytes_reduced", 0), **common))
            if progress is not None:
                print(f"{name:>14} {method:>11} repeat {repeat}: {seconds:7.3f} s",
                      file=progress, flush=True)
        if not same_fit(fits["distributed"], fits["fixed_point"], X):
            raise AssertionError(f"{name}: the distributed fit is not the local "
                                 "fixed-point fit")
        if repeat == 0:
            stats = fits["distributed"].distributed_stats_
            records += [dict(case=name, record="round", method="distributed", repeat=0,
                             round=i, kind="summary" if size else "small", seconds=np.nan,
                             rounds=stats["rounds"], bytes=size, **common)
                        for i, size in enumerate(stats["bytes_per_round"])]
    return records


def ratios(fits):
    """Median seconds of each method per case, and the ratios distributed / fixed_point and
    fixed_point / float."""
    table = (fits[fits.record == "fit"].groupby(["case", "method"])["seconds"].median()
             .unstack("method"))
    table["fixed_point / float"] = table["fixed_point"] / table["float"]
    table["distributed / fixed_point"] = table["distributed"] / table["fixed_point"]
    return table
