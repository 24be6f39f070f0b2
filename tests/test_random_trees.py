"""Random decision trees: every node checked against its training samples, routed one
by one; the random draws checked for what they promise; the ensembles."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from treelib import RandomDecisionTreeClassifier, RandomDecisionTreeRegressor
from treelib.criteria import one_hot
from treelib.datasets import load_libsvm
from treelib.random_trees import LEFT, MISSING, RIGHT, build_random_tree
from treelib.splits import midpoint


@st.composite
def training_sets(draw, allow_nan=True):
    n = draw(st.integers(1, 80))
    f = draw(st.integers(1, 5))
    values = st.integers(-3, 3).map(float) | st.floats(-100, 100, allow_subnormal=False)
    if allow_nan and draw(st.booleans()):
        values = values | st.just(np.nan)
    X = draw(hnp.arrays(np.float64, (n, f), elements=values))
    labels = draw(hnp.arrays(np.int64, n, elements=st.integers(0, 2)))
    return (X, one_hot(labels, 3), draw(st.integers(1, 8)), draw(st.integers(1, 4)),
            draw(st.integers(0, 2**32 - 1)))


def route(X, x_row, tree):
    """The path of one row, node by node, the slow obvious way."""
    path, node = [0], 0
    while tree.feature[node] >= 0:
        value = x_row[tree.feature[node]]
        branch = MISSING if np.isnan(value) else (
            LEFT if value <= tree.threshold[node] else RIGHT)
        child = tree.children[node, branch]
        if child < 0:
            break
        path.append(child)
        node = child
    return path


def check_tree(tree, X, Y, max_depth, min_samples_leaf):
    members = {node: [] for node in range(tree.node_count)}
    for i in range(len(X)):
        path = route(X, X[i], tree)
        for node in path:
            members[node].append(i)
        assert tree.apply(X[i:i + 1])[0] == path[-1]
    depth = tree.node_depth()
    assert depth.max() <= max_depth
    no_nan = not np.isnan(X).any()
    for node, rows in members.items():
        rows = np.array(rows, dtype=np.intp)
        assert tree.n_node_samples[node] == len(rows)
        np.testing.assert_allclose(tree.value[node], Y[rows].mean(axis=0), rtol=1e-12)
        if node > 0:
            assert len(rows) >= min_samples_leaf                 # only where data is
        present = ~np.isnan(X[rows])
        varies = [len(np.unique(X[rows][present[:, j], j])) >= 2 for j in range(X.shape[1])]
        j = tree.feature[node]
        if j < 0:
            # a leaf: depth limit, too few samples, nothing varies, or (with missing
            # values) no branch kept enough samples
            if no_nan:
                assert (depth[node] == max_depth or len(rows) < 2 * min_samples_leaf
                        or not any(varies))
            continue
        assert depth[node] < max_depth and len(rows) >= 2 * min_samples_leaf and varies[j]
        values = np.unique(X[rows][present[:, j], j])
        low, high = values[values <= tree.threshold[node]], values[values > tree.threshold[node]]
        assert len(low) and len(high)
        # the threshold is the midpoint of two values of the node
        assert any(midpoint(a, b) == tree.threshold[node] for a in low for b in high)
        # a branch has a child exactly when enough samples take it
        x = X[rows, j]
        taken = [(x <= tree.threshold[node]).sum(), (x > tree.threshold[node]).sum(),
                 np.isnan(x).sum()]
        for branch in (LEFT, RIGHT, MISSING):
            assert (tree.children[node, branch] >= 0) == (taken[branch] >= min_samples_leaf)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=training_sets())
def test_every_node_holds_what_its_training_samples_say(data):
    X, Y, max_depth, min_samples_leaf, seed = data
    tree = build_random_tree(X, Y, np.random.default_rng(seed), max_depth=max_depth,
                             min_samples_leaf=min_samples_leaf)
    check_tree(tree, X, Y, max_depth, min_samples_leaf)


@settings(max_examples=100, deadline=None)
@given(data=training_sets(), permutation_seed=st.integers(0, 1000))
def test_labels_play_no_part_in_the_shape(data, permutation_seed):
    X, Y, max_depth, min_samples_leaf, seed = data
    shuffled = Y[np.random.default_rng(permutation_seed).permutation(len(Y))]
    a = build_random_tree(X, Y, np.random.default_rng(seed), max_depth=max_depth,
                          min_samples_leaf=min_samples_leaf)
    b = build_random_tree(X, shuffled, np.random.default_rng(seed), max_depth=max_depth,
                          min_samples_leaf=min_samples_leaf)
    for name in ("feature", "threshold", "children", "n_node_samples"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))


@pytest.mark.parametrize("n_features, varying", [(3, [0, 2]), (60, [7])])
def test_the_feature_is_uniform_among_those_that_vary(n_features, varying):
    # 60 features, one varying: eight random draws usually miss it, and the node falls
    # back to checking every feature.  Either way only varying features are drawn, each
    # about equally often (fixed seeds: deterministic).
    X = np.zeros((20, n_features))
    for j in varying:
        X[:, j] = np.arange(20) % (3 + j)
    Y = np.ones((20, 1))
    roots = [build_random_tree(X, Y, np.random.default_rng(s), max_depth=1).feature[0]
             for s in range(600)]
    counts = np.bincount(roots, minlength=n_features)
    assert set(np.flatnonzero(counts)) == set(varying)
    assert counts[varying].min() > 0.8 * 600 / len(varying)


def test_threshold_is_the_midpoint_of_two_different_values():
    x = np.array([1.0, 1.0, 1.0, 2.0, 4.0, np.nan])[:, None]
    thresholds = {build_random_tree(x, np.ones((6, 1)), np.random.default_rng(s),
                                    max_depth=1).threshold[0] for s in range(300)}
    assert thresholds == {1.5, 2.5, 3.0}


def test_missing_values_travel_on_their_own_branch():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 1))
    X[:100, 0] = np.nan
    Y = one_hot((np.arange(400) < 100).astype(int), 2)     # missing <=> class 1
    tree = build_random_tree(X, Y, np.random.default_rng(1), max_depth=1,
                             min_samples_leaf=4)
    missing_child = tree.children[0, MISSING]
    assert tree.n_node_samples[missing_child] == 100
    np.testing.assert_array_equal(tree.value[missing_child], [0.0, 1.0])
    assert tree.apply(np.array([[np.nan]]))[0] == missing_child
    # no missing value in training: a missing value at prediction stops at the node
    tree = build_random_tree(X[100:], Y[100:], np.random.default_rng(1), max_depth=1)
    assert tree.children[0, MISSING] == -1 and tree.apply(np.array([[np.nan]]))[0] == 0


def test_classifier_reproduces_the_seed_on_a1a():
    # Seed article 001 reports AUC 0.879 on a1a for 30 random trees; the chapter
    # reproduces the table, this test only guards against a broken ensemble.
    from sklearn.metrics import roc_auc_score

    data = load_libsvm("a1a")
    model = RandomDecisionTreeClassifier(random_state=0).fit(data.X_train, data.y_train)
    assert model.max_depth_ == 123 and len(model.estimators_) == 30
    proba = model.predict_proba(data.X_test)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert roc_auc_score(data.y_test, proba[:, 1]) > 0.85


def test_ensembles_are_deterministic_and_accept_missing_values():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 4))
    X[rng.random(X.shape) < 0.1] = np.nan
    y = np.nan_to_num(X[:, 0]) + rng.normal(scale=0.1, size=300)
    a = RandomDecisionTreeRegressor(random_state=5).fit(X, y)
    b = RandomDecisionTreeRegressor(random_state=5).fit(X, y)
    np.testing.assert_array_equal(a.predict(X), b.predict(X))
    assert a.score(X, y) > 0.5
    labels = RandomDecisionTreeClassifier(random_state=0).fit(X, y > 0).predict(X)
    assert labels.dtype == bool and (labels == (y > 0)).mean() > 0.8


def test_bad_input_is_named():
    X, y = np.arange(20.0).reshape(10, 2), np.arange(10) % 2
    with pytest.raises(ValueError, match="infinity|inf"):
        RandomDecisionTreeClassifier().fit(np.r_[X[:-1], [[np.inf, 0.0]]], y)
    with pytest.raises(ValueError, match="n_estimators must be an integer >= 1"):
        RandomDecisionTreeClassifier(n_estimators=0).fit(X, y)
    with pytest.raises(ValueError, match="min_samples_leaf must be an integer >= 1"):
        RandomDecisionTreeRegressor(min_samples_leaf=0.5).fit(X, y)
    with pytest.raises(ValueError, match="max_depth must be an integer >= 1"):
        RandomDecisionTreeRegressor(max_depth=0).fit(X, y)
