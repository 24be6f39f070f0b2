"""Gradient boosting's trees: best first, on histograms of gradients and hessians.

Each tree of gradient boosting is grown on the bin codes of the features
(``treelib.binning``) and on two numbers per sample, its gradient g and hessian h
(``treelib.losses``).  Every node is searched from its histograms of g and h by the
Newton gain (``treelib.growth.boosting_histograms``), and a leaf predicts the Newton step
``-G / (H + l2)`` times the learning rate.

Growth follows scikit-learn's HistGradientBoosting (``TreeGrower`` and ``Splitter`` in
``sklearn/ensemble/_hist_gradient_boosting``) rule for rule:

- best first: the leaf whose best split gains most is split next, up to
  ``max_leaf_nodes`` leaves; children at ``max_depth`` are leaves, and so is a child of
  fewer than ``2 min_samples_leaf`` samples;
- a cut is a candidate when both children keep ``min_samples_leaf`` samples and a sum of
  hessians of at least ``min_hessian_to_split`` (1e-3), and a node splits only if its best
  gain is positive.  scikit-learn's root has the value 0 while it is searched, so its
  gain is measured without the parent's term ``G^2 / (H + l2)``: the root splits whenever
  a candidate has a child with a nonzero sum of gradients; and a root that does not split
  predicts 0.  Both are followed here;
- a leaf's value is ``-G / (H + l2 + 1e-15)`` (scikit-learn's ``compute_node_value``)
  times the learning rate;
- missing values (``MISSING_BIN``) are tried on both sides of every cut of a feature that
  had any in training; a split of a feature without any in training sends them to the
  larger child (the right one on a tie);
- categorical features (``treelib.finders.categorical``): the categories present in the
  node, the missing values one more, sorted by ``G / (H + 10)`` (``Categories(...,
  smooth=10)``'s order), then scanned like an ordered feature (scikit-learn scans only up
  to the middle from each end and leaves out categories of fewer than 10 samples: see
  ``treelib.estimators.boosting``);
- **histogram subtraction**: of two siblings, the smaller one's histogram is counted, the
  larger one's is its parent's minus the smaller one's.  A node keeps its samples in
  increasing order, so every bin adds its gradients in the order scikit-learn adds them,
  and the root's sums are added as scikit-learn adds them (``sklearn_sum``).

Where scikit-learn keeps the first of two exactly equal gains in its scan order, treelib
applies its one tie rule (``treelib.split.best_cut``).  The two differ only on ties.
Under monotonic constraints (``rules.monotonic_cst``), where clipping makes such ties
common, the nodes are searched in scikit-learn's arithmetic and scan order instead, and
the heap pops equal gains as scikit-learn's does (``treelib.growth.boosting_monotonic``).

Its own histograms, not the level-wise histogram grower's (issue 24): that one centres
each node's statistics on its mean and grows a level at a time; these trees add
scikit-learn's raw gradients in its order, best first (``treelib.growth.boosting_scan``
says more).  Costs per tree, with n samples, f features and B bins: O(f n) for the
root's histogram, O(f n_small) per split's smaller child, O(f B) to subtract and to
score a node, O(n_node) to split one."""

import dataclasses
import heapq
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from treelib.finders.monotonic import (
    UNBOUNDED,
    Bounds,
    child_bounds,
    newton_middle,
    newton_value,
)
from treelib.growth.boosting_histograms import (
    BinnedData,
    CutSums,
    NodeSums,
    candidate_sums,
    count_histograms,
)
from treelib.growth.boosting_monotonic import scan_splits
from treelib.growth.boosting_scan import fast_splits, uniform
from treelib.split import MISSING_BIN
from treelib.tree import LEFT, RIGHT, TreeRecorder

#: scikit-learn adds this to every leaf's sum of hessians (``compute_node_value``).
HESSIAN_EPSILON = 1e-15


