"""Minimal cost-complexity pruning (``treelib.pruning``; the trees' ``ccp_alpha`` and
``cost_complexity_pruning_path``) against brute force and scikit-learn.

- Brute force, exactly: tiny trees whose node costs are small integers (every sum exact);
  every pruned subtree is enumerated, and the path's alphas must be the breakpoints of
  the lower convex hull of (leaves, least cost), each subtree of the path the smallest
  minimiser of R_alpha from its alpha to the next.
- scikit-learn's algorithm, bit for bit, on the same trees: scikit-learn's own trees
  (california, digits) read into treelib, and treelib's tiny trees written into
  scikit-learn's ``Tree`` (``sklearn.tree._tree``: ``ccp_pruning_path``,
  ``_build_pruned_tree_ccp``).
- scikit-learn's estimators: on a california subsample and digits subsets chosen where
  treelib's unpruned tree is scikit-learn's (no tie splits the samples differently; ties
  between tests that split them alike pick other features), the paths have the same
  length and agree (digits to 1e-12 relative; california within scikit-learn's rounding
  of its impurities, which it computes from raw sums of squares), and the pruned trees
  agree node by node at alphas between the path's.
- The estimators: ``ccp_alpha`` is checked, 0 leaves the tree bit for bit, and every
  builder and splitter prunes its tree as ``prune`` does.
"""

import itertools
from fractions import Fraction

import numpy as np
import pytest
import sklearn.tree
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.datasets import load_digits
from sklearn.tree._tree import NODE_DTYPE, _build_pruned_tree_ccp, ccp_pruning_path
from sklearn.tree._tree import Tree as SklearnTree
from sklearn.utils.estimator_checks import check_estimator

from tests.reference import compare_with_scikit_learn
from treelib import DecisionTreeClassifier, DecisionTreeRegressor, RandomDecisionTreeRegressor
from treelib.datasets import load_california_housing
from treelib.gains import EPS
from treelib.pruning import (
    collapse,
    cost_complexity,
    node_costs,
    parents,
    prune,
    pruning_path,
)
from treelib.tree import TREE_LEAF, TREE_UNDEFINED, Tree

# --- trees in both libraries -----------------------------------------------------------


def from_sklearn(tree):
    """scikit-learn's fitted ``tree_`` as a treelib ``Tree`` (no categorical split)."""
    n = tree.node_count
    leaf = tree.children_left == TREE_LEAF
    missing = np.where(tree.missing_go_to_left.astype(bool), tree.children_left,
                       tree.children_right)
    return Tree(children_left=tree.children_left.astype(np.intp),
                children_right=tree.children_right.astype(np.intp),
                children_missing=np.where(leaf, TREE_LEAF, missing).astype(np.intp),
                feature=tree.feature.astype(np.intp), threshold=tree.threshold.copy(),
                value=tree.value[:, 0, :].copy(), impurity=tree.impurity.copy(),
                n_node_samples=tree.n_node_samples.astype(np.intp),
                weighted_n_node_samples=tree.weighted_n_node_samples.copy(),
                categorical=np.zeros(n, dtype=bool),
                category_bits=np.zeros((n, 32), dtype=np.uint8))


def to_sklearn(tree, n_features):
    """A treelib ``Tree`` written into scikit-learn's ``Tree`` (its node array), so that
    scikit-learn's pruning runs on the very same numbers."""
    nodes = np.zeros(tree.node_count, dtype=NODE_DTYPE)
    nodes["left_child"], nodes["right_child"] = tree.children_left, tree.children_right
    nodes["feature"], nodes["threshold"] = tree.feature, tree.threshold
    nodes["impurity"], nodes["n_node_samples"] = tree.impurity, tree.n_node_samples
    nodes["weighted_n_node_samples"] = tree.weighted_n_node_samples
    nodes["missing_go_to_left"] = tree.missing_go_to_left
    n_outputs = tree.value.shape[1]
    theirs = SklearnTree(n_features, np.array([n_outputs], dtype=np.intp), 1)
    theirs.__setstate__({"max_depth": tree.max_depth, "node_count": tree.node_count,
                         "nodes": nodes, "values": tree.value[:, None, :].copy()})
    return theirs


