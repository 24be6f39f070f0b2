"""Monotonic constraints (``monotonic_cst``) in treelib's trees (issue 23, part 3).

- scikit-learn's trees node by node on a california subsample (regression, three
  constrained features of both signs) and on its binary version (Gini), depth first and
  best first: the same tests, or tied tests that send the same samples the same way;
  the same sample counts; leaf and inner values within rounding (a clipped value is a
  bound, a midpoint ``S_L / (2 W_L) + S_R / (2 W_R)`` whose sums are added in another
  order than scikit-learn's);
- a brute force: every cut of a small node enumerated, its children's values checked
  against the constraint, the best allowed one (ties, duplicates, constant features);
- the fitted functions are monotonic along every constrained feature (predictions on
  grids), for every exact splitter and "hist", every per-node builder;
- bad input: a ValueError naming the problem.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.tree import DecisionTreeClassifier as SklearnClassifier
from sklearn.tree import DecisionTreeRegressor as SklearnRegressor

from tests.test_pruning import california_subsample
from treelib import DecisionTreeClassifier, DecisionTreeRegressor
from treelib.criteria import split_gain
from treelib.finders.exact import exact_split
from treelib.finders.monotonic import (
    Bounds,
    Constraint,
    allowed_cuts,
    check_monotonic_cst,
    child_bounds,
)

CONSTRAINT = [1, 0, 0, 0, 0, 0, -1, 1]


def walk_both(ours, theirs, X, y, criterion="squared_error"):
    """Walk treelib's tree ``ours`` and scikit-learn's ``theirs`` (fitted on X) from the
    root in parallel; returns ``(nodes, ties, diverging, value_error)``: nodes compared,
    nodes whose tests differ (ties of the gain, to 1e-9: scikit-learn visits features in
    a random order, treelib takes the lowest), those of them that split the samples
    differently (their subtrees not compared), the largest difference of the nodes'
    first values."""
    a, b = ours, theirs.tree_
    stack, nodes, ties, diverging, error = [(0, 0, np.arange(len(X)))], 0, 0, 0, 0.0
    while stack:
        i, j, rows = stack.pop()
        nodes += 1
        assert a.n_node_samples[i] == b.n_node_samples[j] == len(rows)
        error = max(error, abs(float(a.value[i][0]) - float(b.value[j, 0, 0])))
        leaf_a, leaf_b = a.children_left[i] < 0, b.children_left[j] < 0
        assert leaf_a == leaf_b, f"node {i}: a leaf against a split"
        if leaf_a:
            continue
        ours_left = X[rows, a.feature[i]] <= a.threshold[i]
        theirs_left = X[rows, b.feature[j]] <= b.threshold[j]
        pairs = [(a.children_left[i], b.children_left[j]),
                 (a.children_right[i], b.children_right[j])]
        if (a.feature[i], a.threshold[i]) != (b.feature[j], b.threshold[j]):
            ties += 1
            swapped = np.array_equal(ours_left, ~theirs_left)   # children exchanged
            if not (swapped or np.array_equal(ours_left, theirs_left)):
                gains = [split_gain(y[rows], left, criterion) for left in
                         (ours_left, theirs_left)]
                assert gains[0] == pytest.approx(gains[1], rel=1e-9, abs=1e-12)
                diverging += 1
                continue
            if swapped:
                pairs = [(pairs[0][0], pairs[1][1]), (pairs[1][0], pairs[0][1])]
        stack.append((*pairs[0], rows[ours_left]))
        stack.append((*pairs[1], rows[~ours_left]))
    return nodes, ties, diverging, error


@pytest.fixture(scope="module")
def california():
    return california_subsample()


@pytest.mark.slow
@pytest.mark.parametrize("splitter", ["cumsum", "scan"])
@pytest.mark.parametrize("options", [{}, {"max_depth": 6}, {"max_leaf_nodes": 30},
                                     {"min_samples_leaf": 5}])
def test_same_regression_tree_as_scikit_learn(california, splitter, options):
    X, y = california
    theirs = SklearnRegressor(monotonic_cst=CONSTRAINT, random_state=0, **options).fit(X, y)
    ours = DecisionTreeRegressor(monotonic_cst=CONSTRAINT, splitter=splitter,
                                 **options).fit(X, y)
    nodes, _, diverging, error = walk_both(ours.tree_, theirs, X, y)
    assert diverging > 0 or nodes == theirs.tree_.node_count == ours.tree_.node_count
    assert nodes > 0.9 * theirs.tree_.node_count
    assert error <= 1e-13 * np.abs(y).max()


@pytest.mark.slow
@pytest.mark.parametrize("criterion", ["gini", "entropy"])
@pytest.mark.parametrize("options", [{"max_depth": 6}, {"min_samples_leaf": 5},
                                     {"max_leaf_nodes": 20}])
def test_same_classification_tree_as_scikit_learn(california, criterion, options):
    X, y = california
    labels = np.where(y > np.median(y), "high", "low")      # the positive class: "low"
    theirs = SklearnClassifier(monotonic_cst=CONSTRAINT, criterion=criterion,
                               random_state=0, **options).fit(X, labels)
    ours = DecisionTreeClassifier(monotonic_cst=CONSTRAINT, criterion=criterion,
                                  **options).fit(X, labels)
    nodes, _, diverging, error = walk_both(ours.tree_, theirs, X, labels, criterion)
    assert diverging > 0 or nodes == theirs.tree_.node_count == ours.tree_.node_count
    assert nodes > 0.75 * theirs.tree_.node_count   # class ties diverge early
    assert error <= 1e-13


def brute_force(X, y, signs, bounds, min_samples_leaf=1):
    """The best allowed cut of a node by enumeration: ``(gain, feature, n_left)``."""
    best = None
    for j in range(X.shape[1]):
        order = np.argsort(X[:, j], kind="stable")
        xs, ys = X[order, j], y[order]
        for i in range(min_samples_leaf, len(y) - min_samples_leaf + 1):
            if xs[i - 1] == xs[i]:
                continue
            left, right = ys[:i], ys[i:]
            ok = allowed_cuts(np.array([[left.mean()]]), np.array([[right.mean()]]),
                              signs[j:j + 1], bounds)[0, 0]
            if not ok:
                continue
            gain = (((y - y.mean()) ** 2).sum() - ((left - left.mean()) ** 2).sum()
                    - ((right - right.mean()) ** 2).sum())
            if best is None or gain > best[0] + 1e-9:
                best = (gain, j, i)
    return best


@settings(max_examples=200, deadline=None)
@given(data=st.data())
def test_exact_split_is_the_brute_force_one(data):
    n = data.draw(st.integers(1, 9))
    f = data.draw(st.integers(1, 3))
    values = st.integers(0, 3).map(float)
    X = np.array(data.draw(st.lists(st.lists(values, min_size=f, max_size=f), min_size=n,
                                    max_size=n)))
    y = np.array(data.draw(st.lists(values, min_size=n, max_size=n))) + 1e6
    signs = np.array(data.draw(st.lists(st.sampled_from([-1, 0, 1]), min_size=f,
                                        max_size=f)), np.int8)
    lower = data.draw(st.sampled_from([-np.inf, 1e6 + 0.5, 1e6 + 1]))
    bounds = Bounds(lower, data.draw(st.sampled_from([np.inf, 1e6 + 2, 1e6 + 2.5])))
    leaf = data.draw(st.integers(1, 2))
    split = exact_split(X, y[:, None], "squared_error", leaf,
                        constraint=Constraint(signs, bounds))
    expected = brute_force(X, y, signs, bounds, leaf)
    if expected is None:
        assert split is None or split.gain <= 1e-9
        return
    assert split is not None
    assert split.gain == pytest.approx(expected[0], abs=1e-6)
    goes_left = X[:, split.feature] <= split.threshold
    left, right = y[goes_left], y[~goes_left]
    assert allowed_cuts(np.array([[left.mean()]]), np.array([[right.mean()]]),
                        signs[split.feature:split.feature + 1], bounds)[0, 0]


@pytest.mark.parametrize("splitter", ["naive", "scan", "cumsum", "hist"])
@pytest.mark.parametrize("builder", ["depth_first", "recursive", "best_first"])
def test_the_fitted_function_is_monotonic(splitter, builder):
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(150, 3))
    y = np.sin(6 * X[:, 0]) + X[:, 1] - 2 * X[:, 2] + rng.normal(scale=0.5, size=150)
    signs = [1, -1, 0]
    model = DecisionTreeRegressor(splitter=splitter, builder=builder,
                                  monotonic_cst=signs).fit(X, y)
    classes = DecisionTreeClassifier(splitter=splitter, builder=builder,
                                     monotonic_cst=signs).fit(X, y > np.median(y))
    grid = np.linspace(-0.1, 1.1, 40)
    for base in rng.uniform(size=(20, 3)):
        for j, sign in enumerate(signs[:2]):
            rows = np.repeat(base[None], len(grid), axis=0)
            rows[:, j] = grid
            for predicted in (model.predict(rows), classes.predict_proba(rows)[:, 1]):
                assert np.all(sign * np.diff(predicted) >= 0)


def test_child_bounds_meet_at_the_middle():
    assert child_bounds(0, Bounds(1.0, 2.0), 1.5) == (Bounds(1.0, 2.0), Bounds(1.0, 2.0))
    assert child_bounds(1, Bounds(1.0, 2.0), 1.5) == (Bounds(1.0, 1.5), Bounds(1.5, 2.0))
    assert child_bounds(-1, Bounds(1.0, 2.0), 1.5) == (Bounds(1.5, 2.0), Bounds(1.0, 1.5))


def test_without_constraint_nothing_changes():
    rng = np.random.default_rng(1)
    X, y = rng.normal(size=(80, 3)), rng.normal(size=80)
    a = DecisionTreeRegressor().fit(X, y).tree_
    b = DecisionTreeRegressor(monotonic_cst=[0, 0, 0]).fit(X, y).tree_
    assert np.array_equal(a.feature, b.feature) and np.array_equal(a.value, b.value)


@pytest.mark.parametrize("constraint, message", [
    ([1, 0], "shape"), ([2, 0, 0], "-1, 0 or 1"), ([[1, 0, 0]], "shape")])
def test_bad_constraints_are_refused(constraint, message):
    X, y = np.arange(12.0).reshape(4, 3), np.arange(4.0)
    with pytest.raises(ValueError, match=message):
        DecisionTreeRegressor(monotonic_cst=constraint).fit(X, y)


@pytest.mark.parametrize("options, message", [
    ({"builder": "level_wise"}, "level_wise"),
    ({"splitter": "random", "random_state": 0}, "random"),
    ({"criterion": "absolute_error"}, "absolute_error"),
    ({"splitter": "hist", "histogram_sums": "fixed_point"}, "histogram_sums='fixed_point'")])
def test_options_that_cannot_constrain_are_refused(options, message):
    X, y = np.arange(12.0).reshape(4, 3), np.arange(4.0)
    with pytest.raises(ValueError, match=message):
        DecisionTreeRegressor(monotonic_cst=[1, 0, 0], **options).fit(X, y)


def test_multiclass_and_categorical_constraints_are_refused():
    X, y = np.arange(12.0).reshape(6, 2), np.array([0, 1, 2, 0, 1, 2])
    with pytest.raises(ValueError, match="multiclass"):
        DecisionTreeClassifier(monotonic_cst=[1, 0]).fit(X, y)
    with pytest.raises(ValueError, match="categorical"):
        DecisionTreeRegressor(monotonic_cst=[1, 0], categorical_features=[0]).fit(
            X, y.astype(float))
    assert check_monotonic_cst(None, 3) is None
