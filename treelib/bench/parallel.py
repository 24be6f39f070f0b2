"""Parallel split search: threads in treelib's level-wise growers, scikit-learn's own
parallelism beside them, and the latency and bandwidth of a Dask LocalCluster.

Four parts, one CSV (column ``part``):

- ``threads``: the level-wise growers (exact ``"cumsum"`` and ``"hist"``) with
  ``n_jobs`` = 1 and 2, on california at full depth and on a million rows at depth 10:
  the growth on prepared data (the split search, and the partition of the rows) and the
  whole estimator fit (validation and binning included), wall and CPU seconds;
- ``sklearn``: RandomForestRegressor with ``n_jobs`` 1 and 2 (joblib's threads over
  trees) and HistGradientBoostingRegressor with 1 and 2 OpenMP threads (threadpoolctl);
- ``network``: numpy arrays of 1 KiB to 32 MiB sent from one worker process of a
  LocalCluster to the other, and the time each took: ``alpha`` and ``beta`` of
  ``treelib.communication.Network`` fitted on them (in the file's header);
- the Amdahl fit (serial fraction) of every case, in the header too.

The machine is shared: the header records its load average.  Every timing is the
minimum of the repeats, and the chapters read ratios (n_jobs = 2 against 1), measured
side by side in each repeat.
"""

import time

import numpy as np

from treelib import distributed
from treelib.bench.growth import GROWTH_CASES, growth_data
from treelib.bench.timers import timed

#: Cases: (growth case of ``treelib.bench.growth``, its max_depth).
THREAD_CASES = {"california": "california_full_depth", "million_rows": "million_rows_depth_10"}
QUICK_CASES = ("california",)
SPLITTERS = ("hist", "cumsum")
#: Bytes of the arrays sent between the LocalCluster's workers.
NETWORK_SIZES = tuple(2**e for e in range(10, 26, 3))


def thread_case(case, splitter, n_jobs, what):
    """A zero-argument function that grows (``what="growth"``: the grower on prepared
    data) or fits (``"fit"``: the estimator) one tree of ``case`` with ``n_jobs``."""
    from treelib.estimators import DecisionTreeRegressor
    from treelib.finders import Finder
    from treelib.growth import LevelOptions, StoppingRules, grow

    X, y = growth_data(THREAD_CASES[case])
    X = X.astype(np.float32).astype(np.float64)
    max_depth = GROWTH_CASES[THREAD_CASES[case]]["max_depth"]
    if what == "fit":
        model = DecisionTreeRegressor(splitter=splitter, builder="level_wise",
                                      max_depth=max_depth, n_jobs=n_jobs)
        return lambda: model.fit(X, y)
    finder = Finder(splitter, "squared_error")
    data, rules = finder.prepare(X), StoppingRules(max_depth=max_depth)
    return lambda: grow("level_wise", data, y[:, None], finder, rules,
                        level=LevelOptions(n_jobs=n_jobs))


def time_threads(cases=tuple(THREAD_CASES), splitters=SPLITTERS, whats=("growth", "fit"),
                 repeats=3, progress=None):
    """Wall and CPU seconds of the level-wise growers with n_jobs 1 and 2 (the two side
    by side in each repeat).  Rows: part, case, method, what, workers, repeat,
    wall_seconds, cpu_seconds."""
    from threadpoolctl import threadpool_limits

    records = []
    with threadpool_limits(limits=1):
        for case in cases:
            for splitter in splitters:
                for what in whats:
                    runs = {n_jobs: thread_case(case, splitter, n_jobs, what)
                            for n_jobs in (1, 2)}
                    for repeat in range(repeats):
                        for n_jobs, run in runs.items():
                            _, wall, cpu = timed(run)
                            records.append(("threads", case, splitter, what, n_jobs, repeat,
                                            wall, cpu))
                            if progress is not None:
                                print(f"{case:>13} {splitter:>6} {what:>6} n_jobs={n_jobs}:"
                                      f" {wall:7.3f} s wall, {cpu:7.3f} s CPU",
                                      file=progress, flush=True)
    return records


def time_sklearn(repeats=3, progress=None):
    """scikit-learn's parallelism on california: a 20-tree random forest with n_jobs 1
    and 2, HistGradientBoosting (100 iterations) with 1 and 2 OpenMP threads."""
    from sklearn.ensemble import HistGradientBoostingRegressor, RandomForestRegressor
    from threadpoolctl import threadpool_limits

    X, y = growth_data("california_full_depth")
    records = []
    for repeat in range(repeats):
        for workers in (1, 2):
            forest = RandomForestRegressor(n_estimators=20, n_jobs=workers, random_state=0)
            boosting = HistGradientBoostingRegressor(max_iter=100, early_stopping=False,
                                                     random_state=0)
            for name, model in (("random_forest", forest), ("hist_gradient_boosting",
                                                            boosting)):
                limit = 1 if name == "random_forest" else workers
                with threadpool_limits(limits=limit):
                    _, wall, cpu = timed(model.fit, X, y)
                records.append(("sklearn", "california", name, "fit", workers, repeat,
                                wall, cpu))
                if progress is not None:
                    print(f"{name:>24} workers={workers}: {wall:7.3f} s wall, {cpu:7.3f} s"
                          " CPU", file=progress, flush=True)
    return records


