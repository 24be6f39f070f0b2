"""Appendix A3 ("Profiling and memory"): the memory claims, which count bytes and need no
clock, and the goal ratios read from the committed benchmarks/growth.csv. The profiles of
the page are timings and are not tested."""

import tracemalloc

import numpy as np
import pytest
from sklearn.datasets import load_digits

from tests.conftest import claim
from treelib.bench import load_results
from treelib.bench.growth import goal_ratios
from treelib.counters import GrowthCounter
from treelib.criteria import one_hot, target_statistics
from treelib.datasets import load_california_housing
from treelib.finders import Finder
from treelib.finders.exact import candidate_cuts, cumsum_gains, feature_groups
from treelib.growth import StoppingRules, grow
from treelib.growth.level_classes import class_blocks
from treelib.growth.threads import CHUNK_VALUES

NOTEBOOK = "A3_profiling_and_memory.ipynb"


def peak_bytes(function, *args):
    tracemalloc.start()
    try:
        function(*args)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.fixture(scope="module")
def digits_root():
    X, y = load_digits(return_X_y=True)
    X = X.astype(np.float32).astype(np.float64)
    order, _, valid = candidate_cuts(X)
    return X, y, order, valid


def test_the_scan_holds_a_few_times_the_counts_growing_with_the_classes(digits_root):
    claim(NOTEBOOK, "The peak grows linearly with $k$, by nearly equal steps, and stays three "
                    "to six times the counts themselves")
    X, y, order, valid = digits_root
    n, f = X.shape
    peaks = {}
    for k in [2, 4, 6, 8, 10]:
        for criterion in ["gini", "entropy"]:
            peak = peak_bytes(cumsum_gains, one_hot(y % k, k), order, valid, criterion)
            counts = 8 * f * n * k
            assert 3 * counts < peak < 6.5 * counts, (k, criterion)
            peaks[k, criterion] = peak
    for criterion in ["gini", "entropy"]:
        growth = [peaks[k, criterion] for k in [2, 4, 6, 8, 10]]
        assert np.all(np.diff(growth) > 0)
        # linearly in k: the steps are equal to within 1% of the largest peak
        steps = np.diff(growth)
        assert np.ptp(steps) < 0.01 * growth[-1]


def test_a_level_wise_fit_holds_its_rows_and_a_chunk_of_temporaries():
    X, y = load_california_housing(return_X_y=True)
    X = X.astype(np.float32).astype(np.float64)
    counter = GrowthCounter()
    peak = peak_bytes(grow, "level_wise", X, target_statistics(y, "squared_error"),
                      Finder("cumsum", "squared_error"), StoppingRules(), counter)
    assert counter.peak_bytes == X.shape[1] * len(y) * (4 + 8)
    claim(NOTEBOOK, "The rows are a small part of the peak")
    assert 5 * counter.peak_bytes < peak < 16 * counter.peak_bytes


def test_no_grower_holds_the_counts_of_a_large_node_at_once():
    """The page's node of a million samples, 100 features and 10 classes: the per-node
    search takes its features a group at a time (here one), the level-wise classifier its
    positions a range at a time, each within the growers' budget of values."""
    claim(NOTEBOOK, "the per-node search scores a node's features a group at a time (one "
                    "feature at least), and the level-wise growers score a level by chunks of "
                    "features or, with many classes, by ranges of positions of one feature.")
    n, f, k = 10**6, 100, 10
    groups = feature_groups(f, n * k)
    assert [len(g) for g in groups] == [1] * f
    assert len(feature_groups(f, 1000 * k)) < f                 # small nodes: groups of several
    blocks = class_blocks(f, n, k)
    assert all(len(features) == 1 and (end - begin) * k <= CHUNK_VALUES
               for features, begin, end in blocks)
    assert sum(end - begin for _, begin, end in blocks) == f * n     # every position once


def test_the_goal_ratios_of_the_committed_growth_benchmark():
    goals = goal_ratios(load_results("growth")[0])
    claim(NOTEBOOK, "Eight of the ten ratios meet their targets in this run, and four of the "
                    "six goals in full (goal 4 counts one ratio per builder).")
    number = goals.index.str.split(" ").str[0]
    assert len(goals) == 10 and goals.met.sum() == 8
    assert number.nunique() == 6
    assert sum(goals.met[number == g].all() for g in number.unique()) == 4
    claim(NOTEBOOK, "The histogram builder's time goal is met at parity (0.99, within the "
                    "noise of one run)")
    ratio = goals.ratio.round(2)
    assert ratio["2a california: hist level-wise / exact level-wise time"] == 0.99
    claim(NOTEBOOK, "Two goals are not met, both on small data grown to full depth: the exact "
                    "level-wise builder on california (1.13 against 0.5) and the level-wise "
                    "classifier on digits (2.29 against 1.0).")
    assert set(goals.index[~goals.met.astype(bool)]) == {
        "1a digits: level-wise / scikit-learn time",
        "3 california: exact level-wise / scikit-learn time"}
    assert ratio["3 california: exact level-wise / scikit-learn time"] == 1.13
    assert ratio["1a digits: level-wise / scikit-learn time"] == 2.29
