"""Chapter 21 ("Split-selection bias and feature importance"): the teaching best_gain is
exact_split's gain on one feature, the teaching ordered_ts is treelib's ordered target
statistics, and the chapter's claims about the committed benchmark, the categorical
remedies, the importances and the unbiased rule hold.

The teaching cells (tag "teaching") are loaded from the notebook."""

import math

import numpy as np
import pytest

from tests.conftest import claim, notebook_cells
from treelib.bench import load_results
from treelib.bench.selection_bias import selection_table, time_ratio
from treelib.criteria import target_statistics
from treelib.finders.categorical_bias import ordered_target_statistics
from treelib.finders.exact import exact_split
from treelib.finders.unbiased import selection_frequencies

NOTEBOOK = "21_selection_bias.ipynb"
TEACHING = notebook_cells(NOTEBOOK)
best_gain, null_feature, ordered_ts = (TEACHING[name] for name in
                                       ("best_gain", "null_feature", "ordered_ts"))


@pytest.fixture(scope="module")
def committed():
    fits, _ = load_results("selection_bias")
    return fits, selection_table(fits)


@pytest.mark.parametrize("k", [2, 5, 37, 200])
def test_best_gain_is_exact_splits(k):
    rng = np.random.default_rng(k)
    x, y = null_feature(rng, 200, k), rng.standard_normal(200)
    split = exact_split(x[:, None], target_statistics(y, "squared_error"))
    assert best_gain(x, y) == pytest.approx(split.gain, rel=1e-9)


def test_ordered_ts_is_treelibs():
    rng = np.random.default_rng(5)
    codes, y, order = rng.integers(7, size=60), rng.standard_normal(60), rng.permutation(60)
    np.testing.assert_allclose(ordered_ts(codes, y, order, 0.2, 2.0),
                               ordered_target_statistics(codes, y, order, 0.2, 2.0),
                               rtol=1e-12, atol=1e-12)


def test_committed_numeric_frequencies(committed):
    fits, table = committed
    claim(NOTEBOOK, "The feature with two values wins 0.021 of the time, "
                    "the one with a thousand 0.549.")
    exhaustive = table.loc[("numeric", "exhaustive")].values
    assert np.all(np.diff(exhaustive) > 0)                    # more values, more wins
    assert round(exhaustive[0], 3) == 0.021 and round(exhaustive[-1], 3) == 0.549
    # the unbiased rule: 0.25 each within 3 binomial standard errors of 5,000 data sets
    unbiased = table.loc[("numeric", "unbiased")].values
    assert np.all(np.abs(unbiased - 0.25) < 3 * np.sqrt(0.25 * 0.75 / 5000))
    assert fits.query("rule == 'exhaustive' and n_values == 2")["n_seeds"].sum() == 5000


def test_fresh_run_within_two_standard_errors(committed):
    claim(NOTEBOOK, "the fresh run agrees with it within two of its binomial standard "
                    "errors (0.03 at 200 data sets and a frequency of 0.25)")
    claim(NOTEBOOK, "Its data sets are the first 200 of the committed run's first block")
    fits, table = committed
    assert fits.query("part == 'numeric' and block == 0")["seed"].eq(0).all()
    fresh = selection_frequencies((2, 10, 100, 1000), n_seeds=200, seed=0)
    for rule in ("exhaustive", "unbiased"):
        p = table.loc[("numeric", rule)].values
        assert np.all(np.abs(fresh[rule] - p) < 2 * np.sqrt(p * (1 - p) / 200)), rule


def test_committed_categorical_frequencies(committed):
    _, table = committed
    claim(NOTEBOOK, "from 100 levels on it wins every one of the 5,000 committed data sets")
    claim(NOTEBOOK, "At 1,000 levels a level holds one row on average and almost never "
                    "10, so all levels are left out, the categorical has no partition, and "
                    "it wins none of the committed data sets (0).")
    partition = table.loc[("categorical", "partition")].values
    smooth = table.loc[("categorical", "cat_smooth")].values
    ordered = table.loc[("categorical", "ordered")].values
    assert partition[2] == partition[3] == 1.0 and smooth[2] > 0.999 and smooth[3] == 0.0
    claim(NOTEBOOK, "its rate rises from 0.038 to 0.621, past the 0.5 of an even contest")
    assert round(partition[0], 3) == 0.038 and round(ordered[0], 3) == 0.621
    assert ordered[0] - 0.5 > 3 * np.sqrt(0.25 / 5000)
    assert round(ordered[3], 3) == 0.471


def binomial_tail(n, p, k):
    """P(Binomial(n, p) >= k), exactly.  O(k)."""
    return 1 - sum(math.comb(n, i) * p ** i * (1 - p) ** (n - i) for i in range(k))


def test_cat_smooth_filter_claims():
    # a level's count is Binomial(1000, 1/q) (each row's level uniform over q levels)
    claim(NOTEBOOK, "At 1,000 levels a level holds one row on average and almost never 10")
    assert binomial_tail(1000, 1 / 1000, 10) < 1e-6
    claim(NOTEBOOK, "At 100 levels about half the levels are kept")
    assert 0.45 < binomial_tail(1000, 1 / 100, 10) < 0.6
    # the smoothed order sum / (count + 10) of the kept levels against their mean order
    claim(NOTEBOOK, "adding a constant to the denominator hardly changes their order")
    rng = np.random.default_rng(0)
    correlations = []
    for _ in range(50):
        codes, y = rng.integers(100, size=1000), rng.standard_normal(1000)
        g = y - y.mean()
        sums, counts = np.bincount(codes, g, 100), np.bincount(codes, minlength=100)
        kept = counts >= 10
        ranks = [np.argsort(np.argsort(key)) for key in
                 (sums[kept] / counts[kept], sums[kept] / (counts[kept] + 10))]
        correlations.append(np.corrcoef(*ranks)[0, 1])
    assert np.mean(correlations) > 0.99


def test_time_ratio_claim(committed):
    fits, _ = committed
    claim(NOTEBOOK, "the unbiased rule takes less time than the exhaustive search at this "
                    "root: 0.62 of its CPU time in the committed benchmark")
    cpu = fits[fits["part"] == "timing"].groupby("rule")["cpu_seconds"].median()
    assert round(time_ratio(fits), 2) == round(cpu["unbiased"] / cpu["exhaustive"], 2) == 0.62


def test_importance_claims():
    claim(NOTEBOOK, "treelib's and scikit-learn's MDI differ by at most 0.002")
    claim(NOTEBOOK, "The continuous noise column collects 0.018 of the MDI, more than the "
                    "coin's 0.002 and close to Population's 0.022")
    claim(NOTEBOOK, "With a real signal both rules pick the median income (feature 0) and "
                    "the same cut")
