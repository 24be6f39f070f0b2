"""Growth orders against scikit-learn: time and peak memory of whole trees, each
growth order fitted in a fresh process so that its peak memory is its own; and the four
ratios of issue 15's goals computed from those fits (``goal_ratios``)."""

import gc
import time

import numpy as np

from treelib.bench.fitting import clock, resampled_california, time_fit_cpu, tree_model

#: Data sets of the growth benchmark: rows (None: all of california_housing, else a
#: seeded resample of it with small noise) and the depth limit of every tree; the
#: classification cases name their data (``growth_data``).
GROWTH_CASES = {
    "california_full_depth": {"n_samples": None, "max_depth": None},
    "million_rows_depth_10": {"n_samples": 1_000_000, "max_depth": 10},
    "digits_full_depth": {"task": "classification", "max_depth": None},
    "many_classes_depth_8": {"task": "classification", "max_depth": 8},
}
#: The exact builders (scikit-learn's regressor, treelib's with splitter "cumsum"), and
#: the level-wise histogram builder (a different tree: cuts between bins).
GROWTH_METHODS = ("recursive", "depth_first", "best_first", "level_wise", "sklearn")
HIST_METHOD = "level_wise_hist"
CLASSIFICATION_METHODS = ("level_wise", "depth_first", "sklearn")

#: The many-classes case: rows, features and classes.
MANY_CLASSES = (50_000, 10, 200)


def case_methods(case):
    """The methods a case is fitted with: every builder and the histogram one for the
    regression cases, level-wise, depth-first and scikit-learn for classification."""
    if GROWTH_CASES[case].get("task") == "classification":
        return CLASSIFICATION_METHODS
    return GROWTH_METHODS[:-1] + (HIST_METHOD, "sklearn")


def many_classes_data(seed=0):
    """``MANY_CLASSES`` rows x features of standard normals and labels drawn uniformly
    from the classes, each label shifting one feature, so that splits have something to
    find."""
    n, f, k = MANY_CLASSES
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    return shifted_normals(y, f, k, rng), y


def shifted_normals(y, n_features, n_classes, rng):
    """Standard normals of ``len(y)`` rows x ``n_features`` (drawn from ``rng``), label
    ``y`` shifting feature ``y % n_features`` by ``4 y / n_classes``.  O(n features)."""
    n = len(y)
    X = rng.standard_normal((n, n_features))
    X[np.arange(n), y % n_features] += y / n_classes * 4
    return X


def growth_data(case, seed=0):
    """X, y of a growth case (``resampled_california``; scikit-learn's digits;
    ``many_classes_data``)."""
    if case == "digits_full_depth":
        from sklearn.datasets import load_digits

        return load_digits(return_X_y=True)
    if case == "many_classes_depth_8":
        return many_classes_data(seed)
    return resampled_california(GROWTH_CASES[case]["n_samples"], seed)


def make_growth_model(method, max_depth, task="regression"):
    """scikit-learn's tree, or treelib's with the named builder (cumsum splitter;
    ``HIST_METHOD``: the level-wise builder with splitter "hist")."""
    if method == "sklearn":
        return tree_model("sklearn", task, max_depth=max_depth)
    if method == HIST_METHOD:
        return tree_model("treelib", task, builder="level_wise", splitter="hist",
                          max_depth=max_depth)
    return tree_model("treelib", task, builder=method, max_depth=max_depth)


def memory_kib(field):
    """A field of /proc/self/status (VmRSS, VmHWM) in KiB; None where unavailable."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def reset_peak_memory():
    """Reset the kernel's peak-RSS counter of this process (Linux >= 4.0)."""
    try:
        with open("/proc/self/clear_refs", "w") as clear:
            clear.write("5")
        return True
    except OSError:
        return False


