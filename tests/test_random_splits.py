"""Random thresholds (extremely randomized splits) against a brute force with the same
draws, and the estimators' splitter="random"."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from treelib import DecisionTreeClassifier, DecisionTreeRegressor
from treelib.criteria import CRITERIA, one_hot, split_gain
from treelib.datasets import load_california_housing
from treelib.random_splits import random_split
from treelib.splits import TIE_RTOL

CRITERION_NAMES = ["squared_error", "gini", "entropy"]


@st.composite
def nodes(draw):
    n = draw(st.integers(1, 50))
    f = draw(st.integers(1, 4))
    X = draw(hnp.arrays(np.float64, (n, f), elements=st.integers(-3, 3).map(float)
                        | st.floats(-1e3, 1e3, allow_subnormal=False)))
    criterion = draw(st.sampled_from(CRITERION_NAMES))
    if criterion == "squared_error":
        y = draw(st.sampled_from([0.0, 1e7])) + draw(
            hnp.arrays(np.float64, n, elements=st.floats(-10, 10, allow_subnormal=False)))
    else:
        y = draw(hnp.arrays(np.int64, n, elements=st.integers(0, 2)))
    return X, y, criterion, draw(st.integers(1, 3)), draw(st.integers(0, 2**32 - 1))


def brute_force_random(X, y, criterion, min_samples_leaf, seed):
    """Draw the same thresholds, score each candidate from scratch, apply the tie rule."""
    u = np.random.default_rng(seed).random(X.shape[1])
    candidates = []
    for j in range(X.shape[1]):
        low, high = X[:, j].min(), X[:, j].max()
        t = low + u[j] * (high - low)
        t = low if t >= high else t
        left = X[:, j] <= t
        if high > low and min(left.sum(), (~left).sum()) >= min_samples_leaf:
            candidates.append((j, t, int(left.sum()), split_gain(y, left, criterion)))
    if not candidates:
        return None
    best = max(c[3] for c in candidates)
    tolerance = TIE_RTOL * len(y) * CRITERIA[criterion](y)
    return min((c for c in candidates if c[3] >= best - tolerance), key=lambda c: c[0])


def statistics(y, criterion):
    return y if criterion == "squared_error" else one_hot(y, 3)


@settings(max_examples=400, deadline=None)
@given(node=nodes())
def test_random_split_is_the_best_of_the_same_draws(node):
    X, y, criterion, min_samples_leaf, seed = node
    split = random_split(X, statistics(y, criterion), np.random.default_rng(seed),
                         criterion, min_samples_leaf)
    expected = brute_force_random(X, y, criterion, min_samples_leaf, seed)
    if expected is None:
        assert split is None
        return
    feature, threshold, n_left, gain = expected
    assert (split.feature, split.threshold, split.n_left) == (feature, threshold, n_left)
    column = X[:, feature]
    assert column.min() <= split.threshold < column.max()       # both children non-empty
    scale = 1.0 if criterion != "squared_error" else 1.0 + np.abs(y - y.mean()).max() ** 2
    assert split.gain == pytest.approx(max(gain, 0.0), rel=1e-6, abs=1e-9 * len(y) * scale)


def test_thresholds_are_uniform_between_min_and_max():
    # One feature with values 0 .. 10: a thousand draws of the root's threshold fill
    # [0, 10) evenly: each unit interval gets about 100 (a fixed seed: deterministic).
    X = np.arange(11.0)[:, None]
    y = np.arange(11.0)
    rng = np.random.default_rng(0)
    thresholds = [random_split(X, y, rng).threshold for _ in range(1000)]
    counts, _ = np.histogram(thresholds, bins=10, range=(0, 10))
    assert counts.min() > 70 and counts.max() < 130
    assert min(thresholds) >= 0 and max(thresholds) < 10


def test_estimator_is_deterministic_under_random_state():
    X, y = load_california_housing(return_X_y=True)
    X, y = X[:3000], y[:3000]
    a = DecisionTreeRegressor(splitter="random", random_state=3, max_depth=8).fit(X, y)
    b = DecisionTreeRegressor(splitter="random", random_state=3, max_depth=8).fit(X, y)
    c = DecisionTreeRegressor(splitter="random", random_state=4, max_depth=8).fit(X, y)
    np.testing.assert_array_equal(a.tree_.threshold, b.tree_.threshold)
    np.testing.assert_array_equal(a.predict(X), b.predict(X))
    assert not np.array_equal(a.predict(X), c.predict(X))


def test_random_trees_fit_worse_than_exact_ones_at_the_same_depth():
    # On the training data the exact tree is the greedy best at each node; random
    # thresholds give up some of each gain (the root: nearly always).
    X, y = load_california_housing(return_X_y=True)
    exact = DecisionTreeRegressor(max_depth=4).fit(X, y).score(X, y)
    random = [DecisionTreeRegressor(splitter="random", max_depth=4, random_state=s)
              .fit(X, y).score(X, y) for s in range(5)]
    assert max(random) < exact


def test_random_classifier_respects_min_samples_leaf():
    X, y = load_california_housing(return_X_y=True)
    model = DecisionTreeClassifier(splitter="random", min_samples_leaf=7, random_state=0)
    model.fit(X[:2000], y[:2000] > 2)
    assert model.tree_.n_node_samples[model.tree_.is_leaf].min() >= 7


def test_on_binary_features_a_random_threshold_is_the_exact_one():
    # Chapter 9: on a1a every feature is 0/1, its only cut lies between 0 and 1, and a
    # threshold drawn anywhere in [0, 1) makes that cut: the random tree is the exact tree.
    from treelib.datasets import load_libsvm

    data = load_libsvm("a1a")
    exact = DecisionTreeClassifier(max_depth=6).fit(data.X_train, data.y_train).tree_
    for seed in range(3):
        random = DecisionTreeClassifier(splitter="random", max_depth=6, random_state=seed)
        tree = random.fit(data.X_train, data.y_train).tree_
        np.testing.assert_array_equal(tree.feature, exact.feature)
        np.testing.assert_array_equal(tree.n_node_samples, exact.n_node_samples)
        np.testing.assert_array_equal(tree.value, exact.value)
