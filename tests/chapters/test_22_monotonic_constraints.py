"""Chapter 22 ("Monotonic constraints"): the chapter's rule at one node (``allowed``,
``best_cut``) is treelib's constrained finder on the same node; its grower (``grow``, with
the midpoint bounds) grows treelib's and scikit-learn's constrained trees; without the
bounds the tree falls, with them it never does; and the chapter's other claims hold.

The teaching cells (tag "teaching") are loaded from the notebook."""

import numpy as np
import pandas as pd
import pytest
from sklearn.ensemble import HistGradientBoostingRegressor as SkBoosting
from sklearn.tree import DecisionTreeRegressor as SkTree

from tests.conftest import claim, notebook_cells
from treelib import DecisionTreeRegressor, HistGradientBoostingRegressor
from treelib.bench import load_results
from treelib.bench.monotonic import COLUMNS, california, compare, cost_table
from treelib.criteria import target_statistics
from treelib.finders import Finder
from treelib.finders.monotonic import allowed_cuts

NOTEBOOK = "22_monotonic_constraints.ipynb"
TEACHING = notebook_cells(NOTEBOOK)
cut_values, allowed, best_cut = (TEACHING[k] for k in ("cut_values", "allowed", "best_cut"))
grow, predict = TEACHING["grow"], TEACHING["predict"]


@pytest.fixture(scope="module")
def blocks():
    """The chapter's 2,000 training blocks of california and the constraint."""
    X, y, signs = california()
    rows = np.random.default_rng(0).permutation(len(y))
    return X[rows[:2000]], y[rows[:2000]], signs


@pytest.fixture(scope="module")
def node(blocks):
    """The chapter's node: income above the root's cut and up to its right child's, then
    more occupants than the middle-income node's cut; its bounds."""
    Xt, yt, _ = blocks
    t1, _, a, b = best_cut(Xt[:, 0], yt, +1)
    lower = (a + b) / 2
    richer = Xt[:, 0] > t1
    t2, _, a, b = best_cut(Xt[richer, 0], yt[richer], +1, lower)
    upper = (a + b) / 2
    middle = richer & (Xt[:, 0] <= t2)
    t3 = best_cut(Xt[middle, 5], yt[middle])[0]
    return middle & (Xt[:, 5] > t3), (lower, upper), (t1, t2, t3)


def grid_falls(predict_rows, X, points=80):
    """Share of rows whose prediction falls somewhere as feature 0 runs along a grid
    between its 1st and 99th percentiles (the chapter's ``along_income``)."""
    grid = np.linspace(*np.percentile(X[:, 0], [1, 99]), points)
    curves = np.array([predict_rows(np.column_stack([np.full(len(X), g), X[:, 1:]]))
                       for g in grid])
    return float((np.diff(curves, axis=0) < -1e-12).any(axis=0).mean())


# --- the rule at one node -------------------------------------------------------------


@pytest.mark.parametrize("seed", range(20))
def test_allowed_is_treelibs_allowed_cuts(seed):
    rng = np.random.default_rng(seed)
    left, right = rng.integers(-3, 4, (2, 50)).astype(float)
    lower, upper = np.sort(rng.integers(-4, 5, 2).astype(float))
    for sign in (1, -1):
        ours = allowed(left, right, sign, lower, upper)
        theirs = allowed_cuts(left[:, None], right[:, None], np.array([sign]),
                              (lower, upper))[:, 0]
        np.testing.assert_array_equal(ours, theirs)


