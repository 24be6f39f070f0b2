"""A split and its threshold (``treelib.split``): ``Split.goes_left`` against the test
it stands for, ``midpoint`` against its definition, and ``best_cut`` against the tie rule
written once in ``tests.reference.tie_rule``; the regression test of the tie rule that
was relative to the node's impurity."""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import treelib
from tests.reference import brute_force_split, identity_bound, naive_bound, tie_rule
from treelib.split import MISSING_BIN, Split, best_cut, midpoint

# --- goes_left ---------------------------------------------------------------------------


@settings(max_examples=50, deadline=None)
@given(X=hnp.arrays(np.float64, (20, 3), elements=st.integers(-3, 3).map(float)),
       feature=st.integers(0, 2), threshold=st.sampled_from([-3.0, -0.5, 0.0, 1.0, 2.5]))
def test_goes_left_tests_the_feature_against_the_threshold(X, feature, threshold):
    split = Split(feature=feature, threshold=threshold, gain=0.0, n_left=0, n_right=0)
    expected = [row[feature] <= threshold for row in X]
    assert split.goes_left(X).tolist() == expected


def test_goes_left_of_a_histogram_split_tests_the_bin_codes():
    codes = np.array([[0, 4], [1, 3], [2, 2], [3, 1], [4, 0]], dtype=np.uint8)
    # the threshold is on X (here 7.25); on the codes the test is code <= bin
    split = Split(feature=1, threshold=7.25, gain=1.0, n_left=3, n_right=2, bin=2)
    assert split.goes_left(codes).tolist() == [False, False, True, True, True]
    assert split.goes_left(codes).sum() == split.n_left
    no_bin = Split(feature=1, threshold=2.0, gain=1.0, n_left=3, n_right=2)
    assert no_bin.goes_left(codes.astype(float)).tolist() == [False, False, True, True, True]


@pytest.mark.parametrize("missing_go_to_left", [False, True])
def test_a_missing_value_goes_where_the_split_says(missing_go_to_left):
    X = np.array([[0.0], [np.nan], [2.0], [np.inf]])
    split = Split(feature=0, threshold=1.0, gain=1.0, n_left=1, n_right=3,
                  missing_go_to_left=missing_go_to_left)
    assert split.goes_left(X).tolist() == [True, missing_go_to_left, False, False]
    # +inf as a threshold: every present value left, only the missing ones right
    only_missing = Split(feature=0, threshold=np.inf, gain=1.0, n_left=3, n_right=1)
    assert only_missing.goes_left(X).tolist() == [True, False, True, True]
    codes = np.array([[0], [MISSING_BIN], [2], [254]], dtype=np.uint8)
    binned = Split(feature=0, threshold=1.5, gain=1.0, n_left=1, n_right=3, bin=1,
                   missing_go_to_left=missing_go_to_left)
    assert binned.goes_left(codes).tolist() == [True, missing_go_to_left, False, False]
    # the last real bin (254) left: only the missing bin (255) right
    last = Split(feature=0, threshold=np.inf, gain=1.0, n_left=3, n_right=1, bin=254)
    assert last.goes_left(codes).tolist() == [True, False, True, True]


def test_goes_left_matches_the_counts_of_a_found_split():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 5, size=(50, 3)).astype(float)
    split = treelib.best_split(X, rng.normal(size=50))
    assert split.goes_left(X).sum() == split.n_left
    assert split.n_left + split.n_right == 50


def test_split_is_immutable():
    split = treelib.best_split([[0.0], [1.0]], [0.0, 1.0])
    with pytest.raises(AttributeError):
        split.threshold = 3.0


# --- midpoint ------------------------------------------------------------------------------


def test_midpoint_of_adjacent_floats_is_the_lower_value():
    for low in [1.0, -1.0, 0.0, 1e300, 5e-324]:
        high = np.nextafter(low, np.inf)
        t = float(midpoint(low, high))
        assert low <= t < high and t == low          # thresholds: exact


def test_midpoint_of_spaced_values():
    assert float(midpoint(1.0, 3.0)) == 2.0
    assert float(midpoint(-2.0, 2.0)) == 0.0
    assert midpoint(np.array([0.0, 1.0]), np.array([1.0, 4.0])).tolist() == [0.5, 2.5]


def test_midpoint_does_not_overflow():
    big = np.finfo(np.float64).max
    with np.errstate(over="raise"):
        assert float(midpoint(big / 2, big)) == 0.75 * big      # exact: powers of two
        assert float(midpoint(-big, big)) == 0.0
        assert float(midpoint(np.nextafter(big, 0), big)) == np.nextafter(big, 0)


@settings(max_examples=200, deadline=None)
@given(a=st.floats(allow_nan=False, allow_infinity=False),
       b=st.floats(allow_nan=False, allow_infinity=False))
def test_midpoint_lies_in_the_gap(a, b):
    low, high = min(a, b), max(a, b)
    if low == high:
        return
    t = float(midpoint(low, high))
    assert low <= t < high
    # it is the correctly rounded middle unless that would round up to high
    exact = (Fraction(low) + Fraction(high)) / 2
    assert t == low or abs(Fraction(t) - exact) <= abs(Fraction(np.nextafter(t, high)) - exact)


# --- best_cut: the tie rule ---------------------------------------------------------------


