"""What a cut gains (``treelib.gains``) for the criteria that came with sample weights:
Poisson against the half deviance summed sample by sample (60 digits), the Newton gain of
gradient boosting against the squared-error gain it generalises and against its own
formula with L2 regularisation.  Each float gain must lie within its rounding bound
(``gain_rounding_bound``) of the exact gain: the bound the tie rule relies on."""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from tests.reference import exact_split_gain
from treelib.gains import (
    EPS,
    BoundTerms,
    gain_from_sums,
    gain_rounding_bound,
    rounding_bound,
    score_cuts,
    squares_slope,
    squares_terms,
)

WEIGHTS = st.sampled_from([0.5, 1.0, 1.25, 2.0, 3.0])


@st.composite
def weighted_cuts(draw, targets):
    """Targets, optional sample weights (or None) and a cut with two non-empty sides."""
    n = draw(st.integers(2, 25))
    y = draw(hnp.arrays(np.float64, n, elements=targets))
    w = draw(st.none() | hnp.arrays(np.float64, n, elements=WEIGHTS))
    goes_left = draw(hnp.arrays(np.bool_, n))
    goes_left[0], goes_left[-1] = True, False
    return y, w, goes_left


def sums(stats, w, goes_left):
    """The left child's sum and weight, the node's, and its sum of |stats| (floats)."""
    return (np.array([np.sum(stats[goes_left])]), float(np.sum(w[goes_left])),
            np.array([np.sum(stats)]), float(np.sum(w)), np.array([np.sum(np.abs(stats))]))




# --- Poisson ---------------------------------------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(cut=weighted_cuts(st.integers(0, 6).map(float)))
@example(cut=(np.array([0.0] * 9 + [2.0, 0.0, 0.0, 6.0, 6.0]), None,   # every mean is 1
              np.array([True] + [False] * 8 + [True] + [False] * 4)))
def test_poisson_gain_is_the_deviance_removed_within_its_bound(cut):
    y, w, goes_left = cut
    weights = np.ones(len(y)) if w is None else w
    if np.sum(y) == 0:
        y[0] = 1.0                      # Poisson regression needs a positive total
    sum_left, w_left, total, w_total, abs_total = sums(y * weights, weights, goes_left)
    positive = (y > 0).astype(np.float64)                  # counts of positive targets
    counts = np.array([positive[goes_left].sum()]), np.array([positive.sum()])
    gain = gain_from_sums(sum_left, w_left, total, w_total, "poisson", positives=counts)
    if not y[goes_left].any() or not y[~goes_left].any():
        # a child without counts would predict 0: never a candidate
        assert gain == -np.inf
        stats = np.concatenate([sum_left, counts[0]]), np.concatenate([total, counts[1]])
        assert score_cuts(stats[0], w_left, stats[1], w_total, "poisson",
                          np.concatenate([abs_total, counts[1]]))[0] == -np.inf
        return
    bound = gain_rounding_bound(sum_left, w_left, total, w_total, "poisson", abs_total,
                                terms=BoundTerms(n_terms=len(y)))
    exact = exact_split_gain(y, goes_left, "poisson", w)
    # the reference takes its logarithms to 60 digits: off by far less than 1e-50 here (at
    # most 25 targets of at most 6), which matters only where the true gain is 0 (children with
    # the node's mean) and the library computes 0 with a bound of 0
    reference_error = Fraction(1, 10**50)
    assert abs(Fraction(float(gain)) - exact) <= Fraction(float(bound)) + reference_error
    assert exact >= -reference_error   # the deviance is convex: a split never adds to it


def test_poisson_gain_by_hand():
    # y = 0, 2 | 4, 6: S log(S / W) terms 2 log 1 + 10 log 5 - 12 log 3
    gain = gain_from_sums(np.array([2.0]), 2, np.array([12.0]), 4, "poisson")
    assert gain == pytest.approx(10 * np.log(5) - 12 * np.log(3), rel=1e-15)


