"""Random forests and extra trees (``treelib.estimators.forests``): scikit-learn's
bootstrap draw for draw, the bootstrap as integer sample weights, each tree the tree of
``DecisionTreeRegressor`` on those weights (level-wise, a feature subset drawn breadth first
from the tree's seed; per node on request), the same shallow trees as scikit-learn's
forest, out-of-bag scores, the choice of grower, and scikit-learn's estimator checks."""

import numpy as np
import pytest
from sklearn import ensemble
from sklearn.utils.estimator_checks import parametrize_with_checks

from tests.reference import sums_tolerance
from treelib import (
    DecisionTreeClassifier,
    DecisionTreeRegressor,
    ExtraTreesClassifier,
    ExtraTreesRegressor,
    RandomForestClassifier,
    RandomForestRegressor,
)
from treelib.datasets import load_california_housing
from treelib.estimators.bagging import (
    bootstrap_counts,
    expected_failed_checks,
    forest_builder,
)
from treelib.tree import TREE_LEAF

#: How extra trees grow by default: level-wise (treelib.growth.level_random).
RANDOM_BUILDER = "level_wise"


def assert_same_arrays(a, b, scale):
    """Two trees grown level-wise (so numbered alike, breadth first) are the same tree:
    same tests bit for bit, same children and row counts, values up to the rounding of
    sums added in other orders.  (``tests.reference.assert_same_tree`` walks a CART
    split's missing-value child beside its left or right twin, which doubles the walk at
    every level: too slow for full-depth trees.)"""
    for name in ("feature", "threshold", "children_left", "children_right",
                 "children_missing", "n_node_samples"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)
    n = a.n_node_samples[:, None]
    assert np.all(np.abs(a.value - b.value) <= 4 * sums_tolerance(1, scale) * n)
    np.testing.assert_allclose(a.weighted_n_node_samples, b.weighted_n_node_samples)


@pytest.fixture(scope="module")
def california():
    X, y = load_california_housing(return_X_y=True)
    rows = np.random.default_rng(0).permutation(len(y))[:3000]
    return X[rows].astype(np.float32), y[rows]


def test_the_bootstrap_is_scikit_learns_draw_for_draw(california):
    X, y = california
    ours = RandomForestRegressor(n_estimators=4, max_depth=2, random_state=3).fit(X, y)
    theirs = ensemble.RandomForestRegressor(n_estimators=4, max_depth=2,
                                            random_state=3).fit(X, y)
    np.testing.assert_array_equal(ours.seeds_, [t.random_state for t in theirs.estimators_])
    for seed, rows in zip(ours.seeds_, theirs.estimators_samples_):
        np.testing.assert_array_equal(bootstrap_counts(seed, len(y), len(y)),
                                      np.bincount(rows, minlength=len(y)))


def test_each_tree_is_the_decision_tree_of_its_bootstrap_weights(california):
    X, y = california
    forest = RandomForestRegressor(n_estimators=3, min_samples_leaf=3, random_state=0)
    forest.fit(X, y)
    assert forest.builder_ == "level_wise"
    for seed, tree in zip(forest.seeds_, forest.estimators_):
        counts = bootstrap_counts(seed, len(y), len(y))
        alone = DecisionTreeRegressor(min_samples_leaf=3, builder="level_wise")
        assert_same_arrays(tree, alone.fit(X, y, sample_weight=counts).tree_, np.abs(y).max())
        drawn = counts > 0
        np.testing.assert_array_equal(tree.weighted_n_node_samples[0], len(y))
        assert tree.n_node_samples[0] == drawn.sum()      # rows never drawn take no part


def pairs_left_right(a, b):
    """Node pairs of our tree and scikit-learn's, walked from the roots in parallel
    through the left and right children (their ids differ: breadth first and depth
    first)."""
    stack = [(0, 0)]
    while stack:
        i, j = stack.pop()
        yield i, j
        if not a.is_leaf[i]:
            stack += [(a.children_left[i], b.children_left[j]),
                      (a.children_right[i], b.children_right[j])]


