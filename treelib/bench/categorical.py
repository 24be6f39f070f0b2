"""Categorical features: the best split of one categorical feature of bikeshare at the root
(squared error on the hourly rentals), by every strategy of the chapter, against the
number of categories q: 4 (weather), 7 (weekday), 12 (month), 24 (hour), 48 (hour x
working day) and 168 (hour x weekday).

Strategies (``CATEGORICAL_STRATEGIES``): the codes taken as ordered numbers (an ordinary
threshold), one category against the rest (seed article 004), the optimal binary partition
by sorting the categories by their mean (Fisher 1958; Breiman et al. 1984), the same sorted
by the smoothed mean of gradient boosting (``smooth=10``), a multiway split (one child per
category, seed article 001), and brute force over all 2^(q-1) - 1 binary partitions (up to
q = 24: 8,388,607 partitions).  Each search is timed on one thread; the gain of the best
split is in squared rentals, and also as a share of the root's sum of squares.
"""

import numpy as np

from treelib.bench.fitting import clock
from treelib.bench.timers import timed

#: The strategies: name -> (candidates searched, cost of one search).
CATEGORICAL_STRATEGIES = {
    "ordinal": ("q - 1 thresholds on the codes", "O(n log n)"),
    "one_vs_rest": ("q: one category alone", "O(n + q)"),
    "partition": ("q - 1 cuts of the categories sorted by mean", "O(n + q log q)"),
    "partition, smooth 10": ("q - 1 cuts, sorted by sum / (count + 10)", "O(n + q log q)"),
    "multiway": ("one split into q children", "O(n + q)"),
    "brute force": ("all 2^(q-1) - 1 partitions", "O(n + q 2^q)"),
}
#: The categorical features: name -> how their codes are made from bikeshare's frame.
FEATURES = {
    "weather": lambda f: f["weathersit"].cat.codes.to_numpy(),
    "weekday": lambda f: f["weekday"].to_numpy(),
    "month": lambda f: f["mnth"].cat.codes.to_numpy(),
    "hour": lambda f: f["hr"].to_numpy(),
    "hour x working day": lambda f: f["hr"].to_numpy() * 2 + f["workingday"].to_numpy(),
    "hour x weekday": lambda f: f["hr"].to_numpy() * 7 + f["weekday"].to_numpy(),
}
#: Brute force beyond this many categories would take hours: it is not run.
MAX_BRUTE_FORCE = 24


def subset_sums(values):
    """The sums of ``values`` over every subset of its entries, subset ``s`` holding entry
    i when bit i of ``s`` is set: 2^len(values) sums by doubling (each entry adds a copy
    of the sums so far, shifted by its value).  O(2^q) additions."""
    sums = np.zeros(1)
    for value in values:
        sums = np.concatenate([sums, sums + value])
    return sums


def brute_force_partition(codes, y):
    """The best binary partition of the categories ``codes`` (0 .. q - 1, all present)
    for squared error, over all 2^(q-1) - 1 partitions: the last category stays right,
    every subset of the others goes left.  Returns ``(gain, left categories)``.
    O(n + q 2^q)."""
    q = int(codes.max()) + 1
    centred = y - y.mean()
    sums = np.bincount(codes, weights=centred, minlength=q)
    counts = np.bincount(codes, minlength=q).astype(np.float64)
    left_sums, left_counts = subset_sums(sums[:-1]), subset_sums(counts[:-1])
    total, n = sums.sum(), counts.sum()
    with np.errstate(divide="ignore", invalid="ignore"):
        gains = (left_sums ** 2 / left_counts + (total - left_sums) ** 2 / (n - left_counts)
                 - total ** 2 / n)
    gains[0] = -np.inf                                     # the empty left side
    best = int(np.argmax(gains))
    return float(gains[best]), tuple(int(c) for c in range(q - 1) if best >> c & 1)


