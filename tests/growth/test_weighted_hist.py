"""Sample weights in the level-wise histogram grower (``treelib.growth.level_wise_hist``),
where the subtraction trick derives a node's histograms from its parent's and its
sibling's (issue 19, bug a): a derived histogram is re-centred on the node's own mean by
each bin's weight, not its count.  Checked against scikit-learn, against the rows
repeated, against the depth-first histogram tree, across ``n_jobs``, and in a forest
(whose bootstrap counts are weights).

The nodes here are larger than twice their number of bins, so that histograms are
subtracted (``GrowthCounter.subtracted_histograms``)."""

import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn import datasets, ensemble, tree
from sklearn.model_selection import train_test_split

from tests.growth.test_grow import assert_weights_are_repeats
from tests.reference import assert_identical_trees, assert_same_tree
from treelib.counters import GrowthCounter
from treelib.criteria import one_hot, target_statistics
from treelib.estimators import DecisionTreeClassifier, DecisionTreeRegressor, RandomForestRegressor
from treelib.estimators.bagging import bootstrap_counts
from treelib.finders import Finder
from treelib.growth import StoppingRules, grow

CRITERIA = ["squared_error", "gini", "entropy"]


def weighted_hist_tree(builder, X, Y, weights, criterion="squared_error", *, max_bins=255,
                       min_samples_leaf=1, counter=None, **rules):
    """The "hist" tree of ``builder`` on X binned once, with sample ``weights``."""
    finder = Finder("hist", criterion, max_bins=max_bins, min_samples_leaf=min_samples_leaf)
    return grow(builder, finder.prepare(X), Y, finder, StoppingRules(**rules),
                counter=counter, weights=weights)


@pytest.fixture(scope="module")
def regression():
    return datasets.make_regression(n_samples=2000, n_features=5, noise=10, random_state=0)


# --- the reported cases ------------------------------------------------------------------


def test_six_rows_grow_scikit_learns_tree_node_by_node():
    # node 1 (the four rows f1 <= 2) is derived from the root's histograms; re-centred
    # by counts it split on f0 <= 4 (weighted SSE 1.53) instead of f1 <= 0.5 (1.45)
    X = np.array([[5, 0], [3, 3], [1, 3], [3, 1], [3, 0], [5, 0]], dtype=np.float64)
    y = np.array([0.3, 0.0, 0.6, -0.7, -0.4, -0.9])
    w = np.array([2, 2, 1, 2, 2, 2], dtype=np.float64)
    ours = DecisionTreeRegressor(splitter="hist", builder="level_wise", max_depth=2)
    ours = ours.fit(X, y, sample_weight=w).tree_
    theirs = tree.DecisionTreeRegressor(max_depth=2).fit(X, y, sample_weight=w).tree_
    assert (ours.feature[1], ours.threshold[1]) == (1, 0.5)
    stack, visited = [(0, 0)], 0
    while stack:
        i, j = stack.pop()
        visited += 1
        where = f"node {i} of ours, {j} of scikit-learn's"
        assert ours.is_leaf[i] == (theirs.children_left[j] == -1), where
        assert ours.n_node_samples[i] == theirs.n_node_samples[j], where
        assert ours.weighted_n_node_samples[i] == theirs.weighted_n_node_samples[j], where
        np.testing.assert_allclose(ours.value[i, 0], theirs.value[j, 0, 0], rtol=0,
                                   atol=1e-15, err_msg=where)
        np.testing.assert_allclose(ours.impurity[i], theirs.impurity[j], rtol=0,
                                   atol=1e-15, err_msg=where)
        if not ours.is_leaf[i]:
            assert (ours.feature[i], ours.threshold[i]) == (
                theirs.feature[j], theirs.threshold[j]), where
            stack += [(ours.children_left[i], theirs.children_left[j]),
                      (ours.children_right[i], theirs.children_right[j])]
    assert visited == ours.node_count == theirs.node_count == 7


