"""The histogram split finder of one node (``treelib.finders.histogram``): histograms
against per-bin loops, the gains of every cut after a bin within their rounding bounds
of the exact gains, the best split against a brute force over the bins (exact
arithmetic, treelib's tie rule), and with one bin per value against the exact finder."""

from fractions import Fraction

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from tests.reference import (
    assert_sums_close,
    exact_gain,
    exact_split_gain,
    identity_bound,
    sums_tolerance,
    tie_rule,
)
from treelib import best_split
from treelib.binning import bin_features
from treelib.criteria import node_statistics, target_statistics
from treelib.datasets import load_california_housing
from treelib.finders.histogram import histogram_gains, histogram_split, node_histograms
from treelib.split import MISSING_BIN

CRITERIA = ["squared_error", "gini", "entropy"]


@st.composite
def coded_nodes(draw, max_n=40, max_features=3, max_bins=6):
    """A node as bin codes and targets: ties, empty bins, constant features, offsets."""
    n = draw(st.integers(1, max_n))
    f = draw(st.integers(1, max_features))
    n_bins = draw(st.integers(1, max_bins))
    codes = draw(hnp.arrays(np.uint8, (n, f), elements=st.integers(0, n_bins - 1)))
    criterion = draw(st.sampled_from(CRITERIA))
    if criterion == "squared_error":
        offset = draw(st.sampled_from([0.0, 1e6, -1e8, 1e12]))
        y = offset + draw(hnp.arrays(np.float64, n, elements=st.integers(-3, 3).map(float)
                                     | st.floats(-10, 10, allow_subnormal=False).filter(
                                         lambda v: v == 0 or abs(v) > 1e-60)))
    else:
        y = draw(hnp.arrays(np.int64, n, elements=st.integers(0, 2)))
    return codes, y, n_bins, criterion, draw(st.integers(1, 3))


def gain_bound(y, goes_left, criterion):
    """The cut's rounding bound; for entropy also the rounding of the reference."""
    bound = identity_bound(y, goes_left, criterion)
    return 2 * bound if criterion == "entropy" else bound


def brute_force_bins(codes, y, n_bins, criterion, min_samples_leaf):
    """Every cut after a bin that holds samples of the node, leaving
    ``min_samples_leaf`` samples on each side, scored from scratch; treelib's tie rule.
    Returns ``(feature, bin, n_left, gain)`` or None."""
    candidates = []
    for j in range(codes.shape[1]):
        for b in range(n_bins - 1):
            left = codes[:, j] <= b
            if ((codes[:, j] == b).any()
                    and min(left.sum(), (~left).sum()) >= min_samples_leaf):
                candidates.append(((j, b, int(left.sum())), exact_gain(y, left, criterion),
                                   identity_bound(y, left, criterion)))
    chosen = tie_rule(candidates)
    if chosen is None:
        return None
    (feature, b, n_left), gain, _ = candidates[chosen]
    return feature, b, n_left, gain


@settings(max_examples=150, deadline=None)
@given(node=coded_nodes())
def test_histograms_count_and_sum_every_bin(node):
    codes, y, n_bins, criterion, _ = node
    stats = node_statistics(target_statistics(y, criterion), [len(y)], criterion)[2]
    sums, counts, bin_weights = node_histograms(codes, stats, n_bins)
    assert sums.shape == (codes.shape[1], n_bins, stats.shape[1])
    assert counts.shape == bin_weights.shape == (codes.shape[1], n_bins)
    # without sample weights a bin weighs its count, as a float
    assert bin_weights.dtype == np.float64 and np.array_equal(bin_weights, counts)
    for j in range(codes.shape[1]):
        for b in range(n_bins):
            rows = codes[:, j] == b
            assert counts[j, b] == rows.sum()                       # counts: exact
            # the same statistics added in another order
            expected = [float(sum(map(Fraction, column))) for column in stats[rows].T]
            assert_sums_close(sums[j, b], expected, rows.sum(), np.abs(stats).max(initial=0))