def their_pruned(tree, n_features, alpha):
    """scikit-learn's ``_build_pruned_tree_ccp`` of ``tree`` (treelib's) at ``alpha``."""
    theirs = to_sklearn(tree, n_features)
    pruned = SklearnTree(n_features, np.array([tree.value.shape[1]], dtype=np.intp), 1)
    _build_pruned_tree_ccp(pruned, theirs, alpha)
    return from_sklearn(pruned)


ARRAYS = ("children_left", "children_right", "feature", "threshold", "value", "impurity",
          "n_node_samples", "weighted_n_node_samples")


def assert_same_arrays(ours, theirs, names=ARRAYS):
    for name in names:
        np.testing.assert_array_equal(getattr(ours, name), getattr(theirs, name),
                                      err_msg=name)


def assert_same_tree(ours, theirs):
    """The same tree up to the numbering of its nodes: both walked from the root in step,
    every node's test, value, impurity and sample counts equal."""
    stack = [(0, 0)]
    while stack:
        i, j = stack.pop()
        for name in ARRAYS[2:]:
            np.testing.assert_array_equal(getattr(ours, name)[i], getattr(theirs, name)[j],
                                          err_msg=f"{name} of node {i}")
        if not ours.is_leaf[i]:
            stack += [(ours.children_left[i], theirs.children_left[j]),
                      (ours.children_right[i], theirs.children_right[j])]
    assert ours.node_count == theirs.node_count


def alphas_between(alphas, gap=0.0):
    """Midpoints of the consecutive distinct alphas of a path more than ``gap`` apart
    (relative to the larger), and one beyond the last: alphas where the pruned tree does
    not hang on how the last bits of an alpha round."""
    distinct = np.unique(alphas)
    apart = distinct[1:] - distinct[:-1] > gap * distinct[1:]
    midpoints = (distinct[:-1] + distinct[1:])[apart] / 2
    return np.append(midpoints, 2 * distinct[-1] + 1.0)


# --- brute force on tiny trees with exact costs ----------------------------------------


@st.composite
def exact_cost_trees(draw, max_splits=8):
    """A CART tree numbered depth first (left child first, as scikit-learn numbers its
    trees; its shape drawn level by level), whose node costs R(t) are small integers with
    R(t) >= R(left) + R(right) (a split never raises the cost; equal costs give zero
    alphas, equal gains ties): node t at depth d holds weight 1024 / 2**d and impurity
    R(t) 2**d, so that ``node_costs`` gives R(t) exactly."""
    splits, kids, depth, queue = draw(st.integers(0, max_splits)), {}, [0], [0]
    while queue:                                           # the shape, level by level
        t = queue.pop(0)
        if splits > 0 and draw(st.integers(0, 3)) > 0:     # split 3 times in 4
            splits -= 1
            kids[t] = (len(depth), len(depth) + 1)
            queue += list(kids[t])
            depth += [depth[t] + 1] * 2
    order, stack = [], [0]                                 # depth-first numbering
    while stack:
        t = stack.pop()
        order.append(t)
        stack += reversed(kids.get(t, ()))
    new_id = {t: i for i, t in enumerate(order)}
    n = len(order)
    left, right = np.full(n, TREE_LEAF), np.full(n, TREE_LEAF)
    d, cost = np.array([depth[t] for t in order]), np.zeros(n)
    for i in range(n - 1, -1, -1):                         # children after their parent
        t = order[i]
        if t in kids:
            left[i], right[i] = (new_id[c] for c in kids[t])
            # the split's gain, larger near the root (deep splits go first; equal ones tie)
            gain = draw(st.integers(0, 2)) * 4 ** (3 - min(d[i], 3))
            cost[i] = cost[left[i]] + cost[right[i]] + gain
        else:
            cost[i] = draw(st.integers(0, 6))
    split = left != TREE_LEAF
    return Tree(children_left=left.astype(np.intp), children_right=right.astype(np.intp),
                children_missing=left.astype(np.intp),
                feature=np.where(split, 0, TREE_UNDEFINED).astype(np.intp),
                threshold=np.where(split, 0.5, float(TREE_UNDEFINED)),
                value=np.arange(n, dtype=float)[:, None], impurity=cost * 2.0 ** d,
                n_node_samples=(1024 >> d).astype(np.intp),
                weighted_n_node_samples=1024.0 / 2.0 ** d,
                categorical=np.zeros(n, dtype=bool),
                category_bits=np.zeros((n, 32), dtype=np.uint8))


