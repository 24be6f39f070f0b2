"""Bin thresholds when no machine sees all the rows: exact merged counts, or a mergeable
quantile sketch.

A histogram tree cuts each feature into bins at quantiles of its values
(``treelib.binning``).  When the rows are split among machines, two answers:

- **exact**: every machine sends each feature's distinct values and their counts; added
  up (``merged_counts``), they give ``treelib.binning.thresholds_from_counts`` the very
  summary that binning all the rows at once computes, so the thresholds are the same bit
  for bit.  The message is O(distinct values): as large as the data for a continuous
  feature;
- **a sketch** of bounded size, the idea of Greenwald and Khanna's summary and of
  XGBoost's weighted quantile sketch (Chen and Guestrin, 2016): a few values of the
  feature, each with bounds on its rank.  Summaries *merge* (two machines' into one) and
  are *pruned* back to a fixed size, and the quantiles read from them are within a
  certified fraction of the total weight of the exact ones.

A ``QuantileSummary`` stores increasing values ``v_i`` with ``rmin_i`` <= W(x < v_i) (the
weight of the data below v_i), ``rmax_i`` >= W(x <= v_i), and ``w_i`` <= W(x = v_i).  Its
*rank error* (``rank_error``) is the smallest eps such that

    rmax_0 - w_0 <= eps W,   W - (rmin_last + w_last) <= eps W,
    (rmax_(i+1) - w_(i+1)) - (rmin_i + w_i) <= 2 eps W   for consecutive entries;

then every rank r in [0, W] has a stored value v (``query``) with W(x < v) - eps W <= r
<= W(x <= v) + eps W: the value at rank r is found within eps W.  The guarantees:

- the summary of one partition (``summarize``) is exact: eps = 0;
- ``merge(a, b)`` has eps <= max(eps_a, eps_b): each gap of the merge is at most a gap of
  a plus a gap of b.  Without pruning, merging is associative and commutative (each
  partition adds its own bounds), so the order of the merges does not matter at all;
- ``prune(s, b)`` keeps at most b + 1 entries with eps <= eps_s + 1 / (2 b): it keeps, for
  the target ranks k W / b, the entry ``query`` answers, so two kept neighbours answer
  two neighbouring targets and their gap is at most W / b + 2 eps_s W.

So partitions summarised, pruned to b entries, merged in any order and pruned once more
give eps <= 1 / b; merging and pruning along a tree of depth L gives eps <= L / (2 b).
Costs: O(n log n) to summarise n values (a sort), O(size) to merge or prune.
"""

from dataclasses import dataclass

import numpy as np

from treelib.binning import check_max_bins, thresholds_from_counts
from treelib.validation import check_array


@dataclass(frozen=True)
class QuantileSummary:
    """Increasing ``values``, the bounds ``rmin``, ``rmax`` on their ranks and the weight
    ``weights`` of each (see the module docstring), the ``total`` weight of the data,
    and whether the summary is ``exact`` (never pruned: its weights are the data's)."""

    values: np.ndarray
    rmin: np.ndarray
    rmax: np.ndarray
    weights: np.ndarray
    total: float
    exact: bool = True

    @property
    def size(self):
        return len(self.values)

    def rank_error(self):
        """The certified eps: every rank is answered within eps x total.  O(size)."""
        if self.size == 0 or self.total == 0:
            return 0.0
        below = self.rmin + self.weights              # <= W(x <= v_i)
        above = self.rmax - self.weights              # >= W(x < v_i)
        gaps = (above[1:] - below[:-1]) / 2
        worst = max(above[0], self.total - below[-1], gaps.max(initial=0.0))
        return float(max(worst, 0.0) / self.total)


def summarize(x, sample_weight=None):
    """The exact summary of one partition's values ``x`` (NaN left out, as binning leaves
    missing values out): its distinct values with their weights and exact ranks.
    O(n log n).

    Raises a ValueError for values that are not a 1-D numeric array or are infinite (as
    ``treelib.binning`` does), and for weights that are not one finite, non-negative
    number per value.  A partition with no value (or no present one) is an empty summary,
    which merges as no weight at all."""
    x = partition_values(x)
    weight = np.ones(len(x)) if sample_weight is None else partition_weights(sample_weight,
                                                                              len(x))
    present = ~np.isnan(x)
    values, inverse = np.unique(x[present], return_inverse=True)
    weights = np.bincount(inverse, weights=weight[present],
                          minlength=len(values)).astype(np.float64)
    below = np.cumsum(weights) - weights
    return QuantileSummary(values, below, below + weights, weights, float(weights.sum()))


