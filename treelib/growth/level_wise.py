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
   (``treelib.growth.level_partition.next_rows``, a gather): the samples of a child stay
   sorted, so nothing is ever sorted again.  Samples that land in a leaf are dropped,
   so deep levels cost little.

The tree is the one the per-node growers grow with the ``"cumsum"`` finder (same splits,
same thresholds bit for bit, same tie rule and stopping rules), nodes numbered breadth
first.  With ``max_features``, each node searches its own draw of features, re-dealt into
k rows (``treelib.growth.level_features``, whose contract says how the draws differ); the
rows then keep sample ids only, and a level gathers the values of its drawn rows.
Weighted classes whose statistics are whole numbers (bootstrap counts) add their left
sums by runs of equal values (``level_scores.counted_sums``): the same sums, exactly.

The levels of several trees can grow together (``grow_trees``; forests,
``treelib.growth.level_batch``): their samples stacked tree after tree, the root level one
node per tree; every sum restarts at its node, so each tree is the one grown alone.

Cost: O(f n log n) once for the sort, then O(f n_active k) numpy work per level (n
samples, f features, k statistics per sample: 1 for squared error, the number of classes
for Gini and entropy) and O(f depth) Python iterations.  Memory: the f sorted rows of
sample ids and values (ids only, plus the values by sample, with ``max_features``), plus
O(n_active k) per feature (unweighted classification: a block of ``CHUNK_VALUES``,
``treelib.growth.level_classes``).
"""

from dataclasses import dataclass

import numpy as np

from treelib.criteria import NodeStatistics, node_statistics
from treelib.finders import feature_subset
from treelib.growth.level_classes import children_statistics, class_blocks
from treelib.growth.level_contenders import Distinct
from treelib.growth.level_cuts import best_cuts
from treelib.growth.level_features import redealt_level
from treelib.growth.level_partition import (
    gather_plan,
    gather_rows,
    next_rows,
)
from treelib.growth.level_scores import (
    feature_scores,
    whole_classes,
    whole_weights,
)
from treelib.growth.level_sort import sorted_rows
from treelib.growth.threads import feature_chunks
from treelib.segments import segment_ids, segment_starts
from treelib.split import midpoint
from treelib.tree import LEFT, RIGHT, TreeRecorder

__all__ = ["Level", "grow_level_wise_exact", "grow_trees", "SEARCH_VALUES", "select"]


@dataclass
class Level:
    """The nodes of one level that may split, and their samples.

    Node s holds ``counts[s]`` samples, at positions ``starts[s] .. starts[s] +
    counts[s] - 1`` of every row of ``order`` and ``x_sorted`` (the same positions in
    every row: a node holds the same samples whatever the feature).  In a batch of trees
    (``grow_trees``) the nodes are laid out tree after tree, node s of tree ``tree[s]``.
    With a feature subset the level keeps no values (``x_sorted`` None): a node reads
    only its drawn rows' values, gathered from ``LevelSearch.columns``
    (``level_features.redealt_level``), so only the sample ids are partitioned.
    """

    node_ids: np.ndarray     # (m,) ids in the tree
    counts: np.ndarray       # (m,) samples in each node
    nodes: NodeStatistics    # their totals, abs_totals, weight and scale (m rows)
    order: np.ndarray        # (f, n_active) sample ids, node by node, row j sorted by x_j
    x_sorted: np.ndarray | None      # (f, n_active) x_j of those samples, or None
    tree: np.ndarray | None = None   # (m,) each node's tree, increasing (None: tree 0)


@dataclass
class LevelSearch:
    """What every level's search reads, the same for the whole tree (or batch).

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
    draw: tuple | None = None    # (each tree's rng, max_features): level_features
    counted: np.ndarray | None = None   # (n,) classes, if weighted whole numbers
    columns: np.ndarray | None = None   # (f, n) the values, if levels keep none
    whole: np.ndarray | None = None     # (n,) int64 weights, if whole (``whole_weights``)


