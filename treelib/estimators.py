"""scikit-learn-compatible estimators built from treelib's split finders and builders.

This is the public boundary: parameters and data are validated here, once, with
scikit-learn's own input checks (so bad input gets the same errors as from
scikit-learn's trees), and X is cast to float32 as scikit-learn's trees do; the
algorithms below (``splits``, ``builders``, ``levelwise``) trust what they receive.
"""

import math
import numbers

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from treelib.binning import bin_features, check_max_bins
from treelib.builders import BUILDERS, StoppingRules, make_split_finder
from treelib.criteria import CLASSIFICATION_CRITERIA, REGRESSION_CRITERIA, one_hot
from treelib.histogram import build_histogram_level_wise, with_bin_thresholds
from treelib.random_trees import build_random_tree
from treelib.splits import SPLIT_METHODS

#: Every ``splitter``: the exact finders of ``treelib.splits``, histograms over bins
#: (``treelib.histogram``) and random thresholds (``treelib.random_splits``).
SPLITTERS = (*SPLIT_METHODS, "hist", "random")


def _check_number(name, value, *, integer, low, low_open=False, high=None,
                  allow_none=False):
    """Return ``value`` if it is a number in range, else raise a ValueError naming it."""
    if value is None and allow_none:
        return None
    kind = numbers.Integral if integer else numbers.Real
    ok = isinstance(value, kind) and not isinstance(value, bool)
    ok = ok and (value > low if low_open else value >= low)
    ok = ok and (high is None or value <= high)
    if not ok:
        what = "an integer" if integer else "a number"
        bound = f"> {low}" if low_open else f">= {low}"
        bound += "" if high is None else f" and <= {high}"
        none = " or None" if allow_none else ""
        raise ValueError(f"{name} must be {what} {bound}{none}; got {value!r}")
    return value


def _count_or_fraction(name, value, n_samples, minimum):
    """scikit-learn's convention: an int is a count, a float in (0, 1] a fraction of
    the training samples (rounded up)."""
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return _check_number(name, value, integer=True, low=minimum)
    _check_number(name, value, integer=False, low=0.0, low_open=True, high=1.0)
    return max(minimum, math.ceil(value * n_samples))


def _resolve_max_features(max_features, n_features):
    if max_features is None:
        return None
    if max_features == "sqrt":
        return max(1, int(np.sqrt(n_features)))
    if max_features == "log2":
        return max(1, int(np.log2(n_features)))
    if isinstance(max_features, numbers.Integral) and not isinstance(max_features, bool):
        return _check_number("max_features", max_features, integer=True, low=1)
    if isinstance(max_features, numbers.Real) and not isinstance(max_features, bool):
        _check_number("max_features", max_features, integer=False, low=0.0,
                      low_open=True, high=1.0)
        return max(1, int(max_features * n_features))
    raise ValueError(f"max_features must be an int, a float in (0, 1], 'sqrt', 'log2' "
                     f"or None; got {max_features!r}")


