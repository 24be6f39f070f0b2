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
   fit in ``CHUNK_VALUES``), with *segmented* running sums that restart at every node
   (``treelib.segments.segmented_cumsum``) and the one tie rule (``level_cuts``);
4. send each node's samples to its two children with a *stable partition* of every row
   (``treelib.growth.level_partition``): the samples of a child stay sorted, so nothing
   is ever sorted again.  Samples that land in a leaf are dropped, so deep levels cost little.

The tree is the one the per-node growers grow with the ``"cumsum"`` finder (same splits,
same thresholds bit for bit, same tie rule and stopping rules), nodes numbered breadth
first.  With ``max_features``, each node searches its own draw of features, re-dealt into
k rows (``treelib.growth.level_features``, whose contract says how the draws differ).

Cost: O(f n log n) once for the sort, then O(f n_active k) numpy work per level (n
samples, f features, k statistics per sample: 1 for squared error, the number of classes
for Gini and entropy) and O(f depth) Python iterations.  Memory: the f sorted rows of
sample ids and values, plus O(n_active k) per feature (unweighted classification: a
block of ``CHUNK_VALUES``, ``treelib.growth.level_classes``).
"""

from dataclasses import dataclass

import numpy as np

from treelib.criteria import NodeStatistics, node_statistics
from treelib.gains import (
    BoundTerms,
    bound_cap,
    gain_from_sums,
    gain_rounding_bound,
    split_statistics,
)
from treelib.growth.level_classes import children_statistics, class_blocks, class_scores
from treelib.growth.level_cuts import best_cuts
from treelib.growth.level_features import redealt_level, some_features
from treelib.growth.level_partition import partition, partition_plan, partition_rows
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


@dataclass
class LevelSearch:
    """What every level's search reads, the same for the whole tree.

    ``stats`` (n, k) holds every sample's statistics, re-centred on its node level after
    level for squared error (``split_nodes`` updates it in place); with ``classes``
    (unweighted classification, ``class_codes``) only its width k is read.
    """

    criterion: str
    min_samples_leaf: int
    weights: np.ndarray | None   # (n,) sample weights, or None
    classes: np.ndarray | None   # (n,) class codes, or None (``class_codes``)
    stats: np.ndarray            # (n, k)
    n_jobs: int = 1              # threads sharing the search and the partition
    draw: tuple | None = None    # (rng, max_features): each node's features (level_features)


@dataclass
class Growth:
    """The tree being grown: its targets ``Y`` (n, k), its stopping ``rules``, the
    ``TreeRecorder`` that receives the nodes, and the root's weight (for
    ``min_impurity_decrease``)."""

    Y: np.ndarray
    rules: object
    tree: TreeRecorder
    total_weight: float


@dataclass
class LevelSplits:
    """The cuts chosen for the m nodes of a level: node s splits when ``splitting[s]``,
    after position ``cut[s]`` of its row of ``feature[s]``; the first ``n_left[s]``
    samples of that row go left (all of them when it does not split); ``parents`` lists
    the nodes that split."""

    feature: np.ndarray      # (m,)
    cut: np.ndarray          # (m,)
    splitting: np.ndarray    # (m,) bool
    n_left: np.ndarray       # (m,)
    parents: np.ndarray      # (splits,)


def check_no_missing(data):
    """Level-wise growth keeps every feature sorted; it does not place missing values:
    a ValueError if ``data`` holds a NaN.  O(n f)."""
    if np.isnan(np.asarray(data, dtype=np.float64)).any():
        raise ValueError("level-wise growth does not handle missing values (NaN); grow "
                         "the tree with builder='depth_first' or 'best_first'")


def grow_level_wise_exact(data, Y, finder, rules, counter=None, weights=None, *, n_jobs=1):
    """Grow a tree one level at a time with exact cuts (the ``"cumsum"`` finder's).

    ``data`` (n, f) holds finite features (float32 or float64), ``Y`` (n, k) the targets,
    ``weights`` (n,) sample weights, ``finder`` the criterion, ``min_samples_leaf`` and
    ``max_features`` (drawn by ``finder.rng`` level after level: ``level_features``),
    ``n_jobs`` the threads sharing each level's sort and search (the same tree for every
    value); see ``treelib.growth.grow`` for the rest.  Nodes are numbered breadth first.
    O(f n log n) for the sort, then ``grow_level``'s cost per level.
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
    draw = None if some_features(finder, data) is None else (finder.rng, finder.max_features)
    search = LevelSearch(criterion, min_samples_leaf, weights, classes, stats, n_jobs, draw)
    order, x_sorted = sorted_rows(data, n_jobs)
    level = Level(node_ids=root, counts=np.array([len(Y)]), nodes=root_node, order=order,
                  x_sorted=x_sorted)
    growth = Growth(Y, rules, tree, float(root_node.weight[0]))
    depth = 0
    while level is not None:
        if counter is not None:
            counter.searched(depth, len(level.counts), level.order.shape[1])
            counter.held(level.order.nbytes + level.x_sorted.nbytes)
        level = grow_level(level, search, growth, depth)
        depth += 1
    return tree.finish()