@dataclass
class Growth:
    """The trees being grown: the targets ``Y`` (n, k) of their samples, the stopping
    ``rules``, each tree's ``TreeRecorder`` (``trees``) and root weight
    (``total_weight``, for ``min_impurity_decrease``)."""

    Y: np.ndarray
    rules: object
    trees: list
    total_weight: np.ndarray


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
    a ValueError if ``data`` holds a NaN.  O(n f) time, O(1) memory: the smallest value
    is NaN exactly when one is (``np.min`` propagates NaN), with no temporary copy."""
    values = np.asarray(data)
    if values.size and np.isnan(np.min(values)):
        raise ValueError("level-wise growth does not handle missing values (NaN); grow "
                         "the tree with builder='depth_first' or 'best_first'")


def grow_level_wise_exact(data, Y, finder, rules, counter=None, weights=None, *, n_jobs=1):
    """Grow a tree one level at a time with exact cuts (the ``"cumsum"`` finder's).

    ``data`` (n, f) holds finite features (float32 or float64), ``Y`` (n, k) the targets,
    ``weights`` (n,) sample weights, ``finder`` the criterion, ``min_samples_leaf`` and
    ``max_features`` (drawn by ``finder.rng`` level after level: ``level_features``),
    ``n_jobs`` the threads sharing each level's sort and search (the same tree for every
    value); see ``treelib.growth.grow`` for the rest.  Nodes are numbered breadth first.
    The batch of one tree (``grow_trees``).  O(f n log n) for the sort, then
    ``grow_level``'s cost per level.
    """
    check_no_missing(data)
    return grow_trees((Y, weights, np.array([len(Y)])), lambda: sorted_rows(data, n_jobs),
                      [finder], rules, counter, n_jobs)[0]


def grow_trees(stacked, rows, finders, rules, counter=None, n_jobs=1, columns=None):
    """Grow one tree per finder of ``finders`` (their own generators; the same criterion,
    ``min_samples_leaf`` and ``max_features``), every level of all of them in the same
    numpy calls.  ``stacked`` = (Y, weights, counts): the trees' samples one tree after
    the other, ``counts[t]`` for tree t, their targets (N, k) and weights (N,) or None;
    ``rows()`` returns their sorted rows, ``order`` (f, N) and ``x_sorted`` (f, N), each
    tree's block the sample ids of that tree sorted by each feature (stable), as
    ``sorted_rows`` sorts the tree's samples alone.  Each tree's nodes form a block of
    every level, and every per-node sum restarts at its node, so each tree is the one
    grown alone bit for bit; only the draws and the recording loop over the trees.
    ``columns`` (f, N), every stacked sample's values by id, may be given with a feature
    subset (``max_features``: the levels read values from them); ``rows()`` may then
    return ``x_sorted`` None.  Memory and work per level: the trees' together.  Returns
    the ``Tree`` list."""
    Y, weights, counts = stacked
    criterion, min_samples_leaf = finders[0].criterion, finders[0].min_samples_leaf
    trees = [TreeRecorder() for _ in finders]
    root = node_statistics(Y, counts, criterion, weights)
    root_ids = np.concatenate([tree.add_nodes(root.value[t:t + 1], root.impurity[t:t + 1],
                                              counts[t:t + 1], weight=root.weight[t:t + 1])
                               for t, tree in enumerate(trees)])
    keep = ~rules.is_leaf(counts, root.impurity, 0, min_samples_leaf)
    if not keep.any():
        return [tree.finish() for tree in trees]
    classes = class_codes(Y, criterion, weights)
    # re-centred node by node (squared error); with classes only its width is read
    stats = root.stats if classes is not None else np.array(root.stats, dtype=np.float64)
    order, x_sorted = rows()
    if not keep.all():                                     # roots that are leaves
        order, x_sorted = (None if a is None else a[:, np.repeat(keep, counts)]
                           for a in (order, x_sorted))
    limit = feature_subset(finders[0].max_features, order.shape[0])
    draw = None if limit is None else ([finder.rng for finder in finders], limit)
    if draw is None:
        columns = None
    elif columns is None:                  # each sample's values by id; rows keep none
        columns = np.empty_like(x_sorted)
        np.put_along_axis(columns, order, x_sorted, axis=1)
    x_sorted = None if draw is not None else x_sorted
    search = LevelSearch(criterion, min_samples_leaf, weights, classes, stats, n_jobs, draw,
                         whole_classes(Y, criterion, weights, len(order)), columns,
                         weights.astype(np.int64) if whole_weights(weights) else None)
    level = Level(node_ids=root_ids[keep], counts=counts[keep], nodes=select(root, keep),
                  order=order, x_sorted=x_sorted, tree=np.flatnonzero(keep))
    growth = Growth(Y, rules, trees, root.weight.astype(np.float64))
    depth = 0
    while level is not None:
        if counter is not None:
            counter.searched(depth, len(level.counts), level.order.shape[1])
            counter.held(level.order.nbytes + (level.x_sorted if columns is None
                                               else columns).nbytes)
        level = grow_level(level, search, growth, depth)
        depth += 1
    return [tree.finish() for tree in trees]


#: Values a level's search counts at once (``threads.feature_chunks``' budget; classes
#: keep ``CHUNK_VALUES``, ``level_classes.class_blocks``).  Its temporaries, about 60
#: bytes per value counted (the scorer's sums, cut positions, nodes and gains of half as
#: many positions), stay near 15 MiB whatever the data, and the chunks' arrays near the
#: processor's caches: a regression tree on 50 x 200,000 float32 values (issue 24's wide
#: case) took 2.6-2.9 CPU s with 2**16 to 2**18, 4.8 with 2**21 (``CHUNK_VALUES``, then
#: 110 MiB of temporaries) and 6.1 with 625,000; california (20,640 x 8) the same
#: within noise.  Chunks never change the tree (``level_cuts.best_cuts``).
SEARCH_VALUES = 2**18


def class_codes(Y, criterion, weights):
    """The class of every sample when the statistics are unweighted one-hot rows (sums
    of counts are exact in any order), 16-bit when they fit; None otherwise.  O(n k)."""
    if criterion not in ("gini", "entropy") or weights is not None:
        return None
    return np.argmax(Y, axis=1).astype(np.uint16 if Y.shape[1] <= 2**16 else np.intp)


def grow_level(level, search, growth, depth):
    """Split every node of ``level`` (at ``depth``) at once; return the next level (None
    if no node of it may split).

    Adds all the children to their trees (the leaves too), re-centres ``search.stats``
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
                 nodes=select(child, keep), order=order, x_sorted=x_sorted,
                 tree=np.repeat(level.tree[splits.parents], 2)[keep])


