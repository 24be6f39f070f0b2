"""Bad input gets a ValueError that names the problem."""

import numpy as np
import pytest

from treelib import DecisionTreeRegressor, best_split
from treelib.splits import threshold_gains

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


BAD_INPUTS = [
    (nan_at(GOOD_X, (2, 1)), GOOD_Y, r"X contains NaN \(first at row 2, column 1\)"),
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
    (np.array([[1.0, None]] * 6, dtype=object), GOOD_Y, "X contains NaN"),  # None is missing
    (np.array([[1.0, {}]] * 6, dtype=object), GOOD_Y, "X must be numeric; cannot convert"),
]


@pytest.mark.parametrize("X, y, message", BAD_INPUTS)
def test_best_split_rejects_bad_input(X, y, message):
    with pytest.raises(ValueError, match=message):
        best_split(X, y)


@pytest.mark.parametrize("X, y, message", BAD_INPUTS)
def test_fit_rejects_bad_input(X, y, message):
    with pytest.raises(ValueError, match=message):
        DecisionTreeRegressor().fit(X, y)


def test_predict_rejects_bad_input():
    tree = DecisionTreeRegressor().fit(GOOD_X, GOOD_Y)
    with pytest.raises(ValueError, match="X has 3 features, but this tree was fitted with 2"):
        tree.predict(np.ones((2, 3)))
    with pytest.raises(ValueError, match="X contains NaN"):
        tree.predict(nan_at(GOOD_X, (0, 0)))
    with pytest.raises(ValueError, match="got a 1-D array"):
        tree.predict(GOOD_X[0])


def test_unfitted_tree_says_so():
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        DecisionTreeRegressor().predict(GOOD_X)


@pytest.mark.parametrize("params, message", [
    ({"splitter": "fast"}, "unknown split method 'fast'"),
    ({"max_depth": 0}, "max_depth must be an integer >= 1 or None"),
    ({"max_depth": 2.5}, "max_depth must be an integer"),
    ({"min_samples_split": 1}, "min_samples_split must be an integer >= 2"),
    ({"min_samples_leaf": 0}, "min_samples_leaf must be an integer >= 1"),
    ({"min_samples_leaf": True}, "min_samples_leaf must be an integer >= 1"),
])
def test_bad_parameters(params, message):
    with pytest.raises(ValueError, match=message):
        DecisionTreeRegressor(**params).fit(GOOD_X, GOOD_Y)


def test_best_split_rejects_bad_options():
    with pytest.raises(ValueError, match="unknown split method 'exact'"):
        best_split(GOOD_X, GOOD_Y, method="exact")
    with pytest.raises(ValueError, match="min_samples_leaf must be an integer >= 1"):
        best_split(GOOD_X, GOOD_Y, min_samples_leaf=0)


def test_threshold_gains_checks_its_input():
    with pytest.raises(ValueError, match="x must be 1-D"):
        threshold_gains(GOOD_X, GOOD_Y)


def test_accepted_inputs_are_converted():
    # lists, integers, booleans and pandas objects are fine
    import pandas as pd

    ints = best_split([[0], [1], [2]], [0, 0, 1])
    assert ints.threshold == 1.5
    frame = pd.DataFrame(GOOD_X, columns=["a", "b"])
    assert best_split(frame, pd.Series(GOOD_Y)) == best_split(GOOD_X, GOOD_Y)
    assert best_split(np.array([[True], [False]]), [1.0, 0.0]).threshold == 0.5
