"""Random decision trees (Fan, Wang, Yu and Ma, 2003; seed article 001).

A random decision tree never searches for a split.  Every node draws a **random feature**
among those that vary in it and a **random threshold**, halfway between two different
values of that feature in the node (the rule of the Dice implementation described in
seed article 001).  The labels play no part in the tree's shape: there is no gain and no
purity test.  They only fill in each node's statistics (class counts), and an ensemble of
such trees averages the class probabilities of the nodes its trees send a sample to.

How treelib grows one, following Dice:

- **level by level, no recursion**: every active sample knows its node; one level of
  the tree is one pass over those samples, a fixed number of numpy calls;
- **only where data is**: a child is created only if at least ``min_samples_leaf``
  training samples reach it; a sample that would fall into a missing child stops at
  the parent, whose statistics then answer for it (this is the pruning of Fan et al.'s
  original algorithm, which built a full empty tree first and removed the nodes with too
  few samples afterwards);
- **missing values as their own branch**: a split node has up to three children, for
  ``x <= threshold``, ``x > threshold`` and ``x`` missing (NaN).

Cost: each level looks at every active sample a constant number of times (to test
whether the drawn feature varies, to draw the threshold, to route it), so a tree costs
**O(depth x n)**, whatever the number of features, plus the stable sort that groups
each level's samples by node (O(n log n) numpy work per level).
"""

from dataclasses import dataclass

import numpy as np

from treelib.splits import midpoint
from treelib.tree import TREE_LEAF, TREE_UNDEFINED

LEFT, RIGHT, MISSING = 0, 1, 2

#: Draws of a random feature before a node's features are checked all at once.
FEATURE_DRAWS = 8


@dataclass(frozen=True, eq=False)
class RandomTree:
    """A random decision tree as flat arrays, one entry per node (root: 0).

    ``children`` (nodes, 3) holds the ids of the children for ``x <= threshold``,
    ``x > threshold`` and missing ``x``, ``TREE_LEAF`` (-1) where no training sample
    went; ``feature`` and ``threshold`` are ``TREE_UNDEFINED`` (-2) at a leaf;
    ``value`` (nodes, k) the mean statistics of the node's training samples (class
    proportions, or the mean target) and ``n_node_samples`` their number.
    """

    feature: np.ndarray
    threshold: np.ndarray
    children: np.ndarray
    value: np.ndarray
    n_node_samples: np.ndarray

    @property
    def node_count(self):
        return len(self.feature)

    @property
    def n_leaves(self):
        return int(np.sum(self.feature == TREE_UNDEFINED))

    def apply(self, X):
        """The node that answers for every row of ``X``: the deepest node of its path.

        All rows descend together, one level per numpy step; a row stops at a leaf or
        where the branch it takes has no child.  O(n x depth).
        """
        X = np.asarray(X, dtype=np.float64)
        node = np.zeros(len(X), dtype=np.intp)
        rows = np.arange(len(X))
        while len(rows):
            here = node[rows]
            feature = self.feature[here]
            splits = feature != TREE_UNDEFINED
            rows, here, feature = rows[splits], here[splits], feature[splits]
            values = X[rows, feature]
            branch = np.where(np.isnan(values), MISSING,
                              np.where(values <= self.threshold[here], LEFT, RIGHT))
            child = self.children[here, branch]
            moves = child != TREE_LEAF
            rows = rows[moves]
            node[rows] = child[moves]
        return node

    def predict(self, X):
        """The ``value`` row of the node that answers for every row of ``X``."""
        return self.value[self.apply(X)]

    def node_depth(self):
        """Depth of every node (the root has depth 0).  O(depth) numpy steps."""
        depth = np.zeros(self.node_count, dtype=np.intp)
        level = np.array([0])
        while level.size:
            children = self.children[level]                       # (nodes, 3)
            exists = children != TREE_LEAF
            depth[children[exists]] = np.repeat(depth[level], exists.sum(axis=1)) + 1
            level = children[exists]
        return depth

    @property
    def max_depth(self):
        return int(self.node_depth().max())