def test_shallow_trees_are_scikit_learns_node_for_node(california):
    # Same bootstrap samples, every feature searched: at depth 3 the splits have clear
    # winners (no near-tie for scikit-learn's random feature order to break otherwise),
    # so every tree is scikit-learn's.  Values agree up to sums added in other orders.
    X, y = california
    ours = RandomForestRegressor(n_estimators=5, max_depth=3, random_state=1).fit(X, y)
    theirs = ensemble.RandomForestRegressor(n_estimators=5, max_depth=3,
                                            random_state=1).fit(X, y)
    tolerance = 4 * sums_tolerance(len(y), np.abs(y).max())
    for a, b in zip(ours.estimators_, theirs.estimators_):
        b = b.tree_
        assert a.node_count == b.node_count
        for i, j in pairs_left_right(a, b):
            assert a.is_leaf[i] == (b.children_left[j] == TREE_LEAF)
            if not a.is_leaf[i]:
                assert (a.feature[i], a.threshold[i]) == (b.feature[j], b.threshold[j])
            assert a.n_node_samples[i] == b.n_node_samples[j]
            assert a.weighted_n_node_samples[i] == b.weighted_n_node_samples[j]
            assert abs(a.value[i, 0] - b.value[j, 0, 0]) <= tolerance
    np.testing.assert_allclose(ours.predict(X), theirs.predict(X), rtol=1e-12)
    np.testing.assert_allclose(ours.feature_importances_, theirs.feature_importances_,
                               rtol=1e-9)


def test_classifier_trees_follow_their_weights_and_probabilities_average():
    X, y = load_california_housing(return_X_y=True)
    X, labels = X[:1500].astype(np.float32), (y[:1500] > 2).astype(int)
    forest = RandomForestClassifier(n_estimators=3, max_depth=5, random_state=0)
    forest.fit(X, labels)
    # sqrt(8) = 2 features per node, drawn breadth first: each tree is the level-wise
    # tree of its bootstrap weights and its seed (the finder's generator)
    assert forest.builder_ == "level_wise" and forest.max_features_ == 2
    for seed, tree in zip(forest.seeds_, forest.estimators_):
        counts = bootstrap_counts(seed, len(labels), len(labels))
        alone = DecisionTreeClassifier(max_depth=5, max_features=2, builder="level_wise",
                                       random_state=seed)
        assert_same_arrays(tree, alone.fit(X, labels, sample_weight=counts).tree_, 1.0)
    proba = np.mean([tree.predict(X) for tree in forest.estimators_], axis=0)
    np.testing.assert_array_equal(forest.predict_proba(X), proba)
    np.testing.assert_array_equal(forest.predict(X), np.argmax(proba, axis=1))
    everything = RandomForestClassifier(n_estimators=2, max_features=None, max_depth=5,
                                        random_state=0).fit(X, labels)
    for seed, tree in zip(everything.seeds_, everything.estimators_):
        counts = bootstrap_counts(seed, len(labels), len(labels))
        alone = DecisionTreeClassifier(max_depth=5, builder="level_wise")
        assert_same_arrays(tree, alone.fit(X, labels, sample_weight=counts).tree_, 1.0)


def test_a_feature_subset_grows_level_wise_and_per_node_on_request(california):
    # Level-wise by default: each tree is the level-wise tree of its seed and bootstrap
    # weights, the same forest on every fit; builder="depth_first" keeps the per-node
    # trees (each node's features drawn when it is reached), other trees for the seed.
    X, y = california
    X, y = X[:1500], y[:1500]
    forest = RandomForestRegressor(n_estimators=3, max_features=3, min_samples_leaf=2,
                                   random_state=4).fit(X, y)
    per_node = RandomForestRegressor(n_estimators=3, max_features=3, min_samples_leaf=2,
                                     random_state=4, builder="depth_first").fit(X, y)
    assert (forest.builder_, per_node.builder_) == ("level_wise", "depth_first")
    np.testing.assert_array_equal(forest.seeds_, per_node.seeds_)
    for seed, tree, other in zip(forest.seeds_, forest.estimators_, per_node.estimators_):
        counts = bootstrap_counts(seed, len(y), len(y))
        for builder, grown in (("level_wise", tree), ("depth_first", other)):
            alone = DecisionTreeRegressor(min_samples_leaf=2, max_features=3,
                                          builder=builder, random_state=seed)
            alone.fit(X, y, sample_weight=counts)
            if builder == "level_wise":
                assert_same_arrays(grown, alone.tree_, np.abs(y).max())
            else:                                     # numbered depth first, as sums
                np.testing.assert_array_equal(grown.feature, alone.tree_.feature)
                np.testing.assert_array_equal(grown.threshold, alone.tree_.threshold)
                np.testing.assert_allclose(grown.value, alone.tree_.value, rtol=1e-12)
        assert tree.node_count != other.node_count or np.any(tree.feature != other.feature)
    again = RandomForestRegressor(n_estimators=3, max_features=3, min_samples_leaf=2,
                                  random_state=4).fit(X, y)
    for tree, other in zip(forest.estimators_, again.estimators_):
        np.testing.assert_array_equal(tree.feature, other.feature)
        np.testing.assert_array_equal(tree.threshold, other.threshold)
        np.testing.assert_array_equal(tree.value, other.value)
    gap = forest.score(X, y) - per_node.score(X, y)
    assert abs(gap) < 0.02


