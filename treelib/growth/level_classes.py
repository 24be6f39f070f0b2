"""Gini and entropy gains of a level's cuts from class counts, in blocks of bounded size.

Without sample weights the statistics of classification are one-hot rows, so the sums a
cut needs are the class counts of its left child: exact integers, the same whatever the
order of the additions.  ``treelib.growth.level_wise`` hands the scoring of its cuts
here when that holds (``class_codes``).  A level's rows (one per feature, the nodes one
after the other, each sorted by the feature) are scored in *blocks*: a group of whole
rows when they are short, else a range of positions of one row (``class_blocks``), so
that no temporary holds more than a fixed number of values (``CHUNK_VALUES`` shared by
the threads) whatever the number of samples and classes.

Inside a block every row is cut into *runs* of equal values that stay inside one node;
``np.bincount`` counts each run's classes, and the running totals of the runs, minus
their value before the node, are the counts left of the cuts (a cut ends a run).  A node
that began before the block adds the counts of its samples before it (one bincount).
Counts are exact integers, so these are the per-node running sums bit for bit.

The Gini gain ``sum_k L_k**2 / W_L + sum_k R_k**2 / W_R - sum_k T_k**2 / W``
(``treelib.gains.gain_from_sums``) needs only three sums of squares per cut; they are
added up in integers (exact, so equal to the float sums in any order while the squares
stay below 2**53, also in floats), and then divided and added as ``gain_from_sums`` does: the same gains
bit for bit.  Entropy goes through ``gain_from_sums`` itself.

Costs per block of c rows and b positions: O(c b) numpy work, plus O(runs k) to count
and O(cuts k) to score (runs and cuts at most c b; few when the features take few
values), plus O(positions of the node before the block) for a node cut by the block's
start.  Memory: a few temporaries of at most ``budget / n_jobs`` values each.
"""

import numpy as np

from treelib.gains import bound_cap, gain_from_sums, gain_rounding_bound
from treelib.growth.level_cuts import ChunkScores
from treelib.growth.threads import CHUNK_VALUES, feature_chunks
from treelib.segments import segment_ids, segment_starts

#: Largest node (samples) whose sums of squared counts stay exact in float64 (n**2 <
#: 2**53): up to it the Gini sums are added in integers.
EXACT_SQUARES = 2**26


