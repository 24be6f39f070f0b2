"""The level-wise histogram grower: the depth-first histogram tree with and without the
subtraction trick, the work and memory it takes (read from a ``GrowthCounter`` and
tracemalloc), and scikit-learn's HistGradientBoosting tree.

(The histogram finder of one node is tested in ``tests/finders/test_histogram.py``.)"""

import dataclasses
import tracemalloc

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.reference import assert_breadth_first, assert_same_tree
from treelib.binning import bin_features
from treelib.counters import GrowthCounter
from treelib.criteria import one_hot
from treelib.datasets import load_california_housing, load_libsvm
from treelib.estimators import DecisionTreeClassifier, DecisionTreeRegressor
from treelib.finders import Finder
from treelib.growth import LevelOptions, StoppingRules, grow
from treelib.growth.level_wise_hist import MIN_STORE_BYTES, STORE_BYTES_PER_VALUE

CRITERIA = ["squared_error", "gini", "entropy"]


def hist_tree(builder, X, Y, criterion="squared_error", *, max_bins=255, subtract=True,
              min_samples_leaf=1, counter=None, **rules):
    """A tree grown by ``builder`` with the "hist" finder on X binned once."""
    finder = Finder("hist", criterion, max_bins=max_bins, min_samples_leaf=min_samples_leaf)
    return grow(builder, finder.prepare(X), Y, finder, StoppingRules(**rules), counter=counter,
                level=LevelOptions(subtract=subtract))


@pytest.fixture(scope="module")
def california():
    X, y = load_california_housing(return_X_y=True)
    return X.astype(np.float32).astype(np.float64), y


# --- small random data -----------------------------------------------------------------


@st.composite
def binned_data(draw):
    """X with a few distinct values per feature (binned one bin per value, or, with
    fewer bins than values, by percentiles), targets with offsets, or classes."""
    n = draw(st.integers(1, 120))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    f = draw(st.integers(1, 4))
    X = rng.integers(0, draw(st.integers(1, 16)), size=(n, f)) * 0.25
    criterion = draw(st.sampled_from(CRITERIA))
    if criterion == "squared_error":
        y = (rng.integers(-3, 4, n) if draw(st.booleans()) else rng.normal(scale=5, size=n))
        Y = y[:, None] + draw(st.sampled_from([0.0, 1e6]))
    else:
        Y = one_hot(rng.integers(0, 3, n), 3)
    options = dict(criterion=criterion, max_bins=draw(st.integers(2, 12)),
                   min_samples_leaf=draw(st.integers(1, 3)),
                   max_depth=draw(st.sampled_from([None, 1, 3])),
                   min_samples_split=draw(st.integers(2, 6)),
                   min_impurity_decrease=draw(st.sampled_from([0.0, 0.01])))
    return X, Y, options


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=binned_data(), subtract=st.booleans())
def test_level_wise_histogram_tree_is_the_depth_first_one(data, subtract):
    X, Y, options = data
    reference = hist_tree("depth_first", X, Y, **options)
    level = hist_tree("level_wise", X, Y, subtract=subtract, **options)
    assert_same_tree(reference, level)
    assert_breadth_first(level)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=binned_data())
def test_subtraction_changes_nothing_on_small_data(data):
    X, Y, options = data
    assert_same_tree(hist_tree("level_wise", X, Y, subtract=True, **options),
                     hist_tree("level_wise", X, Y, subtract=False, **options))


# --- real data ---------------------------------------------------------------------------


@pytest.mark.parametrize("criterion", ["gini", "entropy"])
def test_subtraction_is_exact_for_class_counts(criterion):
    # One-hot statistics make every histogram a table of integers: the subtraction
    # trick loses nothing, and the full-depth trees are identical.
    data = load_libsvm("a1a")
    Y = one_hot(data.y_train, 2)
    counter = GrowthCounter()
    with_trick = hist_tree("level_wise", data.X_train, Y, criterion, counter=counter)
    without = hist_tree("level_wise", data.X_train, Y, criterion, subtract=False)
    assert_same_tree(with_trick, without)
    assert with_trick.node_count > 100 and counter.subtracted_histograms > 0


def test_subtraction_changes_nothing_on_california_at_depth_10(california):
    X, y = california
    counters = {True: GrowthCounter(), False: GrowthCounter()}
    trees = {subtract: hist_tree("level_wise", X, y[:, None], subtract=subtract,
                                 max_depth=10, counter=counter)
             for subtract, counter in counters.items()}
    assert_same_tree(trees[True], trees[False])
    assert trees[True].max_depth == 10 and trees[True].node_count > 1000
    assert counters[True].subtracted_histograms > 0


