"""Oblivious trees (CatBoost's symmetric trees): one test per level, shared by every node.

A CART tree chooses a test for each node.  An *oblivious* tree chooses one test per
**level**, ``x[feature_l] <= threshold_l``, and every node of level l asks it.  So a tree
of depth D is just D tests, and the leaf of a row is the binary number whose bit l says
which way it went at level l::

    leaf = sum_l 2**l [x[feature_l] > threshold_l]

Prediction is then D comparisons and one table look-up per row, with no pointer to
follow (``ObliviousTree.apply``).  The children of node s at level l are s (left) and
``s + 2**l`` (right): bit l is appended on the left of the number.

**Choosing a level's test.** A candidate (feature, cut) splits *every* node of the level,
and its gain is the sum of the gains it brings in each node,

    gain = sum_s [W_s I(s) - W_sL I(sL) - W_sR I(sR)],

the decrease of the level's total loss (a node that the cut leaves whole contributes 0).
Maximising it is minimising the sum of the children's losses over the level.  The
candidates are the cuts between the bins of each feature, binned once at the root
(``treelib.binning``: one bin per distinct value when a feature has at most
``max_bins``, so the search is then exact); every node's gains come from its histograms
of the statistics (``np.bincount`` over (node, bin) keys, all features at once), their
running sums over the bins give each cut's left sums, ``treelib.gains.score_cuts``
scores them, and the sum over the nodes is scored under the one tie rule
(``treelib.split.best_cut``, with the nodes' rounding bounds added up).

Growth stops at ``rules.max_depth`` levels, or earlier when no cut's summed gain is
positive beyond its rounding bound or passes ``rules.min_impurity_decrease``; every leaf
is then at the same depth.  A leaf that no training row reaches predicts its parent's
value (the nearest ancestor that holds rows).

Cost per level: O(n f k) for the histograms plus O(m f B k) to score them (m nodes of at
most 2**l, B bins); the tree holds 2**D leaves.
"""

from dataclasses import dataclass

import numpy as np

from treelib.criteria import node_statistics
from treelib.gains import score_cuts
from treelib.split import MISSING_BIN, best_cut

#: The deepest oblivious tree grown (2**20 leaves; CatBoost's limit is 16).
MAX_OBLIVIOUS_DEPTH = 20


@dataclass(frozen=True, eq=False)
class ObliviousTree:
    """A fitted oblivious tree: one test per level and a table of 2**depth leaves.

    Level l tests ``x[feature[l]] <= threshold[l]`` (on bin codes: ``code <= bin[l]``);
    ``gain[l]`` is the level's summed gain.  Leaf ``sum_l 2**l [x[feature[l]] >
    threshold[l]]`` predicts ``value[leaf]`` and held ``n_leaf_samples[leaf]`` training
    rows of total weight ``weighted_n_leaf_samples[leaf]``, with impurity
    ``impurity[leaf]`` (0 for an empty leaf).
    """

    feature: np.ndarray
    threshold: np.ndarray
    bin: np.ndarray
    gain: np.ndarray
    value: np.ndarray
    impurity: np.ndarray
    n_leaf_samples: np.ndarray
    weighted_n_leaf_samples: np.ndarray

    @property
    def depth(self):
        return len(self.feature)

    @property
    def n_leaves(self):
        return len(self.value)

    def apply(self, X):
        """The leaf of every row of ``X``: its D test results read as a binary number,
        bit l for level l.  O(n D), one comparison per row and level, no loop over rows
        or levels."""
        X = np.asarray(X)
        goes_right = X[:, self.feature] > self.threshold                # (n, D)
        return goes_right.astype(np.intp) @ (1 << np.arange(self.depth, dtype=np.intp))

    def predict(self, X):
        """The ``value`` row of every row's leaf, (n, k).  O(n (D + k))."""
        return self.value[self.apply(X)]

    def feature_importances(self, n_features):
        """Each feature's share of the summed gains of the levels that test it.
        O(D + n_features)."""
        importances = np.bincount(self.feature, weights=self.gain, minlength=n_features)
        total = importances.sum()
        return importances / total if total > 0 else importances


