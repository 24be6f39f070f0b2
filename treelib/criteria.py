"""Impurity criteria: how mixed the targets of one node are, and what a split gains.

A criterion maps the targets ``y`` of a node to a number that is 0 when the node is
pure.  The gain of a split is the node's total impurity minus its children's::

    gain = n * I(node) - n_left * I(left) - n_right * I(right)

For squared error, ``n * I`` is the sum of squared deviations from the mean, so the
gain is measured in squared units of y.  (scikit-learn's ``impurity_improvement`` is
this gain divided by the number of training samples.)

Every function here costs O(n) for n targets (O(n + k) for k classes).
"""

import numpy as np


def centered(y):
    """Return ``y`` minus its mean, computed so that a constant ``y`` gives exact zeros.

    For a 2-D ``y`` (n, k) every column is centred on its own mean.

    Subtracting ``y[0]`` first keeps the numbers small (and is exact for a constant
    node), then the mean of what is left is removed.  The split finders that use the
    variance-to-sum identity work on these centred values: see the chapter
    "The variance-to-sum identity" for why this keeps them exact.
    """
    y = np.asarray(y, dtype=np.float64)
    shifted = y - y[0]
    return shifted - shifted.mean(axis=0)


def sum_squared_error(y):
    """Sum of squared deviations from the mean, ``sum((y - mean(y))**2)``; 0 if empty."""
    if len(y) == 0:
        return 0.0
    d = centered(y)
    return float(np.sum(d * d))


def squared_error(y):
    """Mean squared deviation from the mean (the variance): regression impurity."""
    return sum_squared_error(y) / len(y)


def class_proportions(y):
    """Proportion of each class present in ``y`` (classes in sorted order)."""
    _, counts = np.unique(np.asarray(y), return_counts=True)
    return counts / counts.sum()


def gini(y):
    """Gini impurity ``1 - sum_k p_k**2``: the chance that two draws (with replacement)
    from the node have different classes."""
    p = class_proportions(y)
    return float(1.0 - np.sum(p * p))


def entropy(y):
    """Shannon entropy ``-sum_k p_k log2 p_k`` in bits (scikit-learn's "entropy")."""
    p = class_proportions(y)
    return float(-np.sum(p * np.log2(p))) + 0.0  # + 0.0: a pure node gives 0.0, not -0.0


CRITERIA = {"squared_error": squared_error, "gini": gini, "entropy": entropy}
REGRESSION_CRITERIA = ("squared_error",)
CLASSIFICATION_CRITERIA = ("gini", "entropy")


def check_criterion(criterion, allowed=tuple(CRITERIA)):
    """Raise a ValueError naming the valid choices if ``criterion`` is not one of them."""
    if not isinstance(criterion, str) or criterion not in allowed:
        raise ValueError(f"unknown criterion {criterion!r}; choose one of {list(allowed)}")
    return criterion


# --- the same criteria from target statistics -------------------------------------
#
# The split finders do not look at labels: they add up per-sample *statistics* ``Y``
# (an (n, k) array) and score a cut from the sums of the two children alone.
#
# - squared error: ``Y`` is the centred target, one column (k columns for k outputs);
# - Gini and entropy: ``Y`` is the one-hot matrix of the classes, so sums are counts.


def one_hot(codes, n_classes):
    """(n, n_classes) float matrix with a 1 in column ``codes[i]`` of row i.  O(n k)."""
    codes = np.asarray(codes, dtype=np.intp)
    Y = np.zeros((len(codes), n_classes))
    Y[np.arange(len(codes)), codes] = 1.0
    return Y


def xlog2x(c):
    """``c * log2(c)`` elementwise, with ``0 * log2(0) = 0``."""
    c = np.asarray(c, dtype=np.float64)
    return c * np.log2(np.where(c > 0, c, 1.0))


def node_impurity(Y, criterion):
    """Impurity of a node from its statistics ``Y`` (n, k); 0 for an empty node.

    squared_error: the variance of each column, summed over columns;
    gini: ``1 - sum_k p_k**2`` with ``p`` the column means (class proportions);
    entropy: ``-sum_k p_k log2 p_k``.  O(n k).
    """
    Y = np.asarray(Y, dtype=np.float64)
    n = len(Y)
    if n == 0:
        return 0.0
    if criterion == "squared_error":
        d = centered(Y)
        return float(np.sum(d * d)) / n
    p = Y.sum(axis=0) / n
    if criterion == "gini":
        return float(1.0 - np.sum(p * p)) + 0.0
    if criterion == "entropy":
        return float(-np.sum(xlog2x(p))) + 0.0
    raise ValueError(f"unknown criterion {criterion!r}")


def gain_from_sums(sum_left, n_left, total, n, criterion):
    """Gain of cuts, ``n I(node) - n_L I(L) - n_R I(R)``, from the left child's sums.

    ``sum_left`` (..., k) holds the sums of ``Y`` over the left child of each cut and
    ``n_left`` (...) its sizes; ``total`` (k,) and ``n`` are the node's (``total``
    may also be (..., k), one row per feature, broadcast against ``sum_left``).  The right
    child is the rest.  O(k) per cut, so every cut of a sorted feature is scored in
    O(n k) once the cumulative sums are known.

    - squared error and Gini share one formula, the variance-to-sum identity
      ``sum_k S_Lk**2 / n_L + S_Rk**2 / n_R - S_k**2 / n`` (for one-hot ``Y`` the
      sums are class counts and this is exactly the Gini gain);
    - entropy: ``n H = n log2 n - sum_k c_k log2 c_k`` for each of the three nodes.

    For squared error ``Y`` must be centred on the node's mean (see ``centered``),
    or the subtraction of large squares loses the gain's digits.
    """
    sum_left = np.asarray(sum_left, dtype=np.float64)
    total = np.asarray(total, dtype=np.float64)
    if criterion == "squared_error" and sum_left.shape[-1] == 1:
        sum_left, total = sum_left[..., 0], total[..., 0]   # one output: no k axis
        sum_right, n_right = total - sum_left, n - n_left
        return (sum_left * sum_left / n_left + sum_right * sum_right / n_right
                - total * total / n)
    sum_right, n_right = total - sum_left, n - n_left
    if criterion in ("squared_error", "gini"):
        return (np.sum(sum_left * sum_left, axis=-1) / n_left
                + np.sum(sum_right * sum_right, axis=-1) / n_right
                - np.sum(total * total, axis=-1) / n)
    if criterion == "entropy":
        def n_entropy(count, counts):      # n * H(node) from its size and class counts
            return xlog2x(count) - np.sum(xlog2x(counts), axis=-1)
        return (n_entropy(n, total) - n_entropy(n_left, sum_left)
                - n_entropy(n_right, sum_right))
    raise ValueError(f"unknown criterion {criterion!r}")


def split_gain(y, goes_left, criterion="squared_error"):
    """Gain of sending ``y[goes_left]`` left and the rest right, computed from scratch.

    ``n * I(y) - n_left * I(y_left) - n_right * I(y_right)`` with the impurity ``I``
    named by ``criterion`` (a key of ``CRITERIA``).  O(n).
    """
    impurity = CRITERIA[criterion]
    y = np.asarray(y)
    goes_left = np.asarray(goes_left, dtype=bool)
    left, right = y[goes_left], y[~goes_left]
    if len(left) == 0 or len(right) == 0:
        raise ValueError("a split must send at least one sample to each side")
    return (len(y) * impurity(y) - len(left) * impurity(left)
            - len(right) * impurity(right))
