"""Binning each feature once, for the histogram split finders (``treelib.binning``):
codes against the thresholds they stand for, one bin per value against the exact
finders' midpoints, quantile bins against their expected sizes, and the thresholds
against scikit-learn's own bin mapper."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from treelib import best_split
from treelib.binning import bin_features, bin_thresholds, check_max_bins, thresholds_from_counts
from treelib.split import MISSING_BIN, midpoint


@settings(max_examples=200, deadline=None)
@given(X=hnp.arrays(np.float64, st.tuples(st.integers(1, 80), st.integers(1, 3)),
                    elements=st.integers(-5, 5).map(float)
                    | st.floats(-1e6, 1e6, allow_nan=False, allow_subnormal=False)),
       max_bins=st.integers(2, 40))
def test_codes_follow_the_thresholds(X, max_bins):
    codes, thresholds = bin_features(X, max_bins)
    for j, cuts in enumerate(thresholds):
        assert len(cuts) <= max_bins - 1 and np.all(np.diff(cuts) > 0)
        assert codes[:, j].max() <= len(cuts)
        for b, t in enumerate(cuts):                   # x <= t  <=>  code <= b
            np.testing.assert_array_equal(X[:, j] <= t, codes[:, j] <= b)


@settings(max_examples=100, deadline=None)
@given(x=hnp.arrays(np.float64, st.integers(1, 60), elements=st.integers(0, 9).map(float)))
def test_few_distinct_values_get_one_bin_each(x):
    values = np.unique(x)
    np.testing.assert_array_equal(bin_thresholds(x, max_bins=10),
                                  midpoint(values[:-1], values[1:]))


def test_one_bin_per_value_keeps_the_exact_split():
    # with one bin per distinct value, the best split on the codes is the exact split
    rng = np.random.default_rng(0)
    X = rng.integers(0, 30, size=(300, 3)).astype(float)
    y = np.sin(X[:, 0] / 5) + X[:, 1] / 10 + rng.normal(scale=0.1, size=300)
    codes, thresholds = bin_features(X, max_bins=255)
    exact, binned = best_split(X, y), best_split(codes, y)
    assert binned.feature == exact.feature and binned.n_left == exact.n_left
    assert thresholds[exact.feature][int(binned.threshold)] == exact.threshold
    # same children, same statistics summed in the same order: the same gain
    assert binned.gain == exact.gain


def test_many_values_get_quantile_bins_of_similar_size():
    x = np.random.default_rng(1).normal(size=10_000)
    codes, (cuts,) = bin_features(x[:, None], max_bins=16)
    assert len(cuts) == 15
    sizes = np.bincount(codes[:, 0])
    assert sizes.min() > 0.9 * len(x) / 16 and sizes.max() < 1.1 * len(x) / 16
    # new data is binned with the training thresholds
    new, _ = bin_features(np.array([[-10.0], [10.0]]), thresholds=[cuts])
    assert new[:, 0].tolist() == [0, 15]


@pytest.mark.parametrize("max_bins", [1, 256, 257, 2.0, True, "16"])
def test_bad_max_bins(max_bins):
    with pytest.raises(ValueError, match="max_bins must be an integer from 2 to 255"):
        check_max_bins(max_bins)


def test_codes_fit_in_one_byte_beside_the_missing_bin():
    x = np.append(np.arange(1000.0), np.nan)
    codes, (cuts,) = bin_features(x[:, None], max_bins=255)
    # 255 real bins, codes 0 .. 254; the missing value alone gets MISSING_BIN (255)
    assert codes.dtype == np.uint8 and len(cuts) == 254
    assert codes[:-1, 0].max() == 254 and codes[-1, 0] == MISSING_BIN == 255
    assert check_max_bins(np.int64(2)) == 2 and check_max_bins(255) == 255


def test_thresholds_are_scikit_learns():
    # scikit-learn 1.9's HistGradientBoosting bins with the same rule
    from sklearn.ensemble._hist_gradient_boosting.binning import _BinMapper

    rng = np.random.default_rng(2)
    X = np.column_stack([rng.normal(size=2000), rng.integers(0, 7, size=2000),
                         np.round(rng.exponential(size=2000), 2)])
    for max_bins in [8, 64, 255]:
        _, thresholds = bin_features(X, max_bins)
        mapper = _BinMapper(n_bins=max_bins + 1, subsample=None).fit(X)
        for ours, theirs in zip(thresholds, mapper.bin_thresholds_, strict=True):
            np.testing.assert_array_equal(ours, theirs)          # thresholds: exact


def test_bad_arguments():
    with pytest.raises(ValueError, match="max_bins must be an integer from 2 to 255"):
        bin_thresholds(np.arange(5.0), max_bins=1)
    with pytest.raises(ValueError, match="2 features but 1 lists"):
        bin_features(np.ones((3, 2)), thresholds=[np.array([0.5])])
    with pytest.raises(ValueError, match="contains infinity"):
        bin_features(np.array([[np.inf]]))


@settings(max_examples=100, deadline=None)
@given(X=hnp.arrays(np.float64, st.tuples(st.integers(1, 50), st.integers(1, 3)),
                    elements=st.integers(-4, 4).map(float) | st.just(np.nan)),
       max_bins=st.integers(2, 12))
def test_missing_values_get_the_missing_bin_and_do_not_move_the_thresholds(X, max_bins):
    codes, thresholds = bin_features(X, max_bins)
    for j, cuts in enumerate(thresholds):
        present = ~np.isnan(X[:, j])
        # the thresholds of the present values alone (none when every value is missing)
        np.testing.assert_array_equal(cuts, bin_thresholds(X[present, j], max_bins)
                                      if present.any() else np.zeros(0))
        np.testing.assert_array_equal(codes[~present, j], MISSING_BIN)
        assert np.all(codes[present, j] <= len(cuts))
        # a cut after any real bin sends the missing values right
        for b, t in enumerate(cuts):
            np.testing.assert_array_equal(X[present, j] <= t, codes[present, j] <= b)


@settings(max_examples=300, deadline=None)
@given(x=hnp.arrays(np.float64, st.integers(1, 400),
                    elements=st.one_of(st.integers(-5, 5).map(float),
                                       st.floats(-1e6, 1e6, allow_nan=False))),
       max_bins=st.integers(2, 40))
def test_thresholds_from_counts_are_numpys_percentiles_bit_for_bit(x, max_bins):
    values, counts = np.unique(x, return_counts=True)
    ours = thresholds_from_counts(values, counts, max_bins)
    if len(values) <= max_bins:
        expected = midpoint(values[:-1], values[1:])
    else:
        percentiles = np.linspace(0.0, 100.0, max_bins + 1)[1:-1]
        expected = np.unique(np.percentile(x, percentiles, method="averaged_inverted_cdf"))
    np.testing.assert_array_equal(ours, expected)


@settings(max_examples=100, deadline=None)
@given(x=hnp.arrays(np.float64, st.integers(2, 300), elements=st.integers(-30, 30).map(float)),
       parts=st.integers(1, 5), max_bins=st.integers(2, 20))
def test_counts_added_up_over_parts_give_the_whole_columns_thresholds(x, parts, max_bins):
    summaries = [np.unique(part, return_counts=True) for part in np.array_split(x, parts)]
    values = np.unique(np.concatenate([v for v, _ in summaries]))
    counts = np.zeros(len(values), dtype=np.intp)
    for v, c in summaries:
        counts[np.searchsorted(values, v)] += c
    np.testing.assert_array_equal(thresholds_from_counts(values, counts, max_bins),
                                  bin_thresholds(x, max_bins))


SPECIAL = [0.0, -0.0, 1.0, -1.0, 5e-324, -5e-324, 2.0**60, -(2.0**60), np.nan, 3.5]


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 70), f=st.integers(1, 12),
       spread=st.integers(1, 400), max_bins=st.integers(2, 255),
       dtype=st.sampled_from([np.float64, np.float32]), nan=st.booleans())
def test_features_cut_together_match_them_cut_one_by_one(seed, n, f, spread, max_bins, dtype,
                                                         nan):
    """``few_values_bins`` (features of few values, a group at a time) gives the codes and
    the thresholds, bit for bit, of ``bin_thresholds`` and ``np.searchsorted`` one feature
    at a time: ties, signed zeros, subnormals, NaN, float32, more values than bins."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, spread, size=(n, f)).astype(np.float64) / 7
    special = rng.random((n, f)) < 0.3
    X[special] = rng.choice(SPECIAL[:-2] + SPECIAL[-1:] if not nan else SPECIAL,
                            special.sum())
    X = X.astype(dtype)
    codes, thresholds = bin_features(X, max_bins)
    for j in range(f):
        expected = bin_thresholds(X[:, j], max_bins)
        assert thresholds[j].dtype == expected.dtype
        np.testing.assert_array_equal(thresholds[j].view(np.int64), expected.view(np.int64))
        want = np.searchsorted(expected, X[:, j], side="left").astype(np.uint8)
        want[np.isnan(X[:, j])] = MISSING_BIN
        np.testing.assert_array_equal(codes[:, j], want)
