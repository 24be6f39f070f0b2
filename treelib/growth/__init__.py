"""Growth orders: which node is split next, and when to stop.

A grower never computes a gain: it asks a ``treelib.finders.Finder`` for the best split of
a node (or, level-wise, does what that finder does for a whole level at once) and
decides where to go next.  Every grower has one signature::

    tree = grow(data, Y, finder, rules, counter=None, weights=None)

(the level-wise growers also take ``level``, a ``LevelOptions``, below).

``data`` (n, f) is what ``finder.prepare(X)`` returned (the features, or their bin codes
for histogram splits), ``Y`` (n, k) the targets or one-hot classes
(``treelib.criteria.target_statistics``), ``finder`` the search of one node (it carries the
criterion and ``min_samples_leaf``), ``rules`` the ``StoppingRules``, ``counter`` an
optional ``treelib.counters.GrowthCounter`` that records the work done, and ``weights``
(n,) optional sample weights.  The result is a ``treelib.tree.Tree`` whose nodes hold the
criterion's prediction (the weighted mean target, or the class proportions; the median for
absolute error).

How a level is searched belongs to growth, not to the finder (``LevelOptions``): ``n_jobs``
threads share a level-wise search (a group of features each, ``treelib.growth.threads``)
and ``subtract`` turns the histogram grower's subtraction trick on or off; neither changes
the tree.  The per-node growers search with one thread and count every histogram.

============ ============================================== ===========================
name         order                                          finders
============ ============================================== ===========================
recursive    depth first, by recursion (the textbook's)     any
depth_first  depth first, with a stack (scikit-learn's)     any
best_first   the most useful split first, from a heap       any (needed for
                                                            ``max_leaf_nodes``)
level_wise   all the nodes of a level at once, vectorized   "cumsum", "hist" or
                                                            "random"
============ ============================================== ===========================

All of them grow the same tree from the same finder when the stopping rules do not
depend on the order (no ``max_leaf_nodes``); they number its nodes differently.  What is
drawn at random is drawn in the order of growth: level-wise, each searched node draws
its features (``max_features``) and its random thresholds (``"random"``) breadth first,
under the contracts of ``treelib.growth.level_features`` and ``level_random``: the same
distribution of trees as the per-node growers', other draws for the same seed.

Random decision trees search nothing, so they take no finder: ``grow_random_tree(X, Y,
RandomTreeRule(criterion, rng=..., min_samples_leaf=...), rules)`` draws a random feature
and threshold for every node of a level at once (``treelib.growth.random_trees``).

Greedy growth chooses one split at a time; ``grow_optimal_depth2(codes, Y, finder)``
finds the depth-2 tree of least squared error over the bins exactly, every root cut with
both children's best cuts at once, from two-dimensional cumulative sums of each feature
pair (``treelib.growth.optimal_depth2``, O(f**2 (n + B**2))).
"""

from dataclasses import dataclass

from treelib.finders import feature_subset
from treelib.growth.best_first import grow_best_first
from treelib.growth.boosting import goss_sample
from treelib.growth.boosting_grower import BoostingRules, grow_boosting_tree
from treelib.growth.boosting_histograms import BinnedData
from treelib.growth.depth_first import grow_depth_first, grow_recursive, recursion_depth_limit
from treelib.growth.level_partition import partition, partition_plan
from treelib.growth.level_random import grow_level_wise_random
from treelib.growth.level_wise import grow_level_wise_exact
from treelib.growth.level_wise_hist import grow_level_wise_hist
from treelib.growth.optimal_depth2 import grow_optimal_depth2
from treelib.growth.random_trees import RandomTreeRule, grow_random_tree
from treelib.growth.rules import StoppingRules, without_zero_weights
from treelib.growth.threads import check_n_jobs, feature_chunks
from treelib.options import check


