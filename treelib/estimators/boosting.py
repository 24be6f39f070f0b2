"""Histogram gradient boosting with scikit-learn's parameters, from treelib's pieces.

``HistGradientBoostingRegressor`` and ``HistGradientBoostingClassifier`` bin the
features once (``treelib.binning``, scikit-learn's rule), boost trees grown best first
on histograms of float32 gradients and hessians (``treelib.growth.boosting``), and take
scikit-learn's parameter names and meanings.  Two options scikit-learn does not have:
``learning_rate="line_search"`` (seed article 003's per-step line search of the step in
[0, 1]) and ``sampling="goss"`` (LightGBM's gradient-based one-side sampling).

**Agreement with scikit-learn.**  With equal parameters and ``early_stopping=False``,
the trees are scikit-learn's: same bins, gradients rounded to float32, histograms added
in the same order, the same rules (see ``treelib.growth.boosting_grower``), so the
predictions agree to the last bit on california_housing after 100 iterations (the tests
and appendix A6 check it).  They can differ where:

- two cuts of a node tie: scikit-learn keeps the first of equal gains in its scan order
  (features in order; bins left to right with missing values right, then right to
  left with missing values left), and which of two mathematically equal gains is larger
  after rounding; treelib calls gains equal up to their rounding bounds tied and keeps
  the lowest feature, then the lowest cut (missing values right first).  Example: a
  node whose present values all go one way and missing values the other can be written
  "missing right" or "missing left"; the children are the same, but a value outside the
  node's training range may be routed differently at prediction time;
- categorical features: scikit-learn moves them before the numeric ones (which changes
  feature order on ties), leaves categories of fewer than 10 samples (hessian-weighted)
  out of the scan (always sent right), and scans sorted categories only up to the middle
  from each end; treelib scans every cut of the sorted order;
- sample weights: scikit-learn cuts the bins at weighted percentiles; treelib at the
  unweighted ones.

Early stopping uses scikit-learn's split of the validation rows (the same seed drawn
from ``random_state``) and its stopping rule, on the loss only (``scoring="loss"``).
Where treelib is stricter than scikit-learn, the estimators' docstrings say why.
"""

from collections import deque

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils import check_random_state, check_X_y
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from treelib.binning import bin_features
from treelib.estimators.encoding import (
    categorical_mask,
    encode_categories,
    fit_categories,
    is_dataframe,
    object_array,
)
from treelib.estimators.fixed_point import fit_fixed_point_boosting
from treelib.estimators.params import (
    check_boosting_options,
    check_no_infinity,
    forget_fit,
    validation_split,
)
from treelib.finders.monotonic import monotonic_signs
from treelib.growth.boosting import boost
from treelib.growth.boosting_grower import BoostingRules, on_features
from treelib.growth.boosting_histograms import BinnedData
from treelib.growth.row_parts import LocalParts, RowPart
from treelib.losses import HalfBinomialLoss, HalfMultinomialLoss, HalfSquaredError
from treelib.split import MISSING_BIN
from treelib.validation import check_gradient_range, check_sample_weight