@settings(max_examples=150, deadline=None)
@given(node=coded_nodes())
def test_every_cut_after_a_bin_is_scored_within_its_rounding_bound(node):
    codes, y, n_bins, criterion, min_samples_leaf = node
    _, _, stats, totals, abs_totals, _, _ = node_statistics(target_statistics(y, criterion),
                                                            [len(y)], criterion)
    sums, counts, _ = node_histograms(codes, stats, n_bins)
    gains, bounds = histogram_gains(sums, counts, totals[0], criterion, min_samples_leaf,
                                    None if abs_totals is None else abs_totals[0])
    assert gains.shape == bounds.shape == (codes.shape[1], n_bins - 1)   # feature-major
    for j in range(codes.shape[1]):
        for b in range(n_bins - 1):
            left = codes[:, j] <= b
            candidate = ((codes[:, j] == b).any()
                         and min(left.sum(), (~left).sum()) >= min_samples_leaf)
            assert np.isfinite(gains[j, b]) == candidate
            if candidate:
                assert abs(Fraction(gains[j, b]) - exact_gain(y, left, criterion)) <= \
                    Fraction(bounds[j, b] + gain_bound(y, left, criterion))
            else:
                assert bounds[j, b] == 0.0


@settings(max_examples=250, deadline=None)
@given(node=coded_nodes())
def test_histogram_split_is_the_brute_force_one(node):
    codes, y, n_bins, criterion, min_samples_leaf = node
    split = histogram_split(codes, target_statistics(y, criterion), n_bins, criterion,
                            min_samples_leaf)
    expected = brute_force_bins(codes, y, n_bins, criterion, min_samples_leaf)
    if expected is None:
        assert split is None
        return
    feature, b, n_left, gain = expected
    assert (split.feature, split.bin, split.threshold, split.n_left) == (feature, b,
                                                                        float(b), n_left)
    assert split.n_right == len(y) - n_left
    assert split.goes_left(codes).sum() == n_left
    assert abs(Fraction(split.gain) - max(gain, 0)) <= Fraction(
        gain_bound(y, split.goes_left(codes), criterion))


def test_histogram_gains_marks_only_cuts_after_a_populated_bin():
    codes = np.array([[0], [0], [3], [3], [5]], dtype=np.uint8)
    y = np.array([1.0, 2.0, 3.0, 4.0, 10.0])
    _, _, stats, totals, abs_totals, _, _ = node_statistics(y, [5], "squared_error")
    sums, counts, _ = node_histograms(codes, stats, 6)
    gains, bounds = histogram_gains(sums, counts, totals[0], "squared_error", 1,
                                    abs_totals[0])
    assert np.isfinite(gains[0]).tolist() == [True, False, False, True, False]
    assert (bounds[0] > 0).tolist() == [True, False, False, True, False]
    gains, _ = histogram_gains(sums, counts, totals[0], "squared_error", 2, abs_totals[0])
    assert np.isfinite(gains[0]).tolist() == [True, False, False, False, False]


def test_histogram_gains_of_several_nodes_at_once():
    # leading axes are nodes: each node's gains are those it gets alone
    rng = np.random.default_rng(0)
    codes = rng.integers(0, 5, size=(40, 3)).astype(np.uint8)
    y = rng.normal(size=40) + np.repeat([0.0, 1e6], 20)
    _, _, stats, totals, abs_totals, _, _ = node_statistics(y, [20, 20], "squared_error")
    alone = [node_histograms(codes[s], stats[s], 5) for s in (slice(0, 20), slice(20, 40))]
    sums = np.stack([a[0] for a in alone])
    counts = np.stack([a[1] for a in alone])
    gains, bounds = histogram_gains(sums, counts, totals, "squared_error", 1, abs_totals)
    for node in range(2):
        one, one_bounds = histogram_gains(sums[node], counts[node], totals[node],
                                          "squared_error", 1, abs_totals[node])
        assert np.array_equal(gains[node], one) and np.array_equal(bounds[node], one_bounds)


def test_the_threshold_is_read_from_the_bin_thresholds():
    codes = np.array([[0], [1], [2], [2]], dtype=np.uint8)
    thresholds = [np.array([0.25, 7.5])]
    split = histogram_split(codes, np.array([[0.0], [0.0], [5.0], [5.0]]), 3,
                            thresholds=thresholds)
    assert (split.bin, split.threshold, split.n_left) == (1, 7.5, 2)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(X=hnp.arrays(np.float64, st.tuples(st.integers(2, 60), st.integers(1, 3)),
                    elements=st.integers(-4, 4).map(lambda v: v * 0.37)),
       y=hnp.arrays(np.float64, 60, elements=st.floats(-5, 5, allow_subnormal=False)),
       criterion=st.sampled_from(CRITERIA), min_samples_leaf=st.integers(1, 3),
       offset=st.sampled_from([0.0, 1e8]))
