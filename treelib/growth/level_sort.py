"""The level-wise exact grower's one sort: every feature sorted once, at the root.

``treelib.growth.level_wise`` keeps, for every feature, the active samples sorted by it,
node after node; they are sorted here once, before the first level, and from then on
only partitioned stably (``treelib.growth.level_partition``).  Whole-numbered features
(pixels, counts, codes) are sorted by 16-bit keys, numpy's stable radix sort.
"""

import numpy as np

from treelib.growth.threads import feature_chunks, run_chunks

__all__ = ["small_whole_keys", "sorted_rows"]


def sorted_rows(data, n_jobs=1):
    """Every feature of ``data`` (n, f) sorted once: ``order`` (f, n), the sample ids of
    row j in increasing x_j (stable), and ``x_sorted`` (f, n) their values, the features
    divided among ``n_jobs`` threads.  Each group of features is transposed on its own
    (no (f, n) copy of the data beside the two results).  O(f n log n) time, O(f n)
    memory: the results, plus O(n) per feature of a group (``feature_chunks``)."""
    values = np.asarray(data)
    n, f = values.shape
    index = np.int32 if n < 2**31 else np.intp
    order = np.empty((f, n), dtype=index)
    x_sorted = np.empty((f, n), dtype=values.dtype)

    def sort_rows(rows):                     # each feature sorted once, in threads
        block = np.ascontiguousarray(values[:, rows.start:rows.stop].T)
        keys = small_whole_keys(block)
        order[rows] = np.argsort(block if keys is None else keys, axis=1, kind="stable")
        x_sorted[rows] = np.take_along_axis(block, order[rows], axis=1)

    run_chunks(sort_rows, feature_chunks(f, 4 * n, n_jobs), n_jobs)
    return order, x_sorted


def small_whole_keys(block):
    """16-bit sort keys of the rows of ``block`` (c, n) when every value is a finite whole
    number and every row lies within 65,535 of its smallest (pixels, counts, codes): each
    value minus its row's smallest.  The exact difference of two whole numbers is a whole
    number, and one of at most 65,535 is a float32 and a float64, so the subtraction
    returns it exactly: the keys order the values as they are ordered and tie exactly
    where they tie (0.0 and -0.0 as well).  (Values that are not whole could differ by
    less than one and still give one whole difference after rounding: they are refused.)
    numpy sorts the keys stably by radix, in O(n) rather than O(n log n).  None
    otherwise.  O(c n)."""
    if block.size == 0 or not np.isfinite(block).all():
        return None
    if not (block == np.floor(block)).all():
        return None
    shifted = block - block.min(axis=1, keepdims=True)
    if not (shifted <= 65535).all():
        return None
    return shifted.astype(np.uint16)
