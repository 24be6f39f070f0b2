"""The null categorical and its two remedies (``treelib.finders.categorical_bias``): each
mechanism against brute force on small cases (gains against ``exact_split`` and against all
2^(q-1) - 1 partitions, LightGBM's filter and order and CatBoost's ordered statistics
against loops over their definitions), the simulation's frequencies within a binomial
tolerance of what their mechanism implies."""

import itertools

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from treelib.bench.categorical import brute_force_partition
from treelib.criteria import target_statistics
from treelib.finders.categorical_bias import (
    best_numeric_gain,
    best_partition_gain,
    categorical_selection_frequencies,
    lightgbm_order,
    ordered_target_statistics,
)
from treelib.finders.exact import exact_split


@given(st.integers(2, 40), st.integers(1, 8), st.integers(0, 2**32 - 1))
def test_numeric_gain_is_exact_splits(n, distinct, seed):
    rng = np.random.default_rng(seed)
    x, y = rng.integers(distinct, size=n).astype(float), rng.standard_normal(n)
    split = exact_split(x[:, None], target_statistics(y, "squared_error"))
    ours = best_numeric_gain(x, y)
    if split is None:
        assert ours == -np.inf
    else:
        assert ours == pytest.approx(split.gain, rel=1e-9, abs=1e-12)


@given(st.integers(2, 8), st.integers(0, 2**32 - 1))
def test_sorted_partition_is_the_best_of_all(q, seed):
    rng = np.random.default_rng(seed)
    codes = np.r_[np.arange(q), rng.integers(q, size=3 * q)]
    y = rng.standard_normal(len(codes))
    assert best_partition_gain(codes, y, q) == pytest.approx(
        brute_force_partition(codes, y)[0], rel=1e-9, abs=1e-12)


def loop_lightgbm_gain(codes, y, q, smooth):
    """LightGBM's many-vs-many candidates by their definition: the levels with at least
    ``smooth`` rows, sorted by sum g / (count + smooth), g = y - mean; every prefix and
    every suffix of that list goes left, all else right."""
    g = y - y.mean()
    kept = [c for c in range(q) if (codes == c).sum() >= max(smooth, 1)]
    kept.sort(key=lambda c: g[codes == c].sum() / ((codes == c).sum() + smooth))
    best = -np.inf
    for left in [kept[:i] for i in range(1, len(kept) + 1)] + [
            kept[-i:] for i in range(1, len(kept) + 1)]:
        mask = np.isin(codes, left)
        if 0 < mask.sum() < len(y):
            gain = (g[mask].sum() ** 2 / mask.sum() + g[~mask].sum() ** 2 / (~mask).sum()
                    - g.sum() ** 2 / len(y))
            best = max(best, gain)
    return best


@given(st.integers(2, 12), st.sampled_from([0.0, 1.0, 3.0, 10.0]), st.integers(0, 2**32 - 1))
def test_cat_smooth_search_is_its_definition(q, smooth, seed):
    rng = np.random.default_rng(seed)
    codes = rng.integers(q, size=40)
    y = rng.standard_normal(40)
    expected = loop_lightgbm_gain(codes, y, q, smooth)
    ours = best_partition_gain(codes, y, q, smooth)
    assert ours == pytest.approx(expected, rel=1e-9, abs=1e-12) or (
        ours == expected == -np.inf)


def test_lightgbm_order_filters_and_smooths():
    sums, counts = np.array([5.0, 3.0, -1.0, 9.0]), np.array([10, 2, 10, 30])
    # level 1 has 2 < 10 rows: left out; keys 5/20, -1/20, 9/40
    assert lightgbm_order(sums, counts, 10.0).tolist() == [2, 3, 0]
    assert lightgbm_order(sums, counts, 0.0).tolist() == [2, 3, 0, 1]


@given(st.integers(1, 30), st.integers(1, 5), st.floats(0.1, 5), st.integers(0, 2**32 - 1))
def test_ordered_statistics_use_only_earlier_rows(n, q, weight, seed):
    rng = np.random.default_rng(seed)
    codes, y, permutation = rng.integers(q, size=n), rng.standard_normal(n), rng.permutation(n)
    prior = 0.3
    values = ordered_target_statistics(codes, y, permutation, prior, weight)
    for turn, i in enumerate(permutation):
        earlier = [j for j in permutation[:turn] if codes[j] == codes[i]]
        expected = (y[earlier].sum() + weight * prior) / (len(earlier) + weight)
        assert values[i] == pytest.approx(expected, rel=1e-12, abs=1e-12)


def test_a_level_first_seen_gets_the_prior():
    values = ordered_target_statistics(np.array([0, 1, 0, 0]), np.array([1.0, 5.0, 3.0, 0.0]),
                                       np.array([0, 1, 2, 3]), prior=2.0, prior_weight=1.0)
    assert values.tolist() == [2.0, 2.0, 1.5, 2.0]


def test_selection_frequencies_under_the_null():
    result = categorical_selection_frequencies((2, 1000), n_seeds=400, seed=1)
    # 1,000 levels on 1,000 rows: the sorted levels nearly sort the target, always wins
    assert result["partition"][1] == 1.0
    # every level has fewer than cat_smooth = 10 rows: nothing left to split on
    assert result["cat_smooth"][1] == 0.0
    # one cut against 999: rare; same search at 2 levels (each has ~500 >= 10 rows)
    assert result["partition"][0] == result["cat_smooth"][0] < 0.1
    # the ordered statistics: near an even contest with the continuous feature
    # (binomial standard error at p = 0.5 and 400 seeds: 0.025; 4 of them)
    assert abs(result["ordered"][1] - 0.5) < 0.1


def test_the_simulation_is_reproducible():
    first = categorical_selection_frequencies((10,), n_seeds=20, seed=3)
    second = categorical_selection_frequencies((10,), n_seeds=20, seed=3)
    assert all(np.array_equal(first[k], second[k]) for k in first)


@pytest.mark.parametrize("kwargs, match", [
    ({"n_levels": (1,)}, "levels"), ({"n_levels": (2.5,)}, "levels"),
    ({"n_seeds": 0}, "n_seeds"), ({"encodings": ("onehot",)}, "encodings")])
def test_bad_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        categorical_selection_frequencies(**kwargs)


def test_all_partitions_loop_agrees_on_a_tiny_case():
    codes, y = np.array([0, 1, 2, 0, 1, 2]), np.array([1.0, -2.0, 0.5, 2.0, -1.0, 0.0])
    g = y - y.mean()
    best = max((g[np.isin(codes, s)].sum() ** 2 / np.isin(codes, s).sum()
                + g[~np.isin(codes, s)].sum() ** 2 / (~np.isin(codes, s)).sum())
               for r in (1, 2) for s in itertools.combinations(range(3), r))
    assert best_partition_gain(codes, y, 3) == pytest.approx(best, rel=1e-12)
