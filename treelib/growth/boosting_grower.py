"""Gradient boosting's trees: best first, on histograms of gradients and hessians.

Each tree of gradient boosting is grown on the bin codes of the features
(``treelib.binning``) and on two numbers per sample, its gradient g and hessian h
(``treelib.losses``).  A node's histogram holds, per feature and bin, the sums of g and h
and the number of samples; a cumulative sum over the bins gives the left child's
``G_L, H_L`` of every cut, and the **Newton gain** (``treelib.gains``, criterion
"newton")::

    G_L^2 / (H_L + l2) + G_R^2 / (H_R + l2) - G^2 / (H + l2)

scores it: chapter 2's variance-to-sum identity with sums of gradients, weighted by
hessians.  A leaf predicts the Newton step ``-G / (H + l2)``, times the learning rate.

Growth follows scikit-learn's HistGradientBoosting (``TreeGrower`` and ``Splitter`` in
``sklearn/ensemble/_hist_gradient_boosting``) rule for rule:

- best first: the leaf whose best split gains most is split next, up to
  ``max_leaf_nodes`` leaves; children at ``max_depth`` are leaves, and so is a child of
  fewer than ``2 min_samples_leaf`` samples;
- a cut is a candidate when both children keep ``min_samples_leaf`` samples and a sum of
  hessians of at least ``min_hessian_to_split`` (1e-3), and a node splits only if its best
  gain is positive.  scikit-learn's root has the value 0 while it is searched, so its
  gain is measured without the parent's term ``G^2 / (H + l2)``: the root splits whenever
  a candidate has a child with a nonzero sum of gradients; and a root that does not split
  predicts 0.  Both are followed here;
- missing values (``MISSING_BIN``) are tried on both sides of every cut of a feature that
  had any in training; a split of a feature without any in training sends them to the
  larger child (the right one on a tie);
- categorical features (``treelib.finders.categorical``): the categories present in the
  node, the missing values one more, sorted by ``G / (H + 10)`` (``Categories(...,
  smooth=10)``), then scanned like an ordered feature;
- **histogram subtraction**: of two siblings, the smaller one's histogram is counted, the
  larger one's is its parent's minus the smaller one's.  A node keeps its samples in
  increasing order, so every bin adds its gradients in the order scikit-learn adds them.

Where scikit-learn keeps the first of two exactly equal gains in its scan order, treelib
applies its one tie rule (``treelib.split.best_cut``): cuts whose gains are equal up to
their rounding bounds are tied, and the lowest feature, then the lowest cut, wins.  The
two differ only on (near-)ties; where they may, see ``treelib.estimators.boosting``.

Costs per tree, with n samples, f features and B bins: O(f n) for the root's histogram,
O(f n_small) for each split's smaller child, O(f B) to subtract and to score a node.
"""

import dataclasses
import heapq
from dataclasses import dataclass

import numpy as np

from treelib.finders.categorical import category_order
from treelib.gains import EPS, gain_from_sums, gain_rounding_bound
from treelib.split import MISSING_BIN, best_cut
from treelib.tree import LEFT, RIGHT, TreeRecorder

#: scikit-learn adds this to every leaf's sum of hessians (``compute_node_value``).
HESSIAN_EPSILON = 1e-15
#: Categories are sorted by ``G / (H + CATEGORY_SMOOTHING)`` (LightGBM's ``cat_smooth``).
CATEGORY_SMOOTHING = 10.0


class BinnedData:
    """The bin codes of the training data, prepared once for all the trees of a fit.

    ``codes`` (n, f) uint8 bin codes (missing: ``MISSING_BIN``); ``n_bins`` (f,) the bins
    of real values of each feature (for a categorical feature, its number of
    categories); ``categorical`` (f,) bool.  Kept here: ``keys`` (f, n), the histogram
    entry ``feature * width + bin`` of every value (the missing values in the last
    column, ``missing_column``), feature by feature, and the histogram of sample counts of
    all the rows (the same for every tree grown on them).
    """

    def __init__(self, codes, n_bins, categorical=None):
        codes = np.asarray(codes, dtype=np.uint8)
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