class BaseDecisionTree(BaseEstimator):
    """What the regressor and the classifier share: parameters, growth, prediction."""

    _criteria = ()

    def __init__(self, *, criterion, splitter="cumsum", builder=None, max_depth=None,
                 min_samples_split=2, min_samples_leaf=1, min_impurity_decrease=0.0,
                 max_leaf_nodes=None, max_features=None, random_state=None, max_bins=255):
        self.criterion = criterion
        self.splitter = splitter
        self.max_bins = max_bins
        self.builder = builder
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_impurity_decrease = min_impurity_decrease
        self.max_leaf_nodes = max_leaf_nodes
        self.max_features = max_features
        self.random_state = random_state

    def _check_parameters(self, n_samples, n_features):
        if self.criterion not in self._criteria:
            raise ValueError(f"criterion must be one of {list(self._criteria)}; "
                             f"got {self.criterion!r}")
        if not isinstance(self.splitter, str) or self.splitter not in SPLITTERS:
            raise ValueError(f"splitter must be one of {list(SPLITTERS)}; "
                             f"got {self.splitter!r}")
        max_bins = check_max_bins(self.max_bins)
        builders = sorted([*BUILDERS, "level"])
        if self.builder is not None and self.builder not in builders:
            raise ValueError(f"builder must be one of {builders} or None; "
                             f"got {self.builder!r}")
        max_depth = _check_number("max_depth", self.max_depth, integer=True, low=1,
                                  allow_none=True)
        max_leaf_nodes = _check_number("max_leaf_nodes", self.max_leaf_nodes,
                                       integer=True, low=2, allow_none=True)
        builder = self.builder or ("best" if max_leaf_nodes is not None else "depth")
        if max_leaf_nodes is not None and builder != "best":
            raise ValueError(f"max_leaf_nodes needs builder='best' (the most useful "
                             f"leaves first); got builder={builder!r}")
        max_features = _resolve_max_features(self.max_features, n_features)
        if builder == "level" and (self.splitter not in ("cumsum", "hist")
                                   or max_features not in (None, n_features)):
            raise ValueError("builder='level' searches every feature of every node of a "
                             "level with its own vectorized scan: it needs "
                             "splitter='cumsum' or 'hist' and max_features=None")
        rules = StoppingRules(
            max_depth=np.inf if max_depth is None else max_depth,
            min_samples_split=_count_or_fraction("min_samples_split",
                                                 self.min_samples_split, n_samples, 2),
            min_samples_leaf=_count_or_fraction("min_samples_leaf",
                                                self.min_samples_leaf, n_samples, 1),
            min_impurity_decrease=_check_number(
                "min_impurity_decrease", self.min_impurity_decrease, integer=False,
                low=0.0))
        return builder, rules, max_features, max_leaf_nodes, max_bins

    def _grow(self, X, Y):
        """Grow ``tree_`` on float X and statistics Y; set the fitted attributes.

        With ``splitter="hist"`` the features are binned first and the tree is grown on
        the bin codes; its tests ``code <= b`` are then written as thresholds on X.
        """
        builder, rules, max_features, max_leaf_nodes, max_bins = self._check_parameters(
            *X.shape)
        X = X.astype(np.float64)     # float32 values, exactly, in float64
        data, n_bins = X, None
        if self.splitter == "hist":
            data, self.bin_thresholds_ = bin_features(X, max_bins)
            n_bins = max(len(t) for t in self.bin_thresholds_) + 1
        stopping = dict(max_depth=None if np.isinf(rules.max_depth) else rules.max_depth,
                        min_samples_split=rules.min_samples_split,
                        min_samples_leaf=rules.min_samples_leaf,
                        min_impurity_decrease=rules.min_impurity_decrease)
        if builder == "level" and self.splitter == "hist":
            tree = build_histogram_level_wise(data, Y, self.criterion, n_bins=n_bins,
                                              **stopping)
        elif builder == "level":
            from treelib.levelwise import build_level_wise

            tree = build_level_wise(X, Y, self.criterion, **stopping)
        else:
            rng = np.random.default_rng(check_random_state(self.random_state)
                                        .randint(np.iinfo(np.int32).max))
            find_split = make_split_finder(self.splitter, self.criterion,
                                           rules.min_samples_leaf, max_features, rng,
                                           n_bins=n_bins)
            extra = {"max_leaf_nodes": max_leaf_nodes} if builder == "best" else {}
            tree = BUILDERS[builder](data, Y, find_split, self.criterion, rules, **extra)
        if self.splitter == "hist":
            tree = with_bin_thresholds(tree, self.bin_thresholds_)
        self.tree_ = tree
        self.max_features_ = max_features or X.shape[1]
        self.feature_importances_ = self.tree_.feature_importances(X.shape[1])
        return self

    def _validate_X_predict(self, X):
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float32, reset=False)
        return X.astype(np.float64)

    def apply(self, X):
        """Id of the leaf each row of ``X`` falls into."""
        X = self._validate_X_predict(X)
        return self.tree_.apply(X)

    def get_depth(self):
        """Depth of the tree: the number of edges from the root to its deepest leaf."""
        check_is_fitted(self)
        return self.tree_.max_depth

    def get_n_leaves(self):
        """Number of leaves."""
        check_is_fitted(self)
        return self.tree_.n_leaves


