"""Histograms of gradients and hessians, and the best split of a node read from them.

The search half of gradient boosting's grower (``treelib.growth.boosting_grower``): a
node's histogram holds, per feature and bin, the sums of the gradients g and hessians h
of its samples and their number; a cumulative sum over the bins gives the left child's
``G_L, H_L, N_L`` of every cut, and the **Newton gain** (``treelib.gains``, criterion
"newton")::

    G_L^2 / (H_L + l2) + G_R^2 / (H_R + l2) - G^2 / (H + l2)

scores them all at once: chapter 2's variance-to-sum identity with sums of gradients
weighted by hessians.  The cuts are ``treelib.split.Candidates``, the search protocol
every grower shares, and the best is chosen by treelib's one tie rule
(``treelib.split.tie_winners``): cuts whose gains are equal up to their rounding bounds are
tied, and the lowest feature, then the lowest cut, wins.

The grower takes a shortcut of ``choose_splits`` that gives the same splits
(``treelib.growth.boosting_scan``).  Costs: O(f n) to count a node of n samples (one
``np.bincount`` per statistic over all its (sample, feature) pairs), O(f B) to subtract
two histograms and to score a node's cuts, for f features and B bins."""

import functools
from typing import NamedTuple

import numpy as np

from treelib.finders.categorical import category_order
from treelib.gains import BoundTerms, gain_rounding_bound
from treelib.growth.boosting_caps import newton_bound_cap
from treelib.split import MISSING_BIN, Candidates, tie_winners

#: A feature whose most frequent bin holds this share of the rows is sparse (``BinnedData``).
SPARSE_SHARE = 0.5
#: Categories are sorted by ``G / (H + CATEGORY_SMOOTHING)`` (LightGBM's ``cat_smooth``,
#: scikit-learn's ``MIN_CAT_SUPPORT``).
CATEGORY_SMOOTHING = 10.0


class BinnedData:
    """The bin codes of the training data, prepared once for all the trees of a fit.

    ``codes`` (n, f) uint8 bin codes (missing: ``MISSING_BIN``); ``n_bins`` (f,) the bins
    of real values of each feature (a categorical feature's categories); ``categorical``
    (f,) bool.  Kept: ``columns`` (f, n) uint8, each value's histogram column (its bin;
    missing values in the last, ``missing_column``); ``dense_keys``, the entries ``feature
    * width + column`` of the dense features; the sample counts of all the rows; for the
    *sparse* features, whose most frequent bin holds ``SPARSE_SHARE`` of the rows or more
    (one-hot columns), their other values only, row after row (``row_ptr``,
    ``entry_rows``, ``entry_keys``): LightGBM's "most frequent bin", counted as the
    node's total minus the others.  O(f n); 9 bytes per dense value, 1 per sparse one.
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
        self.columns = np.ascontiguousarray(   # (f, n) uint8: each value's bin column
            np.where(missing, self.missing_column, codes).T, dtype=np.uint8)
        keys = self.columns + self.offsets[:, None]               # (f, n) intp
        self.all_counts = np.bincount(keys.ravel(), minlength=self.offsets[-1] +
                                      self.width).reshape(1, self.n_features, self.width) * 1.0
        default = self.all_counts[0].argmax(axis=1) + self.offsets       # flat keys
        self.sparse = self.all_counts[0].max(axis=1) >= SPARSE_SHARE * self.n_samples
        self.dense_keys = keys if not self.sparse.any() else np.ascontiguousarray(
            keys[~self.sparse])
        self.default_keys = default[self.sparse]
        sparse_keys = keys[self.sparse].T                       # (n, sparse features)
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

    def zip_with(self, other, fn):
        """``fn(mine, theirs)`` of each statistic of these and ``other`` histograms."""
        return Histograms(fn(self.g, other.g), None if self.h is None else
                          fn(self.h, other.h), fn(self.n, other.n))

    def __sub__(self, other):
        return self.zip_with(other, np.subtract)

    def take(self, k):
        """The histograms of node k alone."""
        return self.zip_with(self, lambda a, _: a[k:k + 1])

    def with_sibling(self, parent, at):
        """Two siblings' histograms (2, f, width): these (one node's) at ``at``, ``parent
        - self`` at the other, in one array without ``stack``'s copies."""
        def pair(mine, theirs):
            out = np.empty((2,) + mine.shape[1:], dtype=mine.dtype)
            out[at] = mine[0]
            np.subtract(theirs[0], mine[0], out=out[1 - at])
            return out
        return self.zip_with(parent, pair)

    def stack(self, other):
        return self.zip_with(other, lambda a, b: np.concatenate([a, b]))


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
    all_entries = every_row or not len(data.entry_keys)   # (no sparse values at all)
    entries = slice(None) if all_entries else segments(data.row_ptr, rows)
    keys.append(data.entry_keys[entries])
    keys = np.concatenate(keys) if len(keys[1]) else keys[0]
    entry_rows = data.entry_rows[entries]

    def per_bin(weights, total):
        row_weights = weights if every_row else weights[rows]
        values = np.empty((n_dense, len(row_weights)))
        values[...] = row_weights                                 # tiled, once per feature
        values = values.ravel()
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
    ``scale`` the tree's largest |g / h| (these two bound the rounding of the gains);
    ``limits``: under monotonic constraints, per node ``(G, H, value, lower, upper)`` (see
    ``treelib.growth.boosting_monotonic``), else None."""

    limits = None

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
    features; None without categorical features), the missing values as one more
    category (its missing-left cuts are no candidates).  The counts are summed as
    integers (whole numbers: the same floats, four times faster than a float cumsum).
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
    GL = np.cumsum(g[..., :-1], axis=-1)                          # (the last: all left)
    counts = n[..., :-1].astype(np.int64)
    NL = np.cumsum(counts, axis=-1, out=counts).astype(np.float64)
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


class CutSums(NamedTuple):
    """The left child's sums of every candidate cut of m nodes, as ``candidate_sums``
    returns them: ``GL``, ``HL``, ``NL`` (m, f, C) and ``order``; ``hessians``: whether
    ``HL`` holds sums of hessians rather than counts; ``GR``: the right sums of gradients
    when known more exactly than ``G - GL`` (``treelib.growth.fixed_point_boosting``)."""

    GL: np.ndarray
    HL: np.ndarray
    NL: np.ndarray
    order: np.ndarray | None = None
    hessians: bool = True
    GR: np.ndarray | None = None


class FoundSplit(NamedTuple):
    """A node's best split: its Newton ``gain``, ``feature``, ``cut`` (a column of
    ``candidate_sums``), ``n_left`` samples and sums ``GL``, ``HL`` going left, and the
    feature's bin ``order`` (categorical features; else None)."""

    gain: float
    feature: int
    cut: int
    n_left: int
    GL: float
    HL: float
    order: np.ndarray | None


