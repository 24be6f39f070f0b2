"""Chapter 7 ("Histogram splits"): the chapter's one-feature histogram search equals
treelib's, and the chapter's claims about bins, whole trees and the subtraction trick hold.

``bin_cut_gains`` and ``best_bin_cut`` are loaded from the notebook's cell tagged
"teaching": for one feature they count the samples and sum the centred targets of every bin
with ``np.bincount``, take cumulative sums over the bins and score every cut with the
variance-to-sum identity.  They must return what ``histogram_gains`` and
``best_histogram_split`` return for that feature alone: the same candidate cuts, the same
gains, and the same best cut under treelib's tie rule (the lowest bin among cuts after a
populated bin), whatever the empty bins, ties, constant features and offsets.
"""

from unittest import mock

import numpy as np
import pytest
from conftest import assert_same_tree, notebook_cells
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from treelib import DecisionTreeRegressor, bench, best_split, histogram
from treelib.binning import bin_features, bin_thresholds
from treelib.criteria import centered
from treelib.datasets import load_california_housing
from treelib.histogram import best_histogram_split, histogram_gains, node_histograms
from treelib.splits import threshold_gains

NOTEBOOK = "07_histogram_splits.ipynb"
teaching = notebook_cells(NOTEBOOK)
bin_cut_gains, best_bin_cut = teaching["bin_cut_gains"], teaching["best_bin_cut"]


def sse(y):
    d = np.asarray(y, dtype=np.float64)
    d = (d - d[0]) - (d - d[0]).mean()
    return float(np.sum(d * d))


@st.composite
def coded_feature(draw):
    """One feature of a node as bin codes, and its targets: 1 to 50 samples in 1 to 8 bins,
    of which only some are used (empty bins, and a constant feature when one is);
    small-integer targets (many ties) or floats, offset by 0, 1e6 or -1e8."""
    n = draw(st.integers(1, 50))
    n_bins = draw(st.integers(1, 8))
    used = draw(st.lists(st.integers(0, n_bins - 1), min_size=1, max_size=n_bins, unique=True))
    codes = draw(hnp.arrays(np.intp, n, elements=st.sampled_from(used)))
    values = st.integers(-3, 3).map(float) | st.floats(-10, 10, allow_subnormal=False)
    y = draw(hnp.arrays(np.float64, n, elements=values))
    return codes, y + draw(st.sampled_from([0.0, 1e6, -1e8])), n_bins


def library_gains(codes, y, n_bins):
    sums, counts = node_histograms(codes[:, None], centered(y)[:, None], n_bins)
    return histogram_gains(sums, counts)[:, 0]


@settings(max_examples=400, deadline=None)
@given(node=coded_feature())
def test_bin_cut_gains_equal_histogram_gains(node):
    codes, y, n_bins = node
    ours, expected = bin_cut_gains(codes, y, n_bins), library_gains(codes, y, n_bins)
    assert ours.shape == expected.shape == (n_bins - 1,)
    np.testing.assert_array_equal(np.isfinite(ours), np.isfinite(expected))
    finite = np.isfinite(expected)
    np.testing.assert_allclose(ours[finite], expected[finite], rtol=1e-9,
                               atol=1e-9 * sse(y) + 1e-12)


@settings(max_examples=400, deadline=None)
@given(node=coded_feature())
def test_best_bin_cut_is_best_histogram_split_of_that_feature(node):
    codes, y, n_bins = node
    ours = best_bin_cut(codes, y, n_bins)
    split = best_histogram_split(codes[:, None], y, n_bins)
    if split is None:
        assert ours is None
        return
    b, gain = ours
    assert (split.feature, split.threshold) == (0, float(b))
    assert split.n_left == int((codes <= b).sum())
    assert gain == pytest.approx(split.gain, rel=1e-9, abs=1e-9 * sse(y) + 1e-12)


@pytest.mark.parametrize("offset", [0.0, 1e8])
def test_ties_go_to_the_lowest_bin_after_a_populated_bin(offset):
    # y = 0 1 1 0 in bins 0 1 2 3, bin 4 empty: the cut after bin 0 and the cut after
    # bin 2 make mirrored children with the same gain; the lowest bin wins.  The cut
    # after the empty bin 4 would send everything left: not a candidate.
    codes = np.array([0, 1, 2, 3, 5])
    y = np.array([0.0, 1.0, 1.0, 0.0, 0.5]) + offset
    gains = bin_cut_gains(codes, y, 6)
    assert not np.isfinite(gains[4])
    b, _ = best_bin_cut(codes[:4], y[:4], 6)
    split = best_histogram_split(codes[:4, None], y[:4], 6)
    assert b == int(split.threshold) == 0
    ours = bin_cut_gains(codes[:4], y[:4], 6)
    assert ours[0] == pytest.approx(ours[2], rel=1e-12)
    assert np.isfinite(ours).tolist() == [True, True, True, False, False]


