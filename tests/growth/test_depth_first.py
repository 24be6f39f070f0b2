"""Depth-first growth, by recursion and with a stack: the same tree as every other growth
order whenever the rules allow, node ids in pre-order, and no depth limit for the stack.

``tests/growth/test_level_wise.py`` tests the level-wise grower in depth and
``tests/growth/test_best_first.py`` the best-first one; here all the growth orders are
compared on the same random training sets."""

import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from tests.reference import assert_same_tree, node_depths
from treelib.counters import GrowthCounter
from treelib.criteria import target_statistics
from treelib.estimators import DecisionTreeClassifier, DecisionTreeRegressor
from treelib.finders import Finder
from treelib.growth import GROWERS, StoppingRules, grow
from treelib.growth.depth_first import recursion_depth_limit
from treelib.tree import TREE_LEAF


@st.composite
def training_sets(draw):
    n = draw(st.integers(1, 60))
    f = draw(st.integers(1, 3))
    X = draw(hnp.arrays(np.float64, (n, f), elements=st.integers(0, 6).map(float)))
    criterion = draw(st.sampled_from(["squared_error", "gini", "entropy"]))
    if criterion == "squared_error":
        y = draw(hnp.arrays(np.float64, n, elements=st.integers(-3, 3).map(float)))
        y = y + draw(st.sampled_from([0.0, 1e8]))
    else:
        y = draw(hnp.arrays(np.int64, n, elements=st.integers(0, 2)))
    splitter = draw(st.sampled_from(["cumsum", "scan", "naive"]))
    finder = Finder(splitter, criterion, min_samples_leaf=draw(st.integers(1, 3)))
    rules = StoppingRules(max_depth=draw(st.sampled_from([1, 2, 4, None])),
                          min_samples_split=draw(st.integers(2, 6)),
                          min_impurity_decrease=draw(st.sampled_from([0.0, 0.05])))
    return X, target_statistics(y, criterion), finder, rules


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=training_sets())
def test_every_growth_order_grows_the_same_tree(data):
    X, Y, finder, rules = data
    reference = grow("recursive", X, Y, finder, rules)
    for builder in ("depth_first", "best_first"):
        assert_same_tree(grow(builder, X, Y, finder, rules), reference)
    # level-wise growth has its own vectorized search, the "cumsum" finder's
    cumsum = Finder("cumsum", finder.criterion, min_samples_leaf=finder.min_samples_leaf)
    assert_same_tree(grow("level_wise", X, Y, cumsum, rules), reference)


def random_regression(seed=0, n=200):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = X[:, 0] + 3 * (X[:, 1] > 1) + rng.normal(scale=0.1, size=n)
    return X, y[:, None]


def test_node_ids_are_in_pre_order():
    X, Y = random_regression()
    finder, rules = Finder("cumsum", "squared_error"), StoppingRules(max_depth=5)
    stack = grow("depth_first", X, Y, finder, rules)
    recursion = grow("recursive", X, Y, finder, rules)
    # the same numbering, array for array (not only the same tree)
    for name in ("children_left", "children_right", "children_missing", "feature",
                 "threshold", "n_node_samples"):
        np.testing.assert_array_equal(getattr(stack, name), getattr(recursion, name))
    # pre-order: a left child directly follows its parent, and a right child follows
    # the whole left subtree
    internal = np.flatnonzero(~stack.is_leaf)
    np.testing.assert_array_equal(stack.children_left[internal], internal + 1)
    subtree_size = np.ones(stack.node_count, dtype=int)
    for node in internal[::-1]:                 # children have larger ids than parents
        subtree_size[node] += (subtree_size[stack.children_left[node]]
                               + subtree_size[stack.children_right[node]])
    np.testing.assert_array_equal(stack.children_right[internal],
                                  internal + 1 + subtree_size[stack.children_left[internal]])
    assert subtree_size[0] == stack.node_count
    # CART trees: two children, missing values (none in training) follow the larger one
    n = stack.n_node_samples
    larger = np.where(n[stack.children_left[internal]] > n[stack.children_right[internal]],
                      stack.children_left[internal], stack.children_right[internal])
    np.testing.assert_array_equal(stack.children_missing[internal], larger)
    assert np.all(stack.children_missing[stack.is_leaf] == TREE_LEAF)


