"""Histogram split finders: every feature binned once, every node searched over bins.

The exact finders sort each node's values and score every cut between two different
values.  A histogram finder works on the *bin codes* of ``treelib.binning`` instead (each
feature cut once, at the root, into at most ``max_bins`` bins) and only considers cuts
between bins:

1. the node's **histogram**: for every feature and bin, the number of samples and the
   sums of their statistics, with one ``np.bincount`` (``node_histograms``), O(f n k);
2. a cumulative sum **over the bins** gives the left child's sums of every cut after a
   bin, and ``treelib.criteria.gain_from_sums`` scores them all, exactly as the exact
   scan does over sorted samples (``histogram_gains``), O(f B k) for B bins;
3. the best cut under treelib's one tie rule (``treelib.splits.best_cut``).

No sort at any node: a node costs O(f n + f B) instead of O(f n log n).  With one bin per
distinct value, the cuts between bins are the cuts between values and the split is the
exact one (same feature, same partition, same gain).

A tree grown on codes has thresholds in *code space*: ``code <= b`` goes left.  Because
the bins satisfy ``x <= thresholds[j][b]`` exactly when ``code <= b``,
``with_bin_thresholds`` turns them into ordinary thresholds on the original features.

``build_histogram_level_wise`` grows a whole level at a time and uses the **subtraction
trick** of LightGBM and scikit-learn's HistGradientBoosting: of the two children of a
split only the smaller one's histogram is counted from its samples; the sibling's is the
parent's minus the smaller one's.
"""

import dataclasses

import numpy as np

from treelib.criteria import centered, gain_from_sums, node_impurity
from treelib.levelwise import _grow_root, _node_stats, _Rules
from treelib.splits import TIE_RTOL, Split, as_columns, best_cut


def node_histograms(codes, Y, n_bins):
    """Sample counts and sums of the statistics per feature and bin, for one node.

    ``codes`` (n, f) holds integer bin codes below ``n_bins``, ``Y`` (n, k) the
    statistics.  Returns ``sums`` (f, n_bins, k) and ``counts`` (f, n_bins).  Every
    (sample, feature) pair adds its row of ``Y`` to bin ``codes[i, j]`` of feature j:
    one ``np.bincount`` per statistic over the keys ``j * n_bins + code``.  O(f n k).
    """
    Y = as_columns(Y)
    n, n_features = codes.shape
    keys = (codes + np.arange(n_features) * n_bins).ravel()       # sample-major
    size = n_features * n_bins
    counts = np.bincount(keys, minlength=size).reshape(n_features, n_bins)
    sums = np.stack([np.bincount(keys, weights=np.repeat(Y[:, c], n_features),
                                 minlength=size) for c in range(Y.shape[1])], axis=-1)
    return sums.reshape(n_features, n_bins, Y.shape[1]), counts


def histogram_gains(sums, counts, criterion="squared_error", min_samples_leaf=1):
    """Gain of the cut after every bin of every feature, from histograms.

    ``sums`` (..., f, B, k) and ``counts`` (..., f, B) as ``node_histograms`` returns
    them (with any leading axes: one node per entry).  Returns gains (..., B - 1, f),
    cuts by features like every finder in ``treelib.splits``; ``-inf`` where there is no
    candidate.  The cut after bin b sends bins 0 .. b left.  It is a candidate when bin
    b holds samples of the node (of several cuts that make the same children, only the
    lowest) and both children keep ``min_samples_leaf`` samples.  O(f B k) per node.

    For squared error the sums are first re-centred on the node's mean (``sums - counts
    * mean``), so that the gains keep their digits whatever the statistics were
    centred on (chapter 2's large-offset trap).
    """
    sums, counts = np.asarray(sums, dtype=np.float64), np.asarray(counts)
    n = counts.sum(axis=-1, keepdims=True)                     # (..., f, 1): node size
    total = sums.sum(axis=-2)                                  # (..., f, k)
    if criterion == "squared_error":
        sums = sums - counts[..., None] * (total / n)[..., None, :]
        total = sums.sum(axis=-2)
    left = np.cumsum(sums, axis=-2)[..., :-1, :]               # left sums of each cut
    n_left = np.cumsum(counts, axis=-1)[..., :-1]
    with np.errstate(divide="ignore", invalid="ignore"):       # empty sides: not valid
        gains = gain_from_sums(left, n_left, total[..., None, :], n, criterion)
    valid = ((counts[..., :-1] > 0) & (n_left >= min_samples_leaf)
             & (n - n_left >= min_samples_leaf))
    return np.swapaxes(np.where(valid, gains, -np.inf), -1, -2)