def growth_child(method, case, repeats, seed, results):
    """Run in a fresh process: fit ``repeats`` trees, report seconds, the peak rise of
    the resident set during the fit, the peak resident set of the whole process (data
    and imports included), leaves, depth and CPU seconds (``time.process_time``, less
    disturbed by other processes than the wall clock)."""
    from threadpoolctl import threadpool_limits

    X, y = growth_data(case, seed)
    max_depth = GROWTH_CASES[case]["max_depth"]
    task = GROWTH_CASES[case].get("task", "regression")
    with threadpool_limits(limits=1):
        make_growth_model(method, max_depth, task).fit(X[:500], y[:500])   # warm up
        rows = []
        for repeat in range(repeats):
            model, seconds, cpu, rise, peak = measured_fit(
                lambda: make_growth_model(method, max_depth, task), X, y)
            rows.append((case, method, repeat, seconds, rise, peak,
                         int(model.get_n_leaves()), int(model.get_depth()), cpu))
            del model
    results.put(rows)


def measured_fit(make_model, X, y):
    """One fit of ``make_model()`` in this process: ``(model, wall seconds, CPU seconds,
    rise of the resident set above what the process held before the fit in MiB, the
    process's peak resident set in MiB)``, both memories NaN where the kernel cannot
    reset its peak counter.  Costs the fit plus O(1)."""
    gc.collect()
    before = memory_kib("VmRSS")
    measured = reset_peak_memory() and before is not None
    model = make_model()
    seconds, cpu = time_fit_cpu(model, X, y)
    peak = memory_kib("VmHWM") if measured else None
    if peak is None:
        return model, seconds, cpu, float("nan"), float("nan")
    return model, seconds, cpu, (peak - before) / 1024, peak / 1024


def in_fresh_process(target, args, what):
    """Run ``target(*args, queue)`` in a freshly spawned process and return what it puts
    on the queue (its peak memory is then its own); RuntimeError naming ``what`` if the
    process fails or ends without putting anything.  Costs a Python start-up and the
    imports, plus the target."""
    import multiprocessing
    import queue

    context = multiprocessing.get_context("spawn")
    results = context.Queue()
    child = context.Process(target=target, args=(*args, results))
    child.start()
    rows = nothing = object()
    while rows is nothing and (child.is_alive() or not results.empty()):
        try:
            rows = results.get(timeout=1)   # a child that dies must not hang us
        except queue.Empty:
            pass
    child.join()
    if child.exitcode != 0 or rows is nothing:
        raise RuntimeError(f"{what} failed (exit code {child.exitcode})")
    return rows


def time_growth(cases, methods=None, repeats=1, seed=0, progress=None):
    """Fit one tree per growth method (default: ``case_methods``) on each case, each
    method in a fresh process.  Returns a DataFrame: case, method, repeat, seconds,
    peak_mib (the rise of the resident set above what the process held before the fit,
    scikit-learn's C allocations included), process_peak_mib (the whole process's peak:
    data and imports included), n_leaves, depth, cpu_seconds."""
    import pandas as pd

    records, start = [], time.perf_counter()
    for case in cases:
        for method in methods or case_methods(case):
            rows = in_fresh_process(growth_child, (method, case, repeats, seed),
                                    f"{method} on {case}")
            records += rows
            if progress is not None:
                mean = np.mean([r[3] for r in rows])
                print(f"{case:>24} {method:>11}: {mean:8.3f} s per tree, peak "
                      f"{rows[-1][4]:7.1f} MiB   elapsed "
                      f"{clock(time.perf_counter() - start)}", file=progress, flush=True)
    return pd.DataFrame(records, columns=["case", "method", "repeat", "seconds", "peak_mib",
                                          "process_peak_mib", "n_leaves", "depth",
                                          "cpu_seconds"])


def growth_summary(fits):
    """Mean seconds, peak memory and the ratio to scikit-learn per case and method."""
    table = fits.groupby(["case", "method"], sort=False).agg(
        seconds=("seconds", "mean"), peak_mib=("peak_mib", "max"),
        n_leaves=("n_leaves", "first"), depth=("depth", "first"))
    sklearn_seconds = table.xs("sklearn", level="method")["seconds"]
    table["vs_sklearn"] = table["seconds"] / sklearn_seconds.reindex(
        table.index.get_level_values("case")).to_numpy()
    return table


