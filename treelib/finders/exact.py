"""Exact split finders: every cut between two different values, scored three ways.

Every exact finder follows the same three steps (``exact_split``):

1. sort each feature once: ``order[:, j]`` lists the samples by increasing ``X[:, j]``
   (missing values, NaN, last); a *cut* after the i-th smallest value sends those i + 1
   samples left.  A cut is a candidate only between two different values and when both
   children keep at least ``min_samples_leaf`` samples (``candidate_cuts``);
2. score every candidate cut; **this is the only step where the methods differ**:

   ``"naive"``   recomputes both children's impurity from scratch (O(f n^2));
   ``"scan"``    the seed article's running sums, a plain Python loop (O(f n) steps);
   ``"cumsum"``  the same sums for all cuts of all features with one ``np.cumsum``;

3. keep the best cut under the one tie rule (``treelib.split.best_cut``).

One interface for the three scorers: ``gains, bounds = scorer(Y, order, valid,
criterion, weights)``.  ``Y`` (n, k) holds per-sample targets (one-hot classes for Gini and
entropy), ``weights`` (n,) the sample weights (None: all 1).  ``gains`` (n - 1, f) holds
the gain of every cut, ``-inf`` where there is no candidate; ``bounds`` the rounding bound
of each gain, which the tie rule needs.

Absolute error has no sums to run: its ``"scan"`` and ``"cumsum"`` keep a running median
instead (``treelib.finders.median``, O(f n log n)); its ``"naive"`` recomputes as usual.

Missing values (``"cumsum"`` only, as scikit-learn's trees): a feature with NaN in the
node is searched twice, missing values right then left, plus the cut that sends every
present value left and only the missing ones right (threshold +inf).
"""

import numpy as np

from treelib.criteria import as_columns, node_statistics
from treelib.finders.median import median_gains
from treelib.finders.monotonic import constrained_gains
from treelib.finders.naive import naive_gains
from treelib.gains import bound_cap, score_cuts, score_gains
from treelib.options import check
from treelib.split import Candidates, Split, best_contender, best_cut, midpoint, tie_winners


def candidate_cuts(X, min_samples_leaf=1):
    """Sort every feature and mark the cuts that are allowed.

    Returns ``order`` (n, f), the samples of each feature in increasing order (stable,
    NaN last); ``x_sorted`` (n, f), the sorted values; and ``valid`` (n - 1, f), True
    where the cut after position i is between two different (present) values and leaves
    at least ``min_samples_leaf`` samples on each side.  Cost: O(f n log n), the sort.
    """
    n = len(X)
    order = np.argsort(X, axis=0, kind="stable")
    x_sorted = X[order, np.arange(X.shape[1])]            # (take_along_axis, fewer calls)
    n_left = np.arange(1, n)[:, None]
    valid = ((x_sorted[1:] > x_sorted[:-1])
             & (n_left >= min_samples_leaf) & (n - n_left >= min_samples_leaf))
    return order, x_sorted, valid


def scores(left_sums, left_weights, node, valid, criterion):
    """Gains and bounds of every cut from the left sums (cuts, f, k) and left weights
    (cuts, f) of a node (its ``NodeStatistics``); -inf where ``valid`` is False."""
    gains, bounds = score_cuts(left_sums, left_weights, node.totals[0], node.weight[0],
                               criterion,
                               None if node.abs_totals is None else node.abs_totals[0],
                               n_terms=len(node.stats))
    return np.where(valid, gains, -np.inf), np.where(valid, bounds, 0.0)


def left_weights_of(weights, order):
    """The weight of the left child of every cut (n - 1, f): the position + 1 without
    sample weights, their running sums with."""
    n = len(order)
    if weights is None:
        return np.broadcast_to(np.arange(1.0, n)[:, None], (n - 1, order.shape[1]))
    return np.cumsum(np.asarray(weights, np.float64)[order], axis=0)[:-1]


