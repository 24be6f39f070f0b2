"""The missing-value benchmark and its two reference trees, run small: the primary split
is the best one among the present rows, a surrogate is the best mimic of the primary,
both trees are ordinary CART trees when nothing is missing, and the benchmark scores
every strategy on every masked data set."""

import numpy as np
import pytest

from tests.reference import brute_force_split
from treelib import DecisionTreeRegressor
from treelib.bench import missing
from treelib.bench.missing_trees import (
    OwnBranchTree,
    SurrogateTree,
    best_surrogate,
    present_split,
    route_with_surrogates,
)


def sse(y):
    return float(np.sum((y - y.mean()) ** 2)) if len(y) else 0.0


def splits_by_path(tree):
    """{path from the root ("", "L", "LR", ...): (feature, threshold)} of the splits."""
    found, stack = {}, [("", 0)]
    while stack:
        path, node = stack.pop()
        if tree.children_left[node] != -1:
            found[path] = (int(tree.feature[node]), float(tree.threshold[node]))
            stack += [(path + "L", tree.children_left[node]),
                      (path + "R", tree.children_right[node])]
    return found


def small_data(seed, n=40, f=3, missing_fraction=0.3):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 6, (n, f)).astype(np.float64)
    X[rng.random((n, f)) < missing_fraction] = np.nan
    y = rng.integers(0, 10, n).astype(np.float64)
    return X, y


@pytest.mark.parametrize("seed", range(15))
def test_present_split_is_the_best_split_among_present_rows(seed):
    X, y = small_data(seed)
    found = present_split(X, y)
    best = -np.inf
    for j in range(X.shape[1]):
        rows = ~np.isnan(X[:, j])
        for t in np.unique(X[rows, j])[:-1]:
            left = X[rows, j] <= t
            best = max(best, sse(y[rows]) - sse(y[rows][left]) - sse(y[rows][~left]))
    if found is None:
        assert best == -np.inf
        return
    assert found[2] == pytest.approx(best, rel=1e-9, abs=1e-9)


@pytest.mark.parametrize("seed", range(15))
def test_own_branch_gain_counts_the_missing_child(seed):
    X, y = small_data(seed)
    feature, threshold, gain = present_split(X, y, missing_child=True)
    column = X[:, feature]
    parts = [~np.isnan(column) & (column <= threshold), ~np.isnan(column) & (column > threshold),
             np.isnan(column)]
    assert gain == pytest.approx(sse(y) - sum(sse(y[p]) for p in parts), rel=1e-9, abs=1e-9)


def test_present_split_without_missing_values_is_the_exact_split():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(60, 3))
    y = rng.normal(size=60)
    feature, threshold, _ = present_split(X, y)
    reference_feature, reference_threshold, _, _ = brute_force_split(X, y)
    assert (feature, threshold) == (reference_feature, reference_threshold)


def test_best_surrogate_maximises_the_agreement():
    rng = np.random.default_rng(4)
    for _ in range(20):
        x = rng.integers(0, 7, 30).astype(np.float64)
        x[rng.random(30) < 0.2] = np.nan
        goes_left = rng.random(30) < 0.5
        found = best_surrogate(x, goes_left)
        present = ~np.isnan(x)
        best = -1
        for t in np.unique(x[present])[:-1]:
            below = x[present] <= t
            if below.sum() < 2 or (~below).sum() < 2:
                continue
            agree = int((below == goes_left[present]).sum())
            best = max(best, agree, int(present.sum()) - agree)
        assert (found is None and best == -1) or found[0] == best


def test_a_copy_of_the_primary_feature_is_a_perfect_surrogate():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(200, 3))
    X[:, 2] = 2 * X[:, 0] + 1                          # the same order as feature 0
    y = (X[:, 0] > 0.3) + rng.normal(scale=0.1, size=200)
    tree = SurrogateTree(max_depth=1).fit(X, y)
    assert tree.tree_.feature[0] == 0
    surrogates, _ = tree.extra_[0]
    assert surrogates[0][0] == 2
    hidden = X.copy()
    hidden[:, 0] = np.nan
    np.testing.assert_array_equal(tree.predict(hidden), tree.predict(X))
    left = route_with_surrogates(hidden, 0, tree.tree_.threshold[0], surrogates, True)
    np.testing.assert_array_equal(left, X[:, 0] <= tree.tree_.threshold[0])


@pytest.mark.parametrize("model", [OwnBranchTree, SurrogateTree])
def test_without_missing_values_the_reference_trees_are_cart(model):
    rng = np.random.default_rng(6)
    X = rng.normal(size=(300, 4)).astype(np.float32).astype(np.float64)   # as the trees see X
    y = X[:, 0] - 2 * (X[:, 1] > 0) + rng.normal(scale=0.3, size=300)
    ours = model(max_depth=4).fit(X, y)
    cart = DecisionTreeRegressor(max_depth=4).fit(X, y)
    # the same tests at the same places (the nodes are numbered in another order)
    assert splits_by_path(ours.tree_) == splits_by_path(cart.tree_)
    np.testing.assert_allclose(ours.predict(X), cart.predict(X), rtol=1e-12)


def test_own_branch_sends_missing_values_to_their_child():
    X = np.array([[1.0], [2.0], [3.0], [4.0], [np.nan], [np.nan]])
    y = np.array([1.0, 1.0, 5.0, 5.0, 9.0, 9.0])
    tree = OwnBranchTree(max_depth=1).fit(X, y)
    assert tree.tree_.children_missing[0] not in (-1, tree.tree_.children_left[0],
                                                  tree.tree_.children_right[0])
    np.testing.assert_array_equal(tree.predict(X), [1.0, 1.0, 5.0, 5.0, 9.0, 9.0])


def test_masked_california_hides_what_it_says():
    X_train, X_test, _, _ = missing.masked_california("not_at_random", 0.2, n_train=1000)
    hidden = np.isnan(X_train[:, 0])
    assert hidden.sum() == 200 and not np.isnan(X_train[:, 1:]).any()
    full = missing.masked_california("completely_at_random", 0.0, n_train=1000)[0]
    assert full[hidden, 0].min() >= np.nanmax(X_train[:, 0])     # the largest incomes
    assert np.isnan(X_test[:, 0]).sum() == round(0.2 * len(X_test))


def test_time_missing_scores_every_strategy_and_setting():
    fits = missing.time_missing(mechanisms=("not_at_random",), fractions=(0.0, 0.3),
                                repeats=1, n_train=800)
    assert len(fits) == 2 * len(missing.MISSING_STRATEGIES)
    assert fits.test_r2.between(0.0, 1.0).all() and (fits.seconds > 0).all()
    table = missing.missing_table(fits)
    assert list(table.index) == list(missing.MISSING_STRATEGIES)
    # with nothing missing, the learned direction, the own branch and the surrogates
    # grow the same tree (CART's)
    nothing = table[("not_at_random", 0.0)]
    assert nothing["default direction"] == pytest.approx(nothing["own branch"], abs=1e-12)
    assert nothing["default direction"] == pytest.approx(nothing["surrogate splits"],
                                                         abs=1e-12)
