"""Exact split finders: every cut between two different values, scored three ways.

Every exact finder follows the same three steps (``exact_split``):

1. sort each feature once: ``order[:, j]`` lists the samples by increasing ``X[:, j]``;
   a *cut* after the i-th smallest value sends those i + 1 samples left.  A cut is a
   candidate only between two different values and when both children keep at least
   ``min_samples_leaf`` samples (``candidate_cuts``);
2. score every candidate cut; **this is the only step where the methods differ**:

   ``"naive"``   recomputes both children's impurity from scratch (O(f n^2));
   ``"scan"``    the seed article's running sums, a plain Python loop (O(f n) steps);
   ``"cumsum"``  the same sums for all cuts of all features with one ``np.cumsum``;

3. keep the best cut under the one tie rule (``treelib.split.best_cut``).

One interface for the three scorers: ``gains, bounds = scorer(Y, order, valid,
criterion)``.  ``Y`` (n, k) holds per-sample statistics (``treelib.criteria``): the target
for squared error, the one-hot classes for Gini and entropy.  ``gains`` (n - 1, f) holds
the gain of every cut, ``-inf`` where there is no candidate; ``bounds`` the rounding
bound of each gain, which the tie rule needs.
"""

import numpy as np

from treelib.criteria import EPS, as_columns, node_impurity, node_statistics, score_cuts
from treelib.split import Split, best_cut, midpoint


def candidate_cuts(X, min_samples_leaf=1):
    """Sort every feature and mark the cuts that are allowed.

    Returns ``order`` (n, f), the samples of each feature in increasing order (stable);
    ``x_sorted`` (n, f), the sorted values; and ``valid`` (n - 1, f), True where the cut
    after position i is between two different values and leaves at least
    ``min_samples_leaf`` samples on each side.  Cost: O(f n log n), the sort.
    """
    n = len(X)
    order = np.argsort(X, axis=0, kind="stable")
    x_sorted = np.take_along_axis(X, order, axis=0)
    n_left = np.arange(1, n)[:, None]
    valid = ((x_sorted[1:] > x_sorted[:-1])
             & (n_left >= min_samples_leaf) & (n - n_left >= min_samples_leaf))
    return order, x_sorted, valid


def naive_gains(Y, order, valid, criterion="squared_error"):
    """Gain of every candidate cut, recomputing both children's impurity.

    The textbook baseline: for each cut, take the samples left of it and right of it and
    compute each side's impurity from scratch.  O(n k) per cut and up to n - 1 cuts per
    feature: **O(f n^2 k) per node**.  Its gains are differences of sums of squares, so
    their rounding bound is ``4 (n + 2) EPS`` times those sums (a sum of n terms is off
    by at most n EPS of their total).  Invalid cuts: ``-inf``.
    """
    Y = as_columns(Y)
    n = len(Y)
    parent = n * node_impurity(Y, criterion)
    gains = np.full(valid.shape, -np.inf)
    bounds = np.zeros(valid.shape)
    for j in range(order.shape[1]):
        Y_sorted = Y[order[:, j]]
        for i in np.flatnonzero(valid[:, j]):
            left = len(Y_sorted[: i + 1]) * node_impurity(Y_sorted[: i + 1], criterion)
            right = len(Y_sorted[i + 1:]) * node_impurity(Y_sorted[i + 1:], criterion)
            gains[i, j] = parent - left - right
            bounds[i, j] = 4 * (n + 2) * EPS * (parent + left + right)
    return gains, bounds


def _scores(left_sums, node, valid, criterion):
    """Gains and bounds of every cut from the left sums (n - 1, f, k) of a node."""
    n = len(node.stats)
    n_left = np.arange(1, n)[:, None]
    gains, bounds = score_cuts(left_sums, n_left, node.totals[0], n, criterion,
                               None if node.abs_totals is None else node.abs_totals[0])
    return np.where(valid, gains, -np.inf), np.where(valid, bounds, 0.0)


