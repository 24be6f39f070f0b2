"""``histogram_sums="fixed_point"``: the estimators fitted from fixed-point sums, on rows anywhere.

``DecisionTreeRegressor(splitter="hist")`` and the HistGradientBoosting estimators take
``histogram_sums="float"`` (their default: float histograms, as before) or
``"fixed_point"``: fixed-point sums that do not depend on the order of the additions
(``treelib.growth.fixed_point_tree``, ``treelib.growth.fixed_point_boosting``), so that a
fit on rows split into blocks, on the workers of a cluster (``treelib.distributed.fit``), is
the local fit bit for bit.  The fits here take a row provider
(``treelib.growth.row_parts``): the local ``fit`` passes its one block of rows,
``treelib.distributed`` the cluster's blocks. The bin thresholds come from every block's
distinct values and their counts, merged (``treelib.binning.thresholds_from_counts``: the
local binning, bit for bit).

Fixed-point sums cover squared error (trees and boosting) and binary log-loss; which options
they combine with is ``treelib.options``' table (a ValueError names what does not).
"""

import numpy as np

from treelib.binning import thresholds_from_counts
from treelib.counters import GrowthCounter
from treelib.estimators.params import leaf_size, stopping_rules
from treelib.growth.boosting_grower import BoostingRules, on_features
from treelib.growth.fixed_point_boosting import boost_fixed_point
from treelib.growth.fixed_point_tree import grow_fixed_point_tree
from treelib.options import check


def merged_thresholds(parts, max_bins):
    """Every feature's bin thresholds from the blocks' merged distinct values and counts
    (ValueError if a value is missing: exact sums take no NaN)."""
    summary = parts.reduce("value_counts")
    check(histogram_sums="fixed_point", missing=summary.missing)
    return [thresholds_from_counts(v, c, max_bins)
            for v, c in zip(summary.values, summary.counts)]


def set_inputs(estimator, n_features):
    """The input attributes a fit on arrays sets (no categorical feature)."""
    estimator.n_features_in_ = n_features
    estimator.is_categorical_ = np.zeros(n_features, dtype=bool)
    estimator.categories_ = [None] * n_features


def fit_fixed_point_tree(tree, parts, n_features):
    """Fit the ``DecisionTreeRegressor`` ``tree`` on the rows of ``parts`` from exact
    sums (its options checked: ``treelib.estimators.params.tree_settings``); sets ``tree_``,
    ``bin_thresholds_``, ``feature_importances_``, ``max_features_`` and
    ``growth_counter_``."""
    n = parts.n_rows
    rules = stopping_rules(tree, n)
    msl = leaf_size(tree, n)
    thresholds = merged_thresholds(parts, tree.max_bins)
    parts.update("bin", thresholds)
    tree.growth_counter_ = GrowthCounter()
    tree.tree_ = grow_fixed_point_tree(parts, thresholds, rules, msl, tree.growth_counter_)
    tree.bin_thresholds_ = thresholds
    tree.max_features_ = n_features
    tree.feature_importances_ = tree.tree_.feature_importances(n_features)
    return tree


def fit_fixed_point_boosting(model, parts, loss):
    """Boost ``model`` (a HistGradientBoosting estimator whose parameters are checked) on
    the rows of ``parts`` from fixed-point sums; sets the fitted attributes a float fit sets."""
    thresholds = merged_thresholds(parts, model.max_bins)
    parts.update("bin", thresholds)
    rules = BoostingRules(max_leaf_nodes=model.max_leaf_nodes, max_depth=model.max_depth,
                          min_samples_leaf=model.min_samples_leaf,
                          l2_regularization=float(model.l2_regularization))
    model.growth_counter_ = GrowthCounter()
    baseline, trees = boost_fixed_point(parts, max(len(t) for t in thresholds) + 1, loss,
                                  max_iter=model.max_iter, learning_rate=model.learning_rate,
                                  rules=rules, counter=model.growth_counter_)
    model.bin_thresholds_ = thresholds
    model.trees_ = [[on_features(tree, thresholds) for tree in row] for row in trees]
    model.baseline_ = baseline
    model.step_sizes_ = np.full((len(trees), 1), float(model.learning_rate))
    model.train_score_ = model.validation_score_ = np.zeros(0)
    model.n_iter_ = len(trees)
    model.n_trees_per_iteration_ = 1
    return model
