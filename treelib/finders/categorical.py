"""Categorical features: splits that send a *set* of categories left.

A categorical feature has no order, so a cut ``x <= t`` means nothing; a split sends a set
of categories left and the others right.  With q categories there are 2^(q-1) - 1 such
partitions, too many to try for q = 24 (hours of the day: about 8 million).  Two classic
answers, both searched here with the same running sums as an ordered feature:

- **one against the rest** (seed article 004): q candidates, each category alone;
- **the optimal partition by sorting** (Fisher 1958; Breiman et al. 1984): sort the
  categories by their mean target (for two classes, by the proportion of one class) and
  scan them as if they were ordered: for squared error and for Gini or entropy with two
  classes, the best of these q - 1 cuts is the best of all 2^(q-1) - 1 partitions.  For
  more classes the order is a heuristic (by the proportion of the node's most frequent
  class) and can miss the best partition.  Gradient boosting (LightGBM, scikit-learn's
  HistGradientBoosting) sorts by ``sum gradient / (sum hessian + smooth)``; ``smooth``
  pulls categories with little data towards 0.

Categories are codes 0 .. q - 1; a missing value (NaN) is one more category, placed in
the order like the others (as HistGradientBoosting does).  Cost per feature: O(n) for the
per-category sums, O(q log q) to sort them, O(q k) to score the cuts.
"""

from dataclasses import dataclass

import numpy as np

from treelib.gains import score_cuts
from treelib.split import MISSING_BIN, Split

#: The ways a categorical feature is split.
STRATEGIES = ("partition", "one_vs_rest")


def missing(codes):
    """Where ``codes`` (category codes as floats, or as bin codes) hold a missing value."""
    codes = np.asarray(codes)
    return np.isnan(codes) if codes.dtype.kind == "f" else codes == MISSING_BIN


def category_sums(codes, stats, weights, n_categories):
    """Per category (the missing values last, as category ``n_categories``): the sums of
    the statistics (q + 1, k), the weights (q + 1,) and the counts (q + 1,).  O(n k)."""
    code = np.where(missing(codes), n_categories, codes).astype(np.intp)
    size = n_categories + 1
    counts = np.bincount(code, minlength=size)
    weight = counts.astype(np.float64) if weights is None else np.bincount(
        code, weights=weights, minlength=size)
    sums = np.stack([np.bincount(code, weights=stats[:, c], minlength=size)
                     for c in range(stats.shape[1])], axis=1)
    return sums, weight, counts


def category_order(sums, weight, criterion, smooth=0.0):
    """The categories present, in the order the partition scan visits them: by their
    mean statistic ``sum / (weight + smooth)`` (squared error, Poisson, gradients), by
    the proportion of class 1 (two classes), or of the node's most frequent class (more
    classes: a heuristic).  Ties keep the categories' codes in order."""
    present = np.flatnonzero(weight > 0)
    if criterion in ("gini", "entropy"):
        column = 1 if sums.shape[1] == 2 else int(np.argmax(sums.sum(axis=0)))
        key = sums[present, column] / weight[present]
    else:
        key = sums[present, 0] / (weight[present] + smooth)
    return present[np.argsort(key, kind="stable")]


