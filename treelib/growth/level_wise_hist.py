"""Level-wise growth on bin codes, every node searched from its histograms.

Each level is grown one feature at a time, as in ``treelib.growth.level_wise``, but a
node's candidate cuts are the cuts between its bins:

- a node with at least as many samples as there are bins gets *dense* histograms: for the
  feature, one ``np.bincount`` over (node, bin) keys gives every bin's count and sums,
  O(n + B) per node;
- a smaller node gets the histogram of its *populated* bins only: its samples are sorted
  by code, feature by feature, once, when it first becomes small, and from then on split
  stably at every level (``treelib.growth.sorted_codes``, as ``treelib.growth.level_wise``
  keeps its rows sorted); each run of equal codes is one bin.  The bin sums are added in
  the same order as ``np.bincount`` adds them, so they are the dense histogram's sums bit
  for bit, without its B - n empty bins, and only the cuts that leave
  ``min_samples_leaf`` samples on both sides are scored, as a flat list rather than a
  grid padded to the most populated feature;
- the **subtraction trick** of LightGBM and scikit-learn's HistGradientBoosting: of two
  siblings, the larger one's histogram is its parent's minus the smaller one's, which
  is counted.  It costs O(f B) instead of O(f n_larger), where it is used: see
  ``can_subtract``.

Every node's statistics are centred on its own mean when it is created (``treelib.criteria
.node_statistics``), as the exact growers centre them, so a node of targets near 1e12
does not cost the digits of a node of targets near 1 (chapter 2's trap).

Memory: besides the data, O(n_active k) per feature, the small nodes' sorted rows (5 bytes
per code of their samples: at most five times the (n, f) uint8 codes), and the parents'
histograms that the next level subtracts from, kept only within a budget of about the
data's size (``STORE_BYTES_PER_VALUE`` bytes per code).  Never nodes x features x bins at
once.
"""

from dataclasses import dataclass

import numpy as np

from treelib.counters import GrowthCounter
from treelib.criteria import NodeStatistics, node_statistics
from treelib.gains import bound_cap, gain_from_sums, gain_rounding_bound, split_statistics
from treelib.growth.level_cuts import best_cuts
from treelib.growth.level_histograms import feature_histograms, populated_bins
from treelib.growth.level_wise import partition, partition_plan, select
from treelib.growth.sorted_codes import SortedRows, next_sorted, small_rows
from treelib.growth.threads import feature_chunks
from treelib.segments import segment_ids, segment_starts
from treelib.split import MISSING_BIN, Candidates
from treelib.tree import LEFT, RIGHT, TreeRecorder

#: Parents' histograms kept for the subtraction trick: at most this many bytes per
#: (sample, feature) code of the data (8: about the size of the data as float64), and
#: at least ``MIN_STORE_BYTES``.
STORE_BYTES_PER_VALUE = 8
MIN_STORE_BYTES = 16 * 2**20

#: A subtracted histogram is used only if its parent's and counted sibling's sums of
#: |statistics| are at most this many times the node's own (``can_subtract``).
SUBTRACTION_RATIO = 8

#: A node gets dense histograms from this many samples per bin on (fewer: its populated
#: bins only, from its sorted rows).  Counting a dense histogram costs a few passes over
#: the node's samples and about ten over its bins per feature; the sorted rows cost about
#: twenty passes over the samples per feature and level (split, runs, their sums).
DENSE_SAMPLES_PER_BIN = 1.0


def dense_threshold(n_bins):
    """The fewest samples of a node with dense histograms."""
    return max(2, int(np.ceil(DENSE_SAMPLES_PER_BIN * n_bins)))


@dataclass
class HistLevel:
    """The nodes of one level that may split.

    ``samples`` holds their samples node after node.  A node with ``derived[s]`` gets
    its histograms by subtraction: its parent's are ``store`` entry ``parent_slot[s]``,
    its counted sibling is node ``sibling[s]`` of this level, or, when the sibling is a
    leaf, the samples ``helper`` holds for it (``helper_counts[s]`` of them), and
    ``shift[s]`` / ``sibling_shift[s]`` are the means of the node and of its sibling
    minus their parent's (in the parent's centring).
    """

    node_ids: np.ndarray
    counts: np.ndarray
    nodes: NodeStatistics    # totals, abs_totals, weight and scale of each node
    samples: np.ndarray
    derived: np.ndarray
    parent_slot: np.ndarray
    sibling: np.ndarray
    helper: np.ndarray
    helper_counts: np.ndarray
    shift: np.ndarray
    sibling_shift: np.ndarray
    store: tuple             # (sums (r, f, B, k), counts (r, f, B)) of the parents
    sorted: SortedRows       # the small nodes' samples sorted by code, feature by feature


