"""Obviously right references for the tests: brute force in exact arithmetic, the tie rule
written once, one tree walker, and the tolerances that floats deserve.

Nothing here is fast or clever: every candidate threshold of every feature is tried and
scored from scratch, with rational arithmetic where the criterion allows it (squared error
and Gini; entropy needs logarithms and is scored in floats, from counts).
"""

import math
from collections import Counter
from fractions import Fraction

import numpy as np

from treelib.gains import EPS, gain_rounding_bound
from treelib.split import midpoint
from treelib.tree import TREE_LEAF, TREE_UNDEFINED, Tree

# --- tolerances ------------------------------------------------------------------------


def sums_tolerance(n, scale):
    """How far two results of adding the same n terms (each at most ``scale`` in absolute
    value) can be when the additions run in different orders: n EPS scale (the worst
    case of a sequential sum; pairwise and SIMD sums do better)."""
    return max(n, 1) * EPS * scale


def assert_sums_close(actual, expected, n, scale):
    """``actual`` and ``expected`` were summed from the same n terms of magnitude at most
    ``scale``, in different orders: they agree within ``sums_tolerance``."""
    np.testing.assert_allclose(actual, expected, rtol=0, atol=4 * sums_tolerance(n, scale))


# --- one node ----------------------------------------------------------------------------


def exact_sse(values):
    """Sum of squared deviations from the mean in exact rational arithmetic."""
    values = [Fraction(float(v)) for v in values]
    mean = sum(values) / len(values)
    return sum((v - mean) ** 2 for v in values)


def exact_weighted_gini(labels):
    """n Gini(labels) as an exact fraction: n - sum_k c_k**2 / n."""
    n = len(labels)
    return Fraction(n) - Fraction(sum(c * c for c in Counter(labels).values()), n)


def weighted_entropy(labels):
    """n entropy(labels) in bits, from the definition -sum_k c_k log2(c_k / n)."""
    n = len(labels)
    return -sum(c * math.log2(c / n) for c in Counter(labels).values())


NODE_LOSS = {"squared_error": exact_sse, "gini": exact_weighted_gini,
             "entropy": weighted_entropy}


def exact_gain(y_node, goes_left, criterion):
    """Gain of sending ``y_node[goes_left]`` left, scored from scratch: exact for squared
    error and Gini, a float sum from counts for entropy."""
    labels = list(y_node) if criterion == "squared_error" else [int(v) for v in y_node]
    left = [v for v, g in zip(labels, goes_left, strict=True) if g]
    right = [v for v, g in zip(labels, goes_left, strict=True) if not g]
    loss = NODE_LOSS[criterion]
    return Fraction(loss(labels) - loss(left) - loss(right))


def identity_bound(y_node, goes_left, criterion):
    """The rounding bound ``treelib.gains.gain_rounding_bound`` gives the cut, from
    the node's exact sums (the bound of the finders that add up statistics)."""
    n, n_left = len(y_node), int(goes_left.sum())
    if criterion == "squared_error":
        values = [Fraction(float(v)) for v in y_node]
        mean = sum(values) / n
        centred = [v - mean for v in values]
        sum_left = float(sum(c for c, left in zip(centred, goes_left) if left))
        abs_total = float(sum(abs(c) for c in centred))
        return float(gain_rounding_bound(np.array([sum_left]), n_left, np.array([0.0]), n,
                                         criterion, np.array([abs_total])))
    classes = sorted(set(y_node))
    counts = np.array([[np.sum((y_node == c) & goes_left), np.sum(y_node == c)]
                       for c in classes], dtype=np.float64)
    return float(gain_rounding_bound(counts[:, 0], n_left, counts[:, 1], n, criterion))


def naive_bound(y_node, goes_left, criterion):
    """The rounding bound of the naive finder, which subtracts children's losses
    recomputed from scratch: ``4 (n + 2) EPS`` times the three losses."""
    loss = NODE_LOSS[criterion]
    total = sum(float(loss(part)) for part in (y_node, y_node[goes_left], y_node[~goes_left]))
    return 4 * (len(y_node) + 2) * EPS * total


