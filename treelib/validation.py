"""Input checks shared by every public entry point.

Each check raises a ``ValueError`` whose message names the problem, so a reader who
passes strings, NaN or a 1-D array learns what is wrong instead of getting a silently
wrong split.
"""

import numpy as np


def _describe_position(mask):
    """Return 'row i, column j' (or 'position i') of the first True entry of ``mask``."""
    first = np.argwhere(mask)[0]
    if len(first) == 2:
        return f"row {first[0]}, column {first[1]}"
    return f"position {first[0]}"


def check_array(values, *, name="X", ndim=2, allow_nan=False, keep_float=False):
    """Return ``values`` as a float64 array with ``ndim`` dimensions, finite (or NaN,
    a missing value, with ``allow_nan``); with ``keep_float``, a float array (float32
    too) is returned as it is, not copied.  O(size) time; O(1) memory beyond the float64
    copy when the values are finite (their smallest and largest are).

    Raises ``ValueError`` for strings or other non-numeric data, complex numbers, the
    wrong number of dimensions, no samples (or, for 2-D input, no features), NaN (unless
    allowed) and infinity.
    """
    if isinstance(values, (str, bytes)):
        raise ValueError(f"{name} must be numeric; got a string: {values!r}")
    array = np.asarray(values)
    if array.dtype.kind in "USV":
        raise ValueError(f"{name} must be numeric; got an array of strings or bytes "
                         f"(dtype {array.dtype})")
    if array.dtype.kind == "c":
        raise ValueError(f"{name} must be real-valued; got complex numbers")
    if array.dtype.kind == "O":
        if any(isinstance(v, (str, bytes)) for v in array.ravel()):
            raise ValueError(f"{name} must be numeric; it contains strings")
        try:
            array = array.astype(np.float64)
        except (TypeError, ValueError) as error:
            raise ValueError(f"{name} must be numeric; cannot convert it to float: "
                             f"{error}") from None
    if array.dtype.kind not in "biuf":
        raise ValueError(f"{name} must be numeric; got dtype {array.dtype}")
    if array.ndim != ndim:
        if ndim == 2 and array.ndim == 1:
            raise ValueError(
                f"{name} must be 2-D with shape (n_samples, n_features); got a 1-D array "
                f"of shape {array.shape}. Use {name}.reshape(-1, 1) for one feature or "
                f"{name}.reshape(1, -1) for one sample.")
        raise ValueError(f"{name} must be {ndim}-D; got an array of shape {array.shape}")
    if array.shape[0] == 0:
        raise ValueError(f"{name} is empty: it has 0 samples (shape {array.shape})")
    if ndim == 2 and array.shape[1] == 0:
        raise ValueError(f"{name} has 0 features (shape {array.shape})")
    if not (keep_float and array.dtype.kind == "f"):
        array = np.ascontiguousarray(array, dtype=np.float64)
    if array.size and np.isfinite(np.min(array)) and np.isfinite(np.max(array)):
        return array                             # no NaN (it would be the smallest)
    nan = np.isnan(array)
    if nan.any() and not allow_nan:
        # only X may have missing values (where a splitter places them); no other input
        hint = ("missing values are accepted only where noted (the cumsum and hist "
                "splitters)" if name == "X" else f"{name} must not have missing values")
        raise ValueError(f"{name} contains NaN (first at {_describe_position(nan)}); "
                         f"{hint}")
    infinite = np.isinf(array)
    if infinite.any():
        raise ValueError(f"{name} contains infinity (first at "
                         f"{_describe_position(infinite)})")
    return array


def check_class_labels(y):
    """Class labels: a non-empty 1-D array (numbers or strings), none of them NaN."""
    labels = np.asarray(y)
    if labels.ndim != 1 or len(labels) == 0:
        raise ValueError(f"y must be a non-empty 1-D array of class labels; got shape "
                         f"{labels.shape}")
    if labels.dtype.kind == "f" and np.isnan(labels).any():
        raise ValueError("y contains NaN; class labels must not be missing")
    return labels


