"""Level-wise tree growth: every node of a level is split at once, fully vectorized.

The depth-first builders call a split finder once per node, so a tree with thousands of
nodes costs thousands of Python calls, each sorting its node again.  Here the tree
grows **one level at a time** and Python runs only a handful of numpy calls per level:

1. sort every feature **once**, at the root;
2. keep, for every feature j, the row ``order[j]`` of the *active* samples (those in
   nodes that may still split), grouped by node (the nodes of the level one after the
   other, in node order) and sorted by feature j inside each node.  Every row has the
   same node boundaries, because a node holds the same samples whatever the feature:
   one list of segment starts describes them all;
3. find the best cut of every node of the level with one *segmented* cumulative sum
   (``_best_cut_per_node``);
4. send each node's samples to its two children with a *stable partition* of every row
   (``_partition``): the samples of a child stay sorted, so nothing is ever re-sorted.
   Samples that land in a leaf are dropped, so deep levels cost little.

The tree is the same as the depth-first builders grow with the ``"cumsum"`` split
finder (same splits, same thresholds bit for bit, same tie rule and stopping rules),
with the nodes numbered breadth first: the root 0, then the nodes of depth 1 from left
to right, and so on.

Cost: O(f n log n) once for the sort, then O(f n_active k) numpy work per level (n
samples, f features, k statistics per sample: 1 for squared error, the number of
classes for Gini and entropy) and O(depth) Python iterations.
"""

from dataclasses import dataclass

import numpy as np

from treelib.builders import EPSILON, is_leaf_by_rule
from treelib.criteria import gain_from_sums, xlog2x
from treelib.splits import TIE_RTOL, midpoint
from treelib.tree import TREE_LEAF, TREE_UNDEFINED, Tree


def build_level_wise(X, Y, criterion="squared_error", *, max_depth=None,
                     min_samples_split=2, min_samples_leaf=1,
                     min_impurity_decrease=0.0, n_total=None):
    """Grow a tree one level at a time, all the nodes of a level together.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Finite float features (already validated).
    Y : ndarray of shape (n_samples, k)
        Per-sample statistics: the raw targets as one column for ``"squared_error"``
        (each node centres them on its own mean), the one-hot matrix of the classes
        for ``"gini"`` and ``"entropy"``.
    criterion : {"squared_error", "gini", "entropy"}
    max_depth, min_samples_split, min_samples_leaf, min_impurity_decrease :
        scikit-learn's stopping rules (see ``treelib.builders.StoppingRules``).
    n_total : int, optional
        The number of training samples that ``min_impurity_decrease`` divides the gain
        by; the number of rows of ``X`` if None.

    Returns
    -------
    Tree
        Nodes numbered breadth first; ``value`` (nodes, k) holds each node's mean of
        ``Y`` (the mean target, or the class proportions).

    Notes
    -----
    Cost: O(f n log n) for the one sort at the root, then O(f n_active k) numpy work
    per level, where n_active counts the samples of the nodes that may still split,
    and O(depth) Python iterations: Python never loops over nodes or samples.
    """
    X = np.ascontiguousarray(X, dtype=np.float64)
    Y = np.asarray(Y, dtype=np.float64)
    Y = np.ascontiguousarray(Y[:, None] if Y.ndim == 1 else Y)
    rules = _Rules.of(max_depth, min_samples_split, min_samples_leaf,
                      min_impurity_decrease, len(X) if n_total is None else n_total)
    tree, root = _grow_root(Y, criterion, rules)
    if root is None:
        return tree.finish()
    counts, impurity, totals, centred = root

    # Per-sample statistics that the cumulative sums add up: for squared error the
    # target centred on the mean of the sample's current node (re-centred on every new
    # node), for the classification criteria the one-hot classes.  One column: 1-D.
    stats = centred if criterion == "squared_error" else Y
    if Y.shape[1] == 1:
        stats = np.ascontiguousarray(stats[:, 0])

    # Sort every feature once: ``order[j]`` is ``np.argsort(X, axis=0, kind="stable")
    # [:, j]``, computed on a contiguous copy of the column; ``x_sorted[j]`` its values.
    XT = np.ascontiguousarray(X.T)
    order = np.argsort(XT, axis=1, kind="stable")
    level = _Level(node_ids=np.array([0]), counts=counts, totals=totals,
                   weight=counts * impurity, order=order,
                   x_sorted=np.take_along_axis(XT, order, axis=1))
    del XT
    depth = 0
    while level is not None:                      # one iteration per level
        level = _grow_level(level, Y, stats, criterion, depth, rules, tree)
        depth += 1
    return tree.finish()


