"""The best cut of every node of a level, under the one tie rule, a few features at a time.

The level-wise growers score the candidate cuts of all the nodes of a level a chunk of
features at a time (to keep memory to a chunk's worth), so they cannot hand a whole
(cuts x features) array of gains to ``treelib.split.best_cut``.  ``best_cuts`` applies the
same rule from what each chunk's pass leaves behind, and finds the same cut.
"""

import numpy as np

from treelib.segments import first_in_segments, segment_ids, segment_starts


def best_cuts(n_nodes, chunks, scores):
    """The best cut of each of ``n_nodes`` nodes, as ``treelib.split.best_cut`` picks it.

    ``chunks`` lists the features in groups (every feature once, in increasing order).
    ``scores(features, nodes)`` scores the candidate cuts of a group of features in the
    nodes ``nodes`` (an array of node indices, or None for all of them) and returns
    ``(gains, bounds, slots, labels)``: the gain and rounding bound of every cut (slots x
    features), node after node in cut order (``-inf`` where a slot is not a candidate);
    the number of slots of each node (at least one, the same for every feature of the
    group); and a label per slot and feature (what the grower needs to make the split:
    a position, a bin).  It must return the same values for a node whichever other nodes
    are scored.

    Returns ``(feature, label, gain)`` per node; ``gain`` is -inf for a node without any
    candidate.  The rule: the reference cut is the highest gain (lowest feature, then
    first slot, among equals); the chosen feature is the lowest whose ``gain + bound``
    reaches the reference's ``gain - bound`` somewhere; the chosen cut is that feature's
    first slot that reaches it.  One pass over the features records per node and feature
    the highest gain, the bound at its first occurrence, the highest ``gain + bound`` and
    the first slot tied with that feature's own best; a node whose chosen feature is not
    its reference's (a tie across features, rare) has that feature scored again.
    O(features x slots) numpy work in O(chunks) calls of ``scores``.
    """
    n_features = sum(len(chunk) for chunk in chunks)
    best, bound_at_best, upper, gain_tied = (np.empty((n_nodes, n_features))
                                             for _ in range(4))
    label_tied = np.empty((n_nodes, n_features), dtype=np.intp)
    for chunk in chunks:
        gains, bounds, slots, labels = scores(chunk, None)
        if len(chunks) == 1:                 # every feature at hand: the rule directly
            return _best_of_one_chunk(gains, bounds, slots, labels)
        columns = np.arange(len(chunk))
        starts, segment = segment_starts(slots), segment_ids(slots)
        top = np.maximum.reduceat(gains, starts, axis=0)               # (nodes, chunk)
        at_top = starts[:, None] + first_in_segments(gains == top[segment], slots)
        bound_top = bounds[at_top, columns]
        floor = top - bound_top
        first = starts[:, None] + np.minimum(
            first_in_segments(gains + bounds >= floor[segment], slots), slots[:, None] - 1)
        best[:, chunk], bound_at_best[:, chunk] = top, bound_top
        upper[:, chunk] = np.maximum.reduceat(gains + bounds, starts, axis=0)
        gain_tied[:, chunk] = gains[first, columns]
        label_tied[:, chunk] = np.broadcast_to(labels.reshape(len(labels), -1),
                                               gains.shape)[first, columns]
    nodes = np.arange(n_nodes)
    node_best = best.max(axis=1)
    reference = np.argmax(best == node_best[:, None], axis=1)
    floor = node_best - bound_at_best[nodes, reference]
    feature = np.argmax(upper >= floor[:, None], axis=1)
    label, gain = label_tied[nodes, feature], gain_tied[nodes, feature]
    for j in np.unique(feature[feature != reference]):
        again = np.flatnonzero((feature == j) & (feature != reference))
        gains, bounds, slots, labels = scores([j], again)
        first = segment_starts(slots) + first_in_segments(
            (gains + bounds)[:, 0] >= floor[again][segment_ids(slots)], slots)
        label[again] = labels.reshape(len(labels), -1)[first, 0]
        gain[again] = gains[first, 0]
    gain[~np.isfinite(node_best)] = -np.inf
    return feature, label, gain


def _best_of_one_chunk(gains, bounds, slots, labels):
    """``best_cuts`` when one chunk holds every feature (slots x features)."""
    starts, segment = segment_starts(slots), segment_ids(slots)
    nodes = np.arange(len(slots))
    top = np.maximum.reduceat(gains, starts, axis=0)                  # (nodes, features)
    node_best = top.max(axis=1)
    reference = np.argmax(top == node_best[:, None], axis=1)
    at_reference = starts + first_in_segments(
        gains[np.arange(len(gains)), reference[segment]] == node_best[segment], slots)
    floor = node_best - bounds[at_reference, reference]
    first = first_in_segments(gains + bounds >= floor[segment, None], slots)   # (nodes, f)
    feature = np.argmax(first < slots[:, None], axis=1)
    cut = starts + np.minimum(first[nodes, feature], slots - 1)
    label = np.broadcast_to(labels.reshape(len(labels), -1), gains.shape)[cut, feature]
    gain = np.where(np.isfinite(node_best), gains[cut, feature], -np.inf)
    return feature, label, gain
