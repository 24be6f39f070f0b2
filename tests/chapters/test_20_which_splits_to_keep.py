"""Chapter 20 ("Which splits to keep: pruning"): the chapter's weakest-link computation
is treelib.pruning's (costs, branch sums, leaf counts, the first weakest link); the path
of the chapter's full tree agrees with scikit-learn's at the tolerance the page states;
the XOR grid has no root cut of positive gain, the stopping rule stops there and pruning
keeps the tree; and the committed benchmark says what the page reads from it.

The teaching cell (tag "teaching") is loaded from the notebook."""

import numpy as np
import pytest
import sklearn.tree

from tests.conftest import claim, notebook_cells
from treelib import DecisionTreeClassifier, DecisionTreeRegressor
from treelib.bench import load_results
from treelib.criteria import split_gain
from treelib.datasets import load_california_housing
from treelib.pruning import branch_sums, node_costs, parents, pruning_path

NOTEBOOK = "20_which_splits_to_keep.ipynb"
weakest_link = notebook_cells(NOTEBOOK)["weakest_link"]


@pytest.fixture(scope="module")
def california():
    """The chapter's 2,000 training rows and 4,000 held-out rows."""
    X_all, y_all = load_california_housing(return_X_y=True)
    X_all = X_all.astype(np.float32).astype(np.float64)
    _, first = np.unique(y_all, return_index=True)
    rng = np.random.default_rng(8)
    train = rng.choice(first, 2000, replace=False)
    test = rng.choice(np.setdiff1d(np.arange(len(y_all)), train), 4000, replace=False)
    return X_all[train], y_all[train], X_all[test], y_all[test]


def xor_grid():
    grid = np.linspace(-0.95, 0.95, 20)
    X = np.array([(a, b) for a in grid for b in grid])
    return X, (X[:, 0] > 0) == (X[:, 1] > 0)


@pytest.mark.parametrize("depth", [3, 6])
def test_the_teaching_weakest_link_is_treelibs(california, depth):
    X, y, _, _ = california
    tree = DecisionTreeRegressor(max_depth=depth).fit(X, y).tree_
    cost, branch, leaves, g = weakest_link(tree.children_left, tree.children_right,
                                           tree.impurity, tree.weighted_n_node_samples)
    np.testing.assert_array_equal(cost, node_costs(tree))
    their_branch, n_below = branch_sums(tree, node_costs(tree), parents(tree))
    np.testing.assert_allclose(branch, their_branch, rtol=1e-12, atol=1e-15)
    inner = ~tree.is_leaf
    np.testing.assert_array_equal(leaves[inner], n_below[inner])
    assert np.all(leaves[tree.is_leaf] == 1) and np.all(np.isinf(g[tree.is_leaf]))
    path = pruning_path(tree)
    assert int(np.argmin(g)) == path.nodes[1]
    assert g.min() == pytest.approx(path.ccp_alphas[1], rel=1e-12)


def test_the_path_agrees_with_scikit_learns(california):
    X, y, _, _ = california
    claim(NOTEBOOK, "most alphas agree to $10^{-12}$ relative")
    ours = DecisionTreeRegressor().fit(X, y).cost_complexity_pruning_path(X, y)
    theirs = sklearn.tree.DecisionTreeRegressor(random_state=0).cost_complexity_pruning_path(
        X, y)
    assert len(ours.ccp_alphas) == len(theirs.ccp_alphas)
    close = np.isclose(ours.ccp_alphas, theirs.ccp_alphas, rtol=1e-12, atol=0)
    assert close.mean() > 0.5
    assert np.max(np.abs(ours.ccp_alphas - theirs.ccp_alphas)) < 1e-9 * theirs.ccp_alphas.max()
    gap = np.abs(ours.impurities - theirs.impurities)
    assert gap.max() < 1e-9 * theirs.impurities.max()


def test_no_root_cut_of_the_xor_grid_gains():
    claim(NOTEBOOK, "every cut of either feature at the root leaves both sides half and "
                    "half, so its [gain](../book/glossary.md#gain) is 0")
    X, y = xor_grid()
    for feature in range(2):
        for threshold in np.unique(X[:, feature])[:-1]:
            left = X[:, feature] <= threshold
            assert y[left].mean() == 0.5 and y[~left].mean() == 0.5
            assert split_gain(y, left, "gini") == pytest.approx(0, abs=1e-12)


def test_the_stopping_rule_stops_where_pruning_keeps():
    claim(NOTEBOOK, "the stopping rule refuses the root's split (it gains nothing) and "
                    "leaves one leaf that is right half the time")
    X, y = xor_grid()
    stopped = DecisionTreeClassifier(min_impurity_decrease=0.01).fit(X, y)
    pruned = DecisionTreeClassifier(ccp_alpha=0.01).fit(X, y)
    assert stopped.tree_.n_leaves == 1 and np.mean(stopped.predict(X) == y) == 0.5
    assert np.all(pruned.predict(X) == y)


def test_the_committed_benchmark():
    committed, _ = load_results("pruning_cv")
    claim(NOTEBOOK, "over five random splits of california and of digits")
    assert sorted(set(committed.data)) == ["california", "digits"]
    assert committed.groupby("data").seed.nunique().eq(5).all()
    assert set(committed.method) == {"unpruned", "max_depth", "min_samples_leaf",
                                     "ccp_alpha", "ccp_alpha, 1 se"}
