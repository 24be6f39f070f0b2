"""The fitted tree as flat arrays (``treelib.tree``): ``apply`` against
``tests.reference.route_one_by_one`` on hand-built trees with missing children and NaN
rows, ``TreeRecorder`` against the arrays it should record, ``node_depth``,
``feature_importances`` against hand-computed gains and scikit-learn, ``export_text``
against known text; and the regressor's trees against their invariants."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from tests.reference import assert_sums_close, numeric_tree, route_one_by_one
from treelib import DecisionTreeClassifier, DecisionTreeRegressor
from treelib.gains import EPS
from treelib.tree import LEFT, MISSING, RIGHT, TREE_LEAF, TREE_UNDEFINED, TreeRecorder

# --- hand-built trees ---------------------------------------------------------------------

THRESHOLDS = [-1.0, 0.0, 0.5, 1.0]


@st.composite
def hand_built_trees(draw, n_features=3, max_nodes=25):
    """A tree in breadth-first order: each split node has a left, right and missing
    child only where a coin says so (a random decision tree), or both a left and a right
    child, its missing-value child being one of them (CART); leaves and split nodes carry
    distinct values."""
    cart = draw(st.booleans())
    max_depth = draw(st.integers(0, 5))
    children = [[TREE_LEAF] * 3]
    feature, threshold, depth = [TREE_UNDEFINED], [float(TREE_UNDEFINED)], [0]
    node = 0
    while node < len(children):
        if (depth[node] < max_depth and len(children) < max_nodes
                and draw(st.booleans())):
            feature[node] = draw(st.integers(0, n_features - 1))
            threshold[node] = draw(st.sampled_from(THRESHOLDS))
            if cart:
                exists = [True, True, False]
            else:
                exists = draw(st.lists(st.booleans(), min_size=3, max_size=3))
            for branch in (LEFT, RIGHT, MISSING):
                if exists[branch]:
                    children[node][branch] = len(children)
                    children.append([TREE_LEAF] * 3)
                    feature.append(TREE_UNDEFINED)
                    threshold.append(float(TREE_UNDEFINED))
                    depth.append(depth[node] + 1)
            if cart:                                   # missing values follow a child
                children[node][MISSING] = children[node][draw(st.sampled_from([LEFT,
                                                                               RIGHT]))]
        node += 1
    children = np.array(children, dtype=np.intp)
    n = len(feature)
    return numeric_tree(children_left=children[:, 0], children_right=children[:, 1],
                        children_missing=children[:, 2],
                        feature=np.array(feature, dtype=np.intp),
                        threshold=np.array(threshold),
                        value=np.arange(n, dtype=float)[:, None], impurity=np.zeros(n),
                        n_node_samples=np.ones(n, dtype=np.intp))


rows = hnp.arrays(np.float64, st.tuples(st.integers(0, 30), st.just(3)),
                  elements=st.sampled_from([-2.0, -1.0, 0.0, 0.25, 0.5, 1.0, 3.0, np.nan]))


@settings(max_examples=200, deadline=None)
@given(tree=hand_built_trees(), X=rows)
def test_apply_routes_every_row_as_one_by_one(tree, X):
    # values equal to thresholds go left, NaN follows children_missing, and a row whose
    # branch has no child stops at the split node
    expected = [route_one_by_one(tree, x) for x in X]
    assert tree.apply(X).tolist() == expected
    np.testing.assert_array_equal(tree.predict(X), tree.value[expected])


def test_apply_stops_where_a_branch_has_no_child():
    # root: x0 <= 0.5; left child leaf 1, no right child, missing child leaf 2
    tree = numeric_tree(children_left=np.array([1, -1, -1]),
                        children_right=np.array([-1, -1, -1]),
                        children_missing=np.array([2, -1, -1]), feature=np.array([0, -2, -2]),
                        threshold=np.array([0.5, -2.0, -2.0]),
                        value=np.array([[0.0], [1.0], [2.0]]), impurity=np.zeros(3),
                        n_node_samples=np.array([3, 1, 1]))
    X = np.array([[0.5], [0.6], [np.nan], [-np.inf], [np.inf]])
    assert tree.apply(X).tolist() == [1, 0, 2, 1, 0]
    assert tree.predict(X)[:, 0].tolist() == [1.0, 0.0, 2.0, 1.0, 0.0]


@settings(max_examples=100, deadline=None)
@given(tree=hand_built_trees())
def test_node_depth_counts_the_edges_from_the_root(tree):
    depth = tree.node_depth()
    parent = {}
    for node, kids in enumerate(tree.children):
        for child in kids[kids != TREE_LEAF]:
            parent[int(child)] = node
    for node in range(tree.node_count):
        edges, walk = 0, node
        while walk != 0:
            walk, edges = parent[walk], edges + 1
        assert depth[node] == edges
    assert tree.max_depth == depth.max()
    assert tree.n_leaves == int((tree.feature == TREE_UNDEFINED).sum())


def cart_chain(depth):
    """A CART chain: each split sends one sample to a left leaf and the rest right, and
    missing values follow the larger, right child (as the growers record it)."""
    recorder = TreeRecorder()
    node = recorder.add_nodes([[0.0]], [1.0], [depth + 1])
    for d in range(depth):
        recorder.set_splits(node, 0, float(d) + 0.5, missing_go_to_left=False)
        recorder.add_nodes([[float(d)]], [0.0], [1], node, LEFT)
        node = recorder.add_nodes([[float(d + 1)]], [1.0], [depth - d], node, RIGHT)
    return recorder.finish()


def test_node_depth_visits_every_node_once():
    import tracemalloc

    tree = cart_chain(20)
    assert tree.children_missing[0] == tree.children_right[0] == 2
    tracemalloc.start()
    try:
        depth = tree.node_depth()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    np.testing.assert_array_equal(depth, [0] + [d for d in range(1, 21) for _ in (0, 1)])
    # 41 nodes: a walk over them needs kilobytes (the doubling frontier, 2**19 entries
    # at depth 19, needs megabytes)
    assert peak < 2**20


# --- TreeRecorder ---------------------------------------------------------------------------


@settings(max_examples=100, deadline=None)
@given(tree=hand_built_trees())
def test_recorder_records_a_tree_level_by_level(tree):
    # the growers' use: one add_nodes call per level (children of many parents, on
    # several branches), one set_splits call per level
    recorder = TreeRecorder()
    weight = tree.n_node_samples * 0.5 + np.arange(tree.node_count)    # any weights
    level = recorder.add_nodes(tree.value[:1], tree.impurity[:1], tree.n_node_samples[:1],
                               weight=weight[:1])
    assert level.tolist() == [0]
    while len(level):
        splits = level[tree.feature[level] != TREE_UNDEFINED]
        kids = tree.children[level]                             # (nodes, 3), by branch
        # a CART split: its missing-value child is its left or right one, a direction
        cart = ((kids[:, MISSING] == kids[:, LEFT]) | (kids[:, MISSING] == kids[:, RIGHT])) \
            & (kids[:, MISSING] != TREE_LEAF)
        if len(splits):
            to_left = (kids[:, MISSING] == kids[:, LEFT])[cart]
            recorder.set_splits(level[cart], tree.feature[level[cart]],
                                tree.threshold[level[cart]], to_left)
            others = splits[~np.isin(splits, level[cart])]
            recorder.set_splits(others, tree.feature[others], tree.threshold[others])
        kids[cart, MISSING] = TREE_LEAF                         # recorded as a direction
        exists = kids != TREE_LEAF
        parents = np.repeat(level, 3).reshape(-1, 3)[exists]
        branch = np.tile([LEFT, RIGHT, MISSING], len(level)).reshape(-1, 3)[exists]
        ids = kids[exists]
        if len(ids) == 0:
            break
        new = recorder.add_nodes(tree.value[ids], tree.impurity[ids],
                                 tree.n_node_samples[ids], parents, branch, weight[ids])
        np.testing.assert_array_equal(new, ids)             # breadth-first numbering
        level = new
    recorded = recorder.finish()
    for name in ["children_left", "children_right", "children_missing", "feature",
                 "threshold", "value", "impurity", "n_node_samples", "categorical",
                 "category_bits", "missing_go_to_left"]:
        np.testing.assert_array_equal(getattr(recorded, name), getattr(tree, name))
    np.testing.assert_array_equal(recorded.weighted_n_node_samples, weight)


def test_recorder_with_one_branch_for_all_and_one_node_at_a_time():
    recorder = TreeRecorder()
    root = recorder.add_nodes([[5.0]], [2.0], [4])
    left = recorder.add_nodes([[1.0]], [0.0], [2], root, LEFT)
    right = recorder.add_nodes([[9.0]], [1.0], [2], root, RIGHT)
    recorder.set_splits(root, 1, 0.5)
    grand = recorder.add_nodes([[8.0], [10.0]], [0.0, 0.0], [1, 1], [2], MISSING)
    assert (root.tolist(), left.tolist(), right.tolist(), grand.tolist()) == (
        [0], [1], [2], [3, 4])
    tree = recorder.finish()
    assert tree.children.tolist() == [[1, 2, -1], [-1, -1, -1], [-1, -1, 4],
                                      [-1, -1, -1], [-1, -1, -1]]
    assert tree.feature.tolist() == [1, -2, -2, -2, -2]
    assert tree.threshold.tolist() == [0.5, -2.0, -2.0, -2.0, -2.0]
    assert tree.value.dtype == np.float64 and tree.n_node_samples.tolist() == [4, 2, 2, 1, 1]
    # node 2 has no test: it stays a leaf, however its children were recorded
    assert tree.is_leaf.tolist() == [False, True, True, True, True]


# --- feature importances ---------------------------------------------------------------------


def two_level_tree():
    """Root (n 10, impurity 1) splits on feature 1 into node 1 (n 6, impurity 0.5,
    split on feature 0 into leaves of impurity 0 and 0.25) and leaf 4 (n 4, impurity
    0.25)."""
    return numeric_tree(children_left=np.array([1, 2, -1, -1, -1]),
                        children_right=np.array([4, 3, -1, -1, -1]),
                        children_missing=np.full(5, -1), feature=np.array([1, 0, -2, -2, -2]),
                        threshold=np.array([0.5, 0.5, -2, -2, -2.0]), value=np.zeros((5, 1)),
                        impurity=np.array([1.0, 0.5, 0.0, 0.25, 0.25]),
                        n_node_samples=np.array([10, 6, 3, 3, 4]))


def test_feature_importances_are_the_normalised_gains():
    # gains: root 10 - 3 - 1 = 6 (feature 1), node 1: 3 - 0 - 0.75 = 2.25 (feature 0);
    # quarters and small integers: every step exact but the final division
    importances = two_level_tree().feature_importances(3)
    np.testing.assert_array_equal(importances, [2.25 / 8.25, 6 / 8.25, 0.0])


def test_feature_importances_of_a_single_leaf_are_zeros():
    model = DecisionTreeRegressor().fit(np.ones((4, 2)), [1.0, 2.0, 3.0, 4.0])
    assert model.tree_.feature_importances(2).tolist() == [0.0, 0.0]


def test_feature_importances_are_scikit_learns_on_its_own_tree():
    # scikit-learn's fitted tree copied into a Tree: the same nodes, the same importances
    from sklearn.tree import DecisionTreeRegressor as SklearnRegressor

    rng = np.random.default_rng(4)
    X = rng.normal(size=(300, 4))
    y = X[:, 0] - 2 * X[:, 1] ** 2 + rng.normal(scale=0.3, size=300)
    theirs = SklearnRegressor(max_depth=6, random_state=0).fit(X, y)
    b = theirs.tree_
    leaf = b.children_left == TREE_LEAF
    tree = numeric_tree(children_left=b.children_left, children_right=b.children_right,
                        children_missing=np.full(b.node_count, TREE_LEAF),
                        feature=np.where(leaf, TREE_UNDEFINED, b.feature),
                        threshold=b.threshold, value=b.value[:, 0, :], impurity=b.impurity,
                        n_node_samples=b.n_node_samples,
                        weighted_n_node_samples=b.weighted_n_node_samples)
    ours = tree.feature_importances(4)
    # the same terms n I(node), combined in another order: a few roundings of each,
    # relative to the total gain that normalises them
    weighted = tree.n_node_samples * tree.impurity
    total = weighted[0] - weighted[tree.is_leaf].sum()
    np.testing.assert_allclose(ours, theirs.feature_importances_, rtol=0,
                               atol=8 * EPS * 3 * weighted.sum() / total)
    assert ours.sum() == pytest.approx(1.0, rel=0, abs=8 * EPS)
    assert np.count_nonzero(ours) >= 2


def test_feature_importances_of_a_cart_tree_count_each_child_once():
    X = np.array([[0, 0], [0, 1], [0, 1], [1, 0], [1, 0]], dtype=float)
    y = np.array([0.0, 1.0, 1.0, 10.0, 10.0])
    tree = DecisionTreeRegressor().fit(X, y).tree_
    # root x0 <= 0.5 (missing values follow its larger, left child), then x1 on the left
    assert tree.feature[:2].tolist() == [0, 1] and tree.missing_go_to_left[0]
    # gains: the root's 105.2 - 2/3, its left child's 2/3, over their sum 105.2; a few
    # roundings of numbers below 106 (relative to 105.2: a few EPS)
    np.testing.assert_allclose(tree.feature_importances(2),
                               [(105.2 - 2 / 3) / 105.2, (2 / 3) / 105.2], rtol=0,
                               atol=64 * EPS)


def tree_with_a_missing_right_child(last_value):
    """Root: x0 <= 0.5, a left child (node 1, split on x1 into leaves 3 and 4), no
    right child, a missing-value child (leaf 2); leaf 4 holds ``last_value``."""
    return numeric_tree(children_left=np.array([1, 3, -1, -1, -1]),
                        children_right=np.array([-1, 4, -1, -1, -1]),
                        children_missing=np.array([2, -1, -1, -1, -1]),
                        feature=np.array([0, 1, -2, -2, -2]),
                        threshold=np.array([0.5, 0.5, -2, -2, -2.0]),
                        value=np.array([[0.0], [1.0], [2.0], [3.0], [last_value]]),
                        impurity=np.array([1.0, 0.5, 0.0, 0.0, last_value / 10]),
                        n_node_samples=np.array([10, 6, 4, 3, 3]))


def test_feature_importances_do_not_depend_on_an_unrelated_node():
    # leaf 4 lies under node 1: its impurity changes node 1's gain, never the root's
    # (the root has no right child at all).  The root's gain, recovered from the ratio
    # of the two importances and node 1's gain, must stay 10 - 3 = 7 (or 7 - 0, if the
    # missing-value child counted: it is pure) in both trees.
    for last_value in [0.0, 2.0]:
        tree = tree_with_a_missing_right_child(last_value)
        importances = tree.feature_importances(2)
        weighted = tree.n_node_samples * tree.impurity
        node_1_gain = weighted[1] - weighted[3] - weighted[4]
        # small numbers, a division and a product: a few roundings of numbers below 10
        assert importances[0] / importances[1] * node_1_gain == pytest.approx(
            7.0, rel=0, abs=8 * 10 * EPS)


# --- export_text -----------------------------------------------------------------------------


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


def test_export_text_of_the_hand_built_tree_names_features():
    text = two_level_tree().export_text(["a", "b"], decimals=1)
    assert text.splitlines() == ["|--- b <= 0.5",
                                 "|   |--- a <= 0.5",
                                 "|   |   |--- value: [0.0]",
                                 "|   |--- a >  0.5",
                                 "|   |   |--- value: [0.0]",
                                 "|--- b >  0.5",
                                 "|   |--- value: [0.0]"]
    assert two_level_tree().export_text().startswith("|--- feature_1 <= 0.500")


def test_export_text_does_not_show_an_unrelated_node_for_a_missing_branch():
    a = tree_with_a_missing_right_child(0.0).export_text().splitlines()
    b = tree_with_a_missing_right_child(7.0).export_text().splitlines()
    # only the line of leaf 4 itself (under x1 > 0.5) may change
    assert sum(x != y for x, y in zip(a, b, strict=True)) == 1
    # the missing-value branch of the root is shown, the absent right branch is not
    assert "|--- feature_0 is missing" in a and not any(">  0.500" in line and
                                                          line.startswith("|--- ") for line in a)


def test_single_leaf_tree():
    model = DecisionTreeRegressor().fit(np.ones((4, 2)), [1.0, 2.0, 3.0, 4.0])
    assert model.tree_.node_count == 1 and model.get_depth() == 0
    np.testing.assert_array_equal(model.predict(np.zeros((3, 2))), [2.5] * 3)
    assert model.tree_.export_text() == "|--- value: [2.500]"


def test_export_text_names_the_majority_class():
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    model = DecisionTreeClassifier().fit(X, ["no", "no", "yes", "yes"])
    text = model.tree_.export_text(["x"], decimals=1, class_names=model.classes_)
    assert text.splitlines() == ["|--- x <= 1.5",
                                 "|   |--- class: no  (proportions [1.0, 0.0])",
                                 "|--- x >  1.5",
                                 "|   |--- class: yes  (proportions [0.0, 1.0])"]


# --- trees grown by the regressor ---------------------------------------------------------


@pytest.fixture(scope="module")
def random_data():
    rng = np.random.default_rng(42)
    X = rng.integers(0, 8, size=(300, 4)).astype(float)
    y = X[:, 0] * 2 - X[:, 1] ** 2 + rng.normal(scale=0.5, size=300)
    return X, y


def test_vectorized_apply_equals_routing_each_sample(random_data):
    X, y = random_data
    tree = DecisionTreeRegressor(max_depth=5).fit(X, y).tree_
    X_new = np.random.default_rng(1).uniform(-1, 9, size=(200, 4))
    np.testing.assert_array_equal(tree.apply(X_new),
                                  [route_one_by_one(tree, x) for x in X_new])


def test_arrays_are_consistent(random_data):
    X, y = random_data
    model = DecisionTreeRegressor(max_depth=4, min_samples_leaf=3).fit(X, y)
    tree = model.tree_
    leaves = tree.is_leaf
    assert np.all(tree.children_left[leaves] == TREE_LEAF)
    assert np.all(tree.children_right[leaves] == TREE_LEAF)
    # CART: missing values follow the larger child (no NaN in training), no branch of
    # their own
    internal = ~leaves
    assert np.all(tree.children_missing[leaves] == TREE_LEAF)
    larger = np.where(tree.n_node_samples[tree.children_left[internal]]
                      > tree.n_node_samples[tree.children_right[internal]],
                      tree.children_left[internal], tree.children_right[internal])
    np.testing.assert_array_equal(tree.children_missing[internal], larger)
    assert np.all(tree.threshold[leaves] == TREE_UNDEFINED)
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
    # leaf values and impurities are the means and variances of the samples they hold
    leaf_of = model.apply(X)
    scale = np.abs(y).max()
    for leaf in np.unique(leaf_of):
        held = y[leaf_of == leaf]
        assert_sums_close(tree.value[leaf, 0], held.mean(), len(held), scale)
        assert_sums_close(tree.impurity[leaf], held.var(), len(held), 4 * scale ** 2)


def test_unlimited_tree_fits_distinct_rows_exactly():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(100, 3))
    y = rng.normal(size=100)
    model = DecisionTreeRegressor().fit(X, y)
    np.testing.assert_array_equal(model.predict(X), y)     # the mean of one target: itself
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
    assert tree.n_node_samples[~tree.is_leaf].min() >= 6


@pytest.mark.parametrize("splitter", ["naive", "scan", "cumsum"])
def test_every_splitter_grows_the_same_tree(splitter, random_data):
    X, y = random_data
    reference = DecisionTreeRegressor(max_depth=6).fit(X, y).tree_
    tree = DecisionTreeRegressor(splitter=splitter, max_depth=6).fit(X, y).tree_
    # same splits, hence the same samples per node and the same node statistics
    for name in ["children_left", "children_right", "feature", "threshold",
                 "n_node_samples", "value", "impurity"]:
        np.testing.assert_array_equal(getattr(tree, name), getattr(reference, name))


# --- categorical splits ------------------------------------------------------------------------


@settings(max_examples=100, deadline=None)
@given(left=st.sets(st.integers(0, 254), max_size=40),
       codes=hnp.arrays(np.float64, st.integers(1, 60), elements=st.integers(0, 254).map(float)
                        | st.just(np.nan)),
       missing_go_to_left=st.booleans())
def test_categorical_splits_route_by_their_bitsets_as_isin(left, codes, missing_go_to_left):
    # root: x0 in ``left`` goes left (node 1), the others right (node 2), NaN with the
    # direction; the bitset of 256 bits holds every code a feature can have
    recorder = TreeRecorder()
    root = recorder.add_nodes([[0.0]], [1.0], [4])
    recorder.add_nodes([[1.0]], [0.0], [2], root, LEFT)
    recorder.add_nodes([[2.0]], [0.0], [2], root, RIGHT)
    recorder.set_splits(root, 0, np.nan, missing_go_to_left, categories_left=sorted(left))
    tree = recorder.finish()
    assert tree.categorical.tolist() == [True, False, False]
    assert tree.categories_left(0).tolist() == sorted(left)
    present = ~np.isnan(codes)
    np.testing.assert_array_equal(
        tree.categories_go_left(np.zeros(present.sum(), dtype=np.intp), codes[present]),
        np.isin(codes[present], sorted(left)))
    expected = np.where(np.isnan(codes), 1 if missing_go_to_left else 2,
                        np.where(np.isin(codes, sorted(left)), 1, 2))
    np.testing.assert_array_equal(tree.apply(codes[:, None]), expected)


def test_export_text_shows_the_categories_sent_left():
    recorder = TreeRecorder()
    root = recorder.add_nodes([[0.0]], [1.0], [4])
    recorder.add_nodes([[1.0]], [0.0], [2], root, LEFT)
    recorder.add_nodes([[2.0]], [0.0], [2], root, RIGHT)
    recorder.set_splits(root, 0, np.nan, True, categories_left=[3, 0])
    assert recorder.finish().export_text(["month"], decimals=1).splitlines() == [
        "|--- month in {0, 3}", "|   |--- value: [1.0]",
        "|--- month not in {0, 3}", "|   |--- value: [2.0]"]