def partition_values(x, name="x", allow_nan=True):
    """One partition's values as a 1-D float64 array, possibly empty (a partition may
    hold no row), else ``treelib.validation.check_array``'s ValueError."""
    if np.ndim(x) == 1 and np.size(x) == 0 and np.asarray(x).dtype.kind in "biufO":
        return np.zeros(0)
    return check_array(x, name=name, ndim=1, allow_nan=allow_nan)


def partition_weights(sample_weight, n_values):
    """``sample_weight`` as one finite, non-negative float per value, else a ValueError
    that names the problem."""
    weights = partition_values(sample_weight, "sample_weight", allow_nan=False)
    if len(weights) != n_values:
        raise ValueError(f"sample_weight has {len(weights)} entries for {n_values} values "
                         "of x: give one weight per value")
    if (weights < 0).any():
        at = int(np.flatnonzero(weights < 0)[0])
        raise ValueError(f"sample_weight must be non-negative; found {float(weights[at])!r} "
                         f"at position {at} (a rank is a sum of weights)")
    return weights


def check_summary(name, summary):
    """``summary`` itself, or a TypeError naming the argument that is not a summary."""
    if not isinstance(summary, QuantileSummary):
        raise TypeError(f"{name} must be a QuantileSummary (from summarize, merge or "
                        f"prune); got {type(summary).__name__}")
    return summary


def merge(a, b):
    """One summary of the union of two partitions.  A value stored by one summary only
    takes, from the other, the bounds of its stored neighbours: the lower bound of the
    largest stored value below it, the upper bound of the smallest above.  O(size)."""
    check_summary("a", a), check_summary("b", b)
    values = np.union1d(a.values, b.values)
    rmin, rmax, weights = np.zeros(len(values)), np.zeros(len(values)), np.zeros(len(values))
    for part in (a, b):
        rmin_part, rmax_part, weight_part = part_bounds(part, values)
        rmin, rmax, weights = rmin + rmin_part, rmax + rmax_part, weights + weight_part
    return QuantileSummary(values, rmin, rmax, weights, a.total + b.total,
                           a.exact and b.exact)


def part_bounds(part, values):
    """What summary ``part`` says of increasing ``values``: a lower bound of its weight
    below each, an upper bound of its weight up to each, and the weight it stores for
    each (0 where it stores nothing).  O(size + len(values))."""
    if part.size == 0:                                         # no rows: no weight
        return np.zeros(len(values)), np.zeros(len(values)), np.zeros(len(values))
    at = np.searchsorted(part.values, values)                  # first stored >= value
    stored = at < part.size
    stored[stored] = part.values[at[stored]] == values[stored]
    below = part.rmin + part.weights
    rmin = np.where(at > 0, below[np.maximum(at - 1, 0)], 0.0)  # the neighbour below
    nxt = np.where(stored, at + 1, at)                         # first stored > value
    above = part.rmax - part.weights
    rmax = np.where(nxt < part.size, above[np.minimum(nxt, part.size - 1)], part.total)
    idx = np.minimum(at, part.size - 1)
    rmin = np.where(stored, part.rmin[idx], rmin)
    rmax = np.where(stored, part.rmax[idx], rmax)
    return rmin, rmax, np.where(stored, part.weights[idx], 0.0)


def query(summary, ranks):
    """The stored value for each rank (in units of weight, 0 to ``total``): the first
    entry whose ``rmin + w`` reaches ``rank - eps total``, whose true ranks are then
    within ``eps total`` of it (module docstring).  Ranks below 0 or above ``total``
    get the first or the last stored value.  O(size + ranks log size).

    Raises a ValueError for an empty summary (no value to answer with) and for a NaN
    rank."""
    check_summary("summary", summary)
    if summary.size == 0:
        raise ValueError("summary is empty (its partitions had no present value): it has "
                         "no value to answer a rank with")
    ranks = np.asarray(ranks, dtype=np.float64)
    if np.isnan(ranks).any():
        raise ValueError("ranks contains NaN; a rank is a weight from 0 to summary.total")
    slack = summary.rank_error() * summary.total
    below = summary.rmin + summary.weights
    reach = np.maximum.accumulate(below)                       # (increasing already)
    at = np.searchsorted(reach, ranks - slack * (1 + 1e-12), side="left")
    return summary.values[np.minimum(at, summary.size - 1)]


