"""Level-wise growth: every node of a level is split at once, fully vectorized.

The per-node growers call a finder once per node, so a tree with thousands of nodes
costs thousands of Python calls, each sorting its node again.  Here the tree grows **one
level at a time** and Python runs a handful of numpy calls per level and feature:

1. sort every feature **once**, at the root;
2. keep, for every feature j, the row ``order[j]`` of the *active* samples (those in nodes
   that may still split), grouped by node (the nodes of the level one after the other)
   and sorted by feature j inside each node.  Every row has the same node boundaries,
   because a node holds the same samples whatever the feature: one list of segment
   starts describes them all;
3. find the best cut of every node of the level, one feature at a time, with *segmented*
   running sums that restart at every node (``treelib.segments.segmented_cumsum``) and
   the tie rule of ``treelib.split.best_cut`` (``treelib.growth.level_cuts``);
4. send each node's samples to its two children with a *stable partition* of every row
   (``partition_row``): the samples of a child stay sorted, so nothing is ever sorted
   again.  Samples that land in a leaf are dropped, so deep levels cost little.

The tree is the one the per-node growers grow with the ``"cumsum"`` finder (same splits,
same thresholds bit for bit, same tie rule and stopping rules), with the nodes numbered
breadth first: the root 0, then the nodes of depth 1 from left to right, and so on.

Cost: O(f n log n) once for the sort, then O(f n_active k) numpy work per level (n
samples, f features, k statistics per sample: 1 for squared error, the number of classes
for Gini and entropy) and O(f depth) Python iterations.  Memory: the f sorted rows of
sample ids and values, plus O(n_active k) per feature.
"""

from dataclasses import dataclass

import numpy as np

from treelib.criteria import NodeStatistics, node_statistics
from treelib.gains import bound_cap, gain_from_sums, gain_rounding_bound
from treelib.growth.level_cuts import ChunkScores, best_cuts
from treelib.segments import segment_ids, segment_starts, segmented_cumsum
from treelib.split import midpoint
from treelib.tree import LEFT, RIGHT, TreeRecorder


@dataclass
class Level:
    """The nodes of one level that may split, and their samples.

    Node s holds ``counts[s]`` samples, at positions ``starts[s] .. starts[s] +
    counts[s] - 1`` of every row of ``order`` and ``x_sorted`` (the same positions in
    every row: a node holds the same samples whatever the feature).
    """

    node_ids: np.ndarray     # (m,) ids in the tree
    counts: np.ndarray       # (m,) samples in each node
    nodes: NodeStatistics    # their totals, abs_totals, weight and scale (m rows)
    order: np.ndarray        # (f, n_active) sample ids, node by node, row j sorted by x_j
    x_sorted: np.ndarray     # (f, n_active) x_j of those samples


def check_no_missing(data):
    """Level-wise growth keeps every feature sorted; it does not place missing values."""
    if np.isnan(np.asarray(data, dtype=np.float64)).any():
        raise ValueError("level-wise growth does not handle missing values (NaN); grow "
                         "the tree with builder='depth_first' or 'best_first'")


def grow_level_wise_exact(data, Y, finder, rules, counter=None, weights=None):
    """Grow a tree one level at a time with exact cuts (the ``"cumsum"`` finder's).

    ``data`` (n, f) holds finite features (float32 or float64), ``Y`` (n, k) the
    targets, ``weights`` (n,) sample weights, ``finder`` the criterion and
    ``min_samples_leaf``; see ``treelib.growth.grow`` for the rest.  Nodes are numbered
    breadth first.
    """
    check_no_missing(data)
    criterion, min_samples_leaf = finder.criterion, finder.min_samples_leaf
    tree = TreeRecorder()
    root_node = node_statistics(Y, [len(Y)], criterion, weights)
    root = tree.add_nodes(root_node.value, root_node.impurity, [len(Y)],
                          weight=root_node.weight)
    if rules.is_leaf(len(Y), root_node.impurity[0], 0, min_samples_leaf):
        return tree.finish()
    stats = np.array(root_node.stats, dtype=np.float64)   # re-centred node by node
    index = np.int32 if len(Y) < 2**31 else np.intp
    columns = np.ascontiguousarray(np.asarray(data).T)
    order = np.argsort(columns, axis=1, kind="stable").astype(index)
    level = Level(node_ids=root, counts=np.array([len(Y)]), nodes=root_node, order=order,
                  x_sorted=np.take_along_axis(columns, order, axis=1))
    del columns
    depth, total_weight = 0, float(root_node.weight[0])
    while level is not None:
        if counter is not None:
            counter.searched(depth, len(level.counts), level.order.shape[1])
            counter.held(level.order.nbytes + level.x_sorted.nbytes)
        level = grow_level(level, Y, weights, stats, criterion, min_samples_leaf, depth,
                           rules, tree, total_weight)
        depth += 1
    return tree.finish()


