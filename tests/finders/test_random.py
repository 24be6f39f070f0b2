"""Random thresholds, the finder of extremely randomized trees
(``treelib.finders.random``), against a brute force that draws the same thresholds and
scores each candidate from scratch in exact arithmetic with treelib's tie rule; and the
estimators' ``splitter="random"`` on whole trees."""

from fractions import Fraction

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from tests.reference import exact_gain, identity_bound, tie_rule
from treelib import DecisionTreeClassifier, DecisionTreeRegressor
from treelib.criteria import target_statistics
from treelib.datasets import load_california_housing, load_libsvm
from treelib.finders.random import random_split

CRITERIA = ["squared_error", "gini", "entropy"]


@st.composite
def nodes(draw):
    n = draw(st.integers(1, 50))
    f = draw(st.integers(1, 4))
    X = draw(hnp.arrays(np.float64, (n, f), elements=st.integers(-3, 3).map(float)
                        | st.floats(-1e3, 1e3, allow_subnormal=False)))
    for j in draw(st.sets(st.integers(0, f - 1), max_size=f)):
        X[:, j] = X[0, j]                                      # constant features
    criterion = draw(st.sampled_from(CRITERIA))
    if criterion == "squared_error":
        y = draw(st.sampled_from([0.0, 1e7, 1e12])) + draw(hnp.arrays(
            np.float64, n, elements=st.integers(-3, 3).map(float)
            | st.floats(-10, 10, allow_subnormal=False).filter(
                lambda v: v == 0 or abs(v) > 1e-60)))
    else:
        y = draw(hnp.arrays(np.int64, n, elements=st.integers(0, 2)))
    return X, y, criterion, draw(st.integers(1, 3)), draw(st.integers(0, 2**32 - 1))


def brute_force_random(X, y, criterion, min_samples_leaf, seed):
    """Draw the same thresholds, score each candidate from scratch, apply the tie rule.
    Returns ``(feature, threshold, n_left, gain)`` or None."""
    u = np.random.default_rng(seed).random(X.shape[1])
    candidates = []
    for j in range(X.shape[1]):
        low, high = X[:, j].min(), X[:, j].max()
        t = low + u[j] * (high - low)
        t = low if t >= high else t
        left = X[:, j] <= t
        if high > low and min(left.sum(), (~left).sum()) >= min_samples_leaf:
            candidates.append(((j, t, int(left.sum())), exact_gain(y, left, criterion),
                               identity_bound(y, left, criterion)))
    chosen = tie_rule(candidates)
    if chosen is None:
        return None
    (feature, threshold, n_left), gain, _ = candidates[chosen]
    return feature, threshold, n_left, gain


@settings(max_examples=250, deadline=None)
@given(node=nodes())
def test_random_split_is_the_best_of_the_same_draws(node):
    X, y, criterion, min_samples_leaf, seed = node
    split = random_split(X, target_statistics(y, criterion), np.random.default_rng(seed),
                         criterion, min_samples_leaf)
    expected = brute_force_random(X, y, criterion, min_samples_leaf, seed)
    if expected is None:
        assert split is None
        return
    feature, threshold, n_left, gain = expected
    assert (split.feature, split.threshold, split.n_left) == (feature, threshold, n_left)
    assert split.n_right == len(y) - n_left
    column = X[:, feature]
    assert column.min() <= split.threshold < column.max()       # both children non-empty
    bound = identity_bound(y, split.goes_left(X), criterion)
    if criterion == "entropy":          # the reference's entropy is a float sum too
        bound *= 2
    assert abs(Fraction(split.gain) - max(gain, 0)) <= Fraction(bound)


def test_thresholds_are_uniform_between_min_and_max():
    # One feature with values 0 .. 10: a thousand draws of the root's threshold fill
    # [0, 10) evenly: each unit interval gets about 100 (a fixed seed: deterministic).
    X = np.arange(11.0)[:, None]
    y = np.arange(11.0)[:, None]
    rng = np.random.default_rng(0)
    thresholds = [random_split(X, y, rng).threshold for _ in range(1000)]
    counts, _ = np.histogram(thresholds, bins=10, range=(0, 10))
    assert counts.min() > 70 and counts.max() < 130
    assert min(thresholds) >= 0 and max(thresholds) < 10


def test_a_draw_that_rounds_up_to_the_maximum_becomes_the_minimum():
    class AlmostOne:
        """A generator whose draws round ``low + u (high - low)`` up to ``high``."""
        def random(self, size):
            return np.full(size, 1 - 2 ** -53)

    X = np.array([[1.0], [1.0 + 2 ** -52], [1.0 + 2 ** -52]])
    split = random_split(X, np.array([[0.0], [1.0], [1.0]]), AlmostOne())
    assert split.threshold == 1.0 and split.n_left == 1


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
    X, y = X[:5000], y[:5000]
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
    data = load_libsvm("a1a")
    exact = DecisionTreeClassifier(max_depth=6).fit(data.X_train, data.y_train).tree_
    for seed in range(3):
        random = DecisionTreeClassifier(splitter="random", max_depth=6, random_state=seed)
        tree = random.fit(data.X_train, data.y_train).tree_
        np.testing.assert_array_equal(tree.feature, exact.feature)
        np.testing.assert_array_equal(tree.n_node_samples, exact.n_node_samples)
        np.testing.assert_array_equal(tree.value, exact.value)