def grow_level_wise_hist(codes, Y, finder, rules, counter=None, weights=None, *, n_jobs=1,
                         subtract=True):
    """Grow a tree on bin codes one level at a time (see the module docstring).

    ``codes`` (n, f) are ``finder.prepare(X)``'s bin codes; the tree's thresholds are on
    X (``finder.bin_thresholds``).  Same tree as the per-node growers with the ``"hist"``
    finder, nodes numbered breadth first.  Per level, with n_d samples in the nodes that
    may split and B bins: O(f n_d k) to count histograms (the larger of two siblings by
    subtraction, where it is used), O(f B k) per dense node and O(f n k) per small node
    to score the cuts (its rows sorted by code once, in O(f n), when it becomes small,
    then split stably in O(f n) per level).  No sort of feature values, and O(f) Python
    iterations.
    With sample ``weights``, the weights are one more column of statistics (their sums
    per bin are the bins' weights, by which a subtracted histogram is re-centred).
    ``n_jobs`` threads share each level's search, a group of features each, and
    ``subtract`` (the subtraction trick) gets the larger of two siblings' histograms as
    their parent's minus the smaller one's; neither changes the tree.
    """
    if (codes == MISSING_BIN).any():
        raise ValueError("level-wise growth does not handle missing values (NaN); grow "
                         "the tree with builder='depth_first' or 'best_first'")
    criterion, n_bins = finder.criterion, finder.n_bins
    tree = TreeRecorder()
    root_node = node_statistics(Y, [len(Y)], criterion, weights)
    root = tree.add_nodes(root_node.value, root_node.impurity, [len(Y)],
                          weight=root_node.weight)
    if n_bins < 2 or rules.is_leaf(len(Y), root_node.impurity[0], 0, finder.min_samples_leaf):
        return tree.finish()                # (one bin: every feature is constant)
    stats = np.array(root_node.stats, dtype=np.float64)
    if weights is not None:
        stats = np.column_stack([stats, weights])
    none, width = np.full(1, -1), stats.shape[1]
    level = HistLevel(node_ids=root, counts=np.array([len(Y)]), nodes=root_node,
                      samples=np.arange(len(Y)), derived=np.zeros(1, bool), parent_slot=none,
                      sibling=none, helper=np.zeros(0, np.intp),
                      helper_counts=np.zeros(1, np.intp), shift=np.zeros((1, width)),
                      sibling_shift=np.zeros((1, width)), store=None,
                      sorted=small_rows(codes, np.arange(len(Y)), np.array([len(Y)]),
                                        dense_threshold(n_bins)))
    cuts = finder.bin_thresholds
    thresholds = np.zeros((len(cuts), max(1, *(len(c) for c in cuts))), dtype=np.result_type(*cuts))
    for j, c in enumerate(cuts):
        thresholds[j, :len(c)] = c
    budget = max(MIN_STORE_BYTES, STORE_BYTES_PER_VALUE * codes.size)
    depth = 0
    while level is not None:
        if counter is not None:
            counter.searched(depth, len(level.counts), len(level.samples))
        level = grow_level(level, codes, Y, weights, stats, finder, rules, depth, tree,
                           n_bins, subtract and budget, counter, float(root_node.weight[0]),
                           thresholds, n_jobs)
        depth += 1
    return tree.finish()


