"""Impurity criteria (``treelib.criteria``) against their definitions: impurities and
gains against exact rational arithmetic (``tests.reference``), ``node_statistics``
segment by segment against exact means and centred values, and ``gain_rounding_bound``
as a true bound on the distance between the float gain of a cut and its exact gain."""

import math
from decimal import Decimal, localcontext
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from tests.reference import (
    assert_sums_close,
    exact_loss,
    exact_split_gain,
    exact_sse,
    exact_weighted_gini,
    exact_weighted_median,
    impurity_tolerance,
    sums_tolerance,
    weighted_entropy,
)
from treelib.criteria import (
    CRITERIA,
    IMPURITIES,
    centered,
    check_criterion,
    entropy,
    gini,
    labels_impurity,
    node_impurity,
    node_statistics,
    one_hot,
    split_gain,
    squared_error,
    target_statistics,
    weighted_medians,
)
from treelib.gains import EPS, gain_from_sums, gain_rounding_bound, score_cuts

# --- impurities of labels -------------------------------------------------------------


@pytest.mark.parametrize("criterion", [gini, entropy, squared_error])
def test_a_pure_node_has_impurity_plus_zero(criterion):
    value = criterion([3, 3, 3])
    assert value == 0.0 and math.copysign(1.0, value) == 1.0


@pytest.mark.parametrize("labels, expected_gini, expected_entropy", [
    ([0, 0, 0, 1], 0.375, -(0.75 * math.log2(0.75) + 0.25 * math.log2(0.25))),
    ([0, 1], 0.5, 1.0),
    (["a", "b", "c", "d"], 0.75, 2.0),
])
def test_known_values(labels, expected_gini, expected_entropy):
    # a few roundings of terms at most 1: a few EPS
    assert gini(labels) == pytest.approx(expected_gini, rel=0, abs=4 * EPS)
    assert entropy(labels) == pytest.approx(expected_entropy, rel=0, abs=8 * EPS)


def test_impurities_by_name():
    # IMPURITIES: chapter 1's impurities of labels; the criteria added since (Poisson,
    # absolute error) are reached through labels_impurity (tested below)
    assert set(IMPURITIES) == {"squared_error", "gini", "entropy"}
    assert set(CRITERIA) == set(IMPURITIES) | {"poisson", "absolute_error"}
    for name, impurity in IMPURITIES.items():
        assert impurity([1.0, 2.0, 2.0, 7.0]) == labels_impurity([1.0, 2.0, 2.0, 7.0], name)
    with pytest.raises(ValueError, match="unknown criterion 'mae'"):
        check_criterion("mae")


@settings(max_examples=100, deadline=None)
@given(values=st.lists(st.floats(-1e3, 1e3), min_size=1, max_size=50),
       offset=st.sampled_from([0.0, 1e8]))
def test_squared_error_is_the_variance(values, offset):
    y = np.array(values) + offset
    spread = np.abs(y - y[0]).max()
    # n squared deviations of at most (2 spread)**2 each, centred on a float mean
    assert abs(squared_error(y) - float(exact_sse(y) / len(y))) <= 8 * sums_tolerance(
        len(y), 4 * spread ** 2)


@settings(max_examples=100, deadline=None)
@given(labels=st.lists(st.integers(0, 4), min_size=1, max_size=40))
def test_gini_and_entropy_are_their_definitions(labels):
    n = len(labels)
    # sums of at most 5 terms below 1: a few EPS
    assert gini(labels) == pytest.approx(float(exact_weighted_gini(labels) / n), rel=0,
                                         abs=16 * EPS)
    assert entropy(labels) == pytest.approx(weighted_entropy(labels) / n, rel=0,
                                            abs=16 * EPS * math.log2(5))


def test_centering_is_exact_for_a_constant_node_with_a_large_offset():
    y = np.full(7, 1e8 + 0.1)
    assert np.all(centered(y) == 0.0)
    assert squared_error(y) == 0.0
    assert node_impurity(y[:, None], "squared_error") == 0.0


def test_centering_columns_on_their_own_means():
    y = np.array([[1.0, 1e8], [3.0, 1e8 + 2.0], [5.0, 1e8 + 4.0]])
    # small integers shifted by an exact anchor: every step exact
    np.testing.assert_array_equal(centered(y), [[-2.0, -2.0], [0.0, 0.0], [2.0, 2.0]])


