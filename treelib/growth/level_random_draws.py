"""Which features each node of a level-wise extra tree searches, examined in key order.

Under ``treelib.growth.level_random``'s draw contract with ``max_features`` k below the f
features, a node searches the k features of smallest key among those that vary in it
(``treelib.growth.level_features.node_features``).  Knowing which features vary from
every feature's minimum and maximum in every node costs O(f n_active) a level, most of it
for features no node will search.  Here each node examines its features in increasing
key order, k at first, then twice as many at each round, only until k of them vary (or
none is left), and a feature found constant in a node is known constant in its children
(they hold some of its samples) and is not examined again.  The features a node did not
examine have larger keys than the k varying ones it found, so ``node_features`` on what
is known (a feature not examined counts as constant) chooses what it chooses on every
feature's variation: the same features, and their ranges are the same numbers.

Costs per level of m nodes, f features, n_node samples in a node: O(m f) for the keys'
order and the masks, O(e n_node) for a node that examines e features (k when its first k
vary), in O(log(f / k)) rounds of numpy calls.  Memory: O(m f) masks and ranges, and the
examined values, O(e n_node) summed over the nodes of a round.
"""

import numpy as np

from treelib.growth.level_features import node_features
from treelib.segments import segment_starts


def drawn_features(level, columns, keys, max_features):
    """The features (m, k) each node of ``level`` (a ``RandomLevel``: its samples,
    node after node, ``counts`` each, and ``constant`` (m, f), the features known
    constant in each node, or None) searches under the contract, for the nodes' ``keys``
    (m, f), ``columns`` (f, n) the features (C order); with their smallest and largest
    values in each node (two (m, k) arrays) and the features now known constant in each
    node ((m, f) booleans, for its children).  O(m f + examined values)."""
    m, f = keys.shape
    k = int(max_features)
    known = (np.zeros((m, f), dtype=bool) if level.constant is None
             else level.constant.copy())
    constant, examined = known.copy(), np.zeros((m, f), dtype=bool)
    low, high = np.empty((m, f), columns.dtype), np.empty((m, f), columns.dtype)
    nodes, size = np.arange(m), k
    while len(nodes):
        size = min(size, f)
        ranked = np.where(known[nodes], np.inf, keys[nodes])       # examined ones last
        tried = (np.argpartition(ranked, size - 1, axis=1)[:, :size] if size < f else
                 np.broadcast_to(np.arange(f), (len(nodes), f)))
        rows = nodes[:, None]
        low[rows, tried], high[rows, tried] = node_ranges(level, columns, nodes, tried)
        constant[rows, tried] = high[rows, tried] <= low[rows, tried]
        known[rows, tried] = examined[rows, tried] = True
        varying = np.count_nonzero(known[nodes] & ~constant[nodes], axis=1)
        nodes = nodes[(varying < k) & ~known[nodes].all(axis=1)]
        size *= 2
    features, _ = node_features(keys, known & ~constant, k)
    rows = np.arange(m)[:, None]
    low, high = low[rows, features], high[rows, features]
    unseen = ~examined[rows, features]       # known constant from the parent: any sample
    if unseen.any():
        node, slot = np.nonzero(unseen)
        first = level.samples[segment_starts(level.counts)[node]]
        low[node, slot] = high[node, slot] = columns[features[node, slot], first]
    return features, low, high, constant


def node_ranges(level, columns, nodes, features):
    """The smallest and largest values (two (len(nodes), c) arrays) of ``features``
    (len(nodes), c), row r for node ``nodes[r]`` of ``level``, by segmented reductions
    over those nodes' samples.  O(c n_nodes)."""
    counts = level.counts[nodes]
    if len(nodes) == len(level.counts):
        samples = level.samples
    else:
        chosen = np.zeros(len(level.counts), dtype=bool)
        chosen[nodes] = True
        samples = level.samples[np.repeat(chosen, level.counts)]
    values = gathered(columns, samples, counts, features)                # (c, p)
    starts = segment_starts(counts)
    return (np.minimum.reduceat(values, starts, axis=1).T,
            np.maximum.reduceat(values, starts, axis=1).T)


def gathered(columns, samples, counts, features):
    """The values (c, p) of each node's own ``features`` (m, c) at its ``samples`` (the
    nodes one after the other, ``counts`` each): row t holds each node's t-th feature.
    O(c p)."""
    n = columns.shape[1]
    flat = np.repeat(features.T * n, counts, axis=1)
    flat += samples
    return np.take(columns.ravel(), flat)
