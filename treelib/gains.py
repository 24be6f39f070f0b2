"""What a cut gains, from the sums of its two children, and how far rounding can move it.

The split finders never look at labels: they add up per-sample *statistics* (the target
centred on the node's mean for squared error, the one-hot classes for Gini and entropy,
the target itself for Poisson, gradients for boosting), each weighted by its sample's
weight, and score a cut from the sums of its left child alone (the right child is the
rest).  Each formula of the book is written here once.  Costs: O(k) per cut for k
statistics.
"""

from dataclasses import dataclass

import numpy as np

#: Unit of the rounding bounds (``gain_rounding_bound``): the spacing of floats at 1.
EPS = np.finfo(np.float64).eps

#: Criteria whose gain follows from the children's sums of statistics and weights
#: ("newton": gradient boosting's, on sums of gradients weighted by hessians).
SUM_CRITERIA = ("squared_error", "gini", "entropy", "poisson", "newton")


def xlog2x(c):
    """``c * log2(c)`` elementwise, with ``0 * log2(0) = 0``."""
    c = np.asarray(c, dtype=np.float64)
    return c * np.log2(np.where(c > 0, c, 1.0))


def xlogx(c):
    """``c * log(c)`` (natural log) elementwise, with ``0 * log(0) = 0``."""
    c = np.asarray(c, dtype=np.float64)
    return c * np.log(np.where(c > 0, c, 1.0))


def split_statistics(sums, criterion):
    """Sums of statistics laid out as ``treelib.criteria.node_statistics`` lays them out,
    split into the sums the formulas take (..., k) and, for Poisson, whose 2k columns end
    with the counts of positive targets, those counts (..., k); None for the other
    criteria."""
    if criterion != "poisson" or sums is None:
        return sums, None
    sums = np.asarray(sums)
    k = sums.shape[-1] // 2
    return sums[..., :k], sums[..., k:]


def poisson_has_counts(positives_left, positives):
    """Whether both children of each cut hold a positive target (in every column), from
    the exact counts of positive targets of the left child and of the node (..., k).  A
    child without one would predict no count at all: not a candidate, as in
    scikit-learn.  Decided on counts, not on the sum ``S - S_L``, which rounding can leave
    at 1e-16 for a child of zeros."""
    return np.all((positives_left > 0) & (positives - positives_left > 0), axis=-1)


def gain_from_sums(sum_left, w_left, total, w, criterion, l2=0.0, sum_right=None,
                   positives=None):
    """Gain of cuts, ``W I(node) - W_L I(L) - W_R I(R)``, from the left child's sums.

    ``sum_left`` (..., k) holds the sums of the statistics over the left child of each
    cut and ``w_left`` (...) its weight (its number of samples without sample weights);
    ``total`` (..., k) and ``w`` (...) are the node's, broadcast against them.  The right
    child is the rest.

    - squared error and Gini share one formula, the variance-to-sum identity
      ``sum_k S_Lk**2 / W_L + S_Rk**2 / W_R - S_k**2 / W`` (for one-hot statistics the
      sums are class counts and this is exactly the Gini gain); the statistics must be
      centred on the node's mean (``treelib.criteria.node_statistics``), or the
      subtraction of large squares loses the gain's digits (chapter 2);
    - entropy: ``W H = W log2 W - sum_k c_k log2 c_k`` for each of the three nodes;
    - Poisson (half the Poisson deviance): ``S_L log(S_L/W_L) + S_R log(S_R/W_R) -
      S log(S/W)``, the terms ``sum y log y`` cancelling; a child without a positive
      target predicts no count at all and is not a candidate (-inf,
      ``poisson_has_counts``), told by ``positives``, the pair ``(positives_left,
      positives)`` of the counts of positive targets of the left child (..., k) and of
      the node (the finders' statistics hold them: ``split_statistics``), or, None, by
      the sums (exact only for integer counts);
    - Newton (gradient boosting): the sums are of gradients G, the weights of hessians
      H, and the gain is the decrease of the second-order loss,
      ``G_L**2/(H_L + l2) + G_R**2/(H_R + l2) - G**2/(H + l2)``: the variance-to-sum
      identity again, with ``l2`` (the L2 regularisation of the leaf values) added to
      every weight.  For squared loss (g = prediction - y, h = 1, l2 = 0) it is the
      squared-error gain.

    ``sum_right``: the right child's sums when they are known more exactly than ``total -
    sum_left`` (the fixed-point growers, ``treelib.growth.fixed_point_tree``: each side made one
    float from fixed-point sums); squared error, Gini and Newton only.

    A cut with an empty side gives inf or nan: callers mask those.  ``positives`` for
    another criterion than Poisson, or not a pair, ``sum_right`` for entropy or Poisson:
    ValueError.  O(k) per cut.
    """
    if positives is not None and (criterion != "poisson" or len(positives) != 2):
        raise ValueError("positives must be None or, for criterion 'poisson' only, the pair "
                         f"(positives_left, positives); got {type(positives).__name__} "
                         f"with criterion {criterion!r}")
    if sum_right is not None and criterion in ("entropy", "poisson"):
        raise ValueError(f"sum_right is for squared error, Gini and Newton, not {criterion!r}")
    sum_left, total = np.asarray(sum_left, np.float64), np.asarray(total, np.float64)
    if criterion == "entropy":
        return _entropy_gain(sum_left, w_left, total, w)
    if criterion == "poisson":
        return _poisson_gain(sum_left, w_left, total, w, positives)
    return _squares_gain(sum_left, w_left, total, w, l2, sum_right)


