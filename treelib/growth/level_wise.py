"""Level-wise growth: every node of a level is split at once, fully vectorized.

The per-node growers call a finder once per node, so a tree with thousands of nodes
costs thousands of Python calls, each sorting its node again.  Here the tree grows **one
level at a time** and Python runs a number of numpy calls per level that depends on the
feature chunks and the node sizes, not on how many nodes the level holds:

1. sort every feature **once**, at the root;
2. keep, for every feature j, the row ``order[j]`` of the *active* samples (those in nodes
   that may still split), grouped by node (the nodes of the level one after the other)
   and sorted by feature j inside each node.  Every row has the same node boundaries,
   because a node holds the same samples whatever the feature: one list of segment
   starts describes them all;
3. find the best cut of every node of the level, a chunk of features per call (as many as
   fit in ``CHUNK_VALUES``), with *segmented*
   running sums that restart at every node (``treelib.segments.segmented_cumsum``) and
   the tie rule of ``treelib.split.best_cut`` (``treelib.growth.level_cuts``);
4. send each node's samples to its two children with a *stable partition* of every row
   (``partition``): the samples of a child stay sorted, so nothing is ever sorted
   again.  Samples that land in a leaf are dropped, so deep levels cost little.

The tree is the one the per-node growers grow with the ``"cumsum"`` finder (same splits,
same thresholds bit for bit, same tie rule and stopping rules), with the nodes numbered
breadth first: the root 0, then the nodes of depth 1 from left to right, and so on.

Cost: O(f n log n) once for the sort, then O(f n_active k) numpy work per level (n
samples, f features, k statistics per sample: 1 for squared error, the number of classes
for Gini and entropy) and O(f depth) Python iterations.  Memory: the f sorted rows of
sample ids and values, plus O(n_active k) per feature (unweighted classification: a
block of ``CHUNK_VALUES``, ``treelib.growth.level_classes``).
"""

from dataclasses import dataclass

import numpy as np

from treelib.criteria import NodeStatistics, node_statistics
from treelib.gains import bound_cap, gain_from_sums, gain_rounding_bound, split_statistics
from treelib.growth.level_classes import children_statistics, class_blocks, class_scores
from treelib.growth.level_cuts import best_cuts
from treelib.growth.threads import CHUNK_VALUES, feature_chunks, run_chunks
from treelib.segments import segment_ids, segment_starts, segmented_cumsum
from treelib.split import Candidates, midpoint
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


def grow_level_wise_exact(data, Y, finder, rules, counter=None, weights=None, *, n_jobs=1):
    """Grow a tree one level at a time with exact cuts (the ``"cumsum"`` finder's).

    ``data`` (n, f) holds finite features (float32 or float64), ``Y`` (n, k) the
    targets, ``weights`` (n,) sample weights, ``finder`` the criterion and
    ``min_samples_leaf``, ``n_jobs`` the threads that share each level's sort and search (a
    group of features each; the tree is the same for every value); see
    ``treelib.growth.grow`` for the rest.  Nodes are numbered breadth first.
    """
    check_no_missing(data)
    criterion, min_samples_leaf = finder.criterion, finder.min_samples_leaf
    tree = TreeRecorder()
    root_node = node_statistics(Y, [len(Y)], criterion, weights)
    root = tree.add_nodes(root_node.value, root_node.impurity, [len(Y)],
                          weight=root_node.weight)
    if rules.is_leaf(len(Y), root_node.impurity[0], 0, min_samples_leaf):
        return tree.finish()
    classes = class_codes(Y, criterion, weights)
    # re-centred node by node (squared error); with classes only its width is read
    stats = root_node.stats if classes is not None else np.array(root_node.stats,
                                                                 dtype=np.float64)
    index = np.int32 if len(Y) < 2**31 else np.intp
    columns = np.ascontiguousarray(np.asarray(data).T)
    order = np.empty(columns.shape, dtype=index)
    x_sorted = np.empty_like(columns)

    def sort_rows(rows):                     # each feature sorted once, in threads
        order[rows] = np.argsort(columns[rows], axis=1, kind="stable")
        x_sorted[rows] = np.take_along_axis(columns[rows], order[rows], axis=1)

    run_chunks(sort_rows, feature_chunks(columns.shape[0], 4 * len(Y), n_jobs), n_jobs)
    level = Level(node_ids=root, counts=np.array([len(Y)]), nodes=root_node, order=order,
                  x_sorted=x_sorted)
    columns = None                           # (the sorted copy is all we keep)
    depth, total_weight = 0, float(root_node.weight[0])
    while level is not None:
        if counter is not None:
            counter.searched(depth, len(level.counts), level.order.shape[1])
            counter.held(level.order.nbytes + level.x_sorted.nbytes)
        level = grow_level(level, Y, weights, stats, classes, criterion, min_samples_leaf,
                           depth, rules, tree, total_weight, n_jobs)
        depth += 1
    return tree.finish()


