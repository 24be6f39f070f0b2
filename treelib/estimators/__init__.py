"""scikit-learn-compatible estimators (they import scikit-learn; the algorithms do not)."""

from treelib.estimators.boosting import (
    HistGradientBoostingClassifier,
    HistGradientBoostingRegressor,
)
from treelib.estimators.forests import (
    ExtraTreesClassifier,
    ExtraTreesRegressor,
    RandomForestClassifier,
    RandomForestRegressor,
)
from treelib.estimators.importance import PermutationImportance, permutation_importance
from treelib.estimators.oblivious import ObliviousTreeClassifier, ObliviousTreeRegressor
from treelib.estimators.random_trees import (
                                             RandomDecisionTreeClassifier,
                                             RandomDecisionTreeRegressor,
)
from treelib.estimators.trees import DecisionTreeClassifier, DecisionTreeRegressor

__all__ = ["DecisionTreeClassifier", "DecisionTreeRegressor", "RandomDecisionTreeClassifier",
           "RandomDecisionTreeRegressor", "RandomForestRegressor", "RandomForestClassifier",
           "ExtraTreesRegressor", "ExtraTreesClassifier", "ObliviousTreeRegressor",
           "ObliviousTreeClassifier"]
__all__ += ["HistGradientBoostingClassifier", "HistGradientBoostingRegressor"]
__all__ += ["PermutationImportance", "permutation_importance"]
