"""The nodes of a batch of level-wise trees, recorded level by level in shared arrays.

``treelib.growth.level_wise.record_splits`` hands each level's splits and children to
every tree's ``TreeRecorder``: a few Python calls per tree and level, which for a forest
of small trees (a batch of twenty digits trees, a level a few milliseconds) weigh as
much as the level's numpy work.  ``BatchRecords`` keeps each level's nodes of all the
trees in a few arrays, numbers the children of each tree on from its last node (breadth
first, the numbers ``record_splits`` gives), and hands every tree its nodes in one
``add_nodes`` and one ``set_splits`` call at the end: the same nodes with the same
numbers, values and tests, so the same ``Tree``, bit for bit.

Costs: O(children k) per level in O(1) numpy calls; at the end O(nodes k + nodes log
nodes) and O(trees) recorder calls.  Memory: the trees' nodes, O(nodes k).
"""

import numpy as np

from treelib.tree import LEFT, RIGHT, TreeRecorder


class BatchRecords:
    """The nodes of a batch of trees: each tree's root (row t of ``root``, a
    ``NodeStatistics``, with ``counts[t]`` samples) as node 0, then every level's
    children (``add_level``), numbered tree by tree.  O(trees) to start."""

    def __init__(self, root, counts):
        self.root = (root.value, root.impurity, np.asarray(counts), root.weight)
        self.node_count = np.ones(len(counts), dtype=np.intp)
        self.levels = []

    def add_level(self, parents, splits, child, child_counts):
        """Record the splits of ``parents`` = (each one's tree, nondecreasing, and its
        id there), ``splits`` = (their features and thresholds; missing values go to
        the right child), and their children (left then right, ``child``'s statistics,
        ``child_counts`` samples); returns the children's ids.  O(children k)."""
        tree, ids = parents
        child_tree = np.repeat(tree, 2)
        bounds = np.searchsorted(child_tree, np.arange(len(self.node_count) + 1))
        child_ids = (self.node_count[child_tree] + np.arange(len(child_tree))
                     - bounds[child_tree])
        self.node_count += np.diff(bounds)
        self.levels.append((child_tree, child_ids, np.repeat(ids, 2),
                            np.tile(np.array([LEFT, RIGHT]), len(ids)), child.value,
                            child.impurity, np.asarray(child_counts), child.weight,
                            ids, splits[0], splits[1]))
        return child_ids

    def finish(self):
        """Every tree's ``Tree``, in order.  O(nodes k + nodes log nodes) and O(trees)
        recorder calls."""
        value, impurity, counts, weight = self.root
        if not self.levels:
            return [root_recorder(self.root, t).finish() for t in range(len(counts))]
        parts = [np.concatenate(part) for part in zip(*self.levels)]
        self.levels = []                           # the per-level copies are not needed
        child_tree, parent_tree = parts[0], parts[0][::2]       # a parent per child pair
        order = np.argsort(child_tree, kind="stable")          # by tree, then by id
        bounds = np.searchsorted(child_tree[order], np.arange(len(counts) + 1))
        split_order = np.argsort(parent_tree, kind="stable")
        split_bounds = np.searchsorted(parent_tree[split_order], np.arange(len(counts) + 1))
        trees = []
        for t in range(len(counts)):
            recorder = root_recorder(self.root, t)
            mine = order[bounds[t]:bounds[t + 1]]
            if len(mine):
                recorder.add_nodes(*(parts[j][mine] for j in (4, 5, 6, 2, 3, 7)))
            split = split_order[split_bounds[t]:split_bounds[t + 1]]
            recorder.set_splits(parts[8][split], parts[9][split], parts[10][split],
                                np.zeros(len(split), dtype=bool))   # no missing value
            trees.append(recorder.finish())
        return trees


def root_recorder(root, t):
    """A ``TreeRecorder`` holding tree ``t``'s root (row t of ``root`` = (values,
    impurities, counts, weights)).  O(k)."""
    recorder = TreeRecorder()
    value, impurity, counts, weight = root
    recorder.add_nodes(value[t:t + 1], impurity[t:t + 1], counts[t:t + 1],
                       weight=weight[t:t + 1])
    return recorder
