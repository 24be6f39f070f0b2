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

from treelib.growth.threads import run_chunks


@dataclass
class ChunkScores:
    """The candidate cuts of a chunk of features in the nodes of a level, one entry each.

    ``gains``, ``node``, ``feature`` and ``label`` (cuts,) give each candidate's gain
    (-inf: not a candidate after all), node (in the level), feature (a column of the
    data) and label: its position in the node's sorted samples, or its bin, which orders
    a node's cuts of one feature by threshold and is what the grower needs to make the
    split.  Entries come sorted by feature, then node, then label.
    ``bounds_at(index)``: the rounding bounds of the gains at those entries;
    ``cap(max_gain)``: per node, an upper bound of any of its bounds when its gains are
    at most ``max_gain``.
    """

    gains: np.ndarray
    node: np.ndarray
    feature: np.ndarray
    label: np.ndarray
    bounds_at: Callable
    cap: Callable


def grid_scores(gains, slots, labels, features, bounds_at, cap):
    """``ChunkScores`` from gains laid out as a grid (slots x features): node after node,
    each node's ``slots[s]`` slots in cut order, -inf where a slot is not a candidate;
    ``labels`` (slots x features) and ``bounds_at(rows, columns)`` in the same layout.
    O(slots x features)."""
    n_slots, c = gains.shape
    index = np.flatnonzero(np.isfinite(gains.T))          # feature-major
    column, row = np.divmod(index, n_slots)
    node = np.repeat(np.arange(len(slots)), slots)[row]
    return ChunkScores(gains=gains[row, column], node=node,
                       feature=np.asarray(features)[column], label=labels[row, column],
                       bounds_at=lambda at: bounds_at(row[at], column[at]), cap=cap)


def best_cuts(n_nodes, chunks, scores, n_jobs=1):
    """The best cut of each of ``n_nodes`` nodes, as ``treelib.split.best_cut`` picks it.

    ``chunks`` lists the features in groups (every feature once, in increasing order);
    ``scores(features)`` returns the ``ChunkScores`` of a group.  Returns ``(feature,
    label, gain)`` per node; ``gain`` is -inf for a node without any candidate.

    The rule: the reference cut is the highest gain (lowest feature, then lowest label,
    among equals); a cut is tied with it when ``gain + bound >= reference gain -
    reference bound``; the lowest feature, then the lowest label, among tied cuts wins.
    A tied cut's gain is within twice the node's bound cap of the best, so only the cuts
    that close to the best gain seen so far are kept, with their bounds, as contenders;
    the rule is applied to them at the end.  With ``n_jobs`` threads
    (``treelib.growth.threads``) each group is scored and pruned against its own best
    gains, which are at most the node's best, so no tied cut is ever pruned: the rule
    then sees the same tied cuts, and picks the same cut, for every ``n_jobs``.
    O(candidates) numpy work in O(chunks) calls of ``scores``.
    """
    if n_jobs == 1:                    # one running best, shared by the groups in turn
        shared = np.full(n_nodes, -np.inf)
        kept = [contenders(scores(chunk), shared) for chunk in chunks]
    else:
        kept = run_chunks(lambda chunk: contenders(scores(chunk),
                                                   np.full(n_nodes, -np.inf)),
                          chunks, n_jobs)
    return choose(n_nodes, kept)


def contenders(scored, running_max):
    """The cuts of one group's ``ChunkScores`` that may be tied with their node's best:
    ``(node, feature, label, gain, bound)``, those within twice the bound cap of
    ``running_max`` (per node, the best gain seen so far, which this updates)."""
    gains, node = scored.gains, scored.node
    if len(gains):
        group = scored.feature * len(running_max) + node         # sorted: runs of one group
        first = np.flatnonzero(np.concatenate([[True], group[1:] != group[:-1]]))
        np.maximum.at(running_max, node[first], np.maximum.reduceat(gains, first))
    floor = running_max - 2 * scored.cap(running_max)
    at = np.flatnonzero(np.isfinite(gains) & (gains >= floor[node]))
    return (node[at], scored.feature[at], scored.label[at], gains[at], scored.bounds_at(at))


def choose(n_nodes, kept):
    """The tie rule of ``best_cuts`` applied to the contenders ``kept`` of every group.

    The rule reads each node's contenders by feature, then label.  The groups come in
    increasing feature order with their entries sorted by feature, node and label, so a
    stable sort by node alone puts them in that order: O(c log groups) for c contenders
    (a three-key ``np.lexsort`` took ten times as long).  Entries out of that order are
    noticed (one pass) and sorted by all three keys."""
    node, feature, label, gain, bound = (np.concatenate(part) for part in zip(*kept))
    order = np.argsort(node, kind="stable")                     # node, then feature, label
    if not in_node_order(node[order], feature[order], label[order]):
        order = np.lexsort((label, feature, node))
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


def in_node_order(node, feature, label):
    """Whether entries sorted by node are sorted by feature, then label, inside each
    node.  O(entries)."""
    same_node, same_feature = node[1:] == node[:-1], feature[1:] == feature[:-1]
    backwards = (feature[1:] < feature[:-1]) | (same_feature & (label[1:] < label[:-1]))
    return not np.any(same_node & backwards)


def reduce_first(mask, starts, n):
    """Index of the first True of ``mask`` in each run beginning at ``starts`` (every
    run has one)."""
    if n == 0:
        return np.zeros(0, dtype=np.intp)
    return np.minimum.reduceat(np.where(mask, np.arange(n), n), starts)
