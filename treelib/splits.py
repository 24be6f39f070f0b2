"""Split finders: the best split of one node, found three ways.

Every finder follows the same three steps (see ``best_split``):

1. sort each feature once: ``order[:, j]`` lists the samples by increasing ``X[:, j]``;
   a *cut* after the i-th smallest value sends those i + 1 samples left.  A cut is a
   candidate only between two different values and when both children keep at least
   ``min_samples_leaf`` samples (``candidate_cuts``);
2. score every candidate cut; **this is the only step where the methods differ**:

   ``"naive"``   recomputes both children's impurity from scratch (O(f n^2));
   ``"scan"``    the seed article's running sums, a plain Python loop (O(f n) steps);
   ``"cumsum"``  the same sums for all cuts of all features with one ``np.cumsum``;

3. keep the best cut under one tie rule (``pick_best``).

One interface for every finder: ``gains = finder(Y, order, valid, criterion)``.  ``Y``
(n, k) holds per-sample *statistics* whose sums decide a cut: the target itself for
squared error (k = 1), the one-hot matrix of the classes for Gini and entropy (so
its cumulative sums are class counts).  ``gains`` (n - 1, f) holds the gain of every
cut, ``-inf`` where there is no candidate.  For squared error a 1-D ``y`` is accepted
as its one column.  All methods return the same ``Split``; the tests check them
against brute force.
"""

from dataclasses import dataclass

import numpy as np

from treelib._validation import check_array, check_min_samples_leaf
from treelib.criteria import (CLASSIFICATION_CRITERIA, centered, check_criterion,
                              gain_from_sums, node_impurity, one_hot)

#: Gains closer than ``TIE_RTOL`` times the node's total impurity count as tied.  The
#: three methods round differently (by far less than this), so an exact tie must not
#: be broken by rounding noise.
TIE_RTOL = 1e-10


@dataclass(frozen=True)
class Split:
    """The best split of a node: ``X[:, feature] <= threshold`` goes left.

    ``gain`` is ``n I(node) - n_left I(left) - n_right I(right)`` for the criterion
    ``I`` that found it: for squared error the node's sum of squared errors minus its
    children's, in squared units of y.  ``n_left`` and ``n_right`` count the samples
    each child receives.
    """

    feature: int
    threshold: float
    gain: float
    n_left: int
    n_right: int

    def goes_left(self, X):
        """Boolean mask of the rows of ``X`` that this split sends to the left child."""
        return np.asarray(X)[:, self.feature] <= self.threshold


def midpoint(low, high):
    """Threshold halfway between two neighbouring values, ``low <= t < high``.

    Computed as ``low/2 + high/2`` (no overflow).  When the two values are adjacent
    floats the midpoint can round up to ``high``, which would send ``high`` left; the
    threshold is then ``low`` itself.
    """
    low, high = np.asarray(low, dtype=np.float64), np.asarray(high, dtype=np.float64)
    mid = low / 2 + high / 2
    return np.where((low <= mid) & (mid < high), mid, low)


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


def as_columns(Y):
    """The statistics as an (n, k) array: a 1-D target becomes one column."""
    Y = np.asarray(Y, dtype=np.float64)
    return Y[:, None] if Y.ndim == 1 else Y


def naive_gains(Y, order, valid, criterion="squared_error"):
    """Gain of every candidate cut, recomputing both children's impurity.

    This is the textbook baseline: for each cut, take the samples left of it and right
    of it and compute each side's impurity from scratch.  O(n k) per cut and up to
    n - 1 cuts per feature: **O(f n^2 k) per node**.  Invalid cuts get ``-inf``.
    """
    Y = as_columns(Y)
    n = len(Y)
    parent = n * node_impurity(Y, criterion)
    gains = np.full(valid.shape, -np.inf)
    for j in range(order.shape[1]):
        Y_sorted = Y[order[:, j]]
        for i in np.flatnonzero(valid[:, j]):
            left, right = Y_sorted[: i + 1], Y_sorted[i + 1:]
            gains[i, j] = (parent - len(left) * node_impurity(left, criterion)
                           - len(right) * node_impurity(right, criterion))
    return gains


