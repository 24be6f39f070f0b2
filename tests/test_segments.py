"""Consecutive segments (``treelib.segments``) against plain Python loops over the
segments one at a time; ``segmented_cumsum`` against ``np.cumsum`` of each segment alone,
bit for bit."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import treelib.segments
from treelib.segments import (
    FEW_SEGMENTS,
    ROW_ADDS_FROM,
    accumulate_rows,
    first_in_segments,
    segment_ids,
    segment_starts,
    segmented_cumsum,
)

counts_lists = st.lists(st.integers(1, 12), min_size=1, max_size=30)


@settings(max_examples=100, deadline=None)
@given(counts=counts_lists)
def test_segment_starts_and_ids_follow_the_counts(counts):
    starts, ids = segment_starts(counts), segment_ids(counts)
    position, expected_ids = 0, []
    for s, c in enumerate(counts):
        assert starts[s] == position                      # integers: exact
        expected_ids += [s] * c
        position += c
    assert ids.tolist() == expected_ids
    assert starts.dtype == np.intp and len(starts) == len(counts)


def test_segment_starts_of_known_counts():
    assert segment_starts([3, 1, 2]).tolist() == [0, 3, 4]
    assert segment_ids([3, 1, 2]).tolist() == [0, 0, 0, 1, 2, 2]
    assert segment_starts([5]).tolist() == [0]


def first_one_by_one(mask, counts):
    """Offset of the first True in every segment and column, found with a Python loop;
    the segment's length where there is none."""
    mask = np.asarray(mask)
    columns = mask.reshape(len(mask), -1)
    out = np.empty((len(counts), columns.shape[1]), dtype=np.intp)
    start = 0
    for s, c in enumerate(counts):
        for j in range(columns.shape[1]):
            hits = [i for i in range(c) if columns[start + i, j]]
            out[s, j] = hits[0] if hits else c
        start += c
    return out.reshape((len(counts),) + mask.shape[1:])


@settings(max_examples=100, deadline=None)
@given(data=st.data(), counts=counts_lists, columns=st.sampled_from([None, 1, 3]))
def test_first_in_segments_is_the_first_true_of_each_segment(data, counts, columns):
    shape = (sum(counts),) if columns is None else (sum(counts), columns)
    density = data.draw(st.sampled_from([0.05, 0.3, 0.9]))
    mask = data.draw(hnp.arrays(np.float64, shape, elements=st.floats(0, 1))) < density
    first = first_in_segments(mask, counts)
    assert first.shape == first_one_by_one(mask, counts).shape
    np.testing.assert_array_equal(first, first_one_by_one(mask, counts))   # offsets: exact


def test_first_in_segments_of_a_known_mask():
    mask = np.array([False, True, True, False, False, True])
    assert first_in_segments(mask, [3, 2, 1]).tolist() == [1, 2, 0]
    two_d = np.column_stack([mask, ~mask])
    assert first_in_segments(two_d, [3, 2, 1]).tolist() == [[1, 0], [2, 0], [0, 1]]


# Segments whose values live at wildly different scales: a running sum carried from a
# segment around 1e12 into one around 1e-10 would leave a residue that swamps it.
SCALES = [1e12, 1.0, 1e-10, 1e6, -1e8, 3e-5]


@st.composite
def segmented_values(draw):
    n_segments = draw(st.integers(1, 40))
    # lengths 1 .. 200 with the short ones common, so that many segments share a
    # padded width (one block, beyond FEW_SEGMENTS) and a few are long
    lengths = st.integers(1, 4) | st.integers(1, 20) | st.integers(1, 200)
    counts = draw(st.lists(lengths, min_size=n_segments, max_size=n_segments))
    k = draw(st.sampled_from([None, 1, 2, 3, 4]))  # even widths: complex pairs
    unit = draw(hnp.arrays(np.float64, sum(counts) if k is None else (sum(counts), k),
                           elements=st.floats(-1, 1, allow_subnormal=False)))
    scale = np.array([draw(st.sampled_from(SCALES)) for _ in counts])
    values = unit * np.repeat(scale, counts).reshape((-1,) + (1,) * (unit.ndim - 1))
    return values, np.array(counts)


def cumsum_one_by_one(values, counts):
    out, start = [], 0
    for c in counts:
        out.append(np.cumsum(values[start:start + c], axis=0))
        start += c
    return np.concatenate(out)


@settings(max_examples=100, deadline=None)
@given(data=segmented_values())
def test_segmented_cumsum_is_each_segments_own_cumsum_bit_for_bit(data):
    values, counts = data
    out = segmented_cumsum(values, counts)
    assert out.shape == values.shape and out.dtype == values.dtype
    assert np.array_equal(out, cumsum_one_by_one(values, counts))   # bit for bit


@pytest.mark.parametrize("k", [None, 2])
def test_segmented_cumsum_takes_both_paths(k):
    # more than FEW_SEGMENTS segments of one padded width (the padded block) next to a
    # few long ones (summed slice by slice), a tiny segment right after a huge one
    rng = np.random.default_rng(0)
    counts = np.array([200, 3] + [4, 3] * FEW_SEGMENTS + [129, 1])
    shape = (counts.sum(),) if k is None else (counts.sum(), k)
    scale = np.repeat(rng.choice([1e12, 1e-10], size=len(counts)), counts)
    values = rng.normal(size=shape) * (scale if k is None else scale[:, None])
    assert np.array_equal(segmented_cumsum(values, counts),
                          cumsum_one_by_one(values, counts))


@settings(max_examples=100, deadline=None)
@given(data=segmented_values())
def test_segmented_cumsum_row_after_row_is_bit_for_bit(data):
    # every padded block summed row after row (accumulate_rows' wide path)
    values, counts = data
    wide, treelib.segments.ROW_ADDS_FROM = treelib.segments.ROW_ADDS_FROM, 1
    try:
        out = segmented_cumsum(values, counts)
    finally:
        treelib.segments.ROW_ADDS_FROM = wide
    assert np.array_equal(out, cumsum_one_by_one(values, counts))


def test_accumulate_rows_is_cumsum_bit_for_bit_narrow_and_wide():
    rng = np.random.default_rng(1)
    for columns in (3, ROW_ADDS_FROM, 3 * ROW_ADDS_FROM):
        block = rng.normal(size=(17, columns)) * rng.choice([1e12, 1e-10, 1.0], columns)
        expected = np.cumsum(block, axis=0)
        accumulate_rows(block)
        assert np.array_equal(block.view(np.int64), expected.view(np.int64))


def test_paired_sums_keep_every_bit_of_extreme_values():
    # neighbours of wildly different scales, signed zeros, infinities and NaN in one
    # complex pair: each of the two running sums is its own np.cumsum
    values = np.array([[1e308, -0.0], [1e308, -0.0], [-1e-300, 5e-324], [np.inf, 1e16],
                       [1.0, np.nan], [-np.inf, 1.0], [3.0, -1e16]])
    counts = [2, 1, 4]
    with np.errstate(over="ignore", invalid="ignore"):
        out = segmented_cumsum(values, counts)
        expected = cumsum_one_by_one(values, counts)
    assert np.array_equal(out.view(np.int64), expected.view(np.int64))


def test_no_residue_leaks_from_a_large_segment():
    values = np.array([1e12, 0.1, -1e12, 1e-10, 2e-10])
    out = segmented_cumsum(values, [3, 2])
    assert out[3:].tolist() == [1e-10, 1e-10 + 2e-10]   # the second segment alone
