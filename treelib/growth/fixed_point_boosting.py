"""Gradient boosting from fixed-point sums: the same trees however the rows are split up.

The boosting loop of ``treelib.growth.boosting`` with every sum made exact
(``treelib.fixed_point``), so that a fit whose rows sit in several blocks, on several
machines (``treelib.distributed``), grows the same trees to the last bit as a fit in one
array:

- the baseline comes from the exact sum of the targets (``loss.baseline_from_mean``);
- every iteration, each block computes its rows' gradients and hessians itself (the same
  float32 operation per row as the local loop, wherever the row is), the largest |g| and
  h (order-free) set their grids, and the rows write their digits;
- the tree is grown best first as ``treelib.growth.boosting_grower`` grows it, rule for
  rule (Newton gain, ``min_samples_leaf``, ``min_hessian_to_split``, L2, scikit-learn's
  root, ``max_leaf_nodes``, ``max_depth``), from histograms of digits: the smaller child
  counted where the rows are, the larger its parent's minus it (exact), left sums
  cumulative over the bins, right sums the node's minus those, each made one float;
  with squared error (h = 1) the gain is the regression tree's;
- each block adds its leaves' values to its rows' raw predictions.

No missing values, categorical features, sample weights, GOSS or line search here (the
estimators refuse them with ``histogram_sums="fixed_point"``).  One round per split (its
smaller child's histograms), one for the root, four per iteration besides.
"""

import heapq
from dataclasses import dataclass, field

import numpy as np

from treelib.fixed_point import make_grid, to_float
from treelib.growth.boosting_grower import GrowthRecord
from treelib.growth.boosting_histograms import CutSums, NodeSums, choose_splits
from treelib.growth.fixed_point_tree import exact_mean_target


def boost_fixed_point(parts, n_bins, loss, *, max_iter=100, learning_rate=0.1, rules=None,
                counter=None):
    """Boost ``max_iter`` trees on the binned rows of ``parts`` (a row provider whose
    widest feature has ``n_bins`` bins) with ``loss`` (one raw prediction).  Returns
    ``(baseline, trees)``, ``trees[m][0]`` the tree of iteration m (thresholds in
    bins)."""
    baseline = np.atleast_1d(loss.baseline_from_mean(exact_mean_target(parts)))
    parts.update("start_predictions", baseline)
    trees = []
    for _ in range(max_iter):
        parts.update("gradients", loss)
        grids = [make_grid(top.value, parts.n_rows)
                 for top in parts.reduce("max_abs_values")]
        parts.update("write_digits", grids)
        tree = grow_fixed_point_boosting_tree(parts, n_bins, grids, rules, learning_rate, counter)
        parts.update("update_predictions", tree.value[:, 0])
        trees.append([tree])
    return baseline, trees


def node_floats(digits, grids, n):
    """``(G, H)`` of digit sums (..., k, T): H the count when hessians are constant."""
    G = to_float(digits[..., 0, :], grids[0])
    return G, (to_float(digits[..., 1, :], grids[1]) if len(grids) > 1
               else np.asarray(n, dtype=np.float64))


