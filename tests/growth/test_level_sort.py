"""The level-wise grower's one sort (``sorted_rows``): whole-numbered features sorted by
16-bit keys (``small_whole_keys``) give numpy's stable sort of the values themselves,
ties, signed zeros and large offsets included; other features keep the float sort."""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from treelib.growth.level_sort import small_whole_keys, sorted_rows

OFFSETS = [0.0, -3.0, 2.0**40, -(2.0**52), 2.0**60, 1e300]


@given(st.integers(0, 2**32 - 1), st.integers(1, 40), st.sampled_from(OFFSETS),
       st.integers(1, 70_000))
def test_sorted_rows_equal_the_stable_float_sort(seed, n, offset, spread):
    rng = np.random.default_rng(seed)
    data = rng.integers(0, spread, size=(n, 3)).astype(np.float64) + offset
    data[:, 1] = np.floor(data[:, 1] / 7)              # many ties
    data[rng.random(n) < 0.2, 2] = rng.choice([0.0, -0.0])   # signed zeros
    order, x_sorted = sorted_rows(data)
    expected = np.argsort(data.T, axis=1, kind="stable")
    np.testing.assert_array_equal(order, expected)
    np.testing.assert_array_equal(x_sorted, np.take_along_axis(data.T, expected, axis=1))


def test_keys_only_for_whole_numbers_close_together():
    assert small_whole_keys(np.array([[0.0, 3.0, 65535.0]])).dtype == np.uint16
    assert small_whole_keys(np.array([[0.0, 65536.0]])) is None
    assert small_whole_keys(np.array([[0.0, 0.5]])) is None
    assert small_whole_keys(np.array([[0.0, np.inf]])) is None
    assert small_whole_keys(np.array([[2.0**60, 2.0**60 + 256]])) is not None
    assert small_whole_keys(np.zeros((2, 0))) is None


@given(st.integers(0, 2**32 - 1), st.integers(1, 30), st.sampled_from(OFFSETS[:4]),
       st.integers(0, 3), st.sampled_from([np.float32, np.float64]))
def test_values_that_are_not_whole_keep_their_order(seed, n, offset, shift, dtype):
    # halves and quarters near whole numbers, beside their nearest floats: their
    # differences can round to one whole number, which must not make them tie
    rng = np.random.default_rng(seed)
    base = (rng.integers(0, 20_000, size=n) / 2.0**shift + offset).astype(dtype)
    column = np.concatenate([base, np.nextafter(base, dtype(np.inf)),
                             np.nextafter(base, dtype(-np.inf))])
    data = np.column_stack([column, rng.permutation(column)])
    order, x_sorted = sorted_rows(data)
    expected = np.argsort(data.T, axis=1, kind="stable")
    np.testing.assert_array_equal(order, expected)
    assert (np.diff(x_sorted, axis=1) >= 0).all()


def test_a_level_wise_tree_splits_where_the_values_part():
    # the column the review found: 6703.5005, 6703.5 and 6703.4995 are one float32 step
    # apart and all three lie 8650 above the smallest after rounding
    from treelib import DecisionTreeRegressor

    X = np.array([[-1946.5], [6703.5005], [6703.5], [6703.4995]], dtype=np.float32)
    y = np.array([0.0, 1.0, 0.0, 0.0])
    level = DecisionTreeRegressor(builder="level_wise").fit(X, y)
    depth = DecisionTreeRegressor(builder="depth_first").fit(X, y)
    np.testing.assert_array_equal(level.predict(X), depth.predict(X))
    np.testing.assert_array_equal(level.predict(X), y)
