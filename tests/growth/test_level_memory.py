"""Level-wise growth on wide data holds memory in proportion to the data (issue 24).

The contenders of a level (``level_contenders``) lose their repeats without changing the
cut the tie rule picks; the search counts a fixed number of values at a time
(``level_wise.SEARCH_VALUES``); no float64 copy of float32 data is made to look for NaN
or to bin it; and a fit on 50 x 200,000 float32 values (38 MiB, issue 24's
``level_wise_wide`` case) peaks, as tracemalloc counts it, within a few times the data.
"""

import tracemalloc

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from treelib.estimators import DecisionTreeRegressor
from treelib.growth.level_contenders import Distinct, first_of_repeats
from treelib.growth.level_cuts import choose
from treelib.growth.level_wise import check_no_missing
from treelib.validation import check_array


def contenders(seed, n_nodes, n_entries, n_values):
    """Entries in the tie rule's order (feature, then node, then label) whose gains and
    bounds repeat: a few values each, signed zeros among them."""
    rng = np.random.default_rng(seed)
    feature = np.sort(rng.integers(0, 6, n_entries))
    node = rng.integers(0, n_nodes, n_entries)
    label = rng.integers(0, 5, n_entries)
    order = np.lexsort((label, node, feature))
    values = np.array([0.0, -0.0, 1.0, 1.0 + 2**-52, 2.0, 0.5, 3.0, 1e-300])[:n_values]
    gain = rng.choice(values, n_entries)
    bound = rng.choice(values[:3], n_entries) * 1e-3
    return node[order], feature[order], label[order], gain, bound


@given(st.integers(0, 2**32 - 1), st.integers(1, 4), st.integers(1, 60), st.integers(1, 8))
def test_the_tie_rule_picks_the_same_cut_without_the_repeats(seed, n_nodes, n_entries,
                                                              n_values):
    node, feature, label, gain, bound = contenders(seed, n_nodes, n_entries, n_values)
    keep = first_of_repeats(node, gain, bound)
    # brute force: the first entry of each (node, gain bits, bound bits)
    seen, expected = set(), []
    for i in range(len(node)):
        key = (node[i], gain[i].tobytes(), bound[i].tobytes())
        if key not in seen:
            seen.add(key)
            expected.append(i)
    np.testing.assert_array_equal(keep, expected)
    whole = choose(n_nodes, [(node, feature, label, gain, bound)])
    reduced = choose(n_nodes, [tuple(a[keep] for a in (node, feature, label, gain, bound))])
    for a, b in zip(whole, reduced):
        np.testing.assert_array_equal(a, b)


def test_distinct_contenders_drop_repeats_only():
    class Found:                        # a group's Candidates, as best_cuts reads them
        def contenders(self, running_max):
            return (np.array([0, 0, 1, 0]), np.array([0, 1, 1, 2]), np.array([3, 3, 3, 3]),
                    np.array([1.0, 1.0, 1.0, 2.0]), np.array([0.1, 0.1, 0.1, 0.1]))

    node, feature, *_ = Distinct(Found()).contenders(np.zeros(2))
    np.testing.assert_array_equal(node, [0, 1, 0])
    np.testing.assert_array_equal(feature, [0, 1, 2])


def test_nan_is_found_in_float32_without_a_float64_copy():
    data = np.zeros((50, 1000), dtype=np.float32)
    check_no_missing(data)
    data[7, 3] = np.nan
    tracemalloc.start()
    with pytest.raises(ValueError, match="missing values"):
        check_no_missing(data)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < data.nbytes / 4
    assert check_array(data[:1, :3] + 1, keep_float=True).dtype == np.float32
    with pytest.raises(ValueError, match="first at row 7, column 3"):
        check_array(data, keep_float=True)
    data[7, 3] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        check_array(data, keep_float=True)


def wide_data(n=50, f=200_000, seed=0):
    """Issue 24's wide case: standard normals, float32, the target a noisy sum."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, f), dtype=np.float32)
    return X, X[:, :10].sum(axis=1, dtype=np.float64) + rng.standard_normal(n)


# What must be held, per byte of float32 data (4 bytes a value), at the peak:
# - "cumsum": the rows sorted at the root, 4 bytes of sample id and 4 of value a value
#   (2), and one level's search (about 60 bytes per counted value, SEARCH_VALUES = 2**18
#   of them: 15 MiB, 0.4 of this data), plus has_missing's mask (0.25, before the sort),
#   per-level arrays and the kept contenders (small): 3.  (Before issue 24's helper: 6.7.)
# - "hist": the bin thresholds (49 float64 a feature of 50 distinct values, with an
#   array's header: about 2.6), the uint8 codes (0.25), the small nodes' rows sorted by
#   code (4 + 1 bytes a value: 1.25), a level's search: 5.5.  (Before: 10.1.)
@pytest.mark.slow
@pytest.mark.parametrize("splitter, times", [("cumsum", 3.0), ("hist", 5.5)])
def test_a_wide_level_wise_fit_peaks_within_a_few_times_the_data(splitter, times):
    X, y = wide_data()
    model = DecisionTreeRegressor(builder="level_wise", splitter=splitter, random_state=0)
    tracemalloc.start()
    model.fit(X, y)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak <= times * X.nbytes, peak / X.nbytes
