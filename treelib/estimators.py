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

from treelib.builders import BUILDERS, StoppingRules, make_split_finder
from treelib.criteria import CLASSIFICATION_CRITERIA, REGRESSION_CRITERIA, one_hot
from treelib.splits import SPLIT_METHODS


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
                 max_leaf_nodes=None, max_features=None, random_state=None):
        self.criterion = criterion
        self.splitter = splitter
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
        if self.splitter not in SPLIT_METHODS:
            raise ValueError(f"splitter must be one of {sorted(SPLIT_METHODS)}; "
                             f"got {self.splitter!r}")
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
        if builder == "level" and (self.splitter != "cumsum"
                                   or max_features not in (None, n_features)):
            raise ValueError("builder='level' searches every feature of every node of a "
                             "level with its own vectorized scan: it needs "
                             "splitter='cumsum' and max_features=None")
        rules = StoppingRules(
            max_depth=np.inf if max_depth is None else max_depth,
            min_samples_split=_count_or_fraction("min_samples_split",
                                                 self.min_samples_split, n_samples, 2),
            min_samples_leaf=_count_or_fraction("min_samples_leaf",
                                                self.min_samples_leaf, n_samples, 1),
            min_impurity_decrease=_check_number(
                "min_impurity_decrease", self.min_impurity_decrease, integer=False,
                low=0.0))
        return builder, rules, max_features, max_leaf_nodes

    def _grow(self, X, Y):
        """Grow ``tree_`` on float X and statistics Y; set the fitted attributes."""
        builder, rules, max_features, max_leaf_nodes = self._check_parameters(*X.shape)
        X = X.astype(np.float64)     # float32 values, exactly, in float64
        if builder == "level":
            from treelib.levelwise import build_level_wise

            self.tree_ = build_level_wise(
                X, Y, self.criterion,
                max_depth=None if np.isinf(rules.max_depth) else rules.max_depth,
                min_samples_split=rules.min_samples_split,
                min_samples_leaf=rules.min_samples_leaf,
                min_impurity_decrease=rules.min_impurity_decrease)
        else:
            rng = np.random.default_rng(check_random_state(self.random_state)
                                        .randint(np.iinfo(np.int32).max))
            find_split = make_split_finder(self.splitter, self.criterion,
                                           rules.min_samples_leaf, max_features, rng)
            extra = {"max_leaf_nodes": max_leaf_nodes} if builder == "best" else {}
            self.tree_ = BUILDERS[builder](X, Y, find_split, self.criterion, rules,
                                           **extra)
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
    splitter : {"naive", "scan", "cumsum"}, default="cumsum"
        The split finder (``treelib.splits.best_split``'s ``method``).  All three grow
        the same tree; they differ only in speed.
    builder : {"depth", "recursive", "best", "level"} or None, default=None
        The growth order (``treelib.builders``, ``treelib.levelwise``).  None means
        "depth", or "best" when ``max_leaf_nodes`` is set, as in scikit-learn.
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
        Seeds the choice of features when ``max_features`` is set.

    Attributes
    ----------
    tree_ : treelib.tree.Tree
        The fitted tree as flat arrays (``children_left``, ``children_right``,
        ``feature``, ``threshold``, ``value``, ``impurity``, ``n_node_samples``).
    feature_importances_ : ndarray of shape (n_features,)
        Total impurity decrease brought by each feature, normalised to sum to 1.
    max_features_ : int
        Number of features searched at each node.
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
                 random_state=None):
        super().__init__(criterion=criterion, splitter=splitter, builder=builder,
                         max_depth=max_depth, min_samples_split=min_samples_split,
                         min_samples_leaf=min_samples_leaf,
                         min_impurity_decrease=min_impurity_decrease,
                         max_leaf_nodes=max_leaf_nodes, max_features=max_features,
                         random_state=random_state)

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
                 random_state=None):
        super().__init__(criterion=criterion, splitter=splitter, builder=builder,
                         max_depth=max_depth, min_samples_split=min_samples_split,
                         min_samples_leaf=min_samples_leaf,
                         min_impurity_decrease=min_impurity_decrease,
                         max_leaf_nodes=max_leaf_nodes, max_features=max_features,
                         random_state=random_state)

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
