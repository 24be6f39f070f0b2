"""Histogram split finders: every feature binned once, every node searched over bins.

The exact finders sort each node's values and score every cut between two different
values.  A histogram finder works on the *bin codes* of ``treelib.binning`` instead (each
feature cut once, at the root, into at most ``max_bins`` bins) and only considers cuts
between bins:

1. the node's **histogram**: for every feature and bin, the number of samples and the
   sums of their statistics, with one ``np.bincount`` (``node_histograms``), O(f n k);
2. a cumulative sum **over the bins** gives the left child's sums of every cut after a
   bin, and ``treelib.gains.score_cuts`` scores them all, exactly as the exact scan
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

from treelib.criteria import node_statistics
from treelib.finders.monotonic import constrained_bin_gains
from treelib.gains import score_cuts
from treelib.split import MISSING_BIN, Split, best_cut


def node_histograms(codes, stats, n_bins, weights=None):
    """Sample counts and sums of the statistics per feature and bin, for one node.

    ``codes`` (n, f) holds integer bin codes below ``n_bins``, ``stats`` (n, k) the
    statistics, ``weights`` (n,) the sample weights.  Returns ``sums`` (f, n_bins, k),
    ``counts`` (f, n_bins) and the bins' weights (f, n_bins; the counts, as floats,
    without weights).  Every (sample, feature) pair adds its row of ``stats`` to bin
    ``codes[i, j]`` of feature j: one ``np.bincount`` per statistic over the keys
    ``j * n_bins + code``.  O(f n k).
    """
    n, n_features = codes.shape
    keys = (codes + np.arange(n_features) * n_bins).ravel()           # sample-major
    size = n_features * n_bins
    counts = np.bincount(keys, minlength=size).reshape(n_features, n_bins)
    sums = np.stack([np.bincount(keys, weights=np.repeat(stats[:, c], n_features),
                                 minlength=size) for c in range(stats.shape[1])], axis=-1)
    bin_weights = counts.astype(np.float64) if weights is None else np.bincount(
        keys, weights=np.repeat(weights, n_features), minlength=size).reshape(n_features,
                                                                           n_bins)
    return sums.reshape(n_features, n_bins, stats.shape[1]), counts, bin_weights


def histogram_gains(sums, counts, totals, criterion="squared_error", min_samples_leaf=1,
                    abs_totals=None, bin_weights=None, missing=False):
    """Gain (and rounding bound) of the cut after every bin of every feature.

    ``sums`` (..., f, B, k), ``counts`` (..., f, B) and ``bin_weights`` (..., f, B;
    None: the counts) are histograms as ``node_histograms`` returns them, with any
    leading axes (one node per entry); ``totals`` (..., k) and ``abs_totals`` (..., k)
    the node's sums of its statistics and of their absolute values
    (``treelib.criteria.node_statistics``).  Returns ``gains`` and ``bounds`` (..., f,
    B - 1), feature-major; ``-inf`` where there is no candidate.  The cut after bin b
    sends bins 0 .. b left.  It is a candidate when bin b holds samples of the node (of
    several cuts that make the same children, only the lowest) and both children keep
    ``min_samples_leaf`` samples.

    With ``missing``, the last bin holds the missing values (``MISSING_BIN``) and the
    result has 2 (B - 1) cuts per feature: missing values right (the cut after the last
    present bin sends only them right), then left.  O(f B k) per node.
    """
    weights = counts.astype(np.float64) if bin_weights is None else bin_weights
    n = counts.sum(axis=-1)[..., None]                           # (..., f, 1): node size
    w = weights.sum(axis=-1)[..., None]
    left = np.cumsum(sums, axis=-2)[..., :-1, :]                 # left sums of each cut
    n_left = np.cumsum(counts, axis=-1)[..., :-1]
    w_left = np.cumsum(weights, axis=-1)[..., :-1]
    expand = np.expand_dims
    total = expand(expand(totals, -2), -2)
    abs_total = None if abs_totals is None else expand(expand(abs_totals, -2), -2)
    gains, bounds = score_cuts(left, w_left, total, w, criterion, abs_total, n_terms=n)
    populated = counts[..., :-1] > 0
    valid = populated & (n_left >= min_samples_leaf) & (n - n_left >= min_samples_leaf)
    gains, bounds = np.where(valid, gains, -np.inf), np.where(valid, bounds, 0.0)
    if not missing:
        return gains, bounds
    n_missing = counts[..., -1:]
    to_left = np.where(n_left + n_missing < n, 1, 0)            # some present value right
    gains_l, bounds_l = score_cuts(left + sums[..., -1:, :], w_left + weights[..., -1:],
                                   total, w, criterion, abs_total, n_terms=n)
    valid_l = (populated & (n_missing > 0) & (to_left > 0)
               & (n_left + n_missing >= min_samples_leaf)
               & (n - n_left - n_missing >= min_samples_leaf))
    return (np.concatenate([gains, np.where(valid_l, gains_l, -np.inf)], axis=-1),
            np.concatenate([bounds, np.where(valid_l, bounds_l, 0.0)], axis=-1))


def histogram_split(codes, Y, n_bins, criterion="squared_error", min_samples_leaf=1,
                    thresholds=None, weights=None, **options):
    """Best split of one node from its histograms; None if no cut exists.

    ``codes`` (n, f) bin codes (missing values: ``MISSING_BIN``, with ``n_bins`` 256),
    ``Y`` (n, k) targets, ``weights`` (n,) sample weights.  The split's ``bin`` b sends
    ``code <= b`` left; its threshold is ``thresholds[feature][b]`` (b itself without
    ``thresholds``; +inf after the last bin).  The bins of a categorical feature
    (``categories``, ``treelib.finders.categorical``) are its categories.  ``options``:
    ``categories``, ``constraint`` (a ``treelib.finders.monotonic.Constraint``, which
    refuses the cuts that break a monotonic constraint: O(c (n + B)) more for c
    constrained features) and ``node`` (the node's ``NodeStatistics`` if already
    computed).  Cost: **O(f n k + f B k) per node**, no sort (the sort
    happened once, when the features were binned).
    """
    unknown = set(options) - {"categories", "constraint", "node"}
    if unknown:
        raise TypeError(f"histogram_split got unexpected options {sorted(unknown)}")
    categories, constraint = options.get("categories"), options.get("constraint")
    node = options.get("node")
    if node is None:
        node = node_statistics(Y, [len(Y)], criterion, weights)
    sums, counts, bin_weights = node_histograms(codes, node.stats, n_bins, weights)
    missing = n_bins > MISSING_BIN and counts[:, MISSING_BIN].any()
    gains, bounds = histogram_gains(sums, counts, node.totals[0], criterion,
                                    min_samples_leaf,
                                    None if node.abs_totals is None else node.abs_totals[0],
                                    None if weights is None else bin_weights, missing)
    gains, bounds = gains.T, bounds.T                        # cuts x features
    if constraint is not None:
        gains = constrained_bin_gains(gains, codes, Y, weights, n_bins, missing, constraint)
    left_sets = {}
    if categories is not None:
        gains, bounds, left_sets = categories.score_features(
            gains, bounds, codes, node, criterion, min_samples_leaf, weights)
    best = best_cut(gains, bounds)
    if best is None:
        return None
    cut, feature = best
    if feature in left_sets:
        return categories.split(feature, left_sets[feature][cut], gains[cut, feature],
                                codes[:, feature], weights)
    b, missing_left = cut % (n_bins - 1), cut >= n_bins - 1
    n_missing = int(counts[feature, MISSING_BIN]) if n_bins > MISSING_BIN else 0
    n_left = int(counts[feature, : b + 1].sum()) + (n_missing if missing_left else 0)
    if thresholds is None:
        threshold = float(b)
    else:
        threshold = float(thresholds[feature][b]) if b < len(thresholds[feature]) else np.inf
    direction = missing_left if n_missing else n_left > len(Y) - n_left
    return Split(feature=feature, threshold=threshold,
                 gain=max(float(gains[cut, feature]), 0.0), n_left=n_left,
                 n_right=len(Y) - n_left, bin=int(b), missing_go_to_left=bool(direction))
