"""Obviously right references for the tests: brute force in exact arithmetic, the tie rule
written once, one tree walker, and the tolerances that floats deserve.

Nothing here is fast or clever: every candidate threshold of every feature is tried and
scored from scratch, with rational arithmetic where the criterion allows it (squared error
and Gini; entropy needs logarithms and is scored in floats, from counts).
"""

import math
from collections import Counter
from decimal import Decimal, localcontext
from fractions import Fraction

import numpy as np

from treelib.gains import EPS, BoundTerms, gain_rounding_bound, xlogx
from treelib.split import midpoint
from treelib.tree import TREE_LEAF, TREE_UNDEFINED, Tree

# --- tolerances ------------------------------------------------------------------------


def sums_tolerance(n, scale):
    """How far two results of adding the same n terms (each at most ``scale`` in absolute
    value) can be when the additions run in different orders: n EPS scale (the worst
    case of a sequential sum; pairwise and SIMD sums do better)."""
    return max(n, 1) * EPS * scale


def impurity_tolerance(part, w, criterion):
    """How far a node's float impurity can be from the exact one: a weighted mean of n
    per-sample losses, off by a few n EPS of the largest; for Poisson, of the terms
    ``w y log y``, ``S log S`` and ``S log W`` whose differences it takes."""
    n, W = len(part), float(w.sum())
    if criterion == "poisson":
        S = float(np.sum(w * part))
        terms = np.sum(w * np.abs(xlogx(part))) + abs(xlogx(S)) + abs(S * np.log(W))
        return 8 * sums_tolerance(n, terms / W)
    if criterion in ("gini", "entropy"):
        return 8 * sums_tolerance(n, 16.0)       # |d (p log2 p) / dp| <= 16 for p >= 2**-14
    spread = float(np.ptp(part))
    return 8 * sums_tolerance(n, spread * spread if criterion == "squared_error" else spread)


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


def exact_weighted_median(values, weights=None):
    """scikit-learn's weighted median, exactly: the smallest value whose cumulative
    weight (values in increasing order, zero weights ignored) exceeds half the total;
    the mean of it and the previous value when a cumulative weight equals half."""
    w = [Fraction(1)] * len(values) if weights is None else [Fraction(float(v))
                                                             for v in weights]
    pairs = sorted((Fraction(float(v)), u) for v, u in zip(values, w) if u > 0)
    half, cumulative = sum(u for _, u in pairs) / 2, Fraction(0)
    for i, (value, weight) in enumerate(pairs):
        cumulative += weight
        if cumulative == half:
            return (value + pairs[i + 1][0]) / 2
        if cumulative > half:
            return value
    raise ValueError("no positive weight")


def exact_loss(y, criterion, weights=None):
    """``W I`` of a node of targets (class labels for Gini and entropy) ``y`` with
    sample ``weights`` (None: 1), from the criterion's definition, as a Fraction: exact
    for squared error, absolute error and Gini; for Poisson (half the deviance,
    ``sum w (y log(y / mu) - y + mu)``) and entropy, logarithms taken with 60 significant
    digits, far beyond any float rounding."""
    w = [Fraction(1)] * len(y) if weights is None else [Fraction(float(v)) for v in weights]
    total = sum(w)
    if criterion in ("gini", "entropy"):
        counts = {}
        for label, u in zip(np.asarray(y).tolist(), w):
            counts[label] = counts.get(label, 0) + u
        if criterion == "gini":
            return total - sum(c * c for c in counts.values()) / total
        with localcontext() as context:
            context.prec = 60
            ln2 = Decimal(2).ln()
            return Fraction(-sum(Decimal(c.numerator) / Decimal(c.denominator)
                                 * (Decimal((c / total).numerator)
                                    / Decimal((c / total).denominator)).ln() / ln2
                                 for c in counts.values() if c > 0))
    values = [Fraction(float(v)) for v in y]
    if criterion == "absolute_error":
        median = exact_weighted_median(y, weights)
        return sum(u * abs(v - median) for v, u in zip(values, w))
    mean = sum(v * u for v, u in zip(values, w)) / total
    if criterion == "squared_error":
        return sum(u * (v - mean) ** 2 for v, u in zip(values, w))
    with localcontext() as context:                                  # Poisson
        context.prec = 60

        def dec(q):
            return Decimal(q.numerator) / Decimal(q.denominator)
        return Fraction(sum(dec(u) * ((dec(v) * (dec(v) / dec(mean)).ln() if v > 0 else 0)
                                      - dec(v) + dec(mean))
                            for v, u in zip(values, w)))


