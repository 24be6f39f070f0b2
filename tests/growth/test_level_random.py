"""Random thresholds (extra trees) level-wise, under the draw contract of
``treelib.growth.level_random``: checked node by node against a per-node reference that
follows the same contract and splits with treelib's own ``random_split`` (ties,
duplicates, constant features, tiny n, large offsets, weights), for reproducibility, for
the per-node growers' stump, and for uniform thresholds."""

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.growth.breadth_first import grow_breadth_first
from treelib.criteria import target_statistics
from treelib.finders import Finder
from treelib.finders.random import random_split
from treelib.growth import StoppingRules, grow
from treelib.growth.level_random import grow_level_wise_random, grow_random_batch


class Drawn:
    """A stand-in generator handing ``random_split`` the uniforms already drawn."""

    def __init__(self, numbers):
        self.numbers = numbers

    def random(self, size):
        assert size == len(self.numbers)
        return self.numbers


class ContractFinder(Finder):
    """The per-node random finder under the level-wise contract (the reference): with
    max_features k < f, f keys then k uniforms per searched node, the k varying features
    of smallest key in increasing order, the t-th of them split at the t-th uniform by
    ``random_split``; without, ``random_split`` itself (f uniforms)."""

    def __call__(self, data, Y, weights=None):
        f = data.shape[1]
        if self.max_features is None or self.max_features >= f:
            return random_split(data, Y, self.rng, self.criterion, self.min_samples_leaf,
                                weights)
        keys = self.rng.random(f)
        uniforms = self.rng.random(self.max_features)
        varies = data.max(axis=0) > data.min(axis=0)
        candidates = np.flatnonzero(varies)
        chosen = np.sort(candidates[np.argsort(keys[candidates], kind="stable")]
                         [: self.max_features])
        if len(chosen) == 0:
            return None
        split = random_split(data[:, chosen], Y, Drawn(uniforms[: len(chosen)]),
                             self.criterion, self.min_samples_leaf, weights)
        if split is None:
            return None
        return dataclasses.replace(split, feature=int(chosen[split.feature]))


def assert_same_tree(a, b):
    assert a.node_count == b.node_count
    np.testing.assert_array_equal(a.feature, b.feature)
    np.testing.assert_array_equal(a.threshold, b.threshold)
    np.testing.assert_array_equal(a.n_node_samples, b.n_node_samples)
    np.testing.assert_array_equal(a.children_left, b.children_left)
    np.testing.assert_array_equal(a.missing_go_to_left, b.missing_go_to_left)
    np.testing.assert_allclose(a.value, b.value, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(a.impurity, b.impurity, rtol=1e-9, atol=1e-12)


def both(criterion, X, y, max_features, seed, weights=None, leaf=1, **rules):
    """The level-wise tree and the reference's, for the same seed."""
    Y = np.asarray(y, np.float64) if np.ndim(y) == 2 else target_statistics(y, criterion)
    stopping = StoppingRules(**rules)
    level = grow("level_wise", X, Y, Finder("random", criterion, max_features=max_features,
                                            rng=np.random.default_rng(seed),
                                            min_samples_leaf=leaf), stopping, weights=weights)
    finder = ContractFinder("random", criterion, max_features=max_features,
                            rng=np.random.default_rng(seed), min_samples_leaf=leaf)
    return level, grow_breadth_first(X, Y, finder, stopping, weights)


def test_consecutive_draws_are_one_draw():
    """The contract's premise: ``rng.random((m, w))`` gives row p the numbers of the p-th
    of m calls ``rng.random(w)``, and ``random(a)`` then ``random(b)`` is ``random(a +
    b)``."""
    a, b = np.random.default_rng(4), np.random.default_rng(4)
    block = a.random((5, 7))
    rows = [np.concatenate([b.random(3), b.random(4)]) for _ in range(5)]
    np.testing.assert_array_equal(block, np.array(rows))


@pytest.mark.parametrize("criterion", ["squared_error", "gini", "entropy", "poisson"])
@pytest.mark.parametrize("max_features", [None, 1, 3, 8])
def test_level_wise_equals_breadth_first_reference(criterion, max_features):
    rng = np.random.default_rng(3)
    X = rng.integers(0, 6, size=(300, 9)).astype(np.float32)
    X[:, 4] = 1.0                                             # a constant feature
    X[:, 5] = rng.normal(size=300)
    y = ((X[:, 0] + X[:, 1] * X[:, 2] > 8).astype(int) + (X[:, 5] > 0)
         if criterion in ("gini", "entropy") else
         np.abs(X[:, 0] - 2 * X[:, 3] + rng.normal(size=300)))
    level, reference = both(criterion, X, y, max_features, seed=7)
    assert level.node_count > 20
    assert_same_tree(level, reference)


def test_weighted_and_multi_output():
    rng = np.random.default_rng(8)
    X = rng.normal(size=(400, 6)) * 1e3 + 1e8                 # a large offset, float64
    weights = rng.integers(1, 5, size=400).astype(np.float64) * 0.25
    for criterion, y in (("squared_error", np.column_stack([X[:, 0], -X[:, 1]])),
                         ("gini", (X[:, 2] > 1e8).astype(int) + 2 * (X[:, 3] > 1e8))):
        for max_features in (None, 2):
            level, reference = both(criterion, X, y, max_features, 1, weights, leaf=2)
            assert_same_tree(level, reference)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 50), st.integers(1, 6), st.integers(1, 6), st.integers(0, 10**6),
       st.sampled_from(["squared_error", "gini", "entropy"]), st.booleans(),
       st.sampled_from([0.0, 1e4, -1e9]))
