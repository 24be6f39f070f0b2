"""Categorical features at the estimators' boundary: which columns are categorical, and
their values as category codes (0 .. q - 1; NaN for missing and, at prediction time,
for categories never seen in training, which then go where missing values go, as in
scikit-learn's HistGradientBoosting).  Categories are numbers or strings (a pandas
``category``, object or string column, or an object array), as scikit-learn's
HistGradientBoosting accepts; values of the other kind at prediction time (say, codes
after a fit on strings) are a TypeError, not a column of unknown categories."""

import numbers

import numpy as np

#: A categorical feature has at most this many categories (a bin each, beside missing).
MAX_CATEGORIES = 255


def is_dataframe(X):
    return hasattr(X, "dtypes") and hasattr(X, "columns")


def object_array(X):
    """X as a 2-D numpy array if it is one of objects or strings (whose categorical
    columns may hold strings), else None (a DataFrame, a sparse matrix, numbers)."""
    if is_dataframe(X) or hasattr(X, "toarray"):
        return None
    array = np.asarray(X)
    return array if array.ndim == 2 and array.dtype.kind in "OUS" else None


def categorical_mask(categorical_features, X, n_features):
    """The boolean mask of the categorical columns, from scikit-learn's conventions:
    None (none), ``"from_dtype"`` (the pandas columns of dtype ``category``), a boolean
    mask, integer indices, or feature names (with a DataFrame)."""
    mask = np.zeros(n_features, dtype=bool)
    if categorical_features is None:
        return mask
    if isinstance(categorical_features, str) and categorical_features == "from_dtype":
        if is_dataframe(X):
            mask[:] = [str(dtype) == "category" for dtype in X.dtypes]
        return mask
    chosen = np.asarray(categorical_features)
    if chosen.dtype == bool:
        if chosen.shape != (n_features,):
            raise ValueError(f"categorical_features as a boolean mask needs {n_features} "
                             f"entries; got shape {chosen.shape}")
        return chosen.copy()
    if chosen.dtype.kind in "US":
        if not is_dataframe(X):
            raise ValueError("categorical_features given by name needs X as a DataFrame")
        names = list(map(str, X.columns))
        unknown = [str(c) for c in chosen if c not in names]      # plain str reprs
        if unknown:
            raise ValueError(f"categorical_features names unknown columns: {unknown}")
        mask[[names.index(c) for c in chosen]] = True
        return mask
    if chosen.dtype.kind in "iu" and all(isinstance(c, numbers.Integral) for c in chosen.ravel()):
        if ((chosen < 0) | (chosen >= n_features)).any():
            raise ValueError(f"categorical_features indices must be in [0, {n_features}); "
                             f"got {chosen.tolist()}")
        mask[chosen] = True
        return mask
    raise ValueError("categorical_features must be None, 'from_dtype', a boolean mask, "
                     f"indices or feature names; got {categorical_features!r}")


def column_values(X, j):
    """Column j of X (a DataFrame or an array) as a 1-D array."""
    return X.iloc[:, j] if is_dataframe(X) else np.asarray(X)[:, j]


def feature_name(X, j):
    """How messages name feature j: its index, and its name in a DataFrame."""
    return f"{X.columns[j]!r} (column {j})" if is_dataframe(X) else f"{j}"


def column_array(column):
    """A column's values as float64 (numbers) or objects (strings and the like)."""
    if str(getattr(column, "dtype", "")) == "category":
        column = column.astype(object)
    values = np.asarray(column)
    return values.astype(np.float64 if values.dtype.kind in "biuf" else object)


def missing_mask(column, values):
    """Where a column's ``values`` (``column_array``) are missing: None, NaN, pandas'
    NA."""
    if hasattr(column, "isna"):                     # pandas: its own idea of missing
        return np.asarray(column.isna(), dtype=bool)
    if values.dtype.kind == "f":
        return np.isnan(values)
    return np.array([v is None or (isinstance(v, float) and np.isnan(v)) for v in values],
                    dtype=bool)


def present_values(column):
    """The values of a column that are not missing (``column_array``)."""
    values = column_array(column)
    return values[~missing_mask(column, values)]