class BaseHistGradientBoosting(BaseEstimator):
    """What the regressor and the classifier share."""

    def __init__(self, loss, *, learning_rate=0.1, max_iter=100, max_leaf_nodes=31,
                 max_depth=None, min_samples_leaf=20, l2_regularization=0.0, max_bins=255,
                 categorical_features="from_dtype", early_stopping="auto",
                 validation_fraction=0.1, n_iter_no_change=10, tol=1e-7, random_state=None,
                 sampling=None, top_rate=0.2, other_rate=0.1, histogram_sums="float",
                 monotonic_cst=None):
        self.loss = loss
        self.monotonic_cst = monotonic_cst
        self.histogram_sums = histogram_sums
        self.learning_rate = learning_rate
        self.max_iter = max_iter
        self.max_leaf_nodes = max_leaf_nodes
        self.max_depth = max_depth
        self.min_samples_leaf = min_samples_leaf
        self.l2_regularization = l2_regularization
        self.max_bins = max_bins
        self.categorical_features = categorical_features
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.tol = tol
        self.random_state = random_state
        self.sampling = sampling
        self.top_rate = top_rate
        self.other_rate = other_rate

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        return tags

    def _validate_X(self, X, reset):
        """X as float64 (NaN allowed), categorical columns as category codes; with
        ``reset``, find the categorical features and their categories first."""
        options = dict(dtype=np.float64, ensure_all_finite=False)     # (inf: below)
        if not reset:
            check_is_fitted(self)
        else:
            array = object_array(X)             # strings, maybe in categorical columns
            if array is not None:
                X = array
            elif not is_dataframe(X):           # numbers: scikit-learn's checks first
                X = validate_data(self, X, **options)
            self.is_categorical_ = categorical_mask(self.categorical_features, X, X.shape[1])
            self.categories_ = fit_categories(X, self.is_categorical_)
        return check_no_infinity(validate_data(self, encode_categories(X, self.categories_),
                                               reset=reset, **options))

    def _fit(self, X, y, sample_weight, loss, stratify=None):
        """Bin, split off the validation rows if early stopping, boost; set the fitted
        attributes.  ``y``: the targets (class codes for classifiers)."""
        check_boosting_options(self, len(y),
                               classes=None if stratify is None else len(np.unique(y)),
                               weighted=sample_weight is not None,
                               categorical=self.is_categorical_.any(),
                               missing=np.isnan(X).any())
        weights = None
        if sample_weight is not None:
            if not np.any(np.asarray(sample_weight, dtype=np.float64)):
                raise ValueError("sample_weight: every weight is zero; at least one must "
                                 "be positive")
            weights = check_sample_weight(sample_weight, len(y))
        signs = monotonic_signs(self.monotonic_cst, self.is_categorical_,
                                getattr(self, "feature_names_in_", None))
        if self.monotonic_cst is not None and loss.n_outputs > 1:
            raise ValueError("monotonic_cst is not supported for multiclass classification "
                             f"({loss.n_outputs} classes), as in scikit-learn")
        if signs is not None and self.histogram_sums != "float":
            raise ValueError("monotonic_cst needs histogram_sums='float', not 'fixed_point'")
        if self.histogram_sums == "fixed_point":
            return fit_fixed_point_boosting(self, LocalParts([RowPart(X, y)]), loss)
        rng = check_random_state(self.random_state)
        seed = rng.randint(np.iinfo(np.uint32).max, dtype="u8")   # scikit-learn's draws
        goss_rng = np.random.default_rng(rng.randint(np.iinfo(np.uint32).max, dtype="u8"))
        validation = None
        if self.do_early_stopping_ and self.validation_fraction is not None:
            X, y, weights, validation = validation_split(
                X, y, weights, self.validation_fraction, stratify, seed)
        data = self._bin(X)
        if validation is not None:
            validation = (self._codes(validation[0]), *validation[1:])
        rules = BoostingRules(max_leaf_nodes=self.max_leaf_nodes, max_depth=self.max_depth,
                              min_samples_leaf=self.min_samples_leaf,
                              l2_regularization=float(self.l2_regularization),
                              monotonic_cst=signs)
        fit = boost(data, y, loss, max_iter=self.max_iter, learning_rate=self.learning_rate,
                    rules=rules, weights=weights, sampling=self.sampling,
                    top_rate=self.top_rate, other_rate=self.other_rate, rng=goss_rng,
                    validation=validation, early_stopping=self.do_early_stopping_,
                    n_iter_no_change=self.n_iter_no_change, tol=self.tol)
        self.trees_ = [[on_features(tree, self.bin_thresholds_) for tree in trees]
                       for trees in fit.trees]
        self.baseline_ = fit.baseline
        self.step_sizes_ = np.array(fit.steps)
        self.train_score_ = np.asarray(fit.train_score)
        self.validation_score_ = np.asarray(fit.validation_score)
        self.n_iter_ = len(fit.trees)
        self.n_trees_per_iteration_ = loss.n_outputs
        return self

    def _bin(self, X):
        """Cut the numeric features into bins (``bin_thresholds_``); a categorical
        feature's code is its bin.  Returns the ``BinnedData``."""
        numeric = ~self.is_categorical_
        thresholds = [np.zeros(0)] * X.shape[1]
        if numeric.any():
            _, cuts = bin_features(X if numeric.all() else X[:, numeric], self.max_bins)
            for j, c in zip(np.flatnonzero(numeric), cuts):
                thresholds[j] = c
        self.bin_thresholds_ = thresholds
        n_bins = [len(c) if self.is_categorical_[j] else len(thresholds[j]) + 1
                  for j, c in enumerate(self.categories_)]
        return BinnedData(self._codes(X), n_bins, self.is_categorical_)

    def _codes(self, X):
        """Bin codes of X with the training thresholds (a category's code for a
        categorical feature; missing: ``MISSING_BIN``)."""
        codes = np.empty(X.shape, dtype=np.uint8)
        numeric = ~self.is_categorical_
        if numeric.any():
            codes[:, numeric], _ = bin_features(
                X[:, numeric], thresholds=[self.bin_thresholds_[j]
                                           for j in np.flatnonzero(numeric)])
        for j in np.flatnonzero(self.is_categorical_):
            codes[:, j] = np.where(np.isnan(X[:, j]), MISSING_BIN, np.nan_to_num(X[:, j]))
        return codes

    def _raw_predict(self, X):
        """Raw predictions (n, k): the baseline plus every tree, added in order."""
        return deque(self._staged_raw_predict(X), maxlen=1)[0]

    def _staged_raw_predict(self, X):
        X = self._validate_X(X, reset=False)
        raw = np.zeros((len(X), self.n_trees_per_iteration_)) + self.baseline_
        for trees in self.trees_:
            for k, tree in enumerate(trees):
                raw[:, k] += tree.predict(X)[:, 0]
            yield raw.copy()


