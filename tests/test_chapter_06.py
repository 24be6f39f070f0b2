"""Chapter 6 ("Classification splits"): the chapter's numpy scan over class counts equals
treelib's, and the chapter's claims about Gini, entropy and ties hold.

``class_count_gains`` is loaded from the notebook's cell tagged "teaching": for one feature
it sorts, builds the one-hot matrix, takes one ``np.cumsum`` for the left class counts and
scores every cut with Gini and entropy.  It must return what ``threshold_gains`` returns,
thresholds bit for bit and gains to rounding, whatever the ties, classes and sizes.
"""

import math
from collections import Counter

import numpy as np
import pytest
import sklearn.tree
from conftest import notebook_cells
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from sklearn.datasets import load_breast_cancer, load_digits, load_iris, load_wine

from treelib import DecisionTreeClassifier, best_split
from treelib.criteria import gini, one_hot, split_gain, sum_squared_error
from treelib.splits import threshold_gains

class_count_gains = notebook_cells("06_classification_splits.ipynb")["class_count_gains"]


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


@settings(max_examples=400, deadline=None)
@given(data=feature_and_labels())
def test_class_count_gains_equals_threshold_gains(data):
    x, labels = data
    thresholds, gini_gains, entropy_gains = class_count_gains(x, labels)
    for criterion, gains in [("gini", gini_gains), ("entropy", entropy_gains)]:
        expected_thresholds, expected_gains = threshold_gains(x, labels, criterion=criterion)
        np.testing.assert_array_equal(thresholds, expected_thresholds)
        np.testing.assert_allclose(gains, expected_gains, rtol=1e-12, atol=1e-9 * len(x))


@pytest.mark.parametrize("n", [1, 2])
def test_class_count_gains_on_the_smallest_nodes(n):
    x = np.arange(float(n))
    thresholds, gini_gains, entropy_gains = class_count_gains(x, np.arange(n))
    assert len(thresholds) == len(gini_gains) == len(entropy_gains) == n - 1
    if n == 2:  # two samples of two classes: both children pure
        assert thresholds[0] == 0.5
        assert gini_gains[0] == pytest.approx(1.0)     # n Gini = 2 * 1/2
        assert entropy_gains[0] == pytest.approx(2.0)  # n H = 2 * 1 bit


def test_class_count_gains_of_a_constant_feature_is_empty():
    thresholds, gini_gains, entropy_gains = class_count_gains(np.ones(7), [0, 1] * 3 + [2])
    assert len(thresholds) == len(gini_gains) == len(entropy_gains) == 0


# --- the identities of the section "From sums to counts" ----------------------------


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
    per_column = sum(sum_squared_error(Y[:, k]) - sum_squared_error(Y[goes_left, k])
                     - sum_squared_error(Y[~goes_left, k]) for k in range(5))
    c_left, c_right, c_node = Y[goes_left].sum(0), Y[~goes_left].sum(0), Y.sum(0)
    n_left, n_right, n = c_left.sum(), c_right.sum(), c_node.sum()
    from_counts = np.sum(c_left**2 / n_left + c_right**2 / n_right - c_node**2 / n)
    from_scratch = split_gain(codes, goes_left, "gini")
    assert per_column == pytest.approx(from_scratch, abs=1e-9)
    assert from_counts == pytest.approx(from_scratch, abs=1e-9)
    assert split_gain(codes, goes_left, "entropy") == pytest.approx(
        exact_entropy_gain(codes, goes_left), abs=1e-9)


@pytest.mark.parametrize("loader", [load_iris, load_wine, load_breast_cancer, load_digits])
def test_squared_error_on_one_hot_columns_is_gini(loader):
    X, y = loader(return_X_y=True)
    by_gini = best_split(X, y, criterion="gini")
    by_one_hot = best_split(X, one_hot(y, y.max() + 1), criterion="squared_error",
                            check_input=False)
    assert (by_gini.feature, by_gini.threshold) == (by_one_hot.feature, by_one_hot.threshold)
    assert by_gini.gain == pytest.approx(by_one_hot.gain, rel=1e-12)


def test_class_number_is_not_one_hot_on_wine_and_digits():
    for loader in [load_wine, load_digits]:
        X, y = loader(return_X_y=True)
        by_gini = best_split(X, y, criterion="gini")
        by_number = best_split(X, y.astype(float))
        assert by_gini.feature != by_number.feature


# --- the chapter's examples ------------------------------------------------------------


def test_expensive_block_groups_gini_and_entropy_agree_with_scikit_learn_on_all_rows():
    from treelib.datasets import load_california_housing

    X, y = load_california_housing(return_X_y=True)
    expensive = (y > 2.5).astype(int)
    income = X[:, 0].astype(np.float32).astype(np.float64)
    for criterion in ["gini", "entropy"]:
        thresholds, gains = threshold_gains(income, expensive, criterion=criterion)
        reference = sklearn.tree.DecisionTreeClassifier(max_depth=1, criterion=criterion)
        reference.fit(income[:, None], expensive)
        assert thresholds[np.argmax(gains)] == reference.tree_.threshold[0]
        assert gains.max() / len(y) == pytest.approx(
            reference.tree_.impurity[0] - (
                reference.tree_.n_node_samples[1] * reference.tree_.impurity[1]
                + reference.tree_.n_node_samples[2] * reference.tree_.impurity[2]) / len(y),
            rel=1e-9)


def test_iris_root_is_a_tie_broken_by_the_lowest_feature():
    X, y = load_iris(return_X_y=True)
    X = X.astype(np.float32).astype(np.float64)
    length, width = X[:, 2] <= 2.45, X[:, 3] <= 0.8
    assert (length == width).all() and (y[length] == 0).all() and length.sum() == 50
    assert split_gain(y, length, "gini") == split_gain(y, width, "gini")
    ours = DecisionTreeClassifier().fit(X, y)
    assert ours.tree_.feature[0] == 2
    roots = set()
    for seed in range(10):
        theirs = sklearn.tree.DecisionTreeClassifier(random_state=seed).fit(X, y)
        roots.add(int(theirs.tree_.feature[0]))
        np.testing.assert_array_equal(theirs.predict(X), ours.predict(X))
    assert roots == {2, 3}


def test_tied_roots_disagree_off_the_training_data():
    X, y = load_iris(return_X_y=True)
    X_petal = X[:, 2:]
    ours = DecisionTreeClassifier(max_depth=3).fit(X_petal, y)
    theirs = sklearn.tree.DecisionTreeClassifier(max_depth=3, random_state=0).fit(X_petal, y)
    assert theirs.tree_.feature[0] == 1  # petal width at the root
    np.testing.assert_array_equal(theirs.predict(X_petal), ours.predict(X_petal))
    new_flower = np.array([[2.0, 1.0]])  # short petal, not thin: between the two roots
    assert ours.predict(new_flower)[0] != theirs.predict(new_flower)[0]
