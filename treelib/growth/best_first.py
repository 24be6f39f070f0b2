"""Best-first growth: always split the leaf whose split gains the most."""

import heapq

import numpy as np

from treelib.finders.monotonic import UNBOUNDED
from treelib.growth.depth_first import Node, children_of
from treelib.tree import LEFT, RIGHT, TreeRecorder


def grow_best_first(data, Y, finder, rules, counter=None, weights=None):
    """Grow a tree best first, from a priority heap of leaves.

    Every leaf of the growing tree waits in a heap, keyed by the gain of its best split
    (found when the leaf is created).  Popping the heap splits the most useful leaf; its
    two children are evaluated and pushed.  With ``rules.max_leaf_nodes`` the growth
    stops after ``max_leaf_nodes - 1`` splits, so the tree keeps the most useful splits
    anywhere in it, which is what scikit-learn's ``BestFirstTreeBuilder`` does.  Equal
    gains pop in the order the leaves were created.  Node ids are given in order of
    creation (children when their parent is split): the s-th split creates nodes 2s + 1
    and 2s + 2, so the tree grown with ``max_leaf_nodes=k`` is the first 2k - 1 nodes of
    the unlimited one.  Each node costs one ``finder`` call plus O(log leaves) for the
    heap.  Under monotonic constraints each waiting leaf keeps its ``Bounds``
    (``Node.children_bounds``): O(1) more memory per leaf.
    """
    tree, nodes = TreeRecorder(), Node(data, Y, weights, finder, rules, counter)
    splits_left = np.inf if rules.max_leaf_nodes is None else rules.max_leaf_nodes - 1
    heap, created = [], 0

    def add(samples, depth, parent, branch, bounds):
        nonlocal created
        value, impurity, weight, split = nodes.evaluate(samples, depth, bounds)
        node = tree.add_node(value, impurity, len(samples), parent, branch, weight)
        if split is not None:
            heapq.heappush(heap, (-split.gain, created, node, samples, depth, split, bounds))
        created += 1

    add(np.arange(len(Y)), 0, None, LEFT, UNBOUNDED)
    while heap and splits_left > 0:
        _, _, node, samples, depth, split, bounds = heapq.heappop(heap)
        nodes.record_split(tree, node, split)
        left, right = children_of(data, samples, split)
        left_bounds, right_bounds = nodes.children_bounds(left, right, split, bounds)
        add(left, depth + 1, node, LEFT, left_bounds)
        add(right, depth + 1, node, RIGHT, right_bounds)
        splits_left -= 1
    return tree.finish()