def prune(summary, size):
    """At most ``size + 1`` entries, the ones ``query`` answers for the ranks k W / size,
    k = 0 .. size; the rank error grows by at most 1 / (2 size).  O(summary size).

    ``size`` must be an integer >= 1 (a ValueError otherwise: 0 would divide by zero, and
    a negative size would keep nothing)."""
    check_summary("summary", summary)
    if (isinstance(size, bool) or not isinstance(size, (int, np.integer)) or size < 1):
        raise ValueError(f"size must be an integer >= 1 (the summary keeps at most size + "
                         f"1 entries); got {size!r}")
    if summary.size <= size + 1:
        return summary
    slack = summary.rank_error() * summary.total
    targets = np.arange(size + 1) * (summary.total / size)
    reach = np.maximum.accumulate(summary.rmin + summary.weights)   # as query reads it
    keep = np.unique(np.minimum(np.searchsorted(reach,
                                                targets - slack * (1 + 1e-12)),
                                summary.size - 1))      # (the last target may round up)
    return QuantileSummary(summary.values[keep], summary.rmin[keep], summary.rmax[keep],
                           summary.weights[keep], summary.total, exact=False)


def sketch_thresholds(summary, max_bins=255):
    """Bin thresholds from a summary: ``treelib.binning.thresholds_from_counts`` itself
    when the summary is exact with whole weights (bit for bit the thresholds of binning
    all the rows); else the values the summary gives at the ranks q W, q = 1/max_bins ...
    (max_bins - 1)/max_bins, duplicates removed.  O(size + max_bins)."""
    max_bins = check_max_bins(max_bins)
    if check_summary("summary", summary).size == 0:     # every value missing: one bin
        return np.zeros(0)
    if summary.exact and np.array_equal(summary.weights, np.round(summary.weights)):
        return thresholds_from_counts(summary.values, summary.weights.astype(np.intp),
                                      max_bins)
    quantiles = np.linspace(0.0, 1.0, max_bins + 1)[1:-1]
    return np.unique(query(summary, quantiles * summary.total))


def merged_counts(parts):
    """The exact summary of the union of partitions given as ``(values, counts)`` pairs
    (each partition's ``np.unique(x, return_counts=True)``): the distinct values of all
    and their summed counts, which ``thresholds_from_counts`` turns into the thresholds
    of binning all the rows at once.  O(total distinct values log).

    Raises a ValueError for no partition at all, and for a partition whose values and
    counts differ in length, whose values are NaN (leave missing values out before
    counting, as binning does) or infinite, or whose counts are not whole numbers >= 0."""
    parts = list(parts)
    if not parts:
        raise ValueError("parts is empty: give at least one (values, counts) pair")
    checked = [part_counts(i, part) for i, part in enumerate(parts)]
    values = np.concatenate([v for v, _ in checked])
    counts = np.concatenate([c for _, c in checked])
    distinct, inverse = np.unique(values, return_inverse=True)
    return distinct, np.bincount(inverse, weights=counts, minlength=len(distinct)).astype(
        np.intp)


def part_counts(i, part):
    """Partition ``i``'s ``(values, counts)`` as float64 values and integer counts, else a
    ValueError that names the partition and the problem."""
    values, counts = part
    values = partition_values(values, f"parts[{i}] values")
    if np.isnan(values).any():
        raise ValueError(f"parts[{i}] values contain NaN; leave missing values out before "
                         "counting (x[~np.isnan(x)]), as binning does")
    counts = np.asarray(counts)
    if counts.ndim != 1 or len(counts) != len(values):
        raise ValueError(f"parts[{i}] has {len(values)} values but counts of shape "
                         f"{counts.shape}: give one count per value")
    if counts.dtype.kind not in "biuf":
        raise ValueError(f"parts[{i}] counts must be numbers; got dtype {counts.dtype}")
    whole = np.isfinite(counts) & (counts >= 0) & (counts == np.round(counts))
    if not whole.all():
        raise ValueError(f"parts[{i}] counts must be whole numbers >= 0; got "
                         f"{counts[~whole][0].item()!r}")
    return values, counts.astype(np.intp)