@dataclass(frozen=True)
class _Rules:
    """scikit-learn's stopping rules (``treelib.builders.StoppingRules``), vectorized."""

    max_depth: float
    min_samples_split: int
    min_samples_leaf: int
    min_impurity_decrease: float
    n_total: int

    @classmethod
    def of(cls, max_depth, min_samples_split, min_samples_leaf, min_impurity_decrease,
           n_total):
        """The rules from the builders' arguments (``max_depth`` None: no limit)."""
        return cls(np.inf if max_depth is None else max_depth, min_samples_split,
                   min_samples_leaf, min_impurity_decrease, n_total)

    def is_leaf(self, counts, impurity, depth):
        """Nodes that are leaves before any search (``is_leaf_by_rule``), as a mask."""
        return is_leaf_by_rule(counts, depth, impurity, max_depth=self.max_depth,
                               min_samples_split=self.min_samples_split,
                               min_samples_leaf=self.min_samples_leaf)

    def rejects(self, gain):
        """Nodes whose best gain is too small to split (or -inf: no candidate cut)."""
        return ~np.isfinite(gain) | (
            np.maximum(gain, 0.0) / self.n_total + EPSILON < self.min_impurity_decrease)


@dataclass(frozen=True)
class _Level:
    """The nodes of one level that may split, and their samples.

    Node s holds ``counts[s]`` samples, which occupy positions ``starts[s] ..
    starts[s] + counts[s] - 1`` of every row of ``order`` and ``x_sorted`` (the same
    positions in every row: a node holds the same samples whatever the feature).
    """

    node_ids: np.ndarray    # (m,) ids in the tree
    counts: np.ndarray      # (m,) samples in each node
    totals: np.ndarray      # (m, k) sums of the statistics of each node
    weight: np.ndarray      # (m,) n I(node): the scale of the tie rule
    order: np.ndarray       # (f, n_active) sample ids, node by node, row j sorted by x_j
    x_sorted: np.ndarray    # (f, n_active) x_j of those samples


class _TreeParts:
    """The tree as it grows: node attributes level by level, in breadth-first id
    order, and the splits made."""

    def __init__(self):
        self.levels, self.splits, self.node_count = [], [], 0

    def add_nodes(self, value, impurity, counts):
        """Append nodes (leaves until split); return their ids."""
        self.levels.append((value, impurity, counts))
        self.node_count += len(counts)
        return np.arange(self.node_count - len(counts), self.node_count)

    def set_splits(self, node_ids, feature, threshold, left_ids):
        self.splits.append((node_ids, feature, threshold, left_ids))

    def finish(self):
        """The flat ``Tree``.  O(nodes)."""
        value, impurity, counts = (np.concatenate(parts) for parts in zip(*self.levels))
        children_left = np.full(self.node_count, TREE_LEAF, dtype=np.intp)
        children_right = np.full(self.node_count, TREE_LEAF, dtype=np.intp)
        feature = np.full(self.node_count, TREE_UNDEFINED, dtype=np.intp)
        threshold = np.full(self.node_count, float(TREE_UNDEFINED))
        for ids, split_feature, split_threshold, left in self.splits:
            children_left[ids], children_right[ids] = left, left + 1
            feature[ids], threshold[ids] = split_feature, split_threshold
        return Tree(children_left=children_left, children_right=children_right,
                    feature=feature, threshold=threshold, value=value,
                    impurity=impurity, n_node_samples=counts.astype(np.intp))


def _grow_root(Y, criterion, rules):
    """A new tree holding its root, grown from all the samples in their original order.

    Returns ``(tree, root)``: ``root`` is ``(counts, impurity, totals, centred)`` as
    ``_node_stats`` gives them for the one root node, or None when a stopping rule makes
    the root a leaf.
    """
    tree = _TreeParts()
    counts = np.array([len(Y)])
    value, impurity, totals, centred = _node_stats(Y, counts, criterion)
    tree.add_nodes(value, impurity, counts)
    if rules.is_leaf(counts, impurity, depth=0)[0]:
        return tree, None
    return tree, (counts, impurity, totals, centred)


