"""Random forests and extra trees, scikit-learn compatible, grown from treelib's trees.

A forest is many trees that differ, averaged.  They differ by three sources of
randomness, each one parameter:

- **bagging** (``bootstrap=True``): each tree sees a bootstrap sample of the rows, drawn
  with replacement.  A row drawn c times is the same as one row of weight c, so the
  sample is passed to the tree as integer **sample weights** (the counts; rows never
  drawn have weight 0 and take no part), exactly as scikit-learn does;
- **feature subsampling** (``max_features``): each node searches only that many features,
  chosen at random (node by node, ``treelib.finders.Finder``; level-wise, breadth first,
  ``treelib.growth.level_features``);
- **random thresholds** (extra trees, ``splitter="random"``): each feature offers one
  threshold drawn uniformly in the node (``treelib.finders.random``).

Random forests (Breiman, 2001) use the first two with the exact search; extremely
randomized trees (Geurts, Ernst and Wehenkel, 2006) the last two, on all the rows.

The bootstrap samples are scikit-learn's, draw for draw, and each tree is grown by the
fastest grower that supports the settings (``treelib.estimators.bagging``).
"""

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from treelib.criteria import (
    CLASSIFICATION_CRITERIA,
    REGRESSION_CRITERIA,
    check_poisson_targets,
    one_hot,
)
from treelib.estimators.bagging import (
    MAX_INT,
    MISSING_VALUE_SPLITTERS,
    ForestJob,
    bootstrap_size,
    check_forest_builder,
    checked_sample_weight,
    forest_builder,
    grow_forest,
    oob_values,
)
from treelib.estimators.params import (
    STRICTER,
    check_number,
    forget_fit,
    leaf_size,
    resolve_max_features,
    stopping_rules,
)
from treelib.finders import check_splitter, feature_subset
from treelib.growth.threads import check_n_jobs
from treelib.options import check
from treelib.validation import check_target_range


