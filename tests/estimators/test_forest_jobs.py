"""Forests grown level-wise with max_features (the default wherever the options' table
allows it), and across processes or threads (n_jobs): the same forest for every n_jobs;
level-wise extra trees grown in batches, each tree the one its seed grows alone."""

import tracemalloc

import numpy as np
import pytest
from sklearn.datasets import make_classification

from treelib.criteria import target_statistics
from treelib.estimators import (
    ExtraTreesClassifier,
    ExtraTreesRegressor,
    RandomForestClassifier,
    RandomForestRegressor,
)
from treelib.estimators.bagging import (
    BATCH_TREES,
    ForestJob,
    forest_units,
    grow_forest,
    grow_forest_tree,
)
from treelib.finders import Finder
from treelib.growth import StoppingRules
from treelib.growth.level_wise import grow_level_wise_exact


def same_forest(a, b):
    assert len(a.estimators_) == len(b.estimators_)
    for x, y in zip(a.estimators_, b.estimators_):
        np.testing.assert_array_equal(x.feature, y.feature)
        np.testing.assert_array_equal(x.threshold, y.threshold)
        np.testing.assert_array_equal(x.value, y.value)


def data(n=300, f=12, seed=0):
    return make_classification(n, f, n_informative=3, n_redundant=1, random_state=seed)


def test_a_feature_subset_grows_level_wise_by_default():
    X, y = data()
    model = RandomForestClassifier(5, random_state=0).fit(X, y)
    assert model.builder_ == "level_wise" and model.max_features_ == 3
    same_forest(model, RandomForestClassifier(5, random_state=0,
                                              builder="level_wise").fit(X, y))
    per_node = RandomForestClassifier(5, random_state=0, builder="depth_first").fit(X, y)
    assert per_node.builder_ == "depth_first"            # still there on request
    assert abs(model.score(X, y) - per_node.score(X, y)) < 0.05
    assert [t.max_depth > 1 for t in model.estimators_] == [True] * 5


@pytest.mark.parametrize("n_jobs", [2, -1])
def test_n_jobs_gives_the_same_forest(n_jobs):
    X, y = data()
    one = RandomForestClassifier(6, random_state=1).fit(X, y)
    many = RandomForestClassifier(6, random_state=1, n_jobs=n_jobs).fit(X, y)
    assert one.builder_ == many.builder_ == "level_wise"
    same_forest(one, many)
    np.testing.assert_array_equal(one.predict_proba(X), many.predict_proba(X))


@pytest.mark.slow
def test_threads_and_processes_give_the_same_trees():
    X, y = data(200, 6)
    Y = target_statistics(y, "gini")
    finder = dict(splitter="random", criterion="gini", min_samples_leaf=1, max_bins=255,
                  max_features=2)
    job = ForestJob(X.astype(np.float32), Y, None, len(y), "depth_first", StoppingRules(),
                    finder)
    seeds = np.arange(5)
    for backend in ("threads", "processes"):
        for (a, _), (b, _) in zip(grow_forest(job, seeds, 1), grow_forest(job, seeds, 2,
                                                                            backend)):
            np.testing.assert_array_equal(a.threshold, b.threshold)


def test_every_forest_takes_n_jobs():
    X, y = data(150, 5)
    for model in (ExtraTreesClassifier(4, random_state=0),
                  RandomForestRegressor(4, random_state=0, max_features=2),
                  RandomForestClassifier(4, random_state=0, builder="depth_first")):
        target = X[:, 0] + y if isinstance(model, RandomForestRegressor) else y
        same_forest(model.fit(X, target), model.__class__(**{**model.get_params(),
                                                             "n_jobs": 2}).fit(X, target))


def test_bad_builder_and_level_wise_limits_are_refused():
    X, y = data(60, 4)
    with pytest.raises(ValueError, match="builder must be None or one of"):
        RandomForestClassifier(2, builder="oblivious").fit(X, y)
    with pytest.raises(ValueError, match="level"):
        RandomForestClassifier(2, builder="level_wise", splitter="scan").fit(X, y)


