"""Two classic answers to missing values that treelib's trees do not implement, as plain
reference growers for the missing-value benchmark (``treelib.bench.missing``) and the
chapter on missing values.  Both are regression trees (squared error) grown depth first
to ``max_depth``; both choose a node's split among the rows where its feature is present.

- ``OwnBranchTree``: a split has a third child for the rows whose feature is missing
  (seed article 001's random decision trees, and C4.5-like ternary splits), and the gain
  counts that child: ``S_L^2/n_L + S_R^2/n_R + S_M^2/n_M - S^2/n``.  A row with a
  missing value at a split whose training rows had none stops there (the split node's
  value answers), as in treelib's random decision trees.
- ``SurrogateTree``: CART's surrogate splits, as R's rpart computes them (Breiman et al.,
  1984; Therneau and Atkinson's rpart).  The primary split is the best one on the rows
  where its feature is present; then, for every other feature, the split that best
  reproduces the primary's left/right decision (most rows in agreement, at least two rows
  each way) is a *surrogate* if it beats the majority rule.  A row missing the primary
  feature follows the first surrogate whose feature it has, else the majority.

Costs per node: a sort of every feature, O(f n log n), and for the surrogates one more
scan per feature, O(f n log n).  Plain numpy and Python: reference code, not fast code.
"""

import numpy as np

from treelib.tree import LEFT, MISSING, RIGHT, TreeRecorder

#: rpart's default: at most five surrogates per split.
MAX_SURROGATES = 5


def present_split(X, y, min_samples_leaf=1, missing_child=False):
    """The best split of a node on the rows where each feature is present.

    Returns ``(feature, threshold, gain)`` or None.  Without ``missing_child`` the gain
    of a cut of feature j is the squared-error gain among the rows present in j (rpart's
    primary split); with it, the rows missing j form a third child and the gain is the
    node's sum of squares minus its three children's.  Ties: the first feature, then the
    lowest threshold.  O(f n log n).
    """
    n, n_features = X.shape
    yc = y - y.mean()
    order = np.argsort(X, axis=0, kind="stable")                 # missing values last
    xs = np.take_along_axis(X, order, axis=0)
    left = np.cumsum(yc[order], axis=0)                           # (n, f)
    present = (~np.isnan(X)).sum(axis=0)                          # (f,)
    features = np.arange(n_features)
    s_present = np.where(present > 0, left[np.maximum(present - 1, 0), features], 0.0)
    n_left = np.arange(1, n)[:, None]
    s_left, n_right = left[:-1], present[None, :] - n_left
    s_right = s_present[None, :] - s_left
    with np.errstate(divide="ignore", invalid="ignore"):
        gains = s_left ** 2 / n_left + s_right ** 2 / n_right
        if missing_child:
            n_missing = n - present
            s_missing = yc.sum() - s_present
            gains += np.where(n_missing > 0, s_missing ** 2 / np.maximum(n_missing, 1), 0.0)
            gains -= yc.sum() ** 2 / n
        else:
            gains -= s_present ** 2 / np.maximum(present, 1)
    valid = ((xs[1:] > xs[:-1]) & (n_left >= min_samples_leaf)
             & (n_right >= min_samples_leaf))           # NaN > x is False: present cuts only
    gains = np.where(valid, gains, -np.inf)
    if not np.isfinite(gains).any():
        return None
    cut, feature = np.unravel_index(np.argmax(gains.T), gains.T.shape)[::-1]
    threshold = xs[cut, feature] / 2 + xs[cut + 1, feature] / 2
    return int(feature), float(threshold), float(gains[cut, feature])


def best_surrogate(x, goes_left):
    """The split of feature ``x`` that best reproduces ``goes_left`` (the primary split's
    decision) on the rows where ``x`` is present, as rpart's ``choose_surg``.

    Returns ``(agreement, threshold, below_goes_left)``: the number of rows that the
    surrogate sends the primary's way, and its test ``x <= threshold`` sending a row left
    when ``below_goes_left`` (right otherwise); None without a cut that leaves two rows
    on each side.  O(n log n).
    """
    present = ~np.isnan(x)
    xs_order = np.argsort(x[present], kind="stable")
    xs, d = x[present][xs_order], goes_left[present][xs_order]
    m = len(xs)
    if m < 4:
        return None
    below_left = np.cumsum(d)[:-1]                  # primary-left rows with x <= cut
    below = np.arange(1, m)
    below_right = below - below_left
    total_left = d.sum()
    total_right = m - total_left
    same = below_left + (total_right - below_right)     # x <= t goes left
    swapped = below_right + (total_left - below_left)   # x <= t goes right
    valid = (xs[1:] > xs[:-1]) & (below >= 2) & (m - below >= 2)
    if not valid.any():
        return None
    agreement = np.where(valid, np.maximum(same, swapped), -1)
    cut = int(np.argmax(agreement))
    threshold = xs[cut] / 2 + xs[cut + 1] / 2
    return int(agreement[cut]), float(threshold), bool(same[cut] >= swapped[cut])


