"""Chapter 1 ("What a split is"): its teaching code against exact gains and treelib, and
the claims its text makes about california_housing.

``gain_curve`` scores every threshold from scratch with ``split_gain``: it must give the
exact gain of every candidate (within the rounding bound of a search that subtracts
recomputed children, ``tests.reference.naive_bound``), and treelib's ``threshold_gains``
the same gains; for a 0/1 target its Gini gains are twice its squared-error gains.
"""

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from sklearn.tree import DecisionTreeRegressor as SklearnTreeRegressor

from tests.conftest import notebook_cells
from tests.reference import exact_gain, identity_bound, naive_bound
from treelib import best_split
from treelib.criteria import gini, squared_error, target_statistics
from treelib.datasets import load_california_housing
from treelib.finders.exact import threshold_gains

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


@settings(max_examples=150, deadline=None)
@given(data=feature_and_target())
# a cut whose children have the node's mean: exact gain 0, treelib's 5e-32 (second order)
@example(data=(np.repeat([0.0, 1.0], [18, 9]),
               np.array([1.0, 0, 0] + [1.0] * 15 + [0.0] + [1.0] * 8)))
def test_gain_curve_gives_the_exact_gain_of_every_threshold(data):
    x, y = data
    thresholds, gains = threshold_gains(x, target_statistics(y, "squared_error"))
    slow = gain_curve(x, y, thresholds, "squared_error")
    for t, g_slow, g_treelib in zip(thresholds, slow, gains):
        goes_left = x <= t
        exact = float(exact_gain(y, goes_left, "squared_error"))
        # split_gain subtracts the SSE of the node and of both children, each recomputed:
        # naive_bound bounds its rounding; threshold_gains is the identity on centred
        # sums, bounded by treelib's own gain_rounding_bound (identity_bound)
        assert abs(g_slow - exact) <= naive_bound(y, goes_left, "squared_error")
        assert abs(g_treelib - exact) <= identity_bound(y, goes_left, "squared_error")


@settings(max_examples=150, deadline=None)
@given(data=feature_and_target(binary=True))
def test_gini_gain_of_a_binary_target_is_twice_its_squared_error_gain(data):
    x, y = data
    thresholds, _ = threshold_gains(x, target_statistics(y.astype(float), "squared_error"))
    gini_gains = gain_curve(x, y, thresholds, "gini")
    se_gains = gain_curve(x, y.astype(float), thresholds, "squared_error")
    for t, g_gini, g_se in zip(thresholds, gini_gains, se_gains):
        goes_left = x <= t
        assert exact_gain(y, goes_left, "gini") == 2 * exact_gain(y.astype(float), goes_left,
                                                                  "squared_error")
        tolerance = naive_bound(y, goes_left, "gini") + 2 * naive_bound(
            y.astype(float), goes_left, "squared_error")
        assert abs(g_gini - 2 * g_se) <= tolerance


@settings(max_examples=200, deadline=None)
@given(labels=hnp.arrays(np.int64, st.integers(1, 50), elements=st.integers(0, 1)))
def test_squared_error_of_a_binary_target_is_half_its_gini(labels):
    # p(1 - p) against 2 p (1 - p), each from a few roundings of numbers <= 1
    assert squared_error(labels.astype(float)) == pytest.approx(gini(labels) / 2, abs=1e-12)


@pytest.fixture(scope="module")
def housing():
    data = load_california_housing()
    return data.data, data.target, data.feature_names


def test_the_first_split_of_california_housing(housing):
    X, y, names = housing
    split = best_split(X, y)
    sse = len(y) * squared_error(y)
    assert names[split.feature] == "MedInc"
    assert split.threshold == pytest.approx(5.03515)
    assert (split.n_left, split.n_right) == (16255, 4385)
    assert split.gain / sse == pytest.approx(0.310, abs=5e-4)
    # scikit-learn's depth-1 tree asks the same question on the same float32 values
    ours = best_split(X.astype(np.float32).astype(np.float64), y)
    root = SklearnTreeRegressor(max_depth=1).fit(X, y).tree_
    assert (ours.feature, ours.threshold) == (root.feature[0], root.threshold[0])


def test_medinc_has_the_best_split_of_every_feature(housing):
    X, y, names = housing
    gains = {name: best_split(X[:, [j]], y).gain for j, name in enumerate(names)}
    ranking = sorted(gains, key=gains.get, reverse=True)
    assert ranking[:2] == ["MedInc", "AveRooms"] and ranking[-1] == "Population"
    assert gains["MedInc"] > 2 * gains["AveRooms"]


def test_classification_splits_and_the_exercises(housing):
    X, y, names = housing
    expensive = (y > 2.5).astype(int)
    splits = {c: best_split(X, expensive, criterion=c) for c in ["gini", "entropy"]}
    for s in splits.values():
        assert names[s.feature] == "MedInc" and s.threshold == pytest.approx(5.5316)
    # exercise 1: the squared error of the 0/1 target finds the Gini split, half its gain
    as_regression = best_split(X, expensive.astype(float))
    assert as_regression.threshold == splits["gini"].threshold
    assert 2 * as_regression.gain == pytest.approx(splits["gini"].gain, rel=1e-12)
    # exercise 2: scaling y scales the gain by the square, shifting it changes nothing
    split = best_split(X, y)
    scaled, shifted = best_split(X, y * 100_000), best_split(X, y + 1)
    assert scaled.threshold == shifted.threshold == split.threshold
    assert scaled.gain == pytest.approx(1e10 * split.gain, rel=1e-9)
    assert shifted.gain == pytest.approx(split.gain, rel=1e-9)
    # exercise 3: min_samples_leaf=5000 moves the cut left and keeps most of the gain
    constrained = best_split(X, y, min_samples_leaf=5000)
    assert names[constrained.feature] == "MedInc"
    assert constrained.threshold == pytest.approx(4.69045)
    assert constrained.n_right == 5345
    assert constrained.gain / split.gain == pytest.approx(0.984, abs=5e-4)
