"""DecisionTreeRegressor and DecisionTreeClassifier: what their parameters do, the
growth orders and finders they choose, refits, and the errors they raise.

(Bad input data is tested in ``tests/test_validation.py``; agreement with scikit-learn in
``tests/estimators/test_sklearn_agreement.py``.)"""

import numpy as np
import pytest
from sklearn.datasets import load_iris

from tests.reference import assert_same_tree, assert_sums_close
from treelib.datasets import load_california_housing, load_libsvm
from treelib.estimators import DecisionTreeClassifier, DecisionTreeRegressor
from treelib.growth import GROWERS
from treelib.validation import MAX_TARGET_SPREAD

SMALL_X, SMALL_Y = np.arange(20.0).reshape(10, 2), np.arange(10.0)


@pytest.fixture(scope="module")
def california():
    return load_california_housing(return_X_y=True)


# --- growth orders and finders -------------------------------------------------------------


@pytest.mark.parametrize("builder", [*GROWERS, None])
def test_classifier_builders_grow_the_same_tree(builder):
    X, y = load_iris(return_X_y=True)
    reference = DecisionTreeClassifier(builder="recursive").fit(X, y)
    model = DecisionTreeClassifier(builder=builder).fit(X, y)
    assert_same_tree(model.tree_, reference.tree_)
    np.testing.assert_array_equal(model.predict(X), reference.predict(X))
    np.testing.assert_array_equal(model.feature_importances_, reference.feature_importances_)


@pytest.mark.parametrize("builder", ["depth_first", "best_first", "recursive"])
def test_histogram_growth_orders_agree(california, builder):
    X, y = california
    reference = DecisionTreeRegressor(splitter="hist", max_bins=64, max_depth=7,
                                      builder="level_wise").fit(X, y)
    model = DecisionTreeRegressor(splitter="hist", max_bins=64, max_depth=7,
                                  builder=builder).fit(X, y)
    assert_same_tree(reference.tree_, model.tree_)
    # a prediction is a leaf's mean of at most n targets, summed in other orders
    assert_sums_close(model.predict(X), reference.predict(X), len(y), np.abs(y).max())


def test_default_builder_is_depth_first_or_best_first_with_max_leaf_nodes():
    X, y = load_iris(return_X_y=True)
    default = DecisionTreeClassifier(max_depth=3).fit(X, y).tree_
    np.testing.assert_array_equal(
        default.children_left,
        DecisionTreeClassifier(max_depth=3, builder="depth_first").fit(X, y).tree_.children_left)
    internal = np.flatnonzero(~default.is_leaf)
    np.testing.assert_array_equal(default.children_left[internal], internal + 1)  # pre-order
    limited = DecisionTreeClassifier(max_leaf_nodes=4).fit(X, y).tree_
    best = DecisionTreeClassifier(max_leaf_nodes=4, builder="best_first").fit(X, y).tree_
    np.testing.assert_array_equal(limited.children_left, best.children_left)
    np.testing.assert_array_equal(limited.children_left[~limited.is_leaf], [1, 3, 5])


def test_max_leaf_nodes_keeps_the_most_useful_splits():
    rng = np.random.default_rng(1)
    X = rng.uniform(size=(500, 2))
    y = np.where(X[:, 0] < 0.5, 0.0, 10.0) + np.where(X[:, 1] < 0.1, 3.0, 0.0)
    y += rng.normal(scale=0.01, size=500)
    model = DecisionTreeRegressor(max_leaf_nodes=3).fit(X, y)
    tree = model.tree_
    assert model.get_n_leaves() == tree.n_leaves == 3
    # X is cast to float32: thresholds are midpoints of float32 values near the steps
    assert tree.feature[0] == 0 and abs(tree.threshold[0] - 0.5) < 0.01
    # the second split is the step of feature 1 at 0.1 (gain about 9 x 45), in
    # whichever child of the root it was made
    second = ~tree.is_leaf[1:]
    assert tree.feature[1:][second].tolist() == [1]
    assert abs(tree.threshold[1:][second][0] - 0.1) < 0.01


