"""Split-selection bias under the null, with many seeds, and the unbiased rule's cost.

Three measurements, each a set of rows of one DataFrame (column ``part``):

- ``"numeric"``: null features with 2, 10, 100 and 1,000 distinct values and a standard
  normal target independent of them (n = 1,000): how often exhaustive search and the
  unbiased rule (``treelib.finders.unbiased_split``) pick each at the root
  (``selection_frequencies``), in ``blocks`` blocks of ``seeds_per_block`` data sets, each
  block with its own seed, so the spread between blocks shows the simulation's noise;
- ``"categorical"``: a null categorical feature with 2 .. 1,000 levels against a null
  continuous feature: how often the categorical wins, searched by the partition splitter,
  by LightGBM's ``cat_smooth`` filter and order, and as CatBoost's ordered target
  statistics (``treelib.finders.categorical_bias``), same blocks;
- ``"timing"``: the california root (15,480 training rows), exhaustive search
  (``exact_split``) against ``unbiased_split``, ``repeats`` times each, wall-clock and CPU
  seconds.

Frequencies are exact functions of the seeds (no timing): the committed file can be
checked against a fresh run of any block.
"""

import numpy as np

from treelib.bench.timers import timed

#: The cardinalities of the numeric null features and the levels of the categorical one.
CARDINALITIES = (2, 10, 100, 1000)


def frequency_rows(block, seed, n_seeds):
    """The rows of one block of ``n_seeds`` null data sets: part, rule, n_values, block,
    seed, n_seeds, frequency."""
    from treelib.finders.categorical_bias import categorical_selection_frequencies
    from treelib.finders.unbiased import selection_frequencies

    rows = []
    numeric = selection_frequencies(CARDINALITIES, n_seeds=n_seeds, seed=seed)
    categorical = categorical_selection_frequencies(CARDINALITIES, n_seeds=n_seeds,
                                                    seed=seed)
    for part, result in (("numeric", numeric), ("categorical", categorical)):
        for rule, frequencies in result.items():
            rows += [(part, rule, k, block, seed, n_seeds, float(f), np.nan, np.nan, -1)
                     for k, f in zip(CARDINALITIES, frequencies)]
    return rows


def timing_rows(repeats):
    """The california root searched by both rules, ``repeats`` times each (after one
    warm-up): part "timing", rule, seconds, cpu_seconds, repeat."""
    from treelib.bench.fitting import california_split
    from treelib.criteria import target_statistics
    from treelib.finders.exact import exact_split
    from treelib.finders.unbiased import unbiased_split

    X, _, y, _ = california_split()
    Y = target_statistics(y, "squared_error")
    searches = {"exhaustive": lambda: exact_split(X, Y),
                "unbiased": lambda: unbiased_split(X, y)}
    rows = []
    for rule, search in searches.items():
        search()
        for repeat in range(repeats):
            _, seconds, cpu = timed(search)
            rows.append(("timing", rule, X.shape[0], -1, -1, -1, np.nan, seconds, cpu,
                         repeat))
    return rows


def run(full=False, repeats=5, seed=0, progress=None, blocks=None, seeds_per_block=500):
    """``blocks`` blocks (default 10; ``full``: 40) of ``seeds_per_block`` null data sets
    for each simulation, then the timing.  About a minute (``full``: four)."""
    import pandas as pd
    from threadpoolctl import threadpool_limits

    blocks = blocks if blocks is not None else (40 if full else 10)
    rows = []
    with threadpool_limits(limits=1):
        for block in range(blocks):
            rows += frequency_rows(block, seed + block, seeds_per_block)
            if progress is not None:
                print(f"block {block + 1}/{blocks}", file=progress, flush=True)
        rows += timing_rows(repeats)
    columns = ["part", "rule", "n_values", "block", "seed", "n_seeds", "frequency",
               "seconds", "cpu_seconds", "repeat"]
    return pd.DataFrame(rows, columns=columns), {
        "data": "null features, n = 1,000 (frequencies); california's root (timing)",
        "criterion": "squared_error", "seeds_per_block": seeds_per_block}


def selection_table(fits):
    """Mean frequency over the blocks: one row per (part, rule), one column per number
    of distinct values (or levels)."""
    frequencies = fits[fits["part"] != "timing"]
    return frequencies.pivot_table(index=["part", "rule"], columns="n_values",
                                   values="frequency", aggfunc="mean")


def time_ratio(fits):
    """Median unbiased CPU time over median exhaustive CPU time at the california root
    (CPU seconds, as the other benchmarks' ratios: a shared machine moves wall-clock
    seconds more)."""
    timing = fits[fits["part"] == "timing"].groupby("rule")["cpu_seconds"].median()
    return float(timing["unbiased"] / timing["exhaustive"])