def test_extra_trees_use_every_row_and_random_thresholds(california):
    # grown level-wise (treelib.growth.level_random): each tree is the level-wise tree of
    # DecisionTreeRegressor(splitter="random") with the tree's seed; per node on request
    X, y = california
    forest = ExtraTreesRegressor(n_estimators=3, max_depth=4, random_state=0).fit(X, y)
    assert forest.builder_ == RANDOM_BUILDER
    for seed, tree in zip(forest.seeds_, forest.estimators_):
        assert tree.n_node_samples[0] == len(y)           # no bootstrap
        alone = DecisionTreeRegressor(splitter="random", max_depth=4, random_state=seed,
                                      builder=RANDOM_BUILDER).fit(X, y)
        np.testing.assert_array_equal(tree.feature, alone.tree_.feature)
        np.testing.assert_array_equal(tree.threshold, alone.tree_.threshold)
        np.testing.assert_allclose(tree.value, alone.tree_.value, rtol=1e-12)
    roots = {(t.feature[0], t.threshold[0]) for t in forest.estimators_}
    assert len(roots) == 3                                 # each tree draws its own
    per_node = ExtraTreesRegressor(n_estimators=3, max_depth=4, random_state=0,
                                   builder="depth_first").fit(X, y)
    for seed, tree in zip(per_node.seeds_, per_node.estimators_):
        alone = DecisionTreeRegressor(splitter="random", max_depth=4, random_state=seed)
        np.testing.assert_array_equal(tree.threshold, alone.fit(X, y).tree_.threshold)
    exact = RandomForestRegressor(n_estimators=1, bootstrap=False, max_depth=4).fit(X, y)
    assert forest.estimators_[0].threshold[0] != exact.estimators_[0].threshold[0]


def test_the_fastest_grower_that_supports_the_settings():
    assert forest_builder("cumsum", "squared_error", 8, 8, None, False) == "level_wise"
    assert forest_builder("hist", "gini", 8, 8, None, False) == "level_wise"
    # a feature subset grows level-wise too (each node's draw breadth first)
    assert forest_builder("cumsum", "gini", 2, 8, None, False) == "level_wise"
    assert forest_builder("hist", "squared_error", 3, 8, None, False) == "level_wise"
    assert forest_builder("cumsum", "gini", 2, 8, None, True) == "depth_first"
    assert forest_builder("cumsum", "absolute_error", 2, 8, None, False) == "depth_first"
    assert forest_builder("random", "gini", 2, 8, None, False) == RANDOM_BUILDER
    assert forest_builder("random", "gini", 8, 8, None, True) == "depth_first"
    assert forest_builder("cumsum", "gini", 2, 8, 10, False) == "best_first"
    assert forest_builder("cumsum", "squared_error", 8, 8, None, True) == "depth_first"
    assert forest_builder("random", "squared_error", 8, 8, None, False) == RANDOM_BUILDER
    assert forest_builder("scan", "squared_error", 8, 8, None, False) == "depth_first"
    assert forest_builder("cumsum", "absolute_error", 8, 8, None, False) == "depth_first"
    assert forest_builder("cumsum", "squared_error", 8, 8, 10, False) == "best_first"


def test_missing_values_are_grown_depth_first(california):
    X, y = california
    X = X.copy()
    X[::7, 0] = np.nan
    forest = RandomForestRegressor(n_estimators=2, max_depth=4, random_state=0).fit(X, y)
    assert forest.builder_ == "depth_first" and np.isfinite(forest.predict(X)).all()


