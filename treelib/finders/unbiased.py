"""An unbiased selection rule: the feature first, by a test of association, then its cut.

Exhaustive search takes the best cut over every feature, so a feature with many distinct
values, which offers many cuts, wins more often than a feature with few even when neither
is related to the target (Breiman et al. 1984, ch. 5; Loh and Shih 1997).  Conditional
inference trees (Hothorn, Hornik and Zeileis 2006) and GUIDE (Loh 2002) remove that bias
by choosing a node's split in two stages:

1. the FEATURE: each feature's association with the target is tested, with a test whose
   null distribution does not depend on how many cuts the feature has, and the feature
   with the smallest p-value wins (ties: the lowest feature, treelib's tie rule);
2. the CUT: the exact search of ``treelib.finders.exact`` on that feature alone.

The test here is GUIDE's: Pearson's chi-square test of independence between the feature
cut into ``n_groups`` quantile groups (one group per distinct value when it has that many
or fewer, ``quantile_groups``) and the target (its classes for Gini and entropy; for
regression the target cut into ``target_groups`` quantile groups the same way).  Every
feature then offers at most ``n_groups`` groups, whatever its number of distinct values,
and its p-value is uniform under the null (asymptotically), whatever the number of degrees
of freedom.  The p-value is the chi-square survival function computed exactly, as the
regularised upper incomplete gamma function Q(df / 2, x / 2) by its power series or its
continued fraction (``chi2_log_sf``), on the log scale so that strong associations, whose
p-values underflow to 0, are still ranked.

``selection_frequencies`` measures the bias of both rules on null data.
"""

import dataclasses
import math
from typing import NamedTuple

import numpy as np

from treelib.criteria import CLASSIFICATION_CRITERIA, check_criterion, target_statistics
from treelib.finders.exact import SCORERS, exact_split
from treelib.validation import check_array, check_min_samples_leaf

#: Relative accuracy of the incomplete gamma function's series and continued fraction.
GAMMA_EPS = 1e-16
#: Most terms of the series or the continued fraction (enough for df up to about 10**8).
GAMMA_MAX_TERMS = 100_000


def chi2_log_sf(statistic, df):
    """log P(chi2_df > statistic): the log of the chi-square survival function.

    Computed as log Q(a, x), a = df / 2, x = statistic / 2, Q the regularised upper
    incomplete gamma function (Numerical Recipes, 6.2): for x < a + 1 from the power series
    of P = 1 - Q, otherwise from Q's continued fraction (modified Lentz), whose prefactor
    ``exp(-x) x**a / Gamma(a)`` is kept in logs, so the result stays finite where the
    p-value underflows.  ``df`` = 0 (a table with one row or one column) gives 0 (p = 1).
    Cost: O(sqrt(df) + 1) terms for x near a, fewer elsewhere (at most
    ``GAMMA_MAX_TERMS``).
    """
    statistic, df = float(statistic), int(df)
    if df < 0 or not statistic >= 0 or not math.isfinite(statistic):
        raise ValueError(f"the chi-square tail needs df >= 0 and a finite statistic >= 0; "
                         f"got df={df}, statistic={statistic}")
    if df == 0 or statistic == 0:
        return 0.0
    a, x = df / 2, statistic / 2
    log_prefactor = -x + a * math.log(x) - math.lgamma(a)
    if x < a + 1:                        # P = prefactor / a * sum_k x^k / ((a+1)...(a+k))
        term = total = 1 / a
        for k in range(1, GAMMA_MAX_TERMS):
            term *= x / (a + k)
            total += term
            if term < total * GAMMA_EPS:
                return math.log1p(-math.exp(log_prefactor + math.log(total)))
    else:                                # Q = prefactor / (x + 1 - a - 1 (1 - a) / ...)
        tiny = 1e-300
        b = x + 1 - a
        c, d = 1 / tiny, 1 / b
        h = d
        for k in range(1, GAMMA_MAX_TERMS):
            an = -k * (k - a)
            b += 2
            d = an * d + b
            d = tiny if abs(d) < tiny else d
            c = b + an / c
            c = tiny if abs(c) < tiny else c
            d = 1 / d
            h *= d * c
            if abs(d * c - 1) < GAMMA_EPS:
                return log_prefactor + math.log(h)
    raise ValueError(f"the chi-square tail did not converge for df={df}, "
                     f"statistic={statistic}")


def chi2_sf(statistic, df):
    """P(chi2_df > statistic), the chi-square survival function (``chi2_log_sf``,
    exponentiated: it underflows to 0 below about 1e-308).  Cost: ``chi2_log_sf``'s."""
    return math.exp(chi2_log_sf(statistic, df))