class _Node:
    """One node's ``treelib.criteria.node_statistics``."""

    def __init__(self, Y, criterion):
        _, _, self.stats, self.totals, self.abs_totals = node_statistics(
            Y, [len(Y)], criterion)


def scan_gains(Y, order, valid, criterion="squared_error"):
    """Gain of every candidate cut by the seed article's scan, a plain Python loop.

    Walk each feature's sorted samples once, moving one sample at a time into the left
    child and adding its statistics to the left child's running sums.  For squared error
    the sum is S_L (S_R = S - S_L) and a cut scores

        gain = S_L**2 / n_L + S_R**2 / n_R - S**2 / n,

    on targets centred first so that a large offset in y loses no digits; for the
    classification criteria the sums are the left child's class counts.  The running
    sums are those of ``cumsum_gains`` bit for bit, and so are the gains.  **O(f n)
    Python steps per node** (O(k) more per step for k classes) after the O(f n log n)
    sort.  Invalid cuts: ``-inf``.
    """
    node = _Node(Y, criterion)
    n, n_features = order.shape
    left_sums = np.zeros((n - 1, n_features, node.stats.shape[1]))
    for j in range(n_features):
        running = [0.0] * node.stats.shape[1]
        for i, row in enumerate(node.stats[order[:-1, j]].tolist()):
            running = [s + v for s, v in zip(running, row)]
            left_sums[i, j] = running
    return _scores(left_sums, node, valid, criterion)


def cumsum_gains(Y, order, valid, criterion="squared_error"):
    """Gain of every candidate cut of every feature at once, with ``np.cumsum``.

    ``stats[order]`` (n, f, k) holds the statistics in the order of each feature; one
    cumulative sum along the samples gives the left child's sums for every cut of every
    feature, and ``gain_from_sums`` scores all (n - 1) x f cuts in one array expression
    (the variance-to-sum identity for squared error, on centred targets; class counts
    for Gini and entropy).  **O(f n k) numpy work per node** after the O(f n log n)
    sort, with a fixed number of numpy calls whatever n and f are.  Invalid cuts: -inf.
    """
    node = _Node(Y, criterion)
    left_sums = np.cumsum(node.stats[order], axis=0)[:-1]
    return _scores(left_sums, node, valid, criterion)


SCORERS = {"naive": naive_gains, "scan": scan_gains, "cumsum": cumsum_gains}


def exact_split(X, Y, criterion="squared_error", min_samples_leaf=1, scorer="cumsum"):
    """Best exact split of one node (``X`` its features, ``Y`` its statistics); None when
    no cut is a candidate.  The threshold is the midpoint of the two values around the
    cut.  O(f n log n) to sort, plus the scorer's cost."""
    order, x_sorted, valid = candidate_cuts(X, min_samples_leaf)
    gains, bounds = SCORERS[scorer](Y, order, valid, criterion)
    best = best_cut(gains, bounds)
    if best is None:
        return None
    i, feature = best
    return Split(feature=feature,
                 threshold=float(midpoint(x_sorted[i, feature], x_sorted[i + 1, feature])),
                 gain=max(float(gains[i, feature]), 0.0),
                 n_left=i + 1, n_right=len(x_sorted) - i - 1)


def threshold_gains(x, Y, criterion="squared_error", min_samples_leaf=1):
    """Every candidate threshold of one feature ``x`` and the gain of each, in increasing
    threshold order (for the book's gain curves).  O(n log n)."""
    X = np.asarray(x)[:, None]
    order, x_sorted, valid = candidate_cuts(X, min_samples_leaf)
    cuts = np.flatnonzero(valid[:, 0])
    gains, _ = cumsum_gains(Y, order, valid, criterion)
    return midpoint(x_sorted[cuts, 0], x_sorted[cuts + 1, 0]), gains[cuts, 0]

