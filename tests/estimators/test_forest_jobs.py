"""Forests grown level-wise with max_features (the default wherever the options' table
allows it), and across processes or threads (n_jobs): the same forest for every n_jobs."""

import tracemalloc

import numpy as np
import pytest
from sklearn.datasets import make_classification

from treelib.criteria import target_statistics
from treelib.estimators import (
    ExtraTreesClassifier,
    RandomForestClassifier,
    RandomForestRegressor,
)
from treelib.estimators.bagging import ForestJob, grow_forest
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
