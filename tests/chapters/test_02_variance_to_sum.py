"""Chapter 2 ("The variance-to-sum identity"): its teaching scans against treelib, and the
claims its text makes.

``raw_sum_gains`` applies the identity to raw running sums: right when the target is near
zero, wrong (and choosing the wrong threshold) with a large offset.  ``welford_gains``
(exercise 4) is right for any offset, to the accuracy Welford's update has.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.tree import DecisionTreeRegressor as SklearnTreeRegressor

from tests.conftest import notebook_cells
from treelib import best_split
from treelib.criteria import target_statistics
from treelib.datasets import load_california_housing
from treelib.finders.exact import threshold_gains

NS = notebook_cells("02_variance_to_sum.ipynb")
welford_gains = NS["welford_gains"]
raw_sum_gains = NS["raw_sum_gains"]

EPS = np.finfo(np.float64).eps
OFFSETS = st.one_of(st.sampled_from([0.0, 1e2, 1e4, 1e6, 1e8, -1e8]),
                    st.floats(-1e8, 1e8, allow_nan=False))


def sse(values):
    return float(np.sum((values - values.mean()) ** 2))


def treelib_gains(x, y):
    return threshold_gains(x, target_statistics(y, "squared_error"))


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
    total = sse(y)
    if total == 0.0:
        return 0.0
    kappa = np.sqrt(1.0 + np.mean(y) ** 2 / (total / len(y)))
    return total * (1e-9 + 4 * len(y) * kappa * EPS)


@settings(max_examples=300, deadline=None)
@given(feature_and_target(), OFFSETS)
def test_welford_gains_match_treelib(data, offset):
    x, y = data
    target = y + offset
    thresholds, gains = welford_gains(x, target)
    expected_thresholds, expected_gains = treelib_gains(x, target)
    np.testing.assert_array_equal(thresholds, expected_thresholds)
    assert np.all(np.abs(gains - expected_gains) <= welford_tolerance(target))


@settings(max_examples=200, deadline=None)
@given(feature_and_target())
def test_raw_sums_are_exact_without_offset(data):
    x, y = data
    thresholds, gains = raw_sum_gains(x, y)
    expected_thresholds, expected_gains = treelib_gains(x, y)
    np.testing.assert_array_equal(thresholds, expected_thresholds)
    # integer targets, |y| <= 20, n <= 40: every raw sum is an exact integer and each of
    # the three terms is rounded once or twice, so the error is a few eps x sum(y^2)
    np.testing.assert_allclose(gains, expected_gains, rtol=0,
                               atol=8 * EPS * max(1.0, float(np.sum(y ** 2))))


def test_constant_target_has_zero_gains_even_with_offset():
    x = np.array([0.0, 1.0, 1.0, 2.0, 3.0])
    for offset in [0.0, 1e8]:
        _, gains = welford_gains(x, np.full(5, 2.5) + offset)
        assert np.array_equal(gains, np.zeros(3))


def test_two_samples():
    thresholds, gains = welford_gains(np.array([1.0, 0.0]), np.array([3.0, 1.0]) + 1e8)
    assert thresholds.tolist() == [0.5] and gains.tolist() == [2.0]
    thresholds, gains = welford_gains(np.array([1.0, 1.0]), np.array([3.0, 1.0]))
    assert thresholds.size == 0 and gains.size == 0


@pytest.fixture(scope="module")
def housing():
    data = load_california_housing()
    return data.data, data.target, data.feature_names


def test_raw_sums_choose_the_wrong_threshold_with_an_offset(housing):
    X, y, _ = housing
    x = X[:, 0]
    thresholds, gains = treelib_gains(x, y)
    best = int(np.argmax(gains))
    assert thresholds[best] == pytest.approx(5.03515)
    raw_thresholds, raw = raw_sum_gains(x, y)
    assert raw_thresholds[np.argmax(raw)] == thresholds[best]
    # y + 1e6: a neighbouring cut, 3.4e-5 of the best gain lower; y + 1e8: a third of it
    picks = {}
    for c in [1e4, 1e6, 1e8]:
        _, true = treelib_gains(x, y + c)
        _, approx = raw_sum_gains(x, y + c)
        picks[c] = int(np.argmax(approx))
        assert np.allclose(true, gains, rtol=0, atol=1e-9 * sse(y))   # a shift changes nothing
    assert picks[1e4] == best
    assert thresholds[picks[1e6]] == pytest.approx(5.0348)
    assert 1 - gains[picks[1e6]] / gains[best] == pytest.approx(3.4e-5, abs=5e-6)
    assert thresholds[picks[1e8]] == pytest.approx(2.12105)
    assert gains[picks[1e8]] / gains[best] == pytest.approx(0.35, abs=0.01)
    _, raw_big = raw_sum_gains(x, y + 1e8)
    assert np.unique(raw_big).tolist() == [-65536.0, -32768.0, 0.0, 32768.0, 65536.0]
    # exercise 3: a large scale is harmless, only the ratio mean / std matters
    _, raw_scaled = raw_sum_gains(x, 1e8 * y)
    assert np.argmax(raw_scaled) == best
    # exercise 4: Welford's update picks the right threshold at 1e8
    welford_thresholds, welford = welford_gains(x, y + 1e8)
    assert welford_thresholds[np.argmax(welford)] == thresholds[best]


def test_the_terms_of_the_gain_with_an_offset(housing):
    """Only S^2/n is about sum(y^2); each child's term is its share n_side/n of it."""
    X, y, _ = housing
    big = y + 1e8
    goes_left = best_split(X, y).goes_left(X)
    n, n_left = len(y), int(goes_left.sum())
    sum_sq = np.sum(big ** 2)
    assert big.sum() ** 2 / n / sum_sq == pytest.approx(1.0, abs=1e-9)
    assert big[goes_left].sum() ** 2 / n_left / sum_sq == pytest.approx(n_left / n, abs=1e-6)
    assert big[~goes_left].sum() ** 2 / (n - n_left) / sum_sq == pytest.approx(
        (n - n_left) / n, abs=1e-6)


