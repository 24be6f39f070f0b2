"""Counts and medians: two experiments on the Poisson and absolute-error criteria.

- ``"median"``: the best absolute-error split of one feature (MedInc -> median house
  value, n rows of california_housing drawn without replacement), found three ways:
  treelib's running median (a Fenwick tree over the ranks of the targets, O(n log n),
  ``treelib.finders.median``), the rescan that recomputes both children's median and loss
  at every cut (O(n) per cut with a selection algorithm, ``rescan_median_split``: O(n^2)),
  and scikit-learn's compiled criterion (a tree of depth 1).  Seconds against n, and the
  gain each found.
- ``"poisson"``: regression trees on bikeshare (five seeded splits, 75% training, 25%
  test) with the Poisson and squared-error criteria, depth 2 to 12 and full
  (``min_samples_leaf=5``): test mean Poisson deviance and R^2, fit seconds, leaves.
"""

import numpy as np

from treelib.bench.timers import timed

MEDIAN_METHODS = ("running median", "rescan", "scikit-learn")
MEDIAN_SIZES = (250, 500, 1000, 2000, 4000, 8000, 16000)
#: The rescan takes minutes beyond this many rows: it stops here.
MAX_RESCAN = 16000
POISSON_DEPTHS = ("2", "4", "6", "8", "10", "12", "full")
POISSON_CRITERIA = ("poisson", "squared_error")
#: Seeded training/test splits of bikeshare for the Poisson experiment.
POISSON_SPLITS = 5


def rescan_median_split(x, y):
    """Best absolute-error cut of one feature by recomputing, at every cut, both children's
    median (``np.median``, a selection in O(n)) and their sums of absolute deviations:
    O(n) per cut, **O(n^2)** per feature.  Returns ``(threshold, gain)``; the first best
    cut on ties (gains compared exactly, as floats)."""
    order = np.argsort(x, kind="stable")
    xs, ys = x[order], y[order]
    node = np.abs(ys - np.median(ys)).sum()
    best, cut = -np.inf, None
    for i in np.flatnonzero(xs[1:] > xs[:-1]):
        left, right = ys[: i + 1], ys[i + 1:]
        gain = node - np.abs(left - np.median(left)).sum() - np.abs(right - np.median(right)).sum()
        if gain > best:
            best, cut = gain, i
    return float(xs[cut] / 2 + xs[cut + 1] / 2), float(best)


def median_split(method, x, y):
    """``(threshold, gain)`` of the best absolute-error split of ``x`` by ``method``."""
    if method == "running median":
        from treelib import best_split

        split = best_split(x[:, None], y, "cumsum", criterion="absolute_error")
        return split.threshold, split.gain
    if method == "rescan":
        return rescan_median_split(x, y)
    from sklearn.tree import DecisionTreeRegressor

    tree = DecisionTreeRegressor(criterion="absolute_error", max_depth=1,
                                 random_state=0).fit(x[:, None], y).tree_
    n = tree.weighted_n_node_samples
    gain = n[0] * tree.impurity[0] - n[1] * tree.impurity[1] - n[2] * tree.impurity[2]
    return float(tree.threshold[0]), float(gain)


def time_medians(sizes=MEDIAN_SIZES, methods=MEDIAN_METHODS, repeats=3, seed=0,
                 progress=None):
    """Seconds to find the best absolute-error split of MedInc on n rows, per method.

    MedInc is rounded to float32 as the trees see it.  Returns a DataFrame: experiment
    ("median"), method, n_samples, repeat, seconds, cpu_seconds, threshold, gain."""
    import pandas as pd

    from treelib.datasets import load_california_housing

    X, y = load_california_housing(return_X_y=True)
    medinc = X[:, 0].astype(np.float32).astype(np.float64)
    records = []
    for n in sizes:
        rows = np.random.default_rng([seed, n]).choice(len(y), n, replace=False)
        x_n, y_n = medinc[rows], y[rows]
        for method in methods:
            if method == "rescan" and n > MAX_RESCAN:
                continue
            median_split(method, x_n[:100], y_n[:100])                 # warm up
            for repeat in range(repeats):
                (threshold, gain), seconds, cpu = timed(median_split, method, x_n, y_n)
                records.append(("median", method, n, repeat, seconds, cpu, threshold, gain))
            if progress is not None:
                print(f"absolute error, n = {n:6d}, {method:>15}: {seconds:8.4f} s",
                      file=progress, flush=True)
    return pd.DataFrame(records, columns=["experiment", "method", "n_samples", "repeat",
                                          "seconds", "cpu_seconds", "threshold", "gain"])


