"""Appendix A1 ("Agreement with scikit-learn"): the page's tree walk finds only exact ties
and pure nodes on california_housing, its ties are ties by an independent exact
computation, and its claims about pure nodes, large offsets and classification ties hold.

The walk (tag "helpers") is loaded from the notebook; the checks use tests/reference.py."""

from fractions import Fraction

import numpy as np
import pytest
import sklearn.tree
from sklearn.datasets import load_breast_cancer, load_iris
from sklearn.model_selection import train_test_split

from tests.conftest import claim, notebook_cells
from tests.reference import exact_sse, identity_bound, sklearn_rounding_bound
from treelib import DecisionTreeClassifier, DecisionTreeRegressor
from treelib.datasets import load_california_housing
from treelib.gains import EPS
from treelib.tree import TREE_LEAF

NOTEBOOK = "A1_agreement_with_scikit_learn.ipynb"
walk_with_sklearn = notebook_cells("A1_agreement_with_scikit_learn.ipynb",
                                   tag="helpers")["walk_with_sklearn"]


@pytest.fixture(scope="module")
def housing():
    X, y = load_california_housing(return_X_y=True)
    return X.astype(np.float32).astype(np.float64), y


@pytest.fixture(scope="module")
def walked(housing):
    X, y = housing
    ours = DecisionTreeRegressor(builder="level_wise").fit(X, y)
    theirs = sklearn.tree.DecisionTreeRegressor(random_state=0).fit(X, y)
    return ours, theirs, walk_with_sklearn(ours, theirs, X, y)


def test_the_walk_finds_nothing_between_equal_trees():
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(300, 4)), rng.normal(size=300)
    # distinct values and nodes of 20 samples or more (no small-node ties): the same tree
    ours = DecisionTreeRegressor(max_depth=3, min_samples_leaf=20).fit(X, y)
    theirs = sklearn.tree.DecisionTreeRegressor(max_depth=3, min_samples_leaf=20,
                                                random_state=0).fit(X, y)
    assert len(walk_with_sklearn(ours, theirs, X.astype(np.float32), y)) == 0
    # a tree grown on other data is not
    other = DecisionTreeRegressor(max_depth=3, min_samples_leaf=20).fit(X, y ** 2)
    assert len(walk_with_sklearn(other, theirs, X.astype(np.float32), y)) > 0


def test_only_ties_and_pure_nodes_on_california(walked, housing):
    X, y = housing
    ours, theirs, events = walked
    assert set(events.kind) == {"tie", "pure"}
    ties = events[events.kind == "tie"].astype({"same children": bool})
    claim(NOTEBOOK, "Most ties are in deep, small nodes (5,540 of them in nodes of two "
                    "samples)")
    assert len(ties) == 10421 and ties["same children"].sum() == 10390
    assert (ties.samples == 2).sum() == 5540 and ties.samples.max() == 770
    assert ties.depth.min() == 5 and ties.depth.value_counts().idxmax() == 16
    assert np.abs(ours.predict(X) - theirs.predict(X)).max() < 1e-12


def test_the_ties_are_ties_in_exact_arithmetic(walked, housing):
    """The two tests of a tied node gain the same up to treelib's rounding bounds and
    scikit-learn's raw-sum rounding, with the gains computed exactly (Fractions): checked
    on the first 300 tied nodes of at most 60 samples."""
    X, y = housing
    ours, theirs, events = walked
    path = theirs.decision_path(X).tocsc()
    ties = events[(events.kind == "tie") & (events.samples <= 60)].head(300)
    for i, j in zip(ties.ours, ties.theirs):
        rows = path.indices[path.indptr[j]:path.indptr[j + 1]]
        node_y = y[rows]
        gains = []
        for tree, node in [(ours.tree_, i), (theirs.tree_, j)]:
            left = X[rows, tree.feature[node]] <= tree.threshold[node]
            gains.append((exact_sse(node_y) - exact_sse(node_y[left])
                          - exact_sse(node_y[~left]), left))
        gap = abs(gains[0][0] - gains[1][0])
        allowed = (identity_bound(node_y, gains[0][1], "squared_error")
                   + identity_bound(node_y, gains[1][1], "squared_error")
                   + sklearn_rounding_bound(node_y))
        assert gap <= Fraction(allowed)


