"""The training cost of random decision trees on a9a against the seed's O(depth x n):
one tree grown on n rows, with depth limit d, and on the features repeated."""

import gc
import time

import numpy as np


def rdt_cost(seed=0, repeats=3, progress=None):
    """The training cost of random decision trees on a9a, against the seed's
    O(depth x n): one tree per seed, grown on n rows (n = 2,048 .. all 32,561) with the
    depth limit d (2 .. 123), and on the 123 features repeated (123 .. 984 features).

    Returns a DataFrame: experiment, n_samples, n_features, max_depth, repeat, seconds,
    depth (reached), sample_levels (the sum over the levels of the samples still
    active: the O(depth x n) quantity).
    """
    import pandas as pd
    from threadpoolctl import threadpool_limits

    from treelib.criteria import one_hot
    from treelib.datasets import load_libsvm
    from treelib.growth import RandomTreeRule, StoppingRules, grow_random_tree

    data = load_libsvm("a9a")
    X, Y = data.X_train, one_hot(data.y_train, 2)
    n_all = len(Y)
    plan = ([("n", n, 1, 123) for n in (2048, 4096, 8192, 16384, n_all)]
            + [("depth", n_all, 1, d) for d in (2, 4, 8, 16, 32, 64, 123)]
            + [("features", n_all, k, 123) for k in (1, 2, 4, 8)])
    records = []
    with threadpool_limits(limits=1):
        for experiment, n, copies, max_depth in plan:
            rows = np.random.default_rng([seed, n]).permutation(n_all)[:n]
            Xs, Ys = np.tile(X[rows], copies), Y[rows]
            for repeat in range(repeats):
                rng = np.random.default_rng([seed, repeat])
                gc.collect()
                start = time.perf_counter()
                tree = grow_random_tree(Xs, Ys,
                                        RandomTreeRule("gini", min_samples_leaf=4, rng=rng),
                                        StoppingRules(max_depth=max_depth))
                seconds = time.perf_counter() - start
                split = ~tree.is_leaf
                records.append((experiment, n, Xs.shape[1], max_depth, repeat, seconds,
                                tree.max_depth, int(tree.n_node_samples[split].sum())))
            if progress is not None:
                print(f"{experiment:>8}: n = {n:6d}, f = {Xs.shape[1]:4d}, d <= {max_depth:3d}:"
                      f" {seconds:.3f} s", file=progress, flush=True)
    return pd.DataFrame(records, columns=["experiment", "n_samples", "n_features",
                                          "max_depth", "repeat", "seconds", "depth",
                                          "sample_levels"])


def run(full=False, repeats=3, seed=0, progress=None):
    return rdt_cost(seed=seed, repeats=repeats, progress=progress), {}
