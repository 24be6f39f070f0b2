"""Histogram split finders against brute force, against the exact finders, between
growth orders, and against scikit-learn's HistGradientBoosting."""

import numpy as np
import pytest
from conftest import assert_same_tree
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from treelib import DecisionTreeClassifier, DecisionTreeRegressor, best_split
from treelib.binning import bin_features
from treelib.builders import StoppingRules, build_depth_first, make_split_finder
from treelib.criteria import CRITERIA as CRITERIA_FUNCTIONS
from treelib.criteria import one_hot, split_gain
from treelib.datasets import load_california_housing, load_libsvm
from treelib.histogram import (
    best_histogram_split,
    build_histogram_level_wise,
    histogram_gains,
    node_histograms,
    with_bin_thresholds,
)
from treelib.levelwise import build_level_wise
from treelib.splits import TIE_RTOL

CRITERIA = ["squared_error", "gini", "entropy"]


@st.composite
def coded_nodes(draw, max_n=40, max_features=3, max_bins=6):
    """A node as bin codes and targets: ties, empty bins, constant features, offsets."""
    n = draw(st.integers(1, max_n))
    f = draw(st.integers(1, max_features))
    n_bins = draw(st.integers(1, max_bins))
    codes = draw(hnp.arrays(np.uint8, (n, f), elements=st.integers(0, n_bins - 1)))
    criterion = draw(st.sampled_from(CRITERIA))
    if criterion == "squared_error":
        offset = draw(st.sampled_from([0.0, 1e6, -1e8]))
        y = offset + draw(hnp.arrays(np.float64, n, elements=st.integers(-3, 3).map(float)
                                     | st.floats(-10, 10, allow_subnormal=False)))
    else:
        y = draw(hnp.arrays(np.int64, n, elements=st.integers(0, 2)))
    return codes, y, n_bins, criterion, draw(st.integers(1, 3))


def statistics(y, criterion):
    if criterion == "squared_error":
        return y[:, None]
    return one_hot(y, 3)


def brute_force_bins(codes, y, n_bins, criterion, min_samples_leaf):
    """Every cut after a bin that holds samples, scored from scratch with split_gain;
    the tie rule of treelib.splits.best_cut.  Returns (feature, bin, n_left, gain)."""
    candidates = []
    for j in range(codes.shape[1]):
        for b in range(n_bins - 1):
            left = codes[:, j] <= b
            if (codes[:, j] == b).any() and min(left.sum(), (~left).sum()) >= min_samples_leaf:
                candidates.append((j, b, int(left.sum()), split_gain(y, left, criterion)))
    if not candidates:
        return None
    best = max(c[3] for c in candidates)
    tied = [c for c in candidates
            if c[3] >= best - TIE_RTOL * len(y) * CRITERIA_FUNCTIONS[criterion](y)]
    return min(tied, key=lambda c: (c[0], c[1]))


@settings(max_examples=300, deadline=None)
@given(node=coded_nodes())
def test_histograms_count_and_sum_every_bin(node):
    codes, y, n_bins, criterion, _ = node
    Y = statistics(y, criterion).astype(float)
    sums, counts = node_histograms(codes, Y, n_bins)
    for j in range(codes.shape[1]):
        for b in range(n_bins):
            rows = codes[:, j] == b
            assert counts[j, b] == rows.sum()
            np.testing.assert_allclose(sums[j, b], Y[rows].sum(axis=0), rtol=1e-12,
                                       atol=1e-12 * np.abs(Y).sum())


@settings(max_examples=400, deadline=None)
@given(node=coded_nodes())
def test_best_histogram_split_is_the_brute_force_one(node):
    codes, y, n_bins, criterion, min_samples_leaf = node
    split = best_histogram_split(codes, statistics(y, criterion), n_bins, criterion,
                                 min_samples_leaf)
    expected = brute_force_bins(codes, y, n_bins, criterion, min_samples_leaf)
    if expected is None:
        assert split is None
        return
    feature, b, n_left, gain = expected
    assert (split.feature, split.threshold, split.n_left) == (feature, float(b), n_left)
    assert split.n_right == len(y) - n_left
    assert split.gain == pytest.approx(max(gain, 0.0), rel=1e-7, abs=1e-9 * (1 + abs(gain)))