@dataclass
class FixedPointGrowth:
    """One tree of fixed-point boosting while it grows best first: the row provider
    ``parts``, its ``n_bins``, the digit ``grids`` (of g, and of h unless constant), the
    ``BoostingRules``, ``shrinkage`` and ``counter``, the ``record`` of the nodes and
    splits, the ``heap`` of searched nodes that can split, keyed by their gain, and the
    number of leaves."""

    parts: object
    n_bins: int
    grids: list
    rules: object
    shrinkage: float = 1.0
    counter: object = None
    record: GrowthRecord = None
    heap: list = field(default_factory=list)
    created: int = 0

    def search(self, depth, nodes, hist, hist_counts, roots):
        """Push the splits of ``nodes`` [(id, digit sums (k, T), count)] on the heap,
        from their histograms of digits ``hist`` (m, f, B, k, T) and ``hist_counts``
        (m, f, B): the left sums cumulative over the bins, the right sums the node's
        minus those, each made one float.  O(m f B k T)."""
        grids = self.grids
        if self.counter is not None:
            self.counter.searched(depth, len(nodes), sum(node[2] for node in nodes))
        totals = np.stack([node[1] for node in nodes])
        counts = np.array([node[2] for node in nodes])
        cumulative = np.cumsum(hist[:, :, :-1], axis=2)                 # (m, f, C, k, T)
        NL = np.cumsum(hist_counts[:, :, :-1], axis=2)
        GL, HL = node_floats(cumulative, grids, NL)
        GR = to_float(totals[:, None, None, 0] - cumulative[..., 0, :], grids[0])
        Gn, Hn = node_floats(totals, grids, counts)
        sums = NodeSums(Gn, Hn, counts, np.zeros(len(nodes)), 0.0)
        cuts = CutSums(GL, HL, NL, None, len(grids) > 1, GR)
        for k, best in enumerate(choose_splits(cuts, sums, self.rules, roots)):
            if best is not None:
                heapq.heappush(self.heap, (-best.gain, self.created, nodes[k], depth, hist[k],
                                           hist_counts[k], cumulative[k], best))
                self.created += 1

    def grow(self):
        """Split the best leaf on the heap, and search its children, until the heap is
        empty or the tree has ``max_leaf_nodes`` leaves: one round per split."""
        rules = self.rules
        while self.heap:
            _, _, (node, totals, n), depth, hist, hist_counts, cumulative, found = \
                heapq.heappop(self.heap)
            _, feature, cut, n_left, GL, HL, _ = found
            left = cumulative[feature, cut]
            right = totals - left
            GR, HR = (float(v) for v in node_floats(right, self.grids, n - n_left))
            ids = self.record.split(node, feature, cut, n_left > n - n_left, None,
                                    [(GL, HL, n_left), (GR, HR, n - n_left)], self.shrinkage)
            self.parts.update("split", [node], [feature], [cut], [ids[0]], [ids[1]])
            n_leaves = len(self.record.splits) + 1
            if rules.max_leaf_nodes is not None and n_leaves >= rules.max_leaf_nodes:
                break
            if rules.max_depth is None or depth + 1 < rules.max_depth:
                sides = [(ids[0], left, n_left), (ids[1], right, n - n_left)]
                self.search_children(depth, sides, hist, hist_counts)

    def search_children(self, depth, sides, hist, hist_counts):
        """Search the children ``sides`` [(id, digit sums, count)] that hold
        ``2 min_samples_leaf`` rows: the smaller one's histograms counted where the rows
        are (one round), the larger one's its parent's ``hist`` minus them (exact)."""
        splittable = [c for c in (0, 1) if sides[c][2] >= 2 * self.rules.min_samples_leaf]
        if not splittable:
            return
        small = 0 if sides[0][2] < sides[1][2] else 1      # scikit-learn: right on a tie
        counted = self.parts.reduce("summary", [sides[small][0]], [sides[small][0]],
                                    self.n_bins)
        pair = [(counted.hist[0], counted.hist_counts[0])] * 2
        pair[1 - small] = (hist - counted.hist[0], hist_counts - counted.hist_counts[0])
        if self.counter is not None:
            self.counter.histogram_pairs += sides[small][2] * hist.shape[0]
            self.counter.subtracted_histograms += 1
        self.search(depth + 1, [sides[c] for c in splittable],
                    np.stack([pair[c][0] for c in splittable]),
                    np.stack([pair[c][1] for c in splittable]), [False] * len(splittable))


def grow_fixed_point_boosting_tree(parts, n_bins, grids, rules, shrinkage=1.0, counter=None):
    """One tree on the statistics digits of ``parts`` (``grids``: of g, and of h unless
    constant), grown as ``grow_boosting_tree`` grows it; node ids: the root 0, the k-th
    split's children 2k + 1 and 2k + 2.  Leaves the rows at their leaves.  Returns the
    ``Tree`` (thresholds in bins).  One round for the root, one per split."""
    root = parts.reduce("summary", [0], [0], n_bins)
    G, H = (float(v) for v in node_floats(root.sums[0], grids, root.counts[0]))
    N = int(root.counts[0])
    growth = FixedPointGrowth(parts, n_bins, grids, rules, shrinkage, counter,
                              GrowthRecord(G, H, N, rules.l2_regularization))
    if N >= 2 * rules.min_samples_leaf and H >= rules.min_hessian_to_split:
        growth.search(0, [(0, root.sums[0], N)], root.hist, root.hist_counts, [True])
    growth.grow()
    return growth.record.finish()
