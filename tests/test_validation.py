"""Bad input gets a ValueError that names the problem: ``treelib.best_split`` and the
checks of ``treelib.validation`` against the expected messages, the estimators against
scikit-learn's own trees (same error, same words)."""

import numpy as np
import pytest

from treelib import DecisionTreeRegressor, best_split
from treelib.validation import (
    MAX_TARGET_SPREAD,
    check_array,
    check_class_labels,
    check_min_samples_leaf,
    check_sample_weight,
    check_target_range,
)

GOOD_X = np.arange(12.0).reshape(6, 2)
GOOD_Y = np.arange(6.0)


def nan_at(array, index):
    array = array.copy()
    array[index] = np.nan
    return array


def inf_at(array, index):
    array = array.copy()
    array[index] = -np.inf
    return array


#: NaN in X: a missing value, accepted by the "cumsum" finder only.
NAN_X_INPUTS = [
    (nan_at(GOOD_X, (2, 1)), GOOD_Y, r"X contains NaN \(first at row 2, column 1\)"),
    (np.array([[1.0, None]] * 6, dtype=object), GOOD_Y, "X contains NaN"),  # None is missing
]

BAD_INPUTS = [
    (GOOD_X, nan_at(GOOD_Y, 4), r"y contains NaN \(first at position 4\)"),
    (inf_at(GOOD_X, (0, 0)), GOOD_Y, "X contains infinity"),
    (GOOD_X, inf_at(GOOD_Y, 0), "y contains infinity"),
    (GOOD_X, GOOD_Y[:5], "different numbers of samples: 6 and 5"),
    (np.empty((0, 2)), np.empty(0), "X is empty: it has 0 samples"),
    (np.empty((6, 0)), GOOD_Y, "X has 0 features"),
    (GOOD_Y, GOOD_Y, "X must be 2-D .* got a 1-D array"),
    (GOOD_X[None], GOOD_Y, "X must be 2-D; got an array of shape"),
    (GOOD_X, GOOD_X, "y must be 1-D"),
    (GOOD_X.astype(str), GOOD_Y, "X must be numeric; got an array of strings"),
    (GOOD_X, ["a", "b", "c", "d", "e", "f"], "y must be numeric"),
    (np.array([[1.0, "a"]] * 6, dtype=object), GOOD_Y, "X must be numeric; it contains strings"),
    (GOOD_X + 1j, GOOD_Y, "X must be real-valued"),
    ("not an array", GOOD_Y, "X must be numeric; got a string"),
    (np.array([[1.0, {}]] * 6, dtype=object), GOOD_Y, "X must be numeric; cannot convert"),
]


@pytest.mark.parametrize("X, y, message", BAD_INPUTS)
def test_best_split_rejects_bad_input(X, y, message):
    with pytest.raises(ValueError, match=message):
        best_split(X, y)


@pytest.mark.parametrize("X, y, message, splits", [
    (*case, splits) for case, splits in zip(NAN_X_INPUTS, [True, False], strict=True)])
def test_only_the_cumsum_finder_accepts_missing_values(X, y, message, splits):
    for splitter in ["naive", "scan"]:
        with pytest.raises(ValueError, match=message + r".*accepted only where noted"):
            best_split(X, y, splitter)
    split = best_split(X, y, "cumsum")
    if splits:
        assert split.n_left + split.n_right == len(y)
    else:       # a constant feature and a feature of missing values only: nothing to cut
        assert split is None


def outcome(fit):
    """('ok', None) if ``fit()`` succeeds, else the exception's type and message."""
    try:
        fit()
    except Exception as error:  # noqa: BLE001 - the test compares whatever is raised
        return type(error), str(error)
    return "ok", None


@pytest.mark.parametrize("X, y, message", BAD_INPUTS + NAN_X_INPUTS)
@pytest.mark.parametrize("name", ["DecisionTreeRegressor", "DecisionTreeClassifier"])
def test_estimators_reject_bad_input_as_scikit_learn_does(name, X, y, message):
    # the estimators validate with scikit-learn's own checks: same error, same words
    import sklearn.tree

    import treelib

    ours = outcome(lambda: getattr(treelib, name)().fit(X, y))
    theirs = outcome(lambda: getattr(sklearn.tree, name)().fit(X, y))
    if ours == theirs == ("ok", None):
        return   # e.g. strings that spell numbers, or class labels that are strings
    if theirs[0] == "ok":
        # scikit-learn's trees handle several outputs; treelib's do not, and say so
        assert ours[0] is ValueError
        assert "should be a 1d array" in ours[1]
    else:
        assert ours[0] is theirs[0]
        if "inconsistent numbers of samples" not in ours[1]:
            assert ours[1] == theirs[1]