def test_treelib_and_scikit_learn_with_an_offset(housing):
    X, y, names = housing
    plain, shifted = best_split(X, y), best_split(X, y + 1e8)
    assert (plain.feature, plain.threshold) == (shifted.feature, shifted.threshold)
    assert shifted.gain == pytest.approx(plain.gain, rel=1e-8)
    roots = {c: [SklearnTreeRegressor(max_depth=1, random_state=seed).fit(X, y + c).tree_
                 for seed in range(3)] for c in [0.0, 1e6, 1e8]}
    assert all(r.threshold[0] == pytest.approx(5.03515, abs=1e-5) for r in roots[0.0])
    assert all(r.threshold[0] == pytest.approx(5.0348, abs=1e-4) for r in roots[1e6])
    found = {"no split" if r.node_count == 1 else names[r.feature[0]] for r in roots[1e8]}
    assert len(found) > 1                                  # the seed decides at 1e8


def test_identity_for_k_outputs(housing):
    """Exercise 1: the gain of k outputs is the sum of each column's identity."""
    X, y, _ = housing
    Y2 = np.column_stack([y, np.log(y)])
    split = best_split(X, Y2, check_input=False)
    mask = split.goes_left(X)
    n = len(y)
    from_sums = sum(Y2[mask, j].sum() ** 2 / mask.sum() + Y2[~mask, j].sum() ** 2
                    / (~mask).sum() - Y2[:, j].sum() ** 2 / n for j in range(2))
    from_sse = sum(sse(Y2[:, j]) - sse(Y2[mask, j]) - sse(Y2[~mask, j]) for j in range(2))
    assert from_sums == pytest.approx(from_sse, rel=1e-9)
    assert split.gain == pytest.approx(from_sse, rel=1e-9)