def test_counter_records_one_search_per_node_split_or_not():
    X, Y = random_regression(seed=3)
    finder, rules = Finder("cumsum", "squared_error"), StoppingRules(max_depth=4)
    counters = {builder: GrowthCounter() for builder in ("recursive", "depth_first")}
    trees = {builder: grow(builder, X, Y, finder, rules, counter=counter)
             for builder, counter in counters.items()}
    tree, counter = trees["depth_first"], counters["depth_first"]
    depth = tree.node_depth()
    # searched: every node below max_depth with two samples or more and some impurity
    searched = (depth < 4) & (tree.n_node_samples >= 2) & (tree.impurity > 0)
    assert counter.searches == searched.sum()
    np.testing.assert_array_equal(counter.nodes_per_depth,
                                  np.bincount(depth[searched], minlength=4))
    np.testing.assert_array_equal(
        counter.samples_per_depth,
        np.bincount(depth[searched], weights=tree.n_node_samples[searched], minlength=4))
    assert counter.levels == tree.max_depth
    assert counter == counters["recursive"]
    assert counter.histogram_pairs == counter.subtracted_histograms == 0


def test_recursion_and_stack_agree_on_a_deep_chain():
    # each sample's target outweighs all smaller ones together, so most splits peel
    # off one sample: a chain of more than 100 levels
    X = np.arange(200.0)[:, None]
    y = 2.0 ** np.arange(200) / 2.0**199
    finder, rules = Finder("cumsum", "squared_error"), StoppingRules()
    tree = grow("depth_first", X, y[:, None], finder, rules)
    assert node_depths(tree).max() > 100       # not tree.max_depth: see node_depths
    assert_same_tree(grow("recursive", X, y[:, None], finder, rules), tree)


# --- regression: a chain deeper than half of Python's recursion limit -------------------


def chain(n):
    """X = 0 .. n-1, y alternating 0, 1: every split peels off one sample (the last),
    so the tree is a chain n - 1 levels deep."""
    return np.arange(float(n))[:, None], np.arange(n) % 2


def test_the_recursion_limit_is_half_of_pythons():
    assert recursion_depth_limit() == sys.getrecursionlimit() // 2


@pytest.mark.parametrize("estimator", [DecisionTreeClassifier, DecisionTreeRegressor])
def test_recursive_builder_refuses_a_chain_deeper_than_it_can_grow(estimator):
    # Reported bug: builder="recursive" on a chain deeper than half of Python's
    # recursion limit crashed with a RecursionError (or took Python down); it must
    # raise a ValueError that names the limit and the way out.
    n = int(2.5 * sys.getrecursionlimit())                   # 2,500 by default
    X, y = chain(n)
    limit = recursion_depth_limit()
    with pytest.raises(ValueError, match=rf"at most {limit} levels deep.*"
                                         rf"sys.getrecursionlimit\(\) = "
                                         rf"{sys.getrecursionlimit()}.*builder='depth_first'"):
        estimator(builder="recursive").fit(X, y)
    tree = estimator(builder="depth_first").fit(X, y).tree_
    assert node_depths(tree).max() == n - 1 and tree.node_count == 2 * n - 1
    assert tree.n_leaves == n and np.all(tree.n_node_samples[tree.is_leaf] == 1)


def test_grow_recursive_refuses_a_deep_chain_and_grows_a_shallower_one():
    X, y = chain(int(2.5 * sys.getrecursionlimit()))
    Y = target_statistics(y, "gini")
    finder = Finder("cumsum", "gini")
    with pytest.raises(ValueError, match="half of Python's recursion limit"):
        grow("recursive", X, Y, finder, StoppingRules())
    with pytest.raises(ValueError, match="builder='depth_first'"):
        GROWERS["recursive"](X, Y, finder, StoppingRules())
    # at the limit itself: fine, and the same tree as with a stack
    rules = StoppingRules(max_depth=recursion_depth_limit())
    recursive = grow("recursive", X, Y, finder, rules)
    assert node_depths(recursive).max() == recursion_depth_limit()
    assert_same_tree(recursive, grow("depth_first", X, Y, finder, rules))
