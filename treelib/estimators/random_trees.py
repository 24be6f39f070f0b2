"""Ensembles of random decision trees (Fan et al., 2003; seed article 001),
scikit-learn compatible."""

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from treelib.criteria import one_hot
from treelib.estimators.params import check_number, forget_fit
from treelib.growth import RandomTreeRule, StoppingRules, grow_random_tree
from treelib.options import check


class BaseRandomDecisionTrees(BaseEstimator):
    """What the random decision tree ensembles share: parameters, growth, averaging."""

    def __init__(self, *, n_estimators=30, max_depth=None, min_samples_leaf=4,
                 random_state=None):
        self.n_estimators = n_estimators
        self.max_depth = max_depth
        self.min_samples_leaf = min_samples_leaf
        self.random_state = random_state

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True          # missing values take their own branch
        return tags

    _criterion = None

    def _grow(self, X, Y):
        check(builder="level_wise", splitter="random_tree", criterion=self._criterion)
        n_estimators = check_number("n_estimators", self.n_estimators, integer=True, low=1)
        max_depth = check_number("max_depth", self.max_depth, integer=True, low=1,
                                 allow_none=True)
        min_samples_leaf = check_number("min_samples_leaf", self.min_samples_leaf,
                                        integer=True, low=1)
        self.max_depth_ = X.shape[1] if max_depth is None else max_depth
        seeds = check_random_state(self.random_state).randint(np.iinfo(np.int32).max,
                                                              size=n_estimators)
        rules = StoppingRules(max_depth=self.max_depth_)
        self.estimators_ = [
            grow_random_tree(X, Y, RandomTreeRule(self._criterion,
                                                  min_samples_leaf=min_samples_leaf,
                                                  rng=np.random.default_rng(seed)), rules)
            for seed in seeds]
        return self

    def _validate_fit(self, X, y):
        forget_fit(self)
        return validate_data(self, X, y, dtype=np.float64, ensure_all_finite="allow-nan",
                             y_numeric=isinstance(self, RegressorMixin))

    def _mean_value(self, X):
        """Mean over the trees of the value of the node answering for each row."""
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, ensure_all_finite="allow-nan",
                          reset=False)
        return np.mean([tree.predict(X) for tree in self.estimators_], axis=0)


_RDT_PARAMETERS = """
    Parameters
    ----------
    n_estimators : int, default=30
        Number of random trees (the seed article's choice).
    max_depth : int or None, default=None
        Maximum depth of each tree; None means the number of features (the setting of
        Dice, the implementation seed article 001 describes; Fan et al., 2003, suggest
        half the features).
    min_samples_leaf : int, default=4
        A node is created only if at least this many training samples reach it (the
        seed article's 4); a node is split only if it holds at least twice as many.
    random_state : int, RandomState instance or None, default=None
        Seeds every random feature and threshold.

    Attributes
    ----------
    estimators_ : list of treelib.tree.Tree
        The fitted trees (a split node has a child for ``x <= threshold``, one for
        ``x > threshold`` and one for a missing ``x``, each only where training samples
        went).
    max_depth_ : int
        The depth limit used.
    n_features_in_ : int
        Number of features seen in ``fit``.

    Notes
    -----
    Each tree is grown by ``treelib.growth.random_trees.grow_random_tree``: random
    feature, threshold halfway between two different values of it in the node, no purity
    test, level by level, children only where training data is, missing values (NaN) as a
    third branch.  Training costs O(n_estimators x depth x n), plus the search for a
    feature that varies in each node, which grows with the number of features on sparse
    data (chapter 12).
"""


class RandomDecisionTreeClassifier(ClassifierMixin, BaseRandomDecisionTrees):
    _criterion = "gini"        # the impurity the trees record; it chooses nothing
    __doc__ = """An ensemble of random decision trees for classification (Fan et al.,
    2003): the class probabilities of the trees, averaged.
    """ + _RDT_PARAMETERS + """
    classes_ : ndarray of shape (n_classes,)
        The class labels, sorted.
"""

    def fit(self, X, y):
        """Grow the trees on ``X`` (NaN allowed) and labels ``y``."""
        X, y = self._validate_fit(X, y)
        check_classification_targets(y)
        self.classes_, codes = np.unique(y, return_inverse=True)
        return self._grow(X, one_hot(codes, len(self.classes_)))

    def predict_proba(self, X):
        """Class probabilities: each tree's class proportions of the node that answers
        for the row, averaged over the trees.  (n, n_classes)."""
        return self._mean_value(X)

    def predict(self, X):
        """The class with the highest averaged probability (first on ties)."""
        proba = self.predict_proba(X)
        return self.classes_[np.argmax(proba, axis=1)]


class RandomDecisionTreeRegressor(RegressorMixin, BaseRandomDecisionTrees):
    _criterion = "squared_error"
    __doc__ = """An ensemble of random decision trees for regression: the mean target of
    the node that answers for a row, averaged over the trees.
    """ + _RDT_PARAMETERS

    def fit(self, X, y):
        """Grow the trees on ``X`` (NaN allowed) and numeric targets ``y``."""
        X, y = self._validate_fit(X, y)
        return self._grow(X, np.asarray(y, dtype=np.float64)[:, None])

    def predict(self, X):
        """Averaged mean targets, (n,)."""
        return self._mean_value(X)[:, 0]