def test_split_gain_is_the_sse_removed():
    y = np.array([1.0, 2.0, 10.0, 11.0])
    left = np.array([True, True, False, False])
    # exact: 81 is representable and each step is exact for these small numbers
    assert split_gain(y, left) == float(exact_sse(y) - exact_sse(y[:2]) - exact_sse(y[2:]))
    assert split_gain([0, 0, 1, 1], left, "gini") == 4 * 0.5
    assert split_gain([0, 0, 1, 1], left, "entropy") == 4.0


def test_split_gain_needs_two_nonempty_children():
    with pytest.raises(ValueError, match="each side"):
        split_gain([1.0, 2.0], [True, True])


def test_target_statistics():
    np.testing.assert_array_equal(target_statistics([3.0, 1.0], "squared_error"),
                                  [[3.0], [1.0]])
    np.testing.assert_array_equal(target_statistics(["b", "a", "b"], "gini"),
                                  [[0.0, 1.0], [1.0, 0.0], [0.0, 1.0]])
    np.testing.assert_array_equal(one_hot([2, 0], 3), [[0, 0, 1], [1, 0, 0]])
    with pytest.raises(ValueError, match="rescale"):
        target_statistics(np.array([1e155, -1e155]), "squared_error")


def test_gini_gain_from_counts_is_exact():
    # counts are small integers: the variance-to-sum form of the Gini gain equals the
    # exact gain up to the final roundings of a few terms below 64
    labels = np.array([0, 0, 1, 2, 2, 2, 1, 0])
    Y = one_hot(labels, 3)
    for i in range(1, len(labels)):
        gain = gain_from_sums(Y[:i].sum(axis=0), i, Y.sum(axis=0), len(labels), "gini")
        expected = (exact_weighted_gini(labels) - exact_weighted_gini(labels[:i])
                    - exact_weighted_gini(labels[i:]))
        assert gain == pytest.approx(float(expected), rel=0, abs=64 * EPS)


def test_score_cuts_masks_cuts_with_an_empty_side():
    sums = np.array([[0.0], [1.0], [3.0]])
    gains, bounds = score_cuts(sums, np.array([0, 1, 3]), np.array([3.0]), 3,
                               "squared_error", np.array([3.0]))
    assert gains[0] == -np.inf and gains[2] == -np.inf and bounds[0] == bounds[2] == 0.0
    assert np.isfinite(gains[1]) and bounds[1] > 0


# --- node_statistics ------------------------------------------------------------------


@st.composite
def regression_segments(draw):
    """Consecutive nodes with their own offsets (up to 1e8) and spreads, some constant,
    one or two statistics per sample."""
    counts = draw(st.lists(st.integers(1, 12), min_size=1, max_size=6))
    k = draw(st.sampled_from([1, 2]))
    parts = []
    for c in counts:
        offset = draw(st.sampled_from([0.0, 0.1, 1e8, -1e8, 1e8 + 0.1]))
        if draw(st.booleans()):                                   # a constant node
            parts.append(np.full((c, k), offset + draw(st.integers(-5, 5))))
            continue
        spread = draw(st.sampled_from([1e-6, 1.0, 1e3]))
        # multiples of 2**-30 in [-1, 1]: no square underflows
        parts.append(offset + spread * draw(hnp.arrays(
            np.float64, (c, k), elements=st.integers(-2**30, 2**30).map(lambda i: i / 2**30))))
    return np.concatenate(parts), np.array(counts)