def test_max_features_is_seeded_and_searches_that_many_features():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(300, 6))
    y = X @ np.arange(6.0) + rng.normal(size=300)
    a = DecisionTreeRegressor(max_features=2, random_state=0, max_depth=6).fit(X, y)
    b = DecisionTreeRegressor(max_features=2, random_state=0, max_depth=6).fit(X, y)
    c = DecisionTreeRegressor(max_features=2, random_state=1, max_depth=6).fit(X, y)
    assert_same_tree(a.tree_, b.tree_)
    assert not np.array_equal(a.tree_.feature, c.tree_.feature)
    assert a.max_features_ == 2
    assert DecisionTreeRegressor(max_features="sqrt").fit(X, y).max_features_ == 2
    assert DecisionTreeRegressor().fit(X, y).max_features_ == 6
    # with one feature per node, the root splits on whichever feature was drawn
    roots = {DecisionTreeRegressor(max_features=1, random_state=s, max_depth=1)
             .fit(X, y).tree_.feature[0] for s in range(30)}
    assert len(roots) >= 4


def test_random_splitter_is_seeded():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(200, 3))
    y = X[:, 0] + rng.normal(scale=0.1, size=200)
    a = DecisionTreeRegressor(splitter="random", random_state=0, max_depth=5).fit(X, y)
    b = DecisionTreeRegressor(splitter="random", random_state=0, max_depth=5).fit(X, y)
    c = DecisionTreeRegressor(splitter="random", random_state=1, max_depth=5).fit(X, y)
    np.testing.assert_array_equal(a.tree_.threshold, b.tree_.threshold)
    assert not np.array_equal(a.tree_.threshold, c.tree_.threshold)
    exact = DecisionTreeRegressor(max_depth=5).fit(X, y)
    assert not np.array_equal(a.tree_.threshold, exact.tree_.threshold)


def same_partition(a, b, X):
    """Walk trees a and b together on the rows of X: same feature and same children at
    every node, whatever the thresholds.  Returns the nodes visited."""
    stack, visited = [(0, 0, np.arange(len(X)))], 0
    while stack:
        i, j, rows = stack.pop()
        visited += 1
        assert a.n_node_samples[i] == b.n_node_samples[j] == len(rows)
        assert a.is_leaf[i] == b.is_leaf[j]
        if a.is_leaf[i]:
            continue
        assert a.feature[i] == b.feature[j]
        left = X[rows, a.feature[i]] <= a.threshold[i]
        np.testing.assert_array_equal(left, X[rows, b.feature[j]] <= b.threshold[j])
        stack += [(a.children_left[i], b.children_left[j], rows[left]),
                  (a.children_right[i], b.children_right[j], rows[~left])]
    return visited


def test_histogram_classifier_on_binary_features_is_the_exact_one():
    data = load_libsvm("a1a")
    exact = DecisionTreeClassifier(builder="level_wise", max_depth=6).fit(data.X_train,
                                                                          data.y_train)
    hist = DecisionTreeClassifier(splitter="hist", builder="level_wise", max_depth=6).fit(
        data.X_train, data.y_train)
    # binary features: two bins each, the exact cuts: same partition, same predictions
    assert all(len(t) <= 1 for t in hist.bin_thresholds_)
    assert same_partition(exact.tree_, hist.tree_, data.X_train) > 10
    # class proportions: the same counts divided by the same n
    np.testing.assert_array_equal(hist.predict_proba(data.X_test),
                                  exact.predict_proba(data.X_test))


# --- the fitted attributes -------------------------------------------------------------------


def test_fitted_attributes_describe_the_tree():
    X, y = load_iris(return_X_y=True)
    model = DecisionTreeClassifier(criterion="entropy", max_depth=3).fit(X, y)
    assert model.get_depth() == model.tree_.max_depth == 3
    assert model.get_n_leaves() == model.tree_.n_leaves
    assert model.n_features_in_ == 4 and model.n_classes_ == 3
    np.testing.assert_array_equal(model.classes_, [0, 1, 2])
    leaves = model.apply(X)
    assert np.all(model.tree_.is_leaf[leaves])
    # a leaf's proportions are its training samples' classes, counted (exact division)
    for leaf in np.unique(leaves):
        np.testing.assert_array_equal(model.tree_.value[leaf],
                                      np.bincount(y[leaves == leaf], minlength=3)
                                      / np.sum(leaves == leaf))
    # importances: gains over their total, which sums to 1 up to f roundings
    assert_sums_close(model.feature_importances_.sum(), 1.0, 4, 1.0)
    assert not hasattr(model, "bin_thresholds_")