class BaseForest(BaseEstimator):
    """What the four forests share: parameters, the bootstrap, growth, averaging."""

    _criteria = ()

    def __init__(self, n_estimators=100, *, criterion, splitter, max_depth=None,
                 min_samples_split=2, min_samples_leaf=1, min_impurity_decrease=0.0,
                 max_features, max_leaf_nodes=None, bootstrap, oob_score=False,
                 random_state=None, max_samples=None, max_bins=255, builder=None,
                 n_jobs=None):
        self.n_estimators = n_estimators
        self.builder = builder
        self.n_jobs = n_jobs
        self.criterion = criterion
        self.splitter = splitter
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_impurity_decrease = min_impurity_decrease
        self.max_features = max_features
        self.max_leaf_nodes = max_leaf_nodes
        self.bootstrap = bootstrap
        self.oob_score = oob_score
        self.random_state = random_state
        self.max_samples = max_samples
        self.max_bins = max_bins

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = self.splitter in MISSING_VALUE_SPLITTERS
        return tags

    def _finite(self):
        return "allow-nan" if self.splitter in MISSING_VALUE_SPLITTERS else True

    def _validate_fit(self, X, y, sample_weight, **options):
        forget_fit(self)
        # NaN passes to the options' check (treelib.options), which refuses it with its
        # reason where the splitter cannot place it
        X, y = validate_data(self, X, y, dtype=np.float32, ensure_all_finite="allow-nan",
                             **options)
        return X, y, checked_sample_weight(sample_weight, len(y))

    def _settings(self, X, sample_weight=None):
        """Everything one tree needs, checked once for the whole forest."""
        n_samples, n_features = X.shape
        if self.criterion not in self._criteria:
            raise ValueError(f"criterion must be one of {list(self._criteria)}; "
                             f"got {self.criterion!r}")
        splitter = check_splitter(self.splitter)
        if not isinstance(self.bootstrap, (bool, np.bool_)):
            raise ValueError(f"bootstrap must be True or False; got {self.bootstrap!r}")
        if self.oob_score and not self.bootstrap:
            raise ValueError("Out of bag estimation only available if bootstrap=True")
        if self.max_samples is not None and not self.bootstrap:
            raise ValueError("max_samples needs bootstrap=True (without it every tree "
                             "sees every row); set max_samples=None")
        max_features = resolve_max_features(self.max_features, n_features) or n_features
        max_leaf_nodes = check_number("max_leaf_nodes", self.max_leaf_nodes, integer=True,
                                      low=2, allow_none=True)
        has_missing = bool(np.isnan(X).any())
        builder = check_forest_builder(self.builder) or forest_builder(
            splitter, self.criterion, max_features, n_features, max_leaf_nodes, has_missing)
        check(builder=builder, splitter=splitter, criterion=self.criterion,
              max_features=feature_subset(max_features, n_features),
              max_leaf_nodes=max_leaf_nodes, missing=has_missing,
              sample_weight=sample_weight is not None)
        rules = stopping_rules(self, n_samples, max_leaf_nodes)
        min_samples_leaf = leaf_size(self, n_samples)
        return builder, rules, min_samples_leaf, max_features

    def _grow(self, X, Y, sample_weight):
        """Grow ``estimators_`` on X (float32) and targets Y (n, k); set the fitted
        attributes.  O(n_estimators) trees, each at the cost of its grower."""
        n_samples, n_features = X.shape
        n_estimators = check_number("n_estimators", self.n_estimators, integer=True, low=1)
        builder, rules, min_samples_leaf, max_features = self._settings(X, sample_weight)
        n_bootstrap = (bootstrap_size(n_samples, self.max_samples, sample_weight)
                       if self.bootstrap else None)
        seeds = check_random_state(self.random_state).randint(MAX_INT, size=n_estimators)
        finder = dict(splitter=self.splitter, criterion=self.criterion,
                      min_samples_leaf=min_samples_leaf, max_bins=self.max_bins,
                      max_features=feature_subset(max_features, n_features))
        job = ForestJob(X, Y, sample_weight, n_bootstrap, builder, rules, finder)
        grown = grow_forest(job, seeds, check_n_jobs(self.n_jobs))
        self.estimators_ = [tree for tree, _ in grown]
        if self.splitter == "hist":
            self.bin_thresholds_ = [thresholds for _, thresholds in grown]
        self.seeds_, self.builder_, self.max_features_ = seeds, builder, max_features
        self._n_bootstrap = n_bootstrap
        self._sample_weight = sample_weight
        if self.oob_score:
            self._set_oob_score(X, Y)
        return self

    def _oob_values(self, X):
        return oob_values(self.estimators_, self.seeds_, X, self._n_bootstrap,
                          self._sample_weight)

    def _validate_X_predict(self, X):
        check_is_fitted(self)
        return validate_data(self, X, dtype=np.float32, reset=False,
                             ensure_all_finite=self._finite())

    def _mean_value(self, X):
        """Mean over the trees of the value of the leaf each row reaches, (n, k)."""
        X = self._validate_X_predict(X)
        return np.mean([tree.predict(X) for tree in self.estimators_], axis=0)

    def apply(self, X):
        """Leaf id of every row in every tree, (n_samples, n_estimators)."""
        X = self._validate_X_predict(X)
        return np.column_stack([tree.apply(X) for tree in self.estimators_])

    @property
    def feature_importances_(self):
        """Impurity-based importances: each tree's normalised importances, averaged over
        the trees with at least one split, normalised again (scikit-learn's)."""
        check_is_fitted(self)
        each = [tree.feature_importances(self.n_features_in_) for tree in self.estimators_
                if tree.node_count > 1]
        if not each:
            return np.zeros(self.n_features_in_)
        mean = np.mean(each, axis=0)
        return mean / mean.sum()


_FOREST_PARAMETERS = """
    n_estimators : int, default=100
        Number of trees.
    max_depth, min_samples_split, min_samples_leaf, min_impurity_decrease, \
max_leaf_nodes
        Each tree's stopping rules, as in ``treelib.DecisionTreeRegressor`` (and
        scikit-learn): no limit on depth by default, so the trees grow until their leaves
        are pure.  ``min_samples_leaf`` counts rows, not their bootstrap weights.
    bootstrap : bool
        Draw a bootstrap sample of the rows for each tree (passed as integer sample
        weights); False: every tree sees every row.
    oob_score : bool, default=False
        Score every training row with the trees that did not draw it (``oob_score_``,
        from ``oob_prediction_`` or ``oob_decision_function_``; needs
        ``bootstrap=True``).  A row that every tree drew has no such prediction: it gets
        NaN and is left out of the score (scikit-learn predicts 0 for it and scores it).
    random_state : int, RandomState instance or None, default=None
        Seeds the trees' seeds, hence the bootstrap samples (the same as scikit-learn's
        for the same ``random_state``), the features searched and the random thresholds.
    max_samples : int, float or None, default=None
        Rows drawn per tree: all (None), that many (int), or that fraction (float).
    max_bins : int, default=255
        With ``splitter="hist"``: the most bins per feature, cut for each tree on its
        own rows.
    builder : None or "level_wise", "depth_first", "best_first", default=None
        Each tree's growth order: None the fastest the settings allow
        (``forest_builder``): whole levels at once for the exact and histogram
        searches, ``max_features`` included, depth first for the others, best first
        with ``max_leaf_nodes``.  With a feature subset, level-wise trees draw each
        node's features breadth first (``treelib.growth.level_features``), not in the
        per-node growers' depth-first order: other trees for the same seed, from the
        same distribution; "depth_first" grows the per-node ones.
    n_jobs : int or None, default=None
        Processes growing the trees, each tree by one (None: 1, -1: every core); the
        forest is the same for every value.

    Attributes
    ----------
    estimators_ : list of treelib.tree.Tree
        The fitted trees (``tree.predict(X)`` gives the leaf values of float32 rows).
    seeds_ : ndarray of int
        Each tree's seed (its bootstrap sample and its own random draws).
    builder_ : str
        The growth order used for every tree (``forest_builder``).
    bin_thresholds_ : list of lists of ndarray
        With ``splitter="hist"``: each tree's thresholds between the bins of each
        feature.
    max_features_ : int
        Features searched at each node.
    feature_importances_ : ndarray of shape (n_features,)
        Impurity-based importances averaged over the trees.
    n_features_in_ : int
        Number of features seen in ``fit``.
"""