def make_array(n_bytes, tag):
    """An array of ``n_bytes`` bytes made on a worker (``tag`` keeps repeats distinct)."""
    return np.full(max(1, n_bytes // 8), float(tag))


def array_bytes(array):
    return array.nbytes


def time_network(client, sizes=NETWORK_SIZES, repeats=3):
    """Seconds to move arrays of ``sizes`` bytes from the first worker of ``client`` to
    the second (a task on the second that needs the array made on the first): the
    round trip of a Dask task, plus the transfer.  Returns ``(bytes, seconds)`` lists,
    the minimum over ``repeats`` per size."""
    workers = sorted(client.scheduler_info()["workers"])
    if len(workers) < 2:
        raise ValueError("timing transfers needs a cluster of at least two workers")
    n_bytes, seconds = [], []
    for size in sizes:
        best = np.inf
        for repeat in range(repeats):
            source = client.submit(make_array, size, repeat, workers=[workers[0]], pure=False)
            # wait until the array exists on the first worker (a task there reads it)
            client.submit(np.size, source, workers=[workers[0]], pure=False).result()
            start = time.perf_counter()
            client.submit(array_bytes, source, workers=[workers[1]], pure=False).result()
            best = min(best, time.perf_counter() - start)
            del source
        n_bytes.append(max(8, size // 8 * 8))
        seconds.append(best)
    return n_bytes, seconds


def amdahl_table(fits):
    """Per (part, case, method, what): the minimum wall seconds with 1 and 2 workers, the
    speed-up, the serial fraction s = 2 T2 / T1 - 1 (Amdahl's law through both points,
    clipped to [0, 1]) and the speed-ups that s gives on 4, 8 and 32 cores."""
    from treelib.communication import amdahl_fit, amdahl_speedup

    timed_fits = fits[fits["part"] != "network"]
    best = (timed_fits.groupby(["part", "case", "method", "what", "workers"])["wall_seconds"]
            .min().unstack("workers"))
    rows = []
    for key, row in best.iterrows():
        serial, _ = amdahl_fit([1, 2], [row[1], row[2]])
        rows.append(key + (row[1], row[2], row[1] / row[2], serial,
                           *amdahl_speedup(serial, [4, 8, 32])))
    import pandas as pd

    return pd.DataFrame(rows, columns=["part", "case", "method", "what", "seconds_1",
                                       "seconds_2", "speedup_2", "serial_fraction",
                                       "speedup_4", "speedup_8", "speedup_32"])


def run(full=False, repeats=3, seed=0, progress=None):
    """The full grid (both cases, both splitters, growth and fit; scikit-learn; the
    network).  ``seed`` is unused: the data are fixed."""
    import pandas as pd

    from treelib.communication import fit_network

    records = time_threads(repeats=repeats, progress=progress)
    records += time_sklearn(repeats=repeats, progress=progress)
    cluster, client = distributed.local_cluster(n_workers=2)
    try:
        n_bytes, seconds = time_network(client, repeats=repeats)
    finally:
        client.close()
        cluster.close()
    records += [("network", "local_cluster", "transfer", "send", 2, 0, s, np.nan, b)
                for b, s in zip(n_bytes, seconds)]
    fits = pd.DataFrame([r if len(r) == 9 else r + (np.nan,) for r in records],
                        columns=["part", "case", "method", "what", "workers", "repeat",
                                 "wall_seconds", "cpu_seconds", "n_bytes"])
    network = fit_network(n_bytes, seconds)
    table = amdahl_table(fits)
    extra = {"threads": "n_jobs 1 and 2 (treelib, scikit-learn's forest); OpenMP 1 and 2 "
                        "(HistGradientBoosting); BLAS pinned to 1",
             "network alpha (s)": f"{network.alpha:.3g}",
             "network beta (bytes/s)": f"{network.beta:.3g}",
             "note": "measured on a machine shared with other work: the load average "
                     "above; ratios of runs made side by side, minimum of the repeats"}
    for row in table.itertuples():
        extra[f"serial fraction {row.case} {row.method} {row.what}"] = \
            f"{row.serial_fraction:.3f}"
    return fits, extra
