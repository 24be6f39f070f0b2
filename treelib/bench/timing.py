"""The seed article's timing table, rebuilt: depth-6 regression trees on random
subsamples of california_housing, every split method and scikit-learn's."""

import time

import numpy as np

from treelib.bench.fitting import clock, time_fit, tree_model

#: The seed article's grid: (n_samples, repeats).  Step 50 from 500 to 2,050 with 5
#: repeats, step 100 from 2,200 to 7,900 with 3, step 1,000 from 8,000 to 20,000 with 1.
SEED_GRID = ([(n, 5) for n in range(500, 2100, 50)]
             + [(n, 3) for n in range(2200, 8000, 100)]
             + [(n, 1) for n in range(8000, 20001, 1000)])

#: A grid small enough to run while the book builds.
QUICK_GRID = [(500, 3), (1000, 3), (2000, 2), (4000, 1)]

#: Every method grows trees with the same depth limit.
TIMING_MAX_DEPTH = 6
TIMING_METHODS = ("naive", "scan", "cumsum", "sklearn")


def make_model(method, max_depth):
    """A regression tree with the given split method ('sklearn' for scikit-learn's)."""
    if method == "sklearn":
        return tree_model("sklearn", max_depth=max_depth)
    return tree_model("treelib", splitter=method, max_depth=max_depth)


def time_tree_fits(grid, methods=TIMING_METHODS, max_depth=TIMING_MAX_DEPTH, seed=0,
                   progress=None):
    """Fit one tree per method on random subsamples of california_housing.

    For every ``(n, repeats)`` of ``grid`` and every repeat, draw ``n`` rows without
    replacement (seeded by ``seed``, ``n`` and the repeat, so any part of a grid can be
    rerun alone) and time each method on the same rows.

    Returns a DataFrame with one row per fit: n_samples, repeat, method, seconds.
    ``progress``, if given, is a stream that receives one line per grid point.
    """
    import pandas as pd
    from threadpoolctl import threadpool_limits

    from treelib.datasets import load_california_housing

    X, y = load_california_housing(return_X_y=True)
    work = np.array([n * repeats for n, repeats in grid], dtype=float)
    records, start = [], time.perf_counter()
    with threadpool_limits(limits=1):
        for method in methods:  # warm up: the first fit pays for imports and caches
            make_model(method, max_depth).fit(X[:200], y[:200])
        for k, (n, repeats) in enumerate(grid):
            for repeat in range(repeats):
                rows = np.random.default_rng([seed, n, repeat]).choice(len(y), n, replace=False)
                for method in methods:
                    seconds = time_fit(make_model(method, max_depth), X[rows], y[rows])
                    records.append((n, repeat, method, seconds))
            if progress is not None:
                elapsed = time.perf_counter() - start
                left = elapsed * work[k + 1:].sum() / work[: k + 1].sum()
                print(f"[{k + 1:3d}/{len(grid)}] n = {n:6d} x {repeats}   "
                      f"elapsed {clock(elapsed)}   about {clock(left)} left",
                      file=progress, flush=True)
    return pd.DataFrame(records, columns=["n_samples", "repeat", "method", "seconds"])


def mean_seconds(fits):
    """Mean seconds per n_samples (rows) and method (columns): the mean of the repeats
    of each size (the seed gives one number per size without saying how it combined its
    repeats)."""
    table = fits.pivot_table(index="n_samples", columns="method", values="seconds",
                             aggfunc="mean")
    ordered = [m for m in TIMING_METHODS if m in table.columns]
    return table[ordered + [m for m in table.columns if m not in ordered]]


def run(full=False, repeats=None, seed=0, progress=None, methods=TIMING_METHODS,
        max_depth=TIMING_MAX_DEPTH):
    """The benchmark: the seed's grid with ``full``, else the quick grid."""
    fits = time_tree_fits(SEED_GRID if full else QUICK_GRID, methods, max_depth, seed,
                          progress)
    return fits, {"grid": "seed" if full else "quick", "max_depth": max_depth}