@pytest.mark.slow
def test_full_depth_california_trees_agree_between_growth_orders(california):
    # 3,000 rows grown to full depth (the whole data set, 40,000 leaves, takes half a
    # minute to grow depth first and walk node by node)
    X, y = california[0][:3000], california[1][:3000]
    depth_first = hist_tree("depth_first", X, y[:, None], max_bins=32)
    assert depth_first.n_leaves > 2_500
    for subtract in (True, False):
        assert_same_tree(depth_first, hist_tree("level_wise", X, y[:, None], max_bins=32,
                                                subtract=subtract))


# --- what the grower did, read from a counter ----------------------------------------------


def test_subtraction_counts_fewer_pairs_for_the_same_tree(california):
    X, y = california
    counters = {True: GrowthCounter(), False: GrowthCounter()}
    trees = {subtract: hist_tree("level_wise", X, y[:, None], max_bins=64, max_depth=8,
                                 subtract=subtract, counter=counter)
             for subtract, counter in counters.items()}
    assert_same_tree(trees[True], trees[False])
    with_trick, without = counters[True], counters[False]
    # the same nodes searched level by level
    assert with_trick.nodes_per_depth == without.nodes_per_depth
    assert with_trick.samples_per_depth == without.samples_per_depth
    assert with_trick.levels == trees[True].max_depth == 8
    # without the trick, every (sample, feature) pair of every searched node is counted
    assert without.histogram_pairs == X.shape[1] * sum(without.samples_per_depth)
    assert without.subtracted_histograms == 0 and without.peak_bytes == 0
    # with it, far fewer: each subtracted histogram is one node's feature
    assert with_trick.histogram_pairs < 0.6 * without.histogram_pairs
    assert with_trick.subtracted_histograms > 0
    assert with_trick.subtracted_histograms % X.shape[1] == 0
    # the parents' histograms kept for subtraction stay within their budget
    budget = max(MIN_STORE_BYTES, STORE_BYTES_PER_VALUE * X.size)
    assert 0 < with_trick.peak_bytes <= budget


# --- scikit-learn's HistGradientBoosting -------------------------------------------------


@pytest.mark.parametrize("max_depth", [3, 6, 9])
@pytest.mark.parametrize("max_bins", [255, 20])
def test_same_tree_as_scikit_learn_histogram_gradient_boosting(california, max_depth,
                                                               max_bins):
    # One boosting iteration with learning rate 1, no regularization and leaves of one
    # sample is one histogram regression tree on scikit-learn's bins: same bins, same
    # nodes, same predictions (scikit-learn keeps its gradients in float32).  Where the
    # two choose different tests, the tests make the same two children: exact ties,
    # which float32 rounding breaks differently.
    from sklearn.ensemble import HistGradientBoostingRegressor

    X, y = california
    theirs = HistGradientBoostingRegressor(
        max_iter=1, learning_rate=1.0, max_depth=max_depth, max_leaf_nodes=None,
        min_samples_leaf=1, l2_regularization=0.0, early_stopping=False,
        max_bins=max_bins).fit(X, y)
    ours = DecisionTreeRegressor(splitter="hist", max_bins=max_bins, max_depth=max_depth,
                                 builder="level_wise").fit(X, y)
    for j, cuts in enumerate(ours.bin_thresholds_):
        np.testing.assert_array_equal(cuts, theirs._bin_mapper.bin_thresholds_[j])
    nodes, tree = theirs._predictors[0][0].nodes, ours.tree_
    stack, same_test = [(0, 0, np.arange(len(y)))], 0
    while stack:
        i, j, rows = stack.pop()
        assert nodes["count"][j] == tree.n_node_samples[i] == len(rows)
        assert bool(nodes["is_leaf"][j]) == tree.is_leaf[i]
        if nodes["is_leaf"][j]:
            continue
        ours_left = X[rows, tree.feature[i]] <= tree.threshold[i]
        theirs_left = X[rows, nodes["feature_idx"][j]] <= nodes["num_threshold"][j]
        if (nodes["feature_idx"][j], nodes["num_threshold"][j]) == (tree.feature[i],
                                                                   tree.threshold[i]):
            same_test += 1
        else:
            assert (ours_left == theirs_left).all() or (ours_left != theirs_left).all()
        swap = not (ours_left == theirs_left).all()
        left, right = nodes["left"][j], nodes["right"][j]
        stack += [(tree.children_left[i], right if swap else left, rows[ours_left]),
                  (tree.children_right[i], left if swap else right, rows[~ours_left])]
    assert same_test >= 0.9 * (tree.node_count - tree.n_leaves)
    # a leaf's value is a mean of float32 gradients, each y - mean(y) rounded to 24 bits
    np.testing.assert_allclose(ours.predict(X), theirs.predict(X), rtol=0,
                               atol=np.finfo(np.float32).eps * np.abs(y - y.mean()).max())


