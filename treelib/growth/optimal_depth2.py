"""The optimal depth-2 regression tree over binned features, by cumulative sums in two
dimensions.

A greedy grower chooses the root's cut by its own gain, then each child's cut given the
root's.  The depth-2 tree with the smallest training sum of squared errors (SSE) may need a
root cut that gains little by itself (y = x0 xor x1: no single cut gains anything, two
levels explain everything).  Its total gain is

    gain = G_root(j, b) + G_left(j, b) + G_right(j, b),

the root cut's gain plus the best gain of each child's own cut (0 for a child that stays a
leaf), and the two children are independent once the root cut is fixed: the best tree takes,
for each root cut (j, b), the best left cut over every feature k and, separately, the best
right cut.

**Chapter 2's identity in two dimensions.**  Every cut's gain follows from the sums of the
(centred) targets on each side.  For a pair of features (j, k), j = k included, one
``np.bincount`` over the keys ``code_j * B + code_k`` gives the B x B table of counts and
sums of every cell; cumulated along both axes (``np.cumsum`` twice), its entry ``C[b, c]``
holds the rows with ``code_j <= b`` and ``code_k <= c``.  The left child of the root cut
after bin b of j then sends ``C[b, c]`` left at its cut after bin c of k, out of
``C[b, B-1]``; the right child sends ``C[B-1, c] - C[b, c]`` out of ``C[B-1, B-1] - C[b,
B-1]``: every root cut's children's gains at every cut of k, (B-1) x (B-1) of each, from one
table (``treelib.gains.score_cuts``, the variance-to-sum identity on targets centred on the
root's mean).

**Candidates** are as the histogram finder's (``treelib.finders.histogram``): a cut after
bin b is one when bin b holds rows of the node (of several cuts that make the same children,
only the lowest) and each side keeps ``min_samples_leaf`` rows.  A child without a cut, or
whose best gain is not positive beyond its rounding bound, stays a leaf (so, unlike the
greedy growers, no split of zero gain is made); so does the root when no tree gains more
than its rounding bound.

**Ties** follow treelib's one tie rule (``treelib.split.best_cut``) twice: the root cut is
chosen on the total gain (bounds: the root cut's plus those of its children's best cuts),
the lowest root feature, then bin, among the tied; then each child's cut among its own,
the lowest child feature, then bin.  The gains' rounding bounds
(``treelib.gains.gain_rounding_bound``) are taken with the root's sums of |centred y| and
2 (n + 2B) terms, which cover every entry of the cumulated tables and their differences.

Cost: O(f^2 (n + B^2)) for f features, n rows and B bins (one table per ordered pair), plus
one more pass over the root's feature, O(f (n + B^2)), to place the children's cuts.  Memory:
O(n + B^2 + f B), one B x B table at a time (never f^2 of them).
"""

from dataclasses import dataclass

import numpy as np

from treelib.criteria import as_columns, node_statistics
from treelib.gains import score_cuts
from treelib.growth.rules import without_zero_weights
from treelib.split import MISSING_BIN, best_cut
from treelib.tree import LEFT, RIGHT, Tree, TreeRecorder
from treelib.validation import check_array, check_sample_weight

SQUARED = "squared_error"


@dataclass(frozen=True, eq=False)
class OptimalDepth2:
    """The optimal depth-2 tree and its objective.

    ``tree``: a ``treelib.tree.Tree`` (nodes in pre-order: root, left child and its
    children, right child and its children); ``sse``: its training sum of squared errors
    (weighted), summed over its leaves from their own centred rows; ``gain``: the total gain
    the search maximised (root SSE minus ``sse``, as the cumulated tables give it);
    ``cuts``: ``(root, left, right)``, each a ``(feature, bin)`` (``code <= bin`` goes left)
    or None for a node that stays a leaf (a leaf root has no children: ``(None, None,
    None)``)."""

    tree: Tree
    sse: float
    gain: float
    cuts: tuple


@dataclass(frozen=True)
class _Search:
    """What every pair's scoring needs: the bin codes (intp), the centred statistics and
    weights of the rows, the width B, ``min_samples_leaf``, the root's sums of |stats|
    and the bounds' number of terms."""

    codes: np.ndarray
    stats: np.ndarray
    weights: object
    n_bins: int
    min_samples_leaf: int
    abs_total: np.ndarray
    n_terms: int


