"""Histograms of gradients and hessians, and the best split of a node read from them.

The search half of gradient boosting's grower (``treelib.growth.boosting_grower``): a
node's histogram holds, per feature and bin, the sums of the gradients g and hessians h
of its samples and their number; a cumulative sum over the bins gives the left child's
``G_L, H_L, N_L`` of every cut, and the **Newton gain** (``treelib.gains``, criterion
"newton")::

    G_L^2 / (H_L + l2) + G_R^2 / (H_R + l2) - G^2 / (H + l2)

scores them all at once: chapter 2's variance-to-sum identity with sums of gradients
weighted by hessians.  The best cut is chosen by treelib's one tie rule
(``treelib.split.best_cut``): cuts whose gains are equal up to their rounding bounds are
tied, and the lowest feature, then the lowest cut, wins.

Costs: O(f n) to count a node of n samples (one ``np.bincount`` per statistic over all
its (sample, feature) pairs), O(f B) to subtract two histograms and to score a node's
cuts, for f features and B bins.
"""

import numpy as np

from treelib.finders.categorical import category_order
from treelib.gains import EPS, gain_from_sums, gain_rounding_bound
from treelib.split import MISSING_BIN, best_cut

#: A feature whose most frequent bin holds at least this share of the rows is counted
#: sparsely (``BinnedData``).
SPARSE_SHARE = 0.5
#: Categories are sorted by ``G / (H + CATEGORY_SMOOTHING)`` (LightGBM's ``cat_smooth``,
#: scikit-learn's ``MIN_CAT_SUPPORT``).
CATEGORY_SMOOTHING = 10.0


class BinnedData:
    """The bin codes of the training data, prepared once for all the trees of a fit.

    ``codes`` (n, f) uint8 bin codes (missing: ``MISSING_BIN``); ``n_bins`` (f,) the bins
    of real values of each feature (for a categorical feature, its number of
    categories); ``categorical`` (f,) bool.  Kept here: ``keys`` (f, n), the histogram
    entry ``feature * width + bin`` of every value (the missing values in the last
    column, ``missing_column``), feature by feature; the histogram of sample counts of all
    the rows (the same for every tree grown on them); and, for the *sparse* features,
    whose most frequent bin holds at least ``SPARSE_SHARE`` of the rows (one-hot columns,
    mostly zero), their other values only, row after row (``row_ptr``, ``entry_rows``,
    ``entry_keys``): LightGBM's "most frequent bin", counted as the node's total minus
    the others.
    """

    def __init__(self, codes, n_bins, categorical=None):
        self.codes = codes = np.asarray(codes, dtype=np.uint8)
        self.n_samples, self.n_features = codes.shape
        self.n_bins = np.asarray(n_bins, dtype=np.intp)
        self.categorical = (np.zeros(self.n_features, bool) if categorical is None
                            else np.asarray(categorical, bool))
        missing = codes == MISSING_BIN
        self.has_missing = missing.any(axis=0)
        self.width = int(max(self.n_bins.max(initial=1), 1)) + int(self.has_missing.any())
        self.missing_column = self.width - 1 if self.has_missing.any() else -1
        self.offsets = np.arange(self.n_features) * self.width
        self.keys = np.ascontiguousarray(
            np.where(missing, self.missing_column, codes).T + self.offsets[:, None],
            dtype=np.intp)
        self.all_counts = np.bincount(self.keys.ravel(), minlength=self.offsets[-1] +
                                      self.width).reshape(1, self.n_features, self.width) * 1.0
        default = self.all_counts[0].argmax(axis=1) + self.offsets       # flat keys
        self.sparse = self.all_counts[0].max(axis=1) >= SPARSE_SHARE * self.n_samples
        self.dense_keys = np.ascontiguousarray(self.keys[~self.sparse])
        self.default_keys = default[self.sparse]
        sparse_keys = self.keys[self.sparse].T                  # (n, sparse features)
        self.entry_rows, which = np.nonzero(sparse_keys != self.default_keys)   # row-major
        self.entry_keys = sparse_keys[self.entry_rows, which]
        self.row_ptr = np.concatenate([[0], np.cumsum(np.bincount(self.entry_rows,
                                                                  minlength=self.n_samples))])


