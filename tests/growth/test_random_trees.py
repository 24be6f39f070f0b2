"""Random decision trees, grown level by level: every node checked against its training
samples routed one by one; the random draws checked for what they promise.

(The ensembles are tested in ``tests/estimators/test_random_trees.py``.)"""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from tests.reference import assert_sums_close, route_one_by_one, rows_of_nodes
from treelib.counters import GrowthCounter
from treelib.criteria import one_hot
from treelib.finders import Finder
from treelib.growth import RandomTreeRule, StoppingRules, grow_random_tree
from treelib.split import midpoint
from treelib.tree import LEFT, MISSING, RIGHT, TREE_LEAF, TREE_UNDEFINED


def random_tree(X, Y, seed, max_depth=None, min_samples_leaf=1, criterion="gini",
                counter=None):
    rule = RandomTreeRule(criterion, min_samples_leaf=min_samples_leaf,
                          rng=np.random.default_rng(seed))
    return grow_random_tree(X, Y, rule, StoppingRules(max_depth=max_depth), counter)


@st.composite
def training_sets(draw, allow_nan=True):
    n = draw(st.integers(1, 80))
    f = draw(st.integers(1, 5))
    values = st.integers(-3, 3).map(float) | st.floats(-100, 100, allow_subnormal=False)
    if allow_nan and draw(st.booleans()):
        values = values | st.just(np.nan)
    X = draw(hnp.arrays(np.float64, (n, f), elements=values))
    labels = draw(hnp.arrays(np.int64, n, elements=st.integers(0, 2)))
    return (X, one_hot(labels, 3), draw(st.integers(1, 8)), draw(st.integers(1, 4)),
            draw(st.integers(0, 2**32 - 1)))


def check_tree(tree, X, Y, max_depth, min_samples_leaf, counter):
    """Every node against the training rows that reach it, routed one by one."""
    rows_of = rows_of_nodes(tree, X)
    for i in range(len(X)):
        assert tree.apply(X[i:i + 1])[0] == route_one_by_one(tree, X[i])
    depth = tree.node_depth()
    assert depth.max() <= max_depth
    # node ids are breadth first
    assert np.all(np.diff(depth) >= 0)
    no_nan = not np.isnan(X).any()
    searched = np.zeros(tree.node_count, dtype=bool)
    for node, rows in enumerate(rows_of):
        assert tree.n_node_samples[node] == len(rows)
        # the class proportions: a mean of 0/1 values, n of them
        assert_sums_close(tree.value[node], Y[rows].mean(axis=0), len(rows), 1.0)
        # Gini impurity 1 - sum p**2: the proportions' rounding, squared and summed
        p = Y[rows].mean(axis=0)
        assert_sums_close(tree.impurity[node], 1.0 - np.sum(p * p), 3 * len(rows), 1.0)
        if node > 0:
            assert len(rows) >= min_samples_leaf                 # only where data is
        present = ~np.isnan(X[rows])
        varies = [len(np.unique(X[rows][present[:, j], j])) >= 2 for j in range(X.shape[1])]
        searched[node] = (depth[node] < max_depth and len(rows) >= 2 * min_samples_leaf
                          and any(varies))
        j = tree.feature[node]
        if j == TREE_UNDEFINED:
            # a leaf: depth limit, too few samples, nothing varies, or (with missing
            # values) no branch kept enough samples
            assert np.all(tree.children[node] == TREE_LEAF)
            if no_nan:
                assert not searched[node]
            continue
        assert searched[node] and varies[j]
        values = np.unique(X[rows][present[:, j], j])
        low, high = values[values <= tree.threshold[node]], values[values > tree.threshold[node]]
        assert len(low) and len(high)
        # the threshold is the midpoint of two values of the node
        assert any(midpoint(a, b) == tree.threshold[node] for a in low for b in high)
        # a branch has a child exactly when enough samples take it
        x = X[rows, j]
        taken = [(x <= tree.threshold[node]).sum(), (x > tree.threshold[node]).sum(),
                 np.isnan(x).sum()]
        for branch in (LEFT, RIGHT, MISSING):
            assert (tree.children[node, branch] != TREE_LEAF) == (
                taken[branch] >= min_samples_leaf)
    # a node is drawn a feature and a threshold exactly when it may split
    np.testing.assert_array_equal(
        counter.nodes_per_depth,
        np.bincount(depth[searched], minlength=depth[searched].max() + 1)
        if searched.any() else [])
    assert counter.searches == searched.sum()


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=training_sets())
def test_every_node_holds_what_its_training_samples_say(data):
    X, Y, max_depth, min_samples_leaf, seed = data
    counter = GrowthCounter()
    tree = random_tree(X, Y, seed, max_depth, min_samples_leaf, counter=counter)
    check_tree(tree, X, Y, max_depth, min_samples_leaf, counter)


