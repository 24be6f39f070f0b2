"""The mergeable quantile sketch (``treelib.sketch``): exact merged counts give binning's
thresholds bit for bit; a sketch's answers are within its certified rank error of the
exact ranks, and that error stays within the guarantee whatever the order of the merges."""

import functools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

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

SETTINGS = dict(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def partitions(draw):
    """A feature's values (ties, NaN, optionally weights) split into 1 to 8 partitions."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    n = draw(st.integers(1, 600))
    if draw(st.booleans()):
        x = rng.integers(0, draw(st.integers(1, 40)), n) * 0.5
    else:
        x = rng.lognormal(size=n)
    x[rng.random(n) < draw(st.sampled_from([0.0, 0.1]))] = np.nan
    w = rng.integers(1, 5, n).astype(float) if draw(st.booleans()) else np.ones(n)
    cuts = np.sort(rng.integers(0, n + 1, draw(st.integers(0, 7))))
    return np.split(x, cuts), np.split(w, cuts)


def exact_ranks(x, w, v):
    """W(x < v) and W(x <= v) of the data."""
    present = ~np.isnan(x)
    x, w = x[present], w[present]
    return np.array([w[x < a].sum() for a in v]), np.array([w[x <= a].sum() for a in v])


def assert_answers_within(summary, x, w, eps):
    """Every rank's answer has true ranks within eps W of it (the module's guarantee)."""
    if summary.size == 0:
        return
    ranks = np.linspace(0, summary.total, 101)
    below, upto = exact_ranks(x, w, query(summary, ranks))
    slack = eps * summary.total + 1e-9 * summary.total
    assert np.all(below - slack <= ranks) and np.all(ranks <= upto + slack)


@settings(**SETTINGS)
@given(partitions(), st.integers(1, 40), st.randoms(use_true_random=False))
def test_sketch_answers_within_its_guarantee_for_any_merge_order(data, size, random):
    xs, ws = data
    x, w = np.concatenate(xs), np.concatenate(ws)
    leaves = [prune(summarize(a, b), size) for a, b in zip(xs, ws)]
    for leaf in leaves:
        assert leaf.size <= size + 1 and leaf.rank_error() <= 1 / (2 * size) + 1e-12
    # merged in a random order, without pruning: within the largest leaf's error
    order = random.sample(leaves, len(leaves))
    merged = functools.reduce(merge, order)
    assert merged.rank_error() <= max(s.rank_error() for s in leaves) + 1e-12
    assert_answers_within(merged, x, w, merged.rank_error())
    # pruned once more: at most 1 / size in all, and still honest
    final = prune(merged, size)
    assert final.rank_error() <= 1 / size + 1e-12
    assert_answers_within(final, x, w, final.rank_error())
    # pruned after every merge of a random tree of merges: L / (2 size) for depth L
    pending = [(s, 1) for s in leaves]
    while len(pending) > 1:
        i, j = sorted(random.sample(range(len(pending)), 2))
        (a, da), (b, db) = pending.pop(j), pending.pop(i)
        pending.append((prune(merge(a, b), size), max(da, db) + 1))
    tree, depth = pending[0]
    assert tree.rank_error() <= depth / (2 * size) + 1e-12
    assert_answers_within(tree, x, w, tree.rank_error())


@settings(**SETTINGS)
@given(partitions(), st.randoms(use_true_random=False))
def test_merging_without_pruning_does_not_depend_on_the_order(data, random):
    xs, ws = data
    summaries = [summarize(a, b) for a, b in zip(xs, ws)]
    one = functools.reduce(merge, summaries)
    other = functools.reduce(merge, random.sample(summaries, len(summaries)))
    whole = summarize(np.concatenate(xs), np.concatenate(ws))
    for merged in (one, other):
        assert merged.rank_error() == 0.0 and merged.exact
        for field in ("values", "rmin", "rmax", "weights"):
            np.testing.assert_array_equal(getattr(merged, field), getattr(whole, field))


@settings(**SETTINGS)
@given(partitions(), st.integers(2, 255))
def test_exact_merge_gives_binnings_thresholds_bit_for_bit(data, max_bins):
    xs, _ = data
    x = np.concatenate(xs)
    local = bin_thresholds(x, max_bins)
    parts = [np.unique(a[~np.isnan(a)], return_counts=True) for a in xs]
    np.testing.assert_array_equal(thresholds_from_counts(*merged_counts(parts), max_bins),
                                  local)
    merged = functools.reduce(merge, [summarize(a) for a in xs])
    np.testing.assert_array_equal(sketch_thresholds(merged, max_bins), local)


def test_sketch_thresholds_on_california_within_the_bound():
    X, _ = load_california_housing(return_X_y=True)
    x = X[:, 0]
    parts = np.array_split(x, 16)
    size = 512
    sketch = prune(functools.reduce(merge, [prune(summarize(p), size) for p in parts]), size)
    assert sketch.size <= size + 1 and not sketch.exact
    eps = sketch.rank_error()
    assert eps <= 1 / size
    cuts = sketch_thresholds(sketch, 255)
    below, upto = exact_ranks(x, np.ones(len(x)), cuts)
    targets = np.linspace(0, 1, 256)[1:-1] * len(x)
    # every threshold is a value whose rank interval comes within eps n of some target
    near = (below[:, None] - eps * len(x) <= targets) & (targets <= upto[:, None] + eps * len(x))
    assert near.any(axis=1).all()


def test_empty_and_constant_partitions():
    empty = summarize(np.array([np.nan, np.nan]))
    assert empty.size == 0 and empty.rank_error() == 0.0
    merged = merge(empty, summarize(np.full(5, 2.0)))
    assert merged.values.tolist() == [2.0] and merged.total == 5
    assert sketch_thresholds(merged, 4).size == 0
    with pytest.raises(ValueError, match="max_bins"):
        sketch_thresholds(merged, 1)


# --- bad input: a ValueError (a TypeError for what is not a summary) naming the problem ---

SUMMARY = summarize(np.arange(10.0))


@pytest.mark.parametrize("size", [-1, 0, 1.5, True, None])
def test_prune_to_a_size_below_one_or_not_an_integer_is_refused(size):
    # -1 returned an empty summary, 0 divided by zero, 1.5 kept three entries
    with pytest.raises(ValueError, match=rf"size must be an integer >= 1.*got {size!r}"):
        prune(SUMMARY, size)


def test_prune_accepts_numpy_integers():
    assert prune(SUMMARY, np.int64(3)).size <= 4


@pytest.mark.parametrize("x, weights, message", [
    ([1.0, 2.0], [1.0, -1.0], r"sample_weight must be non-negative; found -1.0 at position 1"),
    ([1.0, 2.0], [1.0], "sample_weight has 1 entries for 2 values of x"),
    ([1.0, 2.0], [1.0, 1.0, 1.0], "sample_weight has 3 entries for 2 values of x"),
    ([1.0, 2.0], [], "sample_weight has 0 entries for 2 values of x"),
    ([1.0, 2.0], [1.0, np.nan], r"sample_weight contains NaN \(first at position 1\); "
                                "sample_weight must not have missing values"),
    ([1.0, 2.0], [1.0, np.inf], "sample_weight contains infinity"),
    ([1.0, 2.0], [[1.0, 1.0]], "sample_weight must be 1-D"),
    ([1.0, np.inf], None, r"x contains infinity \(first at position 1\)"),
    ([[1.0, 2.0]], None, "x must be 1-D"),
    (["a", "b"], None, "x must be numeric"),
])
def test_summarize_names_bad_values_and_weights(x, weights, message):
    with pytest.raises(ValueError, match=message):
        summarize(x, weights)


def test_summaries_of_no_row_are_empty_and_merge_as_no_weight():
    for empty in (summarize([]), summarize([], []), summarize([np.nan], [2.0])):
        assert empty.size == 0 and empty.total == 0.0
        assert merge(empty, SUMMARY).values.tolist() == SUMMARY.values.tolist()
        assert sketch_thresholds(prune(merge(empty, empty), 4), 4).size == 0
        with pytest.raises(ValueError, match="summary is empty"):
            query(empty, [0.0])


def test_query_refuses_nan_ranks():
    with pytest.raises(ValueError, match="ranks contains NaN"):
        query(SUMMARY, [1.0, np.nan])


@pytest.mark.parametrize("parts, message", [
    ([], "parts is empty"),
    ([([1.0, 2.0], [1])], r"parts\[0\] has 2 values but counts of shape \(1,\)"),
    ([([1.0], [1]), ([1.0, np.nan], [1, 1])], r"parts\[1\] values contain NaN"),
    ([([1.0, np.inf], [1, 1])], r"parts\[0\] values contains infinity"),
    ([([1.0, 2.0], [1, -1])], r"parts\[0\] counts must be whole numbers >= 0; got -1"),
    ([([1.0, 2.0], [1.5, 1.0])], r"parts\[0\] counts must be whole numbers >= 0; got 1.5"),
    ([([1.0, 2.0], [1.0, np.nan])], r"parts\[0\] counts must be whole numbers"),
    ([([1.0], ["a"])], r"parts\[0\] counts must be numbers"),
])
def test_merged_counts_names_the_bad_partition(parts, message):
    with pytest.raises(ValueError, match=message):
        merged_counts(parts)


def test_merged_counts_accepts_empty_partitions_and_whole_float_counts():
    values, counts = merged_counts([([], []), ([3.0, 1.0], [2.0, 1.0]), ([3.0], [1])])
    assert values.tolist() == [1.0, 3.0] and counts.tolist() == [1, 3]


@pytest.mark.parametrize("function", [
    lambda s: merge(s, SUMMARY), lambda s: merge(SUMMARY, s), lambda s: prune(s, 4),
    lambda s: query(s, [0.0]), lambda s: sketch_thresholds(s, 4)])
def test_what_is_not_a_summary_is_a_type_error(function):
    with pytest.raises(TypeError, match="must be a QuantileSummary"):
        function(np.arange(3.0))