def level_splits(level, search, growth):
    """Every node's best cut (``level_cuts.best_cuts``, the one tie rule); the nodes whose
    cut passes ``growth.rules`` split.  ``LevelSplits``, or None if no node splits.

    Each node searches its own features with ``search.draw`` (``level_features``).  The
    rows are scored in chunks: k values per position and row, counted twice (the scorer's
    temporaries take about twice the bytes per value of the other growers'); with classes,
    blocks of rows or positions (``level_classes.class_blocks``).  O(f n_active k).
    """
    counts, n_jobs = level.counts, search.n_jobs
    drawn, chosen = redealt_level(level, search.draw, search.columns)  # own features, if drawn
    n_rows, n_active, width = drawn.order.shape[0], drawn.order.shape[1], search.stats.shape[1]
    chunks = (feature_chunks(n_rows, 2 * n_active * width, n_jobs, SEARCH_VALUES)
              if search.classes is None else class_blocks(n_rows, n_active, width, n_jobs))
    feature, cut, gain = best_cuts(
        len(counts), chunks, lambda features: Distinct(feature_scores(drawn, search, features)),
        n_jobs)
    if chosen is not None:
        feature = chosen[np.arange(len(counts)), feature]
    splitting = ~growth.rules.rejects(gain, growth.total_weight[level.tree])
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
    """Record the splits and every child in their trees (``record_splits``); returns
    the children's ids, sample counts and ``NodeStatistics`` (left then right child of
    each parent, in node order: breadth-first numbering in each tree).

    The children's statistics come from feature 0's row partitioned (every child kept),
    or, with classes, from their class counts (no (n, k) rows); for squared error, the
    children's centred targets become ``search.stats``.  O(n_active k).
    """
    counts, parents, feature = level.counts, splits.parents, splits.feature
    starts = segment_starts(counts)
    n_left, n_right = splits.n_left, counts - splits.n_left
    at = starts[parents] + splits.cut[parents]
    threshold = midpoint(values_at(level, search, feature[parents], at),
                         values_at(level, search, feature[parents], at + 1))
    child_counts = np.column_stack([n_left[parents], n_right[parents]]).ravel()
    first_row = level.order[:1]
    children = np.empty((1, int(child_counts.sum())), dtype=first_row.dtype)
    gather_rows(gather_plan(counts, n_left, splits.splitting, splits.splitting),
                goes_left[first_row], [(first_row, children)])
    children = children[0]
    Y, weights, criterion = growth.Y, search.weights, search.criterion
    child = (node_statistics(Y[children], child_counts, criterion,
                             None if weights is None else weights[children])
             if search.classes is None else
             children_statistics(search.classes, children, child_counts, Y.shape[1],
                                 criterion))
    child_ids = record_splits(growth.trees, (level.tree[parents], level.node_ids[parents]),
                              (feature[parents], threshold,
                               n_left[parents] > n_right[parents]),  # no missing: larger
                              child, child_counts)
    if criterion == "squared_error":
        search.stats[children] = child.stats
    return child_ids, child_counts, child