def _check(codes, Y, finder, weights):
    """The inputs as ``(codes, y, weights)``, zero-weight rows left out; ValueError naming
    the problem otherwise.  O(n f)."""
    if finder.splitter != "hist" or finder.bin_thresholds is None:
        raise ValueError("the optimal depth-2 tree searches the cuts between bins: give a "
                         "Finder('hist', 'squared_error') and its prepare(X) codes")
    if finder.criterion != SQUARED:
        raise ValueError(f"the optimal depth-2 tree is a squared-error tree; the finder's "
                         f"criterion is {finder.criterion!r}")
    if finder.categories is not None or finder.max_features is not None:
        raise ValueError("the optimal depth-2 tree searches every numeric feature: give a "
                         "finder without categories or max_features")
    codes = np.asarray(codes)
    if codes.ndim != 2 or codes.dtype.kind not in "iu" or codes.shape[1] != len(
            finder.bin_thresholds):
        raise ValueError(f"codes must be the finder's prepare(X) bin codes, (n, "
                         f"{len(finder.bin_thresholds)}) integers; got {codes.dtype} "
                         f"{codes.shape}")
    if (codes == MISSING_BIN).any():
        raise ValueError("the optimal depth-2 tree does not place missing values (NaN)")
    if codes.size and (codes.min() < 0 or codes.max() >= max(finder.n_bins, 2)):
        raise ValueError(f"codes must be the finder's prepare(X) bin codes, 0 to "
                         f"{max(finder.n_bins, 2) - 1}; got {codes.min()} to {codes.max()}")
    Y = check_array(as_columns(Y), name="Y", ndim=2)
    if Y.shape != (len(codes), 1):
        raise ValueError(f"Y must hold one target per row of codes, ({len(codes)}, 1); got "
                         f"{Y.shape}")
    if len(codes) == 0:
        raise ValueError("the optimal depth-2 tree needs at least one row")
    if weights is not None:
        weights = check_sample_weight(weights, len(codes))
    return without_zero_weights(codes.astype(np.intp), Y, weights)


def _score_child(counts, left, total, search):
    """Gains and bounds ``(R, B-1)`` of the cuts after every bin c of a child of each of R
    root cuts: ``counts`` (R, B) its rows per bin, ``left`` = (rows, sums, weight) (R, B)
    of its rows in bins <= c, ``total`` = (rows, sums, weight) (R,) of the child; -inf (bound
    0) where the cut is not a candidate.  O(R B)."""
    n_left, s_left, w_left = (part[:, :-1] for part in left)
    n_child, s_child, w_child = (part[:, None] for part in total)
    gains, bounds = score_cuts(s_left[..., None], w_left, s_child[..., None], w_child, SQUARED,
                               search.abs_total, n_terms=search.n_terms)
    msl = search.min_samples_leaf
    valid = (counts[:, :-1] > 0) & (n_left >= msl) & (n_child - n_left >= msl)
    return np.where(valid, gains, -np.inf), np.where(valid, bounds, 0.0)


def _pair_gains(j, k, search):
    """For every root cut after bin b of feature j (rows) and every cut after bin c of
    feature k (columns), the gains and bounds of the left child's and of the right child's
    cut: ``((gains, bounds), (gains, bounds))``, each (B-1, B-1), from one B x B table
    cumulated along both axes.  O(n + B^2)."""
    B = search.n_bins
    keys = search.codes[:, j] * B + search.codes[:, k]
    counts = np.bincount(keys, minlength=B * B).reshape(B, B)
    sums = np.bincount(keys, weights=search.stats, minlength=B * B).reshape(B, B)
    tables = [counts, sums] if search.weights is None else [counts, sums, np.bincount(
        keys, weights=search.weights, minlength=B * B).reshape(B, B)]
    columns = [np.cumsum(t, axis=0) for t in tables]               # code_j <= b, = c
    corner = [np.cumsum(t, axis=1) for t in columns]                # code_j <= b, <= c
    if search.weights is None:                  # the weights are the counts (integers)
        corner.append(corner[0])
    left = _score_child(columns[0][:-1], [t[:-1] for t in corner],
                        [t[:-1, -1] for t in corner], search)
    right = _score_child(columns[0][-1] - columns[0][:-1],
                         [t[-1] - t[:-1] for t in corner],
                         [t[-1, -1] - t[:-1, -1] for t in corner], search)
    return left, right


def _root_gains(j, search, root):
    """Gains and bounds (B-1,) of the root's cuts after every bin of feature j; ``root``
    = (rows, sums, weight) of the root.  O(n + B)."""
    codes = search.codes[:, j]
    counts = np.bincount(codes, minlength=search.n_bins)
    sums = np.bincount(codes, weights=search.stats, minlength=search.n_bins)
    weight = counts.astype(np.float64) if search.weights is None else np.bincount(
        codes, weights=search.weights, minlength=search.n_bins)
    left = [np.cumsum(t)[None] for t in (counts, sums, weight)]
    gains, bounds = _score_child(counts[None], left, [np.atleast_1d(t) for t in root], search)
    return gains[0], bounds[0]


def _children_best(j, search):
    """For every root cut after bin b of feature j, each child's best gain and its bound
    (the first highest over k, then c: the tie rule's reference) as ``(gains, bounds)``
    (2, B-1): -inf (bound 0) for a child without a candidate.  O(f (n + B^2))."""
    f, B = search.codes.shape[1], search.n_bins
    gains, bounds = np.full((2, f, B - 1), -np.inf), np.zeros((2, f, B - 1))
    rows = np.arange(B - 1)
    for k in range(f):
        for side, (g, e) in enumerate(_pair_gains(j, k, search)):
            at = np.argmax(g, axis=1)                   # the first highest cut of k
            gains[side, k], bounds[side, k] = g[rows, at], e[rows, at]
    at = np.argmax(gains, axis=1)                       # the first k with the highest
    sides = np.arange(2)[:, None]
    return gains[sides, at, rows], bounds[sides, at, rows]