def build_random_tree(X, Y, rng, *, max_depth, min_samples_leaf=1):
    """Grow one random decision tree, level by level.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Features; NaN marks a missing value (infinity is not allowed).
    Y : ndarray of shape (n_samples, k)
        Per-sample statistics whose means the nodes keep: the one-hot classes (class
        proportions) or the target as one column (mean target).
    rng : numpy.random.Generator
        Draws every feature and threshold.
    max_depth : int
        Nodes at this depth are leaves (the root has depth 0).
    min_samples_leaf : int, default=1
        A child is created only if at least this many training samples reach it; a
        node is split only if it holds at least twice as many.

    Returns
    -------
    RandomTree
        Nodes numbered breadth first.

    Notes
    -----
    Per level, with n_d samples in the nodes that may split: O(n_d) to draw a feature
    per node (``_draw_features``), O(n_d) to draw the thresholds (``_draw_thresholds``),
    O(n_d) to route the samples and O(n_d k) for the children's statistics, plus the
    stable sort that groups the samples by child.  O(depth x n) numpy work in all, and
    O(depth) Python iterations.
    """
    X = np.asarray(X, dtype=np.float64)
    Y = np.asarray(Y, dtype=np.float64)
    Y = Y[:, None] if Y.ndim == 1 else Y
    levels = [(np.array([TREE_UNDEFINED]), np.array([float(TREE_UNDEFINED)]),
               Y.mean(axis=0)[None, :], np.array([len(Y)]))]
    links = []                                  # (parent ids, (m, 3) child ids)
    n_nodes = 1
    samples = np.arange(len(Y))                 # active samples, grouped by node
    node_ids, counts = np.array([0]), np.array([len(Y)])
    for depth in range(int(max_depth)):
        # 1. Nodes that may split: enough samples, and a feature that varies in them.
        splittable = counts >= 2 * min_samples_leaf
        samples = samples[np.repeat(splittable, counts)]
        node_ids, counts = node_ids[splittable], counts[splittable]
        if len(counts) == 0:
            break
        feature = _draw_features(X, samples, counts, rng)
        varies = feature >= 0
        samples = samples[np.repeat(varies, counts)]
        node_ids, counts, feature = node_ids[varies], counts[varies], feature[varies]
        if len(counts) == 0:
            break
        segment = np.repeat(np.arange(len(counts)), counts)
        values = X[samples, feature[segment]]
        threshold = _draw_thresholds(values, counts, rng)

        # 2. Route every sample; children with enough samples are created.
        branch = np.where(np.isnan(values), MISSING,
                          np.where(values <= threshold[segment], LEFT, RIGHT))
        key = 3 * segment + branch                             # (node, branch)
        child_counts = np.bincount(key, minlength=3 * len(counts))
        created = child_counts >= min_samples_leaf
        child_ids = np.full(3 * len(counts), TREE_LEAF)
        child_ids[created] = n_nodes + np.arange(created.sum())
        n_nodes += int(created.sum())
        sums = np.stack([np.bincount(key, weights=Y[samples, c], minlength=3 * len(counts))
                         for c in range(Y.shape[1])], axis=1)
        kept = created[key]
        has_child = created.reshape(-1, 3).any(axis=1)         # else: stays a leaf
        links.append((node_ids[has_child], feature[has_child], threshold[has_child],
                      child_ids.reshape(-1, 3)[has_child]))
        levels.append((np.full(created.sum(), TREE_UNDEFINED),
                       np.full(created.sum(), float(TREE_UNDEFINED)),
                       sums[created] / child_counts[created, None], child_counts[created]))

        # 3. The next level: the created children, their samples grouped by child.
        order = np.argsort(key[kept], kind="stable")
        samples = samples[kept][order]
        node_ids, counts = child_ids[created], child_counts[created]
    return _assemble(levels, links, n_nodes)


