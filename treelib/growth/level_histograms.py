"""A level's histograms: dense ones counted with ``np.bincount`` (or derived by the
subtraction trick), and, for nodes smaller than their histograms, the populated bins only.

Used by ``treelib.growth.hist_search``; ``level`` is its ``HistLevel``, ``search`` its
``LevelSearch``.
"""

import numpy as np

from treelib.segments import segment_ids, segment_starts


def sibling_samples(level, s):
    """The samples of node s's counted sibling (a node of the level, or helper samples)."""
    if level.sibling[s] >= 0:
        start = segment_starts(level.counts)[level.sibling[s]]
        return level.samples[start:start + level.counts[level.sibling[s]]]
    start = segment_starts(level.helper_counts)[s]
    return level.helper[start:start + level.helper_counts[s]]


def feature_histograms(level, search, features, dense):
    """The dense histograms of the nodes ``dense`` (a mask) for a group of features:
    sums (d, c, B, k) and counts (d, c, B).  Counted (``count_histograms``), or, for a
    derived node, its parent's minus its sibling's (counted here too), re-centred from the
    parent's mean to its own (``subtracted_histograms``).  ``search``: a
    ``treelib.growth.hist_search.LevelSearch``.  O(c x samples counted + d c B k)."""
    counted = np.flatnonzero(dense & ~level.derived)
    derived = np.flatnonzero(dense & level.derived)
    samples, run, n_runs, sibling_slot = counting_runs(level, counted, derived)
    sums, counts = count_histograms(search, features, samples, run, n_runs)
    rank = np.cumsum(dense) - 1
    k, c, n_bins = search.stats.shape[1], len(features), search.n_bins
    out_sums = np.empty((int(dense.sum()), c, n_bins, k))
    out_counts = np.empty((int(dense.sum()), c, n_bins), dtype=np.intp)
    out_sums[rank[counted]], out_counts[rank[counted]] = sums[:len(counted)], counts[:len(counted)]
    if len(derived):
        out_sums[rank[derived]], out_counts[rank[derived]] = subtracted_histograms(
            level, derived, features, (sums[sibling_slot], counts[sibling_slot]),
            search.weighted)
    return out_sums, out_counts


def counting_runs(level, counted, derived):
    """The samples whose histograms are counted for the nodes ``counted`` and the counted
    siblings of the nodes ``derived``: ``(samples, run, n_runs, sibling_slot)``, each
    sample's run (``counted``'s rank, then one run per helper sibling), how many runs, and
    each derived node's sibling's run.  A derived node's sibling is counted once: as a
    node of ``counted``, or as a helper run of its own.  O(samples)."""
    slot_of = np.full(len(level.counts), -1)
    slot_of[counted] = np.arange(len(counted))
    sibling_slot = np.where(level.sibling[derived] >= 0,
                            slot_of[np.maximum(level.sibling[derived], 0)], -1)
    needs_run = derived[sibling_slot < 0]
    sibling_slot[sibling_slot < 0] = len(counted) + np.arange(len(needs_run))
    is_counted = np.zeros(len(level.counts), dtype=bool)
    is_counted[counted] = True
    in_counted = np.repeat(is_counted, level.counts)
    helper_runs = [sibling_samples(level, s) for s in needs_run]
    samples = np.concatenate([level.samples[in_counted], *helper_runs])
    run = np.concatenate([slot_of[segment_ids(level.counts)[in_counted]],
                          np.repeat(len(counted) + np.arange(len(needs_run)),
                                    [len(r) for r in helper_runs]).astype(np.intp)])
    return samples, run, len(counted) + len(needs_run), sibling_slot


def count_histograms(search, features, samples, run, n_runs):
    """The histograms of ``n_runs`` runs of ``samples`` (each one's ``run``) at a group
    of features: sums (n_runs, c, B, k) and counts (n_runs, c, B), feature by feature with
    one ``np.bincount`` over (run, bin) keys per statistic (no (n, c) temporaries).
    O(c samples k + n_runs c B k)."""
    stats, n_bins, k, c = search.stats, search.n_bins, search.stats.shape[1], len(features)
    index = np.int32 if n_runs * n_bins < 2**31 else np.intp
    base = run.astype(index) * n_bins                  # each sample's run, times B
    sample_stats = [np.take(stats[:, column], samples) for column in range(k)]
    counts = np.empty((n_runs, c, n_bins), dtype=np.intp)
    sums = np.empty((n_runs, c, n_bins, k))
    for i, j in enumerate(features):
        keys = base + search.codes[samples, j]
        counts[:, i] = np.bincount(keys, minlength=n_runs * n_bins).reshape(n_runs, n_bins)
        for column in range(k):
            sums[:, i, :, column] = np.bincount(keys, weights=sample_stats[column],
                                                minlength=n_runs * n_bins).reshape(n_runs,
                                                                                  n_bins)
    if search.counter is not None:
        search.counter.histogram_pairs += len(samples) * c
    return sums, counts