def sorted_rows(data, n_jobs=1):
    """Every feature of ``data`` (n, f) sorted once: ``order`` (f, n), the sample ids of
    row j in increasing x_j (stable), and ``x_sorted`` (f, n) their values, the features
    divided among ``n_jobs`` threads.  O(f n log n) time, O(f n) memory."""
    n = len(data)
    index = np.int32 if n < 2**31 else np.intp
    columns = np.ascontiguousarray(np.asarray(data).T)
    order = np.empty(columns.shape, dtype=index)
    x_sorted = np.empty_like(columns)

    def sort_rows(rows):                     # each feature sorted once, in threads
        order[rows] = np.argsort(columns[rows], axis=1, kind="stable")
        x_sorted[rows] = np.take_along_axis(columns[rows], order[rows], axis=1)

    run_chunks(sort_rows, feature_chunks(columns.shape[0], 4 * n, n_jobs), n_jobs)
    return order, x_sorted


def class_codes(Y, criterion, weights):
    """The class of every sample when the statistics are unweighted one-hot rows (sums
    of counts are exact in any order), 16-bit when they fit; None otherwise.  O(n k)."""
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


def feature_scores(level, search, features):
    """The ``treelib.split.Candidates`` of the features ``features`` (a range; with
    ``search.classes``, a block of ``level_classes.class_blocks``): the gain of every
    candidate cut in every node of the level, labelled by its position in the node.

    The left sums of a node's cuts are the running sums of its samples' statistics in
    the row's order, restarted at each node, so each node's sums are those of the
    per-node ``"cumsum"`` finder bit for bit; only the candidate cuts are scored.  With
    classes (unweighted classification), the class counts left of the cuts are
    added up in blocks of bounded size (``level_classes.class_scores``).
    O(positions x features x k); with classes O(positions x features + runs x k),
    or O(positions x features) for Gini from ranks, in memory bounded by a block.
    """
    criterion, weights, counts = search.criterion, search.weights, level.counts
    if search.classes is not None:
        return class_scores(level, search.classes, search.stats.shape[1], features,
                            criterion, search.min_samples_leaf)
    rows = slice(features.start, features.stop)
    samples, x = level.order[rows], level.x_sorted[rows]              # (c, p) views
    c, p = samples.shape
    row, position = cut_positions(x, counts, search.min_samples_leaf)
    segment = segment_ids(counts)
    node = segment[position]
    offset = (np.arange(p) - segment_starts(counts)[segment])[position]
    at = position * c + row                        # in (p, c) arrays, flattened

    def running_sums(values):                      # (n, ...) -> at the cuts
        sums = segmented_cumsum(np.take(values, samples.T, axis=0), counts)
        return np.take(sums.reshape((p * c,) + values.shape[1:]), at, axis=0)

    left_sums = running_sums(search.stats)
    w_left = (offset + 1).astype(np.float64) if weights is None else running_sums(weights)
    return cut_candidates(level, criterion, weights is not None,
                          (node, row + features.start, offset), left_sums, w_left)