def best_splits(hist, sums, data, rules, roots):
    """The best split of each of m nodes from their histograms.

    ``sums``: the nodes' ``NodeSums``; ``rules``: a ``BoostingRules``.  A cut is a
    candidate when both children keep ``min_samples_leaf`` samples and a sum of hessians
    of ``min_hessian_to_split``; the best one (``treelib.split.tie_winners``' rule)
    splits the node if its gain is positive beyond rounding (above its rounding bound:
    a node whose gains are all zero up to rounding, such as a node of equal gradients,
    stays a leaf).  ``roots`` (m,) bool: the nodes searched with scikit-learn's root
    value 0, whose gain is measured without the parent's term ``G^2 / (H + l2)``, so
    that they split whenever a candidate exists.  Returns, per node, a ``FoundSplit``
    or None.  O(m f B).
    """
    cuts = CutSums(*candidate_sums(hist, data), hessians=hist.h is not None)
    return choose_splits(cuts, sums, rules, roots)


def choose_splits(cuts, sums, rules, roots, gains=None):
    """``best_splits`` from the left sums of every candidate cut (``CutSums``): their
    Newton gains (``gains``, if known: ``newton_gains``) as ``treelib.split.Candidates``,
    the contenders within twice the bound cap of each node's best
    (``Candidates.contenders``) and the one tie rule among them
    (``treelib.split.tie_winners``; a node's lone contender wins alone).
    O(m f C) for C cuts per feature."""
    if gains is None:
        gains = newton_gains(cuts, sums, rules)
    m, l2 = len(gains), rules.l2_regularization
    candidates = newton_candidates(gains, cuts, sums, l2)
    node, feature, label, gain, bound = candidates.contenders(np.full(m, -np.inf))
    winners = range(len(node))
    if len(node) > np.count_nonzero(np.bincount(node, minlength=m)):  # some node has more
        order = np.argsort(node, kind="stable")        # by node, then feature, then cut
        node, feature, label, gain, bound = (a[order] for a in (node, feature, label, gain,
                                                                bound))
        first = np.ones(len(node), dtype=bool)
        first[1:] = node[1:] != node[:-1]
        winners = tie_winners(gain, bound, np.flatnonzero(first)).tolist()
    results = [None] * m
    for i in winners:
        s, j, cut = int(node[i]), int(feature[i]), int(label[i])
        limit = -sums.G[s] ** 2 / (sums.H[s] + l2) if roots[s] else float(bound[i])
        if gain[i] > limit:
            results[s] = FoundSplit(float(gain[i]), j, cut, int(cuts.NL[s, j, cut]),
                                    float(cuts.GL[s, j, cut]), float(cuts.HL[s, j, cut]),
                                    None if cuts.order is None else cuts.order[s, j])
    return results