def test_the_chapters_node_and_its_cut_are_treelibs(blocks, node):
    Xt, yt, signs = blocks
    rows, bounds, (t1, t2, t3) = node
    claim(NOTEBOOK, "At the root, income is the best feature with or without the constraint")
    tree = DecisionTreeRegressor(max_depth=7, monotonic_cst=signs).fit(Xt, yt).tree_
    free = DecisionTreeRegressor(max_depth=7).fit(Xt, yt).tree_
    assert tree.feature[0] == free.feature[0] == 0 and tree.threshold[0] == pytest.approx(t1)
    claim(NOTEBOOK, "The right child splits on income again")
    right = tree.children_right[0]
    assert tree.feature[right] == 0 and tree.threshold[right] == pytest.approx(t2)
    claim(NOTEBOOK, "That middle-income node then splits on the average occupancy")
    middle = tree.children_left[right]
    assert tree.feature[middle] == 5 and tree.threshold[middle] == pytest.approx(t3)
    at = tree.children_right[middle]
    assert tree.n_node_samples[at] == rows.sum()
    # the teaching cut is treelib's constrained finder's on income alone at this node
    stats = target_statistics(yt[rows], "squared_error")
    finder = Finder("cumsum", "squared_error").constrain(np.array([1]))
    split = finder(Xt[rows][:, [0]], stats, bounds=bounds)
    threshold, gain, _, _ = best_cut(Xt[rows, 0], yt[rows], +1, *bounds)
    assert split.threshold == pytest.approx(threshold)
    thresholds, left, right, gains = cut_values(Xt[rows, 0], yt[rows])
    claim(NOTEBOOK, "The best cut of all is in order, but one of its children's values lies "
                    "outside the bounds")
    best = np.argmax(gains)
    assert right[best] >= left[best]
    assert not allowed(left, right, +1, *bounds)[best]
    claim(NOTEBOOK, "another feature beats it at this node")
    assert tree.feature[at] not in (-2, 0)
    everything = Finder("cumsum", "squared_error").constrain(signs)(Xt[rows], stats,
                                                                  bounds=bounds)
    assert everything.feature == tree.feature[at]


# --- the bounds -----------------------------------------------------------------------


def test_the_teaching_grower_is_treelibs_and_scikit_learns_tree(blocks):
    Xt, yt, signs = blocks
    claim(NOTEBOOK, "Its constrained tree predicts what the teaching grower's and "
                    "scikit-learn's trees predict on every training block")
    teaching = grow(Xt, yt, signs, 7)
    ours = DecisionTreeRegressor(max_depth=7, monotonic_cst=signs).fit(Xt, yt)
    theirs = SkTree(max_depth=7, monotonic_cst=signs, random_state=0).fit(Xt, yt)
    np.testing.assert_allclose(predict(teaching, Xt), theirs.predict(Xt), rtol=0, atol=1e-12)
    np.testing.assert_allclose(ours.predict(Xt), theirs.predict(Xt), rtol=0, atol=1e-12)

    def count(tree):
        return 1 if not isinstance(tree, tuple) else 1 + count(tree[2]) + count(tree[3])

    assert ours.tree_.node_count == count(teaching)


@pytest.mark.parametrize("seed", range(6))
def test_the_teaching_grower_on_small_nodes_is_scikit_learns(seed):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 6, (40, 3)).astype(float)
    y = X[:, 0] - X[:, 1] + rng.normal(0, 2, 40)
    signs = np.array([1, -1, 0])
    teaching = predict(grow(X, y, signs, 4), X)
    theirs = SkTree(max_depth=4, monotonic_cst=signs, random_state=0).fit(X, y)
    np.testing.assert_allclose(teaching, theirs.predict(X), rtol=0, atol=1e-12)


def test_without_the_bounds_the_tree_falls_with_them_never(blocks):
    Xt, yt, signs = blocks
    claim(NOTEBOOK, "Every income split of the first tree ordered its two children, and still "
                    "most blocks' curves go down")
    ordered_only = grow(Xt, yt, signs, 7, bounds=False)
    assert grid_falls(lambda Z: predict(ordered_only, Z), Xt) > 0.5
    assert grid_falls(lambda Z: predict(grow(Xt, yt, signs, 7), Z), Xt) == 0
    claim(NOTEBOOK, "Most blocks' predictions fall somewhere as their income rises")
    free = DecisionTreeRegressor(max_depth=7).fit(Xt, yt)
    assert grid_falls(free.predict, Xt) > 0.5


# --- boosting -------------------------------------------------------------------------