def _assemble(levels, links, n_nodes):
    """The ``RandomTree`` from the nodes of every level and the splits made."""
    feature, threshold, value, counts = (np.concatenate(part) for part in zip(*levels))
    feature = feature.astype(np.intp)
    children = np.full((n_nodes, 3), TREE_LEAF, dtype=np.intp)
    for ids, split_feature, split_threshold, child_ids in links:
        feature[ids], threshold[ids], children[ids] = split_feature, split_threshold, child_ids
    return RandomTree(feature=feature, threshold=threshold, children=children, value=value,
                      n_node_samples=counts.astype(np.intp))


def _segment_starts(counts):
    starts = np.zeros(len(counts), dtype=np.intp)
    np.cumsum(counts[:-1], out=starts[1:])
    return starts


def _draw_features(X, samples, counts, rng, draws=FEATURE_DRAWS):
    """A random feature per node, uniform among the features with at least two
    different (non-missing) values in it; -1 for a node where none has.

    Rejection sampling: draw a feature for every node and keep it if it varies in the
    node (one gather of the node's values, O(n_node)); redraw for the others, up to
    ``draws`` times.  The few nodes still without a feature then look at all their
    features at once (O(f n_node)) and draw among those that vary.  Either way the
    feature is uniform among the varying ones.
    """
    n_features = X.shape[1]
    starts = _segment_starts(counts)
    feature = np.full(len(counts), -1)
    open_nodes = np.arange(len(counts))
    for _ in range(draws):
        if len(open_nodes) == 0:
            return feature
        candidate = rng.integers(n_features, size=len(open_nodes))
        rows, local_starts = _rows_of(samples, starts, counts, open_nodes)
        values = X[rows, np.repeat(candidate, counts[open_nodes])]
        varies = (np.fmax.reduceat(values, local_starts)
                  > np.fmin.reduceat(values, local_starts))
        feature[open_nodes[varies]] = candidate[varies]
        open_nodes = open_nodes[~varies]
    if len(open_nodes):
        rows, local_starts = _rows_of(samples, starts, counts, open_nodes)
        block = X[rows]
        with np.errstate(invalid="ignore"):
            varies = (np.fmax.reduceat(block, local_starts, axis=0)
                      > np.fmin.reduceat(block, local_starts, axis=0))
        keys = np.where(varies, rng.random(varies.shape), -1.0)   # uniform among varying
        choice = np.argmax(keys, axis=1)
        feature[open_nodes] = np.where(varies.any(axis=1), choice, -1)
    return feature


def _rows_of(samples, starts, counts, nodes):
    """The samples of ``nodes`` (one after the other) and where each node's begin."""
    sizes = counts[nodes]
    local_starts = _segment_starts(sizes)
    positions = np.arange(sizes.sum()) + np.repeat(starts[nodes] - local_starts, sizes)
    return samples[positions], local_starts


def _draw_thresholds(values, counts, rng):
    """For every node, the midpoint of two different values of its drawn feature.

    ``values``: the feature's value for every sample, node after node (``counts``).
    The first value is that of a non-missing sample drawn at random, the second that of
    a sample drawn at random among those with a different, non-missing value.  O(n).
    """
    starts = _segment_starts(counts)
    segment = np.repeat(np.arange(len(counts)), counts)
    present = ~np.isnan(values)
    first = values[_draw_one(present, starts, rng)]
    other = present & (values != first[segment])
    second = values[_draw_one(other, starts, rng)]
    return midpoint(np.minimum(first, second), np.maximum(first, second))


def _draw_one(mask, starts, rng):
    """Position of one True entry of ``mask`` drawn uniformly in every segment (each
    segment has at least one).  The r-th True of a segment is found with one cumulative
    count and ``np.searchsorted``.  O(n)."""
    running = np.cumsum(mask)
    before = np.where(starts > 0, running[starts - 1], 0)
    in_segment = np.add.reduceat(mask, starts)
    r = np.minimum(np.floor(rng.random(len(starts)) * in_segment), in_segment - 1)
    return np.searchsorted(running, before + r.astype(np.intp) + 1)
