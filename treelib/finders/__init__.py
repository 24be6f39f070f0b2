"""Split finders: the best split of one node, chosen by name.

Every finder answers one question, *which split of this node is best*, through one
interface: a ``Finder`` is called on a node's data and statistics and returns a
``treelib.split.Split`` or None.  The growers (``treelib.growth``) call it and never
compute a gain themselves.

======== ============================================================= ================
name     how a node is searched                                         cost per node
======== ============================================================= ================
naive    every cut between two values, children recomputed from scratch O(f n^2 k)
scan     every cut, running sums in a Python loop (seed article 000)    O(f n) steps
cumsum   every cut, running sums with one ``np.cumsum``                 O(f n k) numpy
hist     every cut between bins of features binned once at the root     O(f n k + f B k)
random   one uniformly random threshold per feature (extra trees)       O(f n k)
======== ============================================================= ================

(plus O(f n log n) to sort the node for the three exact finders.)  Random decision trees
(Fan et al., 2003) search nothing, so they are no finder: a random feature and a random
threshold per node, drawn a level at a time by ``treelib.growth.grow_random_tree``.
"""

import dataclasses

import numpy as np

from treelib.binning import bin_features, check_max_bins
from treelib.criteria import as_columns, check_criterion, target_statistics
from treelib.finders.categorical import Categories
from treelib.finders.categorical_bias import (
    ENCODINGS,
    best_numeric_gain,
    best_partition_gain,
    categorical_selection_frequencies,
    lightgbm_order,
    ordered_target_statistics,
)
from treelib.finders.exact import (
    NODE_VALUES,
    SCORERS,
    candidate_cuts,
    cumsum_gains,
    exact_split,
    feature_groups,
    feature_scores,
    threshold_gains,
)
from treelib.finders.histogram import histogram_gains, histogram_split, node_histograms
from treelib.finders.median import median_gains
from treelib.finders.monotonic import UNBOUNDED, Bounds, Constraint
from treelib.finders.random import random_split
from treelib.finders.unbiased import UnbiasedSplit, selection_frequencies, unbiased_split
from treelib.options import check
from treelib.split import MISSING_BIN
from treelib.validation import check_array, check_min_samples_leaf, check_sample_weight

#: Every finder, by name (the estimators' ``splitter``).
SPLITTERS = ("naive", "scan", "cumsum", "hist", "random")


def check_splitter(splitter):
    """Raise a ValueError naming the valid choices if ``splitter`` is not a finder."""
    if not isinstance(splitter, str) or splitter not in SPLITTERS:
        raise ValueError(f"unknown splitter {splitter!r}; choose one of {list(SPLITTERS)}")
    return splitter


def feature_subset(max_features, n_features):
    """``max_features`` when it is fewer than ``n_features`` (each searched node then
    draws that many features of its own), else None (every node searches every feature):
    the one place where a number of features to search is compared with the features
    there are.  O(1)."""
    return max_features if max_features is not None and max_features < n_features else None