@settings(max_examples=150, deadline=None)
@given(data=regression_segments())
def test_node_statistics_for_squared_error(data):
    Y, counts = data
    value, impurity, stats, totals, abs_totals, weight, scale = node_statistics(
        Y, counts, "squared_error")
    assert value.shape == totals.shape == abs_totals.shape == (len(counts), Y.shape[1])
    assert impurity.shape == (len(counts),) and stats.shape == Y.shape
    assert weight.tolist() == counts.tolist() and scale.shape == value.shape
    start = 0
    for s, n in enumerate(counts):
        rows = Y[start:start + n]
        spread = np.abs(rows - rows[0]).max()                 # what the centring sees
        for c in range(Y.shape[1]):
            exact = [Fraction(v) for v in rows[:, c]]
            mean = sum(exact) / n
            # value: the anchor plus a mean of n shifted terms, then one rounding
            assert abs(Fraction(value[s, c]) - mean) <= Fraction(
                4 * sums_tolerance(n, spread) + EPS * abs(float(mean)))
            # stats: y - mean, off by the rounding of n shifted terms and a subtraction
            assert_sums_close(stats[start:start + n, c],
                              [float(v - mean) for v in exact], n, 2 * spread)
            # totals and abs_totals: sums of the n returned statistics, in some order
            assert_sums_close(totals[s, c], float(sum(map(Fraction, stats[start:start + n,
                                                                          c]))),
                              n, 2 * spread)
            assert_sums_close(abs_totals[s, c],
                              float(sum(abs(Fraction(v)) for v in stats[start:start + n, c])),
                              n, 2 * spread)
            # scale: the largest |statistic| of the node, one of them exactly
            assert scale[s, c] == np.abs(stats[start:start + n, c]).max()
        # impurity: the variance summed over the columns, squares of at most 2 spread
        expected = sum(exact_sse(rows[:, c]) for c in range(Y.shape[1])) / n
        assert abs(Fraction(impurity[s]) - expected) <= Fraction(
            8 * Y.shape[1] * sums_tolerance(n, 4 * spread ** 2))
        if spread == 0:                                            # a constant node
            assert impurity[s] == 0.0 and totals[s].tolist() == [0.0] * Y.shape[1]
            assert np.all(stats[start:start + n] == 0.0)
            assert np.array_equal(value[s], rows[0])
        start += n


def test_a_constant_node_at_1e8_has_impurity_exactly_zero():
    y = np.concatenate([np.full(5, 1e8 + 0.1), [1.0, 2.0, 4.0], np.full(3, -1e8 + 0.3)])
    value, impurity, stats, _, abs_totals, _, _ = node_statistics(y, [5, 3, 3],
                                                                  "squared_error")
    assert impurity[0] == 0.0 and impurity[2] == 0.0
    assert value[0, 0] == 1e8 + 0.1 and value[2, 0] == -1e8 + 0.3
    assert np.all(stats[:5] == 0) and np.all(stats[8:] == 0)
    assert abs_totals[0, 0] == 0.0 and abs_totals[2, 0] == 0.0
    # the middle node: small integers shifted by an exact anchor, every step exact
    # except the division by 3 (its mean 7/3)
    assert value[1, 0] == pytest.approx(7 / 3, rel=0, abs=2 * EPS * 4)
    assert impurity[1] == pytest.approx(float(exact_sse([1, 2, 4]) / 3), rel=0,
                                        abs=8 * sums_tolerance(3, 9))


@settings(max_examples=100, deadline=None)
@given(labels=st.lists(st.integers(0, 3), min_size=1, max_size=30),
       cuts=st.sets(st.integers(1, 29), max_size=4),
       criterion=st.sampled_from(["gini", "entropy"]))
def test_node_statistics_for_classes(labels, cuts, criterion):
    bounds = [0] + sorted(c for c in cuts if c < len(labels)) + [len(labels)]
    counts = np.diff(bounds)
    Y = one_hot(labels, 4)
    value, impurity, stats, totals, abs_totals, weight, scale = node_statistics(Y, counts,
                                                                               criterion)
    assert abs_totals is None
    assert weight.tolist() == counts.tolist() and np.all(scale == 1.0)
    assert np.array_equal(stats, Y)                           # the one-hot rows, as they are
    for s, (a, b) in enumerate(zip(bounds[:-1], bounds[1:], strict=True)):
        part = labels[a:b]
        n = b - a
        class_counts = [part.count(c) for c in range(4)]
        assert totals[s].tolist() == class_counts             # counts: exact
        assert value[s].tolist() == [c / n for c in class_counts]   # one rounding each
        if criterion == "gini":
            expected = float(exact_weighted_gini(part) / n)
        else:
            expected = weighted_entropy(part) / n
        # four terms below 1, each a few roundings
        assert impurity[s] == pytest.approx(expected, rel=0, abs=32 * EPS)
        assert math.copysign(1.0, impurity[s]) == 1.0


# --- gain_rounding_bound: a true bound --------------------------------------------------


def exact_gain_of_cut(y, goes_left):
    """The gain of sending ``y[goes_left]`` left, in exact rational arithmetic."""
    return exact_sse(y) - exact_sse(y[goes_left]) - exact_sse(y[~goes_left])


def no_underflow(floats):
    """Floats whose squares (and their products with EPS) stay normal: the rounding
    bounds are relative, and underflow is not rounding."""
    return floats.filter(lambda v: v == 0 or abs(v) >= 1e-60)


