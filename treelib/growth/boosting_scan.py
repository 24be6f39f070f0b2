"""The best splits of a few nodes of gradient boosting, without the tie machinery where
it cannot change the answer.

``treelib.growth.boosting_histograms.choose_splits`` applies treelib's one tie rule
(``treelib.split.Candidates.contenders``, ``tie_winners``): every cut within twice the
bound cap of its node's best gain is a contender, the contenders' rounding bounds are
computed, and the first contender (in feature, then cut order) whose ``gain + bound``
reaches the reference's ``gain - bound`` wins, the reference being the first cut of the
best gain.  The reference always reaches its own floor, so only a contender *before* it
can win instead (``treelib.split.best_contender`` makes the same observation for one
node).  ``fast_splits`` decides from the gains alone the nodes that have none:

- no cut before the first best gain ``top`` reaches ``top - 2 cap`` (the contenders'
  floor, the same floats as ``contenders``' own): the first best wins, as
  ``tie_winners`` would decide;
- it splits the node when its gain is above its rounding bound (``choose_splits``; a
  lone contender's bound counts as 0): no bound exceeds the cap (``newton_bound_cap``),
  so a best gain above twice the cap splits; a root, compared with ``-G^2 / (H + l2)``
  and not with a bound, needs no bound at all.

A node that is not a root and whose samples all have the same gradient and the same
hessian (``uniform``; common with many classes, where most rows of a class's tree have
the same small gradient) stays a leaf without ``choose_splits``: every exact gain of its
cuts is at most 0 (``x^2 / (x h + l2)`` is convex and 0 at 0), so a computed gain is at
most its rounding bound, and ``choose_splits`` splits a node only above it.
Any other node (a contender before the best, a best gain within twice the cap of 0, a
non-finite gain or cap) sends the whole batch to ``choose_splits`` with the same gains:
the results are ``choose_splits``' in every case, bit for bit (tests/growth/
test_boosting_scan.py).  In a tree of gradient boosting almost every node is decided
here: the cuts after the empty bins that follow the best make the same children from the
same sums, to the last bit, but they come after it.

Why boosting keeps its own histograms rather than the level-wise histogram grower's
(``treelib.growth.level_wise_hist``, ``level_histograms``): that grower centres every
node's statistics on the node's mean and re-centres a subtracted histogram by its
weights, grows a level at a time, and scores squared error, Gini or entropy; boosting's
trees must add scikit-learn's uncentred gradients and hessians in scikit-learn's order
(appendix A7's bit-for-bit agreement, and the monotonic constraints'), grow best first
under a leaf budget whose order decides the tree, and score the Newton gain with its
hessian and root rules.  What the two share is the scan's shape, one protocol
(``treelib.split.Candidates``, the one tie rule) and this shortcut's reasoning.

O(m f C) for m nodes of f features and C cuts each.
"""

import numpy as np

from treelib.gains import BoundTerms, gain_rounding_bound
from treelib.growth.boosting_caps import FLOAT_NODES, newton_bounds_in_floats
from treelib.growth.boosting_histograms import (
    FoundSplit,
    choose_splits,
    newton_bound_cap,
    newton_gains,
)

INF = float("inf")


def fast_splits(cuts, sums, rules, roots, uniform=None):
    """The best split of each of m nodes from the left sums of their cuts (``CutSums``),
    as ``treelib.growth.boosting_histograms.choose_splits`` returns them (a ``FoundSplit``
    or None per node), deciding from the gains alone where the tie rule cannot change
    the answer (module docstring).  ``roots`` (m,): the nodes searched as scikit-learn's
    root; ``uniform``: None, or ``uniform(s)`` whether all the samples of node s have
    the same gradient and the same hessian (asked only of a node the gains alone do not
    decide: such a node, not a root, stays a leaf).  O(m f C)."""
    gains = newton_gains(cuts, sums, rules)
    m = len(gains)
    flat = gains.reshape(m, -1)
    if flat.shape[1] == 0:
        return choose_splits(cuts, sums, rules, roots, gains)
    first = flat.argmax(axis=1)               # the first best, in feature then cut order
    tops = flat[np.arange(m), first]          # (a NaN is first and top: sent on below)
    some = tops != -np.inf                                  # nodes with a candidate
    cap = node_caps(sums, tops, some)
    if cap is None:
        return choose_splits(cuts, sums, rules, roots, gains)
    floor = tops - 2 * cap                                  # as ``contenders``
    l2, n_cuts = rules.l2_regularization, gains.shape[2]
    results = [None] * m
    firsts, floors, caps = first.tolist(), floor.tolist(), cap.tolist()   # (the same
    for s in np.flatnonzero(some).tolist():                               # doubles)
        at, gain = firsts[s], flat[s, firsts[s]]
        # a contender before the first best (none is NaN: argmax stops at the first)
        if ((at and flat[s, :at].max() >= floors[s])
                or not (roots[s] or gain > 2 * caps[s])):       # or the bound decides
            if not roots[s] and uniform is not None and uniform(s):
                continue                                    # a uniform node: a leaf
            results[s] = settle(cuts, sums, l2, flat[s], at, floor[s], s, roots[s])
            if results[s] is False:
                return choose_splits(cuts, sums, rules, roots, gains)
            continue
        if roots[s] and not gain > -sums.G[s] ** 2 / (sums.H[s] + l2):
            continue
        j, cut = divmod(at, n_cuts)
        results[s] = FoundSplit(float(gain), j, cut, int(cuts.NL[s, j, cut]),
                                float(cuts.GL[s, j, cut]), float(cuts.HL[s, j, cut]),
                                None if cuts.order is None else cuts.order[s, j])
    return results