def best_histogram_split(codes, Y, n_bins, criterion="squared_error", min_samples_leaf=1):
    """Best split of one node from its histograms; None if no cut exists.

    ``codes`` (n, f) bin codes, ``Y`` (n, k) statistics as the builders pass them.  The
    returned ``Split``'s threshold is a bin code b: ``codes[:, feature] <= b`` goes
    left.  Cost: **O(f n k + f B k) per node**, no sort (the sort happened once, when
    the features were binned).
    """
    Y = as_columns(Y)
    if criterion == "squared_error":
        Y = centered(Y)
    sums, counts = node_histograms(codes, Y, n_bins)
    gains = histogram_gains(sums, counts, criterion, min_samples_leaf)
    best = best_cut(gains, len(Y) * node_impurity(Y, criterion))
    if best is None:
        return None
    b, feature = best
    n_left = int(counts[feature, : b + 1].sum())
    return Split(feature=feature, threshold=float(b), gain=max(float(gains[b, feature]), 0.0),
                 n_left=n_left, n_right=len(Y) - n_left)


def with_bin_thresholds(tree, thresholds):
    """The tree grown on bin codes, with each test ``code <= b`` of feature j written as
    ``x <= thresholds[j][b]`` on the original feature (the same test on the training
    data, by construction of the bins).  O(nodes)."""
    split = np.flatnonzero(~tree.is_leaf)
    threshold = tree.threshold.copy()
    threshold[split] = [thresholds[j][int(b)]
                        for j, b in zip(tree.feature[split], tree.threshold[split])]
    return dataclasses.replace(tree, threshold=threshold)


# --- level-wise growth with the subtraction trick -----------------------------------


def build_histogram_level_wise(codes, Y, criterion="squared_error", *, n_bins=None,
                               max_depth=None, min_samples_split=2, min_samples_leaf=1,
                               min_impurity_decrease=0.0, subtract=True, n_total=None):
    """Grow a tree on bin codes one level at a time, every node from its histograms.

    Parameters
    ----------
    codes : ndarray of shape (n_samples, n_features)
        Integer bin codes (``treelib.binning.bin_features``).
    Y : ndarray of shape (n_samples, k)
        Statistics: the targets as one column (squared error) or the one-hot classes.
    criterion, max_depth, min_samples_split, min_samples_leaf, min_impurity_decrease :
        as ``treelib.levelwise.build_level_wise``.
    n_bins : int, optional
        Number of bins (one more than the largest code if None).
    subtract : bool, default=True
        Count only the smaller child's histogram from its samples and get its
        sibling's as the parent's minus it.  With False, both are counted.
    n_total : int, optional
        What ``min_impurity_decrease`` divides gains by; the number of rows if None.

    Returns
    -------
    Tree
        Thresholds in code space (``code <= b`` goes left); nodes numbered breadth
        first, as ``build_level_wise`` numbers them.  It is the tree that the depth-first
        builders grow with ``best_histogram_split``.

    Notes
    -----
    Per level, with m nodes that may split, n_d of their samples and B bins: O(f n_d k)
    to count histograms (only the smaller children's with ``subtract``: at most half
    the samples), O(m f B k) to score every cut, O(n_d log n_d) to group samples by
    node for the children's values.  No sort of feature values at all.
    """
    codes = np.asarray(codes)
    Y = as_columns(Y)
    n_bins = int(codes.max()) + 1 if n_bins is None else int(n_bins)
    rules = _Rules.of(max_depth, min_samples_split, min_samples_leaf,
                      min_impurity_decrease, len(Y) if n_total is None else n_total)
    tree, root = _grow_root(Y, criterion, rules)
    if root is None:
        return tree.finish()
    counts, impurity, _, centred = root

    # Histograms add up statistics centred once, on the root's mean (squared error);
    # ``histogram_gains`` re-centres each node's on its own mean.
    stats = centred if criterion == "squared_error" else Y
    samples, node = np.arange(len(Y)), np.zeros(len(Y), dtype=np.intp)  # active samples
    node_ids, weight = np.array([0]), counts * impurity
    sums, bin_counts = _histograms(codes, stats, samples, node, 1, n_bins)
    depth = 0
    while len(node_ids):
        # 1. The best cut of every node: lowest feature, then lowest bin, among ties.
        gains = histogram_gains(sums, bin_counts, criterion, min_samples_leaf)
        m, n_cuts, n_features = gains.shape
        flat = np.swapaxes(gains, 1, 2).reshape(m, -1)         # feature-major order
        best = flat.max(axis=1)
        first = np.argmax(flat >= (best - TIE_RTOL * weight)[:, None], axis=1)
        feature, cut = first // n_cuts, first % n_cuts
        parents = np.flatnonzero(~rules.rejects(flat[np.arange(m), first]))
        if len(parents) == 0:
            break

        # 2. Children: left then right for every splitting node, breadth first.
        rank = np.full(m, -1)
        rank[parents] = np.arange(len(parents))
        in_parent = rank[node] >= 0
        samples, node = samples[in_parent], node[in_parent]
        goes_right = codes[samples, feature[node]] > cut[node]
        child = 2 * rank[node] + goes_right                     # 0 .. 2 * parents - 1
        order = np.argsort(child, kind="stable")                # samples grouped by child
        samples, child = samples[order], child[order]
        child_counts = np.bincount(child, minlength=2 * len(parents))
        value, impurity, _, _ = _node_stats(Y[samples], child_counts, criterion)
        child_ids = tree.add_nodes(value, impurity, child_counts)
        tree.set_splits(node_ids[parents], feature[parents], cut[parents].astype(float),
                        child_ids[0::2])

        # 3. The children's histograms; then keep those that may split.
        keep = ~rules.is_leaf(child_counts, impurity, depth + 1)
        if not keep.any():
            break
        sums, bin_counts = _children_histograms(codes, stats, samples, child, child_counts,
                                                keep, sums, bin_counts, parents,
                                                n_bins, subtract)
        kept = keep[child]
        samples, node = samples[kept], (np.cumsum(keep) - 1)[child[kept]]
        node_ids, weight = child_ids[keep], (child_counts * impurity)[keep]
        depth += 1
    return tree.finish()


