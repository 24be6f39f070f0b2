"""Each benchmark, run small: the right rows, the quantities it claims to measure."""

import numpy as np
import pandas as pd
import pytest

from treelib import bench
from treelib.bench import auc as auc_bench
from treelib.bench import bins, growth, methods, rdt_cost, subtraction, timing
from treelib.datasets import load_seed_timings


def test_timing_grid_is_the_seeds():
    table = load_seed_timings()
    np.testing.assert_array_equal([n for n, _ in timing.SEED_GRID], table.n_samples)
    repeats = dict(timing.SEED_GRID)
    assert repeats[500] == repeats[2050] == 5
    assert repeats[2200] == repeats[7900] == 3
    assert repeats[8000] == repeats[20000] == 1


def test_time_tree_fits_times_every_method_on_every_repeat():
    fits = timing.time_tree_fits([(60, 2), (90, 1)], max_depth=3)
    assert len(fits) == 3 * len(timing.TIMING_METHODS)
    assert fits.groupby("n_samples").size().to_dict() == {60: 2 * 4, 90: 1 * 4}
    assert (fits.seconds > 0).all()
    table = timing.mean_seconds(fits)
    assert list(table.index) == [60, 90] and list(table.columns) == list(timing.TIMING_METHODS)
    one = fits[(fits.n_samples == 60) & (fits.method == "scan")].seconds.mean()
    assert table.loc[60, "scan"] == one          # a mean of the same two numbers


class Collect:
    """Stands in for a multiprocessing queue."""

    def put(self, rows):
        self.rows = rows


@pytest.mark.slow
def test_growth_child_reports_time_memory_and_shape():
    out = Collect()
    growth.growth_child("depth_first", "california_full_depth", 1, 0, out)
    (case, method, repeat, seconds, peak, process_peak, n_leaves, depth, cpu), = out.rows
    assert (case, method, repeat) == ("california_full_depth", "depth_first", 0)
    assert seconds > 0 and n_leaves > 10_000 and depth > 20
    assert np.isnan(peak) or (0 < peak < process_peak)


def test_growth_data_resamples_with_noise():
    X, y = growth.growth_data("california_full_depth")
    assert X.shape == (20640, 8)
    big_X, big_y = growth.growth_data("million_rows_depth_10")
    assert big_X.shape == (1_000_000, 8) and big_y.shape == (1_000_000,)
    assert np.isin(big_y, y).all()                        # targets are resampled rows
    assert len(np.unique(big_X[:, 0])) > 0.99 * len(big_X)  # noise makes values distinct


def test_growth_summary_divides_by_scikit_learn():
    fits = pd.DataFrame({
        "case": ["a"] * 4, "method": ["depth_first", "depth_first", "sklearn", "sklearn"],
        "repeat": [0, 1, 0, 1], "seconds": [3.0, 5.0, 1.0, 1.0],
        "peak_mib": [10.0, 12.0, 2.0, 2.0], "n_leaves": [7] * 4, "depth": [3] * 4})
    table = growth.growth_summary(fits)
    assert table.loc[("a", "depth_first"), "vs_sklearn"] == 4.0
    assert table.loc[("a", "depth_first"), "peak_mib"] == 12.0


def test_california_split_is_fixed_and_float32():
    X_train, X_test, y_train, y_test = bench.california_split()
    assert (len(X_train), len(X_test)) == (15480, 5160)
    np.testing.assert_array_equal(X_train, X_train.astype(np.float32))
    again = bench.california_split()
    np.testing.assert_array_equal(again[1], X_test)


def test_time_bins_scores_every_setting():
    fits = bins.time_bins(grid=(4, 255), depths=("3",), repeats=2)
    assert sorted(set(fits.max_bins)) == [0, 4, 255] and len(fits) == 6
    assert fits.test_r2.between(0.2, 1).all() and (fits.seconds > 0).all()
    # 255 bins at depth 3 lose little against the exact tree; 4 bins lose more
    r2 = fits.groupby("max_bins").test_r2.mean()
    assert r2[4] < r2[255] and abs(r2[255] - r2[0]) < 0.02


def test_time_subtraction_counts_fewer_pairs_for_the_same_tree(monkeypatch):
    monkeypatch.setitem(growth.GROWTH_CASES, "california_full_depth",
                        {"n_samples": None, "max_depth": 6})
    fits = subtraction.time_subtraction(cases=("california_full_depth",), repeats=1)
    counted = fits.set_index("subtract").counted
    assert counted[True] < counted[False] <= 20640 * 8 * 6     # at most all rows per level
    assert fits.set_index("subtract").subtracted[False] == 0
    assert fits.n_leaves.nunique() == 1                      # the same tree


def test_auc_table_scores_labels_and_probabilities():
    fits = auc_bench.auc_table(datasets=("splice",), methods=("logistic", "rdt"), repeats=1)
    assert list(fits.method) == ["logistic", "rdt"]
    assert (fits.auc > fits.auc_labels).all()   # scores rank better than hard labels


def test_compare_methods_and_its_table():
    fits = methods.compare_methods(methods=("cumsum, level-wise", "hist 32"), depths=("4",),
                                   repeats=1)
    assert len(fits) == 2 * 2
    table = methods.method_table(fits)
    assert list(table.index) == ["cumsum, level-wise", "hist 32"]
    assert table[("", "kind")].tolist() == ["exact", "histogram"]
    assert table[("depth 4", "california test R^2")].between(0.4, 1).all()


def test_rdt_cost_measures_routed_samples():
    fits = rdt_cost.rdt_cost(repeats=1)
    assert set(fits.experiment) == {"n", "depth", "features"}
    depth = fits[fits.experiment == "depth"]
    assert (depth.depth <= depth.max_depth).all()
    assert depth.sample_levels.is_monotonic_increasing


@pytest.mark.parametrize("name", sorted(bench.BENCHMARKS))
def test_run_returns_fits_and_extra_information(name, monkeypatch):
    # each run() is exercised small above; here only its contract on the registry
    benchmark = bench.BENCHMARKS[name]
    assert benchmark.module.run.__code__.co_varnames[:4] == ("full", "repeats", "seed",
                                                             "progress")


def test_boosting_benchmark_compares_the_peers_line_search_and_goss(monkeypatch):
    from treelib.bench import boosting

    monkeypatch.setattr(boosting, "ITERATIONS", 3)
    monkeypatch.setattr(boosting, "CHECKPOINTS", (1, 3))
    monkeypatch.setattr(boosting, "GOSS_RATES", ((1.0, 0.0), (0.2, 0.1)))
    monkeypatch.setattr(boosting, "boosting_data", lambda name, seed=0: small_regression())
    fits, info = boosting.run(repeats=1, datasets=("california",), goss_datasets=("california",))
    peers = fits[fits.experiment == "peers"]
    assert list(peers.library) == list(boosting.PEERS) and (peers.seconds > 0).all()
    steps = fits[(fits.experiment == "line_search")
                 & (fits.variant == "learning_rate=line_search")]
    assert list(steps.iterations) == [1, 3] and (steps.mean_step == 1.0).all()
    np.testing.assert_allclose(sorted(set(fits[fits.experiment == "goss"].sampled)),
                               [0.3, 1.0])
    assert "fit time ratio treelib / scikit-learn (california)" in info


def small_regression():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 3))
    y = X[:, 0] + np.sin(X[:, 1])
    return X[:300], X[300:], y[:300], y[300:], "regression"