def test_string_labels_come_back_as_labels():
    X = np.arange(12.0)[:, None]
    y = np.array(["low"] * 6 + ["high"] * 6)
    model = DecisionTreeClassifier().fit(X, y)
    np.testing.assert_array_equal(model.classes_, ["high", "low"])
    np.testing.assert_array_equal(model.predict([[0.0], [11.0]]), ["low", "high"])
    np.testing.assert_array_equal(model.predict_proba([[0.0]]), [[0.0, 1.0]])


def test_x_is_split_as_float32_like_scikit_learns_trees():
    # two values that differ only beyond float32's precision are one value
    X = np.array([[1.0], [1.0 + 1e-9], [2.0], [2.0 + 1e-9]])
    y = np.array([0.0, 1.0, 0.0, 1.0])
    model = DecisionTreeRegressor().fit(X, y)
    assert model.tree_.node_count == 3 and model.tree_.threshold[0] == 1.5


# --- refits ----------------------------------------------------------------------------------


def test_refit_without_histograms_forgets_the_bins():
    # Reported bug: bin_thresholds_ survived a refit with another splitter, describing
    # bins the new tree never used.
    X, y = SMALL_X, SMALL_Y
    model = DecisionTreeRegressor(splitter="hist").fit(X, y)
    assert len(model.bin_thresholds_) == 2
    model.set_params(splitter="cumsum").fit(X, y)
    assert not hasattr(model, "bin_thresholds_")
    model.set_params(splitter="hist", max_bins=4).fit(X, y)
    assert [len(t) for t in model.bin_thresholds_] == [3, 3]


def test_refit_replaces_the_tree():
    X, y = load_iris(return_X_y=True)
    model = DecisionTreeClassifier(max_depth=1).fit(X, y)
    model.set_params(max_depth=3).fit(X[:100], y[:100])
    assert model.get_depth() == 1           # two classes left, separated by one split
    np.testing.assert_array_equal(model.classes_, [0, 1])
    assert model.tree_.n_node_samples[0] == 100


# --- errors ------------------------------------------------------------------------------------


def test_huge_targets_are_refused_with_a_way_out():
    # Reported bug: targets near 1e155 overflowed the squares of their sums, every gain
    # became NaN or infinite, and the regressor silently returned a one-leaf tree.
    X = np.arange(10.0)[:, None]
    for y in (np.r_[np.zeros(5), np.full(5, 1e155)], 1e155 * (1.0 + np.arange(10) % 3)):
        with pytest.raises(ValueError, match="rescale y"):
            DecisionTreeRegressor().fit(X, y)
    # the limit: n (max(y) - min(y)) below the square root of the largest float
    y = np.r_[np.zeros(5), np.full(5, 0.5 * MAX_TARGET_SPREAD / 10)]
    tree = DecisionTreeRegressor().fit(X, y).tree_
    assert tree.node_count == 3 and np.all(np.isfinite(tree.impurity))
    # a constant target, however large, is one leaf
    assert DecisionTreeRegressor().fit(X, np.full(10, 1e300)).tree_.node_count == 1


@pytest.mark.parametrize("builder", ["depth_first", "level_wise", "recursive"])
def test_max_leaf_nodes_needs_best_first(builder):
    with pytest.raises(ValueError, match="max_leaf_nodes needs best-first growth"):
        DecisionTreeRegressor(builder=builder, max_leaf_nodes=4).fit(SMALL_X, SMALL_Y)
    with pytest.raises(ValueError, match="max_leaf_nodes needs best-first growth"):
        DecisionTreeClassifier(builder=builder, max_leaf_nodes=4).fit(SMALL_X, SMALL_Y > 4)


@pytest.mark.parametrize("splitter", ["naive", "scan"])
def test_level_wise_growth_needs_cumsum_hist_or_random(splitter):
    with pytest.raises(ValueError, match="needs splitter 'cumsum', 'hist' or 'random'; got "
                                         f"'{splitter}'"):
        DecisionTreeRegressor(builder="level_wise", splitter=splitter,
                              random_state=0).fit(SMALL_X, SMALL_Y)


