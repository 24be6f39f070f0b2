"""scikit-learn's own estimator checks, run on treelib's estimators."""

from sklearn.utils.estimator_checks import parametrize_with_checks

from treelib import DecisionTreeClassifier, DecisionTreeRegressor

ESTIMATORS = [
    DecisionTreeRegressor(),
    DecisionTreeClassifier(),
    DecisionTreeClassifier(criterion="entropy", builder="best", max_leaf_nodes=20),
    DecisionTreeRegressor(max_features="sqrt", random_state=0),
]


@parametrize_with_checks(ESTIMATORS)
def test_scikit_learn_compatible(estimator, check):
    check(estimator)