def exact_split_gain(y, goes_left, criterion, weights=None):
    """``W I(node) - W_L I(left) - W_R I(right)`` with ``exact_loss`` (a Fraction)."""
    goes_left = np.asarray(goes_left, dtype=bool)
    y = np.asarray(y)
    w = np.ones(len(y)) if weights is None else np.asarray(weights, dtype=np.float64)
    return (exact_loss(y, criterion, w) - exact_loss(y[goes_left], criterion, w[goes_left])
            - exact_loss(y[~goes_left], criterion, w[~goes_left]))


def exact_gain(y_node, goes_left, criterion):
    """Gain of sending ``y_node[goes_left]`` left, scored from scratch: exact for squared
    error and Gini, a float sum from counts for entropy."""
    labels = list(y_node) if criterion == "squared_error" else [int(v) for v in y_node]
    left = [v for v, g in zip(labels, goes_left, strict=True) if g]
    right = [v for v, g in zip(labels, goes_left, strict=True) if not g]
    loss = NODE_LOSS[criterion]
    return Fraction(loss(labels) - loss(left) - loss(right))


def identity_bound(y_node, goes_left, criterion, weights=None):
    """The rounding bound ``treelib.gains.gain_rounding_bound`` gives the cut, from
    the node's exact sums (the bound of the finders that add up statistics); with
    ``weights``, of the weighted statistics.  Absolute error adds up no statistics: its
    running medians have the naive finder's bound (``loss_bound``)."""
    goes_left = np.asarray(goes_left, dtype=bool)
    n, n_left = len(y_node), int(goes_left.sum())
    if criterion == "absolute_error":
        return loss_bound(y_node, goes_left, criterion, weights)
    w = [Fraction(1)] * n if weights is None else [Fraction(float(v)) for v in weights]
    w_left, w_total = float(sum(v for v, g in zip(w, goes_left) if g)), float(sum(w))
    if criterion in ("squared_error", "poisson"):
        values = [Fraction(float(v)) for v in y_node]
        mean = sum(v * u for v, u in zip(values, w)) / sum(w)
        shift = mean if criterion == "squared_error" else 0
        stats = [[(v - shift) * u] for v, u in zip(values, w)]      # centred or not
    else:
        classes = sorted(set(np.asarray(y_node).tolist()))
        stats = [[u * (label == c) for c in classes]
                 for label, u in zip(np.asarray(y_node).tolist(), w)]
    columns = list(zip(*stats))
    sum_left = np.array([float(sum(s for s, g in zip(c, goes_left) if g)) for c in columns])
    total = np.array([float(sum(c)) for c in columns])
    counts = criterion in ("gini", "entropy") and weights is None     # exact: no part 2
    abs_total = None if counts else np.array([float(sum(map(abs, c))) for c in columns])
    bound = float(gain_rounding_bound(sum_left, float(n_left) if weights is None else w_left,
                                      total, float(n) if weights is None else w_total,
                                      criterion, abs_total, terms=BoundTerms(n_terms=n)))
    if criterion == "squared_error" and 0 < n_left < n:
        # The library's bound is first order in the sums' error e (it takes the slope of
        # the gain from treelib's float sums); from the exact sums the slope can be 0 (a
        # cut whose children have the node's mean), and the gain's error is then the
        # second-order e**2 (1/W_L + 1/W_R): a gain of 5e-32 for an exact 0.
        error = 16 * n * EPS * float(abs_total.sum())
        w_l = float(n_left) if weights is None else w_left
        w_r = float(n - n_left) if weights is None else w_total - w_left
        bound += error * error * (1 / w_l + 1 / w_r)
    return bound


def loss_bound(y_node, goes_left, criterion, weights=None):
    """The rounding bound of a gain that subtracts the children's losses from the
    node's, each a float sum of n terms (treelib's naive finder and running medians):
    ``4 (n + 2) EPS`` times the three losses (Poisson: plus 3 S each, S the node's
    weighted sum, as ``naive_gains``)."""
    goes_left = np.asarray(goes_left, dtype=bool)
    w = np.ones(len(y_node)) if weights is None else np.asarray(weights, dtype=np.float64)
    total = sum(float(exact_loss(y_node[part], criterion, w[part]))
                for part in (slice(None), goes_left, ~goes_left))
    if criterion == "poisson":          # terms of both signs: |terms| <= loss + 2 S, + S
        total += 3 * 2 * float(np.sum(np.asarray(y_node, np.float64) * w))
    return 4 * (len(y_node) + 2) * EPS * total


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