@dataclass
class LevelStatistics:
    """Per node of a level (``m = 2**level`` nodes, some maybe empty): the criterion's
    value, impurity, totals, abs_totals, weight and row count; and the statistics of every
    row, centred on its own node for squared error."""

    value: np.ndarray
    impurity: np.ndarray
    totals: np.ndarray
    abs_totals: object
    weight: np.ndarray
    counts: np.ndarray
    stats: np.ndarray


def level_statistics(node, m, Y, criterion, weights, parent_value=None):
    """``LevelStatistics`` of the ``m`` nodes, the node of row i being ``node[i]``.

    The rows are grouped by node (a stable sort) so that ``treelib.criteria
    .node_statistics`` sees each node's rows in their original order; an empty node
    gets its parent's value (``parent_value[s mod m/2]``) and zero totals.  O(n log n +
    n k)."""
    order = np.argsort(node, kind="stable")
    counts = np.bincount(node, minlength=m)
    present = np.flatnonzero(counts)
    nodes = node_statistics(Y[order], counts[present], criterion,
                            None if weights is None else weights[order])
    k = Y.shape[1]
    value = np.zeros((m, k))
    if parent_value is not None:
        value[:] = parent_value[np.arange(m) % len(parent_value)]
    value[present] = nodes.value
    impurity, weight = np.zeros(m), np.zeros(m)
    impurity[present], weight[present] = nodes.impurity, nodes.weight
    width = nodes.totals.shape[1]              # k, or more statistics than targets
    totals = np.zeros((m, width))
    totals[present] = nodes.totals
    abs_totals = None
    if nodes.abs_totals is not None:
        abs_totals = np.zeros((m, width))
        abs_totals[present] = nodes.abs_totals
    stats = np.empty_like(nodes.stats)
    stats[order] = nodes.stats
    return LevelStatistics(value, impurity, totals, abs_totals, weight, counts, stats)


def level_histograms(codes, node, m, n_bins, stats, weights):
    """Every node's histograms of every feature: sums of ``stats`` (f, m, B, k), weights
    and row counts (f, m, B), from one ``np.bincount`` per statistic over the keys
    (feature, node, bin).  O(n f k + f m B k)."""
    n, n_features = codes.shape
    keys = ((np.arange(n_features) * m)[None, :] + node[:, None]) * n_bins + codes
    keys = keys.ravel()
    size = n_features * m * n_bins
    shape = (n_features, m, n_bins)
    counts = np.bincount(keys, minlength=size).reshape(shape)
    weight = counts if weights is None else np.bincount(
        keys, weights=np.repeat(weights, n_features), minlength=size).reshape(shape)
    sums = np.stack([np.bincount(keys, weights=np.repeat(column, n_features),
                                 minlength=size).reshape(shape)
                     for column in stats.T], axis=-1)
    return sums, weight, counts


def level_gains(codes, node, level, n_bins, criterion, weights):
    """The summed gain and rounding bound of every cut after bin b of every feature,
    (f, B - 1) each, -inf where the cut is after the feature's last bin, from the rows'
    nodes ``node`` and the level's ``LevelStatistics`` ``level``.  A node that a cut
    leaves whole adds 0.  O(n f k + f m B k)."""
    m = len(level.counts)
    sums, weight, counts = level_histograms(codes, node, m, n_bins, level.stats, weights)
    left_sums = np.cumsum(sums, axis=2)[:, :, :-1]                 # (f, m, B - 1, k)
    left_weight = np.cumsum(weight, axis=2)[:, :, :-1]
    left_counts = np.cumsum(counts, axis=2)[:, :, :-1]
    nodes = (slice(None), None)
    gains, bounds = score_cuts(
        left_sums, left_weight, level.totals[nodes], level.weight[nodes], criterion,
        None if level.abs_totals is None else level.abs_totals[nodes],
        n_terms=level.counts[nodes])
    splits = (left_counts > 0) & (left_counts < level.counts[nodes])
    gains = np.where(splits, gains, 0.0).sum(axis=1)                 # (f, B - 1)
    bounds = np.where(splits, bounds, 0.0).sum(axis=1)
    exists = counts.sum(axis=1)                                      # rows per bin (f, B)
    last_bin = n_bins - 1 - np.argmax(exists[:, ::-1] > 0, axis=1)   # each feature's last
    gains[np.arange(n_bins - 1)[None, :] >= last_bin[:, None]] = -np.inf
    return gains, bounds


