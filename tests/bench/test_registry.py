"""The benchmark registry and its command line: every command runs, writes its CSV with
the machine it ran on, and reads back."""

import numpy as np
import pandas as pd
import pytest

from treelib import bench
from treelib.bench.__main__ import main
from treelib.bench.results import read_results, write_results


def test_every_benchmark_module_has_a_run_function():
    for name, benchmark in bench.BENCHMARKS.items():
        assert callable(benchmark.module.run), name
        assert benchmark.output or benchmark.full_output, name


def test_results_round_trip(tmp_path):
    fits = pd.DataFrame({"n_samples": [500, 500], "repeat": [0, 1],
                         "method": ["scan", "scan"], "seconds": [0.25, 0.5]})
    info = {"cpu": "Test CPU @ 1 GHz", "date": "2026-01-01 00:00 UTC"}
    path = tmp_path / "out.csv"
    write_results(fits, path, info)
    back, back_info = read_results(path)
    pd.testing.assert_frame_equal(back, fits)
    assert back_info == info


def test_machine_info_names_the_machine():
    info = bench.machine_info()
    assert {"cpu", "numpy", "scikit-learn", "date", "threads", "treelib commit"} <= set(info)
    assert info["numpy"] == np.__version__


def test_missing_results_say_where_to_look(monkeypatch, tmp_path):
    monkeypatch.setattr(bench.results, "RESULTS_DIR", tmp_path)
    with pytest.raises(FileNotFoundError, match="python -m treelib.bench"):
        bench.load_results("timing_full")


def test_fit_exponent_recovers_a_power_law():
    n = np.array([500, 1000, 2000, 4000, 8000])
    assert bench.fit_exponent(n, 3e-7 * n**2) == pytest.approx(2.0, rel=1e-9)
    assert bench.fit_exponent(n, 0.01 * n**1.3) == pytest.approx(1.3, rel=1e-9)


def test_command_line_writes_a_csv_with_the_machine(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(bench.timing, "QUICK_GRID", [(80, 1)])
    out = tmp_path / "quick.csv"
    assert main(["timing", "--output", str(out)]) == 0
    fits, info = read_results(out)
    assert set(fits.method) == set(bench.timing.TIMING_METHODS)
    assert info["benchmark"] == "timing" and info["grid"] == "quick" and info["cpu"]
    assert "elapsed" in capsys.readouterr().err  # progress lines