def test_histogram_gains_marks_only_cuts_after_a_populated_bin():
    codes = np.array([[0], [0], [3], [3], [5]], dtype=np.uint8)
    y = np.array([1.0, 2.0, 3.0, 4.0, 10.0])
    sums, counts = node_histograms(codes, (y - y.mean())[:, None], 6)
    gains = histogram_gains(sums, counts)[:, 0]
    assert np.isfinite(gains).tolist() == [True, False, False, True, False]
    gains = histogram_gains(sums, counts, min_samples_leaf=2)[:, 0]
    assert np.isfinite(gains).tolist() == [True, False, False, False, False]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(X=hnp.arrays(np.float64, st.tuples(st.integers(2, 60), st.integers(1, 3)),
                    elements=st.integers(-4, 4).map(lambda v: v * 0.37)),
       y=hnp.arrays(np.float64, 60, elements=st.floats(-5, 5, allow_subnormal=False)),
       criterion=st.sampled_from(CRITERIA), min_samples_leaf=st.integers(1, 3))
def test_one_bin_per_value_gives_the_exact_split(X, y, criterion, min_samples_leaf):
    y = y[: len(X)]
    if criterion != "squared_error":
        y = (np.abs(y) > 2).astype(int) + (y > 4)
    codes, thresholds = bin_features(X, max_bins=255)
    n_bins = max(len(t) for t in thresholds) + 1
    exact = best_split(X, y, criterion=criterion, min_samples_leaf=min_samples_leaf)
    binned = best_histogram_split(codes, statistics(y, criterion) if criterion != "squared_error"
                                  else y, n_bins, criterion, min_samples_leaf)
    if exact is None:
        assert binned is None
        return
    assert (binned.feature, binned.n_left) == (exact.feature, exact.n_left)
    assert binned.gain == pytest.approx(exact.gain, rel=1e-9, abs=1e-9)
    # same children; at the root the threshold is the exact one
    threshold = thresholds[binned.feature][int(binned.threshold)]
    assert threshold == exact.threshold
    np.testing.assert_array_equal(X[:, binned.feature] <= threshold, exact.goes_left(X))


def test_large_offsets_do_not_move_the_histogram_split():
    X, y = load_california_housing(return_X_y=True)
    codes, thresholds = bin_features(X[:3000], max_bins=64)
    reference = best_histogram_split(codes, y[:3000], 64)
    for offset in [1e6, 1e8]:
        moved = best_histogram_split(codes, y[:3000] + offset, 64)
        assert (moved.feature, moved.threshold, moved.n_left) == (
            reference.feature, reference.threshold, reference.n_left)
        assert moved.gain == pytest.approx(reference.gain, rel=1e-6)


# --- whole trees -----------------------------------------------------------------------


@st.composite
def coded_data(draw):
    n = draw(st.integers(1, 120))
    f = draw(st.integers(1, 4))
    n_bins = draw(st.integers(2, 12))
    codes = draw(hnp.arrays(np.uint8, (n, f), elements=st.integers(0, n_bins - 1)))
    criterion = draw(st.sampled_from(CRITERIA))
    if criterion == "squared_error":
        y = draw(hnp.arrays(np.float64, n, elements=st.integers(-3, 3).map(float)
                            | st.floats(-10, 10, allow_subnormal=False)))
        Y = y[:, None] + draw(st.sampled_from([0.0, 1e6]))
    else:
        Y = one_hot(draw(hnp.arrays(np.int64, n, elements=st.integers(0, 2))), 3)
    rules = dict(max_depth=draw(st.sampled_from([None, 1, 3])),
                 min_samples_split=draw(st.integers(2, 6)),
                 min_samples_leaf=draw(st.integers(1, 3)),
                 min_impurity_decrease=draw(st.sampled_from([0.0, 0.01])))
    return codes, Y, n_bins, criterion, rules