def test_level_wise_equals_reference_hypothesis(n, f, k, seed, criterion, weighted, offset):
    """Few distinct values (ties, duplicates), constant features, tiny nodes, offsets."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 3, size=(n, f)).astype(np.float64) * rng.choice([1.0, 1e-7]) + offset
    if seed % 4 == 0:
        X = X.astype(np.float32)
    y = rng.integers(0, 3, size=n) if criterion != "squared_error" else \
        rng.integers(0, 4, n) * 0.5 + offset
    weights = rng.integers(1, 4, size=n).astype(np.float64) if weighted else None
    max_features = None if seed % 5 == 0 else min(k, f)
    level, reference = both(criterion, X, y, max_features, seed, weights,
                            leaf=1 + seed % 2, max_depth=None if seed % 3 else 2,
                            min_impurity_decrease=0.0 if seed % 7 else 0.01)
    assert_same_tree(level, reference)


def test_reproducible_and_seed_dependent():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(500, 12)).astype(np.float32)
    y = X[:, :6].sum(axis=1)
    Y = target_statistics(y, "squared_error")

    def tree(seed):
        return grow("level_wise", X, Y, Finder("random", "squared_error", max_features=4,
                                               rng=np.random.default_rng(seed)),
                    StoppingRules())

    first = tree(11)
    assert_same_tree(first, tree(11))
    other = tree(12)
    assert not np.array_equal(first.threshold, other.threshold)


def test_stump_is_the_per_node_growers():
    """Without max_features the root draws f uniforms, as ``random_split`` does: a
    depth-1 tree is the depth-first grower's, bit for bit."""
    rng = np.random.default_rng(2)
    X = rng.normal(size=(200, 5))
    Y = target_statistics(X[:, 0] + rng.normal(size=200), "squared_error")
    trees = [grow(builder, X, Y, Finder("random", "squared_error",
                                        rng=np.random.default_rng(5)),
                  StoppingRules(max_depth=1)) for builder in ("level_wise", "depth_first")]
    assert trees[0].node_count == 3
    np.testing.assert_array_equal(trees[0].threshold, trees[1].threshold)
    np.testing.assert_array_equal(trees[0].feature, trees[1].feature)


def drawn_positions(X, Y, finder, rules):
    """Every drawn threshold of a level-wise tree, as its position ``(t - min) / (max -
    min)`` in its node's range of its feature (features that vary in the node)."""
    from treelib.growth import level_random

    seen, original = [], level_random.score_level

    def spy(level, search):
        draws = original(level, search)
        starts = np.cumsum(level.counts) - level.counts
        rows = search.data[level.samples]
        low = np.minimum.reduceat(rows, starts, axis=0)
        high = np.maximum.reduceat(rows, starts, axis=0)
        varies = high > low
        seen.append(((draws.threshold - low) / np.where(varies, high - low, 1))[varies])
        return draws

    level_random.score_level = spy
    try:
        grow_level_wise_random(X, Y, finder, rules)
    finally:
        level_random.score_level = original
    return np.concatenate(seen)


def test_thresholds_are_uniform_in_the_node():
    """Every searched node of a full tree (3,000 samples, 4 features): each feature's
    drawn threshold, placed in its node's [min, max), is uniform on [0, 1): the
    Kolmogorov-Smirnov statistic stays below the 0.999 critical value 1.95 / sqrt(n), and
    chi-square over 10 equal bins below its 0.999 quantile with 9 degrees of freedom
    (27.9)."""
    rng = np.random.default_rng(9)
    X = rng.normal(size=(3000, 4))
    Y = target_statistics(rng.normal(size=3000), "squared_error")
    positions = drawn_positions(X, Y, Finder("random", "squared_error",
                                             rng=np.random.default_rng(1)), StoppingRules())
    assert len(positions) > 5000 and positions.min() >= 0 and positions.max() < 1
    counts = np.bincount((positions * 10).astype(int), minlength=10)
    expected = len(positions) / 10
    assert float(((counts - expected) ** 2 / expected).sum()) < 27.9
    positions = np.sort(positions)
    grid = np.arange(1, len(positions) + 1) / len(positions)
    statistic = max(np.max(grid - positions), np.max(positions - (grid - 1 / len(grid))))
    assert statistic < 1.95 / np.sqrt(len(positions))


