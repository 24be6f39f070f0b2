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

A level is a ``HistLevel``; its search (``feature_scores``, reduced by ``best_cuts``
under the one tie rule) is ``treelib.growth.hist_search``; one level's growth is
``grow_level``: ``kept_histograms``, ``search_level``, ``split_level``, ``next_level``.
"""

from dataclasses import dataclass, replace

import numpy as np

from treelib.counters import GrowthCounter
from treelib.criteria import NodeStatistics, node_statistics
from treelib.growth.hist_search import HistLevel, KeptHistograms, LevelSearch, feature_scores
from treelib.growth.level_contenders import Distinct
from treelib.growth.level_cuts import best_cuts
from treelib.growth.level_features import drawn_codes, keep_drawn, some_features
from treelib.growth.level_partition import partition, partition_plan
from treelib.growth.level_wise import select
from treelib.growth.rules import StoppingRules
from treelib.growth.sorted_codes import next_sorted
from treelib.growth.threads import feature_chunks
from treelib.segments import segment_ids, segment_starts
from treelib.split import MISSING_BIN
from treelib.tree import LEFT, RIGHT, TreeRecorder

#: Parents' histograms kept for the subtraction trick: at most this many bytes per
#: (sample, feature) code of the data (8: about the size of the data as float64), and
#: at least ``MIN_STORE_BYTES``.
STORE_BYTES_PER_VALUE = 8
MIN_STORE_BYTES = 16 * 2**20

#: A subtracted histogram is used only if its parent's and counted sibling's sums of
#: |statistics| are at most this many times the node's own (``can_subtract``).
SUBTRACTION_RATIO = 8
#: Values a level's search counts at once (``feature_chunks``' budget): 50 x 200,000
#: float32 values took 5.6-6.1 CPU s at 2**19, 8-10 at ``threads.CHUNK_VALUES`` (2**21).
SEARCH_VALUES = 2**19

#: A node gets dense histograms from this many samples per bin on (fewer: its populated
#: bins only, from its sorted rows).  Counting a dense histogram costs a few passes over
#: the node's samples and about ten over its bins per feature; the sorted rows cost about
#: twenty passes over the samples per feature and level (split, runs, their sums).
DENSE_SAMPLES_PER_BIN = 1.0


def dense_threshold(n_bins):
    """The fewest samples of a node with dense histograms.  O(1)."""
    return max(2, int(np.ceil(DENSE_SAMPLES_PER_BIN * n_bins)))


@dataclass
class TreeGrowth:
    """What every level of one tree's growth reads: the ``search`` settings (a
    ``LevelSearch``), the targets ``Y`` and sample ``weights`` (None: unweighted), the
    stopping ``rules``, the ``tree`` being recorded, ``thresholds[j][b]`` (the threshold of
    the cut after bin b of feature j), the ``budget`` in bytes for the parents' histograms
    kept for subtraction (0 or False: no subtraction), the ``counter`` (None: nothing
    counted), the root's ``total_weight`` and ``n_jobs`` threads."""

    search: LevelSearch
    Y: np.ndarray
    weights: np.ndarray | None
    rules: StoppingRules
    tree: TreeRecorder
    thresholds: list
    budget: int
    counter: GrowthCounter | None
    total_weight: float
    n_jobs: int = 1
    draw: tuple | None = None    # (rng, max_features): each node's features (level_features)


