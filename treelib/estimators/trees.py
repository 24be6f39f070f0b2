"""scikit-learn-compatible decision trees built from treelib's finders and growers.

This is the public boundary: parameters and data are validated here, once, with
scikit-learn's own input checks (so bad input gets the same errors as from
scikit-learn's trees), and X is kept as float32 as scikit-learn's trees keep it; the
algorithms below (``treelib.finders``, ``treelib.growth``) trust what they receive.
"""

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin, clone
from sklearn.utils import Bunch
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from treelib.criteria import (
    CLASSIFICATION_CRITERIA,
    REGRESSION_CRITERIA,
    check_poisson_targets,
    one_hot,
)
from treelib.estimators.encoding import categorical_mask, encode_categories, fit_categories
from treelib.estimators.fixed_point import fit_fixed_point_tree
from treelib.estimators.params import (
    STRICTER,
    forget_fit,
    has_missing,
    leaf_size,
    numpy_rng,
    resolve_max_features,
    stopping_rules,
    tree_settings,
)
from treelib.finders import Finder
from treelib.finders.categorical import Categories
from treelib.finders.monotonic import check_monotonic_cst
from treelib.growth import LevelOptions, grow, without_zero_weights
from treelib.growth.row_parts import LocalParts, RowPart
from treelib.pruning import prune, pruning_path
from treelib.validation import check_sample_weight, check_target_range

#: The splitters that accept missing values (NaN) in X.
MISSING_VALUE_SPLITTERS = ("cumsum", "hist")


def apply_ccp_alpha(tree, n_features):
    """Prune the fitted ``tree.tree_`` by its ``ccp_alpha`` (nothing at 0, as in
    scikit-learn: ``treelib.pruning.prune``) and set ``feature_importances_`` from what is
    left; returns ``tree``.  O(nodes log nodes + sum of leaf depths) if it prunes."""
    if tree.ccp_alpha > 0:
        tree.tree_ = prune(tree.tree_, tree.ccp_alpha)
    tree.feature_importances_ = tree.tree_.feature_importances(n_features)
    return tree


