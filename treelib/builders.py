"""Tree builders: the order in which nodes are grown.

A builder knows nothing about how a split is found: it receives ``find_split``, a
function ``(X_node, Y_node) -> Split or None`` (see ``make_split_finder``), and decides
which node to split next and when to stop.  ``Y`` holds the per-sample statistics of
``treelib.splits.targets_as_statistics``: the target as one column for squared error,
the one-hot classes for Gini and entropy.  Each node's ``value`` is the mean of its
rows of ``Y``: the mean target, or the class proportions.

Three growth orders live here, each a short function:

- ``build_recursive``    depth first by recursion, the textbook version;
- ``build_depth_first``  depth first with an explicit stack (scikit-learn's default);
- ``build_best_first``   the most useful split first, from a priority heap (needed for
  ``max_leaf_nodes``).

The fourth, ``treelib.levelwise.build_level_wise``, grows a whole level at once and
finds its splits itself, fully vectorized.  All four grow the same tree whenever the
stopping rules do not depend on the order (no ``max_leaf_nodes``).
"""

import dataclasses
import heapq
from dataclasses import dataclass

import numpy as np

from treelib.criteria import node_impurity
from treelib.splits import best_split, check_method
from treelib.tree import TREE_LEAF, TreeRecorder

#: scikit-learn's tolerance in ``min_impurity_decrease`` (``improvement + EPSILON <
#: min_impurity_decrease`` makes a leaf).
EPSILON = np.finfo(np.float64).eps


def is_leaf_by_rule(n_samples, depth, impurity, *, max_depth, min_samples_split,
                    min_samples_leaf):
    """scikit-learn's stopping rules, checked before a node's split is searched.

    (scikit-learn tests ``impurity <= EPSILON``; treelib's impurity of a constant node
    is exactly 0, so it tests for 0.)  Works on one node or, with arrays of sizes and
    impurities, on many at once."""
    return ((depth >= max_depth) | (n_samples < min_samples_split)
            | (n_samples < 2 * min_samples_leaf) | (impurity <= 0.0))


@dataclass(frozen=True)
class StoppingRules:
    """scikit-learn's rules for when a node stays a leaf.

    A node is a leaf if its depth reached ``max_depth``, it holds fewer than
    ``min_samples_split`` or ``2 * min_samples_leaf`` samples, it is pure (impurity 0),
    it has no candidate split, or its best split's improvement ``gain / n_total`` (the
    impurity decrease weighted by the node's share of the training set) is below
    ``min_impurity_decrease``.
    """

    max_depth: float = np.inf
    min_samples_split: int = 2
    min_samples_leaf: int = 1
    min_impurity_decrease: float = 0.0

    def is_leaf_before_search(self, n_samples, depth, impurity):
        return is_leaf_by_rule(n_samples, depth, impurity, max_depth=self.max_depth,
                               min_samples_split=self.min_samples_split,
                               min_samples_leaf=self.min_samples_leaf)

    def rejects(self, split, n_total):
        return split is None or split.gain / n_total + EPSILON < self.min_impurity_decrease


def node_search(method="cumsum", criterion="squared_error", min_samples_leaf=1, rng=None,
                n_bins=None):
    """The search of one node, ``search(X_node, Y_node) -> Split or None``, for a method.

    ``"naive"``, ``"scan"``, ``"cumsum"``: the exact finders of ``treelib.splits``;
    ``"hist"``: ``treelib.histogram.best_histogram_split`` on bin codes (``n_bins``
    bins; the builder then receives codes instead of X); ``"random"``:
    ``treelib.random_splits.random_split`` with thresholds drawn from ``rng``.
    """
    if method == "hist":
        from treelib.histogram import best_histogram_split

        if n_bins is None:
            raise ValueError("the 'hist' search needs n_bins, the number of bins")
        return lambda codes, Y: best_histogram_split(codes, Y, n_bins, criterion,
                                                     min_samples_leaf)
    if method == "random":
        from treelib.random_splits import random_split

        if rng is None:
            raise ValueError("the 'random' search needs rng, a numpy.random.Generator")
        return lambda X, Y: random_split(X, Y, rng, criterion, min_samples_leaf)
    check_method(method)
    return lambda X, Y: best_split(X, Y, method, criterion=criterion,
                                   min_samples_leaf=min_samples_leaf, check_input=False)


def make_split_finder(method="cumsum", criterion="squared_error", min_samples_leaf=1,
                      max_features=None, rng=None, n_bins=None):
    """A ``find_split(X_node, Y_node)`` for the builders: ``node_search``'s search of
    ``method``, over all the features or, with ``max_features``, a random subset.

    With ``max_features`` set (fewer than all features), each node looks at features in
    a random order (from ``rng``, a ``numpy.random.Generator``) and searches the first
    ``max_features`` of them that are not constant in the node, as scikit-learn does;
    ties among them still go to the lowest feature index.
    """
    search = node_search(method, criterion, min_samples_leaf, rng, n_bins)

    def find_split(X_node, Y_node):
        n_features = X_node.shape[1]
        if max_features is None or max_features >= n_features:
            return search(X_node, Y_node)
        varies = X_node.max(axis=0) > X_node.min(axis=0)
        visit = rng.permutation(n_features)
        chosen = np.sort(visit[varies[visit]][:max_features])
        if len(chosen) == 0:
            return None
        split = search(X_node[:, chosen], Y_node)
        if split is None:
            return None
        return dataclasses.replace(split, feature=int(chosen[split.feature]))

    return find_split


