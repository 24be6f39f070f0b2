"""Fixed-point sums (``treelib.fixed_point``): the same bits whatever the order and the
grouping of the additions, and within a rounding of the exact sum (``fractions``)."""

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from treelib.fixed_point import (
    PRECISION_BITS,
    centre,
    make_grid,
    normalise,
    to_digits,
    to_float,
)

finite = st.floats(-1e12, 1e12, allow_nan=False, allow_infinity=False)
columns = hnp.arrays(np.float64, st.integers(1, 200), elements=finite)


def exact_value(digits, grid):
    """The rational number that digits stand for."""
    return sum(Fraction(int(d)) * Fraction(2) ** (grid.bits * t + grid.exponent)
               for t, d in enumerate(np.asarray(digits)))


@settings(max_examples=200, deadline=None)
@given(values=columns)
def test_digits_hold_each_value_to_the_grid(values):
    grid = make_grid(float(np.abs(values).max()), len(values))
    digits = to_digits(values, grid)
    assert digits.shape == values.shape + (grid.limbs,)
    assert np.all(np.abs(digits) <= 2.0 ** (grid.bits - 1))
    assert np.array_equal(digits, np.rint(digits))               # integers
    spacing = Fraction(2) ** grid.exponent
    for v, d in zip(values, digits):
        assert abs(exact_value(d, grid) - Fraction(v)) <= spacing / 2


@settings(max_examples=200, deadline=None)
@given(values=columns, seed=st.integers(0, 2**32 - 1), parts=st.integers(1, 7))
def test_sums_are_the_same_bits_in_any_order_and_grouping(values, seed, parts):
    grid = make_grid(float(np.abs(values).max()), len(values))
    digits = to_digits(values, grid)
    in_order = to_float(digits.sum(axis=0), grid)
    rng = np.random.default_rng(seed)
    shuffled = digits[rng.permutation(len(values))]
    pieces = np.array_split(shuffled, parts)              # partial sums, then a tree of adds
    partial = [p.sum(axis=0) for p in pieces]
    while len(partial) > 1:
        partial = [partial[i] + partial[i + 1] if i + 1 < len(partial) else partial[i]
                   for i in range(0, len(partial), 2)]
    assert to_float(partial[0], grid) == in_order            # bit for bit
    keys = rng.integers(0, 3, len(values))                   # np.bincount per bin, too
    by_bin = np.stack([np.bincount(keys, weights=digits[:, t], minlength=3)
                       for t in range(grid.limbs)], axis=-1)
    for b in range(3):
        assert to_float(by_bin[b], grid) == to_float(digits[keys == b].sum(axis=0), grid)


@settings(max_examples=200, deadline=None)
@given(values=columns)
def test_a_sum_reads_back_within_a_rounding_of_the_exact_sum(values):
    grid = make_grid(float(np.abs(values).max()), len(values))
    total = to_float(to_digits(values, grid).sum(axis=0), grid)
    exact = sum(Fraction(v) for v in values)
    quantisation = len(values) * Fraction(2) ** grid.exponent / 2
    # one rounding per digit when reading back, each at most half a unit of the partial
    # value, which is within the exact sum plus the lower digits
    lower_digits = Fraction(2) ** (grid.bits + grid.exponent)
    read_back = grid.limbs * (abs(exact) + quantisation + lower_digits) * Fraction(2) ** -53
    assert abs(Fraction(total) - exact) <= quantisation + read_back
    if np.all(values == np.rint(values)) and np.abs(values).max() < 2**40:
        assert total == math.fsum(values)                 # integers sit on the grid


@settings(max_examples=200, deadline=None)
@given(values=columns, mean=finite)
def test_centring_is_exact_on_the_grid(values, mean):
    grid = make_grid(max(float(np.abs(values).max()), abs(mean)), len(values))
    digits = to_digits(values, grid)
    centred = centre(digits.sum(axis=0), len(values), mean, grid)
    mean_on_grid = exact_value(to_digits(mean, grid), grid)
    expected = sum(exact_value(d, grid) for d in digits) - len(values) * mean_on_grid
    assert exact_value(normalise(centred, grid), grid) == expected
    assert np.all(np.abs(centred) < 2.0 ** 53)


def test_the_grid_keeps_the_promised_bits():
    grid = make_grid(3.0, 20_640)
    assert grid.limbs * grid.bits >= PRECISION_BITS
    assert 20_640 * 2.0 ** (grid.bits - 1) <= 2.0 ** 51
    assert 3.0 < 2.0 ** (grid.limbs * grid.bits - 1 + grid.exponent)
    assert make_grid(0.0, 1).limbs >= 1


def test_float_addition_is_not_associative_but_digits_are():
    values = np.array([1e16, 1.0, -1e16, 1.0])
    assert (values[0] + values[1]) + values[2] + values[3] != values[0] + values[2] + \
        values[1] + values[3]
    grid = make_grid(1e16, 4)
    digits = to_digits(values, grid)
    assert to_float(digits[[0, 1, 2, 3]].sum(axis=0), grid) == 2.0
    assert to_float(digits[[0, 2, 1, 3]].sum(axis=0), grid) == 2.0


@pytest.mark.parametrize("bad", [np.inf, np.nan, -1.0])
def test_a_grid_needs_a_finite_magnitude(bad):
    with pytest.raises(ValueError, match="max_abs"):
        make_grid(bad, 10)


def test_too_many_rows_for_exact_sums_is_an_error():
    with pytest.raises(ValueError, match="rows"):
        make_grid(1.0, 2**45)