def _grow_level(level, Y, stats, criterion, depth, rules, tree):
    """Split every node of ``level`` at once; return the next level's ``_Level``.

    Adds the children to ``tree`` (all of them: those that are leaves too) and
    re-centres ``stats`` on them (squared error).  The next level keeps only the
    children that may split; None if there are none.  O(f n_active k) numpy work, a
    fixed number of numpy calls.
    """
    counts, order, x_sorted = level.counts, level.order, level.x_sorted
    starts = _segment_starts(counts)
    segment = np.repeat(np.arange(len(counts)), counts)   # node of every position

    # 1. Every node's best cut; the nodes whose cut passes min_impurity_decrease split.
    feature, cut, gain = _best_cut_per_node(stats, level, starts, segment,
                                            rules.min_samples_leaf, criterion)
    splitting = ~rules.rejects(gain)
    parents = np.flatnonzero(splitting)
    if len(parents) == 0:
        return None

    # 2. Where every active sample goes.  The first n_left samples of the node's row
    #    of its feature go left.  A node that does not split sends all its samples
    #    "left", into a child that is dropped.
    n_left = np.where(splitting, cut - starts + 1, counts)
    n_right = counts - n_left
    positions = np.arange(order.shape[1])
    goes_left = np.empty(len(Y), dtype=bool)               # indexed by sample id
    goes_left[order[feature[segment], positions]] = (
        positions - starts[segment] < n_left[segment])
    goes_left = goes_left[order]                           # (f, n_active): every row

    # 3. Record the splits.  The children take the next ids, left then right, in node
    #    order: breadth-first numbering.
    threshold = midpoint(x_sorted[feature[parents], cut[parents]],
                         x_sorted[feature[parents], cut[parents] + 1])
    child_counts = np.column_stack([n_left[parents], n_right[parents]]).ravel()

    # 4. The children's statistics, from feature 0's row partitioned (every child
    #    kept); for squared error, the children's centred targets become ``stats``.
    (row0,) = _partition([order[:1]], goes_left[:1], segment, starts, n_left, n_right,
                         splitting, splitting)
    value, impurity, child_totals, centred = _node_stats(Y[row0[0]], child_counts,
                                                          criterion)
    child_ids = tree.add_nodes(value, impurity, child_counts)
    tree.set_splits(level.node_ids[parents], feature[parents], threshold, child_ids[0::2])
    if centred is not None:
        stats[row0[0]] = centred.reshape(len(centred), *stats.shape[1:])

    # 5. The next level: the children that may split, every row partitioned stably.
    keep = ~rules.is_leaf(child_counts, impurity, depth + 1)
    keep_left, keep_right = np.zeros_like(splitting), np.zeros_like(splitting)
    keep_left[parents], keep_right[parents] = keep[0::2], keep[1::2]
    if not keep.any():
        return None
    order, x_sorted = _partition([order, x_sorted], goes_left, segment, starts, n_left,
                                 n_right, keep_left, keep_right)
    return _Level(node_ids=child_ids[keep], counts=child_counts[keep],
                  totals=child_totals[keep], weight=(child_counts * impurity)[keep],
                  order=order, x_sorted=x_sorted)


def _segment_starts(counts):
    """Position where each node's segment begins: ``[0, c0, c0 + c1, ...]``.

    The nodes of a level lie one after the other in every row, node s on positions
    ``starts[s] .. starts[s] + counts[s] - 1``.  O(nodes).
    """
    starts = np.zeros(len(counts), dtype=np.intp)
    np.cumsum(counts[:-1], out=starts[1:])
    return starts