def feature_scores(level, codes, stats, features, criterion, min_samples_leaf, n_bins,
                   counter=None, store=None, weighted=False):
    """The ``treelib.split.Candidates`` of a group of features (a
    range): the cuts after every non-empty bin of the dense nodes' histograms and after
    every populated bin of the small nodes (``populated_bins``, on their sorted rows),
    labelled by bin; only the cuts that leave ``min_samples_leaf`` samples on both sides
    are scored.  With ``store``, the dense histograms of the nodes ``store[0]`` are also
    written into ``store[1]`` (sums, counts) at these features, for the next level's
    subtractions.  O(d c B k) for d dense nodes, O(c p k) for the p samples of the small
    ones."""
    c, k, m = len(features), stats.shape[1], len(level.counts)
    dense = level.counts >= dense_threshold(n_bins)
    parts = []                   # (left sums, n_left, feature in group, node, bin)
    candidate = None             # (else: which of them are candidates)
    if dense.any():
        sums, counts = feature_histograms(level, codes, stats, features, n_bins, dense,
                                          counter, weighted)
        if store is not None:
            kept, (store_sums, store_counts) = store
            where = np.cumsum(dense) - 1
            store_sums[:, features] = sums[where[kept]]
            store_counts[:, features] = counts[where[kept]]
        filled = np.cumsum(counts, axis=2)[:, :, :-1]                   # (d, c, B - 1)
        n_dense = level.counts[dense][:, None, None]
        # a cut after an empty bin makes the same children as the one before it: it is
        # not a candidate
        cut = ((counts[:, :, :-1] > 0) & (filled >= min_samples_leaf)
               & (n_dense - filled >= min_samples_leaf))
        column, d, bin_ = np.nonzero(cut.transpose(1, 0, 2))    # feature, node, bin
        cumulative = np.cumsum(sums, axis=2)
        parts.append((cumulative[d, column, bin_], filled[d, column, bin_], column,
                      np.flatnonzero(dense)[d], bin_))
    small = level.sorted
    if small is not None and len(small.counts):
        rows = slice(features.start, features.stop)
        *runs, candidate = populated_bins(small.rows[rows], small.codes[rows], small.counts,
                                          stats, min_samples_leaf)
        runs[3] = np.flatnonzero(~dense)[runs[3]] if len(parts) else runs[3]
        if len(parts):           # (with dense nodes: the candidates now)
            at = np.flatnonzero(candidate)
            runs, candidate = [a[at] for a in runs], None
        parts.append(runs)
        if counter is not None:
            counter.histogram_pairs += small.rows.shape[1] * c
    if len(parts) == 2:          # feature, then node, then bin
        left_sums, n_left, column, node, labels = (np.concatenate(a) for a in zip(*parts))
        order = np.argsort(column * m + node, kind="stable")
        left_sums, n_left, column, node, labels = (a[order] for a in (left_sums, n_left,
                                                                      column, node, labels))
    elif parts:
        left_sums, n_left, column, node, labels = parts[0]
    else:
        left_sums, n_left, column, node, labels = (np.zeros((0, k)),) + (
            np.zeros(0, dtype=np.intp),) * 4
    nodes = level.nodes
    if weighted:            # the last column of the sums is the weight
        left_sums, w_left = left_sums[:, :-1], left_sums[:, -1]
    else:
        w_left = n_left
    w_node = np.take(nodes.weight, node)
    left_sums, positives_left = split_statistics(left_sums, criterion)
    totals, positives = split_statistics(nodes.totals, criterion)
    abs_totals = split_statistics(nodes.abs_totals, criterion)[0]
    with np.errstate(divide="ignore", invalid="ignore"):
        gains = gain_from_sums(left_sums, w_left, np.take(totals, node, axis=0), w_node,
                               criterion,
                               positives_left=positives_left,
                               positives=None if positives is None else positives[node])
    valid = np.isfinite(gains)
    if candidate is not None:
        valid &= candidate
    if weighted:
        valid &= (w_left > 0) & (w_left < w_node)
    if not valid.all():
        at = np.flatnonzero(valid)
        gains, left_sums, w_left, node, column, labels = (
            a[at] for a in (gains, left_sums, w_left, node, column, labels))

    def bounds_at(at):
        return gain_rounding_bound(left_sums[at], w_left[at], totals[node[at]],
                                   nodes.weight[node[at]], criterion,
                                   None if abs_totals is None else abs_totals[node[at]],
                                   gains[at], n_terms=level.counts[node[at]])

    return Candidates(gains=gains, node=node, feature=column + features.start,
                       label=labels.astype(np.intp, copy=False),
                       bounds_at=bounds_at,
                       cap=lambda max_gain: bound_cap(nodes.totals, nodes.weight, criterion,
                                                      nodes.abs_totals, max_gain, level.counts,
                                                      nodes.scale))


