"""The per-node reference of the level-wise engines' draw contracts: a grower that visits
the nodes breadth first (level after level, left to right), as the level-wise growers
meet them, and asks a per-node finder for each searched node's split.  O(nodes x the
finder's cost).  Used by test_level_max_features and test_level_random."""

from collections import deque

import numpy as np

from treelib.criteria import node_statistics
from treelib.growth.depth_first import children_of
from treelib.tree import LEFT, RIGHT, TreeRecorder


def grow_breadth_first(data, Y, finder, rules, weights=None):
    """A per-node grower visiting the nodes breadth first (the reference's order)."""
    tree, queue = TreeRecorder(), deque([(np.arange(len(Y)), 0, None, LEFT)])
    total = len(Y) if weights is None else float(np.sum(weights))
    while queue:
        samples, depth, parent, branch = queue.popleft()
        w = None if weights is None else weights[samples]
        node = node_statistics(Y[samples], [len(samples)], finder.criterion, w)
        node_id = tree.add_nodes(node.value[0], node.impurity[0], len(samples), parent,
                                 branch, node.weight[0])
        if rules.is_leaf(len(samples), node.impurity[0], depth, finder.min_samples_leaf):
            continue
        split = finder(data[samples], Y[samples], w)
        if split is None or rules.rejects(split.gain, total):
            continue
        tree.set_splits(node_id, split.feature, split.threshold, split.missing_go_to_left,
                        split.categories_left)
        left, right = children_of(data, samples, split)
        queue.append((left, depth + 1, node_id, LEFT))
        queue.append((right, depth + 1, node_id, RIGHT))
    return tree.finish()
