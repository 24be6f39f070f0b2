"""Chapter 5 ("Growth orders"): the chapter's plain recursive grower grows treelib's tree,
its tree comparison agrees with the test suite's, and its claims about the three growth
orders, the recursion limit and best-first growth hold.

The teaching cell (tag "teaching") and the chapter's helpers (tag "helpers") are loaded
from the notebook."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from sklearn.model_selection import train_test_split

from tests.conftest import notebook_cells
from tests.reference import assert_same_tree, sums_tolerance
from treelib import DecisionTreeRegressor
from treelib.criteria import target_statistics
from treelib.datasets import load_california_housing
from treelib.finders import Finder
from treelib.growth import StoppingRules, grow
from treelib.growth.depth_first import recursion_depth_limit

NOTEBOOK = "05_growth_orders.ipynb"
grow_tree = notebook_cells(NOTEBOOK)["grow_tree"]
same_tree = notebook_cells(NOTEBOOK, tag="helpers")["same_tree"]
FINDER = Finder("cumsum", "squared_error")
ARRAYS = ["children_left", "children_right", "feature", "threshold", "n_node_samples"]


@st.composite
def regression_sets(draw):
    n = draw(st.integers(1, 60))
    f = draw(st.integers(1, 3))
    X = draw(hnp.arrays(np.float64, (n, f), elements=st.integers(0, 6).map(float)))
    y = draw(hnp.arrays(np.float64, n, elements=st.integers(-3, 3).map(float)))
    # a large offset, and the capped house value 5.00001 of california_housing
    y = y + draw(st.sampled_from([0.0, 5.00001, 1e8]))
    max_depth = draw(st.sampled_from([1, 2, 4, None]))
    return X, y, max_depth


# --- the teaching grower ------------------------------------------------------------


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=regression_sets())
def test_grow_tree_grows_the_arrays_of_the_recursive_grower(data):
    X, y, max_depth = data
    table = grow_tree(X, y, max_depth=max_depth)
    tree = grow("recursive", X, target_statistics(y, "squared_error"), FINDER,
                StoppingRules(max_depth=max_depth))
    # same node ids (both number the nodes in pre-order), tests and sizes, exactly
    for column in ARRAYS:
        np.testing.assert_array_equal(table[column].to_numpy(), getattr(tree, column))
    # the values are means summed in another order: n EPS |y| apart at most
    scale = np.abs(y).max()
    for value, expected, n in zip(table["value"], tree.value[:, 0], tree.n_node_samples):
        assert abs(value - expected) <= 4 * sums_tolerance(n, scale)
    # both impurities come from treelib.criteria's node statistics: the same numbers
    np.testing.assert_array_equal(table["impurity"].to_numpy(), tree.impurity)


def test_grow_tree_grows_the_chapters_depth_3_tree(housing):
    X, y = housing
    rows = np.random.default_rng(0).choice(len(y), size=2000, replace=False)
    table = grow_tree(X[rows], y[rows], max_depth=3)
    tree = DecisionTreeRegressor(builder="recursive", max_depth=3).fit(X[rows], y[rows]).tree_
    assert len(table) == tree.node_count == 15
    for column in ARRAYS:
        np.testing.assert_array_equal(table[column].to_numpy(), getattr(tree, column))


# --- the chapter's tree comparison --------------------------------------------------


def agrees_with_the_reference(a, b):
    try:
        assert_same_tree(a, b)
    except AssertionError:
        return False
    return True


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=regression_sets(), leaves=st.integers(2, 6))
def test_same_tree_agrees_with_the_test_suites_comparison(data, leaves):
    X, y, max_depth = data
    Y, rules = target_statistics(y, "squared_error"), StoppingRules(max_depth=max_depth)
    reference = grow("recursive", X, Y, FINDER, rules)
    for builder in ["depth_first", "best_first", "level_wise"]:
        assert same_tree(grow(builder, X, Y, FINDER, rules), reference)
    capped = grow("best_first", X, Y, FINDER, StoppingRules(max_depth=max_depth,
                                                            max_leaf_nodes=leaves))
    assert same_tree(capped, reference) == agrees_with_the_reference(capped, reference)


# --- the chapter's claims -----------------------------------------------------------


@pytest.fixture(scope="module")
def housing():
    X, y = load_california_housing(return_X_y=True)
    return X.astype(np.float32).astype(np.float64), y


@pytest.fixture(scope="module")
def split(housing):
    return train_test_split(*housing, test_size=0.25, random_state=0)


def test_the_three_orders_number_the_depth_3_tree_as_the_figure_shows(housing):
    X, y = housing
    rows = np.random.default_rng(0).choice(len(y), size=2000, replace=False)
    Y, rules = target_statistics(y[rows], "squared_error"), StoppingRules(max_depth=3)
    trees = {b: grow(b, X[rows], Y, FINDER, rules)
             for b in ["recursive", "depth_first", "best_first", "level_wise"]}
    pre_order = [1, 2, 3, -1, -1, 6, -1, -1, 9, 10, -1, -1, 13, -1, -1]
    assert trees["recursive"].children_left.tolist() == pre_order
    assert trees["depth_first"].children_left.tolist() == pre_order
    assert trees["best_first"].children_left.tolist() == [1, 3, 5, 11, 7, 9, 13] + [-1] * 8
    # exercise 1: breadth first, node i has children 2i + 1 and 2i + 2
    assert trees["level_wise"].children_left.tolist() == [2 * i + 1 for i in range(7)] + [-1] * 8
    for tree in trees.values():
        assert same_tree(tree, trees["recursive"])


def test_the_alternating_chain_is_too_deep_for_recursion_only():
    n = 600
    X = np.arange(n, dtype=np.float64)[:, None]
    Y = target_statistics((np.arange(n) % 2).astype(np.float64), "squared_error")
    chain = grow("depth_first", X, Y, FINDER, StoppingRules())
    assert chain.max_depth == n - 1 and chain.node_count == 2 * n - 1
    assert recursion_depth_limit() == 500
    with pytest.raises(ValueError, match="at most 500 levels deep"):
        grow("recursive", X, Y, FINDER, StoppingRules())


def test_eight_best_first_leaves_are_not_the_depth_3_tree(split):
    X_train, X_test, y_train, y_test = split
    by_depth = DecisionTreeRegressor(max_depth=3).fit(X_train, y_train)
    by_leaves = DecisionTreeRegressor(max_leaf_nodes=8).fit(X_train, y_train)
    assert by_depth.get_n_leaves() == by_leaves.get_n_leaves() == 8
    assert not same_tree(by_depth.tree_, by_leaves.tree_)
    assert by_leaves.get_depth() == 4

    def mse(model, X, y):
        return np.mean((model.predict(X) - y) ** 2)

    assert mse(by_leaves, X_train, y_train) < mse(by_depth, X_train, y_train)
    assert mse(by_leaves, X_test, y_test) < mse(by_depth, X_test, y_test)


@pytest.mark.slow
def test_best_first_is_better_up_to_445_leaves_and_worse_from_767(split):
    X_train, X_test, y_train, y_test = split
    budget = DecisionTreeRegressor(max_leaf_nodes=1300).fit(X_train, y_train).tree_
    for depth in range(3, 12):
        limited = DecisionTreeRegressor(builder="level_wise", max_depth=depth).fit(X_train,
                                                                                 y_train)
        leaves = limited.get_n_leaves()
        best_first = DecisionTreeRegressor(max_leaf_nodes=leaves).fit(X_train, y_train)
        # the first leaves - 1 splits of the 1300-leaf tree (exercise 3)
        keep = 2 * leaves - 1
        expected = budget.feature[:keep].copy()
        expected[budget.children_left[:keep] >= keep] = -2
        np.testing.assert_array_equal(best_first.tree_.feature, expected)

        def test_mse(model):
            return np.mean((model.predict(X_test) - y_test) ** 2)

        if leaves <= 445:
            assert test_mse(best_first) < test_mse(limited), depth
        else:
            assert leaves >= 767 and test_mse(best_first) > test_mse(limited), depth


def test_order_free_stopping_rules_grow_the_same_tree(split):
    X_train, _, y_train, _ = split
    settings = dict(min_samples_leaf=20, min_impurity_decrease=1e-3)
    stack = DecisionTreeRegressor(builder="depth_first", **settings).fit(X_train, y_train)
    heap = DecisionTreeRegressor(builder="best_first", **settings).fit(X_train, y_train)
    assert same_tree(stack.tree_, heap.tree_)