def depth_first_on_codes(codes, Y, n_bins, criterion, rules):
    stopping = StoppingRules(max_depth=np.inf if rules["max_depth"] is None
                             else rules["max_depth"],
                             min_samples_split=rules["min_samples_split"],
                             min_samples_leaf=rules["min_samples_leaf"],
                             min_impurity_decrease=rules["min_impurity_decrease"])
    finder = make_split_finder("hist", criterion, rules["min_samples_leaf"], n_bins=n_bins)
    return build_depth_first(codes, Y, finder, criterion, stopping)


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=coded_data(), subtract=st.booleans())
def test_level_wise_histogram_tree_is_the_depth_first_one(data, subtract):
    codes, Y, n_bins, criterion, rules = data
    reference = depth_first_on_codes(codes, Y, n_bins, criterion, rules)
    level = build_histogram_level_wise(codes, Y, criterion, n_bins=n_bins,
                                       subtract=subtract, **rules)
    assert_same_tree(reference, level)


@pytest.mark.parametrize("criterion", ["gini", "entropy"])
def test_subtraction_is_exact_for_class_counts(criterion):
    # One-hot statistics make every histogram a table of integers: the subtraction
    # trick loses nothing, and the full-depth trees are identical.
    data = load_libsvm("a1a")
    codes, _ = bin_features(data.X_train)
    Y = one_hot(data.y_train, 2)
    with_trick = build_histogram_level_wise(codes, Y, criterion, subtract=True)
    without = build_histogram_level_wise(codes, Y, criterion, subtract=False)
    assert_same_tree(with_trick, without)
    assert with_trick.node_count > 100


@pytest.mark.slow
def test_full_depth_california_trees_agree_between_growth_orders():
    X, y = load_california_housing(return_X_y=True)
    X = X.astype(np.float32).astype(np.float64)
    codes, thresholds = bin_features(X, max_bins=32)
    rules = dict(max_depth=None, min_samples_split=2, min_samples_leaf=1,
                 min_impurity_decrease=0.0)
    depth_first = depth_first_on_codes(codes, y[:, None], 32, "squared_error", rules)
    for subtract in (True, False):
        level = build_histogram_level_wise(codes, y[:, None], n_bins=32, subtract=subtract)
        assert_same_tree(depth_first, level)


def same_partition(a, b, rows_a, rows_b):
    """Walk trees a (on data rows_a) and b (on rows_b) together: same feature and same
    children at every node, whatever the thresholds.  Returns the nodes visited."""
    stack, visited = [(0, 0, np.arange(len(rows_a)))], 0
    while stack:
        i, j, rows = stack.pop()
        visited += 1
        assert a.n_node_samples[i] == b.n_node_samples[j] == len(rows)
        assert (a.children_left[i] == -1) == (b.children_left[j] == -1)
        if a.children_left[i] == -1:
            continue
        assert a.feature[i] == b.feature[j]
        left = rows_a[rows, a.feature[i]] <= a.threshold[i]
        np.testing.assert_array_equal(left, rows_b[rows, b.feature[j]] <= b.threshold[j])
        stack += [(a.children_left[i], b.children_left[j], rows[left]),
                  (a.children_right[i], b.children_right[j], rows[~left])]
    return visited


@pytest.mark.parametrize("criterion", ["squared_error", "gini"])
def test_histogram_tree_with_a_bin_per_value_is_the_exact_tree(criterion):
    # california rounded to few distinct values: 255 bins hold one value each, and the
    # histogram tree partitions the samples exactly as the exact level-wise tree does
    # (thresholds may differ below the root: the bins' are global midpoints).
    X, y = load_california_housing(return_X_y=True)
    X = np.round(X / X.std(axis=0) * 8) / 8
    assert max(len(np.unique(x)) for x in X.T) <= 255
    Y = y[:, None] if criterion == "squared_error" else one_hot((y > 2).astype(int), 2)
    codes, thresholds = bin_features(X, max_bins=255)
    exact = build_level_wise(X, Y, criterion, max_depth=8)
    hist = with_bin_thresholds(build_histogram_level_wise(codes, Y, criterion, max_depth=8),
                               thresholds)
    assert same_partition(exact, hist, X, X) == exact.node_count
    assert hist.threshold[0] == exact.threshold[0]


def test_bin_thresholds_route_new_data_like_codes():
    X, y = load_california_housing(return_X_y=True)
    train, new = X[:5000], X[5000:8000]
    codes, thresholds = bin_features(train, max_bins=20)
    tree = build_histogram_level_wise(codes, y[:5000, None], max_depth=6)
    on_x = with_bin_thresholds(tree, thresholds)
    new_codes, _ = bin_features(new, thresholds=thresholds)
    np.testing.assert_array_equal(on_x.apply(new), tree.apply(new_codes))
    np.testing.assert_array_equal(on_x.apply(train), tree.apply(codes))