def candidate_splits(X, min_samples_leaf=1):
    """Every (feature, threshold, goes_left) with a midpoint threshold between two
    distinct values that leaves ``min_samples_leaf`` samples on each side, in feature
    order, then threshold order."""
    for j in range(X.shape[1]):
        values = np.unique(X[:, j])
        for low, high in zip(values[:-1], values[1:]):
            threshold = float(midpoint(low, high))
            goes_left = X[:, j] <= threshold
            if min(goes_left.sum(), (~goes_left).sum()) >= min_samples_leaf:
                yield j, threshold, goes_left


def tie_rule(candidates):
    """treelib's tie rule (``treelib.split.best_cut``) on ``(key, gain, bound)`` triples
    listed in feature order, then cut order, with exact gains: the reference is the first
    highest gain; a candidate is tied when ``gain + bound >= reference gain - reference
    bound``; the first tied candidate wins.  Returns its index, or None."""
    if not candidates:
        return None
    best = max(range(len(candidates)), key=lambda i: (candidates[i][1], -i))
    floor = candidates[best][1] - Fraction(candidates[best][2])
    return next(i for i, (_, gain, bound) in enumerate(candidates)
                if gain + Fraction(bound) >= floor)


def brute_force_split(X, y, criterion="squared_error", min_samples_leaf=1,
                      bound=identity_bound):
    """The best split of a node by trying every candidate and scoring it from scratch.

    Returns ``(feature, threshold, n_left, gain)`` (gain exact where the criterion
    allows) or None.  ``bound(y, goes_left, criterion)`` gives each candidate's rounding
    bound: ``identity_bound`` for the finders that add up statistics, ``naive_bound`` for
    the naive finder.
    """
    X, y = np.asarray(X, dtype=np.float64), np.asarray(y)
    loss = NODE_LOSS[criterion]
    labels = y if criterion == "squared_error" else [int(v) for v in y]
    parent = loss(labels)
    candidates = []
    for j, threshold, goes_left in candidate_splits(X, min_samples_leaf):
        left = [v for v, g in zip(labels, goes_left) if g]
        right = [v for v, g in zip(labels, goes_left) if not g]
        gain = parent - loss(left) - loss(right)
        if not isinstance(gain, Fraction):
            gain = Fraction(gain)
        candidates.append(((j, threshold, int(goes_left.sum())), gain,
                           bound(y, goes_left, criterion)))
    chosen = tie_rule(candidates)
    if chosen is None:
        return None
    (feature, threshold, n_left), gain, _ = candidates[chosen]
    return feature, threshold, n_left, gain


# --- whole trees ----------------------------------------------------------------------


def brute_force_tree(X, y, criterion="squared_error", n_classes=None, *, max_depth=None,
                     min_samples_split=2, min_samples_leaf=1, min_impurity_decrease=0.0):
    """Grow a tree by recursion with ``brute_force_split`` at every node and
    scikit-learn's stopping rules (``treelib.growth.StoppingRules``).  ``y``: targets,
    or class codes 0 .. n_classes - 1.  Node ids in pre-order."""
    n_total, nodes = len(y), []

    def value_of(t):
        if criterion == "squared_error":
            return np.array([np.mean(t)])
        return np.bincount(t, minlength=n_classes) / len(t)

    def grow(rows, depth):
        t, node = y[rows], len(nodes)
        impurity = float(NODE_LOSS[criterion](t if criterion == "squared_error"
                                              else list(t))) / len(rows)
        nodes.append([TREE_LEAF, TREE_LEAF, TREE_UNDEFINED, float(TREE_UNDEFINED),
                      value_of(t), impurity, len(rows)])
        if ((max_depth is not None and depth >= max_depth) or len(rows) < min_samples_split
                or len(rows) < 2 * min_samples_leaf or impurity <= 0.0):
            return node
        split = brute_force_split(X[rows], t, criterion, min_samples_leaf)
        if split is None:
            return node
        feature, threshold, _, gain = split
        if max(float(gain), 0.0) / n_total + EPS < min_impurity_decrease:
            return node
        goes_left = X[rows, feature] <= threshold
        nodes[node][2:4] = feature, threshold
        nodes[node][0] = grow(rows[goes_left], depth + 1)
        nodes[node][1] = grow(rows[~goes_left], depth + 1)
        return node

    grow(np.arange(n_total), 0)
    left, right, feature, threshold, value, impurity, n = zip(*nodes)
    return Tree(children_left=np.array(left), children_right=np.array(right),
                children_missing=np.full(len(nodes), TREE_LEAF), feature=np.array(feature),
                threshold=np.array(threshold), value=np.array(value),
                impurity=np.array(impurity), n_node_samples=np.array(n))


