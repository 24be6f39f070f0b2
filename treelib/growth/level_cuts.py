"""The best cut of every node of a level, under the one tie rule, a few features at a time.

The level-wise growers score the candidate cuts of all the nodes of a level a chunk of
features at a time (to keep memory to a chunk's worth), so they cannot hand a whole
(cuts x features) array of gains to ``treelib.split.best_cut``.  ``best_cuts`` applies the
same rule from what each chunk leaves behind, and finds the same cut.  It needs the
rounding bounds of the few cuts that can be tied with a node's best only: the *contenders*,
within twice ``treelib.gains.bound_cap`` of the best gain seen so far.
"""

from dataclasses import dataclass
from typing import Callable

import numpy as np

from treelib.segments import segment_ids, segment_starts


@dataclass
class ChunkScores:
    """The scored cuts of a chunk of features in the nodes of a level.

    ``gains`` (slots x features): node after node, each node's slots in cut order, -inf
    where a slot is not a candidate; ``slots`` (nodes,): the slots of each node (at least
    one); ``labels`` (slots,) or (slots x features): what the grower needs to make the
    split (a position, a bin); ``bounds_at(rows, columns)``: the rounding bounds of the
    gains at those slots and features; ``cap(max_gain)``: per node, an upper bound of any
    of its bounds when its gains are at most ``max_gain``.
    """

    gains: np.ndarray
    slots: np.ndarray
    labels: np.ndarray
    bounds_at: Callable
    cap: Callable


def best_cuts(n_nodes, chunks, scores):
    """The best cut of each of ``n_nodes`` nodes, as ``treelib.split.best_cut`` picks it.

    ``chunks`` lists the features in groups (every feature once, in increasing order);
    ``scores(features)`` returns the ``ChunkScores`` of a group.  Returns ``(feature,
    label, gain)`` per node; ``gain`` is -inf for a node without any candidate.

    The rule: the reference cut is the highest gain (lowest feature, then first slot,
    among equals); a cut is tied with it when ``gain + bound >= reference gain -
    reference bound``; the lowest feature, then the first slot, among tied cuts wins.  A
    tied cut's gain is within twice the node's bound cap of the best, so only the cuts
    that close to the best gain seen so far are kept, with their bounds, as contenders;
    the rule is applied to them at the end.  O(features x slots) numpy work in O(chunks)
    calls of ``scores``.
    """
    running_max = np.full(n_nodes, -np.inf)
    kept = []                          # (node, feature, offset, gain, bound, label)
    for chunk in chunks:
        scored = scores(chunk)
        gains, slots = scored.gains, scored.slots
        starts, segment = segment_starts(slots), segment_ids(slots)
        top = np.maximum.reduceat(gains, starts, axis=0).max(axis=1)
        running_max = np.maximum(running_max, top)
        floor = running_max - 2 * scored.cap(running_max)
        rows, columns = np.nonzero(np.isfinite(gains) & (gains >= floor[segment, None]))
        labels = (scored.labels[rows] if scored.labels.ndim == 1
                  else scored.labels[rows, columns])
        node = segment[rows]
        kept.append((node, np.asarray(chunk)[columns], rows - starts[node], gains[rows, columns],
                     scored.bounds_at(rows, columns), labels))
    node, feature, offset, gain, bound, label = (np.concatenate(part) for part in zip(*kept))
    order = np.lexsort((offset, feature, node))                # node, then feature, slot
    node, feature, gain, bound, label = (a[order] for a in (node, feature, gain, bound, label))
    first = np.ones(len(node), dtype=bool)
    first[1:] = node[1:] != node[:-1]
    starts = np.flatnonzero(first)
    best = np.maximum.reduceat(gain, starts) if len(node) else gain
    at_best = reduce_first(gain == best[np.cumsum(first) - 1], starts, len(node))
    floor = best - bound[at_best]
    chosen = reduce_first(gain + bound >= floor[np.cumsum(first) - 1], starts, len(node))
    result_feature = np.zeros(n_nodes, dtype=np.intp)
    result_label = np.zeros(n_nodes, dtype=np.intp)
    result_gain = np.full(n_nodes, -np.inf)
    nodes = node[starts]
    result_feature[nodes], result_label[nodes] = feature[chosen], label[chosen]
    result_gain[nodes] = gain[chosen]
    return result_feature, result_label, result_gain


def reduce_first(mask, starts, n):
    """Index of the first True of ``mask`` in each run beginning at ``starts`` (every
    run has one)."""
    if n == 0:
        return np.zeros(0, dtype=np.intp)
    return np.minimum.reduceat(np.where(mask, np.arange(n), n), starts)
