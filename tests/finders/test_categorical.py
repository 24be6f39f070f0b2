"""Categorical splits (``treelib.finders.categorical``): the "partition" strategy's best
split against a brute force over every partition of the categories present (exact
arithmetic; squared error and two-class Gini and entropy, where sorting the categories by
their mean is optimal), "one_vs_rest" against a brute force over single categories, a
missing value as one more category, and the histogram finder against the exact one."""

import itertools
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from tests.reference import exact_split_gain, identity_bound
from treelib.criteria import target_statistics
from treelib.finders import Finder
from treelib.finders.categorical import Categories
from treelib.finders.exact import exact_split
from treelib.finders.histogram import histogram_split
from treelib.split import MISSING_BIN, Split


@st.composite
def categorical_nodes(draw, criteria, max_categories=8, max_n=24):
    """One categorical feature of q <= 8 categories (codes, some absent from the node,
    NaN for missing values), targets for ``criterion``, weights (or None)."""
    criterion = draw(st.sampled_from(criteria))
    q = draw(st.integers(1, max_categories))
    n = draw(st.integers(2, max_n))
    codes = draw(hnp.arrays(np.float64, n, elements=st.integers(0, q - 1).map(float)))
    if draw(st.booleans()):
        codes[draw(hnp.arrays(np.bool_, n))] = np.nan
    if criterion == "squared_error":
        y = draw(hnp.arrays(np.float64, n, elements=st.integers(-5, 5).map(float)))
    elif criterion == "poisson":
        y = draw(hnp.arrays(np.float64, n, elements=st.integers(0, 5).map(float)))
        y[0] += 1.0
    else:
        n_classes = 2 if criteria == TWO_CLASS else 3
        y = draw(hnp.arrays(np.int64, n, elements=st.integers(0, n_classes - 1)))
    weights = draw(st.none() | hnp.arrays(np.float64, n, elements=st.sampled_from(
        [1.0, 2.0, 3.0])))
    return codes[:, None], y, q, criterion, weights


TWO_CLASS = ["squared_error", "gini", "entropy"]


def categories_of(codes):
    """The categories present in a column of codes, the missing one as None."""
    present = sorted({int(c) for c in codes if not np.isnan(c)})
    return present + [None] * bool(np.isnan(codes).any())


def goes_left_of_set(codes, left):
    """Rows whose category (None: missing) is in ``left``."""
    return np.array([(None if np.isnan(c) else int(c)) in left for c in codes])


def best_over(sets, codes, y, criterion, weights):
    """The largest exact gain among the splits sending ``sets`` left (both sides
    non-empty; a Poisson child with counts), and every set reaching it."""
    best, gains = None, {}
    for left in sets:
        mask = goes_left_of_set(codes, left)
        if mask.all() or not mask.any():
            continue
        if criterion == "poisson" and (y[mask].sum() == 0 or y[~mask].sum() == 0):
            continue
        gains[left] = exact_split_gain(y, mask, criterion, weights)
        best = gains[left] if best is None else max(best, gains[left])
    return best, gains


def assert_best_categorical_split(split, codes, y, q, criterion, weights, sets):
    """``split`` gains, up to rounding, the most of any split in ``sets``, and sends left
    the categories it names."""
    best, gains = best_over(sets, codes[:, 0], y, criterion, weights)
    if best is None:
        assert split is None
        return
    chosen = frozenset(split.categories_left) | ({None} if split.missing_go_to_left
                                                 and np.isnan(codes).any() else set())
    mask = goes_left_of_set(codes[:, 0], chosen)
    assert split.n_left == mask.sum() and split.n_right == len(y) - mask.sum()
    assert np.array_equal(split.goes_left(codes), mask)
    assert set(split.categories_left) <= set(range(q)) and np.isnan(split.threshold)
    # the chosen split's exact gain and the reported one: both within rounding of the best
    bound = 2 * identity_bound(y, mask, criterion, weights)
    assert abs(exact_split_gain(y, mask, criterion, weights) - best) <= Fraction(bound)
    assert abs(Fraction(split.gain) - best) <= Fraction(bound)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(node=categorical_nodes(TWO_CLASS))