@dataclass
class LevelSplit:
    """How a level splits: the nodes ``splitting`` (a mask; ``parents``: their indices),
    each sample's side (``goes_left``, in the level's order) and each node's ``n_left``
    (all its samples if it does not split); the children, left then right for every
    parent: their samples (``children``, child after child), ``child_counts``,
    ``child_starts``, statistics (``child``, a ``NodeStatistics``), ``shift`` (a child's
    mean minus its parent's, in the parent's centring), ids in the tree (``child_ids``),
    and the ``larger`` child of every parent (ties: the right)."""

    splitting: np.ndarray
    parents: np.ndarray
    goes_left: np.ndarray
    n_left: np.ndarray
    children: np.ndarray
    child_counts: np.ndarray
    child_starts: np.ndarray
    child: NodeStatistics
    shift: np.ndarray
    child_ids: np.ndarray
    larger: np.ndarray


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
    search = LevelSearch(codes=codes, stats=stats, criterion=criterion,
                         min_samples_leaf=finder.min_samples_leaf, n_bins=n_bins,
                         dense_min=dense_threshold(n_bins), weighted=weights is not None)
    budget = max(MIN_STORE_BYTES, STORE_BYTES_PER_VALUE * codes.size)
    growth = TreeGrowth(search=search, Y=Y, weights=weights, rules=rules, tree=tree,
                        thresholds=finder.bin_thresholds,
                        budget=subtract and budget, counter=counter,
                        total_weight=float(root_node.weight[0]), n_jobs=n_jobs,
                        draw=some_features(finder, codes) and (finder.rng, finder.max_features))
    level = HistLevel.root(root, root_node, search)
    depth = 0
    while level is not None:
        if counter is not None:
            counter.searched(depth, len(level.counts), len(level.samples))
        level = grow_level(level, growth, depth)
        depth += 1
    return tree.finish()


def chosen_thresholds(cuts, features, bins):
    """The thresholds of the cuts after bin ``bins[i]`` of feature ``features[i]``, read
    from the finder's ``bin_thresholds`` (one array per feature) without padding them
    into an (f, B) array (as large as the data's float64 values).  O(len(features))."""
    return np.array([cuts[j][b] for j, b in zip(features.tolist(), bins.tolist())])


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


def grow_level(level, growth, depth):
    """Split every node of ``level`` (at ``depth``) whose best cut (``search_level``)
    passes the rules (``split_level``); return the next level (``next_level``; None if
    no node of it may split).  ``growth``: the tree's ``TreeGrowth``.  Cost: a level's
    share of ``grow_level_wise_hist``'s."""
    store = kept_histograms(level.counts, growth)
    feature, bin_, gain = search_level(level, growth, store)
    splitting = ~growth.rules.rejects(gain, growth.total_weight)
    if not splitting.any():
        return None
    split = split_level(level, growth, feature, bin_, splitting)
    keep = ~growth.rules.is_leaf(split.child_counts, split.child.impurity, depth + 1,
                                 growth.search.min_samples_leaf)
    if not keep.any():
        return None
    return next_level(level, growth, split, store, keep)


