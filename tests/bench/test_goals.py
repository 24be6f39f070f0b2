"""Issue 24's goal report: every row of the issue's goal table, its ratio computed from
the benchmark files as the files' own modules compute it, and the machine of each."""

import math

import pandas as pd

from treelib.bench import goals, per_node, shapes, speed
from treelib.bench.__main__ import main
from treelib.bench.results import write_results

#: The issue's goal rows (its table, and the process peak of the line below it).
ISSUE_GOALS = [
    "RandomForestClassifier (sqrt features) / scikit-learn",
    "ExtraTreesClassifier and ExtraTreesRegressor / scikit-learn",
    "RandomForestRegressor, california / scikit-learn",
    "forests, n_jobs=2 against 1",
    "HistGradientBoostingRegressor, california, 200 iterations / scikit-learn",
    "per-node growers, time per node / scikit-learn",
    "digits level-wise / scikit-learn; california exact level-wise / scikit-learn",
    "many classes (1,000) and wide data: time / memory growth",
    "memory within 2x scikit-learn's process peak"]


def machine(date):
    return {"cpu": "Test CPU", "logical_cpus": 2, "load average (1 min) at start": "0.50",
            "treelib commit": "abc1234", "date": date, "repeats": 3}


def speed_fits():
    """Three repeats: treelib level-wise at 2, 1.5 and 5 times scikit-learn (median 2;
    the ratio of the medians would be 3); n_jobs=2 at 1/2, 1/2, 1/4 of n_jobs=1."""
    rows = []
    for case in ("rf_digits", "rf_synthetic", "et_digits", "et_california",
                 "rf_california", "tree_digits", "tree_california"):
        for repeat, (ours, theirs) in enumerate([(2.0, 1.0), (3.0, 2.0), (5.0, 1.0)]):
            rows += [(case, "scikit-learn", 10, repeat, theirs, theirs, 0.9),
                     (case, "treelib level_wise", 10, repeat, ours, ours, 0.9)]
    for repeat, (one, two) in enumerate([(4.0, 2.0), (4.0, 2.0), (4.0, 1.0)]):
        rows += [("n_jobs", "treelib n_jobs=1", 40, repeat, one, one, 0.9),
                 ("n_jobs", "treelib n_jobs=2", 40, repeat, two, one, 0.9),
                 ("n_jobs", "scikit-learn n_jobs=1", 40, repeat, 1.0, 1.0, 0.9),
                 ("n_jobs", "scikit-learn n_jobs=2", 40, repeat, 0.8, 1.0, 0.9)]
    return pd.DataFrame(rows, columns=speed.COLUMNS)


def shapes_fits():
    """treelib at 3 times scikit-learn's fastest CPU time, 1.5 times its largest growth."""
    rows = []
    for case in shapes.CASES:
        for repeat in (0, 1):
            rows.append((case, "scikit-learn", repeat, 1.0, 1.0 + repeat, 10.0 + repeat,
                         100.0))
            for method in shapes.treelib_methods(case):
                rows.append((case, method, repeat, 1.0, 3.0 + repeat, 16.5, 150.0))
    return pd.DataFrame(rows, columns=shapes.COLUMNS)


def per_node_fits():
    """treelib's time per node 8 then 12 then 9 times scikit-learn's: median 9."""
    rows = []
    for case in per_node.CASES:
        for repeat, factor in enumerate([8.0, 12.0, 9.0]):
            rows += [(case, "scikit-learn", repeat, 1.0, 1.0, 100, 10.0),
                     (case, "treelib", repeat, 1.0, 1.0, 100, 10.0 * factor)]
    return pd.DataFrame(rows, columns=per_node.COLUMNS)