def _entropy_gain(sum_left, w_left, total, w):
    """``gain_from_sums`` for entropy, from class counts.  O(k) per cut."""
    def w_entropy(weight, counts):        # W H(node) from its weight and class counts
        return xlog2x(weight) - np.sum(xlog2x(counts), axis=-1)
    return w_entropy(w, total) - w_entropy(w_left, sum_left) - w_entropy(w - w_left,
                                                                         total - sum_left)


def _poisson_gain(sum_left, w_left, total, w, positives):
    """``gain_from_sums`` for Poisson; -inf where a child holds no positive target
    (``positives``: the exact counts ``(positives_left, positives)``; None: the sums).
    O(k) per cut."""
    # None: exact only if the sums are, integer counts
    positives_left, positives = (sum_left, total) if positives is None else positives
    # a child with counts whose sum S - S_L rounds to 0 or below: S log S -> 0
    sum_right = np.maximum(total - sum_left, 0.0)
    positive = poisson_has_counts(positives_left, positives)

    def s_log_mean(s, weight):            # S log(S / W), 0 for S = 0
        with np.errstate(divide="ignore", invalid="ignore"):
            return s * np.log(np.where(s > 0, s / np.expand_dims(weight, -1), 1.0))
    gain = np.sum(s_log_mean(sum_left, w_left) + s_log_mean(sum_right, w - w_left)
                  - s_log_mean(total, w), axis=-1)
    return np.where(positive, gain, -np.inf)


def _squares_gain(sum_left, w_left, total, w, l2, sum_right):
    """``gain_from_sums`` by the variance-to-sum identity (squared error, Gini, Newton),
    ``l2`` added to every weight; ``sum_right`` None: ``total - sum_left``.  O(k) per
    cut."""
    w_right = w - w_left
    if l2:
        w_left, w_right, w = w_left + l2, w_right + l2, w + l2
    if sum_left.shape[-1] == 1:               # one column: the same formula, no k axis
        sum_left, total = sum_left[..., 0], total[..., 0]
        sum_right = total - sum_left if sum_right is None else sum_right[..., 0]
        return sum_left * sum_left / w_left + sum_right * sum_right / w_right \
            - total * total / w
    if sum_right is None:
        sum_right = total - sum_left
    return (np.sum(sum_left * sum_left, axis=-1) / w_left
            + np.sum(sum_right * sum_right, axis=-1) / w_right
            - np.sum(total * total, axis=-1) / w)