def settle(cuts, sums, l2, gains, first, floor, s, root):
    """``choose_splits``' answer for node s alone, its ``gains`` (f C,) read feature
    after feature, its first best at ``first`` and its contenders' ``floor``: the tie
    rule (``treelib.split.tie_winners``) picks the first contender whose ``gain +
    bound`` reaches the first best's ``gain - bound``, and the first best reaches it
    itself, so only the contenders before it are read, in order, a few at a time until
    one reaches it (each bound is its cut's own, whoever else is computed with it);
    then the winner's test (``gain > bound``; a root's: ``gain > -G^2 / (H + l2)``).
    A ``FoundSplit``, None (no split) or False (the first best's bound is not finite
    or negative: ask ``choose_splits``).  O(f C), bounds for the contenders read."""
    before = gains[:first]
    at = np.append(np.flatnonzero((before >= floor) & (before > -INF)), first)
    feature, label = np.divmod(at, cuts.GL.shape[2])
    score, GL, HL = gains[at], cuts.GL[s, feature, label], cuts.HL[s, feature, label]
    last = len(at) - 1                                          # the first best
    bound = float(cut_bounds(GL[last:], HL[last:], score[last:], sums, s, l2)[0])
    if not 0.0 <= bound < INF:
        return False
    reach, i = score[last] - bound, last              # as ``tie_winners``: best - bound
    for lo, hi in ((0, min(FLOAT_NODES, last)), (FLOAT_NODES, last)):
        if lo < hi:
            bounds = cut_bounds(GL[lo:hi], HL[lo:hi], score[lo:hi], sums, s, l2)
            reached = np.flatnonzero(score[lo:hi] + bounds >= reach)
            if len(reached):
                i, bound = lo + int(reached[0]), float(bounds[reached[0]])
                break
    limit = -sums.G[s] ** 2 / (sums.H[s] + l2) if root else bound
    if not score[i] > limit:
        return None
    j, cut = int(feature[i]), int(label[i])
    return FoundSplit(float(score[i]), j, cut, int(cuts.NL[s, j, cut]),
                      float(cuts.GL[s, j, cut]), float(cuts.HL[s, j, cut]),
                      None if cuts.order is None else cuts.order[s, j])


def cut_bounds(GL, HL, score, sums, s, l2):
    """The rounding bounds (``treelib.gains.gain_rounding_bound``, criterion "newton")
    of cuts of node s with left sums ``GL``, ``HL`` and gains ``score``: in Python
    floats for a few (``boosting_caps.newton_bounds_in_floats``, the same bits), else
    numpy's.  O(cuts)."""
    bounds = None if len(GL) > FLOAT_NODES else newton_bounds_in_floats(
        GL, HL, sums.G[s], sums.H[s], sums.A[s], sums.N[s], score, l2)
    if bounds is None:
        node = np.full(len(GL), s)
        bounds = gain_rounding_bound(GL[:, None], HL, sums.G[node][:, None], sums.H[node],
                                     "newton", abs_total=sums.A[node][:, None], gain=score,
                                     terms=BoundTerms(n_terms=sums.N[node], l2=l2))
    return bounds


def node_caps(sums, tops, some):
    """``treelib.growth.boosting_histograms.newton_bound_cap`` of the nodes ``some``
    (the others' cap: 0) with best gains ``tops``.  None when a node of ``some`` has a
    cap that is not finite (a best gain that is not: its cap is not either) or no
    positive H.  O(m), in Python floats (one or two nodes a call)."""
    caps = newton_bound_cap(sums, tops).tolist()
    for s, (H, inside) in enumerate(zip(sums.H.tolist(), some.tolist())):
        if not inside:
            caps[s] = 0.0
        elif not (H > 0 and abs(caps[s]) < INF):
            return None
    return np.array(caps)


def uniform(g, h, rows):
    """Whether all of ``rows`` have the same gradient ``g`` and the same hessian ``h``
    (None: all 1).  O(rows)."""
    values = g[rows]
    if not values.min() == values.max():
        return False
    return h is None or bool(h[rows].min() == h[rows].max())
