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

import numpy as np

from treelib.fixed_point import make_grid, to_float
from treelib.growth.boosting_grower import GrowthRecord
from treelib.growth.boosting_histograms import NodeSums, choose_splits


def exact_mean_target(parts):
    """The mean target from its exact sum: the same float for any split into blocks."""
    n = parts.n_rows
    grid = make_grid(parts.reduce("max_abs_target").value, n)
    return float(to_float(parts.reduce("target_sum", grid), grid)) / n


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


def grow_fixed_point_boosting_tree(parts, n_bins, grids, rules, shrinkage=1.0, counter=None):
    """One tree on the statistics digits of ``parts`` (``grids``: of g, and of h unless
    constant), grown as ``grow_boosting_tree`` grows it; node ids: the root 0, the k-th
    split's children 2k + 1 and 2k + 2.  Leaves the rows at their leaves.  Returns the
    ``Tree`` (thresholds in bins)."""
    msl, l2 = rules.min_samples_leaf, rules.l2_regularization
    root = parts.reduce("summary", [0], [0], n_bins)
    G, H = (float(v) for v in node_floats(root.sums[0], grids, root.counts[0]))
    N = int(root.counts[0])
    record = GrowthRecord(G, H, N, l2)
    heap, created, n_leaves = [], 0, 1

    def search(depth, nodes, hist, hist_counts, roots):
        """Push the splits of ``nodes`` [(id, digit sums (k, T), count)] on the heap."""
        nonlocal created
        if counter is not None:
            counter.searched(depth, len(nodes), sum(node[2] for node in nodes))
        totals = np.stack([node[1] for node in nodes])
        counts = np.array([node[2] for node in nodes])
        cumulative = np.cumsum(hist[:, :, :-1], axis=2)                 # (m, f, C, k, T)
        NL = np.cumsum(hist_counts[:, :, :-1], axis=2)
        GL, HL = node_floats(cumulative, grids, NL)
        GR = to_float(totals[:, None, None, 0] - cumulative[..., 0, :], grids[0])
        Gn, Hn = node_floats(totals, grids, counts)
        sums = NodeSums(Gn, Hn, counts, np.zeros(len(nodes)), 0.0)
        found = choose_splits(GL, HL, NL, None, sums, rules, roots, len(grids) > 1, GR)
        for k, best in enumerate(found):
            if best is not None:
                heapq.heappush(heap, (-best[0], created, nodes[k], depth, hist[k],
                                      hist_counts[k], cumulative[k], best))
                created += 1

    if N >= 2 * msl and H >= rules.min_hessian_to_split:
        search(0, [(0, root.sums[0], N)], root.hist, root.hist_counts, [True])
    while heap:
        _, _, (node, totals, n), depth, hist, hist_counts, cumulative, found = \
            heapq.heappop(heap)
        _, feature, cut, n_left, GL, HL, _ = found
        left = cumulative[feature, cut]
        right = totals - left
        GR, HR = (float(v) for v in node_floats(right, grids, n - n_left))
        ids = record.split(node, feature, cut, n_left > n - n_left, None,
                           [(GL, HL, n_left), (GR, HR, n - n_left)], shrinkage)
        parts.update("split", [node], [feature], [cut], [ids[0]], [ids[1]])
        n_leaves += 1
        if rules.max_leaf_nodes is not None and n_leaves >= rules.max_leaf_nodes:
            break
        if rules.max_depth is not None and depth + 1 >= rules.max_depth:
            continue
        sides = [(ids[0], left, n_left), (ids[1], right, n - n_left)]
        splittable = [c for c in (0, 1) if sides[c][2] >= 2 * msl]
        if not splittable:
            continue
        small = 0 if n_left < n - n_left else 1            # scikit-learn: right on a tie
        counted = parts.reduce("summary", [ids[small]], [ids[small]], n_bins)
        pair = [(counted.hist[0], counted.hist_counts[0])] * 2
        pair[1 - small] = (hist - counted.hist[0], hist_counts - counted.hist_counts[0])
        if counter is not None:
            counter.histogram_pairs += sides[small][2] * hist.shape[0]
            counter.subtracted_histograms += 1
        search(depth + 1, [sides[c] for c in splittable],
               np.stack([pair[c][0] for c in splittable]),
               np.stack([pair[c][1] for c in splittable]), [False] * len(splittable))
    return record.finish()