#: Features scored together: as many as keep a chunk's temporary arrays (positions x
#: features x statistics) below this many values.
CHUNK_VALUES = 2**21


def feature_scores(level, stats, weights, features, criterion, min_samples_leaf):
    """The ``ChunkScores`` (``treelib.growth.level_cuts``) of the given features: the
    gain of every cut in every node of the level, in the order of the positions in each
    feature's row (slots: a node's positions; labels: each position's offset in its
    node), with the rounding bounds computed on demand.

    The left sums of a node's cuts are the running sums of its samples' statistics in
    the row's order, restarted at each node, so each node's sums are those of the
    per-node ``"cumsum"`` finder bit for bit.  A cut is a candidate when the next value
    is larger and both children keep ``min_samples_leaf`` samples.  O(positions x
    features x k).
    """
    counts, nodes = level.counts, level.nodes
    samples, x = level.order[features], level.x_sorted[features]     # (c, p)
    segment = segment_ids(counts)
    n_node = counts[segment][:, None]
    offset = np.arange(samples.shape[1]) - segment_starts(counts)[segment]
    n_left = offset[:, None] + 1
    left_sums = segmented_cumsum(stats[samples.T], counts)            # (p, c, k)
    w_node = nodes.weight[segment][:, None]
    w_left = n_left if weights is None else segmented_cumsum(weights[samples.T], counts)
    with np.errstate(divide="ignore", invalid="ignore"):
        gains = gain_from_sums(left_sums, w_left, nodes.totals[segment][:, None], w_node,
                               criterion)
    valid = (n_left >= min_samples_leaf) & (n_node - n_left >= min_samples_leaf)
    valid = valid & np.vstack([(x[:, 1:] > x[:, :-1]).T, np.zeros((1, len(features)), bool)])
    if weights is not None:
        valid &= (w_left > 0) & (w_left < w_node)
    gains = np.where(valid & np.isfinite(gains), gains, -np.inf)

    def bounds_at(rows, columns):
        node = segment[rows]
        left = n_left[rows, 0] if weights is None else w_left[rows, columns]
        return gain_rounding_bound(left_sums[rows, columns], left, nodes.totals[node],
                                   nodes.weight[node], criterion,
                                   None if nodes.abs_totals is None else nodes.abs_totals[node],
                                   gains[rows, columns], n_terms=counts[node])

    return ChunkScores(gains=gains, slots=counts, labels=offset, bounds_at=bounds_at,
                       cap=lambda max_gain: bound_cap(nodes.totals, nodes.weight, criterion,
                                                      nodes.abs_totals, max_gain, counts,
                                                      nodes.scale))


