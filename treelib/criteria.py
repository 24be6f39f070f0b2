"""Impurity criteria: how mixed a node's targets are, and what a split gains.

Each formula of the book is written here once.  A criterion maps the targets of a node to
a number that is 0 when the node is pure; the gain of a split is the node's total
impurity minus its children's::

    gain = n I(node) - n_left I(left) - n_right I(right)

For squared error ``n I`` is the sum of squared deviations from the mean, so the gain is
in squared units of y (scikit-learn's ``impurity_improvement`` is this gain divided by the
number of training samples).

The split finders never look at labels: they add up per-sample *statistics* ``Y`` (an
(n, k) array) and score a cut from the sums of its two children alone
(``gain_from_sums``):

- squared error: ``Y`` is the target centred on the node's mean, one column (k for k
  outputs);
- Gini and entropy: ``Y`` is the one-hot matrix of the classes, so its sums are counts.

Costs: O(n k) for n samples and k statistics, O(k) per cut from sums.
"""

import numpy as np

from treelib.segments import segment_ids, segment_starts
from treelib.validation import check_array, check_class_labels, check_target_range

REGRESSION_CRITERIA = ("squared_error",)
CLASSIFICATION_CRITERIA = ("gini", "entropy")
CRITERIA = REGRESSION_CRITERIA + CLASSIFICATION_CRITERIA

#: Unit of the rounding bounds (``gain_rounding_bound``): the spacing of floats at 1.
EPS = np.finfo(np.float64).eps


def check_criterion(criterion, allowed=CRITERIA):
    """Raise a ValueError naming the valid choices if ``criterion`` is not one of them."""
    if not isinstance(criterion, str) or criterion not in allowed:
        raise ValueError(f"unknown criterion {criterion!r}; choose one of {list(allowed)}")
    return criterion


# --- per-sample statistics -------------------------------------------------------------


def one_hot(codes, n_classes):
    """(n, n_classes) float matrix with a 1 in column ``codes[i]`` of row i.  O(n k)."""
    codes = np.asarray(codes, dtype=np.intp)
    Y = np.zeros((len(codes), n_classes))
    Y[np.arange(len(codes)), codes] = 1.0
    return Y


def as_columns(Y):
    """Statistics as an (n, k) float array: a 1-D target becomes one column."""
    Y = np.asarray(Y, dtype=np.float64)
    return Y[:, None] if Y.ndim == 1 else Y


def target_statistics(y, criterion):
    """Check ``y`` for ``criterion`` and return its statistics ``Y`` (n, k).

    Squared error: ``y`` must be numeric, finite, and small enough that the sums of
    squares the finders form stay finite; ``Y`` is ``y`` as one column.  Gini, entropy:
    ``y`` holds class labels (numbers or strings); ``Y`` is their one-hot matrix,
    classes in sorted order.
    """
    check_criterion(criterion)
    if criterion in CLASSIFICATION_CRITERIA:
        classes, codes = np.unique(check_class_labels(y), return_inverse=True)
        return one_hot(codes, len(classes))
    y = check_array(y, name="y", ndim=1)
    check_target_range(y)
    return y[:, None]


def xlog2x(c):
    """``c * log2(c)`` elementwise, with ``0 * log2(0) = 0``."""
    c = np.asarray(c, dtype=np.float64)
    return c * np.log2(np.where(c > 0, c, 1.0))


# --- nodes -------------------------------------------------------------------------------


def node_statistics(Y_rows, counts, criterion):
    """Everything the finders and growers need about consecutive nodes, at once.

    ``Y_rows`` (n, k) holds the statistics of the samples of node 0, then node 1, ...
    (``counts[s]`` samples each).  Returns ``(value, impurity, stats, totals,
    abs_totals)``:

    - ``value`` (nodes, k): the node's prediction, the mean of its rows (the mean target,
      or the class proportions);
    - ``impurity`` (nodes,): the variance summed over the k columns, ``1 - sum_k p_k**2``
      (Gini) or ``-sum_k p_k log2 p_k`` (entropy, in bits);
    - ``stats`` (n, k): what the split finders add up.  Squared error: every target minus
      its node's mean, centred in two steps (first minus the node's first target, exact
      for a constant node and free of any large offset, then minus the mean of what is
      left), so a constant node has impurity exactly 0.  The classification criteria:
      ``Y_rows`` itself (counts are exact);
    - ``totals`` (nodes, k): the sums of ``stats`` over each node;
    - ``abs_totals`` (nodes, k): the sums of ``|stats|``, which bound the rounding of
      any partial sum (``gain_rounding_bound``); None for the classification criteria.

    O(n k), with ``np.add.reduceat``.
    """
    Y_rows = as_columns(Y_rows)
    counts = np.asarray(counts)
    starts, segment = segment_starts(counts), segment_ids(counts)
    size = counts[:, None].astype(np.float64)
    if criterion == "squared_error":
        anchor = Y_rows[starts]
        shifted = Y_rows - anchor[segment]
        shift_mean = np.add.reduceat(shifted, starts, axis=0) / size
        stats = shifted - shift_mean[segment]
        impurity = np.add.reduceat(stats * stats, starts, axis=0).sum(axis=1) / counts
        totals = np.add.reduceat(stats, starts, axis=0)
        abs_totals = np.add.reduceat(np.abs(stats), starts, axis=0)
        return anchor + shift_mean, impurity, stats, totals, abs_totals
    totals = np.add.reduceat(Y_rows, starts, axis=0)                # class counts
    p = totals / size
    if criterion == "gini":
        impurity = 1.0 - np.sum(p * p, axis=1)
    else:
        impurity = -np.sum(xlog2x(p), axis=1)
    return p, impurity + 0.0, Y_rows, totals, None


