"""The timing benchmark: its grid, its statistics and its files."""

import numpy as np
import pandas as pd
import pytest

from treelib import bench
from treelib.datasets import load_seed_timings


def test_grid_is_the_seeds():
    table = load_seed_timings()
    np.testing.assert_array_equal([n for n, _ in bench.SEED_GRID], table.n_samples)
    repeats = dict(bench.SEED_GRID)
    assert repeats[500] == repeats[2050] == 5
    assert repeats[2200] == repeats[7900] == 3
    assert repeats[8000] == repeats[20000] == 1


def test_fit_exponent_recovers_a_power_law():
    n = np.array([500, 1000, 2000, 4000, 8000])
    assert bench.fit_exponent(n, 3e-7 * n**2) == pytest.approx(2.0)
    assert bench.fit_exponent(n, 0.01 * n**1.3) == pytest.approx(1.3)


def test_time_tree_fits_times_every_method_on_every_repeat():
    fits = bench.time_tree_fits([(60, 2), (90, 1)], max_depth=3)
    assert len(fits) == 3 * len(bench.TIMING_METHODS)
    assert set(fits.method) == set(bench.TIMING_METHODS)
    assert fits.groupby("n_samples").size().to_dict() == {60: 2 * 4, 90: 1 * 4}
    assert (fits.seconds > 0).all()
    table = bench.mean_seconds(fits)
    assert list(table.index) == [60, 90] and list(table.columns) == list(bench.TIMING_METHODS)
    one = fits[(fits.n_samples == 60) & (fits.method == "scan")].seconds.mean()
    assert table.loc[60, "scan"] == pytest.approx(one)


def test_results_round_trip(tmp_path):
    fits = pd.DataFrame({"n_samples": [500, 500], "repeat": [0, 1],
                         "method": ["scan", "scan"], "seconds": [0.25, 0.5]})
    info = {"cpu": "Test CPU @ 1 GHz", "date": "2026-01-01 00:00 UTC"}
    path = tmp_path / "out.csv"
    bench.write_results(fits, path, info)
    back, back_info = bench.read_results(path)
    pd.testing.assert_frame_equal(back, fits)
    assert back_info == info


def test_machine_info_names_the_machine():
    info = bench.machine_info()
    assert {"cpu", "numpy", "scikit-learn", "date", "threads"} <= set(info)
    assert info["numpy"] == np.__version__


def test_missing_results_say_where_to_look(monkeypatch, tmp_path):
    monkeypatch.setattr(bench, "RESULTS_DIR", tmp_path)
    with pytest.raises(FileNotFoundError, match="python -m treelib.bench"):
        bench.load_results("timing_full")


def test_command_line_writes_a_csv(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(bench, "QUICK_GRID", [(80, 1)])
    out = tmp_path / "quick.csv"
    bench.main(["timing", "--methods", "scan", "cumsum", "--max-depth", "2",
                "--output", str(out)])
    fits, info = bench.read_results(out)
    assert set(fits.method) == {"scan", "cumsum"} and info["max_depth"] == "2"
    assert "elapsed" in capsys.readouterr().err  # progress lines


class _Collect:
    """Stands in for a multiprocessing queue."""

    def put(self, rows):
        self.rows = rows


def test_growth_child_reports_time_memory_and_shape():
    out = _Collect()
    bench._growth_child("depth", "california_full_depth", 1, 0, out)
    (case, method, repeat, seconds, peak_mib, n_leaves, depth), = out.rows
    assert (case, method, repeat) == ("california_full_depth", "depth", 0)
    assert seconds > 0 and n_leaves > 10_000 and depth > 20
    assert np.isnan(peak_mib) or peak_mib > 0


def test_growth_data_resamples_with_noise():
    X, y = bench.growth_data("california_full_depth")
    assert X.shape == (20640, 8)
    big_X, big_y = bench.growth_data("million_rows_depth_10")
    assert big_X.shape == (1_000_000, 8) and big_y.shape == (1_000_000,)
    assert np.isin(big_y, y).all()                        # targets are resampled rows
    assert len(np.unique(big_X[:, 0])) > 0.99 * len(big_X)  # noise makes values distinct


def test_growth_summary_divides_by_scikit_learn():
    fits = pd.DataFrame({
        "case": ["a"] * 4, "method": ["depth", "depth", "sklearn", "sklearn"],
        "repeat": [0, 1, 0, 1], "seconds": [3.0, 5.0, 1.0, 1.0],
        "peak_mib": [10.0, 12.0, 2.0, 2.0], "n_leaves": [7] * 4, "depth": [3] * 4})
    table = bench.growth_summary(fits)
    assert table.loc[("a", "depth"), "vs_sklearn"] == 4.0
    assert table.loc[("a", "depth"), "peak_mib"] == 12.0


# --- the benchmarks of the part on approximate and random splits ---------------------


def test_california_split_is_fixed_and_float32():
    X_train, X_test, y_train, y_test = bench.california_split()
    assert (len(X_train), len(X_test)) == (15480, 5160)
    np.testing.assert_array_equal(X_train, X_train.astype(np.float32))
    again = bench.california_split()
    np.testing.assert_array_equal(again[1], X_test)


def test_time_bins_scores_every_setting():
    fits = bench.time_bins(grid=(4, 255), depths=("3",), repeats=2)
    assert sorted(set(fits.max_bins)) == [0, 4, 255] and len(fits) == 6
    assert fits.test_r2.between(0.2, 1).all() and (fits.seconds > 0).all()
    # 255 bins at depth 3 lose little against the exact tree; 4 bins lose more
    r2 = fits.groupby("max_bins").test_r2.mean()
    assert r2[4] < r2[255] and abs(r2[255] - r2[0]) < 0.02


def test_time_subtraction_counts_fewer_pairs_with_the_trick(monkeypatch):
    monkeypatch.setitem(bench.GROWTH_CASES, "california_full_depth",
                        {"n_samples": None, "max_depth": 6})
    fits = bench.time_subtraction(cases=("california_full_depth",), repeats=1)
    counted = fits.set_index("subtract").counted
    assert counted[True] < counted[False] <= 20640 * 8 * 6     # at most all rows per level
    assert fits.n_leaves.nunique() == 1                      # the same tree


def test_auc_table_scores_labels_and_probabilities():
    fits = bench.auc_table(datasets=("splice",), methods=("logistic", "rdt"), repeats=1)
    assert list(fits.method) == ["logistic", "rdt"]
    assert (fits.auc > fits.auc_labels).all()   # scores rank better than hard labels


def test_compare_methods_and_its_table():
    fits = bench.compare_methods(methods=("cumsum, level-wise", "hist 32"), depths=("4",),
                                 repeats=1)
    assert len(fits) == 2 * 2
    table = bench.method_table(fits)
    assert list(table.index) == ["cumsum, level-wise", "hist 32"]
    assert table[("", "kind")].tolist() == ["exact", "histogram"]
    assert table[("depth 4", "california test R^2")].between(0.4, 1).all()


def test_rdt_cost_measures_routed_samples(monkeypatch):
    fits = bench.rdt_cost(repeats=1)
    assert set(fits.experiment) == {"n", "depth", "features"}
    depth = fits[fits.experiment == "depth"]
    assert (depth.depth <= depth.max_depth).all()
    assert depth.sample_levels.is_monotonic_increasing