def every_cut(X, min_samples_leaf=1):
    """Every candidate cut of a node whose features may hold NaN, in treelib's order:
    per feature, the midpoints between distinct present values with the missing values
    right, then (if some are missing and some present) the cut that sends only the
    missing ones right (threshold +inf), then the midpoints with the missing values
    left; each child keeps ``min_samples_leaf`` samples.  Yields ``(feature, threshold,
    missing_left, goes_left)``; ``missing_left`` is None for a feature without NaN."""
    for j in range(X.shape[1]):
        column = X[:, j]
        missing = np.isnan(column)
        values = np.unique(column[~missing])
        thresholds = [float(midpoint(a, b)) for a, b in zip(values[:-1], values[1:])]
        if not missing.any():
            options = [(t, None) for t in thresholds]
        else:
            options = ([(t, False) for t in thresholds] + [(np.inf, False)] * (len(values) > 0)
                       + [(t, True) for t in thresholds])
        for threshold, missing_left in options:
            goes_left = np.where(missing, bool(missing_left), column <= threshold)
            if min(goes_left.sum(), (~goes_left).sum()) >= min_samples_leaf:
                yield j, threshold, missing_left, goes_left


def brute_force_best(X, y, criterion="squared_error", min_samples_leaf=1, weights=None,
                     bound=identity_bound):
    """The best split of a node with missing values and sample weights, every cut of
    ``every_cut`` scored by ``exact_split_gain``; treelib's tie rule with the rounding
    bounds ``bound(y, goes_left, criterion, weights)``.  A Poisson child without counts
    is no candidate.  Returns ``(feature, threshold, missing_go_to_left, n_left, gain)``
    (without missing values in the feature, missing values go to the larger child) or
    None."""
    X, y = np.asarray(X, dtype=np.float64), np.asarray(y)
    w = np.ones(len(y)) if weights is None else np.asarray(weights, dtype=np.float64)
    candidates = []
    for j, threshold, missing_left, goes_left in every_cut(X, min_samples_leaf):
        if criterion == "poisson" and min(np.sum(w[goes_left] * y[goes_left]),
                                          np.sum(w[~goes_left] * y[~goes_left])) <= 0:
            continue
        n_left = int(goes_left.sum())
        direction = n_left > len(y) - n_left if missing_left is None else missing_left
        candidates.append(((j, threshold, bool(direction), n_left),
                           exact_split_gain(y, goes_left, criterion, weights),
                           bound(y, goes_left, criterion, weights)))
    chosen = tie_rule(candidates)
    if chosen is None:
        return None
    (feature, threshold, direction, n_left), gain, _ = candidates[chosen]
    return feature, threshold, direction, n_left, gain


# --- whole trees ----------------------------------------------------------------------


def numeric_tree(**arrays):
    """A ``Tree`` of numeric splits without sample weights from its other arrays:
    ``weighted_n_node_samples`` is ``n_node_samples``, no node is categorical."""
    n = len(arrays["feature"])
    arrays.setdefault("weighted_n_node_samples",
                      np.asarray(arrays["n_node_samples"], dtype=np.float64))
    return Tree(**arrays, categorical=np.zeros(n, dtype=bool),
                category_bits=np.zeros((n, 32), dtype=np.uint8))


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
                      value_of(t), impurity, len(rows), TREE_LEAF])
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
        # no missing value in training: a missing value follows the larger child
        nodes[node][7] = nodes[node][0 if 2 * goes_left.sum() > len(rows) else 1]
        return node

    grow(np.arange(n_total), 0)
    left, right, feature, threshold, value, impurity, n, missing = zip(*nodes)
    return numeric_tree(children_left=np.array(left), children_right=np.array(right),
                        children_missing=np.array(missing),
                        feature=np.array(feature), threshold=np.array(threshold),
                        value=np.array(value), impurity=np.array(impurity),
                        n_node_samples=np.array(n))


def node_depths(tree):
    """Depth of every node by a walk from the root, each child visited once: the slow,
    obvious version of ``Tree.node_depth`` (for trees too deep for its bug, see
    tests/test_tree.py::test_node_depth_visits_every_node_once)."""
    depth, stack = np.full(tree.node_count, -1), [0]
    depth[0] = 0
    while stack:
        node = stack.pop()
        for child in set(tree.children[node].tolist()) - {TREE_LEAF}:
            depth[child] = depth[node] + 1
            stack.append(child)
    return depth