def cut_candidates(level, criterion, weighted, where, left_sums, w_left):
    """The ``Candidates`` of the cuts ``where`` = (node, feature, label) of ``level``,
    from their left sums of the statistics and of the weights: their gains
    (``treelib.gains.gain_from_sums``; -inf where not finite, or, ``weighted``, where a
    child has no weight), their rounding bounds on demand and the nodes' bound cap.
    O(cuts x k)."""
    node, feature, label = where
    counts, nodes = level.counts, level.nodes
    w_node = nodes.weight[node]
    left_sums, positives_left = split_statistics(left_sums, criterion)
    totals, positives = split_statistics(nodes.totals, criterion)
    abs_totals = split_statistics(nodes.abs_totals, criterion)[0]
    with np.errstate(divide="ignore", invalid="ignore"):
        gains = gain_from_sums(left_sums, w_left, totals[node], w_node, criterion,
                               positives=None if positives is None else (positives_left,
                                                                         positives[node]))
    valid = np.isfinite(gains)
    if weighted:
        valid &= (w_left > 0) & (w_left < w_node)
    gains[~valid] = -np.inf

    def bounds_at(at):
        return gain_rounding_bound(left_sums[at], w_left[at], totals[node[at]],
                                   w_node[at], criterion,
                                   None if abs_totals is None else abs_totals[node[at]],
                                   gains[at], BoundTerms(n_terms=counts[node[at]]))

    return Candidates(gains=gains, node=node, feature=feature, label=label,
                      bounds_at=bounds_at,
                      cap=lambda max_gain: bound_cap(nodes.totals, nodes.weight, criterion,
                                                     nodes.abs_totals, max_gain, counts,
                                                     nodes.scale))


def grow_level(level, search, growth, depth):
    """Split every node of ``level`` (at ``depth``) at once; return the next level (None
    if no node of it may split).

    Adds all the children to ``growth.tree`` (the leaves too), re-centres ``search.stats``
    on them (squared error), and keeps in the next level only the children that may
    split.  O(f n_active k) numpy work in ``search.n_jobs`` threads (``threads``).
    """
    splits = level_splits(level, search, growth)
    if splits is None:
        return None
    goes_left = sample_sides(level, splits, len(growth.Y))
    child_ids, child_counts, child = split_nodes(level, splits, goes_left, search, growth)
    keep = ~growth.rules.is_leaf(child_counts, child.impurity, depth + 1,
                                 search.min_samples_leaf)
    if not keep.any():
        return None
    order, x_sorted = next_rows(level, splits, goes_left, keep, search.n_jobs)
    return Level(node_ids=child_ids[keep], counts=child_counts[keep],
                 nodes=select(child, keep), order=order, x_sorted=x_sorted)


def level_splits(level, search, growth):
    """Every node's best cut (``level_cuts.best_cuts``, the one tie rule); the nodes whose
    cut passes ``growth.rules`` split.  ``LevelSplits``, or None if no node splits.

    Each node searches its own features with ``search.draw`` (``level_features``).  The
    rows are scored in chunks: k values per position and row, counted twice (the scorer's
    temporaries take about twice the bytes per value of the other growers'); with classes,
    blocks of rows or positions (``level_classes.class_blocks``).  O(f n_active k).
    """
    counts, n_jobs = level.counts, search.n_jobs
    drawn, chosen = redealt_level(level, search.draw)    # each node's own features, if drawn
    n_rows, n_active, width = drawn.order.shape[0], drawn.order.shape[1], search.stats.shape[1]
    chunks = (feature_chunks(n_rows, 2 * n_active * width, n_jobs) if search.classes is None
              else class_blocks(n_rows, n_active, width, n_jobs))
    feature, cut, gain = best_cuts(
        len(counts), chunks, lambda features: feature_scores(drawn, search, features), n_jobs)
    if chosen is not None:
        feature = chosen[np.arange(len(counts)), feature]
    splitting = ~growth.rules.rejects(gain, growth.total_weight)
    parents = np.flatnonzero(splitting)
    if len(parents) == 0:
        return None
    return LevelSplits(feature=feature, cut=cut, splitting=splitting,
                       n_left=np.where(splitting, cut + 1, counts), parents=parents)


