"""A split, its threshold, and the one tie rule every finder shares."""

from dataclasses import dataclass
from typing import Callable

import numpy as np

#: Bin code of a missing value (``treelib.binning`` cuts real values into at most 255
#: bins, codes 0 .. 254).
MISSING_BIN = 255


@dataclass(frozen=True)
class Split:
    """The best split of a node: ``X[:, feature] <= threshold`` goes left.

    ``gain`` is ``n I(node) - n_left I(left) - n_right I(right)`` for the criterion ``I``
    that found it: for squared error the node's sum of squared errors minus its
    children's, in squared units of y.  ``n_left`` and ``n_right`` count the samples each
    child receives.  A histogram finder works on bin codes: its splits also carry ``bin``,
    the last bin that goes left (``code <= bin`` is the same test on the training data as
    ``x <= threshold``).  A missing value (NaN, or the missing bin) goes left when
    ``missing_go_to_left``; a split whose node had no missing value sends them to its
    larger child, as scikit-learn does.  ``threshold`` is +inf for the split that sends
    every present value left and only the missing ones right.  A split of a categorical
    feature sends the categories (codes) in ``categories_left`` left, and has no
    threshold (NaN).
    """

    feature: int
    threshold: float
    gain: float
    n_left: int
    n_right: int
    bin: int | None = None
    missing_go_to_left: bool = False
    categories_left: tuple | None = None

    def goes_left(self, data):
        """Boolean mask of the rows of ``data`` that go left: ``data`` holds the features,
        or their bin codes for a histogram split (missing: ``MISSING_BIN``, 255)."""
        return self.goes_left_of(np.asarray(data)[:, self.feature])

    def goes_left_of(self, column):
        """``goes_left`` from the split feature's ``column`` alone (its values, or bin
        codes), without the other features.  O(n)."""
        if self.categories_left is not None:
            missing = np.isnan(column) if column.dtype.kind == "f" else column == MISSING_BIN
            return np.where(missing, self.missing_go_to_left,
                            np.isin(column, self.categories_left))
        if self.bin is not None:
            missing = column == MISSING_BIN
            return np.where(missing, self.missing_go_to_left, column <= self.bin)
        # in float64, as the finders and Tree.apply compare: a Python float against a
        # float32 column would be rounded to float32 first (numpy's NEP 50), and a
        # threshold just below a float32 value would send that value left
        return np.where(np.isnan(column), self.missing_go_to_left,
                        column <= np.float64(self.threshold))


def midpoint(low, high):
    """Threshold halfway between two neighbouring values, ``low <= t < high``.

    Computed in float64 as ``low/2 + high/2`` (no overflow).  When the two values are
    adjacent floats the midpoint can round up to ``high``, which would send ``high``
    left; the threshold is then ``low`` itself.
    """
    low, high = np.asarray(low, dtype=np.float64), np.asarray(high, dtype=np.float64)
    mid = low / 2 + high / 2
    return np.where((low <= mid) & (mid < high), mid, low)


@dataclass
class Candidates:
    """Scored candidate cuts: the one shape every search in treelib produces and every
    grower consumes, for one node or for all the nodes of a level.

    ``gains``, ``node``, ``feature`` and ``label`` (c,) give each candidate's gain, its
    node (0 for a single node; a node of the level otherwise), its feature (a column of
    the data) and its label: its position in the node's sorted samples, or its bin, or its
    row in a finder's (cuts x features) array, which orders a node's cuts of one feature by
    threshold.  Entries come sorted by feature, then node, then label.
    ``bounds_at(index)`` gives the rounding bounds (``treelib.gains.gain_rounding_bound``)
    of the entries at ``index``, computed on demand since only the contenders need them;
    ``cap(max_gain)`` gives, per node, an upper bound of any of its bounds when its gains
    are at most ``max_gain``.
    ``tops``, when the search knows them already, are the nodes' best gains (m,): they
    spare ``contenders`` a pass over the entries.
    """

    gains: np.ndarray
    node: np.ndarray
    feature: np.ndarray
    label: np.ndarray
    bounds_at: Callable
    cap: Callable
    tops: np.ndarray | None = None

    @classmethod
    def from_grid(cls, gains, bounds, first_feature, cap):
        """The candidates of one node from its (cuts x features) ``gains`` and ``bounds``
        (-inf: not a candidate), feature-major; the grid's columns are the features from
        ``first_feature`` on.  O(cuts x features)."""
        by_feature, bounds = np.asarray(gains).T, np.asarray(bounds).T
        column, label = np.nonzero(by_feature > -np.inf)
        return cls(gains=by_feature[column, label], node=np.zeros(len(column), np.intp),
                   feature=column + first_feature, label=label,
                   bounds_at=lambda at: bounds[column[at], label[at]], cap=cap)

    def contenders(self, running_max):
        """The entries that may be tied with their node's best: those within twice the
        bound cap of ``running_max`` (per node, the best gain seen so far, which this
        updates), as ``(node, feature, label, gain, bound)`` arrays.  O(c)."""
        gains, node = self.gains, self.node
        if self.tops is not None:
            np.maximum(running_max, self.tops, out=running_max)
        elif len(gains):
            group = self.feature * len(running_max) + node       # sorted: runs of one group
            first = np.flatnonzero(np.concatenate([[True], group[1:] != group[:-1]]))
            np.maximum.at(running_max, node[first], np.maximum.reduceat(gains, first))
        floor = running_max - 2 * self.cap(running_max)
        at = np.flatnonzero(np.isfinite(gains) & (gains >= floor[node]))
        return node[at], self.feature[at], self.label[at], gains[at], self.bounds_at(at)


