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

    Subtracting ``y[0]`` first keeps the numbers small (and is exact for a constant
    node), then the mean of what is left is removed.  The split finders that use the
    variance-to-sum identity work on these centred values: see the chapter
    "The variance-to-sum identity" for why this keeps them exact.
    """
    y = np.asarray(y, dtype=np.float64)
    shifted = y - y[0]
    return shifted - shifted.mean()


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
    return float(-np.sum(p * np.log2(p)))


CRITERIA = {"squared_error": squared_error, "gini": gini, "entropy": entropy}


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
