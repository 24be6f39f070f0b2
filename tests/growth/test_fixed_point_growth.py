"""Histogram trees and boosting from fixed-point sums (``histogram_sums="fixed_point"``): the float
histogram tree where no cut nearly ties another, the exact-arithmetic best split, and the
same bits whatever the order of the rows and however they are split into blocks."""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from tests.reference import assert_identical_trees
from treelib.binning import thresholds_from_counts
from treelib.counters import GrowthCounter
from treelib.datasets import load_california_housing
from treelib.estimators import (
    DecisionTreeRegressor,
    HistGradientBoostingClassifier,
    HistGradientBoostingRegressor,
)
from treelib.growth import StoppingRules
from treelib.growth.boosting_grower import BoostingRules
from treelib.growth.fixed_point_boosting import boost_fixed_point
from treelib.growth.fixed_point_tree import grow_fixed_point_tree
from treelib.growth.row_parts import LocalParts, RowPart
from treelib.losses import HalfBinomialLoss, HalfSquaredError


@pytest.fixture(scope="module")
def california():
    X, y = load_california_housing(return_X_y=True)
    return X[:3000], y[:3000]


def exact_tree(X, y, **options):
    return DecisionTreeRegressor(splitter="hist", histogram_sums="fixed_point", **options).fit(X, y)


def test_exact_tree_is_the_float_tree_without_near_ties(california):
    X, y = california
    exact = exact_tree(X, y, max_depth=6).tree_
    float_ = DecisionTreeRegressor(splitter="hist", builder="level_wise",
                                   max_depth=6).fit(X, y).tree_
    for name in ("children_left", "children_right", "children_missing", "feature",
                 "threshold", "n_node_samples"):
        assert np.array_equal(getattr(exact, name), getattr(float_, name)), name
    np.testing.assert_allclose(exact.value, float_.value, rtol=1e-12)
    np.testing.assert_allclose(exact.impurity, float_.impurity, rtol=1e-9, atol=1e-12)


def test_exact_boosting_is_the_float_boosting_without_near_ties(california):
    X, y = california
    for model, target in ((HistGradientBoostingRegressor, y),
                          (HistGradientBoostingClassifier, y > 2)):
        exact = model(max_iter=5, histogram_sums="fixed_point").fit(X, target)
        float_ = model(max_iter=5).fit(X, target)
        for a, b in zip(exact.trees_, float_.trees_):
            assert np.array_equal(a[0].feature, b[0].feature)
            assert np.array_equal(a[0].threshold, b[0].threshold)
            np.testing.assert_allclose(a[0].value, b[0].value, rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(exact._raw_predict(X), float_._raw_predict(X),
                                   rtol=1e-9, atol=1e-12)


def exact_gain(y, left):
    """The squared-error gain of a cut in exact rational arithmetic."""
    values = [Fraction(float(v)) for v in y]
    total, n = sum(values), len(values)
    s_left = sum(v for v, go in zip(values, left) if go)
    n_left = int(np.sum(left))
    s_right = total - s_left
    return s_left ** 2 / n_left + s_right ** 2 / (n - n_left) - total ** 2 / n


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_root_split_is_the_exact_arithmetic_best(data):
    n = data.draw(st.integers(4, 40))
    f = data.draw(st.integers(1, 3))
    X = data.draw(hnp.arrays(np.float64, (n, f), elements=st.integers(0, 6).map(float)))
    scale = data.draw(st.sampled_from([1e-3, 1.0, 1e6]))
    offset = data.draw(st.sampled_from([0.0, 1e3, -1e9]))
    y = data.draw(hnp.arrays(np.float64, n, elements=st.floats(-10, 10, width=32)))
    y = y * scale + offset
    tree = exact_tree(X, y, max_depth=1).tree_
    gains = {}
    for j in range(f):
        values = np.unique(X[:, j])
        for b, threshold in enumerate((values[:-1] + values[1:]) / 2):
            gains[(j, b)] = (exact_gain(y, X[:, j] <= threshold), threshold)
    positive = {k: g for k, g in gains.items() if g[0] > 0}
    if not positive:
        assert tree.node_count == 1
        return
    best = max(g for g, _ in positive.values())
    assert tree.node_count == 3
    j, threshold = int(tree.feature[0]), float(tree.threshold[0])
    chosen = [g for (jj, _), (g, t) in gains.items() if jj == j and t == threshold][0]
    assert abs(chosen - best) <= best * Fraction(1, 10**12)
    exactly_best = sorted(k for k, (g, _) in gains.items() if g == best)
    near = [k for k, (g, _) in gains.items() if abs(g - best) <= best * Fraction(1, 10**12)]
    if len(near) == len(exactly_best):        # no near-tie: the tie rule's first
        assert (j, threshold) == (exactly_best[0][0], gains[exactly_best[0]][1])
    mean = sum(Fraction(float(v)) for v in y) / n
    assert abs(Fraction(float(tree.value[0, 0])) - mean) <= abs(mean) * Fraction(1, 10**14) \
        + Fraction(1, 10**300)


def local_parts(X, y, blocks):
    return LocalParts([RowPart(X[b], y[b]) for b in blocks])


def binned(parts, max_bins=255):
    summary = parts.reduce("value_counts")
    thresholds = [thresholds_from_counts(v, c, max_bins)
                  for v, c in zip(summary.values, summary.counts)]
    parts.update("bin", thresholds)
    return thresholds


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(1, 7))
def test_tree_bits_do_not_depend_on_row_order_or_blocks(california, seed, k):
    X, y = california[0][:1500].astype(np.float32), california[1][:1500] * 1e3 + 7e6
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(y))
    cuts = np.sort(rng.choice(np.arange(len(y) + 1), k - 1))     # empty blocks allowed
    trees = []
    for blocks in ([np.arange(len(y))], np.split(order, cuts)):
        parts = local_parts(X, y, blocks)
        thresholds = binned(parts)
        trees.append(grow_fixed_point_tree(parts, thresholds, StoppingRules(max_depth=8)))
    assert_identical_trees(*trees)


