"""Chapter 12 ("Random decision trees"): the chapter's tree walker and its count of the
features that vary in each node are right, and the chapter's claims hold.

``route`` (tagged "teaching") walks one row down a ``treelib.tree.Tree`` with its missing
branch and early stop; it must answer as ``Tree.apply`` does.  ``varying_shares`` (tagged
"helpers") counts, level by level from the non-zeros of 0/1 data, the share of features
that vary in every node a tree tried to split; it must match a count from each node's own
rows.  ``toy_data`` (also "helpers") must be chapter 11's.  ``random_node_rule`` (tagged
"teaching") draws one node's feature and threshold from a ``numpy.random.Generator`` in
the order ``treelib.growth.random_trees`` does, so that with the same seed it picks the
root's feature and threshold of ``grow_random_tree``'s tree exactly.  No test looks at
seconds.
"""

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

from tests.conftest import claim, notebook_cells
from tests.reference import route_one_by_one, rows_of_nodes
from treelib import (
    DecisionTreeClassifier,
    RandomDecisionTreeClassifier,
    RandomDecisionTreeRegressor,
)
from treelib.bench import california_split, fit_exponent, load_results
from treelib.criteria import one_hot
from treelib.datasets import load_libsvm
from treelib.growth import RandomTreeRule, StoppingRules, grow_random_tree

NOTEBOOK = "12_random_decision_trees.ipynb"
TEACHING = notebook_cells(NOTEBOOK)
route, random_node_rule = TEACHING["route"], TEACHING["random_node_rule"]
helpers = notebook_cells(NOTEBOOK, tag="helpers")
toy_data, varying_shares = helpers["toy_data"], helpers["varying_shares"]


def random_tree(X, Y, seed, max_depth, min_samples_leaf=4):
    rule = RandomTreeRule("gini", min_samples_leaf=min_samples_leaf,
                          rng=np.random.default_rng(seed))
    return grow_random_tree(X, Y, rule, StoppingRules(max_depth=max_depth))


def test_toy_data_is_chapter_elevens():
    theirs = notebook_cells("11_random_thresholds.ipynb", tag="helpers")["toy_data"]
    for seed in (0, 1):
        for ours, expected in zip(toy_data(300, seed), theirs(300, seed)):
            np.testing.assert_array_equal(ours, expected)


@pytest.mark.parametrize("seed", range(5))
def test_route_answers_as_apply(seed):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 4, size=(300, 3)).astype(float)
    X[rng.random(X.shape) < 0.2] = np.nan
    y = rng.integers(0, 2, 300)
    tree = random_tree(X, one_hot(y, 2), seed, max_depth=6, min_samples_leaf=3)
    X_new = rng.integers(-1, 5, size=(200, 3)).astype(float)
    X_new[rng.random(X_new.shape) < 0.3] = np.nan
    answered = tree.apply(X_new)
    assert [route(tree, x) for x in X_new] == answered.tolist()
    assert [route_one_by_one(tree, x) for x in X_new] == answered.tolist()


def awkward_root(seed):
    """2 to 40 rows of 1 to 30 features: most constant, some missing values (NaN), ties;
    every fifth seed no feature varies, and with many constant features eight draws can
    all miss (the rule's fallback)."""
    rng = np.random.default_rng(seed)
    n, f = int(rng.integers(2, 40)), int(rng.integers(1, 30))
    X = rng.integers(0, 3, size=(n, f)).astype(float)
    X[rng.random((n, f)) < 0.3] = np.nan
    X[:, rng.random(f) < 0.7] = 1.0
    if seed % 5 == 0:
        X[:] = 2.0
    return X


def root_draws(seed):
    """(readable rule, treelib's root) for the seed's awkward node; treelib's is None for a
    leaf, and the two generators have the same seed."""
    X = awkward_root(seed)
    rule = RandomTreeRule("squared_error", rng=np.random.default_rng(seed + 1))
    tree = grow_random_tree(X, np.zeros((len(X), 1)), rule, StoppingRules(max_depth=1))
    treelib_root = None if tree.node_count == 1 else (tree.feature[0], tree.threshold[0])
    return random_node_rule(X, np.random.default_rng(seed + 1)), treelib_root


def test_the_readable_rule_draws_treelibs_root():
    fallbacks = 0
    for seed in range(400):
        ours, theirs = root_draws(seed)
        assert ours == theirs, seed
        if ours is not None:                      # the threshold's bits, not only its value
            assert np.float64(ours[1]).tobytes() == np.float64(theirs[1]).tobytes()
        X = awkward_root(seed)
        varying = np.fmax.reduce(X, axis=0) > np.fmin.reduce(X, axis=0)
        fallbacks += 0 < varying.mean() < 0.25 and X.shape[1] > 8
    assert fallbacks > 20                         # nodes where eight draws often miss