_PARAMETERS = """
    splitter : {"naive", "scan", "cumsum", "hist", "random"}, default="cumsum"
        The split finder.  "naive", "scan" and "cumsum" are the exact finders of
        ``treelib.splits.best_split`` and grow the same tree; they differ only in speed.
        "hist" bins every feature once into at most ``max_bins`` bins and searches the
        cuts between bins (``treelib.histogram``); "random" draws one threshold per
        feature uniformly between its smallest and largest value in the node and keeps
        the best (``treelib.random_splits``, scikit-learn's ``splitter="random"``).
    builder : {"depth", "recursive", "best", "level"} or None, default=None
        The growth order (``treelib.builders``, ``treelib.levelwise``; with
        ``splitter="hist"``, "level" is ``treelib.histogram.build_histogram_level_wise``,
        with the subtraction trick).  None means "depth", or "best" when
        ``max_leaf_nodes`` is set, as in scikit-learn.
    max_depth : int or None, default=None
        Maximum depth (the root has depth 0); None grows until the other rules stop.
    min_samples_split : int or float, default=2
        A node with fewer samples is a leaf (a float is a fraction of the samples).
    min_samples_leaf : int or float, default=1
        Each child of a split keeps at least this many samples.
    min_impurity_decrease : float, default=0.0
        A node is split only if its split decreases the impurity, weighted by the
        node's share of the training samples, by at least this much.
    max_leaf_nodes : int or None, default=None
        Grow best first and stop at this many leaves.
    max_features : int, float, "sqrt", "log2" or None, default=None
        Number of features searched at each node, chosen at random.
    random_state : int, RandomState instance or None, default=None
        Seeds the choice of features when ``max_features`` is set, and the thresholds
        of ``splitter="random"``.
    max_bins : int, default=255
        With ``splitter="hist"``: the most bins per feature (2 to 256).  A feature with
        at most ``max_bins`` distinct values gets one bin per value, and the split is
        then exact.

    Attributes
    ----------
    tree_ : treelib.tree.Tree
        The fitted tree as flat arrays (``children_left``, ``children_right``,
        ``feature``, ``threshold``, ``value``, ``impurity``, ``n_node_samples``).
    feature_importances_ : ndarray of shape (n_features,)
        Total impurity decrease brought by each feature, normalised to sum to 1.
    max_features_ : int
        Number of features searched at each node.
    bin_thresholds_ : list of ndarray
        With ``splitter="hist"``: the thresholds between the bins of each feature.
    n_features_in_ : int
        Number of features seen in ``fit``.
"""


class DecisionTreeRegressor(RegressorMixin, BaseDecisionTree):
    __doc__ = """A regression tree (squared error), scikit-learn compatible.

    Parameters
    ----------
    criterion : {"squared_error"}, default="squared_error"
        The impurity: the variance of the targets in a node.""" + _PARAMETERS

    _criteria = REGRESSION_CRITERIA

    def __init__(self, *, criterion="squared_error", splitter="cumsum", builder=None,
                 max_depth=None, min_samples_split=2, min_samples_leaf=1,
                 min_impurity_decrease=0.0, max_leaf_nodes=None, max_features=None,
                 random_state=None, max_bins=255):
        super().__init__(criterion=criterion, splitter=splitter, builder=builder,
                         max_depth=max_depth, min_samples_split=min_samples_split,
                         min_samples_leaf=min_samples_leaf,
                         min_impurity_decrease=min_impurity_decrease,
                         max_leaf_nodes=max_leaf_nodes, max_features=max_features,
                         random_state=random_state, max_bins=max_bins)

    def fit(self, X, y):
        """Grow the tree on ``X`` (n_samples, n_features) and ``y`` (n_samples,)."""
        X, y = validate_data(self, X, y, dtype=np.float32, y_numeric=True)
        return self._grow(X, np.asarray(y, dtype=np.float64)[:, None])

    def predict(self, X):
        """Mean training target of the leaf each row of ``X`` falls into."""
        X = self._validate_X_predict(X)
        return self.tree_.predict(X)[:, 0]


