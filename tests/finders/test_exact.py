"""The exact split finders (``treelib.finders.exact`` through ``treelib.best_split``)
against the brute force of ``tests.reference``: every candidate threshold scored from
scratch in exact arithmetic (squared error, Gini; entropy from counts), treelib's tie
rule applied with each finder's rounding bounds.  Also: every gain of every cut within
its bound of the exact gain, scan and cumsum equal bit for bit, and the input checks."""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from tests.reference import (
    NODE_LOSS,
    brute_force_best,
    brute_force_split,
    exact_sse,
    identity_bound,
    loss_bound,
    naive_bound,
)
from treelib import best_split
from treelib.criteria import target_statistics
from treelib.finders.exact import (
    SCORERS,
    candidate_cuts,
    cumsum_gains,
    exact_split,
    scan_gains,
    threshold_gains,
)
from treelib.split import Split

SPLITTERS = sorted(SCORERS)
CLASSIFICATION = ["gini", "entropy"]


def reference_bound(splitter):
    """The rounding bound of a finder's gains: the naive finder subtracts losses
    recomputed from scratch, the others add up statistics."""
    return naive_bound if splitter == "naive" else identity_bound


def assert_same_split(split, expected, X, y, criterion, splitter):
    """``split`` is the brute force's: same feature, threshold and children (exact), and
    a gain within the finder's rounding bound of the exact gain."""
    if expected is None:
        assert split is None
        return
    assert split is not None
    feature, threshold, n_left, gain = expected
    assert (split.feature, split.threshold, split.n_left) == (feature, threshold, n_left)
    assert split.n_left + split.n_right == len(y)
    bound = reference_bound(splitter)(np.asarray(y), split.goes_left(X), criterion)
    if criterion == "entropy":        # the reference's entropy is itself a float sum
        bound += identity_bound(np.asarray(y), split.goes_left(X), criterion)
    assert abs(Fraction(split.gain) - max(gain, 0)) <= Fraction(bound)


# Feature values from a small pool make ties and duplicated rows common; a column can be
# made constant; targets may carry a large offset.
@st.composite
def node_data(draw, max_n=30):
    n = draw(st.integers(1, max_n))
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
            -100, 100, allow_nan=False, allow_subnormal=False).filter(
                lambda v: v == 0 or abs(v) > 1e-60)))       # no underflow in squares
    y = y + draw(st.sampled_from([0.0, 1e6, 1e8, -1e8, 1e12]))
    min_samples_leaf = draw(st.integers(1, 4))
    return X, y, min_samples_leaf


@st.composite
def classification_node(draw):
    n = draw(st.integers(1, 30))
    f = draw(st.integers(1, 3))
    X = draw(hnp.arrays(np.float64, (n, f), elements=st.integers(-3, 3).map(float)
                        | st.floats(-1e3, 1e3, allow_nan=False, allow_subnormal=False)))
    for j in draw(st.sets(st.integers(0, f - 1), max_size=f)):
        X[:, j] = X[0, j]
    n_classes = draw(st.integers(1, 5))
    labels = draw(hnp.arrays(np.int64, n, elements=st.integers(0, n_classes - 1)))
    return X, labels, draw(st.integers(1, 3))


# --- the best split against brute force -------------------------------------------------


@pytest.mark.parametrize("splitter", SPLITTERS)
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=node_data())
def test_every_splitter_equals_brute_force(splitter, data):
    X, y, min_samples_leaf = data
    split = best_split(X, y, splitter, min_samples_leaf=min_samples_leaf)
    expected = brute_force_split(X, y, "squared_error", min_samples_leaf,
                                 bound=reference_bound(splitter))
    assert_same_split(split, expected, X, y, "squared_error", splitter)


@pytest.mark.parametrize("criterion", CLASSIFICATION)
@pytest.mark.parametrize("splitter", SPLITTERS)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=classification_node())
def test_every_splitter_equals_brute_force_on_classes(splitter, criterion, data):
    X, labels, min_samples_leaf = data
    split = best_split(X, labels, splitter, criterion=criterion,
                       min_samples_leaf=min_samples_leaf)
    expected = brute_force_split(X, labels, criterion, min_samples_leaf,
                                 bound=reference_bound(splitter))
    assert_same_split(split, expected, X, labels, criterion, splitter)


