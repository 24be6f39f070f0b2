"""Which splits to keep: minimal cost-complexity pruning (Breiman et al., 1984, ch. 3),
as scikit-learn's ``ccp_alpha`` and ``cost_complexity_pruning_path`` define it.

The cost of a node.  A node t holding total sample weight W(t) out of W at the root, of
impurity I(t), costs R(t) = W(t) I(t) / W: its impurity weighted by its share of the
training weight (for squared error, the node's sum of squared deviations over W).  A tree
T costs R(T), the sum of R over its leaves, and, for a complexity parameter alpha >= 0,

    R_alpha(T) = R(T) + alpha |leaves(T)|:

every leaf is charged alpha.  A larger tree fits better (R(T) falls as leaves are added)
but pays for its leaves.

The weakest link.  Collapse the branch T_t below an internal node t into the leaf t: R
rises by R(t) - R(T_t) (the impurity the branch's splits removed, >= 0 for an impurity
that splits never raise), and |leaves(T_t)| - 1 leaves are saved, so R_alpha changes by

    R(t) - R(T_t) - alpha (|leaves(T_t)| - 1),

which is <= 0 exactly when alpha >= g(t) = (R(t) - R(T_t)) / (|leaves(T_t)| - 1).  g(t)
is the impurity the branch removes per leaf it adds: the alpha at which keeping the branch
stops paying.  The weakest link is the internal node of smallest g: as alpha grows from 0
it is the first branch worth collapsing.  Collapse it, update g of its ancestors (their
branches lost leaves and gained impurity; no other node's g changes), and repeat until the
root is a leaf.  This yields nested subtrees T_0 (the full tree) > T_1 > ... > {root} and
the effective alphas alpha_0 = 0 <= alpha_1 <= ...; Breiman et al. show that T_k is the
smallest subtree minimising R_alpha for every alpha in [alpha_k, alpha_{k+1}).  The path
lists the alphas with R(T_k), the total leaf impurity of each subtree.

scikit-learn's rules, followed to the bit: R(t) is computed as ``W(t) * I(t) / W``; the
leaves' costs are summed into every ancestor in order of the leaves' node ids; one branch
is collapsed per step, the lowest node id among equal g (so equal alphas repeat in the
path); ``prune(tree, alpha)`` collapses while the weakest link's g is <= alpha.  The trees
are CART trees: every split has a left and a right child (a random decision tree's are
refused).
"""

import heapq
import numbers
from typing import NamedTuple

import numpy as np

from treelib.tree import TREE_LEAF, TREE_UNDEFINED, Tree

__all__ = ["PruningPath", "collapse", "cost_complexity", "node_costs", "prune",
           "pruning_path"]


class PruningPath(NamedTuple):
    """The minimal cost-complexity sequence of a tree, one entry per subtree T_k:
    ``ccp_alphas`` (the effective alpha at which T_k takes over, 0 for the full tree),
    ``impurities`` (R(T_k), the total leaf cost), ``nodes`` (the node collapsed to reach
    T_k from T_{k-1}; -1 for the full tree) and ``n_leaves`` (leaves of T_k)."""

    ccp_alphas: np.ndarray
    impurities: np.ndarray
    nodes: np.ndarray
    n_leaves: np.ndarray


def check_cart(tree):
    """``tree`` itself, or a ValueError if a split lacks its left or right child or has a
    missing-value child of its own, or the root's weight is not positive.  O(nodes)."""
    split = ~tree.is_leaf
    left, right = tree.children_left[split], tree.children_right[split]
    missing = tree.children_missing[split]
    if (left == TREE_LEAF).any() or (right == TREE_LEAF).any() or not np.all(
            (missing == left) | (missing == right)):
        raise ValueError("cost-complexity pruning needs a CART tree (every split with a "
                         "left and a right child, missing values sent to one of them); "
                         "a random decision tree's splits are not")
    if not tree.weighted_n_node_samples[0] > 0:
        raise ValueError("cost-complexity pruning needs a root of positive weight; got "
                         f"{tree.weighted_n_node_samples[0]!r}")
    return tree


def node_costs(tree):
    """R(t) = W(t) I(t) / W of every node: its impurity weighted by its share of the
    root's sample weight (scikit-learn's order of operations).  O(nodes)."""
    w = tree.weighted_n_node_samples
    return w * tree.impurity / w[0]