def sample_sides(level, splits, n_samples):
    """Where every active sample goes, (n_samples,) indexed by sample id: True for the
    first ``n_left`` samples of its node's row of the chosen feature.  A node that does
    not split sends all its samples "left", into a child that is dropped.
    O(n_active)."""
    counts = level.counts
    starts, segment = segment_starts(counts), segment_ids(counts)
    positions = np.arange(level.order.shape[1])
    goes_left = np.empty(n_samples, dtype=bool)
    goes_left[level.order[splits.feature[segment], positions]] = (
        positions - starts[segment] < splits.n_left[segment])
    return goes_left


def split_nodes(level, splits, goes_left, search, growth):
    """Record the splits and every child in ``growth.tree``; returns the children's ids,
    sample counts and ``NodeStatistics`` (left then right child of each parent, in node
    order: breadth-first numbering).

    The children's statistics come from feature 0's row partitioned (every child kept),
    or, with classes, from their class counts (no (n, k) rows); for squared error, the
    children's centred targets become ``search.stats``.  O(n_active k).
    """
    counts, parents, feature = level.counts, splits.parents, splits.feature
    starts = segment_starts(counts)
    n_left, n_right = splits.n_left, counts - splits.n_left
    at = starts[parents] + splits.cut[parents]
    threshold = midpoint(level.x_sorted[feature[parents], at],
                         level.x_sorted[feature[parents], at + 1])
    child_counts = np.column_stack([n_left[parents], n_right[parents]]).ravel()
    children, = partition(partition_plan(counts, n_left, splits.splitting, splits.splitting),
                          goes_left[level.order[0]], [level.order[0]])
    Y, weights, criterion = growth.Y, search.weights, search.criterion
    child = (node_statistics(Y[children], child_counts, criterion,
                             None if weights is None else weights[children])
             if search.classes is None else
             children_statistics(search.classes, children, child_counts, Y.shape[1],
                                 criterion))
    child_ids = growth.tree.add_nodes(child.value, child.impurity, child_counts,
                                      np.repeat(level.node_ids[parents], 2),
                                      np.tile([LEFT, RIGHT], len(parents)), child.weight)
    growth.tree.set_splits(level.node_ids[parents], feature[parents], threshold,
                           n_left[parents] > n_right[parents])  # no missing value: larger
    if criterion == "squared_error":
        search.stats[children] = child.stats
    return child_ids, child_counts, child


def next_rows(level, splits, goes_left, keep, n_jobs=1):
    """The next level's ``order`` and ``x_sorted``: every feature's row partitioned
    stably, keeping the children ``keep`` (left then right of each parent).

    Every row is moved in place: the next level's rows are the first n_next positions of
    this level's (views of the arrays sorted at the root, which are never copied).
    Groups of rows in ``n_jobs`` threads, each group a few rows at a time (one scatter per
    few rows, through a temporary of those rows only).  O(f n_active).
    """
    n_active = level.order.shape[1]
    keep_left, keep_right = np.zeros_like(splits.splitting), np.zeros_like(splits.splitting)
    keep_left[splits.parents], keep_right[splits.parents] = keep[0::2], keep[1::2]
    plan = partition_plan(level.counts, splits.n_left, keep_left, keep_right)
    order, x_sorted = level.order[:, :plan[2]], level.x_sorted[:, :plan[2]]
    n_rows = max(1, CHUNK_VALUES // max(1, 4 * n_active))

    def move(rows):
        for j in range(rows.start, rows.stop, n_rows):
            part = slice(j, min(j + n_rows, rows.stop))
            partition_rows(plan, goes_left[level.order[part]],
                           [(level.order[part], order[part]),
                            (level.x_sorted[part], x_sorted[part])])

    run_chunks(move, feature_chunks(level.order.shape[0], 4 * n_active, n_jobs), n_jobs)
    return order, x_sorted


def select(nodes, keep):
    """``NodeStatistics``' per-node fields of the nodes ``keep`` (no stats).  O(nodes k)."""
    return nodes._replace(value=None, impurity=None, stats=None, totals=nodes.totals[keep],
                          abs_totals=None if nodes.abs_totals is None else nodes.abs_totals[keep],
                          weight=nodes.weight[keep], scale=nodes.scale[keep])