@dataclass(frozen=True)
class BoundTerms:
    """What ``gain_rounding_bound`` needs besides the sums: ``n_terms``, the number of
    samples added into each sum (a number, or an array broadcast against the cuts; None:
    the node's weight ``w``, the number of samples without sample weights), and Newton's
    ``l2`` (a number), the L2 regularisation added to every weight of its formula (0 for
    the other criteria).  A negative or nan ``l2``: ValueError.  O(1)."""

    n_terms: object = None
    l2: float = 0.0

    def __post_init__(self):
        if not self.l2 >= 0:                       # a number: nan fails too
            raise ValueError(f"BoundTerms: l2 must be >= 0, got {self.l2!r}")


def gain_rounding_bound(sum_left, w_left, total, w, criterion, abs_total=None, gain=None,
                        terms=None):
    """A bound on the rounding error of the gains that ``gain_from_sums`` computes.

    Two finders (or two machines) add the same samples in different orders, so an exact
    tie between two cuts can come out a few units of the last place apart; the tie rule
    (``treelib.split.best_cut``) treats cuts whose gains differ by less than the sum of
    their bounds as tied, and nothing else.  The bound has two parts, with ``EPS`` the
    spacing of floats at 1:

    - the final arithmetic, a few roundings of each term: ``4 EPS`` times the sum of the
      absolute values of the terms (squared error and Gini:
      ``sum_k S_Lk**2/W_L + S_Rk**2/W_R + S_k**2/W``; entropy: its ``|c log2 c|`` terms
      (negative for weights below 1, hence the absolute values);
      Poisson: its three ``S log(S/W)`` terms);
    - for sums of real-valued statistics (``abs_total`` given: the node's sums of
      ``|Y|``), the error of the sums themselves.  Any partial sum of n terms is off by at
      most ``n EPS sum|Y|`` whatever the order of the additions, and the gain moves by
      ``|d gain / d S_L|`` per unit of ``S_L`` (``2 |S_L/W_L - S_R/W_R|`` for squared
      error, ``|log(S_L W_R / (S_R W_L))|`` for Poisson), hence
      ``16 n EPS sum_k abs_total_k (slope)`` (the factor 16 also covers the centring, the
      weights' own sums and the histogram subtraction trick, see ``treelib.growth``).
      n is ``terms.n_terms``, the number of samples summed (``w`` when None).

    Counts (Gini and entropy without weights) are exact, so only the first part applies
    (and no slope is computed).  ``gain``, if given, is ``gain_from_sums``'s result, from
    which the squared-error terms follow (their sum is the gain plus ``2 sum_k S_k**2 /
    W``).  ``terms``: a ``BoundTerms``, ``n_terms`` and Newton's ``l2`` (None:
    ``BoundTerms()``, n = w and l2 = 0; anything else: ValueError).  Same shapes as
    ``gain_from_sums``; O(k) per cut.
    """
    if terms is None:
        terms = _NO_TERMS
    elif not isinstance(terms, BoundTerms):
        raise ValueError(f"terms must be a BoundTerms(n_terms, l2) or None, got "
                         f"{type(terms).__name__}")
    sum_left, total = np.asarray(sum_left, np.float64), np.asarray(total, np.float64)
    sums = (sum_left, w_left, total, w)
    with_slope = abs_total is not None
    if criterion == "entropy":
        absolute, slope = _entropy_terms(*sums, with_slope)
    elif criterion == "poisson":
        absolute, slope = _poisson_terms(*sums, with_slope)
    else:
        absolute, slope = _squares_terms(*sums, criterion, gain, terms.l2, with_slope)
    if not with_slope:
        return rounding_bound(absolute, EPS)
    n = w if terms.n_terms is None else terms.n_terms
    return rounding_bound(absolute, EPS, n, np.sum(np.asarray(abs_total) * slope, axis=-1))


#: ``gain_rounding_bound``'s default ``terms``: n = w, no L2.
_NO_TERMS = BoundTerms()


def rounding_bound(terms, eps, n=None, weighted_slope=None):
    """``gain_rounding_bound`` from its two parts: ``4 eps terms`` (the final arithmetic,
    ``terms`` the sum of the absolute values of the gain's terms) and, for sums of
    real-valued statistics (``weighted_slope`` given, ``sum_k abs_total_k slope_k``),
    ``16 eps n weighted_slope`` (the sums' own error, n terms summed).  Operators only,
    so numpy's arrays (``eps``: ``EPS``) and Python's floats (``float(EPS)``) give the
    same bits: ``treelib.growth.boosting_caps`` computes a few bounds in floats.
    O(1) per element."""
    bound = 4 * eps * terms
    if weighted_slope is None:
        return bound
    return bound + 16 * eps * n * weighted_slope