_STRICTER = """
    Unlike scikit-learn's, it refuses infinite values in X (its bin thresholds are
    midpoints of neighbouring values, infinite next to an infinite one), negative sample
    weights (a leaf's sum of hessians could be zero or negative) and regression targets
    more than 3.4e38 from their mean (the float32 gradients would overflow), each with a
    ValueError that says so.
"""

_PARAMETERS = """
    learning_rate : float or "line_search", default=0.1
        The shrinkage of every tree's values.  "line_search": each tree's step is the
        alpha in [0, 1] that minimises the training loss after it (seed article 003).
    max_iter : int, default=100
        Boosting iterations (one tree each, one per class for more than two classes).
    max_leaf_nodes : int or None, default=31
        Leaves per tree, grown best first (None: no limit).
    max_depth : int or None, default=None
        Maximum depth of the trees (edges from the root to the deepest leaf).
    min_samples_leaf : int, default=20
        Samples each leaf keeps at least.
    l2_regularization : float, default=0.0
        Added to every sum of hessians in the leaf values and the gains.
    max_bins : int, default=255
        Bins per numeric feature (2 to 255), besides one for missing values.
    categorical_features : "from_dtype", None, array-like of int, bool or str, \
default="from_dtype"
        The categorical features (scikit-learn's conventions; at most 255 categories).
        Unknown categories at prediction time go where missing values go.
    early_stopping : "auto" or bool, default="auto"
        Stop when the validation loss stops improving; "auto": above 10,000 samples.
    validation_fraction : int, float or None, default=0.1
        The rows held out for early stopping (None: the training loss is watched).
    n_iter_no_change : int, default=10
        Stop when none of the last ``n_iter_no_change`` scores improves by ``tol``.
    tol : float, default=1e-7
        The improvement that counts for early stopping.
    random_state : int, RandomState instance or None, default=None
        Seeds the validation split and GOSS.
    sampling : {None, "goss"}, default=None
        "goss": grow each tree on the ``top_rate`` rows of largest ``|g h|`` and a random
        ``other_rate`` of the rest (LightGBM's gradient-based one-side sampling).
    top_rate, other_rate : float, default=0.2, 0.1
        The two fractions of GOSS.
    histogram_sums : {"float", "fixed_point"}, default="float"
        "fixed_point": fixed-point sums independent of the order of the additions
        (``treelib.estimators.fixed_point``), so that ``treelib.distributed.fit`` boosts the
        same trees bit for bit on a cluster; squared error or two classes, without
        early stopping, GOSS, line search, sample weights, NaN, categorical features
        or monotonic_cst.
    monotonic_cst : array-like of int of shape (n_features,), dict or None, default=None
        -1, 0 or 1 per feature (a dict: by feature name): the raw prediction (for two
        classes, the log-odds of the second) decreasing, free or increasing in it, as
        scikit-learn defines it (``treelib.finders.monotonic``).  Not for more than two
        classes, constrained categorical features or ``histogram_sums="fixed_point"``.

    Attributes
    ----------
    trees_ : list of lists of treelib.tree.Tree
        ``trees_[m][k]``: the tree of iteration m for raw prediction k.
    baseline_ : ndarray of shape (n_trees_per_iteration,)
        The constant raw prediction the trees add to.
    step_sizes_ : ndarray of shape (n_iter, n_trees_per_iteration)
        The step of each tree: the learning rate, or the line search's alpha.
    n_iter_, n_trees_per_iteration_ : int
    do_early_stopping_ : bool
    train_score_, validation_score_ : ndarray
        Minus the loss after every iteration (and before the first), with early
        stopping.
    bin_thresholds_ : list of ndarray
        The thresholds between the bins of every numeric feature.
    is_categorical_, categories_ : as the decision trees'.
"""