@settings(max_examples=60, deadline=None)
@given(data=node_data(), offset=st.sampled_from([1e6, 1e8, -1e10]))
def test_an_offset_in_y_does_not_change_the_split(data, offset):
    X, y, min_samples_leaf = data
    # integer targets stay exact after the shift, so the true best split is unchanged
    y = np.round(y - np.round(y.mean()))
    assume(np.abs(y).max() < 1e3)
    for splitter in SPLITTERS:
        a = best_split(X, y, splitter, min_samples_leaf=min_samples_leaf)
        b = best_split(X, y + offset, splitter, min_samples_leaf=min_samples_leaf)
        if a is None:
            assert b is None
            continue
        assert (a.feature, a.threshold, a.n_left) == (b.feature, b.threshold, b.n_left)
        # both are the same exact gain, each up to its own rounding bound
        left = a.goes_left(X)
        exact = exact_sse(y) - exact_sse(y[left]) - exact_sse(y[~left])
        for split, targets in [(a, y), (b, y + offset)]:
            bound = reference_bound(splitter)(targets, left, "squared_error")
            assert abs(Fraction(split.gain) - max(exact, 0)) <= Fraction(bound)


# --- every cut's gain, and the scorers against each other -------------------------------


def exact_gains(X, y, criterion):
    """Exact gain of the cut after every sorted position of every feature."""
    order = np.argsort(X, axis=0, kind="stable")
    loss = NODE_LOSS[criterion]
    labels = list(y) if criterion == "squared_error" else [int(v) for v in y]
    parent = loss(labels)
    gains = {}
    for j in range(X.shape[1]):
        ranked = [labels[i] for i in order[:, j]]
        for i in range(len(y) - 1):
            gains[i, j] = parent - loss(ranked[: i + 1]) - loss(ranked[i + 1:])
    return gains


@pytest.mark.parametrize("splitter", SPLITTERS)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=node_data(max_n=15), criterion=st.sampled_from(["squared_error", "gini"]))
def test_every_cut_is_scored_within_its_rounding_bound(splitter, data, criterion):
    X, y, min_samples_leaf = data
    if criterion == "gini":
        y = (np.abs(y) % 3).astype(int)
    order, _, valid = candidate_cuts(X, min_samples_leaf)
    gains, bounds = SCORERS[splitter](target_statistics(y, criterion), order, valid,
                                      criterion)
    assert gains.shape == bounds.shape == valid.shape
    assert np.array_equal(np.isfinite(gains), valid)            # -inf exactly off-candidate
    assert np.all(bounds[~valid] == 0) and np.all(bounds >= 0)
    for (i, j), exact in exact_gains(X, y, criterion).items():
        if valid[i, j]:
            assert abs(Fraction(gains[i, j]) - exact) <= Fraction(bounds[i, j])


@settings(max_examples=100, deadline=None)
@given(data=node_data(max_n=60), criterion=st.sampled_from(["squared_error", "gini",
                                                            "entropy"]),
       k=st.integers(1, 3))
def test_scan_and_cumsum_give_the_same_gains_bit_for_bit(data, criterion, k):
    X, y, min_samples_leaf = data
    if criterion == "squared_error":
        # k outputs: the target and shifted, rescaled copies of it
        Y = np.column_stack([y * 10.0 ** -c + c for c in range(k)])
    else:
        Y = target_statistics((np.abs(y) % (k + 1)).astype(int), criterion)
    order, _, valid = candidate_cuts(X, min_samples_leaf)
    scan, scan_bounds = scan_gains(Y, order, valid, criterion)
    cumsum, cumsum_bounds = cumsum_gains(Y, order, valid, criterion)
    assert np.array_equal(scan, cumsum) and np.array_equal(scan_bounds, cumsum_bounds)


def test_candidate_cuts_only_between_different_values():
    X = np.array([[1.0, 5.0], [0.0, 5.0], [1.0, 5.0], [2.0, 5.0]])
    order, x_sorted, valid = candidate_cuts(X)
    assert order[:, 0].tolist() == [1, 0, 2, 3]                  # stable
    assert x_sorted[:, 0].tolist() == [0.0, 1.0, 1.0, 2.0]
    assert valid.tolist() == [[True, False], [False, False], [True, False]]
    _, _, valid = candidate_cuts(X, min_samples_leaf=2)
    assert valid[:, 0].tolist() == [False, False, False]


# --- small cases ---------------------------------------------------------------------------


@pytest.mark.parametrize("splitter", SPLITTERS)
def test_two_samples(splitter):
    # centred targets -5 and 5: every step exact
    split = best_split([[1.0], [3.0]], [10.0, 20.0], splitter)
    assert split == Split(feature=0, threshold=2.0, gain=50.0, n_left=1, n_right=1)


