"""Best-first growth: the same tree as depth first without ``max_leaf_nodes``, splits in
order of gain, and ``max_leaf_nodes`` keeping the most useful splits anywhere in the
tree."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.reference import assert_same_tree, sums_tolerance
from treelib.criteria import one_hot
from treelib.finders import Finder
from treelib.growth import StoppingRules, grow
from treelib.tree import TREE_LEAF, TREE_UNDEFINED


def random_regression(seed=0, n=200):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = X[:, 0] + 3 * (X[:, 1] > 1) + rng.normal(scale=0.1, size=n)
    return X, y[:, None]


def node_gains(tree):
    """n I(node) - n_left I(left) - n_right I(right) of every split node, from the
    recorded impurities (NaN at leaves)."""
    weighted = tree.n_node_samples * tree.impurity
    gains = np.full(tree.node_count, np.nan)
    internal = np.flatnonzero(~tree.is_leaf)
    gains[internal] = (weighted[internal] - weighted[tree.children_left[internal]]
                       - weighted[tree.children_right[internal]])
    return gains


def test_children_are_numbered_when_their_parent_is_split():
    X, Y = random_regression()
    finder, rules = Finder("cumsum", "squared_error"), StoppingRules(max_depth=4)
    best = grow("best_first", X, Y, finder, rules)
    assert_same_tree(best, grow("depth_first", X, Y, finder, rules))
    # the s-th split (s = 0, 1, ...) creates nodes 2s + 1 and 2s + 2
    internal = np.flatnonzero(~best.is_leaf)
    split_order = np.argsort(best.children_left[internal])
    np.testing.assert_array_equal(best.children_left[internal][split_order],
                                  1 + 2 * np.arange(len(internal)))
    np.testing.assert_array_equal(best.children_right[internal],
                                  best.children_left[internal] + 1)


def test_the_most_useful_leaf_is_split_first():
    X, Y = random_regression(seed=1)
    tree = grow("best_first", X, Y, Finder("cumsum", "squared_error"), StoppingRules())
    gains = node_gains(tree)
    internal = np.flatnonzero(~tree.is_leaf)
    order = internal[np.argsort(tree.children_left[internal])]   # in the order split
    # the gains recomputed from impurities are off by the rounding of sums of n squares
    slack = 4 * sums_tolerance(len(Y), float(np.max(tree.impurity)) * len(Y))
    for s, node in enumerate(order):
        # every node that already existed when ``node`` was split (ids below 2s + 1)
        # and was split later gains at most as much
        later = order[s + 1:]
        waiting = later[later < 2 * s + 1]
        assert np.all(gains[waiting] <= gains[node] + slack), f"split {s}"
    assert order[0] == 0 and gains[0] >= np.nanmax(gains) - slack


@pytest.mark.parametrize("criterion", ["squared_error", "gini"])
def test_max_leaf_nodes_k_gives_the_first_splits_of_the_unlimited_tree(criterion):
    rng = np.random.default_rng(2)
    X = rng.normal(size=(150, 3))
    if criterion == "squared_error":
        Y = (X[:, 0] * X[:, 1] + rng.normal(scale=0.3, size=150))[:, None]
    else:
        Y = one_hot((X[:, 0] + X[:, 2] ** 2 + rng.normal(scale=0.5, size=150) > 0.5)
                    .astype(int), 2)
    finder = Finder("cumsum", criterion)
    full = grow("best_first", X, Y, finder, StoppingRules())
    assert full.n_leaves > 20
    for k in (2, 3, 5, 8, 13, 21):
        tree = grow("best_first", X, Y, finder, StoppingRules(max_leaf_nodes=k))
        assert tree.n_leaves == k and tree.node_count == 2 * k - 1
        first = slice(0, 2 * k - 1)
        # the same nodes, values and impurities: the same computation, bit for bit
        for name in ("n_node_samples", "value", "impurity"):
            np.testing.assert_array_equal(getattr(tree, name), getattr(full, name)[first])
        split = ~tree.is_leaf
        np.testing.assert_array_equal(tree.feature[split], full.feature[first][split])
        np.testing.assert_array_equal(tree.threshold[split], full.threshold[first][split])
        np.testing.assert_array_equal(tree.children_left[split],
                                      full.children_left[first][split])
        # the nodes not split yet are leaves here
        assert np.all(tree.feature[~split] == TREE_UNDEFINED)
        assert np.all(tree.children_left[~split] == TREE_LEAF)


def test_max_leaf_nodes_keeps_the_most_useful_splits():
    rng = np.random.default_rng(1)
    X = rng.uniform(size=(500, 2))
    y = np.where(X[:, 0] < 0.5, 0.0, 10.0) + np.where(X[:, 1] < 0.1, 3.0, 0.0)
    y += rng.normal(scale=0.01, size=500)
    tree = grow("best_first", X, y[:, None], Finder("cumsum", "squared_error"),
                StoppingRules(max_leaf_nodes=3))
    assert tree.n_leaves == 3
    # the root splits the step of feature 0 at 0.5 (gain about 25 x 500), between two
    # samples close to 0.5
    assert tree.feature[0] == 0 and abs(tree.threshold[0] - 0.5) < 0.01
    # the second split is the step of feature 1 at 0.1 (gain about 9 x 45), in
    # whichever child of the root it was made: the depth-limited tree would have made
    # two splits at depth 1 instead
    second = ~tree.is_leaf[1:]
    assert tree.feature[1:][second].tolist() == [1]
    assert abs(tree.threshold[1:][second][0] - 0.1) < 0.01


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 60), k=st.integers(2, 12),
       criterion=st.sampled_from(["squared_error", "gini", "entropy"]),
       splitter=st.sampled_from(["cumsum", "hist"]))
def test_max_leaf_nodes_is_a_prefix_of_the_unlimited_growth(seed, n, k, criterion, splitter):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 5, size=(n, 2)).astype(np.float64)
    Y = (rng.normal(size=(n, 1)) if criterion == "squared_error"
         else one_hot(rng.integers(0, 3, n), 3))
    finder = Finder(splitter, criterion)
    data = finder.prepare(X)
    full = grow("best_first", data, Y, finder, StoppingRules())
    tree = grow("best_first", data, Y, finder, StoppingRules(max_leaf_nodes=k))
    assert tree.n_leaves == min(k, full.n_leaves)
    first = slice(0, tree.node_count)
    np.testing.assert_array_equal(tree.n_node_samples, full.n_node_samples[first])
    split = ~tree.is_leaf
    np.testing.assert_array_equal(tree.feature[split], full.feature[first][split])
    np.testing.assert_array_equal(tree.threshold[split], full.threshold[first][split])
