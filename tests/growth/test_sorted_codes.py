"""The small nodes' sorted rows of the level-wise histogram grower: sorted once
(``sort_rows``), split stably at every level (``move_rows``), and their populated bins'
sums (``populated_bins``, ``short_cumsums``), each against the plain version: a fresh
sort, the dense ``np.bincount`` histogram and its ``np.cumsum``, bit for bit."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from treelib.growth.level_histograms import populated_bins, short_cumsums
from treelib.growth.sorted_codes import SortedRows, move_rows, sort_rows
from treelib.segments import segment_starts, segmented_cumsum


@st.composite
def nodes(draw, max_nodes=12):
    """Codes (n, f), node sizes and the nodes' samples (increasing ids inside each)."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    counts = np.array(draw(st.lists(st.integers(1, 30), min_size=1, max_size=max_nodes)))
    n = int(counts.sum()) + draw(st.integers(0, 10))          # some samples in no node
    f = draw(st.integers(1, 4))
    codes = rng.integers(0, draw(st.integers(1, 256)), size=(n, f)).astype(np.uint8)
    samples = rng.permutation(n)[:counts.sum()]
    samples = np.concatenate([np.sort(part) for part in np.split(samples,
                                                                  np.cumsum(counts)[:-1])])
    return codes, counts, samples, rng


def plain_sort(codes, samples, counts):
    """Each node's samples sorted by code, feature by feature, ties by position."""
    node = np.repeat(np.arange(len(counts)), counts)
    order = [np.lexsort((np.arange(len(samples)), codes[samples, j], node))
             for j in range(codes.shape[1])]
    return np.array([samples[o] for o in order]), np.array(
        [codes[samples[o], j] for j, o in enumerate(order)])


@settings(max_examples=200, deadline=None)
@given(data=nodes())
def test_sort_rows_is_a_stable_sort_by_code_inside_each_node(data):
    codes, counts, samples, _ = data
    rows, row_codes = sort_rows(codes, samples, counts)
    expected_rows, expected_codes = plain_sort(codes, samples, counts)
    np.testing.assert_array_equal(rows, expected_rows)
    np.testing.assert_array_equal(row_codes, expected_codes)


def test_sort_rows_with_more_nodes_than_a_16_bit_key_holds():
    rng = np.random.default_rng(0)
    counts = rng.integers(1, 5, 700)                           # 700 x 256 > 2**16
    codes = rng.integers(0, 256, size=(int(counts.sum()), 3)).astype(np.uint8)
    samples = np.arange(len(codes))
    rows, row_codes = sort_rows(codes, samples, counts)
    expected_rows, expected_codes = plain_sort(codes, samples, counts)
    np.testing.assert_array_equal(rows, expected_rows)
    np.testing.assert_array_equal(row_codes, expected_codes)


@settings(max_examples=200, deadline=None)
@given(data=nodes(), fresh_nodes=st.integers(0, 3))
def test_moved_rows_are_the_children_sorted_afresh(data, fresh_nodes):
    """Split every node at random (or not at all), drop some children, add some fresh
    nodes: the moved rows are those of the children sorted from scratch."""
    codes, counts, samples, rng = data
    n = len(codes)
    rows, row_codes = sort_rows(codes, samples, counts)
    splits = rng.random(len(counts)) < 0.8
    goes_left = np.ones(n, dtype=bool)
    goes_left[samples] = rng.random(len(samples)) < 0.5
    goes_left[samples[~np.repeat(splits, counts)]] = True      # a node that does not split
    parts = np.split(samples, np.cumsum(counts)[:-1])
    children = []                    # (node, side, samples in increasing id) of the kept
    for s, part in enumerate(parts):
        if not splits[s]:
            continue
        for side, members in ((0, part[goes_left[part]]), (1, part[~goes_left[part]])):
            if len(members) and rng.random() < 0.8:
                children.append((s, side, members))
    # fresh nodes (children of dense nodes), from samples outside the small nodes
    outside = np.setdiff1d(np.arange(n), samples)
    fresh = [np.sort(rng.choice(outside, size=min(len(outside), rng.integers(1, 4)),
                                replace=False)) for _ in range(fresh_nodes) if len(outside)]
    fresh = [f for f in fresh if len(f)]
    # the next level: the fresh nodes first, then the kept children in node order
    layout = [members for members in fresh] + [members for _, _, members in children]
    next_counts = np.array([len(members) for members in layout], dtype=np.intp)
    starts = segment_starts(next_counts) if len(layout) else np.zeros(0, np.intp)
    left_start = np.full(len(counts), -1)
    right_start = np.full(len(counts), -1)
    for (s, side, _), start in zip(children, starts[len(fresh):]):
        (left_start if side == 0 else right_start)[s] = start
    n_left = np.array([int(goes_left[part].sum()) for part in parts])
    fresh_args = None
    if fresh:
        fresh_samples = np.concatenate(fresh)
        fresh_rows, fresh_codes = sort_rows(codes, fresh_samples, next_counts[:len(fresh)])
        fresh_args = (np.arange(len(fresh_samples)), fresh_rows, fresh_codes)
    n_next = int(next_counts.sum())
    moved_rows, moved_codes = move_rows(SortedRows(counts, rows, row_codes), goes_left,
                                        n_left, left_start, right_start, n_next, fresh_args)
    if n_next == 0:
        assert moved_rows.shape == (codes.shape[1], 0)
        return
    expected_rows, expected_codes = plain_sort(codes, np.concatenate(layout), next_counts)
    np.testing.assert_array_equal(moved_rows, expected_rows)
    np.testing.assert_array_equal(moved_codes, expected_codes)