def categorical_candidates(codes, node, n_categories, criterion, min_samples_leaf,
                           strategy="partition", weights=None, smooth=0.0):
    """The candidate splits of one categorical feature in a node.

    ``codes`` (n,) holds the category codes (NaN: missing), ``node`` the node's
    ``NodeStatistics``.  Returns ``(gains, bounds, left_sets)``: one gain and rounding
    bound per candidate (``-inf`` where a child would keep fewer than
    ``min_samples_leaf`` samples) and, per candidate, the boolean mask (q + 1,) of the
    categories it sends left (the last entry: missing values).  ``"partition"``: the
    q' - 1 cuts of the sorted present categories; ``"one_vs_rest"``: each present
    category alone.  O(n k + q log q + q k).
    """
    sums, weight, counts = category_sums(codes, node.stats, weights, n_categories)
    order = category_order(sums, weight, criterion, smooth)
    if strategy == "partition":
        left_sums = np.cumsum(sums[order], axis=0)[:-1]
        left_w = np.cumsum(weight[order])[:-1]
        left_n = np.cumsum(counts[order])[:-1]
        rank = np.empty(n_categories + 1, dtype=np.intp)
        rank[order] = np.arange(len(order))
        present = weight > 0
        left_sets = [present & (rank <= i) for i in range(len(order) - 1)]
    else:
        left_sums, left_w, left_n = sums[order], weight[order], counts[order]
        left_sets = [np.arange(n_categories + 1) == c for c in order]
    n = len(codes)
    gains, bounds = score_cuts(left_sums, left_w, node.totals[0], node.weight[0], criterion,
                               None if node.abs_totals is None else node.abs_totals[0],
                               n_terms=n)
    valid = (left_n >= min_samples_leaf) & (n - left_n >= min_samples_leaf)
    return np.where(valid, gains, -np.inf), np.where(valid, bounds, 0.0), left_sets


@dataclass(frozen=True)
class Categories:
    """Which features of the data are categorical, and how a finder splits them.

    ``counts`` (f,): the number of categories of each categorical feature (its values
    are the codes 0 .. q - 1; NaN, or ``MISSING_BIN`` in bin codes, is missing), -1 for
    the numeric features; ``strategy``: ``"partition"`` or ``"one_vs_rest"``; ``smooth``:
    added to a category's weight when the partition scan sorts by mean (0: the exact
    mean; 10: LightGBM's and HistGradientBoosting's ``cat_smooth``).
    """

    counts: np.ndarray
    strategy: str = "partition"
    smooth: float = 0.0

    def score_features(self, gains, bounds, data, node, criterion, min_samples_leaf,
                       weights=None):
        """Put the candidates of every categorical feature in its column of ``gains``
        and ``bounds`` (cuts x features, scored as if the feature were numeric), which
        grow rows if a feature has more candidates than cuts.  Returns ``(gains, bounds,
        left_sets)``, ``left_sets[j]`` the category masks of feature j's candidates, so
        that ``treelib.split.best_cut`` picks among numeric and categorical cuts alike."""
        extra = int(self.counts.max()) + 1 - len(gains)
        if extra > 0:
            gains = np.vstack([gains, np.full((extra, gains.shape[1]), -np.inf)])
            bounds = np.vstack([bounds, np.zeros((extra, bounds.shape[1]))])
        left_sets = {}
        for j in np.flatnonzero(self.counts >= 0):
            gains[:, j], bounds[:, j] = -np.inf, 0.0
            candidate_gains, candidate_bounds, left_sets[j] = self.candidates(
                data[:, j], node, j, criterion, min_samples_leaf, weights)
            gains[:len(candidate_gains), j] = candidate_gains
            bounds[:len(candidate_gains), j] = candidate_bounds
        return gains, bounds, left_sets

    def candidates(self, column, node, feature, criterion, min_samples_leaf, weights=None):
        """``categorical_candidates`` of one feature of the node."""
        return categorical_candidates(column, node, int(self.counts[feature]), criterion,
                                      min_samples_leaf, self.strategy, weights, self.smooth)

    def split(self, feature, left, gain, column, weights=None):
        """The ``Split`` sending the categories ``left`` (a mask over the codes and, last,
        missing) left."""
        q = int(self.counts[feature])
        absent = missing(column)
        goes_left = np.where(absent, left[q], np.isin(column, np.flatnonzero(left[:q])))
        n_left = int(goes_left.sum())
        direction = bool(left[q]) if absent.any() else n_left > len(column) - n_left
        return Split(feature=int(feature), threshold=np.nan, gain=max(float(gain), 0.0),
                     n_left=n_left, n_right=len(column) - n_left,
                     missing_go_to_left=direction,
                     categories_left=tuple(int(c) for c in np.flatnonzero(left[:q])))
