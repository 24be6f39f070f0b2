"""Chapter 7 ("Classification splits"): the chapter's numpy scans over class counts equal
treelib's, the identities of "From sums to counts" hold on random nodes, and the
chapter's numbers about wine, iris, california_housing and digits hold.

``class_count_gains`` (the scan with one column per class) and exercise 3's
``distinct_value_gini`` are loaded from the notebook's cells tagged "teaching"; they
must return what ``threshold_gains`` returns, thresholds bit for bit and gains to
rounding, whatever the ties, classes and sizes.
"""

import math
from collections import Counter

import numpy as np
import pytest
import sklearn.tree
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from sklearn.datasets import load_breast_cancer, load_digits, load_iris, load_wine

from tests.conftest import claim, notebook_cells
from treelib import best_split
from treelib.criteria import gini, one_hot, split_gain, target_statistics
from treelib.datasets import load_california_housing
from treelib.finders.exact import (
    NODE_VALUES,
    candidate_cuts,
    exact_split,
    feature_groups,
    threshold_gains,
)
from treelib.gains import gain_from_sums

NOTEBOOK = "07_classification_splits.ipynb"
TEACHING = notebook_cells(NOTEBOOK)
class_count_gains = TEACHING["class_count_gains"]
distinct_value_gini = TEACHING["distinct_value_gini"]


def as_float32(X):
    return np.asarray(X, dtype=np.float32).astype(np.float64)


@st.composite
def feature_and_labels(draw):
    """A node of 1 to 40 samples: values from a small pool (many ties), from wide floats,
    or all equal; 1 to 5 classes, as integers or as strings."""
    n = draw(st.integers(1, 40))
    kind = draw(st.sampled_from(["pool", "floats", "constant"]))
    if kind == "pool":
        x = draw(hnp.arrays(np.float64, n, elements=st.integers(-4, 4).map(float)))
    elif kind == "floats":
        x = draw(hnp.arrays(np.float64, n, elements=st.floats(
            -1e6, 1e6, allow_nan=False, allow_subnormal=False)))
    else:
        x = np.full(n, draw(st.floats(-10, 10, allow_nan=False)))
    n_classes = draw(st.integers(1, 5))
    codes = draw(hnp.arrays(np.int64, n, elements=st.integers(0, n_classes - 1)))
    if draw(st.booleans()):
        return x, np.array(["setosa", "versicolor", "virginica", "x", "y"])[codes]
    return x, codes


# --- the teaching scans ------------------------------------------------------------


@settings(max_examples=400, deadline=None)
@given(data=feature_and_labels())
def test_class_count_gains_equals_threshold_gains(data):
    x, labels = data
    thresholds, gini_gains, entropy_gains = class_count_gains(x, labels)
    for criterion, gains in [("gini", gini_gains), ("entropy", entropy_gains)]:
        expected_thresholds, expected = threshold_gains(x, target_statistics(labels, criterion),
                                                        criterion)
        np.testing.assert_array_equal(thresholds, expected_thresholds)
        # both add up counts exactly; the formulas' last roundings may differ: n EPS-sized
        np.testing.assert_allclose(gains, expected, rtol=1e-12, atol=1e-12 * len(x))


@settings(max_examples=300, deadline=None)
@given(data=feature_and_labels())
def test_distinct_value_gini_scores_the_allowed_cuts_only(data):
    x, labels = data
    x = np.round(x)                 # integers: the simple midpoint is the library's
    thresholds, gains = distinct_value_gini(x, labels)
    expected_thresholds, expected = threshold_gains(x, target_statistics(labels, "gini"),
                                                    "gini")
    np.testing.assert_array_equal(thresholds, expected_thresholds)
    np.testing.assert_allclose(gains, expected, rtol=1e-12, atol=1e-12 * len(x))


@pytest.mark.parametrize("n", [1, 2])
def test_class_count_gains_on_the_smallest_nodes(n):
    thresholds, gini_gains, entropy_gains = class_count_gains(np.arange(float(n)),
                                                              np.arange(n))
    assert len(thresholds) == len(gini_gains) == len(entropy_gains) == n - 1
    if n == 2:  # two samples of two classes: both children pure
        assert thresholds[0] == 0.5
        assert gini_gains[0] == pytest.approx(1.0)     # n Gini = 2 * 1/2
        assert entropy_gains[0] == pytest.approx(2.0)  # n H = 2 * 1 bit