def test_a_poisson_child_of_zeros_is_told_by_its_count_not_its_sum():
    # rates summing to 1.0000000000000002 left, 1.0 in all: the right child's sum is
    # -2e-16 (or +1e-16 in another order), its count of positive targets exactly 0
    left, total = np.array([0.1 + 0.2 + 0.7]), np.array([1.0])
    counts = np.array([3.0]), np.array([3.0])            # (positives_left, positives)
    assert gain_from_sums(left, 3.0, total, 4.0, "poisson", positives=counts) == -np.inf
    # the finders' statistics (``score_cuts``): sums, then counts
    assert score_cuts(np.array([left[0], 3.0]), 3.0, np.array([1.0, 3.0]), 4.0,
                      "poisson", np.array([1.0, 3.0]))[0] == -np.inf
    # one positive target right, however small its sum: a candidate
    counts = np.array([3.0]), np.array([4.0])
    left, total = np.array([1.0]), np.array([1.0 + 1e-300])
    assert np.isfinite(gain_from_sums(left, 3.0, total, 4.0, "poisson", positives=counts))


# --- Newton ------------------------------------------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(cut=weighted_cuts(st.integers(-100, 100).map(float)),
       prediction=st.sampled_from([0.0, 0.5, -3.25, 40.0]))
def test_newton_gain_of_squared_loss_is_the_squared_error_gain(cut, prediction):
    # squared loss: g = prediction - y (exact here: integers and a few binary fractions),
    # h = the sample weight, no L2: the gain of the weighted squared error, whatever the
    # prediction the gradients were taken at
    y, w, goes_left = cut
    weights = np.ones(len(y)) if w is None else w
    g = (prediction - y) * weights
    G_L, H_L, G, H, abs_G = sums(g, weights, goes_left)
    gain = gain_from_sums(G_L, H_L, G, H, "newton")
    bound = gain_rounding_bound(G_L, H_L, G, H, "newton", abs_G,
                                terms=BoundTerms(n_terms=len(y)))
    exact = exact_split_gain(y, goes_left, "squared_error", w)
    assert abs(Fraction(float(gain)) - exact) <= Fraction(float(bound))


def exact_newton_gain(g, h, goes_left, l2):
    """G_L**2 / (H_L + l2) + G_R**2 / (H_R + l2) - G**2 / (H + l2) in fractions."""
    def term(mask):
        G = sum(Fraction(float(v)) for v in g[mask])
        H = sum(Fraction(float(v)) for v in h[mask])
        return G * G / (H + Fraction(l2))
    everything = np.ones(len(g), dtype=bool)
    return term(goes_left) + term(~goes_left) - term(everything)


@settings(max_examples=150, deadline=None)
@given(cut=weighted_cuts(st.floats(-10, 10, allow_subnormal=False).filter(
           lambda v: v == 0 or abs(v) > 1e-100)),
       l2=st.sampled_from([0.0, 0.1, 1.0, 10.0]))
def test_newton_gain_with_l2_is_its_formula(cut, l2):
    # any gradients g, hessians h (the weights), L2 added to every hessian sum
    g, h, goes_left = cut
    h = np.ones(len(g)) if h is None else h
    G_L, H_L, G, H, abs_G = sums(g, h, goes_left)
    gain = gain_from_sums(G_L, H_L, G, H, "newton", l2=l2)
    bound = gain_rounding_bound(G_L, H_L, G, H, "newton", abs_G,
                                terms=BoundTerms(n_terms=len(g), l2=l2))
    exact = exact_newton_gain(g, h, goes_left, l2)
    assert abs(Fraction(float(gain)) - exact) <= Fraction(float(bound))


def test_l2_shrinks_the_newton_gain():
    # G_L = -3, G_R = 3 over H = 2 + 2: 9/2 + 9/2 - 0 without L2, 9/3 + 9/3 with l2 = 1
    args = (np.array([-3.0]), 2.0, np.array([0.0]), 4.0, "newton")
    assert gain_from_sums(*args) == 9.0
    assert gain_from_sums(*args, l2=1.0) == 6.0


def test_rounding_bounds_are_never_negative():
    bound = gain_rounding_bound(np.array([0.5, 0.0]), 0.5, np.array([1.0, 0.0]), 1.0,
                                "entropy", np.array([1.0, 0.0]))
    assert bound >= 0
    from treelib import best_split
    X = np.array([[2.0, 0.0], [2.0, 1.0], [2.0, 1.0]])
    split = best_split(X, [1, 1, 1], criterion="entropy",
                       sample_weight=[0.25, 0.5, 0.5])
    assert split is None or split.feature == 1            # feature 0 is constant


@settings(max_examples=150, deadline=None)
@given(cut=weighted_cuts(st.integers(0, 2).map(float)),
       small=hnp.arrays(np.float64, 25, elements=st.sampled_from([0.01, 0.125, 0.3, 0.75])))
