"""The search of the level-wise histogram grower: the state a level carries, and its
scored candidate cuts (``treelib.split.Candidates``) a group of features at a time.

``treelib.growth.level_wise_hist`` grows the tree; ``feature_scores`` is what its
``best_cuts`` (``treelib.growth.level_cuts``) calls for every group of features.  A level's
histograms are counted (or derived by subtraction) by ``treelib.growth.level_histograms``;
the small nodes' rows, kept sorted by code, come from ``treelib.growth.sorted_codes``.
"""

from dataclasses import dataclass

import numpy as np

from treelib.counters import GrowthCounter
from treelib.criteria import NodeStatistics
from treelib.growth.level_histograms import feature_histograms, populated_bins
from treelib.growth.level_scores import cut_candidates
from treelib.growth.sorted_codes import SortedRows, small_rows


@dataclass
class KeptHistograms:
    """The dense histograms of the nodes ``nodes`` (their indices in the level that
    counted them) at every feature: ``sums`` (r, f, B, width) and ``counts`` (r, f, B),
    kept for the next level's subtractions."""

    nodes: np.ndarray
    sums: np.ndarray
    counts: np.ndarray


@dataclass(frozen=True)
class LevelSearch:
    """What a level's search reads besides the level: the (n, f) bin ``codes``, every
    sample's ``stats`` (n, width) centred on its node's mean (the last column: the sample
    weights, if ``weighted``), the ``criterion``, ``min_samples_leaf``, ``n_bins``, and
    ``dense_min``, the fewest samples of a node with dense histograms.  ``counter``: the
    ``GrowthCounter`` this search counts into (one per group of features); ``store``: the
    ``KeptHistograms`` its dense histograms are copied into (None: none kept)."""

    codes: np.ndarray
    stats: np.ndarray
    criterion: str
    min_samples_leaf: int
    n_bins: int
    dense_min: int
    weighted: bool = False
    counter: GrowthCounter | None = None
    store: KeptHistograms | None = None


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
    store: KeptHistograms | None   # the parents' histograms
    sorted: SortedRows       # the small nodes' samples sorted by code, feature by feature

    @classmethod
    def root(cls, root, root_node, search):
        """The first level: the root (id ``root``, ``NodeStatistics`` ``root_node``) with
        every sample, its rows sorted by code if it is small.  O(n) (O(f n) if small)."""
        n, width = len(search.codes), search.stats.shape[1]
        none = np.full(1, -1)
        return cls(node_ids=root, counts=np.array([n]), nodes=root_node,
                   samples=np.arange(n), derived=np.zeros(1, bool), parent_slot=none,
                   sibling=none, helper=np.zeros(0, np.intp),
                   helper_counts=np.zeros(1, np.intp), shift=np.zeros((1, width)),
                   sibling_shift=np.zeros((1, width)), store=None,
                   sorted=small_rows(search.codes, np.arange(n), np.array([n]),
                                     search.dense_min))


@dataclass
class Cuts:
    """Cuts of a level before scoring: each one's left sums (c, width), left count,
    column (in the group of features), node and bin; ordered by column, node, bin."""

    left_sums: np.ndarray
    n_left: np.ndarray
    column: np.ndarray
    node: np.ndarray
    label: np.ndarray

    @classmethod
    def join(cls, parts, n_nodes, width):
        """The cuts of ``parts`` (a list of tuples of the five fields, each ordered by
        column, node, bin, of different nodes) in one order.  O(c log c) for two parts,
        else O(1)."""
        if len(parts) == 2:          # feature, then node, then bin
            left_sums, n_left, column, node, labels = (np.concatenate(a) for a in zip(*parts))
            order = np.argsort(column * n_nodes + node, kind="stable")
            return cls(*(a[order] for a in (left_sums, n_left, column, node, labels)))
        if parts:
            return cls(*parts[0])
        return cls(np.zeros((0, width)), *(np.zeros(0, dtype=np.intp),) * 4)


def feature_scores(level, search, features):
    """The ``treelib.split.Candidates`` of a group of features (a range): the cuts after
    every non-empty bin of the dense nodes' histograms and after every populated bin of
    the small nodes (``populated_bins``, on their sorted rows), labelled by bin; only the
    cuts that leave ``min_samples_leaf`` samples on both sides are scored.  With
    ``search.store``, the dense histograms of its nodes are also written into it at these
    features, for the next level's subtractions.  O(d c B k) for d dense nodes, O(c p k)
    for the p samples of the small ones."""
    dense = level.counts >= search.dense_min
    parts = []                   # (left sums, n_left, feature in group, node, bin)
    if dense.any():
        parts.append(dense_cuts(level, search, features, dense))
    small = level.sorted
    if small is not None and len(small.counts):
        parts.append(small_cuts(level, search, features, dense))
    cuts = Cuts.join(parts, len(level.counts), search.stats.shape[1])
    return scored(level, search, features, cuts)


def dense_cuts(level, search, features, dense):
    """The candidate cuts of the dense nodes (mask ``dense``) at a group of features,
    from their histograms, as a tuple of ``Cuts``' fields; writes the kept nodes'
    histograms into ``search.store``.  A cut after an empty bin makes the same children
    as the one before it: it is not a candidate.  O(d c B k)."""
    sums, counts = feature_histograms(level, search, features, dense)
    store = search.store
    if store is not None:
        where = np.cumsum(dense) - 1
        store.sums[:, features] = sums[where[store.nodes]]
        store.counts[:, features] = counts[where[store.nodes]]
    filled = np.cumsum(counts, axis=2)[:, :, :-1]                   # (d, c, B - 1)
    n_dense = level.counts[dense][:, None, None]
    min_samples_leaf = search.min_samples_leaf
    cut = ((counts[:, :, :-1] > 0) & (filled >= min_samples_leaf)
           & (n_dense - filled >= min_samples_leaf))
    column, d, bin_ = np.nonzero(cut.transpose(1, 0, 2))    # feature, node, bin
    cumulative = np.cumsum(sums, axis=2)
    return (cumulative[d, column, bin_], filled[d, column, bin_], column,
            np.flatnonzero(dense)[d], bin_)


def small_cuts(level, search, features, dense):
    """The candidate cuts after the populated bins of the small nodes (not ``dense``) at a
    group of features, from their sorted rows (``populated_bins``): a tuple of ``Cuts``'
    fields, numbered among all the level's nodes.  O(c p k)."""
    small = level.sorted
    rows = slice(features.start, features.stop)
    *runs, candidate = populated_bins(small.rows[rows], small.codes[rows], small.counts,
                                      search.stats, search.min_samples_leaf)
    runs[3] = np.flatnonzero(~dense)[runs[3]]
    at = np.flatnonzero(candidate)
    if search.counter is not None:
        search.counter.histogram_pairs += small.rows.shape[1] * len(features)
    return tuple(a[at] for a in runs)


def scored(level, search, features, cuts):
    """The ``Candidates`` of ``cuts`` (``level_scores.cut_candidates``: -inf where the gain
    is not finite or, weighted, where a child has no weight), rounding bounds on demand.
    O(c k) for c cuts."""
    left_sums, w_left = cuts.left_sums, cuts.n_left
    if search.weighted:            # the last column of the sums is the weight
        left_sums, w_left = left_sums[:, :-1], left_sums[:, -1]
    return cut_candidates(level, search.criterion, search.weighted,
                          (cuts.node, cuts.column + features.start,
                           cuts.label.astype(np.intp, copy=False)),
                          left_sums, w_left)
