"""Impurity criteria: how mixed a node's targets are, and the statistics the finders sum.

A criterion maps the targets of a node to a number that is 0 when the node is pure; the
gain of a split (``treelib.gains``) is the node's total impurity minus its children's::

    gain = W I(node) - W_L I(left) - W_R I(right)

with W the node's weight: its number of samples, or the sum of their sample weights.
For squared error ``W I`` is the sum of squared deviations from the mean, so the gain is
in squared units of y (scikit-learn's ``impurity_improvement`` is this gain divided by
the training set's weight).

======================= ============================================ ==================
criterion               impurity of a node                           prediction
======================= ============================================ ==================
``"squared_error"``     weighted variance of y                       weighted mean
``"poisson"``           half Poisson deviance, mean of               weighted mean
                        ``y log(y / mu) - y + mu``
``"absolute_error"``    weighted mean of ``|y - median|``            weighted median
``"gini"``              ``1 - sum_k p_k**2``                         class proportions
``"entropy"``           ``-sum_k p_k log2 p_k`` (bits)               class proportions
======================= ============================================ ==================

Costs: O(n k) for n samples and k statistics (O(n log n) for the median).
"""

from typing import NamedTuple

import numpy as np

from treelib.gains import xlog2x
from treelib.segments import segment_ids, segment_starts
from treelib.validation import check_array, check_class_labels, check_target_range

#: The criteria of regression trees, by name.
REGRESSION_CRITERIA = ("squared_error", "poisson", "absolute_error")
#: The criteria of classification trees, by name.
CLASSIFICATION_CRITERIA = ("gini", "entropy")
#: Every criterion, by name.
CRITERIA = REGRESSION_CRITERIA + CLASSIFICATION_CRITERIA

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


def check_poisson_targets(y):
    """Poisson regression needs counts-like targets: none negative, a positive sum."""
    if np.any(y < 0):
        raise ValueError("Some value(s) of y are negative, which is not allowed for "
                         "Poisson regression.")
    if np.sum(y) <= 0:
        raise ValueError("The sum of y is not positive: Poisson regression needs at "
                         "least one positive target.")
    return y


def target_statistics(y, criterion):
    """Check ``y`` for ``criterion`` and return its statistics ``Y`` (n, k).

    Regression: ``y`` must be numeric, finite, and small enough that the sums of squares
    the finders form stay finite (Poisson: no negative value, a positive sum); ``Y`` is
    ``y`` as one column.  Gini, entropy: ``y`` holds class labels (numbers or strings);
    ``Y`` is their one-hot matrix, classes in sorted order.
    """
    check_criterion(criterion)
    if criterion in CLASSIFICATION_CRITERIA:
        classes, codes = np.unique(check_class_labels(y), return_inverse=True)
        return one_hot(codes, len(classes))
    y = check_array(y, name="y", ndim=1)
    check_target_range(y)
    if criterion == "poisson":
        check_poisson_targets(y)
    return y[:, None]


# --- nodes -------------------------------------------------------------------------------


class NodeStatistics(NamedTuple):
    """What the finders and growers need about consecutive nodes (``node_statistics``)."""

    value: np.ndarray        # (nodes, k) the prediction
    impurity: np.ndarray     # (nodes,)
    stats: np.ndarray        # (n, k) what the split finders add up, per sample (2k: Poisson)
    totals: np.ndarray       # (nodes, k) sums of stats (2k: Poisson)
    abs_totals: object       # (nodes, k) sums of |stats|, or None where sums are exact
    weight: np.ndarray       # (nodes,) W: the nodes' sample weights (or sample counts)
    scale: np.ndarray        # (nodes, k) largest |stats / w| in the node


def weighted_medians(values, weights, counts):
    """The weighted median of every segment of ``values`` (n,), as scikit-learn's MAE
    criterion defines it: the smallest value whose cumulative weight, in increasing order,
    passes half the segment's weight; the mean of the two values around the middle when
    the cumulative weight stops exactly at half.  Zero weights are ignored.
    O(n log n), one sort."""
    segment, starts = segment_ids(counts), segment_starts(counts)
    order = np.lexsort((values, segment))
    v, w = values[order], weights[order]
    cumulative = np.cumsum(w)
    before = np.where(starts > 0, cumulative[starts - 1], 0.0)
    within = cumulative - before[segment]
    half = (within[starts + counts - 1] / 2)[segment]
    first_above = np.minimum.reduceat(np.where((within > half) & (w > 0),
                                               np.arange(len(v)), len(v)), starts)
    at_half = np.maximum.reduceat(np.where((within <= half) & (w > 0) & (within == half),
                                           np.arange(len(v)), -1), starts)
    exact = at_half >= 0
    median = v[first_above]
    median[exact] = v[at_half[exact]] / 2 + v[first_above[exact]] / 2
    return median