@pytest.mark.parametrize("c", [2.0, 0.5, 3.0, 0.1])
def test_a_constant_weight_grows_the_unweighted_tree(regression, c):
    # a weight of 2.0 moved predictions by up to 209 and the training MSE from 1101 to
    # 4124 (the depth-first tree did not move)
    X, y = regression
    model = DecisionTreeRegressor(splitter="hist", builder="level_wise", max_depth=6)
    plain = model.fit(X, y).tree_
    weighted = model.fit(X, y, sample_weight=np.full(len(y), c)).tree_
    assert_same_tree(plain, weighted)
    np.testing.assert_allclose(weighted.weighted_n_node_samples,
                               c * plain.n_node_samples, rtol=1e-12)


def test_threads_grow_the_depth_first_tree_with_weights(regression):
    # (the classes' weighted counts were right before: they are never re-centred)
    X, target = regression
    weights = np.random.default_rng(0).uniform(0.2, 3.0, len(target))
    for criterion in CRITERIA:
        y = target if criterion == "squared_error" else np.digitize(
            target, np.quantile(target, [0.3, 0.7]))
        Model = (DecisionTreeRegressor if criterion == "squared_error"
                 else DecisionTreeClassifier)
        trees = {(builder, n_jobs): Model(criterion=criterion, splitter="hist",
                                          builder=builder, max_depth=8, n_jobs=n_jobs)
                 .fit(X, y, sample_weight=weights).tree_
                 for builder, n_jobs in (("level_wise", 1), ("level_wise", 2),
                                         ("depth_first", None))}
        assert_identical_trees(trees["level_wise", 1], trees["level_wise", 2])
        assert_same_tree(trees["depth_first", None], trees["level_wise", 2])


def test_each_hist_forest_tree_is_the_depth_first_tree_of_its_bootstrap(regression):
    X, y = regression
    X = X.astype(np.float32)
    forest = RandomForestRegressor(n_estimators=3, splitter="hist", max_depth=8,
                                   random_state=0).fit(X, y)
    assert forest.builder_ == "level_wise"
    for seed, grown in zip(forest.seeds_, forest.estimators_):
        counts = bootstrap_counts(seed, len(y), len(y))
        alone = DecisionTreeRegressor(splitter="hist", builder="depth_first", max_depth=8)
        assert_same_tree(grown, alone.fit(X, y, sample_weight=counts).tree_)


def test_hist_forest_scores_as_scikit_learns():
    # level-wise with the bootstrap counts as weights: R^2 0.77 against 0.86 before
    X, y = datasets.make_regression(n_samples=4000, n_features=10, noise=10, random_state=0)
    X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0)
    ours = RandomForestRegressor(n_estimators=20, splitter="hist", random_state=0)
    theirs = ensemble.RandomForestRegressor(n_estimators=20, random_state=0)
    gap = (theirs.fit(X_train, y_train).score(X_test, y_test)
           - ours.fit(X_train, y_train).score(X_test, y_test))
    assert ours.builder_ == "level_wise" and abs(gap) < 0.01


# --- small random data -------------------------------------------------------------------


@st.composite
def weighted_data(draw, integer_weights=False):
    """X with a few distinct values per feature, targets (with an offset) or classes,
    positive weights (integers 0 .. 3 if ``integer_weights``), and enough rows that nodes
    have histograms subtracted."""
    n = draw(st.integers(20, 160))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    f = draw(st.integers(1, 4))
    X = rng.integers(0, draw(st.integers(2, 8)), size=(n, f)) * 0.5
    criterion = draw(st.sampled_from(CRITERIA))
    if criterion == "squared_error":
        y = (rng.integers(-4, 5, n) if integer_weights or draw(st.booleans())
             else rng.normal(scale=5, size=n))
        y = y + (0.0 if integer_weights else draw(st.sampled_from([0.0, 1e6])))
    else:
        y = rng.integers(0, 3, n)
    if integer_weights:                  # (every class keeps some weight: same classes_)
        weights = rng.integers(0, 4, n)
        first = np.unique(y, return_index=True)[1] if criterion != "squared_error" else [0]
        weights[first] = np.maximum(weights[first], 1)
    else:
        weights = rng.uniform(0.05, draw(st.sampled_from([1.0, 10.0, 1000.0])), n)
    return X, y, weights.astype(np.float64), criterion


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=weighted_data(), max_bins=st.integers(2, 8), min_samples_leaf=st.integers(1, 3),
       max_depth=st.sampled_from([None, 2, 4]))
