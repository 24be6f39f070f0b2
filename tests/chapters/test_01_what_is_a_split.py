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
from scipy.signal import find_peaks
from sklearn.tree import DecisionTreeRegressor as SklearnTreeRegressor

from tests.conftest import claim, notebook_cells
from tests.reference import exact_gain, identity_bound, naive_bound
from treelib import best_split
from treelib.criteria import gini, squared_error, target_statistics
from treelib.datasets import load_california_housing
from treelib.finders.exact import threshold_gains

PAGE = "01_what_is_a_split.ipynb"
gain_curve = notebook_cells(PAGE)["gain_curve"]


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
    claim(PAGE, "the squared error of a 0/1 target should be exactly half its Gini impurity")
    # p(1 - p) against 2 p (1 - p), each from a few roundings of numbers <= 1
    assert squared_error(labels.astype(float)) == pytest.approx(gini(labels) / 2, abs=1e-12)


def test_the_eight_block_groups():
    """The small node: its gain table, and why the cut at 2.49475 gains less than both of
    its neighbours."""
    claim(PAGE, "2.49475 gains 1.25, less than both of its neighbours, because it puts the "
          "block group with income 2.3277, whose house value 1.84 is more than twice the "
          "cheapest one's 0.851, in the same child as the cheapest one.")
    housing = load_california_housing(as_frame=True).frame
    rows = np.random.default_rng(0).choice(len(housing), size=8, replace=False)
    small = housing.loc[rows, ["MedInc", "MedHouseVal"]].sort_values("MedInc")
    x, y = small["MedInc"].to_numpy(), small["MedHouseVal"].to_numpy()
    thresholds, gains = threshold_gains(x, target_statistics(y, "squared_error"))
    assert thresholds[1] == pytest.approx(2.49475) and round(gains[1], 2) == 1.25
    assert gains[1] < gains[0] and gains[1] < gains[2]
    assert x[1] == pytest.approx(2.3277) and (round(y[1], 2), y[0]) == (1.84, 0.851)
    assert y[0] == y.min() and y[1] > 2 * y[0]


@pytest.fixture(scope="module")
def housing():
    data = load_california_housing()
    return data.data, data.target, data.feature_names


def test_the_first_split_of_california_housing(housing):
    claim(PAGE, "There are 20,640 block groups, and 965 of them sit at the cap, 5.00001.")
    claim(PAGE, "It sends 16,255 block groups left and 4,385 right, and removes 31.0% of the "
          "root's SSE.")
    claim(PAGE, "scikit-learn searches the same candidates, so its depth-1 tree should ask the "
          "same question.")
    X, y, names = housing
    assert len(y) == 20640 and y.max() == 5.00001 and np.sum(y == y.max()) == 965
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


def test_the_gain_curve_of_medinc(housing):
    claim(PAGE, "The gain is small at both ends, where one child gets only a few block groups; "
          "it rises to a single broad peak at 5.03515 and falls away on the other side.")
    X, y, _ = housing
    thresholds, gains = threshold_gains(X[:, 0], target_statistics(y, "squared_error"))
    best = int(np.argmax(gains))
    assert thresholds[best] == pytest.approx(5.03515)
    # the ten cuts at either end gain less than a tenth of the peak
    assert gains[:10].max() < 0.1 * gains[best] and gains[-10:].max() < 0.1 * gains[best]
    # one peak: no other local maximum stands out by more than 2% of the peak's height
    peaks, _ = find_peaks(gains, prominence=0.02 * gains[best])
    assert peaks.tolist() == [best]


def test_medinc_has_the_best_split_of_every_feature(housing):
    claim(PAGE, "more than twice the runner-up, `AveRooms` (3,286)")
    X, y, names = housing
    gains = {name: best_split(X[:, [j]], y).gain for j, name in enumerate(names)}
    ranking = sorted(gains, key=gains.get, reverse=True)
    assert ranking[:2] == ["MedInc", "AveRooms"] and ranking[-1] == "Population"
    assert gains["MedInc"] > 2 * gains["AveRooms"]


def test_classification_splits_and_the_exercises(housing):
    claim(PAGE, "Both criteria choose `MedInc` $\\le$ 5.5316.")
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
    claim(PAGE, "The split moves to `MedInc` $\\le$ 4.69045 and keeps 98.4% of the gain. It "
          "leaves 5,345 rows on the right, not 5,000: the best allowed cut need not sit at "
          "the limit")
    constrained = best_split(X, y, min_samples_leaf=5000)
    assert names[constrained.feature] == "MedInc"
    assert constrained.threshold == pytest.approx(4.69045)
    assert constrained.n_right == 5345
    assert constrained.gain / split.gain == pytest.approx(0.984, abs=5e-4)
    # the allowed MedInc cut closest to the limit (5,000 rows or a few more right) gains less
    thresholds, gains = threshold_gains(X[:, 0], target_statistics(y, "squared_error"))
    n_right = np.array([np.sum(X[:, 0] > t) for t in thresholds])
    at_limit = np.flatnonzero(n_right >= 5000)[-1]
    assert 5000 <= n_right[at_limit] < 5345 and gains[at_limit] < constrained.gain


def test_gini_and_entropy_rank_the_other_thresholds_differently(housing):
    claim(PAGE, "The Gini and entropy curves peak at the same threshold, 5.5316. Away from the "
          "peak the entropy curve mostly stays closer to its maximum, and the two criteria do "
          "not rank the other thresholds alike: the third best threshold is 5.53205 for the "
          "Gini impurity and 5.30425 for the entropy.")
    X, y, _ = housing
    expensive = (y > 2.5).astype(int)
    curves = {c: threshold_gains(X[:, 0], target_statistics(expensive, c), c)
              for c in ["gini", "entropy"]}
    (t, g_gini), (t_e, g_entropy) = curves["gini"], curves["entropy"]
    assert np.array_equal(t, t_e)
    top = {c: t[np.argsort(-g, kind="stable")[:3]] for c, (_, g) in curves.items()}
    assert top["gini"][0] == top["entropy"][0] == pytest.approx(5.5316)
    assert top["gini"][2] == pytest.approx(5.53205) and top["entropy"][2] == pytest.approx(5.30425)
    closer = g_entropy / g_entropy.max() > g_gini / g_gini.max()
    below, above = t < top["gini"][0], t > top["gini"][0]
    assert closer[below].mean() > 0.9 and closer[above].mean() > 0.9
