"""The flat-array tree, the depth-first builder and the regressor."""

import numpy as np
import pytest

from treelib import DecisionTreeRegressor
from treelib.tree import TREE_LEAF, TREE_UNDEFINED


def walk_one_by_one(tree, x):
    """Reference: follow one sample from the root with a Python loop."""
    node = 0
    while tree.children_left[node] != TREE_LEAF:
        if x[tree.feature[node]] <= tree.threshold[node]:
            node = tree.children_left[node]
        else:
            node = tree.children_right[node]
    return node


@pytest.fixture(scope="module")
def random_data():
    rng = np.random.default_rng(42)
    X = rng.integers(0, 8, size=(300, 4)).astype(float)
    y = X[:, 0] * 2 - X[:, 1] ** 2 + rng.normal(scale=0.5, size=300)
    return X, y


def test_vectorized_apply_equals_walking_each_sample(random_data):
    X, y = random_data
    tree = DecisionTreeRegressor(max_depth=5).fit(X, y).tree_
    rng = np.random.default_rng(1)
    X_new = rng.uniform(-1, 9, size=(200, 4))
    expected = [walk_one_by_one(tree, x) for x in X_new]
    np.testing.assert_array_equal(tree.apply(X_new), expected)


def test_arrays_are_consistent(random_data):
    X, y = random_data
    model = DecisionTreeRegressor(max_depth=4, min_samples_leaf=3).fit(X, y)
    tree = model.tree_
    leaves = tree.children_left == TREE_LEAF
    assert np.all(tree.children_right[leaves] == TREE_LEAF)
    assert np.all(tree.feature[leaves] == TREE_UNDEFINED)
    internal = ~leaves
    # each internal node's samples are split between its children
    np.testing.assert_array_equal(
        tree.n_node_samples[internal],
        tree.n_node_samples[tree.children_left[internal]]
        + tree.n_node_samples[tree.children_right[internal]])
    # pre-order ids: the left child directly follows its parent
    np.testing.assert_array_equal(tree.children_left[internal], np.flatnonzero(internal) + 1)
    assert tree.n_node_samples[0] == len(y)
    assert tree.n_node_samples[leaves].min() >= 3
    assert model.get_depth() <= 4
    assert model.get_n_leaves() == leaves.sum()
    # leaf values are the training means of the samples they hold
    leaf_of = model.apply(X)
    for leaf in np.unique(leaf_of):
        assert tree.value[leaf, 0] == pytest.approx(y[leaf_of == leaf].mean())
        assert tree.impurity[leaf] == pytest.approx(y[leaf_of == leaf].var(), abs=1e-12)


def test_unlimited_tree_fits_distinct_rows_exactly():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(100, 3))
    y = rng.normal(size=100)
    model = DecisionTreeRegressor().fit(X, y)
    np.testing.assert_array_equal(model.predict(X), y)
    assert model.get_n_leaves() == 100


def test_pure_nodes_are_not_split():
    X = np.arange(10.0)[:, None]
    y = np.repeat([1.0, 2.0], 5)
    tree = DecisionTreeRegressor().fit(X, y).tree_
    assert tree.node_count == 3 and tree.threshold[0] == 4.5


def test_min_samples_split():
    X = np.arange(10.0)[:, None]
    y = np.arange(10.0)
    tree = DecisionTreeRegressor(min_samples_split=6).fit(X, y).tree_
    internal = tree.children_left != TREE_LEAF
    assert tree.n_node_samples[internal].min() >= 6


@pytest.mark.parametrize("splitter", ["naive", "scan", "cumsum"])
def test_every_splitter_grows_the_same_tree(splitter, random_data):
    X, y = random_data
    reference = DecisionTreeRegressor(max_depth=6).fit(X, y).tree_
    tree = DecisionTreeRegressor(splitter=splitter, max_depth=6).fit(X, y).tree_
    for name in ["children_left", "children_right", "feature", "threshold", "n_node_samples"]:
        np.testing.assert_array_equal(getattr(tree, name), getattr(reference, name))
    np.testing.assert_allclose(tree.value, reference.value, rtol=1e-12)


def test_node_depth_and_export_text():
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    y = np.array([0.0, 0.0, 1.0, 3.0])
    tree = DecisionTreeRegressor().fit(X, y).tree_
    # root: x <= 2.5 gains 6 - 2/3; x <= 1.5 would gain only 6 - 2
    np.testing.assert_array_equal(tree.node_depth(), [0, 1, 2, 2, 1])
    assert tree.max_depth == 2
    assert tree.export_text(["x"], decimals=2) == "\n".join([
        "|--- x <= 2.50",
        "|   |--- x <= 1.50",
        "|   |   |--- value: [0.00]",
        "|   |--- x >  1.50",
        "|   |   |--- value: [1.00]",
        "|--- x >  2.50",
        "|   |--- value: [3.00]",
    ])


def test_single_leaf_tree():
    model = DecisionTreeRegressor().fit(np.ones((4, 2)), [1.0, 2.0, 3.0, 4.0])
    assert model.tree_.node_count == 1 and model.get_depth() == 0
    np.testing.assert_array_equal(model.predict(np.zeros((3, 2))), [2.5] * 3)
    assert model.tree_.export_text() == "|--- value: [2.500]"


def test_export_text_names_the_majority_class():
    from treelib import DecisionTreeClassifier

    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    model = DecisionTreeClassifier().fit(X, ["no", "no", "yes", "yes"])
    text = model.tree_.export_text(["x"], decimals=1, class_names=model.classes_)
    assert text.splitlines() == ["|--- x <= 1.5",
                                 "|   |--- class: no  (proportions [1.0, 0.0])",
                                 "|--- x >  1.5",
                                 "|   |--- class: yes  (proportions [0.0, 1.0])"]
