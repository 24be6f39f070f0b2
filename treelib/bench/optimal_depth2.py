"""Greedy against optimal at depth 2: the greedy depth-2 regression tree (depth-first
growth, ``StoppingRules(max_depth=2)``) against the optimal one
(``treelib.growth.grow_optimal_depth2``), on the same bins, on the chapter's XOR data,
california_housing, bikeshare (every feature as its code) and mushrooms (the 0/1 label as
the target, 112 binary features), at 16, 32, 64 and 255 bins (one width for the binary
features of mushrooms, where every width gives 2 bins).

Each row is one repeat of one case: the training SSE of both trees and of the root alone
(machine-free, the same in every repeat), whether the two trees make the same cuts, and
the wall-clock and CPU seconds of both growths on one thread (binning excluded: both trees
search the same codes).  The chapter reads the SSE ratio greedy / optimal and the median
time ratio optimal / greedy.
"""

import numpy as np

from treelib.bench.fitting import clock
from treelib.bench.timers import timed

#: The data sets and the bin widths each is run at.
CASES = {"xor": (32,), "california": (16, 32, 64, 255), "bikeshare": (16, 32, 64, 255),
         "mushrooms": (255,)}
COLUMNS = ["dataset", "n_samples", "n_features", "max_bins", "n_bins", "repeat",
           "root_sse", "greedy_sse", "optimal_sse", "same_cuts", "greedy_seconds",
           "greedy_cpu_seconds", "optimal_seconds", "optimal_cpu_seconds"]


def xor_data(seed=0):
    """The chapter's XOR data: x0 and x1 on a 10 x 10 grid of 0.0 .. 0.9, x2 in {0, 1},
    five rows per grid point (1,000 rows); y = (x0 > 0.45) xor (x1 > 0.45) + 0.1 x2 plus
    N(0, 0.01^2) noise.  No cut of x0 or x1 gains anything at the root by itself."""
    grid = np.array(np.meshgrid(np.arange(10), np.arange(10), np.arange(2)))
    X = np.repeat(grid.reshape(3, -1).T / np.array([10, 10, 1]), 5, axis=0)
    rng = np.random.default_rng(seed)
    y = ((X[:, 0] > 0.45) ^ (X[:, 1] > 0.45)) + 0.1 * X[:, 2] \
        + 0.01 * rng.standard_normal(len(X))
    return X, y


def load_case(name):
    """``(X, y)`` of a case, float64."""
    if name == "xor":
        return xor_data()
    if name == "california":
        from treelib.datasets import load_california_housing

        return load_california_housing(return_X_y=True)
    if name == "bikeshare":
        from treelib.datasets import load_bikeshare

        data = load_bikeshare()
        frame = data.data.assign(mnth=data.data["mnth"].cat.codes,
                                 weathersit=data.data["weathersit"].cat.codes)
        return frame.to_numpy(np.float64), data.target.to_numpy(np.float64)
    if name == "mushrooms":
        from treelib.datasets import load_libsvm

        data = load_libsvm("mushrooms")
        return data.X_train, data.y_train.astype(np.float64)
    raise ValueError(f"unknown case {name!r}; choose one of {sorted(CASES)}")


def leaf_sse(tree):
    """A tree's training SSE: its leaves' weighted impurities summed.  O(nodes)."""
    return float(np.sum((tree.weighted_n_node_samples * tree.impurity)[tree.is_leaf]))


def greedy_depth2(codes, y, finder):
    """The greedy depth-2 tree on ``finder``'s codes (depth-first growth)."""
    from treelib.criteria import target_statistics
    from treelib.growth import StoppingRules, grow_depth_first

    return grow_depth_first(codes, target_statistics(y, "squared_error"), finder,
                            StoppingRules(max_depth=2))


def same_cuts(a, b):
    """Whether two trees split the same nodes on the same features and thresholds."""
    return bool(a.node_count == b.node_count and np.array_equal(a.feature, b.feature)
                and np.array_equal(a.threshold, b.threshold))


def compare(name, max_bins, repeats=3, progress=None):
    """One case at one width, ``repeats`` times (after one warm-up of each): rows of
    ``COLUMNS``."""
    from treelib.finders import Finder
    from treelib.growth import grow_optimal_depth2

    X, y = load_case(name)
    finder = Finder("hist", "squared_error", max_bins=max_bins)
    codes = finder.prepare(X)
    greedy_depth2(codes, y, finder)                                  # warm up
    grow_optimal_depth2(codes, y, finder)
    root_sse = float(np.sum((y - y.mean()) ** 2))
    rows = []
    for repeat in range(repeats):
        greedy, g_wall, g_cpu = timed(greedy_depth2, codes, y, finder)
        optimal, o_wall, o_cpu = timed(grow_optimal_depth2, codes, y, finder)
        rows.append((name, len(y), X.shape[1], max_bins, finder.n_bins, repeat, root_sse,
                     leaf_sse(greedy), optimal.sse, same_cuts(greedy, optimal.tree),
                     g_wall, g_cpu, o_wall, o_cpu))
    if progress is not None:
        print(f"{name:>11} B = {max_bins:3d}: SSE greedy / optimal "
              f"{rows[0][7] / rows[0][8]:.4f}, time optimal / greedy "
              f"{o_cpu / g_cpu:.1f} ({clock(o_wall)})", file=progress, flush=True)
    return rows


def summary(fits):
    """One row per case: the SSE ratio greedy / optimal, the share of the greedy tree's
    SSE that the optimal one saves, whether the cuts are the same, and the median CPU time
    ratio optimal / greedy."""
    cases = fits.groupby(["dataset", "max_bins"], sort=False)
    first = cases.first()
    table = first[["n_bins"]].copy()
    table["sse_ratio"] = first.greedy_sse / first.optimal_sse
    table["saved"] = 1 - first.optimal_sse / first.greedy_sse
    table["same_cuts"] = first.same_cuts
    table["time_ratio"] = (cases.optimal_cpu_seconds.median()
                           / cases.greedy_cpu_seconds.median())
    return table


def run(full=False, repeats=3, seed=0, progress=None):
    """Every case of ``CASES`` on one thread (``full`` and ``seed`` change nothing: the
    cases are fixed and the searches deterministic)."""
    import pandas as pd
    from threadpoolctl import threadpool_limits

    records = []
    with threadpool_limits(limits=1):
        for name, widths in CASES.items():
            for max_bins in widths:
                records += compare(name, max_bins, repeats, progress)
    return pd.DataFrame(records, columns=COLUMNS), {
        "criterion": "squared_error", "trees": "depth 2: greedy (depth-first) and optimal"}