def quantile_groups(X, n_groups):
    """Each value's quantile group, column by column: (n, f) integer codes.

    A column with at most ``n_groups`` distinct values gets one group per value (codes in
    increasing order of value).  Otherwise the edges are the values at the sorted positions
    ``ceil(i n / n_groups) - 1`` (i = 1 .. n_groups - 1), duplicates merged, and a value's
    code is the number of edges below it: the group ``(edge_{i-1}, edge_i]``.  Equal values
    always share a group, so a column has at most ``n_groups`` groups, and fewer when ties
    straddle a quantile.  Cost: O(f n log n), the sort.
    """
    X = np.asarray(X, dtype=np.float64)
    n, n_features = X.shape
    x_sorted = np.sort(X, axis=0)
    new_value = np.vstack([np.ones((1, n_features), bool), x_sorted[1:] > x_sorted[:-1]])
    positions = (np.arange(1, n_groups) * n + n_groups - 1) // n_groups - 1
    codes = np.empty(X.shape, dtype=np.intp)
    for j in range(n_features):
        distinct = x_sorted[new_value[:, j], j]
        edges = distinct[:-1] if len(distinct) <= n_groups else np.unique(x_sorted[positions, j])
        codes[:, j] = np.searchsorted(edges, X[:, j], side="left")
    return codes


def target_codes(Y, criterion, target_groups):
    """The target's groups for the test: the classes of one-hot ``Y`` for Gini and entropy,
    else ``quantile_groups`` of ``Y``'s column.  O(n k) or O(n log n)."""
    if criterion in CLASSIFICATION_CRITERIA:
        return np.argmax(Y, axis=1)
    return quantile_groups(Y[:, :1], target_groups)[:, 0]


def contingency_tables(codes, target):
    """Counts (f, groups, classes) of each feature's group against the target's group,
    ``codes`` (n, f) and ``target`` (n,) integer codes from 0.  O(f n + f g c)."""
    n, n_features = codes.shape
    n_groups, n_classes = int(codes.max()) + 1, int(target.max()) + 1
    cells = (np.arange(n_features) * n_groups + codes) * n_classes + target[:, None]
    counts = np.bincount(cells.ravel(), minlength=n_features * n_groups * n_classes)
    return counts.reshape(n_features, n_groups, n_classes)


def chi2_statistic(table):
    """Pearson's chi-square statistic of independence and its degrees of freedom, of a
    table of counts (empty rows and columns dropped): ``sum (O - E)**2 / E``, E = R C / n.

    Each term is ``(O n - R C)**2 / (n R C)`` in Python integers, rounded once, and the
    terms are summed with ``math.fsum`` (correctly rounded): the statistic does not depend
    on the order of the rows or columns, so tables equal up to a permutation give the same
    p-value exactly (a tie).  A table with one row or column: (0.0, 0).  O(g c)."""
    table = np.asarray(table, dtype=np.int64)
    table = table[table.sum(axis=1) > 0][:, table.sum(axis=0) > 0]
    rows, columns = table.shape
    if rows < 2 or columns < 2:
        return 0.0, 0
    n = int(table.sum())
    row_totals, column_totals = table.sum(axis=1).tolist(), table.sum(axis=0).tolist()
    terms = [(o * n - r * c) ** 2 / (n * r * c)
             for r, line in zip(row_totals, table.tolist()) for c, o in zip(column_totals, line)]
    return math.fsum(terms), (rows - 1) * (columns - 1)


def association_log_p(X, target, n_groups=4):
    """log p-value of the chi-square test of independence between each feature of ``X``
    (cut by ``quantile_groups``) and ``target`` (n,) integer group codes: (f,).  A
    constant feature gets 0 (p = 1).  O(f n log n) to group, O(f n) to count."""
    tables = contingency_tables(quantile_groups(X, n_groups), np.asarray(target, np.intp))
    return np.array([chi2_log_sf(*chi2_statistic(table)) for table in tables])


class UnbiasedSplit(NamedTuple):
    """``unbiased_split``'s answer: the ``Split`` (or None), each feature's p-value (f,)
    and its log (f,), which still ranks features whose p-values underflow to 0."""

    split: object
    p_values: np.ndarray
    log_p_values: np.ndarray