def test_scikit_learn_splits_pure_nodes_and_that_is_the_difference_in_leaves(walked, housing):
    X, y = housing
    ours, theirs, events = walked
    path = theirs.decision_path(X).tocsc()
    pure = events[events.kind == "pure"]
    assert len(pure) == 41
    for j in pure.theirs:
        assert np.ptp(y[path.indices[path.indptr[j]:path.indptr[j + 1]]]) == 0
        assert theirs.tree_.impurity[j] > EPS
    largest = pure.loc[pure.samples.idxmax()]
    rows = path.indices[path.indptr[largest.theirs]:path.indptr[largest.theirs + 1]]
    claim(NOTEBOOK, "These block groups all have the largest house value of the data set, "
                    "5.00001")
    assert len(rows) == 165 and (y[rows] == 5.00001).all() and y.max() == 5.00001
    assert len(np.unique(theirs.apply(X[rows]))) == 22
    # every split of a constant node adds one leaf: that is the whole difference
    node = np.repeat(np.arange(path.shape[1]), np.diff(path.indptr))
    low, high = np.full(path.shape[1], np.inf), np.full(path.shape[1], -np.inf)
    np.minimum.at(low, node, y[path.indices])
    np.maximum.at(high, node, y[path.indices])
    pure_splits = (low == high) & (theirs.tree_.children_left != TREE_LEAF)
    assert pure_splits.sum() == 82
    assert theirs.get_n_leaves() - pure_splits.sum() == ours.get_n_leaves()
    assert not ((ours.tree_.impurity == 0) & ~ours.tree_.is_leaf).any()


def test_large_offsets_move_scikit_learns_splits_only(housing):
    claim(NOTEBOOK, "From $c = 10^6$ on, the two trees' predictions differ by more than 0.1 "
                    "(ten thousand USD).")
    X, y = housing
    roots = {}
    for c in [0, 1e4, 1e6, 1e8]:
        sk = sklearn.tree.DecisionTreeRegressor(max_depth=3, random_state=0).fit(X, y + c)
        tl = DecisionTreeRegressor(max_depth=3).fit(X, y + c)
        roots[c] = (sk.tree_.feature[0], sk.tree_.threshold[0], sk.tree_.impurity.min(),
                    sk.get_n_leaves())
        assert (tl.tree_.feature[0], round(tl.tree_.threshold[0], 4)) == (0, 5.0351)
        assert tl.get_n_leaves() == 8
        assert tl.tree_.impurity[0] == pytest.approx(np.var(y), rel=1e-9)
        difference = np.abs(sk.predict(X) - tl.predict(X)).max()
        assert (difference > 0.1) == (c >= 1e6)
    assert roots[0][:2] == roots[1e4][:2] and roots[0][3] == roots[1e4][3] == 8
    claim(NOTEBOOK, "Without an offset, and at $c = 10^4$, the two libraries grow the same tree")
    for c in [0, 1e4]:
        sk = sklearn.tree.DecisionTreeRegressor(max_depth=3, random_state=0).fit(X, y + c)
        tl = DecisionTreeRegressor(max_depth=3).fit(X, y + c)
        np.testing.assert_array_equal(sk.tree_.feature, tl.tree_.feature)
        np.testing.assert_array_equal(sk.tree_.threshold, tl.tree_.threshold)
    assert roots[1e6][0] == 0 and roots[1e6][1] != roots[0][1] and roots[1e6][3] == 5
    assert roots[1e8][0] == 7 and roots[1e8][2] < 0          # Longitude; negative variance


def test_centring_the_target_avoids_the_offset_problem(housing):
    """scikit-learn's tree on the centred target (TransformedTargetRegressor with
    StandardScaler(with_std=False)) predicts as treelib's, whatever the offset."""
    from sklearn.compose import TransformedTargetRegressor
    from sklearn.preprocessing import StandardScaler

    claim(NOTEBOOK, "Centring the target before fitting scikit-learn's tree (for example with "
                    "`TransformedTargetRegressor` and `StandardScaler(with_std=False)`) avoids "
                    "the problem.")
    X, y = housing
    for c in [1e6, 1e8]:
        centred = TransformedTargetRegressor(
            sklearn.tree.DecisionTreeRegressor(max_depth=3, random_state=0),
            transformer=StandardScaler(with_std=False)).fit(X, y + c)
        ours = DecisionTreeRegressor(max_depth=3).fit(X, y + c)
        assert np.abs(centred.predict(X) - ours.predict(X)).max() < 1e-6


@pytest.mark.slow
def test_other_seeds_change_the_ties_not_the_training_predictions(housing, walked):
    """For random_state 0 to 2: other ties, the same training predictions; every
    scikit-learn leaf beyond treelib's is a split of a constant node, except for seed 2, one
    more leaf below the ties whose two tests make different children (where the walk
    stops)."""
    claim(NOTEBOOK, "Another `random_state` makes other choices at many of these nodes; the "
                    "number of ties changes, the predictions on the training rows do not")
    claim(NOTEBOOK, "for `random_state=2`, the subtrees below the few ties with different "
                    "children hold one leaf more")
    X, y = housing
    ours = walked[0]
    ties, excess = [], []
    for seed in range(3):
        theirs = sklearn.tree.DecisionTreeRegressor(random_state=seed).fit(X, y)
        assert np.abs(theirs.predict(X) - ours.predict(X)).max() < 1e-12
        events = walk_with_sklearn(ours, theirs, X, y)
        ties.append(int((events.kind == "tie").sum()))
        path = theirs.decision_path(X).tocsc()
        node = np.repeat(np.arange(path.shape[1]), np.diff(path.indptr))
        low, high = np.full(path.shape[1], np.inf), np.full(path.shape[1], -np.inf)
        np.minimum.at(low, node, y[path.indices])
        np.maximum.at(high, node, y[path.indices])
        pure = (low == high) & (theirs.tree_.children_left != TREE_LEAF)

        def subtree(tree, root):
            nodes, stack = [], [root]
            while stack:
                i = stack.pop()
                nodes.append(i)
                if tree.children_left[i] != TREE_LEAF:
                    stack += [tree.children_left[i], tree.children_right[i]]
            return np.array(nodes)

        different = events[(events.kind == "tie") & ~events["same children"].astype(bool)]
        more = 0
        for i, j in zip(different.ours, different.theirs):
            a, b = subtree(ours.tree_, i), subtree(theirs.tree_, j)
            more += (int((theirs.tree_.children_left[b] == TREE_LEAF).sum()) - int(pure[b].sum())
                     - int((ours.tree_.children_left[a] == TREE_LEAF).sum()))
        excess.append(more)
        assert theirs.get_n_leaves() - int(pure.sum()) == ours.get_n_leaves() + more
    assert len(set(ties)) == 3
    assert excess == [0, 0, 1]