def test_a_constant_feature_and_a_single_bin_have_no_cut():
    y = np.array([1.0, 2.0, 4.0])
    assert best_bin_cut(np.full(3, 2), y, 5) is None
    assert best_histogram_split(np.full((3, 1), 2), y, 5) is None
    assert bin_cut_gains(np.zeros(3, dtype=np.intp), y, 1).shape == (0,)
    assert best_bin_cut(np.zeros(3, dtype=np.intp), y, 1) is None


# --- the chapter's claims on california_housing --------------------------------------


@pytest.fixture(scope="module")
def california():
    X, y = load_california_housing(return_X_y=True)
    return X.astype(np.float32).astype(np.float64), y


def test_the_255_bin_root_split_is_a_bin_threshold_below_the_exact_gain(california):
    X, y = california
    codes, cuts = bin_features(X, max_bins=255)
    hist = best_histogram_split(codes, y, max(len(c) for c in cuts) + 1)
    exact = best_split(X, y)
    assert hist.feature == exact.feature == 0                         # MedInc
    threshold = cuts[0][int(hist.threshold)]
    assert round(threshold, 4) == 5.0862 and round(exact.threshold, 4) == 5.0351
    assert exact.threshold not in cuts[0]
    assert hist.gain < exact.gain
    assert 1 - hist.gain / exact.gain < 1e-3
    # the exact threshold lies inside bin 200; the chosen cut is two bins further right
    assert int(np.searchsorted(cuts[0], exact.threshold)) == 200 == int(hist.threshold) - 2
    assert hist.n_left - exact.n_left == 178


@pytest.mark.parametrize("max_bins", [16, 255])
def test_histogram_cuts_are_exact_cuts_with_the_same_gain(california, max_bins):
    X, y = california
    x = X[:, 0]
    exact_t, exact_g = threshold_gains(x, y)
    cuts = bin_thresholds(x, max_bins)
    codes, _ = bin_features(x[:, None], thresholds=[cuts])
    gains = bin_cut_gains(codes[:, 0], y, len(cuts) + 1)
    position = np.searchsorted(exact_t, cuts)
    x_sorted = np.sort(x)
    np.testing.assert_array_equal(np.searchsorted(x_sorted, cuts, side="right"),
                                  np.searchsorted(x_sorted, exact_t[position], side="right"))
    np.testing.assert_allclose(gains, exact_g[position], rtol=1e-9)
    assert np.max(gains) < np.max(exact_g)


def test_house_age_gets_one_bin_per_value_and_the_exact_tree(california):
    X, y = california
    age = X[:, [1]]
    cuts = bin_thresholds(age[:, 0], max_bins=52)
    np.testing.assert_array_equal(cuts, threshold_gains(age[:, 0], y)[0])
    np.testing.assert_array_equal(cuts, bin_thresholds(age[:, 0], max_bins=255))
    exact = DecisionTreeRegressor().fit(age, y)
    hist = DecisionTreeRegressor(splitter="hist").fit(age, y)
    assert exact.get_n_leaves() == hist.get_n_leaves() == 52
    np.testing.assert_allclose(hist.predict(age), exact.predict(age), rtol=1e-12)


def test_sixteen_quantile_bins_hold_equally_many_block_groups(california):
    X, _ = california
    codes, _ = bin_features(X[:, [0]], max_bins=16)
    sizes = np.bincount(codes[:, 0])
    assert len(sizes) == 16 and sizes.min() >= 1288 and sizes.max() <= 1291


# --- the subtraction trick ------------------------------------------------------------


def test_subtraction_counts_fewer_pairs_for_the_same_tree():
    X_train, _, y_train, _ = bench.california_split()
    codes, cuts = bin_features(X_train, max_bins=255)
    n_bins = max(len(c) for c in cuts) + 1
    trees, pairs = {}, {}
    for subtract in (True, False):
        with mock.patch.object(histogram, "_histograms", wraps=histogram._histograms) as spy:
            trees[subtract] = histogram.build_histogram_level_wise(
                codes, y_train[:, None], n_bins=n_bins, max_depth=10, subtract=subtract)
        pairs[subtract] = sum(len(call.args[2]) * codes.shape[1]
                              for call in spy.call_args_list)
        assert spy.call_count == 10                                    # one per level
    assert pairs[True] < 0.6 * pairs[False]
    assert_same_tree(trees[True], trees[False])