class HistGradientBoostingRegressor(RegressorMixin, BaseHistGradientBoosting):
    __doc__ = """Histogram gradient boosting for regression (half squared error).
    """ + _STRICTER + """
    Parameters
    ----------
    loss : {"squared_error"}, default="squared_error"
    """ + _PARAMETERS

    def __init__(self, loss="squared_error", *, learning_rate=0.1, max_iter=100,
                 max_leaf_nodes=31, max_depth=None, min_samples_leaf=20,
                 l2_regularization=0.0, max_bins=255, categorical_features="from_dtype",
                 early_stopping="auto", validation_fraction=0.1, n_iter_no_change=10,
                 tol=1e-7, random_state=None, sampling=None, top_rate=0.2, other_rate=0.1,
                 histogram_sums="float", monotonic_cst=None):
        super().__init__(loss, learning_rate=learning_rate, max_iter=max_iter,
                         max_leaf_nodes=max_leaf_nodes, max_depth=max_depth,
                         min_samples_leaf=min_samples_leaf,
                         l2_regularization=l2_regularization, max_bins=max_bins,
                         categorical_features=categorical_features,
                         early_stopping=early_stopping,
                         validation_fraction=validation_fraction,
                         n_iter_no_change=n_iter_no_change, tol=tol,
                         random_state=random_state, sampling=sampling, top_rate=top_rate,
                         other_rate=other_rate, histogram_sums=histogram_sums,
                         monotonic_cst=monotonic_cst)

    def fit(self, X, y, sample_weight=None):
        """Boost on ``X`` (n_samples, n_features; NaN for missing) and ``y``."""
        forget_fit(self)
        if self.loss != "squared_error":
            raise ValueError(f"loss must be 'squared_error'; got {self.loss!r}")
        X = self._validate_X(X, reset=True)
        X, y = check_X_y(X, y, dtype=np.float64, ensure_all_finite="allow-nan",
                         y_numeric=True)
        return self._fit(X, check_gradient_range(y), sample_weight, HalfSquaredError())

    def predict(self, X):
        """The baseline plus the sum of the trees' values."""
        return self._raw_predict(X)[:, 0]

    def staged_predict(self, X):
        """The predictions after each iteration."""
        for raw in self._staged_raw_predict(X):
            yield raw[:, 0]


