"""When a node stays a leaf: scikit-learn's stopping rules, in one place."""

import math
from dataclasses import dataclass

import numpy as np

#: scikit-learn's tolerance in ``min_impurity_decrease`` (``improvement + EPSILON <
#: min_impurity_decrease`` makes a leaf).
EPSILON = np.finfo(np.float64).eps


@dataclass(frozen=True)
class StoppingRules:
    """scikit-learn's rules for when a node stays a leaf.

    A node is a leaf if its depth reached ``max_depth`` (None: no limit), it holds fewer
    than ``min_samples_split`` samples or fewer than twice the finder's
    ``min_samples_leaf``, it is pure (impurity 0; scikit-learn tests ``impurity <=
    EPSILON``, but treelib's impurity of a constant node is exactly 0), it has no
    candidate split, or its best split's improvement ``gain / n_total`` (the impurity
    decrease weighted by the node's share of the ``n_total`` training samples) is below
    ``min_impurity_decrease``.  Best-first growth also stops at ``max_leaf_nodes``
    leaves.  Every method works on one node or on arrays of nodes.
    """

    max_depth: int | None = None
    min_samples_split: int = 2
    min_impurity_decrease: float = 0.0
    max_leaf_nodes: int | None = None

    def is_leaf(self, counts, impurity, depth, min_samples_leaf=1):
        """Nodes that are leaves before their split is searched."""
        too_deep = False if self.max_depth is None else depth >= self.max_depth
        return (too_deep | (counts < self.min_samples_split)
                | (counts < 2 * min_samples_leaf) | (impurity <= 0.0))

    def rejects(self, gain, n_total):
        """Nodes whose best gain is too small to split (or -inf/None: no candidate)."""
        if gain is None:
            return True
        if isinstance(gain, float):      # one node: the same float64 arithmetic, fewer calls
            return not math.isfinite(gain) or (
                max(gain, 0.0) / n_total + EPSILON < self.min_impurity_decrease)
        gain = np.asarray(gain, dtype=np.float64)
        return ~np.isfinite(gain) | (
            np.maximum(gain, 0.0) / n_total + EPSILON < self.min_impurity_decrease)


def without_zero_weights(data, Y, weights):
    """``data``, ``Y`` and ``weights`` without the samples of zero weight (they take no
    part in a tree, as in scikit-learn).  O(n f)."""
    if weights is None or np.all(weights > 0):
        return data, Y, weights
    keep = np.asarray(weights) > 0
    return data[keep], Y[keep], weights[keep]
