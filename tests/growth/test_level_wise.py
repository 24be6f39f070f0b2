"""The level-wise exact grower against reference trees: depth first, brute force,
scikit-learn; its breadth-first numbering; and the work it does per level, read from a
``GrowthCounter``."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.reference import (
    assert_breadth_first,
    assert_same_tree,
    assert_sums_close,
    brute_force_tree,
    compare_with_scikit_learn,
)
from treelib.counters import GrowthCounter
from treelib.criteria import one_hot
from treelib.finders import Finder
from treelib.growth import StoppingRules, grow
from treelib.growth.level_partition import partition_plan, partition_rows
from treelib.tree import TREE_LEAF, Tree

CRITERIA = ["squared_error", "gini", "entropy"]


def grown(builder, X, Y, criterion="squared_error", *, max_depth=None, min_samples_split=2,
          min_samples_leaf=1, min_impurity_decrease=0.0, counter=None):
    """A tree grown by ``builder`` with the "cumsum" finder and these stopping rules."""
    finder = Finder("cumsum", criterion, min_samples_leaf=min_samples_leaf)
    rules = StoppingRules(max_depth=max_depth, min_samples_split=min_samples_split,
                          min_impurity_decrease=min_impurity_decrease)
    return grow(builder, X, Y, finder, rules, counter=counter)


# --- random small data sets ------------------------------------------------------------


@st.composite
def data_sets(draw):
    """X (n, f) with ties, constant and integer columns and duplicate rows."""
    n, f = draw(st.integers(1, 60)), draw(st.integers(1, 4))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    columns = []
    for kind in draw(st.lists(st.sampled_from(["constant", "integer", "few", "float"]),
                              min_size=f, max_size=f)):
        if kind == "constant":
            columns.append(np.full(n, rng.normal()))
        elif kind == "integer":
            columns.append(rng.integers(0, 4, n).astype(np.float64))
        elif kind == "few":                              # a few distinct floats
            columns.append(rng.choice(rng.normal(size=3), n))
        else:
            columns.append(rng.normal(size=n))
    X = np.column_stack(columns)
    n_copies = draw(st.integers(0, n // 2))              # duplicate some rows
    X[rng.integers(0, n, n_copies)] = X[rng.integers(0, n, n_copies)]
    return X, rng


rules = st.fixed_dictionaries({
    "max_depth": st.sampled_from([None, None, 1, 2, 3, 5]),
    "min_samples_split": st.sampled_from([2, 2, 3, 5, 10]),
    "min_samples_leaf": st.sampled_from([1, 1, 2, 3, 7]),
})
quick = settings(max_examples=80, deadline=None,
                 suppress_health_check=[HealthCheck.too_slow])


def targets(rng, n, kind):
    """Regression targets: small integers, a few distinct floats (many constant
    nodes, whose float mean is not exact), or all distinct."""
    if kind == "integer":
        return rng.integers(0, 4, n).astype(np.float64)
    if kind == "few":
        return rng.choice(rng.normal(size=3), n)
    return rng.normal(size=n)


target_kinds = st.sampled_from(["integer", "few", "distinct"])


@quick
@given(data=data_sets(), rules=rules, offset=st.sampled_from([0.0, 1e8]),
       kind=target_kinds)
def test_squared_error_equals_depth_first(data, rules, offset, kind):
    X, rng = data
    Y = (offset + targets(rng, len(X), kind))[:, None]
    tree = grown("level_wise", X, Y, **rules)
    assert_same_tree(tree, grown("depth_first", X, Y, **rules))
    assert_breadth_first(tree)


@quick
@given(data=data_sets(), rules=rules, offset=st.sampled_from([0.0, 1e8]),
       kind=target_kinds, min_impurity_decrease=st.sampled_from([0.0, 0.02, 0.1]))
def test_squared_error_equals_brute_force(data, rules, offset, kind, min_impurity_decrease):
    X, rng = data
    y = offset + targets(rng, len(X), kind)
    tree = grown("level_wise", X, y[:, None], min_impurity_decrease=min_impurity_decrease,
                 **rules)
    assert_same_tree(tree, brute_force_tree(X, y, "squared_error",
                                            min_impurity_decrease=min_impurity_decrease,
                                            **rules))


@quick
@given(data=data_sets(), rules=rules, criterion=st.sampled_from(["gini", "entropy"]),
       n_classes=st.integers(2, 4), min_impurity_decrease=st.sampled_from([0.0, 0.02, 0.1]))
def test_classification_equals_brute_force(data, rules, criterion, n_classes,
                                           min_impurity_decrease):
    X, rng = data
    codes = rng.integers(0, n_classes, len(X))
    tree = grown("level_wise", X, one_hot(codes, n_classes), criterion,
                 min_impurity_decrease=min_impurity_decrease, **rules)
    reference = brute_force_tree(X, codes, criterion, n_classes,
                                 min_impurity_decrease=min_impurity_decrease, **rules)
    assert_same_tree(tree, reference)
    assert_breadth_first(tree)


@quick
@given(data=data_sets(), rules=rules, criterion=st.sampled_from(["gini", "entropy"]))
def test_classification_equals_depth_first(data, rules, criterion):
    X, rng = data
    Y = one_hot(rng.integers(0, 3, len(X)), 3)
    assert_same_tree(grown("level_wise", X, Y, criterion, **rules),
                     grown("depth_first", X, Y, criterion, **rules))


@pytest.mark.parametrize("criterion", CRITERIA)
def test_single_sample_and_constant_targets_give_one_leaf(criterion):
    X = np.arange(100.0).reshape(50, 2)
    if criterion == "squared_error":
        # constants whose float mean (a sum divided by n) need not round back to them
        columns = [np.full((50, 1), c) for c in (0.1, 1 / 3, 1e8 + 0.1, -2.7e-3, 7.0)]
    else:
        columns = [one_hot([1] * 50, 2), one_hot([0] * 50, 3)]
    for Y in columns:
        for n in (1, 2, 3, 7, 50):
            tree = grown("level_wise", X[:n], Y[:n], criterion)
            assert tree.node_count == 1 and tree.impurity[0] == 0.0
            # exact: a node is centred on its first target before its mean is taken
            np.testing.assert_array_equal(tree.value[0], Y[0])


def test_a_large_offset_loses_no_digits():
    """y and y + 1e8 give the same splits (the gains are computed on centred targets)."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(300, 3))
    y = rng.normal(size=300)
    near, far = (grown("level_wise", X, (offset + y)[:, None]) for offset in (0.0, 1e8))
    np.testing.assert_array_equal(near.feature, far.feature)
    np.testing.assert_array_equal(near.threshold, far.threshold)
    np.testing.assert_array_equal(near.n_node_samples, far.n_node_samples)
    # y + 1e8 is y rounded to a multiple of ulp = spacing(1e8) = 2**-26: each target
    # moves by e, |e| <= ulp / 2, so a variance moves by at most 2 std |e| + e**2
    ulp = np.spacing(1e8)
    np.testing.assert_allclose(far.impurity, near.impurity, rtol=0,
                               atol=np.sqrt(near.impurity).max() * ulp + ulp**2)
    # a mean moves by at most ulp / 2, plus the rounding of 1e8 + mean (ulp / 2)
    np.testing.assert_allclose(far.value - 1e8, near.value, rtol=0, atol=ulp)


