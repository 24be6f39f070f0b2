"""treelib: how decision trees find their splits, in short, readable numpy.

Layers, each importing only the ones below it (``make test`` checks this with
import-linter; the algorithms import numpy only):

- book tooling: ``treelib.bench`` (the benchmarks behind the book's tables, one module
  each) and ``treelib.plotting``;
- ``treelib.distributed`` fits on a Dask cluster from row partitions (the only module
  that imports dask);
- ``treelib.estimators``  scikit-learn-compatible trees, forests, oblivious trees, random
  decision trees and gradient boosting;
- ``treelib.growth``      growth orders: which node is split next, when to stop (depth
  first, best first, level-wise exact and histogram, random decision trees, oblivious
  trees, boosting);
- ``treelib.pruning``     minimal cost-complexity pruning of a grown tree (beside
  growth): the weakest-link path and a tree pruned for an alpha;
- ``treelib.finders``     split finders: the best split of one node (exact, histogram,
  random, median, categorical), chosen by name;
- ``treelib.tree``, ``treelib.binning``   the fitted tree as flat arrays; features cut
  into bins once;
- ``treelib.split``       a split, its threshold, the one tie rule;
- ``treelib.criteria``, ``treelib.gains``, ``treelib.losses``   impurities, gains and
  their rounding bounds (each formula once), boosting losses;
- ``treelib.sketch``, ``treelib.communication``: a mergeable quantile summary; the
  bytes and time of a distributed level;
- ``treelib.fixed_point``, ``treelib.segments``, ``treelib.counters``,
  ``treelib.validation``, ``treelib.datasets``: exact order-free sums, consecutive
  segments, explicit counters, input checks, data.
"""

from treelib.finders import Finder, best_split
from treelib.split import Split
from treelib.tree import Tree

__version__ = "0.3.0"

ESTIMATORS = ("DecisionTreeRegressor", "DecisionTreeClassifier",
              "RandomDecisionTreeClassifier", "RandomDecisionTreeRegressor",
              "RandomForestRegressor", "RandomForestClassifier", "ExtraTreesRegressor",
              "ExtraTreesClassifier", "ObliviousTreeRegressor", "ObliviousTreeClassifier")
ESTIMATORS += ("HistGradientBoostingRegressor", "HistGradientBoostingClassifier")

#: The public modules: a chapter imports only the names in one of these modules'
#: ``__all__`` (or, for a module without one, the names it defines without a leading
#: underscore), or the modules themselves; the others (``treelib.finders.exact``,
#: ``treelib.growth.boosting_histograms``, ...) are reached through their package's
#: ``__all__``.  ``tests/test_public_api.py`` checks it and keeps the names stable.
PUBLIC_MODULES = ("treelib", "treelib.finders", "treelib.growth", "treelib.estimators",
                  "treelib.split", "treelib.tree", "treelib.binning", "treelib.criteria",
                  "treelib.gains", "treelib.losses", "treelib.sketch", "treelib.communication",
                  "treelib.fixed_point", "treelib.segments", "treelib.counters",
                  "treelib.validation", "treelib.datasets", "treelib.plotting", "treelib.bench",
                  "treelib.distributed", "treelib.options", "treelib.pruning")

__all__ = ["Finder", "PUBLIC_MODULES", "Split", "Tree", "best_split", *ESTIMATORS]


def __getattr__(name):
    # The estimators need scikit-learn; import them only when asked for, so that the
    # split finders stay usable with numpy alone.
    if name in ESTIMATORS:
        from treelib import estimators

        return getattr(estimators, name)
    raise AttributeError(f"module 'treelib' has no attribute {name!r}")