def test_one_bin_per_value_gives_the_exact_split(X, y, criterion, min_samples_leaf,
                                                 offset):
    y = y[: len(X)] + offset
    if criterion != "squared_error":
        y = (np.abs(y - offset) > 2).astype(int) + (y - offset > 4)
    codes, thresholds = bin_features(X, max_bins=255)
    n_bins = max(len(t) for t in thresholds) + 1
    exact = best_split(X, y, criterion=criterion, min_samples_leaf=min_samples_leaf)
    binned = histogram_split(codes, target_statistics(y, criterion), n_bins, criterion,
                             min_samples_leaf, thresholds)
    if exact is None:
        assert binned is None
        return
    assert (binned.feature, binned.n_left) == (exact.feature, exact.n_left)
    # same children; at the root the threshold is the exact one
    assert binned.threshold == exact.threshold == thresholds[binned.feature][binned.bin]
    np.testing.assert_array_equal(binned.goes_left(codes), exact.goes_left(X))
    # the same gain summed in two orders: both within their bounds of the exact gain
    left = exact.goes_left(X)
    assert abs(binned.gain - exact.gain) <= 2 * gain_bound(y, left, criterion)


def test_large_offsets_do_not_move_the_histogram_split():
    X, y = load_california_housing(return_X_y=True)
    codes, _ = bin_features(X[:3000], max_bins=64)
    y = y[:3000]
    reference = histogram_split(codes, y[:, None], 64)
    for offset in [1e6, 1e8]:
        moved = histogram_split(codes, (y + offset)[:, None], 64)
        assert (moved.feature, moved.bin, moved.n_left) == (
            reference.feature, reference.bin, reference.n_left)
        # y + offset rounds every target by up to half a unit of its last place
        # (offset EPS / 2): the gain moves by at most n times that times the spread
        # of y, plus the rounding of the sums
        rounding = len(y) * offset * np.finfo(float).eps * np.ptp(y)
        assert abs(moved.gain - reference.gain) <= rounding + 4 * sums_tolerance(
            len(y), np.ptp(y) ** 2)


def test_no_split_on_constant_codes_or_too_few_samples():
    codes = np.zeros((5, 2), dtype=np.uint8)
    assert histogram_split(codes, np.arange(5.0)[:, None], 4) is None
    codes = np.arange(3, dtype=np.uint8)[:, None]
    assert histogram_split(codes, np.arange(3.0)[:, None], 3, min_samples_leaf=2) is None


# --- sample weights, Poisson and missing values ----------------------------------------------


@st.composite
def coded_nodes_with_missing(draw, max_n=16, max_features=3, max_bins=6):
    """Bin codes with a pattern of missing values (``MISSING_BIN``) per feature: none,
    some, all, or some in a constant feature; targets with ties for every criterion that
    sums statistics, and positive weights (or None)."""
    n = draw(st.integers(2, max_n))
    f = draw(st.integers(1, max_features))
    n_bins = draw(st.integers(1, max_bins))
    codes = draw(hnp.arrays(np.uint8, (n, f), elements=st.integers(0, n_bins - 1)))
    for j in range(f):
        pattern = draw(st.sampled_from(["none", "some", "some", "all", "constant"]))
        if pattern == "constant":
            codes[:, j] = codes[0, j]
        if pattern != "none":
            mask = draw(hnp.arrays(np.bool_, n)) if pattern != "all" else np.ones(n, bool)
            codes[mask, j] = MISSING_BIN
    criterion = draw(st.sampled_from(["squared_error", "poisson", "gini", "entropy"]))
    if criterion in ("gini", "entropy"):
        y = draw(hnp.arrays(np.int64, n, elements=st.integers(0, 2)))
    else:
        low = 0 if criterion == "poisson" else -4
        y = draw(hnp.arrays(np.float64, n, elements=st.integers(low, 4).map(float)))
        if criterion == "poisson" and y.sum() == 0:
            y[0] = 1.0
    pool = [0.5, 1.0, 2.0, 3.0]
    weights = draw(st.none() | hnp.arrays(np.float64, n, elements=st.sampled_from(pool)))
    return codes, y, n_bins, criterion, weights, draw(st.integers(1, 3))