def subtree(tree, root):
    """The subtree of ``tree`` below ``root``, as a tree of its own (pre-order ids)."""
    order, stack = [], [root]
    while stack:
        node = stack.pop()
        order.append(node)
        # each child once (a CART split's missing-value child is its left or right one)
        stack += [c for c in list(dict.fromkeys(tree.children[node].tolist()))[::-1]
                  if c != TREE_LEAF]
    new_id = np.full(tree.node_count, TREE_LEAF)
    new_id[order] = np.arange(len(order))

    def children(c):
        return np.where(c[order] == TREE_LEAF, TREE_LEAF, new_id[c[order]])

    return Tree(children_left=children(tree.children_left),
                children_right=children(tree.children_right),
                children_missing=children(tree.children_missing),
                feature=tree.feature[order], threshold=tree.threshold[order],
                value=tree.value[order], impurity=tree.impurity[order],
                n_node_samples=tree.n_node_samples[order],
                weighted_n_node_samples=tree.weighted_n_node_samples[order],
                categorical=tree.categorical[order], category_bits=tree.category_bits[order])


@pytest.mark.parametrize("builder", ["level_wise", "depth_first"])
def test_min_impurity_decrease_weighs_a_gain_by_all_the_rows(builder):
    """The improvement is gain / (number of training rows): 1,800 more rows, split off
    at the root, make the rule ten times stricter for the 200 others.  (This replaces the
    old ``n_total`` argument, which is gone.)"""
    rng = np.random.default_rng(2)
    X, y = rng.normal(size=(200, 2)), rng.normal(size=200)
    X_more = np.r_[np.c_[X, np.zeros(200)], np.c_[rng.normal(size=(1800, 2)), np.ones(1800)]]
    y_more = np.r_[y, np.full(1800, 50.0)]
    everything = grown(builder, X_more, y_more[:, None], min_impurity_decrease=0.001)
    assert (everything.feature[0], everything.threshold[0]) == (2, 0.5)
    assert everything.n_node_samples[everything.children_left[0]] == 200
    strict = subtree(everything, everything.children_left[0])
    loose = grown(builder, X, y[:, None], min_impurity_decrease=0.001)
    assert strict.node_count < loose.node_count
    assert_same_tree(strict, grown(builder, X, y[:, None], min_impurity_decrease=0.01))


