"""Monotonic constraints (scikit-learn's ``monotonic_cst``): which cuts are allowed, and
what bounds a split passes to its children.

One formula for every finder and grower that takes the constraint (the exact and
histogram finders of the trees, the histogram search of gradient boosting).  A node
carries ``Bounds`` ``[lower, upper]`` on its value (``-inf, inf`` at the root); feature j
carries a sign ``s_j`` in {-1, 0, +1}.  A cut on a feature with ``s_j != 0`` is a
candidate only if its children's values ``v_L`` and ``v_R`` satisfy

    lower <= v_L <= upper,   lower <= v_R <= upper,   (v_L - v_R) * s_j <= 0,

(scikit-learn's ``Criterion._check_monotonicity``); a cut on an unconstrained feature is
not checked.  The split then passes bounds down (``child_bounds``): an unconstrained split
gives both children the node's bounds; a split on an increasing feature gives the left
child ``[lower, m]`` and the right one ``[m, upper]``, a decreasing one the reverse, where
``m = S_L / (2 W_L) + S_R / (2 W_R)`` is the midpoint of the two children's values
(``middle_value``).  Every node's value is clipped to its bounds (``clip_value``).

The "value" is the mean of the first column of the statistics: the target for regression
(or the Newton value for boosting, see ``treelib.growth.boosting_grower``), and for a
binary classifier the proportion of the **first** class, with the signs flipped by the
estimator, exactly as scikit-learn's trees do (its ``_classes.py`` constrains the
negative class's probability).

Cost: O(cuts) extra per constrained feature of a node (``allowed_cuts``: a few array
operations on the children's sums), nothing for unconstrained ones; memory O(nodes) for
the bounds a grower keeps.
"""

from typing import NamedTuple

import numpy as np


class Bounds(NamedTuple):
    """The interval a node's value must stay in (scikit-learn's ``lower_bound`` and
    ``upper_bound``); the root's is the whole line."""

    lower: float = -np.inf
    upper: float = np.inf


#: The bounds of a root: no bound.
UNBOUNDED = Bounds()


def children_values(left_sums, left_weights, total, total_weight):
    """``(v_L, v_R)``: the mean values of the two children of every cut, from the left
    child's sums ``left_sums`` and weights ``left_weights`` (any shape) and the node's
    ``total`` and ``total_weight``, as scikit-learn's criteria compute them (the right
    child's sums are the node's minus the left ones).  O(cuts).  An empty child gives
    nan or inf (such a cut is no candidate anyway)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return (left_sums / left_weights,
                (total - left_sums) / (total_weight - left_weights))


def allowed_cuts(left_values, right_values, signs, bounds=UNBOUNDED):
    """Which cuts the constraint allows: ``left_values`` and ``right_values`` (cuts, f)
    the children's values of every cut of f features whose constraints are ``signs``
    (f,), in a node of ``bounds``.  True for every cut of an unconstrained feature; for a
    constrained one, both values within the bounds and in the feature's order (equal
    values are allowed).  O(cuts f)."""
    signs = np.asarray(signs)
    lower, upper = bounds
    inside = ((left_values >= lower) & (right_values >= lower)
              & (left_values <= upper) & (right_values <= upper))
    ordered = (left_values - right_values) * signs <= 0
    return (inside & ordered) | (signs == 0)


def middle_value(left_sum, left_weight, right_sum, right_weight):
    """scikit-learn's ``middle_value``: ``S_L / (2 W_L) + S_R / (2 W_R)``, the midpoint
    of the two children's values, where the bounds of constrained children meet.  O(1)."""
    return left_sum / (2 * left_weight) + right_sum / (2 * right_weight)


def child_bounds(sign, bounds, middle):
    """``(left, right)``: the ``Bounds`` of the two children of a split on a feature of
    constraint ``sign`` in a node of ``bounds`` whose children's values meet at
    ``middle`` (``middle_value``), as scikit-learn's tree builders pass them.  O(1)."""
    if sign == 0:
        return bounds, bounds
    if sign > 0:
        return Bounds(bounds.lower, middle), Bounds(middle, bounds.upper)
    return Bounds(middle, bounds.upper), Bounds(bounds.lower, middle)


def clip_value(value, bounds, classification=False):
    """A node's ``value`` (k,) with its first entry clipped to ``bounds`` (scikit-learn's
    ``clip_node_value``); for a binary classifier the second entry is then one minus the
    first, as scikit-learn sets it (clipped or not).  O(k)."""
    value = np.array(value, dtype=np.float64)
    if value[0] < bounds.lower:
        value[0] = bounds.lower
    elif value[0] > bounds.upper:
        value[0] = bounds.upper
    if classification and len(value) == 2:
        value[1] = 1 - value[0]
    return value


