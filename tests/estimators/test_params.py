"""The estimators' parameters checked once (``treelib.estimators.params``): how many
features a node searches (``treelib.finders.feature_subset``, the one comparison of
``max_features`` with the features there are) and what ``n_jobs`` accepts."""

import numpy as np
import pytest
from sklearn import ensemble, tree

from treelib import DecisionTreeRegressor, RandomForestRegressor
from treelib.finders import feature_subset


def small_data(n=60, f=3, seed=0):
    """A regression problem of ``n`` rows and ``f`` features."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, f))
    return X, X[:, 0] + 0.5 * X[:, 1] ** 2 + 0.1 * rng.normal(size=n)


def test_a_feature_subset_is_fewer_features_than_there_are():
    assert feature_subset(None, 5) is None
    assert feature_subset(5, 5) is None and feature_subset(7, 5) is None
    assert feature_subset(4, 5) == 4 and feature_subset(1, 5) == 1


@pytest.mark.parametrize("model", [(tree.DecisionTreeRegressor, DecisionTreeRegressor),
                                   (ensemble.RandomForestRegressor, RandomForestRegressor)])
def test_max_features_above_the_features_searches_them_all_as_scikit_learn_does(model):
    # scikit-learn 1.9 accepts max_features > n_features (its trees visit every feature);
    # treelib does too, and grows the tree of max_features=None
    theirs, ours = model
    X, y = small_data()
    extra = dict(n_estimators=3) if ours is RandomForestRegressor else {}
    reference = theirs(max_features=X.shape[1] + 1, random_state=0, **extra).fit(X, y)
    above = ours(max_features=X.shape[1] + 1, random_state=0, max_depth=4, **extra).fit(X, y)
    their_tree = getattr(reference, "estimators_", [reference])[0]  # a forest's trees
    assert above.max_features_ == their_tree.max_features_ == X.shape[1] + 1
    every = ours(max_features=None, random_state=0, max_depth=4, **extra).fit(X, y)
    np.testing.assert_array_equal(above.predict(X), every.predict(X))


@pytest.mark.parametrize("n_jobs", [np.int64(1), np.int32(2), np.intp(-1)])
def test_n_jobs_takes_numpy_integers_as_scikit_learn_does(n_jobs):
    from treelib.growth.threads import check_n_jobs

    X, y = small_data()
    ensemble.RandomForestRegressor(n_estimators=2, n_jobs=n_jobs).fit(X, y)   # accepted
    assert check_n_jobs(n_jobs) == (check_n_jobs(-1) if n_jobs == -1 else int(n_jobs))
    assert type(check_n_jobs(n_jobs)) is int
    DecisionTreeRegressor(max_depth=2, builder="level_wise", n_jobs=n_jobs).fit(X, y)
    RandomForestRegressor(n_estimators=2, max_depth=2, n_jobs=n_jobs).fit(X, y)


@pytest.mark.parametrize("n_jobs", [True, 0, -2, 1.0, "2"])
def test_n_jobs_refuses_what_is_not_a_count_of_workers(n_jobs):
    X, y = small_data()
    with pytest.raises(ValueError, match="n_jobs must be"):
        DecisionTreeRegressor(max_depth=2, n_jobs=n_jobs).fit(X, y)
