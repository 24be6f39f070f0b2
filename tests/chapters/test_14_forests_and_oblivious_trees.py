"""Chapter 14 ("Forests and oblivious trees"): the chapter's teaching code equals treelib
(and scikit-learn), and the chapter's claims hold.

From the cells tagged "teaching": ``bootstrap_weights`` and ``tree_seeds`` must draw
scikit-learn's bootstrap samples, seed for seed, as treelib's forests do;
``best_level_test`` / ``grow_oblivious_by_loop`` (an oblivious tree's level search as
loops) must choose treelib's tests, up to exact ties; ``leaf_index`` must find treelib's
leaf for every row.  No test looks at seconds.
"""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from sklearn import ensemble

from tests.conftest import notebook_cells
from tests.reference import exact_sse
from treelib import (
    DecisionTreeRegressor,
    ObliviousTreeRegressor,
    RandomDecisionTreeRegressor,
    RandomForestRegressor,
)
from treelib.bench import california_split, load_results
from treelib.estimators.bagging import bootstrap_counts
from treelib.finders import Finder
from treelib.growth import StoppingRules
from treelib.growth.oblivious import grow_oblivious

NOTEBOOK = "14_forests_and_oblivious_trees.ipynb"
teaching = notebook_cells(NOTEBOOK)
bootstrap_weights, tree_seeds = teaching["bootstrap_weights"], teaching["tree_seeds"]
grow_oblivious_by_loop, leaf_index = teaching["grow_oblivious_by_loop"], teaching["leaf_index"]


@pytest.fixture(scope="module")
def california():
    return california_split()


# --- bagging -----------------------------------------------------------------------------


@pytest.mark.parametrize("random_state, n_samples", [(0, 50), (1, 1000), (12345, 7)])
def test_the_bootstrap_weights_are_scikit_learns_and_treelibs(random_state, n_samples):
    rng = np.random.default_rng(random_state)
    X, y = rng.normal(size=(n_samples, 2)), rng.normal(size=n_samples)
    theirs = ensemble.RandomForestRegressor(n_estimators=4, max_depth=1,
                                            random_state=random_state).fit(X, y)
    ours = RandomForestRegressor(n_estimators=4, max_depth=1,
                                 random_state=random_state).fit(X, y)
    seeds = tree_seeds(random_state, 4)
    np.testing.assert_array_equal(seeds, ours.seeds_)
    for seed, rows in zip(seeds, theirs.estimators_samples_):
        weights = bootstrap_weights(seed, n_samples)
        np.testing.assert_array_equal(weights, np.bincount(rows, minlength=n_samples))
        np.testing.assert_array_equal(weights, bootstrap_counts(seed, n_samples, n_samples))


def test_about_a_third_of_the_rows_are_never_drawn(california):
    # the chapter's draw: 0.3669 of the 15,480 training rows, against e^-1 = 0.3679; the
    # share of a binomial(n, 1/n) zero count has standard deviation below 0.004 here
    n = len(california[2])
    shares = [np.mean(bootstrap_weights(seed, n) == 0) for seed in range(20)]
    assert np.mean(shares) == pytest.approx(np.exp(-1), abs=0.002)
    assert np.mean(bootstrap_weights(0, n) == 0) == pytest.approx(0.3669, abs=5e-5)


def test_averaging_gains_exactly_the_spread():
    # ensemble error = mean tree error - spread, on any predictions, row by row
    rng = np.random.default_rng(0)
    P, y = rng.normal(size=(7, 100)), rng.normal(size=100)
    mean = P.mean(axis=0)
    np.testing.assert_allclose((mean - y) ** 2, np.mean((P - y) ** 2, axis=0)
                               - np.mean((P - mean) ** 2, axis=0), atol=1e-12)


# --- oblivious trees ---------------------------------------------------------------------


@st.composite
def continuous_data(draw):
    """Rows of distinct-enough continuous features and targets: ties between candidate
    tests are then only the structural ones the comparison allows for."""
    n = draw(st.integers(8, 40))
    f = draw(st.integers(1, 3))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, f)), draw(st.sampled_from([1, 3])))   # some ties
    y = np.round(rng.normal(size=n) + 2 * (X[:, 0] > 0), 3)
    return X, y, draw(st.integers(1, 3))


def level_loss(X, y, features, thresholds, level):
    """The children's losses after ``level + 1`` levels, summed over the leaves, exact."""
    leaves = leaf_index(X, features[:level + 1], thresholds[:level + 1])
    return sum(exact_sse(y[leaves == s]) for s in np.unique(leaves))


@settings(max_examples=100, deadline=None)
@given(data=continuous_data())
def test_the_loops_choose_treelibs_tests(data):
    X, y, depth = data
    finder = Finder("hist", "squared_error")
    tree = grow_oblivious(finder.prepare(X), y[:, None], finder, StoppingRules(max_depth=depth))
    features, thresholds = grow_oblivious_by_loop(X, y, depth)
    for level in range(tree.depth):
        ours = (features[level], thresholds[level])
        if ours != (tree.feature[level], tree.threshold[level]):
            # a tie: both tests leave the same summed loss (up to the loops' float sums);
            # the trees then differ below, and are not compared further
            a = level_loss(X, y, list(tree.feature), list(tree.threshold), level)
            b = level_loss(X, y, features, thresholds, level)
            assert abs(float(a - b)) <= 1e-9 * float(exact_sse(y) + Fraction(1))
            return
    leaves = leaf_index(X, list(tree.feature), list(tree.threshold))
    np.testing.assert_array_equal(leaves, tree.apply(X))


