"""Chapter 1's teaching code against treelib.

``gain_curve`` scores thresholds one at a time with ``split_gain``; on the candidate
thresholds of ``threshold_gains`` it must give the same squared-error gains, and for a
0/1 target its Gini gains must be exactly twice the squared-error gains (the chapter's
claim that the squared error of a 0/1 target is half its Gini impurity).
"""

import numpy as np
import pytest
from conftest import notebook_cells
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from treelib import best_split
from treelib.criteria import gini, squared_error
from treelib.splits import threshold_gains

gain_curve = notebook_cells("01_what_is_a_split.ipynb")["gain_curve"]


@st.composite
def feature_and_target(draw, binary=False):
    n = draw(st.integers(2, 40))
    x = draw(hnp.arrays(np.float64, n, elements=st.integers(-6, 6).map(float)))
    if binary:
        y = draw(hnp.arrays(np.int64, n, elements=st.integers(0, 1)))
    else:
        y = draw(hnp.arrays(np.float64, n, elements=st.floats(
            -1e3, 1e3, allow_nan=False, allow_subnormal=False)))
    return x, y


@settings(max_examples=300, deadline=None)
@given(data=feature_and_target())
def test_gain_curve_matches_threshold_gains(data):
    x, y = data
    thresholds, gains = threshold_gains(x, y)
    slow = gain_curve(x, y, thresholds, "squared_error")
    scale = max(1.0, float(np.sum((y - y.mean()) ** 2)))
    np.testing.assert_allclose(slow, gains, rtol=1e-9, atol=1e-9 * scale)


@settings(max_examples=300, deadline=None)
@given(data=feature_and_target(binary=True))
def test_gini_gain_of_a_binary_target_is_twice_its_squared_error_gain(data):
    x, y = data
    thresholds, gains = threshold_gains(x, y.astype(float))
    gini_gains = gain_curve(x, y, thresholds, "gini")
    np.testing.assert_allclose(gini_gains, 2 * gains, rtol=1e-9, atol=1e-9)
    if len(thresholds):
        # the regression finder's threshold is a best Gini threshold (ties allowed)
        split = best_split(x[:, None], y.astype(float))
        chosen = gini_gains[np.flatnonzero(thresholds == split.threshold)[0]]
        assert chosen == pytest.approx(gini_gains.max(), abs=1e-9)


@settings(max_examples=200, deadline=None)
@given(labels=hnp.arrays(np.int64, st.integers(1, 50), elements=st.integers(0, 1)))
def test_squared_error_of_a_binary_target_is_half_its_gini(labels):
    assert squared_error(labels.astype(float)) == pytest.approx(gini(labels) / 2, abs=1e-12)