def every_subtree(tree, t=0):
    """Every pruned subtree of the branch at ``t``, as (R, leaves, its internal nodes):
    t collapsed, or t kept with any pruned subtree of each child.  Exact (Fractions)."""
    cost = Fraction(float(node_costs(tree)[t]))
    found = [(cost, 1, frozenset())]
    if not tree.is_leaf[t]:
        pairs = itertools.product(every_subtree(tree, tree.children_left[t]),
                                  every_subtree(tree, tree.children_right[t]))
        found += [(a[0] + b[0], a[1] + b[1], a[2] | b[2] | {t}) for a, b in pairs]
    return found


def smallest_minimiser(subtrees, alpha):
    """The subtree minimising R + alpha leaves with the fewest leaves (unique, as
    Breiman et al. prove: asserted)."""
    best = min(r + alpha * n for r, n, _ in subtrees)
    ties = [(n, s) for r, n, s in subtrees if r + alpha * n == best]
    fewest = min(n for n, _ in ties)
    chosen = [s for n, s in ties if n == fewest]
    assert len(chosen) == 1
    return chosen[0]


def hull_breakpoints(subtrees):
    """The alphas at which the smallest minimiser changes: minus the slopes of the lower
    convex hull of (leaves, least R with that many leaves), from the most leaves down."""
    least = {}
    for r, n, _ in subtrees:
        least[n] = min(least.get(n, r), r)
    hull = []
    for point in sorted(least.items(), reverse=True):          # most leaves first
        while len(hull) >= 2:
            (n1, r1), (n2, r2) = hull[-2], hull[-1]
            # drop the middle point unless it lies strictly below the chord
            if (r2 - r1) * (n1 - point[0]) >= (point[1] - r1) * (n1 - n2):
                hull.pop()
            else:
                break
        hull.append(point)
    return [(r2 - r1) / (n1 - n2) for (n1, r1), (n2, r2) in zip(hull, hull[1:])]


def internal_nodes(tree, collapsed):
    """The internal nodes of ``tree`` with the branches below ``collapsed`` cut off."""
    kept, stack = set(), [0]
    while stack:
        t = stack.pop()
        if not tree.is_leaf[t] and t not in collapsed:
            kept.add(t)
            stack += [tree.children_left[t], tree.children_right[t]]
    return frozenset(kept)


@settings(max_examples=300, deadline=None)
@given(exact_cost_trees())
def test_the_path_is_the_minimal_cost_complexity_sequence(tree):
    subtrees = every_subtree(tree)
    path = pruning_path(tree)
    breaks = hull_breakpoints(subtrees)
    # every alpha of the path (after the full tree's 0) is a breakpoint, rounded once
    assert sorted(set(path.ccp_alphas[1:].tolist())) == [float(b) for b in breaks]
    assert np.all(np.diff(path.ccp_alphas) >= 0) and path.n_leaves[-1] == 1
    after = {}                   # the subtree after the last collapse at each alpha
    for k, alpha in enumerate(path.ccp_alphas):
        after[alpha] = internal_nodes(tree, set(path.nodes[1:k + 1].tolist()))
    for b in breaks:             # at a breakpoint, the smaller subtree already minimises
        assert after[float(b)] == smallest_minimiser(subtrees, b)
    tests = [b + 1 for b in breaks[-1:]] or [Fraction(1)]
    tests += [(a + b) / 2 for a, b in zip([Fraction(0)] + breaks, breaks)]
    for alpha in tests:
        expected = smallest_minimiser(subtrees, alpha)
        k = np.flatnonzero([Fraction(a) <= alpha for a in path.ccp_alphas])[-1]
        assert internal_nodes(tree, set(path.nodes[1:k + 1].tolist())) == expected
        pruned = prune(tree, float(alpha))
        assert pruned.node_count == 2 * len(expected) + 1
        assert_same_arrays(pruned, collapse(tree, [t for t in range(tree.node_count)
                                                   if t not in expected]))
    # the path's impurities are the subtrees' R, and R_alpha of the pruned tree is least
    for k in range(len(path.ccp_alphas)):
        subtree = collapse(tree, path.nodes[1:k + 1])
        assert path.impurities[k] == cost_complexity(subtree, 0.0)
        assert path.n_leaves[k] == subtree.n_leaves


