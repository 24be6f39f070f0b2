"""The per-node growers' shortcuts give the same results as the long way, bit for bit:
rounding bounds computed for the contenders alone (``treelib.split.best_contender``,
``treelib.finders.exact.lazy_scores``) against every cut's bounds and ``best_cut``;
a single node's statistics against ``node_statistics`` of a level; ``TreeRecorder``'s
one-node methods against ``add_nodes`` / ``set_splits``."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from treelib.criteria import node_statistics, target_statistics
from treelib.finders.exact import (
    contender_split,
    feature_scores,
    lazy_scores,
    node_cap,
    split_at,
)
from treelib.split import best_contender, best_cut
from treelib.tree import LEFT, RIGHT, TreeRecorder

CRITERIA = ["squared_error", "gini", "entropy", "poisson"]


@st.composite
def nodes(draw):
    """A node of ties, duplicates, constant features, tiny n and large offsets: ``(X, y,
    weights or None)``."""
    n = draw(st.integers(2, 30))
    f = draw(st.integers(1, 4))
    levels = draw(st.integers(1, 5))
    X = np.array(draw(st.lists(st.integers(0, levels), min_size=n * f, max_size=n * f)),
                 np.float64).reshape(n, f)
    offset = draw(st.sampled_from([0.0, 1e6, 1e12]))
    y = offset + np.array(draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)), float)
    weights = draw(st.one_of(st.none(), st.lists(st.sampled_from([0.5, 1.0, 3.0]),
                                                 min_size=n, max_size=n).map(np.array)))
    return X, y, weights


def statistics(y, criterion):
    """The node's targets as the finders take them (Poisson: counts from 0)."""
    if criterion == "poisson":
        y = y - y.min() + (1.0 if np.all(y == y.min()) else 0.0)
    return target_statistics(y, criterion)


def long_way(X, Y, node, criterion, msl, weights):
    """The split the finder gave before the shortcut: every cut's bound, ``best_cut``."""
    gains, bounds, x_sorted, _ = feature_scores(X, Y, node, np.zeros(X.shape[1], int),
                                                criterion, msl, "cumsum", weights)
    best = best_cut(gains, bounds)
    if best is None:
        return None
    row, feature = best
    return split_at(feature, row, float(gains[row, feature]), x_sorted[row, feature],
                    x_sorted[row + 1, feature], len(X), 0)


@settings(max_examples=100, deadline=None)
@given(nodes(), st.sampled_from(CRITERIA), st.integers(1, 3))
def test_contenders_alone_choose_best_cuts_split(node_data, criterion, msl):
    """Gains, the bounds asked for and the split are those of the long way, bit for bit."""
    X, y, weights = node_data
    Y = statistics(y, criterion)
    node = node_statistics(Y, [len(Y)], criterion, weights)
    expected = long_way(X, Y, node, criterion, msl, weights)
    assert contender_split(X, Y, node, criterion, msl, weights, None) == expected
    gains, bounds_at, _, _ = lazy_scores(X, node, criterion, msl, weights)
    all_gains, all_bounds, _, _ = feature_scores(X, Y, node, np.zeros(X.shape[1], int),
                                                 criterion, msl, "cumsum", weights)
    np.testing.assert_array_equal(gains, all_gains)
    cuts, features = np.nonzero(gains > -np.inf)
    np.testing.assert_array_equal(bounds_at(cuts, features), all_bounds[cuts, features])


def test_best_contender_is_best_cut_on_near_ties():
    """Gains one rounding apart, bounds larger than the gap: the lowest feature wins, as
    in ``best_cut``; a cut far below the best never asks for its bound."""
    gains = np.array([[1.0, 1.0 + 2e-16, 0.5], [-np.inf, 1.0 - 1e-16, 0.2]])
    bounds = np.full(gains.shape, 1e-15)
    asked = []

    def bounds_at(cuts, features):
        asked.append(len(cuts))
        return bounds[cuts, features]

    assert best_contender(gains, bounds_at, lambda top: 1e-15) == best_cut(gains, bounds)
    assert asked == [2]          # the reference and the one cut before it
    assert best_contender(np.full((2, 2), -np.inf), bounds_at, lambda top: 0.0) is None
    assert best_contender(np.array([[3.0, 1.0]]), None, None) == (0, 0)   # first: wins
    assert best_contender(np.array([[1.0, 3.0]]), None, lambda top: 0.0) == (0, 1)


def test_node_cap_bounds_every_bound_of_a_node():
    """The cap the contenders are chosen by is at least every cut's bound."""
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(200, 3)), 1e6 + rng.normal(size=200)
    Y = target_statistics(y, "squared_error")
    node = node_statistics(Y, [200], "squared_error")
    gains, bounds_at, _, _ = lazy_scores(X, node, "squared_error", 1, None)
    cuts, features = np.nonzero(gains > -np.inf)
    assert bounds_at(cuts, features).max() <= node_cap(node, "squared_error", gains.max())


@pytest.mark.parametrize("criterion", CRITERIA + ["absolute_error"])
@pytest.mark.parametrize("weighted", [False, True])
def test_one_nodes_statistics_are_those_of_a_level(criterion, weighted):
    """A single node's statistics (the shortcut without segment ids) equal its own row
    of ``node_statistics`` on a level of three nodes, bit for bit."""
    rng = np.random.default_rng(1)
    y = np.round(1e6 + rng.normal(size=30) * 3) if criterion != "poisson" else \
        rng.poisson(2.0, size=30).astype(float) + (np.arange(30) % 3 == 0)
    Y = target_statistics(y if criterion not in ("gini", "entropy") else y % 3, criterion)
    weights = rng.uniform(0.5, 2, size=30) if weighted else None
    level = node_statistics(Y, [10, 12, 8], criterion, weights)
    one = node_statistics(Y[10:22], [12], criterion, None if weights is None
                          else weights[10:22])
    for name in ("value", "impurity", "totals", "weight", "scale"):
        np.testing.assert_array_equal(getattr(one, name)[0], getattr(level, name)[1])
    np.testing.assert_array_equal(one.stats, level.stats[10:22])


def test_one_node_recorder_methods_make_the_same_tree():
    """``add_node``/``set_split`` build the tree ``add_nodes``/``set_splits`` build."""
    trees = []
    for single in (False, True):
        tree = TreeRecorder()
        value, impurity = np.array([0.5, 0.5]), np.float64(0.5)
        if single:
            root = tree.add_node(value, impurity, 4, None, LEFT, np.float64(4.0))
            tree.set_split(root, 1, 0.25, True)
            tree.add_node(value * 0, impurity * 0, 3, root, LEFT, np.float64(3.0))
            tree.add_node(value * 0 + 1, impurity * 0, 1, root, RIGHT, np.float64(1.0))
        else:
            root = tree.add_nodes(value, impurity, 4, None, LEFT, np.float64(4.0))
            tree.set_splits(root, 1, 0.25, True)
            tree.add_nodes(value * 0, impurity * 0, 3, root, LEFT, np.float64(3.0))
            tree.add_nodes(value * 0 + 1, impurity * 0, 1, root, RIGHT, np.float64(1.0))
        trees.append(tree.finish())
    for name, array in vars(trees[0]).items():
        other = getattr(trees[1], name)
        assert array.dtype == other.dtype, name
        np.testing.assert_array_equal(array, other)
