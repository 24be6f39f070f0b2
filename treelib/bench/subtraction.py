"""The histogram subtraction trick on and off: growth time and (sample, feature) pairs
counted into histograms, read from the grower's counter."""

import gc
import time

import numpy as np

from treelib.bench.growth import GROWTH_CASES, growth_data

#: Cases of the benchmark: a growth case of ``GROWTH_CASES`` and max_bins.
SUBTRACTION_CASES = {"california_full_depth": 255, "million_rows_depth_10": 255}


def time_subtraction(cases=tuple(SUBTRACTION_CASES), repeats=3, seed=0, progress=None):
    """The level-wise histogram grower with and without the subtraction trick.

    For every case (its data and depth limit), bin the features once (timed), then grow
    the tree on the codes with ``subtract`` True and False; a ``GrowthCounter`` counts
    the (sample, feature) pairs added into histograms and the histograms subtracted.
    Returns a DataFrame: case, subtract, repeat, seconds (growth only), binning_seconds,
    counted (pairs counted), subtracted (histograms obtained by subtraction), n_leaves.
    """
    import pandas as pd
    from threadpoolctl import threadpool_limits

    from treelib.counters import GrowthCounter
    from treelib.finders import Finder
    from treelib.growth import LevelOptions, StoppingRules, grow

    records = []
    with threadpool_limits(limits=1):
        for case in cases:
            X, y = growth_data(case, seed)
            X = X.astype(np.float32).astype(np.float64)
            rules = StoppingRules(max_depth=GROWTH_CASES[case]["max_depth"])
            for repeat in range(repeats):
                for subtract in (True, False):
                    finder = Finder("hist", "squared_error", max_bins=SUBTRACTION_CASES[case])
                    start = time.perf_counter()
                    codes = finder.prepare(X)
                    binning = time.perf_counter() - start
                    counter = GrowthCounter()
                    gc.collect()
                    start = time.perf_counter()
                    tree = grow("level_wise", codes, y[:, None], finder, rules, counter,
                                level=LevelOptions(subtract=subtract))
                    seconds = time.perf_counter() - start
                    records.append((case, subtract, repeat, seconds, binning,
                                    counter.histogram_pairs, counter.subtracted_histograms,
                                    tree.n_leaves))
                    if progress is not None:
                        print(f"{case:>24} subtract={subtract!s:5}: {seconds:7.3f} s, "
                              f"{counter.histogram_pairs:,} pairs counted", file=progress,
                              flush=True)
    return pd.DataFrame(records, columns=["case", "subtract", "repeat", "seconds",
                                          "binning_seconds", "counted", "subtracted",
                                          "n_leaves"])


def run(full=False, repeats=3, seed=0, progress=None):
    return time_subtraction(repeats=repeats, seed=seed, progress=progress), {}