def test_predict_rejects_bad_input():
    tree = DecisionTreeRegressor().fit(GOOD_X, GOOD_Y)
    with pytest.raises(ValueError, match="X has 3 features, but DecisionTreeRegressor is "
                                         "expecting 2 features"):
        tree.predict(np.ones((2, 3)))
    with pytest.raises(ValueError, match="Input X contains NaN"):
        DecisionTreeRegressor(splitter="scan").fit(GOOD_X, GOOD_Y).predict(
            nan_at(GOOD_X, (0, 0)))
    assert np.isfinite(tree.predict(nan_at(GOOD_X, (0, 0)))).all()   # cumsum: missing
    with pytest.raises(ValueError, match="Expected 2D array, got 1D array"):
        tree.predict(GOOD_X[0])


def test_unfitted_tree_says_so():
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        DecisionTreeRegressor().predict(GOOD_X)


@pytest.mark.parametrize("params, message", [
    ({"splitter": "fast"}, "unknown splitter 'fast'; choose one of"),
    ({"builder": "breadth"}, "unknown builder 'breadth'; choose one of"),
    ({"builder": "depth"}, "unknown builder 'depth'"),          # the old name
    ({"criterion": "gini"}, "criterion must be one of"),
    ({"max_leaf_nodes": 1}, "max_leaf_nodes must be an integer >= 2"),
    ({"max_leaf_nodes": 8, "builder": "depth_first"},
     "max_leaf_nodes needs best-first growth .* builder='best_first'"),
    ({"builder": "level_wise", "splitter": "scan"},
     "level-wise growth .* needs splitter 'cumsum', 'hist' or 'random'; got 'scan'"),
    ({"splitter": "hist", "max_bins": 256}, "max_bins must be an integer from 2 to 255"),
    ({"min_impurity_decrease": -1.0}, "min_impurity_decrease must be a number >= 0"),
    ({"max_features": "all"}, "max_features must be"),
    ({"max_features": 0}, "max_features must be an integer >= 1"),
    ({"min_samples_leaf": 1.5}, "min_samples_leaf must be a number > 0.0 and <= 1.0"),
    ({"max_depth": 0}, "max_depth must be an integer >= 1 or None"),
    ({"max_depth": 2.5}, "max_depth must be an integer"),
    ({"min_samples_split": 1}, "min_samples_split must be an integer >= 2"),
    ({"min_samples_leaf": 0}, "min_samples_leaf must be an integer >= 1"),
    ({"min_samples_leaf": True}, "min_samples_leaf must be a number > 0.0"),
])
def test_bad_parameters(params, message):
    with pytest.raises(ValueError, match=message):
        DecisionTreeRegressor(**params).fit(GOOD_X, GOOD_Y)


def test_best_split_rejects_bad_options():
    with pytest.raises(ValueError, match="splitter must be one of .*; got 'exact'"):
        best_split(GOOD_X, GOOD_Y, splitter="exact")
    with pytest.raises(ValueError, match="splitter must be one of .*; got 'hist'"):
        best_split(GOOD_X, GOOD_Y, "hist")               # exact finders only
    with pytest.raises(ValueError, match="min_samples_leaf must be an integer >= 1"):
        best_split(GOOD_X, GOOD_Y, min_samples_leaf=0)
    with pytest.raises(ValueError, match="unknown criterion 'mse'"):
        best_split(GOOD_X, GOOD_Y, criterion="mse")


def test_accepted_inputs_are_converted():
    # lists, integers, booleans and pandas objects are fine
    import pandas as pd

    ints = best_split([[0], [1], [2]], [0, 0, 1])
    assert ints.threshold == 1.5
    frame = pd.DataFrame(GOOD_X, columns=["a", "b"])
    assert best_split(frame, pd.Series(GOOD_Y)) == best_split(GOOD_X, GOOD_Y)
    assert best_split(np.array([[True], [False]]), [1.0, 0.0]).threshold == 0.5