# --- thresholds on X ---------------------------------------------------------------------


def same_partition(a, b, X):
    """Walk trees a and b together on the rows of X: same feature and same children at
    every node, whatever the thresholds.  Returns the nodes visited."""
    stack, visited = [(0, 0, np.arange(len(X)))], 0
    while stack:
        i, j, rows = stack.pop()
        visited += 1
        assert a.n_node_samples[i] == b.n_node_samples[j] == len(rows)
        assert a.is_leaf[i] == b.is_leaf[j]
        if a.is_leaf[i]:
            continue
        assert a.feature[i] == b.feature[j]
        left = X[rows, a.feature[i]] <= a.threshold[i]
        np.testing.assert_array_equal(left, X[rows, b.feature[j]] <= b.threshold[j])
        stack += [(a.children_left[i], b.children_left[j], rows[left]),
                  (a.children_right[i], b.children_right[j], rows[~left])]
    return visited


@pytest.mark.parametrize("criterion", ["squared_error", "gini"])
def test_histogram_tree_with_a_bin_per_value_is_the_exact_tree(california, criterion):
    # california rounded to few distinct values: 255 bins hold one value each, and the
    # histogram tree partitions the samples exactly as the exact level-wise tree does
    # (thresholds may differ below the root: the bins' are midpoints over all the rows)
    X, y = california
    X = np.round(X / X.std(axis=0) * 8) / 8
    assert max(len(np.unique(x)) for x in X.T) <= 255
    Y = y[:, None] if criterion == "squared_error" else one_hot((y > 2).astype(int), 2)
    exact = grow("level_wise", X, Y, Finder("cumsum", criterion), StoppingRules(max_depth=8))
    hist = hist_tree("level_wise", X, Y, criterion, max_depth=8)
    assert same_partition(exact, hist, X) == exact.node_count
    assert hist.threshold[0] == exact.threshold[0]


def test_thresholds_on_x_route_new_data_like_the_bin_codes(california):
    X, y = california
    train, new = X[:5000], X[5000:8000]
    finder = Finder("hist", "squared_error", max_bins=20)
    codes = finder.prepare(train)
    tree = grow("level_wise", codes, y[:5000, None], finder, StoppingRules(max_depth=6))
    # every threshold is one of its feature's bin thresholds: x <= t[b] <=> code <= b
    split = ~tree.is_leaf
    bins = np.zeros(tree.node_count)
    for node in np.flatnonzero(split):
        cuts = finder.bin_thresholds[tree.feature[node]]
        bins[node] = np.searchsorted(cuts, tree.threshold[node])
        assert cuts[int(bins[node])] == tree.threshold[node]
    on_codes = dataclasses.replace(tree, threshold=np.where(split, bins, tree.threshold))
    new_codes, _ = bin_features(new, thresholds=finder.bin_thresholds)
    np.testing.assert_array_equal(tree.apply(new), on_codes.apply(new_codes))
    np.testing.assert_array_equal(tree.apply(train), on_codes.apply(codes))


# --- reported bugs -------------------------------------------------------------------------


@pytest.mark.parametrize("builder", ["level_wise", "depth_first"])
def test_constant_features_give_one_leaf(builder):
    # Reported bug: with every feature constant there is one bin, and the level-wise
    # histogram grower crashed instead of returning the root as a leaf.
    y = np.arange(10) % 2
    model = DecisionTreeClassifier(splitter="hist", builder=builder).fit(np.ones((10, 2)), y)
    assert model.tree_.node_count == 1
    np.testing.assert_array_equal(model.tree_.value[0], [0.5, 0.5])     # 5 of 10, exact
    np.testing.assert_array_equal(model.predict(np.zeros((3, 2))), [0, 0, 0])
    regressor = DecisionTreeRegressor(splitter="hist", builder=builder)
    assert regressor.fit(np.full((10, 3), 7.0), y.astype(float)).tree_.node_count == 1


def peak_memory(splitter, X, Y, criterion):
    """Peak bytes numpy allocated (tracemalloc) while a level-wise tree grew on data
    the finder prepared beforehand."""
    finder = Finder(splitter, criterion)
    data = finder.prepare(X)
    tracemalloc.start()
    try:
        grow("level_wise", data, Y, finder, StoppingRules())
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def wide_regression(n_features):
    X = np.random.default_rng(0).normal(size=(200, n_features)).astype(np.float32)
    return X, X[:, :1].astype(np.float64)