def node_impurity(Y, criterion):
    """Impurity of one node from its statistics ``Y`` (n, k); 0 for an empty node."""
    Y = as_columns(Y)
    if len(Y) == 0:
        return 0.0
    return float(node_statistics(Y, [len(Y)], criterion)[1][0])


def centered(y):
    """``y`` minus its mean, as ``node_statistics`` centres a node (a constant ``y``
    gives exact zeros; columns of a 2-D ``y`` each on their own mean)."""
    y = np.asarray(y, dtype=np.float64)
    stats = node_statistics(y, [len(y)], "squared_error")[2]
    return stats.reshape(y.shape)


# --- impurities of labels (chapter 1) ------------------------------------------------


def _labels_impurity(y, criterion):
    y = np.asarray(y)
    if criterion == "squared_error":
        return node_impurity(y.astype(np.float64), criterion)
    _, codes = np.unique(y, return_inverse=True)
    return node_impurity(one_hot(codes, codes.max() + 1), criterion)


def squared_error(y):
    """Mean squared deviation from the mean (the variance): regression impurity."""
    return _labels_impurity(y, "squared_error")


def gini(y):
    """Gini impurity ``1 - sum_k p_k**2``: the chance that two draws (with replacement)
    from the node have different classes."""
    return _labels_impurity(y, "gini")


def entropy(y):
    """Shannon entropy ``-sum_k p_k log2 p_k`` in bits (scikit-learn's "entropy")."""
    return _labels_impurity(y, "entropy")


IMPURITIES = {"squared_error": squared_error, "gini": gini, "entropy": entropy}


def split_gain(y, goes_left, criterion="squared_error"):
    """Gain of sending ``y[goes_left]`` left and the rest right, computed from scratch:
    ``n I(y) - n_left I(y_left) - n_right I(y_right)``.  O(n)."""
    impurity = IMPURITIES[check_criterion(criterion)]
    y = np.asarray(y)
    goes_left = np.asarray(goes_left, dtype=bool)
    left, right = y[goes_left], y[~goes_left]
    if len(left) == 0 or len(right) == 0:
        raise ValueError("a split must send at least one sample to each side")
    return (len(y) * impurity(y) - len(left) * impurity(left)
            - len(right) * impurity(right))


# --- gains from sums -------------------------------------------------------------------


def gain_from_sums(sum_left, n_left, total, n, criterion):
    """Gain of cuts, ``n I(node) - n_L I(L) - n_R I(R)``, from the left child's sums.

    ``sum_left`` (..., k) holds the sums of ``Y`` over the left child of each cut and
    ``n_left`` (...) its sizes; ``total`` (..., k) and ``n`` (...) are the node's,
    broadcast against them.  The right child is the rest.  O(k) per cut.

    - squared error and Gini share one formula, the variance-to-sum identity
      ``sum_k S_Lk**2 / n_L + S_Rk**2 / n_R - S_k**2 / n`` (for one-hot ``Y`` the sums
      are class counts and this is exactly the Gini gain);
    - entropy: ``n H = n log2 n - sum_k c_k log2 c_k`` for each of the three nodes.

    For squared error ``Y`` must be centred on the node's mean (``node_statistics``), or
    the subtraction of large squares loses the gain's digits (chapter 2).  A cut with an
    empty side gives inf or nan: callers mask those.
    """
    sum_left, total = np.asarray(sum_left, np.float64), np.asarray(total, np.float64)
    if criterion == "entropy":
        def n_entropy(count, counts):        # n H(node) from its size and class counts
            return xlog2x(count) - np.sum(xlog2x(counts), axis=-1)
        return (n_entropy(n, total) - n_entropy(n_left, sum_left)
                - n_entropy(n - n_left, total - sum_left))
    if sum_left.shape[-1] == 1:              # one column: the same formula, no k axis
        sum_left, total = sum_left[..., 0], total[..., 0]
        sum_right = total - sum_left
        return sum_left * sum_left / n_left + sum_right * sum_right / (n - n_left) \
            - total * total / n
    sum_right = total - sum_left
    return (np.sum(sum_left * sum_left, axis=-1) / n_left
            + np.sum(sum_right * sum_right, axis=-1) / (n - n_left)
            - np.sum(total * total, axis=-1) / n)


