"""The high-cardinality categorical feature under the null, and two remedies.

A categorical feature with q levels searched by the partition splitter
(``treelib.finders.categorical``: categories sorted by their mean target, then scanned as
if ordered) is the extreme case of split-selection bias: sorting the levels by the very
targets the gain is computed from lines them up, so with one or two rows per level the
best partition nearly sorts the target itself.  Under the null (a target independent of
every feature) it beats a continuous numeric feature almost always once q is large.

Two remedies of gradient-boosting libraries, in numpy, each measured on the same null
simulation by ``categorical_selection_frequencies``:

- **LightGBM's** ``cat_smooth`` (``src/treelearner/feature_histogram.cpp``, the
  many-vs-many categorical search): a level with fewer than ``cat_smooth`` rows (its
  hessian sum, 1 per row for squared error) is left out of the sorted list, so it never
  goes left, and the kept levels are sorted by ``sum_gradient / (sum_hessian +
  cat_smooth)``; the sorted list is scanned from both ends (``lightgbm_order``,
  ``two_way_gains``).  LightGBM's other limits of that search (``min_data_per_group``,
  ``max_cat_threshold``, ``cat_l2``) are not modelled here.
- **CatBoost's ordered target statistics** (Prokhorenkova et al. 2018): each row's level
  is replaced by ``(sum of the targets of the EARLIER rows of its level + a p) / (their
  count + a)`` in a random permutation of the rows, ``p`` a prior (here the mean target)
  and ``a`` its weight; the new numeric column is searched like any other
  (``ordered_target_statistics``).  A row's own target never enters its own value.

The gains are squared-error impurity decreases (sum of squares, as ``exact_split``'s).
"""

import numpy as np

#: The ways ``categorical_selection_frequencies`` searches the categorical feature.
ENCODINGS = ("partition", "cat_smooth", "ordered")