@dataclass(frozen=True)
class LevelOptions:
    """How a level-wise grower searches a level; neither option changes the tree.

    ``n_jobs``: threads that share each level's search, a group of features each (None:
    1, -1: every core); ``subtract``: the histogram grower gets the larger of two
    siblings' histograms as their parent's minus the smaller one's (the subtraction
    trick; False counts every histogram)."""

    n_jobs: int | None = 1
    subtract: bool = True


def grow_level_wise(data, Y, finder, rules, counter=None, weights=None, level=None):
    """Grow all the nodes of a level at once: the exact scan of ``finder.splitter ==
    "cumsum"`` (``treelib.growth.level_wise``), histograms with the subtraction trick for
    ``"hist"`` (``treelib.growth.level_wise_hist``), one random threshold per feature for
    ``"random"`` (extra trees, ``treelib.growth.level_random``: one thread), every feature
    of every node or each node's ``max_features`` drawn breadth first
    (``treelib.growth.level_features``), searched as ``level`` (``LevelOptions``) says.
    Costs: see each grower."""
    level = level or LevelOptions()
    n_jobs = check_n_jobs(level.n_jobs)
    check(builder="level_wise", splitter=finder.splitter, criterion=finder.criterion,
          max_features=feature_subset(finder.max_features, data.shape[1]),
          max_leaf_nodes=rules.max_leaf_nodes, categorical=finder.categories is not None)
    if finder.splitter == "cumsum":
        return grow_level_wise_exact(data, Y, finder, rules, counter, weights, n_jobs=n_jobs)
    if finder.splitter == "random":
        return grow_level_wise_random(data, Y, finder, rules, counter, weights)
    return grow_level_wise_hist(data, Y, finder, rules, counter, weights, n_jobs=n_jobs,
                                subtract=bool(level.subtract))


def _per_node(grower):
    def grow(data, Y, finder, rules, counter=None, weights=None):
        check(builder=grower.__name__.removeprefix("grow_"),
              max_leaf_nodes=rules.max_leaf_nodes)
        return grower(data, Y, finder, rules, counter, weights)

    grow.__name__, grow.__doc__ = grower.__name__, grower.__doc__
    return grow


#: Every growth order, by name (the estimators' ``builder``).
GROWERS = {"recursive": _per_node(grow_recursive),
           "depth_first": _per_node(grow_depth_first),
           "best_first": grow_best_first,
           "level_wise": grow_level_wise}


def check_builder(builder):
    """Raise a ValueError naming the valid choices if ``builder`` is not a growth order."""
    if not isinstance(builder, str) or builder not in GROWERS:
        raise ValueError(f"unknown builder {builder!r}; choose one of {list(GROWERS)}")
    return builder


def grow(builder, data, Y, finder, rules, counter=None, weights=None, level=None):
    """Grow a tree with the growth order named ``builder`` (a key of ``GROWERS``).

    ``level`` (``LevelOptions``: threads, the subtraction trick) is for the level-wise
    growers; the other orders search with one thread, and refuse ``n_jobs`` above 1.

    Samples of zero weight take no part at all, as in scikit-learn (they would otherwise
    still place thresholds and count towards ``min_samples_leaf``): a weight of 0 is the
    same as leaving the sample out.
    """
    grower = GROWERS[check_builder(builder)]
    data, Y, weights = without_zero_weights(data, Y, weights)
    if builder == "level_wise":
        return grower(data, Y, finder, rules, counter, weights, level)
    if level is not None:
        check(builder=builder, n_jobs=check_n_jobs(level.n_jobs))
    return grower(data, Y, finder, rules, counter, weights)


__all__ = ["GROWERS", "LevelOptions", "RandomTreeRule", "StoppingRules", "check_builder", "grow",
           "grow_best_first", "grow_depth_first", "grow_level_wise", "grow_random_tree",
           "grow_recursive"]
__all__ += ["BinnedData", "BoostingRules", "feature_chunks", "goss_sample",
            "grow_boosting_tree", "partition", "partition_plan", "recursion_depth_limit"]
__all__ += ["grow_optimal_depth2"]