@st.composite
def regression_cuts(draw):
    n = draw(st.integers(2, 40))
    kind = draw(st.sampled_from(["ints", "floats", "scales"]))
    if kind == "ints":
        y = draw(hnp.arrays(np.float64, n, elements=st.integers(-5, 5).map(float)))
    elif kind == "floats":
        y = draw(hnp.arrays(np.float64, n, elements=no_underflow(st.floats(-100, 100))))
    else:                                  # wildly different magnitudes in one node
        y = draw(hnp.arrays(np.float64, n, elements=st.sampled_from([1e-8, 1.0, 1e4])
                            .flatmap(lambda s: no_underflow(st.floats(-s, s)))))
    y = y + draw(st.sampled_from([0.0, 1e6, -1e6, 1e12]))
    goes_left = draw(hnp.arrays(np.bool_, n))
    n_left = int(goes_left.sum())
    if n_left in (0, n):
        goes_left[0] = not goes_left[0]
    order = draw(st.permutations(range(n)))     # the order the left sum is accumulated
    return y, goes_left, np.array(order)


@settings(max_examples=300, deadline=None)
@given(cut=regression_cuts(), summation=st.sampled_from(["sequential", "pairwise"]))
def test_rounding_bound_covers_the_float_gain_of_centred_targets(cut, summation):
    # centre with node_statistics, add the left statistics in some order, score the cut
    # in floats: the exact gain of the cut on y lies within the bound
    y, goes_left, order = cut
    n, n_left = len(y), int(goes_left.sum())
    _, _, stats, totals, abs_totals, _, _ = node_statistics(y, [n], "squared_error")
    left = stats[order][goes_left[order], 0]
    sum_left = np.cumsum(left)[-1] if summation == "sequential" else np.sum(left)
    gain = gain_from_sums(np.array([sum_left]), n_left, totals[0], n, "squared_error")
    bound = gain_rounding_bound(np.array([sum_left]), n_left, totals[0], n,
                                "squared_error", abs_totals[0])
    assert abs(Fraction(float(gain)) - exact_gain_of_cut(y, goes_left)) <= Fraction(
        float(bound))


@settings(max_examples=150, deadline=None)
@given(y=hnp.arrays(np.float64, st.integers(2, 30), elements=st.integers(-3, 3)),
       offset=st.sampled_from([1e6, 1e12]), cut=st.integers(1, 29))
def test_a_large_offset_left_in_the_sums_breaks_the_gain_not_the_centred_one(y, offset,
                                                                           cut):
    # the same cut on centred statistics is within its bound, whatever the offset
    cut = min(cut, len(y) - 1)
    y = y + offset
    goes_left = np.arange(len(y)) < cut
    _, _, stats, totals, abs_totals, _, _ = node_statistics(y, [len(y)], "squared_error")
    sum_left = np.array([stats[:cut, 0].sum()])
    gain = gain_from_sums(sum_left, cut, totals[0], len(y), "squared_error")
    bound = gain_rounding_bound(sum_left, cut, totals[0], len(y), "squared_error",
                                abs_totals[0])
    exact = exact_gain_of_cut(y, goes_left)
    assert abs(Fraction(float(gain)) - exact) <= Fraction(float(bound))
    # the bound is tight enough to tell cuts apart: far below one unit of y**2
    assert bound < 1e-6


def decimal_n_entropy(counts):
    """n H = n log2 n - sum_k c_k log2 c_k with 60 significant digits."""
    def xlog2x(c):
        return Decimal(0) if c == 0 else Decimal(c) * Decimal(c).ln() / Decimal(2).ln()
    return xlog2x(sum(counts)) - sum(xlog2x(c) for c in counts)


@settings(max_examples=200, deadline=None)
@given(labels=st.lists(st.integers(0, 4), min_size=2, max_size=300), data=st.data(),
       criterion=st.sampled_from(["gini", "entropy"]))
