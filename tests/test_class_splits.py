"""Classification split finders (Gini, entropy) against a brute-force reference."""

import math
from collections import Counter
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from treelib import best_split
from treelib.criteria import gain_from_sums, one_hot
from treelib.splits import SPLIT_METHODS, TIE_RTOL, threshold_gains

METHODS = sorted(SPLIT_METHODS)


def exact_weighted_gini(labels):
    """n * Gini(labels) as an exact fraction: n - sum_k c_k^2 / n."""
    n = len(labels)
    return Fraction(n) - Fraction(sum(c * c for c in Counter(labels).values()), n)


def weighted_entropy(labels):
    """n * entropy(labels) in bits, straight from the definition -sum_k c_k log2(c_k/n)."""
    n = len(labels)
    return -sum(c * math.log2(c / n) for c in Counter(labels).values())


def brute_force_split(X, labels, criterion, min_samples_leaf=1):
    """Every threshold of every feature, each child's impurity recounted from its labels;
    the tie rule of ``pick_best``.  Returns (feature, threshold, n_left, gain) or None."""
    impurity = exact_weighted_gini if criterion == "gini" else weighted_entropy
    labels = list(labels)
    parent = impurity(labels)
    candidates = []
    for j in range(X.shape[1]):
        values = np.unique(X[:, j])
        for low, high in zip(values[:-1], values[1:]):
            threshold = low / 2 + high / 2
            if not low <= threshold < high:
                threshold = low
            left = X[:, j] <= threshold
            if min(left.sum(), (~left).sum()) < min_samples_leaf:
                continue
            gain = (parent - impurity([c for c, l in zip(labels, left) if l])
                    - impurity([c for c, l in zip(labels, left) if not l]))
            candidates.append((j, float(threshold), int(left.sum()), gain))
    if not candidates:
        return None
    best = max(c[3] for c in candidates)
    tied = [c for c in candidates if c[3] >= best - TIE_RTOL * parent]
    return min(tied, key=lambda c: (c[0], c[1]))


@st.composite
def classification_node(draw):
    n = draw(st.integers(1, 30))
    f = draw(st.integers(1, 3))
    X = draw(hnp.arrays(np.float64, (n, f), elements=st.integers(-3, 3).map(float)
                        | st.floats(-1e3, 1e3, allow_nan=False, allow_subnormal=False)))
    for j in draw(st.sets(st.integers(0, f - 1), max_size=f)):
        X[:, j] = X[0, j]
    n_classes = draw(st.integers(1, 5))
    labels = draw(hnp.arrays(np.int64, n, elements=st.integers(0, n_classes - 1)))
    return X, labels, draw(st.integers(1, 3))


@pytest.mark.parametrize("criterion", ["gini", "entropy"])
@pytest.mark.parametrize("method", METHODS)
@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=classification_node())
def test_every_method_equals_brute_force(method, criterion, data):
    X, labels, min_samples_leaf = data
    split = best_split(X, labels, method, criterion=criterion,
                       min_samples_leaf=min_samples_leaf)
    expected = brute_force_split(X, labels, criterion, min_samples_leaf)
    if expected is None:
        assert split is None
        return
    feature, threshold, n_left, gain = expected
    assert (split.feature, split.threshold, split.n_left) == (feature, threshold, n_left)
    assert split.gain == pytest.approx(float(gain), rel=1e-9, abs=1e-9 * len(labels))


def test_gini_gain_from_counts_is_exact():
    # counts are integers, so the variance-to-sum form of the Gini gain is exact here
    labels = np.array([0, 0, 1, 2, 2, 2, 1, 0])
    Y = one_hot(labels, 3)
    for i in range(1, len(labels)):
        gain = gain_from_sums(Y[:i].sum(axis=0), i, Y.sum(axis=0), len(labels), "gini")
        expected = (exact_weighted_gini(labels) - exact_weighted_gini(labels[:i])
                    - exact_weighted_gini(labels[i:]))
        assert gain == pytest.approx(float(expected), abs=1e-12)


def test_string_labels_and_a_pure_node():
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    split = best_split(X, ["cat", "cat", "dog", "dog"], criterion="entropy")
    assert (split.threshold, split.gain) == (1.5, 4.0)   # 4 samples x 1 bit
    pure = best_split(X, ["cat"] * 4, criterion="gini")
    assert pure.gain == 0.0


def test_multiclass_gain_curve_peaks_where_the_classes_separate():
    x = np.arange(9.0)
    labels = np.repeat([0, 1, 2], 3)
    thresholds, gains = threshold_gains(x, labels, criterion="gini")
    assert list(thresholds[gains == gains.max()]) == [2.5, 5.5]


def test_bad_labels_are_rejected():
    with pytest.raises(ValueError, match="NaN"):
        best_split([[0.0], [1.0]], [0.0, np.nan], criterion="gini")
    with pytest.raises(ValueError, match="criterion"):
        best_split([[0.0], [1.0]], [0, 1], criterion="misclassification")
    with pytest.raises(ValueError, match="different numbers of samples"):
        best_split([[0.0], [1.0]], [0, 1, 1], criterion="gini")