# --- the estimators --------------------------------------------------------------------


@pytest.mark.parametrize("builder", ["depth", "level", "best", "recursive"])
def test_estimator_growth_orders_agree(builder):
    X, y = load_california_housing(return_X_y=True)
    reference = DecisionTreeRegressor(splitter="hist", max_bins=64, max_depth=7,
                                      builder="level").fit(X, y)
    model = DecisionTreeRegressor(splitter="hist", max_bins=64, max_depth=7,
                                  builder=builder).fit(X, y)
    assert_same_tree(reference.tree_, model.tree_)
    np.testing.assert_allclose(model.predict(X), reference.predict(X), rtol=1e-12)


@pytest.mark.parametrize("max_depth", [3, 6, 9])
@pytest.mark.parametrize("max_bins", [255, 20])
def test_same_tree_as_scikit_learn_histogram_gradient_boosting(max_depth, max_bins):
    # One boosting iteration with learning rate 1, no regularization and leaves of one
    # sample is one histogram regression tree on scikit-learn's bins: same bins, same
    # nodes, same predictions (scikit-learn keeps its gradients in float32).  Where the
    # two choose different tests, the tests make the same two children: exact ties,
    # which float32 rounding breaks differently.
    from sklearn.ensemble import HistGradientBoostingRegressor

    X, y = load_california_housing(return_X_y=True)
    X = X.astype(np.float32).astype(np.float64)
    theirs = HistGradientBoostingRegressor(
        max_iter=1, learning_rate=1.0, max_depth=max_depth, max_leaf_nodes=None,
        min_samples_leaf=1, l2_regularization=0.0, early_stopping=False,
        max_bins=max_bins).fit(X, y)
    ours = DecisionTreeRegressor(splitter="hist", max_bins=max_bins, max_depth=max_depth,
                                 builder="level").fit(X, y)
    for j, cuts in enumerate(ours.bin_thresholds_):
        np.testing.assert_array_equal(cuts, theirs._bin_mapper.bin_thresholds_[j])
    nodes, tree = theirs._predictors[0][0].nodes, ours.tree_
    stack, same_test = [(0, 0, np.arange(len(y)))], 0
    while stack:
        i, j, rows = stack.pop()
        assert nodes["count"][j] == tree.n_node_samples[i] == len(rows)
        assert bool(nodes["is_leaf"][j]) == (tree.children_left[i] == -1)
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
    np.testing.assert_allclose(ours.predict(X), theirs.predict(X), rtol=1e-6)


def test_classifier_with_histograms_on_a_binary_data_set():
    data = load_libsvm("a1a")
    exact = DecisionTreeClassifier(builder="level", max_depth=6).fit(data.X_train,
                                                                     data.y_train)
    hist = DecisionTreeClassifier(splitter="hist", builder="level", max_depth=6).fit(
        data.X_train, data.y_train)
    # binary features: two bins each, the exact cuts: same partition, same predictions
    assert all(len(t) <= 1 for t in hist.bin_thresholds_)
    assert same_partition(exact.tree_, hist.tree_, data.X_train, data.X_train) > 10
    np.testing.assert_array_equal(hist.predict_proba(data.X_test),
                                  exact.predict_proba(data.X_test))


def test_bad_max_bins_and_builders_are_named():
    X, y = np.arange(20.0).reshape(10, 2), np.arange(10.0)
    with pytest.raises(ValueError, match="max_bins must be an integer from 2 to 256"):
        DecisionTreeRegressor(splitter="hist", max_bins=300).fit(X, y)
    with pytest.raises(ValueError, match="splitter must be one of"):
        DecisionTreeRegressor(splitter="histogram").fit(X, y)
    with pytest.raises(ValueError, match="needs splitter='cumsum' or 'hist'"):
        DecisionTreeRegressor(splitter="random", builder="level").fit(X, y)
    with pytest.raises(ValueError, match="n_bins"):
        make_split_finder("hist")
    with pytest.raises(ValueError, match="NaN"):
        DecisionTreeRegressor(splitter="hist").fit(np.array([[np.nan], [1.0]]), [1.0, 2.0])
