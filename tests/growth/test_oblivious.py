"""Oblivious trees (``treelib.growth.oblivious``): every level's test against a brute
force that tries every (feature, cut) and scores it by the children's losses summed over
the level's nodes, in exact arithmetic under treelib's tie rule; the leaves' values; the
bit-index prediction against a row-by-row walk; weights as repeated rows; and
scikit-learn's estimator checks."""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from sklearn.utils.estimator_checks import parametrize_with_checks

from tests.reference import NODE_LOSS, exact_gain, identity_bound, sums_tolerance, tie_rule
from treelib import ObliviousTreeClassifier, ObliviousTreeRegressor
from treelib.counters import GrowthCounter
from treelib.criteria import target_statistics
from treelib.datasets import load_california_housing
from treelib.finders import Finder
from treelib.growth import StoppingRules
from treelib.growth.oblivious import grow_oblivious
from treelib.split import midpoint

CRITERIA = ["squared_error", "gini", "entropy"]


@st.composite
def datasets(draw, max_n=30, max_features=3):
    """Small data with many ties: a few distinct values per feature, targets with
    offsets (squared error) or three classes."""
    n = draw(st.integers(1, max_n))
    f = draw(st.integers(1, max_features))
    X = draw(hnp.arrays(np.float64, (n, f), elements=st.integers(0, 4).map(float)))
    criterion = draw(st.sampled_from(CRITERIA))
    if criterion == "squared_error":
        offset = draw(st.sampled_from([0.0, 1e6, -1e8]))
        y = offset + draw(hnp.arrays(np.float64, n, elements=st.integers(-3, 3).map(float)
                                     | st.floats(-10, 10, allow_subnormal=False)))
    else:
        y = draw(hnp.arrays(np.int64, n, elements=st.integers(0, 2)))
    return X, y, criterion, draw(st.integers(1, 4))


def grow(X, y, criterion, max_depth, weights=None, counter=None):
    finder = Finder("hist", criterion)
    return grow_oblivious(finder.prepare(X), target_statistics(y, criterion), finder,
                          StoppingRules(max_depth=max_depth), counter, weights)


def leaf_by_loop(features, thresholds, x):
    """The leaf of one row, test by test: bit l set when it goes right at level l."""
    return sum(1 << level for level, (j, t) in enumerate(zip(features, thresholds))
               if x[j] > t)


def brute_force_level(X, y, node, criterion):
    """The best shared test of a level whose row i is in node ``node[i]``: every cut
    between two distinct values of every feature (over all rows), its gain summed over
    the nodes it splits (a node it leaves whole adds 0), exact; treelib's tie rule with
    the nodes' rounding bounds added up.  Returns ``(feature, threshold, gain, bound)``
    or None."""
    candidates = []
    for j in range(X.shape[1]):
        values = np.unique(X[:, j])
        for low, high in zip(values[:-1], values[1:]):
            threshold = float(midpoint(low, high))
            gain, bound = Fraction(0), 0.0
            for s in np.unique(node):
                rows = node == s
                left = X[rows, j] <= threshold
                if left.any() and not left.all():
                    gain += exact_gain(y[rows], left, criterion)
                    bound += identity_bound(y[rows], left, criterion)
            candidates.append(((j, threshold), gain, bound))
    chosen = tie_rule(candidates)
    if chosen is None:
        return None
    (j, threshold), gain, bound = candidates[chosen]
    return j, threshold, gain, bound


@settings(max_examples=150, deadline=None)
@given(data=datasets())
def test_every_level_is_the_brute_force_best_shared_test(data):
    X, y, criterion, max_depth = data
    tree = grow(X, y, criterion, max_depth)
    node = np.zeros(len(y), dtype=np.intp)
    for level in range(max_depth):
        best = brute_force_level(X, y, node, criterion)
        if level == tree.depth:                  # stopped: nothing left to gain
            assert best is None or best[2] <= 2 * best[3]
            break
        assert best is not None and best[2] > 0
        assert (tree.feature[level], tree.threshold[level]) == best[:2]
        node = node + ((X[:, best[0]] > best[1]) << level)
    else:
        assert tree.depth == max_depth


@settings(max_examples=100, deadline=None)
@given(data=datasets())
def test_leaves_hold_their_rows_and_predict_their_mean(data):
    X, y, criterion, max_depth = data
    tree = grow(X, y, criterion, max_depth)
    leaves = np.array([leaf_by_loop(tree.feature, tree.threshold, x) for x in X])
    np.testing.assert_array_equal(tree.apply(X), leaves)
    assert tree.n_leaves == 2 ** tree.depth
    np.testing.assert_array_equal(tree.n_leaf_samples,
                                  np.bincount(leaves, minlength=tree.n_leaves))
    Y = target_statistics(y, criterion)
    scale = max(np.abs(Y).max(), 1.0)
    for leaf in range(tree.n_leaves):
        ancestor = leaf
        for level in reversed(range(tree.depth + 1)):     # empty: the nearest ancestor
            ancestor = leaf % (1 << level)
            rows = leaves % (1 << level) == ancestor
            if rows.any():
                break
        np.testing.assert_allclose(tree.value[leaf], Y[rows].mean(axis=0), rtol=0,
                                   atol=4 * sums_tolerance(rows.sum(), scale))