def run(full=False, repeats=None, seed=0, progress=None, methods=None):
    """California and digits at full depth (3 repeats with ``full``), and with ``full``
    also a million rows at depth 10 and the many-classes case (1 repeat)."""
    import pandas as pd

    fits = [time_growth(["california_full_depth", "digits_full_depth"], methods,
                        repeats or (3 if full else 1), seed, progress)]
    if full:
        fits.append(time_growth(["million_rows_depth_10", "many_classes_depth_8"], methods,
                                1, seed, progress))
    return (pd.concat(fits, ignore_index=True),
            {"grid": "full" if full else "quick",
             "splitter": f"cumsum (every treelib builder but {HIST_METHOD}: hist)"})


#: Issue 15's goals: (name, case, numerator, denominator, statistic, goal, sense).
#: Time ratios use the fastest repeat's CPU seconds; memory ratios the peak resident set
#: of the whole process (data and imports included).
GOALS = (
    ("1a digits: level-wise / scikit-learn time", "digits_full_depth", "level_wise",
     "sklearn", "cpu_seconds", 1.0, "<="),
    ("1b many classes: level-wise / scikit-learn process memory", "many_classes_depth_8",
     "level_wise", "sklearn", "process_peak_mib", 2.0, "<="),
    ("2a california: hist level-wise / exact level-wise time", "california_full_depth",
     HIST_METHOD, "level_wise", "cpu_seconds", 1.0, "<="),
    ("2b a million rows: exact level-wise / hist level-wise time",
     "million_rows_depth_10", "level_wise", HIST_METHOD, "cpu_seconds", 2.5, ">="),
    ("3 california: exact level-wise / scikit-learn time", "california_full_depth",
     "level_wise", "sklearn", "cpu_seconds", 0.5, "<="),
    *((f"4 a million rows: {method} / scikit-learn process memory",
       "million_rows_depth_10", method, "sklearn", "process_peak_mib", 2.0, "<=")
      for method in GROWTH_METHODS[:-1] + (HIST_METHOD,)),
)


def goal_ratios(fits, goals=GOALS):
    """The ratios of issue 15's goals (``GOALS``; or ``goals`` in that form) from the
    fits of ``time_growth``: one row per goal with the ratio, the goal and whether it is
    met (NaN, None where the fits lack a case or method).  Time is the fastest repeat's,
    memory (``peak_mib``, ``process_peak_mib``) the largest.  Files written before
    ``cpu_seconds`` was recorded fall back on ``seconds``.  O(rows)."""
    import pandas as pd

    if "cpu_seconds" not in fits:
        fits = fits.assign(cpu_seconds=fits["seconds"])
    best = fits.groupby(["case", "method"]).agg(cpu_seconds=("cpu_seconds", "min"),
                                                peak_mib=("peak_mib", "max"),
                                                process_peak_mib=("process_peak_mib", "max"))
    rows = []
    for name, case, numerator, denominator, statistic, goal, sense in goals:
        try:
            with np.errstate(divide="ignore", invalid="ignore"):   # no growth: inf, NaN
                ratio = (best.loc[(case, numerator), statistic]
                         / best.loc[(case, denominator), statistic])
        except KeyError:
            ratio = float("nan")
        met = None if np.isnan(ratio) else bool(ratio <= goal if sense == "<=" else ratio >= goal)
        rows.append((name, ratio, f"{sense} {goal}", met))
    return pd.DataFrame(rows, columns=["goal", "ratio", "target", "met"]).set_index("goal")


def print_goal_ratios(path, out=None):
    """Print the goal ratios of a growth CSV (``python -m treelib.bench growth --ratios
    FILE``) with the machine it ran on."""
    from treelib.bench.results import read_results

    fits, info = read_results(path)
    for key in ("cpu", "logical_cpus", "load average (1 min) at start", "treelib commit",
                "date"):
        print(f"{key}: {info.get(key, 'unknown')}", file=out)
    print(goal_ratios(fits).round(3).to_string(), file=out)