def cost_complexity(tree, alpha):
    """R_alpha(T) = R(T) + alpha |leaves(T)| of the whole ``tree``: its leaves' costs
    (``node_costs``) plus alpha per leaf.  O(nodes)."""
    return float(node_costs(tree)[tree.is_leaf].sum()) + alpha * tree.n_leaves


def parents(tree):
    """The parent of every node of a CART tree (-1 for the root).  O(nodes)."""
    parent = np.full(tree.node_count, -1, dtype=np.intp)
    split = np.flatnonzero(~tree.is_leaf)
    parent[tree.children_left[split]] = split
    parent[tree.children_right[split]] = split
    return parent


def branch_sums(tree, cost, parent):
    """R(T_t) and |leaves(T_t)| of every node t: each leaf's cost added into the leaf and
    every ancestor, the leaves taken in order of their ids (scikit-learn's order of the
    additions, so the sums are its sums bit for bit); a leaf counts 0 leaves below it, as
    in scikit-learn.  The (ancestor, leaf) pairs are made for runs of consecutive leaves
    whose depths add up to about ``node_count``: O(sum of the leaves' depths) time,
    O(nodes) memory."""
    n = tree.node_count
    leaves = np.flatnonzero(tree.is_leaf)
    branch = np.zeros(n)
    branch[leaves] = cost[leaves]
    n_below = np.zeros(n, dtype=np.intp)
    depth = tree.node_depth()[leaves]
    run = (np.cumsum(depth) - depth) // n                 # leaves in id order, in runs
    for chunk in np.split(leaves, np.flatnonzero(np.diff(run)) + 1):
        above, below = [], []                  # (ancestor, leaf) pairs, level by level
        node, leaf = parent[chunk], chunk
        while node.size:
            keep = node != -1
            node, leaf = node[keep], leaf[keep]
            above.append(node)
            below.append(leaf)
            node = parent[node]
        above, below = np.concatenate(above), np.concatenate(below)
        order = np.argsort(below, kind="stable")      # every ancestor's leaves in id order
        np.add.at(branch, above[order], cost[below[order]])   # unbuffered: added in order
        n_below += np.bincount(above, minlength=n)
    return branch, n_below


class Step(NamedTuple):
    """A subtree of the sequence: the effective ``alpha`` at which it takes over, the
    ``node`` collapsed to reach it (-1 for the full tree), its total leaf cost
    ``impurity`` and its number of leaves."""

    alpha: float
    node: int
    impurity: float
    n_leaves: int


def collapse_branch(t, internal, left, right):
    """Mark node ``t`` and its descendants still in the subtree as no longer internal.
    O(nodes of the branch)."""
    stack = [t]
    while stack:
        node = stack.pop()
        if internal[node]:
            internal[node] = False
            stack += [left[node], right[node]]


def weakest_links(tree):
    """Yield the full tree's ``Step``, then collapse the weakest link (smallest g(t),
    lowest id on ties) again and again until the root is a leaf, yielding a ``Step``
    after each collapse.

    A heap holds (g(t), t) for the internal nodes; a collapse pushes the new g of each
    ancestor, and an entry whose g is no longer its node's is skipped when it comes up.
    The arithmetic is scikit-learn's, in Python floats (IEEE doubles, as its C doubles).
    Each node leaves the subtree once and each collapse walks up its ancestors (the
    collapsed nodes' depths add up to less than the leaves'): O(nodes log nodes + sum of
    the leaves' depths) time, O(nodes) memory (scikit-learn rescans every node per
    collapse: O(nodes x collapses))."""
    check_cart(tree)
    cost, parent = node_costs(tree), parents(tree)
    branch, n_below = (part.tolist() for part in branch_sums(tree, cost, parent))
    cost, parent = cost.tolist(), parent.tolist()
    left, right = tree.children_left.tolist(), tree.children_right.tolist()
    internal = (~tree.is_leaf).tolist()         # internal nodes of the current subtree

    def g(t):
        return (cost[t] - branch[t]) / (n_below[t] - 1)

    heap = [(g(t), t) for t in range(tree.node_count) if internal[t]]
    heapq.heapify(heap)
    leaves = tree.n_leaves
    yield Step(0.0, -1, branch[0], leaves)
    while internal[0]:
        alpha, t = heapq.heappop(heap)
        if not internal[t] or alpha != g(t):       # collapsed already, or a stale g
            continue
        collapse_branch(t, internal, left, right)
        lost, rise = n_below[t] - 1, cost[t] - branch[t]
        n_below[t], branch[t], leaves = 0, cost[t], leaves - lost
        node = parent[t]
        while node != -1:                          # only the ancestors' g change
            n_below[node] -= lost
            branch[node] += rise
            heapq.heappush(heap, (g(node), node))
            node = parent[node]
        yield Step(alpha, t, branch[0], leaves)


