"""The boosting search's shortcut (``treelib.growth.boosting_scan.fast_splits``): the same
``FoundSplit`` s as ``treelib.growth.boosting_histograms.choose_splits``, bit for bit, on
nodes built to tie (few bins, many empty ones, integer gradients, duplicate rows, large
offsets), as siblings searched together and as roots; and the speed-ups of the grower
(one histogram pair per split, partition, integer counts) against the grower's own
general path."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from treelib.growth.boosting_grower import BoostingRules, grow_boosting_tree, partition
from treelib.growth.boosting_histograms import (
    BinnedData,
    CutSums,
    NodeSums,
    candidate_sums,
    choose_splits,
    count_histograms,
)
from treelib.growth.boosting_scan import fast_splits, node_caps
from treelib.split import MISSING_BIN


@st.composite
def sibling_pairs(draw):
    """A node's rows split in two (the siblings searched together), their bin codes
    (some missing, many bins empty), gradients that tie (small integers, or a large
    offset plus small integers), hessians or none, and the rules."""
    n = draw(st.integers(4, 60))
    f = draw(st.integers(1, 4))
    n_bins = draw(st.integers(1, 12))
    bins = st.integers(0, n_bins - 1)
    if draw(st.booleans()):
        bins = bins | st.just(MISSING_BIN)
    codes = draw(hnp.arrays(np.uint8, (n, f), elements=bins))
    if draw(st.booleans()):
        codes[:, -1] = codes[:, 0]                       # two features alike: exact ties
    g = draw(hnp.arrays(np.int64, n, elements=st.integers(-3, 3))).astype(np.float64)
    g = g + draw(st.sampled_from([0.0, 0.5, 1e6])) * draw(st.sampled_from([0, 1]))
    h = draw(st.none() | hnp.arrays(np.int64, n, elements=st.integers(0, 2)).map(
        lambda a: a.astype(np.float64)))
    rules = BoostingRules(min_samples_leaf=draw(st.integers(1, 5)),
                          min_hessian_to_split=draw(st.sampled_from([1e-3, 0.0, 1.5])),
                          l2_regularization=draw(st.sampled_from([0.0, 1.0])))
    left = draw(hnp.arrays(bool, n))
    return codes, n_bins, g, h, rules, left


def pair_sums(g, h, rows_list):
    """``NodeSums`` of the nodes holding ``rows_list``."""
    hess = np.ones(len(g)) if h is None else h
    scale = float(np.max(np.abs(g) / np.maximum(hess, 1e-300)))
    return NodeSums([g[r].sum() for r in rows_list], [hess[r].sum() for r in rows_list],
                    [len(r) for r in rows_list], [np.abs(g[r]).sum() for r in rows_list],
                    scale)


@settings(max_examples=400, deadline=None)
@given(pair=sibling_pairs(), root=st.booleans())
def test_fast_splits_are_choose_splits_bit_for_bit(pair, root):
    check_fast_splits(pair, root)


@settings(max_examples=150, deadline=None)
@given(pair=sibling_pairs(), root=st.booleans(), few=st.sampled_from([0, 1, 2]))
def test_settle_reads_the_contenders_a_few_at_a_time(pair, root, few):
    """``settle`` with chunks of 0, 1 or 2 bounds in floats (the rest in numpy's): the
    same answers as ``choose_splits``."""
    import treelib.growth.boosting_scan as scan

    saved = scan.FLOAT_NODES
    scan.FLOAT_NODES = few
    try:
        check_fast_splits(pair, root)
    finally:
        scan.FLOAT_NODES = saved


def check_fast_splits(pair, root):
    """``fast_splits`` of a sibling pair (or their parent as a root) is
    ``choose_splits``, field for field and sign bit for sign bit."""
    codes, n_bins, g, h, rules, left = pair
    data = BinnedData(codes, [n_bins] * codes.shape[1])
    rows_list = [np.flatnonzero(left), np.flatnonzero(~left)]
    if root:
        rows_list = [np.arange(len(g))]
    hists = [count_histograms(data, r, g, h) for r in rows_list]
    hist = hists[0] if len(hists) == 1 else hists[0].stack(hists[1])
    cuts = CutSums(*candidate_sums(hist, data), hessians=h is not None)
    sums = pair_sums(g, h, rows_list)
    roots = [root] * len(rows_list)
    fast = fast_splits(cuts, sums, rules, roots)
    general = choose_splits(cuts, sums, rules, roots)
    assert len(fast) == len(general)
    for a, b in zip(fast, general):
        assert (a is None) == (b is None)
        if a is not None:
            assert a[:6] == b[:6]
            assert np.signbit(a.GL) == np.signbit(b.GL)


def test_node_caps_are_newton_bound_cap_and_refuse_what_is_not_finite():
    from treelib.growth.boosting_histograms import newton_bound_cap

    sums = NodeSums([3.0, -1e-3, 2.0], [7.0, 2.5, 4.0], [9, 4, 5], [5.0, 0.1, 2.0], 3.0)
    tops = np.array([1.25, 1e-19, -np.inf])
    some = tops != -np.inf
    caps = node_caps(sums, tops, some)
    expected = newton_bound_cap(sums, tops)
    np.testing.assert_array_equal(caps[some], expected[some])
    assert caps[2] == 0.0
    assert node_caps(sums, np.array([np.inf, 1.0, -np.inf]), some) is None
    assert node_caps(NodeSums([1.0], [0.0], [2], [1.0], 1.0), np.array([0.5]),
                     np.array([True])) is None


@pytest.mark.parametrize("l2", [0.0, 0.5])
@pytest.mark.parametrize("hessians", [False, True])
def test_uniform_nodes_stay_leaves_as_in_the_general_path(monkeypatch, l2, hessians):
    """Many classes: a class's tree sees a few rows of large gradient among many of the
    same small one, so most nodes are uniform (``boosting_scan.uniform``); the trees
    equal those grown with ``choose_splits`` alone, node for node."""
    import treelib.growth.boosting_grower as grower

    rng = np.random.default_rng(3)
    codes = rng.integers(0, 40, (2000, 4)).astype(np.uint8)
    data = BinnedData(codes, [40] * 4)
    g = np.full(2000, 1e-3)
    g[rng.choice(2000, 6, replace=False)] = -0.999
    g[:700] = np.where(g[:700] > 0, 0.3, g[:700])            # a second plateau
    h = g * (1 - g) + 0.5 if hessians else None
    rules = BoostingRules(min_samples_leaf=3, l2_regularization=l2)
    calls = []

    def counted(cuts, sums, rules, roots, uniform=None):
        calls.append(uniform)
        return fast_splits(cuts, sums, rules, roots, uniform)

    monkeypatch.setattr(grower, "fast_splits", counted)
    fast_tree, fast_rows = grow_boosting_tree(data, g, h, rules, 0.1)
    monkeypatch.setattr(grower, "fast_splits",
                        lambda cuts, sums, rules, roots, uniform=None:
                        choose_splits(cuts, sums, rules, roots))
    tree, rows = grow_boosting_tree(data, g, h, rules, 0.1)
    for name in ("feature", "threshold", "value", "impurity", "n_node_samples"):
        np.testing.assert_array_equal(getattr(fast_tree, name), getattr(tree, name))
    np.testing.assert_array_equal(fast_rows, rows)
    assert calls and tree.node_count > 3


def test_uniform_asks_for_equal_gradients_and_hessians():
    from treelib.growth.boosting_scan import uniform

    g, h = np.array([0.5, 0.5, -0.0, 0.0, 0.5]), np.array([1.0, 1.0, 1.0, 1.0, 2.0])
    assert uniform(g, None, np.array([0, 1, 4])) and uniform(g, h, np.array([0, 1]))
    assert not uniform(g, h, np.array([0, 1, 4])) and not uniform(g, None, np.array([1, 2]))
    assert uniform(g, h, np.array([2, 3]))
    assert not uniform(np.array([np.nan, np.nan]), None, np.array([0, 1]))


def test_partition_keeps_the_order_of_both_sides():
    rng = np.random.default_rng(0)
    for n in (0, 5, 511, 512, 3000):
        rows = np.sort(rng.choice(10 * n + 1, n, replace=False))
        goes_left = rng.random(n) < 0.3
        left, right = partition(rows, goes_left)
        np.testing.assert_array_equal(left, rows[goes_left])
        np.testing.assert_array_equal(right, rows[~goes_left])


@pytest.mark.parametrize("with_hessians", [False, True])
def test_integer_counts_give_the_float_cumulative_counts(with_hessians):
    rng = np.random.default_rng(1)
    codes = rng.integers(0, 40, (500, 3)).astype(np.uint8)
    codes[rng.random(codes.shape) < 0.1] = MISSING_BIN
    data = BinnedData(codes, [40] * 3)
    g = rng.normal(size=500)
    h = rng.random(500) if with_hessians else None
    hist = count_histograms(data, np.arange(0, 500, 3), g, h)
    GL, HL, NL, _ = candidate_sums(hist, data)
    plain = np.cumsum(hist.n[..., :-1], axis=-1)
    assert NL.dtype == np.float64
    np.testing.assert_array_equal(NL[..., :plain.shape[-1]], plain)
    if not with_hessians:                # (the missing-left counts of empty bins: 0)
        np.testing.assert_array_equal(HL[..., :plain.shape[-1]], plain)


def test_trees_are_the_general_paths_trees(monkeypatch):
    """A tree grown with the shortcut equals one grown with ``choose_splits`` alone,
    node for node, on rows with many ties (rounded california-like values)."""
    import treelib.growth.boosting_grower as grower

    rng = np.random.default_rng(2)
    codes = rng.integers(0, 30, (3000, 5)).astype(np.uint8)
    codes[:, 4] = codes[:, 3]
    data = BinnedData(codes, [30] * 5)
    g = np.round(rng.normal(size=3000), 1)
    rules = BoostingRules(min_samples_leaf=5)
    fast_tree, fast_rows = grow_boosting_tree(data, g, None, rules, 0.1)

    def general(cuts, sums, rules, roots, uniform=None):
        return choose_splits(cuts, sums, rules, roots)

    monkeypatch.setattr(grower, "fast_splits", general)
    tree, rows = grow_boosting_tree(data, g, None, rules, 0.1)
    for name in ("feature", "threshold", "value", "impurity", "n_node_samples"):
        np.testing.assert_array_equal(getattr(fast_tree, name), getattr(tree, name))
    np.testing.assert_array_equal(fast_rows, rows)