class BaseDecisionTree(BaseEstimator):
    """What the regressor and the classifier share: parameters, growth, prediction."""

    _criteria = ()

    def __init__(self, *, criterion, splitter="cumsum", builder=None, max_depth=None,
                 min_samples_split=2, min_samples_leaf=1, min_impurity_decrease=0.0,
                 max_leaf_nodes=None, max_features=None, random_state=None, max_bins=255,
                 categorical_features="from_dtype", categorical_splitter="partition",
                 n_jobs=None, ccp_alpha=0.0, monotonic_cst=None):
        self.criterion = criterion
        self.ccp_alpha = ccp_alpha
        self.monotonic_cst = monotonic_cst
        self.n_jobs = n_jobs
        self.categorical_features = categorical_features
        self.categorical_splitter = categorical_splitter
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

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = self._allows_nan()
        return tags

    def _allows_nan(self):
        """Missing values are placed by the cumsum and hist splitters, except in level-wise
        growth, which keeps every feature sorted and refuses them (in fit and predict)."""
        return self.splitter in MISSING_VALUE_SPLITTERS and self.builder != "level_wise"

    def _validate_fit(self, X, y, sample_weight, **options):
        forget_fit(self)
        # the shape before validation, for categorical_features (pandas keeps its own;
        # array-likes that only convert with np.asarray are converted here)
        shape = X.shape if hasattr(X, "shape") else np.asarray(X).shape
        n_features = shape[1] if len(shape) == 2 else 0
        self.is_categorical_ = categorical_mask(self.categorical_features, X, n_features)
        self.categories_ = fit_categories(X, self.is_categorical_)
        X = encode_categories(X, self.categories_)
        # NaN passes to the options' check (treelib.options), which refuses it, with its
        # reason, where the splitter or the growth cannot place it; predict refuses it
        # wherever fit cannot place it
        X, y = validate_data(self, X, y, dtype=np.float32, ensure_all_finite="allow-nan",
                             **options)
        weights = None if sample_weight is None else check_sample_weight(sample_weight,
                                                                           len(y))
        return X, y, weights

    def _finite(self):
        return "allow-nan" if self._allows_nan() else True

    def _settings(self, X, weights):
        """The parameters checked (each value, then which combine: ``treelib.options``),
        on X (float32) and the sample weights (or None).  O(n f) (the NaN search)."""
        return tree_settings(self, X.shape[1], categorical=self.is_categorical_.any(),
                             missing=has_missing(X, weights), weighted=weights is not None)

    def _grow(self, X, Y, weights, settings):
        """Grow ``tree_`` on X (float32) and targets Y with the checked ``settings``; set
        the fitted attributes.

        The finder prepares the data it searches (``splitter="hist"`` bins the features
        once, and the tree is grown on the bin codes), and the grower named by
        ``builder`` grows the tree with it.
        """
        n_samples, n_features = X.shape
        categories = None
        if self.is_categorical_.any():
            counts = np.array([-1 if c is None else len(c) for c in self.categories_])
            categories = Categories(counts, self.categorical_splitter)
        finder = Finder(self.splitter, self.criterion,
                        min_samples_leaf=leaf_size(self, n_samples),
                        max_features=settings.max_features, rng=numpy_rng(self.random_state),
                        max_bins=self.max_bins, categories=categories)
        finder.constrain(self._monotonic_signs(n_features))
        rules = stopping_rules(self, n_samples, settings.max_leaf_nodes)
        X, Y, weights = without_zero_weights(X, Y, weights)   # (before binning too)
        self.tree_ = grow(settings.builder, finder.prepare(X), Y, finder, rules,
                          weights=weights, level=LevelOptions(n_jobs=settings.n_jobs))
        if finder.bin_thresholds is not None:
            self.bin_thresholds_ = finder.bin_thresholds
        self.max_features_ = resolve_max_features(self.max_features, n_features) or n_features
        return apply_ccp_alpha(self, n_features)

    def _monotonic_signs(self, n_features):
        """``monotonic_cst`` checked (``check_monotonic_cst``) as the signs the finder
        applies to the value's first column: for a classifier, binary only (a ValueError
        otherwise), the first class's proportion, so the signs flipped as scikit-learn
        flips them.  O(f)."""
        signs = check_monotonic_cst(self.monotonic_cst, n_features, self.is_categorical_)
        if signs is None or not hasattr(self, "classes_"):
            return signs
        if self.n_classes_ > 2:
            raise ValueError("Monotonicity constraints are not supported with multiclass "
                             f"classification ({self.n_classes_} classes): monotonic_cst "
                             "constrains the probability of the positive class of two")
        return -signs

    def cost_complexity_pruning_path(self, X, y, sample_weight=None):
        """scikit-learn's: a ``Bunch`` of the effective alphas (``ccp_alphas``, 0 first)
        and total leaf impurities (``impurities``, each leaf's weighted by its share of the
        weight) of the subtrees that ``treelib.pruning`` cuts from the tree grown on X, y
        with ``ccp_alpha=0``.  A fit, then O(nodes log nodes + sum of the leaves' depths)."""
        tree = clone(self).set_params(ccp_alpha=0.0).fit(X, y, sample_weight=sample_weight)
        path = pruning_path(tree.tree_)
        return Bunch(ccp_alphas=path.ccp_alphas, impurities=path.impurities)

    def _validate_X_predict(self, X):
        check_is_fitted(self)
        return validate_data(self, encode_categories(X, self.categories_), dtype=np.float32,
                             reset=False, ensure_all_finite=self._finite())

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
        The split finder (``treelib.finders``).  "naive", "scan" and "cumsum" are the
        exact finders and grow the same tree; they differ only in speed.  "hist" bins
        every feature once into at most ``max_bins`` bins and searches the cuts between
        bins; "random" draws one threshold per feature uniformly between its smallest and
        largest value in the node and keeps the best (scikit-learn's
        ``splitter="random"``).  "cumsum" and "hist" accept missing values: each split
        tries them on both sides and keeps the better (``tree_.missing_go_to_left``);
        a missing value at prediction time on a feature that had none in the node goes
        to the larger child, as in scikit-learn.
    builder : {"depth_first", "recursive", "best_first", "level_wise"} or None, \
