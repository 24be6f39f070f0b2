"""The stable partition of a level's rows into the next level's (level-wise growth).

``treelib.growth.level_wise`` keeps, for every feature, a row of the active samples' ids,
node after node, sorted by the feature inside each node.  When the nodes split, every
row is partitioned *stably*: each node's samples go to its left child, then its right
child, in the order they had, so the children's samples stay sorted and nothing is ever
sorted again.  ``partition_plan`` computes once per level where a node's samples land,
whatever the row; ``partition`` and ``partition_rows`` move one row, or several, by it.
``gather_plan`` and ``gather_rows`` make the same moves as a gather (the level-wise
exact grower's ``next_rows``: about four times faster than the scatter).
Cost: O(positions) for the plan, O(positions) per row moved.
"""

import numpy as np

from treelib.growth.threads import feature_chunks, run_chunks
from treelib.segments import segment_ids, segment_starts

#: Values (positions x rows) moved per gather of ``next_rows``: its temporaries (about
#: 30 bytes a value) stay within the processor's caches.  A forest of 20 trees on digits
#: (64 features, batches of 10 trees) grew in about 0.17 s with 2**14 to 2**18 values a
#: step, 0.21 to 0.25 s with 2**20 (scatter, before: 0.19 s, 0.26 s with 2**19).
MOVE_VALUES = 2**16


def partition_plan(counts, n_left, keep_left, keep_right):
    """Where the samples of a level go in the next one, whatever the row: the stable
    partition of every node into its left child then its right child, for s = 0, 1,
    ...; children with ``keep_left`` / ``keep_right`` False are left out.  Node s sends
    ``n_left[s]`` samples left in every row.

    Returns ``(to_left, to_right, n_next)``: a sample at position q that is the c-th
    (1, 2, ...) of its row to go left, counted from the row's start, lands at ``to_left[q]
    + c``; one that goes right at ``to_right[q] - c``.  Both follow from the children's
    starts: in node s (``starts[s]``, with ``left_before[s]`` samples sent left by the
    nodes before it) a left-goer is number ``c - left_before[s]`` of its left child, a
    right-goer number ``q - starts[s] - (c - left_before[s])`` of its right child.
    Samples of children left out land past ``n_next``, in a scratch area of one slot per
    position.  O(positions).
    """
    starts, segment = segment_starts(counts), segment_ids(counts)
    sizes = np.column_stack([np.where(keep_left, n_left, 0),
                             np.where(keep_right, counts - n_left, 0)]).ravel()
    new_start = segment_starts(sizes)
    left_before = segment_starts(n_left)
    n_next = int(sizes.sum())
    to_left = np.where(keep_left, new_start[0::2] - left_before - 1, n_next - 1)[segment]
    to_right = (np.where(keep_right, new_start[1::2] - starts + left_before, 0)[segment]
                + np.arange(len(segment)))
    to_right[~keep_right[segment]] = n_next + len(segment)
    index = np.int32 if n_next + 2 * len(segment) < 2**31 else np.intp
    return to_left.astype(index), to_right.astype(index), n_next


def partition(plan, goes_left, arrays):
    """The rows ``arrays`` (each (p,), in one row's order) moved to the next level by
    ``plan`` (``partition_plan``), ``goes_left`` (p,) saying where each sample goes.
    Inside each child the samples keep their order, so sorted rows stay sorted.  O(p)."""
    to_left, to_right, n_next = plan
    sent_left = np.cumsum(goes_left, dtype=to_left.dtype)
    destination = np.where(goes_left, to_left + sent_left, to_right - sent_left)
    result = []
    for array in arrays:
        out = np.empty(n_next + len(goes_left) + 1, dtype=array.dtype)
        out[destination] = array
        result.append(out[:n_next])
    return result


def partition_rows(plan, goes_left, pairs):
    """``partition`` of several rows at once: for each ``(rows, out)`` of ``pairs``,
    ``rows`` (c, p) moved by ``plan`` into ``out`` (c, n_next), ``goes_left`` (c, p)
    row by row.  ``out`` may be the first n_next columns of ``rows`` itself (rows are
    read whole before ``out`` is written).  The scatter form of the move: the growers
    call ``gather_rows`` (the same moves, faster); this one is kept as its plain
    reference (tests/growth/test_level_partition.py).  O(c p) time, O(c p) temporary
    memory."""
    to_left, to_right, n_next = plan
    c, p = goes_left.shape
    sent_left = np.cumsum(goes_left, axis=1, dtype=to_left.dtype)
    destination = np.where(goes_left, to_left + sent_left, to_right - sent_left)
    destination = destination + (np.arange(c, dtype=np.intp) * (n_next + p + 1))[:, None]
    for rows, out in pairs:
        moved = np.empty((c, n_next + p + 1), dtype=rows.dtype)
        moved.ravel()[destination.ravel()] = rows.ravel()
        out[...] = moved[:, :n_next]