def grow_oblivious(codes, Y, finder, rules, counter=None, weights=None):
    """Grow an oblivious tree on bin codes (``finder.prepare(X)`` of a ``"hist"``
    ``Finder``, whose ``bin_thresholds`` turn bins into thresholds on X).

    ``Y`` (n, k) holds the statistics, ``weights`` (n,) positive sample weights (None:
    all 1); ``rules.max_depth`` (required, at most ``MAX_OBLIVIOUS_DEPTH``) bounds the
    depth and ``rules.min_impurity_decrease`` the level's summed gain over the training
    weight.  Returns an ``ObliviousTree``.  ``counter``, a ``GrowthCounter``, records one
    search per node of every level.  A level's cut is chosen by ``treelib.split.best_cut``
    on the summed gains and bounds: the one tie rule.  O(n f k + 2**l f B k) per level l
    (``level_gains``), plus O(n log n + n k) for its nodes' statistics.
    """
    if finder.splitter != "hist" or finder.bin_thresholds is None:
        raise ValueError("oblivious trees search the cuts between bins: give a "
                         "Finder('hist', ...) and its prepare(X) codes")
    if rules.max_depth is None or not 1 <= rules.max_depth <= MAX_OBLIVIOUS_DEPTH:
        raise ValueError(f"an oblivious tree has 2**max_depth leaves: max_depth must be "
                         f"an integer from 1 to {MAX_OBLIVIOUS_DEPTH}; got {rules.max_depth!r}")
    if (codes == MISSING_BIN).any():
        raise ValueError("oblivious trees do not place missing values (NaN)")
    criterion, n_bins = finder.criterion, finder.n_bins
    n = len(Y)
    node = np.zeros(n, dtype=np.intp)
    level = level_statistics(node, 1, Y, criterion, weights)
    total_weight = float(level.weight[0])
    features, bins, gains = [], [], []
    while len(features) < rules.max_depth:
        if counter is not None:
            counter.searched(len(features), int((level.counts > 0).sum()), n)
            counter.histogram_pairs += n * codes.shape[1]
        cut_gains, cut_bounds = level_gains(codes, node, level, n_bins, criterion, weights)
        best = best_cut(cut_gains.T, cut_bounds.T)
        if best is None:
            break
        b, j = best
        gain = cut_gains[j, b]
        if gain <= cut_bounds[j, b] or rules.rejects(gain, total_weight):
            break
        node = node + ((codes[:, j] > b).astype(np.intp) << len(features))
        features.append(j)
        bins.append(b)
        gains.append(float(gain))
        level = level_statistics(node, 2 * len(level.counts), Y, criterion, weights,
                                 level.value)
    thresholds = np.array([finder.bin_thresholds[j][b] for j, b in zip(features, bins)],
                          dtype=np.float64)
    return ObliviousTree(feature=np.array(features, dtype=np.intp), threshold=thresholds,
                         bin=np.array(bins, dtype=np.intp), gain=np.array(gains),
                         value=level.value, impurity=level.impurity,
                         n_leaf_samples=level.counts.astype(np.intp),
                         weighted_n_leaf_samples=level.weight)
