"""Chapter 20 ("Which splits to keep: pruning"): the chapter's weakest-link computation
is treelib.pruning's (costs, branch sums, leaf counts, the first weakest link); the path
of the chapter's full tree agrees with scikit-learn's at the tolerance the page states;
no subtree of that path beats the best depth-limited tree on the held-out rows; scaling
the target scales the path and keeps the subtrees; the XOR grid has no root cut of
positive gain, the stopping rule stops there and pruning keeps the tree; and the
committed benchmark says what the page reads from it.

The teaching cell (tag "teaching") is loaded from the notebook."""

import numpy as np
import pytest
import sklearn.tree

from tests.conftest import claim, notebook_cells
from treelib import DecisionTreeClassifier, DecisionTreeRegressor
from treelib.bench import load_results
from treelib.bench.pruning_cv import pruning_table
from treelib.criteria import split_gain
from treelib.datasets import load_california_housing
from treelib.pruning import branch_sums, collapse, node_costs, parents, pruning_path

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
    claim(NOTEBOOK, "most alphas agree to $10^{-12}$ relative (a share of 0.8), and none "
                    "differs by $10^{-9}$ of the largest")
    ours = DecisionTreeRegressor().fit(X, y).cost_complexity_pruning_path(X, y)
    theirs = sklearn.tree.DecisionTreeRegressor(random_state=0).cost_complexity_pruning_path(
        X, y)
    assert len(ours.ccp_alphas) == len(theirs.ccp_alphas)
    close = np.isclose(ours.ccp_alphas, theirs.ccp_alphas, rtol=1e-12, atol=0)
    assert 0.75 <= close.mean() < 0.85
    assert np.max(np.abs(ours.ccp_alphas - theirs.ccp_alphas)) < 1e-9 * theirs.ccp_alphas.max()
    gap = np.abs(ours.impurities - theirs.impurities)
    assert gap.max() < 1e-9 * theirs.impurities.max()


def held_out_error(tree, X, y):
    return float(np.mean((tree.predict(X)[:, 0] - y) ** 2))


@pytest.mark.slow
def test_no_subtree_of_the_path_beats_the_best_depth(california):
    claim(NOTEBOOK, "the best tree cut at one depth has a lower held-out error than every "
                    "subtree of the path (the figure shows some; a test checks all 1,888)")
    X, y, X_test, y_test = california
    full = DecisionTreeRegressor().fit(X, y).tree_
    path = pruning_path(full)
    assert len(path.nodes) == 1888
    best_depth = min(held_out_error(DecisionTreeRegressor(max_depth=d).fit(X, y).tree_,
                                    X_test, y_test)
                     for d in [1, 2, 3, 4, 5, 6, 8, 10, 13, 16, None])
    subtrees = (collapse(full, path.nodes[1:k + 1]) for k in range(len(path.nodes)))
    assert min(held_out_error(t, X_test, y_test) for t in subtrees) > best_depth


def test_scaling_the_target_scales_the_path(california):
    claim(NOTEBOOK, "while the tree and the nested subtrees are the same (rounding may "
                    "reorder the collapses of branches of equal $g$)")
    X, y, _, _ = california
    tree = DecisionTreeRegressor().fit(X, y).tree_
    scaled = DecisionTreeRegressor().fit(X, 10 * y).tree_
    np.testing.assert_array_equal(tree.feature, scaled.feature)
    np.testing.assert_array_equal(tree.threshold, scaled.threshold)
    path, path10 = pruning_path(tree), pruning_path(scaled)
    np.testing.assert_allclose(path10.ccp_alphas, 100 * path.ccp_alphas, rtol=1e-9, atol=0)
    # the same subtree after every group of (nearly) equal alphas
    alphas = path.ccp_alphas
    ends = np.append(np.flatnonzero(~np.isclose(alphas[1:], alphas[:-1], rtol=1e-9, atol=0)),
                     len(alphas) - 1)
    for k in ends:
        assert set(path.nodes[1:k + 1]) == set(path10.nodes[1:k + 1])


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


def test_what_the_page_reads_from_the_benchmark():
    claim(NOTEBOOK, "On california, pruning (0.79) and the depth limit (0.80) do about as "
                    "well, and the smallest-leaf rule best on average (0.70); on digits no "
                    "rule beats the unpruned tree by much, and the one-standard-error rule "
                    "does worse (1.05).")
    committed, _ = load_results("pruning_cv")
    ratio = pruning_table(committed).ratio.round(2)
    california, digits = ratio["california"], ratio["digits"]
    assert (california["ccp_alpha"], california["max_depth"],
            california["min_samples_leaf"]) == (0.79, 0.80, 0.70)
    assert california.idxmin() == "min_samples_leaf"
    assert digits.min() >= 0.95 and digits["ccp_alpha, 1 se"] == 1.05
