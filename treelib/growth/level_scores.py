"""The gains of every candidate cut of a level-wise level, a chunk of features at a time.

``treelib.growth.level_wise`` keeps a level's samples in rows, one per feature, the
nodes one after the other, each node sorted by the feature.  The candidate cuts of a
chunk of rows are where the next value in a node is larger and both children keep
``min_samples_leaf`` samples (``cut_positions``); their left sums are segmented running
sums that restart at every node (``treelib.segments.segmented_cumsum``), so each node's
sums are those of the per-node ``"cumsum"`` finder bit for bit, whatever the other nodes
of the level (those of other trees too, in a batch); ``cut_candidates`` turns them into
gains and rounding bounds (``treelib.gains``).  Unweighted classification is scored
from class counts (``treelib.growth.level_classes``).  Cost: O(positions x features x
k) per chunk, in memory bounded by the chunk.
"""

import numpy as np

from treelib.gains import (
    BoundTerms,
    bound_cap,
    gain_from_sums,
    gain_rounding_bound,
    split_statistics,
)
from treelib.growth.level_classes import class_scores
from treelib.segments import segment_ids, segment_starts, segmented_cumsum
from treelib.split import Candidates


def cut_positions(x, counts, min_samples_leaf):
    """The candidate cuts of a chunk of rows: ``x`` (c, p) holds each feature's values,
    node after node (``counts``), sorted inside each node.  A cut after position q is a
    candidate when the next value is larger and both children keep ``min_samples_leaf``
    samples.  Returns the row and the position of every candidate, row by row, in
    increasing order.  O(c p)."""
    starts, segment = segment_starts(counts), segment_ids(counts)
    n_left = np.arange(x.shape[1]) - starts[segment] + 1
    allowed = (n_left >= min_samples_leaf) & (counts[segment] - n_left >= min_samples_leaf)
    is_cut = np.zeros(x.shape, dtype=bool)
    np.greater(x[:, 1:], x[:, :-1], out=is_cut[:, :-1])
    is_cut &= allowed
    row = np.repeat(np.arange(x.shape[0]), np.count_nonzero(is_cut, axis=1))
    return row, np.flatnonzero(is_cut) - row * x.shape[1]


def feature_scores(level, search, features):
    """The ``treelib.split.Candidates`` of the features ``features`` (a range; with
    ``search.classes``, a block of ``level_classes.class_blocks``): the gain of every
    candidate cut in every node of the level, labelled by its position in the node.

    The left sums of a node's cuts are the running sums of its samples' statistics in
    the row's order, restarted at each node, so each node's sums are those of the
    per-node ``"cumsum"`` finder bit for bit; only the candidate cuts are scored.  With
    classes (unweighted classification), the class counts left of the cuts are
    added up in blocks of bounded size (``level_classes.class_scores``).
    Weighted classes whose statistics are whole numbers (``search.counted``: bootstrap
    counts) have their left sums counted by runs (``counted_sums``): the same sums;
    other whole weights (``search.whole``) their left weights by one plain running sum
    (``whole_left_weights``).
    O(positions x features x k); with classes O(positions x features + runs x k),
    or O(positions x features) for Gini from ranks, in memory bounded by a block.
    """
    criterion, weights, counts = search.criterion, search.weights, level.counts
    if search.classes is not None:
        return class_scores(level, search.classes, search.stats.shape[1], features,
                            criterion, search.min_samples_leaf)
    rows = slice(features.start, features.stop)
    samples, x = level.order[rows], level.x_sorted[rows]              # (c, p) views
    c, p = samples.shape
    row, position = cut_positions(x, counts, search.min_samples_leaf)
    segment = segment_ids(counts)
    node = segment[position]
    offset = (np.arange(p) - segment_starts(counts)[segment])[position]
    at = position * c + row                        # in (p, c) arrays, flattened

    def running_sums(values):                      # (n, ...) -> at the cuts
        sums = segmented_cumsum(np.take(values, samples.T, axis=0), counts)
        return np.take(sums.reshape((p * c,) + values.shape[1:]), at, axis=0)

    def running_pair(stats, weights):            # both in one segmented_cumsum
        k = stats.shape[1]
        both = np.empty((p, c, k + 1))
        np.take(stats, samples.T, axis=0, out=both[:, :, :k])
        np.take(weights, samples.T, out=both[:, :, k])
        sums = np.take(segmented_cumsum(both, counts).reshape(p * c, k + 1), at, axis=0)
        return sums[:, :k], sums[:, k]

    if search.counted is not None:                 # whole numbers: counted by runs
        left_sums = counted_sums(search.counted, weights, (samples, x), counts,
                                 (row, position), search.stats.shape[1])
        w_left = left_sums.sum(axis=1)
    elif search.whole is not None:                 # whole weights: one plain cumsum
        left_sums = running_sums(search.stats)
        w_left = whole_left_weights(search.whole, samples, (row, position, position - offset))
    else:
        left_sums, w_left = ((running_sums(search.stats), (offset + 1).astype(np.float64))
                             if weights is None else running_pair(search.stats, weights))
    return cut_candidates(level, criterion, weights is not None,
                          (node, row + features.start, offset), left_sums, w_left)


