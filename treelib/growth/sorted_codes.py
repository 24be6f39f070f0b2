"""Small nodes' samples kept sorted by bin code from one level to the next.

A node with fewer samples than its histogram has bins is searched from its populated bins
only (``treelib.growth.level_histograms.populated_bins``): for every feature, its samples
sorted by code, each run of equal codes one bin.  Sorting them again at every level would
cost O(f n log n) per level.  Instead a node's samples are sorted **once**, feature by
feature, when it first becomes small (``sort_rows``), and from then on every row is split
**stably** at every level (``move_rows``), the way ``treelib.growth.level_wise`` keeps the
exact grower's rows sorted.  A child of a small node is small, so it never needs sorting.

Inside every bin the samples stay in increasing sample id: the order of the level's
samples (every partition of them is stable, from ``np.arange(n)`` at the root), so the
order in which ``np.bincount`` adds a bin's statistics, and its sums are the dense
histogram's bit for bit.

Layout: the small nodes of a level, in level order, one after the other (``counts``), in
every row; ``rows`` (f, p) their sample ids, ``codes`` (f, p) the matching codes.
Memory: 4 + 1 bytes per (sample, feature) of the small nodes, at most the data's
(n, f) codes five times over, plus O(CHUNK_VALUES) temporaries per group of rows.
"""

from dataclasses import dataclass

import numpy as np

from treelib.growth.threads import CHUNK_VALUES, feature_chunks
from treelib.segments import segment_ids, segment_starts


@dataclass
class SortedRows:
    """The small nodes' samples (``counts``, in level order), each row j sorted by the
    code of feature j inside every node, ties in increasing sample id."""

    counts: np.ndarray       # (m_small,) samples of each small node
    rows: np.ndarray         # (f, p) sample ids
    codes: np.ndarray        # (f, p) their codes


def sort_rows(codes, samples, counts):
    """``samples`` (node after node, ``counts``, increasing ids inside each node) sorted by
    code inside each node, feature by feature: ``(rows, row_codes)``, both (f, p).
    O(f p) (stable radix sorts of 8 and 16 bits; O(f p log p) past 65,536 nodes), one
    or two sorts per group of features (``feature_chunks``: a few dozen bytes of
    temporaries per position of a group, within ``CHUNK_VALUES`` positions)."""
    f, p = codes.shape[1], len(samples)
    index = np.int32 if codes.shape[0] < 2**31 else np.intp
    rows = np.empty((f, p), dtype=index)
    row_codes = np.empty((f, p), dtype=codes.dtype)
    n_codes = int(np.iinfo(codes.dtype).max) + 1
    node = segment_ids(counts)
    # numpy sorts integers of 16 bits or fewer stably by radix, O(p): one key (node, code)
    # if it fits in 16 bits, else by code, then by node
    one_key = n_codes <= 256 and len(counts) * n_codes <= 2**16
    node = node.astype(np.uint16 if len(counts) <= 2**16 else np.intp)
    if one_key:
        node = node * np.uint16(n_codes)
    for group in feature_chunks(f, 8 * max(1, p)):
        x = np.ascontiguousarray(codes[samples, group.start:group.stop].T)     # (c, p)
        if one_key:
            order = np.argsort(node + x, axis=1, kind="stable")
        else:
            order = np.argsort(x, axis=1, kind="stable")
            order = np.take_along_axis(
                order, np.argsort(node[order], axis=1, kind="stable"), axis=1)
        rows[group] = samples[order]
        row_codes[group] = np.take_along_axis(x, order, axis=1)
    return rows, row_codes