def scan_gains(Y, order, valid, criterion="squared_error"):
    """Gain of every candidate cut by the seed article's scan, a plain Python loop.

    Walk each feature's sorted samples once, moving one sample at a time into the left
    child and updating its running sums; a cut is scored from the sums alone
    (``gain_from_sums``).  For squared error the sum is S_L (S_R = S - S_L) and

        gain = S_L**2 / n_L + S_R**2 / n_R - S**2 / n,

    on targets centred first so that a large offset in y loses no digits.  For the
    classification criteria the sums are the left child's class counts.
    **O(f n) Python steps per node** (O(k) more per cut for k classes) after the
    O(f n log n) sort.  Invalid cuts: ``-inf``.
    """
    Y = as_columns(Y)
    if criterion in CLASSIFICATION_CRITERIA:
        return _scan_counts(Y, order, valid, criterion)
    n, n_features = order.shape
    y_c = centered(Y[:, 0])
    total = float(y_c.sum())
    gains = np.full(valid.shape, -np.inf)
    for j in range(n_features):
        column, is_cut = y_c[order[:, j]].tolist(), valid[:, j].tolist()
        s_left = 0.0
        for i in range(n - 1):
            s_left += column[i]
            if is_cut[i]:
                n_left, n_right, s_right = i + 1, n - i - 1, total - s_left
                gains[i, j] = (s_left * s_left / n_left + s_right * s_right / n_right
                               - total * total / n)
    return gains


def _scan_counts(Y, order, valid, criterion):
    """``scan_gains`` for Gini and entropy: running class counts, one class per step."""
    n, n_features = order.shape
    codes = np.argmax(Y, axis=1)
    total = Y.sum(axis=0)
    gains = np.full(valid.shape, -np.inf)
    for j in range(n_features):
        counts_left = np.zeros_like(total)
        for i, label in enumerate(codes[order[:-1, j]].tolist()):
            counts_left[label] += 1.0
            if valid[i, j]:
                gains[i, j] = gain_from_sums(counts_left, i + 1, total, n, criterion)
    return gains


def cumsum_gains(Y, order, valid, criterion="squared_error"):
    """Gain of every candidate cut of every feature at once, with ``np.cumsum``.

    ``Y[order]`` (n, f, k) holds the statistics in the order of each feature; one
    cumulative sum along the samples gives the left child's sums for every cut of
    every feature, and ``gain_from_sums`` scores all (n - 1) x f cuts in one array
    expression (the variance-to-sum identity for squared error, on centred targets;
    class counts for Gini and entropy).  **O(f n k) numpy work per node** after the
    O(f n log n) sort, with a fixed number of numpy calls whatever n and f are.
    Invalid cuts: ``-inf``.
    """
    Y = as_columns(Y)
    n = len(Y)
    if criterion == "squared_error":
        Y = centered(Y)
    sums = np.cumsum(Y[order], axis=0)
    n_left = np.arange(1, n)[:, None]
    gains = gain_from_sums(sums[:-1], n_left, sums[-1], n, criterion)
    return np.where(valid, gains, -np.inf)


SPLIT_METHODS = {"naive": naive_gains, "scan": scan_gains, "cumsum": cumsum_gains}


def best_cut(gains, parent_impurity):
    """Position ``(i, feature)`` of the best cut in ``gains`` (cuts x features); None if
    every gain is ``-inf``.

    Tie rule: gains within ``TIE_RTOL * parent_impurity`` (the node's total impurity,
    ``n I(node)``: its SSE for squared error) of the highest gain are tied; among tied
    cuts the lowest feature index wins, then the lowest cut (the lowest threshold).
    Every split finder in treelib breaks ties with this one function.
    """
    if not np.isfinite(gains).any():
        return None
    tied = gains >= gains.max() - TIE_RTOL * parent_impurity
    feature = int(np.argmax(tied.any(axis=0)))
    return int(np.argmax(tied[:, feature])), feature


def pick_best(gains, x_sorted, parent_impurity):
    """The best cut under the tie rule of ``best_cut``, as a ``Split`` whose threshold is
    the midpoint of the two values around the cut; None if no cut exists."""
    best = best_cut(gains, parent_impurity)
    if best is None:
        return None
    i, feature = best
    return Split(feature=feature,
                 threshold=float(midpoint(x_sorted[i, feature], x_sorted[i + 1, feature])),
                 gain=max(float(gains[i, feature]), 0.0),
                 n_left=i + 1, n_right=len(x_sorted) - i - 1)