def class_codes(Y, criterion, weights):
    """The class of every sample when the statistics are unweighted one-hot rows (their
    sums are counts, exact in any order), as 16-bit codes when they fit (a stable sort
    of those is a radix sort); None otherwise."""
    if criterion not in ("gini", "entropy") or weights is not None:
        return None
    return np.argmax(Y, axis=1).astype(np.uint16 if Y.shape[1] <= 2**16 else np.intp)


def cut_positions(x, counts, min_samples_leaf):
    """The candidate cuts of a chunk of rows: ``x`` (c, p) holds each feature's values,
    node after node (``counts``), sorted inside each node.  A cut after position q is a
    candidate when the next value is larger and both children keep ``min_samples_leaf``
    samples.  Returns the row and the position of every candidate, row by row, in
    increasing order.  O(c p)."""
    starts, segment = segment_starts(counts), segment_ids(counts)
    n_left = np.arange(x.shape[1]) - starts[segment] + 1
    allowed = (n_left >= min_samples_leaf) & (counts[segment] - n_left >= min_samples_leaf)
    is_cut = np.zeros(x.shape, dtype=bool)
    np.greater(x[:, 1:], x[:, :-1], out=is_cut[:, :-1])
    is_cut &= allowed
    row = np.repeat(np.arange(x.shape[0]), np.count_nonzero(is_cut, axis=1))
    return row, np.flatnonzero(is_cut) - row * x.shape[1]


def feature_scores(level, stats, weights, classes, features, criterion, min_samples_leaf):
    """The ``treelib.split.Candidates`` of the features ``features``
    (a range; with ``classes``, a block of ``treelib.growth.level_classes.class_blocks``):
    the gain of every candidate cut in every node of the level, labelled by
    its position in the node, with the rounding bounds computed on demand.

    The left sums of a node's cuts are the running sums of its samples' statistics in
    the row's order, restarted at each node, so each node's sums are those of the
    per-node ``"cumsum"`` finder bit for bit; only the candidate cuts are scored.  With
    ``classes`` (unweighted classification), the class counts left of the cuts are
    added up in blocks of bounded size (``level_classes.class_scores``).
    O(positions x features x k); with ``classes`` O(positions x features + runs x k),
    or O(positions x features) for Gini from ranks, in memory bounded by a block.
    """
    if classes is not None:
        return class_scores(level, classes, stats.shape[1], features, criterion,
                            min_samples_leaf)
    counts, nodes = level.counts, level.nodes
    rows = slice(features.start, features.stop)
    samples, x = level.order[rows], level.x_sorted[rows]              # (c, p) views
    c, p = samples.shape
    row, position = cut_positions(x, counts, min_samples_leaf)
    segment = segment_ids(counts)
    node = segment[position]
    offset = (np.arange(p) - segment_starts(counts)[segment])[position]
    at = position * c + row                        # in (p, c) arrays, flattened

    def running_sums(values):                      # (n, ...) -> at the cuts
        sums = segmented_cumsum(np.take(values, samples.T, axis=0), counts)
        return np.take(sums.reshape((p * c,) + values.shape[1:]), at, axis=0)

    left_sums = running_sums(stats)
    w_left = (offset + 1).astype(np.float64) if weights is None else running_sums(weights)
    w_node = nodes.weight[node]
    left_sums, positives_left = split_statistics(left_sums, criterion)
    totals, positives = split_statistics(nodes.totals, criterion)
    abs_totals = split_statistics(nodes.abs_totals, criterion)[0]
    with np.errstate(divide="ignore", invalid="ignore"):
        gains = gain_from_sums(left_sums, w_left, totals[node], w_node, criterion,
                               positives_left=positives_left,
                               positives=None if positives is None else positives[node])
    valid = np.isfinite(gains)
    if weights is not None:
        valid &= (w_left > 0) & (w_left < w_node)
    gains[~valid] = -np.inf

    def bounds_at(at):
        return gain_rounding_bound(left_sums[at], w_left[at], totals[node[at]],
                                   w_node[at], criterion,
                                   None if abs_totals is None else abs_totals[node[at]],
                                   gains[at], n_terms=counts[node[at]])

    return Candidates(gains=gains, node=node, feature=row + features.start, label=offset,
                       bounds_at=bounds_at,
                       cap=lambda max_gain: bound_cap(nodes.totals, nodes.weight, criterion,
                                                      nodes.abs_totals, max_gain, counts,
                                                      nodes.scale))


