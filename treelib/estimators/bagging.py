"""Bagging, and how a forest grows its trees.

A bootstrap sample is drawn as integer sample weights, scikit-learn's draw row for row:
tree i gets the seed ``RandomState(random_state).randint(2**31 - 1, size=n_estimators)[i]``
and the rows ``RandomState(seed).randint(0, n, n_bootstrap)``, as in
``sklearn.ensemble``.  Each tree is grown by the fastest grower that supports the
settings (``forest_builder``): level by level when every node searches every feature with
the exact or histogram search, else depth first (best first with ``max_leaf_nodes``).
"""

import numpy as np
from sklearn.utils import check_random_state

from treelib.estimators.params import check_number
from treelib.options import combines
from treelib.validation import check_sample_weight

#: scikit-learn's bound for the seeds of the trees (``np.iinfo(np.int32).max``).
MAX_INT = np.iinfo(np.int32).max

#: The splitters whose trees accept missing values (NaN).
MISSING_VALUE_SPLITTERS = ("cumsum", "hist")


def forest_builder(splitter, criterion, max_features, n_features, max_leaf_nodes,
                   has_missing):
    """The fastest growth order for these settings: "best_first" for ``max_leaf_nodes``,
    else "level_wise" where the options' table (``treelib.options``) lets it grow these
    trees (every feature searched, exactly or on histograms, with a criterion scored from
    sums and no missing value), else "depth_first".  O(rows of the table)."""
    if max_leaf_nodes is not None:
        return "best_first"
    if combines(builder="level_wise", splitter=splitter, criterion=criterion,
                max_features=max_features if max_features < n_features else None,
                missing=has_missing):
        return "level_wise"
    return "depth_first"


#: scikit-learn's reason, word for word, for its forests' expected failure of
#: ``check_sample_weight_equivalence_on_dense_data`` (and ``..._on_sparse_data``).
WEIGHTS_ARE_NOT_REPEATS = "sample_weight is not equivalent to removing/repeating samples."


def expected_failed_checks(forest):
    """The scikit-learn estimator checks a forest fails by design, ``{check: reason}``,
    for ``parametrize_with_checks(..., expected_failed_checks=expected_failed_checks)``.

    A bootstrap drawn from weighted rows (each row with probability proportional to its
    weight) is not the bootstrap of the rows repeated, so a forest with
    ``bootstrap=True`` fails the weights-equal-repeats check, as scikit-learn's forests
    do.  scikit-learn 1.9 has no tag for this (``_xfail_checks`` is gone, ``_more_tags``
    refused); its own test suite lists the check, with this reason, for RandomForest*
    (whose default is ``bootstrap=True``) in
    ``sklearn.utils._test_common.instance_generator.PER_ESTIMATOR_XFAIL_CHECKS``.  This
    is that list for treelib's forests, read from ``bootstrap`` rather than the class:
    without bootstrap (ExtraTrees* by default) the check passes."""
    if getattr(forest, "bootstrap", False):
        return {"check_sample_weight_equivalence_on_dense_data": WEIGHTS_ARE_NOT_REPEATS,
                "check_sample_weight_equivalence_on_sparse_data": WEIGHTS_ARE_NOT_REPEATS}
    return {}


def bootstrap_size(n_samples, max_samples, sample_weight):
    """Rows drawn per tree (scikit-learn's rule): all ``n_samples`` (None), ``max_samples``
    (an int), or that fraction of the rows, or of the total sample weight (a float)."""
    if max_samples is None:
        return n_samples
    if isinstance(max_samples, (int, np.integer)) and not isinstance(max_samples, bool):
        return check_number("max_samples", max_samples, integer=True, low=1)
    check_number("max_samples", max_samples, integer=False, low=0.0, low_open=True)
    total = n_samples if sample_weight is None else float(np.sum(sample_weight))
    return max(int(max_samples * total), 1)


def bootstrap_counts(seed, n_samples, n_bootstrap, sample_weight=None):
    """How many times each row is drawn for the tree of ``seed``: ``n_bootstrap`` draws
    with replacement, uniform, or proportional to ``sample_weight`` (scikit-learn's
    ``_generate_sample_indices``, draw for draw).  O(n)."""
    random = check_random_state(seed)
    if sample_weight is None:
        rows = random.randint(0, n_samples, n_bootstrap)
    else:
        rows = random.choice(n_samples, n_bootstrap, replace=True,
                             p=sample_weight / np.sum(sample_weight))
    return np.bincount(rows, minlength=n_samples).astype(np.float64)


def checked_sample_weight(sample_weight, n_samples):
    """``treelib.validation.check_sample_weight`` (None stays None), with the message
    scikit-learn's checks expect when every weight is zero."""
    if sample_weight is None:
        return None
    weights = np.asarray(sample_weight, dtype=np.float64)
    if weights.size and np.all(weights == 0):
        raise ValueError("every sample weight is zero: no sample counts")
    return check_sample_weight(weights, n_samples)
