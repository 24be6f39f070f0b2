"""Chapter 16 ("Oblivious trees"): the chapter's teaching code equals treelib, and the
chapter's claims hold.

From the cells tagged "teaching": ``best_level_test`` / ``grow_oblivious_by_loop`` (an
oblivious tree's level search as loops) must choose treelib's tests, up to exact ties;
``leaf_index`` must find treelib's leaf for every row.  No test looks at seconds.
"""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from tests.conftest import claim, notebook_cells
from tests.reference import exact_sse
from treelib import DecisionTreeRegressor, ObliviousTreeRegressor
from treelib.bench import california_split, r2
from treelib.finders import Finder
from treelib.growth import StoppingRules
from treelib.growth.oblivious import grow_oblivious

NOTEBOOK = "16_oblivious_trees.ipynb"
teaching = notebook_cells(NOTEBOOK)
grow_oblivious_by_loop, leaf_index = teaching["grow_oblivious_by_loop"], teaching["leaf_index"]


@pytest.fixture(scope="module")
def california():
    return california_split()


# --- oblivious trees ---------------------------------------------------------------------


@st.composite
def continuous_data(draw):
    """Rows of distinct-enough continuous features and targets: ties between candidate
    tests are then only the structural ones the comparison allows for."""
    n = draw(st.integers(8, 40))
    f = draw(st.integers(1, 3))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, f)), draw(st.sampled_from([1, 3])))   # some ties
    y = np.round(rng.normal(size=n) + 2 * (X[:, 0] > 0), 3)
    return X, y, draw(st.integers(1, 3))


def level_loss(X, y, features, thresholds, level):
    """The children's losses after ``level + 1`` levels, summed over the leaves, exact."""
    leaves = leaf_index(X, features[:level + 1], thresholds[:level + 1])
    return sum(exact_sse(y[leaves == s]) for s in np.unique(leaves))


@settings(max_examples=100, deadline=None)
@given(data=continuous_data())
def test_the_loops_choose_treelibs_tests(data):
    X, y, depth = data
    finder = Finder("hist", "squared_error")
    tree = grow_oblivious(finder.prepare(X), y[:, None], finder, StoppingRules(max_depth=depth))
    features, thresholds = grow_oblivious_by_loop(X, y, depth)
    for level in range(tree.depth):
        ours = (features[level], thresholds[level])
        if ours != (tree.feature[level], tree.threshold[level]):
            # a tie: both tests leave the same summed loss (up to the loops' float sums);
            # the trees then differ below, and are not compared further
            a = level_loss(X, y, list(tree.feature), list(tree.threshold), level)
            b = level_loss(X, y, features, thresholds, level)
            assert abs(float(a - b)) <= 1e-9 * float(exact_sse(y) + Fraction(1))
            return
    leaves = leaf_index(X, list(tree.feature), list(tree.threshold))
    np.testing.assert_array_equal(leaves, tree.apply(X))


@settings(max_examples=100, deadline=None)
@given(X=hnp.arrays(np.float64, (20, 3), elements=st.floats(-5, 5)),
       features=st.lists(st.integers(0, 2), min_size=0, max_size=5),
       cut=st.floats(-5, 5))
def test_the_bit_index_is_treelibs_leaf(X, features, cut):
    thresholds = [cut + 0.5 * level for level in range(len(features))]
    expected = [sum(2 ** level for level, (j, t) in enumerate(zip(features, thresholds))
                    if x[j] > t) for x in X]
    np.testing.assert_array_equal(leaf_index(X, features, thresholds), expected)


def test_the_depth_3_tree_of_the_figure(california):
    X_train, X_test, y_train, y_test = california
    tree = ObliviousTreeRegressor(max_depth=3).fit(X_train, y_train).tree_
    # MedInc twice, then AveOccup; MedInc > 5.03 and <= 3.13 holds no row: leaves 1, 5
    np.testing.assert_array_equal(tree.feature, [0, 0, 5])
    assert tree.threshold[0] > tree.threshold[1]
    np.testing.assert_array_equal(np.flatnonzero(tree.n_leaf_samples == 0), [1, 5])
    # an empty leaf predicts its nearest ancestor that holds rows: node 1 of level 1
    above = X_train[:, 0] > tree.threshold[0]
    np.testing.assert_allclose(tree.value[[1, 5], 0], y_train[above].mean(), rtol=1e-12)


def test_oblivious_trees_are_weaker_than_cart_at_equal_depth(california):
    claim(NOTEBOOK, "At every depth the oblivious tree is worse alone (0.602 against 0.671 at "
                    "depth 6)")
    X_train, X_test, y_train, y_test = california
    for depth in (4, 6, 8):
        cart = DecisionTreeRegressor(max_depth=depth, builder="level_wise")
        oblivious = ObliviousTreeRegressor(max_depth=depth)
        ours = oblivious.fit(X_train, y_train).score(X_test, y_test)
        theirs = cart.fit(X_train, y_train).score(X_test, y_test)
        assert ours < theirs
        if depth == 6:
            assert (round(ours, 3), round(theirs, 3)) == (0.602, 0.671)


def boosted(make_tree, X, y, X_new, rounds=50, rate=0.2):
    """The chapter's boosting loop for squared error."""
    fit, new = np.full(len(y), y.mean()), np.full(len(X_new), y.mean())
    for _ in range(rounds):
        tree = make_tree().fit(X, y - fit)
        fit += rate * tree.predict(X)
        new += rate * tree.predict(X_new)
    return fit, new


def test_claim_boosted_oblivious_trees_overfit_less(california):
    claim(NOTEBOOK, "the boosted oblivious trees fit the training rows less closely than the "
                    "boosted CART trees (train R² 0.885 against 0.957) and predict the test "
                    "rows better (0.796 against 0.783)")
    X_train, X_test, y_train, y_test = california
    small = np.random.default_rng(0).permutation(len(y_train))[:3000]
    X, y = X_train[small], y_train[small]
    scores = {}
    for name, make in [("oblivious", lambda: ObliviousTreeRegressor(max_depth=6)),
                       ("cart", lambda: DecisionTreeRegressor(max_depth=6,
                                                              builder="level_wise"))]:
        fit, new = boosted(make, X, y, X_test)
        scores[name] = (round(r2(y, fit), 3), round(r2(y_test, new), 3))
    assert scores == {"oblivious": (0.885, 0.796), "cart": (0.957, 0.783)}


def test_claim_empty_leaves_grow_with_depth(california):
    claim(NOTEBOOK, "50% of the leaves are empty at depth 4, 52% at depth 6 and 64% at depth 8")
    X_train, _, y_train, _ = california
    shares = [np.mean(ObliviousTreeRegressor(max_depth=depth).fit(X_train, y_train)
                      .tree_.n_leaf_samples == 0) for depth in (4, 6, 8)]
    assert [round(100 * s) for s in shares] == [50, 52, 64]


def test_the_level_searches_cost_of_the_first_exercise(california):
    claim(NOTEBOOK, "The histogram search visits 10,123 times fewer rows and bins here")
    n, f, S, B = len(california[2]), california[0].shape[1], 2 ** 5, 256
    assert round(f * n ** 2 / (f * n + f * S * B)) == 10123