@dataclass(frozen=True)
class BoostingRules:
    """scikit-learn's HistGradientBoosting rules for one tree (see the module docstring):
    ``max_leaf_nodes`` and ``max_depth`` (None: no limit), ``min_samples_leaf``,
    ``min_hessian_to_split`` and the L2 regularisation ``l2_regularization`` added to every
    sum of hessians; ``monotonic_cst``: None, or a tuple of f signs in {-1, 0, 1}, not all
    0 (scikit-learn's monotonic constraints: ``treelib.finders.monotonic``)."""

    max_leaf_nodes: int | None = 31
    max_depth: int | None = None
    min_samples_leaf: int = 20
    min_hessian_to_split: float = 1e-3
    l2_regularization: float = 0.0
    monotonic_cst: tuple | None = None


class Node(NamedTuple):
    """A node of a growing tree: its ``id``, its increasing ``rows`` (of the sample
    grown on), their sums of gradients ``G`` and hessians ``H``, and ``A`` their sum of
    |g| (an upper bound of it for a subtracted node), for the rounding bounds."""

    id: int
    rows: np.ndarray
    G: float
    H: float
    A: float


class Limits(NamedTuple):
    """Under monotonic constraints, a node's own ``value`` (scikit-learn's: clipped,
    unshrunk; the root's 0) and the ``Bounds`` its children's values are clipped to."""

    value: float = 0.0
    bounds: Bounds = UNBOUNDED


class GainOrder:
    """A heap key ordered as scikit-learn's ``TreeNode``: by gain alone (higher first),
    equal gains neither before the other, so the heap pops them as scikit-learn's does
    (used under monotonic constraints, where equal gains are common)."""

    def __init__(self, gain):
        self.gain = gain

    def __lt__(self, other):
        return self.gain > other.gain


