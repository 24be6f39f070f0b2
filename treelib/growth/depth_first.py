"""Depth-first growth: split a node, then grow its left subtree, then its right one.

Two versions of one growth order, each a short function with the growers' signature
``grow(data, Y, finder, rules, counter=None, weights=None) -> Tree``
(see ``treelib.growth``):

- ``grow_recursive``    by recursion, the textbook version;
- ``grow_depth_first``  with an explicit stack, as scikit-learn's default
  ``DepthFirstTreeBuilder``.

Both number the nodes in the same pre-order and grow the same tree.  Under the finder's
monotonic constraints (``finder.monotonic_cst``) each node carries its ``Bounds``
(``treelib.finders.monotonic``): O(1) memory per node waiting on the stack.
"""

import sys

import numpy as np

from treelib.criteria import node_statistics
from treelib.finders.monotonic import UNBOUNDED, Bounds, child_bounds, clip_value, middle_value
from treelib.tree import LEFT, RIGHT, TreeRecorder


class Node:
    """What every per-node grower does at a node (``Node.evaluate``): its value, impurity
    and weight, and its split unless a stopping rule makes it a leaf."""

    def __init__(self, data, Y, weights, finder, rules, counter):
        self.data, self.Y, self.weights = data, Y, weights
        self.finder, self.rules, self.counter = finder, rules, counter
        self.total_weight = len(Y) if weights is None else float(np.sum(weights))

    def evaluate(self, samples, depth, bounds=UNBOUNDED):
        """``(value, impurity, weight, split or None)`` of the node holding ``samples``
        (``bounds``: its ``Bounds`` under the finder's monotonic constraints, which clip
        its value).  O(n_node k) plus one call of the finder."""
        weights = None if self.weights is None else self.weights[samples]
        Y = self.Y[samples]
        node = node_statistics(Y, (len(samples),), self.finder.criterion, weights)
        value, impurity, weight = node.value[0], node.impurity[0], node.weight[0]
        if self.finder.monotonic_cst is not None:
            value = clip_value(value, bounds, self.finder.criterion in ("gini", "entropy"))
        if self.rules.is_leaf(len(samples), impurity, depth, self.finder.min_samples_leaf):
            return value, impurity, weight, None
        if self.counter is not None:
            self.counter.searched(depth, 1, len(samples))
        # the node's statistics go to the finder, which would otherwise compute them again
        split = self.finder(self.data[samples], Y, weights, bounds, node=node)
        rejected = self.rules.rejects(None if split is None else split.gain,
                                      self.total_weight)
        return value, impurity, weight, None if rejected else split

    def record(self, tree, evaluated, count, parent, branch):
        """Add the node ``evaluate`` gave (``evaluated``, holding ``count`` samples) to
        ``tree`` (a ``TreeRecorder``) as child ``branch`` of ``parent`` (an int; None: the
        root), with its split if it has one; returns its id (an int).  O(k)."""
        value, impurity, weight, split = evaluated
        node = tree.add_node(value, impurity, count, parent, branch, weight)
        if split is not None:
            self.record_split(tree, node, split)
        return node

    @staticmethod
    def record_split(tree, node, split):
        """Give ``node`` (an int) of ``tree`` its ``split``.  O(1)."""
        if split.categories_left is None:
            tree.set_split(node, split.feature, split.threshold, split.missing_go_to_left)
        else:
            tree.set_splits(node, split.feature, split.threshold, split.missing_go_to_left,
                            split.categories_left)


    def children_bounds(self, left, right, split, bounds):
        """The ``Bounds`` of the two children (samples ``left`` and ``right``) of a node of
        ``bounds`` split by ``split`` (``treelib.finders.monotonic.child_bounds``; the
        node's own without constraints).  O(n_node)."""
        signs = self.finder.monotonic_cst
        if signs is None or signs[split.feature] == 0:
            return bounds, bounds
        if self.weights is None:
            sums = [(float(np.sum(self.Y[rows, 0])), float(len(rows))) for rows in (left, right)]
        else:
            w = self.weights
            sums = [(float(np.sum(self.Y[rows, 0] * w[rows])), float(np.sum(w[rows])))
                    for rows in (left, right)]
        middle = middle_value(*sums[0], *sums[1])
        return child_bounds(int(signs[split.feature]), Bounds(*bounds), middle)


def children_of(data, samples, split):
    """The samples of the two children of a split node, in their order in the node.
    O(n_node)."""
    goes_left = split.goes_left_of(data[samples, split.feature])   # one column, no row copy
    return samples[goes_left], samples[~goes_left]


def recursion_depth_limit():
    """The deepest tree ``grow_recursive`` grows: half of Python's recursion limit
    (``sys.getrecursionlimit()``, 1,000 by default), the other half left for the
    frames of the finders and of the caller."""
    return sys.getrecursionlimit() // 2


def grow_recursive(data, Y, finder, rules, counter=None, weights=None):
    """Grow a tree depth first by recursion.

    The shortest correct grower, and the one in textbooks.  Node ids follow a pre-order
    walk.  Each node costs one ``finder`` call on its own samples plus O(n_node) to
    partition them.  Python's recursion limit bounds the depth (``recursion_depth_limit``,
    500 levels by default): a deeper tree, a degenerate chain for instance, raises a
    ValueError that says so; ``grow_depth_first`` has no such limit.
    """
    tree, limit = TreeRecorder(), recursion_depth_limit()
    nodes = Node(data, Y, weights, finder, rules, counter)

    def grow(samples, depth, parent, branch, bounds):
        evaluated = nodes.evaluate(samples, depth, bounds)
        split = evaluated[3]
        if split is not None and depth >= limit:
            raise ValueError(
                f"builder='recursive' grows trees at most {limit} levels deep (half of "
                f"Python's recursion limit, sys.getrecursionlimit() = "
                f"{sys.getrecursionlimit()}), and this tree goes deeper: use "
                "builder='depth_first', which keeps its own stack, or set max_depth")
        node = nodes.record(tree, evaluated, len(samples), parent, branch)
        if split is None:
            return
        left, right = children_of(data, samples, split)
        left_bounds, right_bounds = nodes.children_bounds(left, right, split, bounds)
        grow(left, depth + 1, node, LEFT, left_bounds)
        grow(right, depth + 1, node, RIGHT, right_bounds)

    grow(np.arange(len(Y)), 0, None, LEFT, UNBOUNDED)
    return tree.finish()


def grow_depth_first(data, Y, finder, rules, counter=None, weights=None):
    """Grow a tree depth first with an explicit stack.

    The right child is pushed before the left one, so the left subtree is grown first
    and node ids follow the same pre-order walk as ``grow_recursive``; the stack replaces
    recursion, so there is no depth limit.  Same cost per node: O(n_node k) plus one
    call of the finder (``Node.evaluate``).
    """
    tree, nodes = TreeRecorder(), Node(data, Y, weights, finder, rules, counter)
    stack = [(np.arange(len(Y)), 0, None, LEFT, UNBOUNDED)]
    while stack:
        samples, depth, parent, branch, bounds = stack.pop()
        evaluated = nodes.evaluate(samples, depth, bounds)
        node, split = nodes.record(tree, evaluated, len(samples), parent, branch), evaluated[3]
        if split is not None:
            left, right = children_of(data, samples, split)
            left_bounds, right_bounds = nodes.children_bounds(left, right, split, bounds)
            stack.append((right, depth + 1, node, RIGHT, right_bounds))
            stack.append((left, depth + 1, node, LEFT, left_bounds))
    return tree.finish()