# --- Python works per level ------------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_one_search_per_level_read_from_a_counter(dtype):
    rng = np.random.default_rng(3)
    X, y = rng.normal(size=(2000, 3)).astype(dtype), rng.normal(size=(2000, 1))
    max_depth = 10
    counter = GrowthCounter()
    tree = grown("level_wise", X, y, max_depth=max_depth, counter=counter)
    # one vectorized search per level that has a node to split, for many nodes
    assert counter.levels == tree.max_depth == max_depth
    assert tree.node_count > 40 * counter.levels
    # the nodes searched at each depth: those below max_depth with two samples or more
    # and some impurity (every other node is a leaf before any search)
    depth = tree.node_depth()
    searched = (depth < max_depth) & (tree.n_node_samples >= 2) & (tree.impurity > 0)
    np.testing.assert_array_equal(counter.nodes_per_depth,
                                  np.bincount(depth[searched], minlength=max_depth))
    np.testing.assert_array_equal(
        counter.samples_per_depth,
        np.bincount(depth[searched], weights=tree.n_node_samples[searched],
                    minlength=max_depth))
    assert counter.nodes_per_depth[:4] == [1, 2, 4, 8]
    assert counter.searches == searched.sum()
    # the same nodes as the depth-first grower searches one by one
    per_node = GrowthCounter()
    assert_same_tree(tree, grown("depth_first", X, y, max_depth=max_depth, counter=per_node))
    assert per_node.nodes_per_depth == counter.nodes_per_depth
    assert per_node.samples_per_depth == counter.samples_per_depth
    # working memory: the sorted rows of sample ids (int32) and values, at the root
    assert counter.peak_bytes == X.size * (4 + X.itemsize)


# --- reported bug: one running sum across the nodes of a level ---------------------------


def huge_and_tiny_nodes(rng):
    """The data of the bug report: a node of 3 to 29 targets near 3e12 (feature 0 = 0)
    and a node of 8 targets with a step pattern of magnitude 1e-14 to 1e-9 (feature 0 =
    1), whose cuts at x_1 <= 0.5 and x_1 <= 6.5 tie exactly."""
    n_huge = rng.integers(3, 30)
    y_huge = 1e12 * rng.normal(size=n_huge) + 3e12
    x_tiny = np.arange(8.0)
    y_tiny = np.array([0.0, 5, 5, 0, 0, 5, 5, 0]) * 10.0 ** rng.integers(-14, -8)
    X = np.r_[np.c_[np.zeros(n_huge), rng.integers(0, 8, n_huge)], np.c_[np.ones(8), x_tiny]]
    return X, np.r_[y_huge, y_tiny]