def _parameters(criteria, splitter, max_features, bootstrap):
    return STRICTER + f"""
    Parameters
    ----------
    criterion : {{{", ".join(f'"{c}"' for c in criteria)}}}, default="{criteria[0]}"
        The impurity each tree's splits decrease (``treelib.criteria``).
    splitter : {{"cumsum", "hist", "random", "naive", "scan"}}, default="{splitter}"
        Each node's search (``treelib.finders``): "cumsum" the exact scan, "hist" cuts
        between bins, "random" one random threshold per feature.
    max_features : int, float, "sqrt", "log2" or None, default={max_features!r}
        Features searched at each node, drawn at random for every node (a float: that
        fraction of the features; None or 1.0: all of them).
    bootstrap : default={bootstrap}""" + _FOREST_PARAMETERS


class ForestRegressor(RegressorMixin, BaseForest):
    """A forest of regression trees: the trees' mean targets, averaged."""

    _criteria = REGRESSION_CRITERIA

    def fit(self, X, y, sample_weight=None):
        """Grow the trees on ``X`` and numeric targets ``y``, each row weighted by
        ``sample_weight`` (with ``bootstrap``: drawn with probability proportional to
        it, as scikit-learn does)."""
        X, y, weights = self._validate_fit(X, y, sample_weight, y_numeric=True)
        y = check_target_range(np.asarray(y, dtype=np.float64))
        if self.criterion == "poisson":
            check_poisson_targets(y)
        return self._grow(X, y[:, None], weights)

    def _set_oob_score(self, X, Y):
        self.oob_prediction_ = self._oob_values(X)[:, 0]
        seen = ~np.isnan(self.oob_prediction_)
        y = Y[seen, 0]
        residual = np.sum((y - self.oob_prediction_[seen]) ** 2)
        self.oob_score_ = float(1.0 - residual / np.sum((y - y.mean()) ** 2))

    def predict(self, X):
        """The trees' predictions averaged, (n,)."""
        return self._mean_value(X)[:, 0]


class ForestClassifier(ClassifierMixin, BaseForest):
    """A forest of classification trees: the trees' class proportions, averaged."""

    _criteria = CLASSIFICATION_CRITERIA

    def fit(self, X, y, sample_weight=None):
        """Grow the trees on ``X`` and labels ``y``, each row weighted by
        ``sample_weight`` (with ``bootstrap``: drawn with probability proportional to
        it, as scikit-learn does)."""
        X, y, weights = self._validate_fit(X, y, sample_weight)
        check_classification_targets(y)
        self.classes_, codes = np.unique(y, return_inverse=True)
        self.n_classes_ = len(self.classes_)
        return self._grow(X, one_hot(codes, self.n_classes_), weights)

    def _set_oob_score(self, X, Y):
        self.oob_decision_function_ = self._oob_values(X)
        seen = ~np.isnan(self.oob_decision_function_[:, 0])
        predicted = np.argmax(self.oob_decision_function_[seen], axis=1)
        self.oob_score_ = float(np.mean(predicted == np.argmax(Y[seen], axis=1)))

    def predict_proba(self, X):
        """Class probabilities: the trees' leaf class proportions, averaged."""
        return self._mean_value(X)

    def predict(self, X):
        """The class with the highest averaged probability (first on ties)."""
        proba = self.predict_proba(X)
        return self.classes_[np.argmax(proba, axis=1)]