@settings(max_examples=60, deadline=None)
@given(data=training_sets(), permutation_seed=st.integers(0, 1000))
def test_labels_play_no_part_in_the_shape(data, permutation_seed):
    X, Y, max_depth, min_samples_leaf, seed = data
    shuffled = Y[np.random.default_rng(permutation_seed).permutation(len(Y))]
    a = random_tree(X, Y, seed, max_depth, min_samples_leaf)
    b = random_tree(X, shuffled, seed, max_depth, min_samples_leaf)
    for name in ("feature", "threshold", "children", "n_node_samples"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))


def test_a_regression_tree_records_the_mean_and_the_variance():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(300, 4))
    y = rng.normal(size=(300, 1))
    tree = random_tree(X, y, 9, 6, 3, criterion="squared_error")
    assert tree.max_depth == 6
    # a regression tree's nodes hold the mean target and its variance
    rows_of = rows_of_nodes(tree, X)
    for node, rows in enumerate(rows_of):
        assert len(rows) >= 3
        assert_sums_close(tree.value[node], y[rows].mean(axis=0), len(rows),
                          np.abs(y).max())
        assert_sums_close(tree.impurity[node], y[rows].var(), 2 * len(rows),
                          np.max((y - y[rows].mean()) ** 2))


def test_a_weight_of_zero_is_no_sample():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(200, 3))
    Y = one_hot(rng.integers(0, 2, 200), 2)
    weights = np.where(np.arange(200) % 4 == 0, 0.0, 1.0)
    kept = weights > 0
    a = grow_random_tree(X, Y, RandomTreeRule("gini", rng=np.random.default_rng(2)),
                         StoppingRules(max_depth=5), weights=weights)
    b = random_tree(X[kept], Y[kept], 2, max_depth=5)
    for name in ("children", "feature", "threshold", "n_node_samples", "value", "impurity"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
    assert a.n_node_samples[0] == kept.sum()


def test_random_trees_take_a_rule_not_a_finder():
    X, Y = np.arange(20.0)[:, None], one_hot(np.arange(20) % 2, 2)
    with pytest.raises(ValueError, match="search nothing: grow them with "
                                         "treelib.growth.grow_random_tree"):
        Finder("random_tree", "gini", rng=np.random.default_rng(0))
    finder = Finder("random", "gini", rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="grow_random_tree needs a RandomTreeRule"):
        grow_random_tree(X, Y, finder, StoppingRules())
    rule = RandomTreeRule("gini", rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="stop at a depth only"):
        grow_random_tree(X, Y, rule, StoppingRules(max_leaf_nodes=4))


@pytest.mark.parametrize("criterion, options, message", [
    ("gini", {}, "draw at random: give rng, a numpy.random.Generator; got None"),
    ("gini", {"rng": np.random.RandomState(0)}, "give rng, a numpy.random.Generator"),
    ("mae", {"rng": np.random.default_rng(0)}, "unknown criterion 'mae'"),
    ("entropy", {"rng": np.random.default_rng(0)}, "record the variance or the Gini"),
    ("gini", {"rng": np.random.default_rng(0), "min_samples_leaf": 0},
     "min_samples_leaf must be an integer >= 1"),
])
def test_the_rule_is_checked_when_created(criterion, options, message):
    options = {"rng": None, **options}
    with pytest.raises(ValueError, match=message):
        RandomTreeRule(criterion, **options)


@pytest.mark.parametrize("n_features, varying", [(3, [0, 2]), (60, [7])])
def test_the_feature_is_uniform_among_those_that_vary(n_features, varying):
    # 60 features, one varying: eight random draws usually miss it, and the node falls
    # back to checking every feature.  Either way only varying features are drawn, each
    # about equally often (fixed seeds: deterministic).
    X = np.zeros((20, n_features))
    for j in varying:
        X[:, j] = np.arange(20) % (3 + j)
    Y = np.ones((20, 1))
    roots = [random_tree(X, Y, s, max_depth=1).feature[0] for s in range(600)]
    counts = np.bincount(roots, minlength=n_features)
    assert set(np.flatnonzero(counts)) == set(varying)
    assert counts[varying].min() > 0.8 * 600 / len(varying)


def test_threshold_is_the_midpoint_of_two_different_values():
    x = np.array([1.0, 1.0, 1.0, 2.0, 4.0, np.nan])[:, None]
    thresholds = {random_tree(x, np.ones((6, 1)), s, max_depth=1).threshold[0]
                  for s in range(300)}
    assert thresholds == {1.5, 2.5, 3.0}


def test_missing_values_travel_on_their_own_branch():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 1))
    X[:100, 0] = np.nan
    Y = one_hot((np.arange(400) < 100).astype(int), 2)     # missing <=> class 1
    tree = random_tree(X, Y, 1, max_depth=1, min_samples_leaf=4)
    missing_child = tree.children[0, MISSING]
    assert tree.n_node_samples[missing_child] == 100
    np.testing.assert_array_equal(tree.value[missing_child], [0.0, 1.0])
    assert tree.apply(np.array([[np.nan]]))[0] == missing_child
    # no missing value in training: a missing value at prediction stops at the node
    tree = random_tree(X[100:], Y[100:], 1, max_depth=1)
    assert tree.children[0, MISSING] == TREE_LEAF
    assert tree.apply(np.array([[np.nan]]))[0] == 0