def mask_cuts(gains, left_sums, left_weights, total, total_weight, signs, bounds):
    """``gains`` (cuts, f) with ``-inf`` where the constraint refuses the cut
    (``allowed_cuts`` of ``children_values``); the columns of unconstrained features
    untouched.  ``left_sums`` and ``left_weights`` (cuts, f) are the left child's sums of
    the value's statistic and its weights.  O(cuts f)."""
    left_values, right_values = children_values(left_sums, left_weights, total,
                                                total_weight)
    return np.where(allowed_cuts(left_values, right_values, signs, bounds), gains, -np.inf)


class Constraint(NamedTuple):
    """A node's monotonic constraint (``treelib.finders.monotonic``): the ``signs`` (f,)
    of the features searched and the node's ``bounds``."""

    signs: np.ndarray
    bounds: tuple = UNBOUNDED


def constrained_gains(gains, order, n_missing, Y, weights, constraint):
    """``gains`` in ``exact_split``'s layout (rows ``0 .. n - 2`` the cuts after each
    sorted position, missing values right; with missing values ``n - 1 .. 2 n - 3`` the
    same cuts with them left) with ``-inf`` where ``constraint`` refuses the cut: the
    children's values are the weighted means of ``Y[:, 0]`` (``treelib.finders.monotonic``).
    O(c n) extra for c constrained features (a cumulative sum), nothing without any."""
    columns = np.flatnonzero(constraint.signs != 0)
    n = len(order)
    if len(columns) == 0 or n < 2:
        return gains
    w = np.ones(n) if weights is None else np.asarray(weights, np.float64)
    stat = np.asarray(Y, np.float64).reshape(n, -1)[:, 0] * w
    rows = order[:, columns]
    left = np.cumsum(stat[rows], axis=0)[:-1]
    left_w = np.cumsum(w[rows], axis=0)[:-1]
    total, total_w = float(np.sum(stat)), float(np.sum(w))
    if len(gains) > n - 1:                      # the missing values' layout
        present = n - np.asarray(n_missing)[columns]
        last, at = np.clip(present - 1, 0, n - 2), np.arange(len(columns))
        present_sum = np.where(present > 0, left[last, at], 0.0)
        present_w = np.where(present > 0, left_w[last, at], 0.0)
        left = np.concatenate([left, left + (total - present_sum)])
        left_w = np.concatenate([left_w, left_w + (total_w - present_w)])
    gains = np.array(gains)
    gains[:, columns] = mask_cuts(gains[:, columns], left, left_w, total, total_w,
                                  constraint.signs[columns], constraint.bounds)
    return gains


def constrained_bin_gains(gains, codes, Y, weights, n_bins, missing, constraint):
    """``gains`` (cuts, f) in ``treelib.finders.histogram.histogram_split``'s layout (the
    cut after each bin of ``n_bins``; with ``missing``, then the same cuts with the missing
    bin, the last, sent left) with ``-inf`` where ``constraint`` refuses the cut; the
    children's values are the weighted means of ``Y[:, 0]``.  O(n + B) extra per
    constrained feature (its histogram of the value's sums), nothing without any."""
    columns = np.flatnonzero(constraint.signs != 0)
    if len(columns) == 0:
        return gains
    n = len(codes)
    w = np.ones(n) if weights is None else np.asarray(weights, np.float64)
    stat = np.asarray(Y, np.float64).reshape(n, -1)[:, 0] * w
    sums = np.stack([np.bincount(codes[:, j], weights=stat, minlength=n_bins)
                     for j in columns], axis=1)                          # (B, c)
    bin_w = np.stack([np.bincount(codes[:, j], weights=w, minlength=n_bins)
                      for j in columns], axis=1)
    left, left_w = np.cumsum(sums, axis=0)[:-1], np.cumsum(bin_w, axis=0)[:-1]
    if missing:
        left = np.concatenate([left, left + sums[-1]])
        left_w = np.concatenate([left_w, left_w + bin_w[-1]])
    total, total_w = float(np.sum(stat)), float(np.sum(w))
    gains = np.array(gains)
    gains[:, columns] = mask_cuts(gains[:, columns], left, left_w, total, total_w,
                                  constraint.signs[columns], constraint.bounds)
    return gains


#: scikit-learn's ``compute_node_value`` adds this to every sum of hessians.
NEWTON_EPSILON = 1e-15


