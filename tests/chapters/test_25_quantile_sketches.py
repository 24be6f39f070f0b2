"""Chapter 25 ("Quantile sketches"): its teaching code against treelib, and the claims
its text makes, checked on data.

``merge_summaries`` merges two quantile summaries given as ``(values, w, r-, r+,
total)``: each value of either takes, from each summary, its stored bounds or those of
its stored neighbours; it equals ``treelib.sketch.merge`` bit for bit.
``merge_value_counts`` (exercise 1) merges the workers' distinct values and counts.
"""

import functools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import claim, notebook_cells
from treelib.binning import bin_thresholds, thresholds_from_counts
from treelib.datasets import load_california_housing
from treelib.sketch import (
    merge,
    merged_counts,
    prune,
    query,
    sketch_thresholds,
    summarize,
)

NAME = "25_quantile_sketches.ipynb"
NS = notebook_cells(NAME)
merge_summaries, merge_value_counts = NS["merge_summaries"], NS["merge_value_counts"]


@pytest.fixture(scope="module")
def california():
    return load_california_housing(return_X_y=True)


def as_tuple(s):
    return s.values, s.weights, s.rmin, s.rmax, s.total


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(0, 40), st.integers(0, 40),
       st.sampled_from([None, 1, 3, 8]))
def test_merge_summaries_is_treelibs_merge(seed, n_a, n_b, size):
    rng = np.random.default_rng(seed)
    a = summarize(rng.integers(0, 12, n_a) * 0.5)
    b = summarize(rng.integers(0, 12, n_b) * 0.5)
    if size:
        a, b = prune(a, size), prune(b, size)
    ours = merge_summaries(as_tuple(a), as_tuple(b))
    for p, q in zip(ours, as_tuple(merge(a, b))):
        assert np.asarray(p).tobytes() == np.asarray(q).tobytes()


def test_two_exact_summaries_merge_exactly_in_either_order():
    claim(NAME, "Merging two exact summaries gives the exact summary of all eight values")
    left = summarize(np.array([1.0, 2.0, 2.0, 5.0]))
    right = summarize(np.array([3.0, 4.0, 6.0, 6.0]))
    whole = summarize(np.array([1.0, 2.0, 2.0, 5.0, 3.0, 4.0, 6.0, 6.0]))
    for merged in (merge(left, right), merge(right, left)):
        for p, q in zip(as_tuple(merged), as_tuple(whole)):
            assert np.array_equal(p, q)
        assert merged.rank_error() == 0
    assert np.array_equal(query(merge(left, right), [0, 2, 4, 6, 8]),
                          query(merge(right, left), [0, 2, 4, 6, 8]))


def test_the_merge_orders_stay_within_their_bounds(california):
    claim(NAME, "Without pruning on the way, the order changes nothing, not even a last "
                "bit")
    income = california[0][:, 0]
    b = 64
    leaves = [prune(summarize(p), b) for p in np.array_split(income, 16)]
    in_turn = functools.reduce(merge, leaves)
    tree = leaves
    while len(tree) > 1:
        tree = [merge(x, z) for x, z in zip(tree[::2], tree[1::2])]
    for p, q in zip(as_tuple(in_turn), as_tuple(tree[0])):
        assert np.asarray(p).tobytes() == np.asarray(q).tobytes()
    pruned = leaves
    while len(pruned) > 1:
        pruned = [prune(merge(x, z), b) for x, z in zip(pruned[::2], pruned[1::2])]
    assert 1 / b < pruned[0].rank_error() <= 5 / (2 * b)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 6))
def test_merge_value_counts_is_treelibs(seed, n_parts):
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 30, 200) * 0.5
    parts = [np.unique(p, return_counts=True) for p in np.array_split(x, n_parts)]
    mine = merge_value_counts(parts)
    for a, b in zip(mine, merged_counts(parts)):
        assert np.array_equal(a, b)
    assert np.array_equal(thresholds_from_counts(*mine, 16), bin_thresholds(x, 16))


def test_the_sketch_stays_within_its_guarantee_on_income(california):
    X = california[0]
    income = np.sort(X[:, 0])
    targets = np.linspace(0, 1, 256)[1:-1] * len(income)
    for size in (8, 64, 1024):
        leaves = [prune(summarize(p), size) for p in np.array_split(X[:, 0], 16)]
        sketch = prune(functools.reduce(merge, leaves), size)
        cuts = sketch_thresholds(sketch, 255)
        below = np.searchsorted(income, cuts, side="left")
        upto = np.searchsorted(income, cuts, side="right")
        gap = np.maximum(below[None] - targets[:, None], targets[:, None] - upto[None])
        actual = np.maximum(gap, 0).min(axis=1).max() / len(income)
        assert actual <= sketch.rank_error() + 1e-12 <= 1 / size + 2e-12


def test_a_tree_of_1024_summaries_keeps_its_bound_only_with_larger_prunings(california):
    claim(NAME, "a path to the top is pruned eleven times, each adding up to $1/(2b)$: the "
                "bound becomes $11/(2b)$")
    claim(NAME, "pruning each merge to $10b$ instead of $b$, keeps it within $1/b$")
    income = california[0][:, 0]
    b = 8
    leaves = [prune(summarize(p), b) for p in np.array_split(income, 1024)]

    def up_a_tree(size):
        level = leaves
        while len(level) > 1:
            level = [prune(merge(x, z), size) for x, z in zip(level[::2], level[1::2])]
        return level[0]

    assert up_a_tree(b).rank_error() <= 11 / (2 * b)
    assert up_a_tree(10 * b).rank_error() <= 1 / b


def test_a_small_sketch_bins_a_tree_nearly_as_well_as_the_exact_bins(california):
    claim(NAME, "On california, a sketch of $b = 32$ binned a tree within about a hundredth "
                "of the exact bins' $R^2$")
    claim(NAME, "The score moves by about a hundredth between the exact bins and a sketch of "
                "$b$ = 32 or 1024, and drops clearly only for the coarsest sketch, $b$ = 8")
    from treelib.binning import bin_features
    from treelib.estimators import DecisionTreeRegressor

    X, y = california
    shuffled = np.random.default_rng(0).permutation(len(y))
    train, test = shuffled[:15_480], shuffled[15_480:]

    def score(cuts):
        codes, _ = bin_features(X, thresholds=cuts)
        model = DecisionTreeRegressor(max_depth=8).fit(codes[train], y[train])
        return model.score(codes[test], y[test])

    def sketched(size):
        cuts = []
        for j in range(X.shape[1]):
            leaves = [prune(summarize(p), size) for p in np.array_split(X[train, j], 16)]
            cuts.append(sketch_thresholds(prune(functools.reduce(merge, leaves), size), 255))
        return cuts

    exact = score(bin_features(X[train], 255)[1])
    r2 = {size: score(sketched(size)) for size in (8, 32, 1024)}
    assert abs(exact - r2[32]) < 0.015 and abs(exact - r2[1024]) < 0.015
    assert exact - r2[8] > 2 * max(abs(exact - r2[32]), abs(exact - r2[1024]))
