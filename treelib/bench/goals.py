"""Issue 24's goal table, every row, from the benchmark files that measure it: the
ratio measured, the target, whether it is met, and the machine each file ran on.

Files (``FILES``, in ``benchmarks/`` or any folder): ``speed.csv`` (forests, ``n_jobs``,
single level-wise trees: per-repeat medians of wall-clock ratios, the methods of a
repeat timed side by side), ``shapes.csv`` (many classes and wide data: the fastest
repeat's CPU seconds, the largest memory, each estimator in a fresh process),
``per_node.csv`` (time per node, per-repeat medians) and ``boosting.csv`` (the peers'
experiment, california, 200 iterations, per-repeat median).  A file or a case missing
gives a NaN ratio and ``met`` None.
"""

import math
from pathlib import Path

from treelib.bench import boosting, per_node, shapes, speed
from treelib.bench.results import RESULTS_DIR, read_results

#: The benchmark files the table reads (stems of ``benchmarks/<stem>.csv``).
FILES = ("speed", "shapes", "per_node", "boosting")
#: The table's columns: the issue's goal row, what was measured for it, in which file,
#: the ratio, its target ("<= 2.0"; "none" for a reference row) and whether it is met.
COLUMNS = ["goal", "measure", "file", "ratio", "target", "met"]
#: The header lines of a file that name its machine and run.
MACHINE_KEYS = ("cpu", "logical_cpus", "load average (1 min) at start", "treelib commit",
                "date", "repeats")

# the goal rows, as its table words them
RF = "RandomForestClassifier (sqrt features) / scikit-learn"
ET = "ExtraTreesClassifier and ExtraTreesRegressor / scikit-learn"
LEVEL = "digits level-wise / scikit-learn; california exact level-wise / scikit-learn"
SHAPES = "many classes (1,000) and wide data: time / memory growth"
RFR = "RandomForestRegressor, california / scikit-learn"
N_JOBS = "forests, n_jobs=2 against 1"
LEVEL_WISE = "treelib level_wise"

#: speed.csv's rows: (goal, measure, case, numerator, denominator, target, sense).
SPEED_GOALS = (
    (RF, "digits, level-wise (the default)", "rf_digits", LEVEL_WISE, "scikit-learn",
     1.0, "<="),
    (RF, "100,000-row synthetic set, level-wise", "rf_synthetic", LEVEL_WISE,
     "scikit-learn", 1.0, "<="),
    (ET, "ExtraTreesClassifier, digits, level-wise", "et_digits", LEVEL_WISE,
     "scikit-learn", 1.5, "<="),
    (ET, "ExtraTreesRegressor, california, level-wise", "et_california", LEVEL_WISE,
     "scikit-learn", 1.5, "<="),
    (RFR, "level-wise", "rf_california", LEVEL_WISE, "scikit-learn", 1.0, "<="),
    (N_JOBS, "california forest, n_jobs=1 / n_jobs=2 (wall)", "n_jobs",
     "treelib n_jobs=1", "treelib n_jobs=2", 1.8, ">="),
    (N_JOBS, "scikit-learn's forest, the same (reference)", "n_jobs",
     "scikit-learn n_jobs=1", "scikit-learn n_jobs=2", None, None),
    (LEVEL, "digits, one DecisionTreeClassifier", "tree_digits", LEVEL_WISE,
     "scikit-learn", 1.0, "<="),
    (LEVEL, "california, one exact DecisionTreeRegressor", "tree_california", LEVEL_WISE,
     "scikit-learn", 0.5, "<="),
)
PER_NODE_GOAL = "per-node growers, time per node / scikit-learn"
BOOSTING_GOAL = "HistGradientBoostingRegressor, california, 200 iterations / scikit-learn"
PROCESS_PEAK_GOAL = "memory within 2x scikit-learn's process peak"
#: The goals in the issue's order (the process peak is the line below its table).
GOAL_ORDER = (RF, ET, RFR, N_JOBS, BOOSTING_GOAL, PER_NODE_GOAL, LEVEL, SHAPES,
              PROCESS_PEAK_GOAL)


