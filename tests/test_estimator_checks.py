"""scikit-learn's own estimator checks, run on treelib's estimators.

None is skipped by treelib.  scikit-learn itself skips its array-API checks when
SCIPY_ARRAY_API is not set in the environment (4 skips), which is how it runs them by
default.
"""

from sklearn.utils.estimator_checks import parametrize_with_checks

from treelib import DecisionTreeClassifier, DecisionTreeRegressor

ESTIMATORS = [
    DecisionTreeRegressor(),
    DecisionTreeClassifier(),
    DecisionTreeClassifier(criterion="entropy", builder="best", max_leaf_nodes=20),
    DecisionTreeRegressor(max_features="sqrt", random_state=0),
    DecisionTreeRegressor(builder="level"),
    DecisionTreeClassifier(builder="level", criterion="entropy", min_samples_leaf=2),
    DecisionTreeRegressor(builder="recursive", splitter="scan", max_depth=4),
]


@parametrize_with_checks(ESTIMATORS)
def test_scikit_learn_compatible(estimator, check):
    check(estimator)