@settings(max_examples=100, deadline=None)
@given(X=hnp.arrays(np.float64, (20, 3), elements=st.floats(-5, 5)),
       features=st.lists(st.integers(0, 2), min_size=0, max_size=5),
       cut=st.floats(-5, 5))
def test_the_bit_index_is_treelibs_leaf(X, features, cut):
    thresholds = [cut + 0.5 * level for level in range(len(features))]
    expected = [sum(2 ** level for level, (j, t) in enumerate(zip(features, thresholds))
                    if x[j] > t) for x in X]
    np.testing.assert_array_equal(leaf_index(X, features, thresholds), expected)


def test_the_depth_3_tree_of_the_figure(california):
    X_train, X_test, y_train, y_test = california
    tree = ObliviousTreeRegressor(max_depth=3).fit(X_train, y_train).tree_
    # MedInc twice, then AveOccup; MedInc > 5.03 and <= 3.13 holds no row: leaves 1, 5
    np.testing.assert_array_equal(tree.feature, [0, 0, 5])
    assert tree.threshold[0] > tree.threshold[1]
    np.testing.assert_array_equal(np.flatnonzero(tree.n_leaf_samples == 0), [1, 5])
    # an empty leaf predicts its nearest ancestor that holds rows: node 1 of level 1
    above = X_train[:, 0] > tree.threshold[0]
    np.testing.assert_allclose(tree.value[[1, 5], 0], y_train[above].mean(), rtol=1e-12)


def test_oblivious_trees_are_weaker_than_cart_at_equal_depth(california):
    X_train, X_test, y_train, y_test = california
    for depth in (4, 6, 8):
        cart = DecisionTreeRegressor(max_depth=depth, builder="level_wise")
        oblivious = ObliviousTreeRegressor(max_depth=depth)
        assert (oblivious.fit(X_train, y_train).score(X_test, y_test)
                < cart.fit(X_train, y_train).score(X_test, y_test))


# --- the chapter's claims on ensembles ---------------------------------------------------


def test_on_the_subsample_bagging_beats_the_other_ensembles(california):
    # the chapter's table: ten trees of depth 8 on the 3,000-row subsample
    X_train, X_test, y_train, y_test = california
    small = np.random.default_rng(0).permutation(len(y_train))[:3000]
    scores = {}
    for name, model in [
            ("bagging", RandomForestRegressor(n_estimators=10, max_depth=8, random_state=0)),
            ("sqrt", RandomForestRegressor(n_estimators=10, max_depth=8, max_features="sqrt",
                                           random_state=0)),
            ("rdt", RandomDecisionTreeRegressor(n_estimators=10, random_state=0))]:
        scores[name] = model.fit(X_train[small], y_train[small]).score(X_test, y_test)
    assert scores["bagging"] > scores["sqrt"] > scores["rdt"]


def test_the_committed_comparison_supports_the_text():
    fits, info = load_results("forests")
    at_30 = fits[(fits.experiment == "ensembles") & (fits.n_trees == 30)]
    score = at_30.set_index(["data", "method", "library"]).score
    for method in ("random forest", "extra trees"):
        for library in ("treelib", "scikit-learn"):
            # california: searching trees far ahead; a9a: pure leaves lose to seed 001's
            assert (score[("california_housing", method, library)]
                    > score[("california_housing", "random decision trees", "treelib")] + 0.2)
            assert (score[("a9a", method, library)]
                    < score[("a9a", "random decision trees", "treelib")])
        for data in ("california_housing", "a9a"):
            # same bootstrap samples (forests), the same kind of trees: close scores
            assert abs(score[(data, method, "treelib")]
                       - score[(data, method, "scikit-learn")]) < 0.01
    # the random decision trees stay on the same side of the forests at every size
    ensembles = fits[fits.experiment == "ensembles"].set_index(
        ["data", "method", "library", "n_trees"]).score
    for data, sign in (("california_housing", 1), ("a9a", -1)):
        for m in sorted(set(fits.n_trees[fits.experiment == "ensembles"])):
            rdt = ensembles[(data, "random decision trees", "treelib", m)]
            for method in ("random forest", "extra trees"):
                assert sign * (ensembles[(data, method, "treelib", m)] - rdt) > 0
    curves = fits[(fits.experiment == "ensembles") & (fits.library == "treelib")]
    for _, curve in curves.groupby(["data", "method"]):
        ordered = curve.sort_values("n_trees").score
        assert ordered.iloc[-1] > ordered.iloc[0]          # 30 trees beat one
    assert 1.0 < float(info["fit_time_ratio (treelib / scikit-learn)"]) < 2.0


def test_a9a_forests_with_four_rows_per_leaf_pass_the_random_decision_trees():
    # the last exercise, with scikit-learn's forest (treelib's grows the same trees, node
    # by node, in minutes)
    from sklearn.metrics import roc_auc_score

    from treelib.datasets import load_libsvm

    a9a = load_libsvm("a9a")
    fits, _ = load_results("forests")
    rdt = fits[(fits.data == "a9a") & (fits.method == "random decision trees")
               & (fits.n_trees == 30)].score.iloc[0]
    model = ensemble.RandomForestClassifier(n_estimators=30, min_samples_leaf=4,
                                            random_state=0).fit(a9a.X_train, a9a.y_train)
    assert roc_auc_score(a9a.y_test, model.predict_proba(a9a.X_test)[:, 1]) > rdt
