"""Categorical features at the estimators' boundary: which columns are categorical, and
their values as category codes (0 .. q - 1; NaN for missing and, at prediction time,
for categories never seen in training, which then go where missing values go, as in
scikit-learn's HistGradientBoosting)."""

import numbers

import numpy as np

#: A categorical feature has at most this many categories (a bin each, beside missing).
MAX_CATEGORIES = 255


def is_dataframe(X):
    return hasattr(X, "dtypes") and hasattr(X, "columns")


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


def fit_categories(X, mask):
    """The categories of every categorical column (None for the others) that occur in
    ``X``: in the order of the pandas categories for a ``category`` column (one declared
    in the dtype but absent from the rows is unknown, and goes where missing values go,
    as in scikit-learn's HistGradientBoosting), else the sorted distinct present
    values."""
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
            values = np.asarray(column, dtype=np.float64)
            found = np.unique(values[~np.isnan(values)])
        if len(found) > MAX_CATEGORIES:
            raise ValueError(f"categorical feature {j} has {len(found)} categories; at most "
                             f"{MAX_CATEGORIES} are supported")
        categories.append(found)
    return categories


def encode_categories(X, categories):
    """X with every categorical column replaced by its category codes (NaN: missing, or
    a category not in ``categories``), as a float64 array, or a DataFrame with the same
    columns when X is one (the other columns untouched)."""
    if all(c is None for c in categories):
        return X
    out = X.copy() if is_dataframe(X) else np.array(X, dtype=np.float64)
    for j, found in enumerate(categories):
        if found is None:
            continue
        column = column_values(X, j)
        if str(getattr(column, "dtype", "")) == "category":
            values = np.asarray(column.astype(object))
        else:
            values = np.asarray(column, dtype=np.float64)
        present = ~np.asarray(_isnull(values))
        codes = np.full(len(values), np.nan)
        index = {value: code for code, value in enumerate(found.tolist())}
        codes[present] = [index.get(v, np.nan) for v in values[present].tolist()]
        if is_dataframe(out):
            out[out.columns[j]] = codes
        else:
            out[:, j] = codes
    return out


def _isnull(values):
    values = np.asarray(values)
    if values.dtype.kind == "f":
        return np.isnan(values)
    return np.array([v is None or (isinstance(v, float) and np.isnan(v)) for v in values])
