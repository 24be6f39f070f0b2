"""Gini and entropy gains of a level's cuts from class counts, in blocks of bounded size.

Without sample weights the statistics of classification are one-hot rows, so the sums a
cut needs are the class counts of its left child: whole numbers, the same whatever the
order of the additions.  ``treelib.growth.level_wise`` hands the scoring of its cuts
here when that holds (``class_codes``).  A level's rows (one per feature, the nodes one
after the other, each sorted by the feature) are scored in *blocks*: a group of whole
rows when they are short, else a range of positions of one row (``class_blocks``), so
that no temporary holds more than a fixed number of values (``CHUNK_VALUES``, shared by
the threads) whatever the numbers of samples and classes.  A node that began before its
block starts from the counts of its samples before it (one ``np.bincount``).

Two ways to the sums, both exact:

- *runs* (``left_counts``): every row is cut into runs of equal values inside a node;
  ``np.bincount`` counts each run's classes and the running totals of the runs, minus
  their value before the node, are the counts left of the cuts (a cut ends a run).
  O(positions + runs x k): the way when features take few values (digits);
- *ranks* (``square_sums``, Gini only): the Gini gain
  ``sum_k L_k**2 / W_L + sum_k R_k**2 / W_R - sum_k T_k**2 / W``
  (``treelib.gains.gain_from_sums``) needs only three sums of squares per cut, and
  those follow from each sample's rank among the samples of its class in its node,
  without any (cuts, k) array.  O(positions): the way with many classes and values.

The Gini sums of squares are whole numbers below 2**53 (``EXACT_SQUARES``), so they equal
the float sums of ``gain_from_sums`` in any order of addition; they are then divided and
added as it does, so the gains are the same bit for bit.  Entropy goes through
``gain_from_sums`` itself, from the counts.

Costs per block of c rows and b positions: O(c b) numpy work, plus O(runs k) for the
runs, O(c b) for the ranks (a radix sort of 16-bit class codes), O(cuts k) for entropy,
plus O(positions of the node before the block) for a node cut by the block's start.
Memory: a few temporaries of at most ``budget / n_jobs`` values each (``class_blocks``).
"""

from dataclasses import dataclass

import numpy as np

from treelib.criteria import class_statistics
from treelib.gains import BoundTerms, bound_cap, gain_from_sums, gain_rounding_bound
from treelib.growth.threads import CHUNK_VALUES, feature_chunks
from treelib.segments import segment_ids, segment_starts
from treelib.split import Candidates

#: Largest node (samples) whose sums of squared counts stay exact in float64 (n**2 <
#: 2**53): up to it the Gini sums are added in integers.
EXACT_SQUARES = 2**26

#: Gini sums of squares from ranks (``square_sums``, O(positions)) rather than from
#: counts of runs (``left_counts``, O(positions + runs k)) when runs x classes exceed
#: this many times the positions.
RANKS_ABOVE = 16


@dataclass
class ClassBlock:
    """One block (``class_blocks``) of a level's rows, laid out to count classes.

    Positions are flat: ``row * b + q`` in the block's (c, b) rows.  ``classes`` (c b,)
    holds the class of the sample at each position; ``run_start`` the sorted positions
    where a run of equal values inside a node begins; ``cut`` (cuts,) the candidate cuts
    (a cut after position q), increasing, each with its ``row``, its ``node`` (in the
    level), its ``offset`` in the node and ``node_start``, where its node begins in the
    block's row; ``head`` marks the cuts of a node that began before the block, whose
    samples before it hold the class counts ``before`` (k,; None if no node did).
    ``segment`` (b,) is the node of each position of a row; the block overlaps the
    ``n_local`` nodes from ``first`` on, the first one over ``n_head`` positions.
    """

    classes: np.ndarray
    n_classes: int
    run_start: np.ndarray
    cut: np.ndarray
    row: np.ndarray
    node: np.ndarray
    offset: np.ndarray
    node_start: np.ndarray
    head: np.ndarray
    before: np.ndarray | None
    segment: np.ndarray
    first: int
    n_local: int
    n_head: int

    def groups(self):
        """Each position's (row, node) group, numbered from 0, and its node in the
        level, (c b,) each.  O(c b)."""
        c = len(self.classes) // len(self.segment)
        group = np.add.outer(np.arange(c) * self.n_local, self.segment - self.first).ravel()
        return group, np.tile(self.segment, c)


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