def newton_gains(cuts, sums, rules):
    """The Newton gains (m, f, C) of the cuts of ``CutSums``, -inf where a child keeps
    fewer than ``min_samples_leaf`` samples or a sum of hessians below
    ``min_hessian_to_split``: ``treelib.gains.gain_from_sums`` (criterion "newton"),
    operation for operation (``G_L^2 / H_L + G_R^2 / H_R - G^2 / H``, ``l2`` added to
    every H), in place to spare the temporaries.  O(m f C)."""
    G, H, N = (v[:, None, None] for v in (sums.G, sums.H, sums.N))
    msl, min_hessian, l2 = rules.min_samples_leaf, rules.min_hessian_to_split, \
        rules.l2_regularization
    GL, HL, NL = cuts.GL, cuts.HL, cuts.NL
    invalid = NL < msl
    invalid |= NL > N - msl
    HR = H - HL
    if cuts.hessians or min_hessian > msl:           # (counts of at least msl >= 1 pass)
        invalid |= HL < min_hessian
        invalid |= HR < min_hessian
    if l2:
        HL, H = HL + l2, H + l2
        HR += l2
    if cuts.GR is None:
        right = G - GL                                       # G_R
        right *= right
    else:
        right = cuts.GR * cuts.GR
    with np.errstate(divide="ignore", invalid="ignore"):
        right /= HR
        gains = GL * GL
        gains /= HL
        gains += right
        gains -= G * G / H
    np.copyto(gains, -np.inf, where=invalid)
    return gains


def newton_candidates(gains, cuts, sums, l2):
    """The cuts of ``gains`` (m, f, C) as ``treelib.split.Candidates``, feature by
    feature, node by node, cut by cut (-inf: no candidate, never a contender), for one
    call of ``Candidates.contenders``.  Their rounding bounds (``treelib.gains
    .gain_rounding_bound``, criterion "newton") are computed for the contenders only, and
    not at all for a node's lone contender above twice the bound cap: it wins alone and
    is positive beyond any bound, so its bound decides nothing (0).  O(m f C)."""
    m, f, n_cuts = gains.shape
    scores = gains.transpose(1, 0, 2).ravel()                      # (a copy)
    feature, node, label = entry_layout(f, m, n_cuts)
    caps = {}

    def cap(top):
        caps["at top"] = newton_bound_cap(sums, top)
        return caps["at top"]

    def bounds_at(at):
        s, score = node[at], scores[at]
        # a lone contender is its node's best, whose cap ``contenders`` just asked for
        lone = score > 2 * caps["at top"][s]
        if len(at) > 1:
            lone &= np.bincount(s, minlength=m)[s] == 1
        if lone.all():
            return np.zeros(len(at))
        flat = (s * f + feature[at]) * n_cuts + label[at]         # in the (m, f, C) arrays
        bounds = gain_rounding_bound(cuts.GL.reshape(-1)[flat][:, None],
                                     cuts.HL.reshape(-1)[flat], sums.G[s][:, None],
                                     sums.H[s], "newton", abs_total=sums.A[s][:, None],
                                     gain=score, terms=BoundTerms(n_terms=sums.N[s], l2=l2))
        bounds[lone] = 0.0
        return bounds

    return Candidates(gains=scores, node=node, feature=feature, label=label,
                      bounds_at=bounds_at, cap=cap,
                      tops=gains.max(axis=(1, 2), initial=-np.inf))


@functools.lru_cache(maxsize=64)
def entry_layout(f, m, n_cuts):
    """``(feature, node, label)`` of the entries of an (f, m, C) grid read in order,
    read-only (kept: a grower asks for the same few shapes over and over).  O(f m C)."""
    layout = [a.ravel() for a in np.indices((f, m, n_cuts))]
    for a in layout:
        a.flags.writeable = False
    return tuple(layout)

