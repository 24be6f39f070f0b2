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

from tests.conftest import claim, notebook_cells
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

NOTEBOOK = "15_forests.ipynb"
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
    claim(NOTEBOOK, "At every depth the oblivious tree is worse alone (0.6024 against 0.6711 at "
                    "depth 6)")
    X_train, X_test, y_train, y_test = california
    for depth in (4, 6, 8):
        cart = DecisionTreeRegressor(max_depth=depth, builder="level_wise")
        oblivious = ObliviousTreeRegressor(max_depth=depth)
        ours = oblivious.fit(X_train, y_train).score(X_test, y_test)
        theirs = cart.fit(X_train, y_train).score(X_test, y_test)
        assert ours < theirs
        if depth == 6:
            assert (round(ours, 4), round(theirs, 4)) == (0.6024, 0.6711)


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
    claim(NOTEBOOK, "treelib's and scikit-learn's forests reach nearly the same scores")
    claim(NOTEBOOK, "On both data sets the random decision trees stay on the same side of the "
                    "forests at every size, from one tree to thirty")
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
    claim(NOTEBOOK, "With 4 rows per leaf, the forest's AUC passes the random decision trees' "
                    "0.8895.")
    claim(NOTEBOOK, "With the same leaf size the random forest moves ahead on a9a too (extra "
                    "trees were not refitted with 4 rows per leaf); on california the searching "
                    "trees were ahead even with pure leaves.")
    from sklearn.metrics import roc_auc_score

    from treelib.datasets import load_libsvm

    a9a = load_libsvm("a9a")
    fits, _ = load_results("forests")
    rdt = fits[(fits.data == "a9a") & (fits.method == "random decision trees")
               & (fits.n_trees == 30)].score.iloc[0]
    model = ensemble.RandomForestClassifier(n_estimators=30, min_samples_leaf=4,
                                            random_state=0).fit(a9a.X_train, a9a.y_train)
    assert round(rdt, 4) == 0.8895
    assert roc_auc_score(a9a.y_test, model.predict_proba(a9a.X_test)[:, 1]) > rdt
    at_30 = fits[(fits.data == "california_housing") & (fits.n_trees == 30)
                 & (fits.experiment == "ensembles")].set_index(["method", "library"]).score
    forests = at_30.drop(index="random decision trees", level="method")
    assert (forests > at_30["random decision trees", "treelib"]).all()   # pure leaves


# --- the sentences of the page, each tied to its assertion with claim() -----------------


def test_claim_depth_3_forests_agree_with_scikit_learns(california):
    claim(NOTEBOOK, "the two forests' predictions agree to rounding")
    X_train, X_test, y_train, y_test = california
    small = np.random.default_rng(0).permutation(len(y_train))[:3000]
    ours = RandomForestRegressor(n_estimators=5, max_depth=3, random_state=1)
    theirs = ensemble.RandomForestRegressor(n_estimators=5, max_depth=3, random_state=1)
    gap = (ours.fit(X_train[small], y_train[small]).predict(X_test)
           - theirs.fit(X_train[small], y_train[small]).predict(X_test))
    assert np.abs(gap).max() < 1e-12


def test_claim_out_of_bag_close_to_and_below_the_test_score(california):
    claim(NOTEBOOK, "The out-of-bag R² (0.734) is close to the test R² (0.762), a little below it")
    X_train, X_test, y_train, y_test = california
    small = np.random.default_rng(0).permutation(len(y_train))[:3000]
    forest = RandomForestRegressor(n_estimators=30, max_depth=12, oob_score=True,
                                   random_state=0).fit(X_train[small], y_train[small])
    test = forest.score(X_test, y_test)
    assert (round(forest.oob_score_, 3), round(test, 3)) == (0.734, 0.762)