def cut_gains(left_sums, left_counts, total, n):
    """Squared-error gains ``S_L^2 / n_L + S_R^2 / n_R - S^2 / n`` of cuts with left sums
    and counts given, ``-inf`` where a child is empty.  O(len(left_sums))."""
    left_sums, left_counts = np.asarray(left_sums, float), np.asarray(left_counts, float)
    right_counts = n - left_counts
    valid = (left_counts > 0) & (right_counts > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        gains = (left_sums ** 2 / left_counts + (total - left_sums) ** 2 / right_counts
                 - total ** 2 / n)
    return np.where(valid, gains, -np.inf)


def best_numeric_gain(x, y):
    """The largest squared-error gain of a cut ``x <= t`` (between distinct values of
    ``x``), ``-inf`` for a constant ``x``: ``exact_split``'s gain on one feature.
    O(n log n), the sort."""
    order = np.argsort(x, kind="stable")
    xs, sums = np.asarray(x)[order], np.cumsum(np.asarray(y, float)[order])
    n = len(xs)
    gains = cut_gains(sums[:-1], np.arange(1, n), sums[-1], n)
    gains = np.where(xs[1:] > xs[:-1], gains, -np.inf)
    return float(gains.max()) if n > 1 else -np.inf


def level_sums(codes, y, n_levels):
    """Per level 0 .. q - 1: the sum of ``y`` (q,) and the count (q,).  O(n + q)."""
    return (np.bincount(codes, weights=y, minlength=n_levels),
            np.bincount(codes, minlength=n_levels))


def lightgbm_order(sums, counts, cat_smooth):
    """The levels LightGBM's many-vs-many search scans, in its order: those with at least
    ``cat_smooth`` rows, sorted (stably) by ``sums / (counts + cat_smooth)``, ``sums``
    the gradient sums.  ``cat_smooth`` = 0 keeps every present level sorted by its mean.
    O(q log q)."""
    kept = np.flatnonzero((counts >= cat_smooth) & (counts > 0))
    key = sums[kept] / (counts[kept] + cat_smooth)
    return kept[np.argsort(key, kind="stable")]


def two_way_gains(sums, counts, order, total, n):
    """Gains of the partitions that send a prefix of ``order`` left, then those that send
    a suffix left (LightGBM's two directions), the levels not in ``order`` always right.
    O(len(order))."""
    forward = cut_gains(np.cumsum(sums[order]), np.cumsum(counts[order]), total, n)
    backward = cut_gains(np.cumsum(sums[order[::-1]]), np.cumsum(counts[order[::-1]]),
                         total, n)
    return np.concatenate([forward, backward])


def best_partition_gain(codes, y, n_levels, cat_smooth=0.0):
    """The largest squared-error gain of the partitions the sorted-levels search tries on
    a categorical feature (``codes`` in 0 .. q - 1): with ``cat_smooth`` = 0, the levels
    sorted by mean target (treelib's partition splitter: the best of all 2^(q-1) - 1
    partitions, Fisher 1958); otherwise LightGBM's filter and order (``lightgbm_order``),
    gradients ``y - mean(y)``.  ``-inf`` when no partition is possible.  O(n + q log q)."""
    y = np.asarray(y, float)
    gradients = y - y.mean()
    sums, counts = level_sums(codes, gradients, n_levels)
    order = lightgbm_order(sums, counts, cat_smooth)
    if len(order) == 0:
        return -np.inf
    gains = two_way_gains(sums, counts, order, gradients.sum(), len(y))
    return float(gains.max())


def ordered_target_statistics(codes, y, permutation, prior, prior_weight=1.0):
    """CatBoost's ordered target statistic of every row: ``(sum of y over the rows of the
    same level that come EARLIER in ``permutation`` + prior_weight * prior) / (their
    count + prior_weight)``.  A level's first row gets ``prior``.  O(n log n), one sort.
    """
    codes, y = np.asarray(codes), np.asarray(y, float)
    position = np.empty(len(y), dtype=np.intp)
    position[permutation] = np.arange(len(y))
    order = np.lexsort((position, codes))                 # by level, then by turn
    sorted_codes, sorted_y = codes[order], y[order]
    first = np.r_[True, sorted_codes[1:] != sorted_codes[:-1]]
    run_start = np.maximum.accumulate(np.where(first, np.arange(len(y)), 0))
    inclusive = np.cumsum(sorted_y)
    before_run = np.where(run_start > 0, inclusive[run_start - 1], 0.0)
    earlier_sum = inclusive - sorted_y - before_run
    earlier_count = np.arange(len(y)) - run_start
    values = np.empty(len(y))
    values[order] = (earlier_sum + prior_weight * prior) / (earlier_count + prior_weight)
    return values


def categorical_null_data(rng, n_samples, n_levels):
    """A continuous numeric feature (n distinct values), a categorical one (each row's
    level uniform over 0 .. q - 1, so the levels' counts vary) and a standard normal
    target independent of both.  O(n)."""
    return (rng.standard_normal(n_samples), rng.integers(n_levels, size=n_samples),
            rng.standard_normal(n_samples))


def categorical_selection_frequencies(n_levels=(2, 10, 100, 1000), *, encodings=ENCODINGS,
                                      cat_smooth=10.0, prior_weight=1.0, n_seeds=200,
                                      n_samples=1000, seed=0):
    """How often a null categorical feature beats a null continuous numeric one at the
    root, for each number of levels and each way of searching the categorical:
    ``{encoding: (len(n_levels),)}`` fractions of ``n_seeds`` data sets
    (``categorical_null_data``, one ``numpy.random.default_rng(seed)`` for all).

    ``"partition"``: treelib's partition splitter (levels sorted by mean target);
    ``"cat_smooth"``: LightGBM's filter and smoothed order (``best_partition_gain``);
    ``"ordered"``: CatBoost's ordered target statistics (prior the mean target, weight
    ``prior_weight``, a fresh random permutation per data set) searched as a numeric
    column.  The categorical wins when its best gain is strictly larger (ties: the
    numeric feature, the lower column).  An unbiased search would give 0.5.

    Cost: ``n_seeds * len(n_levels)`` data sets, each O(n log n) per encoding."""
    levels = list(n_levels)
    if not levels or not all(isinstance(q, (int, np.integer)) and not isinstance(q, bool)
                             and q >= 2 for q in levels):
        raise ValueError(f"each number of levels must be an int >= 2; got {levels}")
    if isinstance(n_seeds, bool) or not isinstance(n_seeds, (int, np.integer)) or n_seeds < 1:
        raise ValueError(f"n_seeds must be an int >= 1; got {n_seeds!r}")
    unknown = set(encodings) - set(ENCODINGS)
    if unknown:
        raise ValueError(f"encodings must be among {ENCODINGS}; got {sorted(unknown)}")
    rng = np.random.default_rng(seed)
    wins = {encoding: np.zeros(len(levels)) for encoding in encodings}
    for _ in range(n_seeds):
        for i, q in enumerate(levels):
            x, codes, y = categorical_null_data(rng, n_samples, q)
            numeric = best_numeric_gain(x, y)
            permutation = rng.permutation(n_samples)
            for encoding in encodings:
                if encoding == "ordered":
                    encoded = ordered_target_statistics(codes, y, permutation, y.mean(),
                                                        prior_weight)
                    gain = best_numeric_gain(encoded, y)
                else:
                    smooth = cat_smooth if encoding == "cat_smooth" else 0.0
                    gain = best_partition_gain(codes, y, q, smooth)
                wins[encoding][i] += gain > numeric
    return {encoding: count / n_seeds for encoding, count in wins.items()}
