"""Checks of the estimators' parameters, each raising a ValueError that names the
parameter and the value it got (scikit-learn's conventions for counts and fractions)."""

import math
import numbers
from typing import NamedTuple

import numpy as np
from sklearn.base import is_classifier

from treelib.binning import check_max_bins
from treelib.criteria import CLASSIFICATION_CRITERIA, REGRESSION_CRITERIA
from treelib.finders import check_splitter, feature_subset
from treelib.finders.categorical import STRATEGIES
from treelib.growth import StoppingRules, check_builder
from treelib.growth.threads import check_n_jobs
from treelib.options import check

#: What the trees and forests refuse that scikit-learn's accept, and why (docstrings).
STRICTER = """
    Unlike scikit-learn's trees, it refuses negative sample weights (a node's total weight
    could be zero or negative, leaving its value and impurity undefined) and regression
    targets whose spread times the number of samples reaches about 1.3e154 (the split
    finders square sums of targets, which would overflow float64), with a ValueError that
    says so.
"""


class TreeSettings(NamedTuple):
    """A tree's checked parameters: the growth order, ``max_leaf_nodes``, ``max_features``
    as a number of features (None: all), ``n_jobs`` and ``histogram_sums``."""

    builder: str
    max_leaf_nodes: int
    max_features: int
    n_jobs: int
    histogram_sums: str


def check_monotonic_options(monotonic_cst, builder, splitter, criterion, sums="float"):
    """A ValueError naming what cannot take ``monotonic_cst`` (when it is not None):
    fixed-point ``sums`` (they grow level-wise), the builder "level_wise" (whole levels
    at once: no per-node bounds), the "random" splitter (its draws are not
    scikit-learn's) and absolute error (children's medians, not implemented).  O(1)."""
    if monotonic_cst is None:
        return
    if sums == "fixed_point":
        raise ValueError("histogram_sums='fixed_point' does not take monotonic_cst: "
                         "fixed-point sums grow level-wise, which carries no per-node "
                         "bounds; use histogram_sums='float'")
    if builder == "level_wise":
        raise ValueError("builder='level_wise' does not take monotonic_cst: it searches "
                         "whole levels at once and carries no per-node bounds; use "
                         "builder=None, 'depth_first', 'recursive' or 'best_first'")
    if splitter == "random":
        raise ValueError("splitter='random' does not take monotonic_cst: its drawn "
                         "thresholds are not scikit-learn's; use an exact splitter or 'hist'")
    if criterion == "absolute_error":
        raise ValueError("criterion='absolute_error' does not take monotonic_cst in treelib "
                         "(the children's medians are not computed per cut); use "
                         "'squared_error' or 'poisson'")


def tree_settings(tree, n_features, *, categorical=False, missing=False, weighted=False):
    """``TreeSettings`` of a ``DecisionTreeRegressor``/``Classifier``'s parameters on
    ``n_features`` features: each value checked, then the options together
    (``treelib.options.check``, with whether X has ``categorical`` features and
    ``missing`` values and whether sample weights are given), each with a ValueError
    that names what is wrong (``ccp_alpha`` too, a number >= 0; ``monotonic_cst``'s
    options: ``check_monotonic_options``).  ``builder=None`` is "level_wise" with
    fixed-point sums (refused with ``monotonic_cst``), else "best_first" with
    ``max_leaf_nodes``, else "depth_first".  O(1)."""
    criteria = CLASSIFICATION_CRITERIA if is_classifier(tree) else REGRESSION_CRITERIA
    if tree.criterion not in criteria:
        raise ValueError(f"criterion must be one of {list(criteria)}; "
                         f"got {tree.criterion!r}")
    check_splitter(tree.splitter)
    sums = check_histogram_sums(getattr(tree, "histogram_sums", "float"))
    max_leaf_nodes = check_number("max_leaf_nodes", tree.max_leaf_nodes, integer=True,
                                  low=2, allow_none=True)
    default = ("level_wise" if sums == "fixed_point" else
               "best_first" if max_leaf_nodes is not None else "depth_first")
    builder = check_builder(tree.builder or default)
    max_features = feature_subset(resolve_max_features(tree.max_features, n_features),
                                  n_features)
    n_jobs = check_n_jobs(tree.n_jobs)
    check_number("ccp_alpha", tree.ccp_alpha, integer=False, low=0.0)
    if tree.categorical_splitter not in STRATEGIES:       # (even with no category)
        raise ValueError(f"categorical_splitter must be one of {list(STRATEGIES)}; "
                         f"got {tree.categorical_splitter!r}")
    check_monotonic_options(getattr(tree, "monotonic_cst", None), builder, tree.splitter,
                            tree.criterion, sums)
    check(builder=builder, splitter=tree.splitter, criterion=tree.criterion,
          max_features=max_features, max_leaf_nodes=max_leaf_nodes, categorical=categorical,
          missing=missing, sample_weight=weighted, n_jobs=tree.n_jobs, histogram_sums=sums)
    return TreeSettings(builder, max_leaf_nodes, max_features, n_jobs, sums)


