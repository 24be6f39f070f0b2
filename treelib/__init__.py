"""treelib: how decision trees find their splits, in short, readable numpy.

Layers, each knowing only the one below it:

- ``treelib.datasets``   data shipped with the book (no network);
- ``treelib.criteria``   impurities (squared error, Gini, entropy) and gains;
- ``treelib.splits``     split finders: the best split of one node, three ways;
- ``treelib.binning``    each feature cut once into at most ``max_bins`` bins;
- ``treelib.tree``       the fitted tree as flat arrays; vectorized prediction;
- ``treelib.builders``   growth orders: which node is split next, when to stop;
- ``treelib.levelwise``  the level-wise builder, one vectorized search per level;
- ``treelib.histogram``  histogram split finders on bin codes, level-wise growth with
                         the subtraction trick;
- ``treelib.random_splits``  one random threshold per feature (extremely randomized);
- ``treelib.random_trees``   random decision trees: random feature and threshold, no
                             search at all;
- ``treelib.estimators`` scikit-learn-compatible estimators (imports scikit-learn);
- ``treelib.bench``      benchmarks behind the book's timing tables.

The algorithms import numpy only.
"""

from treelib.splits import SPLIT_METHODS, Split, best_split
from treelib.tree import Tree

__version__ = "0.1.0"

ESTIMATORS = ("DecisionTreeRegressor", "DecisionTreeClassifier",
              "RandomDecisionTreeClassifier", "RandomDecisionTreeRegressor")

__all__ = ["SPLIT_METHODS", "Split", "best_split", "Tree", *ESTIMATORS]


def __getattr__(name):
    # The estimators need scikit-learn; import them only when asked for, so that the
    # split finders stay usable with numpy alone.
    if name in ESTIMATORS:
        from treelib import estimators

        return getattr(estimators, name)
    raise AttributeError(f"module 'treelib' has no attribute {name!r}")