def test_rounding_bound_covers_the_float_gain_of_counts(labels, data, criterion):
    n = len(labels)
    n_left = data.draw(st.integers(1, n - 1))
    Y = one_hot(labels, 5)
    sum_left, total = Y[:n_left].sum(axis=0), Y.sum(axis=0)
    gain = float(gain_from_sums(sum_left, n_left, total, n, criterion))
    bound = float(gain_rounding_bound(sum_left, n_left, total, n, criterion))
    if criterion == "gini":
        exact = (exact_weighted_gini(labels) - exact_weighted_gini(labels[:n_left])
                 - exact_weighted_gini(labels[n_left:]))
        assert abs(Fraction(gain) - exact) <= Fraction(bound)
    else:
        with localcontext() as context:
            context.prec = 60          # 60 digits: exact for this purpose
            exact = (decimal_n_entropy(total.astype(int).tolist())
                     - decimal_n_entropy(sum_left.astype(int).tolist())
                     - decimal_n_entropy((total - sum_left).astype(int).tolist()))
            assert abs(Decimal(gain) - exact) <= Decimal(bound)


# --- sample weights, Poisson and absolute error --------------------------------------------


ALL_CRITERIA = ["squared_error", "poisson", "absolute_error", "gini", "entropy"]


@st.composite
def weighted_nodes(draw, criterion, max_n=20):
    """Consecutive nodes of targets (counts for Poisson, labels 0..2 for the classes)
    with sample weights: integers, binary fractions, or None."""
    counts = draw(st.lists(st.integers(1, max_n), min_size=1, max_size=3))
    n = sum(counts)
    if criterion in ("gini", "entropy"):
        elements = st.integers(0, 2)
    elif criterion == "poisson":
        elements = st.integers(0, 5).map(float)
    else:
        elements = st.integers(-4, 4).map(float) | st.floats(-100, 100).map(
            lambda v: round(v, 3))
    y = np.array(draw(st.lists(elements, min_size=n, max_size=n)))
    if criterion == "poisson":
        starts = np.cumsum([0] + counts[:-1])
        y[starts] += 1.0                         # every node has a positive count
    weights = draw(st.none() | hnp.arrays(np.float64, n, elements=st.sampled_from(
        [0.25, 1.0, 2.0, 3.0, 7.5])))
    return y, np.array(counts), weights


def rows_of(y, criterion):
    return one_hot(y, 3) if criterion in ("gini", "entropy") else y


@pytest.mark.parametrize("criterion", ALL_CRITERIA)
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_node_statistics_with_weights_are_the_definitions(criterion, data):
    y, counts, weights = data.draw(weighted_nodes(criterion))
    node = node_statistics(rows_of(y, criterion), counts, criterion, weights)
    w = np.ones(len(y)) if weights is None else weights
    start = 0
    for s, n in enumerate(counts):
        part, part_w = y[start:start + n], w[start:start + n]
        W = Fraction(float(part_w.sum()))       # a sum of a few binary fractions: exact
        assert node.weight[s] == W
        # the impurity: W I from its definition, divided by W
        expected = exact_loss(part, criterion, part_w) / W
        assert abs(Fraction(node.impurity[s]) - expected) <= Fraction(
            impurity_tolerance(part, part_w, criterion))
        # the prediction: the weighted median (a value, or a/2 + b/2: one rounding), the
        # weighted mean (a sum of n terms, then a division) or the class proportions
        # (a weight over the total: one rounding)
        top = float(np.abs(part).max())
        if criterion == "absolute_error":
            median = exact_weighted_median(part, part_w)
            assert abs(Fraction(node.value[s, 0]) - median) <= Fraction(EPS) * abs(median)
        elif criterion in ("gini", "entropy"):
            for c in range(3):
                share = Fraction(float(part_w[part == c].sum())) / W
                assert abs(Fraction(node.value[s, c]) - share) <= Fraction(EPS) * share
        else:
            mean = sum(Fraction(float(v)) * Fraction(float(u))
                       for v, u in zip(part, part_w)) / W
            assert abs(Fraction(node.value[s, 0]) - mean) <= Fraction(
                4 * sums_tolerance(n, 2 * top) + EPS * top)
        # the statistics the finders add up: the weighted centred target (its mean off
        # by the rounding of n terms), the weighted target or the weighted one-hot row
        # (one exact product: binary fractions)
        stats = node.stats[start:start + n]
        if criterion == "squared_error":
            exact = [float((Fraction(float(v)) - mean) * Fraction(float(u)))
                     for v, u in zip(part, part_w)]
            assert_sums_close(stats[:, 0], exact, n, 2 * top * float(part_w.max()))
        elif criterion in ("poisson", "absolute_error"):
            np.testing.assert_array_equal(stats[:, 0], part * part_w)
        else:
            np.testing.assert_array_equal(stats, one_hot(part, 3) * part_w[:, None])
        # the same n statistics summed in another order
        assert_sums_close(node.totals[s], stats.sum(axis=0), n, np.abs(stats).max())
        start += n


