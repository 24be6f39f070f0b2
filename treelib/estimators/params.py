"""Checks of the estimators' parameters, each raising a ValueError that names the
parameter and the value it got (scikit-learn's conventions for counts and fractions)."""

import math
import numbers

import numpy as np


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