def test_a_hand_checked_path():
    # root (R 10) -> left leaf (R 4), right split (R 5) -> leaves of R 1 and 1
    tree = Tree(children_left=np.array([1, -1, 3, -1, -1]),
                children_right=np.array([2, -1, 4, -1, -1]),
                children_missing=np.array([1, -1, 3, -1, -1]),
                feature=np.array([0, -2, 1, -2, -2]),
                threshold=np.array([0.5, -2.0, 1.5, -2.0, -2.0]),
                value=np.arange(5.0)[:, None], impurity=np.array([10.0, 8.0, 10.0, 4.0, 4.0]),
                n_node_samples=np.array([4, 2, 2, 1, 1]),
                weighted_n_node_samples=np.array([4.0, 2.0, 2.0, 1.0, 1.0]),
                categorical=np.zeros(5, dtype=bool),
                category_bits=np.zeros((5, 32), dtype=np.uint8))
    # R = W(t) I(t) / W: 10, 4, 5, 1, 1.  g(2) = (5 - 2) / 1 = 3, g(0) = (10 - 6) / 2 = 2:
    # the root is the weakest link, and the whole tree collapses at once
    np.testing.assert_array_equal(node_costs(tree), [10.0, 4.0, 5.0, 1.0, 1.0])
    path = pruning_path(tree)
    np.testing.assert_array_equal(path.ccp_alphas, [0.0, 2.0])
    np.testing.assert_array_equal(path.impurities, [6.0, 10.0])
    np.testing.assert_array_equal(path.nodes, [-1, 0])
    np.testing.assert_array_equal(path.n_leaves, [3, 1])
    assert prune(tree, 1.9).node_count == 5 and prune(tree, 2.0).node_count == 1
    assert cost_complexity(tree, 1.0) == 9.0 and cost_complexity(prune(tree, 2.0), 1.0) == 11.0
    np.testing.assert_array_equal(parents(tree), [-1, 0, 0, 2, 2])


# --- scikit-learn's algorithm on the same trees ------------------------------------------


@st.composite
def tiny_fits(draw):
    """A treelib tree fitted on tiny data with ties and duplicates (few distinct values,
    targets offset by up to 1e6, sample weights or not), by any builder and splitter."""
    n = draw(st.integers(2, 60))
    seed = draw(st.integers(0, 2**16))
    rng = np.random.default_rng(seed)
    X = rng.integers(0, draw(st.integers(1, 8)), size=(n, 3)).astype(float)
    classify = draw(st.booleans())
    weights = rng.integers(1, 4, size=n).astype(float) if draw(st.booleans()) else None
    options = draw(st.sampled_from([{}, {"builder": "best_first"},
                                    {"builder": "level_wise"}, {"splitter": "hist"},
                                    {"splitter": "random", "random_state": 0},
                                    {"max_leaf_nodes": 5}]))
    if classify:
        y = rng.integers(0, draw(st.integers(2, 4)), size=n)
        criterion = draw(st.sampled_from(["gini", "entropy"]))
        model = DecisionTreeClassifier(criterion=criterion, **options)
    else:
        y = rng.integers(0, 8, size=n) * 0.25 + draw(st.sampled_from([0.0, 1e6]))
        model = DecisionTreeRegressor(**options)
    return model.fit(X, y, sample_weight=weights).tree_