def grow_level(level, Y, weights, stats, classes, criterion, min_samples_leaf, depth, rules,
               tree, total_weight, n_jobs=1):
    """Split every node of ``level`` at once; return the next level (None if no node of
    it may split).

    Adds all the children to ``tree`` (the leaves too), re-centres ``stats`` on them
    (squared error), and keeps in the next level only the children that may split.
    O(f n_active k) numpy work, the search and the partition of the rows divided among
    ``n_jobs`` threads by groups of features (``treelib.growth.threads``).
    """
    counts = level.counts
    starts, segment = segment_starts(counts), segment_ids(counts)
    n_active = level.order.shape[1]

    # 1. Every node's best cut; the nodes whose cut passes the rules split.
    # k values per position and feature, counted twice: the scorer's temporaries (sums,
    # cut positions, nodes, gains) take about twice the bytes per value of the other
    # growers'; classes: blocks of rows or of positions
    width = stats.shape[1]
    chunks = (feature_chunks(level.order.shape[0], 2 * n_active * width, n_jobs)
              if classes is None else
              class_blocks(level.order.shape[0], n_active, width, n_jobs))
    feature, cut, gain = best_cuts(
        len(counts), chunks,
        lambda features: feature_scores(level, stats, weights, classes, features,
                                        criterion, min_samples_leaf), n_jobs)
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
    children, = partition(partition_plan(counts, n_left, splitting, splitting),
                          goes_left[level.order[0]], [level.order[0]])
    child = (node_statistics(Y[children], child_counts, criterion,
                             None if weights is None else weights[children])
             if classes is None else      # counted from the classes: no (n, k) rows
             children_statistics(classes, children, child_counts, Y.shape[1], criterion))
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
    plan = partition_plan(counts, n_left, keep_left, keep_right)
    # every feature's row moved by the plan, in place: the next level's rows are the
    # first n_next positions of this level's (views of the arrays sorted at the root,
    # which are never copied).  Groups of rows in threads, each group a few rows at a
    # time (one scatter per few rows, through a temporary of those rows only).
    order, x_sorted = level.order[:, :plan[2]], level.x_sorted[:, :plan[2]]
    n_rows = max(1, CHUNK_VALUES // max(1, 4 * n_active))

    def move(rows):
        for j in range(rows.start, rows.stop, n_rows):
            part = slice(j, min(j + n_rows, rows.stop))
            partition_rows(plan, goes_left[level.order[part]],
                           [(level.order[part], order[part]),
                            (level.x_sorted[part], x_sorted[part])])

    run_chunks(move, feature_chunks(level.order.shape[0], 4 * n_active, n_jobs), n_jobs)
    return Level(node_ids=child_ids[keep], counts=child_counts[keep],
                 nodes=select(child, keep), order=order, x_sorted=x_sorted)


def select(nodes, keep):
    """The per-node fields of ``NodeStatistics`` for the nodes ``keep`` (stats dropped)."""
    return nodes._replace(value=None, impurity=None, stats=None, totals=nodes.totals[keep],
                          abs_totals=None if nodes.abs_totals is None else nodes.abs_totals[keep],
                          weight=nodes.weight[keep], scale=nodes.scale[keep])


def partition_plan(counts, n_left, keep_left, keep_right):
    """Where the samples of a level go in the next one, whatever the row: the stable
    partition of every node into its left child then its right child, for s = 0, 1,
    ...; children with ``keep_left`` / ``keep_right`` False are left out.  Node s sends
    ``n_left[s]`` samples left in every row.

    Returns ``(to_left, to_right, n_next)``: a sample at position q that is the c-th
    (1, 2, ...) of its row to go left, counted from the row's start, lands at ``to_left[q]
    + c``; one that goes right at ``to_right[q] - c``.  Both follow from the children's
    starts: in node s (``starts[s]``, with ``left_before[s]`` samples sent left by the
    nodes before it) a left-goer is number ``c - left_before[s]`` of its left child, a
    right-goer number ``q - starts[s] - (c - left_before[s])`` of its right child.
    Samples of children left out land past ``n_next``, in a scratch area of one slot per
    position.  O(positions).
    """
    starts, segment = segment_starts(counts), segment_ids(counts)
    sizes = np.column_stack([np.where(keep_left, n_left, 0),
                             np.where(keep_right, counts - n_left, 0)]).ravel()
    new_start = segment_starts(sizes)
    left_before = segment_starts(n_left)
    n_next = int(sizes.sum())
    to_left = np.where(keep_left, new_start[0::2] - left_before - 1, n_next - 1)[segment]
    to_right = (np.where(keep_right, new_start[1::2] - starts + left_before, 0)[segment]
                + np.arange(len(segment)))
    to_right[~keep_right[segment]] = n_next + len(segment)
    index = np.int32 if n_next + 2 * len(segment) < 2**31 else np.intp
    return to_left.astype(index), to_right.astype(index), n_next


def partition(plan, goes_left, arrays):
    """The rows ``arrays`` (each (p,), in one row's order) moved to the next level by
    ``plan`` (``partition_plan``), ``goes_left`` (p,) saying where each sample goes.
    Inside each child the samples keep their order, so sorted rows stay sorted.  O(p)."""
    to_left, to_right, n_next = plan
    sent_left = np.cumsum(goes_left, dtype=to_left.dtype)
    destination = np.where(goes_left, to_left + sent_left, to_right - sent_left)
    result = []
    for array in arrays:
        out = np.empty(n_next + len(goes_left) + 1, dtype=array.dtype)
        out[destination] = array
        result.append(out[:n_next])
    return result


def partition_rows(plan, goes_left, pairs):
    """``partition`` of several rows at once: for each ``(rows, out)`` of ``pairs``,
    ``rows`` (c, p) moved by ``plan`` into ``out`` (c, n_next), ``goes_left`` (c, p)
    row by row.  ``out`` may be the first n_next columns of ``rows`` itself (rows are
    read whole before ``out`` is written).  O(c p) time, O(c p) temporary memory."""
    to_left, to_right, n_next = plan
    c, p = goes_left.shape
    sent_left = np.cumsum(goes_left, axis=1, dtype=to_left.dtype)
    destination = np.where(goes_left, to_left + sent_left, to_right - sent_left)
    destination = destination + (np.arange(c, dtype=np.intp) * (n_next + p + 1))[:, None]
    for rows, out in pairs:
        moved = np.empty((c, n_next + p + 1), dtype=rows.dtype)
        moved.ravel()[destination.ravel()] = rows.ravel()
        out[...] = moved[:, :n_next]