def test_the_iris_root_is_a_tie_that_shows_off_the_training_data():
    claim(NOTEBOOK, "petal width $\\le 0.8$ both cut off exactly the setosa flowers")
    iris = load_iris()
    setosa = iris.target == 0
    np.testing.assert_array_equal(iris.data[:, 2] <= 2.45, setosa)
    np.testing.assert_array_equal(iris.data[:, 3] <= 0.8, setosa)
    roots = set()
    for seed in range(10):
        for max_depth in [None, 2]:
            ours = DecisionTreeClassifier(max_depth=max_depth).fit(iris.data, iris.target)
            theirs = sklearn.tree.DecisionTreeClassifier(max_depth=max_depth,
                                                         random_state=seed)
            theirs.fit(iris.data, iris.target)
            roots.add(int(theirs.tree_.feature[0]))
            np.testing.assert_array_equal(theirs.predict(iris.data), ours.predict(iris.data))
            assert ours.tree_.feature[0] == 2
    assert roots == {2, 3}
    X_petal = iris.data[:, 2:]
    ours = DecisionTreeClassifier(max_depth=3).fit(X_petal, iris.target)
    theirs = sklearn.tree.DecisionTreeClassifier(max_depth=3, random_state=0).fit(
        X_petal, iris.target)
    assert theirs.tree_.feature[0] == 1
    new_flower = np.array([[2.0, 1.0]])           # short petal, not thin: between the roots
    assert ours.predict(new_flower)[0] != theirs.predict(new_flower)[0]


def exact_gini_gains(labels, x):
    """Exact n Gini gains (Fractions) of every cut between distinct values of x."""
    order = np.argsort(x, kind="stable")
    codes = labels[order]
    k, n = codes.max() + 1, len(codes)
    counts = np.zeros((n, k), dtype=np.int64)
    counts[np.arange(n), codes] = 1
    left = np.cumsum(counts, axis=0)[:-1]
    total = counts.sum(axis=0)
    gains = []
    for i in np.flatnonzero(x[order][1:] > x[order][:-1]):
        n_left = i + 1
        right = total - left[i]
        gains.append(Fraction(int((left[i] ** 2).sum()), n_left)
                     + Fraction(int((right ** 2).sum()), n - n_left)
                     - Fraction(int((total ** 2).sum()), n))
    return gains


def test_the_gini_tree_of_breast_cancer_has_six_exactly_tied_nodes():
    """Counts are exact, so a Gini tie is an exact equality of two features' best gains:
    recount the page's 6 tied nodes of 15 with Fractions."""
    cancer = load_breast_cancer()
    X, _, y, _ = train_test_split(cancer.data, cancer.target, random_state=0)
    X = X.astype(np.float32).astype(np.float64)
    tree = DecisionTreeClassifier(criterion="gini").fit(X, y).tree_
    tied, internal, stack = [], 0, [(0, 0, np.arange(len(y)))]
    while stack:
        node, depth, rows = stack.pop()
        if tree.children_left[node] == TREE_LEAF:
            continue
        internal += 1
        best = [max(gains) for j in range(X.shape[1])
                if (gains := exact_gini_gains(y[rows], X[rows, j]))]
        if best.count(max(best)) > 1:
            tied.append((depth, len(rows)))
        left = X[rows, tree.feature[node]] <= tree.threshold[node]
        stack += [(tree.children_left[node], depth + 1, rows[left]),
                  (tree.children_right[node], depth + 1, rows[~left])]
    claim(NOTEBOOK, "Ties are not rare: 6 and 8 of the 15 internal nodes.")
    claim(NOTEBOOK, "but the Gini tree also ties at a node of 260 samples.")
    assert internal == 15
    assert sorted(tied) == [(1, 260), (2, 8), (2, 136), (3, 5), (3, 16), (7, 5)]
