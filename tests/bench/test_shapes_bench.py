"""The shapes benchmark (issue 24: many classes, wide data) run small: its data, its
models, its fresh-process children and the ratios it reports."""

import numpy as np
import pytest

from treelib.bench import growth, shapes

#: The cases at a few hundred rows and features, as (rows, features, classes, ...).
SMALL = {"tree_1000_classes": (400, 5, 20, "DecisionTreeClassifier", {}),
         "forest_500_classes": (300, 5, 10, "RandomForestClassifier", {"n_estimators": 2}),
         "boosting_1000_classes": (200, 5, 10, "HistGradientBoostingClassifier",
                                   {"max_iter": 2, "early_stopping": False}),
         "boosting_wide": (60, 300, 0, "HistGradientBoostingRegressor",
                           {"max_iter": 2, "early_stopping": False}),
         "level_wise_wide": (30, 500, 0, "DecisionTreeRegressor", {})}


class Collect:
    """Stands in for a multiprocessing queue."""

    def put(self, rows):
        self.rows = rows


def test_every_class_has_rows_and_the_wide_level_wise_data_is_float32():
    X, y = shapes.shape_data("tree_1000_classes")
    assert X.shape == (20_000, 5) and np.bincount(y).tolist() == [20] * 1000
    X, y = shapes.shape_data("forest_500_classes")
    assert np.bincount(y, minlength=500).min() == 20
    X, y = shapes.shape_data("level_wise_wide")
    assert X.shape == (50, 200_000) and X.dtype == np.float32 and X.nbytes / 2**20 > 38
    X, _ = shapes.shape_data("boosting_wide")
    assert X.shape == (200, 40_000) and X.dtype == np.float64


def test_the_same_estimator_from_each_library():
    for case, (*_, name, parameters) in shapes.CASES.items():
        reference = shapes.make_model(case, "scikit-learn")
        assert type(reference).__name__ == name and type(reference).__module__.startswith(
            "sklearn")
        for method, own in shapes.treelib_methods(case).items():
            model = shapes.make_model(case, method)
            assert type(model).__name__ == name and type(model).__module__.startswith(
                "treelib")
            for key, value in {**parameters, **own}.items():
                assert model.get_params()[key] == value
    assert set(shapes.treelib_methods("level_wise_wide")) == {"treelib cumsum",
                                                              "treelib hist"}


@pytest.mark.slow
def test_run_writes_every_case_and_method_with_time_and_memory(monkeypatch):
    monkeypatch.setattr(shapes, "CASES", SMALL)

    def in_this_process(target, args, what):
        out = Collect()
        target(*args, out)
        return out.rows

    monkeypatch.setattr(shapes, "in_fresh_process", in_this_process)
    fits, info = shapes.run(repeats=1)              # (the repeats: goal_ratios' test below)
    assert list(fits.columns) == shapes.COLUMNS
    expected = {(case, method) for case in SMALL
                for method in ("scikit-learn", *shapes.treelib_methods(case))}
    assert set(zip(fits.case, fits.method)) == expected and len(fits) == len(expected)
    assert (fits.seconds > 0).all() and (fits.cpu_seconds > 0).all()
    measured = fits.dropna(subset=["peak_mib"])            # NaN where /proc is absent
    assert (measured.peak_mib < measured.process_peak_mib).all()
    assert "level_wise_wide: treelib hist / scikit-learn time=" in info["ratios"]


def test_goal_ratios_take_the_fastest_time_and_the_largest_memory():
    import pandas as pd

    rows = [("boosting_wide", "scikit-learn", 0, 9.0, 2.0, 10.0, 100.0),
            ("boosting_wide", "scikit-learn", 1, 9.0, 1.0, 20.0, 110.0),
            ("boosting_wide", "treelib", 0, 9.0, 3.0, 50.0, 300.0),
            ("boosting_wide", "treelib", 1, 9.0, 5.0, 30.0, 200.0)]
    table = shapes.goal_ratios(pd.DataFrame(rows, columns=shapes.COLUMNS))
    prefix = "boosting_wide: treelib / scikit-learn "
    assert table.loc[prefix + "time", "ratio"] == 3.0            # 3 / 1
    assert table.loc[prefix + "memory growth", "ratio"] == 2.5   # 50 / 20
    assert table.loc[prefix + "process peak", "ratio"] == 300 / 110
    names = [prefix + what for what in ("time", "memory growth", "process peak")]
    assert table.loc[names, "met"].tolist() == [False, False, False]
    assert np.isnan(table.loc["tree_1000_classes: treelib / scikit-learn time", "ratio"])
    assert len(table) == 3 * sum(len(shapes.treelib_methods(c)) for c in shapes.CASES)


@pytest.mark.slow
def test_a_fresh_process_returns_its_rows_and_a_failed_one_raises():
    rows = growth.in_fresh_process(shapes_child_small, ("level_wise_wide",), "small")
    (row,) = rows
    assert row[:3] == ("level_wise_wide", "treelib hist", 0) and row[4] > 0
    with pytest.raises(RuntimeError, match="dies failed"):
        growth.in_fresh_process(dies, (), "dies")


def shapes_child_small(case, results):
    """A shapes child in a spawned process (module level, so the child can import it):
    the wide level-wise tree at a small size."""
    shapes.CASES = SMALL
    shapes.shapes_child(case, "treelib hist", 1, 0, results)


def dies(results):
    """A child that ends without an answer."""
    raise SystemExit(3)