def node_statistics(Y_rows, counts, criterion, weights=None):
    """Everything the finders and growers need about consecutive nodes, at once.

    ``Y_rows`` (n, k) holds the targets (or one-hot classes) of the samples of node 0,
    then node 1, ... (``counts[s]`` samples each), ``weights`` (n,) their sample weights
    (None: all 1).  Returns a ``NodeStatistics``:

    - ``value``: the prediction, the weighted mean of the rows (the mean target, or the
      class proportions), or for absolute error the weighted median;
    - ``impurity``: as in the module's table;
    - ``stats``: what the split finders add up.  Squared error: every target minus its
      node's weighted mean, times its weight, centred in two steps (first minus the
      node's first target, exact for a constant node and free of any large offset, then
      minus the weighted mean of what is left), so a constant node has impurity exactly
      0.  Absolute error: the weighted target itself.  Poisson: the weighted targets
      (k columns), then k columns of 1 where a weighted target is positive: their sums
      count a child's positive targets exactly, and a child whose count is 0 has no
      counts to predict (``treelib.gains.gain_from_sums``), whatever the rounding of its
      sums.  Classification: the weighted one-hot rows (without weights, counts: exact);
    - ``totals``, ``abs_totals``: the sums of ``stats`` and of ``|stats|`` over each node
      (``abs_totals`` bound the rounding of any partial sum; None for exact counts);
    - ``weight``: each node's total weight (its number of samples without weights);
    - ``scale``: each node's largest ``|stats / w|``.

    O(n k) with ``np.add.reduceat``; O(n log n) for the weighted median.
    """
    Y_rows = as_columns(Y_rows)
    counts = np.asarray(counts)
    # one node (the per-node growers): no segment ids; ``x[segment]`` is ``x`` itself,
    # (1, k), which broadcasts to the same values as the rows' copies would be
    one = len(counts) == 1
    starts = _FIRST if one else segment_starts(counts)
    w = np.ones(len(Y_rows)) if weights is None else np.asarray(weights, np.float64)
    weight = counts.astype(np.float64) if weights is None else np.add.reduceat(w, starts)
    nodes = _Segments(counts, starts, slice(None) if one else segment_ids(counts), w,
                      weight, weights is not None)
    if criterion == "squared_error":
        return _centred_statistics(Y_rows, nodes)
    if criterion in ("poisson", "absolute_error"):
        return _target_statistics(Y_rows, nodes, criterion)
    stats = Y_rows if weights is None else Y_rows * w[:, None]
    totals = np.add.reduceat(stats, starts, axis=0)            # (weighted) class counts
    return class_statistics(totals, weight, criterion, stats, weights is not None)


#: ``starts`` of a single node (``np.add.reduceat`` only reads it).
_FIRST = np.zeros(1, dtype=np.intp)


class _Segments(NamedTuple):
    """Consecutive nodes as ``node_statistics`` receives them."""

    counts: np.ndarray       # (nodes,) samples per node
    starts: np.ndarray       # (nodes,) first row of each node
    segment: object          # (n,) the node of each row (one node: slice(None))
    w: np.ndarray            # (n,) sample weights (ones without)
    weight: np.ndarray       # (nodes,) W
    weighted: bool           # whether sample weights were given


def _centred_statistics(Y_rows, nodes):
    """``node_statistics`` for squared error: the rows centred on their node's weighted
    mean in two steps (minus the node's first row, then minus the weighted mean of what
    is left).  O(n k)."""
    starts, w = nodes.starts, nodes.w
    anchor = Y_rows[starts]
    shifted = Y_rows - _per_row(anchor, nodes)
    weighted = shifted * w[:, None] if nodes.weighted else shifted     # (x 1.0: exact)
    shift_mean = np.add.reduceat(weighted, starts, axis=0) / nodes.weight[:, None]
    centred = shifted - _per_row(shift_mean, nodes)
    stats = centred * w[:, None] if nodes.weighted else centred
    impurity = np.add.reduceat(stats * centred, starts, axis=0).sum(axis=1) / nodes.weight
    return NodeStatistics(anchor + shift_mean, impurity, stats,
                          np.add.reduceat(stats, starts, axis=0),
                          np.add.reduceat(np.abs(stats), starts, axis=0), nodes.weight,
                          np.maximum.reduceat(np.abs(centred), starts, axis=0))


def _per_row(values, nodes):
    """Each node's row of ``values`` (nodes, k) for each of its rows, (n, k) (``np.repeat``,
    several times faster than indexing by the rows' segment ids); one node: the row
    itself, which broadcasts to the same values.  O(n k)."""
    if isinstance(nodes.segment, slice):
        return values
    return np.repeat(values, nodes.counts, axis=0)


