"""Histogram split finders: every feature binned once, every node searched over bins.

The exact finders sort each node's values and score every cut between two different
values.  A histogram finder works on the *bin codes* of ``treelib.binning`` instead (each
feature cut once, at the root, into at most ``max_bins`` bins) and only considers cuts
between bins:

1. the node's **histogram**: for every feature and bin, the number of samples and the
   sums of their statistics, with one ``np.bincount`` (``node_histograms``), O(f n k);
2. a cumulative sum **over the bins** gives the left child's sums of every cut after a
   bin, and ``treelib.criteria.score_cuts`` scores them all, exactly as the exact scan
   does over sorted samples (``histogram_gains``), O(f B k) for B bins;
3. the best cut under treelib's one tie rule (``treelib.split.best_cut``).

No sort at any node: a node costs O(f n + f B) instead of O(f n log n).  With one bin per
distinct value, the cuts between bins are the cuts between values and the split is the
exact one (same feature, same partition, same gain).

A histogram split tests ``code <= bin``; since the bins satisfy ``x <= thresholds[j][b]``
exactly when ``code <= b``, its threshold on the original feature is
``thresholds[feature][bin]``.
"""

import numpy as np

from treelib.criteria import node_statistics, score_cuts
from treelib.split import Split, best_cut


def node_histograms(codes, stats, n_bins):
    """Sample counts and sums of the statistics per feature and bin, for one node.

    ``codes`` (n, f) holds integer bin codes below ``n_bins``, ``stats`` (n, k) the
    statistics.  Returns ``sums`` (f, n_bins, k) and ``counts`` (f, n_bins).  Every
    (sample, feature) pair adds its row of ``stats`` to bin ``codes[i, j]`` of feature
    j: one ``np.bincount`` per statistic over the keys ``j * n_bins + code``.  O(f n k).
    """
    n, n_features = codes.shape
    keys = (codes + np.arange(n_features) * n_bins).ravel()           # sample-major
    size = n_features * n_bins
    counts = np.bincount(keys, minlength=size).reshape(n_features, n_bins)
    sums = np.stack([np.bincount(keys, weights=np.repeat(stats[:, c], n_features),
                                 minlength=size) for c in range(stats.shape[1])], axis=-1)
    return sums.reshape(n_features, n_bins, stats.shape[1]), counts


def histogram_gains(sums, counts, totals, criterion="squared_error", min_samples_leaf=1,
                    abs_totals=None):
    """Gain (and rounding bound) of the cut after every bin of every feature.

    ``sums`` (..., f, B, k) and ``counts`` (..., f, B) are histograms as
    ``node_histograms`` returns them, with any leading axes (one node per entry);
    ``totals`` (..., k) and ``abs_totals`` (..., k) the node's sums of its statistics and
    of their absolute values (``treelib.criteria.node_statistics``).  Returns ``gains``
    and ``bounds`` (..., f, B - 1), feature-major; ``-inf`` where there is no candidate.
    The cut after bin b sends bins 0 .. b left.  It is a candidate when bin b holds
    samples of the node (of several cuts that make the same children, only the lowest)
    and both children keep ``min_samples_leaf`` samples.  O(f B k) per node.
    """
    n = counts.sum(axis=-1)[..., None]                           # (..., f, 1): node size
    left = np.cumsum(sums, axis=-2)[..., :-1, :]                 # left sums of each cut
    n_left = np.cumsum(counts, axis=-1)[..., :-1]
    expand = np.expand_dims
    gains, bounds = score_cuts(
        left, n_left, expand(expand(totals, -2), -2), n, criterion,
        None if abs_totals is None else expand(expand(abs_totals, -2), -2))
    valid = ((counts[..., :-1] > 0) & (n_left >= min_samples_leaf)
             & (n - n_left >= min_samples_leaf))
    return np.where(valid, gains, -np.inf), np.where(valid, bounds, 0.0)


def histogram_split(codes, Y, n_bins, criterion="squared_error", min_samples_leaf=1,
                    thresholds=None):
    """Best split of one node from its histograms; None if no cut exists.

    ``codes`` (n, f) bin codes, ``Y`` (n, k) statistics.  The split's ``bin`` b sends
    ``code <= b`` left; its threshold is ``thresholds[feature][b]`` (b itself without
    ``thresholds``).  Cost: **O(f n k + f B k) per node**, no sort (the sort happened
    once, when the features were binned).
    """
    _, _, stats, totals, abs_totals = node_statistics(Y, [len(Y)], criterion)
    sums, counts = node_histograms(codes, stats, n_bins)
    gains, bounds = histogram_gains(sums, counts, totals[0], criterion, min_samples_leaf,
                                    None if abs_totals is None else abs_totals[0])
    best = best_cut(gains.T, bounds.T)
    if best is None:
        return None
    b, feature = best
    n_left = int(counts[feature, : b + 1].sum())
    threshold = float(b) if thresholds is None else float(thresholds[feature][b])
    return Split(feature=feature, threshold=threshold,
                 gain=max(float(gains[feature, b]), 0.0),
                 n_left=n_left, n_right=len(Y) - n_left, bin=b)