@settings(max_examples=200, deadline=None)
@given(data=nodes(), k=st.integers(1, 3), offset=st.sampled_from([0.0, 1e12]),
       min_samples_leaf=st.integers(1, 3))
def test_populated_bins_are_the_dense_histograms_cumsums(data, k, offset, min_samples_leaf):
    """Left sums and counts after each populated bin, bit for bit those of the dense
    histogram (``np.bincount`` in sample order, then ``np.cumsum`` over the bins)."""
    codes, counts, samples, rng = data
    stats = rng.normal(size=(len(codes), k)) * rng.choice([1e-10, 1.0, 1e6]) + offset
    rows, row_codes = sort_rows(codes, samples, counts)
    left, n_left, row, node, bin_, candidate = populated_bins(rows, row_codes, counts,
                                                             stats, min_samples_leaf)
    expected = []
    for j in range(codes.shape[1]):
        for s, part in enumerate(np.split(samples, np.cumsum(counts)[:-1])):
            x = codes[part, j].astype(np.intp)
            sums = np.stack([np.cumsum(np.bincount(x, weights=stats[part, c], minlength=256))
                             for c in range(k)], axis=1)
            filled = np.cumsum(np.bincount(x, minlength=256))
            for b in np.unique(x):
                ok = min_samples_leaf <= filled[b] <= len(part) - min_samples_leaf
                expected.append((j, s, b, filled[b], ok, sums[b]))
    assert len(expected) == len(left)
    np.testing.assert_array_equal(row, [e[0] for e in expected])
    np.testing.assert_array_equal(node, [e[1] for e in expected])
    np.testing.assert_array_equal(bin_, [e[2] for e in expected])
    np.testing.assert_array_equal(n_left, [e[3] for e in expected])
    np.testing.assert_array_equal(candidate, [e[4] for e in expected])
    np.testing.assert_array_equal(left, np.array([e[5] for e in expected]))   # bit for bit


@settings(max_examples=200, deadline=None)
@given(counts=st.lists(st.integers(1, 40), min_size=1, max_size=60), k=st.integers(1, 3),
       seed=st.integers(0, 2**32 - 1), scale=st.sampled_from([1e-10, 1.0, 1e12]))
def test_short_cumsums_are_segmented_cumsums(counts, k, seed, scale):
    counts = np.array(counts)
    rng = np.random.default_rng(seed)
    values = rng.normal(size=(int(counts.sum()), k)) * scale + rng.normal() * 1e12
    segment = np.repeat(np.arange(len(counts)), counts)
    np.testing.assert_array_equal(short_cumsums(values, segment, counts),
                                  segmented_cumsum(values, counts))
    np.testing.assert_array_equal(short_cumsums(values[:, 0], segment, counts),
                                  segmented_cumsum(values[:, 0], counts))
