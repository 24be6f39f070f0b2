"""Impurity criteria against their definitions."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from treelib.criteria import (centered, entropy, gini, split_gain, squared_error,
                              sum_squared_error)


@pytest.mark.parametrize("criterion", [gini, entropy])
def test_a_pure_node_has_impurity_plus_zero(criterion):
    value = criterion([3, 3, 3])
    assert value == 0.0 and math.copysign(1.0, value) == 1.0


@pytest.mark.parametrize("labels, expected_gini, expected_entropy", [
    ([0, 0, 0, 1], 0.375, -(0.75 * math.log2(0.75) + 0.25 * math.log2(0.25))),
    ([0, 1], 0.5, 1.0),
    (["a", "b", "c", "d"], 0.75, 2.0),
])
def test_known_values(labels, expected_gini, expected_entropy):
    assert gini(labels) == pytest.approx(expected_gini, abs=1e-15)
    assert entropy(labels) == pytest.approx(expected_entropy, abs=1e-15)


@given(st.lists(st.floats(-1e3, 1e3), min_size=1, max_size=50))
def test_squared_error_is_the_variance(values):
    y = np.array(values)
    assert squared_error(y) == pytest.approx(np.var(y), rel=1e-9, abs=1e-9)
    assert sum_squared_error(y) == pytest.approx(len(y) * np.var(y), rel=1e-9, abs=1e-7)


def test_centering_is_exact_for_a_constant_node_with_a_large_offset():
    y = np.full(7, 1e8 + 0.1)
    assert np.all(centered(y) == 0.0)
    assert sum_squared_error(y) == 0.0


def test_split_gain_is_the_sse_removed():
    y = np.array([1.0, 2.0, 10.0, 11.0])
    left = np.array([True, True, False, False])
    expected = sum_squared_error(y) - sum_squared_error(y[:2]) - sum_squared_error(y[2:])
    assert split_gain(y, left) == pytest.approx(expected)
    assert split_gain([0, 0, 1, 1], left, "gini") == pytest.approx(4 * 0.5)


def test_split_gain_needs_two_nonempty_children():
    with pytest.raises(ValueError, match="each side"):
        split_gain([1.0, 2.0], [True, True])