def _node_stats(Y_rows, counts, criterion):
    """Value, impurity and sums of statistics of consecutive nodes.

    ``Y_rows`` (n, k) holds the statistics of the samples of node 0, then those of
    node 1, ... (``counts`` samples each).  Returns ``(value, impurity, totals,
    centred)``: ``value`` (nodes, k) the mean of Y in each node, ``impurity`` (nodes,)
    as ``node_impurity`` computes it, ``totals`` (nodes, k) the sums the gains need
    (of the centred targets for squared error, of the one-hot classes otherwise), and
    for squared error ``centred`` (n, k), every target minus its node's mean (None for
    the classification criteria).  O(n k) with ``np.add.reduceat``.

    Squared error is centred in two steps, as ``treelib.criteria.centered`` does: first
    subtract the node's first target (exact for a constant node, and it removes a large
    offset without losing digits), then the mean of what is left.  A constant node
    therefore has impurity exactly 0.
    """
    starts = _segment_starts(counts)
    segment = np.repeat(np.arange(len(counts)), counts)
    size = counts[:, None].astype(np.float64)
    if criterion == "squared_error":
        anchor = Y_rows[starts]                                   # first target of each node
        shifted = Y_rows - anchor[segment]
        shift_mean = np.add.reduceat(shifted, starts, axis=0) / size
        centred = shifted - shift_mean[segment]
        squares = np.add.reduceat(centred * centred, starts, axis=0)
        impurity = squares.sum(axis=1) / counts
        totals = np.add.reduceat(centred, starts, axis=0)
        return anchor + shift_mean, impurity, totals, centred
    totals = np.add.reduceat(Y_rows, starts, axis=0)              # class counts
    p = totals / size
    if criterion == "gini":
        impurity = 1.0 - np.sum(p * p, axis=1)
    else:
        impurity = -np.sum(xlog2x(p), axis=1)
    return p, impurity + 0.0, totals, None


def _best_cut_per_node(stats, level, starts, segment, min_samples_leaf, criterion):
    """The best cut of every node of the level, all features at once.

    Returns ``(feature, cut, gain)``, one entry per node: the cut sends the samples of
    positions ``starts[s] .. cut[s]`` of row ``feature[s]`` left; ``gain`` is -inf for
    a node without any candidate cut.  Tie rule of ``treelib.splits.pick_best``: gains
    within ``TIE_RTOL * weight`` of the node's best are tied, and the lowest feature,
    then the lowest threshold (the first cut in sorted order) wins.
    O(f n_active k), a fixed number of numpy calls.
    """
    order, x_sorted, counts, totals = level.order, level.x_sorted, level.counts, level.totals
    n_active = order.shape[1]
    # Per-position quantities shared by every row (a position is in the same node in
    # every row): size of the left and right child of a cut after this position.
    n_node = counts[segment]
    n_left = np.arange(1, n_active + 1) - starts[segment]      # 1, 2, ... in each node
    n_right = n_node - n_left                                  # 0 at a node's last position

    # Left sums of every cut of every feature: ONE cumulative sum over the whole row
    # (all nodes one after the other), minus the running value just before the node's
    # segment starts.  ``sums[j, p]`` then adds up the statistics of positions
    # starts[s] .. p of row j, the left child of the cut after position p.
    sums = np.take(stats, order, axis=0)                       # (f, n_active[, k])
    np.cumsum(sums, axis=1, out=sums)
    if len(starts) > 1:
        before = sums[:, starts[1:] - 1]                       # running value at node ends
        sums[:, starts[1]:] -= np.repeat(before, counts[1:], axis=1)

    # Per-position values broadcast against (n_active,) or (n_active, k).
    along = (-1,) + (1,) * (sums.ndim - 2)
    total_here = totals[segment].reshape(sums.shape[1:])       # the node's sums
    if criterion == "entropy":
        gains = gain_from_sums(sums, n_left, total_here, n_node, criterion)
    else:
        # Squared error and Gini: the variance-to-sum identity of ``gain_from_sums``,
        #     S_L^2/n_L + S_R^2/n_R - S^2/n  =  (n S_L - n_L S)^2 / (n n_L n_R),
        # rearranged so that no large terms cancel; summed over the k columns.
        gains = sums * n_node.reshape(along).astype(np.float64)
        gains -= n_left.reshape(along) * total_here
        gains *= gains
        if gains.ndim == 3:
            gains = gains.sum(axis=2)
        denominator = (n_node * n_left * n_right).astype(np.float64)
        gains *= np.divide(1.0, denominator, out=np.zeros(n_active), where=n_right > 0)

    # Candidate cuts only: between two different values, both children large enough.
    too_small = (n_left < min_samples_leaf) | (n_right < min_samples_leaf)
    np.copyto(gains, -np.inf, where=too_small)
    np.copyto(gains[:, :-1], -np.inf, where=x_sorted[:, 1:] == x_sorted[:, :-1])

    # Best gain of every (feature, node), then of every node; the tie rule.
    best_per_feature = np.maximum.reduceat(gains, starts, axis=1)     # (f, nodes)
    best = best_per_feature.max(axis=0)
    tied_from = best - TIE_RTOL * level.weight
    feature = np.argmax(best_per_feature >= tied_from, axis=0)        # lowest tied feature
    # The first tied cut in the chosen feature's row: the lowest position whose gain is
    # tied, found as a segmented minimum over positions (n_active marks "not tied").
    gain_here = gains[feature[segment], np.arange(n_active)]
    tied = gain_here >= tied_from[segment]
    # (A node without any cut has best = -inf, every position "tied": cut = its start.)
    cut = np.minimum.reduceat(np.where(tied, np.arange(n_active), n_active), starts)

    # The gain of each chosen cut, from its left sums, by ``gain_from_sums``.
    gain = np.full(len(counts), -np.inf)
    has_cut = np.isfinite(best)
    s, left_sums = np.flatnonzero(has_cut), sums[feature[has_cut], cut[has_cut]]
    gain[s] = gain_from_sums(left_sums.reshape(totals[s].shape), cut[s] - starts[s] + 1,
                             totals[s], counts[s], criterion)
    return feature, cut, gain