@dataclass
class TreeGrowth:
    """One tree of gradient boosting while it grows best first: the ``BinnedData``, the
    float64 gradients ``g`` and hessians ``h`` (None: all 1) of every row, ``abs_g``, the
    tree's largest |g / h| ``scale``, the rules, ``shrinkage``, the ``counter``, the
    ``record`` of its nodes and splits, its ``leaves`` {id: rows}, the rows that only
    follow the splits ``others`` {id: rows} (outside a GOSS sample), and the ``heap`` of
    the searched nodes that can split, keyed by their gain."""

    data: BinnedData
    g: np.ndarray
    h: np.ndarray | None
    abs_g: np.ndarray
    scale: float
    rules: BoostingRules
    shrinkage: float
    counter: object
    record: "GrowthRecord" = None
    leaves: dict = field(default_factory=dict)
    others: dict = field(default_factory=dict)
    heap: list = field(default_factory=list)
    created: int = 0
    limits: dict = field(default_factory=lambda: {0: Limits()})

    def search(self, depth, nodes, batch, roots):
        """Search ``nodes`` (``Node`` s) with their histograms ``batch`` (``roots``: per
        node, whether it is searched as scikit-learn's root); push the ones that split on
        the heap.  O(m f B) for m nodes."""
        if self.counter is not None:
            self.counter.searched(depth, len(nodes), sum(len(node.rows) for node in nodes))
        sums = NodeSums(*([node[k] for node in nodes] for k in (2, 3)),
                        [len(node.rows) for node in nodes], [node.A for node in nodes],
                        self.scale)
        monotonic = self.rules.monotonic_cst is not None
        if monotonic:
            limits = [self.limits[node.id] for node in nodes]
            sums.limits = [(node.G, node.H, lim.value, *lim.bounds)
                           for node, lim in zip(nodes, limits)]
            found_splits = scan_splits(batch, sums, self.data, self.rules)
        else:                                 # (best_splits, without needless tie work)
            cuts = CutSums(*candidate_sums(batch, self.data), hessians=batch.h is not None)
            found_splits = fast_splits(cuts, sums, self.rules, roots,
                                       lambda s: uniform(self.g, self.h, nodes[s].rows))
        for k, found in enumerate(found_splits):
            if found is not None:
                key = GainOrder(found.gain) if monotonic else -found.gain
                heapq.heappush(self.heap, (key, self.created, nodes[k], depth,
                                           batch if len(nodes) == 1 else batch.take(k), found))
                self.created += 1

    def split(self, node, found):
        """Split ``node`` as ``found`` (a ``FoundSplit``) says, its rows and the rows that
        follow it; returns the two children's ``(G, H, rows)`` and ids.  O(n_node)."""
        data, (_, feature, cut, n_left, GL, HL, order) = self.data, found
        goes_left, missing_left, categories = split_rows(data, node.rows, feature, cut,
                                                         order, n_left)
        left, right = partition(node.rows, goes_left)
        sides = [(GL, HL, left), (node.G - GL, node.H - HL, right)]
        values = self.child_limits(node, feature, sides)
        ids = self.record.split(node.id, feature, cut % (data.width - 1), missing_left,
                                categories, sides, self.shrinkage, values)
        if values is not None:
            self.limits.update(zip(ids, values))
        del self.leaves[node.id]
        self.leaves.update(zip(ids, (left, right)))
        passive = self.others.pop(node.id)
        if len(passive):
            passive_left = split_rows(data, passive, feature, cut, order, n_left)[0]
            passive = partition(passive, passive_left)
        else:
            passive = (passive, passive)
        self.others.update(zip(ids, passive))
        return sides, ids

    def child_limits(self, node, feature, sides):
        """Under monotonic constraints, the two children's ``Limits`` (None without):
        their Newton values clipped to the node's children bounds, and their children's
        bounds split at the ``newton_middle`` of those values (``child_bounds``), as
        scikit-learn's ``TreeGrower.split_next`` sets them.  O(1)."""
        signs = self.rules.monotonic_cst
        if signs is None:
            return None
        bounds = self.limits[node.id].bounds
        values = [float(newton_value(G, H, self.rules.l2_regularization, bounds))
                  for G, H, _ in sides]
        pair = child_bounds(signs[feature], bounds, newton_middle(*values))
        return [Limits(v, b) for v, b in zip(values, pair)]

    def search_children(self, depth, node, node_hist, sides, ids):
        """Search the children of ``node`` (``sides`` and ``ids`` from ``split``) that
        hold ``2 min_samples_leaf`` samples: the smaller child's histograms counted, the
        larger one's its parent's minus them.  O(f n_small + f B)."""
        splittable = [c for c in (0, 1) if len(sides[c][2]) >= 2 * self.rules.min_samples_leaf]
        if not splittable:
            return
        small = 0 if len(sides[0][2]) < len(sides[1][2]) else 1   # scikit-learn: right on a tie
        small_rows = sides[small][2]
        counted = count_histograms(self.data, small_rows, self.g, self.h, sides[small][:2])
        a_sides = [float(self.abs_g[small_rows].sum())] * 2   # sum |g|, for rounding bounds
        a_sides[1 - small] = max(node.A - a_sides[small], 0.0) * (1 + 1e-12)
        if self.counter is not None:
            self.counter.histogram_pairs += len(small_rows) * self.data.n_features
            self.counter.subtracted_histograms += 1
        nodes = [Node(ids[c], sides[c][2], sides[c][0], sides[c][1], a_sides[c])
                 for c in splittable]
        if len(nodes) == 2:
            batch = counted.with_sibling(node_hist, small)
        else:
            batch = counted if splittable[0] == small else node_hist - counted
        self.search(depth + 1, nodes, batch, [False] * len(nodes))

    def grow(self):
        """Split the best leaf on the heap, and search its children, until the heap is
        empty or the tree has ``max_leaf_nodes`` leaves.  O(f n) per level of the tree."""
        rules = self.rules
        while self.heap:
            _, _, node, depth, node_hist, found = heapq.heappop(self.heap)
            sides, ids = self.split(node, found)
            if rules.max_leaf_nodes is not None and len(self.leaves) >= rules.max_leaf_nodes:
                break                              # (no histograms for the last children)
            if rules.max_depth is None or depth + 1 < rules.max_depth:
                self.search_children(depth, node, node_hist, sides, ids)

    def node_of(self):
        """The leaf every row ends in (the rows grown on and those that followed)."""
        node_of = np.empty(self.data.n_samples, dtype=np.intp)
        for node, rows in self.leaves.items():
            node_of[rows] = node
            if len(self.others[node]):
                node_of[self.others[node]] = node
        return node_of