def test_out_of_bag_scores(california):
    X, y = california
    forest = RandomForestRegressor(n_estimators=10, max_depth=6, oob_score=True,
                                   random_state=0).fit(X, y)
    # each row's prediction by the trees that did not draw it, recomputed by hand
    total, count = np.zeros(len(y)), np.zeros(len(y))
    for seed, tree in zip(forest.seeds_, forest.estimators_):
        out = bootstrap_counts(seed, len(y), len(y)) == 0
        total[out] += tree.predict(X[out])[:, 0]
        count[out] += 1
    seen = count > 0
    np.testing.assert_allclose(forest.oob_prediction_[seen], total[seen] / count[seen])
    theirs = ensemble.RandomForestRegressor(n_estimators=10, max_depth=6, oob_score=True,
                                            random_state=0).fit(X, y)
    # scikit-learn predicts 0 for the rows every tree drew (about 1% with 10 trees) and
    # scores them; treelib leaves them out (NaN).  On the other rows: same bootstrap
    # samples, the same trees but for near-ties deep down, so nearly the same score.
    assert np.isnan(forest.oob_prediction_[~seen]).all()
    np.testing.assert_array_equal(theirs.oob_prediction_[~seen], 0.0)
    residual = np.sum((y[seen] - theirs.oob_prediction_[seen]) ** 2)
    their_score = 1 - residual / np.sum((y[seen] - y[seen].mean()) ** 2)
    assert forest.oob_score_ == pytest.approx(their_score, abs=0.01)
    with pytest.warns(UserWarning, match="do not have OOB scores"):
        RandomForestRegressor(n_estimators=1, max_depth=2, oob_score=True).fit(X, y)
    with pytest.raises(ValueError, match="Out of bag"):
        ExtraTreesRegressor(oob_score=True).fit(X, y)
    labels = (y > 2).astype(int)
    classifier = RandomForestClassifier(n_estimators=10, max_depth=6, oob_score=True,
                                        random_state=0).fit(X, labels)
    assert 0.5 < classifier.oob_score_ <= 1
    assert classifier.oob_decision_function_.shape == (len(y), 2)


def test_max_samples_and_sample_weight_follow_scikit_learn(california):
    X, y = california
    forest = RandomForestRegressor(n_estimators=2, max_samples=0.25, max_depth=2,
                                   random_state=0).fit(X, y)
    for tree in forest.estimators_:
        assert tree.weighted_n_node_samples[0] == int(0.25 * len(y))
    weights = np.zeros(len(y))
    weights[:100] = 1.0                  # the draw picks only rows of positive weight
    forest = RandomForestRegressor(n_estimators=2, max_samples=50, max_depth=2,
                                   random_state=0).fit(X, y, sample_weight=weights)
    for tree in forest.estimators_:
        assert tree.weighted_n_node_samples[0] == 50 and tree.n_node_samples[0] <= 100
    with pytest.raises(ValueError, match="max_samples"):
        ExtraTreesRegressor(max_samples=10).fit(X, y)


def test_feature_importances_average_the_trees(california):
    X, y = california
    forest = RandomForestRegressor(n_estimators=3, max_depth=3, random_state=0).fit(X, y)
    each = [t.feature_importances(X.shape[1]) for t in forest.estimators_]
    np.testing.assert_allclose(forest.feature_importances_, np.mean(each, axis=0))
    assert forest.apply(X).shape == (len(y), 3)


def test_full_depth_trees_report_their_depth_quickly(california):
    # Tree.node_depth once listed a CART split's missing-value child beside its left or
    # right twin, doubling the level at every depth: a 25-level tree exhausted memory.
    X, y = california
    tree = RandomForestRegressor(n_estimators=1, random_state=0).fit(X, y).estimators_[0]
    depth = np.zeros(tree.node_count, dtype=int)
    for node in range(tree.node_count):          # breadth-first ids: parents come first
        for child in (tree.children_left[node], tree.children_right[node]):
            if child != TREE_LEAF:
                depth[child] = depth[node] + 1
    np.testing.assert_array_equal(tree.node_depth(), depth)
    assert tree.max_depth > 20


def test_bad_parameters_are_named(california):
    X, y = california
    for bad, match in [(dict(n_estimators=0), "n_estimators"),
                       (dict(criterion="gini"), "criterion"),
                       (dict(splitter="fast"), "splitter"),
                       (dict(max_features=0), "max_features"),
                       (dict(bootstrap="yes"), "bootstrap"),
                       (dict(max_samples=0.0), "max_samples")]:
        with pytest.raises(ValueError, match=match):
            RandomForestRegressor(**bad).fit(X[:50], y[:50])


WEIGHT_CHECK = "check_sample_weight_equivalence_on_dense_data"


