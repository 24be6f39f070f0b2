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

Cost: each level looks at every active sample a constant number of times to draw a
threshold and route it, so a tree costs **O(depth x n)** plus the stable sort that groups
each level's samples by node (O(n log n) numpy work per level), plus the search for a
feature that varies: a drawn feature is checked on the node's samples, and a node where
eight draws found none checks all its features at once, O(f n_node).  On sparse data
such as a9a (123 binary features, most of them constant in a small node) that search
grows with the number of features: chapter 12 measures 2.75x the time for 8x the
features.  Seed article 001's O(m d n) holds in n and d, not independently of f.
"""

from dataclasses import KW_ONLY, dataclass

import numpy as np

from treelib.criteria import check_criterion, node_statistics
from treelib.growth.rules import without_zero_weights
from treelib.options import check
from treelib.segments import segment_ids, segment_starts
from treelib.split import midpoint
from treelib.tree import LEFT, MISSING, RIGHT, TreeRecorder
from treelib.validation import check_min_samples_leaf

#: Draws of a random feature before a node's features are checked all at once.
FEATURE_DRAWS = 8


@dataclass(frozen=True)
class RandomTreeRule:
    """How a random decision tree draws its nodes: it searches nothing, so it needs no
    ``treelib.finders.Finder``.

    ``criterion`` names the impurity the tree records, ``"gini"`` or ``"squared_error"``
    (it chooses nothing); ``rng`` (a ``numpy.random.Generator``) draws every feature and
    threshold; ``min_samples_leaf`` is the least number of training samples for which a
    child is created (a node is split only if it holds at least twice as many).  Checked
    when created (a ValueError names the problem).  O(1).
    """

    criterion: str
    _: KW_ONLY
    rng: np.random.Generator
    min_samples_leaf: int = 1

    def __post_init__(self):
        check_criterion(self.criterion)
        check(splitter="random_tree", criterion=self.criterion)
        check_min_samples_leaf(self.min_samples_leaf)
        if not isinstance(self.rng, np.random.Generator):
            raise ValueError("random decision trees draw at random: give rng, a "
                             f"numpy.random.Generator; got {self.rng!r}")


@dataclass
class ActiveNodes:
    """The nodes of a level that may split: their ids in the tree, their samples (node
    after node) and how many each holds."""

    node_ids: np.ndarray     # (m,)
    samples: np.ndarray      # (n_d,) sample ids, grouped by node
    counts: np.ndarray       # (m,)

    def keep(self, mask):
        """The nodes ``mask`` (m,) and their samples.  O(n_d)."""
        return ActiveNodes(node_ids=self.node_ids[mask],
                           samples=self.samples[np.repeat(mask, self.counts)],
                           counts=self.counts[mask])


def grow_random_tree(X, Y, rule, rules, counter=None, weights=None):
    """Grow one random decision tree, level by level.

    ``X`` (n, f) holds the features, NaN marking a missing value; ``Y`` (n, k) the
    per-sample statistics whose means the nodes keep (the one-hot classes, or the target
    as one column); ``rule`` a ``RandomTreeRule``: its ``rng`` draws every feature and
    threshold, its ``min_samples_leaf`` is the least number of training samples for which
    a child is created (a node is split only if it holds at least twice as many), and its
    criterion names the impurity the tree records.  ``rules.max_depth`` limits the depth
    (``rules.max_leaf_nodes`` must be None).  ``counter`` (a ``GrowthCounter``) records
    the nodes drawn; ``weights`` (n,) optional sample weights, a weight of 0 the same as
    leaving the sample out (as in ``treelib.growth.grow``).  Nodes are numbered breadth
    first.

    Per level, with n_d samples in the nodes that may split: O(n_d) to draw a feature per
    node (more where few features vary, ``draw_features``), O(n_d) to draw the
    thresholds (``draw_thresholds``), O(n_d) to route the samples and O(n_d k) for the
    children's statistics, plus the stable sort that groups the samples by child
    (``split_level``).  O(depth) Python iterations.
    """
    if not isinstance(rule, RandomTreeRule):
        raise ValueError(f"grow_random_tree needs a RandomTreeRule; got {rule!r}")
    check(builder="level_wise", splitter="random_tree", max_leaf_nodes=rules.max_leaf_nodes)
    X, Y, weights = without_zero_weights(X, Y, weights)
    tree = TreeRecorder()
    root = node_statistics(Y, [len(Y)], rule.criterion, weights)
    level = ActiveNodes(
        node_ids=tree.add_nodes(root.value, root.impurity, [len(Y)], weight=root.weight),
        samples=np.arange(len(Y)), counts=np.array([len(Y)]))
    depth = 0
    while rules.max_depth is None or depth < rules.max_depth:
        level, feature = nodes_to_split(X, level, rule)
        if level is None:
            break
        if counter is not None:
            counter.searched(depth, len(level.counts), len(level.samples))
        level = split_level(X, (Y, weights), level, feature, rule, tree)
        depth += 1
    return tree.finish()


def nodes_to_split(X, level, rule):
    """The nodes of ``level`` that split, and the feature each draws: those with at least
    twice ``rule.min_samples_leaf`` samples and a feature that varies in them
    (``draw_features``).  ``(None, None)`` when no node splits.  O(n_d), more where few
    features vary."""
    level = level.keep(level.counts >= 2 * rule.min_samples_leaf)
    if len(level.counts) == 0:
        return None, None
    feature = draw_features(X, level.samples, level.counts, rule.rng)
    varies = feature >= 0
    level = level.keep(varies)
    if len(level.counts) == 0:
        return None, None
    return level, feature[varies]


def split_level(X, targets, level, feature, rule, tree):
    """Split every node of ``level`` on its drawn ``feature`` at a random threshold
    (``draw_thresholds``) and record the splits and the children in ``tree``: a child,
    ``x <= threshold``, ``x > threshold`` or ``x`` missing, is created when at least
    ``rule.min_samples_leaf`` samples reach it; its statistics come from ``targets`` =
    (Y, weights).  Returns the children as the next ``ActiveNodes``.  O(n_d k) plus the
    stable sort that groups the samples by child."""
    Y, weights = targets
    segment = segment_ids(level.counts)
    values = X[level.samples, feature[segment]]
    threshold = draw_thresholds(values, level.counts, rule.rng)
    branch = np.where(np.isnan(values), MISSING,
                      np.where(values <= threshold[segment], LEFT, RIGHT))
    key = 3 * segment + branch                              # (node, branch)
    child_counts = np.bincount(key, minlength=3 * len(level.counts))
    created = child_counts >= rule.min_samples_leaf
    kept = created[key]
    order = np.argsort(key[kept], kind="stable")            # samples grouped by child
    samples = level.samples[kept][order]
    counts = child_counts[created]
    child = node_statistics(Y[samples], counts, rule.criterion,
                            None if weights is None else weights[samples])
    parents = np.repeat(level.node_ids, 3)[created]
    node_ids = tree.add_nodes(child.value, child.impurity, counts, parents,
                              np.tile([LEFT, RIGHT, MISSING], len(level.node_ids))[created],
                              child.weight)
    has_child = created.reshape(-1, 3).any(axis=1)          # else: stays a leaf
    tree.set_splits(np.unique(parents), feature[has_child], threshold[has_child])
    return ActiveNodes(node_ids=node_ids, samples=samples, counts=counts)



def draw_features(X, samples, counts, rng, draws=FEATURE_DRAWS):
    """A random feature per node, uniform among the features with at least two
    different (non-missing) values in it; -1 for a node where none has.

    Rejection sampling: draw a feature for every node and keep it if it varies in the
    node (one gather of the node's values, O(n_node)); redraw for the others, up to
    ``draws`` times.  The few nodes still without a feature then look at all their
    features at once (O(f n_node)) and draw among those that vary.  Either way the
    feature is uniform among the varying ones.
    """
    n_features = X.shape[1]
    starts = segment_starts(counts)
    feature = np.full(len(counts), -1)
    open_nodes = np.arange(len(counts))
    for _ in range(draws):
        if len(open_nodes) == 0:
            return feature
        candidate = rng.integers(n_features, size=len(open_nodes))
        rows, local_starts = rows_of(samples, starts, counts, open_nodes)
        values = X[rows, np.repeat(candidate, counts[open_nodes])]
        varies = (np.fmax.reduceat(values, local_starts)
                  > np.fmin.reduceat(values, local_starts))
        feature[open_nodes[varies]] = candidate[varies]
        open_nodes = open_nodes[~varies]
    if len(open_nodes):
        rows, local_starts = rows_of(samples, starts, counts, open_nodes)
        block = X[rows]
        with np.errstate(invalid="ignore"):
            varies = (np.fmax.reduceat(block, local_starts, axis=0)
                      > np.fmin.reduceat(block, local_starts, axis=0))
        keys = np.where(varies, rng.random(varies.shape), -1.0)   # uniform among varying
        choice = np.argmax(keys, axis=1)
        feature[open_nodes] = np.where(varies.any(axis=1), choice, -1)
    return feature


def rows_of(samples, starts, counts, nodes):
    """The samples of ``nodes`` (one after the other) and where each node's begin.  O(their
    samples)."""
    sizes = counts[nodes]
    local_starts = segment_starts(sizes)
    positions = np.arange(sizes.sum()) + np.repeat(starts[nodes] - local_starts, sizes)
    return samples[positions], local_starts


def draw_thresholds(values, counts, rng):
    """For every node, the midpoint of two different values of its drawn feature.

    ``values``: the feature's value for every sample, node after node (``counts``).
    The first value is that of a non-missing sample drawn at random, the second that of
    a sample drawn at random among those with a different, non-missing value.  O(n).
    """
    starts = segment_starts(counts)
    segment = np.repeat(np.arange(len(counts)), counts)
    present = ~np.isnan(values)
    first = values[draw_one(present, starts, rng)]
    other = present & (values != first[segment])
    second = values[draw_one(other, starts, rng)]
    return midpoint(np.minimum(first, second), np.maximum(first, second))


def draw_one(mask, starts, rng):
    """Position of one True entry of ``mask`` drawn uniformly in every segment (each
    segment has at least one).  The r-th True of a segment is found with one cumulative
    count and ``np.searchsorted``.  O(n)."""
    running = np.cumsum(mask)
    before = np.where(starts > 0, running[starts - 1], 0)
    in_segment = np.add.reduceat(mask, starts)
    r = np.minimum(np.floor(rng.random(len(starts)) * in_segment), in_segment - 1)
    return np.searchsorted(running, before + r.astype(np.intp) + 1)
