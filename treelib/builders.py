"""Tree builders: the order in which nodes are grown.

A builder knows nothing about how a split is found: it receives ``find_split``, a
function ``(X_node, y_node) -> Split or None`` (for instance ``best_split`` with a
method chosen), and decides which node to split next and when to stop.
"""

import numpy as np

from treelib.criteria import squared_error
from treelib.tree import TREE_LEAF, TreeRecorder


def is_leaf_by_rule(n_samples, depth, impurity, *, max_depth, min_samples_split,
                    min_samples_leaf):
    """scikit-learn's stopping rules, checked before a node's split is searched."""
    return (depth >= max_depth
            or n_samples < min_samples_split
            or n_samples < 2 * min_samples_leaf
            or impurity == 0.0)


def build_depth_first(X, y, find_split, *, max_depth=None, min_samples_split=2,
                      min_samples_leaf=1):
    """Grow a regression tree depth first, with an explicit stack.

    The left child is always grown before its sibling, so node ids follow a pre-order
    walk, as in scikit-learn's default ``DepthFirstTreeBuilder``; the stack replaces
    recursion, so there is no recursion limit.  Each node costs one call of
    ``find_split`` on its own samples, plus O(n_node) to partition them.

    Returns a ``Tree`` whose ``value`` holds each node's mean target.
    """
    max_depth = np.inf if max_depth is None else max_depth
    tree = TreeRecorder()
    stack = [(np.arange(len(y)), 0, TREE_LEAF, False)]
    while stack:
        samples, depth, parent, is_left = stack.pop()
        X_node, y_node = X[samples], y[samples]
        impurity = squared_error(y_node)
        node = tree.add_node(parent, is_left, value=y_node.mean(), impurity=impurity,
                             n_samples=len(samples))
        if is_leaf_by_rule(len(samples), depth, impurity, max_depth=max_depth,
                           min_samples_split=min_samples_split,
                           min_samples_leaf=min_samples_leaf):
            continue
        split = find_split(X_node, y_node)
        if split is None:
            continue
        tree.set_split(node, split.feature, split.threshold)
        goes_left = split.goes_left(X_node)
        stack.append((samples[~goes_left], depth + 1, node, False))
        stack.append((samples[goes_left], depth + 1, node, True))
    return tree.finish()
