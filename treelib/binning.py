"""Binning: each feature cut once, at the root, into at most ``max_bins`` bins.

Histogram split finders (LightGBM, XGBoost's ``hist``, scikit-learn's
HistGradientBoosting, the MaxBin parameter of seed article 003) do not look at every
distinct value of a feature: they cut it once into a few ordered bins and only ever
consider splits between bins.  A bin is then a small integer *code*, and the split
``x <= threshold`` becomes ``code <= b``.

The rule used here is scikit-learn's (``HistGradientBoosting``'s ``_BinMapper``, 1.9
and later): a feature with at most ``max_bins`` distinct values gets one bin per value,
with the thresholds at the midpoints between neighbouring values (exactly the exact
splitter's candidate thresholds); a feature with more gets thresholds at ``max_bins - 1``
evenly spaced percentiles of its values (numpy's ``"averaged_inverted_cdf"`` definition,
duplicates removed), so that the bins hold about equally many samples.  The tests check
the thresholds against scikit-learn's own.
"""

import numpy as np

from treelib.split import MISSING_BIN, midpoint
from treelib.validation import check_array


def check_max_bins(max_bins):
    """``max_bins`` must be an integer from 2 to 255 (codes, with one more for missing
    values, fit in one byte; scikit-learn's HistGradientBoosting has the same limit)."""
    if (isinstance(max_bins, bool) or not isinstance(max_bins, (int, np.integer))
            or not 2 <= max_bins <= 255):
        raise ValueError(f"max_bins must be an integer from 2 to 255; got {max_bins!r}")
    return int(max_bins)


# A missing value (NaN) gets MISSING_BIN (treelib.split), beyond every real bin (at most
# 255 of them, codes 0 .. 254), so that a cut after any real bin sends missing values
# right; as in scikit-learn's HistGradientBoosting.


def bin_thresholds(x, max_bins=255):
    """Increasing thresholds that cut one feature into at most ``max_bins`` bins.

    Bin b holds the values ``thresholds[b - 1] < x <= thresholds[b]`` (the first bin
    everything up to ``thresholds[0]``, the last everything above the last threshold).
    O(n log n), the sort inside ``np.unique``.
    """
    x = check_array(x, name="x", ndim=1, allow_nan=True)
    values, counts = np.unique(x[~np.isnan(x)], return_counts=True)
    return thresholds_from_counts(values, counts, max_bins)


def thresholds_from_counts(values, counts, max_bins=255):
    """``bin_thresholds`` of a feature given as its distinct values (increasing) and how
    many times each occurs: the same thresholds bit for bit, from a summary that
    machines holding parts of the rows can each compute and then add up (the counts of
    equal values summed).  O(distinct values)."""
    max_bins = check_max_bins(max_bins)
    values, counts = np.asarray(values, dtype=np.float64), np.asarray(counts, dtype=np.intp)
    if len(values) == 0:                       # every value missing: one (empty) bin
        return np.zeros(0)
    if len(values) <= max_bins:
        return midpoint(values[:-1], values[1:])
    quantiles = np.linspace(0.0, 100.0, max_bins + 1)[1:-1] / 100
    return np.unique(averaged_inverted_cdf(values, counts, quantiles))


def averaged_inverted_cdf(values, counts, quantiles):
    """``np.quantile(np.repeat(values, counts), quantiles, method="averaged_inverted_cdf")``
    bit for bit, without repeating anything: numpy's virtual index ``n q - 1``, its two
    neighbouring order statistics (found in the cumulative counts) and its interpolation
    (halfway when the index is whole, else the upper one).  O(distinct + quantiles)."""
    n = int(counts.sum())
    virtual = n * np.asarray(quantiles, dtype=np.float64) - 1
    previous = np.floor(virtual)
    following = previous + 1
    previous[virtual >= n - 1], following[virtual >= n - 1] = n - 1, n - 1
    previous[virtual < 0], following[virtual < 0] = 0, 0
    gamma = np.where(virtual - np.floor(virtual) == 0, 0.5, 1.0)
    ends = np.cumsum(counts)                   # order statistic i is values[first end > i]
    low = values[np.searchsorted(ends, previous.astype(np.intp), side="right")]
    high = values[np.searchsorted(ends, following.astype(np.intp), side="right")]
    difference = high - low                    # numpy's _lerp, both of its branches
    return np.where(gamma >= 0.5, high - difference * (1 - gamma), low + difference * gamma)


