"""treelib: how decision trees find their splits, in short, readable numpy.

Layers, each importing only the ones below it (``make test`` checks this with
import-linter; the algorithms import numpy only):

- book tooling: ``treelib.bench`` (the benchmarks behind the book's tables, one module
  each) and ``treelib.plotting``;
- ``treelib.estimators``  scikit-learn-compatible trees and random decision trees;
- ``treelib.growth``      growth orders: which node is split next, when to stop;
- ``treelib.finders``     split finders: the best split of one node (exact, histogram,
  random), chosen by name;
- ``treelib.tree``, ``treelib.binning``   the fitted tree as flat arrays; features cut
  into bins once;
- ``treelib.split``       a split, its threshold, the one tie rule;
- ``treelib.criteria``    impurities and gains (each formula once);
- ``treelib.segments``, ``treelib.counters``, ``treelib.validation``,
  ``treelib.datasets``: consecutive segments, explicit counters, input checks, data.
"""

from treelib.finders import Finder, best_split
from treelib.split import Split
from treelib.tree import Tree

__version__ = "0.2.0"

ESTIMATORS = ("DecisionTreeRegressor", "DecisionTreeClassifier",
              "RandomDecisionTreeClassifier", "RandomDecisionTreeRegressor")
ESTIMATORS += ("HistGradientBoostingRegressor", "HistGradientBoostingClassifier")

__all__ = ["Finder", "Split", "Tree", "best_split", *ESTIMATORS]


def __getattr__(name):
    # The estimators need scikit-learn; import them only when asked for, so that the
    # split finders stay usable with numpy alone.
    if name in ESTIMATORS:
        from treelib import estimators

        return getattr(estimators, name)
    raise AttributeError(f"module 'treelib' has no attribute {name!r}")