def test_varying_shares_counts_each_nodes_own_rows():
    a1a = load_libsvm("a1a")
    X = a1a.X_train[:400]
    tree = random_tree(X, one_hot(a1a.y_train[:400], 2), seed=0, max_depth=123)
    shares = varying_shares(tree, X)
    expected = []
    for rows in rows_of_nodes(tree, X):
        if len(rows) >= 8:
            block = X[rows]
            expected.append((len(rows), (block.max(axis=0) > block.min(axis=0)).mean()))
    ours = sorted(zip(shares.samples.tolist(), shares["share varying"].tolist()))
    assert len(ours) == len(expected)
    np.testing.assert_allclose(np.array(ours), np.array(sorted(expected)), rtol=1e-12)


# --- the chapter's claims ---------------------------------------------------------------


@pytest.fixture(scope="module")
def toy():
    return toy_data(600, seed=0), toy_data(5000, seed=1)


def test_labels_do_not_shape_the_tree(toy):
    claim(NOTEBOOK, "And 21 of the 129 split nodes hold a single class and are split anyway")
    (X, y), _ = toy
    Y = one_hot(y, 2)
    a = random_tree(X, Y, seed=1, max_depth=10)
    b = random_tree(X, Y[np.random.default_rng(2).permutation(len(Y))], seed=1, max_depth=10)
    for name in ("feature", "threshold", "children_left", "children_right",
                 "children_missing", "n_node_samples"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
    split = ~a.is_leaf
    assert (a.node_count, a.max_depth, int(split.sum())) == (213, 10, 129)
    assert int((split & np.isin(a.value[:, 1], [0, 1])).sum()) == 21


def test_ensembles_compared_with_ensembles(toy):
    claim(NOTEBOOK, "(0.890) even ranks the test points a little "
                    "better than one random-threshold tree (0.871) here")
    claim(NOTEBOOK, "they rank the test points equally well to three decimals (0.925 and 0.925 "
                    "in the table)")
    claim(NOTEBOOK, "is too shallow for data with two features")
    (X, y), (X_test, y_test) = toy
    rdt = RandomDecisionTreeClassifier(n_estimators=30, max_depth=10, min_samples_leaf=4,
                                       random_state=0).fit(X, y)
    extra = [DecisionTreeClassifier(splitter="random", max_depth=10, min_samples_leaf=4,
                                    random_state=s).fit(X, y) for s in range(30)]
    one_rdt = roc_auc_score(y_test, rdt.estimators_[0].predict(X_test)[:, 1])
    many_rdt = roc_auc_score(y_test, rdt.predict_proba(X_test)[:, 1])
    extra_proba = [t.predict_proba(X_test)[:, 1] for t in extra]
    one_extra = roc_auc_score(y_test, extra_proba[0])
    many_extra = roc_auc_score(y_test, np.mean(extra_proba, axis=0))
    assert many_rdt > one_rdt + 0.02 and many_extra > one_extra + 0.02
    assert abs(many_rdt - many_extra) < 0.01
    assert (round(one_rdt, 3), round(one_extra, 3)) == (0.890, 0.871)
    assert round(many_rdt, 3) == round(many_extra, 3) == 0.925
    default = RandomDecisionTreeClassifier(random_state=0).fit(X, y)
    assert default.max_depth_ == 2
    assert roc_auc_score(y_test, default.predict_proba(X_test)[:, 1]) < many_rdt - 0.05


@pytest.fixture(scope="module")
def hidden_incomes():
    X_train, X_test, y_train, y_test = california_split()
    rng = np.random.default_rng(0)
    X_train_nan, X_test_nan = X_train.copy(), X_test.copy()
    X_train_nan[rng.random(len(X_train)) < 0.2, 0] = np.nan
    X_test_nan[rng.random(len(X_test)) < 0.2, 0] = np.nan
    return X_train, X_test, X_train_nan, X_test_nan, y_train, y_test


def test_missing_incomes_cost_less_than_dropping_the_feature(hidden_incomes):
    claim(NOTEBOOK, "the test $R^2$ falls from 0.678 to 0.649, still well above the 0.535 "
                    "of trees that never see MedInc")
    X_train, X_test, X_train_nan, X_test_nan, y_train, y_test = hidden_incomes

    def score(A, B):
        model = RandomDecisionTreeRegressor(n_estimators=10, max_depth=12, random_state=0)
        return model.fit(A, y_train).score(B, y_test)

    scores = [round(score(X_train[:, 1:], X_test[:, 1:]), 3),
              round(score(X_train_nan, X_test_nan), 3), round(score(X_train, X_test), 3)]
    assert scores == [0.535, 0.649, 0.678]


def test_doubled_targets_change_only_what_the_nodes_store(hidden_incomes):
    """Check yourself 1: the same seed, every target doubled."""
    claim(NOTEBOOK, "`value` and `impurity`, what each node stores (here every node's mean "
                    "doubles and its variance quadruples).")
    _, _, X_train_nan, _, y_train, _ = hidden_incomes

    def tree(Y):
        rule = RandomTreeRule("squared_error", min_samples_leaf=4,
                              rng=np.random.default_rng(0))
        return grow_random_tree(X_train_nan, Y, rule, StoppingRules(max_depth=6))

    a, b = tree(y_train[:, None]), tree(2 * y_train[:, None])
    arrays = [k for k, v in vars(a).items() if isinstance(v, np.ndarray)]
    assert {"value", "impurity", "feature", "threshold", "children_left"} <= set(arrays)
    changed = {k for k in arrays if not np.array_equal(getattr(a, k), getattr(b, k))}
    assert changed == {"value", "impurity"}
    np.testing.assert_allclose(b.value, 2 * a.value, rtol=1e-12)
    np.testing.assert_allclose(b.impurity, 4 * a.impurity, rtol=1e-9, atol=1e-12)


def test_the_drawn_tree_and_exercise_one(hidden_incomes):
    _, X_test, X_train_nan, _, y_train, _ = hidden_incomes
    Y = y_train[:, None]
    seed = next(s for s in range(100) if random_tree(X_train_nan, Y, s, 2).feature[0] == 0)
    small = random_tree(X_train_nan, Y, seed, 2)
    missing = small.children_missing[0]
    assert small.n_node_samples[missing] == np.isnan(X_train_nan[:, 0]).sum()
    # below the root no training value is missing: no missing child, a row stops there
    assert (small.children_missing[small.children[0]] == -1).all()
    row = X_test[:1].copy()
    row[0, 0] = np.nan
    row[0, small.feature[missing]] = np.nan
    assert small.apply(row)[0] == missing
    np.testing.assert_array_equal(small.predict(row)[0], small.value[missing])


def test_the_varying_features_of_a9a_nodes():
    claim(NOTEBOOK, "In a node of 8 to 15 samples the median share of features that vary is "
                    "11%, and 8 random draws all miss with a probability of 44% on average over "
                    "such nodes (in nodes of 512 "
                    "or more samples: 2%).")
    a9a = load_libsvm("a9a")
    X, Y = a9a.X_train, one_hot(a9a.y_train, 2)
    nodes = varying_shares(random_tree(X, Y, seed=0, max_depth=123), X)
    small = nodes[(nodes.samples >= 8) & (nodes.samples < 16)]
    large = nodes[nodes.samples >= 512]
    assert len(small) == 4117 and round(small["share varying"].median(), 3) == 0.106
    assert round(((1 - small["share varying"]) ** 8).mean(), 2) == 0.44
    assert round(((1 - large["share varying"]) ** 8).mean(), 2) == 0.02


def test_committed_rdt_cost_routes_as_many_samples_with_more_features():
    cost, _ = load_results("rdt_cost")
    assert {"experiment", "n_samples", "n_features", "max_depth", "repeat", "seconds",
            "depth", "sample_levels"} <= set(cost.columns)
    features = cost[cost.experiment == "features"].groupby("n_features").sample_levels.median()
    assert features.index.tolist() == [123, 246, 492, 984]
    assert 0.9 < features[984] / features[123] < 1.1
    n_part = cost[cost.experiment == "n"].groupby("n_samples").sample_levels.median()
    # more rows, more samples routed: at least linearly (the trees also grow deeper)
    assert fit_exponent(n_part.index, n_part.to_numpy()) >= 1.0


def test_the_committed_cost_of_rows_depth_and_features():
    """Ratios of the committed benchmark's times, never seconds measured here."""
    claim(NOTEBOOK, "4 times the rows take 4.63 times as long and route 4.62 times as many "
                    "samples.")
    claim(NOTEBOOK, "along the depth experiment the time per routed sample rises about "
                    "fourfold (from 0.069 to 0.283 µs), and the measured times leave the "
                    "dashed line as the depth limit grows.")
    claim(NOTEBOOK, "with the columns tiled 8 times the tree routes about as many samples "
                    "(the dashed line stays flat), but takes 2.75 times as long.")
    cost, _ = load_results("rdt_cost")
    summary = cost.groupby(["experiment", "n_samples", "n_features", "max_depth"]).agg(
        seconds=("seconds", "median"), sample_levels=("sample_levels", "median"))
    n = summary.loc["n"].droplevel(["n_features", "max_depth"])
    assert round(n.seconds[16384] / n.seconds[4096], 2) == 4.63
    assert round(n.sample_levels[16384] / n.sample_levels[4096], 2) == 4.62
    assert fit_exponent(n.index, n.seconds.to_numpy()) < 1.2            # linear in n
    depth = summary.loc["depth"].droplevel(["n_samples", "n_features"])
    per_sample = 1e6 * depth.seconds / depth.sample_levels
    assert (round(per_sample.min(), 3), round(per_sample[123], 3)) == (0.069, 0.283)
    assert 3.5 < per_sample[123] / per_sample.min() < 4.5              # about fourfold
    # the measured times rise above a time proportional to the samples routed
    proportional = depth.seconds[2] * depth.sample_levels / depth.sample_levels[2]
    assert (depth.seconds[[32, 64, 123]] > 1.5 * proportional[[32, 64, 123]]).all()
    features = summary.loc["features"].droplevel(["n_samples", "max_depth"])
    assert round(features.seconds[984] / features.seconds[123], 2) == 2.75
    assert 0.95 < features.sample_levels[984] / features.sample_levels[123] < 1.05