def check_groups(value, name):
    """An int of at least 2 (the groups of a test), else a ValueError naming ``name``.
    O(1)."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 2:
        raise ValueError(f"{name} must be an int >= 2; got {value!r}")
    return int(value)


def unbiased_split(X, y, *, criterion="squared_error", n_groups=4, target_groups=4,
                   min_samples_leaf=1, splitter="cumsum"):
    """The split of one node chosen in two stages: the feature by a chi-square test of
    association with the target, then its cut by the exact search on that feature alone.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Finite numeric features.
    y : array-like of shape (n_samples,)
        Numeric targets (regression criteria) or class labels (Gini, entropy).
    criterion : str, default="squared_error"
        The impurity whose decrease chooses the cut (any of ``treelib.criteria``'s).
    n_groups : int, default=4
        Quantile groups of a feature in its test (``quantile_groups``).
    target_groups : int, default=4
        Quantile groups of a regression target (classification: its classes).
    min_samples_leaf : int, default=1
        Each child keeps at least this many samples.
    splitter : {"naive", "scan", "cumsum"}, default="cumsum"
        The exact scorer of the chosen feature's cuts.

    Returns
    -------
    UnbiasedSplit
        ``split``: the best cut of the feature with the smallest p-value (ties: the lowest
        feature) that has a candidate cut, its ``feature`` a column of ``X``; None when
        no feature has one.  ``p_values`` and ``log_p_values`` of every feature.

    Notes
    -----
    Cost: O(f n log n) to cut every feature into groups (one sort), O(f n) to count the
    tables, then one feature's exact search, O(n log n) plus its scorer's cost (a second
    feature's only when the first has no candidate cut, e.g. under ``min_samples_leaf``).
    Exhaustive search sorts and scores every feature's cuts: O(f n log n + f n k).
    """
    if splitter not in SCORERS:
        raise ValueError(f"unbiased_split cuts the chosen feature exactly: splitter must be "
                         f"one of {sorted(SCORERS)}; got {splitter!r}")
    check_criterion(criterion)
    n_groups, target_groups = check_groups(n_groups, "n_groups"), check_groups(
        target_groups, "target_groups")
    min_samples_leaf = check_min_samples_leaf(min_samples_leaf)
    X = check_array(X, name="X", ndim=2)
    Y = target_statistics(y, criterion)
    if len(X) != len(Y):
        raise ValueError(f"X and y have different numbers of samples: {len(X)} and {len(Y)}")
    log_p = association_log_p(X, target_codes(Y, criterion, target_groups), n_groups)
    split = None
    for feature in np.argsort(log_p, kind="stable"):       # smallest p first, ties: lowest
        split = exact_split(X[:, [feature]], Y, criterion, min_samples_leaf, splitter)
        if split is not None:
            split = dataclasses.replace(split, feature=int(feature))
            break
    return UnbiasedSplit(split, np.exp(log_p), log_p)


def null_data(rng, n_samples, cardinalities, criterion="squared_error"):
    """Features with exactly the given numbers of distinct values (each value ``n_samples /
    k`` times, up to one, in random order) and a target independent of all of them
    (standard normal, or two balanced classes for Gini and entropy).  O(f n)."""
    X = np.column_stack([rng.permutation(np.arange(n_samples) % k) for k in cardinalities])
    if criterion in CLASSIFICATION_CRITERIA:
        return X.astype(np.float64), rng.permutation(np.arange(n_samples) % 2)
    return X.astype(np.float64), rng.standard_normal(n_samples)


def selection_frequencies(cardinalities=(2, 10, 100, 1000), *, n_seeds=200, n_samples=1000,
                          criterion="squared_error", seed=0):
    """How often each feature is chosen at the root under the null, by exhaustive search
    and by the unbiased rule: ``{"exhaustive": (f,), "unbiased": (f,)}`` fractions of
    ``n_seeds`` data sets drawn by ``null_data`` (one ``numpy.random.default_rng(seed)``
    for all, so the result is reproducible).  An unbiased rule chooses each feature with
    probability 1 / f.  ``n_samples`` must be at least the largest cardinality.

    Cost: ``n_seeds`` times one exhaustive search (O(f n log n + f n k)) and one
    ``unbiased_split``."""
    cardinalities = list(cardinalities)
    if not cardinalities or not all(isinstance(k, (int, np.integer)) and not isinstance(
            k, bool) and 2 <= k <= n_samples for k in cardinalities):
        raise ValueError(f"each cardinality must be an int between 2 and "
                         f"n_samples={n_samples}; got {cardinalities}")
    if isinstance(n_seeds, bool) or not isinstance(n_seeds, (int, np.integer)) or n_seeds < 1:
        raise ValueError(f"n_seeds must be an int >= 1; got {n_seeds!r}")
    rng = np.random.default_rng(seed)
    chosen = np.zeros((2, len(cardinalities)))
    for _ in range(n_seeds):
        X, y = null_data(rng, n_samples, cardinalities, criterion)
        exhaustive = exact_split(X, target_statistics(y, criterion), criterion)
        unbiased = unbiased_split(X, y, criterion=criterion).split
        chosen[0, exhaustive.feature] += 1
        chosen[1, unbiased.feature] += 1
    return {"exhaustive": chosen[0] / n_seeds, "unbiased": chosen[1] / n_seeds}