def walk_pairs(a, b):
    """Node pairs of two trees visited from the roots in parallel (ids may differ);
    children are paired branch by branch (left, right, missing).  A missing-value child
    that is also the left or the right one is visited once, and must be on the same side
    in both trees."""
    stack = [(0, 0)]
    while stack:
        i, j = stack.pop()
        yield i, j
        children_a, children_b = list(a.children[i]), list(b.children[j])
        for branch, (ca, cb) in enumerate(zip(children_a, children_b)):
            assert (ca == TREE_LEAF) == (cb == TREE_LEAF), f"nodes {i} / {j}: a child " \
                "exists in one tree only"
            if branch == 2 and ca != TREE_LEAF and ca in children_a[:2]:
                assert children_a.index(ca) == children_b.index(cb), \
                    f"nodes {i} / {j}: missing values go to different sides"
                continue
            if ca != TREE_LEAF:
                stack.append((ca, cb))


def assert_same_tree(a, b, *, scale=None):
    """Two trees are the same tree: every pair of nodes holds the same test (feature,
    and threshold bit for bit), the same number of samples, the same value and impurity
    up to the rounding of sums in different orders, and leaves face leaves.  ``scale``
    bounds the statistics' magnitude (default: the largest |value| of the trees)."""
    visited = 0
    scale = scale if scale is not None else max(np.abs(a.value).max(), np.abs(b.value).max(),
                                                1.0)
    for i, j in walk_pairs(a, b):
        visited += 1
        where = f"node {i} of the first tree, {j} of the second"
        n = a.n_node_samples[i]
        assert n == b.n_node_samples[j], where
        assert a.feature[i] == b.feature[j], where
        assert a.threshold[i] == b.threshold[j], where               # exactly
        np.testing.assert_allclose(a.value[i], b.value[j], rtol=0,
                                   atol=4 * sums_tolerance(n, scale), err_msg=where)
        np.testing.assert_allclose(a.impurity[i], b.impurity[j], rtol=0,
                                   atol=8 * sums_tolerance(n, scale * scale), err_msg=where)
    assert visited == a.node_count == b.node_count


def route_one_by_one(tree, x):
    """The node that answers for one row ``x``, followed test by test in Python: the
    slow, obvious version of ``Tree.apply``."""
    node = 0
    while tree.feature[node] != TREE_UNDEFINED:
        value = x[tree.feature[node]]
        if np.isnan(value):
            child = tree.children_missing[node]
        elif value <= tree.threshold[node]:
            child = tree.children_left[node]
        else:
            child = tree.children_right[node]
        if child == TREE_LEAF:
            return node
        node = child
    return node


def rows_of_nodes(tree, X):
    """For every node, the rows of X that pass through it (routed one by one)."""
    rows = [[] for _ in range(tree.node_count)]
    for r, x in enumerate(np.asarray(X, dtype=np.float64)):
        node = 0
        rows[0].append(r)
        while tree.feature[node] != TREE_UNDEFINED:
            value = x[tree.feature[node]]
            branch = (tree.children_missing if np.isnan(value) else
                      tree.children_left if value <= tree.threshold[node]
                      else tree.children_right)
            if branch[node] == TREE_LEAF:
                break
            node = branch[node]
            rows[node].append(r)
    return [np.array(r, dtype=np.intp) for r in rows]


# --- against scikit-learn ---------------------------------------------------------------


def sklearn_rounding_bound(y_node):
    """How far scikit-learn's squared-error criterion can misjudge a gain: it works on
    raw sums of y and y**2 (no centring), so its gains are off by up to a few n EPS
    times sum(y**2)."""
    y_node = np.asarray(y_node, dtype=np.float64)
    return 4 * (len(y_node) + 2) * EPS * float(np.sum(y_node * y_node))


