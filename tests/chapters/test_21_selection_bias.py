"""Chapter 21 ("Split-selection bias and feature importance"): the teaching best_gain is
exact_split's gain on one feature, the teaching ordered_ts is treelib's ordered target
statistics, and the chapter's claims about the committed benchmark, the categorical
remedies, the importances and the unbiased rule hold.

The teaching cells (tag "teaching") are loaded from the notebook."""

import numpy as np
import pytest

from tests.conftest import claim, notebook_cells
from treelib.bench import load_results
from treelib.bench.selection_bias import selection_table, time_ratio
from treelib.criteria import target_statistics
from treelib.finders.categorical_bias import ordered_target_statistics
from treelib.finders.exact import exact_split

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


def test_committed_categorical_frequencies(committed):
    _, table = committed
    claim(NOTEBOOK, "from 100 levels on it wins every one of the 5,000 committed data sets")
    claim(NOTEBOOK, "At 1,000 levels every level holds fewer than 10 rows, all are left "
                    "out, and the categorical cannot split at all (0).")
    partition = table.loc[("categorical", "partition")].values
    smooth = table.loc[("categorical", "cat_smooth")].values
    ordered = table.loc[("categorical", "ordered")].values
    assert partition[2] == partition[3] == 1.0 and smooth[2] > 0.999 and smooth[3] == 0.0
    claim(NOTEBOOK, "its rate rises from 0.038 to 0.621")
    assert round(partition[0], 3) == 0.038 and round(ordered[0], 3) == 0.621
    assert round(ordered[3], 3) == 0.471


def test_time_ratio_claim(committed):
    fits, _ = committed
    claim(NOTEBOOK, "the unbiased rule takes about 0.49 of the exhaustive search's time")
    assert round(time_ratio(fits), 2) == 0.49


def test_importance_claims():
    claim(NOTEBOOK, "treelib's and scikit-learn's MDI differ by at most 0.002")
    claim(NOTEBOOK, "The continuous noise column collects 0.018 of the MDI, more than the "
                    "coin's 0.002 and close to Population's 0.022")
    claim(NOTEBOOK, "With a real signal both rules pick the median income (feature 0) and "
                    "the same cut")
