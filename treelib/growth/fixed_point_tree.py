"""Histogram trees from fixed-point sums: the same tree however the rows are split up.

A histogram summed row by row and one summed block by block (worker by worker) differ in
their last bits, and a cut whose gain nearly ties another's can flip.  This grower adds
nothing in floating point.  The targets are centred once at ``c0 = to_float(exact sum of
y) / n`` (the same float on any machine), each ``v = y - c0`` is written as fixed-point
digits on a grid set by the largest |v| (``treelib.fixed_point``; a maximum does not
depend on the order either), and every sum is a sum of digits, an exact integer in
float64.  Then, per node of a level:

- its histograms are ``np.bincount`` s of digits, counted where the rows are (a
  ``treelib.growth.row_parts`` provider) and merged by adding them; the larger of two
  siblings gets its parent's minus the smaller one's (the subtraction trick, exact here);
- the left sums of every cut are cumulative digit sums over the bins, the right sums the
  node's minus those, all centred on the node's mean in digits (``fixed_point.centre``:
  exact), then each made one float by ``to_float``, a function of the digits alone;
- the gain is ``treelib.gains``' squared-error gain of those floats, and the best cut is
  chosen by the library's one tie rule (``treelib.split.best_cut``) with the rounding
  bound of the final arithmetic only (the sums themselves are exact up to one rounding);
- a node's value is ``c0 + mean``, its impurity the exact digit sum of ``(v - mean)**2``
  over its count (0 when its smallest and largest v are equal: a pure node is a leaf).

Every number the growth depends on is a function of exact sums, maxima and minima, so the
tree is the same bit for bit for any order of the rows and any split into blocks.  Nodes
are numbered breadth first, as ``treelib.growth.level_wise_hist`` numbers them, and on
data without near-ties the tree is that grower's (values to rounding).

One round per level: every block is asked once for the level's counts, sums, spreads and
histograms (``Summary``), in groups of nodes of at most ``ROUND_BYTES`` of histograms
(Spark MLlib's grouping of nodes under a memory cap), and told once where its rows go.
Costs per level with n_d rows in the nodes counted, f features, B bins and T digits
(2 up to about 8 million rows): O(f n_d T) to count, O(m f B T) to score m nodes.
"""

from dataclasses import dataclass, field

import numpy as np

from treelib.fixed_point import centre, make_grid, to_float
from treelib.gains import gain_from_sums, gain_rounding_bound
from treelib.split import best_cut
from treelib.tree import LEFT, RIGHT, TreeRecorder

#: Histograms asked for in one round at most (bytes); more nodes take more rounds.
ROUND_BYTES = 64 * 2**20
#: Parents' histograms kept for the subtraction trick at most (bytes).
KEEP_BYTES = 128 * 2**20


def exact_mean_target(parts):
    """The mean target from its exact sum: the same float for any split into blocks.
    Two small rounds."""
    n = parts.n_rows
    grid = make_grid(parts.reduce("max_abs_target").value, n)
    return float(to_float(parts.reduce("target_sum", grid), grid)) / n


def centred_target(parts):
    """Centre the targets where they are: ``c0``, the grid of ``v = y - c0`` and the
    grid of ``(v - mean)**2`` (for impurities).  Three small rounds."""
    n = parts.n_rows
    c0 = exact_mean_target(parts)
    parts.update("centre_target", c0)
    top = parts.reduce("max_abs_values")[0].value
    grid = make_grid(top, n)
    parts.update("write_digits", [grid])
    return c0, grid, make_grid(4 * top * top, n)


@dataclass
class Level:
    """The nodes of the level being grown: their ``ids``, ``counts`` and ``centres``
    (each node's mean of v, around which its spread is summed), ``pairs`` (per node its
    sibling's position in the level; empty for the root), ``kept`` {parent id:
    (histograms, counts)} for the subtraction trick, and ``depth``."""

    ids: np.ndarray
    counts: np.ndarray
    centres: np.ndarray
    pairs: np.ndarray
    kept: dict
    depth: int = 0


