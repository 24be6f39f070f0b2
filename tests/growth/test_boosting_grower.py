"""Gradient boosting's grower (``treelib.growth.boosting_grower``, ``boosting_histograms``):
the histograms against per-bin sums, the best split of a node against a brute force
over the bins in exact arithmetic (the Newton gain, scikit-learn's candidate rules,
treelib's tie rule), the subtraction trick against counting, and whole trees against
their own rules."""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from tests.reference import tie_rule
from treelib.counters import GrowthCounter
from treelib.gains import BoundTerms, bound_cap, gain_rounding_bound
from treelib.growth.boosting_grower import BoostingRules, grow_boosting_tree, on_features
from treelib.growth.boosting_histograms import (
    BinnedData,
    NodeSums,
    best_splits,
    count_histograms,
    newton_bound_cap,
)
from treelib.split import MISSING_BIN

GRADIENTS = st.floats(-4, 4, width=32, allow_subnormal=False)
HESSIANS = st.floats(0.0, 2.0, width=32, allow_subnormal=False)


@st.composite
def nodes(draw, max_n=30, max_features=3, max_bins=5):
    """A node as bin codes (some missing), float32 gradients and hessians (or none: all
    1), and rules."""
    n = draw(st.integers(2, max_n))
    f = draw(st.integers(1, max_features))
    n_bins = draw(st.integers(1, max_bins))
    bins = st.integers(0, n_bins - 1)
    if draw(st.booleans()):
        bins = bins | st.just(MISSING_BIN)
    codes = draw(hnp.arrays(np.uint8, (n, f), elements=bins))
    g = draw(hnp.arrays(np.float32, n, elements=GRADIENTS))
    h = draw(st.none() | hnp.arrays(np.float32, n, elements=HESSIANS))
    rules = BoostingRules(min_samples_leaf=draw(st.integers(1, 4)),
                          min_hessian_to_split=draw(st.sampled_from([1e-3, 0.5])),
                          l2_regularization=draw(st.sampled_from([0.0, 1.0])))
    return codes, n_bins, g, h, rules


def exact_newton_gain(g, h, left, l2):
    """The Newton gain of sending ``left`` left, in exact rational arithmetic."""
    G_L, H_L = sum(map(Fraction, g[left].tolist())), sum(map(Fraction, h[left].tolist()))
    G, H = sum(map(Fraction, g.tolist())), sum(map(Fraction, h.tolist()))
    G_R, H_R, l2 = G - G_L, H - H_L, Fraction(l2)
    return G_L ** 2 / (H_L + l2) + G_R ** 2 / (H_R + l2) - G ** 2 / (H + l2)


def brute_force_cuts(codes, n_bins, g, h, rules):
    """Every candidate cut, scored from scratch, in treelib's order (feature by feature;
    the cuts after each bin with missing values right, then left), with scikit-learn's
    rules: both children keep ``min_samples_leaf`` samples and ``min_hessian_to_split``
    of hessian; of cuts that make the same children, the lowest with missing values right
    (the last bin sent left holds samples), the highest with missing values left (the
    next bin holds samples).  Returns ``(key, exact gain, bound)`` triples."""
    candidates, l2 = [], rules.l2_regularization
    G, H, A = float(g.sum()), float(h.sum()), float(np.abs(g).sum())
    for j in range(codes.shape[1]):
        column, missing = codes[:, j], codes[:, j] == MISSING_BIN
        for missing_left in (False, True):
            if missing_left and not missing.any():
                continue
            for b in range(n_bins):
                left = (column <= b) & ~missing | (missing & missing_left)
                anchor = b if not missing_left else b + 1
                if not ((column == anchor) & ~missing).any():
                    continue
                n_left, h_left = int(left.sum()), float(h[left].sum())
                if (min(n_left, len(g) - n_left) < rules.min_samples_leaf
                        or min(h_left, H - h_left) < rules.min_hessian_to_split):
                    continue
                bound = gain_rounding_bound(np.array([g[left].sum()]), h_left,
                                            np.array([G]), H, "newton",
                                            abs_total=np.array([A]),
                                            terms=BoundTerms(n_terms=len(g), l2=l2))
                candidates.append(((j, b, missing_left, n_left),
                                   exact_newton_gain(g, h, left, l2), float(bound)))
    return candidates