def class_scores(level, classes, n_classes, block, criterion, min_samples_leaf, ranks=None):
    """The ``treelib.split.Candidates`` of the cuts of one block
    (``class_blocks``) of ``level`` (``treelib.growth.level_wise.Level``): ``classes``
    (n,) is every sample's class (0 .. ``n_classes`` - 1), the criterion "gini" or
    "entropy" without sample weights.  A cut after position q of a row is a candidate
    when the next value in its node is larger and both children keep
    ``min_samples_leaf`` samples; it belongs to the block that holds q.  ``ranks``: Gini
    sums from ranks (True) or runs (False); None picks by ``RANKS_ABOVE``.
    O(c b) for a block of c rows and b positions, plus ``block_gains``' cost.
    """
    counts, nodes, totals = level.counts, level.nodes, level.nodes.totals
    layout = class_block(level, classes, n_classes, block, min_samples_leaf)
    node = layout.node
    w_left = (layout.offset + 1).astype(np.float64)
    w_node = nodes.weight[node]
    gains, left = block_gains(layout, counts, totals, (w_left, w_node), criterion, ranks)

    def bounds_at(at):
        if left is None:                  # the counts of these cuts alone: runs end there
            boundaries = np.union1d(np.append(layout.node_start[at], 0), layout.cut[at] + 1)
            boundaries = boundaries[boundaries < len(layout.classes)]
            left_at = left_counts(layout, boundaries, layout.cut[at], layout.node_start[at],
                                  layout.head[at])
        else:
            left_at = left[at]
        return gain_rounding_bound(left_at, w_left[at], totals[node[at]], w_node[at],
                                   criterion, None, gains[at],
                                   BoundTerms(n_terms=counts[node[at]]))

    return Candidates(gains=gains, node=node, feature=layout.row + block[0].start,
                      label=layout.offset, bounds_at=bounds_at,
                      cap=lambda max_gain: bound_cap(totals, nodes.weight, criterion, None,
                                                     max_gain, counts, nodes.scale))


def class_block(level, classes, n_classes, block, min_samples_leaf):
    """The ``ClassBlock`` of ``block`` = (features, begin, end) of ``level``: the nodes
    it overlaps, its runs and candidate cuts (``runs_and_cuts``), its samples' classes,
    and the class counts of a node's samples before the block.  O(c b), plus
    O(positions of the node before the block)."""
    features, begin, end = block
    counts = level.counts
    starts = segment_starts(counts)
    rows = slice(features.start, features.stop)
    x = level.x_sorted[rows, begin:min(end + 1, level.x_sorted.shape[1])]
    samples = level.order[rows, begin:end]
    b = samples.shape[1]
    # the nodes the block overlaps, and their parts in it
    first, last = np.searchsorted(starts, [begin, end - 1], side="right") - 1
    local_starts = np.maximum(starts[first:last + 1] - begin, 0)
    local_counts = np.diff(np.append(local_starts, b))
    segment = segment_ids(local_counts) + first                    # (b,) node of each
    n_left = np.arange(begin + 1, end + 1) - starts[segment]
    allowed = (n_left >= min_samples_leaf) & (counts[segment] - n_left >= min_samples_leaf)
    run_start, cut = runs_and_cuts(x, samples.shape, local_starts, allowed)
    row, q = np.divmod(cut, b)
    node = segment[q]
    before = None                         # node ``first`` began before the block:
    if begin > starts[first]:             # the class counts of its samples before it
        before = np.bincount(classes[level.order[features.start, starts[first]:begin]],
                             minlength=n_classes)
    return ClassBlock(classes=np.take(classes, samples.ravel()), n_classes=n_classes,
                      run_start=run_start, cut=cut, row=row, node=node,
                      offset=q + begin - starts[node],
                      node_start=row * b + local_starts[node - first],
                      head=node == first,  # (only one row then)
                      before=before, segment=segment, first=first,
                      n_local=len(local_counts), n_head=local_counts[0])


