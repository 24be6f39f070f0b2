"""Chapter 5 ("Growing a tree"): the chapter's plain recursive builder grows treelib's tree,
its segmented cumulative sum restarts at every node, its tree comparisons agree with the
test suite's, and its claims about best-first growth and about scikit-learn hold.

The teaching cells (tag "teaching") and the chapter's helpers (tag "helpers") are loaded
from the notebook."""

import numpy as np
import pytest
import sklearn.tree
from conftest import assert_same_tree, notebook_cells
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from test_sklearn_agreement import assert_same_tree_up_to_ties

from treelib import DecisionTreeRegressor
from treelib.builders import (
    StoppingRules,
    build_best_first,
    build_depth_first,
    build_recursive,
    make_split_finder,
)
from treelib.datasets import load_california_housing
from treelib.levelwise import build_level_wise
from treelib.splits import TIE_RTOL

NOTEBOOK = "05_growing_a_tree.ipynb"
TEACHING = notebook_cells(NOTEBOOK)
HELPERS = notebook_cells(NOTEBOOK, tag="helpers")
grow_tree = TEACHING["grow_tree"]
segmented_cumsum = TEACHING["segmented_cumsum"]
same_tree = HELPERS["same_tree"]
walk_with_sklearn = HELPERS["walk_with_sklearn"]


@st.composite
def regression_sets(draw):
    n = draw(st.integers(1, 60))
    f = draw(st.integers(1, 3))
    X = draw(hnp.arrays(np.float64, (n, f), elements=st.integers(0, 6).map(float)))
    y = draw(hnp.arrays(np.float64, n, elements=st.integers(-3, 3).map(float)))
    # a large offset, and the capped house value of chapter 5's pure nodes
    y = y + draw(st.sampled_from([0.0, 5.00001, 1e8]))
    max_depth = draw(st.sampled_from([1, 2, 4, np.inf]))
    return X, y, max_depth


# --- the teaching builder -----------------------------------------------------------


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=regression_sets())
def test_grow_tree_grows_the_same_arrays_as_build_recursive(data):
    X, y, max_depth = data
    table = grow_tree(X, y, max_depth=max_depth)
    tree = build_recursive(X, y[:, None], make_split_finder(),
                           rules=StoppingRules(max_depth=max_depth))
    # same node ids (both number the nodes in pre-order), tests and sizes, exactly
    for column in ["children_left", "children_right", "feature", "threshold",
                   "n_node_samples"]:
        np.testing.assert_array_equal(table[column].to_numpy(), getattr(tree, column))
    np.testing.assert_allclose(table["value"], tree.value[:, 0], rtol=1e-12)
    np.testing.assert_allclose(table["impurity"], tree.impurity, rtol=1e-9, atol=1e-12)
    assert ((table["impurity"] == 0) == (tree.impurity == 0)).all()


def test_grow_tree_grows_the_estimators_tree_on_the_chapters_subsample(housing):
    X, y = housing
    rows = np.random.default_rng(0).choice(len(y), size=2000, replace=False)
    table = grow_tree(X[rows], y[rows], max_depth=3)
    tree = DecisionTreeRegressor(builder="recursive", max_depth=3).fit(X[rows], y[rows]).tree_
    assert len(table) == tree.node_count == 15
    for column in ["children_left", "children_right", "feature", "threshold",
                   "n_node_samples"]:
        np.testing.assert_array_equal(table[column].to_numpy(), getattr(tree, column))


# --- the segmented cumulative sum ---------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(counts=st.lists(st.integers(1, 8), min_size=1, max_size=6), data=st.data())
def test_segmented_cumsum_is_a_cumsum_restarted_at_every_segment(counts, data):
    values = data.draw(hnp.arrays(np.float64, sum(counts),
                                  elements=st.integers(-1000, 1000).map(float)))
    bounds = np.cumsum([0] + counts)
    expected = np.concatenate([np.cumsum(values[a:b]) for a, b in zip(bounds, bounds[1:])])
    np.testing.assert_array_equal(segmented_cumsum(values, np.array(counts)), expected)


# --- the chapter's tree comparison --------------------------------------------------


def agrees_with_conftest(a, b):
    try:
        assert_same_tree(a, b)
    except AssertionError:
        return False
    return True


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=regression_sets(), leaves=st.integers(2, 6))
def test_same_tree_agrees_with_the_test_suites_comparison(data, leaves):
    X, y, max_depth = data
    Y, find_split = y[:, None], make_split_finder()
    rules = StoppingRules(max_depth=max_depth)
    reference = build_recursive(X, Y, find_split, rules=rules)
    level = build_level_wise(X, Y, max_depth=None if np.isinf(max_depth) else max_depth)
    assert same_tree(build_depth_first(X, Y, find_split, rules=rules), reference)
    assert same_tree(level, reference)
    capped = build_best_first(X, Y, find_split, rules=rules, max_leaf_nodes=leaves)
    assert same_tree(capped, reference) == agrees_with_conftest(capped, reference)


# --- the chapter's claims -----------------------------------------------------------


@pytest.fixture(scope="module")
def housing():
    X, y = load_california_housing(return_X_y=True)
    return X.astype(np.float32).astype(np.float64), y


def test_eight_best_first_leaves_are_not_the_depth_three_tree(housing):
    from sklearn.model_selection import train_test_split

    X_train, X_test, y_train, y_test = train_test_split(*housing, test_size=0.25,
                                                        random_state=0)
    by_depth = DecisionTreeRegressor(max_depth=3).fit(X_train, y_train)
    by_leaves = DecisionTreeRegressor(max_leaf_nodes=8).fit(X_train, y_train)
    assert by_depth.get_n_leaves() == by_leaves.get_n_leaves() == 8
    assert not same_tree(by_depth.tree_, by_leaves.tree_)
    assert by_leaves.get_depth() == 4

    def mse(model, X, y):
        return np.mean((model.predict(X) - y) ** 2)

    assert mse(by_leaves, X_train, y_train) < mse(by_depth, X_train, y_train)


def test_ties_and_pure_nodes_explain_every_difference_from_scikit_learn(housing):
    X, y = housing
    ours = DecisionTreeRegressor(builder="level").fit(X, y)
    theirs = sklearn.tree.DecisionTreeRegressor(random_state=0).fit(X, y)
    events = walk_with_sklearn(ours, theirs, X, y)
    ties = events[events.kind == "tie"]
    assert set(events.kind) == {"tie", "pure"}
    assert len(ties) == assert_same_tree_up_to_ties(ours, theirs, X, y)
    gap = (ties["gain ours"] - ties["gain theirs"]).abs()
    assert (gap <= TIE_RTOL * ties["node SSE"]).all()
    # the whole difference in leaves: scikit-learn splits nodes whose targets are all equal
    path = theirs.decision_path(X).tocsc()
    node = np.repeat(np.arange(path.shape[1]), np.diff(path.indptr))
    low, high = np.full(path.shape[1], np.inf), np.full(path.shape[1], -np.inf)
    np.minimum.at(low, node, y[path.indices])
    np.maximum.at(high, node, y[path.indices])
    pure_splits = int(((low == high) & (theirs.tree_.children_left != -1)).sum())
    assert pure_splits > 0
    assert theirs.get_n_leaves() - pure_splits == ours.get_n_leaves()
    assert (theirs.tree_.impurity[(low == high) & (theirs.tree_.children_left != -1)]
            > np.finfo(np.float64).eps).all()