class Finder:
    """The search of one node, configured once for a whole tree.

    ``finder(data, Y)`` returns the best ``Split`` of the node whose rows are ``data``
    (its features, or their bin codes for ``"hist"``) and ``Y`` (its statistics), or
    None if the node has no candidate cut.

    Parameters
    ----------
    splitter : {"naive", "scan", "cumsum", "hist", "random"}
        How the node is searched (see the module's table).
    criterion : {"squared_error", "gini", "entropy"}
        The impurity whose decrease is maximised.
    min_samples_leaf : int, default=1
        Each child of a split keeps at least this many samples.
    max_features : int or None, default=None
        With an int below the number of features, each node looks at the features in a
        random order and searches the first ``max_features`` that are not constant in
        it, as scikit-learn does; ties still go to the lowest feature index.
    rng : numpy.random.Generator or None
        Draws the features of ``max_features`` and the thresholds of ``"random"``.
    max_bins : int, default=255
        For ``"hist"``: the most bins per feature (``prepare`` bins the features).
    categories : treelib.finders.categorical.Categories or None
        Which features are categorical (their values are category codes) and how they
        are split; None: every feature is numeric.
    """

    def __init__(self, splitter, criterion, *, min_samples_leaf=1, max_features=None,
                 rng=None, max_bins=255, categories=None):
        if splitter == "random_tree":
            raise ValueError("random decision trees search nothing: grow them with "
                             "treelib.growth.grow_random_tree and a RandomTreeRule")
        self.splitter = check_splitter(splitter)
        self.criterion = check_criterion(criterion)
        check(splitter=splitter, criterion=criterion, categorical=categories is not None)
        self.min_samples_leaf = check_min_samples_leaf(min_samples_leaf)
        self.max_features = max_features
        self.max_bins = check_max_bins(max_bins)
        if rng is None and (splitter == "random" or max_features is not None):
            raise ValueError(f"splitter={splitter!r} with max_features={max_features!r} "
                             "draws at random: give rng, a numpy.random.Generator")
        self.rng = rng
        self.categories = categories
        self.bin_thresholds, self.missing = None, False
        self.monotonic_cst = None
        # what ``__call__`` knows of the node it searches, for ``search_features``:
        # (Y, weights, NodeStatistics or None, Constraint or None), or None
        self.given = None

    def constrain(self, monotonic_cst):
        """Search under the monotonic constraints ``monotonic_cst`` (f,) of -1, 0, +1
        (``treelib.finders.monotonic``; None: none); returns the finder.  The growers then
        pass each node's ``Bounds`` to ``__call__``.  The random splitter refuses them."""
        if monotonic_cst is not None and self.splitter == "random":
            raise ValueError("splitter='random' does not take monotonic_cst: its one drawn "
                             "threshold per feature is not scikit-learn's draw, so the "
                             "constrained trees could not agree; use an exact splitter or "
                             "'hist'")
        self.monotonic_cst = None if monotonic_cst is None else np.asarray(monotonic_cst)
        return self

    def prepare(self, X):
        """The data the growers hand to this finder: ``X`` itself, or for ``"hist"`` its
        bin codes (the bins are cut here, once, and kept in ``bin_thresholds``; a missing
        value gets ``MISSING_BIN``)."""
        if self.splitter != "hist":
            return X
        numeric = (np.ones(X.shape[1], bool) if self.categories is None
                   else self.categories.counts < 0)
        codes = np.empty(X.shape, dtype=np.uint8)
        self.bin_thresholds = [np.zeros(0)] * X.shape[1]
        if numeric.all():                        # no copy of X (X[:, numeric] is one)
            codes, thresholds = bin_features(X, self.max_bins)
            self.bin_thresholds = list(thresholds)
        elif numeric.any():
            codes[:, numeric], thresholds = bin_features(X[:, numeric], self.max_bins)
            for j, cuts in zip(np.flatnonzero(numeric), thresholds):
                self.bin_thresholds[j] = cuts
        for j in np.flatnonzero(~numeric):       # a category's code is its bin
            codes[:, j] = np.where(np.isnan(X[:, j]), MISSING_BIN, np.nan_to_num(X[:, j]))
        self.missing = bool((codes == MISSING_BIN).any())
        return codes

    @property
    def n_bins(self):
        """Width of the histograms: the bins of the widest binned feature, or all 256
        codes when the training data have missing values (``"hist"`` after
        ``prepare``)."""
        if self.bin_thresholds is None:
            raise ValueError("the bins are cut by prepare(X): call it before asking for "
                             "n_bins")
        if self.missing:
            return MISSING_BIN + 1
        widest = max(len(t) for t in self.bin_thresholds) + 1
        if self.categories is not None:
            widest = max(widest, int(self.categories.counts.max()))
        return max(widest, 1)

    def search(self, data, Y, weights=None):
        """Best split of the node over all the columns of ``data`` (a histogram split's
        threshold is then its bin; ``__call__`` writes the threshold on X)."""
        return self.search_features(data, Y, weights, self.categories)

    def search_features(self, data, Y, weights, categories):
        """``search`` with the categorical features described by ``categories``.  Called
        by ``__call__`` on a node's rows, it also uses what the call knows of that node:
        its statistics (not computed again) and its monotonic ``Constraint``; a subclass
        that overrides this method (chapter 4) keeps this four-argument signature."""
        given = self.given
        node, constraint = (given[2:] if given is not None and given[0] is Y
                            and given[1] is weights else (None, None))
        if self.splitter in SCORERS:
            return exact_split(data, Y, self.criterion, self.min_samples_leaf, self.splitter,
                               weights, categories, constraint=constraint, node=node)
        if self.splitter == "hist":
            return histogram_split(data, Y, self.n_bins, self.criterion,
                                   self.min_samples_leaf, weights=weights,
                                   categories=categories, constraint=constraint, node=node)
        return random_split(data, Y, self.rng, self.criterion, self.min_samples_leaf,
                            weights)

    def __call__(self, data, Y, weights=None, bounds=UNBOUNDED, node=None):
        """The best ``Split`` of the node (``bounds``: its ``Bounds`` under monotonic
        constraints; ``node``: its ``treelib.criteria.NodeStatistics`` if the grower
        computed them, not computed again), or None; the costs of ``search``."""
        n_features = data.shape[1]
        chosen, categories = slice(None), self.categories
        if feature_subset(self.max_features, n_features) is not None:
            # (fmax/fmin skip NaN as nanmax/nanmin do, without their copies)
            varies = np.fmax.reduce(data, axis=0) > np.fmin.reduce(data, axis=0)
            visit = self.rng.permutation(n_features)
            chosen = np.sort(visit[varies[visit]][: self.max_features])
            if len(chosen) == 0:
                return None
            data = data[:, chosen]
            if categories is not None:
                categories = dataclasses.replace(categories, counts=categories.counts[chosen])
        constraint = (None if self.monotonic_cst is None
                      else Constraint(self.monotonic_cst[chosen], Bounds(*bounds)))
        self.given = (Y, weights, node, constraint)
        try:
            split = self.search_features(data, Y, weights, categories)
        finally:
            self.given = None
        if split is None:
            return None
        feature = split.feature if isinstance(chosen, slice) else int(chosen[split.feature])
        if split.bin is None and feature == split.feature:
            return split
        threshold = split.threshold
        if split.bin is not None:
            cuts = self.bin_thresholds[feature]
            threshold = float(cuts[split.bin]) if split.bin < len(cuts) else np.inf
        return dataclasses.replace(split, feature=feature, threshold=threshold)