def counted_sums(codes, weights, rows, counts, cuts, n_classes):
    """The left sums (cuts, k) of whole-number class statistics (one-hot rows times whole
    weights) at the ``cuts`` = (row, position) of a chunk's ``rows`` = (sample ids, their
    values), (c, p) each, the nodes ``counts`` positions each: every run of equal values
    inside a node gets its class sums from one ``np.bincount`` (keys run x k + class,
    ``weights`` of the samples, classes ``codes``), the running totals of the runs minus
    their value before the cut's node are its left sums.  Whole numbers below 2**53 add
    up exactly in any order, so these are the segmented running sums bit for bit.
    O(c p + runs k)."""
    samples, x = rows
    row, position = cuts
    c, p = samples.shape
    starts = segment_starts(counts)
    new_run = np.empty((c, p), dtype=bool)                  # a run begins at q
    new_run[:, 0] = True
    np.greater(x[:, 1:], x[:, :-1], out=new_run[:, 1:])
    new_run[:, starts] = True
    run = np.cumsum(new_run.ravel(), dtype=np.intp)         # runs numbered 1, 2, ...
    key = run * n_classes
    key += np.take(codes, samples.ravel())
    sums = np.bincount(key, weights=np.take(weights, samples.ravel()),
                       minlength=(run[-1] + 1) * n_classes).reshape(-1, n_classes)
    np.cumsum(sums, axis=0, out=sums)                       # row 0 (no run) stays 0
    first = row * p + starts[segment_ids(counts)[position]]  # the cut's node's start
    return sums[run[row * p + position]] - sums[run[first] - 1]


def whole_left_weights(weights, samples, cuts):
    """The left weights (cuts,) at the ``cuts`` = (row, position, node start) of a
    chunk's rows of ``samples`` (c, p), from whole ``weights`` (n,) given as integers
    (``whole_weights``: their sums stay below 2**53): one integer running sum along each
    row (all rows at once, position after position; integer additions do not wait on
    one another as float ones do), minus its value before the cut's node, as floats.
    Whole numbers below 2**53 add up exactly in any order, so these are the segmented
    running sums of the float weights bit for bit.  O(c p)."""
    row, position, start = cuts
    c, p = samples.shape
    running = np.zeros((p + 1, c), dtype=np.int64)
    np.cumsum(np.take(weights, samples.T), axis=0, out=running[1:])
    flat = running.ravel()
    return (flat[(position + 1) * c + row] - flat[start * c + row]).astype(np.float64)


def whole_weights(weights):
    """Whether ``weights`` are float64 whole numbers (bootstrap counts) adding up to less
    than 2**53: their running sums are exact in any order.  O(n)."""
    if weights is None or np.asarray(weights).dtype != np.float64:
        return False
    return bool((weights == np.floor(weights)).all() and weights.sum() < 2**53)


def whole_classes(Y, criterion, weights, n_rows):
    """The class of every sample when the statistics are one-hot rows times whole
    weights (``whole_weights``) whose total, times the ``n_rows`` feature rows a chunk of
    ``counted_sums`` may hold, stays below 2**53: the running totals of its runs go on
    from row to row, so they reach that product, and stay whole numbers, exact in any
    order; None otherwise.  O(n k)."""
    if criterion not in ("gini", "entropy") or not whole_weights(weights):
        return None
    if weights.sum() * max(1, n_rows) >= 2**53:
        return None
    if not (((Y == 0) | (Y == 1)).all() and (np.count_nonzero(Y, axis=1) == 1).all()):
        return None
    return np.argmax(Y, axis=1)


def cut_candidates(level, criterion, weighted, where, left_sums, w_left):
    """The ``Candidates`` of the cuts ``where`` = (node, feature, label) of ``level``,
    from their left sums of the statistics and of the weights: their gains
    (``treelib.gains.gain_from_sums``; -inf where not finite, or, ``weighted``, where a
    child has no weight), their rounding bounds on demand and the nodes' bound cap.
    O(cuts x k)."""
    node, feature, label = where
    counts, nodes = level.counts, level.nodes
    w_node = nodes.weight[node]
    left_sums, positives_left = split_statistics(left_sums, criterion)
    totals, positives = split_statistics(nodes.totals, criterion)
    abs_totals = split_statistics(nodes.abs_totals, criterion)[0]
    with np.errstate(divide="ignore", invalid="ignore"):
        gains = gain_from_sums(left_sums, w_left, totals[node], w_node, criterion,
                               positives=None if positives is None else (positives_left,
                                                                         positives[node]))
    valid = np.isfinite(gains)
    if weighted:
        valid &= (w_left > 0) & (w_left < w_node)
    gains[~valid] = -np.inf

    def bounds_at(at):
        return gain_rounding_bound(left_sums[at], w_left[at], totals[node[at]],
                                   w_node[at], criterion,
                                   None if abs_totals is None else abs_totals[node[at]],
                                   gains[at], BoundTerms(n_terms=counts[node[at]]))

    return Candidates(gains=gains, node=node, feature=feature, label=label,
                      bounds_at=bounds_at,
                      cap=lambda max_gain: bound_cap(nodes.totals, nodes.weight, criterion,
                                                     nodes.abs_totals, max_gain, counts,
                                                     nodes.scale))