def test_histogram_memory_stays_near_the_exact_growers_on_wide_data():
    # Reported bug: the level-wise histogram grower held nodes x features x bins
    # histograms at once (200 x 10,000 in the report).  Here 200 x 2,000, to stay fast.
    X, Y = wide_regression(2000)
    assert peak_memory("hist", X, Y, "squared_error") <= 2 * peak_memory(
        "cumsum", X, Y, "squared_error")


@pytest.mark.slow
def test_histogram_memory_stays_near_the_exact_growers_on_the_reported_data():
    # The bug report's shape, 200 rows x 10,000 float32 features, y = X[:, 0] (the old
    # grower peaked near 80 times the exact grower's memory at 2,000 features already).
    X, Y = wide_regression(10_000)
    assert peak_memory("hist", X, Y, "squared_error") <= 2 * peak_memory(
        "cumsum", X, Y, "squared_error")


def test_histogram_memory_stays_near_the_exact_growers_with_many_classes():
    # Reported bug, second case: many rows and classes (20,000 x 10 with 50 classes in
    # the report; here 5,000 x 10).
    rng = np.random.default_rng(1)
    X = rng.normal(size=(5000, 10)).astype(np.float32)
    Y = one_hot(rng.integers(0, 50, 5000), 50)
    assert peak_memory("hist", X, Y, "gini") <= 2 * peak_memory("cumsum", X, Y, "gini")


def huge_and_tiny_nodes(rng, pattern):
    """The data of the bug report: a node of 3 to 29 targets near 3e12 (feature 0 = 0)
    and a node of 8 targets, ``pattern`` at x_1 = 0 .. 7 scaled by 1e-14 to 1e-9
    (feature 0 = 1)."""
    n_huge = rng.integers(3, 30)
    y_huge = 1e12 * rng.normal(size=n_huge) + 3e12
    x_tiny = np.arange(8.0)
    y_tiny = np.array(pattern) * 10.0 ** rng.integers(-14, -8)
    X = np.r_[np.c_[np.zeros(n_huge), rng.integers(0, 8, n_huge)], np.c_[np.ones(8), x_tiny]]
    return X, np.r_[y_huge, y_tiny]


@pytest.mark.parametrize("pattern", [
    [0.0, 5, 5, 0, 0, 5, 5, 0],      # the report's: its best cuts, x_1 <= 0.5 and 6.5, tie
    [0.0, 0, 0, 5, 5, 5, 5, 0],      # best cut x_1 <= 2.5, not the first candidate
    [3.0, 0, 1, 4, 1, 5, 9, 2],
])
@pytest.mark.parametrize("subtract", [False, True])
def test_a_huge_node_costs_a_tiny_one_no_digits(subtract, pattern):
    # Reported bug: the old histogram grower centred the targets once, at the root (on
    # a mean near 1e12), so the statistics of the node of targets near 1e-11 lost all
    # their digits and it split elsewhere than the depth-first histogram tree.  (With
    # the report's pattern the lost digits happen to pick the same, first, cut: the
    # two other patterns failed on the old grower in every trial.)  Every node is now
    # centred on its own mean; subtraction is used only where it loses nothing.
    rng = np.random.default_rng(0)
    for trial in range(50):
        X, y = huge_and_tiny_nodes(rng, pattern)
        level = hist_tree("level_wise", X, y[:, None], subtract=subtract, max_depth=2)
        assert level.feature[0] == 0, trial
        assert_same_tree(level, hist_tree("depth_first", X, y[:, None], max_depth=2))


@st.composite
def mixed_magnitudes(draw):
    """Groups of rows (feature 0 = the group) with targets of magnitudes 1e-12 to 1e12,
    some with offsets far above their spread, rows interleaved."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    X, y = [], []
    for group in range(draw(st.integers(2, 5))):
        n = draw(st.integers(1, 40))
        scale = 10.0 ** draw(st.integers(-12, 12))
        offset = draw(st.sampled_from([0.0, 0.0, 3.0, 1e4])) * scale
        X.append(np.c_[np.full(n, group), rng.integers(0, 6, n), rng.normal(size=n)])
        y.append(offset + scale * rng.normal(size=n))
    order = rng.permutation(sum(len(part) for part in y))
    return np.concatenate(X)[order], np.concatenate(y)[order]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=mixed_magnitudes(), subtract=st.booleans(), max_bins=st.sampled_from([4, 16, 255]),
       max_depth=st.sampled_from([2, 4, None]))
def test_nodes_of_very_different_magnitudes_grow_as_depth_first(data, subtract, max_bins,
                                                                max_depth):
    X, y = data
    options = dict(max_bins=max_bins, max_depth=max_depth)
    assert_same_tree(hist_tree("level_wise", X, y[:, None], subtract=subtract, **options),
                     hist_tree("depth_first", X, y[:, None], **options))