def test_class_count_gains_of_a_constant_feature_is_empty():
    thresholds, gini_gains, entropy_gains = class_count_gains(np.ones(7), [0, 1] * 3 + [2])
    assert len(thresholds) == len(gini_gains) == len(entropy_gains) == 0


# --- the identities of "From sums to counts" ----------------------------------------


def exact_entropy_gain(labels, goes_left):
    """n H(node) - n_L H(L) - n_R H(R) straight from -sum_k c_k log2(c_k / n)."""
    def n_entropy(part):
        return -sum(c * math.log2(c / len(part)) for c in Counter(part).values())
    labels = list(labels)
    left = [c for c, g in zip(labels, goes_left) if g]
    right = [c for c, g in zip(labels, goes_left) if not g]
    return n_entropy(labels) - n_entropy(left) - n_entropy(right)


@settings(max_examples=200, deadline=None)
@given(codes=hnp.arrays(np.int64, st.integers(2, 40), elements=st.integers(0, 4)),
       seed=st.integers(0, 2**32 - 1))
def test_gini_is_the_variance_of_the_one_hot_columns_and_its_gain_their_sse_gain(codes, seed):
    Y = one_hot(codes, 5)
    assert gini(codes) == pytest.approx(np.var(Y, axis=0).sum(), abs=1e-12)
    goes_left = np.random.default_rng(seed).permutation(len(codes)) < len(codes) // 2 + 1
    goes_left[0], goes_left[-1] = True, False  # both children non-empty
    per_column = sum(split_gain(Y[:, k], goes_left) for k in range(5))
    c_left, c_node = Y[goes_left].sum(0), Y.sum(0)
    from_counts = gain_from_sums(c_left, goes_left.sum(), c_node, len(codes), "gini")
    from_scratch = split_gain(codes, goes_left, "gini")
    assert per_column == pytest.approx(from_scratch, abs=1e-9)
    assert from_counts == pytest.approx(from_scratch, abs=1e-9)
    assert split_gain(codes, goes_left, "entropy") == pytest.approx(
        exact_entropy_gain(codes, goes_left), abs=1e-9)


# --- the chapter's numbers ------------------------------------------------------------


def test_the_best_gini_split_of_wine():
    wine = load_wine()
    X = as_float32(wine.data)
    split = best_split(X, wine.target, criterion="gini")
    assert wine.feature_names[split.feature] == "proline" and split.threshold == 755
    left = split.goes_left(X)
    assert np.bincount(wine.target[left]).tolist() == [2, 67, 42]
    assert np.bincount(wine.target[~left]).tolist() == [57, 4, 6]
    assert round(split_gain(wine.target, left, "gini"), 10) == 44.8178013667
    assert round(split_gain(wine.target, left, "entropy"), 10) == 109.1760416838


def test_the_iris_scan_by_petal_length():
    iris = load_iris()
    thresholds, gains, _ = class_count_gains(as_float32(iris.data[:, 2]), iris.target)
    assert len(thresholds) == 42
    assert thresholds[np.argmax(gains)] == pytest.approx(2.45)
    assert gains.max() == pytest.approx(50.0, abs=1e-9)


def test_expensive_block_groups_agree_with_scikit_learn_on_all_rows():
    claim(NOTEBOOK, "Both criteria cut at 5.5316 (the income is in tens of thousands of "
                    "dollars), as scikit-learn does")
    X, y = load_california_housing(return_X_y=True)
    expensive = (y > 2.5).astype(int)
    income = as_float32(X[:, 0])
    for criterion in ["gini", "entropy"]:
        thresholds, gains = threshold_gains(income, one_hot(expensive, 2), criterion)
        reference = sklearn.tree.DecisionTreeClassifier(max_depth=1, criterion=criterion)
        reference.fit(income[:, None], expensive)
        assert thresholds[np.argmax(gains)] == reference.tree_.threshold[0]
        assert round(thresholds[np.argmax(gains)], 4) == 5.5316


def test_positions_and_cuts_of_breast_cancer_and_digits():
    for loader, cuts, positions, distinct in [(load_breast_cancer, 15310, 17040, 11998),
                                              (load_digits, 826, 114944, 17)]:
        X = as_float32(loader().data)
        _, _, valid = candidate_cuts(X)
        assert (valid.sum(), valid.size, len(np.unique(X))) == (cuts, positions, distinct)


