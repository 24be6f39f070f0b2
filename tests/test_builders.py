"""The growth orders: the same tree whenever the rules allow, and their node orders.

``tests/test_levelwise.py`` tests the level-wise builder in depth; here all four growth
orders are compared on the same random training sets."""

import numpy as np
import pytest
from conftest import assert_same_tree
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from treelib import DecisionTreeClassifier, DecisionTreeRegressor
from treelib.builders import (
    BUILDERS,
    StoppingRules,
    build_best_first,
    build_depth_first,
    build_recursive,
    make_split_finder,
)
from treelib.levelwise import build_level_wise
from treelib.splits import targets_as_statistics


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
    rules = StoppingRules(max_depth=draw(st.sampled_from([1, 2, 4, np.inf])),
                          min_samples_split=draw(st.integers(2, 6)),
                          min_samples_leaf=draw(st.integers(1, 3)),
                          min_impurity_decrease=draw(st.sampled_from([0.0, 0.05])))
    return X, targets_as_statistics(y, criterion), criterion, rules


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=training_sets())
def test_every_growth_order_grows_the_same_tree(data):
    X, Y, criterion, rules = data
    find_split = make_split_finder("cumsum", criterion, rules.min_samples_leaf)
    reference = build_recursive(X, Y, find_split, criterion, rules)
    for build in (build_depth_first, build_best_first):
        assert_same_tree(build(X, Y, find_split, criterion, rules), reference)
    level_wise = build_level_wise(
        X, Y, criterion, max_depth=None if np.isinf(rules.max_depth) else rules.max_depth,
        min_samples_split=rules.min_samples_split, min_samples_leaf=rules.min_samples_leaf,
        min_impurity_decrease=rules.min_impurity_decrease)
    assert_same_tree(level_wise, reference)


def test_node_ids_record_the_growth_order():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3))
    y = X[:, 0] + 3 * (X[:, 1] > 1) + rng.normal(scale=0.1, size=200)
    Y = targets_as_statistics(y, "squared_error")
    find_split = make_split_finder()
    depth = build_depth_first(X, Y, find_split, rules=StoppingRules(max_depth=3))
    best = build_best_first(X, Y, find_split, rules=StoppingRules(max_depth=3))
    assert_same_tree(depth, best)
    # depth first: pre-order, so a left child directly follows its parent
    internal = np.flatnonzero(depth.children_left != -1)
    np.testing.assert_array_equal(depth.children_left[internal], internal + 1)
    # best first: children are numbered when their parent is split, in order of gain
    internal = np.flatnonzero(best.children_left != -1)
    np.testing.assert_array_equal(best.children_right[internal],
                                  best.children_left[internal] + 1)
    gains = (best.n_node_samples * best.impurity)[internal] - (
        best.n_node_samples * best.impurity)[best.children_left[internal]] - (
        best.n_node_samples * best.impurity)[best.children_right[internal]]
    split_order = np.argsort(best.children_left[internal])
    assert gains[split_order][0] == gains.max()   # the root's split gains the most


def test_max_leaf_nodes_keeps_the_most_useful_splits():
    rng = np.random.default_rng(1)
    X = rng.uniform(size=(500, 2))
    y = np.where(X[:, 0] < 0.5, 0.0, 10.0) + np.where(X[:, 1] < 0.1, 3.0, 0.0)
    y += rng.normal(scale=0.01, size=500)
    tree = DecisionTreeRegressor(max_leaf_nodes=3).fit(X, y).tree_
    assert tree.n_leaves == 3
    assert tree.feature[0] == 0 and tree.threshold[0] == pytest.approx(0.5, abs=0.01)
    # the second split is the step of feature 1 at 0.1 (gain about 9 x 50), in
    # whichever child of the root it was made
    second = tree.feature[1:] >= 0
    assert tree.feature[1:][second].tolist() == [1]
    assert tree.threshold[1:][second][0] == pytest.approx(0.1, abs=0.01)


def test_recursion_and_stack_agree_on_a_deep_chain():
    # each sample's target outweighs all smaller ones together, so most splits peel
    # off one sample: a chain of more than 100 levels
    X = np.arange(200.0)[:, None]
    y = 2.0 ** np.arange(200) / 2.0**199
    Y = targets_as_statistics(y, "squared_error")
    find_split = make_split_finder()
    tree = build_depth_first(X, Y, find_split)
    assert tree.max_depth > 100
    assert_same_tree(build_recursive(X, Y, find_split), tree)


def test_max_features_is_seeded_and_searches_that_many_features():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(300, 6))
    y = X @ np.arange(6.0) + rng.normal(size=300)
    a = DecisionTreeRegressor(max_features=2, random_state=0, max_depth=6).fit(X, y)
    b = DecisionTreeRegressor(max_features=2, random_state=0, max_depth=6).fit(X, y)
    c = DecisionTreeRegressor(max_features=2, random_state=1, max_depth=6).fit(X, y)
    assert_same_tree(a.tree_, b.tree_)
    assert not np.array_equal(a.tree_.feature, c.tree_.feature)
    assert a.max_features_ == 2
    # with one feature per node, the root splits on whichever feature was drawn
    roots = {DecisionTreeRegressor(max_features=1, random_state=s, max_depth=1)
             .fit(X, y).tree_.feature[0] for s in range(30)}
    assert len(roots) >= 4


@pytest.mark.parametrize("builder", [*sorted(BUILDERS), "level"])
def test_classifier_builders_give_the_same_predictions(builder):
    from sklearn.datasets import load_iris

    X, y = load_iris(return_X_y=True)
    reference = DecisionTreeClassifier(builder="recursive").fit(X, y)
    model = DecisionTreeClassifier(builder=builder).fit(X, y)
    assert_same_tree(model.tree_, reference.tree_)
    np.testing.assert_array_equal(model.predict(X), reference.predict(X))