@settings(max_examples=300, deadline=None)
@given(node=nodes())
def test_the_best_split_of_a_node_is_the_brute_force_one(node):
    codes, n_bins, g, h, rules = node
    g64, h64 = g.astype(np.float64), None if h is None else h.astype(np.float64)
    hess = np.ones(len(g)) if h is None else h64
    data = BinnedData(codes, [n_bins] * codes.shape[1])
    hist = count_histograms(data, None, g64, h64)
    sums = NodeSums(g64.sum(), hess.sum(), len(g), np.abs(g64).sum(),
                    np.max(np.abs(g64) / np.maximum(hess, 1e-300)))
    found = best_splits(hist, sums, data, rules, [False])[0]
    candidates = brute_force_cuts(codes, n_bins, g64, hess, rules)
    chosen = tie_rule(candidates)
    if chosen is None or candidates[chosen][1] <= 0:
        assert found is None
        return
    (feature, b, missing_left, n_left), gain, bound = candidates[chosen]
    if gain <= 2 * Fraction(bound):
        return                          # positive only up to rounding: either answer
    assert found is not None
    _, f_found, cut, n_found, *_ = found
    width = data.width
    assert (f_found, cut % (width - 1), cut >= width - 1 and data.has_missing[f_found],
            n_found) == (feature, b, missing_left, n_left)


@settings(max_examples=150, deadline=None)
@given(node=nodes(), rows=st.data())
def test_histograms_sum_every_bin_and_subtraction_gives_the_sibling(node, rows):
    codes, n_bins, g, h, _ = node
    g64, h64 = g.astype(np.float64), None if h is None else h.astype(np.float64)
    data = BinnedData(codes, [n_bins] * codes.shape[1])
    chosen = np.flatnonzero(rows.draw(hnp.arrays(bool, len(g))))
    rest = np.setdiff1d(np.arange(len(g)), chosen)
    whole = count_histograms(data, None, g64, h64)
    part = count_histograms(data, chosen, g64, h64)
    other = whole - part
    counted = count_histograms(data, rest, g64, h64)
    np.testing.assert_array_equal(other.n, counted.n)              # counts: exact
    scale = np.abs(g64).sum()
    assert np.all(np.abs(other.g - counted.g) <= 4 * np.finfo(float).eps * scale)
    for j in range(codes.shape[1]):
        column = np.where(codes[:, j] == MISSING_BIN, data.width - 1, codes[:, j])
        for b in range(data.width):
            in_bin = chosen[column[chosen] == b]
            assert part.n[0, j, b] == len(in_bin)
            # in another order, or (a sparse feature's most frequent bin) as the node's
            # total minus the other bins: within the rounding of a sum of the node's values
            exact = float(sum(map(Fraction, g64[in_bin].tolist())))
            assert abs(part.g[0, j, b] - exact) <= 4 * np.finfo(float).eps * \
                np.abs(g64[chosen]).sum() * max(len(chosen), 1)


def test_the_cap_is_treelibs_bound_cap():
    rng = np.random.default_rng(0)
    G, H, N, A = rng.normal(size=5), rng.uniform(1, 9, 5), rng.integers(2, 99, 5) * 1.0, \
        rng.uniform(1, 9, 5)
    tops, scale = rng.uniform(0, 5, 5), 3.0
    expected = bound_cap(G[:, None], H, "newton", abs_total=A[:, None], max_gain=tops,
                         n_terms=N, scale=np.full((5, 1), scale))
    sums = NodeSums(G, H, N, A, scale)
    np.testing.assert_allclose([newton_bound_cap(sums, tops[s], s) for s in range(5)],
                               expected, rtol=1e-14)


def california_codes():
    from treelib.binning import bin_features
    from treelib.datasets import load_california_housing

    X, y = load_california_housing(return_X_y=True)
    codes, thresholds = bin_features(X, 255)
    return X, y, BinnedData(codes, [len(t) + 1 for t in thresholds]), thresholds


