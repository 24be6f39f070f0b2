"""scikit-learn-compatible estimators (they import scikit-learn; the algorithms do not)."""

from treelib.estimators.boosting import (
                                         HistGradientBoostingClassifier,
                                         HistGradientBoostingRegressor,
)
from treelib.estimators.random_trees import (
                                             RandomDecisionTreeClassifier,
                                             RandomDecisionTreeRegressor,
)
from treelib.estimators.trees import DecisionTreeClassifier, DecisionTreeRegressor

__all__ = ["DecisionTreeClassifier", "DecisionTreeRegressor", "RandomDecisionTreeClassifier",
           "RandomDecisionTreeRegressor"]
__all__ += ["HistGradientBoostingClassifier", "HistGradientBoostingRegressor"]