@settings(max_examples=200, deadline=None)
@given(tiny_fits(), st.integers(0, 10**6))
def test_treelibs_trees_prune_as_scikit_learn_prunes_them(tree, draw):
    theirs = ccp_pruning_path(to_sklearn(tree, 3))
    ours = pruning_path(tree)
    np.testing.assert_array_equal(ours.ccp_alphas, theirs["ccp_alphas"])
    np.testing.assert_array_equal(ours.impurities, theirs["impurities"])
    alphas = np.concatenate([ours.ccp_alphas, alphas_between(ours.ccp_alphas)])
    alpha = float(alphas[draw % len(alphas)])
    # scikit-learn numbers the pruned tree depth first; treelib keeps the grown order
    # (a level-wise tree stays breadth first), the same for a depth-first tree
    assert_same_tree(prune(tree, alpha), their_pruned(tree, 3, alpha))


def california_subsample(n=2000, seed=8):
    """``n`` rows of california with distinct targets (no node of equal targets, which
    scikit-learn, from raw sums of squares, may split), X exact in float32.  Seed 8:
    treelib's full-depth tree is scikit-learn's (random_state=0) node by node, its 1,109
    ties all between tests that split the samples alike."""
    X, y = load_california_housing(return_X_y=True)
    _, first = np.unique(y, return_index=True)
    rows = np.random.default_rng(seed).choice(first, n, replace=False)
    return X[rows].astype(np.float32).astype(np.float64), y[rows]


def digits_subset(n, seed):
    X, y = load_digits(return_X_y=True)
    rows = np.random.default_rng(seed).choice(len(y), n, replace=False)
    return X[rows], y[rows]


#: (criterion, rows, seed of the subset, scikit-learn's random_state): digits subsets where
#: treelib's full tree is scikit-learn's, ties splitting the samples alike (found by
#: search: on all 1,797 rows, every random_state up to 39 leaves some tie splitting them
#: differently, 5 to 9 of them).
DIGITS = [("gini", 600, 4, 15), ("entropy", 1000, 2, 0)]


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["california", "gini", "entropy"])
def test_scikit_learns_trees_prune_bit_for_bit(kind):
    if kind == "california":
        X, y = california_subsample()
        model = sklearn.tree.DecisionTreeRegressor(random_state=0)
    else:
        X, y = load_digits(return_X_y=True)
        model = sklearn.tree.DecisionTreeClassifier(criterion=kind, random_state=0)
    theirs = model.fit(X, y)
    tree = from_sklearn(theirs.tree_)
    expected = theirs.cost_complexity_pruning_path(X, y)
    path = pruning_path(tree)
    np.testing.assert_array_equal(path.ccp_alphas, expected.ccp_alphas)
    np.testing.assert_array_equal(path.impurities, expected.impurities)
    if kind != "california":
        assert len(np.unique(path.ccp_alphas)) < len(path.ccp_alphas)   # ties, in order
    between = alphas_between(path.ccp_alphas)
    for alpha in np.concatenate([path.ccp_alphas[np.linspace(1, len(path.ccp_alphas) - 1, 5)
                                                 .astype(int)],
                                 between[np.linspace(0, len(between) - 1, 5).astype(int)]]):
        pruned = model.set_params(ccp_alpha=alpha).fit(X, y)
        assert_same_arrays(prune(tree, alpha), from_sklearn(pruned.tree_))


# --- scikit-learn's estimators ----------------------------------------------------------