def feature_chunks(level, stats):
    """The features in groups small enough to score together (``CHUNK_VALUES``)."""
    n_features, n_active = level.order.shape
    size = max(1, min(n_features, CHUNK_VALUES // max(1, n_active * stats.shape[1])))
    return [list(range(j, min(j + size, n_features))) for j in range(0, n_features, size)]


def grow_level(level, Y, weights, stats, criterion, min_samples_leaf, depth, rules, tree,
               total_weight):
    """Split every node of ``level`` at once; return the next level (None if no node of
    it may split).

    Adds all the children to ``tree`` (the leaves too), re-centres ``stats`` on them
    (squared error), and keeps in the next level only the children that may split.
    O(f n_active k) numpy work.
    """
    counts = level.counts
    starts, segment = segment_starts(counts), segment_ids(counts)
    n_active = level.order.shape[1]

    # 1. Every node's best cut; the nodes whose cut passes the rules split.
    feature, cut, gain = best_cuts(
        len(counts), feature_chunks(level, stats),
        lambda features: feature_scores(level, stats, weights, features, criterion,
                                        min_samples_leaf))
    splitting = ~rules.rejects(gain, total_weight)
    parents = np.flatnonzero(splitting)
    if len(parents) == 0:
        return None

    # 2. Where every active sample goes: the first cut + 1 samples of its node's row of
    #    the chosen feature go left.  A node that does not split sends all its samples
    #    "left", into a child that is dropped.
    n_left = np.where(splitting, cut + 1, counts)
    n_right = counts - n_left
    positions = np.arange(n_active)
    goes_left = np.empty(len(Y), dtype=bool)                 # indexed by sample id
    goes_left[level.order[feature[segment], positions]] = (
        positions - starts[segment] < n_left[segment])

    # 3. Record the splits.  The children take the next ids, left then right, in node
    #    order: breadth-first numbering.
    at = starts[parents] + cut[parents]
    threshold = midpoint(level.x_sorted[feature[parents], at],
                         level.x_sorted[feature[parents], at + 1])
    child_counts = np.column_stack([n_left[parents], n_right[parents]]).ravel()

    # 4. The children's statistics, from feature 0's row partitioned (every child kept);
    #    for squared error, the children's centred targets become ``stats``.
    children = partition_row(level.order[0], goes_left[level.order[0]], counts, n_left,
                             splitting, splitting)
    child = node_statistics(Y[children], child_counts, criterion,
                            None if weights is None else weights[children])
    child_ids = tree.add_nodes(child.value, child.impurity, child_counts,
                               np.repeat(level.node_ids[parents], 2),
                               np.tile([LEFT, RIGHT], len(parents)), child.weight)
    tree.set_splits(level.node_ids[parents], feature[parents], threshold,
                    n_left[parents] > n_right[parents])  # no missing value: the larger child
    if criterion == "squared_error":
        stats[children] = child.stats

    # 5. The next level: the children that may split, every row partitioned stably.
    keep = ~rules.is_leaf(child_counts, child.impurity, depth + 1, min_samples_leaf)
    if not keep.any():
        return None
    keep_left, keep_right = np.zeros_like(splitting), np.zeros_like(splitting)
    keep_left[parents], keep_right[parents] = keep[0::2], keep[1::2]
    n_next = int(np.sum(np.where(keep_left, n_left, 0) + np.where(keep_right, n_right, 0)))
    order = np.empty((level.order.shape[0], n_next), dtype=level.order.dtype)
    x_sorted = np.empty((level.order.shape[0], n_next), dtype=level.x_sorted.dtype)
    chunk = max(1, CHUNK_VALUES // max(1, n_active))
    for j in range(0, level.order.shape[0], chunk):
        rows = slice(j, j + chunk)
        here = goes_left[level.order[rows]]
        order[rows], x_sorted[rows] = partition_rows(
            [level.order[rows], level.x_sorted[rows]], here, counts, n_left, keep_left,
            keep_right)
    return Level(node_ids=child_ids[keep], counts=child_counts[keep],
                 nodes=select(child, keep), order=order, x_sorted=x_sorted)


def select(nodes, keep):
    """The per-node fields of ``NodeStatistics`` for the nodes ``keep`` (stats dropped)."""
    return nodes._replace(value=None, impurity=None, stats=None, totals=nodes.totals[keep],
                          abs_totals=None if nodes.abs_totals is None else nodes.abs_totals[keep],
                          weight=nodes.weight[keep], scale=nodes.scale[keep])


def partition_rows(arrays, goes_left, counts, n_left, keep_left, keep_right):
    """Stable partition of rows into the left and right children of every node.

    Each array of ``arrays`` (r, p) holds, row by row, the nodes' samples one node after
    the other (``counts``), and ``goes_left`` (r, p) says where each one goes; node s
    sends ``n_left[s]`` left in every row.  In the result, node s's left child comes
    first, then its right child, for s = 0, 1, ...; children with ``keep_left`` /
    ``keep_right`` False are left out.  Inside each child the samples keep their order (so
    they stay sorted).  O(r p).

    The index arithmetic: the samples going left before position q number ``c =
    cumsum(goes_left)[q] - goes_left[q]``, those before node s's segment
    ``left_before[s] = n_left[0] + ... + n_left[s - 1]``.  A sample at position q of node
    s that goes left is number ``c - left_before[s]`` of its left child; one that goes
    right is number ``(q - starts[s]) - (c - left_before[s])`` of its right child.
    Adding where each child begins in the output gives its destination.
    """
    starts, segment = segment_starts(counts), segment_ids(counts)
    sizes = np.column_stack([np.where(keep_left, n_left, 0),
                             np.where(keep_right, counts - n_left, 0)]).ravel()
    new_start = segment_starts(sizes)
    left_before = segment_starts(n_left)
    n_rows, n_new = goes_left.shape[0], int(sizes.sum())
    trash = n_rows * n_new                         # one slot past the output
    inclusive = np.cumsum(goes_left, axis=1, dtype=np.intp)
    to_left = np.where(keep_left, new_start[0::2] - 1 - left_before, trash)[segment] + inclusive
    to_right = (np.where(keep_right, new_start[1::2] - starts + left_before, trash)[segment]
                + np.arange(goes_left.shape[1]) - inclusive)
    destination = np.where(goes_left, to_left, to_right)
    destination += (np.arange(n_rows) * n_new)[:, None]            # rows one after another
    np.minimum(destination, trash, out=destination)
    result = []
    for array in arrays:
        out = np.empty(trash + 1, dtype=array.dtype)
        out[destination.ravel()] = array.ravel()
        result.append(out[:-1].reshape(n_rows, n_new))
    return result


def partition_row(row, goes_left, counts, n_left, keep_left, keep_right):
    """``partition_rows`` for one row."""
    return partition_rows([row[None]], goes_left[None], counts, n_left, keep_left,
                          keep_right)[0][0]