@settings(max_examples=60, deadline=None)
@given(data=datasets(), seed=st.integers(0, 2**16))
def test_integer_weights_are_repeated_rows(data, seed):
    X, y, criterion, max_depth = data
    counts = np.random.default_rng(seed).integers(1, 4, len(y)).astype(np.float64)
    weighted = grow(X, y, criterion, max_depth, weights=counts)
    repeated = grow(np.repeat(X, counts.astype(int), axis=0),
                    np.repeat(y, counts.astype(int)), criterion, max_depth)
    np.testing.assert_array_equal(weighted.feature, repeated.feature)
    np.testing.assert_array_equal(weighted.threshold, repeated.threshold)
    scale = max(np.abs(target_statistics(y, criterion)).max(), 1.0)
    np.testing.assert_allclose(weighted.value, repeated.value, rtol=0,
                               atol=8 * sums_tolerance(int(counts.sum()), scale))


def test_a_level_that_gains_nothing_is_not_grown():
    X = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])
    tree = grow(X, np.array([1.0, 1.0, 5.0, 5.0]), "squared_error", max_depth=4)
    assert tree.depth == 1 and tree.feature[0] == 0          # x1 alone explains y
    constant = grow(X, np.full(4, 3.0), "squared_error", max_depth=4)
    assert constant.depth == 0 and constant.n_leaves == 1
    np.testing.assert_array_equal(constant.predict(X)[:, 0], 3.0)


def test_xor_needs_two_levels_that_no_single_level_sees():
    # On XOR no first test gains anything (each leaves both halves half and half), so
    # an oblivious tree, like a greedy CART tree, stops at the root.
    X = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])
    assert grow(X, np.array([0, 1, 1, 0]), "gini", max_depth=2).depth == 0


def test_the_counter_sees_every_level():
    X, y = load_california_housing(return_X_y=True)
    counter = GrowthCounter()
    tree = grow(X[:2000], y[:2000], "squared_error", 5, counter=counter)
    assert counter.levels == tree.depth == 5
    # the nodes searched are those that hold rows: a level that cuts a feature again can
    # leave some of its 2**l nodes empty (here MedInc <= 5.16 at level 0, then <= 2.94
    # and <= 7.51 at levels 2 and 3: no row is both above 5.16 and below 2.94)
    leaves = tree.apply(X[:2000])
    assert counter.nodes_per_depth == [len(np.unique(leaves % (1 << level)))
                                       for level in range(5)]
    assert counter.nodes_per_depth[3] < 8
    assert counter.samples_per_depth == [2000] * 5


def test_the_estimator_predicts_by_bit_index_on_california():
    X, y = load_california_housing(return_X_y=True)
    model = ObliviousTreeRegressor(max_depth=6).fit(X[:4000], y[:4000])
    tree = model.tree_
    X32 = X[4000:5000].astype(np.float32)
    leaves = [leaf_by_loop(tree.feature, tree.threshold, x) for x in X32]
    np.testing.assert_array_equal(model.apply(X[4000:5000]), leaves)
    np.testing.assert_array_equal(model.predict(X[4000:5000]), tree.value[leaves, 0])
    assert model.get_depth() == 6 and model.get_n_leaves() == 64
    assert model.feature_importances_.sum() == pytest.approx(1.0)


def test_the_level_loss_never_increases_with_depth():
    # Each level's test can only lower the summed loss of the leaves (its gain is > 0).
    X, y = load_california_housing(return_X_y=True)
    losses = []
    for depth in range(1, 7):
        model = ObliviousTreeRegressor(max_depth=depth).fit(X[:3000], y[:3000])
        losses.append(float(np.sum((y[:3000] - model.predict(X[:3000])) ** 2)))
    assert all(b < a for a, b in zip(losses, losses[1:]))


def test_bad_parameters_are_named():
    X, y = np.zeros((4, 1)), np.arange(4.0)
    with pytest.raises(ValueError, match="max_depth"):
        ObliviousTreeRegressor(max_depth=0).fit(X, y)
    with pytest.raises(ValueError, match="max_depth"):
        ObliviousTreeRegressor(max_depth=21).fit(X, y)
    with pytest.raises(ValueError, match="criterion"):
        ObliviousTreeRegressor(criterion="poisson").fit(X, y)
    finder = Finder("cumsum", "squared_error")
    with pytest.raises(ValueError, match="hist"):
        grow_oblivious(X, y[:, None], finder, StoppingRules(max_depth=2))
    finder = Finder("hist", "squared_error")
    with pytest.raises(ValueError, match="max_depth"):
        grow_oblivious(finder.prepare(X), y[:, None], finder, StoppingRules())


def test_the_exact_losses_of_the_reference_are_the_criteria():
    # The brute force scores with tests.reference's exact losses; one level by hand.
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    y = np.array([0.0, 0.0, 4.0, 4.0])
    best = brute_force_level(X, y, np.zeros(4, dtype=np.intp), "squared_error")
    assert best[:3] == (0, 1.5, NODE_LOSS["squared_error"](y))


@parametrize_with_checks([ObliviousTreeRegressor(), ObliviousTreeClassifier(),
                          ObliviousTreeClassifier(criterion="entropy", max_depth=3,
                                                  max_bins=16)])
def test_scikit_learn_compatible(estimator, check):
    check(estimator)