def squares_terms(gain, squares, w, l2):
    """The sum of the absolute values of the terms of the variance-to-sum identity
    (squared error, Gini, Newton with ``l2``) from its ``gain``, the node's sum of
    squared sums ``squares`` (``sum_k S_k**2``) and its weight ``w``: ``|gain| + 2
    squares / (w + l2)`` (the two children's terms add up to the gain plus the node's).
    Operators only, numpy's arrays or Python's floats alike (``rounding_bound``); a
    zero ``w + l2`` is the caller's.  O(1) per element."""
    return abs(gain) + 2 * squares / (w + l2)


def squares_slope(sum_left, w_left, total, w, l2):
    """The slope of the rounding bound of the variance-to-sum identity (a bound of
    ``|d gain / d S_L| / 2``), per statistic: ``|S_L| / (W_L + l2) + |S - S_L| / ((W -
    W_L) + l2)``, the weights broadcast against the sums.  Operators only, numpy's
    arrays or Python's floats alike (``rounding_bound``); a zero weight is the caller's.
    O(1) per element."""
    return abs(sum_left) / (w_left + l2) + abs(total - sum_left) / ((w - w_left) + l2)


def _entropy_terms(sum_left, w_left, total, w, with_slope):
    """``(terms, slope)`` of ``gain_rounding_bound`` for entropy: the sum of its
    ``|c log2 c|`` terms and (if ``with_slope``, else None) ``|d(W H)/dc|``.  O(k) per
    cut."""
    sum_right, w_right = total - sum_left, w - w_left
    # |c log2 c|: with weights below 1 a term c log2 c is negative
    terms = sum(np.abs(xlog2x(weight)) + np.sum(np.abs(xlog2x(counts)), axis=-1)
                for weight, counts in ((w, total), (w_left, sum_left), (w_right, sum_right)))
    if not with_slope:
        return terms, None
    slope = (                                                # d(W H)/dc = log2(W / c)
        np.abs(np.log2(np.expand_dims(w_left, -1) / np.maximum(sum_left, EPS)))
        + np.abs(np.log2(np.expand_dims(w_right, -1) / np.maximum(sum_right, EPS))))
    return terms, slope


def _poisson_terms(sum_left, w_left, total, w, with_slope):
    """``(terms, slope)`` of ``gain_rounding_bound`` for Poisson: its three ``|S
    log(S/W)|`` terms and (if ``with_slope``, else None) ``|log(mean_L / mean_R)|``.
    O(k) per cut."""
    sum_right, w_right = total - sum_left, w - w_left
    with np.errstate(divide="ignore", invalid="ignore"):
        means = [np.where(s > 0, s / np.expand_dims(v, -1), 1.0)
                 for s, v in ((sum_left, w_left), (sum_right, w_right), (total, w))]
        terms = np.sum(np.abs(sum_left * np.log(means[0]))
                       + np.abs(sum_right * np.log(means[1]))
                       + np.abs(total * np.log(means[2])), axis=-1)
        slope = np.abs(np.log(means[0] / means[1])) if with_slope else None
    return terms, slope


def _squares_terms(sum_left, w_left, total, w, criterion, gain, l2, with_slope):
    """``(terms, slope)`` of ``gain_rounding_bound`` for the variance-to-sum identity
    (squared error, Gini, Newton with ``l2``): ``squares_terms`` (from ``gain``,
    computed if None) and (if ``with_slope``, else None) ``squares_slope``, ``|S_L|/W_L
    + |S_R|/W_R``.  O(k) per cut."""
    if gain is None:
        gain = gain_from_sums(sum_left, w_left, total, w, criterion, l2)
    terms = squares_terms(np.asarray(gain), np.sum(total * total, axis=-1), w, l2)
    if not with_slope:
        return terms, None
    return terms, squares_slope(sum_left, np.expand_dims(w_left, -1), total,
                                np.expand_dims(w, -1), l2)