@pytest.mark.parametrize("splitter", SPLITTERS)
def test_no_split_exists(splitter):
    assert best_split([[1.0, 2.0]], [5.0], splitter) is None  # one sample
    constant = np.ones((6, 3))
    assert best_split(constant, np.arange(6.0), splitter) is None  # constant features
    # a cut exists, but not one leaving 4 samples on each side of 6
    assert best_split(np.arange(6.0)[:, None], np.arange(6.0), splitter,
                      min_samples_leaf=4) is None


@pytest.mark.parametrize("splitter", SPLITTERS)
def test_ties_go_to_the_lowest_feature_then_the_lowest_threshold(splitter):
    # features 1 and 2 are identical copies, and on each of them the cuts 0|1 and
    # 2|3 (symmetric targets) gain the same: feature 1, threshold 0.5 must win.
    x = np.array([0.0, 1.0, 2.0, 3.0])
    X = np.column_stack([np.zeros(4), x, x])
    y = np.array([0.0, 5.0, 5.0, 0.0]) + 1e8
    split = best_split(X, y, splitter)
    assert (split.feature, split.threshold, split.n_left) == (1, 0.5, 1)


@pytest.mark.parametrize("splitter", SPLITTERS)
def test_constant_target_splits_at_zero_gain(splitter):
    split = best_split(np.arange(5.0)[:, None], np.full(5, 0.1), splitter)
    assert split.gain == 0.0 and split.threshold == 0.5


@pytest.mark.parametrize("splitter", SPLITTERS)
def test_unchecked_input_takes_the_statistics(splitter):
    rng = np.random.default_rng(0)
    X, y = rng.integers(0, 4, size=(30, 2)).astype(float), rng.integers(0, 3, size=30)
    for criterion in ["squared_error", "gini"]:
        Y = target_statistics(y, criterion)
        assert (best_split(X, Y, splitter, criterion=criterion, check_input=False)
                == best_split(X, y, splitter, criterion=criterion)
                == exact_split(X, Y, criterion, 1, splitter))


def test_threshold_gains_lists_every_cut_of_one_feature():
    x = np.array([3.0, 1.0, 2.0, 2.0, 5.0])
    y = np.array([1.0, 0.0, 0.0, 4.0, 3.0])
    thresholds, gains = threshold_gains(x, target_statistics(y, "squared_error"))
    np.testing.assert_array_equal(thresholds, [1.5, 2.5, 4.0])
    for t, gain in zip(thresholds, gains, strict=True):
        exact = exact_sse(y) - exact_sse(y[x <= t]) - exact_sse(y[x > t])
        assert abs(Fraction(gain) - exact) <= Fraction(identity_bound(y, x <= t,
                                                                      "squared_error"))
    best = best_split(x[:, None], y)
    assert best.threshold == thresholds[np.argmax(gains)]


def test_string_labels_and_a_pure_node():
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    split = best_split(X, ["cat", "cat", "dog", "dog"], criterion="entropy")
    assert (split.threshold, split.gain) == (1.5, 4.0)   # 4 samples x 1 bit, exact
    pure = best_split(X, ["cat"] * 4, criterion="gini")
    assert pure.gain == 0.0


def test_multiclass_gain_curve_peaks_where_the_classes_separate():
    x = np.arange(9.0)
    labels = np.repeat([0, 1, 2], 3)
    thresholds, gains = threshold_gains(x, target_statistics(labels, "gini"), "gini")
    # the cuts 2.5 and 5.5 gain exactly the same (counts: exact): both maxima
    assert list(thresholds[gains == gains.max()]) == [2.5, 5.5]
    assert best_split(x[:, None], labels, criterion="gini").threshold == 2.5


# --- input checks ---------------------------------------------------------------------------


def test_bad_labels_are_rejected():
    with pytest.raises(ValueError, match="NaN"):
        best_split([[0.0], [1.0]], [0.0, np.nan], criterion="gini")
    with pytest.raises(ValueError, match="criterion"):
        best_split([[0.0], [1.0]], [0, 1], criterion="misclassification")
    with pytest.raises(ValueError, match="different numbers of samples"):
        best_split([[0.0], [1.0]], [0, 1, 1], criterion="gini")


