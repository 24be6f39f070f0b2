"""The optimal depth-2 tree (``treelib.growth.optimal_depth2``) against a brute force that
tries every root cut with every left cut and every right cut (or none), scored from the
rows in exact rational arithmetic, under treelib's tie rule; never worse than the greedy
depth-2 tree on the same bins, and strictly better on XOR-like data; the tree it returns;
weights as repeated rows; bad input."""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from treelib.criteria import target_statistics
from treelib.finders import Finder
from treelib.gains import EPS
from treelib.growth import StoppingRules, grow_depth_first
from treelib.growth.optimal_depth2 import grow_optimal_depth2


@st.composite
def datasets(draw, integer_targets=False, weighted=True):
    """Small binned data with many ties: a few distinct values per feature, sometimes a
    duplicated or a constant feature, targets with large offsets, a few bins or one per
    value, ``min_samples_leaf`` 1 to 3, sometimes weights."""
    n = draw(st.integers(1, 24))
    X = draw(hnp.arrays(np.float64, (n, draw(st.integers(1, 3))),
                        elements=st.integers(0, 5).map(float)))
    shape = draw(st.sampled_from(["plain", "duplicate", "constant"]))
    if shape == "duplicate":
        X = np.column_stack([X, X[:, :1]])
    elif shape == "constant":
        X = np.column_stack([np.full(n, 2.0), X])
    values = st.integers(-3, 3).map(float)
    if not integer_targets:
        values = values | st.floats(-10, 10, allow_subnormal=False)
    y = draw(st.sampled_from([0.0, 1e6, -1e8])) + draw(hnp.arrays(np.float64, n,
                                                                   elements=values))
    weights = None
    if weighted and draw(st.booleans()):
        weights = draw(hnp.arrays(np.float64, n, elements=st.sampled_from([0.5, 1.0, 3.0])))
    return X, y, draw(st.sampled_from([2, 3, 255])), draw(st.integers(1, 3)), weights


def fit(X, y, max_bins=255, min_samples_leaf=1, weights=None):
    finder = Finder("hist", "squared_error", max_bins=max_bins,
                    min_samples_leaf=min_samples_leaf)
    codes = finder.prepare(X)
    return grow_optimal_depth2(codes, y, finder, weights), codes, finder


def greedy_sse(codes, y, finder, weights=None):
    tree = grow_depth_first(codes, target_statistics(y, "squared_error"), finder,
                            StoppingRules(max_depth=2), weights=weights)
    return float(np.sum((tree.weighted_n_node_samples * tree.impurity)[tree.is_leaf]))


def exact_mean(y, w):
    return (sum(Fraction(float(a)) * Fraction(float(v)) for a, v in zip(w, y))
            / sum(Fraction(float(a)) for a in w))


def tolerance(y, weights, n_bins):
    """How far rounding can move a total gain: at least the sum of the three gains'
    rounding bounds (``treelib.gains.gain_rounding_bound`` with m = 2 (n + 2B) terms and
    the root's sum A of |w c|, c = y centred on the root's mean).  Each bound is 16 m EPS A
    times the slope 2 |S_L/W_L - S_R/W_R| <= 4 max|c|, plus 4 EPS times its three terms
    S**2 / W, each at most the root's SSE = sum w c**2 (Cauchy-Schwarz): at most
    64 m EPS A max|c| + 12 EPS SSE, and three of them at most 256 EPS (m A max|c| + SSE)."""
    w = np.ones(len(y)) if weights is None else weights
    centred = y - np.sum(w * y) / np.sum(w)
    terms = 2 * (len(y) + 2 * n_bins)
    return 256 * EPS * (terms * np.sum(np.abs(w * centred)) * np.max(np.abs(centred))
                        + np.sum(w * centred * centred))