def runs_and_cuts(x, shape, local_starts, allowed):
    """The flat positions where runs of equal values begin (at a node's start too), and
    those of the candidate cuts, in a block of ``shape`` (c, b): ``x`` (c, b or b + 1)
    holds the rows' values (and the next one), ``local_starts`` where each node begins
    in a row, ``allowed`` (b,) the positions whose cut leaves ``min_samples_leaf`` samples
    each side.  O(c b)."""
    c, b = shape
    larger = np.zeros((c, b), dtype=bool)                          # x[q + 1] > x[q]
    np.greater(x[:, 1:], x[:, :-1], out=larger[:, :x.shape[1] - 1])
    new_run = np.empty((c, b), dtype=bool)                         # a run starts at q
    new_run[:, 0] = True
    new_run[:, 1:] = larger[:, :-1]
    new_run[:, local_starts] = True
    run_start = np.flatnonzero(new_run)
    new_run = None
    larger &= allowed
    return run_start, np.flatnonzero(larger)                       # cuts: row * b + q


def block_gains(layout, counts, totals, weights, criterion, ranks=None):
    """The gains of the cuts of ``layout`` (-inf where not finite), and their left class
    counts (cuts, k) when they were counted (None from ranks): ``counts`` and ``totals``
    are the level's nodes' samples and class counts, ``weights`` = (w_left, w_node) the
    cuts' left and node weights.  Gini adds up whole numbers (``square_sums`` from ranks
    or ``left_counts`` from runs, picked by ``RANKS_ABOVE`` unless ``ranks`` says) and
    divides as ``gain_from_sums`` does (``gini_gains``); entropy calls
    ``gain_from_sums``.  O(c b + runs k), or O(c b) from ranks."""
    w_left, w_node = weights
    node, left = layout.node, None
    if criterion == "gini" and len(counts) and counts.max() <= EXACT_SQUARES:
        if ranks or (ranks is None and
                     len(layout.run_start) * layout.n_classes > RANKS_ABOVE * len(layout.classes)):
            square_left, left_totals = square_sums(layout, totals)
        else:
            left = left_counts(layout, layout.run_start, layout.cut, layout.node_start, layout.head)
            square_left = np.einsum("ij,ij->i", left, left)
            left_totals = np.einsum("ij,ij->i", left, np.take(totals, node, axis=0))
        gains = gini_gains(square_left, left_totals, w_left, totals, w_node, node)
    else:
        left = left_counts(layout, layout.run_start, layout.cut, layout.node_start, layout.head)
        with np.errstate(divide="ignore", invalid="ignore"):
            gains = gain_from_sums(left, w_left, totals[node], w_node, criterion)
    gains[~np.isfinite(gains)] = -np.inf
    return gains, left


def left_counts(layout, run_start, cut, node_start, head):
    """The class counts left of the cuts ``cut`` (flat positions of the block ``layout``), as
    floats (cuts, k): the block's positions are cut into runs beginning at ``run_start``
    (sorted, 0 and the cuts' node starts and next positions among them), each run's
    classes counted by one ``np.bincount``, and the running totals of the runs taken at
    the cut's run minus their value before its node's first run (``node_start``);
    ``layout.before`` (k,) added to the cuts ``head`` of a node that began before the block.
    Whole numbers, exact.  O(positions + runs k)."""
    block_classes, n_classes = layout.classes, layout.n_classes
    n_runs = len(run_start)
    # key: run * k + class, the runs numbered 1, 2, ... (row 0 of the counts stays 0)
    key = np.repeat(np.arange(n_classes, (n_runs + 1) * n_classes, n_classes),
                    np.diff(run_start, append=len(block_classes)))
    cut_run, start_run = key[cut] // n_classes, key[node_start] // n_classes
    key += block_classes
    running = np.bincount(key, minlength=(n_runs + 1) * n_classes)
    key = None
    running = running.reshape(n_runs + 1, n_classes)
    np.cumsum(running, axis=0, out=running)                        # along the runs
    left = np.take(running, cut_run, axis=0)
    left -= np.take(running, start_run - 1, axis=0)
    running = None
    left = left.astype(np.float64)
    if layout.before is not None:
        left[head] += layout.before
    return left