def test_class_labels_are_checked():
    assert check_class_labels(["a", "b"]).tolist() == ["a", "b"]
    with pytest.raises(ValueError, match="y contains NaN"):
        check_class_labels([0.0, np.nan])
    with pytest.raises(ValueError, match="non-empty 1-D array of class labels"):
        check_class_labels([])
    with pytest.raises(ValueError, match="non-empty 1-D array of class labels"):
        check_class_labels([[0, 1]])
    with pytest.raises(ValueError, match="y contains NaN"):
        best_split(GOOD_X, nan_at(GOOD_Y, 1), criterion="gini")


def test_targets_whose_squares_overflow_are_rejected_with_advice():
    check_target_range(np.array([0.0, 1e150]))           # 2 x 1e150: squares stay finite
    with pytest.raises(ValueError, match=r"y spans 1e\+155 over 2 samples.*rescale y"):
        check_target_range(np.array([0.0, 1e155]))
    # the limit is on n x spread: many samples of a moderate spread overflow too
    n = 1000
    spread = MAX_TARGET_SPREAD / n
    check_target_range(np.linspace(0.0, 0.99 * spread, n))
    with pytest.raises(ValueError, match="rescale"):
        check_target_range(np.linspace(0.0, 1.01 * spread, n))
    # a large offset alone is fine: the finders centre the targets first
    check_target_range(np.full(10, 1e300))


def test_check_array_returns_finite_float64():
    array = check_array([[1, 2], [3, 4]])
    assert array.dtype == np.float64 and array.flags.c_contiguous
    with pytest.raises(ValueError, match=r"x contains NaN \(first at position 1\)"):
        check_array([0.0, np.nan], name="x", ndim=1)
    with pytest.raises(ValueError, match="x must be 1-D; got an array of shape"):
        check_array(GOOD_X, name="x", ndim=1)


@pytest.mark.parametrize("value", [0, -1, 1.0, True, "1", None])
def test_min_samples_leaf_must_be_a_positive_integer(value):
    with pytest.raises(ValueError, match="min_samples_leaf must be an integer >= 1"):
        check_min_samples_leaf(value)


def test_min_samples_leaf_accepts_numpy_integers():
    assert check_min_samples_leaf(np.int64(3)) == 3


# --- sample weights and missing values ------------------------------------------------------


@pytest.mark.parametrize("weights, message", [
    ([1.0, 2.0], "sample_weight has 2 entries for 6 samples"),
    ([1.0, -0.5, 1.0, 1.0, 1.0, 1.0],
     r"sample_weight must be non-negative; found -0.5 at position 1"),
    ([0.0] * 6, "sample_weight sums to 0"),
    ([1.0, np.nan, 1.0, 1.0, 1.0, 1.0], r"sample_weight contains NaN \(first at position 1\); "
                                        "sample_weight must not have missing values$"),
    ([1.0, np.inf, 1.0, 1.0, 1.0, 1.0], "sample_weight contains infinity"),
    ([[1.0] * 6], "sample_weight must be 1-D"),
    (["a"] * 6, "sample_weight must be numeric"),
])
def test_bad_sample_weights_are_named(weights, message):
    with pytest.raises(ValueError, match=message):
        check_sample_weight(weights, 6)
    with pytest.raises(ValueError, match=message):
        best_split(GOOD_X, GOOD_Y, sample_weight=weights)


def test_good_sample_weights_are_float64():
    weights = check_sample_weight([0, 1, 2, 0, 1, 1], 6)
    assert weights.dtype == np.float64 and weights.tolist() == [0.0, 1.0, 2.0, 0.0, 1.0, 1.0]


def test_check_array_allows_nan_only_when_asked():
    array = check_array([[1.0, np.nan]], allow_nan=True)
    assert np.isnan(array[0, 1])
    with pytest.raises(ValueError, match=r"X contains NaN \(first at row 0, column 1\)"):
        check_array([[1.0, np.nan]])
    with pytest.raises(ValueError, match="X contains infinity"):       # NaN only, not inf
        check_array([[1.0, np.inf]], allow_nan=True)