def has_missing(X, weights=None):
    """Whether X has NaN in a row that takes part (of positive weight).  O(n f)."""
    return bool(np.isnan(X if weights is None else X[weights > 0]).any())


def check_number(name, value, *, integer, low, low_open=False, high=None, allow_none=False):
    """Return ``value`` if it is a number in range, else raise a ValueError naming it."""
    if value is None and allow_none:
        return None
    kind = numbers.Integral if integer else numbers.Real
    ok = isinstance(value, kind) and not isinstance(value, bool)
    ok = ok and (value > low if low_open else value >= low)
    ok = ok and (high is None or value <= high)
    if not ok:
        what = "an integer" if integer else "a number"
        bound = f"> {low}" if low_open else f">= {low}"
        bound += "" if high is None else f" and <= {high}"
        none = " or None" if allow_none else ""
        raise ValueError(f"{name} must be {what} {bound}{none}; got {value!r}")
    return value


def count_or_fraction(name, value, n_samples, minimum):
    """scikit-learn's convention: an int is a count, a float in (0, 1] a fraction of the
    training samples (rounded up)."""
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return check_number(name, value, integer=True, low=minimum)
    check_number(name, value, integer=False, low=0.0, low_open=True, high=1.0)
    return max(minimum, math.ceil(value * n_samples))


def resolve_max_features(max_features, n_features):
    """``max_features`` as a number of features (None: all of them)."""
    if max_features is None:
        return None
    if max_features == "sqrt":
        return max(1, int(np.sqrt(n_features)))
    if max_features == "log2":
        return max(1, int(np.log2(n_features)))
    if isinstance(max_features, numbers.Integral) and not isinstance(max_features, bool):
        return check_number("max_features", max_features, integer=True, low=1)
    if isinstance(max_features, numbers.Real) and not isinstance(max_features, bool):
        check_number("max_features", max_features, integer=False, low=0.0, low_open=True,
                     high=1.0)
        return max(1, int(max_features * n_features))
    raise ValueError(f"max_features must be an int, a float in (0, 1], 'sqrt', 'log2' or "
                     f"None; got {max_features!r}")


def stopping_rules(estimator, n_samples, max_leaf_nodes=None):
    """The ``StoppingRules`` of a tree's or a forest's parameters (``max_depth``,
    ``min_samples_split``, ``min_impurity_decrease``; ``max_leaf_nodes`` checked by the
    caller), each checked with a ValueError that names it.  O(1)."""
    return StoppingRules(
        max_depth=check_number("max_depth", estimator.max_depth, integer=True, low=1,
                               allow_none=True),
        min_samples_split=count_or_fraction("min_samples_split", estimator.min_samples_split,
                                            n_samples, 2),
        min_impurity_decrease=check_number("min_impurity_decrease",
                                           estimator.min_impurity_decrease, integer=False,
                                           low=0.0),
        max_leaf_nodes=max_leaf_nodes)


def leaf_size(estimator, n_samples):
    """``min_samples_leaf`` of a tree's or a forest's parameters as a number of samples
    (an int, or a fraction of ``n_samples`` rounded up), checked.  O(1)."""
    return count_or_fraction("min_samples_leaf", estimator.min_samples_leaf, n_samples, 1)


def forget_fit(estimator):
    """Remove the attributes a previous ``fit`` set (names ending in ``_``), so that a
    refit with other parameters leaves none of them behind."""
    for name in [n for n in vars(estimator) if n.endswith("_") and not n.startswith("_")]:
        delattr(estimator, name)


def numpy_rng(random_state):
    """A ``numpy.random.Generator`` seeded from scikit-learn's ``random_state``."""
    from sklearn.utils import check_random_state

    return np.random.default_rng(check_random_state(random_state)
                                 .randint(np.iinfo(np.int32).max))