class BruteForce:
    """Every depth-2 tree of the bins, scored exactly: a node's score is S**2 / W (S its
    weighted target sum, W its weight), a split's gain its children's scores minus its
    own.  ``ambiguous`` records whether a decision rests on a difference within ``tol``
    that is not an exact tie (then only the objective can be compared)."""

    def __init__(self, codes, y, weights, min_samples_leaf, n_bins, tol):
        w = np.ones(len(y)) if weights is None else weights
        self.wy = [Fraction(float(a)) * Fraction(float(b)) for a, b in zip(w, y)]
        self.w = [Fraction(float(b)) for b in w]
        self.codes, self.msl, self.n_bins, self.tol = codes, min_samples_leaf, n_bins, tol
        self.ambiguous = False

    def score(self, rows):
        rows = np.flatnonzero(rows)
        return sum((self.wy[i] for i in rows), Fraction(0)) ** 2 / sum(self.w[i] for i in rows)

    def cuts(self, rows):
        """``((k, c), left rows, right rows, gain)`` of every candidate of a node, in the
        order feature, then bin."""
        found = []
        for k in range(self.codes.shape[1]):
            for c in range(self.n_bins - 1):
                left = rows & (self.codes[:, k] <= c)
                if min(left.sum(), (rows & ~left).sum()) >= self.msl:
                    gain = self.score(left) + self.score(rows & ~left) - self.score(rows)
                    found.append(((k, c), left, rows & ~left, gain))
        return found

    def decide(self, gains, labels):
        """The first label of the highest gain, or None if no gain is positive."""
        if not gains or max(gains) <= 0:
            self.ambiguous |= any(0 < -g <= self.tol for g in gains)
            return None, Fraction(0)
        top = max(gains)
        self.ambiguous |= top <= 2 * self.tol or any(0 < top - g <= 2 * self.tol
                                                     for g in gains)
        return labels[gains.index(top)], top

    def child(self, rows):
        found = self.cuts(rows)
        return self.decide([g for *_, g in found], [label for label, *_ in found])

    def best(self):
        """``(total gain, (root, left, right))`` of the best tree (Nones: leaves)."""
        every = np.ones(len(self.w), dtype=bool)
        options = []
        for label, left, right, gain in self.cuts(every):
            (cut_l, gain_l), (cut_r, gain_r) = self.child(left), self.child(right)
            options.append((gain + gain_l + gain_r, (label, cut_l, cut_r)))
        cuts, total = self.decide([t for t, _ in options], [c for _, c in options])
        return total, cuts or (None, None, None)


def brute_force(codes, y, weights, min_samples_leaf, n_bins):
    tol = tolerance(y, weights, n_bins)
    search = BruteForce(codes, y, weights, min_samples_leaf, n_bins, tol)
    total, cuts = search.best()
    return total, cuts, search.ambiguous, tol


@settings(max_examples=120, deadline=None)
@given(data=datasets())
def test_the_objective_is_the_brute_force_best_and_so_is_the_tree_without_near_ties(data):
    X, y, max_bins, msl, weights = data
    result, codes, finder = fit(X, y, max_bins, msl, weights)
    total, cuts, ambiguous, tol = brute_force(codes, y, weights, msl, finder.n_bins)
    assert abs(result.gain - float(total)) <= tol
    w = np.ones(len(y)) if weights is None else weights
    mean = exact_mean(y, w)
    root_sse = float(sum(Fraction(float(a)) * (Fraction(float(v)) - mean) ** 2
                         for a, v in zip(w, y)))
    assert abs(result.sse - (root_sse - float(total))) <= 2 * tol + 1e-9 * root_sse
    if not ambiguous:
        assert result.cuts == cuts


@settings(max_examples=80, deadline=None)
@given(data=datasets(integer_targets=True))
def test_integer_targets_leave_no_near_tie_and_the_lowest_indices_win(data):
    """With integer targets, distinct totals differ by far more than rounding: every exact
    tie goes to the lowest root feature, bin, child feature, bin."""
    X, y, max_bins, msl, weights = data
    result, codes, finder = fit(X, y, max_bins, msl, weights)
    _, cuts, ambiguous, _ = brute_force(codes, y, weights, msl, finder.n_bins)
    assert not ambiguous
    assert result.cuts == cuts


