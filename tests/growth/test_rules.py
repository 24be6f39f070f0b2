"""StoppingRules: scikit-learn's rules for when a node stays a leaf, on single nodes and
arrays of nodes, and through every grower against the brute-force tree."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.reference import assert_same_tree, brute_force_tree
from treelib.criteria import one_hot
from treelib.finders import Finder
from treelib.growth import GROWERS, StoppingRules, grow
from treelib.growth.rules import EPSILON


def test_defaults_are_scikit_learns():
    rules = StoppingRules()
    assert (rules.max_depth, rules.min_samples_split, rules.min_impurity_decrease,
            rules.max_leaf_nodes) == (None, 2, 0.0, None)
    assert EPSILON == np.finfo(np.float64).eps
    with pytest.raises(AttributeError):
        rules.max_depth = 3                                  # frozen: shared safely


def test_is_leaf_on_one_node():
    rules = StoppingRules(max_depth=3, min_samples_split=5)
    assert not rules.is_leaf(10, 0.5, 2)
    assert rules.is_leaf(10, 0.5, 3)                         # depth reached max_depth
    assert rules.is_leaf(4, 0.5, 0)                          # fewer than min_samples_split
    assert not rules.is_leaf(5, 0.5, 0)
    assert rules.is_leaf(9, 0.5, 0, min_samples_leaf=5)      # fewer than 2 min_samples_leaf
    assert not rules.is_leaf(10, 0.5, 0, min_samples_leaf=5)
    assert rules.is_leaf(10, 0.0, 0)                         # pure
    assert not rules.is_leaf(10, 1e-300, 0)                  # impure, however little
    # no depth limit
    assert not StoppingRules().is_leaf(10, 0.5, 10**6)


def test_is_leaf_on_arrays_of_nodes():
    rules = StoppingRules(max_depth=4, min_samples_split=3)
    counts = np.array([2, 3, 3, 3, 7, 8])
    impurity = np.array([1.0, 1.0, 0.0, 1.0, 1.0, 1.0])
    depth = np.array([0, 0, 0, 4, 1, 1])
    np.testing.assert_array_equal(rules.is_leaf(counts, impurity, depth, min_samples_leaf=4),
                                  [True, True, True, True, True, False])
    np.testing.assert_array_equal(rules.is_leaf(counts, impurity, depth),
                                  [True, False, True, True, False, False])


def test_rejects_missing_and_small_gains():
    rules = StoppingRules(min_impurity_decrease=0.25)
    assert rules.rejects(None, 10)                           # no candidate
    n = 8
    # improvement = gain / n_total; scikit-learn's leaf test: improvement + EPSILON < mid
    np.testing.assert_array_equal(
        rules.rejects(np.array([-np.inf, np.nan, 1.0, 2.0, 2.0 - 4 * EPSILON, 3.0]), n),
        [True, True, True, False, False, False])
    # the EPSILON slack: an improvement EPSILON short of the threshold still splits,
    # one 2 EPSILON short does not (every number here is exact in binary)
    assert not rules.rejects(2.0 - 8 * EPSILON, n)
    assert rules.rejects(2.0 - 16 * EPSILON, n)
    # without min_impurity_decrease, any finite gain splits, even 0 or a negative
    # rounding error (clipped to 0)
    assert not StoppingRules().rejects(0.0, n)
    assert not StoppingRules().rejects(-1e-17, n)
    assert StoppingRules().rejects(-np.inf, n)


@pytest.mark.parametrize("builder", ["recursive", "depth_first", "level_wise"])
def test_only_best_first_stops_at_a_number_of_leaves(builder):
    X = np.arange(20.0)[:, None]
    Y = X.copy()
    with pytest.raises(ValueError, match="max_leaf_nodes needs best-first growth"):
        grow(builder, X, Y, Finder("cumsum", "squared_error"), StoppingRules(max_leaf_nodes=4))
    tree = grow("best_first", X, Y, Finder("cumsum", "squared_error"),
                StoppingRules(max_leaf_nodes=4))
    assert tree.n_leaves == 4


def test_unknown_builder_is_named():
    with pytest.raises(ValueError, match=r"unknown builder 'breadth'.*depth_first"):
        grow("breadth", np.zeros((2, 1)), np.zeros((2, 1)), Finder("cumsum", "squared_error"),
             StoppingRules())


# --- every rule, through every grower, against the brute-force tree ---------------------


@st.composite
def small_problems(draw):
    n = draw(st.integers(1, 24))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    X = rng.integers(0, draw(st.integers(1, 6)), size=(n, draw(st.integers(1, 3)))) * 0.5
    criterion = draw(st.sampled_from(["squared_error", "gini", "entropy"]))
    if criterion == "squared_error":
        y = rng.integers(-3, 4, n).astype(np.float64)
    else:
        y = rng.integers(0, 3, n)
    rules = dict(max_depth=draw(st.sampled_from([None, 1, 2, 3])),
                 min_samples_split=draw(st.sampled_from([2, 3, 6])),
                 min_samples_leaf=draw(st.sampled_from([1, 2, 4])),
                 min_impurity_decrease=draw(st.sampled_from([0.0, 0.02, 0.2])))
    return X, y, criterion, rules


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problem=small_problems())
def test_every_grower_follows_the_rules_as_the_brute_force_tree(problem):
    X, y, criterion, rules = problem
    Y = y[:, None] if criterion == "squared_error" else one_hot(y, 3)
    expected = brute_force_tree(X, y, criterion, n_classes=3, **rules)
    finder = Finder("cumsum", criterion, min_samples_leaf=rules["min_samples_leaf"])
    stopping = StoppingRules(max_depth=rules["max_depth"],
                             min_samples_split=rules["min_samples_split"],
                             min_impurity_decrease=rules["min_impurity_decrease"])
    for builder in GROWERS:
        assert_same_tree(grow(builder, X, Y, finder, stopping), expected)