def test_best_cut_of_no_candidate_is_none():
    assert best_cut(np.full((3, 2), -np.inf), np.zeros((3, 2))) is None
    assert best_cut(np.empty((0, 2)), np.empty((0, 2))) is None


def test_exact_ties_go_to_the_lowest_feature_then_the_lowest_cut():
    gains = np.array([[1.0, 5.0, 5.0],
                      [5.0, 2.0, 5.0],
                      [5.0, 5.0, -np.inf]])     # (cuts, features)
    assert best_cut(gains, np.zeros_like(gains)) == (1, 0)
    gains[1, 0] = 4.0
    assert best_cut(gains, np.zeros_like(gains)) == (2, 0)


def test_a_cut_within_the_rounding_bounds_is_tied():
    # feature 0's cut is lower by 3, and the two bounds add up to 3: tied, and feature 0
    # wins; one unit less of bound and feature 1's better cut wins
    gains = np.array([[10.0, 13.0]])
    assert best_cut(gains, np.array([[1.0, 2.0]])) == (0, 0)
    assert best_cut(gains, np.array([[1.0, 1.0]])) == (0, 1)
    # the bounds of other cuts do not matter
    gains = np.array([[10.0, 13.0], [-5.0, 0.0]])
    assert best_cut(gains, np.array([[1.0, 1.0], [100.0, 0.0]])) == (1, 0)


def test_a_strictly_better_cut_beyond_the_bounds_wins_whatever_its_size():
    # a gain that exceeds another by more than their bounds is never tied with it,
    # however large the gains (no tolerance relative to the node's impurity)
    for scale in [1.0, 1e12, 1e300]:
        gains = np.array([[scale, scale + scale * 1e-9]])
        bounds = np.full_like(gains, scale * 1e-10)
        assert best_cut(gains, bounds) == (0, 1)


@st.composite
def gain_tables(draw):
    """Small-integer gains and bounds, so that the float arithmetic of ``best_cut`` is
    exact and it must agree with the reference in every case, borderline ones included."""
    cuts, features = draw(st.integers(1, 5)), draw(st.integers(1, 4))
    gains = draw(hnp.arrays(np.float64, (cuts, features),
                            elements=st.integers(-6, 6).map(float) | st.just(-np.inf)))
    bounds = draw(hnp.arrays(np.float64, (cuts, features), elements=st.integers(0, 3)
                             .map(float)))
    return gains, np.where(np.isfinite(gains), bounds, 0.0)


@settings(max_examples=300, deadline=None)
@given(table=gain_tables())
def test_best_cut_is_the_reference_tie_rule(table):
    gains, bounds = table
    candidates = [((cut, feature), Fraction(gains[cut, feature]), bounds[cut, feature])
                  for feature in range(gains.shape[1]) for cut in range(gains.shape[0])
                  if np.isfinite(gains[cut, feature])]
    chosen = tie_rule(candidates)
    expected = None if chosen is None else candidates[chosen][0]
    assert best_cut(gains, bounds) == expected


# --- regression: the tolerance relative to the node's squared error --------------------

# Feature 1 at 1.5 separates the targets 0 and 10 perfectly (gain 200); feature 0's best
# cut gains 66.7.  The +-noise pairs give the node a squared error of 8e12 (noise 1e6),
# and the old tie rule, with a tolerance of 1e-10 times that, tied the two cuts and gave
# the split to feature 0.
REGRESSION_X = np.c_[np.repeat([0, 1, 2, 3.], 2), np.repeat([0, 2, 1, 3.], 2)]


def regression_y(noise):
    return np.repeat([0, 10, 0, 10.], 2) + np.tile([noise, -noise], 4)


@pytest.mark.parametrize("splitter, noise", [
    ("naive", 1e6), ("scan", 1e6), ("cumsum", 1e6), ("scan", 1e8), ("cumsum", 1e8)])
def test_a_much_better_cut_is_not_tied_with_a_worse_one_by_the_nodes_impurity(splitter,
                                                                              noise):
    y = regression_y(noise)
    split = treelib.best_split(REGRESSION_X, y, splitter)
    assert (split.feature, split.threshold, split.n_left) == (1, 1.5, 4)
    bound = naive_bound if splitter == "naive" else identity_bound
    feature, threshold, n_left, gain = brute_force_split(REGRESSION_X, y, bound=bound)
    assert (feature, threshold, n_left, gain) == (1, 1.5, 4, 200)
    # the gain is 200 up to the rounding bound of the finder's computation
    assert abs(Fraction(split.gain) - gain) <= Fraction(
        bound(y, split.goes_left(REGRESSION_X), "squared_error"))


def test_the_naive_finders_rounding_covers_the_gap_at_noise_1e8():
    # The naive finder subtracts losses of about 8e16: its rounding bound (about 1.4e3)
    # exceeds the gap of 133 between the two cuts, so they are tied by its own bounds
    # and feature 0 wins, exactly as the brute force with the naive bound says.
    y = regression_y(1e8)
    split = treelib.best_split(REGRESSION_X, y, "naive")
    feature, threshold, n_left, _ = brute_force_split(REGRESSION_X, y, bound=naive_bound)
    assert (split.feature, split.threshold, split.n_left) == (feature, threshold, n_left)
    assert (feature, threshold) == (0, 0.5)
