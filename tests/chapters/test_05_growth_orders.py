"""Chapter 5 ("Growth orders"): the chapter's plain recursive grower grows treelib's tree,
its best-first grower makes treelib's best-first splits in the same order, its tree
comparison agrees with the test suite's, and its claims about the three growth orders, the
recursion limit and best-first growth hold.

The teaching cells (tag "teaching") and the chapter's helpers (tag "helpers") are loaded
from the notebook."""

from dataclasses import fields

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from sklearn.model_selection import train_test_split

from tests.conftest import claim, notebook_cells
from tests.reference import assert_same_tree, sums_tolerance
from treelib import DecisionTreeRegressor
from treelib.criteria import target_statistics
from treelib.datasets import load_california_housing
from treelib.finders import Finder
from treelib.growth import StoppingRules, grow
from treelib.growth.depth_first import recursion_depth_limit
from treelib.tree import Tree

NOTEBOOK = "05_growth_orders.ipynb"
grow_tree = notebook_cells(NOTEBOOK)["grow_tree"]
grow_best_first = notebook_cells(NOTEBOOK)["grow_best_first"]
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


def expansion_order(tree):
    """``(node, feature, threshold, left child, right child)`` of every split node of a
    best-first tree, in the order the splits were made: split s creates nodes 2s + 1 and
    2s + 2, so sorting by the left child's id gives the order."""
    made = np.flatnonzero(tree.children_left != -1)
    made = made[np.argsort(tree.children_left[made])]
    return [(int(i), int(tree.feature[i]), float(tree.threshold[i]),
             int(tree.children_left[i]), int(tree.children_right[i])) for i in made]


def tied_data(seed):
    """Integer features and targets (0 to 6, -3 to 3): many nodes whose best splits gain
    exactly as much as another node's; sometimes a large offset or a constant feature."""
    rng = np.random.default_rng(seed)
    n, f = [2, 7, 30, 120][seed % 4], 1 + seed % 3
    X = rng.integers(0, 7, size=(n, f)).astype(float)
    if seed % 5 == 3:
        X[:, 0] = 2.0
    y = rng.integers(-3, 4, size=n).astype(float) + (1e8 if seed % 6 == 5 else 0.0)
    return X, y


@pytest.mark.parametrize("seed", range(12))
def test_grow_best_first_makes_treelibs_splits_in_the_same_order(seed):
    """The same splits in the same order of expansion (stronger than the same leaves), and
    so the same node ids.  Ties in gain between leaves pop alike: treelib's heap entries
    are (-gain, nodes created before, ...), and a node's id in the readable version is the
    number of nodes created before it, with the gains bit for bit the same (the same
    finder, cumsum on squared error, on the same rows in the same order)."""
    X, y = tied_data(seed)
    Y = target_statistics(y, "squared_error")
    for leaves in [2, 3, 5, 8, 30]:
        splits, sizes = grow_best_first(X, y, max_leaf_nodes=leaves)
        tree = grow("best_first", X, Y, FINDER, StoppingRules(max_leaf_nodes=leaves))
        assert [(int(a), int(b), float(c), int(d), int(e))
                for a, b, c, d, e in splits] == expansion_order(tree)
        np.testing.assert_array_equal(sizes, tree.n_node_samples)
        assert tree.n_leaves == len(splits) + 1 <= leaves


def test_equal_gains_pop_the_leaf_created_first():
    """Two children with mirrored targets have best splits of exactly equal gain; with a
    budget of 3 leaves both growers split the left one (created first), not the right."""
    x = np.tile(np.arange(6.0), 2)
    pattern = np.array([0.0, 1.0, 0.0, 3.0, 4.0, 3.0]) + 5.0
    X = np.column_stack([np.repeat([0.0, 1.0], 6), x])
    y = np.concatenate([pattern, -pattern])
    halves = [np.arange(6), np.arange(6, 12)]
    gains = [FINDER(X[h], target_statistics(y[h], "squared_error")).gain for h in halves]
    assert gains[0] == gains[1] > 0                       # a tie, bit for bit
    splits, _ = grow_best_first(X, y, max_leaf_nodes=3)
    tree = grow("best_first", X, target_statistics(y, "squared_error"), FINDER,
                StoppingRules(max_leaf_nodes=3))
    assert [s[0] for s in splits] == [0, 1] == [s[0] for s in expansion_order(tree)]
    assert tree.n_node_samples[1] == 6 and tree.feature[0] == 0


