"""The growth benchmark run small: its cases, its methods, its children and the goal
ratios it reports."""

import numpy as np
import pandas as pd

from treelib.bench import growth
from treelib.bench.__main__ import main
from treelib.bench.machine import machine_info
from treelib.bench.results import write_results


class Collect:
    """Stands in for a multiprocessing queue."""

    def put(self, rows):
        self.rows = rows


def test_every_regression_case_has_every_builder_and_the_histogram_one():
    for case in ["california_full_depth", "million_rows_depth_10"]:
        methods = growth.case_methods(case)
        assert set(growth.GROWTH_METHODS) < set(methods) and growth.HIST_METHOD in methods
    for case in ["digits_full_depth", "many_classes_depth_8"]:
        assert growth.case_methods(case) == ("level_wise", "depth_first", "sklearn")


def test_classification_data():
    X, y = growth.growth_data("digits_full_depth")
    assert X.shape == (1797, 64) and len(np.unique(y)) == 10
    X, y = growth.growth_data("many_classes_depth_8")
    n, f, k = growth.MANY_CLASSES
    assert X.shape == (n, f) and len(np.unique(y)) == k


def test_histogram_method_is_the_level_wise_hist_builder():
    model = growth.make_growth_model(growth.HIST_METHOD, 3)
    assert (model.builder, model.splitter, model.max_depth) == ("level_wise", "hist", 3)
    model = growth.make_growth_model("level_wise", None, "classification")
    assert type(model).__name__ == "DecisionTreeClassifier"


def test_growth_child_reports_cpu_seconds_for_regression_and_classification(monkeypatch):
    monkeypatch.setitem(growth.GROWTH_CASES, "california_full_depth",
                        {"n_samples": 3000, "max_depth": 5})
    monkeypatch.setattr(growth, "MANY_CLASSES", (3000, 4, 20))
    for case, method in [("california_full_depth", growth.HIST_METHOD),
                         ("many_classes_depth_8", "level_wise")]:
        out = Collect()
        growth.growth_child(method, case, 1, 0, out)
        (row,) = out.rows
        assert row[:3] == (case, method, 0) and len(row) == 9
        seconds, peak, process_peak, n_leaves, depth, cpu = row[3:]
        assert seconds > 0 and cpu > 0 and 1 < n_leaves and depth <= 8
        assert np.isnan(peak) or peak < process_peak


def fake_fits():
    rows = []
    for case, method, cpu, memory in [
            ("digits_full_depth", "level_wise", 2.0, 100),
            ("digits_full_depth", "sklearn", 1.0, 90),
            ("many_classes_depth_8", "level_wise", 1.0, 300),
            ("many_classes_depth_8", "sklearn", 1.0, 200),
            ("california_full_depth", "level_wise", 1.0, 100),
            ("california_full_depth", growth.HIST_METHOD, 0.5, 100),
            ("california_full_depth", "sklearn", 4.0, 100),
            ("million_rows_depth_10", "level_wise", 3.0, 400),
            ("million_rows_depth_10", growth.HIST_METHOD, 1.0, 500),
            ("million_rows_depth_10", "sklearn", 1.0, 200)]:
        for repeat, extra in enumerate([0.5, 0.0]):          # the fastest repeat counts
            rows.append((case, method, repeat, cpu + extra, 1.0, memory - repeat, 7, 3,
                         cpu + extra))
    return pd.DataFrame(rows, columns=["case", "method", "repeat", "seconds", "peak_mib",
                                       "process_peak_mib", "n_leaves", "depth",
                                       "cpu_seconds"])


def test_goal_ratios_from_the_fits():
    table = growth.goal_ratios(fake_fits())
    ratio, met = table["ratio"], table["met"]
    assert ratio["1a digits: level-wise / scikit-learn time"] == 2.0
    assert ratio["1b many classes: level-wise / scikit-learn process memory"] == 1.5
    assert ratio["2a california: hist level-wise / exact level-wise time"] == 0.5
    assert ratio["2b a million rows: exact level-wise / hist level-wise time"] == 3.0
    assert ratio["3 california: exact level-wise / scikit-learn time"] == 0.25
    assert ratio["4 a million rows: level_wise / scikit-learn process memory"] == 2.0
    assert ratio[f"4 a million rows: {growth.HIST_METHOD} / scikit-learn process memory"] == 2.5
    assert np.isnan(ratio["4 a million rows: depth_first / scikit-learn process memory"])
    assert met.tolist() == [False, True, True, True, True, None, None, None, True, False]


def test_print_goal_ratios_names_the_machine(tmp_path, capsys):
    path = tmp_path / "growth.csv"
    write_results(fake_fits().drop(columns="cpu_seconds"), path, machine_info())
    assert main(["growth", "--ratios", str(path)]) == 0
    printed = capsys.readouterr().out
    assert "cpu: " in printed and "treelib commit" in printed
    assert "3 california: exact level-wise / scikit-learn time" in printed
