"""Threads in the level-wise growers (``treelib.growth.threads``): the tree is the same,
bit for bit, for every ``n_jobs``; the groups of features cover every feature once; the
estimators take ``n_jobs`` with ``builder="level_wise"`` only."""

import dataclasses

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from treelib.counters import GrowthCounter
from treelib.criteria import one_hot
from treelib.datasets import load_california_housing
from treelib.estimators import DecisionTreeClassifier, DecisionTreeRegressor
from treelib.finders import Finder
from treelib.growth import LevelOptions, StoppingRules, grow
from treelib.growth.threads import CHUNK_VALUES, check_n_jobs, feature_chunks, run_chunks


def assert_identical(a, b):
    """Every array of two ``Tree``s equal, bit for bit (thresholds, values, impurities)."""
    for field in dataclasses.fields(a):
        left, right = getattr(a, field.name), getattr(b, field.name)
        assert left.dtype == right.dtype and left.shape == right.shape, field.name
        assert np.array_equal(left, right, equal_nan=True), field.name


def level_tree(splitter, X, Y, criterion, n_jobs, weights=None, counter=None, **options):
    rules = {k: options.pop(k) for k in ("max_depth", "min_samples_split") if k in options}
    finder = Finder(splitter, criterion, **options)
    return grow("level_wise", finder.prepare(X), Y, finder, StoppingRules(**rules),
                counter=counter, weights=weights, level=LevelOptions(n_jobs=n_jobs))


@st.composite
def tied_data(draw):
    """Features with few distinct values and duplicated columns (so that cuts of
    different features, scored by different threads, tie), targets or classes."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    n = draw(st.integers(2, 150))
    base = rng.integers(0, draw(st.integers(1, 12)), size=(n, draw(st.integers(1, 4)))) * 0.5
    X = base[:, rng.integers(0, base.shape[1], size=draw(st.integers(2, 7)))]
    criterion = draw(st.sampled_from(["squared_error", "gini", "entropy"]))
    if criterion == "squared_error":
        y = rng.integers(-3, 4, n) if draw(st.booleans()) else rng.normal(scale=3, size=n)
        Y = (y + draw(st.sampled_from([0.0, 1e6])))[:, None]
    else:
        Y = one_hot(rng.integers(0, 3, n), 3)
    weights = rng.integers(1, 4, n).astype(float) if draw(st.booleans()) else None
    return X, Y, criterion, weights, draw(st.integers(1, 3)), draw(st.integers(2, 9))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tied_data(), st.sampled_from(["cumsum", "hist"]), st.integers(2, 4))
def test_every_n_jobs_grows_the_same_tree(data, splitter, n_jobs):
    X, Y, criterion, weights, min_samples_leaf, max_bins = data
    options = dict(min_samples_leaf=min_samples_leaf)
    if splitter == "hist":
        options["max_bins"] = max_bins
    one = level_tree(splitter, X, Y, criterion, 1, weights, **options)
    assert_identical(one, level_tree(splitter, X, Y, criterion, n_jobs, weights, **options))


@pytest.mark.slow
@pytest.mark.parametrize("splitter", ["cumsum", "hist"])
def test_california_in_two_and_three_threads(splitter):
    X, y = load_california_housing(return_X_y=True)
    X = X.astype(np.float32).astype(np.float64)
    counters = [GrowthCounter() for _ in range(3)]
    trees = [level_tree(splitter, X, y[:, None], "squared_error", n_jobs, counter=counter,
                        max_depth=12)
             for n_jobs, counter in zip((1, 2, 3), counters)]
    for tree in trees[1:]:
        assert_identical(trees[0], tree)
    # the work is the same too: each thread counted its own histograms
    assert len({c.histogram_pairs for c in counters}) == 1
    assert len({tuple(c.samples_per_depth) for c in counters}) == 1


def test_estimators_take_n_jobs_level_wise_only():
    X, y = load_california_housing(return_X_y=True)
    X, y = X[:3000], y[:3000]
    for splitter in ("cumsum", "hist"):
        one = DecisionTreeRegressor(splitter=splitter, builder="level_wise", max_depth=6)
        two = DecisionTreeRegressor(splitter=splitter, builder="level_wise", max_depth=6,
                                    n_jobs=2)
        assert_identical(one.fit(X, y).tree_, two.fit(X, y).tree_)
    labels = (y > np.median(y)).astype(int)
    one = DecisionTreeClassifier(builder="level_wise", max_depth=5).fit(X, labels)
    every = DecisionTreeClassifier(builder="level_wise", max_depth=5, n_jobs=-1).fit(X, labels)
    assert_identical(one.tree_, every.tree_)
    with pytest.raises(ValueError, match="builder='level_wise'"):
        DecisionTreeRegressor(n_jobs=2).fit(X, y)
    with pytest.raises(ValueError, match="one thread"):
        DecisionTreeRegressor(splitter="hist", histogram_sums="fixed_point", n_jobs=2).fit(X, y)
    for bad in (0, -2, 1.5, True, "2"):
        with pytest.raises(ValueError, match="n_jobs"):
            DecisionTreeRegressor(builder="level_wise", n_jobs=bad).fit(X, y)


@given(st.integers(1, 40), st.integers(1, 10**7), st.integers(1, 8))
def test_groups_cover_every_feature_once_within_the_budget(n_features, per_feature, n_jobs):
    chunks = feature_chunks(n_features, per_feature, n_jobs)
    assert [j for chunk in chunks for j in chunk] == list(range(n_features))
    size = len(chunks[0])
    # within one thread's share of the budget, unless a single feature exceeds it
    assert size == 1 or size * per_feature <= CHUNK_VALUES // n_jobs
    assert size <= -(-n_features // n_jobs)     # no thread waits for a larger group


def test_run_chunks_keeps_the_order_and_raises():
    assert run_chunks(lambda r: sum(r), [range(3), range(3, 5), range(5, 9)], 3) == [3, 7, 26]

    def fails(chunk):
        raise RuntimeError("chunk failed")

    with pytest.raises(RuntimeError, match="chunk failed"):
        run_chunks(fails, [range(1), range(1, 2)], 2)
    assert check_n_jobs(None) == 1 and check_n_jobs(-1) >= 1 and check_n_jobs(3) == 3