def grow_boosting_tree(data, g, h=None, rules=BoostingRules(), shrinkage=1.0, samples=None,
                       counter=None):
    """Grow one tree of gradient boosting on ``data`` (a ``BinnedData``).

    ``g`` (n,) gradients, ``h`` (n,) hessians (None: all 1, the sums of hessians are then
    the counts), float32 or float64; ``samples``: the increasing rows to grow on (None:
    all; GOSS passes a sample); ``counter``: a ``treelib.counters.GrowthCounter``.
    Returns ``(tree, node_of)``: a ``treelib.tree.Tree`` whose thresholds are **bins**
    (``on_features`` writes them on the features), each node's value ``-G / (H + l2)``
    times ``shrinkage`` (the root's 0 if it is a leaf), and the leaf every row ends in
    (the rows outside ``samples`` take no part in the histograms; they follow the splits
    to their leaves).  Node ids: the root 0, the k-th split's children 2k + 1 and 2k + 2.
    O(f n) for the root, then see the module docstring.
    """
    every_row = samples is None
    samples = np.arange(data.n_samples) if every_row else np.asarray(samples, np.intp)
    g = np.asarray(g, dtype=np.float64)                 # float32 values added in float64
    h = None if h is None else np.asarray(h, dtype=np.float64)
    abs_g = np.abs(g)
    sampled_abs_g = abs_g if every_row else abs_g[samples]    # (the same values in order)
    scale = (sampled_abs_g if h is None else sampled_abs_g / np.maximum(h[samples], 1e-300)
             ).max(initial=0.0)
    growth = TreeGrowth(data, g, h, abs_g, scale, rules, shrinkage, counter)
    hist = count_histograms(data, None if every_row else samples, g, h)
    G = sklearn_sum(hist.g[0, 0], int(data.n_bins[0]), data.missing_column)
    H = float(len(samples)) if h is None else sklearn_sum(hist.h[0, 0], int(data.n_bins[0]),
                                                          data.missing_column)
    growth.record = GrowthRecord(G, H, len(samples), rules.l2_regularization)
    growth.leaves[0] = samples
    growth.others[0] = np.zeros(0, np.intp)         # the rows that only follow the splits
    if not every_row:
        outside = np.ones(data.n_samples, dtype=bool)
        outside[samples] = False
        growth.others[0] = np.flatnonzero(outside)
    if counter is not None:
        counter.histogram_pairs += len(samples) * data.n_features
    if len(samples) >= 2 * rules.min_samples_leaf and H >= rules.min_hessian_to_split:
        growth.search(0, [Node(0, samples, G, H, float(sampled_abs_g.sum()))], hist, [True])
    growth.grow()
    return growth.record.finish(), growth.node_of()


def sklearn_sum(row, n_bins, missing_column):
    """The sum of one feature's histogram row as scikit-learn adds it: numpy's pairwise
    sum over its 256 bins (the missing values in the last), so that the root's sums
    agree bit for bit."""
    full = np.zeros(MISSING_BIN + 1)
    full[:n_bins] = row[:n_bins]
    if missing_column >= 0:
        full[MISSING_BIN] = row[missing_column]
    return float(full.sum())