def kept_histograms(counts, growth):
    """Where the nodes (``counts`` samples each) that keep their histograms for the next
    level's subtractions get them: dense nodes whose larger child is dense too, the
    largest first, within ``growth.budget`` bytes.  Their ``KeptHistograms`` (allocated,
    filled by the search), or None.  O(nodes log nodes)."""
    if not growth.budget:
        return None
    search = growth.search
    f, n_bins, width = search.codes.shape[1], search.n_bins, search.stats.shape[1]
    keep_histogram = np.zeros(len(counts), dtype=bool)
    eligible = np.flatnonzero(counts >= 2 * search.dense_min)
    per_node = f * n_bins * (width * 8 + 8)
    allowed = int(growth.budget // per_node)
    keep_histogram[eligible[np.argsort(-counts[eligible], kind="stable")][:allowed]] = True
    kept_nodes = np.flatnonzero(keep_histogram)
    if not len(kept_nodes):
        return None
    store = KeptHistograms(nodes=kept_nodes,
                           sums=np.empty((len(kept_nodes), f, n_bins, width)),
                           counts=np.empty((len(kept_nodes), f, n_bins), dtype=np.intp))
    if growth.counter is not None:
        growth.counter.held(store.sums.nbytes + store.counts.nbytes)
    return store


def search_level(level, growth, store):
    """Every node's best cut ``(feature, bin, gain)`` (``best_cuts`` over
    ``feature_scores``), a group of features at a time, in ``growth.n_jobs`` threads,
    each counting into its own counter; the histograms of ``store``'s nodes are copied
    into it.  O(f n_d k + f B k per dense node) for the level's n_d samples."""
    search, counter, counts = replace(growth.search, store=store), growth.counter, level.counts
    f, width = search.codes.shape[1], search.stats.shape[1]
    chunk_counters = []
    drawn = drawn_codes(search.codes, level.samples, counts, growth.draw)   # (m, f) or None

    def scores(features):
        own = None
        if counter is not None:
            own = GrowthCounter()
            chunk_counters.append(own)
        found = feature_scores(level, replace(search, counter=own), features)
        return Distinct(found if drawn is None else keep_drawn(found, drawn))

    if counter is not None:
        counter.subtracted_histograms += int(level.derived.sum()) * f
    # (the small nodes' sorted runs hold about four times the exact grower's temporaries)
    per_feature = max(4 * len(level.samples) * (width + 1),
                      int((counts >= search.dense_min).sum()) * search.n_bins * (width + 1))
    chunks = feature_chunks(f, per_feature, growth.n_jobs, SEARCH_VALUES)
    best = best_cuts(len(counts), chunks, scores, growth.n_jobs)
    if counter is not None:
        counter.histogram_pairs += sum(own.histogram_pairs for own in chunk_counters)
    return best


def split_level(level, growth, feature, bin_, splitting):
    """Split the nodes ``splitting`` (a mask) of ``level`` after bin ``bin_`` of their
    ``feature``: their children, left then right for every parent, breadth first, are
    recorded in ``growth.tree``, and their samples' statistics re-centred on their own
    means (``child_statistics``).  Returns the ``LevelSplit``.  O(n_d k) for the
    level's n_d samples."""
    codes, counts, tree = growth.search.codes, level.counts, growth.tree
    parents = np.flatnonzero(splitting)
    starts, segment = segment_starts(counts), segment_ids(counts)
    chosen_codes = np.take(codes.ravel(), level.samples * codes.shape[1] + feature[segment])
    goes_left = (chosen_codes <= bin_[segment]) | ~splitting[segment]
    n_left = np.where(splitting, np.add.reduceat(goes_left.astype(np.intp), starts), counts)
    children, = partition(partition_plan(counts, n_left, splitting, splitting), goes_left,
                          [level.samples])
    child_counts = np.column_stack([n_left[parents], counts[parents] - n_left[parents]]).ravel()
    child_starts = segment_starts(child_counts)
    child, shift = child_statistics(growth, children, child_counts, child_starts)
    child_ids = tree.add_nodes(child.value, child.impurity, child_counts,
                               np.repeat(level.node_ids[parents], 2),
                               np.tile([LEFT, RIGHT], len(parents)), child.weight)
    threshold = chosen_thresholds(growth.thresholds, feature[parents], bin_[parents])
    n_right = counts - n_left
    tree.set_splits(level.node_ids[parents], feature[parents], threshold,
                    n_left[parents] > n_right[parents])   # no missing value: the larger child
    larger = 2 * np.arange(len(parents)) + (child_counts[1::2] >= child_counts[0::2])
    return LevelSplit(splitting=splitting, parents=parents, goes_left=goes_left,
                      n_left=n_left, children=children, child_counts=child_counts,
                      child_starts=child_starts, child=child, shift=shift,
                      child_ids=child_ids, larger=larger)


def child_statistics(growth, children, child_counts, child_starts):
    """The children's ``NodeStatistics`` (their samples ``children``, ``child_counts``
    each, from ``child_starts``) and ``shift``, each child's mean minus its parent's,
    from the parent-centred statistics; the squared error's statistics of their samples
    are re-centred on their own means, in place (the classification criteria's one-hot
    statistics are not centred: no shift).  O(n_d k)."""
    stats, criterion, k = growth.search.stats, growth.search.criterion, growth.Y.shape[1]
    shift = np.zeros((len(child_counts), stats.shape[1]))
    child_weights = None if growth.weights is None else growth.weights[children]
    child = node_statistics(growth.Y[children], child_counts, criterion, child_weights)
    if criterion == "squared_error":     # statistics centred per node: re-centre them
        shift[:, :k] = (np.add.reduceat(stats[children, :k], child_starts, axis=0)
                        / child.weight[:, None])
        stats[children, :k] = child.stats
    return child, shift


def next_level(level, growth, split, store, keep):
    """The next ``HistLevel``: the children ``keep`` (a mask over ``split``'s children),
    which of them get their histograms by subtraction (``subtracted_children``), from
    which counted sibling (``counted_siblings``), the parents' histograms they need
    (``store``'s, renumbered) and the small ones' sorted rows (``next_sorted``).
    O(n_d + f p) for the p samples of small nodes."""
    search, counts = growth.search, split.child_counts
    derived, parent_slot = subtracted_children(level, growth, split, store, keep)
    sibling, helper, helper_counts, sibling_shift = counted_siblings(split, keep, derived,
                                                                     search.dense_min)
    samples = split.children[np.repeat(keep, counts)]
    parents_kept = None
    if store is not None and derived.any():
        used = np.unique(parent_slot[derived])
        renumber = np.full(len(store.nodes), -1)
        renumber[used] = np.arange(len(used))
        parent_slot[derived] = renumber[parent_slot[derived]]
        parents_kept = KeptHistograms(nodes=store.nodes[used], sums=store.sums[used],
                                      counts=store.counts[used])
    return HistLevel(node_ids=split.child_ids[keep], counts=counts[keep],
                     nodes=select(split.child, keep), samples=samples, derived=derived[keep],
                     parent_slot=parent_slot[keep], sibling=sibling[keep], helper=helper,
                     helper_counts=helper_counts[keep], shift=split.shift[keep],
                     sibling_shift=sibling_shift[keep], store=parents_kept,
                     sorted=next_sorted(level, search.codes, search.dense_min, split, keep))


def subtracted_children(level, growth, split, store, keep):
    """Which children get their histograms by subtraction (``derived``, a mask over
    ``split``'s children) and their parents' entries in ``store`` (``parent_slot``; -1:
    none): the larger child of a parent whose histograms ``store`` keeps, if it may
    split (``keep``), is dense, and ``can_subtract`` finds it safe.  O(parents k)."""
    counts, child, larger = split.child_counts, split.child, split.larger
    smaller, parents = larger ^ 1, split.parents
    derived = np.zeros(len(counts), dtype=bool)
    parent_slot = np.full(len(counts), -1)
    if store is None:
        return derived, parent_slot
    slot_of = np.full(len(level.counts), -1)
    slot_of[store.nodes] = np.arange(len(store.nodes))
    has_store = slot_of[parents] >= 0
    safe = np.ones(len(parents), dtype=bool)         # counts subtract exactly
    if growth.search.criterion == "squared_error":
        safe = can_subtract(level.nodes.abs_totals[parents], child.abs_totals[smaller],
                            child.abs_totals[larger], child.weight[smaller],
                            split.shift[smaller, :growth.Y.shape[1]])
    if growth.weights is not None:      # real weights (and weighted classes) do not
        safe &= can_subtract(level.nodes.weight[parents, None],
                             child.weight[smaller, None], child.weight[larger, None],
                             child.weight[smaller], np.zeros((len(parents), 1)))
    use = has_store & keep[larger] & (counts[larger] >= growth.search.dense_min) & safe
    derived[larger[use]] = True
    parent_slot[larger[use]] = slot_of[parents[use]]
    return derived, parent_slot


def counted_siblings(split, keep, derived, dense_min):
    """For the ``derived`` children, where their siblings' histograms are counted:
    ``(sibling, helper, helper_counts, sibling_shift)``.  A sibling is counted as a node
    of the next level (``sibling``: its rank among ``keep``) if it is one with dense
    histograms (``dense_min`` samples or more), else from ``helper`` samples kept for it
    (``helper_counts`` of them); ``sibling_shift``: its ``shift``.  O(n_d)."""
    counts, larger, starts = split.child_counts, split.larger, split.child_starts
    smaller = larger ^ 1
    rank = np.cumsum(keep) - 1
    sibling = np.full(len(counts), -1)
    counted_there = keep[smaller] & (counts[smaller] >= dense_min)
    sibling[larger] = np.where(counted_there, rank[smaller], -1)
    helper_of = np.flatnonzero(derived & (sibling < 0))
    helper_counts = np.zeros(len(counts), dtype=np.intp)
    helper_counts[helper_of] = counts[helper_of ^ 1]
    helper = (np.concatenate([split.children[starts[c]:starts[c] + counts[c]]
                              for c in helper_of ^ 1])
              if len(helper_of) else np.zeros(0, dtype=np.intp))
    sibling_shift = np.zeros_like(split.shift)
    sibling_shift[larger] = split.shift[smaller]
    return sibling, helper, helper_counts, sibling_shift