def can_subtract(parent_abs, small_abs, large_abs, small_count, shift_small):
    """Whether the larger child's histogram may be its parent's minus the smaller
    child's.

    Subtracting carries the rounding of the parent's and the sibling's sums into the
    child's: errors of the order of ``EPS`` times their sums of |statistics| (the
    sibling's in the parent's centring).  The tie rule allows a child's sums an error of
    a few ``n EPS`` times its own sum of |statistics| (``treelib.criteria
    .gain_rounding_bound``); subtracting is safe while the parent's and sibling's sums of
    |statistics| are at most ``SUBTRACTION_RATIO`` times the child's.  A parent much more
    spread out than its child (targets near 1e12 beside targets near 1) has its larger
    child counted instead.  With sample weights, the weights' own column (and the
    classes' weighted counts) is checked the same way, on the nodes' weights: a light
    child of a heavy parent is counted.  O(parents k).
    """
    spread = parent_abs + small_abs + small_count[:, None] * np.abs(shift_small)
    return np.all(spread <= SUBTRACTION_RATIO * large_abs, axis=1)


def grow_level(level, codes, Y, weights, stats, finder, rules, depth, tree, n_bins, budget,
               counter, total_weight, thresholds, n_jobs=1):
    """Split every node of ``level``; return the next level (None if no node of it may
    split).  ``budget``: bytes for the parents' histograms kept for subtraction (0 or
    False: no subtraction); ``thresholds[j, b]``: the threshold of the cut after bin b of
    feature j (``finder.bin_thresholds``, padded)."""
    criterion, min_samples_leaf = finder.criterion, finder.min_samples_leaf
    counts, k, width = level.counts, Y.shape[1], stats.shape[1]

    # 1. Which nodes keep their histograms for the next level's subtractions: dense
    #    nodes whose larger child is dense too, the largest first, within the budget.
    keep_histogram = np.zeros(len(counts), dtype=bool)
    if budget:
        eligible = np.flatnonzero(counts >= 2 * dense_threshold(n_bins))
        per_node = codes.shape[1] * n_bins * (width * 8 + 8)
        allowed = int(budget // per_node)
        keep_histogram[eligible[np.argsort(-counts[eligible], kind="stable")][:allowed]] = True
    kept_nodes = np.flatnonzero(keep_histogram)
    store = None
    if len(kept_nodes):
        store = (kept_nodes,
                 (np.empty((len(kept_nodes), codes.shape[1], n_bins, width)),
                  np.empty((len(kept_nodes), codes.shape[1], n_bins), dtype=np.intp)))
        if counter is not None:
            counter.held(store[1][0].nbytes + store[1][1].nbytes)

    # 2. Every node's best cut, a group of features at a time (in ``n_jobs``
    #    threads, each counting into its own counter); the nodes whose cut passes the
    #    rules split.
    chunk_counters = []

    def scores(features):
        own = None
        if counter is not None:
            own = GrowthCounter()
            chunk_counters.append(own)
        return feature_scores(level, codes, stats, features, criterion, min_samples_leaf,
                              n_bins, own, store, weights is not None)

    if counter is not None:
        counter.subtracted_histograms += int(level.derived.sum()) * codes.shape[1]
    # (the small nodes' sorted runs hold about four times the exact grower's temporaries)
    per_feature = max(4 * len(level.samples) * (width + 1),
                      int((counts >= dense_threshold(n_bins)).sum()) * n_bins * (width + 1))
    chunks = feature_chunks(codes.shape[1], per_feature, n_jobs)
    feature, bin_, gain = best_cuts(len(counts), chunks, scores, n_jobs)
    if counter is not None:
        counter.histogram_pairs += sum(own.histogram_pairs for own in chunk_counters)
    splitting = ~rules.rejects(gain, total_weight)
    parents = np.flatnonzero(splitting)
    if len(parents) == 0:
        return None

    # 3. The children, left then right for every splitting node, breadth first.
    starts, segment = segment_starts(counts), segment_ids(counts)
    chosen_codes = np.take(codes.ravel(), level.samples * codes.shape[1] + feature[segment])
    goes_left = (chosen_codes <= bin_[segment]) | ~splitting[segment]
    n_left = np.where(splitting, np.add.reduceat(goes_left.astype(np.intp), starts), counts)
    children, = partition(partition_plan(counts, n_left, splitting, splitting), goes_left,
                          [level.samples])
    child_counts = np.column_stack([n_left[parents], counts[parents] - n_left[parents]]).ravel()
    child_starts = segment_starts(child_counts)
    # each child's mean minus its parent's, from the parent-centred statistics (the
    # classification criteria's one-hot statistics are not centred: no shift)
    shift = np.zeros((len(child_counts), width))
    child_weights = None if weights is None else weights[children]
    child = node_statistics(Y[children], child_counts, criterion, child_weights)
    if criterion == "squared_error":     # statistics centred per node: re-centre them
        # (a child's mean minus its parent's, from the parent-centred statistics)
        shift[:, :k] = (np.add.reduceat(stats[children, :k], child_starts, axis=0)
                        / child.weight[:, None])
        stats[children, :k] = child.stats
    child_ids = tree.add_nodes(child.value, child.impurity, child_counts,
                               np.repeat(level.node_ids[parents], 2),
                               np.tile([LEFT, RIGHT], len(parents)), child.weight)
    threshold = thresholds[feature[parents], bin_[parents]]
    n_right = counts - n_left
    tree.set_splits(level.node_ids[parents], feature[parents], threshold,
                    n_left[parents] > n_right[parents])   # no missing value: the larger child

    # 4. The next level: the children that may split; which of them get their
    #    histograms by subtraction.
    keep = ~rules.is_leaf(child_counts, child.impurity, depth + 1, min_samples_leaf)
    if not keep.any():
        return None
    pair = np.arange(len(parents))
    larger = 2 * pair + (child_counts[1::2] >= child_counts[0::2])   # ties: the right
    smaller = larger ^ 1
    derived = np.zeros(len(child_counts), dtype=bool)
    parent_slot = np.full(len(child_counts), -1)
    if store is not None:
        slot_of = np.full(len(counts), -1)
        slot_of[kept_nodes] = np.arange(len(kept_nodes))
        has_store = slot_of[parents] >= 0
        safe = np.ones(len(parents), dtype=bool)         # counts subtract exactly
        if criterion == "squared_error":
            safe = can_subtract(level.nodes.abs_totals[parents], child.abs_totals[smaller],
                                child.abs_totals[larger], child.weight[smaller],
                                shift[smaller, :k])
        if weights is not None:      # real weights (and weighted classes) do not
            safe &= can_subtract(level.nodes.weight[parents, None],
                                 child.weight[smaller, None], child.weight[larger, None],
                                 child.weight[smaller], np.zeros((len(parents), 1)))
        use = has_store & keep[larger] & (child_counts[larger] >= dense_threshold(n_bins)) & safe
        derived[larger[use]] = True
        parent_slot[larger[use]] = slot_of[parents[use]]
    # A derived child's sibling is counted as a node of the next level if it is one
    # with dense histograms, else from helper samples kept for it.
    rank = np.cumsum(keep) - 1
    sibling = np.full(len(child_counts), -1)
    counted_there = keep[smaller] & (child_counts[smaller] >= dense_threshold(n_bins))
    sibling[larger] = np.where(counted_there, rank[smaller], -1)
    helper_of = np.flatnonzero(derived & (sibling < 0))
    helper_counts = np.zeros(len(child_counts), dtype=np.intp)
    helper_counts[helper_of] = child_counts[helper_of ^ 1]
    helper = (np.concatenate([children[child_starts[c]:child_starts[c] + child_counts[c]]
                              for c in helper_of ^ 1])
              if len(helper_of) else np.zeros(0, dtype=np.intp))
    sibling_shift = np.zeros_like(shift)
    sibling_shift[larger] = shift[smaller]
    samples = children[np.repeat(keep, child_counts)]
    next_store = None
    if store is not None and derived.any():
        used = np.unique(parent_slot[derived])
        renumber = np.full(len(kept_nodes), -1)
        renumber[used] = np.arange(len(used))
        parent_slot[derived] = renumber[parent_slot[derived]]
        next_store = (store[1][0][used], store[1][1][used])
    return HistLevel(node_ids=child_ids[keep], counts=child_counts[keep],
                     nodes=select(child, keep), samples=samples, derived=derived[keep],
                     parent_slot=parent_slot[keep],
                     sibling=sibling[keep], helper=helper,
                     helper_counts=helper_counts[keep], shift=shift[keep],
                     sibling_shift=sibling_shift[keep], store=next_store,
                     sorted=next_sorted(level, codes, dense_threshold(n_bins), goes_left,
                                        n_left, splitting, children, child_counts, keep))