def pruning_path(tree):
    """The ``PruningPath`` of ``tree``: every subtree of the weakest-link sequence, with its
    effective alpha and total leaf cost (scikit-learn's ``ccp_pruning_path``, bit for
    bit on the same tree).  O(nodes log nodes + sum of the leaves' depths) time, O(nodes)
    memory."""
    alphas, nodes, impurities, n_leaves = zip(*weakest_links(tree))
    return PruningPath(np.array(alphas), np.array(impurities), np.array(nodes, dtype=np.intp),
                       np.array(n_leaves, dtype=np.intp))


def check_alpha(ccp_alpha):
    """``ccp_alpha`` as a float if it is a number >= 0, else a ValueError naming it.  O(1)."""
    if (not isinstance(ccp_alpha, numbers.Real) or isinstance(ccp_alpha, bool)
            or not ccp_alpha >= 0):
        raise ValueError(f"ccp_alpha must be a number >= 0.0; got {ccp_alpha!r}")
    return float(ccp_alpha)


def prune(tree, ccp_alpha):
    """The subtree of ``tree`` that minimal cost-complexity pruning keeps for
    ``ccp_alpha``: weakest links are collapsed while their g is <= ``ccp_alpha``
    (scikit-learn's ``_build_pruned_tree_ccp``; note that its estimators skip pruning
    altogether at ``ccp_alpha=0``, where this still collapses branches whose g is <= 0).
    A new compact ``Tree`` (``collapse``).  O(nodes log nodes + sum of the leaves'
    depths)."""
    ccp_alpha = check_alpha(ccp_alpha)
    collapsed = []
    for step in weakest_links(tree):
        if step.alpha > ccp_alpha:
            break
        collapsed.append(step.node)
    return collapse(tree, collapsed[1:])           # (the first step is the full tree)


def kept_nodes(tree, leaf):
    """Which nodes are reachable from the root through non-``leaf`` nodes.  O(nodes)."""
    keep = np.zeros(tree.node_count, dtype=bool)
    level = np.array([0])
    while level.size:
        keep[level] = True
        level = level[~leaf[level]]
        level = np.concatenate([tree.children_left[level], tree.children_right[level]])
    return keep


def collapse(tree, nodes):
    """``tree`` with the branches below ``nodes`` cut off: each of ``nodes`` becomes a leaf
    (its value, impurity and sample counts kept), its descendants are dropped, and the
    remaining nodes are renumbered in their old order (a depth-first tree stays depth
    first, as scikit-learn's pruned trees are).  Predictions are those of the pruned
    subtree.  A new ``Tree``; O(nodes)."""
    leaf = tree.is_leaf.copy()
    leaf[np.asarray(nodes, dtype=np.intp)] = True
    keep = kept_nodes(tree, leaf)
    new_id = np.cumsum(keep) - 1
    split = ~leaf[keep]

    def child(ids):
        return np.where(split, new_id[ids[keep]], TREE_LEAF)

    def test(values, undefined):
        return np.where(split, values[keep], undefined).astype(values.dtype)

    return Tree(children_left=child(tree.children_left),
                children_right=child(tree.children_right),
                children_missing=child(tree.children_missing),
                feature=test(tree.feature, TREE_UNDEFINED),
                threshold=test(tree.threshold, float(TREE_UNDEFINED)),
                value=tree.value[keep], impurity=tree.impurity[keep],
                n_node_samples=tree.n_node_samples[keep],
                weighted_n_node_samples=tree.weighted_n_node_samples[keep],
                categorical=tree.categorical[keep] & split,
                category_bits=np.where(split[:, None], tree.category_bits[keep], 0)
                .astype(tree.category_bits.dtype))
