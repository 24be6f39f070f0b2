"""Consecutive segments: the nodes of a level, laid out one after the other.

Level-wise growth keeps the samples of all the nodes of a level in one array, node after
node: node s holds positions ``starts[s] .. starts[s] + counts[s] - 1``.  These helpers
work on that layout with a fixed number of numpy calls, whatever the number of nodes.
Every segment must hold at least one position.
"""

import numpy as np

__all__ = ["FEW_SEGMENTS", "first_in_segments", "segment_ids", "segment_starts",
           "segmented_cumsum"]

#: Segments of one padded width handled by slicing, one numpy call each, rather than
#: gathered into one padded block (see ``segmented_cumsum``).
FEW_SEGMENTS = 8

#: Columns from which a padded block is summed row after row (``accumulate_rows``):
#: about where one vectorized addition of a row (a microsecond of call, a fraction of a
#: nanosecond a value) beats numpy's accumulation (about 3 ns a value, one column after
#: the other).  The running sums of a level-wise forest on california: 46 ms with
#: ``np.cumsum`` alone, 40 ms from 256 columns, 45 ms from 64, 43 ms from 1024.
ROW_ADDS_FROM = 256


def segment_starts(counts):
    """Position where each segment begins: ``[0, c0, c0 + c1, ...]``.  O(segments)."""
    counts = np.asarray(counts)
    starts = np.zeros(len(counts), dtype=np.intp)
    np.cumsum(counts[:-1], out=starts[1:])
    return starts


def segment_ids(counts):
    """The segment of every position: ``[0] * c0 + [1] * c1 + ...``.  O(positions)."""
    return np.repeat(np.arange(len(counts)), counts)


def segmented_cumsum(values, counts):
    """Running sums that restart at every segment, along axis 0.

    Each segment's running sums are bit for bit those of ``np.cumsum`` run on that
    segment alone: no rounding residue of one segment leaks into the next, as it would
    if one cumulative sum ran across all of them and the total before each segment were
    subtracted afterwards.  (A segment of targets around 1e12 leaves a residue that
    swamps the sums of a later segment of targets around 1e-10.)

    Segments are grouped by their length rounded up to a power of two, w.  A group of
    many short segments becomes one zero-padded block (w x segments) whose columns are
    summed along axis 0 (``accumulate_rows``: w vector additions, each as wide as the
    group, when it is wide); a group of few long ones is summed slice by slice.  Rows
    move in and out of the blocks whole (``np.take``, and one opaque item per row for the scatter).
    O(positions) work and at most twice the positions in memory, in O(log(longest
    segment)) numpy calls, plus one per row of a wide block (which spares more time than
    the call costs).  float64 rows of an even width are summed as complex128 pairs
    (``paired``): twice as fast, the same bits.
    """
    values = np.ascontiguousarray(values)
    counts = np.asarray(counts)
    out = np.empty_like(values)
    if values.size == 0:
        return out
    width = values[0].size                         # values per row
    if values.dtype == np.float64 and width % 2 == 0:
        return paired(values, counts)
    rows = values.reshape(len(values), width)
    item = np.dtype((np.void, values.itemsize * width))
    out_items = out.reshape(len(values), width).view(item)[:, 0]
    starts = segment_starts(counts)
    bits = np.ceil(np.log2(np.maximum(counts, 1))).astype(np.intp)
    by_width = np.argsort(bits, kind="stable")
    group_sizes = np.bincount(bits)
    group_starts = segment_starts(group_sizes)
    for b in np.flatnonzero(group_sizes):
        group = by_width[group_starts[b]:group_starts[b] + group_sizes[b]]
        if len(group) <= FEW_SEGMENTS:
            for s in group:
                np.cumsum(values[starts[s]:starts[s] + counts[s]], axis=0,
                          out=out[starts[s]:starts[s] + counts[s]])
            continue
        lengths = counts[group]
        column = np.repeat(np.arange(len(group)), lengths)
        row = np.arange(len(column)) - np.repeat(segment_starts(lengths), lengths)
        positions = np.repeat(starts[group], lengths) + row
        at = row * len(group) + column                  # block[row, column], flattened
        block = np.zeros(((1 << b) * len(group), width), dtype=values.dtype)
        block.view(item)[at, 0] = np.take(rows, positions, axis=0).view(item)[:, 0]
        accumulate_rows(block.reshape(1 << b, len(group) * width))
        out_items[positions] = np.take(block, at, axis=0).view(item)[:, 0]
    return out


def paired(values, counts):
    """``segmented_cumsum`` of float64 ``values`` whose rows hold an even number of
    values, summed as complex128 numbers, two neighbouring values each: a complex
    addition adds the real parts and the imaginary parts, two float64 additions, the
    same bits as each one alone, and numpy's accumulation, which waits on each addition
    before the next, runs two at once (about twice as fast).  O(positions)."""
    rows = values.reshape(len(values), -1).view(np.complex128)
    return segmented_cumsum(rows, counts).view(np.float64).reshape(values.shape)


def accumulate_rows(block):
    """``np.cumsum(block, axis=0, out=block)`` for a 2-d ``block``: the same additions
    in the same order (row r = row r - 1 + row r, column by column), so the same bits.
    numpy accumulates one column after the other, one addition waiting for the last (a
    few nanoseconds a value); a wide block (``ROW_ADDS_FROM`` columns or more) is summed
    instead one row after the other, one vectorized addition a row.  O(rows x columns)
    in O(rows) numpy calls when wide."""
    if block.shape[1] < ROW_ADDS_FROM:
        np.cumsum(block, axis=0, out=block)
        return
    for r in range(1, len(block)):
        np.add(block[r - 1], block[r], out=block[r])


def first_in_segments(mask, counts):
    """Offset of the first True of ``mask`` (positions, ...) inside each segment, for
    every column; ``counts[s]`` (one past its end) where the segment has none.
    O(positions)."""
    mask = np.asarray(mask)
    counts = np.asarray(counts)
    starts = segment_starts(counts)
    n = len(mask)
    index = np.arange(n).reshape((n,) + (1,) * (mask.ndim - 1))
    position = np.where(mask, index, n)
    first = np.minimum.reduceat(position, starts, axis=0)
    shape = (len(counts),) + (1,) * (mask.ndim - 1)
    return np.minimum(first - starts.reshape(shape), counts.reshape(shape))