@dataclass
class FixedPointTree:
    """A squared-error tree while it grows level by level from fixed-point sums: the row
    provider ``parts``, the bin ``thresholds``, the ``rules``, ``min_samples_leaf`` and
    ``counter``; set up by ``start``: the target's centre ``c0``, the digit ``grid`` of v
    and ``spread_grid`` of its squares, and the node ``table`` and ``splits`` that
    ``record_tree`` turns into a ``Tree``."""

    parts: object
    thresholds: list
    rules: object
    min_samples_leaf: int = 1
    counter: object = None
    table: dict = field(default_factory=lambda: {"value": [], "impurity": [], "count": [],
                                                 "parent": [-1], "branch": [LEFT]})
    splits: list = field(default_factory=list)
    n_bins: int = 0
    c0: float = 0.0
    grid: object = None
    spread_grid: object = None

    def start(self):
        """Centre the targets (three small rounds); return the root's ``Level``."""
        self.n_bins = max(len(t) for t in self.thresholds) + 1
        self.c0, self.grid, self.spread_grid = centred_target(self.parts)
        return Level(np.array([0]), np.array([self.parts.n_rows]),
                     np.zeros(1),                  # the root's mean of v is 0 up to rounding
                     np.zeros(0, dtype=np.intp), {})

    def histogram_plan(self, level):
        """Which nodes of ``level`` get histograms counted and which derived (the larger
        of two siblings whose parent's histograms are kept): ``(sibling, parent_ids,
        counted, derived)``.  O(m)."""
        ids, counts = level.ids, level.counts
        may = ~self.rules.is_leaf(counts, np.ones(len(ids)), level.depth,
                                  self.min_samples_leaf) & (self.n_bins >= 2)
        sibling = level.pairs if len(level.pairs) else np.full(len(ids), -1)
        parent_ids = np.asarray(self.table["parent"])[ids]
        larger = (sibling >= 0) & ((counts > counts[np.maximum(sibling, 0)])
                                   | ((counts == counts[np.maximum(sibling, 0)])
                                      & (np.arange(len(ids)) > sibling)))
        derived = may & larger & np.isin(parent_ids, list(level.kept))
        counted = may & ~derived
        counted[sibling[derived]] = True
        return sibling, parent_ids, counted, derived

    def record_level(self, level, summary):
        """The nodes' digit sums, means of v and impurities (0 for a node whose v are
        all equal), written in the table.  O(m T)."""
        counts, grid = level.counts, self.grid
        sums = summary.sums[:, 0]                                       # (m, T)
        means = to_float(sums, grid) / counts
        impurity = np.maximum(to_float(summary.spread, self.spread_grid) / counts
                              - (means - level.centres) ** 2, 0.0)
        impurity[summary.low == summary.high] = 0.0
        self.table["value"].append(self.c0 + means)
        self.table["impurity"].append(impurity)
        self.table["count"].append(counts)
        return sums, means, impurity

    def grow_level(self, level):
        """Measure and search the nodes of ``level`` (one round, more if its histograms
        exceed ``ROUND_BYTES``) and split them; return the next level, or None."""
        f, counter = len(self.thresholds), self.counter
        sibling, parent_ids, counted, derived = self.histogram_plan(level)
        summary = level_summary(self.parts, level.ids, np.flatnonzero(counted), self.n_bins,
                                level.centres, self.spread_grid, f, self.grid.limbs)
        sums, means, impurity = self.record_level(level, summary)
        counts = level.counts
        search = np.flatnonzero(~self.rules.is_leaf(counts, impurity, level.depth,
                                                    self.min_samples_leaf) & (self.n_bins >= 2))
        if counter is not None:
            counter.searched(level.depth, len(search), counts[search].sum())
            counter.histogram_pairs += int(counts[counted].sum()) * f
            counter.subtracted_histograms += int(derived[search].sum()) * f
        hist = node_histograms(summary, counted, derived, sibling, parent_ids, level.kept,
                               search)
        if not len(search):
            return None
        found = best_splits(*hist, sums[search], counts[search], means[search], self.grid,
                            self.min_samples_leaf)
        return self.split_level(level, search, found, hist, sums)

    def split_level(self, level, search, found, hist, sums):
        """Split the nodes ``search`` of ``level`` whose best cut (``found``, from
        ``best_splits``) the rules accept, tell the rows, keep the histograms the next
        level subtracts from; return the next ``Level`` (None: nothing splits).  O(m)."""
        feature, bin_, gain, n_left, left_sums = found
        splitting = ~self.rules.rejects(gain, float(self.parts.n_rows))
        if not splitting.any():
            return None
        parents = search[splitting]
        feature, bin_, n_left = feature[splitting], bin_[splitting], n_left[splitting]
        left_sums = left_sums[splitting]
        n_right = level.counts[parents] - n_left
        first = len(self.table["parent"])
        left_ids = first + 2 * np.arange(len(parents))
        self.splits.append((level.ids[parents], feature, bin_, n_left > n_right))
        self.parts.update("split", level.ids[parents], feature, bin_, left_ids, left_ids + 1)
        self.table["parent"] += list(np.repeat(level.ids[parents], 2))
        self.table["branch"] += [LEFT, RIGHT] * len(parents)
        child_counts = np.column_stack([n_left, n_right]).ravel()
        child_sums = np.stack([left_sums, sums[parents] - left_sums], axis=1)
        child_sums = child_sums.reshape(-1, self.grid.limbs)
        kept = self.kept_histograms(level, search, splitting, np.maximum(n_left, n_right),
                                    hist)
        ids = np.arange(first, first + len(child_counts))
        return Level(ids, child_counts, to_float(child_sums, self.grid) / child_counts,
                     np.arange(len(ids)) ^ 1, kept, level.depth + 1)

    def kept_histograms(self, level, search, splitting, larger_child, hist):
        """The histograms of the splitting nodes whose larger child may split, largest
        first, within ``KEEP_BYTES``: that child's histograms are then a subtraction."""
        hist, hist_counts = hist
        may_split = ~self.rules.is_leaf(larger_child, np.ones(len(larger_child)),
                                        level.depth + 1, self.min_samples_leaf)
        budget = KEEP_BYTES // max(hist[0].nbytes + hist_counts[0].nbytes, 1)
        chosen = np.flatnonzero(splitting)[may_split]
        kept = {}
        for i in chosen[np.argsort(-level.counts[search[chosen]], kind="stable")][:budget]:
            kept[level.ids[search[i]]] = (hist[i], hist_counts[i])
        return kept