def test_entropy_gain_with_weights_below_one_is_within_its_bound(cut, small):
    # weights below 1: the terms c log2 c are negative, the bound takes their |.|
    y, _, goes_left = cut
    w = small[:len(y)]
    stats = (y[:, None] == np.arange(3)) * w[:, None]
    sum_left, total = stats[goes_left].sum(axis=0), stats.sum(axis=0)
    w_left, w_total = float(np.sum(w[goes_left])), float(np.sum(w))
    gain = gain_from_sums(sum_left, w_left, total, w_total, "entropy")
    bound = gain_rounding_bound(sum_left, w_left, total, w_total, "entropy", total,
                                terms=BoundTerms(n_terms=len(y)))
    assert bound >= 0
    exact = exact_split_gain(y, goes_left, "entropy", w)
    assert abs(Fraction(float(gain)) - exact) <= Fraction(float(bound))


# --- the bound's formulas in Python floats ------------------------------------------------------

SPECIAL = [0.0, -0.0, 1.0, -2.5, 1e-300, 1e300, -1e300, 5e-324, np.inf, -np.inf, np.nan]
ANY_FLOAT = st.one_of(st.sampled_from(SPECIAL), st.floats())


@settings(max_examples=100, deadline=None)
@given(cuts=st.integers(1, 6).flatmap(lambda c: st.tuples(
    *(st.lists(ANY_FLOAT, min_size=c, max_size=c) for _ in range(7)))),
    l2=st.sampled_from([0.0, 0.5, 1e-300]))
def test_the_bound_formulas_give_numpys_bits_in_python_floats(cuts, l2):
    # operators only: numpy's arrays and Python's floats (where they do not divide by zero,
    # which Python refuses) give the same bits, NaN's sign bit aside (the hardware's)
    GL, HL, G, H, A, N, gain = (np.array(c, dtype=np.float64) for c in cuts)
    with np.errstate(all="ignore"):
        expected = rounding_bound(squares_terms(gain, G * G, H, l2), EPS, N,
                                  A * squares_slope(GL, HL, G, H, l2))
    eps = float(EPS)
    for i, (gl, hl, g, h, a, n, gain_i) in enumerate(zip(*cuts)):
        if 0 in (h + l2, hl + l2, (h - hl) + l2):
            continue
        bound = rounding_bound(squares_terms(gain_i, g * g, h, l2), eps, n,
                               a * squares_slope(gl, hl, g, h, l2))
        assert type(bound) is float
        if np.isnan(expected[i]):
            assert bound != bound
        else:
            assert np.float64(bound).tobytes() == expected[i].tobytes()


# --- arguments ---------------------------------------------------------------------------------


def test_the_bound_adds_up_n_terms_and_l2_as_its_terms_say():
    # the sums' part grows with the number of samples summed; l2 shrinks the terms
    args = (np.array([-3.0]), 2.0, np.array([0.0]), 4.0, "newton", np.array([6.0]))
    few, many = (gain_rounding_bound(*args, terms=BoundTerms(n_terms=n)) for n in (4, 40))
    assert many > few > 0
    assert gain_rounding_bound(*args) == few              # None: n = w = 4
    assert gain_rounding_bound(*args, terms=BoundTerms(n_terms=4, l2=1.0)) < few


@pytest.mark.parametrize("call, problem", [
    (lambda: gain_from_sums(np.array([1.0]), 1.0, np.array([2.0]), 2.0, "squared_error",
                            positives=(np.array([1.0]), np.array([2.0]))), "positives"),
    (lambda: gain_from_sums(np.array([1.0]), 1.0, np.array([2.0]), 2.0, "poisson",
                            positives=(np.array([1.0]),)), "positives"),
    (lambda: gain_from_sums(np.array([1.0, 0.0]), 1.0, np.array([1.0, 1.0]), 2.0, "entropy",
                            sum_right=np.array([0.0, 1.0])), "sum_right"),
    (lambda: gain_rounding_bound(np.array([1.0]), 1.0, np.array([0.0]), 2.0, "squared_error",
                                 np.array([2.0]), None, 2), "terms"),
    (lambda: BoundTerms(n_terms=3, l2=-1.0), "l2"),
    (lambda: BoundTerms(l2=float("nan")), "l2"),
])
def test_bad_arguments_are_refused_by_name(call, problem):
    with pytest.raises(ValueError, match=problem):
        call()
