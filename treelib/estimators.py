"""scikit-learn-style estimators built from treelib's split finders and builders.

This is the public boundary: parameters and data are validated here, once; the
algorithms below (``splits``, ``builders``) trust what they receive.
"""

import functools
import numbers

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.utils.validation import check_is_fitted

from treelib._validation import check_array, check_X_y
from treelib.builders import build_depth_first
from treelib.splits import best_split, check_method


def _check_int(name, value, minimum, allow_none=False):
    if value is None and allow_none:
        return value
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum:
        none = " or None" if allow_none else ""
        raise ValueError(f"{name} must be an integer >= {minimum}{none}; got {value!r}")
    return int(value)


class DecisionTreeRegressor(RegressorMixin, BaseEstimator):
    """A squared-error regression tree grown depth first.

    Parameters
    ----------
    splitter : {"naive", "scan", "cumsum"}, default="cumsum"
        The split finder (``treelib.splits.best_split``'s ``method``).  All three grow
        the same tree; they differ only in speed.
    max_depth : int or None, default=None
        Maximum depth (the root has depth 0); None grows until the other rules stop.
    min_samples_split : int, default=2
        A node with fewer samples is a leaf.
    min_samples_leaf : int, default=1
        Each child of a split keeps at least this many samples.

    Attributes
    ----------
    tree_ : treelib.tree.Tree
        The fitted tree as flat arrays.
    n_features_in_ : int
        Number of features seen in ``fit``.
    """

    def __init__(self, *, splitter="cumsum", max_depth=None, min_samples_split=2,
                 min_samples_leaf=1):
        self.splitter = splitter
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf

    def fit(self, X, y):
        """Grow the tree on ``X`` (n_samples, n_features) and ``y`` (n_samples,)."""
        check_method(self.splitter)
        max_depth = _check_int("max_depth", self.max_depth, 1, allow_none=True)
        min_samples_split = _check_int("min_samples_split", self.min_samples_split, 2)
        min_samples_leaf = _check_int("min_samples_leaf", self.min_samples_leaf, 1)
        X, y = check_X_y(X, y)
        find_split = functools.partial(best_split, method=self.splitter,
                                       min_samples_leaf=min_samples_leaf, check_input=False)
        self.tree_ = build_depth_first(X, y, find_split, max_depth=max_depth,
                                       min_samples_split=min_samples_split,
                                       min_samples_leaf=min_samples_leaf)
        self.n_features_in_ = X.shape[1]
        return self

    def _check_X(self, X):
        check_is_fitted(self)
        X = check_array(X)
        if X.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {X.shape[1]} features, but this tree was fitted with "
                             f"{self.n_features_in_}")
        return X

    def predict(self, X):
        """Mean training target of the leaf each row of ``X`` falls into."""
        X = self._check_X(X)
        return self.tree_.predict(X)[:, 0]

    def apply(self, X):
        """Id of the leaf each row of ``X`` falls into."""
        X = self._check_X(X)
        return self.tree_.apply(X)

    def get_depth(self):
        check_is_fitted(self)
        return self.tree_.max_depth

    def get_n_leaves(self):
        check_is_fitted(self)
        return self.tree_.n_leaves
