"""The teaching versions of chapter 2 ("The variance-to-sum identity") against treelib.

``welford_gains`` claims the gain of every cut of one feature, as
``treelib.splits.threshold_gains`` computes it, for any offset of the target;
``raw_sum_gains`` claims the same only when the target is close to zero.
"""

import numpy as np
import pytest
from conftest import notebook_cells
from hypothesis import given, settings
from hypothesis import strategies as st

from treelib import best_split
from treelib.criteria import sum_squared_error
from treelib.datasets import load_california_housing
from treelib.splits import threshold_gains

NS = notebook_cells("02_variance_to_sum.ipynb")
welford_gains = NS["welford_gains"]
raw_sum_gains = NS["raw_sum_gains"]

EPS = np.finfo(np.float64).eps
OFFSETS = st.one_of(st.sampled_from([0.0, 1e2, 1e4, 1e6, 1e8, -1e8]),
                    st.floats(-1e8, 1e8, allow_nan=False))


@st.composite
def feature_and_target(draw, max_size=40):
    """One feature with ties (few distinct values) and small integer targets, possibly
    constant, with n >= 2."""
    n = draw(st.integers(2, max_size))
    n_values = draw(st.integers(1, n))
    x = draw(st.lists(st.integers(0, n_values - 1), min_size=n, max_size=n))
    if draw(st.booleans()):
        y = [draw(st.integers(-20, 20))] * n                  # constant target
    else:
        y = draw(st.lists(st.integers(-20, 20), min_size=n, max_size=n))
    return np.array(x, dtype=float), np.array(y, dtype=float)


def welford_tolerance(y):
    """Absolute tolerance on a gain: Welford's update has a relative error (with respect
    to the squared error) of order n * condition number * eps, where the condition number
    is sqrt(1 + mean**2 / variance) (Chan, Golub and LeVeque, 1983)."""
    sse = sum_squared_error(y)
    if sse == 0.0:
        return 0.0
    kappa = np.sqrt(1.0 + np.mean(y) ** 2 / (sse / len(y)))
    return sse * (1e-9 + 4 * len(y) * kappa * EPS)


@settings(max_examples=300, deadline=None)
@given(feature_and_target(), OFFSETS)
def test_welford_gains_match_treelib(data, offset):
    x, y = data
    target = y + offset
    thresholds, gains = welford_gains(x, target)
    expected_thresholds, expected_gains = threshold_gains(x, target)
    np.testing.assert_array_equal(thresholds, expected_thresholds)
    assert np.all(np.abs(gains - expected_gains) <= welford_tolerance(target))


@settings(max_examples=200, deadline=None)
@given(feature_and_target())
def test_welford_best_cut_is_best_split(data):
    """With no offset, Welford's best gain is best_split's gain on the single feature,
    and best_split's threshold is one of the cuts that reach it."""
    x, y = data
    thresholds, gains = welford_gains(x, y)
    split = best_split(x[:, None], y)
    if split is None:                                   # x constant: no cut at all
        assert len(thresholds) == 0
        return
    tolerance = 1e-9 * sum_squared_error(y)
    assert abs(gains.max() - split.gain) <= tolerance
    tied = thresholds[gains >= gains.max() - tolerance]
    assert split.threshold == tied.min()                # treelib's tie rule


@settings(max_examples=200, deadline=None)
@given(feature_and_target())
def test_raw_sums_are_exact_without_offset(data):
    x, y = data
    thresholds, gains = raw_sum_gains(x, y)
    expected_thresholds, expected_gains = threshold_gains(x, y)
    np.testing.assert_array_equal(thresholds, expected_thresholds)
    np.testing.assert_allclose(gains, expected_gains, rtol=0,
                               atol=1e-9 * sum_squared_error(y))


def test_constant_target_has_zero_gains_even_with_offset():
    x = np.array([0.0, 1.0, 1.0, 2.0, 3.0])
    for offset in [0.0, 1e8]:
        y = np.full(5, 2.5) + offset
        _, gains = welford_gains(x, y)
        assert np.array_equal(gains, np.zeros(3))


def test_two_samples():
    thresholds, gains = welford_gains(np.array([1.0, 0.0]), np.array([3.0, 1.0]) + 1e8)
    assert thresholds.tolist() == [0.5] and gains.tolist() == [2.0]
    thresholds, gains = welford_gains(np.array([1.0, 1.0]), np.array([3.0, 1.0]))
    assert thresholds.size == 0 and gains.size == 0


@pytest.fixture(scope="module")
def medinc():
    X, y = load_california_housing(return_X_y=True)
    return X[:, 0], y


def test_chapter_claims_on_california_housing(medinc):
    """The chapter's conclusions: with y + 1e8 the raw sums pick the wrong MedInc
    threshold, Welford's update and treelib pick the right one (5.03515)."""
    x, y = medinc
    thresholds, gains = threshold_gains(x, y)
    right = thresholds[np.argmax(gains)]
    assert right == pytest.approx(5.03515)
    raw_thresholds, raw = raw_sum_gains(x, y)
    assert raw_thresholds[np.argmax(raw)] == right
    raw_thresholds, raw = raw_sum_gains(x, y + 1e8)
    assert raw_thresholds[np.argmax(raw)] != right
    welford_thresholds, welford = welford_gains(x, y + 1e8)
    assert welford_thresholds[np.argmax(welford)] == right