class DecisionTreeClassifier(ClassifierMixin, BaseDecisionTree):
    __doc__ = """A classification tree (Gini or entropy), scikit-learn compatible.

    Parameters
    ----------
    criterion : {"gini", "entropy"}, default="gini"
        The impurity: ``1 - sum_k p_k**2`` or ``-sum_k p_k log2 p_k``.""" + _PARAMETERS + """
    classes_ : ndarray of shape (n_classes,)
        The class labels, sorted.
    n_classes_ : int
        Number of classes.
    """

    _criteria = CLASSIFICATION_CRITERIA

    def __init__(self, *, criterion="gini", splitter="cumsum", builder=None,
                 max_depth=None, min_samples_split=2, min_samples_leaf=1,
                 min_impurity_decrease=0.0, max_leaf_nodes=None, max_features=None,
                 random_state=None, max_bins=255):
        super().__init__(criterion=criterion, splitter=splitter, builder=builder,
                         max_depth=max_depth, min_samples_split=min_samples_split,
                         min_samples_leaf=min_samples_leaf,
                         min_impurity_decrease=min_impurity_decrease,
                         max_leaf_nodes=max_leaf_nodes, max_features=max_features,
                         random_state=random_state, max_bins=max_bins)

    def fit(self, X, y):
        """Grow the tree on ``X`` (n_samples, n_features) and labels ``y``."""
        X, y = validate_data(self, X, y, dtype=np.float32)
        check_classification_targets(y)
        self.classes_, codes = np.unique(y, return_inverse=True)
        self.n_classes_ = len(self.classes_)
        return self._grow(X, one_hot(codes, self.n_classes_))

    def predict_proba(self, X):
        """Class proportions of the leaf each row of ``X`` falls into, (n, n_classes)."""
        X = self._validate_X_predict(X)
        return self.tree_.predict(X)

    def predict(self, X):
        """The most frequent class of the leaf each row falls into (first on ties)."""
        proba = self.predict_proba(X)
        return self.classes_[np.argmax(proba, axis=1)]


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

    def _grow(self, X, Y):
        n_estimators = _check_number("n_estimators", self.n_estimators, integer=True, low=1)
        max_depth = _check_number("max_depth", self.max_depth, integer=True, low=1,
                                  allow_none=True)
        min_samples_leaf = _check_number("min_samples_leaf", self.min_samples_leaf,
                                         integer=True, low=1)
        self.max_depth_ = X.shape[1] if max_depth is None else max_depth
        seeds = check_random_state(self.random_state).randint(np.iinfo(np.int32).max,
                                                              size=n_estimators)
        self.estimators_ = [build_random_tree(X, Y, np.random.default_rng(seed),
                                              max_depth=self.max_depth_,
                                              min_samples_leaf=min_samples_leaf)
                            for seed in seeds]
        return self

    def _validate_fit(self, X, y):
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
        Maximum depth of each tree; None means the number of features (Fan et al.'s
        and the seed article's choice).
    min_samples_leaf : int, default=4
        A node is created only if at least this many training samples reach it (the
        seed article's 4); a node is split only if it holds at least twice as many.
    random_state : int, RandomState instance or None, default=None
        Seeds every random feature and threshold.

    Attributes
    ----------
    estimators_ : list of treelib.random_trees.RandomTree
        The fitted trees.
    max_depth_ : int
        The depth limit used.
    n_features_in_ : int
        Number of features seen in ``fit``.

    Notes
    -----
    Each tree is grown by ``treelib.random_trees.build_random_tree``: random feature,
    threshold halfway between two different values of it in the node, no purity test,
    level by level, children only where training data is, missing values (NaN) as a
    third branch.  Training costs O(n_estimators x depth x n), whatever the number of
    features.
"""


class RandomDecisionTreeClassifier(ClassifierMixin, BaseRandomDecisionTrees):
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
