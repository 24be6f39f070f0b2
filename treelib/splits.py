"""Split finders: the best squared-error split of one node, found three ways.

Every finder follows the same three steps (see ``best_split``):

1. sort each feature once: ``order[:, j]`` lists the samples by increasing ``X[:, j]``;
   a *cut* after the i-th smallest value sends those i + 1 samples left.  A cut is a
   candidate only between two different values and when both children keep at least
   ``min_samples_leaf`` samples (``candidate_cuts``);
2. score every candidate cut; **this is the only step where the methods differ**:

   ``"naive"``   recomputes both children's squared error from scratch (O(f n^2));
   ``"scan"``    the seed article's running sums, a plain Python loop (O(f n) steps);
   ``"cumsum"``  the same sums for all cuts of all features with one ``np.cumsum``;

3. keep the best cut under one tie rule (``pick_best``).

All three return the same ``Split``; the tests check them against brute force.
"""

from dataclasses import dataclass

import numpy as np

from treelib._validation import check_array, check_min_samples_leaf, check_X_y
from treelib.criteria import centered, sum_squared_error

#: Gains closer than ``TIE_RTOL`` times the node's squared error count as tied.  The
#: three methods round differently (by far less than this), so an exact tie must not
#: be broken by rounding noise.
TIE_RTOL = 1e-10


@dataclass(frozen=True)
class Split:
    """The best split of a node: ``X[:, feature] <= threshold`` goes left.

    ``gain`` is the node's sum of squared errors minus its two children's, in squared
    units of y; ``n_left`` and ``n_right`` count the samples each child receives.
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


def naive_gains(y, order, valid):
    """Gain of every candidate cut, recomputing both children's squared error.

    This is the textbook baseline: for each cut, take the targets left of it and right
    of it and compute each side's sum of squared errors from scratch.  O(n) per cut and
    up to n - 1 cuts per feature: **O(f n^2) per node**.  Invalid cuts get ``-inf``.
    """
    parent = sum_squared_error(y)
    gains = np.full(valid.shape, -np.inf)
    for j in range(order.shape[1]):
        y_sorted = y[order[:, j]]
        for i in np.flatnonzero(valid[:, j]):
            left, right = y_sorted[: i + 1], y_sorted[i + 1:]
            gains[i, j] = parent - sum_squared_error(left) - sum_squared_error(right)
    return gains


def scan_gains(y, order, valid):
    """Gain of every candidate cut by the seed article's scan, a plain Python loop.

    Walk each feature's sorted samples once, moving one sample at a time into the left
    child and updating the running sum S_L (S_R = S - S_L).  The variance-to-sum
    identity scores a cut from the sums alone:

        gain = S_L**2 / n_L + S_R**2 / n_R - S**2 / n

    The targets are centred first so that a large offset in y loses no digits.
    **O(f n) Python steps per node** after the O(f n log n) sort.  Invalid cuts: ``-inf``.
    """
    n, n_features = order.shape
    y_c = centered(y)
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


def cumsum_gains(y, order, valid):
    """Gain of every candidate cut of every feature at once, with ``np.cumsum``.

    Column j of ``y_sorted`` holds the (centred) targets in the order of feature j; its
    cumulative sum gives S_L for every cut of that feature in one call, and the
    variance-to-sum identity scores all (n - 1) x f cuts in one array expression.
    **O(f n) numpy work per node** after the O(f n log n) sort, with a fixed number of
    numpy calls whatever n and f are.  Invalid cuts: ``-inf``.
    """
    n = len(y)
    y_sorted = centered(y)[order]
    sums = np.cumsum(y_sorted, axis=0)
    s_left, total = sums[:-1], sums[-1]
    n_left = np.arange(1, n)[:, None]
    n_right = n - n_left
    gains = s_left**2 / n_left + (total - s_left) ** 2 / n_right - total**2 / n
    return np.where(valid, gains, -np.inf)


SPLIT_METHODS = {"naive": naive_gains, "scan": scan_gains, "cumsum": cumsum_gains}


def pick_best(gains, x_sorted, parent_sse):
    """The best cut under the documented tie rule, as a ``Split``; None if no cut exists.

    Tie rule: gains within ``TIE_RTOL * parent_sse`` of the highest gain are tied;
    among tied cuts the lowest feature index wins, then the lowest threshold.
    """
    if not np.isfinite(gains).any():
        return None
    tied = gains >= gains.max() - TIE_RTOL * parent_sse
    feature = int(np.argmax(tied.any(axis=0)))
    i = int(np.argmax(tied[:, feature]))
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


def best_split(X, y, method="cumsum", *, min_samples_leaf=1, check_input=True):
    """Best squared-error split of the node holding samples ``X``, targets ``y``.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Finite numeric features.
    y : array-like of shape (n_samples,)
        Finite numeric targets.
    method : {"naive", "scan", "cumsum"}, default="cumsum"
        How the gains of the candidate cuts are computed (see the module docstring);
        all three return the same split.
    min_samples_leaf : int, default=1
        Each child must receive at least this many samples.
    check_input : bool, default=True
        Validate ``X`` and ``y``.  The tree builders pass False for the nodes below the
        root, whose data they already checked.

    Returns
    -------
    Split or None
        ``None`` when no split exists: fewer than ``2 * min_samples_leaf`` samples, or
        every feature constant in the node (nothing to cut between).

    Notes
    -----
    Cost per node, n samples and f features: O(f n log n) to sort, plus O(f n^2) for
    ``"naive"`` or O(f n) for ``"scan"`` (Python loop) and ``"cumsum"`` (numpy).
    The threshold is the midpoint of the two neighbouring values; ties are broken as
    described in ``pick_best``.
    """
    check_method(method)
    min_samples_leaf = check_min_samples_leaf(min_samples_leaf)
    if check_input:
        X, y = check_X_y(X, y)
    order, x_sorted, valid = candidate_cuts(X, min_samples_leaf)
    gains = SPLIT_METHODS[method](y, order, valid)
    return pick_best(gains, x_sorted, sum_squared_error(y))


def threshold_gains(x, y, min_samples_leaf=1):
    """Every candidate threshold of one feature ``x`` and the gain of each.

    Returns ``(thresholds, gains)`` in increasing threshold order; used by the book to
    draw gain curves.  O(n log n).
    """
    x = check_array(x, name="x", ndim=1)
    X, y = check_X_y(x[:, None], y)
    order, x_sorted, valid = candidate_cuts(X, check_min_samples_leaf(min_samples_leaf))
    cuts = np.flatnonzero(valid[:, 0])
    gains = cumsum_gains(y, order, valid)[cuts, 0]
    return midpoint(x_sorted[cuts, 0], x_sorted[cuts + 1, 0]), gains