def test_the_chapters_eight_leaf_heap(housing):
    X, y = housing
    rows = np.random.default_rng(0).choice(len(y), size=2000, replace=False)
    splits, sizes = grow_best_first(X[rows], y[rows], max_leaf_nodes=8)
    tree = grow("best_first", X[rows], target_statistics(y[rows], "squared_error"), FINDER,
                StoppingRules(max_leaf_nodes=8))
    assert len(splits) == 7 and [s[0] for s in splits] == [0, 1, 2, 4, 7, 9, 5]
    assert [(int(a), int(b), float(c), int(d), int(e))
            for a, b, c, d, e in splits] == expansion_order(tree)
    np.testing.assert_array_equal(sizes, tree.n_node_samples)


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
    claim(NOTEBOOK, "here it splits both nodes of depth 1 first, then the four nodes of depth 2 "
          "in the order of the squared error their splits remove (`LR`, `RL`, `LL`, `RR`), not "
          "from left to right.")
    tree = trees["best_first"]
    paths = notebook_cells(NOTEBOOK, tag="helpers")["node_paths"](tree)
    split = [p for p, i in paths.items() if tree.children_left[i] != -1]
    order = sorted(split, key=lambda p: tree.children_left[paths[p]])
    assert order == ["", "L", "R", "LR", "RL", "LL", "RR"]

    def gain(path):
        i = paths[path]
        children = [tree.children_left[i], tree.children_right[i]]
        return (tree.n_node_samples[i] * tree.impurity[i]
                - sum(tree.n_node_samples[c] * tree.impurity[c] for c in children))

    depth_2 = [gain(p) for p in ["LR", "RL", "LL", "RR"]]
    assert depth_2 == sorted(depth_2, reverse=True) and gain("R") > max(depth_2)
    # exercise 1: breadth first, node i has children 2i + 1 and 2i + 2
    assert trees["level_wise"].children_left.tolist() == [2 * i + 1 for i in range(7)] + [-1] * 8
    for tree in trees.values():
        assert same_tree(tree, trees["recursive"])


def test_the_alternating_chain_is_too_deep_for_recursion_only():
    claim(NOTEBOOK, "The explicit stack grows the chain of depth 599; the recursive grower stops "
          "at 500 levels with a `ValueError`")
    n = 600
    X = np.arange(n, dtype=np.float64)[:, None]
    Y = target_statistics((np.arange(n) % 2).astype(np.float64), "squared_error")
    chain = grow("depth_first", X, Y, FINDER, StoppingRules())
    assert chain.max_depth == n - 1 and chain.node_count == 2 * n - 1
    assert recursion_depth_limit() == 500
    with pytest.raises(ValueError, match="at most 500 levels deep"):
        grow("recursive", X, Y, FINDER, StoppingRules())


def test_eight_best_first_leaves_are_not_the_depth_3_tree(split):
    claim(NOTEBOOK, "The two trees share six of their seven splits. The best-first tree leaves "
          "the node `RR` unsplit and spends that split one level deeper, below `LR`, so it "
          "reaches depth 4. It fits the training set a little better (0.6069 against 0.6112), "
          "and here the test set too (0.6483 against 0.6495).")
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
    assert [round(mse(m, X_train, y_train), 4) for m in (by_leaves, by_depth)] == [0.6069, 0.6112]
    assert [round(mse(m, X_test, y_test), 4) for m in (by_leaves, by_depth)] == [0.6483, 0.6495]
    splits_of = {}
    for name, model in [("depth", by_depth), ("leaves", by_leaves)]:
        tree = model.tree_
        paths = notebook_cells(NOTEBOOK, tag="helpers")["node_paths"](tree)
        splits_of[name] = {p: (tree.feature[i], tree.threshold[i])
                           for p, i in paths.items() if tree.children_left[i] != -1}
    shared = {p for p, t in splits_of["depth"].items() if splits_of["leaves"].get(p) == t}
    assert len(shared) == 6
    assert set(splits_of["depth"]) - shared == {"RR"}
    assert set(splits_of["leaves"]) - shared == {"LRL"}