def bikeshare_split(seed=0):
    """bikeshare's features as numbers (month and weather by their codes) and its hourly
    rentals, split 75/25 by a seeded permutation: ``X_train, X_test, y_train, y_test``."""
    from treelib.datasets import load_bikeshare

    data = load_bikeshare()
    frame = data.data.copy()
    for column in ["mnth", "weathersit"]:
        frame[column] = frame[column].cat.codes
    X, y = frame.to_numpy(np.float64), data.target.to_numpy(np.float64)
    rows = np.random.default_rng(seed).permutation(len(y))
    test, train = rows[: len(y) // 4], rows[len(y) // 4:]
    return X[train], X[test], y[train], y[test]


def poisson_deviance(y, mu):
    """Mean Poisson deviance ``2 mean(y log(y / mu) - y + mu)`` (scikit-learn's
    ``mean_poisson_deviance``; twice the mean of the half deviance the criterion uses)."""
    ylogy = np.where(y > 0, y * np.log(np.where(y > 0, y, 1.0) / mu), 0.0)
    return float(2 * np.mean(ylogy - y + mu))


def time_poisson(depths=POISSON_DEPTHS, criteria=POISSON_CRITERIA, splits=POISSON_SPLITS,
                 seed=0, progress=None):
    """Poisson against squared-error trees on bikeshare, on ``splits`` seeded 75/25 splits
    (seeds ``seed``, ``seed + 1``, ...), one fit each: the test scores are deterministic,
    and their spread over the splits says how much of a difference is noise.  Returns a
    DataFrame: experiment ("poisson"), method (the criterion), depth, split, repeat (0),
    seconds, cpu_seconds, deviance, r2, n_leaves."""
    import pandas as pd
    from threadpoolctl import threadpool_limits

    from treelib import DecisionTreeRegressor
    from treelib.bench.fitting import r2

    records = []
    with threadpool_limits(limits=1):
        for split in range(seed, seed + splits):
            X_train, X_test, y_train, y_test = bikeshare_split(split)
            for depth in depths:
                max_depth = None if depth == "full" else int(depth)
                for criterion in criteria:
                    model = DecisionTreeRegressor(criterion=criterion, max_depth=max_depth,
                                                  min_samples_leaf=5)
                    _, seconds, cpu = timed(model.fit, X_train, y_train)
                    predicted = model.predict(X_test)
                    records.append(("poisson", criterion, depth, split, 0, seconds, cpu,
                                    poisson_deviance(y_test, predicted),
                                    r2(y_test, predicted), model.get_n_leaves()))
                    if progress is not None:
                        print(f"bikeshare split {split}, depth {depth:>4}, {criterion:>13}: "
                              f"{seconds:.3f} s, deviance {records[-1][7]:.3f}",
                              file=progress, flush=True)
    return pd.DataFrame(records, columns=["experiment", "method", "depth", "split", "repeat",
                                          "seconds", "cpu_seconds", "deviance", "r2",
                                          "n_leaves"])


def run(full=False, repeats=3, seed=0, progress=None):
    import pandas as pd
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1):
        medians = time_medians(repeats=repeats, seed=seed, progress=progress)
    counts = time_poisson(seed=seed, progress=progress)
    return pd.concat([medians, counts], ignore_index=True), {
        "median feature": "MedInc (california_housing)", "poisson data": "bikeshare"}