def compare_with_scikit_learn(ours, theirs, X, y, criterion="squared_error"):
    """Walk our tree and scikit-learn's fitted ``theirs`` from the root in parallel.

    Where both nodes hold the same test, compare their children.  Where the tests
    differ, the two tests must gain the same on the node's samples up to what rounding
    explains (treelib's bounds and scikit-learn's error: raw sums of y and y**2 for
    squared error, children's impurities recomputed from counts for Gini and entropy,
    ``naive_bound``): a tie, which scikit-learn breaks by visiting the features in a
    random order and treelib by the lowest feature index.  If both tests send the same
    samples the same way (or swapped), the walk goes on below them; otherwise the
    subtrees differ and are not compared.  Leaves must face leaves with the same value
    and number of samples, except a node of equal targets: treelib's impurity is exactly
    0 there, scikit-learn's (from raw sums of squares) can be a rounding error above its
    EPSILON, and it may split the node; every leaf it grows below must then predict the
    node's value.  ``y``: targets, or class labels (``criterion`` "gini" or "entropy").
    Returns ``(ties, diverging)``: the tied nodes found, and how many of them split
    their samples differently.
    """
    b, in_node = theirs.tree_, theirs.decision_path(X).tocsc()
    if criterion != "squared_error":
        y = np.unique(y, return_inverse=True)[1]          # class codes, sorted labels
    loss = NODE_LOSS[criterion]
    ties = diverging = 0

    def gain(node_y, goes_left):
        node_y = node_y if criterion == "squared_error" else list(node_y)
        left = [v for v, g in zip(node_y, goes_left) if g]
        right = [v for v, g in zip(node_y, goes_left) if not g]
        return float(loss(node_y) - loss(left) - loss(right))

    def their_value(j):
        return b.value[j, 0] if criterion != "squared_error" else b.value[j, 0, :1]

    def value_tolerance(i):       # a mean of n terms (targets, or 0/1 class indicators)
        scale = np.abs(y).max() if criterion == "squared_error" else 1.0
        return 4 * sums_tolerance(ours.n_node_samples[i], scale)

    stack = [(0, 0)]
    while stack:
        i, j = stack.pop()
        assert ours.n_node_samples[i] == b.n_node_samples[j]
        if ours.is_leaf[i] and b.children_left[j] != TREE_LEAF:
            rows = in_node[:, j].nonzero()[0]
            assert ours.impurity[i] == 0.0 and np.ptp(y[rows]) == 0, \
                f"node {i}: a leaf that scikit-learn splits, with different targets"
            below = [j]
            while below:
                k = below.pop()
                if b.children_left[k] == TREE_LEAF:
                    np.testing.assert_allclose(ours.value[i], their_value(k), rtol=0,
                                               atol=value_tolerance(i))
                else:
                    below += [b.children_left[k], b.children_right[k]]
            continue
        if ours.is_leaf[i] or b.children_left[j] == TREE_LEAF:
            assert ours.is_leaf[i] and b.children_left[j] == TREE_LEAF
            np.testing.assert_allclose(ours.value[i], their_value(j), rtol=0,
                                       atol=value_tolerance(i))
            continue
        pairs = [(ours.children_left[i], b.children_left[j]),
                 (ours.children_right[i], b.children_right[j])]
        if (ours.feature[i], ours.threshold[i]) != (b.feature[j], b.threshold[j]):
            rows = in_node[:, j].nonzero()[0]
            ours_left = X[rows, ours.feature[i]] <= ours.threshold[i]
            their_left = X[rows, b.feature[j]] <= b.threshold[j]
            node_y = y[rows]
            gap = abs(gain(node_y, ours_left) - gain(node_y, their_left))
            their_error = (sklearn_rounding_bound(node_y) if criterion == "squared_error"
                           else naive_bound(node_y, their_left, criterion))
            allowed = (identity_bound(node_y, ours_left, criterion)
                       + identity_bound(node_y, their_left, criterion) + their_error)
            assert gap <= allowed, f"node {i}: gains differ by {gap}, beyond rounding"
            ties += 1
            if np.array_equal(ours_left, ~their_left):
                pairs = [(pairs[0][0], pairs[1][1]), (pairs[1][0], pairs[0][1])]
            elif not np.array_equal(ours_left, their_left):
                diverging += 1
                continue
        stack += pairs
    return ties, diverging


def assert_breadth_first(tree):
    """Node ids of a CART tree grown level by level are breadth first: depths never
    decrease with the id, and the children are numbered in the order of their parents,
    each left child directly followed by its sibling (1, 2, then 3, 4, ...)."""
    assert np.all(np.diff(tree.node_depth()) >= 0)
    left = tree.children_left[~tree.is_leaf]
    np.testing.assert_array_equal(tree.children_right[~tree.is_leaf], left + 1)
    np.testing.assert_array_equal(left, 1 + 2 * np.arange(len(left)))