def bound_cap(total, w, criterion, abs_total=None, max_gain=0.0, n_terms=None, scale=None):
    """An upper bound of ``gain_rounding_bound`` over every cut of nodes with sums
    ``total`` (nodes, k), weights ``w`` (nodes,) and sums of |Y| ``abs_total``, whose
    gains are at most ``max_gain``.  Only cuts within twice this of a node's best gain
    can be tied with it, so the growers compute exact bounds for those alone.

    Squared error and Gini: ``|S_Lk| / W_L`` is a weighted mean of the node's
    ``|Y_k / w|``, so at most ``scale_k``, their largest value in the node, whence
    ``4 EPS (max_gain + 2 sum_k S_k**2/W) + 32 n EPS sum_k abs_total_k scale_k``; counts
    need no ``scale``.  Entropy and Poisson have no such simple cap with real-valued sums
    (their slopes grow without bound as a child empties): the cap is then infinite and
    every candidate is a contender.  O(nodes k)."""
    total = np.asarray(total, np.float64)
    n = w if n_terms is None else n_terms
    if criterion in ("entropy", "poisson") or (abs_total is not None and scale is None):
        if criterion == "entropy" and abs_total is None:     # counts: terms bounded
            return 24 * EPS * w * np.log2(w + 1.0)
        return np.full(np.shape(w), np.inf)
    cap = 4 * EPS * (np.maximum(max_gain, 0.0) + 2 * np.sum(total * total, axis=-1) / w)
    if abs_total is not None:
        cap = cap + 32 * EPS * n * np.sum(np.asarray(abs_total) * np.asarray(scale), axis=-1)
    return cap


def score_cuts(sum_left, w_left, total, w, criterion, abs_total=None, n_terms=None,
               l2=0.0):
    """``(gains, bounds)`` of cuts from the left sums of their statistics (as
    ``treelib.criteria.node_statistics`` lays them out, ``split_statistics``):
    ``gain_from_sums`` and ``gain_rounding_bound`` together, with cuts that leave a side
    without weight scored ``-inf`` (bound 0).  Same shapes as ``gain_from_sums``."""
    sum_left, w_left, total, gains, both_sides = _laid_out_gains(sum_left, w_left, total, w,
                                                                 criterion, l2)
    abs_total = split_statistics(abs_total, criterion)[0]
    with np.errstate(divide="ignore", invalid="ignore"):
        bounds = gain_rounding_bound(sum_left, w_left, total, w, criterion, abs_total,
                                     gains, BoundTerms(n_terms, l2))
    return np.where(both_sides, gains, -np.inf), np.where(both_sides, bounds, 0.0)


def score_gains(sum_left, w_left, total, w, criterion):
    """The gains of ``score_cuts`` alone (squared error, Gini, entropy, Poisson; no
    ``l2``), bit for bit: the growers then ask ``score_cuts`` for the rounding bounds of
    the few cuts that may be tied with the best (``treelib.split.best_contender``).  Same
    shapes as ``gain_from_sums``."""
    gains, both_sides = _laid_out_gains(sum_left, w_left, total, w, criterion, 0.0)[3:]
    return np.where(both_sides, gains, -np.inf)


def _laid_out_gains(sum_left, w_left, total, w, criterion, l2):
    """What ``score_cuts`` and ``score_gains`` share: ``(sum_left, w_left, total, gains,
    both_sides)``, the sums without Poisson's counts (``split_statistics``), the left
    weights as an array, ``gain_from_sums``'s gains (not masked) and where a cut leaves
    weight on both sides with a finite gain.  O(k) per cut."""
    w_left = np.asarray(w_left)
    (sum_left, positives_left), (total, positives) = (split_statistics(sum_left, criterion),
                                                      split_statistics(total, criterion))
    with np.errstate(divide="ignore", invalid="ignore"):
        gains = gain_from_sums(sum_left, w_left, total, w, criterion, l2,
                               positives=None if positives is None else (positives_left,
                                                                         positives))
    both_sides = (w_left > 0) & (w_left < w) & np.isfinite(gains)
    return sum_left, w_left, total, gains, both_sides
