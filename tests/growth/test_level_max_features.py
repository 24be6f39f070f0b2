"""max_features on the level-wise growers: each node searches its own draw of features,
under the contract of ``treelib.growth.level_features`` (breadth first, f keys per
searched node from the tree's generator, the max_features varying features of smallest
key).  Checked node by node against a per-node reference that follows the same contract,
for reproducibility, for the number of features searched, and for uniform draws."""

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.growth.breadth_first import grow_breadth_first
from treelib.criteria import target_statistics
from treelib.finders import Finder
from treelib.growth import StoppingRules
from treelib.growth.level_features import draw_level, node_features
from treelib.growth.level_wise import grow_level_wise_exact
from treelib.growth.level_wise_hist import grow_level_wise_hist


class KeyedFinder(Finder):
    """The per-node finder under the level-wise contract: f keys per searched node, the
    max_features varying features of smallest key (the reference)."""

    def __call__(self, data, Y, weights=None):
        f = data.shape[1]
        keys = self.rng.random(f)
        varies = np.nanmax(data, axis=0) > np.nanmin(data, axis=0)
        candidates = np.flatnonzero(varies)
        chosen = np.sort(candidates[np.argsort(keys[candidates], kind="stable")]
                         [: self.max_features])
        if len(chosen) == 0:
            return None
        split = self.search_features(data[:, chosen], Y, weights, None)
        if split is None:
            return None
        feature, threshold = int(chosen[split.feature]), split.threshold
        if split.bin is not None:
            cuts = self.bin_thresholds[feature]
            threshold = float(cuts[split.bin]) if split.bin < len(cuts) else np.inf
        return dataclasses.replace(split, feature=feature, threshold=threshold)


def assert_same_tree(a, b):
    assert a.node_count == b.node_count
    np.testing.assert_array_equal(a.feature, b.feature)
    np.testing.assert_array_equal(a.threshold, b.threshold)
    np.testing.assert_array_equal(a.n_node_samples, b.n_node_samples)
    np.testing.assert_allclose(a.value, b.value, rtol=1e-12, atol=1e-12)


def both(splitter, criterion, X, y, max_features, seed, weights=None, leaf=1, **rules):
    Y = target_statistics(y, criterion)
    trees = []
    for finder_class in (Finder, KeyedFinder):
        finder = finder_class(splitter, criterion, max_features=max_features,
                              rng=np.random.default_rng(seed), max_bins=16,
                              min_samples_leaf=leaf)
        data = finder.prepare(X)
        stopping = StoppingRules(**rules)
        if finder_class is KeyedFinder:
            trees.append(grow_breadth_first(data, Y, finder, stopping, weights))
        elif splitter == "cumsum":
            trees.append(grow_level_wise_exact(data, Y, finder, stopping, None, weights))
        else:
            trees.append(grow_level_wise_hist(data, Y, finder, stopping, None, weights))
    return trees


def test_node_features_picks_smallest_varying_keys():
    keys = np.array([[0.5, 0.1, 0.9, 0.3], [0.2, 0.4, 0.6, 0.8]])
    varies = np.array([[True, False, True, True], [False, False, True, False]])
    features, searched = node_features(keys, varies, 2)
    np.testing.assert_array_equal(features[0], [0, 3])        # keys 0.3, 0.5 (1 constant)
    np.testing.assert_array_equal(searched[0], [True, True])
    assert features[1][0] == 2 and searched[1].tolist() == [True, False]


@pytest.mark.parametrize("splitter", ["cumsum", "hist"])
@pytest.mark.parametrize("criterion", ["squared_error", "gini", "entropy"])
def test_level_wise_equals_breadth_first_reference(splitter, criterion):
    rng = np.random.default_rng(3)
    X = rng.integers(0, 6, size=(300, 9)).astype(np.float32)
    X[:, 4] = 1.0                                             # a constant feature
    y = (X[:, 0] + X[:, 1] * X[:, 2] > 8).astype(int) if criterion != "squared_error" \
        else X[:, 0] - 2 * X[:, 3] + rng.normal(size=300)
    for max_features in (1, 3, 8):
        level, reference = both(splitter, criterion, X, y, max_features, seed=7)
        assert_same_tree(level, reference)


@settings(max_examples=30, deadline=None)
@given(st.integers(2, 60), st.integers(2, 6), st.integers(1, 5), st.integers(0, 10**6),
       st.sampled_from(["cumsum", "hist"]), st.sampled_from(["squared_error", "gini"]),
       st.booleans())
def test_level_wise_equals_reference_hypothesis(n, f, k, seed, splitter, criterion, weighted):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 3, size=(n, f)).astype(np.float32) + np.float32(1e4)
    y = rng.integers(0, 3, size=n) if criterion == "gini" else rng.integers(0, 4, n) * 0.5
    weights = rng.integers(1, 4, size=n).astype(np.float64) if weighted else None
    level, reference = both(splitter, criterion, X, y, min(k, f), seed, weights,
                            leaf=1 + seed % 2, max_depth=None if seed % 3 else 2)
    assert_same_tree(level, reference)


def test_reproducible_and_each_node_searches_max_features():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(500, 12)).astype(np.float32)
    y = X[:, :6].sum(axis=1)
    first, _ = both("cumsum", "squared_error", X, y, 4, seed=11)
    again, _ = both("cumsum", "squared_error", X, y, 4, seed=11)
    assert_same_tree(first, again)
    other, _ = both("cumsum", "squared_error", X, y, 4, seed=12)
    assert not np.array_equal(first.feature, other.feature)
    varies = rng.random((1000, 12)) < 0.7
    features, searched = draw_level(np.random.default_rng(1), varies, 4)
    assert (searched.sum(axis=1) == np.minimum(4, varies.sum(axis=1))).all()
    for row, used in zip(features, searched):
        assert len(set(row.tolist())) == 4                  # distinct
        assert (np.diff(row[used]) > 0).all()               # increasing
    assert varies[np.arange(1000)[:, None], features][searched].all()


def test_draws_are_uniform():
    """Chi-square over the 10 choose 3 = 120 subsets of 10 varying features, 60,000
    nodes (500 per subset expected): the statistic stays below the 0.999 quantile of
    chi-square with 119 degrees of freedom (about 172)."""
    features, _ = draw_level(np.random.default_rng(5), np.ones((60_000, 10), bool), 3)
    code = (1 << features).sum(axis=1)
    _, counts = np.unique(code, return_counts=True)
    assert len(counts) == 120
    statistic = float(((counts - 500.0) ** 2 / 500.0).sum())
    assert statistic < 172.0