class Histograms:
    """Sums of gradients ``g`` and of hessians ``h`` and sample counts ``n`` (as floats),
    per node, feature and bin: arrays (m, f, width).  ``h`` is None when every hessian is
    1 (the counts are then the sums of hessians, exactly)."""

    def __init__(self, g, h, n):
        self.g, self.h, self.n = g, h, n

    @property
    def hess(self):
        return self.n if self.h is None else self.h

    def __sub__(self, other):
        return Histograms(self.g - other.g, None if self.h is None else self.h - other.h,
                          self.n - other.n)

    def take(self, k):
        """The histograms of node k alone."""
        return Histograms(self.g[k:k + 1], None if self.h is None else self.h[k:k + 1],
                          self.n[k:k + 1])

    def stack(self, other):
        return Histograms(np.concatenate([self.g, other.g]),
                          None if self.h is None else np.concatenate([self.h, other.h]),
                          np.concatenate([self.n, other.n]))


def count_histograms(data, samples, g, h=None, totals=None):
    """The histograms of the node holding ``samples`` (increasing; None: every row),
    shape (1, f, width), from ``g`` and ``h`` (float64, all the rows): one
    ``np.bincount`` per statistic over the keys, feature after feature, so each bin adds
    its values in the order of the samples (as scikit-learn does).  A sparse feature's
    most frequent bin is the node's ``totals`` ``(G, H, N)`` minus its other bins.
    O(f n_node), O(nonzero values) for the sparse features."""
    f, width = data.n_features, data.width
    shape, size, n_dense = (1, f, width), f * width, len(data.dense_keys)
    every_row = samples is None
    rows = np.arange(data.n_samples) if every_row else samples
    keys = [(data.dense_keys if every_row else np.take(data.dense_keys, rows, axis=1)).ravel()]
    entries = slice(None) if every_row else segments(data.row_ptr, rows)
    keys.append(data.entry_keys[entries])
    keys = np.concatenate(keys) if len(keys[1]) else keys[0]
    entry_rows = data.entry_rows[entries]

    def per_bin(weights, total):
        values = np.tile(weights if every_row else weights[rows], n_dense)
        if len(entry_rows):
            values = np.concatenate([values, weights[entry_rows]])
        # (astype: without any key, np.bincount returns integers even with weights)
        hist = np.bincount(keys, weights=values, minlength=size).astype(np.float64, copy=False)
        return fill_defaults(hist, data, total).reshape(shape)

    if every_row:
        n = data.all_counts
    else:
        n = fill_defaults(np.bincount(keys, minlength=size) * 1.0, data,
                          len(rows)).reshape(shape)
    if totals is None and len(data.default_keys):
        totals = (g[rows].sum(), None if h is None else h[rows].sum())
    G, H = (None, None) if totals is None else totals[:2]
    return Histograms(per_bin(g, G), None if h is None else per_bin(h, H), n)


def segments(starts, rows):
    """The positions ``starts[r] .. starts[r + 1] - 1`` of every row r of ``rows``, in
    order (the entries of those rows in a row-major list)."""
    begin, end = starts[rows], starts[rows + 1]
    lengths = end - begin
    return np.repeat(begin - np.cumsum(lengths) + lengths, lengths) + np.arange(lengths.sum())


def fill_defaults(hist, data, total):
    """Set the most frequent bin of every sparse feature in the flat histogram ``hist``
    to ``total`` minus the feature's other bins."""
    if len(data.default_keys):
        per_feature = hist.reshape(data.n_features, data.width)[data.sparse].sum(axis=1)
        hist[data.default_keys] = total - per_feature
    return hist