def test_a_huge_node_leaks_no_rounding_into_a_tiny_one():
    # Reported bug: the level-wise grower kept one running sum across all the nodes of
    # a level, so the rounding residue of a node of targets near 1e12 carried into the
    # next node, of targets near 1e-11, and chose its cut: the level-wise and
    # depth-first trees differed.  The running sums now restart at every node.
    rng = np.random.default_rng(0)
    for trial in range(50):
        X, y = huge_and_tiny_nodes(rng)
        level_wise = grown("level_wise", X, y[:, None], max_depth=2)
        depth_first = grown("depth_first", X, y[:, None], max_depth=2)
        assert level_wise.feature[0] == 0, trial           # the two nodes at depth 1
        assert_same_tree(level_wise, depth_first)
        # the tiny node's split is its own best: the one of the tiny node grown alone
        in_tiny = X[:, 0] == 1
        tiny = grown("depth_first", X[in_tiny], y[in_tiny, None], max_depth=1)
        right = level_wise.children_right[0]
        assert (level_wise.feature[right], level_wise.threshold[right]) == (
            tiny.feature[0], tiny.threshold[0]), trial


@st.composite
def mixed_magnitudes(draw):
    """Groups of rows (feature 0 = the group) whose targets have magnitudes from 1e-14 to
    1e14, some with offsets much larger than their spread, rows interleaved."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    X, y = [], []
    for group in range(draw(st.integers(2, 5))):
        n = draw(st.integers(1, 15))
        scale = 10.0 ** draw(st.integers(-14, 14))
        offset = draw(st.sampled_from([0.0, 0.0, 3.0, 1e4])) * scale
        kind = draw(st.sampled_from(["integer", "few", "distinct"]))
        X.append(np.c_[np.full(n, group), rng.integers(0, 5, n), rng.normal(size=n)])
        y.append(offset + scale * targets(rng, n, kind))
    order = rng.permutation(sum(len(part) for part in y))
    return np.concatenate(X)[order], np.concatenate(y)[order]


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=mixed_magnitudes(), max_depth=st.sampled_from([2, 3, None]),
       min_samples_leaf=st.sampled_from([1, 2]))
def test_nodes_of_very_different_magnitudes_grow_as_depth_first(data, max_depth,
                                                                 min_samples_leaf):
    X, y = data
    options = dict(max_depth=max_depth, min_samples_leaf=min_samples_leaf)
    tree = grown("level_wise", X, y[:, None], **options)
    assert_same_tree(tree, grown("depth_first", X, y[:, None], **options))
    assert_breadth_first(tree)


# --- scikit-learn ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def real_data():
    from sklearn.datasets import load_diabetes

    from treelib.datasets import load_california_housing

    def as_float32(data):             # the values scikit-learn's trees split on
        X, y = data
        return np.asarray(X, dtype=np.float32).astype(np.float64), y

    return {"diabetes": as_float32(load_diabetes(return_X_y=True)),
            "california_housing": as_float32(load_california_housing(return_X_y=True))}


@pytest.mark.parametrize("name", ["diabetes", "california_housing"])
@pytest.mark.parametrize("max_depth", range(1, 9))
def test_level_wise_trees_equal_scikit_learns(real_data, name, max_depth):
    from sklearn.tree import DecisionTreeRegressor

    X, y = real_data[name]
    theirs = DecisionTreeRegressor(max_depth=max_depth, random_state=0).fit(X, y)
    ours = grown("level_wise", X, y[:, None], max_depth=max_depth)
    ties, diverging = compare_with_scikit_learn(ours, theirs, X, y)
    if diverging == 0:     # every tie split the samples the same way: same predictions
        # each prediction is a mean of at most n targets, summed in different orders
        assert_sums_close(ours.predict(X)[:, 0], theirs.predict(X), len(y), np.abs(y).max())
        assert ours.node_count == theirs.tree_.node_count
    if ties == 0:          # same tests everywhere (the node ids differ: breadth first)
        np.testing.assert_array_equal(np.sort(ours.threshold), np.sort(theirs.tree_.threshold))
    # Shallow trees have no tie at all.  Deeper down (diabetes from depth 4,
    # california_housing from depth 6) features tie by cutting off the same samples;
    # with scikit-learn 1.9 only ties of diabetes at depth 8 split them differently.
    if max_depth <= {"diabetes": 3, "california_housing": 5}[name]:
        assert ties == 0
    if name == "california_housing" or max_depth < 8:
        assert diverging == 0


# --- what level-wise growth refuses ------------------------------------------------------------


@pytest.mark.parametrize("splitter", ["cumsum", "hist"])
def test_level_wise_growth_refuses_missing_values(splitter):
    X = np.array([[0.0], [np.nan], [2.0], [3.0]])
    finder = Finder(splitter, "squared_error")
    with pytest.raises(ValueError, match=r"level-wise growth does not handle missing values "
                                         r"\(NaN\); grow the tree with builder="
                                         r"'depth_first' or 'best_first'"):
        grow("level_wise", finder.prepare(X), np.arange(4.0)[:, None], finder,
             StoppingRules())
    # the per-node growers take them
    tree = grow("depth_first", finder.prepare(X), np.arange(4.0)[:, None], finder,
                StoppingRules())
    assert tree.n_leaves == 4


def test_level_wise_growth_refuses_absolute_error_and_categories():
    from treelib.finders.categorical import Categories

    X, Y = np.arange(4.0)[:, None], np.arange(4.0)[:, None]
    with pytest.raises(ValueError, match="criterion='absolute_error' needs a per-node grower"):
        grow("level_wise", X, Y, Finder("cumsum", "absolute_error"), StoppingRules())
    finder = Finder("cumsum", "squared_error", categories=Categories(np.array([4])))
    with pytest.raises(ValueError, match="level-wise growth does not split categorical"):
        grow("level_wise", X, Y, finder, StoppingRules())


# --- the rows move to the next level in place --------------------------------------------


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_rows_partitioned_in_place_equal_rows_partitioned_into_a_copy(data):
    counts = np.array(data.draw(st.lists(st.integers(1, 6), min_size=1, max_size=5)))
    n_left = np.array([data.draw(st.integers(0, c)) for c in counts])
    keep_left = np.array(data.draw(st.lists(st.booleans(), min_size=len(counts),
                                            max_size=len(counts))))
    keep_right = np.array(data.draw(st.lists(st.booleans(), min_size=len(counts),
                                             max_size=len(counts))))
    n_rows, p = data.draw(st.integers(1, 3)), int(counts.sum())
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    rows = np.argsort(rng.random((n_rows, p)), axis=1).astype(np.int32)
    # each node sends its first n_left samples (in the row's order) left
    starts = np.repeat(np.cumsum(counts) - counts, counts)
    rank = np.arange(p) - starts
    goes_left = np.stack([rank < np.repeat(n_left, counts)] * n_rows)
    original = rows.copy()
    plan = partition_plan(counts, n_left, keep_left, keep_right)
    copy = np.empty((n_rows, plan[2]), dtype=rows.dtype)
    partition_rows(plan, goes_left, [(rows, copy)])
    partition_rows(plan, goes_left, [(rows, rows[:, :plan[2]])])
    np.testing.assert_array_equal(rows[:, :plan[2]], copy)
    # each row is the stable partition: node by node, its kept left child, then its
    # kept right child, each in the row's order
    ends = np.cumsum(counts)
    for row, moved in zip(original, copy):
        expected = []
        for s in range(len(counts)):
            node = row[ends[s] - counts[s]:ends[s]]
            expected += list(node[:n_left[s]]) * bool(keep_left[s])
            expected += list(node[n_left[s]:]) * bool(keep_right[s])
        np.testing.assert_array_equal(moved, expected)