def test_forests_expect_the_failure_scikit_learn_expects_of_its_own():
    # scikit-learn's test suite marks the weights-equal-repeats check as an expected
    # failure of its random forests (bootstrap), not of its extra trees (no bootstrap)
    generator = pytest.importorskip("sklearn.utils._test_common.instance_generator")
    theirs = generator._get_expected_failed_checks
    for ours, sklearn_class in [(RandomForestRegressor(), ensemble.RandomForestRegressor),
                                (RandomForestClassifier(), ensemble.RandomForestClassifier),
                                (ExtraTreesRegressor(), ensemble.ExtraTreesRegressor),
                                (ExtraTreesClassifier(), ensemble.ExtraTreesClassifier)]:
        assert expected_failed_checks(ours).get(WEIGHT_CHECK) == theirs(
            sklearn_class()).get(WEIGHT_CHECK)
    # and of any forest that bootstraps, with the same reason, word for word
    reason = "sample_weight is not equivalent to removing/repeating samples."
    assert expected_failed_checks(ExtraTreesClassifier(bootstrap=True))[WEIGHT_CHECK] == reason
    assert expected_failed_checks(RandomForestRegressor(bootstrap=False)) == {}


@parametrize_with_checks(
    [RandomForestRegressor(n_estimators=5, random_state=0),
     RandomForestClassifier(n_estimators=5, random_state=0),
     ExtraTreesRegressor(n_estimators=5, random_state=0),
     ExtraTreesClassifier(n_estimators=5, random_state=0),
     ExtraTreesRegressor(n_estimators=5, bootstrap=True, random_state=0),
     RandomForestRegressor(n_estimators=5, bootstrap=False, max_features=0.5,
                           random_state=0),
     RandomForestClassifier(n_estimators=5, splitter="hist", oob_score=True,
                            random_state=0)],
    expected_failed_checks=expected_failed_checks, xfail_strict=True)
def test_scikit_learn_compatible(estimator, check):
    check(estimator)


def test_a_split_sends_float32_values_the_way_its_finder_counted_them():
    # Extra trees grow on float32 features with float64 random thresholds.  A threshold
    # between two neighbouring float32 values, nearer the upper one, once rounded to
    # float32 inside Split.goes_left (numpy's NEP 50) and sent both values left: an
    # empty child, and the per-node growers failed on it.
    from treelib.split import Split

    column = np.array([[2.136], [2.1362]], dtype=np.float32)
    threshold = 2.1361998632814965            # the draw met in an extra tree on california
    assert np.float32(threshold) == column[1, 0]
    split = Split(feature=0, threshold=threshold, gain=1.0, n_left=1, n_right=1)
    np.testing.assert_array_equal(split.goes_left(column), [True, False])


@pytest.mark.parametrize("forest, target", [
    (RandomForestClassifier(12, max_features="sqrt", max_depth=6, random_state=3), "class"),
    (RandomForestRegressor(9, max_features=None, min_samples_leaf=3, random_state=4), "y"),
    (RandomForestRegressor(7, bootstrap=False, max_features=0.5, random_state=5), "y")])
def test_exact_level_wise_forests_grow_in_batches_each_tree_alone(forest, target,
                                                                 california, monkeypatch):
    """Level-wise exact forests grow their trees in batches
    (``treelib.growth.level_batch.grow_exact_batch``, the rows sorted once per forest):
    each tree is ``grow_forest_tree``'s for its seed, bit for bit, and the forest is the
    same for every batch size, n_jobs and backend (sample weights with zeros too)."""
    from treelib.estimators import bagging, forests

    X, y = california[0][:700], california[1][:700]
    y = (y > np.median(y)).astype(int) + (X[:, 0] > 4) if target == "class" else y
    weights = np.random.default_rng(0).integers(0, 3, len(y)).astype(np.float64)
    jobs = []

    def grow_forest(job, seeds, n_jobs=1, backend="processes"):
        jobs.append(job)
        return bagging.grow_forest(job, seeds, n_jobs, backend)

    monkeypatch.setattr(forests, "grow_forest", grow_forest)
    fields = ("feature", "threshold", "value", "impurity", "weighted_n_node_samples")
    alone = None
    for size, n_jobs in ((1, 1), (16, 1), (3, 1), (4, 2)):
        monkeypatch.setattr(bagging, "BATCH_TREES", size)
        model = forest.set_params(n_jobs=n_jobs).fit(X, y, sample_weight=weights)
        assert model.builder_ == "level_wise" and bagging.batched(jobs[-1])
        if alone is None:
            alone = [bagging.grow_forest_tree(jobs[-1], seed)[0] for seed in model.seeds_]
        for a, b in zip(model.estimators_, alone):
            for name in fields:
                np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