def class_blocks(n_features, n_positions, n_classes, n_jobs=1, budget=CHUNK_VALUES):
    """The blocks a level is scored in: ``(features, begin, end)``, the rows
    ``features`` (a range) at positions ``begin .. end - 1``.  Whole rows, grouped by
    ``treelib.growth.threads.feature_chunks``, when a row's positions x classes fit in a
    thread's share of ``budget``; else one row at a time, cut into ranges of
    ``budget / (n_jobs k)`` positions.  Every position of every row once, rows in
    increasing order.  O(blocks)."""
    per_thread = max(1, budget // max(1, n_jobs))
    if n_positions * n_classes <= per_thread:
        return [(features, 0, n_positions)
                for features in feature_chunks(n_features, n_positions * n_classes,
                                               n_jobs, budget)]
    size = max(1, per_thread // n_classes)
    return [(range(j, j + 1), begin, min(begin + size, n_positions))
            for j in range(n_features) for begin in range(0, n_positions, size)]


def class_scores(level, classes, n_classes, block, criterion, min_samples_leaf):
    """The ``ChunkScores`` (``treelib.growth.level_cuts``) of the cuts of one block
    (``class_blocks``) of ``level`` (``treelib.growth.level_wise.Level``): ``classes``
    (n,) is every sample's class (0 .. ``n_classes`` - 1), the criterion "gini" or
    "entropy" without sample weights.  A cut after position q of a row is a candidate
    when the next value in its node is larger and both children keep
    ``min_samples_leaf`` samples; it belongs to the block that holds q."""
    features, begin, end = block
    counts, nodes = level.counts, level.nodes
    starts = segment_starts(counts)
    rows = slice(features.start, features.stop)
    x = level.x_sorted[rows, begin:min(end + 1, level.x_sorted.shape[1])]
    samples = level.order[rows, begin:end]
    c, b = samples.shape
    # the nodes the block overlaps, and their parts in it
    first, last = np.searchsorted(starts, [begin, end - 1], side="right") - 1
    local_starts = np.maximum(starts[first:last + 1] - begin, 0)
    local_counts = np.diff(np.append(local_starts, b))
    segment = segment_ids(local_counts) + first                    # (b,) node of each
    n_left = np.arange(begin + 1, end + 1) - starts[segment]
    allowed = (n_left >= min_samples_leaf) & (counts[segment] - n_left >= min_samples_leaf)

    larger = np.zeros((c, b), dtype=bool)                          # x[q + 1] > x[q]
    np.greater(x[:, 1:], x[:, :-1], out=larger[:, :x.shape[1] - 1])
    new_run = np.empty((c, b), dtype=bool)                         # a run starts at q
    new_run[:, 0] = True
    new_run[:, 1:] = larger[:, :-1]
    new_run[:, local_starts] = True
    run_start = np.flatnonzero(new_run)
    new_run = None
    # key: run * k + class, the runs numbered 1, 2, ... (row 0 of the counts stays 0)
    key = np.repeat(np.arange(n_classes, (len(run_start) + 1) * n_classes, n_classes),
                    np.diff(run_start, append=c * b))
    key += np.take(classes, samples.ravel())
    larger &= allowed
    cut = np.flatnonzero(larger)                                   # row * b + q
    larger = None
    row, q = np.divmod(cut, b)
    node = segment[q]
    node_start = row * b + local_starts[node - first]              # the node's first run
    cut_run, start_run = key[cut] // n_classes, key[node_start] // n_classes
    running = np.bincount(key, minlength=(len(run_start) + 1) * n_classes)
    key = None
    # running totals of the runs' counts: exact integers, also as floats (< 2**53)
    running = np.cumsum(running.reshape(-1, n_classes), axis=0, dtype=np.float64)
    left = np.take(running, cut_run, axis=0)
    left -= np.take(running, start_run - 1, axis=0)
    running = None
    if begin > starts[first]:                    # node ``first`` began before the block
        before = np.bincount(classes[level.order[features.start, starts[first]:begin]],
                             minlength=n_classes)
        left[node == first] += before

    offset = q + begin - starts[node]
    w_left = (offset + 1).astype(np.float64)
    w_node = nodes.weight[node]
    totals = nodes.totals
    if criterion == "gini" and len(counts) and counts.max() <= EXACT_SQUARES:
        gains = gini_gains(left, w_left, totals, w_node, node)
    else:
        with np.errstate(divide="ignore", invalid="ignore"):
            gains = gain_from_sums(left, w_left, totals[node], w_node,
                                   criterion)
    gains[~np.isfinite(gains)] = -np.inf

    def bounds_at(at):
        return gain_rounding_bound(left[at], w_left[at],
                                   totals[node[at]], w_node[at], criterion, None, gains[at],
                                   n_terms=counts[node[at]])

    return ChunkScores(gains=gains, node=node, feature=row + features.start, label=offset,
                       bounds_at=bounds_at,
                       cap=lambda max_gain: bound_cap(totals, nodes.weight, criterion, None,
                                                      max_gain, counts, nodes.scale))


def gini_gains(left, w_left, totals, w_node, node):
    """``gain_from_sums`` for Gini, bit for bit, from the left counts ``left`` (cuts, k)
    (whole numbers, as floats) of cuts in nodes ``node`` with class counts ``totals``
    (nodes, k): the sums of squares are whole numbers below 2**53 (``EXACT_SQUARES``),
    exact in any order of addition.  One (cuts, k) temporary."""
    square_left = np.einsum("ij,ij->i", left, left)
    right = np.take(totals, node, axis=0)
    right -= left
    square_right = np.einsum("ij,ij->i", right, right)
    square_total = np.sum(totals * totals, axis=-1)[node]
    with np.errstate(divide="ignore", invalid="ignore"):
        return (square_left / w_left + square_right / (w_node - w_left)
                - square_total / w_node)
