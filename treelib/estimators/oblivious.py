"""Oblivious trees (CatBoost's symmetric trees), scikit-learn compatible: one test per
level, shared by every node of the level (``treelib.growth.oblivious``)."""

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from treelib.criteria import one_hot
from treelib.estimators.bagging import checked_sample_weight
from treelib.estimators.params import STRICTER, check_number, forget_fit
from treelib.finders import Finder
from treelib.growth import StoppingRules, without_zero_weights
from treelib.growth.oblivious import MAX_OBLIVIOUS_DEPTH, grow_oblivious
from treelib.options import check
from treelib.validation import check_target_range

#: The criteria an oblivious tree sums over a level (gains from sums, no empty side).
OBLIVIOUS_REGRESSION = ("squared_error",)
OBLIVIOUS_CLASSIFICATION = ("gini", "entropy")


class BaseObliviousTree(BaseEstimator):
    """What the regressor and the classifier share: parameters, growth, prediction."""

    _criteria = ()

    def __init__(self, *, criterion, max_depth=6, max_bins=255, min_impurity_decrease=0.0):
        self.criterion = criterion
        self.max_depth = max_depth
        self.max_bins = max_bins
        self.min_impurity_decrease = min_impurity_decrease

    def _validate_fit(self, X, y, sample_weight, **options):
        forget_fit(self)
        X, y = validate_data(self, X, y, dtype=np.float32, **options)
        return X, y, checked_sample_weight(sample_weight, len(y))

    def _grow(self, X, Y, weights):
        if self.criterion not in self._criteria:
            raise ValueError(f"criterion must be one of {list(self._criteria)}; "
                             f"got {self.criterion!r}")
        # (one histogram search shared by a level, every feature: nothing here can clash)
        check(splitter="hist", criterion=self.criterion, sample_weight=weights is not None)
        rules = StoppingRules(
            max_depth=check_number("max_depth", self.max_depth, integer=True, low=1,
                                   high=MAX_OBLIVIOUS_DEPTH),
            min_impurity_decrease=check_number("min_impurity_decrease",
                                               self.min_impurity_decrease, integer=False,
                                               low=0.0))
        finder = Finder("hist", self.criterion, max_bins=self.max_bins)
        X, Y, weights = without_zero_weights(X, Y, weights)      # (before binning too)
        self.tree_ = grow_oblivious(finder.prepare(X), Y, finder, rules, weights=weights)
        self.bin_thresholds_ = finder.bin_thresholds
        self.feature_importances_ = self.tree_.feature_importances(X.shape[1])
        return self

    def _validate_X_predict(self, X):
        check_is_fitted(self)
        return validate_data(self, X, dtype=np.float32, reset=False)

    def apply(self, X):
        """The leaf of every row: bit l of its number says it went right at level l."""
        X = self._validate_X_predict(X)
        return self.tree_.apply(X)

    def get_depth(self):
        """Number of levels (every leaf is at this depth)."""
        check_is_fitted(self)
        return self.tree_.depth

    def get_n_leaves(self):
        """Number of leaves, 2**depth (some may hold no training row)."""
        check_is_fitted(self)
        return self.tree_.n_leaves


_PARAMETERS = """
    max_depth : int, default=6
        Number of levels (CatBoost's default depth), from 1 to 20; fewer when no test
        decreases the loss.  The tree has 2**depth leaves.
    max_bins : int, default=255
        The most bins per feature (2 to 255): the tests are cuts between bins, exact for
        a feature with at most ``max_bins`` distinct values.
    min_impurity_decrease : float, default=0.0
        A level is added only if its summed gain, over the training weight, is at least
        this.

    Attributes
    ----------
    tree_ : treelib.growth.oblivious.ObliviousTree
        One test per level (``feature``, ``threshold``) and the table of leaf values.
    bin_thresholds_ : list of ndarray
        The thresholds between the bins of each feature.
    feature_importances_ : ndarray of shape (n_features,)
        Each feature's share of the levels' summed gains.
    n_features_in_ : int
        Number of features seen in ``fit``.
"""


class ObliviousTreeRegressor(RegressorMixin, BaseObliviousTree):
    __doc__ = """An oblivious regression tree (CatBoost's symmetric tree).
    """ + STRICTER + """
    Parameters
    ----------
    criterion : {"squared_error"}, default="squared_error"
        Each level's test minimises the summed squared error of the level's nodes; the
        leaves predict their mean target.""" + _PARAMETERS

    _criteria = OBLIVIOUS_REGRESSION

    def __init__(self, *, criterion="squared_error", max_depth=6, max_bins=255,
                 min_impurity_decrease=0.0):
        super().__init__(criterion=criterion, max_depth=max_depth, max_bins=max_bins,
                         min_impurity_decrease=min_impurity_decrease)

    def fit(self, X, y, sample_weight=None):
        """Grow the tree on ``X`` and numeric targets ``y``, each row weighted by
        ``sample_weight`` (default: 1)."""
        X, y, weights = self._validate_fit(X, y, sample_weight, y_numeric=True)
        y = check_target_range(np.asarray(y, dtype=np.float64))
        return self._grow(X, y[:, None], weights)

    def predict(self, X):
        """The mean target of every row's leaf, found by its bit index."""
        X = self._validate_X_predict(X)
        return self.tree_.predict(X)[:, 0]


class ObliviousTreeClassifier(ClassifierMixin, BaseObliviousTree):
    __doc__ = """An oblivious classification tree (CatBoost's symmetric tree).
    """ + STRICTER + """
    Parameters
    ----------
    criterion : {"gini", "entropy"}, default="gini"
        The impurity whose summed decrease over a level's nodes chooses its test; the
        leaves predict their class proportions.""" + _PARAMETERS + """
    classes_ : ndarray of shape (n_classes,)
        The class labels, sorted.
"""

    _criteria = OBLIVIOUS_CLASSIFICATION

    def __init__(self, *, criterion="gini", max_depth=6, max_bins=255,
                 min_impurity_decrease=0.0):
        super().__init__(criterion=criterion, max_depth=max_depth, max_bins=max_bins,
                         min_impurity_decrease=min_impurity_decrease)

    def fit(self, X, y, sample_weight=None):
        """Grow the tree on ``X`` and labels ``y``, each row weighted by
        ``sample_weight`` (default: 1)."""
        X, y, weights = self._validate_fit(X, y, sample_weight)
        check_classification_targets(y)
        self.classes_, codes = np.unique(y, return_inverse=True)
        self.n_classes_ = len(self.classes_)
        return self._grow(X, one_hot(codes, self.n_classes_), weights)

    def predict_proba(self, X):
        """Class proportions of every row's leaf, (n, n_classes)."""
        X = self._validate_X_predict(X)
        return self.tree_.predict(X)

    def predict(self, X):
        """The most frequent class of every row's leaf (first on ties)."""
        proba = self.predict_proba(X)
        return self.classes_[np.argmax(proba, axis=1)]