def _total_gains(search, root):
    """The total gain of the best tree under every root cut, and its bound, (B-1, f) each
    (cuts x features, as ``best_cut`` takes them): the root cut's gain plus each child's
    best gain where it exceeds its bound (else 0: the child stays a leaf).  -inf where the
    root cut is not a candidate.  O(f^2 (n + B^2))."""
    f, B = search.codes.shape[1], search.n_bins
    totals, bounds = np.full((B - 1, f), -np.inf), np.zeros((B - 1, f))
    for j in range(f):
        gains, bound = _root_gains(j, search, root)
        if not np.isfinite(gains).any():
            continue
        child, child_bound = _children_best(j, search)
        splits = child > child_bound                    # -inf: no candidate, a leaf
        totals[:, j] = gains + np.where(splits, child, 0.0).sum(axis=0)   # -inf stays
        bounds[:, j] = bound + np.where(np.isfinite(child), child_bound, 0.0).sum(axis=0)
    return totals, bounds


def _child_cut(j, b, search):
    """The cuts of the two children of the root cut after bin b of feature j, each a
    ``(feature, bin)`` or None (a leaf), by the tie rule on every (k, c).  O(f (n + B^2))."""
    f = search.codes.shape[1]
    grids = [[], []]                                    # per side: f columns of (B-1,)
    for k in range(f):
        for side, (g, e) in enumerate(_pair_gains(j, k, search)):
            grids[side].append((g[b], e[b]))
    cuts = []
    for grid in grids:
        gains = np.column_stack([g for g, _ in grid])   # (B-1, f): cuts x features
        bounds = np.column_stack([e for _, e in grid])
        best = best_cut(gains, bounds)
        if best is None:
            cuts.append(None)
            continue
        reference = np.argmax(gains.T)                  # feature-major: the first highest
        split = gains.T.flat[reference] > bounds.T.flat[reference]
        cuts.append((best[1], best[0]) if split else None)
    return cuts


def grow_optimal_depth2(codes, Y, finder, weights=None):
    """The squared-error tree of depth at most 2 with the smallest training SSE, found
    exactly over the cuts between bins (the module's docstring explains the search).

    ``codes`` (n, f): ``finder.prepare(X)`` of a ``Finder("hist", "squared_error",
    min_samples_leaf=...)`` (no missing values), whose ``bin_thresholds`` turn bins into
    thresholds on X; ``Y`` (n,) or (n, 1) the targets; ``weights`` (n,) optional
    non-negative sample weights (a row of weight 0 takes no part).  Returns an
    ``OptimalDepth2`` (the tree, its SSE, its total gain and its cuts).  Ties: the lowest
    root feature, then bin, then child feature, then bin, among the totals equal up to
    rounding (the module's docstring).  Cost: O(f^2 (n + B^2)) time, O(n + B^2 + f B)
    memory.  Bad input: ValueError naming the problem.
    """
    codes, Y, weights = _check(codes, Y, finder, weights)
    n, B = len(codes), max(finder.n_bins, 2)
    node = node_statistics(Y, [n], SQUARED, weights)
    stats = node.stats[:, 0]
    search = _Search(codes, stats, weights, B, finder.min_samples_leaf,
                     node.abs_totals[0], 2 * (n + 2 * B))
    root = (np.intp(n), node.totals[0, 0], node.weight[0])
    totals, bounds = _total_gains(search, root)
    best = best_cut(totals, bounds)
    cuts = (None, None, None)
    if best is not None and totals[best] > bounds[best]:
        b, j = best
        cuts = ((j, b), *_child_cut(j, b, search))
    gain = 0.0 if cuts[0] is None else float(totals[cuts[0][::-1]])
    tree = _build(codes, Y, weights, finder, cuts)
    sse = float(np.sum((tree.weighted_n_node_samples * tree.impurity)[tree.is_leaf]))
    return OptimalDepth2(tree=tree, sse=sse, gain=gain, cuts=cuts)


def _build(codes, Y, weights, finder, cuts):
    """The ``Tree`` of ``cuts`` (root, left, right), nodes in pre-order, each holding its
    rows' mean, impurity, count and weight; a missing value would go to the larger child,
    as the histogram finder's splits send it.  O(n)."""
    recorder = TreeRecorder()

    def add(rows, parent, branch, cut, below):
        w = None if weights is None else weights[rows]
        stats = node_statistics(Y[rows], [len(rows)], SQUARED, w)
        node = recorder.add_nodes(stats.value[0], stats.impurity[0], len(rows), parent,
                                  branch, stats.weight[0])
        if cut is None:
            return
        feature, b = (int(v) for v in cut)
        goes_left = codes[rows, feature] <= b
        recorder.set_splits(node, feature, float(finder.bin_thresholds[feature][b]),
                            goes_left.sum() > len(rows) - goes_left.sum())
        add(rows[goes_left], node, LEFT, below[0], (None, None))
        add(rows[~goes_left], node, RIGHT, below[1], (None, None))

    add(np.arange(len(codes)), None, LEFT, cuts[0], cuts[1:])
    return recorder.finish()
