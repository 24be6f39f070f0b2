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
    node ((m, f) booleans, for its children).  Every node examines first its k features
    of smallest key (not known constant); the nodes where one of them is constant go on
    (``examined_in_order``).  O(m f + examined values)."""
    m, f = keys.shape
    k = int(max_features)
    ranked = keys if level.constant is None else np.where(level.constant, np.inf, keys)
    tried = np.argpartition(ranked, k - 1, axis=1)[:, :k]
    tried.sort(axis=1)
    low, high = node_ranges(level, columns, np.arange(m), tried)
    constant = (np.zeros((m, f), dtype=bool) if level.constant is None
                else level.constant.copy())
    rest = np.flatnonzero(~(high > low).all(axis=1))
    if len(rest):
        tried[rest], low[rest], high[rest], constant[rest] = examined_in_order(
            level, columns, (rest, keys[rest], constant[rest]),
            (tried[rest], low[rest], high[rest]))
    return tried, low, high, constant


def examined_in_order(level, columns, nodes, first):
    """``drawn_features`` for the ``nodes`` = (their indices in ``level``, their keys
    and their known constant features (r, f)) whose ``first`` = (k features of smallest
    key (r, k), their smallest and largest values) do not all vary: features examined
    k, then twice as many, ..., at a time in increasing key order, until k of them vary
    or none is left; the choice is ``node_features``'s on what is then known.  O(r f)
    per round."""
    nodes, keys, known = nodes
    r, f = keys.shape
    k = first[0].shape[1]
    constant, examined = known.copy(), np.zeros((r, f), dtype=bool)
    low, high = np.empty((r, f), columns.dtype), np.empty((r, f), columns.dtype)
    rows, tried = np.arange(r)[:, None], first[0]
    low[rows, tried], high[rows, tried] = first[1], first[2]
    constant[rows, tried] = first[2] <= first[1]
    known[rows, tried] = examined[rows, tried] = True
    varying = np.count_nonzero(known & ~constant, axis=1)
    pending, size = np.flatnonzero((varying < k) & ~known.all(axis=1)), k
    while len(pending):
        size = min(size, f)
        ranked = np.where(known[pending], np.inf, keys[pending])    # examined ones last
        tried = (np.argpartition(ranked, size - 1, axis=1)[:, :size] if size < f else
                 np.broadcast_to(np.arange(f), (len(pending), f)))
        rows = pending[:, None]
        low[rows, tried], high[rows, tried] = node_ranges(level, columns, nodes[pending],
                                                          tried)
        constant[rows, tried] = high[rows, tried] <= low[rows, tried]
        known[rows, tried] = examined[rows, tried] = True
        varying = np.count_nonzero(known[pending] & ~constant[pending], axis=1)
        pending = pending[(varying < k) & ~known[pending].all(axis=1)]
        size *= 2
    features, _ = node_features(keys, known & ~constant, k)
    rows = np.arange(r)[:, None]
    low, high = low[rows, features], high[rows, features]
    unseen = ~examined[rows, features]       # known constant from the parent: any sample
    if unseen.any():
        row, slot = np.nonzero(unseen)
        first = level.samples[segment_starts(level.counts)[nodes[row]]]
        low[row, slot] = high[row, slot] = columns[features[row, slot], first]
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
        samples = np.compress(np.repeat(chosen, level.counts), level.samples)
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
