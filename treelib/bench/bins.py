"""Histogram trees against ``max_bins``: fit time and test R^2 of level-wise regression
trees on a fixed california split, against the exact scan."""

from treelib.bench.fitting import california_split, r2, time_fit, tree_model

#: The grid of ``max_bins`` and tree depths ("full": no limit).
BINS_GRID = (2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 255)
BINS_DEPTHS = ("6", "10", "full")


def depth_of(label):
    """A depth label ("full" or a number) as ``max_depth``."""
    return None if label == "full" else int(label)


def time_bins(grid=BINS_GRID, depths=BINS_DEPTHS, repeats=3, seed=0, progress=None):
    """Fit and score level-wise regression trees on the california split: histogram
    splits with every ``max_bins`` of ``grid``, and the exact scan (``max_bins`` 0).

    Returns a DataFrame: depth, max_bins, repeat, seconds (binning included), train_r2,
    test_r2, n_leaves.
    """
    import pandas as pd
    from threadpoolctl import threadpool_limits

    X_train, X_test, y_train, y_test = california_split(seed)
    records = []
    with threadpool_limits(limits=1):
        tree_model("treelib", splitter="hist", builder="level_wise").fit(X_train[:300],
                                                                         y_train[:300])
        for depth in depths:
            for max_bins in (0, *grid):
                for repeat in range(repeats):
                    model = tree_model(
                        "treelib", builder="level_wise", max_depth=depth_of(depth),
                        **({"splitter": "hist", "max_bins": max_bins} if max_bins else {}))
                    seconds = time_fit(model, X_train, y_train)
                    records.append((depth, max_bins, repeat, seconds,
                                    r2(y_train, model.predict(X_train)),
                                    r2(y_test, model.predict(X_test)),
                                    model.get_n_leaves()))
                if progress is not None:
                    print(f"depth {depth:>4}, max_bins {max_bins or 'exact':>5}: "
                          f"{records[-1][3]:.3f} s, test R^2 {records[-1][5]:.4f}",
                          file=progress, flush=True)
    return pd.DataFrame(records, columns=["depth", "max_bins", "repeat", "seconds",
                                          "train_r2", "test_r2", "n_leaves"])


def run(full=False, repeats=3, seed=0, progress=None):
    return time_bins(repeats=repeats, seed=seed, progress=progress), {}