def multiway_gain(codes, y):
    """Gain of the split into one child per category (squared error):
    ``sum_c S_c^2 / n_c - S^2 / n`` on the centred target.  O(n + q)."""
    centred = y - y.mean()
    sums = np.bincount(codes, weights=centred)
    counts = np.bincount(codes)
    present = counts > 0
    return float(np.sum(sums[present] ** 2 / counts[present]) - centred.sum() ** 2 / len(y))


def search(strategy, codes, y):
    """The best split of one categorical feature by ``strategy``: ``(gain, left
    categories)`` (None for the multiway split and for "ordinal", whose left side is
    the codes up to a threshold, returned as the threshold's codes)."""
    from treelib import best_split
    from treelib.criteria import target_statistics
    from treelib.finders import Finder
    from treelib.finders.categorical import Categories

    if strategy == "multiway":
        return multiway_gain(codes, y), None
    if strategy == "brute force":
        return brute_force_partition(codes, y)
    if strategy == "ordinal":
        split = best_split(codes[:, None].astype(np.float64), y)
        return split.gain, tuple(int(c) for c in np.unique(codes) if c <= split.threshold)
    name, smooth = ("partition", 10.0) if strategy == "partition, smooth 10" else (strategy, 0.0)
    q = int(codes.max()) + 1
    finder = Finder("cumsum", "squared_error",
                    categories=Categories(np.array([q]), name, smooth))
    split = finder(codes[:, None].astype(np.float64), target_statistics(y, "squared_error"))
    return split.gain, split.categories_left


def time_categorical(features=tuple(FEATURES), strategies=tuple(CATEGORICAL_STRATEGIES),
                     repeats=5, seed=0, progress=None):
    """Every strategy on every categorical feature of bikeshare, ``repeats`` times.

    Returns a DataFrame: feature, n_categories, strategy, repeat, seconds (wall clock),
    cpu_seconds (the process's), gain, share (the gain over the root's sum of squares),
    n_left_categories."""
    import pandas as pd
    from threadpoolctl import threadpool_limits

    from treelib.datasets import load_bikeshare

    data = load_bikeshare()
    y = data.target.to_numpy(np.float64)
    sum_of_squares = float(np.sum((y - y.mean()) ** 2))
    records = []
    with threadpool_limits(limits=1):
        for feature in features:
            _, codes = np.unique(FEATURES[feature](data.frame), return_inverse=True)
            q = int(codes.max()) + 1
            for strategy in strategies:
                if strategy == "brute force" and q > MAX_BRUTE_FORCE:
                    continue
                if strategy != "brute force":
                    search(strategy, codes, y)                       # warm up
                for repeat in range(repeats):
                    (gain, left), seconds, cpu = timed(search, strategy, codes, y)
                    records.append((feature, q, strategy, repeat, seconds, cpu, gain,
                                    gain / sum_of_squares, -1 if left is None else len(left)))
                if progress is not None:
                    print(f"{feature:>20} (q = {q:3d}) {strategy:>21}: {clock(seconds)} "
                          f"({seconds:.4f} s), share {gain / sum_of_squares:.4f}",
                          file=progress, flush=True)
    return pd.DataFrame(records, columns=["feature", "n_categories", "strategy", "repeat",
                                          "seconds", "cpu_seconds", "gain", "share",
                                          "n_left_categories"])


def categorical_table(fits, quantity="share"):
    """One row per feature (by number of categories), one column per strategy: the
    share of the root's sum of squares (``"share"``) or the median ``"seconds"`` or
    ``"cpu_seconds"``."""
    aggregate = "median" if "seconds" in quantity else "first"
    table = fits.pivot_table(index=["n_categories", "feature"], columns="strategy",
                             values=quantity, aggfunc=aggregate)
    return table[[s for s in CATEGORICAL_STRATEGIES if s in table.columns]]


def run(full=False, repeats=5, seed=0, progress=None):
    return time_categorical(repeats=repeats, seed=seed, progress=progress), {
        "criterion": "squared_error", "data": "bikeshare (8,645 hours), the root node"}