def count_histograms(data, samples, g, h=None):
    """The histograms of the node holding ``samples`` (increasing; None: every row),
    shape (1, f, width), from ``g`` and ``h`` (float64, all the rows): one
    ``np.bincount`` per statistic over the keys, feature after feature, so each bin adds
    its values in the order of the samples (as scikit-learn does).  O(f n_node)."""
    f, width = data.n_features, data.width
    shape = (1, f, width)
    if samples is None:
        keys = data.keys.ravel()
    else:
        keys = np.take(data.keys, samples, axis=1).ravel()
        g, h = g[samples], None if h is None else h[samples]

    def per_bin(weights):
        return np.bincount(keys, weights=np.tile(weights, f), minlength=f * width).reshape(shape)

    n = data.all_counts if samples is None else \
        np.bincount(keys, minlength=f * width).reshape(shape) * 1.0
    return Histograms(per_bin(g), None if h is None else per_bin(h), n)


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
    GL, NL = (np.cumsum(a, axis=-1)[..., :-1] for a in (g, n))
    HL = NL if h is None else np.cumsum(h, axis=-1)[..., :-1]
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

    ``sums``: the nodes' ``NodeSums``; ``roots`` (m,) bool: nodes searched with
    scikit-learn's root value 0.  Returns one ``(gain, feature, cut, n_left, GL, HL,
    order)`` per node, or None where no candidate has a positive gain.  O(m f B).
    """
    GL, HL, NL, order = candidate_sums(hist, data)
    G, H, N = (v[:, None, None] for v in (sums.G, sums.H, sums.N))
    msl, min_hessian, l2 = rules.min_samples_leaf, rules.min_hessian_to_split, \
        rules.l2_regularization
    valid = (NL >= msl) & (NL <= N - msl)
    if hist.h is not None or min_hessian > msl:      # (counts of at least msl >= 1 pass)
        valid &= (HL >= min_hessian) & (H - HL >= min_hessian)
    with np.errstate(divide="ignore", invalid="ignore"):
        gains = np.where(valid, gain_from_sums(GL[..., None], HL, G[..., None], H, "newton",
                                               l2), -np.inf)
    m, f, n_cuts = gains.shape
    gains, GL, HL = (a.reshape(m, f * n_cuts) for a in (gains, GL, HL))
    results = []
    for s, top in enumerate(gains.max(axis=1)):
        i = None if not np.isfinite(top) else tie_broken_best(gains[s], GL[s], HL[s], sums,
                                                              s, top, l2)
        # scikit-learn's root value is 0: its gain has no parent term (acceptance only)
        offset = sums.G[s] ** 2 / (sums.H[s] + l2) if roots[s] else 0.0
        if i is None or not gains[s, i] + offset > 0:
            results.append(None)
            continue
        feature, cut = divmod(int(i), n_cuts)
        results.append((float(gains[s, i]), feature, cut, int(NL[s, feature, cut]),
                        float(GL[s, i]), float(HL[s, i]),
                        None if order is None else order[s, feature]))
    return results


def newton_bound_cap(G, H, N, A, scale, top):
    """``treelib.gains.bound_cap`` of one node for the Newton gain, in Python floats (it
    runs at every node): ``4 EPS (top + 2 G^2 / H) + 32 N EPS A scale``."""
    return 4 * EPS * (max(top, 0.0) + 2 * G * G / H) + 32 * EPS * N * A * scale


def tie_broken_best(gains, GL, HL, sums, s, top, l2):
    """Index (feature-major) of node s's best cut under ``treelib.split.best_cut``.

    Only cuts within twice ``treelib.gains.bound_cap`` of the best gain ``top`` can tie
    with it (``|G_L| / H_L`` is a weighted mean of the node's ``|g / h|``, so at most the
    tree's largest, ``sums.scale``): their exact rounding bounds are computed, and
    ``best_cut`` runs on them listed feature by feature, cut by cut, which is its rule on
    the whole (cuts x features) array (lowest feature, then lowest cut, among the tied).
    """
    G, H, N, A = sums.G[s], sums.H[s], sums.N[s], sums.A[s]
    contenders = np.flatnonzero(gains >= top - 2 * newton_bound_cap(G, H, N, A, sums.scale,
                                                                    top))
    if len(contenders) == 1:
        return contenders[0]
    bounds = gain_rounding_bound(GL[contenders][:, None], HL[contenders], np.array([G]), H,
                                 "newton", abs_total=np.array([A]), gain=gains[contenders],
                                 n_terms=N, l2=l2)
    cut, _ = best_cut(gains[contenders][:, None], bounds[:, None])
    return contenders[cut]


@dataclass(frozen=True)
class BoostingRules:
    """scikit-learn's HistGradientBoosting rules for one tree (see the module docstring):
    ``max_leaf_nodes`` and ``max_depth`` (None: no limit), ``min_samples_leaf``,
    ``min_hessian_to_split`` and the L2 regularisation ``l2_regularization`` added to every
    sum of hessians."""

    max_leaf_nodes: int | None = 31
    max_depth: int | None = None
    min_samples_leaf: int = 20
    min_hessian_to_split: float = 1e-3
    l2_regularization: float = 0.0


def sklearn_sum(row, n_bins, missing_column):
    """The sum of one feature's histogram row as scikit-learn adds it: numpy's pairwise
    sum over its 256 bins (the missing values in the last), so that the root's sums
    agree bit for bit."""
    full = np.zeros(MISSING_BIN + 1)
    full[:n_bins] = row[:n_bins]
    if missing_column >= 0:
        full[MISSING_BIN] = row[missing_column]
    return float(full.sum())


def grow_boosting_tree(data, g, h=None, rules=BoostingRules(), shrinkage=1.0, samples=None,
                       counter=None):
    """Grow one tree of gradient boosting on ``data`` (a ``BinnedData``).

    ``g`` (n,) gradients, ``h`` (n,) hessians (None: all 1, the sums of hessians are then
    the counts), float32 or float64; ``samples``: the increasing rows to grow on (None:
    all; GOSS passes a sample).  Returns ``(tree, node_of)``: a ``treelib.tree.Tree``
    whose thresholds are **bins** (``on_features`` writes them on the features), each
    node's value ``-G / (H + l2)`` times ``shrinkage`` (the root's 0 if it is a leaf), and
    the leaf each row of ``samples`` ends in (-1 for the rows not in ``samples``).
    """
    every_row = samples is None
    samples = np.arange(data.n_samples) if every_row else np.asarray(samples, np.intp)
    l2, msl = rules.l2_regularization, rules.min_samples_leaf
    g = np.asarray(g, dtype=np.float64)                 # float32 values added in float64
    h = None if h is None else np.asarray(h, dtype=np.float64)
    abs_g = np.abs(g)
    scale = (abs_g[samples] / (1.0 if h is None else np.maximum(h[samples], EPS))).max(
        initial=0.0)
    recorder, leaves = TreeRecorder(), {0: samples}
    hist = count_histograms(data, None if every_row else samples, g, h)
    G = sklearn_sum(hist.g[0, 0], int(data.n_bins[0]), data.missing_column)
    H = float(len(samples)) if h is None else sklearn_sum(hist.h[0, 0], int(data.n_bins[0]),
                                                          data.missing_column)
    recorder.add_nodes(np.zeros((1, 1)), [impurity(G, H, l2)], [len(samples)], weight=[H])
    heap, created = [], 0

    def search(depth, nodes, batch, roots):
        """Search ``nodes`` [(id, rows, G, H, A)] of histograms ``batch``; push the
        splittable ones on the heap."""
        nonlocal created
        if counter is not None:
            counter.searched(depth, len(nodes), sum(len(node[1]) for node in nodes))
        sums = NodeSums(*([node[k] for node in nodes] for k in (2, 3)),
                        [len(node[1]) for node in nodes], [node[4] for node in nodes], scale)
        for k, found in enumerate(best_splits(batch, sums, data, rules, roots)):
            if found is not None:
                one = batch if len(nodes) == 1 else batch.take(k)
                heapq.heappush(heap, (-found[0], created, nodes[k], depth, one, found))
                created += 1

    if counter is not None:
        counter.histogram_pairs += len(samples) * data.n_features
    if len(samples) >= 2 * msl and H >= rules.min_hessian_to_split:
        search(0, [(0, samples, G, H, float(abs_g[samples].sum()))], hist, [True])
    n_leaves = 1
    while heap and (rules.max_leaf_nodes is None or n_leaves < rules.max_leaf_nodes):
        _, _, (node, rows, G, H, A), depth, node_hist, found = heapq.heappop(heap)
        gain, feature, cut, n_left, GL, HL, order = found
        goes_left, missing_left, categories = split_rows(data, rows, feature, cut, order,
                                                         n_left)
        recorder.set_splits(node, feature, bin_threshold(data, cut, categories),
                            missing_left, categories)
        left, right = rows[goes_left], rows[~goes_left]
        sides = [(GL, HL, left), (G - GL, H - HL, right)]
        values = [[-Gc / (Hc + l2 + HESSIAN_EPSILON) * shrinkage] for Gc, Hc, _ in sides]
        ids = recorder.add_nodes(values, [impurity(Gc, Hc, l2) for Gc, Hc, _ in sides],
                                 [len(left), len(right)], [node, node], [LEFT, RIGHT],
                                 [HL, H - HL])
        del leaves[node]
        leaves.update(zip(ids.tolist(), (left, right)))
        n_leaves += 1
        if rules.max_depth is not None and depth + 1 >= rules.max_depth:
            continue
        splittable = [len(rows) >= 2 * msl for _, _, rows in sides]
        if not any(splittable):
            continue
        small = 0 if len(left) < len(right) else 1       # scikit-learn: right on a tie
        counted = count_histograms(data, sides[small][2], g, h)
        pair = [counted, counted]
        pair[1 - small] = node_hist - counted
        a_small = float(abs_g[sides[small][2]].sum())
        a_sides = [a_small, max(A - a_small, 0.0) * (1 + 1e-12)]
        if small == 1:
            a_sides.reverse()
        if counter is not None:
            counter.histogram_pairs += len(sides[small][2]) * data.n_features
            counter.subtracted_histograms += 1
        chosen = [c for c in (0, 1) if splittable[c]]
        nodes = [(int(ids[c]), sides[c][2], sides[c][0], sides[c][1], a_sides[c])
                 for c in chosen]
        batch = pair[chosen[0]] if len(chosen) == 1 else pair[0].stack(pair[1])
        search(depth + 1, nodes, batch, [False] * len(chosen))
    node_of = np.full(data.n_samples, -1, dtype=np.intp)
    for node, rows in leaves.items():
        node_of[rows] = node
    return recorder.finish(), node_of


def impurity(G, H, l2):
    """A node's second-order loss per unit of hessian, ``-G^2 / ((H + l2) H)`` (<= 0):
    weighted by H (the node's ``weighted_n_node_samples``), a parent's minus its
    children's is the Newton gain, so ``Tree.feature_importances`` sums gains."""
    return -G * G / ((H + l2) * H) if H > 0 else 0.0


def split_rows(data, rows, feature, cut, order, n_left):
    """Which of ``rows`` go left at cut ``cut`` of ``feature``; where missing values go;
    for a categorical feature the categories sent left (else None)."""
    column = data.keys[feature][rows] - data.offsets[feature]    # each row's bin
    width, has_missing = data.width, bool(data.has_missing[feature])
    if data.categorical[feature]:
        chosen = order[: cut + 1]
        lookup = np.zeros(width, dtype=bool)
        lookup[chosen] = True
        goes_left = lookup[column]
        categories = tuple(int(c) for c in np.sort(chosen[chosen < data.n_bins[feature]]))
        missing_left = data.missing_column >= 0 and bool(lookup[data.missing_column])
    else:
        b, missing_left = cut % (width - 1), cut >= width - 1
        goes_left = column <= b
        if missing_left:
            goes_left |= column == data.missing_column
        categories = None
    if not has_missing:                   # none in training: the larger child (scikit-learn)
        missing_left = n_left > len(rows) - n_left
    return goes_left, bool(missing_left), categories


def bin_threshold(data, cut, categories):
    """The split's threshold in bins: the last bin sent left (NaN for a categorical)."""
    return np.nan if categories is not None else float(cut % (data.width - 1))


def on_features(tree, thresholds):
    """``tree`` with its bin thresholds written on the features: bin b of feature j
    becomes ``thresholds[j][b]``, the last bin +inf (the split that sends only the
    missing values right); categorical splits keep NaN."""
    threshold = tree.threshold.copy()
    for node in np.flatnonzero(~tree.is_leaf & ~tree.categorical):
        cuts, b = thresholds[tree.feature[node]], int(threshold[node])
        threshold[node] = cuts[b] if b < len(cuts) else np.inf
    return dataclasses.replace(tree, threshold=threshold)