def bin_features(X, max_bins=255, thresholds=None):
    """Bin every feature of ``X``: returns ``(codes, thresholds)``.

    ``codes`` (n, f) uint8 holds the bin of every value, ``thresholds`` a list of f
    arrays as ``bin_thresholds`` returns them (pass them in to bin new data the way
    the training data were binned).  ``x <= thresholds[j][b]`` exactly when
    ``codes[:, j] <= b``.  A missing value (NaN) gets ``MISSING_BIN``, beyond every
    bin.  O(f n log n) to find the thresholds, O(f n log max_bins) to look
    the values up; float32 X is read as it is (no float64 copy: each comparison with a
    float64 threshold is exact), and the features are cut a group at a time
    (``few_values_bins``), so memory beyond the codes and thresholds is bounded by a
    group.
    """
    X = check_array(X, name="X", ndim=2, allow_nan=True, keep_float=True)
    if thresholds is not None and len(thresholds) != X.shape[1]:
        raise ValueError(f"X has {X.shape[1]} features but {len(thresholds)} lists of "
                         "thresholds were given")
    n, f = X.shape
    codes = np.empty(X.shape, dtype=np.uint8)
    cuts = [None] * f if thresholds is None else list(thresholds)
    coded = np.zeros(f, dtype=bool)
    group = max(1, GROUP_VALUES // n)
    for start in range(0, f, group) if thresholds is None else ():
        stop = min(start + group, f)
        cuts[start:stop] = few_values_bins(X[:, start:stop], max_bins, codes[:, start:stop])
        coded[start:stop] = [c is not None for c in cuts[start:stop]]
    for j in np.flatnonzero(~coded):
        if cuts[j] is None:
            cuts[j] = bin_thresholds(X[:, j], max_bins)
        # the number of thresholds below x: x <= cuts[b]  <=>  code <= b
        codes[:, j] = np.searchsorted(cuts[j], X[:, j], side="left")
        codes[np.isnan(X[:, j]), j] = MISSING_BIN
    return codes, cuts


#: Values (rows x features) that ``bin_features`` cuts at once (``few_values_bins``).
GROUP_VALUES = 2**16


def few_values_bins(block, max_bins, codes):
    """The thresholds of the features (columns) of ``block`` (n, c) with at most
    ``max_bins`` distinct values and no NaN, found together, their codes written into
    ``codes`` (n, c); None for the other features (``bin_features`` cuts them one by one).

    Such a feature gets one bin per value: its thresholds are the midpoints of its
    neighbouring distinct values (``bin_thresholds``' thresholds bit for bit: ``midpoint``
    of the same pairs of values, and its result does not depend on which of two equal
    zeros a sort puts first), and a value's code is the rank of its distinct value (the
    i-th threshold lies below the (i + 1)-th distinct value and not below the i-th).
    O(n c log n) time, O(n c) temporaries.  Returns a list of c arrays (views of one
    array) or None."""
    values = np.asarray(block, dtype=np.float64)
    n, c = values.shape
    order = np.argsort(values, axis=0)
    ordered = np.take_along_axis(values, order, axis=0)           # NaN last
    new = ordered[1:] != ordered[:-1]                   # (n - 1, c): a new distinct value
    few = (new.sum(axis=0) < max_bins) & ~np.isnan(ordered[-1])
    column, row = np.nonzero(new.T & few[:, None])      # feature by feature
    between = np.split(midpoint(ordered[row, column], ordered[row + 1, column]),
                       np.cumsum(np.bincount(column, minlength=c))[:-1])
    ranks = np.zeros((n, c), dtype=np.uint8)
    np.cumsum(new, axis=0, out=ranks[1:], dtype=np.uint8)   # wraps only where not few
    at = np.flatnonzero(few)
    by_sample = np.empty((n, len(at)), dtype=np.uint8)
    np.put_along_axis(by_sample, order[:, at], ranks[:, at], axis=0)
    codes[:, at] = by_sample
    return [cuts if ok else None for cuts, ok in zip(between, few)]
