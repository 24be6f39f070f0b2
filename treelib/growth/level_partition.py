"""The stable partition of a level's rows into the next level's (level-wise growth).

``treelib.growth.level_wise`` keeps, for every feature, a row of the active samples' ids,
node after node, sorted by the feature inside each node.  When the nodes split, every
row is partitioned *stably*: each node's samples go to its left child, then its right
child, in the order they had, so the children's samples stay sorted and nothing is ever
sorted again.  ``partition_plan`` computes once per level where a node's samples land,
whatever the row; ``partition`` and ``partition_rows`` move one row, or several, by it.
Cost: O(positions) for the plan, O(positions) per row moved.
"""

import numpy as np

from treelib.segments import segment_ids, segment_starts


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
    read whole before ``out`` is written).  O(c p) time, O(c p) temporary memory."""
    to_left, to_right, n_next = plan
    c, p = goes_left.shape
    sent_left = np.cumsum(goes_left, axis=1, dtype=to_left.dtype)
    destination = np.where(goes_left, to_left + sent_left, to_right - sent_left)
    destination = destination + (np.arange(c, dtype=np.intp) * (n_next + p + 1))[:, None]
    for rows, out in pairs:
        moved = np.empty((c, n_next + p + 1), dtype=rows.dtype)
        moved.ravel()[destination.ravel()] = rows.ravel()
        out[...] = moved[:, :n_next]