class HistGradientBoostingClassifier(ClassifierMixin, BaseHistGradientBoosting):
    __doc__ = """Histogram gradient boosting for classification (log-loss; two classes:
    one tree per iteration, more: one per class).
    """ + _STRICTER + """
    Parameters
    ----------
    loss : {"log_loss"}, default="log_loss"
    """ + _PARAMETERS + """
    classes_ : ndarray of shape (n_classes,)
    """

    def __init__(self, loss="log_loss", *, learning_rate=0.1, max_iter=100,
                 max_leaf_nodes=31, max_depth=None, min_samples_leaf=20,
                 l2_regularization=0.0, max_bins=255, categorical_features="from_dtype",
                 early_stopping="auto", validation_fraction=0.1, n_iter_no_change=10,
                 tol=1e-7, random_state=None, sampling=None, top_rate=0.2, other_rate=0.1,
                 histogram_sums="float", monotonic_cst=None):
        super().__init__(loss, learning_rate=learning_rate, max_iter=max_iter,
                         max_leaf_nodes=max_leaf_nodes, max_depth=max_depth,
                         min_samples_leaf=min_samples_leaf,
                         l2_regularization=l2_regularization, max_bins=max_bins,
                         categorical_features=categorical_features,
                         early_stopping=early_stopping,
                         validation_fraction=validation_fraction,
                         n_iter_no_change=n_iter_no_change, tol=tol,
                         random_state=random_state, sampling=sampling, top_rate=top_rate,
                         other_rate=other_rate, histogram_sums=histogram_sums,
                         monotonic_cst=monotonic_cst)

    def fit(self, X, y, sample_weight=None):
        """Boost on ``X`` (n_samples, n_features; NaN for missing) and labels ``y``."""
        forget_fit(self)
        if self.loss != "log_loss":
            raise ValueError(f"loss must be 'log_loss'; got {self.loss!r}")
        X = self._validate_X(X, reset=True)
        X, y = check_X_y(X, y, dtype=np.float64, ensure_all_finite="allow-nan")
        check_classification_targets(y)
        self.classes_, codes = np.unique(y, return_inverse=True)
        self.n_classes_ = len(self.classes_)
        loss = (HalfBinomialLoss() if self.n_classes_ <= 2
                else HalfMultinomialLoss(self.n_classes_))
        return self._fit(X, codes.astype(np.float64), sample_weight, loss, stratify=codes)

    def decision_function(self, X):
        """Raw predictions: the log-odds of the second class (n,), or one per class."""
        raw = self._raw_predict(X)
        return raw[:, 0] if raw.shape[1] == 1 else raw

    def staged_decision_function(self, X):
        """The raw predictions after each iteration."""
        for raw in self._staged_raw_predict(X):
            yield raw[:, 0] if raw.shape[1] == 1 else raw

    def predict_proba(self, X):
        """Class probabilities (n, n_classes)."""
        return self._proba(self._raw_predict(X))

    @staticmethod
    def _proba(raw):
        if raw.shape[1] > 1:
            return HalfMultinomialLoss(raw.shape[1]).predict(raw)
        p = HalfBinomialLoss().predict(raw)
        return np.column_stack([1 - p, p])

    def predict(self, X):
        """The most probable class."""
        proba = self.predict_proba(X)
        return self.classes_[np.argmax(proba, axis=1)]