def evaluate_node(X, Y, samples, depth, criterion, find_split, rules, n_total):
    """What every builder does at a node: its value and impurity, and its split unless
    a stopping rule makes it a leaf.  Returns ``(value, impurity, split or None)``.
    O(n_node k) plus one call of ``find_split``."""
    Y_node = Y[samples]
    value, impurity = Y_node.mean(axis=0), node_impurity(Y_node, criterion)
    if rules.is_leaf_before_search(len(samples), depth, impurity):
        return value, impurity, None
    split = find_split(X[samples], Y_node)
    return value, impurity, None if rules.rejects(split, n_total) else split


def _children(X, samples, split):
    goes_left = split.goes_left(X[samples])
    return samples[goes_left], samples[~goes_left]


def build_recursive(X, Y, find_split, criterion="squared_error", rules=StoppingRules()):
    """Grow a tree depth first by recursion: split a node, then grow its left subtree,
    then its right one.

    The shortest correct builder, and the one in textbooks.  Node ids follow a
    pre-order walk.  Each node costs one ``find_split`` on its own samples plus
    O(n_node) to partition them.  Python's recursion limit (about 1,000 levels) bounds
    the depth: fine for balanced trees, not for a degenerate chain.
    """
    tree, n_total = TreeRecorder(), len(Y)

    def grow(samples, depth, parent, is_left):
        value, impurity, split = evaluate_node(X, Y, samples, depth, criterion,
                                               find_split, rules, n_total)
        node = tree.add_node(parent, is_left, value, impurity, len(samples))
        if split is not None:
            tree.set_split(node, split.feature, split.threshold)
            left, right = _children(X, samples, split)
            grow(left, depth + 1, node, True)
            grow(right, depth + 1, node, False)

    grow(np.arange(len(Y)), 0, TREE_LEAF, False)
    return tree.finish()


def build_depth_first(X, Y, find_split, criterion="squared_error", rules=StoppingRules()):
    """Grow a tree depth first with an explicit stack, as scikit-learn's default
    ``DepthFirstTreeBuilder`` does.

    The right child is pushed before the left one, so the left subtree is grown first
    and node ids follow the same pre-order walk as ``build_recursive``; the stack
    replaces recursion, so there is no depth limit.  Same cost per node.
    """
    tree, n_total = TreeRecorder(), len(Y)
    stack = [(np.arange(len(Y)), 0, TREE_LEAF, False)]
    while stack:
        samples, depth, parent, is_left = stack.pop()
        value, impurity, split = evaluate_node(X, Y, samples, depth, criterion,
                                               find_split, rules, n_total)
        node = tree.add_node(parent, is_left, value, impurity, len(samples))
        if split is not None:
            tree.set_split(node, split.feature, split.threshold)
            left, right = _children(X, samples, split)
            stack.append((right, depth + 1, node, False))
            stack.append((left, depth + 1, node, True))
    return tree.finish()


def build_best_first(X, Y, find_split, criterion="squared_error", rules=StoppingRules(),
                     max_leaf_nodes=None):
    """Grow a tree best first: always split the leaf whose split gains the most.

    Every leaf of the growing tree waits in a priority heap, keyed by the gain of its
    best split (found when the leaf is created).  Popping the heap splits the most
    useful leaf; its two children are evaluated and pushed.  With ``max_leaf_nodes``
    the growth stops after ``max_leaf_nodes - 1`` splits, so the tree keeps the most
    useful splits anywhere in it, which is what scikit-learn's ``BestFirstTreeBuilder``
    does.  Equal gains pop in the order the leaves were created.  Node ids are given
    in order of creation (children when their parent is split): the s-th split creates
    nodes 2s + 1 and 2s + 2, so the tree grown with ``max_leaf_nodes=k`` is the first
    2k - 1 nodes of the unlimited one.  Each node costs one ``find_split`` plus
    O(log leaves) for the heap.
    """
    tree, n_total = TreeRecorder(), len(Y)
    splits_left = np.inf if max_leaf_nodes is None else max_leaf_nodes - 1
    heap, created = [], 0

    def add(samples, depth, parent, is_left):
        nonlocal created
        value, impurity, split = evaluate_node(X, Y, samples, depth, criterion,
                                               find_split, rules, n_total)
        node = tree.add_node(parent, is_left, value, impurity, len(samples))
        if split is not None:
            heapq.heappush(heap, (-split.gain, created, node, samples, depth, split))
        created += 1

    add(np.arange(len(Y)), 0, TREE_LEAF, False)
    while heap and splits_left > 0:
        _, _, node, samples, depth, split = heapq.heappop(heap)
        tree.set_split(node, split.feature, split.threshold)
        left, right = _children(X, samples, split)
        add(left, depth + 1, node, True)
        add(right, depth + 1, node, False)
        splits_left -= 1
    return tree.finish()


BUILDERS = {"recursive": build_recursive, "depth": build_depth_first,
            "best": build_best_first}
