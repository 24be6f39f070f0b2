"""The three split finders against an independent brute-force reference."""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from treelib import best_split
from treelib.splits import SPLIT_METHODS, TIE_RTOL, Split, midpoint, threshold_gains

METHODS = sorted(SPLIT_METHODS)


def exact_sse(values):
    """Sum of squared deviations from the mean in exact rational arithmetic."""
    values = [Fraction(float(v)) for v in values]
    mean = sum(values) / len(values)
    return sum((v - mean) ** 2 for v in values)


def brute_force_split(X, y, min_samples_leaf=1):
    """Try every threshold between two distinct values of every feature; no sorting
    tricks, no running sums.  Returns (feature, threshold, n_left, gain) or None."""
    X, y = np.asarray(X, float), np.asarray(y, float)
    parent = exact_sse(y)
    candidates = []
    for j in range(X.shape[1]):
        values = np.unique(X[:, j])
        for low, high in zip(values[:-1], values[1:]):
            threshold = low / 2 + high / 2
            if not low <= threshold < high:
                threshold = low
            left = X[:, j] <= threshold
            if min(left.sum(), (~left).sum()) < min_samples_leaf:
                continue
            gain = parent - exact_sse(y[left]) - exact_sse(y[~left])
            candidates.append((j, float(threshold), int(left.sum()), gain))
    # the tie rule of treelib.splits.pick_best, applied to exact gains
    if not candidates:
        return None
    best = max(c[3] for c in candidates)
    tied = [c for c in candidates if c[3] >= best - TIE_RTOL * parent]
    feature, threshold, n_left, gain = min(tied, key=lambda c: (c[0], c[1]))
    return feature, threshold, n_left, float(gain)


def assert_same_split(split, expected, y):
    if expected is None:
        assert split is None
        return
    assert split is not None
    feature, threshold, n_left, gain = expected
    assert (split.feature, split.threshold, split.n_left) == (feature, threshold, n_left)
    assert split.n_left + split.n_right == len(y)
    scale = float(exact_sse(y))
    assert split.gain == pytest.approx(gain, rel=1e-9, abs=1e-9 * scale)


# Feature values from a small pool make ties and duplicated rows common; a column can
# be made constant; targets may carry a large offset.
@st.composite
def node_data(draw):
    n = draw(st.integers(1, 30))
    f = draw(st.integers(1, 4))
    pool = draw(st.sampled_from(["small ints", "floats"]))
    if pool == "small ints":
        elements = st.integers(-3, 3).map(float)
    else:
        elements = st.floats(-1e3, 1e3, allow_nan=False, allow_subnormal=False)
    X = draw(hnp.arrays(np.float64, (n, f), elements=elements))
    for j in draw(st.sets(st.integers(0, f - 1), max_size=f)):
        X[:, j] = X[0, j]  # constant column
    if n > 1 and draw(st.booleans()):
        X[n // 2:] = X[: n - n // 2]  # duplicated rows (y may differ)
    kind = draw(st.sampled_from(["ints", "floats"]))
    if kind == "ints":
        y = draw(hnp.arrays(np.float64, n, elements=st.integers(-5, 5).map(float)))
    else:
        y = draw(hnp.arrays(np.float64, n, elements=st.floats(
            -100, 100, allow_nan=False, allow_subnormal=False)))
    y = y + draw(st.sampled_from([0.0, 1e6, 1e8, -1e8, 1e12]))
    min_samples_leaf = draw(st.integers(1, 4))
    return X, y, min_samples_leaf


@pytest.mark.parametrize("method", METHODS)
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=node_data())
def test_every_method_equals_brute_force(method, data):
    X, y, min_samples_leaf = data
    split = best_split(X, y, method, min_samples_leaf=min_samples_leaf)
    assert_same_split(split, brute_force_split(X, y, min_samples_leaf), y)