def walk_pairs(a, b):
    """Node pairs of two trees visited from the roots in parallel (ids may differ);
    children are paired branch by branch (left, right, missing).  A missing-value child
    that is also the left or right child (a CART split) is a direction, not a third
    child: it must be the same in both trees, and its node is visited once."""
    stack = [(0, 0)]
    while stack:
        i, j = stack.pop()
        yield i, j
        kids_a, kids_b = a.children[i], b.children[j]
        for branch, (ca, cb) in enumerate(zip(kids_a, kids_b)):
            assert (ca == TREE_LEAF) == (cb == TREE_LEAF), f"nodes {i} / {j}: a child " \
                "exists in one tree only"
            if branch == 2 and ca != TREE_LEAF and ca in kids_a[:2]:
                assert cb in kids_b[:2] and (ca == kids_a[0]) == (cb == kids_b[0]), \
                    f"nodes {i} / {j}: missing values go different ways"
                continue
            if ca != TREE_LEAF:
                stack.append((ca, cb))


#: Every array of a fitted ``Tree``: two trees are identical when all of them are equal.
TREE_ARRAYS = ("children_left", "children_right", "children_missing", "feature",
               "threshold", "value", "impurity", "n_node_samples",
               "weighted_n_node_samples", "categorical", "category_bits")


def assert_identical_trees(a, b):
    """``a`` and ``b`` equal bit for bit, array by array (exact-sum and distributed fits)."""
    for name in TREE_ARRAYS:
        assert np.array_equal(getattr(a, name), getattr(b, name)), name


def assert_same_tree(a, b, *, scale=None):
    """Two trees are the same tree: every pair of nodes holds the same test (feature,
    and threshold bit for bit, or the same categories), the same number of samples, the
    same value and impurity up to the rounding of sums in different orders, and leaves
    face leaves.  ``scale`` bounds the statistics' magnitude (default: the largest
    |value| of the trees)."""
    visited = 0
    scale = scale if scale is not None else max(np.abs(a.value).max(), np.abs(b.value).max(),
                                                1.0)
    for i, j in walk_pairs(a, b):
        visited += 1
        where = f"node {i} of the first tree, {j} of the second"
        n = a.n_node_samples[i]
        assert n == b.n_node_samples[j], where
        assert a.feature[i] == b.feature[j], where
        assert np.array_equal(a.threshold[i], b.threshold[j], equal_nan=True), where  # exactly
        assert a.categorical[i] == b.categorical[j], where           # and the same categories
        assert np.array_equal(a.category_bits[i], b.category_bits[j]), where
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


def sklearn_rounding_bound(y_node, weights=None):
    """How far scikit-learn's squared-error criterion can misjudge a gain: it works on
    raw sums of w y and w y**2 (no centring), so its gains are off by up to a few n EPS
    times sum(w y**2)."""
    y_node = np.asarray(y_node, dtype=np.float64)
    w = np.ones(len(y_node)) if weights is None else np.asarray(weights, np.float64)
    return 4 * (len(y_node) + 2) * EPS * float(np.sum(w * y_node * y_node))


def their_bound(y_node, goes_left, criterion, weights=None):
    """How far scikit-learn can misjudge a gain: raw sums of squares for squared error
    (``sklearn_rounding_bound``); Poisson from the same sums as treelib
    (``identity_bound``); children's losses recomputed for the others (``loss_bound``)."""
    if criterion == "squared_error":
        return sklearn_rounding_bound(y_node, weights)
    if criterion == "poisson":
        return identity_bound(y_node, goes_left, criterion, weights)
    return loss_bound(y_node, goes_left, criterion, weights)


def goes_left_of(X, rows, feature, threshold, missing_go_to_left):
    """Which of ``rows`` a numeric test sends left, missing values included."""
    column = X[rows, feature]
    return np.where(np.isnan(column), bool(missing_go_to_left), column <= threshold)