def _histograms(codes, stats, samples, node, n_nodes, n_bins):
    """Histograms of several nodes at once: ``samples`` belong to ``node`` (0 ..
    n_nodes - 1).  Returns sums (n_nodes, f, B, k) and counts (n_nodes, f, B); one
    ``np.bincount`` per statistic over the keys (node, feature, bin).  O(f len(samples) k).
    """
    n_features, k = codes.shape[1], stats.shape[1]
    keys = ((node[:, None] * n_features + np.arange(n_features)) * n_bins
            + codes[samples]).ravel()
    size = n_nodes * n_features * n_bins
    counts = np.bincount(keys, minlength=size).reshape(n_nodes, n_features, n_bins)
    rows = stats[samples]
    columns = [np.bincount(keys, weights=np.repeat(rows[:, c], n_features), minlength=size)
               for c in range(k)]
    sums = columns[0][:, None] if k == 1 else np.stack(columns, axis=-1)
    return sums.reshape(n_nodes, n_features, n_bins, k), counts


def _children_histograms(codes, stats, samples, child, child_counts, keep, level_sums,
                         level_counts, parents, n_bins, subtract):
    """Histograms of the children that are kept (``keep``), in child order.

    Children come in pairs (left, right): pair p belongs to node ``parents[p]`` of the
    level, whose histograms are ``level_sums`` and ``level_counts``.  Without ``subtract`` every kept child is
    counted from its samples.  With it, the larger child of a pair is its parent's
    histogram minus the smaller child's (which is counted, kept or not), whenever the
    larger child holds more samples than there are bins: subtracting costs O(f B) where
    counting would cost O(f n_larger).  Deep in a tree, where nodes hold fewer samples
    than their histograms have bins, both children are simply counted.
    """
    pair = np.arange(len(child_counts) // 2)
    smaller = 2 * pair + np.argmin(child_counts.reshape(-1, 2), axis=1)   # ties: left
    larger = smaller ^ 1
    derived = np.zeros(len(child_counts), dtype=bool)     # kept, by subtraction
    if subtract:
        derived[larger] = keep[larger] & (child_counts[larger] > n_bins)
    # Histogram rows: the kept children in order, then the smaller children that are
    # not kept but needed for a subtraction.
    helper = np.zeros(len(child_counts), dtype=bool)
    helper[smaller] = derived[larger] & ~keep[smaller]
    row = np.full(len(child_counts), -1)
    row[keep] = np.arange(keep.sum())
    row[helper] = keep.sum() + np.arange(helper.sum())
    counted = (keep & ~derived) | helper
    mine = counted[child]
    sums, counts = _histograms(codes, stats, samples[mine], row[child[mine]],
                               int(keep.sum() + helper.sum()), n_bins)
    large = np.flatnonzero(derived)
    if len(large):
        parent = parents[large // 2]
        counts[row[large]] = level_counts[parent] - counts[row[large ^ 1]]
        difference = level_sums[parent] - sums[row[large ^ 1]]
        # The subtraction leaves rounding noise where the child has no sample: an
        # empty bin's sums are exactly 0.
        difference[counts[row[large]] == 0] = 0.0
        sums[row[large]] = difference
    n_kept = int(keep.sum())
    return sums[:n_kept], counts[:n_kept]