#: The split finders square sums of up to n targets: n * (max(y) - min(y)) must stay
#: below the square root of the largest float (about 1.3e154) for them to be finite.
MAX_TARGET_SPREAD = float(np.sqrt(np.finfo(np.float64).max))


def check_target_range(y):
    """Regression targets whose sums of squares stay finite.

    The gain of a cut squares sums of up to n centred targets; with
    ``n * (max(y) - min(y))`` above about 1.3e154 those squares overflow to infinity and
    every gain is lost.  Such targets get a ValueError that says how to rescale them,
    rather than a tree grown from overflowed gains (scikit-learn accepts such targets).
    """
    y = np.asarray(y, dtype=np.float64)
    spread = float(np.max(y) - np.min(y)) if len(y) else 0.0
    if not np.isfinite(spread) or len(y) * spread >= MAX_TARGET_SPREAD:
        raise ValueError(
            f"y spans {spread:.3g} over {len(y)} samples: the split finders square sums "
            f"of up to {len(y)} targets, which overflow float64 when n * (max(y) - "
            f"min(y)) reaches {MAX_TARGET_SPREAD:.3g} (scikit-learn accepts such targets "
            "and compares overflowed gains; treelib refuses them); rescale y (divide it "
            "by a power of ten) first")
    return y


#: Why treelib refuses negative sample weights, which scikit-learn accepts.
NEGATIVE_WEIGHTS = ("treelib refuses negative weights, which scikit-learn accepts: a "
                    "node's total weight (or sum of hessians) could then be zero or "
                    "negative, leaving its value and impurity undefined")


def check_sample_weight(sample_weight, n_samples):
    """Sample weights: a finite, non-negative 1-D array of ``n_samples`` numbers with a
    positive sum."""
    weights = check_array(sample_weight, name="sample_weight", ndim=1)
    if len(weights) != n_samples:
        raise ValueError(f"sample_weight has {len(weights)} entries for {n_samples} "
                         "samples")
    if (weights < 0).any():
        raise ValueError(f"sample_weight must be non-negative; found "
                         f"{float(weights[weights < 0][0])!r} at "
                         f"{_describe_position(weights < 0)}. {NEGATIVE_WEIGHTS}")
    if weights.sum() <= 0:
        raise ValueError("sample_weight sums to 0: at least one weight must be non-zero")
    return weights


#: HistGradientBoosting's gradients are float32 (as scikit-learn's): the largest one.
MAX_GRADIENT = float(np.finfo(np.float32).max)


def check_gradient_range(y):
    """Regression targets whose first gradients, ``mean(y) - y``, fit in float32.

    HistGradientBoosting keeps gradients as float32, as scikit-learn does; beyond about
    3.4e38 they overflow to infinity and every gain is NaN (scikit-learn accepts such
    targets and boosts on the overflowed gradients).  Such targets get a ValueError that
    says how to rescale them."""
    y = np.asarray(y, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        largest = float(np.max(np.abs(y - np.mean(y)))) if len(y) else 0.0
    if not largest < MAX_GRADIENT:
        raise ValueError(
            f"y lies up to {largest:.3g} from its mean: the gradients, float32 as in "
            f"scikit-learn, overflow beyond {MAX_GRADIENT:.3g} (scikit-learn accepts such "
            "targets and boosts on overflowed gradients; treelib refuses them); rescale y "
            "(divide it by a power of ten) first")
    return y


def check_min_samples_leaf(min_samples_leaf):
    """``min_samples_leaf`` must be a positive integer."""
    if (isinstance(min_samples_leaf, bool)
            or not isinstance(min_samples_leaf, (int, np.integer))
            or min_samples_leaf < 1):
        raise ValueError(f"min_samples_leaf must be an integer >= 1; got {min_samples_leaf!r}")
    return int(min_samples_leaf)
