"""Where the rows are: blocks of rows that build their nodes' histograms themselves.

The fixed-point growers (``treelib.growth.fixed_point_tree``,
``treelib.growth.fixed_point_boosting``) never touch a row.  They ask a *row provider*
questions about nodes, a batch of nodes per call, and tell it where the rows go; the answers
are sums of fixed-point digits (``treelib.fixed_point``), which add up exactly in any order.
So the rows may be anywhere: in one array in this process (``LocalParts`` of one
``RowPart``), in several blocks, or on the workers of a cluster (``treelib.distributed``),
and the grown tree is the same to the last bit.

A ``RowPart`` holds one block of rows: their raw features until they are binned, then
their bin codes (uint8, one column per feature), their target, the per-row statistics
(the centred target, or gradients and hessians) and their digits, each row's current node
and, for boosting, each row's raw prediction.  Its methods come in two kinds:

- *updates* change the part and return it (``bin``, ``centre_target``, ``write_digits``,
  ``gradients``, ``split``, ``start_predictions``, ``update_predictions``): a cluster
  chains them, each on the result of the last;
- *queries* return a summary that ``merge`` adds to another part's (``value_counts``,
  ``max_abs_target``, ``target_sum``, ``summary``): exact integer sums, maxima, merged
  distinct values.

A provider (``LocalParts`` here) answers ``update(method, *args)`` (every part) and
``reduce(method, *args)`` (every part's answer, merged).  Costs: a summary of m nodes with
histograms of h of them costs O(n f T k) for n rows, f features, k statistics and T
digits, and returns O(h f B k T) numbers for B bins.
"""

from dataclasses import dataclass

import numpy as np

from treelib.binning import bin_features
from treelib.fixed_point import to_digits


@dataclass(frozen=True)
class Maximum:
    """A maximum, merged by ``max`` (order-free)."""

    value: float

    def __add__(self, other):
        return Maximum(max(self.value, other.value))


@dataclass(frozen=True)
class ValueCounts:
    """Each feature's distinct values (increasing) and their counts, and whether any
    value was missing: merged by adding the counts of equal values (exact)."""

    values: tuple
    counts: tuple
    missing: bool

    def __add__(self, other):
        values, counts = [], []
        for v1, c1, v2, c2 in zip(self.values, self.counts, other.values, other.counts):
            merged, inverse = np.unique(np.concatenate([v1, v2]), return_inverse=True)
            values.append(merged)
            counts.append(np.bincount(inverse, weights=np.concatenate([c1, c2]),
                                      minlength=len(merged)).astype(np.intp))
        return ValueCounts(tuple(values), tuple(counts), self.missing or other.missing)


def value_counts(X):
    """The ``ValueCounts`` of the columns of ``X``.  O(f n log n)."""
    X = np.asarray(X, dtype=np.float64)
    pairs = [np.unique(column[~np.isnan(column)], return_counts=True) for column in X.T]
    return ValueCounts(tuple(p[0] for p in pairs), tuple(p[1] for p in pairs),
                       bool(np.isnan(X).any()))


@dataclass
class Summary:
    """What rows tell about a batch of m nodes: ``counts`` (m,), ``sums`` (m, k, T) the
    digit sums of the statistics, and optionally ``spread`` (m, T) the digit sums of
    ``(v - centre)**2``, ``low`` / ``high`` (m,) the smallest and largest v, and the
    histograms of h of the nodes: ``hist`` (h, f, B, k, T) digit sums and
    ``hist_counts`` (h, f, B).  ``+`` merges two blocks' summaries exactly."""

    counts: np.ndarray
    sums: np.ndarray
    spread: np.ndarray | None = None
    low: np.ndarray | None = None
    high: np.ndarray | None = None
    hist: np.ndarray | None = None
    hist_counts: np.ndarray | None = None

    def __add__(self, other):
        def add(a, b):
            return None if a is None else a + b

        return Summary(self.counts + other.counts, self.sums + other.sums,
                       add(self.spread, other.spread),
                       None if self.low is None else np.minimum(self.low, other.low),
                       None if self.high is None else np.maximum(self.high, other.high),
                       add(self.hist, other.hist), add(self.hist_counts, other.hist_counts))

    @property
    def nbytes(self):
        """Bytes of the arrays (what one block sends when summaries are reduced)."""
        return sum(a.nbytes for a in (self.counts, self.sums, self.spread, self.low,
                                      self.high, self.hist, self.hist_counts) if a is not None)