def record_splits(trees, parents, splits, child, child_counts):
    """Record in their ``trees`` the splits of the ``parents`` = (each one's tree,
    increasing, and its id there), ``splits`` = (their features, thresholds, whether
    missing values go left), and their children (left then right, ``child``'s
    statistics, ``child_counts`` samples); returns the children's ids, each tree's
    numbered on from its last.  O(children k) plus O(trees) calls."""
    tree_of, ids = parents
    bounds = np.searchsorted(tree_of, np.arange(len(trees) + 1))       # parents by tree
    child_ids = np.empty(2 * len(ids), dtype=np.intp)
    for t in np.flatnonzero(np.diff(bounds)):
        mine, theirs = slice(bounds[t], bounds[t + 1]), slice(2 * bounds[t], 2 * bounds[t + 1])
        child_ids[theirs] = trees[t].add_nodes(
            child.value[theirs], child.impurity[theirs], child_counts[theirs],
            np.repeat(ids[mine], 2), np.tile([LEFT, RIGHT], len(ids[mine])),
            child.weight[theirs])
        trees[t].set_splits(ids[mine], *(part[mine] for part in splits))
    return child_ids


def values_at(level, search, features, positions):
    """The values at ``positions`` of the rows ``features`` of ``level``: from its
    ``x_sorted``, or the samples' ``search.columns`` when it keeps none.  O(len)."""
    if level.x_sorted is not None:
        return level.x_sorted[features, positions]
    return search.columns[features, level.order[features, positions]]


def select(nodes, keep):
    """``NodeStatistics``' per-node fields of the nodes ``keep`` (no stats).  O(nodes k)."""
    return nodes._replace(value=None, impurity=None, stats=None, totals=nodes.totals[keep],
                          abs_totals=None if nodes.abs_totals is None else nodes.abs_totals[keep],
                          weight=nodes.weight[keep], scale=nodes.scale[keep])