def test_an_empty_class_or_permuted_labels_change_no_gain():
    wine = load_wine()
    x = wine.data[:, 12]
    for criterion in ["gini", "entropy"]:
        _, base = threshold_gains(x, one_hot(wine.target, 3), criterion)
        _, empty = threshold_gains(x, one_hot(wine.target, 4), criterion)
        _, permuted = threshold_gains(x, one_hot(np.array([2, 0, 1])[wine.target], 3),
                                      criterion)
        np.testing.assert_allclose(empty, base, rtol=1e-12, atol=0)
        np.testing.assert_allclose(permuted, base, rtol=1e-12, atol=0)
        if criterion == "gini":         # integer terms: exact in any order
            np.testing.assert_array_equal(empty, base)
            np.testing.assert_array_equal(permuted, base)


# --- the chapter's claims, each tied to its sentence ----------------------------------


def test_the_cut_between_2_and_3_is_the_best_of_the_tiny_node():
    claim(NOTEBOOK, "= \\frac{4}{3} \\approx 1.33$, the largest of the four allowed cuts")
    thresholds, gini_gains, entropy_gains = class_count_gains(
        np.array([3.0, 1.0, 2.0, 2.0, 5.0, 4.0]), np.array(["b", "a", "a", "c", "c", "b"]))
    assert len(thresholds) == 4
    assert thresholds[np.argmax(gini_gains)] == 2.5
    assert gini_gains.max() == pytest.approx(4 / 3) and round(gini_gains.max(), 2) == 1.33
    assert np.sum(gini_gains == gini_gains.max()) == 1


def test_the_scan_agrees_with_threshold_gains_on_wine_and_breast_cancer():
    claim(NOTEBOOK, "All 86 agree (43 features, two criteria each)")
    agree = []
    for data in (load_wine(), load_breast_cancer()):
        Y = one_hot(data.target, len(data.target_names))
        for j in range(data.data.shape[1]):
            mine = class_count_gains(data.data[:, j], data.target)
            for criterion, gains in [("gini", mine[1]), ("entropy", mine[2])]:
                thresholds, theirs = threshold_gains(data.data[:, j], Y, criterion)
                agree.append(np.array_equal(thresholds, mine[0])
                             and np.allclose(gains, theirs, rtol=1e-12, atol=1e-9))
    assert len(agree) == 86 and all(agree)


def test_digits_scores_139_positions_per_cut_and_needs_more_memory_than_housing():
    claim(NOTEBOOK, "treelib does its $O(k)$ scoring work at 139 positions for every cut "
                    "that needs it")
    claim(NOTEBOOK, "needs 9.20 MB of counts, more than the 2.64 MB of the housing example")
    X = as_float32(load_digits().data)
    _, _, valid = candidate_cuts(X)
    assert round(valid.size / valid.sum()) == 139
    digits_mb, housing_mb = 8 * 1797 * 64 * 10 / 1e6, 8 * 20640 * 8 * 2 / 1e6
    assert (round(digits_mb, 2), round(housing_mb, 2)) == (9.20, 2.64)
    assert digits_mb > housing_mb


def test_only_42_of_149_iris_positions_are_cuts():
    claim(NOTEBOOK, "Only 42 of the 149 positions are allowed cuts")
    petal_length = as_float32(load_iris().data[:, 2])
    assert len(np.unique(petal_length)) - 1 == 42 and len(petal_length) - 1 == 149


def test_setosa_petals_are_all_shorter_than_the_others():
    claim(NOTEBOOK, "all setosa flowers have shorter petals than every other flower")
    iris = load_iris()
    petal_length = as_float32(iris.data[:, 2])
    assert petal_length[iris.target == 0].max() < petal_length[iris.target != 0].min()


def test_exact_split_searches_the_digits_root_in_two_groups_of_features():
    claim(NOTEBOOK, "so the digits root, 1,150,080 values, is searched in two groups, of 58 "
                    "and 6 pixels, and never holds the whole 9.20 MB array at once")
    digits = load_digits()
    X, Y = as_float32(digits.data), one_hot(digits.target, 10)
    n, f = X.shape
    assert n * f * 10 == 1_150_080 > NODE_VALUES
    assert [len(group) for group in feature_groups(f, n * 10)] == [58, 6]
    grouped = exact_split(X, Y, "gini")
    whole = exact_split(X, Y, "gini", budget=2 * n * f * 10)      # one group: all at once
    assert (grouped.feature, grouped.threshold, grouped.n_left) == (
        whole.feature, whole.threshold, whole.n_left)