def boosting_fits():
    rows = []
    for repeat, (ours, theirs) in enumerate([(3.0, 1.0), (1.0, 1.0), (1.5, 1.0)]):
        for library, seconds in (("treelib", ours), ("scikit-learn", theirs)):
            rows.append({"experiment": "peers", "dataset": "california",
                         "library": library, "variant": "default", "iterations": 200,
                         "repeat": repeat, "seconds": seconds, "score": 0.85})
    return pd.DataFrame(rows)


def write_all(folder):
    for stem, fits in (("speed", speed_fits()), ("shapes", shapes_fits()),
                       ("per_node", per_node_fits()), ("boosting", boosting_fits())):
        write_results(fits, folder / f"{stem}.csv", machine(f"2026-01-0{len(stem)}"))


def test_the_table_names_every_goal_row_even_without_files(tmp_path):
    table = goals.goal_table(tmp_path)
    assert list(table.columns) == goals.COLUMNS
    assert list(dict.fromkeys(table.goal)) == ISSUE_GOALS          # the issue's order
    measures = set(zip(table.goal, table.measure))
    assert ("RandomForestClassifier (sqrt features) / scikit-learn",
            "100,000-row synthetic set, level-wise") in measures
    for case in shapes.CASES:
        assert any(measure.startswith(case + ":") for measure in table.measure)
    assert set(table[table.file == "per_node"].measure) == set(per_node.CASES)
    assert table.ratio.isna().all() and table.met.isna().all()


def test_ratios_from_hand_made_files(tmp_path):
    write_all(tmp_path)
    table = goals.goal_table(tmp_path).set_index(["goal", "measure"])
    ratio, met = table["ratio"], table["met"]
    speed_rows = table[table.file == "speed"]
    forests = speed_rows.drop(index="forests, n_jobs=2 against 1", level="goal")
    assert (forests.ratio == 2.0).all()                    # per-repeat median, not 3
    n_jobs = ratio.loc["forests, n_jobs=2 against 1"]
    assert n_jobs["california forest, n_jobs=1 / n_jobs=2 (wall)"] == 2.0
    assert met.loc[("forests, n_jobs=2 against 1",
                    "california forest, n_jobs=1 / n_jobs=2 (wall)")]
    assert n_jobs["scikit-learn's forest, the same (reference)"] == 1 / 0.8
    assert met.loc[("forests, n_jobs=2 against 1",
                    "scikit-learn's forest, the same (reference)")] is None
    assert ratio.loc[("ExtraTreesClassifier and ExtraTreesRegressor / scikit-learn",
                      "ExtraTreesClassifier, digits, level-wise")] == 2.0
    assert (table[table.file == "per_node"].ratio == 9.0).all()
    assert table[table.file == "per_node"].met.all()       # 9 <= 10
    boosting = table[table.file == "boosting"]
    assert boosting.ratio.tolist() == [1.5] and boosting.met.tolist() == [True]
    shapes_rows = table[table.file == "shapes"].reset_index()
    by_kind = {kind: shapes_rows[shapes_rows.measure.str.endswith(kind)].ratio
               for kind in ("time", "memory growth", "process peak")}
    assert (by_kind["time"] == 3.0).all() and not shapes_rows.met[
        shapes_rows.measure.str.endswith("time")].any()
    assert (by_kind["memory growth"] == 1.5).all() and (by_kind["process peak"] == 1.5).all()
    assert math.isclose(ratio.loc[(goals.LEVEL, "digits, one DecisionTreeClassifier")], 2.0)


def test_the_command_prints_every_file_with_its_machine(tmp_path, capsys):
    write_all(tmp_path)
    (tmp_path / "boosting.csv").unlink()
    assert main(["speed", "--ratios", str(tmp_path / "speed.csv")]) == 0
    printed = capsys.readouterr().out
    assert "speed.csv: cpu Test CPU; logical_cpus 2; load average (1 min) at start 0.50; "\
           "treelib commit abc1234; date 2026-01-05" in printed
    assert "per_node.csv: cpu Test CPU" in printed and "boosting.csv: missing" in printed
    for goal in ISSUE_GOALS:
        assert goal in printed