class NodeSums:
    """Sums over nodes (m,): gradients G, hessians H, samples N, and |g| (``A``); with
    ``scale`` the tree's largest |g / h| (these two bound the rounding of the gains)."""

    def __init__(self, G, H, N, A, scale):
        self.G, self.H, self.N, self.A = (np.array(v, dtype=np.float64, ndmin=1)
                                          for v in (G, H, N, A))
        self.scale = float(scale)


def candidate_sums(hist, data):
    """The left child's sums of every candidate cut of every node and feature.

    Returns ``(GL, HL, NL, order)``: arrays (m, f, C) with C = width - 1 cuts per
    ordering, and twice that when some feature has missing values: first the cut after
    each bin with missing values right, then the same cuts with missing values left.  A
    categorical feature's bins are first put in the order of their ``G / (H + 10)``
    (``order`` (m, f, width): the bin at each sorted position, the identity for numeric
    features; None without categorical features),
    the missing values as one more category (its missing-left cuts are no candidates).
    A cut after an empty bin makes the same children as the cut before it, with the same
    sums to the last bit: the tie rule keeps the lowest, as scikit-learn's left-to-right
    scan does; with missing values left, its right-to-left scan keeps the highest, and
    so do the candidates here.
    """
    m, f, width = hist.g.shape
    order = None
    g, h, n = hist.g, hist.h, hist.n
    if data.categorical.any():
        order, hess = np.tile(np.arange(width), (m, f, 1)), hist.hess
        for j in np.flatnonzero(data.categorical):
            for s in range(m):
                present = category_order(g[s, j][:, None], hess[s, j], "newton",
                                         CATEGORY_SMOOTHING)
                present = present[n[s, j, present] > 0]
                rest = np.setdiff1d(np.arange(width), present)
                order[s, j] = np.concatenate([present, rest])
        g, n = (np.take_along_axis(a, order, axis=-1) for a in (g, n))
        h = None if h is None else np.take_along_axis(h, order, axis=-1)
    GL, NL = (np.cumsum(a[..., :-1], axis=-1) for a in (g, n))  # (the last: all left)
    HL = NL if h is None else np.cumsum(h[..., :-1], axis=-1)
    if data.missing_column < 0:
        return GL, HL, NL, order
    miss = data.missing_column
    missing_left = [a + b[..., miss:miss + 1] for a, b in ((GL, hist.g), (HL, hist.hess),
                                                          (NL, hist.n))]
    # Of the cuts that make the same children, scikit-learn's right-to-left scan keeps
    # the highest: the one before a bin that holds samples.
    missing_left[2][hist.n[..., 1:] == 0] = 0
    missing_left[2][..., data.categorical, :] = 0         # (sorted with the categories)
    return (*(np.concatenate([a, b], -1) for a, b in zip((GL, HL, NL), missing_left)), order)


def best_splits(hist, sums, data, rules, roots):
    """The best split of each of m nodes from their histograms.

    ``sums``: the nodes' ``NodeSums``; ``rules``: a ``BoostingRules``.  A cut is a
    candidate when both children keep ``min_samples_leaf`` samples and a sum of hessians
    of ``min_hessian_to_split``; the best one (``treelib.split.best_cut``'s tie rule)
    splits the node if its gain is positive beyond rounding (above its rounding bound:
    a node whose gains are all zero up to rounding, such as a node of equal gradients,
    stays a leaf).  ``roots`` (m,) bool: the nodes searched with scikit-learn's root
    value 0, whose gain is measured without the parent's term ``G^2 / (H + l2)``, so
    that they split whenever a candidate exists.  Returns, per node, ``(gain, feature,
    cut, n_left, G_L, H_L, order)`` or None.  O(m f B).
    """
    return choose_splits(*candidate_sums(hist, data), sums, rules, roots,
                         hist.h is not None)