def check_method(method):
    """Raise a ValueError naming the valid choices if ``method`` is not a split method."""
    if method not in SPLIT_METHODS:
        raise ValueError(f"unknown split method {method!r}; choose one of "
                         f"{sorted(SPLIT_METHODS)}")
    return method


def targets_as_statistics(y, criterion):
    """Check ``y`` for ``criterion`` and return its statistics ``Y`` (n, k).

    Squared error: ``y`` must be numeric and finite; ``Y`` is ``y`` as one column.
    Gini, entropy: ``y`` holds class labels (numbers or strings); ``Y`` is their
    one-hot matrix, classes in sorted order.
    """
    if criterion not in CLASSIFICATION_CRITERIA:
        return check_array(y, name="y", ndim=1)[:, None]
    labels = np.asarray(y)
    if labels.ndim != 1 or len(labels) == 0:
        raise ValueError(f"y must be a non-empty 1-D array of class labels; got shape "
                         f"{labels.shape}")
    if labels.dtype.kind == "f" and np.isnan(labels).any():
        raise ValueError("y contains NaN; class labels must not be missing")
    classes, codes = np.unique(labels, return_inverse=True)
    return one_hot(codes, len(classes))


def best_split(X, y, method="cumsum", *, criterion="squared_error", min_samples_leaf=1,
               check_input=True):
    """Best split of the node holding samples ``X``, targets ``y``.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Finite numeric features.
    y : array-like of shape (n_samples,)
        Finite numeric targets (squared error) or class labels (Gini, entropy).
    method : {"naive", "scan", "cumsum"}, default="cumsum"
        How the gains of the candidate cuts are computed (see the module docstring);
        all three return the same split.
    criterion : {"squared_error", "gini", "entropy"}, default="squared_error"
        The impurity whose decrease is maximised.
    min_samples_leaf : int, default=1
        Each child must receive at least this many samples.
    check_input : bool, default=True
        Validate ``X`` and ``y``.  With False, ``y`` must already be the statistics
        ``Y`` (n, k) of ``targets_as_statistics``: this is how the tree builders call
        it for the nodes below the root, whose data they already checked.

    Returns
    -------
    Split or None
        ``None`` when no split exists: fewer than ``2 * min_samples_leaf`` samples, or
        every feature constant in the node (nothing to cut between).

    Notes
    -----
    Cost per node, n samples, f features and k classes (k = 1 for squared error):
    O(f n log n) to sort, plus O(f n^2 k) for ``"naive"``, O(f n) Python steps for
    ``"scan"`` or O(f n k) numpy work for ``"cumsum"``.  The threshold is the midpoint
    of the two neighbouring values; ties are broken as described in ``pick_best``.
    """
    check_method(method)
    check_criterion(criterion)
    min_samples_leaf = check_min_samples_leaf(min_samples_leaf)
    if check_input:
        X = check_array(X, name="X", ndim=2)
        Y = targets_as_statistics(y, criterion)
        if len(X) != len(Y):
            raise ValueError(f"X and y have different numbers of samples: {len(X)} and "
                             f"{len(Y)}")
    else:
        Y = as_columns(y)
    order, x_sorted, valid = candidate_cuts(X, min_samples_leaf)
    gains = SPLIT_METHODS[method](Y, order, valid, criterion)
    return pick_best(gains, x_sorted, len(Y) * node_impurity(Y, criterion))


def threshold_gains(x, y, min_samples_leaf=1, criterion="squared_error"):
    """Every candidate threshold of one feature ``x`` and the gain of each.

    Returns ``(thresholds, gains)`` in increasing threshold order; used by the book to
    draw gain curves.  O(n log n).
    """
    x = check_array(x, name="x", ndim=1)
    Y = targets_as_statistics(y, check_criterion(criterion))
    if len(x) != len(Y):
        raise ValueError(f"x and y have different numbers of samples: {len(x)} and {len(Y)}")
    X = x[:, None]
    order, x_sorted, valid = candidate_cuts(X, check_min_samples_leaf(min_samples_leaf))
    cuts = np.flatnonzero(valid[:, 0])
    gains = cumsum_gains(Y, order, valid, criterion)[cuts, 0]
    return midpoint(x_sorted[cuts, 0], x_sorted[cuts + 1, 0]), gains