@pytest.mark.slow
def test_best_first_is_better_up_to_445_leaves_and_worse_from_767(split):
    claim(NOTEBOOK, "With 2 and 4 leaves the two trees are the same. From 8 leaves (`max_depth=3`) "
          "to 445 (`max_depth=9`) the best-first tree has the lower test error")
    claim(NOTEBOOK, "here with a lower test error from 8 to 445 leaves and a higher one from 767.")
    claim(NOTEBOOK, "From 767 leaves on, it is the worse one")
    claim(NOTEBOOK, "of the budgets drawn, its test error is lowest at 348 leaves, while the "
          "depth limit's is lowest at 445 (and no lower at 767, 0.4297 both).")
    X_train, X_test, y_train, y_test = split
    budget = DecisionTreeRegressor(max_leaf_nodes=1300).fit(X_train, y_train).tree_
    errors = {}
    for depth in range(1, 12):
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

        errors[leaves] = (test_mse(limited), test_mse(best_first))
        if leaves <= 4:
            assert same_tree(best_first.tree_, limited.tree_), depth
        elif leaves <= 445:
            assert test_mse(best_first) < test_mse(limited), depth
        else:
            assert leaves >= 767 and test_mse(best_first) > test_mse(limited), depth
    sizes = list(errors)
    depth_limit = [errors[leaves][0] for leaves in sizes]
    assert sizes[int(np.argmin(depth_limit))] == 445
    assert round(errors[445][0], 4) == round(errors[767][0], 4) == 0.4297
    # the best-first curve of the figure: the first k - 1 splits of the 1300-leaf tree
    budgets = np.unique(np.geomspace(2, 1300, 60).round().astype(int))
    curve = []
    for k in budgets:                           # as the chapter's first_splits
        keep = 2 * k - 1
        later = budget.children_left[:keep] >= keep
        arrays = {f.name: getattr(budget, f.name)[:keep] for f in fields(Tree)}
        for name in ["children_left", "children_right", "children_missing"]:
            arrays[name] = np.where(later, -1, arrays[name])
        arrays["feature"] = np.where(later, -2, arrays["feature"])
        arrays["threshold"] = np.where(later, -2.0, arrays["threshold"])
        curve.append(np.mean((Tree(**arrays).predict(X_test)[:, 0] - y_test) ** 2))
    assert budgets[int(np.argmin(curve))] == 348 and round(min(curve), 4) == 0.4124
    assert min(curve) < errors[242][1]          # still falling after 242 leaves


def test_order_free_stopping_rules_grow_the_same_tree(split):
    claim(NOTEBOOK, "They grow the same tree: each of these rules looks only at the node itself")
    X_train, _, y_train, _ = split
    settings = dict(min_samples_leaf=20, min_impurity_decrease=1e-3)
    stack = DecisionTreeRegressor(builder="depth_first", **settings).fit(X_train, y_train)
    heap = DecisionTreeRegressor(builder="best_first", **settings).fit(X_train, y_train)
    assert same_tree(stack.tree_, heap.tree_)


def test_exercise_5_newest_first_spends_the_budget_down_one_side(housing):
    claim(NOTEBOOK, "Its training error barely moves (0.72 with 8 leaves, 0.70 with "
          "100), while best first's falls to 0.20")
    claim(NOTEBOOK, "with 8 leaves, 7 splits in a row, depth 7")
    import nbformat

    from tests.conftest import NOTEBOOKS
    from treelib import best_split
    from treelib.criteria import squared_error
    cells = nbformat.read(NOTEBOOKS / NOTEBOOK, as_version=4).cells
    source = next(c.source for c in cells if "def grow_newest_first" in c.source)
    namespace = {"np": np, "best_split": best_split, "squared_error": squared_error}
    exec(source.split("\n\n\nprint(")[0], namespace)
    X, y = housing[0], housing[1]
    rows = np.random.default_rng(0).choice(len(y), size=2000, replace=False)
    X_small, y_small = X[rows], y[rows]
    claim(NOTEBOOK, "deeper still as the budget grows (16 levels with 30 leaves, 19 with 100), "
          "where the best-first tree stays shallower.")
    measured = {k: namespace["grow_newest_first"](X_small, y_small, k) for k in (8, 30, 100)}
    assert measured[8][:2] == (8, 7) and round(measured[8][2], 2) == 0.72
    assert measured[30][:2] == (30, 16) and measured[100][:2] == (100, 19)
    assert round(measured[100][2], 2) == 0.70
    Y_small = target_statistics(y_small, "squared_error")
    heaps = {k: grow("best_first", X_small, Y_small, FINDER, StoppingRules(max_leaf_nodes=k))
             for k in measured}
    assert all(heaps[k].max_depth < measured[k][1] for k in measured)
    heap = heaps[100]
    assert round(float(np.mean((heap.predict(X_small)[:, 0] - y_small) ** 2)), 2) == 0.20