def move_rows(sorted_rows, goes_left, n_left, left_start, right_start, n_next, fresh=None):
    """The next level's ``SortedRows``: every row of ``sorted_rows`` split stably.

    ``goes_left`` (n,) by sample id; a small node s sends its ``n_left[s]`` left-goers
    (all its samples if it does not split) to positions
    ``left_start[s]``, ... of every row of the next level's layout and its right-goers to
    ``right_start[s]``, ...; -1: that child is dropped (a leaf, or s does not split).
    ``fresh``: ``(positions, rows, codes)``, the samples of the nodes that became small
    at this level, already sorted (``sort_rows``), written at ``positions`` (p_fresh,)
    of every row.  Returns ``(rows, codes)`` (f, n_next): when they fit (n_next <= p),
    the first n_next columns of ``sorted_rows``' own arrays, moved in place (each group
    of rows read whole before it is written), so the rows sorted once are never copied.
    O(f p) work, in groups of rows of about ``CHUNK_VALUES`` positions.
    """
    rows, codes = sorted_rows.rows, sorted_rows.codes
    f, p = rows.shape
    if n_next <= p:
        out_rows, out_codes = rows[:, :n_next], codes[:, :n_next]
    else:
        out_rows = np.empty((f, n_next), dtype=rows.dtype)
        out_codes = np.empty((f, n_next), dtype=codes.dtype)
    if p:
        counts = sorted_rows.counts
        starts, segment = segment_starts(counts), segment_ids(counts)
        width = n_next + p + 1                   # dropped samples land past n_next
        index = np.int32 if f * width < 2**31 else np.intp
        # every row sends the same number of samples left from each node
        left_before = segment_starts(n_left)
        # a position's destination: to_left + (left-goers of its row so far), or
        # to_right - (left-goers so far), as in ``level_partition.partition_plan``
        to_left = np.where(left_start >= 0, left_start - left_before - 1,
                           n_next - 1)[segment].astype(index)
        kept_right = (right_start >= 0)[segment]
        to_right = (np.where(right_start >= 0, right_start - starts + left_before,
                             width - 1)[segment]
                    + np.where(kept_right, np.arange(p), 0)).astype(index)
        n_rows = max(1, CHUNK_VALUES // max(1, 4 * p))
        for j in range(0, f, n_rows):
            part = slice(j, min(j + n_rows, f))
            left = np.take(goes_left, rows[part])                            # (c, p)
            sent_left = np.cumsum(left, axis=1, dtype=index)
            destination = np.add(to_left, sent_left)
            right = np.subtract(to_right, sent_left, out=sent_left)
            np.copyto(destination, right, where=np.logical_not(left, out=left))
            destination += (np.arange(len(left), dtype=index) * width)[:, None]
            for source, out in ((rows, out_rows), (codes, out_codes)):
                moved = np.empty((len(left), width), dtype=source.dtype)
                moved.ravel()[destination.ravel()] = source[part].ravel()
                out[part] = moved[:, :n_next]
    if fresh is not None:
        positions, fresh_rows, fresh_codes = fresh
        out_rows[:, positions], out_codes[:, positions] = fresh_rows, fresh_codes
    return out_rows, out_codes


def small_rows(codes, samples, counts, dense_min):
    """``SortedRows`` of the nodes (``counts``, their ``samples`` node after node) with
    fewer than ``dense_min`` samples, sorted now.  O(f p) for their p samples."""
    small = counts < dense_min
    in_small = np.repeat(small, counts)
    rows, row_codes = sort_rows(codes, samples[in_small], counts[small])
    return SortedRows(counts=counts[small], rows=rows, codes=row_codes)


def next_sorted(level, codes, dense_min, split, keep):
    """The next level's ``SortedRows``: the children of small nodes moved by a stable
    split of the rows (``move_rows``), the small children of dense nodes sorted (the
    first time they are small); small: fewer than ``dense_min`` samples.  ``level`` is
    ``treelib.growth.hist_search``'s ``HistLevel``, ``split`` how it splits
    (``treelib.growth.level_wise_hist``'s ``LevelSplit``: ``goes_left`` for the level's
    samples, ``n_left`` per node, ``splitting``, the ``children``' samples and
    ``child_counts``), ``keep`` its children that may split.  O(f p) plus O(f q) for the
    q samples that become small."""
    goes_left, n_left, splitting = split.goes_left, split.n_left, split.splitting
    children, child_counts = split.children, split.child_counts
    counts = level.counts
    next_counts = child_counts[keep]
    next_small = next_counts < dense_min
    sizes = np.where(next_small, next_counts, 0)
    n_next = int(sizes.sum())
    destination = np.full(len(child_counts), -1)       # each child's start in the rows
    destination[keep] = np.where(next_small, segment_starts(sizes), -1)
    parent_rank = np.cumsum(splitting) - 1
    # the children of dense nodes that are small in the next level: sorted now
    parent_dense = np.repeat(counts[splitting] >= dense_min, 2)
    fresh = np.flatnonzero(parent_dense & (destination >= 0))
    if len(fresh):
        in_fresh = np.zeros(len(child_counts), dtype=bool)
        in_fresh[fresh] = True
        fresh_rows, fresh_codes = sort_rows(codes, children[np.repeat(in_fresh, child_counts)],
                                            child_counts[fresh])
        positions = (np.arange(int(child_counts[fresh].sum()))
                     + np.repeat(destination[fresh] - segment_starts(child_counts[fresh]),
                                 child_counts[fresh]))
        fresh = (positions, fresh_rows, fresh_codes)
    else:
        fresh = None
    old = level.sorted
    if old.rows.shape[1] == 0 and fresh is not None:
        return SortedRows(counts=next_counts[next_small], rows=fresh[1], codes=fresh[2])
    small = np.flatnonzero(counts < dense_min)
    left_child = np.where(splitting[small], 2 * parent_rank[small], -1)
    left_start = np.where(left_child >= 0, destination[np.maximum(left_child, 0)], -1)
    right_start = np.where(left_child >= 0, destination[np.maximum(left_child, 0) + 1], -1)
    by_id = np.zeros(codes.shape[0], dtype=bool)
    by_id[level.samples] = goes_left
    rows, row_codes = move_rows(old, by_id, n_left[small], left_start, right_start, n_next,
                                fresh)
    return SortedRows(counts=next_counts[next_small], rows=rows, codes=row_codes)
