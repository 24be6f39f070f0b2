"""A node searched a group of features at a time (``treelib.finders.exact.grouped_split``,
for nodes larger than ``NODE_VALUES``) finds the split of the whole search, field for
field: ties across groups (duplicated features), missing values, weights,
``min_samples_leaf``, squared error with large offsets, Gini and entropy on counts."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from treelib.criteria import target_statistics
from treelib.finders.exact import exact_split, feature_groups


@st.composite
def grouped_node(draw, criterion):
    n = draw(st.integers(2, 40))
    f = draw(st.integers(2, 6))
    elements = draw(st.sampled_from([st.integers(-3, 3).map(float),
                                     st.floats(-1e3, 1e3, allow_nan=False,
                                               allow_subnormal=False)]))
    X = draw(hnp.arrays(np.float64, (n, f), elements=elements))
    for j in draw(st.sets(st.integers(1, f - 1), max_size=f - 1)):
        X[:, j] = X[:, 0] if draw(st.booleans()) else -X[:, 0]   # ties across groups
    if draw(st.booleans()):
        X[draw(hnp.arrays(np.bool_, (n, f)))] = np.nan
    if criterion == "squared_error":
        y = draw(hnp.arrays(np.float64, n, elements=st.integers(-5, 5).map(float)))
        y = y * draw(st.sampled_from([1e-3, 1.0, 1e6])) + draw(st.sampled_from([0.0, 1e8]))
    else:
        y = draw(hnp.arrays(np.int64, n, elements=st.integers(0, 3)))
    weights = draw(st.none() | hnp.arrays(np.float64, n, elements=st.sampled_from(
        [1.0, 2.0, 3.0])))
    if criterion == "entropy":          # grouped on counts only (a finite bound cap)
        weights = None
    return X, target_statistics(y, criterion), weights, draw(st.integers(1, 3))


@pytest.mark.parametrize("splitter", ["cumsum", "scan"])
@pytest.mark.parametrize("criterion", ["squared_error", "gini", "entropy"])
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_groups_of_features_find_the_split_of_the_whole_node(splitter, criterion, data):
    X, Y, weights, min_samples_leaf = data.draw(grouped_node(criterion))
    if splitter == "scan" and np.isnan(X).any():
        X = np.nan_to_num(X)
    whole = exact_split(X, Y, criterion, min_samples_leaf, splitter, weights)
    budget = data.draw(st.integers(1, 3 * len(X) * Y.shape[1]))   # 1 .. 3 features
    assert exact_split(X, Y, criterion, min_samples_leaf, splitter, weights,
                       budget=budget) == whole


def test_a_large_node_is_searched_in_groups_of_features():
    rng = np.random.default_rng(0)
    X, y = rng.standard_normal((100, 5)), rng.standard_normal(100)
    Y = target_statistics(y, "squared_error")
    assert feature_groups(5, 100, 200) == [range(0, 2), range(2, 4), range(4, 5)]
    assert exact_split(X, Y, budget=200) == exact_split(X, Y)


def test_feature_groups_cover_every_feature_within_the_budget():
    for n_features in range(1, 9):
        for per_feature in (1, 3, 10):
            for budget in (1, 5, 30, 100):
                groups = feature_groups(n_features, per_feature, budget)
                assert [j for g in groups for j in g] == list(range(n_features))
                assert all(len(g) == 1 or len(g) * per_feature <= budget for g in groups)
