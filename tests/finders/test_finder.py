"""The ``Finder`` (``treelib.finders``), the search of one node configured once per tree:
what ``prepare`` hands the growers, a histogram split's threshold on X, ``max_features``
against the exact search of the same subset of features, and its errors."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from treelib import Finder, best_split
from treelib.binning import bin_features
from treelib.criteria import target_statistics
from treelib.finders import SPLITTERS, check_splitter
from treelib.finders.histogram import histogram_split
from treelib.split import MISSING_BIN


@pytest.fixture(scope="module")
def node():
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.normal(size=200), rng.integers(0, 6, size=200),
                         np.round(rng.exponential(size=200), 1)])
    y = np.sin(X[:, 0]) + X[:, 1] / 3 + rng.normal(scale=0.1, size=200)
    return X, target_statistics(y, "squared_error")


@pytest.mark.parametrize("splitter", ["naive", "scan", "cumsum", "random"])
def test_prepare_hands_over_x_itself(splitter, node):
    X, _ = node
    finder = Finder(splitter, "squared_error", rng=np.random.default_rng(0))
    assert finder.prepare(X) is X
    assert finder.bin_thresholds is None


def test_prepare_bins_the_features_for_histograms(node):
    X, _ = node
    finder = Finder("hist", "squared_error", max_bins=16)
    codes = finder.prepare(X)
    expected_codes, expected_thresholds = bin_features(X, 16)
    np.testing.assert_array_equal(codes, expected_codes)
    for ours, theirs in zip(finder.bin_thresholds, expected_thresholds, strict=True):
        np.testing.assert_array_equal(ours, theirs)
    assert finder.n_bins == 16


@pytest.mark.parametrize("splitter", ["naive", "scan", "cumsum"])
def test_an_exact_finder_is_best_split(splitter, node):
    X, Y = node
    finder = Finder(splitter, "squared_error", min_samples_leaf=5)
    assert finder(X, Y) == best_split(X, Y, splitter, min_samples_leaf=5,
                                      check_input=False)


def test_the_histogram_splits_threshold_is_written_on_x(node):
    X, Y = node
    finder = Finder("hist", "squared_error", max_bins=16)
    codes = finder.prepare(X)
    split = finder(codes, Y)
    on_codes = histogram_split(codes, Y, finder.n_bins)
    assert (split.feature, split.bin, split.n_left, split.gain) == (
        on_codes.feature, on_codes.bin, on_codes.n_left, on_codes.gain)
    assert split.threshold == finder.bin_thresholds[split.feature][split.bin]
    # the same rows go left, tested on X or on the codes
    column = X[:, split.feature]
    np.testing.assert_array_equal(column <= split.threshold, split.goes_left(codes))


def test_random_finder_draws_from_its_rng(node):
    X, Y = node
    a = Finder("random", "squared_error", rng=np.random.default_rng(5))(X, Y)
    b = Finder("random", "squared_error", rng=np.random.default_rng(5))(X, Y)
    assert a == b


# --- max_features ----------------------------------------------------------------------


@st.composite
def nodes_with_constant_features(draw):
    n = draw(st.integers(2, 25))
    f = draw(st.integers(2, 6))
    X = draw(hnp.arrays(np.float64, (n, f), elements=st.integers(-2, 2).map(float)))
    for j in draw(st.sets(st.integers(0, f - 1), max_size=f)):
        X[:, j] = X[0, j]
    y = draw(hnp.arrays(np.float64, n, elements=st.integers(-5, 5).map(float)))
    return X, y, draw(st.integers(1, f)), draw(st.integers(0, 2**32 - 1))


@settings(max_examples=150, deadline=None)
@given(data=nodes_with_constant_features(), splitter=st.sampled_from(["cumsum", "hist"]))
def test_max_features_searches_a_random_subset_of_the_varying_features(data, splitter):
    X, y, max_features, seed = data
    Y = target_statistics(y, "squared_error")
    finder = Finder(splitter, "squared_error", max_features=max_features,
                    rng=np.random.default_rng(seed))
    data = finder.prepare(X)
    split = finder(data, Y)
    # the documented draw: the features in the order of rng.permutation, the first
    # max_features of them that vary in the node, searched in increasing order
    varies = X.max(axis=0) > X.min(axis=0)
    visit = np.random.default_rng(seed).permutation(X.shape[1])
    chosen = np.sort(visit[varies[visit]][:max_features])
    if max_features >= X.shape[1]:
        chosen = np.arange(X.shape[1])                 # no draw: every feature
    if not varies.any():
        assert split is None
        return
    if splitter == "hist":
        sub = histogram_split(data[:, chosen], Y, finder.n_bins)
    else:
        sub = best_split(X[:, chosen], Y, check_input=False)
    assert split is not None and sub is not None
    # the subset's best split, its feature mapped back to a column of X
    assert split.feature == chosen[sub.feature] and varies[split.feature]
    assert (split.n_left, split.gain) == (sub.n_left, sub.gain)
    if splitter == "hist":
        assert split.threshold == finder.bin_thresholds[split.feature][sub.bin]
    else:
        assert split.threshold == sub.threshold


def test_max_features_counts_only_the_features_that_vary():
    # one varying feature among constant ones: one feature searched, it is always found
    X = np.column_stack([np.ones(6), np.zeros(6), np.arange(6.0), np.full(6, 2.0)])
    Y = np.arange(6.0)[:, None]
    rng = np.random.default_rng(1)
    finder = Finder("cumsum", "squared_error", max_features=1, rng=rng)
    assert {finder(X, Y).feature for _ in range(20)} == {2}
    assert finder(np.ones((6, 3)), Y) is None           # nothing varies: no split


def test_max_features_visits_every_feature_over_many_nodes():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(30, 4))
    Y = rng.normal(size=(30, 1))
    finder = Finder("cumsum", "squared_error", max_features=1, rng=rng)
    assert {finder(X, Y).feature for _ in range(60)} == {0, 1, 2, 3}


# --- errors ----------------------------------------------------------------------------------


def test_unknown_splitter():
    with pytest.raises(ValueError, match="unknown splitter 'fast'; choose one of"):
        Finder("fast", "squared_error")
    with pytest.raises(ValueError, match="unknown splitter"):
        check_splitter("random_tree")               # random decision trees: no finder
    assert check_splitter("hist") == "hist" and "random" in SPLITTERS
    with pytest.raises(ValueError, match="unknown criterion 'mae'"):
        Finder("cumsum", "mae")
    with pytest.raises(ValueError, match="min_samples_leaf must be an integer >= 1"):
        Finder("cumsum", "gini", min_samples_leaf=0)
    with pytest.raises(ValueError, match="max_bins must be an integer from 2 to 255"):
        Finder("hist", "gini", max_bins=1)


@pytest.mark.parametrize("splitter, max_features", [("random", None), ("cumsum", 2)])
def test_random_draws_need_an_rng(splitter, max_features):
    with pytest.raises(ValueError, match="draws at random: give rng"):
        Finder(splitter, "squared_error", max_features=max_features)


def test_random_decision_trees_are_no_finder():
    with pytest.raises(ValueError, match="random decision trees search nothing: grow them "
                                         "with treelib.growth.grow_random_tree and a "
                                         "RandomTreeRule"):
        Finder("random_tree", "gini", rng=np.random.default_rng(0))


# --- missing values, weights, criteria --------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(X=hnp.arrays(np.float64, st.tuples(st.integers(2, 30), st.integers(1, 3)),
                    elements=st.integers(-3, 3).map(float) | st.just(np.nan)),
       y=hnp.arrays(np.float64, 30, elements=st.integers(-5, 5).map(float)),
       max_bins=st.sampled_from([2, 3, 255]))
def test_a_histogram_split_with_missing_values_is_the_same_test_on_x(X, y, max_bins):
    # the split found on the codes, written as a threshold (+inf past the last bin) and a
    # direction on X, sends the same rows left
    Y = y[: len(X), None]
    finder = Finder("hist", "squared_error", max_bins=max_bins)
    codes = finder.prepare(X)
    if np.isnan(X).any():
        assert finder.n_bins == MISSING_BIN + 1            # every code, the missing one too
    else:
        assert finder.n_bins <= max_bins
    split = finder(codes, Y)
    if split is None:
        return
    column = X[:, split.feature]
    on_x = np.where(np.isnan(column), split.missing_go_to_left, column <= split.threshold)
    np.testing.assert_array_equal(split.goes_left(codes), on_x)
    assert on_x.sum() == split.n_left


def test_n_bins_needs_prepare():
    with pytest.raises(ValueError, match="call it before asking for n_bins"):
        _ = Finder("hist", "gini").n_bins


def test_categories_need_a_finder_that_splits_them():
    from treelib.finders.categorical import Categories

    with pytest.raises(ValueError, match="splitter='random' does not split categorical"):
        Finder("random", "gini", rng=np.random.default_rng(0),
               categories=Categories(np.array([3])))


@pytest.mark.parametrize("splitter", ["hist", "random"])
def test_absolute_error_is_refused_by_the_finders_without_running_medians(splitter):
    with pytest.raises(ValueError, match="absolute_error"):
        Finder(splitter, "absolute_error", rng=np.random.default_rng(0))


@pytest.mark.parametrize("splitter", ["hist", "random"])
def test_estimators_refuse_absolute_error_without_running_medians(splitter):
    from treelib.estimators import DecisionTreeRegressor

    X, y = np.arange(8.0)[:, None], np.arange(8.0)
    with pytest.raises(ValueError, match="absolute_error"):
        DecisionTreeRegressor(criterion="absolute_error", splitter=splitter,
                              random_state=0).fit(X, y)