def compare_with_scikit_learn(ours, theirs, X, y, criterion="squared_error",
                              sample_weight=None):
    """Walk our tree and scikit-learn's fitted ``theirs`` from the root in parallel.

    Where both nodes hold the same test (feature, threshold and, for a node with missing
    values, their direction), compare their children.  Where the tests differ, the two
    tests must gain the same on the node's samples up to what rounding explains
    (treelib's bounds, ``identity_bound``, and scikit-learn's error, ``their_bound``,
    around the exact gains of ``exact_split_gain``): a tie, which scikit-learn breaks by
    visiting the features in a random order and treelib by the lowest feature index.
    If both tests send the same samples the same way (or swapped), the walk goes on
    below them; otherwise the subtrees differ and are not compared.  Leaves must face
    leaves with the same value, number of samples and weight, except a node of equal
    targets: treelib's impurity is exactly 0 there, scikit-learn's (from raw sums of
    squares) can be a rounding error above its EPSILON, and it may split the node; every
    leaf it grows below must then predict the node's value.  ``y``: targets, or class
    labels (``criterion`` "gini" or "entropy"); ``sample_weight``: positive weights (a
    zero weight drops its row on both sides: leave such rows out).  X may hold NaN.
    Returns ``(ties, diverging)``: the tied nodes found, and how many of them split
    their samples differently.
    """
    b, in_node = theirs.tree_, theirs.decision_path(X).tocsc()
    regression = criterion not in ("gini", "entropy")
    if not regression:
        y = np.unique(y, return_inverse=True)[1]          # class codes, sorted labels
    w = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, np.float64)
    ties = diverging = 0

    def their_value(j):
        return b.value[j, 0, :1] if regression else b.value[j, 0]

    def value_tolerance(i):       # a weighted mean of n terms (targets, or 0/1 classes)
        scale = np.abs(y).max() * w.max() / w.min() if regression else w.max() / w.min()
        return 4 * sums_tolerance(ours.n_node_samples[i], scale)

    def compare_leaves(i, j):
        np.testing.assert_allclose(ours.value[i], their_value(j), rtol=0,
                                   atol=value_tolerance(i), err_msg=f"node {i}")
        np.testing.assert_allclose(ours.weighted_n_node_samples[i],
                                   b.weighted_n_node_samples[j], rtol=0,
                                   atol=4 * sums_tolerance(ours.n_node_samples[i], w.max()))

    stack = [(0, 0)]
    while stack:
        i, j = stack.pop()
        assert ours.n_node_samples[i] == b.n_node_samples[j]
        rows = in_node[:, j].nonzero()[0]
        if ours.is_leaf[i] and b.children_left[j] != TREE_LEAF:
            assert ours.impurity[i] == 0.0 and np.ptp(y[rows]) == 0, \
                f"node {i}: a leaf that scikit-learn splits, with different targets"
            below = [j]
            while below:
                k = below.pop()
                if b.children_left[k] == TREE_LEAF:
                    compare_leaves(i, k) if k == j else np.testing.assert_allclose(
                        ours.value[i], their_value(k), rtol=0, atol=value_tolerance(i))
                else:
                    below += [b.children_left[k], b.children_right[k]]
            continue
        if ours.is_leaf[i] or b.children_left[j] == TREE_LEAF:
            assert ours.is_leaf[i] and b.children_left[j] == TREE_LEAF, f"node {i}"
            compare_leaves(i, j)
            continue
        pairs = [(ours.children_left[i], b.children_left[j]),
                 (ours.children_right[i], b.children_right[j])]
        ours_left = goes_left_of(X, rows, ours.feature[i], ours.threshold[i],
                                   ours.missing_go_to_left[i])
        their_left = goes_left_of(X, rows, b.feature[j], b.threshold[j],
                                    b.missing_go_to_left[j])
        has_missing = np.isnan(X[rows, ours.feature[i]]).any()
        if ((ours.feature[i], ours.threshold[i]) != (b.feature[j], b.threshold[j])
                or (has_missing and ours.missing_go_to_left[i] != b.missing_go_to_left[j])):
            node_y, node_w = y[rows], w[rows]
            gap = abs(float(exact_split_gain(node_y, ours_left, criterion, node_w)
                            - exact_split_gain(node_y, their_left, criterion, node_w)))
            weights = None if sample_weight is None else node_w
            allowed = (identity_bound(node_y, ours_left, criterion, weights)
                       + identity_bound(node_y, their_left, criterion, weights)
                       + their_bound(node_y, their_left, criterion, weights))
            assert gap <= allowed, f"node {i}: gains differ by {gap}, beyond rounding"
            ties += 1
            if np.array_equal(ours_left, ~their_left):
                pairs = [(pairs[0][0], pairs[1][1]), (pairs[1][0], pairs[0][1])]
            elif not np.array_equal(ours_left, their_left):
                diverging += 1
                continue
        else:
            # the same test: without missing values in the node, both send them to the
            # larger child
            assert ours.missing_go_to_left[i] == bool(b.missing_go_to_left[j]), f"node {i}"
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
