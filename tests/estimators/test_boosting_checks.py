"""scikit-learn's own estimator checks, run on treelib's gradient boosting.

scikit-learn marks two of them as expected failures for its own HistGradientBoosting
(``sklearn.utils._test_common.instance_generator``): sample weights are not equivalent to
repeated samples, because ``min_samples_leaf`` counts samples, not weights.  The same
holds here, for the same reason, and they are marked the same way; nothing else is
skipped.
"""

from sklearn.utils.estimator_checks import parametrize_with_checks

from treelib import HistGradientBoostingClassifier, HistGradientBoostingRegressor

#: scikit-learn's reason for its own HistGradientBoosting, word for word.
WEIGHTS_ARE_NOT_REPEATS = "sample_weight is not equivalent to removing/repeating samples."
EXPECTED_FAILURES = {"check_sample_weight_equivalence_on_dense_data": WEIGHTS_ARE_NOT_REPEATS,
                     "check_sample_weight_equivalence_on_sparse_data": WEIGHTS_ARE_NOT_REPEATS}

ESTIMATORS = [
    HistGradientBoostingRegressor(max_iter=5, min_samples_leaf=5),
    HistGradientBoostingClassifier(max_iter=5, min_samples_leaf=5),
    HistGradientBoostingRegressor(max_iter=5, min_samples_leaf=5, learning_rate="line_search",
                                  l2_regularization=1.0),
    HistGradientBoostingClassifier(max_iter=15, min_samples_leaf=5, sampling="goss",
                                   learning_rate=0.5, random_state=0),
    HistGradientBoostingRegressor(max_iter=20, min_samples_leaf=5, early_stopping=True,
                                  n_iter_no_change=2, max_depth=3, random_state=0),
]


@parametrize_with_checks(ESTIMATORS, expected_failed_checks=lambda e: EXPECTED_FAILURES)
def test_scikit_learn_compatible(estimator, check):
    check(estimator)