def best_cut(gains, bounds):
    """Position ``(cut, feature)`` of the best cut in ``gains`` (cuts x features); None
    if every gain is ``-inf``.

    The tie rule, the same for every finder and grower in treelib (``tie_winners``):

    1. the *reference* cut is the highest gain (the first one in feature order, then cut
       order, if several are equal);
    2. a cut is *tied* with it when its gain could equal the reference's up to rounding:
       ``gain + bound >= reference gain - reference bound``, with ``bounds`` the rounding
       bounds of ``treelib.gains.gain_rounding_bound``;
    3. among the tied cuts the lowest feature index wins, then the lowest cut (the lowest
       threshold).

    A cut is never tied with a better one by more than rounding can explain, however
    large the node's impurity.  O(cuts x features).
    """
    if np.size(gains) == 0 or not np.isfinite(gains).any():
        return None
    # one node's candidates, feature-major: one run of ``tie_winners`` (a cut of gain
    # -inf is never tied with a finite reference, so none needs to be left out)
    by_feature = np.asarray(gains).T
    winner = int(tie_winners(by_feature.ravel(), np.asarray(bounds).T.ravel(),
                             np.zeros(1, np.intp))[0])
    feature, cut = divmod(winner, by_feature.shape[1])
    return cut, feature


def best_contender(gains, bounds_at, cap):
    """``best_cut`` with the rounding bounds computed for the contenders alone.

    ``gains`` (cuts x features, finite or -inf); ``bounds_at(cuts, features)`` gives the
    bounds of the cuts at those positions; ``cap(max_gain)`` an upper bound of every cut's
    bound when the gains are at most ``max_gain`` (``treelib.gains.bound_cap``; inf: every
    cut is a contender).  The rule's reference is the first best gain in feature-major
    order, and it passes the rule's floor ``best - bound(reference)`` itself: only the cuts
    before it can win instead, and of those only the ones within 4 caps of the best (a
    cut further below has ``gain + bound`` below ``best - cap``, 3 caps sparing the float
    rounding of these sums).  The rule run on them and the reference picks ``best_cut``'s
    cut; none (often): the reference wins, and no bound is computed.  O(cuts x features)
    comparisons, bounds for the contenders only."""
    if np.size(gains) == 0:
        return None
    flat = np.asarray(gains).T.ravel()                   # feature-major
    first = int(np.argmax(flat))
    best = flat[first]
    if not np.isfinite(best):
        return None
    n_cuts = gains.shape[0]
    if first > 0:
        before = flat[:first]
        at = np.flatnonzero((before >= best - 4 * cap(best)) & (before > -np.inf))
        if len(at):
            at = np.append(at, first)
            first = int(at[tie_winners(flat[at], bounds_at(at % n_cuts, at // n_cuts),
                                       np.zeros(1, np.intp))[0]])
    feature, cut = divmod(first, n_cuts)
    return cut, feature


def tie_winners(gains, bounds, starts):
    """The tie rule, written once: the index of the winner of each run of entries.

    The entries are listed run after run (a run: the candidate cuts of one node, starting
    at ``starts``), each run in the rule's order: by feature, then by cut.  In each run the
    reference is the first entry of the highest gain, and the winner is the first entry
    whose ``gain + bound`` reaches the reference's ``gain - bound`` (``best_cut`` explains
    the rule).  Every run holds at least one entry.  O(entries).
    """
    n = len(gains)
    if n == len(starts):           # one entry per run (or none at all): it wins
        return np.asarray(starts, dtype=np.intp)
    if len(starts) == 1:
        run = 0                                     # every entry is in the one run
    else:
        run = np.zeros(n, dtype=np.intp)            # the run of every entry
        run[starts[1:]] = 1
        np.cumsum(run, out=run)
    best = np.maximum.reduceat(gains, starts)
    at_best = first_in_runs(gains == best[run], starts, n)
    floor = best - bounds[at_best]
    return first_in_runs(gains + bounds >= floor[run], starts, n)


def first_in_runs(mask, starts, n):
    """Index of the first True of ``mask`` in each run beginning at ``starts`` (every
    run has one).  O(n)."""
    if n == 0:
        return np.zeros(0, dtype=np.intp)
    if len(starts) == 1:
        return np.array([starts[0] + np.argmax(mask[starts[0]:])])
    return np.minimum.reduceat(np.where(mask, np.arange(n), n), starts)