def rounding_tolerances(tree, path, y):
    """How far scikit-learn's regression path can be from treelib's on the same tree.

    scikit-learn computes a node's impurity from raw sums of y and y**2, a child's from
    its parent's sums (the right child's sum of squares is the parent's minus the left
    child's), so W(t) I(t) is off by up to b(parent of t), with b(u) = 4 (n_u + 2) EPS
    sum_{i in u} y_i**2 (``tests.reference.sklearn_rounding_bound``).  An alpha g(t) =
    (R(t) - R(T_t)) / (leaves - 1) takes t and the leaves of its branch, each of whose
    parents lies in the branch and is the parent of at most two of them: off by up to
    (b(parent of t) + 2 sum_{u internal in T_t} b(u)) / W.  A subtree's R sums its
    leaves: off by up to 2 (depth + 1) b_max / W, b_max over the leaves' parents (each
    sample lies in at most depth + 1 nested parents).  Returns (alpha, impurity)
    tolerances, per entry of the path."""
    W = tree.weighted_n_node_samples[0]
    squares = tree.weighted_n_node_samples * (tree.impurity + tree.value[:, 0] ** 2)
    b = 4 * (tree.n_node_samples + 2) * EPS * squares
    below = np.where(tree.is_leaf, 0.0, b)
    for t in range(tree.node_count - 1, -1, -1):              # children after parents
        if not tree.is_leaf[t]:
            below[t] += below[tree.children_left[t]] + below[tree.children_right[t]]
    parent = np.maximum(parents(tree), 0)
    nodes = path.nodes[1:]
    alpha_tol = np.append(0.0, (b[parent[nodes]] + 2 * below[nodes]) / W)
    sizes = np.append(tree.n_node_samples[parent[tree.is_leaf]].max(),
                      tree.n_node_samples[parent[nodes]])
    b_max = 4 * (np.maximum.accumulate(sizes) + 2) * EPS * np.sum(y * y)
    return alpha_tol, 2 * (tree.max_depth + 1) * b_max / W


def assert_within(actual, expected, rtol, atol):
    """|actual - expected| <= rtol |expected| + atol, entry by entry (atol an array)."""
    gap = np.abs(actual - expected)
    worst = np.argmax(gap - rtol * np.abs(expected) - atol)
    assert np.all(gap <= rtol * np.abs(expected) + atol), (
        f"entry {worst}: {actual[worst]!r} against {expected[worst]!r}")


def fit_agreeing(kind):
    """treelib's and scikit-learn's unpruned trees on data where they agree node by node
    (asserted): X, y and the two estimators."""
    if kind == "california":
        X, y = california_subsample()
        ours, theirs = DecisionTreeRegressor(), sklearn.tree.DecisionTreeRegressor(
            random_state=0)
        criterion = "squared_error"
    else:
        criterion, n, seed, random_state = next(d for d in DIGITS if d[0] == kind)
        X, y = digits_subset(n, seed)
        ours = DecisionTreeClassifier(criterion=criterion)
        theirs = sklearn.tree.DecisionTreeClassifier(criterion=criterion,
                                                     random_state=random_state)
    ours.fit(X, y)
    theirs.fit(X, y)
    assert ours.tree_.node_count == theirs.tree_.node_count
    assert compare_with_scikit_learn(ours.tree_, theirs, X, y, criterion)[1] == 0
    return X, y, ours, theirs


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["california", "gini", "entropy"])
def test_the_path_equals_scikit_learns(kind):
    X, y, ours, theirs = fit_agreeing(kind)
    path = ours.cost_complexity_pruning_path(X, y)
    expected = theirs.cost_complexity_pruning_path(X, y)
    assert set(path) == set(expected) == {"ccp_alphas", "impurities"}
    assert len(path.ccp_alphas) == len(expected.ccp_alphas)
    alpha_tol = impurity_tol = 0.0
    if kind == "california":
        alpha_tol, impurity_tol = rounding_tolerances(ours.tree_, pruning_path(ours.tree_), y)
    assert_within(path.ccp_alphas, expected.ccp_alphas, 1e-12, alpha_tol)
    assert_within(path.impurities, expected.impurities, 1e-12, impurity_tol)
    # treelib's path of its own tree is scikit-learn's algorithm on that tree, to the bit
    theirs_on_ours = ccp_pruning_path(to_sklearn(ours.tree_, X.shape[1]))
    np.testing.assert_array_equal(path.ccp_alphas, theirs_on_ours["ccp_alphas"])


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["california", "gini", "entropy"])
def test_pruned_trees_equal_scikit_learns(kind):
    X, y, ours, theirs = fit_agreeing(kind)
    # california's alphas are scikit-learn's within its rounding (up to 1.2e-8 relative):
    # only alphas between path entries further apart than that
    alphas = alphas_between(theirs.cost_complexity_pruning_path(X, y).ccp_alphas,
                            gap=1e-6 if kind == "california" else 0.0)
    criterion, checked = theirs.criterion, []
    picks = np.linspace(0, len(alphas) - 1, 6).astype(int)
    picks = np.append(picks, len(alphas) - np.array([2, 4, 8]))       # small trees too
    for alpha in alphas[picks]:
        a = ours.set_params(ccp_alpha=alpha).fit(X, y).tree_
        b = theirs.set_params(ccp_alpha=alpha).fit(X, y)
        assert a.node_count == b.tree_.node_count
        # node by node, leaf values included; at a tie the two tests split the samples
        # alike (or swap the children), choosing other features
        ties, diverging = compare_with_scikit_learn(a, b, X, y, criterion)
        assert diverging == 0
        if ties == 0:
            assert_same_arrays(a, from_sklearn(b.tree_), ARRAYS[:4])
            np.testing.assert_allclose(a.value, b.tree_.value[:, 0, :], rtol=1e-12)
        checked.append((a.node_count, ties))
    small = [ties for count, ties in checked if count <= 41]
    assert len(small) >= 3 and not any(small)        # no tie is left in the small trees