def _target_statistics(Y_rows, nodes, criterion):
    """``node_statistics`` for Poisson and absolute error: the weighted targets (Poisson:
    and the counts of positive targets), the weighted mean or median, and the mean loss.
    O(n k); O(n log n) for the median."""
    starts, segment, w = nodes.starts, nodes.segment, nodes.w
    stats = Y_rows * w[:, None]
    if criterion == "poisson":          # and the counts of positive targets
        stats = np.hstack([stats, (stats > 0).astype(np.float64)])
    totals = np.add.reduceat(stats, starts, axis=0)
    if criterion == "poisson":
        value = totals[:, :Y_rows.shape[1]] / nodes.weight[:, None]
        # sum of w y log(y / mean), term by term as scikit-learn sums it: exactly 0
        # for a constant node (the form sum y log y - S log(S / W) leaves a residue)
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(Y_rows > 0, Y_rows / value[segment], 1.0)
        loss = np.add.reduceat(Y_rows * np.log(ratio) * w[:, None], starts, axis=0)
    else:
        value = np.column_stack([weighted_medians(Y_rows[:, c], w, nodes.counts)
                                 for c in range(Y_rows.shape[1])])
        loss = np.add.reduceat(np.abs(Y_rows - value[segment]) * w[:, None], starts,
                               axis=0)
    impurity = np.maximum(loss.sum(axis=1) / nodes.weight, 0.0)
    return NodeStatistics(value, impurity, stats, totals,
                          np.add.reduceat(np.abs(stats), starts, axis=0), nodes.weight,
                          np.maximum.reduceat(np.abs(Y_rows), starts, axis=0))


def class_statistics(totals, weight, criterion, stats=None, weighted=False):
    """``node_statistics`` of classification nodes ("gini", "entropy") from their
    (weighted) class counts ``totals`` (nodes, k) and weights ``weight`` (nodes,):
    the class proportions, the impurity, ``abs_totals`` (the totals when ``weighted``,
    else None: counts are exact) and ``scale`` (ones); ``stats`` is passed through.
    O(nodes k)."""
    p = totals / weight[:, None]
    if criterion == "gini":
        impurity = 1.0 - np.sum(p * p, axis=1)
    else:
        impurity = -np.sum(xlog2x(p), axis=1)
    return NodeStatistics(p, impurity + 0.0, stats, totals, totals if weighted else None,
                          weight, np.ones_like(totals))


def node_impurity(Y, criterion, weights=None):
    """Impurity of one node from its statistics ``Y`` (n, k); 0 for an empty node."""
    Y = as_columns(Y)
    if len(Y) == 0:
        return 0.0
    return float(node_statistics(Y, [len(Y)], criterion, weights).impurity[0])


def centered(y):
    """``y`` minus its mean, as ``node_statistics`` centres a node (a constant ``y``
    gives exact zeros; columns of a 2-D ``y`` each on their own mean)."""
    y = np.asarray(y, dtype=np.float64)
    return node_statistics(y, [len(y)], "squared_error").stats.reshape(y.shape)


# --- impurities of labels (chapter 1) ------------------------------------------------


def labels_impurity(y, criterion, sample_weight=None):
    """The impurity of a node of targets or class labels ``y``."""
    y = np.asarray(y)
    if criterion in REGRESSION_CRITERIA:
        return node_impurity(y.astype(np.float64), criterion, sample_weight)
    _, codes = np.unique(y, return_inverse=True)
    return node_impurity(one_hot(codes, codes.max() + 1), criterion, sample_weight)


def squared_error(y):
    """Mean squared deviation from the mean (the variance): regression impurity."""
    return labels_impurity(y, "squared_error")


def gini(y):
    """Gini impurity ``1 - sum_k p_k**2``: the chance that two draws (with replacement)
    from the node have different classes."""
    return labels_impurity(y, "gini")


def entropy(y):
    """Shannon entropy ``-sum_k p_k log2 p_k`` in bits (scikit-learn's "entropy")."""
    return labels_impurity(y, "entropy")


#: The impurity of a node from its targets, for the criteria with a closed form.
IMPURITIES = {"squared_error": squared_error, "gini": gini, "entropy": entropy}


def split_gain(y, goes_left, criterion="squared_error", sample_weight=None):
    """Gain of sending ``y[goes_left]`` left and the rest right, computed from scratch:
    ``W I(y) - W_L I(y_left) - W_R I(y_right)``.  O(n)."""
    check_criterion(criterion)
    y = np.asarray(y)
    w = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, np.float64)
    goes_left = np.asarray(goes_left, dtype=bool)
    if not goes_left.any() or goes_left.all():
        raise ValueError("a split must send at least one sample to each side")
    return sum(sign * part.sum() * labels_impurity(y[mask], criterion, part)
               for sign, mask, part in [(1, slice(None), w), (-1, goes_left, w[goes_left]),
                                        (-1, ~goes_left, w[~goes_left])])