def scan_gains(Y, order, valid, criterion="squared_error", weights=None, node=None):
    """Gain of every candidate cut by the seed article's scan, a plain Python loop.

    Walk each feature's sorted samples once, moving one sample at a time into the left
    child and adding its statistics to the left child's running sums.  For squared error
    the sum is S_L (S_R = S - S_L) and a cut scores

        gain = S_L**2 / n_L + S_R**2 / n_R - S**2 / n,

    on targets centred first so that a large offset in y loses no digits; for the
    classification criteria the sums are the left child's class counts.  The running
    sums are those of ``cumsum_gains`` bit for bit, and so are the gains.  **O(f n)
    Python steps per node** (O(k) more per step for k classes) after the O(f n log n)
    sort.  Invalid cuts: ``-inf``.  ``node``: the node's ``NodeStatistics``, if already
    computed.
    """
    if node is None:
        node = node_statistics(Y, [len(as_columns(Y))], criterion, weights)
    n, n_features = order.shape
    left_sums = np.zeros((n - 1, n_features, node.stats.shape[1]))
    for j in range(n_features):
        running = [0.0] * node.stats.shape[1]
        for i, row in enumerate(node.stats[order[:-1, j]].tolist()):
            running = [s + v for s, v in zip(running, row)]
            left_sums[i, j] = running
    return scores(left_sums, left_weights_of(weights, order), node, valid, criterion)


def lazy_scores(X, node, criterion, min_samples_leaf, weights):
    """``(gains, bounds_at, x_sorted, order)`` of every cut of the features ``X`` (n, c) of
    a node without missing values (its ``NodeStatistics`` ``node``): ``cumsum_gains``'s
    gains, bit for bit, and ``bounds_at(cuts, features)``, its bounds of the cuts asked
    for (the contenders of ``treelib.split.best_contender``).  O(c n log n) to sort, plus
    O(c n k) numpy work; O(k) per bound asked."""
    order, x_sorted, valid = candidate_cuts(X, min_samples_leaf)
    left_sums = np.cumsum(node.stats[order], axis=0)[:-1]
    left_w = left_weights_of(weights, order)
    gains = np.where(valid, score_gains(left_sums, left_w, node.totals[0], node.weight[0],
                                        criterion), -np.inf)

    def bounds_at(cuts, features):            # ``scores``'s bounds of those cuts
        return scores(left_sums[cuts, features], left_w[cuts, features], node,
                      valid[cuts, features], criterion)[1]

    return gains, bounds_at, x_sorted, order


def cumsum_gains(Y, order, valid, criterion="squared_error", weights=None, n_missing=None,
                 node=None):
    """Gain of every candidate cut of every feature at once, with ``np.cumsum``.

    ``stats[order]`` (n, f, k) holds the statistics in the order of each feature; one
    cumulative sum along the samples gives the left child's sums for every cut of every
    feature, and ``treelib.gains.gain_from_sums`` scores all (n - 1) x f cuts in one
    array expression (the variance-to-sum identity for squared error, on centred
    targets; class counts for Gini and entropy).  **O(f n k) numpy work per node** after
    the O(f n log n) sort, with a fixed number of numpy calls whatever n and f are.

    With ``n_missing`` (f,), the number of NaN of each feature (sorted last), the result
    has 2 (n - 1) rows: the cut after position i with missing values right (the cut after
    the last present value sends only the missing ones right), then with them left.
    Invalid cuts: ``-inf``.  ``node``: the node's ``NodeStatistics``, if already computed.
    """
    if node is None:
        node = node_statistics(Y, [len(as_columns(Y))], criterion, weights)
    left_sums = np.cumsum(node.stats[order], axis=0)[:-1]
    left_w = left_weights_of(weights, order)
    if n_missing is None or not np.any(n_missing):
        return scores(left_sums, left_w, node, valid, criterion)
    n, n_features = order.shape
    present = n - np.asarray(n_missing)                     # (f,)
    features = np.arange(n_features)
    has_missing = present < n
    # the cut after the last present value: every present value left, missing right
    last = np.clip(present - 1, 0, n - 2)
    valid_right = valid.copy()
    n_left = np.arange(1, n)[:, None]
    valid_right[last, features] |= has_missing & (present >= 1)
    # missing values left: the left sums gain the missing samples' sums and weights
    missing_sums = node.totals[0] - np.where(present[:, None] > 0,
                                             left_sums[last, features], 0.0)
    total_w = node.weight[0]
    present_w = np.where(present > 0, left_w[last, features], 0.0)
    with_missing = valid & has_missing & (n_left < present)
    gains_right, bounds_right = scores(left_sums, left_w, node, valid_right, criterion)
    gains_left, bounds_left = scores(left_sums + missing_sums, left_w + (total_w - present_w),
                                     node, with_missing, criterion)
    return (np.concatenate([gains_right, gains_left]),
            np.concatenate([bounds_right, bounds_left]))