@pytest.mark.parametrize("splitter", SPLITTERS)
def test_targets_whose_squares_overflow_are_rejected(splitter):
    # sums of squares of y around 1e155 overflow float64: a clear error, not a leaf
    X = np.arange(4.0)[:, None]
    with pytest.raises(ValueError, match="overflow float64.*rescale y"):
        best_split(X, np.array([1e155, -1e155, 1e155, 0.0]), splitter)
    # the same targets divided by 1e150, as the message suggests, split fine
    split = best_split(X, np.array([1e5, -1e5, 1e5, 0.0]), splitter)
    assert split is not None and split.gain > 0


# --- sample weights, Poisson, absolute error and missing values --------------------------


def targets_for(draw, criterion, n):
    """Targets with ties: small integers (regression; counts for Poisson) or labels."""
    if criterion in CLASSIFICATION:
        return draw(hnp.arrays(np.int64, n, elements=st.integers(0, 2)))
    low = 0 if criterion == "poisson" else -5
    y = draw(hnp.arrays(np.float64, n, elements=st.integers(low, 5).map(float)))
    if criterion == "poisson" and y.sum() == 0:
        y[0] = 1.0                                   # counts with a positive total
    return y


@st.composite
def weighted_node(draw, criterion, max_n=16, missing=False):
    """Features from a small pool (ties, duplicates, constant columns), targets with
    ties, positive weights (None, integers or binary fractions); with ``missing``, each
    feature gets a pattern of NaN: none, some, all, or some in a constant feature."""
    n = draw(st.integers(2, max_n))
    f = draw(st.integers(1, 3))
    X = draw(hnp.arrays(np.float64, (n, f), elements=st.integers(-3, 3).map(float)))
    if missing:
        for j in range(f):
            pattern = draw(st.sampled_from(["none", "some", "some", "all", "constant"]))
            if pattern == "constant":
                X[:, j] = X[0, j]
            if pattern != "none":
                mask = draw(hnp.arrays(np.bool_, n)) if pattern != "all" else np.ones(n, bool)
                X[mask, j] = np.nan
    y = targets_for(draw, criterion, n)
    pool = [0.5, 1.0, 2.0, 3.0]
    weights = draw(st.none() | hnp.arrays(np.float64, n, elements=st.sampled_from(pool)))
    return X, y, weights, draw(st.integers(1, 3))


def assert_brute_force_split(split, expected, X, y, criterion, weights, bound):
    """``split`` is ``brute_force_best``'s: same feature, threshold, missing-value
    direction and children, and a gain within its rounding bound of the exact gain."""
    if expected is None:
        assert split is None
        return
    feature, threshold, direction, n_left, gain = expected
    assert (split.feature, split.threshold, split.missing_go_to_left, split.n_left) == (
        feature, threshold, direction, n_left)
    assert split.n_left + split.n_right == len(y)
    goes_left = split.goes_left(X)
    assert goes_left.sum() == n_left
    tolerance = bound(y, goes_left, criterion, weights)
    if criterion in ("entropy", "poisson"):       # the reference's logarithms: 60 digits
        tolerance *= 2
    assert abs(Fraction(split.gain) - max(gain, 0)) <= Fraction(tolerance)


@pytest.mark.parametrize("criterion", ["squared_error", "poisson", "gini", "entropy"])
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_cumsum_with_missing_values_equals_brute_force(criterion, data):
    # every threshold with the missing values right, the +inf cut, and every threshold
    # with them left, scored exactly; weights and min_samples_leaf included (a child's
    # size counts the missing values it receives)
    X, y, weights, min_samples_leaf = data.draw(weighted_node(criterion, missing=True))
    split = best_split(X, y, "cumsum", criterion=criterion, sample_weight=weights,
                       min_samples_leaf=min_samples_leaf)
    expected = brute_force_best(X, y, criterion, min_samples_leaf, weights)
    assert_brute_force_split(split, expected, X, y, criterion, weights, identity_bound)


def test_missing_values_left_count_towards_min_samples_leaf():
    # x <= 0.5 with the missing value left: {nan, 0} | {1, 1}, pure children of two
    # samples each; every other cut leaves one sample alone
    X, y = np.array([[np.nan], [0.0], [1.0], [1.0]]), np.array([0.0, 0.0, 1.0, 1.0])
    split = best_split(X, y, min_samples_leaf=2)
    assert split is not None
    assert (split.threshold, split.missing_go_to_left, split.n_left) == (0.5, True, 2)


@pytest.mark.parametrize("criterion", ["squared_error", "poisson", "absolute_error", "gini",
                                       "entropy"])