class RandomForestRegressor(ForestRegressor):
    __doc__ = """A random forest for regression (Breiman, 2001): exact trees on bootstrap
    samples, every feature searched by default (scikit-learn's ``max_features=1.0``).
    """ + _parameters(REGRESSION_CRITERIA, "cumsum", 1.0, True)

    def __init__(self, n_estimators=100, *, criterion="squared_error", splitter="cumsum",
                 max_depth=None, min_samples_split=2, min_samples_leaf=1,
                 min_impurity_decrease=0.0, max_features=1.0, max_leaf_nodes=None,
                 bootstrap=True, oob_score=False, random_state=None, max_samples=None,
                 max_bins=255, builder=None, n_jobs=None):
        super().__init__(n_estimators, criterion=criterion, splitter=splitter,
                         max_depth=max_depth, min_samples_split=min_samples_split,
                         min_samples_leaf=min_samples_leaf,
                         min_impurity_decrease=min_impurity_decrease,
                         max_features=max_features, max_leaf_nodes=max_leaf_nodes,
                         bootstrap=bootstrap, oob_score=oob_score, random_state=random_state,
                         max_samples=max_samples, max_bins=max_bins, builder=builder,
                         n_jobs=n_jobs)


class RandomForestClassifier(ForestClassifier):
    __doc__ = """A random forest for classification (Breiman, 2001): exact trees on
    bootstrap samples, each node searching sqrt(n_features) random features.
    """ + _parameters(CLASSIFICATION_CRITERIA, "cumsum", "sqrt", True) + """
    classes_ : ndarray of shape (n_classes,)
        The class labels, sorted.
"""

    def __init__(self, n_estimators=100, *, criterion="gini", splitter="cumsum",
                 max_depth=None, min_samples_split=2, min_samples_leaf=1,
                 min_impurity_decrease=0.0, max_features="sqrt", max_leaf_nodes=None,
                 bootstrap=True, oob_score=False, random_state=None, max_samples=None,
                 max_bins=255, builder=None, n_jobs=None):
        super().__init__(n_estimators, criterion=criterion, splitter=splitter,
                         max_depth=max_depth, min_samples_split=min_samples_split,
                         min_samples_leaf=min_samples_leaf,
                         min_impurity_decrease=min_impurity_decrease,
                         max_features=max_features, max_leaf_nodes=max_leaf_nodes,
                         bootstrap=bootstrap, oob_score=oob_score, random_state=random_state,
                         max_samples=max_samples, max_bins=max_bins, builder=builder,
                         n_jobs=n_jobs)


class ExtraTreesRegressor(ForestRegressor):
    __doc__ = """Extremely randomized trees for regression (Geurts et al., 2006): one
    random threshold per feature at every node, every row, every feature by default.
    """ + _parameters(REGRESSION_CRITERIA, "random", 1.0, False)

    def __init__(self, n_estimators=100, *, criterion="squared_error", splitter="random",
                 max_depth=None, min_samples_split=2, min_samples_leaf=1,
                 min_impurity_decrease=0.0, max_features=1.0, max_leaf_nodes=None,
                 bootstrap=False, oob_score=False, random_state=None, max_samples=None,
                 max_bins=255, builder=None, n_jobs=None):
        super().__init__(n_estimators, criterion=criterion, splitter=splitter,
                         max_depth=max_depth, min_samples_split=min_samples_split,
                         min_samples_leaf=min_samples_leaf,
                         min_impurity_decrease=min_impurity_decrease,
                         max_features=max_features, max_leaf_nodes=max_leaf_nodes,
                         bootstrap=bootstrap, oob_score=oob_score, random_state=random_state,
                         max_samples=max_samples, max_bins=max_bins, builder=builder,
                         n_jobs=n_jobs)


class ExtraTreesClassifier(ForestClassifier):
    __doc__ = """Extremely randomized trees for classification (Geurts et al., 2006): one
    random threshold per feature at every node, sqrt(n_features) random features.
    """ + _parameters(CLASSIFICATION_CRITERIA, "random", "sqrt", False) + """
    classes_ : ndarray of shape (n_classes,)
        The class labels, sorted.
"""

    def __init__(self, n_estimators=100, *, criterion="gini", splitter="random",
                 max_depth=None, min_samples_split=2, min_samples_leaf=1,
                 min_impurity_decrease=0.0, max_features="sqrt", max_leaf_nodes=None,
                 bootstrap=False, oob_score=False, random_state=None, max_samples=None,
                 max_bins=255, builder=None, n_jobs=None):
        super().__init__(n_estimators, criterion=criterion, splitter=splitter,
                         max_depth=max_depth, min_samples_split=min_samples_split,
                         min_samples_leaf=min_samples_leaf,
                         min_impurity_decrease=min_impurity_decrease,
                         max_features=max_features, max_leaf_nodes=max_leaf_nodes,
                         bootstrap=bootstrap, oob_score=oob_score, random_state=random_state,
                         max_samples=max_samples, max_bins=max_bins, builder=builder,
                         n_jobs=n_jobs)