def brute_force_bins_with_missing(codes, y, criterion, min_samples_leaf, weights):
    """Every cut after a populated bin, with the missing values right (the cut after the
    last populated bin sends only them right), then with them left (some present value
    staying right); each child keeps ``min_samples_leaf`` samples, a Poisson child some
    counts; scored by ``exact_split_gain``, treelib's tie rule.  Returns ``(feature,
    bin, missing_go_to_left, n_left, gain)`` or None."""
    w = np.ones(len(y)) if weights is None else weights
    candidates = []
    for j in range(codes.shape[1]):
        missing = codes[:, j] == MISSING_BIN
        cuts = [(b, False) for b in range(MISSING_BIN)] + [(b, True) for b in range(
            MISSING_BIN)] * bool(missing.any())
        for b, missing_left in cuts:
            goes_left = (codes[:, j] <= b) | (missing & missing_left)
            if (not (codes[:, j] == b).any() or (~goes_left).sum() == 0
                    or min(goes_left.sum(), (~goes_left).sum()) < min_samples_leaf):
                continue
            if criterion == "poisson" and min(np.sum((w * y)[goes_left]),
                                              np.sum((w * y)[~goes_left])) <= 0:
                continue
            n_left = int(goes_left.sum())
            direction = missing_left if missing.any() else n_left > len(y) - n_left
            candidates.append(((j, b, direction, n_left),
                               exact_split_gain(y, goes_left, criterion, weights),
                               identity_bound(y, goes_left, criterion, weights)))
    chosen = tie_rule(candidates)
    if chosen is None:
        return None
    (feature, b, direction, n_left), gain, _ = candidates[chosen]
    return feature, b, direction, n_left, gain


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(node=coded_nodes_with_missing())
def test_histogram_split_with_missing_values_and_weights_is_the_brute_force_one(node):
    codes, y, n_bins, criterion, weights, min_samples_leaf = node
    has_missing = (codes == MISSING_BIN).any()
    width = MISSING_BIN + 1 if has_missing else n_bins     # the missing bin is the last
    split = histogram_split(codes, target_statistics(y, criterion), width, criterion,
                            min_samples_leaf, weights=weights)
    expected = brute_force_bins_with_missing(codes, y, criterion, min_samples_leaf, weights)
    if expected is None:
        assert split is None
        return
    feature, b, direction, n_left, gain = expected
    assert (split.feature, split.bin, split.missing_go_to_left, split.n_left) == (
        feature, b, direction, n_left)
    goes_left = split.goes_left(codes)
    assert goes_left.sum() == n_left and split.n_right == len(y) - n_left
    tolerance = identity_bound(y, goes_left, criterion, weights)
    if criterion in ("entropy", "poisson"):      # the reference's logarithms: 60 digits
        tolerance *= 2
    assert abs(Fraction(split.gain) - max(gain, 0)) <= Fraction(tolerance)


def test_histograms_of_weighted_samples():
    codes = np.array([[0, 1], [1, 1], [1, MISSING_BIN], [0, 0]], dtype=np.uint8)
    stats = np.array([[1.0], [2.0], [3.0], [4.0]])
    weights = np.array([0.5, 2.0, 1.0, 3.0])
    sums, counts, bin_weights = node_histograms(codes, stats, MISSING_BIN + 1, weights)
    assert counts[0, :2].tolist() == [2, 2] and counts[1, [0, 1, MISSING_BIN]].tolist() == [
        1, 2, 1]
    # small binary fractions: sums exact
    assert bin_weights[0, :2].tolist() == [3.5, 3.0]
    assert bin_weights[1, [0, 1, MISSING_BIN]].tolist() == [3.0, 2.5, 1.0]
    assert sums[1, [0, 1, MISSING_BIN], 0].tolist() == [4.0, 3.0, 3.0]
    assert bin_weights.sum() == 2 * weights.sum() and counts.sum() == 8