@settings(max_examples=80, deadline=None)
@given(data=datasets())
def test_the_tree_holds_its_cuts_and_its_rows_means(data):
    X, y, max_bins, msl, weights = data
    result, codes, finder = fit(X, y, max_bins, msl, weights)
    tree = result.tree
    w = np.ones(len(y)) if weights is None else weights
    root, left, right = result.cuts
    assert tree.node_count == 1 + 2 * (root is not None) + 2 * (left is not None) \
        + 2 * (right is not None)
    internal = np.flatnonzero(~tree.is_leaf)
    for node, cut in zip(internal, [c for c in result.cuts if c is not None]):
        j, b = cut
        assert tree.feature[node] == j and tree.threshold[node] == finder.bin_thresholds[j][b]
    leaves = tree.apply(X)
    assert tree.max_depth <= 2 and set(leaves) <= set(np.flatnonzero(tree.is_leaf))
    for leaf in np.unique(leaves):
        rows = leaves == leaf
        assert tree.n_node_samples[leaf] == rows.sum() >= (msl if root else 1)
        mean = exact_mean(y[rows], w[rows])
        tol = 8 * rows.sum() * EPS * float(np.ptp(y[rows])) + abs(float(mean)) * EPS
        assert abs(Fraction(float(tree.value[leaf, 0])) - mean) <= tol


@settings(max_examples=80, deadline=None)
@given(data=datasets())
def test_never_worse_than_the_greedy_depth_two_tree(data):
    X, y, max_bins, msl, weights = data
    result, codes, finder = fit(X, y, max_bins, msl, weights)
    assert result.sse <= greedy_sse(codes, y, finder, weights) + tolerance(y, weights,
                                                                           finder.n_bins)


def test_xor_needs_a_root_cut_that_gains_nothing_by_itself():
    """y = x0 xor x1 on a balanced grid (every cut of x0 or x1 gains exactly nothing at the
    root), plus a small real effect of x2 and a little noise: the greedy tree cuts x2 at the
    root and cannot see the xor; the optimal one cuts x0, then x1 in both children."""
    grid = np.array(np.meshgrid(np.arange(10), np.arange(10), np.arange(2))).reshape(3, -1).T
    X = np.repeat(grid / np.array([10, 10, 1]), 5, axis=0)
    rng = np.random.default_rng(0)
    y = ((X[:, 0] > 0.45) ^ (X[:, 1] > 0.45)) + 0.1 * X[:, 2] \
        + 0.01 * rng.standard_normal(len(X))
    result, codes, finder = fit(X, y, max_bins=32)
    greedy = greedy_sse(codes, y, finder)
    assert result.cuts == ((0, 4), (1, 4), (1, 4))
    assert greedy > 0.24 * len(y) and result.sse < 0.003 * len(y)


@settings(max_examples=40, deadline=None)
@given(data=datasets(weighted=False), seed=st.integers(0, 2**16))
def test_integer_weights_are_repeated_rows(data, seed):
    """Weights of 1 to 3 grow the tree of the rows repeated (binned alike)."""
    X, y, max_bins, _, _ = data
    counts = np.random.default_rng(seed).integers(1, 4, len(y))
    weighted, codes, finder = fit(X, y, max_bins, 1, counts.astype(np.float64))
    repeated = grow_optimal_depth2(np.repeat(codes, counts, axis=0), np.repeat(y, counts),
                                   finder)
    tol = tolerance(np.repeat(y, counts), None, finder.n_bins)
    assert abs(weighted.sse - repeated.sse) <= 2 * tol + 1e-12 * abs(repeated.sse)
    _, cuts, ambiguous, _ = brute_force(codes, y, counts.astype(np.float64), 1, finder.n_bins)
    if not ambiguous:
        assert weighted.cuts == repeated.cuts == cuts


def test_a_zero_weight_is_a_row_left_out():
    X = np.array([[0.0], [1.0], [2.0], [3.0], [4.0]])
    y = np.array([0.0, 0.0, 5.0, 5.0, 100.0])
    result, _, _ = fit(X, y, weights=np.array([1.0, 1.0, 1.0, 1.0, 0.0]))
    assert result.sse == 0.0 and result.tree.n_node_samples[0] == 4