def gather_plan(counts, n_left, keep_left, keep_right):
    """``partition_plan``'s move as a gather: where each position of the next level
    comes from, whatever the row.  Every row of a level sends ``n_left[s]`` samples of
    node s left, so once a row is split into its left-goers then its right-goers (each
    in the row's order: node 0's, node 1's, ...), node s's left child is the block of
    ``n_left[s]`` left-goers after those of the nodes before it, its right child the
    block of right-goers likewise.  Returns ``(source, n_lefts)``: position i of the
    next level is position ``source[i]`` of that split row, whose first ``n_lefts``
    positions are the left-goers; the children of ``keep_left`` / ``keep_right`` False
    are left out.  O(positions of the next level)."""
    counts, n_left = np.asarray(counts), np.asarray(n_left)
    n_right = counts - n_left
    sizes = np.column_stack([np.where(keep_left, n_left, 0),
                             np.where(keep_right, n_right, 0)]).ravel()
    n_lefts = int(n_left.sum())
    first = np.column_stack([segment_starts(n_left),
                             n_lefts + segment_starts(n_right)]).ravel()
    source = np.arange(int(sizes.sum())) + np.repeat(first - segment_starts(sizes), sizes)
    return source, n_lefts


def gather_rows(plan, goes_left, pairs):
    """``partition_rows`` by a gather (``gather_plan``): for each ``(rows, out)`` of
    ``pairs``, ``rows`` (c, p) moved into ``out`` (c, n_next), ``goes_left`` (c, p) row by
    row, each row sending ``plan``'s ``n_lefts`` samples left.  The flat positions of
    each row's left-goers then right-goers (``np.flatnonzero``, in order) are taken at
    ``source``, one index for all the rows.  ``out`` may be the first n_next columns of
    ``rows`` itself.  The same moves as ``partition_rows``, about four times faster (a
    boolean mask's scatter and running count cost more than two ``np.flatnonzero``).
    O(c p) time and temporary memory."""
    source, n_lefts = plan
    c, p = goes_left.shape
    split = np.empty((c, p), dtype=np.intp)
    split[:, :n_lefts] = np.flatnonzero(goes_left).reshape(c, n_lefts)
    split[:, n_lefts:] = np.flatnonzero(~goes_left).reshape(c, p - n_lefts)
    index = np.take(split, source, axis=1)
    for rows, out in pairs:
        out[...] = np.take(rows, index)


def next_rows(level, splits, goes_left, keep, n_jobs=1):
    """The next level's ``order`` and ``x_sorted`` (None if the level keeps no values):
    every feature's row partitioned stably, keeping the children ``keep`` (left then
    right of each parent).

    Every row is moved in place: the next level's rows are the first n_next positions of
    this level's (views of the arrays sorted at the root, which are never copied).
    Groups of rows in ``n_jobs`` threads, each group a few rows at a time (one
    ``gather_rows`` per ``MOVE_VALUES`` values, through temporaries of those rows only).
    O(f n_active).
    """
    n_active = level.order.shape[1]
    keep_left, keep_right = np.zeros_like(splits.splitting), np.zeros_like(splits.splitting)
    keep_left[splits.parents], keep_right[splits.parents] = keep[0::2], keep[1::2]
    plan = gather_plan(level.counts, splits.n_left, keep_left, keep_right)
    arrays = [a for a in (level.order, level.x_sorted) if a is not None]
    moved = [a[:, :len(plan[0])] for a in arrays]
    n_rows = max(1, MOVE_VALUES // max(1, n_active))

    def move(rows):
        for j in range(rows.start, rows.stop, n_rows):
            part = slice(j, min(j + n_rows, rows.stop))
            gather_rows(plan, goes_left[level.order[part]],
                        [(a[part], out[part]) for a, out in zip(arrays, moved)])

    run_chunks(move, feature_chunks(level.order.shape[0], 4 * n_active, n_jobs), n_jobs)
    return moved[0], moved[1] if len(moved) > 1 else None