def test_missing_values_are_refused():
    X = np.array([[0.0], [np.nan], [1.0], [2.0]])
    Y = target_statistics(np.arange(4.0), "squared_error")
    with pytest.raises(ValueError, match="missing values"):
        grow_level_wise_random(X, Y, Finder("random", "squared_error",
                                            rng=np.random.default_rng(0)), StoppingRules())


def test_memory_grows_with_the_data():
    """The peak of a level-wise extra tree (every feature, and max_features=6) stays within
    a few times the data's own bytes, and doubles with the rows: the (m, f) draws and
    gains never exceed the level's (n, f) gathered values."""
    import tracemalloc

    rng = np.random.default_rng(0)
    peaks = {}
    for n in (1500, 3000):
        X = rng.normal(size=(n, 30))
        Y = target_statistics(X[:, 0] + rng.normal(size=n), "squared_error")
        for max_features in (None, 6):
            finder = Finder("random", "squared_error", max_features=max_features,
                            rng=np.random.default_rng(1))
            tracemalloc.start()
            grow_level_wise_random(X, Y, finder, StoppingRules())
            peaks[n, max_features] = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
            assert peaks[n, max_features] < 6 * X.nbytes
    for max_features in (None, 6):
        assert peaks[3000, max_features] < 2.3 * peaks[1500, max_features]


@pytest.mark.parametrize("criterion, max_features", [("gini", 3), ("squared_error", None),
                                                     ("entropy", None)])
def test_a_batch_of_trees_is_each_tree_bit_for_bit(criterion, max_features):
    """``grow_random_batch`` grows several trees in the same numpy calls: each is the tree
    its finder and weights grow alone (bootstrap counts with zeros, no weights, fractional
    weights), bit for bit."""
    rng = np.random.default_rng(4)
    X = rng.integers(0, 8, size=(300, 6)).astype(np.float32)
    X[:, 2] = rng.normal(size=300)
    y = (X[:, 0] + X[:, 2] > 4).astype(int) + (X[:, 1] > 5) if criterion != "squared_error" \
        else X[:, 0] - X[:, 2] + rng.normal(size=300)
    Y = target_statistics(y, criterion)
    weights = [np.bincount(rng.integers(0, 300, 300), minlength=300).astype(np.float64),
               None, rng.random(300) + 0.5,
               np.bincount(rng.integers(0, 300, 300), minlength=300).astype(np.float64)]
    rules = StoppingRules(max_depth=None if max_features else 9, min_samples_split=3)

    def finders():
        return [Finder("random", criterion, max_features=max_features, min_samples_leaf=2,
                       rng=np.random.default_rng(seed)) for seed in (5, 6, 7, 8)]

    batch = grow_random_batch(X, Y, finders(), rules, weights)
    for tree, finder, w in zip(batch, finders(), weights):
        alone = grow("level_wise", X, Y, finder, rules, weights=w)
        for name in ("feature", "threshold", "n_node_samples", "weighted_n_node_samples",
                     "children_left", "children_right", "value", "impurity"):
            np.testing.assert_array_equal(getattr(tree, name), getattr(alone, name))


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 40), st.integers(2, 12), st.integers(1, 11), st.integers(0, 2**32 - 1),
       st.booleans())
def test_features_examined_in_key_order_are_the_full_choice(n, f, k, seed, inherit):
    """``drawn_features`` (features examined in key order, a few at a time, constants
    inherited from the parent) chooses what ``node_features`` chooses from every
    feature's variation, with the nodes' exact smallest and largest values: nodes of
    one to many samples, few distinct values (duplicates, constant features)."""
    from types import SimpleNamespace

    from treelib.growth.level_features import node_features
    from treelib.growth.level_random_draws import drawn_features

    k = min(k, f - 1) if f > 1 else 1
    rng = np.random.default_rng(seed)
    data = rng.integers(0, 3, size=(n, f)).astype(np.float64) * (rng.random(f) < 0.7)
    samples = rng.permutation(n)
    cuts = np.sort(rng.choice(np.arange(1, n), size=min(n - 1, rng.integers(0, 5)),
                              replace=False)) if n > 1 else np.array([], dtype=int)
    counts = np.diff(np.concatenate([[0], cuts, [n]]))
    starts = np.cumsum(counts) - counts
    low = np.minimum.reduceat(data[samples], starts, axis=0)
    high = np.maximum.reduceat(data[samples], starts, axis=0)
    # a parent's constants are some of the node's: every constant feature, or none
    constant = (high == low) & (rng.random(high.shape) < 0.5) if inherit else None
    keys = rng.random((len(counts), f))
    level = SimpleNamespace(samples=samples, counts=counts, constant=constant)
    features, lo, hi, known = drawn_features(level, np.ascontiguousarray(data.T), keys, k)
    expected, _ = node_features(keys, high > low, k)
    rows = np.arange(len(counts))[:, None]
    np.testing.assert_array_equal(features, expected)
    np.testing.assert_array_equal(lo, low[rows, expected])
    np.testing.assert_array_equal(hi, high[rows, expected])
    assert not (known & (high > low)).any()           # only constant features are known