def test_the_partition_strategy_finds_the_best_of_all_partitions(node):
    codes, y, q, criterion, weights = node
    split = exact_split(codes, target_statistics(y, criterion), criterion, 1, "cumsum",
                        weights, Categories(np.array([q]), "partition"))
    present = categories_of(codes[:, 0])
    # every subset of the categories present (missing included): 2**q' - 2 splits, each
    # partition twice (a set and its complement)
    sets = [frozenset(s) for r in range(1, len(present))
            for s in itertools.combinations(present, r)]
    assert_best_categorical_split(split, codes, y, q, criterion, weights, sets)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(node=categorical_nodes(["squared_error", "poisson", "gini", "entropy"]))
def test_one_vs_rest_finds_the_best_single_category(node):
    codes, y, q, criterion, weights = node
    split = exact_split(codes, target_statistics(y, criterion), criterion, 1, "cumsum",
                        weights, Categories(np.array([q]), "one_vs_rest"))
    sets = [frozenset([c]) for c in categories_of(codes[:, 0])]
    if split is not None:
        # one category alone on one side: left, or right with the rest left
        left = set(split.categories_left) | ({None} if split.missing_go_to_left
                                             and np.isnan(codes).any() else set())
        rest = set(categories_of(codes[:, 0])) - left
        assert len(left) == 1 or len(rest) == 1
    assert_best_categorical_split(split, codes, y, q, criterion, weights,
                                  sets + [frozenset(categories_of(codes[:, 0])) - s
                                          for s in sets])


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(node=categorical_nodes(TWO_CLASS), strategy=st.sampled_from(["partition",
                                                                     "one_vs_rest"]))
def test_the_histogram_finder_splits_categories_as_the_exact_one(node, strategy):
    # a category's code is its bin, a missing value the missing bin
    codes, y, q, criterion, weights = node
    categories = Categories(np.array([q]), strategy)
    Y = target_statistics(y, criterion)
    exact = exact_split(codes, Y, criterion, 1, "cumsum", weights, categories)
    bins = np.where(np.isnan(codes), MISSING_BIN, np.nan_to_num(codes)).astype(np.uint8)
    binned = histogram_split(bins, Y, MISSING_BIN + 1, criterion, 1, weights=weights,
                             categories=categories)
    if exact is None:
        assert binned is None
        return
    assert (binned.categories_left, binned.missing_go_to_left, binned.n_left) == (
        exact.categories_left, exact.missing_go_to_left, exact.n_left)
    assert np.array_equal(binned.goes_left(bins), exact.goes_left(codes))


def test_a_categorical_feature_beside_a_numeric_one():
    # x0 numeric (a weak cut), x1 categorical: categories {0, 2} against {1, 3} separate
    # the targets, which no threshold on the codes does
    X = np.array([[0, 0], [1, 2], [2, 1], [3, 3], [4, 0], [5, 1]], dtype=float)
    y = np.array([0.0, 0.0, 5.0, 5.0, 0.0, 5.0])
    categories = Categories(np.array([-1, 4]))
    split = Finder("cumsum", "squared_error", categories=categories)(X, y[:, None])
    assert (split.feature, split.categories_left, split.n_left) == (1, (0, 2), 3)
    assert split.gain == 37.5                    # all of the SSE, 6 * 6.25: exact
    # as numbers, the codes cannot make this cut
    numeric = Finder("cumsum", "squared_error")(X, y[:, None])
    assert numeric.gain < 37.5


def test_a_categorical_split_sends_missing_values_its_own_way():
    split = Split(feature=0, threshold=np.nan, gain=1.0, n_left=2, n_right=2,
                  missing_go_to_left=True, categories_left=(1, 3))
    codes = np.array([[1.0], [2.0], [np.nan], [3.0], [0.0]])
    assert split.goes_left(codes).tolist() == [True, False, True, True, False]
    bins = np.array([[1], [2], [MISSING_BIN], [3], [0]], dtype=np.uint8)
    assert split.goes_left(bins).tolist() == [True, False, True, True, False]


@pytest.mark.parametrize("strategy", ["partition", "one_vs_rest"])
def test_min_samples_leaf_counts_the_samples_of_a_category_set(strategy):
    # category 0 alone (one sample) would be the best split; with min_samples_leaf=2 it
    # is not a candidate
    codes = np.array([[0.0], [1.0], [1.0], [2.0], [2.0]])
    y = np.array([[9.0], [0.0], [0.0], [1.0], [1.0]])
    categories = Categories(np.array([3]), strategy)
    assert exact_split(codes, y, "squared_error", 1, "cumsum", None,
                       categories).categories_left in ((0,), (1, 2))
    split = exact_split(codes, y, "squared_error", 2, "cumsum", None, categories)
    assert min(split.n_left, split.n_right) >= 2