def gain_rounding_bound(sum_left, n_left, total, n, criterion, abs_total=None, gain=None):
    """A bound on the rounding error of the gains that ``gain_from_sums`` computes.

    Two finders (or two machines) add the same samples in different orders, so an exact
    tie between two cuts can come out a few units of the last place apart; the tie rule
    (``treelib.split.best_cut``) treats cuts whose gains differ by less than the sum of
    their bounds as tied, and nothing else.  The bound has two parts, with ``EPS`` the
    spacing of floats at 1:

    - the final arithmetic, a few roundings of each term:
      ``4 EPS (sum_k S_Lk**2/n_L + S_Rk**2/n_R + S_k**2/n)`` (entropy: of its ``c log2 c``
      terms);
    - for sums of real-valued statistics (``abs_total`` given: the node's sums of
      ``|Y|``), the error of the sums themselves.  Any partial sum of n terms is off by at
      most ``n EPS sum|Y|`` whatever the order of the additions, and the gain moves by
      ``2 |S_L/n_L - S_R/n_R|`` per unit of ``S_L``, hence
      ``16 n EPS sum_k abs_total_k (|S_Lk|/n_L + |S_Rk|/n_R)`` (the factor 16 also covers
      the centring and the histogram subtraction trick, see ``treelib.growth``).

    Counts (Gini and entropy without weights) are exact, so only the first part applies.
    ``gain``, if given, is ``gain_from_sums``'s result, from which the first part's terms
    follow (their sum is the gain plus ``2 sum_k S_k**2 / n``).  Same shapes as
    ``gain_from_sums``; O(k) per cut.
    """
    sum_left, total = np.asarray(sum_left, np.float64), np.asarray(total, np.float64)
    sum_right, n_right = total - sum_left, n - n_left
    if criterion == "entropy":
        terms = (xlog2x(n) + np.sum(xlog2x(total), axis=-1) + xlog2x(n_left)
                 + np.sum(xlog2x(sum_left), axis=-1) + xlog2x(n_right)
                 + np.sum(xlog2x(sum_right), axis=-1))
        return 4 * EPS * terms
    if gain is None:
        gain = gain_from_sums(sum_left, n_left, total, n, criterion)
    bound = 4 * EPS * (gain + 2 * np.sum(total * total, axis=-1) / n)
    if abs_total is not None:
        slope = (np.abs(sum_left) / np.expand_dims(n_left, -1)
                 + np.abs(sum_right) / np.expand_dims(n_right, -1))
        bound = bound + 16 * EPS * n * np.sum(np.asarray(abs_total) * slope, axis=-1)
    return bound


def bound_cap(total, n, criterion, abs_total=None, max_gain=0.0):
    """An upper bound of ``gain_rounding_bound`` over every cut of nodes with sums
    ``total`` (nodes, k), sizes ``n`` (nodes,) and sums of |Y| ``abs_total``, whose
    gains are at most ``max_gain``: with ``|S_Lk| <= abs_total_k`` and ``n_L >= 1``,
    ``4 EPS (max_gain + 2 sum_k S_k**2/n) + 32 n EPS sum_k abs_total_k**2`` (entropy:
    ``24 EPS n log2(n + 1)``).  Only cuts within twice this of a node's best gain can be
    tied with it, so the growers compute exact bounds for those alone.  O(nodes k)."""
    total = np.asarray(total, np.float64)
    if criterion == "entropy":
        return 24 * EPS * n * np.log2(n + 1.0)
    cap = 4 * EPS * (np.maximum(max_gain, 0.0) + 2 * np.sum(total * total, axis=-1) / n)
    if abs_total is not None:
        abs_total = np.asarray(abs_total, np.float64)
        cap = cap + 32 * EPS * n * np.sum(abs_total * abs_total, axis=-1)
    return cap


def score_cuts(sum_left, n_left, total, n, criterion, abs_total=None):
    """``(gains, bounds)`` of cuts from their left sums: ``gain_from_sums`` and
    ``gain_rounding_bound`` together, with cuts that leave a side empty scored ``-inf``
    (bound 0).  Same shapes as ``gain_from_sums``."""
    n_left = np.asarray(n_left)
    with np.errstate(divide="ignore", invalid="ignore"):
        gains = gain_from_sums(sum_left, n_left, total, n, criterion)
        bounds = gain_rounding_bound(sum_left, n_left, total, n, criterion, abs_total,
                                     gains)
    both_sides = (n_left > 0) & (n_left < n)
    return np.where(both_sides, gains, -np.inf), np.where(both_sides, bounds, 0.0)