def best_split(X, y, splitter="cumsum", *, criterion="squared_error", min_samples_leaf=1,
               sample_weight=None, check_input=True):
    """Best split of the node holding samples ``X``, targets ``y``.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Numeric features, finite or (with ``splitter="cumsum"``) NaN for a missing value.
    y : array-like of shape (n_samples,)
        Finite numeric targets (squared error, Poisson, absolute error) or class labels
        (Gini, entropy).
    splitter : {"naive", "scan", "cumsum"}, default="cumsum"
        How the gains of the candidate cuts are computed (``treelib.finders.exact``);
        all three return the same split.
    criterion : {"squared_error", "gini", "entropy"}, default="squared_error"
        The impurity whose decrease is maximised.
    min_samples_leaf : int, default=1
        Each child must receive at least this many samples.
    sample_weight : array-like of shape (n_samples,), optional
        Non-negative weights: a sample of weight 2 counts as two (for the impurity, not
        for ``min_samples_leaf``).
    check_input : bool, default=True
        Validate ``X`` and ``y``.  With False, ``y`` must already be the statistics
        ``Y`` (n, k) of ``treelib.criteria.target_statistics``.

    Returns
    -------
    Split or None
        None when no split exists: fewer than ``2 * min_samples_leaf`` samples, or every
        feature constant in the node (nothing to cut between).

    Notes
    -----
    Cost per node, n samples, f features and k classes (k = 1 for squared error):
    O(f n log n) to sort, plus O(f n^2 k) for ``"naive"``, O(f n) Python steps for
    ``"scan"`` or O(f n k) numpy work for ``"cumsum"``.  The threshold is the midpoint
    of the two neighbouring values; ties are broken by ``treelib.split.best_cut``.
    """
    if splitter not in SCORERS:
        raise ValueError(f"best_split searches exactly: splitter must be one of "
                         f"{sorted(SCORERS)}; got {splitter!r}")
    check_criterion(criterion)
    min_samples_leaf = check_min_samples_leaf(min_samples_leaf)
    if check_input:
        X = check_array(X, name="X", ndim=2, allow_nan=splitter == "cumsum")
        Y = target_statistics(y, criterion)
        if len(X) != len(Y):
            raise ValueError(f"X and y have different numbers of samples: {len(X)} and "
                             f"{len(Y)}")
        if sample_weight is not None:
            sample_weight = check_sample_weight(sample_weight, len(Y))
    else:
        Y = as_columns(y)
    return exact_split(X, Y, criterion, min_samples_leaf, splitter, sample_weight)


__all__ = ["Categories", "Finder", "NODE_VALUES", "SCORERS", "SPLITTERS", "best_split",
           "candidate_cuts", "check_splitter", "cumsum_gains", "exact_split",
           "feature_groups", "feature_scores", "histogram_gains", "histogram_split",
           "median_gains", "node_histograms", "random_split", "threshold_gains"]
__all__ += ["UnbiasedSplit", "selection_frequencies", "unbiased_split"]
__all__ += ["ENCODINGS", "best_numeric_gain", "best_partition_gain",
            "categorical_selection_frequencies", "lightgbm_order", "ordered_target_statistics"]