@pytest.mark.parametrize("criterion", ALL_CRITERIA)
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_split_gain_with_weights_is_the_exact_gain(criterion, data):
    y, counts, weights = data.draw(weighted_nodes(criterion))
    goes_left = data.draw(hnp.arrays(np.bool_, len(y)))
    if goes_left.all() or not goes_left.any():
        goes_left[0] = not goes_left[0]
    if len(y) == 1:
        return
    gain = split_gain(y, goes_left, criterion, weights)
    exact = exact_split_gain(y, goes_left, criterion, weights)
    # three W I recomputed from scratch, each within W times its impurity's tolerance,
    # then added: a few roundings of their sum
    w = np.ones(len(y)) if weights is None else weights
    parts = [np.ones(len(y), dtype=bool), goes_left, ~goes_left]
    tolerance = sum(w[p].sum() * impurity_tolerance(y[p], w[p], criterion) for p in parts)
    tolerance += 4 * EPS * sum(float(exact_loss(y[p], criterion, w[p])) for p in parts)
    assert abs(Fraction(gain) - exact) <= Fraction(tolerance)


@settings(max_examples=150, deadline=None)
@given(values=st.lists(st.integers(-3, 3).map(float) | st.sampled_from([0.5, 1e8]),
                       min_size=1, max_size=30),
       data=st.data())
def test_weighted_medians_are_scikit_learns(values, data):
    # ties, duplicates and cumulative weights that stop exactly at half
    values = np.array(values)
    n = len(values)
    weights = data.draw(hnp.arrays(np.float64, n, elements=st.sampled_from(
        [0.0, 0.5, 1.0, 1.0, 2.0, 3.0])))
    weights[data.draw(st.integers(0, n - 1))] = 1.0            # a positive weight
    cuts = sorted(data.draw(st.sets(st.integers(1, max(n - 1, 1)), max_size=3)))
    bounds = [0] + [c for c in cuts if c < n] + [n]
    counts = np.diff(bounds)
    if any(weights[a:b].sum() == 0 for a, b in zip(bounds[:-1], bounds[1:])):
        weights[bounds[:-1]] = 1.0                             # each segment weighs
    medians = weighted_medians(values, weights, counts)
    for s, (a, b) in enumerate(zip(bounds[:-1], bounds[1:])):
        # the median is a value or the mean of two: a/2 + b/2 is exact here
        assert medians[s] == exact_weighted_median(values[a:b], weights[a:b])


def test_weighted_median_by_hand():
    # cumulative weights 1, 2 | 3, 4 of 4: exactly half after 2, the mean of 2 and 5
    assert weighted_medians(np.array([5.0, 2.0, 9.0, 1.0]), np.ones(4), [4])[0] == 3.5
    # weight 3 on 9 passes half (2.5 of 5) alone; a zero weight changes nothing
    assert weighted_medians(np.array([1.0, 9.0, 2.0, -7.0]), np.array([1.0, 3.0, 1.0, 0.0]),
                            [4])[0] == 9.0


def test_poisson_needs_counts():
    with pytest.raises(ValueError, match="Some value.s. of y are negative, which is not "
                                         "allowed for Poisson regression"):
        target_statistics(np.array([1.0, -0.5, 2.0]), "poisson")
    with pytest.raises(ValueError, match="The sum of y is not positive: Poisson regression "
                                         "needs at least one positive target"):
        target_statistics(np.zeros(4), "poisson")
    np.testing.assert_array_equal(target_statistics([0.0, 3.0], "poisson"), [[0.0], [3.0]])


def test_poisson_and_absolute_error_impurities_by_hand():
    # y = 0, 1, 2, 5: mean 2, half deviance sum y log(y/2) - y + 2, over 4
    y = [0.0, 1.0, 2.0, 5.0]
    expected = (2 + (np.log(0.5) - 1 + 2) + 0 + (5 * np.log(2.5) - 5 + 2)) / 4
    assert labels_impurity(y, "poisson") == pytest.approx(expected, rel=4 * EPS)
    # the median of 0, 1, 2, 5 is 1.5: |deviations| 1.5, 0.5, 0.5, 3.5 over 4
    assert labels_impurity(y, "absolute_error") == 1.5