@pytest.mark.parametrize("rules", [BoostingRules(), BoostingRules(max_leaf_nodes=None,
                                                                  max_depth=4,
                                                                  min_samples_leaf=50),
                                   BoostingRules(max_leaf_nodes=7, l2_regularization=3.0)])
def test_a_tree_follows_its_rules(rules):
    X, y, data, thresholds = california_codes()
    g = (y.mean() - y).astype(np.float32)
    counter = GrowthCounter()
    tree, node_of = grow_boosting_tree(data, g, None, rules, 0.1, counter=counter)
    leaves = np.flatnonzero(tree.is_leaf)
    if rules.max_leaf_nodes is not None:
        assert len(leaves) == rules.max_leaf_nodes
    if rules.max_depth is not None:
        assert tree.max_depth <= rules.max_depth
    assert tree.n_node_samples[leaves].min() >= rules.min_samples_leaf
    # every row ends in a leaf; the leaf's value is -G / (H + l2) times the rate
    assert set(node_of) == set(leaves)
    for leaf in leaves:
        rows = node_of == leaf
        G, H = g[rows].astype(np.float64).sum(), rows.sum()
        assert tree.value[leaf, 0] == pytest.approx(-0.1 * G / (H + rules.l2_regularization),
                                                    rel=1e-9)
    # the tree on the features routes the rows as the growth did
    np.testing.assert_array_equal(on_features(tree, thresholds).apply(X), node_of)
    # one histogram counted and one subtracted per split whose children were searched
    splits = tree.node_count // 2
    assert counter.subtracted_histograms <= splits
    assert counter.histogram_pairs < (1 + np.log2(len(leaves))) * X.size


def test_only_the_smaller_child_is_counted():
    X, y, data, _ = california_codes()
    g = (y.mean() - y).astype(np.float32)
    counter = GrowthCounter()
    tree, _ = grow_boosting_tree(data, g, counter=counter)
    # the k-th split made nodes 2k + 1 and 2k + 2; its children were counted (the smaller
    # one) and subtracted (the larger one) if one of them could split (2 x 20 samples),
    # except after the last split, which filled the tree (31 leaves)
    n = tree.n_node_samples
    splits = [(n[2 * k + 1], n[2 * k + 2]) for k in range(tree.node_count // 2 - 1)]
    searched = [pair for pair in splits if max(pair) >= 40]
    assert counter.subtracted_histograms == len(searched)
    assert counter.histogram_pairs == X.size + sum(min(pair) for pair in searched) * X.shape[1]


def test_a_root_that_cannot_split_predicts_zero():
    codes = np.zeros((10, 1), np.uint8)
    codes[5:] = 1
    data = BinnedData(codes, [2])
    tree, node_of = grow_boosting_tree(data, np.arange(10, dtype=np.float32),
                                       rules=BoostingRules(min_samples_leaf=6))
    assert tree.node_count == 1 and tree.value[0, 0] == 0.0    # scikit-learn's root value


def test_mostly_constant_features_are_counted_sparsely():
    rng = np.random.default_rng(4)
    codes = np.column_stack([rng.random(500) < 0.05,            # mostly 0: sparse
                             rng.integers(0, 4, 500),            # spread out: dense
                             rng.random(500) < 0.9]).astype(np.uint8)   # mostly 1: sparse
    codes[rng.random(500) < 0.05, 2] = MISSING_BIN
    data = BinnedData(codes, [2, 4, 2])
    np.testing.assert_array_equal(data.sparse, [True, False, True])
    assert len(data.entry_rows) == (codes[:, 0] != 0).sum() + (codes[:, 2] != 1).sum()
    g = rng.normal(size=500)
    rows = np.sort(rng.choice(500, 200, replace=False))
    hist = count_histograms(data, rows, g, None, (g[rows].sum(), None))
    for j in range(3):
        column = np.where(codes[rows, j] == MISSING_BIN, data.width - 1, codes[rows, j])
        np.testing.assert_array_equal(hist.n[0, j], np.bincount(column,
                                                                minlength=data.width))
        np.testing.assert_allclose(hist.g[0, j], np.bincount(column, weights=g[rows],
                                                             minlength=data.width),
                                   atol=1e-12)
