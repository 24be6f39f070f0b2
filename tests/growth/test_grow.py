"""Sample weights in every grower (``treelib.growth.grow``): a sample of integer weight
w grows the same tree as w copies of it, and a sample of weight 0 the same tree as no
sample at all, for every criterion, split finder and growth order that supports them
(missing values included where the finder searches them)."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from tests.reference import assert_same_tree, impurity_tolerance, rows_of_nodes, sums_tolerance
from treelib.criteria import target_statistics
from treelib.finders import Finder
from treelib.growth import StoppingRules, grow
from treelib.tree import TREE_LEAF

PER_NODE = ("recursive", "depth_first", "best_first")
SUM_CRITERIA = ("squared_error", "poisson", "gini", "entropy")
#: (builder, splitter, criterion) triples that grow trees, with whether they take NaN.
COMBINATIONS = (
    [(b, s, c) for b in PER_NODE for s in ("naive", "scan", "cumsum", "hist", "random")
     for c in SUM_CRITERIA]
    + [(b, s, "absolute_error") for b in PER_NODE for s in ("naive", "scan", "cumsum")]
    + [("level_wise", s, c) for s in ("cumsum", "hist") for c in SUM_CRITERIA])


def takes_missing_values(builder, splitter, criterion):
    return (builder in PER_NODE and splitter in ("cumsum", "hist")
            and criterion != "absolute_error")


@st.composite
def weighted_problems(draw):
    """A growth order, finder and criterion, and a training set whose features come from
    a small pool (one bin per value for "hist"), with NaN where the finder takes it, and
    integer weights 1 .. 3."""
    builder, splitter, criterion = draw(st.sampled_from(COMBINATIONS))
    n = draw(st.integers(2, 14))
    f = draw(st.integers(1, 2))
    elements = st.integers(0, 4).map(float)
    if takes_missing_values(builder, splitter, criterion):
        elements = elements | st.just(np.nan)
    X = draw(hnp.arrays(np.float64, (n, f), elements=elements))
    if criterion in ("gini", "entropy"):
        y = draw(hnp.arrays(np.int64, n, elements=st.integers(0, 2)))
    else:
        low = 0 if criterion == "poisson" else -4
        y = draw(hnp.arrays(np.float64, n, elements=st.integers(low, 4).map(float)))
        if criterion == "poisson" and y.sum() == 0:
            y[0] = 1.0
    weights = draw(hnp.arrays(np.int64, n, elements=st.integers(1, 3)))
    return (builder, splitter, criterion), X, y, weights, draw(st.sampled_from([None, 1, 3]))


def grown(builder, splitter, criterion, X, Y, weights=None, max_depth=None, seed=0):
    """The tree of ``builder`` with the finder ``splitter`` on X and the statistics Y."""
    finder = Finder(splitter, criterion, rng=np.random.default_rng(seed))
    return grow(builder, finder.prepare(X), Y, finder, StoppingRules(max_depth=max_depth),
                weights=None if weights is None else weights.astype(np.float64))


def assert_weights_are_repeats(weighted, repeated, X, y, weights, criterion):
    """The tree grown with integer ``weights`` is the tree grown on the repeated rows:
    the same tests (thresholds exact) and shape, each node's weight the number of rows it
    holds in the repeated tree, values and impurities up to the rounding of their sums.
    Missing values go the same way where the node had some (elsewhere to the larger
    child by number of samples, which repeating changes, as in scikit-learn)."""
    held = rows_of_nodes(weighted, X)
    stack, visited = [(0, 0)], 0
    scale = float(np.abs(y).max(initial=1.0))
    while stack:
        i, j = stack.pop()
        visited += 1
        where = f"node {i} of the weighted tree, {j} of the repeated one"
        rows = held[i]
        assert weighted.n_node_samples[i] == len(rows), where
        assert weighted.weighted_n_node_samples[i] == repeated.n_node_samples[j] \
            == weights[rows].sum(), where                      # integers: exact
        assert (weighted.feature[i], weighted.threshold[i]) == (
            repeated.feature[j], repeated.threshold[j]), where
        n = int(repeated.n_node_samples[j])
        # means (targets or class shares) of n terms of at most ``scale``, in two orders
        np.testing.assert_allclose(weighted.value[i], repeated.value[j], rtol=0,
                                   atol=4 * sums_tolerance(n, scale), err_msg=where)
        np.testing.assert_allclose(
            weighted.impurity[i], repeated.impurity[j], rtol=0, err_msg=where,
            atol=2 * impurity_tolerance(np.repeat(y[rows], weights[rows]), np.ones(n),
                                        criterion))
        if weighted.is_leaf[i]:
            assert repeated.is_leaf[j], where
            continue
        if np.isnan(X[rows, weighted.feature[i]]).any():
            assert weighted.missing_go_to_left[i] == repeated.missing_go_to_left[j], where
        stack += [(weighted.children_left[i], repeated.children_left[j]),
                  (weighted.children_right[i], repeated.children_right[j])]
    # a CART tree has no missing-value child of its own
    assert np.all(np.isin(weighted.children_missing, [TREE_LEAF, *range(weighted.node_count)]))
    assert visited == weighted.node_count == repeated.node_count


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problem=weighted_problems())
def test_integer_weights_grow_the_tree_of_repeated_rows(problem):
    (builder, splitter, criterion), X, y, weights, max_depth = problem
    Y = target_statistics(y, criterion)
    weighted = grown(builder, splitter, criterion, X, Y, weights, max_depth)
    repeat = np.repeat(np.arange(len(y)), weights)
    repeated = grown(builder, splitter, criterion, X[repeat], Y[repeat], None, max_depth)
    assert_weights_are_repeats(weighted, repeated, X, y, weights, criterion)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problem=weighted_problems(), data=st.data())
def test_zero_weights_drop_their_rows(problem, data):
    (builder, splitter, criterion), X, y, weights, max_depth = problem
    if splitter == "hist":
        # grow() drops the rows after the finder has binned every row; the estimators
        # drop them before binning (tests/estimators/test_trees.py)
        splitter = "cumsum"
    zero = data.draw(hnp.arrays(np.bool_, len(y)))
    zero[0] = False                                    # some weight remains
    if criterion == "poisson" and y[~zero].sum() == 0:
        y[0] = 1.0
    weights = np.where(zero, 0, weights)
    Y = target_statistics(y, criterion)          # the classes of every row, kept or not
    with_zeros = grown(builder, splitter, criterion, X, Y, weights, max_depth)
    keep = ~zero
    dropped = grown(builder, splitter, criterion, X[keep], Y[keep], weights[keep], max_depth)
    # the same computation on the same rows: bit for bit
    assert_same_tree(with_zeros, dropped, scale=0.0)
    np.testing.assert_array_equal(with_zeros.weighted_n_node_samples,
                                  dropped.weighted_n_node_samples)


@pytest.mark.parametrize("builder", [*PER_NODE, "level_wise"])
def test_weights_move_the_split(builder):
    # y = 0, 1, 2: the cut isolates the lighter end (SSE 1/2 against 5/6)
    X, y = np.array([[1.0], [2.0], [3.0]]), np.array([0.0, 1.0, 2.0])
    Y = y[:, None]
    first = grown(builder, "cumsum", "squared_error", X, Y, np.array([5, 1, 1]), 1)
    last = grown(builder, "cumsum", "squared_error", X, Y, np.array([1, 1, 5]), 1)
    assert (first.threshold[0], last.threshold[0]) == (1.5, 2.5)
    assert last.weighted_n_node_samples.tolist() == [7.0, 2.0, 5.0]
    assert last.n_node_samples.tolist() == [3, 2, 1]
    # weighted means: 11/7 (one rounding of the anchor's shift), 1/2 and 2 (exact)
    np.testing.assert_allclose(last.value[:, 0], [11 / 7, 0.5, 2.0], rtol=0, atol=4e-16)