def value_kind(values, X, j):
    """"number" or "string": what the present ``values`` of feature j are (none: a
    number); a TypeError when they mix the two, or hold something else (scikit-learn's
    encoders refuse both too)."""
    if values.dtype.kind in "biuf":
        return "number"
    kinds = set()
    for v in values:
        if not isinstance(v, (numbers.Number, str, bytes)):
            raise TypeError(f"categorical feature {feature_name(X, j)} holds a "
                            f"{type(v).__name__}; categories must be numbers or strings")
        kinds.add("number" if isinstance(v, numbers.Number) else "string")
    if len(kinds) > 1:
        raise TypeError(f"categorical feature {feature_name(X, j)} mixes numbers and "
                        "strings; its categories must be all numbers or all strings")
    return kinds.pop() if kinds else "number"


def fit_categories(X, mask):
    """The categories of every categorical column (None for the others) that occur in
    ``X``: in the order of the pandas categories for a ``category`` column (one declared
    in the dtype but absent from the rows is unknown, and goes where missing values go,
    as in scikit-learn's HistGradientBoosting), else the sorted distinct present values
    (numbers, or strings: an object or string column, as scikit-learn's
    HistGradientBoosting accepts)."""
    check_numeric_columns(X, mask)
    categories = []
    for j in range(len(mask)):
        if not mask[j]:
            categories.append(None)
            continue
        column = column_values(X, j)
        if str(getattr(column, "dtype", "")) == "category":
            codes = np.asarray(column.cat.codes)
            found = np.asarray(column.cat.categories)[np.unique(codes[codes >= 0])]
        else:
            values = present_values(column)
            if value_kind(values, X, j) == "number":
                values = values.astype(np.float64)
            found = np.unique(values)
        if len(found) > MAX_CATEGORIES:
            raise ValueError(f"categorical feature {feature_name(X, j)} has {len(found)} "
                             f"categories; at most {MAX_CATEGORIES} are supported")
        categories.append(found)
    return categories


def check_numeric_columns(X, mask):
    """A ValueError naming the first DataFrame column outside ``mask`` (a numeric
    feature) that holds strings, rather than numpy's "could not convert string to
    float"."""
    if not is_dataframe(X):
        return
    for j in np.flatnonzero(~np.asarray(mask, dtype=bool)):
        column = X.iloc[:, j]
        if np.asarray(column).dtype.kind in "biufc":
            continue
        if any(isinstance(v, (str, bytes)) for v in present_values(column)):
            raise ValueError(
                f"column {X.columns[j]!r} (column {j}) holds strings (dtype "
                f"{column.dtype}) but is not a categorical feature: list it in "
                "categorical_features (or, with categorical_features='from_dtype', give "
                "it dtype 'category')")


def encode_categories(X, categories):
    """X with every categorical column replaced by its category codes (NaN: missing, or
    a category not in ``categories``), as a float64 array, or a DataFrame with the same
    columns when X is one (the other columns untouched).

    Raises a TypeError when a column's values are numbers where the categories are
    strings or the other way round (e.g. a numpy array of codes after fitting on a
    pandas column of strings: scikit-learn's HistGradientBoosting refuses it too), rather
    than reading every value as an unknown category.  X of another shape is returned
    as it is, for scikit-learn's checks to name the problem."""
    mask = np.array([c is not None for c in categories], dtype=bool)
    if is_dataframe(X):
        if X.shape[1] != len(categories):
            return X
        check_numeric_columns(X, mask)
        if not mask.any():
            return X
        out = X.copy()
    else:
        array = np.asarray(X) if mask.any() else None
        if array is None or array.ndim != 2 or array.shape[1] != len(categories):
            return X
        out = array.astype(object if array.dtype.kind in "OUS" else np.float64)
    for j in np.flatnonzero(mask):
        column, found = column_values(X, j), categories[j]
        values = column_array(column)
        present = ~missing_mask(column, values)
        expected, got = value_kind(found, X, j), value_kind(values[present], X, j)
        if present.any() and len(found) and got != expected:
            raise TypeError(
                f"categorical feature {feature_name(X, j)} was fitted on {expected} "
                f"categories ({shown(found)}) but got {got}s; pass the values "
                "themselves (a DataFrame with the same columns and dtypes as in fit), "
                "not their codes or another encoding")
        codes = np.full(len(values), np.nan)
        index = {value: code for code, value in enumerate(found.tolist())}
        codes[present] = [index.get(v, np.nan) for v in values[present].tolist()]
        if is_dataframe(out):
            out[out.columns[j]] = codes
        else:
            out[:, j] = codes
    return out



def shown(found):
    """The first three categories, for a message."""
    return ", ".join(map(repr, found[:3].tolist())) + (", ..." if len(found) > 3 else "")