def test_claim_the_terms_of_the_four_ensembles(california):
    claim(NOTEBOOK, "Bagging alone makes the best trees (mean error 0.5681) with a fair spread "
                    "(0.2058), and the best ensemble (0.3623). Drawing 2 of the 8 features at "
                    "each node buys more spread (0.2608) but makes each tree much worse (0.6778)")
    claim(NOTEBOOK, "Extra trees' trees are nearly as good as bagged ones (0.5868), but they "
                    "spread least (0.1386)")
    claim(NOTEBOOK, "Random decision trees, which choose nothing, have by far the worst trees "
                    "(0.8069) and end last in spite of their spread")
    from treelib import ExtraTreesRegressor

    X_train, X_test, y_train, y_test = california
    small = np.random.default_rng(0).permutation(len(y_train))[:3000]
    ensembles = {
        "bagging": RandomForestRegressor(n_estimators=10, max_depth=8, random_state=0),
        "sqrt": RandomForestRegressor(n_estimators=10, max_depth=8, max_features="sqrt",
                                      random_state=0),
        "extra": ExtraTreesRegressor(n_estimators=10, max_depth=8, random_state=0),
        "rdt": RandomDecisionTreeRegressor(n_estimators=10, random_state=0)}
    tree_error, spread, error = {}, {}, {}
    for name, model in ensembles.items():
        model.fit(X_train[small], y_train[small])
        dtype = np.float64 if name == "rdt" else np.float32
        P = np.array([t.predict(X_test.astype(dtype))[:, 0] for t in model.estimators_])
        tree_error[name] = np.mean((P - y_test) ** 2)
        spread[name] = np.mean((P - P.mean(axis=0)) ** 2)
        error[name] = np.mean((P.mean(axis=0) - y_test) ** 2)
    assert min(tree_error, key=tree_error.get) == "bagging"
    assert min(error, key=error.get) == "bagging"
    assert spread["sqrt"] > spread["bagging"] and tree_error["sqrt"] > tree_error["bagging"] + 0.1
    assert min(spread, key=spread.get) == "extra"
    assert tree_error["extra"] - tree_error["bagging"] < 0.03
    assert max(tree_error, key=tree_error.get) == "rdt" and max(error, key=error.get) == "rdt"
    assert spread["rdt"] > spread["bagging"]
    rounded = {k: round(v, 4) for k, v in tree_error.items()}
    assert rounded == {"bagging": 0.5681, "sqrt": 0.6778, "extra": 0.5868, "rdt": 0.8069}


@pytest.fixture(scope="module")
def forests_results():
    return load_results("forests")


def test_claim_the_committed_ensembles_of_30(forests_results):
    claim(NOTEBOOK, "On california, extra trees (R² 0.8146 for treelib's) and the random forest "
                    "(0.8112) are close, and random decision trees trail far behind (0.5683)")
    claim(NOTEBOOK, "On a9a the order turns round: the random decision trees rank the test rows "
                    "best (AUC 0.8895), ahead of the random forest (0.8673) and extra trees "
                    "(0.8324).")
    fits, _ = forests_results
    at_30 = fits[(fits.experiment == "ensembles") & (fits.n_trees == 30)
                 & (fits.library == "treelib")].set_index(["data", "method"]).score.round(4)
    cal, a9a = at_30["california_housing"], at_30["a9a"]
    assert (cal["extra trees"], cal["random forest"], cal["random decision trees"]) == (
        0.8146, 0.8112, 0.5683)
    assert (a9a["random decision trees"], a9a["random forest"], a9a["extra trees"]) == (
        0.8895, 0.8673, 0.8324)


def test_claim_every_curve_rises_fastest_first_and_flattens(forests_results):
    claim(NOTEBOOK, "Every curve rises fastest over the first few trees and flattens")
    fits, _ = forests_results
    curves = fits[fits.experiment == "ensembles"].pivot_table(
        index=["data", "method", "library"], columns="n_trees", values="score")
    early = (curves[5] - curves[1]) / 4                  # per tree added, 1 -> 5 trees
    late = (curves[30] - curves[10]) / 20                # per tree added, 10 -> 30 trees
    assert (early > 5 * late).all()
    assert ((curves[30] - curves[20]).abs() < 0.01).all()


def test_claim_most_probabilities_of_a_pure_leaved_tree_are_0_or_1():
    claim(NOTEBOOK, "so on a9a most of a forest tree's probabilities are exactly 0 or 1")
    from treelib.datasets import load_libsvm

    a9a = load_libsvm("a9a")
    forest = ensemble.RandomForestClassifier(n_estimators=3, random_state=0).fit(
        a9a.X_train, a9a.y_train)
    P = np.array([tree.predict_proba(a9a.X_test)[:, 1] for tree in forest.estimators_])
    assert np.mean((P == 0) | (P == 1)) > 0.5


def test_claim_what_treelibs_forests_cost(forests_results):
    claim(NOTEBOOK, "treelib's random forest takes about one and a half times scikit-learn's "
                    "time here (1.517; the CPU-time ratio, 1.518, is the same)")
    claim(NOTEBOOK, "and there it took 61 to 199 times scikit-learn's CPU time (199 for extra "
                    "trees on california).")
    fits, info = forests_results
    assert info["fit_time_ratio (treelib / scikit-learn)"] == "1.517"
    assert info["cpu_time_ratio (treelib / scikit-learn)"] == "1.518"
    at_30 = fits[(fits.experiment == "ensembles") & (fits.n_trees == 30)].set_index(
        ["data", "method", "library"]).cpu_seconds
    ratios = {(data, method): at_30[data, method, "treelib"] / at_30[data, method, "scikit-learn"]
              for data in ("california_housing", "a9a")
              for method in ("random forest", "extra trees")}
    node_by_node = [ratios["a9a", "random forest"], ratios["a9a", "extra trees"],
                    ratios["california_housing", "extra trees"]]
    assert (round(min(node_by_node)), round(max(node_by_node))) == (61, 199)
    assert round(ratios["california_housing", "extra trees"]) == 199