# --- the estimators --------------------------------------------------------------------


@pytest.mark.parametrize("bad", [-0.1, float("nan"), "0.1", True, None, [0.1]])
@pytest.mark.parametrize("Model", [DecisionTreeRegressor, DecisionTreeClassifier])
def test_ccp_alpha_must_be_a_non_negative_number(Model, bad):
    X, y = np.arange(8.0)[:, None], np.arange(8) % 2
    with pytest.raises(ValueError, match="ccp_alpha must be a number >= 0.0"):
        Model(ccp_alpha=bad).fit(X, y)
    with pytest.raises(ValueError, match="ccp_alpha must be a number >= 0.0"):
        prune(Model().fit(X, y).tree_, bad)


def test_random_decision_trees_are_refused():
    X = np.random.default_rng(0).normal(size=(60, 3))
    tree = RandomDecisionTreeRegressor(n_estimators=1, random_state=0).fit(
        X, X[:, 0]).estimators_[0]
    if (tree.children_left[~tree.is_leaf] != TREE_LEAF).all() and (
            tree.children_right[~tree.is_leaf] != TREE_LEAF).all():
        pytest.skip("this random decision tree happens to be a CART tree")
    with pytest.raises(ValueError, match="needs a CART tree"):
        pruning_path(tree)


@pytest.mark.parametrize("Model", [DecisionTreeRegressor, DecisionTreeClassifier])
def test_ccp_alpha_zero_leaves_the_tree_bit_for_bit(Model):
    X, y = digits_subset(300, 0)
    grown = Model().fit(X, y).tree_
    zero = Model(ccp_alpha=0.0).fit(X, y)
    assert_same_arrays(zero.tree_, grown, ARRAYS + ("children_missing",))
    # an alpha below the path's first positive one prunes nothing either
    first = pruning_path(grown).ccp_alphas[1]
    assert Model(ccp_alpha=first / 2).fit(X, y).tree_.node_count == grown.node_count


