"""Appendix A6 ("Poisson and absolute-error trees against scikit-learn"): the page's walk
(tag "helpers") finds scikit-learn's test or a tie at every split node it compares and
scikit-learn's rows and value at every leaf, in the page's three settings, with the counts
the page shows; and it does find a difference between trees that differ."""

import numpy as np
import pytest
import sklearn.tree

from tests.conftest import claim, notebook_cells
from treelib import DecisionTreeRegressor
from treelib.bench.criteria import bikeshare_split

NOTEBOOK = "A6_criteria_against_scikit_learn.ipynb"
walk_against_scikit_learn = notebook_cells(NOTEBOOK, tag="helpers")["walk_against_scikit_learn"]


@pytest.fixture(scope="module")
def bikeshare():
    X_train, _, y_train, _ = bikeshare_split(0)
    return X_train.astype(np.float32).astype(np.float64), y_train


def fit_both(criterion, params, X, y, w=None):
    ours = DecisionTreeRegressor(criterion=criterion, **params).fit(X, y, sample_weight=w)
    theirs = sklearn.tree.DecisionTreeRegressor(criterion=criterion, random_state=0,
                                                **params).fit(X, y, sample_weight=w)
    return ours, theirs


def test_every_node_compared_is_scikit_learns_or_a_tie(bikeshare):
    """The page's table: splits, identical tests, ties, diverging ties and leaves."""
    claim(NOTEBOOK, "Every split node compared holds scikit-learn's test or a test tied with "
                    "it (their gains within $10^{-9}$ of the node's loss), and every leaf "
                    "compared has scikit-learn's number of rows and value.")
    claim(NOTEBOOK, "everywhere else the two trees send the same rows to the same children and "
                    "end in leaves of the same rows and values.")
    X_train, y_train = bikeshare
    rng = np.random.default_rng(0)
    small = rng.choice(len(y_train), size=2000, replace=False)
    weights = rng.integers(0, 4, size=len(y_train))
    settings = {
        "poisson, full depth": ("poisson", dict(min_samples_leaf=5), slice(None), None),
        "absolute error, depth 6": ("absolute_error", dict(max_depth=6), small, None),
        "poisson, depth 8, weights": ("poisson", dict(max_depth=8), slice(None), weights),
    }
    expected = {
        "poisson, full depth": dict(splits=1029, same=943, ties=86, diverging=8, leaves=1014),
        "absolute error, depth 6": dict(splits=61, same=54, ties=7, diverging=2, leaves=58),
        "poisson, depth 8, weights": dict(splits=233, same=205, ties=28, diverging=0,
                                          leaves=234),
    }
    for name, (criterion, params, rows, w) in settings.items():
        X, y = X_train[rows], y_train[rows]
        ours, theirs = fit_both(criterion, params, X, y, w)
        # the walk asserts a tie wherever the tests differ, and leaf against leaf
        assert walk_against_scikit_learn(ours, theirs, X, y, criterion, w) == expected[name]


def test_the_walk_finds_a_tree_that_is_not_scikit_learns(bikeshare):
    X_train, y_train = bikeshare
    X, y = X_train[:1500], y_train[:1500]
    ours, _ = fit_both("poisson", dict(max_depth=4), X, y)
    _, other = fit_both("poisson", dict(max_depth=4), X, y[::-1].copy())
    with pytest.raises(AssertionError):
        walk_against_scikit_learn(ours, other, X, y, "poisson")