@pytest.mark.slow
def test_level_wise_max_features_memory_grows_with_the_data():
    """The draws take O(nodes x features) booleans and keys per level, below the level's
    own (features x samples) rows: the peak with max_features stays within 1.5 times the
    peak with every feature searched."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(4000, 40))
    Y = target_statistics(X[:, 0] + rng.normal(size=4000), "squared_error")
    peaks = []
    for max_features in (None, 6):
        finder = Finder("cumsum", "squared_error", max_features=max_features,
                        rng=np.random.default_rng(0))
        tracemalloc.start()
        grow_level_wise_exact(X, Y, finder, StoppingRules())
        peaks.append(tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
    assert peaks[1] < 1.5 * peaks[0]


def same_trees(grown, alone):
    assert len(grown) == len(alone)
    for (a, _), (b, _) in zip(grown, alone):
        for name in ("feature", "threshold", "children_left", "children_right", "value",
                     "impurity", "n_node_samples", "weighted_n_node_samples"):
            np.testing.assert_array_equal(getattr(a, name), getattr(b, name))


@pytest.mark.parametrize("criterion, max_features, bootstrap, weighted", [
    ("gini", 3, True, False), ("entropy", None, False, True),
    ("squared_error", 2, True, True), ("squared_error", None, False, False)])
def test_batched_extra_trees_are_each_tree_grown_alone(criterion, max_features, bootstrap,
                                                        weighted):
    """Level-wise extra trees grow in batches (``grow_random_batch``): every tree is
    ``grow_forest_tree``'s for its seed (bootstrap counts with zeros, sample weights with
    zeros), bit for bit, for one worker, processes and threads."""
    X, y = data(250, 7, seed=3)
    rng = np.random.default_rng(1)
    weights = rng.integers(0, 3, len(y)).astype(np.float64) if weighted else None
    finder = dict(splitter="random", criterion=criterion, min_samples_leaf=1, max_bins=255,
                  max_features=max_features)
    job = ForestJob(X.astype(np.float32), target_statistics(y + 0.5 * X[:, 0], criterion)
                    if criterion == "squared_error" else target_statistics(y, criterion),
                    weights, len(y) if bootstrap else None, "level_wise",
                    StoppingRules(min_samples_split=3), finder)
    seeds = np.random.RandomState(0).randint(2**31 - 1, size=BATCH_TREES + 5)
    alone = [grow_forest_tree(job, seed) for seed in seeds]
    same_trees(grow_forest(job, seeds, 1), alone)
    same_trees(grow_forest(job, seeds, 2, "threads"), alone)


def test_batches_are_near_equal_and_a_multiple_of_the_workers():
    job = ForestJob(np.zeros((3, 2), np.float32), np.zeros((3, 1)), None, None, "level_wise",
                    StoppingRules(), dict(splitter="random"))
    for n_trees, n_jobs in ((1, 1), (16, 1), (17, 1), (50, 1), (50, 2), (100, 4), (10, 4)):
        units = forest_units(job, np.arange(n_trees), n_jobs)
        sizes = [len(unit) for unit in units]
        np.testing.assert_array_equal(np.concatenate(units), np.arange(n_trees))
        assert max(sizes) <= BATCH_TREES and max(sizes) - min(sizes) <= 1
        assert len(units) % n_jobs == 0 or n_trees < n_jobs
    per_node = ForestJob(job.X, job.Y, None, None, "depth_first", StoppingRules(),
                         dict(splitter="random"))
    assert [list(u) for u in forest_units(per_node, np.arange(3), 2)] == [[0], [1], [2]]


@pytest.mark.parametrize("n_jobs", [2, 3])
def test_batched_extra_trees_forests_are_the_same_for_every_n_jobs(n_jobs):
    X, y = data(300, 10, seed=2)
    for model in (ExtraTreesClassifier(40, random_state=0, bootstrap=True, oob_score=True),
                  ExtraTreesRegressor(37, random_state=1, max_features=0.5)):
        target = X[:, 0] + y if isinstance(model, ExtraTreesRegressor) else y
        one = model.fit(X, target)
        assert one.builder_ == "level_wise"
        many = model.__class__(**{**model.get_params(), "n_jobs": n_jobs}).fit(X, target)
        same_forest(one, many)
        for a, b in zip(one.estimators_, many.estimators_):
            np.testing.assert_array_equal(a.impurity, b.impurity)