def test_duplicated_features_and_a_constant_one_go_to_the_lowest_index():
    x = np.repeat([0.0, 1.0, 2.0, 3.0], 3)
    X = np.column_stack([np.ones(12), x, x, x[::-1]])
    y = x ** 2
    result, _, _ = fit(X, y)
    assert result.cuts[0][0] == 1 and result.cuts[1][0] == 1 and result.cuts[2][0] == 1
    assert result.sse == pytest.approx(0.0, abs=1e-12)


@pytest.mark.parametrize("X, y", [
    (np.zeros((1, 2)), np.array([3.0])),                         # one row
    (np.zeros((5, 2)), np.arange(5.0)),                          # constant features
    (np.arange(10.0)[:, None], np.full(10, 1e8)),                # constant targets
])
def test_nothing_to_gain_leaves_one_leaf(X, y):
    result, _, _ = fit(X, y)
    assert result.cuts == (None, None, None) and result.tree.node_count == 1
    assert result.gain == 0.0 and result.sse == pytest.approx(np.sum((y - y.mean()) ** 2))


def test_a_child_with_nothing_to_gain_stays_a_leaf():
    """x1 alone gains nothing, then x0 everything in each child: a tie with x0 at the root
    (the lowest feature wins), whose children are constant: leaves, not splits of 0."""
    X = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])
    result, _, _ = fit(X, np.array([0.0, 0.0, 5.0, 5.0]))
    assert result.cuts == ((0, 0), None, None) and result.sse == 0.0
    assert result.tree.node_count == 3
    result, _, _ = fit(X[:, ::-1], np.array([0.0, 0.0, 5.0, 5.0]))
    assert result.cuts == ((0, 0), (1, 0), (1, 0)) and result.sse == 0.0


def test_min_samples_leaf_leaves_children_too_small_to_split():
    result, _, _ = fit(np.arange(4.0)[:, None], np.array([0.0, 1.0, 5.0, 7.0]),
                       min_samples_leaf=2)
    assert result.cuts == ((0, 1), None, None)


def test_min_samples_leaf_leaves_no_candidate_below_it():
    X = np.arange(7.0)[:, None]
    result, _, _ = fit(X, np.array([9.0, 0, 0, 0, 0, 0, 9]), min_samples_leaf=3)
    assert result.cuts[0] is not None
    assert min(result.tree.n_node_samples) >= 3


def test_bad_input_is_refused_with_a_reason():
    X, y = np.arange(8.0).reshape(4, 2), np.arange(4.0)
    finder = Finder("hist", "squared_error")
    with pytest.raises(ValueError, match="prepare"):
        grow_optimal_depth2(X.astype(np.intp), y, finder)
    codes = finder.prepare(X)
    for bad, match in [(Finder("cumsum", "squared_error"), "hist"), (Finder("hist", "gini"),
                                                                     "criterion")]:
        bad.bin_thresholds = finder.bin_thresholds
        with pytest.raises(ValueError, match=match):
            grow_optimal_depth2(codes, y, bad)
    with pytest.raises(ValueError, match="Y must"):
        grow_optimal_depth2(codes, y[:3], finder)
    with pytest.raises(ValueError, match="codes"):
        grow_optimal_depth2(X, y, finder)
    with pytest.raises(ValueError, match="sample_weight"):
        grow_optimal_depth2(codes, y, finder, weights=np.ones(3))
    for bad_code in [finder.n_bins, -1]:
        out_of_range = codes.astype(np.intp)
        out_of_range[0, 0] = bad_code
        with pytest.raises(ValueError, match="bin codes, 0 to"):
            grow_optimal_depth2(out_of_range, y, finder)
    missing = finder.prepare(np.where(X == 2.0, np.nan, X))
    with pytest.raises(ValueError, match="missing"):
        grow_optimal_depth2(missing, y, finder)