def _partition(rows, goes_left, segment, starts, n_left, n_right, keep_left, keep_right):
    """Stable partition of every row into left and right children; drop some children.

    ``rows``: arrays (r, n_active) laid out like ``goes_left`` (r, n_active), which
    says where the sample at each position goes.  In the result, node s's left child
    (``n_left[s]`` samples) comes first, then its right child, for s = 0, 1, ...;
    children with ``keep_left`` / ``keep_right`` False are left out.  Inside each
    child the samples keep their order (so they stay sorted).  O(r n_active).

    The index arithmetic: in row j, the samples going left before position p number
    ``c = cumsum(goes_left[j])[p] - goes_left[j, p]``; those before node s's segment
    number ``left_before[s] = n_left[0] + ... + n_left[s - 1]`` in every row.  A sample
    at position p of node s that goes left is therefore number ``c - left_before[s]``
    of its left child; one that goes right is number ``(p - starts[s]) - (c -
    left_before[s])`` of its right child.  Adding the position where each child begins
    in the output gives its destination.
    """
    n_rows, n_active = goes_left.shape
    sizes = np.column_stack([np.where(keep_left, n_left, 0),
                             np.where(keep_right, n_right, 0)]).ravel()
    new_start = _segment_starts(sizes)
    n_new = int(sizes.sum())
    left_before = _segment_starts(n_left)
    # Per-node offsets, so that destination = offset + running count; a dropped child
    # gets a huge offset, clipped below to the one trash slot past the output.
    huge = 4 * n_rows * (n_active + 1)
    left_offset = np.where(keep_left, new_start[0::2] - 1 - left_before, huge)
    right_offset = np.where(keep_right, new_start[1::2] - starts + left_before, huge)

    inclusive = np.cumsum(goes_left, axis=1, dtype=np.intp)  # left-goers up to p, p included
    # goes left:  new_start_left + c - left_before, with c = inclusive - 1
    # goes right: new_start_right + (p - starts) - (c - left_before), with c = inclusive
    destination = np.arange(n_active) + right_offset[segment] - inclusive
    inclusive += left_offset[segment]
    np.copyto(destination, inclusive, where=goes_left)
    destination += (np.arange(n_rows) * n_new)[:, None]   # rows one after the other
    np.minimum(destination, n_rows * n_new, out=destination)
    del inclusive

    result = []
    for row in rows:
        out = np.empty(n_rows * n_new + 1, dtype=row.dtype)
        out[destination.ravel()] = row.ravel()
        result.append(out[:-1].reshape(n_rows, n_new))
    return result