#: The three scorers of every cut, by name (the ``splitter`` values that search exactly).
SCORERS = {"naive": naive_gains, "scan": scan_gains, "cumsum": cumsum_gains}


#: Temporary values (samples x features x statistics) that one node's search holds at
#: once, at most: a node larger than that is searched a group of features at a time
#: (``exact_split``).  The exact search holds about 130 bytes of temporaries per value
#: (the sort, the sorted values, the running sums, the gains and their bounds), so
#: 2**20 values keep a node's search within about 130 MiB, whatever the data's size;
#: a group holds one feature at least.  (``treelib.growth.threads.CHUNK_VALUES`` is the
#: same budget for the level-wise growers.)
NODE_VALUES = 2**20

#: Criteria whose gains' rounding bounds ``treelib.gains.bound_cap`` caps (finitely for
#: squared error and Gini; for entropy on counts): those a node can search by groups.
CAPPED_CRITERIA = ("squared_error", "gini", "entropy")


def feature_groups(n_features, values_per_feature, budget=NODE_VALUES):
    """The features in groups (ranges, in increasing order) of at most ``budget /
    values_per_feature`` features, one at least.  O(groups)."""
    size = max(1, min(n_features, budget // max(1, int(values_per_feature))))
    return [range(j, min(j + size, n_features)) for j in range(0, n_features, size)]


def feature_scores(X, Y, node, n_missing, criterion, min_samples_leaf, scorer, weights):
    """``(gains, bounds, x_sorted, order)`` of every cut of the features ``X`` (n, c) of a node
    (its ``NodeStatistics`` ``node``, ``n_missing`` (c,) the NaN of each feature): rows
    ``0 .. n - 2`` the cuts after each sorted position (missing values right), and with
    missing values ``n - 1 .. 2 n - 3`` the same cuts with the missing values left.
    O(c n log n) to sort, plus the scorer's cost."""
    n = len(X)
    # with missing values a child also holds the missing samples (left or right): its
    # size is known only once their direction is, so min_samples_leaf is applied below
    order, x_sorted, valid = candidate_cuts(X, 1 if n_missing.any() else min_samples_leaf)
    if n_missing.any():
        check(splitter=scorer, criterion=criterion, missing=True)   # (the options table)
        gains, bounds = cumsum_gains(Y, order, valid, criterion, weights, n_missing, node)
        # min_samples_leaf on the children's sizes, the missing samples counted where
        # they go: right in the first n - 1 rows, left in the last n - 1
        n_left = np.broadcast_to(np.arange(1, n)[:, None], (n - 1, X.shape[1]))
        gains[:n - 1][(n_left < min_samples_leaf) | (n - n_left < min_samples_leaf)] = -np.inf
        left_total = n_left + n_missing
        too_small = (left_total < min_samples_leaf) | (n - left_total < min_samples_leaf)
        gains[n - 1:][too_small] = -np.inf
    elif criterion == "absolute_error" and scorer != "naive":
        gains, bounds = median_gains(Y, order, valid, weights)   # a running median
    elif scorer == "naive":
        gains, bounds = naive_gains(Y, order, valid, criterion, weights)
    else:
        gains, bounds = SCORERS[scorer](Y, order, valid, criterion, weights, node=node)
    return gains, bounds, x_sorted, order


def exact_split(X, Y, criterion="squared_error", min_samples_leaf=1, scorer="cumsum",
                weights=None, categories=None, **options):
    """Best exact split of one node (``X`` its features, ``Y`` its targets, ``weights``
    its sample weights); None when no cut is a candidate.  The threshold is the midpoint
    of the two values around the cut (+inf for the cut that sends only the missing values
    right).  ``categories`` (``Categories``, optional) says which features are
    categorical and how to split them (``treelib.finders.categorical``).  ``options``:
    ``budget`` (below) and ``constraint`` (a ``treelib.finders.monotonic.Constraint``,
    default None), which refuses the cuts that break a monotonic constraint
    (``constrained_gains``, O(c n) more for c constrained features).  O(f n log n) to
    sort, plus the scorer's cost.

    Memory: a node of n samples with k statistics and f features holding more than
    ``budget`` values (n f k; default ``NODE_VALUES``) is searched a group of features at a time
    (``feature_groups``, ``grouped_split``), for the scorers "scan" and "cumsum" with
    squared error, Gini, and entropy on counts: O(n + budget) temporaries instead of
    O(f n k).  Same split."""
    unknown = set(options) - {"budget", "constraint", "node"}
    if unknown:
        raise TypeError(f"exact_split got unexpected options {sorted(unknown)}")
    budget, constraint = options.get("budget", NODE_VALUES), options.get("constraint")
    n = len(X)
    numeric = np.ones(X.shape[1], bool) if categories is None else categories.counts < 0
    n_missing = np.where(numeric, np.isnan(X).sum(axis=0), 0)
    sums = scorer in ("scan", "cumsum") and criterion != "absolute_error"
    node = options.get("node")
    if node is None and (sums or categories is not None):
        node = node_statistics(Y, [n], criterion, weights)
    groups = feature_groups(X.shape[1], n * as_columns(Y).shape[1], budget)
    if len(groups) == 1 and sums and scorer == "cumsum" and categories is None \
            and not n_missing.any():
        return contender_split(X, Y, node, criterion, min_samples_leaf, weights, constraint)

    def scored(columns):                    # feature_scores of some features, constrained
        gains, bounds, x_sorted, order = feature_scores(
            X[:, columns], Y, node, n_missing[columns], criterion, min_samples_leaf,
            scorer, weights)
        if constraint is not None:
            gains = constrained_gains(gains, order, n_missing[columns], Y, weights,
                                      constraint._replace(signs=constraint.signs[columns]))
        return gains, bounds, x_sorted

    if (len(groups) > 1 and sums and categories is None and criterion in CAPPED_CRITERIA
            and np.isfinite(node_cap(node, criterion, 0.0))):
        return grouped_split(X, node, n_missing, groups, criterion, scored)
    gains, bounds, x_sorted = scored(slice(None))
    left_sets = {}
    if categories is not None:
        gains, bounds, left_sets = categories.score_features(
            gains, bounds, X, node, criterion, min_samples_leaf, weights)
    best = best_cut(gains, bounds)
    if best is None:
        return None
    row, feature = best
    if feature in left_sets:
        return categories.split(feature, left_sets[feature][row], gains[row, feature],
                                X[:, feature], weights)
    i = row % (n - 1)
    return split_at(feature, row, float(gains[row, feature]), x_sorted[i, feature],
                    x_sorted[i + 1, feature], n, int(n_missing[feature]))


def contender_split(X, Y, node, criterion, min_samples_leaf, weights, constraint):
    """``exact_split`` by ``"cumsum"`` of a node without missing values or categorical
    features, the rounding bounds of its contenders alone (``lazy_scores``,
    ``treelib.split.best_contender``): the same split.  Costs: ``lazy_scores``'s."""
    gains, bounds_at, x_sorted, order = lazy_scores(X, node, criterion, min_samples_leaf,
                                                    weights)
    if constraint is not None:
        gains = constrained_gains(gains, order, np.zeros(X.shape[1], np.intp), Y, weights,
                                  constraint)
    best = best_contender(gains, bounds_at, lambda top: node_cap(node, criterion, top))
    if best is None:
        return None
    row, feature = best
    return split_at(feature, row, float(gains[row, feature]), x_sorted[row, feature],
                    x_sorted[row + 1, feature], len(X), 0)


def node_cap(node, criterion, max_gain):
    """``treelib.gains.bound_cap`` of one node's cuts whose gains are at most
    ``max_gain``: no cut's rounding bound exceeds it.  O(k)."""
    return float(bound_cap(node.totals, node.weight, criterion, node.abs_totals, max_gain,
                           len(node.stats), node.scale)[0])


def grouped_split(X, node, n_missing, groups, criterion, group_scores):
    """``exact_split`` a group of features at a time, the same split.

    Each group (a range of the columns of ``X``) is sorted and scored on its own:
    ``group_scores(columns)`` gives ``feature_scores``'s ``(gains, bounds, x_sorted)`` of
    the node's features ``columns`` (a slice).  Of a group's cuts only the *contenders*
    are kept, those within twice the node's bound cap (``node_cap``) of the best gain seen
    so far, since only they can be tied with the node's best cut; the tie rule of
    ``treelib.split.best_cut`` is then applied to the contenders, in the same
    feature-major order, which finds the same cut.  Memory: one group's temporaries plus
    the contenders (few: O(f) for distinct gains).  Time: the unchunked search's, plus
    O(groups) numpy calls."""
    n = len(X)
    running_max, kept = np.full(1, -np.inf), []

    def cap(max_gain):                             # (per node: the one node)
        return np.array([node_cap(node, criterion, float(max_gain[0]))])

    for group in groups:
        gains, bounds, x_sorted = group_scores(slice(group.start, group.stop))
        scored = Candidates.from_grid(gains, bounds, group.start, cap)
        _, feature, row, gain, bound = scored.contenders(running_max)
        i, column = row % (n - 1), feature - group.start
        kept.append((feature, row, gain, bound, x_sorted[i, column], x_sorted[i + 1, column]))
    feature, row, gain, bound, low, high = (np.concatenate(part) for part in zip(*kept))
    if len(gain) == 0:
        return None
    at = int(tie_winners(gain, bound, np.zeros(1, np.intp))[0])
    return split_at(int(feature[at]), int(row[at]), float(gain[at]), low[at], high[at], n,
                    int(n_missing[feature[at]]))


def split_at(feature, row, gain, low, high, n, n_missing):
    """The ``Split`` of the cut in ``row`` of a feature (``exact_split``'s layout) with
    ``n_missing`` missing values, between the sorted values ``low`` and ``high``."""
    missing_left, i = row >= n - 1, row % (n - 1)
    if not missing_left and n_missing and i == n - n_missing - 1:
        threshold = np.inf
    else:
        threshold = float(midpoint(low, high))
    n_left = i + 1 + (n_missing if missing_left else 0)
    direction = missing_left if n_missing else n_left > n - n_left
    return Split(feature=feature, threshold=threshold, gain=max(gain, 0.0),
                 n_left=int(n_left), n_right=int(n - n_left),
                 missing_go_to_left=bool(direction))


def threshold_gains(x, Y, criterion="squared_error", min_samples_leaf=1):
    """Every candidate threshold of one feature ``x`` and the gain of each, in increasing
    threshold order (for the book's gain curves).  O(n log n)."""
    X = np.asarray(x)[:, None]
    order, x_sorted, valid = candidate_cuts(X, min_samples_leaf)
    cuts = np.flatnonzero(valid[:, 0])
    gains, _ = cumsum_gains(Y, order, valid, criterion)
    return midpoint(x_sorted[cuts, 0], x_sorted[cuts + 1, 0]), gains[cuts, 0]