default=None
        The growth order (``treelib.growth``).  None means "depth_first", or
        "best_first" when ``max_leaf_nodes`` is set, as in scikit-learn.  "level_wise"
        grows whole levels at once and needs ``splitter="cumsum"``, ``"hist"`` (with
        the histogram subtraction trick) or ``"random"`` (each node's thresholds drawn
        breadth first, ``treelib.growth.level_random``); with ``max_features`` it draws
        each node's features breadth first (``treelib.growth.level_features``), so its trees differ
        from the per-node builders' for the same seed (None stays depth first with
        ``max_features`` too: scikit-learn's order and numbering; the forests choose
        level-wise growth, ``treelib.estimators.bagging.forest_builder``).  "recursive" grows
        trees at most half of Python's recursion limit deep (500 levels by default) and
        raises a ValueError beyond.
    max_depth : int or None, default=None
        Maximum depth (the root has depth 0); None grows until the other rules stop.
    min_samples_split : int or float, default=2
        A node with fewer samples is a leaf (a float is a fraction of the samples).
    min_samples_leaf : int or float, default=1
        Each child of a split keeps at least this many samples (counted without their
        weights, as in scikit-learn).
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
        With ``splitter="hist"``: the most bins per feature (2 to 255).  A feature with
        at most ``max_bins`` distinct values gets one bin per value, and the split is
        then exact.

    categorical_features : "from_dtype", None, array-like of int, bool or str, \
default="from_dtype"
        The categorical features, as in scikit-learn's HistGradientBoosting: the pandas
        columns of dtype ``category`` ("from_dtype"), none, indices, a boolean mask, or
        column names.  A categorical feature (at most 255 categories) is split by sending
        a set of categories left; a category not seen in training goes where missing
        values go.  Supported by the exact and "hist" splitters with a per-node builder.
    categorical_splitter : {"partition", "one_vs_rest"}, default="partition"
        How a categorical feature is split: the best partition found by sorting the
        categories by their mean target (exact for squared error and two classes, a
        heuristic for more classes), or one category against the rest
        (``treelib.finders.categorical``).
    n_jobs : int or None, default=None
        Threads that share each level's split search with ``builder="level_wise"``, a
        group of features each (``treelib.growth.threads``); None is 1, -1 every core.
        The tree is the same for every value.  Other builders need None or 1.
    ccp_alpha : non-negative float, default=0.0
        Minimal cost-complexity pruning after growth (``treelib.pruning``): the
        subtree whose effective alphas all exceed ``ccp_alpha`` is kept, as in
        scikit-learn (see ``cost_complexity_pruning_path``).  0 prunes nothing.
    monotonic_cst : array-like of int of shape (n_features,) or None, default=None
        Monotonic constraints, scikit-learn's: 1 increasing, -1 decreasing, 0 none, on
        the prediction (a classifier's: the probability of its second class; binary
        only).  A cut whose children's values break the order or leave the node's bounds
        is no candidate, and bounds pass down at the children's midpoint
        (``treelib.finders.monotonic``).  Not with categorical features constrained,
        builder="level_wise", fixed-point sums, splitter="random" or absolute error.

    Attributes
    ----------
    tree_ : treelib.tree.Tree
        The fitted tree as flat arrays (``children_left``, ``children_right``,
        ``children_missing``, ``feature``, ``threshold``, ``value``, ``impurity``,
        ``n_node_samples``).
    feature_importances_ : ndarray of shape (n_features,)
        Total impurity decrease brought by each feature, normalised to sum to 1.
    max_features_ : int
        Number of features searched at each node.
    bin_thresholds_ : list of ndarray
        With ``splitter="hist"``: the thresholds between the bins of each feature.
    n_features_in_ : int
        Number of features seen in ``fit``.
    is_categorical_ : ndarray of bool of shape (n_features,)
        Which features were treated as categorical.
    categories_ : list of ndarray or None
        The categories of each categorical feature (None for the others), in the order of
        their codes.