def choose_splits(GL, HL, NL, order, sums, rules, roots, hessians, GR=None):
    """``best_splits`` from the left sums of every candidate cut, ``GL``, ``HL``, ``NL``
    (m, f, C) and ``order`` as ``candidate_sums`` returns them; ``hessians``: whether
    ``HL`` holds sums of hessians rather than counts; ``GR``: the right sums of
    gradients when known more exactly than ``G - GL`` (``treelib.growth
    .exact_boosting``)."""
    G, H, N = (v[:, None, None] for v in (sums.G, sums.H, sums.N))
    msl, min_hessian, l2 = (rules.min_samples_leaf, rules.min_hessian_to_split,
                            rules.l2_regularization)
    invalid = (NL < msl) | (NL > N - msl)
    if hessians or min_hessian > msl:                # (counts of at least msl >= 1 pass)
        invalid |= (HL < min_hessian) | (H - HL < min_hessian)
    with np.errstate(divide="ignore", invalid="ignore"):
        gains = gain_from_sums(GL[..., None], HL, G[..., None], H, "newton", l2,
                               None if GR is None else GR[..., None])
        gains[invalid] = -np.inf
        m, f, n_cuts = gains.shape
        gains, GL, HL = (a.reshape(m, f * n_cuts) for a in (gains, GL, HL))
        tops = gains.max(axis=1, initial=-np.inf)
    results = []
    for s, top in enumerate(tops.tolist()):
        if top == -np.inf:
            results.append(None)
            continue
        cap = newton_bound_cap(sums, top, s)
        contenders = np.flatnonzero(gains[s] >= top - 2 * cap)
        if len(contenders) == 1 and (roots[s] or top > 2 * cap):
            i, bound = int(contenders[0]), 0.0        # (positive beyond any bound)
        else:
            i, bound = tie_broken_best(gains[s], GL[s], HL[s], contenders, sums, s, l2)
        if roots[s]:
            bound = -sums.G[s] ** 2 / (sums.H[s] + l2)
        if not gains[s, i] > bound:
            results.append(None)
            continue
        feature, cut = divmod(i, n_cuts)
        results.append((float(gains[s, i]), feature, cut, int(NL[s, feature, cut]),
                        float(GL[s, i]), float(HL[s, i]),
                        None if order is None else order[s, feature]))
    return results


def newton_bound_cap(sums, top, s):
    """``treelib.gains.bound_cap`` for the Newton gain of node s whose best gain is
    ``top``: ``4 EPS (top + 2 G^2 / H) + 32 N EPS A scale``, since ``|G_L| / H_L`` is a
    weighted mean of the node's ``|g / h|``, at most the tree's largest, ``sums.scale``.
    Only cuts within twice this of a node's best gain can tie with it."""
    G, H, N, A = sums.G[s], sums.H[s], sums.N[s], sums.A[s]
    with np.errstate(divide="ignore", invalid="ignore"):
        return float(4 * EPS * (max(top, 0.0) + 2 * G * G / H) + 32 * EPS * N * A * sums.scale)


def tie_broken_best(gains, GL, HL, contenders, sums, s, l2):
    """``(index, bound)`` of node s's best cut under ``treelib.split.best_cut`` (index
    feature-major) and its rounding bound, from the cuts that could tie with the best
    (``contenders``, increasing): their exact rounding bounds
    (``treelib.gains.gain_rounding_bound``), and ``best_cut`` on them listed feature by
    feature, cut by cut, which is its rule on the whole (cuts x features) array: the
    lowest feature, then the lowest cut, among the tied."""
    contenders = np.asarray(contenders)
    G, H = sums.G[s], sums.H[s]
    bounds = gain_rounding_bound(GL[contenders][:, None], HL[contenders], np.array([G]), H,
                                 "newton", abs_total=np.array([sums.A[s]]),
                                 gain=gains[contenders], n_terms=sums.N[s], l2=l2)
    cut, _ = best_cut(gains[contenders][:, None], bounds[:, None])
    return int(contenders[cut]), float(bounds[cut])