def newton_value(G, H, l2, bounds=UNBOUNDED):
    """scikit-learn's ``compute_node_value`` for gradient boosting: the Newton value
    ``-G / (H + l2 + 1e-15)`` (any shape) clipped to ``bounds`` (whose ends may be arrays
    that broadcast with ``G``).  O(size)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        value = -np.asarray(G, np.float64) / (H + l2 + NEWTON_EPSILON)
    lower, upper = bounds
    return np.where(value < lower, lower, np.where(value > upper, upper, value))


def newton_middle(left_value, right_value):
    """Where the bounds of a boosting tree's constrained children meet: the mean of the
    two children's (clipped, unshrunk) Newton values, as scikit-learn's ``TreeGrower``
    computes it (not the trees' ``middle_value``).  O(1)."""
    return (left_value + right_value) / 2


def newton_scan_gains(left, right, node, signs, l2):
    """scikit-learn's ``_split_gain`` of every cut of m nodes, in its arithmetic: the
    children's values ``newton_value`` of the left sums ``(GL, HL)`` and right sums
    ``(GR, HR)`` (m, f, C), clipped to the node's children bounds; a cut of a feature
    whose sign ``signs`` (f,) is not 0 is refused (-inf) if those values break its order;
    the others gain ``G v - G_L v_L - G_R v_R`` (``v`` the node's own clipped value, the
    root's 0), evaluated in scikit-learn's order, so that equal sums give equal gains to
    the last bit (a cut whose children are both clipped to one bound gains rounding
    noise, which scikit-learn compares with 0 like any gain).  ``node``: ``(G, value,
    lower, upper)`` arrays (m,).  O(m f C)."""
    (GL, HL), (GR, HR) = left, right
    G, value, lower, upper = (np.asarray(a, np.float64)[:, None, None] for a in node)
    bounds = Bounds(lower, upper)
    with np.errstate(invalid="ignore", over="ignore"):
        left_values = newton_value(GL, HL, l2, bounds)
        right_values = newton_value(GR, HR, l2, bounds)
        gains = G * value - GL * left_values - GR * right_values
    signs = np.asarray(signs)[:, None]
    refused = (((signs > 0) & (left_values > right_values))
               | ((signs < 0) & (left_values < right_values)))
    return np.where(refused | np.isnan(gains), -np.inf, gains)


def first_best_cuts(left_to_right, right_to_left=None):
    """scikit-learn's choice among the gains (m, f, C) of every node's cuts (-inf: no
    candidate): the **first** highest in its scan order, feature after feature, each
    feature's cuts from left to right (missing values right), then, if
    ``right_to_left`` is given (the same cuts with missing values left), from right to
    left, since its ``Splitter`` keeps a gain only if it is strictly higher than the
    best before it.  Returns ``(feature, cut, gain)`` arrays (m,): ``cut`` b is the cut
    after bin b with missing values right, C + b the same with them left (a node
    without any cut: gain -inf).  O(m f C)."""
    m, f, C = left_to_right.shape
    scan = left_to_right if right_to_left is None else np.concatenate(
        [left_to_right, right_to_left[..., ::-1]], axis=-1)
    flat = scan.reshape(m, -1)
    if flat.shape[1] == 0:                                     # (no cut at all)
        return np.zeros(m, np.intp), np.zeros(m, np.intp), np.full(m, -np.inf)
    at = np.argmax(flat, axis=1)
    feature, k = np.divmod(at, scan.shape[-1])
    return feature, np.where(k < C, k, 3 * C - 1 - k), flat[np.arange(m), at]


def check_monotonic_cst(monotonic_cst, n_features, categorical=None):
    """``monotonic_cst`` as an int8 array of n_features signs (None stays None), or a
    ValueError naming what is wrong: its length, a value outside {-1, 0, 1}, or a
    constraint on a ``categorical`` feature (boolean mask; categories have no order, as
    scikit-learn refuses).  O(f)."""
    if monotonic_cst is None:
        return None
    signs = np.asarray(monotonic_cst)
    if signs.ndim != 1 or signs.shape[0] != n_features:
        raise ValueError(f"monotonic_cst has shape {signs.shape} but the input data X has "
                         f"{n_features} features")
    if not np.all(np.isin(signs, (-1, 0, 1))):
        raise ValueError("monotonic_cst must be None or an array-like of -1, 0 or 1, but "
                         f"got {np.unique(signs)}")
    signs = signs.astype(np.int8)
    if categorical is not None and np.any(signs[np.asarray(categorical, bool)] != 0):
        bad = np.flatnonzero((signs != 0) & np.asarray(categorical, bool))
        raise ValueError(f"monotonic_cst constrains the categorical features {bad.tolist()}: "
                         "categories have no order; give them 0")
    return signs


def monotonic_signs(monotonic_cst, categorical, feature_names=None):
    """``monotonic_cst`` (an array-like, or a dict by feature name, scikit-learn's two
    forms) as a tuple of signs, or None when it is None or all 0 (no constraint);
    ``categorical`` the features' boolean mask, ``feature_names`` the names of X's
    columns (None: X had none).  A ValueError names what is wrong
    (``check_monotonic_cst``; a dict without feature names, or with unknown ones).
    O(f)."""
    if isinstance(monotonic_cst, dict):
        unknown = sorted(set(monotonic_cst) - set([] if feature_names is None
                                                  else feature_names))
        if feature_names is None or unknown:
            raise ValueError("monotonic_cst as a dict needs X with feature names, each key "
                             f"one of them; unknown: {unknown}")
        monotonic_cst = [monotonic_cst.get(name, 0) for name in feature_names]
    signs = check_monotonic_cst(monotonic_cst, len(categorical), categorical)
    if signs is None or not signs.any():
        return None
    return tuple(int(v) for v in signs)