@pytest.mark.parametrize("splitter", SPLITTERS)
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_every_splitter_with_weights_equals_brute_force(splitter, criterion, data):
    X, y, weights, min_samples_leaf = data.draw(weighted_node(criterion, max_n=12))
    split = best_split(X, y, splitter, criterion=criterion,
                       min_samples_leaf=min_samples_leaf, sample_weight=weights)
    bound = loss_bound if splitter == "naive" else identity_bound
    expected = brute_force_best(X, y, criterion, min_samples_leaf, weights, bound)
    assert_brute_force_split(split, expected, X, y, criterion, weights, bound)


def poisson_node_with_a_zero_child():
    # x <= 0.5 isolates the zeros: the best cut for squared error, no candidate for
    # Poisson (a child predicting 0 counts); x <= 1.5 is its only cut with counts on
    # both sides
    return np.array([[0.0], [0.0], [1.0], [2.0]]), np.array([0.0, 0.0, 5.0, 5.0])


@pytest.mark.parametrize("splitter", ["scan", "cumsum"])
def test_a_poisson_child_without_counts_is_never_chosen(splitter):
    X, y = poisson_node_with_a_zero_child()
    assert best_split(X, y, splitter).threshold == 0.5           # squared error: pure
    split = best_split(X, y, splitter, criterion="poisson")
    assert (split.threshold, split.n_left) == (1.5, 3)
    assert best_split(X[:3], y[:3], splitter, criterion="poisson") is None  # a zero child
    with pytest.raises(ValueError, match="negative, which is not allowed for Poisson"):
        best_split(X, -y, splitter, criterion="poisson")


def test_the_naive_finder_never_chooses_a_poisson_child_without_counts():
    X, y = poisson_node_with_a_zero_child()
    split = best_split(X, y, "naive", criterion="poisson")
    assert (split.threshold, split.n_left) == (1.5, 3)


@pytest.mark.parametrize("splitter", SPLITTERS)
def test_a_poisson_child_of_zeros_is_refused_whatever_the_rounding(splitter):
    X = np.arange(9.0)[:, None]
    y = np.array([1.07, 0.54, 1.41, 2.41, 0.77, 0.25, 1.27, 0.68, 0.0])
    split = best_split(X, y, splitter, criterion="poisson")
    assert y[split.goes_left(X)].sum() > 0 and y[~split.goes_left(X)].sum() > 0


def test_the_plus_infinity_cut_sends_only_the_missing_values_right():
    X = np.array([[1.0], [2.0], [np.nan], [np.nan]])
    split = best_split(X, np.array([0.0, 0.0, 5.0, 5.0]))
    assert (split.threshold, split.missing_go_to_left, split.n_left) == (np.inf, False, 2)
    # a feature constant where present: that cut is its only one
    X = np.array([[4.0], [4.0], [np.nan]])
    split = best_split(X, np.array([0.0, 1.0, 5.0]))
    assert (split.threshold, split.missing_go_to_left, split.n_left) == (np.inf, False, 2)
    assert best_split(np.full((3, 1), np.nan), np.array([0.0, 1.0, 5.0])) is None


def test_missing_values_go_to_the_larger_child_when_the_node_has_none():
    split = best_split(np.arange(5.0)[:, None], np.array([0.0, 0.0, 0.0, 9.0, 9.0]))
    assert (split.n_left, split.missing_go_to_left) == (3, True)
    split = best_split(np.arange(5.0)[:, None], np.array([0.0, 0.0, 9.0, 9.0, 9.0]))
    assert (split.n_left, split.missing_go_to_left) == (2, False)
    # a tie in size: right, as scikit-learn (n_left > n_right)
    split = best_split(np.arange(4.0)[:, None], np.array([0.0, 0.0, 9.0, 9.0]))
    assert (split.n_left, split.missing_go_to_left) == (2, False)


@pytest.mark.parametrize("splitter", ["naive", "scan"])
def test_only_cumsum_searches_missing_values(splitter):
    X = np.array([[1.0], [np.nan], [2.0]])
    with pytest.raises(ValueError, match="X contains NaN"):
        best_split(X, [1.0, 2.0, 3.0], splitter)
    with pytest.raises(ValueError, match="does not handle missing values"):
        exact_split(X, np.array([[1.0], [2.0], [3.0]]), "squared_error", 1, splitter)
    with pytest.raises(ValueError, match="criterion='absolute_error' does not handle"):
        best_split(X, [1.0, 2.0, 3.0], criterion="absolute_error")