def subtracted_histograms(level, derived, features, siblings, weighted=False):
    """The histograms of the nodes ``derived`` at a group of features: their parents'
    (``level.store``) minus their counted siblings' (``siblings``: sums, counts),
    re-centred from the parent's mean to the node's own.  ``weighted``: the last column
    of the sums is the sample weights, and a bin is re-centred by its weight (the sum of
    that column), not its count: a weighted squared-error statistic is w (y - mean), so
    moving it to another mean moves the bin's sum by its weight times the shift.
    O(d c B k)."""
    sib_sums, sib_counts = siblings
    parent_sums = level.store.sums[level.parent_slot[derived]][:, features]
    parent_counts = level.store.counts[level.parent_slot[derived]][:, features]
    own_counts = parent_counts - sib_counts
    # each bin's weight: its count, or with sample weights the sum of their column
    # (whose shift is 0: the parent's weights minus the sibling's)
    sib_weights, own_weights = sib_counts, own_counts
    if weighted:
        sib_weights = sib_sums[..., -1]
        own_weights = parent_sums[..., -1] - sib_weights
    # in the parent's centring: parent - (sibling + w_sibling * shift_sibling); then
    # in the node's own: - w * shift
    difference = (parent_sums - sib_sums
                  - sib_weights[..., None] * level.sibling_shift[derived][:, None, None, :]
                  - own_weights[..., None] * level.shift[derived][:, None, None, :])
    difference[own_counts == 0] = 0.0            # an empty bin's sums are exactly 0
    return difference, own_counts


def populated_bins(rows, row_codes, counts, stats, min_samples_leaf):
    """The candidate cuts after the populated bins of the small nodes, for a group of
    features.

    ``rows`` (c, p) and ``row_codes`` (c, p): the small nodes' samples (``counts``, node
    after node), each row sorted by code inside every node, ties in increasing sample id
    (``treelib.growth.sorted_codes``).  Each run of equal codes is a populated bin; its
    sums are added by ``np.bincount`` in the row's order, the order in which it adds the
    dense histogram's, and their running sums restarted at every (feature, node)
    (``segmented_cumsum``) are the left sums, bit for bit those of the dense histogram.
    Returns, for the cut after every run, ordered by row, then node, then bin: its left
    sums (runs, k), left count, row (in the group), node (among the small ones) and bin,
    and whether it is a candidate (it leaves ``min_samples_leaf`` samples on both
    sides).  O(c p k) work and memory.
    """
    c, p = rows.shape
    m = len(counts)
    starts = segment_starts(counts)
    new_run = np.empty((c, p), dtype=bool)
    new_run[:, 0] = True
    np.not_equal(row_codes[:, 1:], row_codes[:, :-1], out=new_run[:, 1:])
    new_run[:, starts] = True
    first = np.flatnonzero(new_run)                          # each run's first position
    run = np.cumsum(new_run.ravel(), dtype=np.intp) - 1
    samples = rows.ravel()
    run_sums = np.stack([np.bincount(run, weights=np.take(stats[:, column], samples),
                                     minlength=len(first))
                         for column in range(stats.shape[1])], axis=1)
    row_runs = np.diff(np.searchsorted(first, np.arange(c + 1) * p))
    row = np.repeat(np.arange(c), row_runs)
    position = first - row * p
    node = np.take(segment_ids(counts), position)
    group = row * m + node                                   # (row, node), sorted
    left_sums = short_cumsums(run_sums, group, np.bincount(group, minlength=c * m))
    # a run ends where the next begins (every node's start begins a run): counts exact
    n_left = np.empty(len(first), dtype=np.intp)
    n_left[:-1] = first[1:]
    n_left[-1:] = c * p
    n_left -= row * p
    n_left -= np.take(starts, node)
    n_node = np.take(counts, node)
    candidate = (n_left >= min_samples_leaf) & (n_node - n_left >= min_samples_leaf)
    return left_sums, n_left, row, node, row_codes.ravel()[first], candidate


def short_cumsums(values, segment, counts):
    """Running sums of ``values`` (positions, k) restarted at every segment (``counts``,
    each at least 1; ``segment``: each position's), bit for bit ``np.cumsum`` run on each
    segment alone, as ``treelib.segments.segmented_cumsum``, for many short segments.

    The segments are ordered by length, longest first, and their i-th values stored side
    by side (a ragged transpose: row i holds the segments longer than i); then row i is
    added to row i - 1's prefix, one vector addition per row.  O(positions) work and
    memory plus O(segments log segments) for the order, in O(longest segment) numpy
    calls: for segments of a few hundred values at most (a node's populated bins).
    """
    if len(values) == 0:
        return values.copy()
    longest = int(counts.max())
    by_length = np.argsort((longest - counts).astype(np.uint8 if longest < 256 else np.intp),
                           kind="stable")
    rank = np.empty(len(counts), dtype=np.intp)
    rank[by_length] = np.arange(len(counts))
    # row i holds the segments longer than i: ``longer[i]`` of them, from ``row_start[i]``
    longer = len(counts) - np.cumsum(np.bincount(counts, minlength=longest + 1))[:longest]
    row_start = segment_starts(longer)
    at = np.arange(len(values)) - segment_starts(counts)[segment]     # offset in segment
    at = row_start[at]
    at += rank[segment]
    rows = values.reshape(len(values), -1)
    ragged = np.empty_like(rows[:, 0] if rows.shape[1] == 1 else rows)
    ragged[at] = rows[:, 0] if rows.shape[1] == 1 else rows
    for i in range(1, longest):
        before, start, n = row_start[i - 1], row_start[i], longer[i]
        np.add(ragged[before:before + n], ragged[start:start + n], out=ragged[start:start + n])
    return ragged[at].reshape(values.shape)
