"""The naive exact scorer: every cut's children recomputed from scratch, the textbook
baseline of ``treelib.finders.exact`` (its ``"naive"`` splitter)."""

import numpy as np

from treelib.criteria import as_columns, node_impurity
from treelib.gains import EPS, poisson_has_counts


def naive_gains(Y, order, valid, criterion="squared_error", weights=None):
    """Gain of every candidate cut, recomputing both children's impurity.

    The textbook baseline: for each cut, take the samples left of it and right of it and
    compute each side's impurity from scratch.  O(n k) per cut and up to n - 1 cuts per
    feature: **O(f n^2 k) per node**.  Its gains are differences of sums of n terms, so
    their rounding bound is ``4 (n + 2) EPS`` times the sums of their |terms| (a sum of
    n terms is off by at most n EPS of their total): the three losses, plus ``3 S``
    per node for Poisson, whose terms have both signs.  Invalid cuts, and Poisson cuts with a child
    without counts (as ``treelib.gains.gain_from_sums`` refuses them): ``-inf``.
    """
    Y = as_columns(Y)
    n = len(Y)
    w = np.ones(n) if weights is None else np.asarray(weights, np.float64)

    def loss(rows):                        # W I of the samples ``rows``
        part = None if weights is None else w[rows]
        return w[rows].sum() * node_impurity(Y[rows], criterion, part)

    def magnitude(rows, loss_of_rows):     # the sum of |terms| of that loss (bound)
        if criterion != "poisson":         # terms >= 0
            return loss_of_rows
        # Poisson's terms w y log(y / mu) are negative for y < mu, each at most
        # w (mu - y) in size, S = sum w y in all: |terms| <= loss + 2 S, and mu's own
        # rounding moves the loss by n EPS S at most
        return loss_of_rows + 3 * float(np.sum(Y[rows] * w[rows, None]))

    everything = np.arange(n)
    parent = loss(everything)
    parent_size = magnitude(everything, parent)
    gains = np.full(valid.shape, -np.inf)
    bounds = np.zeros(valid.shape)
    positive = (Y * w[:, None] > 0).astype(np.float64)    # Poisson: positive targets
    for j in range(order.shape[1]):
        for i in np.flatnonzero(valid[:, j]):
            left, right = order[: i + 1, j], order[i + 1:, j]
            if w[left].sum() <= 0 or w[right].sum() <= 0:
                continue
            if criterion == "poisson" and not poisson_has_counts(
                    positive[left].sum(axis=0), positive.sum(axis=0)):
                continue                    # a child without counts: no candidate
            loss_left, loss_right = loss(left), loss(right)
            gains[i, j] = parent - loss_left - loss_right
            bounds[i, j] = 4 * (n + 2) * EPS * (parent_size + magnitude(left, loss_left)
                                                + magnitude(right, loss_right))
    return gains, bounds
