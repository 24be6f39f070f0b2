"""Absolute-error splits by running medians (``treelib.finders.median``): the Fenwick
tree against plain prefix sums, the loss of every prefix against its recomputation from
the weighted median (O(n^2), exact arithmetic), and every gain of ``median_gains``
within its rounding bound of the exact gain, with weights, ties and duplicates."""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from tests.reference import EPS, exact_loss, exact_split_gain
from treelib import best_split
from treelib.finders.exact import candidate_cuts
from treelib.finders.median import FenwickTree, median_gains, running_losses

WEIGHTS = st.sampled_from([0.5, 1.0, 1.0, 2.0, 3.0])


@st.composite
def weighted_targets(draw, max_n=25, offsets=(0.0, 1e6, -1e8)):
    """Targets with ties and duplicates (a small pool, or floats, plus an offset) and
    weights: None, ones, or a few binary fractions (cumulative weights that stop exactly
    at half the total are common)."""
    n = draw(st.integers(1, max_n))
    pool = draw(st.sampled_from(["ties", "floats"]))
    elements = (st.integers(-3, 3).map(float) if pool == "ties"
                else st.floats(-100, 100, allow_subnormal=False))
    y = draw(hnp.arrays(np.float64, n, elements=elements))
    y = y + draw(st.sampled_from(offsets))
    weights = draw(st.none() | hnp.arrays(np.float64, n, elements=WEIGHTS))
    return y, weights


def ranks_of(y):
    by_rank = np.argsort(y, kind="stable")
    rank = np.empty(len(y), dtype=np.intp)
    rank[by_rank] = np.arange(len(y))
    return rank, y[by_rank]


def loss_tolerance(y, w):
    """``running_losses`` adds up to n weighted targets in its Fenwick tree and takes
    differences of those sums around the median: a few n EPS of ``sum w |y|`` and of
    ``|median| W`` (the cancellation of a large offset)."""
    return 4 * (len(y) + 2) * EPS * (float(np.sum(w * np.abs(y)))
                                     + float(np.abs(y).max()) * float(np.sum(w)))


@settings(max_examples=100, deadline=None)
@given(sizes=st.lists(st.integers(0, 3), min_size=1, max_size=20), data=st.data())
def test_fenwick_tree_keeps_prefix_sums(sizes, data):
    # ``below(t)``: how many ranks weigh at most t together, and their sums
    size = len(sizes)
    tree, weight, weighted_y = FenwickTree(size), np.zeros(size), np.zeros(size)
    for _ in range(data.draw(st.integers(1, 15))):
        rank = data.draw(st.integers(0, size - 1))
        w = float(data.draw(st.sampled_from([0.5, 1.0, 2.0])))
        tree.add(rank, float(rank) - 4, w)
        weight[rank] += w
        weighted_y[rank] += w * (rank - 4)
        target = float(data.draw(st.sampled_from([0.0, 0.5, 1.0, 2.5, 4.0, 100.0])))
        cumulative = np.cumsum(weight)
        count = int(np.sum(cumulative <= target))   # cumulative weights never decrease
        # sums of binary fractions: exact
        assert tree.below(target) == (count, float(cumulative[count - 1]) if count else 0.0,
                                      float(np.sum(weighted_y[:count])))


@settings(max_examples=150, deadline=None)
@given(data=weighted_targets())
def test_running_losses_are_every_prefixs_absolute_error(data):
    y, weights = data
    w = np.ones(len(y)) if weights is None else weights
    rank, y_by_rank = ranks_of(y)
    losses = running_losses(y.tolist(), rank.tolist(), y_by_rank.tolist(), w.tolist())
    for i in range(len(y)):
        # the weighted median of y[:i + 1] recomputed from scratch, its exact loss
        expected = exact_loss(y[: i + 1], "absolute_error", w[: i + 1])
        assert abs(Fraction(losses[i]) - expected) <= Fraction(
            loss_tolerance(y[: i + 1], w[: i + 1]))


@settings(max_examples=60, deadline=None)
@given(data=weighted_targets(max_n=15), X=st.data(), min_samples_leaf=st.integers(1, 3))
def test_median_gains_are_the_exact_gains(data, X, min_samples_leaf):
    # every candidate cut of every feature: its gain within the rounding of its three
    # running losses (``loss_tolerance`` each); the bounds median_gains returns are
    # smaller than that (test_the_rounding_bounds_cover_the_running_losses)
    y, weights = data
    X = X.draw(hnp.arrays(np.float64, (len(y), 2), elements=st.integers(0, 3).map(float)))
    order, _, valid = candidate_cuts(X, min_samples_leaf)
    gains, bounds = median_gains(y[:, None], order, valid, weights)
    assert np.array_equal(np.isfinite(gains), valid) and np.all(bounds[~valid] == 0)
    w = np.ones(len(y)) if weights is None else weights
    for i, j in zip(*np.nonzero(valid)):
        goes_left = np.zeros(len(y), dtype=bool)
        goes_left[order[: i + 1, j]] = True
        exact = exact_split_gain(y, goes_left, "absolute_error", weights)
        assert abs(Fraction(gains[i, j]) - exact) <= Fraction(3 * loss_tolerance(y, w))


def test_running_losses_by_hand():
    # prefixes of 1, 5, 2, 8: medians 1, 3 (the mean of 1 and 5), 2, 3.5
    y = np.array([1.0, 5.0, 2.0, 8.0])
    rank, y_by_rank = ranks_of(y)
    losses = running_losses(y.tolist(), rank.tolist(), y_by_rank.tolist(), [1.0] * 4)
    assert losses.tolist() == [0.0, 4.0, 4.0, 10.0]             # small integers: exact
    # a weight of 3 on the 5 takes the median to 5 from the second prefix on
    losses = running_losses(y.tolist(), rank.tolist(), y_by_rank.tolist(),
                            [1.0, 3.0, 1.0, 1.0])
    assert losses.tolist() == [0.0, 4.0, 7.0, 10.0]


@pytest.mark.xfail(strict=True, reason="library bug: median_gains bounds a gain's rounding "
                   "by 4 (n + 2) EPS times the losses, but running_losses takes differences "
                   "of Fenwick sums of order |y| W (seven equal targets 63.7: a gain of "
                   "3e-14 for 0, bound 2e-28; an offset of 1e6: an error of 1e-10, bound "
                   "1e-14), so exact ties are broken by rounding (68 of 300 random nodes of "
                   "a feature and its negation pick the second)")
def test_the_rounding_bounds_cover_the_running_losses():
    # seven equal targets: every exact gain is 0
    y = np.full(7, 63.69616873214543)
    X = np.array([[0.0]] * 6 + [[1.0]])
    order, _, valid = candidate_cuts(X)
    gains, bounds = median_gains(y[:, None], order, valid)
    assert np.all(np.abs(gains[valid]) <= bounds[valid])
    # x1 = -x0: every cut of x1 is a cut of x0 with its children swapped, an exact tie,
    # which the tie rule gives to the lowest feature
    x = np.arange(3.0)
    X = np.column_stack([x, -x])
    y = np.array([1000000.12, 1000002.2, 1000001.84])
    for splitter in ["scan", "cumsum"]:
        assert best_split(X, y, splitter, criterion="absolute_error").feature == 0