def judged(goal, measure, file, ratio, target, sense):
    """One row of the table: the ratio against its target (met None where either is
    missing)."""
    met = None
    if sense is not None and not math.isnan(ratio):
        met = bool(ratio <= target if sense == "<=" else ratio >= target)
    return (goal, measure, file, ratio, "none" if sense is None else f"{sense} {target}",
            met)


def speed_rows(fits):
    """speed.csv's goal rows (``SPEED_GOALS``).  O(rows)."""
    rows = []
    for goal, measure, case, numerator, denominator, target, sense in SPEED_GOALS:
        ratio = (math.nan if fits is None else
                 speed.paired_ratio(fits, case, numerator, denominator))
        rows.append(judged(goal, measure, "speed", ratio, target, sense))
    return rows


def per_node_rows(fits):
    """per_node.csv's rows: each case's time per node / scikit-learn's, <= 10."""
    ratios = {} if fits is None else per_node.ratios(fits)
    return [judged(PER_NODE_GOAL, case, "per_node", ratios.get(case, math.nan), 10.0, "<=")
            for case in per_node.CASES]


def boosting_rows(fits):
    """boosting.csv's row: treelib / scikit-learn on california, <= 2."""
    try:
        ratio = math.nan if fits is None else boosting.per_repeat_ratio(fits, "california")[0]
    except KeyError:                   # the file lacks treelib's or scikit-learn's fits
        ratio = math.nan
    return [judged(BOOSTING_GOAL, "per-repeat median", "boosting", ratio, 2.0, "<=")]


def shapes_rows(fits):
    """shapes.csv's rows: time and memory growth (the issue's table), and the process's
    peak memory (the issue's line below it), each <= 2."""
    ratios = {} if fits is None else shapes.goal_ratios(fits)["ratio"].to_dict()
    rows = []
    for name, *_, target, sense in shapes.goals():
        goal = PROCESS_PEAK_GOAL if name.endswith("process peak") else SHAPES
        rows.append(judged(goal, name, "shapes", float(ratios.get(name, math.nan)), target,
                           sense))
    return rows


def read_files(folder=None, paths=None):
    """``{stem: (fits, info) or None}`` of ``FILES``: ``paths[stem]`` where given, else
    ``folder/<stem>.csv`` (default ``benchmarks/``); None where the file does not
    exist.  O(size of the files)."""
    folder = Path(RESULTS_DIR if folder is None else folder)
    files = {}
    for stem in FILES:
        path = Path((paths or {}).get(stem, folder / f"{stem}.csv"))
        files[stem] = read_results(path) if path.exists() else None
    return files


def goal_table(folder=None, paths=None, files=None):
    """Every row of issue 24's goal table as a DataFrame (``COLUMNS``: goal, measure,
    file, ratio, target, met) from ``read_files(folder, paths)`` (or ``files``, its
    result).  O(rows of the files)."""
    import pandas as pd

    files = read_files(folder, paths) if files is None else files
    fits = {stem: None if read is None else read[0] for stem, read in files.items()}
    rows = (speed_rows(fits["speed"]) + shapes_rows(fits["shapes"])
            + per_node_rows(fits["per_node"]) + boosting_rows(fits["boosting"]))
    rows.sort(key=lambda row: GOAL_ORDER.index(row[0]))          # stable: measures kept
    return pd.DataFrame(rows, columns=COLUMNS)


def machine_lines(files):
    """One line per file: the machine and run it records (``MACHINE_KEYS``), or that it
    is missing."""
    lines = []
    for stem, read in files.items():
        if read is None:
            lines.append(f"{stem}.csv: missing")
            continue
        info = read[1]
        lines.append(f"{stem}.csv: " + "; ".join(f"{key} {info.get(key, 'unknown')}"
                                                 for key in MACHINE_KEYS))
    return lines


def print_goals(folder=None, paths=None, out=None):
    """Print each file's machine line, then the goal table (ratios to three digits).
    O(rows of the files)."""
    import pandas as pd

    files = read_files(folder, paths)
    print("\n".join(machine_lines(files)), file=out)
    table = goal_table(files=files).round({"ratio": 3})
    with pd.option_context("display.max_colwidth", 80, "display.width", 250):
        print(table.to_string(index=False), file=out)
