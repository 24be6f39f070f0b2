"""Appendix A3 ("Profiling and memory"): the memory claims, which count bytes and need no
clock. The profiles of the page are timings and are not tested."""

import tracemalloc

import numpy as np
import pytest
from sklearn.datasets import load_digits

from treelib.counters import GrowthCounter
from treelib.criteria import one_hot, target_statistics
from treelib.datasets import load_california_housing
from treelib.finders import Finder
from treelib.finders.exact import candidate_cuts, cumsum_gains
from treelib.growth import StoppingRules, grow


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
    X, y, order, valid = digits_root
    n, f = X.shape
    peaks = {}
    for k in [2, 4, 6, 8, 10]:
        for criterion in ["gini", "entropy"]:
            peak = peak_bytes(cumsum_gains, one_hot(y % k, k), order, valid, criterion)
            counts = 8 * f * n * k
            assert 4 * counts < peak < 7.5 * counts, (k, criterion)
            peaks[k, criterion] = peak
    for criterion in ["gini", "entropy"]:
        growth = [peaks[k, criterion] for k in [2, 4, 6, 8, 10]]
        assert np.all(np.diff(growth) > 0)
        # in proportion to k: the steps are equal to within 1% of the largest peak
        steps = np.diff(growth)
        assert np.ptp(steps) < 0.01 * growth[-1]


def test_a_level_wise_fit_holds_its_rows_and_a_chunk_of_temporaries():
    X, y = load_california_housing(return_X_y=True)
    X = X.astype(np.float32).astype(np.float64)
    counter = GrowthCounter()
    peak = peak_bytes(grow, "level_wise", X, target_statistics(y, "squared_error"),
                      Finder("cumsum", "squared_error"), StoppingRules(), counter)
    assert counter.peak_bytes == X.shape[1] * len(y) * (4 + 8)
    assert counter.peak_bytes < peak < 16 * counter.peak_bytes