def merge(a, b):
    """Merge two answers of a query (tuples element by element)."""
    if isinstance(a, tuple):
        return tuple(merge(x, y) for x, y in zip(a, b))
    return a + b


def slots_of(node, nodes):
    """Each row's position in ``nodes`` (-1: its node is not there)."""
    nodes = np.asarray(nodes, dtype=np.intp)
    lookup = np.full(max(int(node.max(initial=0)), int(nodes.max(initial=0))) + 1, -1,
                     dtype=np.intp)
    lookup[nodes] = np.arange(len(nodes))
    return lookup[node]


class RowPart:
    """One block of rows (see the module docstring).  ``X`` (n, f) the raw features
    (binned by ``bin``), ``y`` (n,) the targets, or class labels (``encode_classes``
    makes them codes)."""

    def __init__(self, X, y):
        self.X = np.asarray(X, dtype=np.float64)
        y = np.asarray(y)                  # (class labels stay as they are till encoded)
        self.y = y.astype(np.float64) if y.dtype.kind in "biuf" else y
        self.n_rows = len(self.y)
        self.codes = self.values = self.digits = self.raw = None
        self.node = np.zeros(self.n_rows, dtype=np.intp)

    # queries --------------------------------------------------------------------------
    def value_counts(self):
        """The ``ValueCounts`` of the raw features (for the bin thresholds)."""
        return value_counts(self.X)

    def target_counts(self):
        """The distinct targets (class labels) and their counts, a ``ValueCounts``."""
        values, counts = np.unique(self.y, return_counts=True)
        return ValueCounts((values,), (counts,), False)

    def max_abs_target(self):
        return Maximum(float(np.abs(self.y).max(initial=0.0)))

    def target_sum(self, grid):
        """The digit sum (T,) of the targets on ``grid``."""
        return to_digits(self.y, grid).sum(axis=0)

    def summary(self, nodes, hist_nodes=(), n_bins=1, centres=None, spread_grid=None):
        """The ``Summary`` of ``nodes``: counts and digit sums; with ``centres`` (m,)
        also the digit sums of ``(v - centre)**2`` on ``spread_grid`` and the extremes of
        v (the first statistic); the histograms of ``hist_nodes`` over ``n_bins``
        bins."""
        m, (k, T) = len(nodes), self.digits.shape[1:]
        slot = slots_of(self.node, nodes)
        rows = np.flatnonzero(slot >= 0)
        slot = slot[rows]
        counts = np.bincount(slot, minlength=m)
        digits = self.digits[rows]
        sums = np.stack([np.stack([np.bincount(slot, weights=digits[:, c, t], minlength=m)
                                   for t in range(T)], axis=-1) for c in range(k)], axis=1)
        out = Summary(counts, sums.reshape(m, k, T))
        if centres is not None:
            v = self.values[rows, 0]
            deviation = to_digits((v - np.asarray(centres)[slot]) ** 2, spread_grid)
            out.spread = np.stack([np.bincount(slot, weights=deviation[:, t], minlength=m)
                                   for t in range(spread_grid.limbs)], axis=-1)
            out.low, out.high = np.full(m, np.inf), np.full(m, -np.inf)
            np.minimum.at(out.low, slot, v)
            np.maximum.at(out.high, slot, v)
        if len(hist_nodes):
            out.hist, out.hist_counts = self.histograms(hist_nodes, n_bins)
        return out

    def histograms(self, nodes, n_bins):
        """Digit sums (h, f, B, k, T) and counts (h, f, B) of the rows of ``nodes`` per
        feature and bin: one ``np.bincount`` per digit over (node, feature, bin) keys."""
        h, f, (k, T) = len(nodes), self.codes.shape[1], self.digits.shape[1:]
        slot = slots_of(self.node, nodes)
        rows = np.flatnonzero(slot >= 0)
        keys = ((slot[rows, None] * f + np.arange(f)) * n_bins + self.codes[rows]).ravel()
        size = h * f * n_bins
        counts = np.bincount(keys, minlength=size).reshape(h, f, n_bins)
        digits = self.digits[rows]
        sums = np.empty((h, f, n_bins, k, T))
        for c in range(k):
            for t in range(T):
                weights = np.repeat(digits[:, c, t], f)
                sums[..., c, t] = np.bincount(keys, weights=weights,
                                              minlength=size).reshape(h, f, n_bins)
        return sums, counts

    # updates --------------------------------------------------------------------------
    def bin(self, thresholds):
        """Replace the raw features by their bin codes on ``thresholds``."""
        if self.n_rows:
            self.codes, _ = bin_features(self.X, thresholds=thresholds)
        else:                                       # an empty block
            self.codes = np.zeros((0, len(thresholds)), dtype=np.uint8)
        self.X = None
        return self

    def encode_classes(self, classes):
        """Targets as class codes (positions in ``classes``)."""
        self.y = np.searchsorted(classes, self.y).astype(np.float64)
        return self

    def centre_target(self, centre):
        """The statistic v = y - centre (the same float operation on every row)."""
        self.values = (self.y - centre)[:, None]
        return self

    def max_abs_values(self):
        """The largest |statistic| of every column (a tuple of ``Maximum``)."""
        return tuple(Maximum(float(np.abs(self.values[:, c]).max(initial=0.0)))
                     for c in range(self.values.shape[1]))

    def write_digits(self, grids):
        """The digits (n, k, T) of every statistic column on its grid."""
        self.digits = np.stack([to_digits(self.values[:, c], grid)
                                for c, grid in enumerate(grids)], axis=1)
        return self

    def split(self, nodes, features, bins, left_ids, right_ids):
        """Move the rows of ``nodes`` to their children: ``code <= bin`` left."""
        slot = slots_of(self.node, nodes)
        rows = np.flatnonzero(slot >= 0)
        slot = slot[rows]
        left = self.codes[rows, np.asarray(features)[slot]] <= np.asarray(bins)[slot]
        self.node[rows] = np.where(left, np.asarray(left_ids)[slot],
                                   np.asarray(right_ids)[slot])
        return self

    def start_predictions(self, baseline):
        """Every row's raw prediction is the baseline (boosting)."""
        self.raw = np.zeros((self.n_rows, len(baseline))) + baseline
        return self

    def gradients(self, loss):
        """The statistics are the loss's gradients, and hessians unless constant,
        computed row by row in float32 as the local boosting loop does (float64 here)."""
        g, h = loss.gradient_hessian(self.y, self.raw)
        columns = [g[:, 0]] if h is None else [g[:, 0], h[:, 0]]
        self.values = np.column_stack(columns).astype(np.float64)
        return self

    def update_predictions(self, node_values):
        """Add the value of each row's leaf, then put every row back at the root."""
        self.raw[:, 0] += np.asarray(node_values)[self.node]
        self.node[:] = 0
        return self


class LocalParts:
    """A row provider of ``RowPart`` s held in this process (the local fixed-point fit use
    one).  ``stats`` records the rounds and the bytes of the merged answers."""

    def __init__(self, parts):
        self.parts = list(parts)
        self.n_rows = sum(p.n_rows for p in self.parts)
        self.rounds = []

    def update(self, method, *args):
        for part in self.parts:
            getattr(part, method)(*args)

    def reduce(self, method, *args):
        answers = [getattr(part, method)(*args) for part in self.parts]
        total = answers[0]
        for answer in answers[1:]:
            total = merge(total, answer)
        if isinstance(total, Summary):
            self.rounds.append(total.nbytes)
        return total
