"""Permutation importance (``treelib.estimators.importance``) equal to scikit-learn's
``sklearn.inspection.permutation_importance``: the same shuffles in the same order, for
every kind of ``random_state``, with treelib's and scikit-learn's trees, on california
(a subsample) and digits; bad input raises a ValueError naming it."""

import numpy as np
import pandas as pd
import pytest
import sklearn.inspection
import sklearn.tree
from sklearn.base import clone
from sklearn.datasets import load_digits
from sklearn.metrics import get_scorer

from treelib.datasets import load_california_housing
from treelib.estimators import DecisionTreeClassifier, DecisionTreeRegressor
from treelib.estimators.importance import permutation_importance


@pytest.fixture(scope="module")
def california():
    X, y = load_california_housing(return_X_y=True)
    rows = np.random.default_rng(0).choice(len(X), 1500, replace=False)
    return X[rows], y[rows]


@pytest.fixture(scope="module")
def digits():
    return load_digits(return_X_y=True)


def assert_same(ours, theirs):
    """Equal bit for bit: the same floats, subtracted and averaged in the same order."""
    for name in ("importances", "importances_mean", "importances_std"):
        np.testing.assert_array_equal(getattr(ours, name), theirs[name], err_msg=name)


#: (data set, treelib's tree, scikit-learn's tree, n_repeats, random_state)
CASES = {"california": (DecisionTreeRegressor(max_depth=6),
                        sklearn.tree.DecisionTreeRegressor(max_depth=6, random_state=0), 4, 11),
         "digits": (DecisionTreeClassifier(max_depth=8),
                    sklearn.tree.DecisionTreeClassifier(max_depth=8, random_state=0), 2, 5)}


@pytest.mark.parametrize("library", ["treelib", "sklearn"])
@pytest.mark.parametrize("name", ["california", "digits"])
def test_equal_to_scikit_learn(request, name, library):
    X, y = request.getfixturevalue(name)
    ours_tree, their_tree, n_repeats, random_state = CASES[name]
    tree = clone(ours_tree if library == "treelib" else their_tree).fit(X, y)
    ours = permutation_importance(tree, X, y, n_repeats=n_repeats, random_state=random_state)
    theirs = sklearn.inspection.permutation_importance(tree, X, y, n_repeats=n_repeats,
                                                       random_state=random_state)
    assert_same(ours, theirs)
    assert ours.importances.shape == (X.shape[1], n_repeats)
    assert ours.baseline_score == tree.score(X, y)
    if name == "california":
        assert np.argmax(ours.importances_mean) == 0    # median income matters most
    else:
        constant = X.min(axis=0) == X.max(axis=0)        # blank pixels: no importance
        assert constant.any() and np.all(ours.importances[constant] == 0)


def test_every_kind_of_random_state_and_a_scorer(california):
    X, y = california[0][:300], california[1][:300]
    tree = DecisionTreeRegressor(max_depth=4).fit(X, y)
    ours = permutation_importance(tree, X, y, random_state=np.random.RandomState(3))
    theirs = sklearn.inspection.permutation_importance(tree, X, y,
                                                       random_state=np.random.RandomState(3))
    assert_same(ours, theirs)
    np.random.seed(8)                                   # None: numpy's global RandomState
    ours = permutation_importance(tree, X, y, n_repeats=3)
    np.random.seed(8)
    theirs = sklearn.inspection.permutation_importance(tree, X, y, n_repeats=3)
    assert_same(ours, theirs)
    scorer = get_scorer("neg_mean_absolute_error")
    ours = permutation_importance(tree, X, y, n_repeats=3, random_state=0, scoring=scorer)
    theirs = sklearn.inspection.permutation_importance(tree, X, y, n_repeats=3,
                                                       random_state=0, scoring=scorer)
    assert_same(ours, theirs)


def test_a_data_frame_is_shuffled_by_position(california):
    X, y = california[0][:300], california[1][:300]
    frame = pd.DataFrame(X, columns=[f"x{j}" for j in range(X.shape[1])])
    tree = sklearn.tree.DecisionTreeRegressor(max_depth=4, random_state=0).fit(frame, y)
    ours = permutation_importance(tree, frame, y, n_repeats=2, random_state=1)
    theirs = sklearn.inspection.permutation_importance(tree, frame, y, n_repeats=2,
                                                       random_state=1)
    assert_same(ours, theirs)
    assert frame.equals(pd.DataFrame(X, columns=frame.columns))     # X is left as it was


def test_bad_input_is_named(california):
    X, y = california[0][:50], california[1][:50]
    tree = DecisionTreeRegressor(max_depth=2).fit(X, y)
    for bad, match in [({"n_repeats": 0}, "n_repeats"), ({"n_repeats": 2.0}, "n_repeats"),
                       ({"random_state": "seed"}, "random_state"),
                       ({"random_state": np.random.default_rng(0)}, "random_state"),
                       ({"scoring": "r2"}, "scoring")]:
        with pytest.raises(ValueError, match=match):
            permutation_importance(tree, X, y, **bad)
    with pytest.raises(ValueError, match="different numbers of samples"):
        permutation_importance(tree, X, y[:-1])
    with pytest.raises(ValueError, match="2-D"):
        permutation_importance(tree, X[:, 0], y)
    with pytest.raises(ValueError, match="2-D"):
        permutation_importance(tree, X[:0], y[:0])
    infinite = X.copy()
    infinite[3, 1] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        permutation_importance(tree, infinite, y)
    with pytest.raises(ValueError, match="infinity"):         # as scikit-learn's
        sklearn.inspection.permutation_importance(tree, infinite, y)