def check_boosting_parameters(model, samplings):
    """Raise a ValueError naming the first invalid parameter of a HistGradientBoosting
    estimator ``model`` (``samplings``: the options of ``sampling``)."""
    if not (isinstance(model.learning_rate, str) and model.learning_rate == "line_search"):
        check_number("learning_rate", model.learning_rate, integer=False, low=0.0,
                     low_open=True)
    check_number("max_iter", model.max_iter, integer=True, low=1)
    check_number("max_leaf_nodes", model.max_leaf_nodes, integer=True, low=2,
                 allow_none=True)
    check_number("max_depth", model.max_depth, integer=True, low=1, allow_none=True)
    check_number("min_samples_leaf", model.min_samples_leaf, integer=True, low=1)
    check_number("l2_regularization", model.l2_regularization, integer=False, low=0.0)
    check_max_bins(model.max_bins)
    if not (model.early_stopping == "auto" or isinstance(model.early_stopping, bool)):
        raise ValueError(f"early_stopping must be 'auto', True or False; got "
                         f"{model.early_stopping!r}")
    fraction = model.validation_fraction        # scikit-learn's range: 1.0 is refused
    rows = isinstance(fraction, numbers.Integral) and fraction >= 1
    share = isinstance(fraction, numbers.Real) and 0 < fraction < 1
    if not (fraction is None or (rows or share) and not isinstance(fraction, bool)):
        raise ValueError(f"validation_fraction must be a float in (0, 1) (a fraction of "
                         f"the rows), an int >= 1 (a number of rows) or None; got "
                         f"{fraction!r}")
    check_number("n_iter_no_change", model.n_iter_no_change, integer=True, low=1)
    check_number("tol", model.tol, integer=False, low=0.0)
    if model.sampling not in samplings:
        raise ValueError(f"sampling must be one of {list(samplings)}; got "
                         f"{model.sampling!r}")
    check_number("top_rate", model.top_rate, integer=False, low=0.0, high=1.0)
    check_number("other_rate", model.other_rate, integer=False, low=0.0, low_open=True,
                 high=1.0)
    if model.top_rate + model.other_rate > 1.0:
        raise ValueError("top_rate + other_rate must be at most 1; got "
                         f"{model.top_rate + model.other_rate}")


#: The options of ``histogram_sums``.
HISTOGRAM_SUMS = ("float", "fixed_point")


def check_histogram_sums(value):
    """``value`` if it is an option of ``histogram_sums``, else a ValueError.  O(1)."""
    if not isinstance(value, str) or value not in HISTOGRAM_SUMS:
        raise ValueError(f"histogram_sums must be one of {list(HISTOGRAM_SUMS)}; got "
                         f"{value!r}")
    return value


#: ``early_stopping="auto"`` enables it above this many samples (scikit-learn's rule).
AUTO_EARLY_STOPPING_SAMPLES = 10_000
#: Options of ``sampling``.
SAMPLINGS = (None, "goss")


def check_boosting_options(model, n_rows, *, classes=None, weighted=False, categorical=False,
                           missing=False):
    """Check the parameters of the HistGradientBoosting estimator ``model`` fitted on
    ``n_rows`` rows, each value, then which combine (``treelib.options.check``, as
    ``criterion="newton"``, with the number of ``classes`` (None: a regressor), whether
    sample weights are given and X has ``categorical`` features or ``missing`` values),
    each with a ValueError that names it; sets ``do_early_stopping_``.  O(1)."""
    check_boosting_parameters(model, SAMPLINGS)
    sums = check_histogram_sums(model.histogram_sums)
    model.do_early_stopping_ = (n_rows > AUTO_EARLY_STOPPING_SAMPLES
                                if model.early_stopping == "auto" else model.early_stopping)
    check(criterion="newton", builder="best_first", splitter="hist", histogram_sums=sums,
          early_stopping=model.do_early_stopping_, learning_rate=model.learning_rate,
          sampling=model.sampling, classes=classes, sample_weight=weighted,
          categorical=categorical, missing=missing)


def validation_split(X, y, weights, fraction, stratify, seed):
    """scikit-learn's ``train_test_split`` of the rows (and the weights) into training and
    validation rows for early stopping, with ``validation_fraction`` named when the rows
    cannot be split so (too few for the fraction, or for the classes)."""
    from sklearn.model_selection import train_test_split

    try:
        parts = train_test_split(X, y, *([] if weights is None else [weights]),
                                 test_size=fraction, stratify=stratify, random_state=seed)
    except ValueError as error:
        raise ValueError(f"validation_fraction={fraction!r} cannot split {len(y)} "
                         "samples into training and validation rows for early stopping "
                         f"(scikit-learn's train_test_split, given it as test_size: "
                         f"{error})") from None
    X, X_val, y, y_val = parts[:4]
    weights, val_weights = (None, None) if weights is None else parts[4:]
    return X, y, weights, (X_val, y_val, val_weights)


def check_no_infinity(X):
    """X (float64) itself, or a ValueError saying where it is infinite and why
    HistGradientBoosting refuses it."""
    infinite = np.isinf(X)
    if infinite.any():
        row, column = np.argwhere(infinite)[0]
        raise ValueError(
            f"X contains infinity (first at row {row}, column {column}); HistGradientBoosting "
            "refuses it, unlike scikit-learn's (which caps its bin thresholds at a large "
            "finite value): treelib's thresholds are midpoints of neighbouring values, "
            "infinite next to an infinite one. Replace it by a large finite value, or by "
            "NaN (missing)")
    return X