def square_sums(layout, totals):
    """``sum_k L_k**2`` and ``sum_k T_k L_k`` (cuts,) of the left counts L of the cuts of
    ``layout`` in nodes with class counts T (``totals``), without any (cuts, k) array.

    A sample of class y added to a left child of counts L raises ``sum_k L_k**2`` by
    ``2 L_y + 1`` and ``sum_k T_k L_k`` by ``T_y``, and ``L_y`` is its *rank*: the number
    of samples of its class before it in its node (its group: its row and node in the
    block, ``ClassBlock.groups``).  The ranks come from one stable sort of the classes (a
    radix sort for 16-bit codes: samples of one class stay in position order, so one
    group's are consecutive), and the sums from two running sums along the block, minus
    their values before each cut's node.  A node that began before the block (its first
    ``n_head`` positions, cuts ``head``) starts from the counts ``before``.  Whole
    numbers, exact while they stay below 2**63.  O(positions) work and memory."""
    block_classes, before, head = layout.classes, layout.before, layout.head
    group, node_of = layout.groups()
    rank = class_ranks(block_classes, group)
    counted = totals.astype(np.int64)
    if before is not None:
        rank[:layout.n_head] += before[block_classes[:layout.n_head]]
    rank *= 2
    rank += 1
    square = np.zeros(len(block_classes) + 1, dtype=np.int64)
    np.cumsum(rank, out=square[1:])
    rank = None
    weighted = np.zeros(len(block_classes) + 1, dtype=np.int64)
    np.cumsum(np.take(counted.ravel(), node_of * counted.shape[1] + block_classes),
              out=weighted[1:])
    square_left = square[layout.cut + 1] - square[layout.node_start]
    left_totals = weighted[layout.cut + 1] - weighted[layout.node_start]
    if before is not None:
        square_left[head] += before @ before
        left_totals[head] += before @ counted[node_of[0]]
    return square_left, left_totals


def class_ranks(block_classes, group):
    """Each position's rank among the positions of its class in its ``group`` (0, 1,
    ...), in position order, (n,) int64: one stable sort of the classes, then the
    groups' first entries.  O(n) for 16-bit codes (a radix sort), O(n log n) else."""
    n = len(block_classes)
    perm = np.argsort(block_classes, kind="stable")
    key = np.multiply(block_classes, group[-1] + 1, dtype=np.intp)  # class, then group
    key += group
    key = key[perm]
    is_first = np.ones(n, dtype=bool)
    np.not_equal(key[1:], key[:-1], out=is_first[1:])
    key = None
    first = np.flatnonzero(is_first)
    rank = np.empty(n, dtype=np.int64)
    rank[perm] = np.arange(n) - np.repeat(first, np.diff(first, append=n))
    return rank



def gini_gains(square_left, left_totals, w_left, totals, w_node, node):
    """``gain_from_sums`` for Gini, bit for bit, from ``sum_k L_k**2`` and ``sum_k T_k
    L_k`` of the left counts L of cuts in nodes ``node`` with class counts T
    (``totals``): ``sum_k R_k**2 = sum_k T_k**2 - 2 sum_k T_k L_k + sum_k L_k**2``.  All
    are whole numbers below 2**53 (``EXACT_SQUARES``), so each equals the float sum
    ``gain_from_sums`` adds, in any order; then divided and added as it does.  O(cuts)."""
    square_total = np.sum(totals * totals, axis=-1)
    square_right = square_total[node] - 2 * left_totals + square_left
    with np.errstate(divide="ignore", invalid="ignore"):
        return (np.asarray(square_left, np.float64) / w_left
                + np.asarray(square_right, np.float64) / (w_node - w_left)
                - square_total[node] / w_node)


def children_statistics(classes, samples, counts, n_classes, criterion):
    """``treelib.criteria.node_statistics`` of consecutive nodes (``counts[s]`` samples
    each, ``samples`` their ids) from the samples' ``classes``, without sample weights,
    and without the nodes' one-hot rows: one ``np.bincount`` of (node, class) gives
    the class counts (whole numbers, the sums of the one-hot rows bit for bit), and
    ``class_statistics`` the rest; ``stats`` is None.  O(samples + nodes k) work and
    memory, instead of O(samples k)."""
    node = segment_ids(counts)
    key = np.multiply(node, n_classes, dtype=np.intp)
    key += np.take(classes, samples)
    totals = np.bincount(key, minlength=len(counts) * n_classes)
    totals = totals.reshape(len(counts), n_classes).astype(np.float64)
    return class_statistics(totals, np.asarray(counts, dtype=np.float64), criterion)