def grow_fixed_point_tree(parts, thresholds, rules, min_samples_leaf=1, counter=None):
    """Grow a squared-error regression tree on the rows of ``parts`` (a row provider,
    ``treelib.growth.row_parts``, whose rows are binned on ``thresholds``) level by
    level from fixed-point sums (see the module docstring).  ``rules``: ``StoppingRules``
    (no ``max_leaf_nodes``); ``counter``: a ``GrowthCounter``.  Returns a
    ``treelib.tree.Tree`` with thresholds on the features.  See the module docstring for
    the cost per level."""
    tree = FixedPointTree(parts, thresholds, rules, min_samples_leaf, counter)
    level = tree.start()
    while level is not None:
        level = tree.grow_level(level)
    return record_tree(tree.table, tree.splits, thresholds)


def level_summary(parts, ids, counted, n_bins, centres, spread_grid, f, limbs):
    """The level's ``Summary``: totals of every node, histograms of the nodes at
    positions ``counted``, in as many rounds as ``ROUND_BYTES`` allows."""
    per_node = f * n_bins * limbs * 8
    group = max(1, ROUND_BYTES // per_node)
    chunks = [counted[i:i + group] for i in range(0, len(counted), group)] or [counted]
    summary = parts.reduce("summary", ids, ids[chunks[0]], n_bins, centres, spread_grid)
    hists = [summary.hist] if summary.hist is not None else []
    hist_counts = [summary.hist_counts] if summary.hist is not None else []
    for chunk in chunks[1:]:
        more = parts.reduce("summary", [], ids[chunk], n_bins)
        hists.append(more.hist)
        hist_counts.append(more.hist_counts)
    if hists:
        summary.hist, summary.hist_counts = np.concatenate(hists), np.concatenate(hist_counts)
    return summary


def node_histograms(summary, counted, derived, sibling, parent_ids, kept, search):
    """The histograms (digits and counts) of the nodes ``search``: counted ones from the
    summary, derived ones as their parent's minus their sibling's (exact)."""
    slot = np.cumsum(counted) - 1
    hist, hist_counts = [], []
    for s in search:
        if derived[s]:
            parent_hist, parent_counts = kept[parent_ids[s]]
            hist.append(parent_hist - summary.hist[slot[sibling[s]]])
            hist_counts.append(parent_counts - summary.hist_counts[slot[sibling[s]]])
        else:
            hist.append(summary.hist[slot[s]])
            hist_counts.append(summary.hist_counts[slot[s]])
    if not hist:
        return None, None
    return np.stack(hist), np.stack(hist_counts)


def best_splits(hist, hist_counts, sums, counts, means, grid, min_samples_leaf):
    """The best cut of each of m nodes from its histograms ``hist`` (m, f, B, 1, T) and
    ``hist_counts`` (m, f, B): cumulative digit sums, centred on the node's ``means`` in
    digits, made floats; squared-error gains; ``best_cut``'s tie rule.  Returns
    ``(feature, bin, gain, n_left, left digit sums (m, T))``; gain -inf where no cut is a
    candidate.  O(m f B T)."""
    m = len(counts)
    cumulative = np.cumsum(hist[:, :, :-1, 0], axis=2)                   # (m, f, C, T)
    n_left = np.cumsum(hist_counts[:, :, :-1], axis=2)
    # a cut after an empty bin makes the same children as the one before: no candidate
    n_left = np.where(hist_counts[:, :, :-1] > 0, n_left, 0)
    node_mean = means[:, None, None]
    left = centre(cumulative, n_left, node_mean, grid)
    total = centre(sums[:, None, None], counts[:, None, None], node_mean, grid)
    S_L, S_R, S = (to_float(a, grid) for a in (left, total - left, total))
    w = counts[:, None, None].astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        gains = gain_from_sums(S_L[..., None], n_left, S[..., None], w, "squared_error",
                               sum_right=S_R[..., None])
        bounds = gain_rounding_bound(S_L[..., None], n_left, S[..., None], w,
                                     "squared_error", gain=gains)
    valid = (n_left >= min_samples_leaf) & (w - n_left >= min_samples_leaf) & np.isfinite(gains)
    gains = np.where(valid, gains, -np.inf)
    bounds = np.where(valid, bounds, 0.0)
    feature, bin_ = np.zeros(m, dtype=np.intp), np.zeros(m, dtype=np.intp)
    gain = np.full(m, -np.inf)
    for s in range(m):
        found = best_cut(gains[s].T, bounds[s].T)
        if found is not None:
            bin_[s], feature[s] = found
            gain[s] = gains[s, feature[s], bin_[s]]
    rows = np.arange(m)
    return (feature, bin_, gain, n_left[rows, feature, bin_],
            cumulative[rows, feature, bin_])


def record_tree(table, splits, thresholds):
    """The ``Tree`` from the node table (nodes by id) and the splits of every level."""
    value, impurity, count = (np.concatenate(table[k]) for k in ("value", "impurity", "count"))
    recorder = TreeRecorder()
    recorder.add_nodes(value[:1, None], impurity[:1], count[:1])
    if len(value) > 1:
        recorder.add_nodes(value[1:, None], impurity[1:], count[1:],
                           np.asarray(table["parent"][1:len(value)]),
                           np.asarray(table["branch"][1:len(value)]))
    for nodes, feature, bin_, missing_left in splits:
        recorder.set_splits(nodes, feature,
                            [thresholds[j][b] for j, b in zip(feature, bin_)], missing_left)
    return recorder.finish()