OPTIONS = [{}, {"builder": "recursive"}, {"builder": "best_first"},
           {"builder": "level_wise"}, {"splitter": "naive"}, {"splitter": "scan"},
           {"splitter": "hist"}, {"splitter": "random", "random_state": 1},
           {"max_leaf_nodes": 30}, {"max_features": 2, "random_state": 0},
           {"builder": "level_wise", "splitter": "hist", "n_jobs": 2},
           {"splitter": "hist", "histogram_sums": "fixed_point"},
           {"criterion": "absolute_error"}, {"criterion": "poisson"},
           {"criterion": "gini"}, {"criterion": "entropy"}]


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: "-".join(map(str, o.values())))
def test_every_builder_and_splitter_prunes_its_tree(options):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(150, 4))
    y = np.exp(X[:, 0] + 0.5 * X[:, 1] + rng.normal(scale=0.3, size=150))
    if options.get("criterion") in ("gini", "entropy"):
        y, Model = (y > np.median(y)).astype(int) + (y > 3), DecisionTreeClassifier
    else:
        Model = DecisionTreeRegressor
    grown = Model(**options).fit(X, y)
    path = grown.cost_complexity_pruning_path(X, y)
    np.testing.assert_array_equal(path.ccp_alphas, pruning_path(grown.tree_).ccp_alphas)
    alpha = alphas_between(path.ccp_alphas)[len(path.ccp_alphas) // 3]
    pruned = Model(**options, ccp_alpha=alpha).fit(X, y)
    expected = prune(grown.tree_, alpha)
    assert 1 < expected.node_count < grown.tree_.node_count
    assert_same_arrays(pruned.tree_, expected, ARRAYS + ("children_missing",))
    np.testing.assert_array_equal(pruned.feature_importances_,
                                  expected.feature_importances(X.shape[1]))
    assert np.array_equal(pruned.predict(X), pruned.tree_.predict(X.astype(np.float32))[
        :, 0]) or Model is DecisionTreeClassifier


def test_categorical_and_missing_values_prune_too():
    rng = np.random.default_rng(4)
    X = np.column_stack([rng.integers(0, 6, 200), rng.normal(size=200)])
    X[rng.random(200) < 0.2, 1] = np.nan
    y = X[:, 0] % 3 + np.nan_to_num(X[:, 1]) + rng.normal(scale=0.2, size=200)
    grown = DecisionTreeRegressor(categorical_features=[0]).fit(X, y)
    assert grown.tree_.categorical.any()
    alpha = alphas_between(pruning_path(grown.tree_).ccp_alphas)[10]
    pruned = DecisionTreeRegressor(categorical_features=[0], ccp_alpha=alpha).fit(X, y)
    expected = prune(grown.tree_, alpha)
    assert_same_arrays(pruned.tree_, expected, ARRAYS + ("children_missing", "categorical",
                                                         "category_bits"))
    # each row stops at a node of the full tree on its way to its full-tree leaf
    full_node = matching_nodes(grown.tree_, pruned.tree_)[pruned.apply(X)]
    parent, leaf = parents(grown.tree_), grown.apply(X)
    for node, below in zip(full_node, leaf):
        while below != node:
            below = parent[below]
            assert below != -1
    np.testing.assert_array_equal(pruned.predict(X), grown.tree_.value[full_node, 0])


def matching_nodes(full, pruned):
    """The node of ``full`` that each node of ``pruned`` (a pruned subtree) is: both trees
    walked from the root in step."""
    match, stack = np.full(pruned.node_count, -1), [(0, 0)]
    while stack:
        t, u = stack.pop()
        match[u] = t
        if not pruned.is_leaf[u]:
            stack += [(full.children_left[t], pruned.children_left[u]),
                      (full.children_right[t], pruned.children_right[u])]
    return match


@pytest.mark.parametrize("model", [DecisionTreeRegressor(ccp_alpha=0.01),
                                   DecisionTreeClassifier(ccp_alpha=0.01, builder="level_wise")],
                         ids=["regressor", "classifier-level_wise"])
def test_pruned_trees_pass_scikit_learns_estimator_checks(model):
    check_estimator(model, on_skip=None)


def test_a_deep_chain_prunes_as_scikit_learn_prunes_it():
    """Each split peels off the largest target: a chain whose leaves' depths add up to
    ten times its node count, so ``branch_sums`` works through several runs of leaves
    (its memory stays O(nodes)); the sums still come out in scikit-learn's order."""
    X, y = np.arange(40.0)[:, None], 3.0 ** np.arange(40)
    tree = DecisionTreeRegressor().fit(X, y).tree_
    assert tree.max_depth == 39
    assert tree.node_depth()[tree.is_leaf].sum() > 10 * tree.node_count
    theirs = ccp_pruning_path(to_sklearn(tree, 1))
    ours = pruning_path(tree)
    np.testing.assert_array_equal(ours.ccp_alphas, theirs["ccp_alphas"])
    np.testing.assert_array_equal(ours.impurities, theirs["impurities"])
    alpha = alphas_between(ours.ccp_alphas)[5]
    assert_same_tree(prune(tree, alpha), their_pruned(tree, 1, alpha))
