"""``max_features`` level-wise: each node of a level searches its own random features.

The per-node growers draw a node's features when they reach it (``treelib.finders.Finder``:
a permutation of the features, the first ``max_features`` that vary in the node), so the
draws follow their order of visit: depth first, the left subtree before the right one.  A
level-wise grower meets the nodes in another order, breadth first, and cannot know how
many draws the nodes of a left subtree will take before it has grown that subtree: it
cannot reproduce those draws.  It follows its own contract instead, the same for the exact
and the histogram level-wise growers:

    the nodes that are searched (those no stopping rule makes leaves) take their draws
    breadth first, level after level, left to right; each takes the next ``f`` uniform
    numbers of the tree's generator (``finder.rng.random(f)``) as the *keys* of its ``f``
    features, and searches the ``max_features`` features of smallest key among those that
    vary in it (all of them if fewer vary; none: it is a leaf).

A level takes its keys in one call (``rng.random((m, f))`` fills row after row, so node p
of the level gets the same numbers as p calls of ``rng.random(f)`` would give); a batch of
trees grown together (``treelib.growth.level_batch``) takes one such call per tree, from
each tree's own generator (``level_keys``), so each tree takes the draws it takes alone.  Keys are
independent and uniform, so the order of the varying features by key is a uniformly random
permutation and each node searches a uniformly random subset of them, as the per-node
finder's permutation gives: the same distribution, other draws.  Among the features a
node searches, ties go to the lowest feature index, as always.

Costs per level of m nodes and f features: O(m f) for the keys and the choice
(``np.argpartition``), O(m k log k) to sort the k chosen features of each node.  Memory:
O(m f), below the level's own O(f n_active) rows (a node holds at least one sample).
"""

from dataclasses import replace

import numpy as np

from treelib.finders import feature_subset
from treelib.segments import segment_ids, segment_starts
from treelib.split import Candidates


def node_features(keys, varies, max_features):
    """The features each node searches: ``keys`` (m, f) its features' keys, ``varies``
    (m, f) whether each feature takes two values in it.  Returns ``features`` (m, k),
    k = ``max_features``, each row the chosen varying features in increasing order, then
    (when fewer than k vary) features that do not vary, and ``searched`` (m, k), which
    entries are chosen varying features.  O(m f + m k log k)."""
    m, f = keys.shape
    k = min(int(max_features), f)
    ranked = np.where(varies, keys, keys + 2.0)         # constant features after the others
    if k < f:
        chosen = np.argpartition(ranked, k - 1, axis=1)[:, :k]
    else:
        chosen = np.broadcast_to(np.arange(f), (m, f))
    searched = np.take_along_axis(varies, chosen, axis=1)
    # varying features first, each group in increasing feature order
    order = np.argsort(chosen + f * ~searched, axis=1, kind="stable")
    return (np.take_along_axis(chosen, order, axis=1),
            np.take_along_axis(searched, order, axis=1))


def draw_level(rng, varies, max_features):
    """``node_features`` of a level whose nodes' varying features are ``varies`` (m, f),
    with the level's keys drawn from ``rng`` (the contract of the module docstring).
    O(m f)."""
    return node_features(rng.random(varies.shape), varies, max_features)


def varying_sorted(x_sorted, counts):
    """Which features vary in each node, (m, f), from a level's rows ``x_sorted`` (f, p)
    sorted inside each node (``counts`` samples each): the node's last value above its
    first.  O(m f)."""
    ends = np.cumsum(counts)
    return (x_sorted[:, ends - 1] > x_sorted[:, ends - counts]).T


def varying_codes(codes, samples, counts):
    """Which features vary in each node, (m, f), from the bin ``codes`` (n, f) of the
    level's ``samples``, node after node (``counts`` each).  O(f n_level)."""
    starts = segment_starts(counts)
    rows = codes[samples]
    return (np.maximum.reduceat(rows, starts, axis=0)
            > np.minimum.reduceat(rows, starts, axis=0))