@pytest.mark.parametrize("loss", [HalfSquaredError(), HalfBinomialLoss()])
def test_boosting_bits_do_not_depend_on_row_order_or_blocks(california, loss):
    X, y = california
    y = y if isinstance(loss, HalfSquaredError) else (y > 2).astype(np.float64)
    rng = np.random.default_rng(0)
    fits = []
    for blocks in ([np.arange(len(y))], np.array_split(rng.permutation(len(y)), 5),
                   [np.arange(0, 1000), np.arange(1000, 1000), np.arange(1000, len(y))]):
        parts = local_parts(X, y, blocks)
        thresholds = binned(parts)
        fits.append(boost_fixed_point(parts, max(len(t) for t in thresholds) + 1, loss,
                                max_iter=3, rules=BoostingRules(max_leaf_nodes=15)))
    for baseline, trees in fits[1:]:
        assert np.array_equal(baseline, fits[0][0])
        for a, b in zip(trees, fits[0][1]):
            assert_identical_trees(a[0], b[0])


def test_estimators_on_permuted_rows_give_the_same_bits(california):
    X, y = california
    order = np.random.default_rng(1).permutation(len(y))
    a, b = exact_tree(X, y, max_depth=7), exact_tree(X[order], y[order], max_depth=7)
    assert_identical_trees(a.tree_, b.tree_)
    assert np.array_equal(a.predict(X), b.predict(X))
    c = HistGradientBoostingRegressor(max_iter=3, histogram_sums="fixed_point").fit(X, y)
    d = HistGradientBoostingRegressor(max_iter=3, histogram_sums="fixed_point").fit(X[order],
                                                                             y[order])
    assert np.array_equal(c.predict(X), d.predict(X))


def test_subtraction_is_counted_and_pure_nodes_are_leaves():
    X = np.repeat(np.arange(8.0), 50)[:, None]
    y = np.where(X[:, 0] < 4, 1.0, np.where(X[:, 0] < 6, 2.5, 2.5))
    counter = GrowthCounter()
    parts = local_parts(X, y, [np.arange(len(y))])
    thresholds = binned(parts)
    tree = grow_fixed_point_tree(parts, thresholds, StoppingRules(), counter=counter)
    assert tree.node_count == 3 and np.array_equal(tree.impurity[1:], [0.0, 0.0])
    model = exact_tree(np.random.default_rng(0).normal(size=(2000, 3)),
                       np.random.default_rng(1).normal(size=2000), max_depth=5)
    assert model.growth_counter_.subtracted_histograms > 0


@pytest.mark.parametrize("options, message", [
    (dict(splitter="cumsum"), "splitter='hist'"),
    (dict(criterion="poisson"), "squared_error"),
    (dict(builder="depth_first"), "level-wise"),
    (dict(max_leaf_nodes=8), "max_leaf_nodes"),
    (dict(max_features=1), "max_features"),
    (dict(histogram_sums="fixed"), "histogram_sums must be one of"),
])
def test_tree_options_without_exact_sums_are_refused(options, message):
    X, y = np.arange(40.0).reshape(20, 2), np.arange(20.0)
    with pytest.raises(ValueError, match=message):
        DecisionTreeRegressor(**{"splitter": "hist", "histogram_sums": "fixed_point", **options}
                              ).fit(X, y)


def test_tree_inputs_without_exact_sums_are_refused():
    X, y = np.arange(40.0).reshape(20, 2), np.arange(20.0)
    model = DecisionTreeRegressor(splitter="hist", histogram_sums="fixed_point")
    with pytest.raises(ValueError, match="sample_weight"):
        model.fit(X, y, sample_weight=np.ones(20))
    X[3, 1] = np.nan
    with pytest.raises(ValueError, match="missing values"):
        model.fit(X, y)


@pytest.mark.parametrize("options, message", [
    (dict(early_stopping=True), "early stopping"),
    (dict(sampling="goss"), "sampling='goss'"),
    (dict(learning_rate="line_search"), "fixed learning rate"),
])
def test_boosting_options_without_exact_sums_are_refused(options, message):
    X, y = np.arange(80.0).reshape(40, 2), np.arange(40.0)
    with pytest.raises(ValueError, match=message):
        HistGradientBoostingRegressor(max_iter=2, histogram_sums="fixed_point", **options).fit(X, y)


def test_multiclass_and_weights_without_exact_sums_are_refused():
    X = np.arange(80.0).reshape(40, 2)
    model = HistGradientBoostingClassifier(max_iter=2, histogram_sums="fixed_point")
    with pytest.raises(ValueError, match="binary log-loss"):
        model.fit(X, np.arange(40) % 3)
    with pytest.raises(ValueError, match="sample_weight"):
        model.fit(X, np.arange(40) % 2, sample_weight=np.ones(40))