class GrowthRecord:
    """The nodes and splits of a growing tree, written into a ``TreeRecorder`` at the end
    (one call for all the nodes, one for all the numeric splits)."""

    def __init__(self, G, H, n, l2):
        self.l2, self.nodes, self.splits = l2, [], []
        self.root = (G, H, n)

    def split(self, node, feature, bin, missing_left, categories, sides, shrinkage,
              limits=None):
        """Split ``node`` at ``bin`` of ``feature`` (or send ``categories`` left) into the
        two ``sides`` [(G, H, rows or their number)], their values ``-G / (H + l2)``, or
        the clipped values of their ``limits`` (``Limits``), times ``shrinkage``; return
        the children's ids."""
        self.splits.append((node, feature, np.nan if categories is not None else float(bin),
                            missing_left, categories))
        first = 2 * len(self.splits) - 1
        for c, ((G, H, rows), branch) in enumerate(zip(sides, (LEFT, RIGHT))):
            value = (-G / (H + self.l2 + HESSIAN_EPSILON) if limits is None
                     else limits[c].value) * shrinkage
            n = len(rows) if hasattr(rows, "__len__") else int(rows)
            self.nodes.append((value, impurity(G, H, self.l2), n, node, branch, H))
        return [first, first + 1]

    def finish(self):
        recorder = TreeRecorder()
        G, H, n = self.root
        recorder.add_nodes(np.zeros((1, 1)), [impurity(G, H, self.l2)], [n], weight=[H])
        if self.nodes:
            value, impurities, counts, parents, branches, weights = zip(*self.nodes)
            recorder.add_nodes(np.array(value)[:, None], impurities, np.array(counts),
                               np.array(parents), np.array(branches), np.array(weights))
        numeric = [s for s in self.splits if s[4] is None]
        if numeric:
            recorder.set_splits(*(np.array(column) for column in list(zip(*numeric))[:4]))
        for node, feature, threshold, missing_left, categories in self.splits:
            if categories is not None:
                recorder.set_splits(node, feature, threshold, missing_left, categories)
        return recorder.finish()


def impurity(G, H, l2):
    """A node's second-order loss per unit of hessian, ``-G^2 / ((H + l2) H)`` (<= 0):
    weighted by H (the node's ``weighted_n_node_samples``), a parent's minus its
    children's is the Newton gain, so ``Tree.feature_importances`` sums gains."""
    return -G * G / ((H + l2) * H) if H > 0 else 0.0


def split_rows(data, rows, feature, cut, order, n_left):
    """Which of ``rows`` go left at cut ``cut`` of ``feature``; where missing values go;
    for a categorical feature the categories sent left (else None)."""
    column = data.columns[feature][rows]                          # each row's bin
    width, has_missing = data.width, bool(data.has_missing[feature])
    if data.categorical[feature]:
        chosen = order[: cut + 1]
        lookup = np.zeros(width, dtype=bool)
        lookup[chosen] = True
        goes_left = lookup[column]
        categories = tuple(int(c) for c in np.sort(chosen[chosen < data.n_bins[feature]]))
        missing_left = data.missing_column >= 0 and bool(lookup[data.missing_column])
    else:
        b, missing_left = cut % (width - 1), cut >= width - 1
        goes_left = column <= b
        if missing_left:
            goes_left |= column == data.missing_column
        categories = None
    if not has_missing:                   # none in training: the larger child (scikit-learn)
        missing_left = n_left > len(rows) - n_left
    return goes_left, bool(missing_left), categories


def partition(rows, goes_left):
    """``(rows[goes_left], rows[~goes_left])``; ``compress`` for many rows (2.5x faster
    on random masks).  O(n)."""
    if len(rows) < 512:
        return rows[goes_left], rows[~goes_left]
    return rows.compress(goes_left), rows.compress(~goes_left)


def on_features(tree, thresholds):
    """``tree`` with its bin thresholds written on the features: bin b of feature j
    becomes ``thresholds[j][b]``, the last bin +inf (the split that sends only the
    missing values right); categorical splits keep NaN."""
    threshold = tree.threshold.copy()
    for node in np.flatnonzero(~tree.is_leaf & ~tree.categorical):
        cuts, b = thresholds[tree.feature[node]], int(threshold[node])
        threshold[node] = cuts[b] if b < len(cuts) else np.inf
    return dataclasses.replace(tree, threshold=threshold)