def test_constrained_boosting_is_scikit_learns_and_never_falls(blocks):
    Xt, yt, signs = blocks
    ours = HistGradientBoostingRegressor(max_iter=100, early_stopping=False,
                                         monotonic_cst=signs).fit(Xt, yt)
    theirs = SkBoosting(max_iter=100, early_stopping=False, monotonic_cst=signs).fit(Xt, yt)
    np.testing.assert_allclose(ours.predict(Xt), theirs.predict(Xt), rtol=0, atol=1e-12)
    assert grid_falls(ours.predict, Xt[:500], points=40) == 0


# --- the cost: the committed benchmark and the chapter's fresh run ----------------------


@pytest.fixture(scope="module")
def committed():
    fits, _ = load_results("monotonic")
    return fits, cost_table(fits)


def test_the_committed_costs_say_what_the_chapter_says(committed):
    _, table = committed
    trees = table.xs("tree", level="model")
    clean, noisy = (trees.xs(v, level="noise") for v in (0.0, 1.0))
    claim(NOTEBOOK, "With clean targets the constrained tree is no better, and worse as the "
                    "training set grows (up to 1.48, on bikeshare at 4,000 rows)")
    assert clean["ratio"].min() >= 0.995
    assert clean["ratio"].idxmax() == ("bikeshare", 4000)
    assert round(clean["ratio"].max(), 2) == 1.48
    for dataset in ("california", "bikeshare"):
        assert clean.loc[dataset, "ratio"].is_monotonic_increasing
    claim(NOTEBOOK, "With noisy targets the constrained tree wins in every seed, down to 0.70 "
                    "of the unconstrained error on California at 4,000 rows")
    assert (noisy["helped"] == noisy["seeds"]).all()
    assert noisy["ratio"].idxmin() == ("california", 4000)
    assert round(noisy["ratio"].min(), 2) == 0.70
    claim(NOTEBOOK, "For the tree, noise decides more than size")
    assert (clean["ratio"] >= 0.995).all() and (noisy["ratio"] < 1).all()
    claim(NOTEBOOK, "Boosting moves less either way (from 0.90 to 1.02)")
    boosting = table.xs("boosting", level="model")["ratio"]
    assert (round(boosting.min(), 2), round(boosting.max(), 2)) == (0.90, 1.02)
    assert (abs(boosting - 1) < 0.11).all()
    assert abs(boosting - 1).max() < abs(trees["ratio"] - 1).max()


def test_the_fresh_run_is_the_committed_one(committed):
    fits, _ = committed
    claim(NOTEBOOK, "gives the committed file's errors for those seeds again, the constrained "
                    "tree better")
    fresh = pd.DataFrame(compare(datasets=("california",), models=("tree",), sizes=(250,),
                                 noises=(1.0,), seeds=range(3)), columns=COLUMNS)
    same = fits[(fits.dataset == "california") & (fits.model == "tree") & (fits.n_train == 250)
                & (fits.noise == 1.0) & (fits.seed < 3)]
    np.testing.assert_allclose(fresh.relative_error.to_numpy(),
                               same.relative_error.to_numpy(), rtol=1e-9)
    assert cost_table(fresh)["ratio"].iloc[0] < 1


# --- the exercises --------------------------------------------------------------------


def test_greedy_constrained_trees_can_fit_their_training_data_better(blocks):
    Xt, yt, _ = blocks
    claim(NOTEBOOK, "the constrained tree can end with the lower training error")
    cst = np.zeros(Xt.shape[1], int)
    cst[2] = 1                                        # AveRooms, the exercise's first case

    def error(c, depth):
        fitted = DecisionTreeRegressor(max_depth=depth, monotonic_cst=c).fit(Xt, yt)
        return np.mean((fitted.predict(Xt) - yt) ** 2)

    assert error(cst, 4) < error(None, 4)


def test_lightgbm_takes_the_names_the_chapter_gives():
    claim(NOTEBOOK, "LightGBM also accepts `monotonic_cst` as an alias")
    from lightgbm.basic import _ConfigAliases

    assert "monotonic_cst" in _ConfigAliases.get("monotone_constraints")
    assert "monotone_constraints_method" in _ConfigAliases.get("monotone_constraints_method")