def gathered_rows(rows, counts, features):
    """The rows (f, p) of a level (the nodes one after the other, ``counts`` positions
    each) re-dealt by draw: row t holds, in each node's positions, that node's row of its
    t-th feature ``features[:, t]``.  (k, p), O(k p)."""
    segment = segment_ids(counts)
    return rows[features[segment].T, np.arange(rows.shape[1])]


def keep_drawn(candidates, drawn):
    """The ``Candidates`` whose node drew their feature (``drawn`` (m, f) booleans); the
    others are no candidates.  O(c)."""
    keep = np.flatnonzero(drawn[candidates.node, candidates.feature])
    return Candidates(gains=candidates.gains[keep], node=candidates.node[keep],
                      feature=candidates.feature[keep], label=candidates.label[keep],
                      bounds_at=lambda at: candidates.bounds_at(keep[at]),
                      cap=candidates.cap)


def drawn_mask(features, searched, n_features):
    """(m, f) booleans: which features each node searches (``node_features``'s
    ``features`` where ``searched``).  O(m f)."""
    mask = np.zeros((len(features), n_features), dtype=bool)
    np.put_along_axis(mask, features, searched, axis=1)
    return mask


def some_features(finder, data):
    """``finder.max_features`` when it is fewer than the columns of ``data`` (each node
    then searches its own draw), else None (every node searches every feature).  O(1)."""
    return feature_subset(finder.max_features, data.shape[1])


def level_keys(rngs, tree, shape):
    """The keys ``shape`` = (m, f) of a level's m searched nodes, node s of tree ``tree[s]``
    (increasing: the trees' nodes one block after the other), each tree's block from its
    own generator ``rngs[t]`` in one call (``rng.random((m_t, f))``, the numbers of m_t
    calls of ``rng.random(f)``): every tree takes the draws it takes grown alone.
    ``tree`` None: one tree.  O(m f) plus O(trees) calls."""
    if tree is None:
        return rngs[0].random(shape)
    per_tree = np.bincount(tree, minlength=len(rngs))
    return np.concatenate([rngs[t].random((per_tree[t], shape[1]))
                           for t in np.flatnonzero(per_tree)])


def redealt_level(level, draw, columns=None):
    """A level-wise ``Level`` as its nodes search it: with ``draw`` = (each tree's
    generator, max_features), a copy whose rows are re-dealt by each node's draw
    (``level_keys``, ``node_features``, ``gathered_rows``: k rows) and the (m, k)
    features drawn; without (None), the level itself and None.  A level that keeps no
    values (``x_sorted`` None) reads them from ``columns`` (f, n), every sample's values
    by id: its nodes' first and last values, then the k drawn rows'.  O(m f + k
    n_active)."""
    if draw is None:
        return level, None
    rngs, max_features = draw
    if level.x_sorted is None:
        ends = np.cumsum(level.counts)
        ends = np.concatenate([ends - level.counts, ends - 1])      # first, last of each
        x_ends = np.take_along_axis(columns, level.order[:, ends], axis=1)
        varies = (x_ends[:, len(level.counts):] > x_ends[:, :len(level.counts)]).T
    else:
        varies = varying_sorted(level.x_sorted, level.counts)
    chosen, _ = node_features(level_keys(rngs, level.tree, varies.shape), varies,
                              max_features)
    order = gathered_rows(level.order, level.counts, chosen)
    x_sorted = (gathered_rows(level.x_sorted, level.counts, chosen)
                if level.x_sorted is not None else
                columns[chosen[segment_ids(level.counts)].T, order])
    return replace(level, order=order, x_sorted=x_sorted), chosen


def drawn_codes(codes, samples, counts, draw):
    """The (m, f) mask of the features each node of a histogram level searches, from the
    bin ``codes`` of its ``samples`` (node after node, ``counts`` each), with ``draw`` =
    (rng, max_features); None without a draw (every feature).  O(f n_level)."""
    if draw is None:
        return None
    rng, max_features = draw
    chosen, searched = draw_level(rng, varying_codes(codes, samples, counts), max_features)
    return drawn_mask(chosen, searched, codes.shape[1])