@settings(max_examples=200, deadline=None)
@given(data=node_data(), offset=st.sampled_from([1e6, 1e8, -1e10]))
def test_an_offset_in_y_does_not_change_the_split(data, offset):
    X, y, min_samples_leaf = data
    # integer targets stay exact after the shift, so the true best split is unchanged
    y = np.round(y - np.round(y.mean()))
    assume(np.abs(y).max() < 1e3)
    for method in METHODS:
        a = best_split(X, y, method, min_samples_leaf=min_samples_leaf)
        b = best_split(X, y + offset, method, min_samples_leaf=min_samples_leaf)
        if a is None:
            assert b is None
        else:
            assert (a.feature, a.threshold, a.n_left) == (b.feature, b.threshold, b.n_left)
            assert b.gain == pytest.approx(a.gain, rel=1e-9, abs=1e-9)


@pytest.mark.parametrize("method", METHODS)
def test_two_samples(method):
    split = best_split([[1.0], [3.0]], [10.0, 20.0], method)
    assert split == Split(feature=0, threshold=2.0, gain=50.0, n_left=1, n_right=1)


@pytest.mark.parametrize("method", METHODS)
def test_no_split_exists(method):
    assert best_split([[1.0, 2.0]], [5.0], method) is None  # one sample
    constant = np.ones((6, 3))
    assert best_split(constant, np.arange(6.0), method) is None  # constant features
    # a cut exists, but not one leaving 4 samples on each side of 6
    assert best_split(np.arange(6.0)[:, None], np.arange(6.0), method,
                      min_samples_leaf=4) is None


@pytest.mark.parametrize("method", METHODS)
def test_ties_go_to_the_lowest_feature_then_the_lowest_threshold(method):
    # features 1 and 2 are identical copies, and on each of them the cuts 0|1 and
    # 2|3 (symmetric targets) gain the same: feature 1, threshold 0.5 must win.
    x = np.array([0.0, 1.0, 2.0, 3.0])
    X = np.column_stack([np.zeros(4), x, x])
    y = np.array([0.0, 5.0, 5.0, 0.0]) + 1e8
    split = best_split(X, y, method)
    assert (split.feature, split.threshold, split.n_left) == (1, 0.5, 1)


@pytest.mark.parametrize("method", METHODS)
def test_constant_target_splits_at_zero_gain(method):
    split = best_split(np.arange(5.0)[:, None], np.full(5, 0.1), method)
    assert split.gain == 0.0 and split.threshold == 0.5


def test_goes_left_matches_the_counts():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 5, size=(50, 3)).astype(float)
    y = rng.normal(size=50)
    split = best_split(X, y)
    assert split.goes_left(X).sum() == split.n_left


def test_midpoint_of_adjacent_floats_stays_below_the_upper_value():
    low = 1.0
    high = np.nextafter(low, 2.0)
    t = float(midpoint(low, high))
    assert low <= t < high
    assert float(midpoint(1.0, 3.0)) == 2.0
    big = np.finfo(np.float64).max
    assert float(midpoint(big / 2, big)) == pytest.approx(0.75 * big)  # no overflow


def test_split_is_immutable():
    split = best_split([[0.0], [1.0]], [0.0, 1.0])
    with pytest.raises(AttributeError):
        split.threshold = 3.0


def test_threshold_gains_lists_every_cut_of_one_feature():
    x = np.array([3.0, 1.0, 2.0, 2.0, 5.0])
    y = np.array([1.0, 0.0, 0.0, 4.0, 3.0])
    thresholds, gains = threshold_gains(x, y)
    np.testing.assert_array_equal(thresholds, [1.5, 2.5, 4.0])
    expected = [float(exact_sse(y) - exact_sse(y[x <= t]) - exact_sse(y[x > t]))
                for t in thresholds]
    np.testing.assert_allclose(gains, expected, rtol=1e-12)
    best = best_split(x[:, None], y)
    assert best.threshold == thresholds[np.argmax(gains)]