def test_weighted_level_wise_tree_is_the_depth_first_one(data, max_bins, min_samples_leaf,
                                                         max_depth):
    X, y, weights, criterion = data
    Y = target_statistics(y, criterion)
    options = dict(max_bins=max_bins, min_samples_leaf=min_samples_leaf, max_depth=max_depth)
    reference = weighted_hist_tree("depth_first", X, Y, weights, criterion, **options)
    level = weighted_hist_tree("level_wise", X, Y, weights, criterion, **options)
    assert_same_tree(reference, level)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=weighted_data(integer_weights=True), max_depth=st.sampled_from([None, 2, 4]))
def test_integer_weights_grow_the_tree_of_repeated_rows(data, max_depth):
    # (one bin per value, by the estimators: they drop the rows of weight 0 before
    # binning; min_samples_leaf counts rows, so it is 1)
    X, y, weights, criterion = data
    Model = DecisionTreeRegressor if criterion == "squared_error" else DecisionTreeClassifier
    model = Model(criterion=criterion, splitter="hist", builder="level_wise",
                  max_depth=max_depth)
    weighted = model.fit(X, y, sample_weight=weights).tree_
    repeat = np.repeat(np.arange(len(y)), weights.astype(np.intp))
    repeated = model.fit(X[repeat], y[repeat]).tree_
    kept = weights > 0
    labels = y if criterion == "squared_error" else np.unique(y, return_inverse=True)[1]
    assert_weights_are_repeats(weighted, repeated, X[kept].astype(np.float32), labels[kept],
                               weights[kept].astype(np.intp), criterion)


@pytest.mark.parametrize("criterion", CRITERIA)
def test_heavy_siblings_do_not_round_a_light_node_into_other_cuts(criterion):
    # the root splits off a group of rows (f0) whose weights are ``heavy`` times the
    # others'; in the light child, the cuts of f1 and of f2 = 7 - f1 tie exactly.
    # Subtracting the heavy sibling's histogram from the root's would cost the light
    # child's sums (and its weights: the classes' too) about heavy x EPS: beyond the
    # tie rule's bound its histograms are counted, and the lowest feature wins as depth
    # first.  (Before, the classes' histograms were always subtracted: heavy 1e9 broke
    # the tie.)
    for heavy, seed in itertools.product([1.0, 1e4, 1e9], range(12)):
        rng = np.random.default_rng(seed)
        n = 400
        x = rng.integers(0, 8, n).astype(np.float64)
        group = (rng.random(n) < 0.2).astype(np.float64)
        X = np.column_stack([group, x, 7 - x])
        labels = np.where(group == 1, rng.random(n) < 0.9,
                          rng.random(n) < 0.5 + 0.05 * x).astype(np.intp)
        Y = labels[:, None].astype(np.float64) if criterion == "squared_error" else one_hot(
            labels, 2)
        weights = rng.uniform(0.1, 1.0, n) * np.where(group == 1, heavy, 1.0)
        counter = GrowthCounter()
        level = weighted_hist_tree("level_wise", X, Y, weights, criterion, max_bins=16,
                                   max_depth=3, counter=counter)
        assert counter.subtracted_histograms > 0 or heavy > 1.0
        reference = weighted_hist_tree("depth_first", X, Y, weights, criterion, max_bins=16,
                                       max_depth=3)
        assert_same_tree(reference, level)