def surrogates_of(X, feature, threshold, max_surrogates=MAX_SURROGATES):
    """The surrogates of the split ``X[:, feature] <= threshold`` of a node, best first:
    ``[(feature, threshold, below_goes_left), ...]``, those whose agreement beats the
    majority rule (rpart's adjusted agreement > 0, over the rows the primary splits), and
    the majority direction (True: left; left on a tie, as rpart).  O(f n log n)."""
    present = ~np.isnan(X[:, feature])
    goes_left = X[present, feature] <= threshold
    total, n_left = len(goes_left), int(goes_left.sum())
    majority = max(n_left, total - n_left)
    found = []
    for k in range(X.shape[1]):
        if k == feature:
            continue
        best = best_surrogate(X[present, k], goes_left)
        if best is not None and best[0] > majority:
            found.append((-best[0], k, best[1], best[2]))
    found.sort()
    return [(k, t, below) for _, k, t, below in found[:max_surrogates]], n_left >= total - n_left


def route_with_surrogates(X, feature, threshold, surrogates, majority_left):
    """Which rows of ``X`` go left at a split with surrogates: by the primary test where
    its feature is present, else by the first surrogate whose feature is, else by the
    majority direction.  O(n x surrogates)."""
    column = X[:, feature]
    undecided = np.isnan(column)
    left = np.where(undecided, False, column <= threshold)
    for k, t, below_left in surrogates:
        usable = undecided & ~np.isnan(X[:, k])
        left[usable] = (X[usable, k] <= t) == below_left
        undecided &= ~usable
    left[undecided] = majority_left
    return left


class ReferenceTree:
    """What the two reference trees share: depth-first growth into a treelib ``Tree``
    (value: the mean target; impurity: the variance) and the stopping rules."""

    def __init__(self, max_depth=8, min_samples_leaf=1):
        self.max_depth = max_depth
        self.min_samples_leaf = min_samples_leaf

    def fit(self, X, y):
        X, y = np.asarray(X, np.float64), np.asarray(y, np.float64)
        self.recorder_, self.extra_ = TreeRecorder(), {}
        root = self.recorder_.add_nodes(y.mean(), y.var(), [len(y)])[0]
        stack = [(root, np.arange(len(y)), 0)]
        while stack:
            node, rows, depth = stack.pop()
            if depth >= self.max_depth or len(rows) < 2 or np.ptp(y[rows]) == 0:
                continue
            for child in reversed(self.split_node(node, X[rows], y[rows], rows)):
                stack.append((*child, depth + 1))
        self.tree_ = self.recorder_.finish()
        return self

    def add_children(self, node, y, parts, branches):
        """Record the children of ``node`` holding the rows ``parts`` (local indices
        into ``y``, one array per branch); return their (id, rows) pairs."""
        children = []
        for part, branch in zip(parts, branches):
            ids = self.recorder_.add_nodes(y[part].mean(), y[part].var(), [len(part)],
                                           parents=[node], branch=branch)
            children.append((ids[0], part))
        return children


class OwnBranchTree(ReferenceTree):
    """A regression tree whose splits give missing values a child of their own."""

    def split_node(self, node, X, y, rows):
        split = present_split(X, y, self.min_samples_leaf, missing_child=True)
        if split is None or split[2] <= 0:
            return []
        feature, threshold, _ = split
        column = X[:, feature]
        missing = np.isnan(column)
        parts = [np.flatnonzero(~missing & (column <= threshold)),
                 np.flatnonzero(~missing & (column > threshold))]
        branches = [LEFT, RIGHT]
        if missing.any():
            parts.append(np.flatnonzero(missing))
            branches.append(MISSING)
        self.recorder_.set_splits([node], feature, threshold)
        return [(child, rows[part]) for child, part in self.add_children(node, y, parts,
                                                                         branches)]

    def predict(self, X):
        return self.tree_.predict(np.asarray(X, np.float64))[:, 0]


class SurrogateTree(ReferenceTree):
    """A regression tree with CART's surrogate splits (rpart's rules)."""

    def split_node(self, node, X, y, rows):
        split = present_split(X, y, self.min_samples_leaf)
        if split is None or split[2] <= 0:
            return []
        feature, threshold, _ = split
        surrogates, majority_left = surrogates_of(X, feature, threshold)
        left = route_with_surrogates(X, feature, threshold, surrogates, majority_left)
        if left.all() or not left.any():
            return []
        self.recorder_.set_splits([node], feature, threshold)
        self.extra_[node] = (surrogates, majority_left)
        parts = [np.flatnonzero(left), np.flatnonzero(~left)]
        return [(child, rows[part]) for child, part in self.add_children(node, y, parts,
                                                                         [LEFT, RIGHT])]

    def predict(self, X):
        X = np.asarray(X, np.float64)
        tree, out = self.tree_, np.empty(len(X))
        stack = [(0, np.arange(len(X)))]
        while stack:
            node, rows = stack.pop()
            if tree.is_leaf[node]:
                out[rows] = tree.value[node, 0]
                continue
            surrogates, majority_left = self.extra_[node]
            left = route_with_surrogates(X[rows], tree.feature[node], tree.threshold[node],
                                         surrogates, majority_left)
            stack += [(tree.children_left[node], rows[left]),
                      (tree.children_right[node], rows[~left])]
        return out