@pytest.mark.parametrize("params, message", [
    ({"splitter": "hist", "max_bins": 256}, "max_bins must be an integer from 2 to 255"),
    ({"splitter": "histogram"}, "unknown splitter 'histogram'"),
    ({"builder": "level"}, r"unknown builder 'level'; choose one of \['recursive', "
                           "'depth_first', 'best_first', 'level_wise'\\]"),
    ({"criterion": "gini"}, "criterion must be one of \\['squared_error', 'poisson', "
                            "'absolute_error'\\]; got 'gini'"),
    ({"max_leaf_nodes": 1}, "max_leaf_nodes must be an integer >= 2"),
])
def test_bad_parameters_are_named(params, message):
    with pytest.raises(ValueError, match=message):
        DecisionTreeRegressor(**params).fit(SMALL_X, SMALL_Y)


def test_histograms_take_missing_values_but_not_level_by_level():
    X, y = np.array([[np.nan], [1.0], [2.0]]), [5.0, 1.0, 2.0]
    tree = DecisionTreeRegressor(splitter="hist", max_depth=1).fit(X, y).tree_
    # the best split sends the missing value alone to one side: every present value left
    assert tree.threshold[0] == np.inf and not tree.missing_go_to_left[0]
    assert tree.n_node_samples.tolist() == [3, 2, 1]
    with pytest.raises(ValueError, match="level-wise growth does not handle missing values"):
        DecisionTreeRegressor(splitter="hist", builder="level_wise").fit(X, y)


# --- criteria and sample weights at the estimators' boundary ------------------------------


def test_poisson_targets_are_checked():
    X = np.arange(4.0)[:, None]
    with pytest.raises(ValueError, match=r"Some value\(s\) of y are negative, which is not "
                                         "allowed for Poisson regression"):
        DecisionTreeRegressor(criterion="poisson").fit(X, [1.0, -1.0, 2.0, 0.0])
    with pytest.raises(ValueError, match="The sum of y is not positive"):
        DecisionTreeRegressor(criterion="poisson").fit(X, np.zeros(4))
    # a child without counts is no candidate: x <= 1.5 is not, x <= 2.5 is the one cut
    model = DecisionTreeRegressor(criterion="poisson", max_depth=1).fit(X, [0.0, 0.0, 3.0, 5.0])
    np.testing.assert_array_equal(model.predict(X), [1.0, 1.0, 1.0, 5.0])   # exact means


def test_absolute_error_leaves_predict_medians_and_need_a_per_node_builder():
    X = np.arange(6.0)[:, None]
    y = np.array([0.0, 1.0, 10.0, 100.0, 101.0, 1000.0])
    model = DecisionTreeRegressor(criterion="absolute_error", max_depth=1).fit(X, y)
    # the root's median is 55 (the mean of 10 and 100); a leaf's median is a target
    assert model.tree_.value[0, 0] == 55.0
    assert set(model.tree_.value[1:, 0]) <= set(y)
    with pytest.raises(ValueError, match="criterion='absolute_error' needs a per-node grower"):
        DecisionTreeRegressor(criterion="absolute_error", builder="level_wise").fit(X, y)


@pytest.mark.parametrize("splitter", ["cumsum", "hist"])
def test_zero_weights_drop_their_rows_before_binning(splitter):
    # the value 2.5 is held by zero-weight rows only: it must not place a bin threshold
    X = np.array([[0.0], [1.0], [2.5], [2.5], [4.0], [5.0]])
    y = np.array([0.0, 0.0, 7.0, 7.0, 3.0, 3.0])
    w = np.array([1.0, 2.0, 0.0, 0.0, 1.0, 3.0])
    keep = w > 0
    weighted = DecisionTreeRegressor(splitter=splitter).fit(X, y, sample_weight=w)
    dropped = DecisionTreeRegressor(splitter=splitter).fit(X[keep], y[keep], w[keep])
    assert_same_tree(weighted.tree_, dropped.tree_)
    assert weighted.tree_.threshold[0] == 2.5                     # between 1 and 4
    if splitter == "hist":
        np.testing.assert_array_equal(weighted.bin_thresholds_[0], [0.5, 2.5, 4.5])