"""


class DecisionTreeRegressor(RegressorMixin, BaseDecisionTree):
    __doc__ = """A regression tree, scikit-learn compatible.
    """ + STRICTER + """
    Parameters
    ----------
    criterion : {"squared_error", "poisson", "absolute_error"}, default="squared_error"
        The impurity: the variance of the targets in a node (leaves predict the mean),
        half the Poisson deviance (the mean; targets must be non-negative with a positive
        sum), or the mean absolute deviation from the median (the median; exact
        splitters and per-node builders only, without missing values).
    histogram_sums : {"float", "fixed_point"}, default="float"
        "fixed_point": histograms of fixed-point sums that do not depend on the order of the
        additions (``treelib.estimators.fixed_point``), so that ``treelib.distributed.fit`` on
        rows spread over a cluster grows this tree bit for bit; needs splitter="hist",
        squared error, level-wise growth (builder None or "level_wise"), every feature,
        no sample weights, missing values or categorical features.  The tree is then
        the float histogram tree up to near-ties (its nodes numbered breadth first).""" \
        + _PARAMETERS

    _criteria = REGRESSION_CRITERIA

    def __init__(self, *, criterion="squared_error", splitter="cumsum", builder=None,
                 max_depth=None, min_samples_split=2, min_samples_leaf=1,
                 min_impurity_decrease=0.0, max_leaf_nodes=None, max_features=None,
                 random_state=None, max_bins=255, categorical_features="from_dtype",
                 categorical_splitter="partition", n_jobs=None, histogram_sums="float",
                 ccp_alpha=0.0, monotonic_cst=None):
        super().__init__(criterion=criterion, splitter=splitter, builder=builder,
                         max_depth=max_depth, min_samples_split=min_samples_split,
                         min_samples_leaf=min_samples_leaf,
                         min_impurity_decrease=min_impurity_decrease,
                         max_leaf_nodes=max_leaf_nodes, max_features=max_features,
                         random_state=random_state, max_bins=max_bins,
                         categorical_features=categorical_features,
                         categorical_splitter=categorical_splitter, n_jobs=n_jobs,
                         ccp_alpha=ccp_alpha, monotonic_cst=monotonic_cst)
        self.histogram_sums = histogram_sums

    def fit(self, X, y, sample_weight=None):
        """Grow the tree on ``X`` (n_samples, n_features; NaN allowed with the "cumsum"
        and "hist" splitters) and ``y`` (n_samples,), each sample weighted by
        ``sample_weight`` (default: 1)."""
        X, y, weights = self._validate_fit(X, y, sample_weight, y_numeric=True)
        y = check_target_range(np.asarray(y, dtype=np.float64))
        settings = self._settings(X, weights)
        if settings.histogram_sums == "fixed_point":
            fit_fixed_point_tree(self, LocalParts([RowPart(X, y)]), X.shape[1])
            return apply_ccp_alpha(self, X.shape[1])
        if self.criterion == "poisson":
            check_poisson_targets(y)
        return self._grow(X, y[:, None], weights, settings)

    def predict(self, X):
        """The prediction (mean, or median) of the leaf each row of ``X`` falls into."""
        X = self._validate_X_predict(X)
        return self.tree_.predict(X)[:, 0]


class DecisionTreeClassifier(ClassifierMixin, BaseDecisionTree):
    __doc__ = """A classification tree (Gini or entropy), scikit-learn compatible.
    """ + STRICTER + """
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
                 random_state=None, max_bins=255, categorical_features="from_dtype",
                 categorical_splitter="partition", n_jobs=None, ccp_alpha=0.0,
                 monotonic_cst=None):
        super().__init__(criterion=criterion, splitter=splitter, builder=builder,
                         max_depth=max_depth, min_samples_split=min_samples_split,
                         min_samples_leaf=min_samples_leaf,
                         min_impurity_decrease=min_impurity_decrease,
                         max_leaf_nodes=max_leaf_nodes, max_features=max_features,
                         random_state=random_state, max_bins=max_bins,
                         categorical_features=categorical_features,
                         categorical_splitter=categorical_splitter, n_jobs=n_jobs,
                         ccp_alpha=ccp_alpha, monotonic_cst=monotonic_cst)

    def fit(self, X, y, sample_weight=None):
        """Grow the tree on ``X`` (n_samples, n_features; NaN allowed with the "cumsum"
        and "hist" splitters) and labels ``y``, each sample weighted by
        ``sample_weight`` (default: 1)."""
        X, y, weights = self._validate_fit(X, y, sample_weight)
        check_classification_targets(y)
        settings = self._settings(X, weights)
        self.classes_, codes = np.unique(y, return_inverse=True)
        self.n_classes_ = len(self.classes_)
        return self._grow(X, one_hot(codes, self.n_classes_), weights, settings)

    def predict_proba(self, X):
        """Class proportions of the leaf each row of ``X`` falls into, (n, n_classes)."""
        X = self._validate_X_predict(X)
        return self.tree_.predict(X)

    def predict(self, X):
        """The most frequent class of the leaf each row falls into (first on ties)."""
        proba = self.predict_proba(X)
        return self.classes_[np.argmax(proba, axis=1)]
