"""Issue 24's goals on many classes and wide data: the time and the memory growth of
one fit against scikit-learn's same estimator, each estimator fitted in a fresh process
(``growth.in_fresh_process``) so that its peak memory is its own.

Cases (synthetic data from numpy's generator seeded with ``seed``; one thread for BLAS
and OpenMP; both libraries get the same parameters):

- ``tree_1000_classes``: DecisionTreeClassifier, full depth, on 20,000 x 5 with 1,000
  classes of 20 rows each;
- ``forest_500_classes``: RandomForestClassifier of 5 trees on 10,000 x 5 with 500
  classes of 20 rows each;
- ``boosting_1000_classes``: HistGradientBoostingClassifier, 3 iterations (3,000 trees
  a library) on 5,000 x 5 with 1,000 classes of 5 rows each;
- ``boosting_wide``: HistGradientBoostingRegressor, 5 iterations, on 200 x 40,000;
- ``level_wise_wide``: DecisionTreeRegressor, full depth, ``builder="level_wise"`` with
  splitter "cumsum" and "hist", on 50 x 200,000 float32 values (38 MiB).

Classes shift one feature each (``growth.shifted_normals``); the wide targets are the
sum of the first ten features plus standard normal noise.  The sizes (trees, iterations,
rows) keep the whole benchmark within 8 minutes on 2 cores: at the default two repeats it
took 3 minutes 46 seconds on a 2-core AMD EPYC at a load of 1.4 (treelib's 1,000-class
tree a quarter of it, 26 CPU seconds a fit).  Early stopping is off.

Rows: case, method, repeat, seconds (wall), cpu_seconds, peak_mib (the rise of the
resident set during the fit), process_peak_mib (the process's peak: data and imports
included).  ``goal_ratios(fits)``: treelib over scikit-learn, the fastest repeat's CPU
seconds and the largest memory.
"""

import time
import warnings

import numpy as np

from treelib.bench.fitting import clock
from treelib.bench.growth import goal_ratios as growth_goal_ratios
from treelib.bench.growth import in_fresh_process, measured_fit, shifted_normals

COLUMNS = ["case", "method", "repeat", "seconds", "cpu_seconds", "peak_mib",
           "process_peak_mib"]

#: Case: (rows, features, classes (0: a regression), estimator, both libraries' parameters).
CASES = {
    "tree_1000_classes": (20_000, 5, 1000, "DecisionTreeClassifier", {}),
    "forest_500_classes": (10_000, 5, 500, "RandomForestClassifier", {"n_estimators": 5}),
    "boosting_1000_classes": (5_000, 5, 1000, "HistGradientBoostingClassifier",
                              {"max_iter": 3, "early_stopping": False}),
    "boosting_wide": (200, 40_000, 0, "HistGradientBoostingRegressor",
                      {"max_iter": 5, "early_stopping": False}),
    "level_wise_wide": (50, 200_000, 0, "DecisionTreeRegressor", {}),
}
#: treelib's methods and their own parameters, by case (default: ``{"treelib": {}}``).
TREELIB_METHODS = {"level_wise_wide": {
    "treelib cumsum": {"builder": "level_wise", "splitter": "cumsum"},
    "treelib hist": {"builder": "level_wise", "splitter": "hist"}}}
REFERENCE = "scikit-learn"


def treelib_methods(case):
    """``{method: treelib's own parameters}`` of a case."""
    return TREELIB_METHODS.get(case, {"treelib": {}})


def shape_data(case, seed=0):
    """``(X, y)`` of a case: balanced classes shifting one feature each, or wide standard
    normals (float32 for the level-wise case) with a noisy sum of ten features as the
    target.  O(rows x features)."""
    n, n_features, n_classes, _, _ = CASES[case]
    rng = np.random.default_rng(seed)
    if n_classes:
        y = rng.permutation(np.arange(n) % n_classes)       # every class has rows
        return shifted_normals(y, n_features, n_classes, rng), y
    X = rng.standard_normal((n, n_features))
    y = X[:, :10].sum(axis=1) + rng.standard_normal(n)
    return (X.astype(np.float32) if case == "level_wise_wide" else X), y


def make_model(case, method, seed=0):
    """The estimator of ``case`` from scikit-learn (``method == REFERENCE``) or treelib
    (one of ``treelib_methods(case)``)."""
    _, _, _, name, parameters = CASES[case]
    if method == REFERENCE:
        import sklearn.ensemble
        import sklearn.tree

        module = sklearn.tree if name.startswith("DecisionTree") else sklearn.ensemble
    else:
        import treelib.estimators as module

        parameters = {**parameters, **treelib_methods(case)[method]}
    return getattr(module, name)(random_state=seed, **parameters)


def shapes_child(case, method, repeats, seed, results):
    """Run in a fresh process: a warm-up fit on a corner of the data (100 rows, 100
    features), then ``repeats`` measured fits (``growth.measured_fit``); puts the rows
    on ``results``."""
    from threadpoolctl import threadpool_limits

    X, y = shape_data(case, seed)
    rows = []
    with threadpool_limits(limits=1):
        with warnings.catch_warnings():        # "more classes than half the rows"
            warnings.simplefilter("ignore", UserWarning)
            make_model(case, method, seed).fit(X[:100, :100], y[:100])
        for repeat in range(repeats):
            model, seconds, cpu, rise, peak = measured_fit(
                lambda: make_model(case, method, seed), X, y)
            rows.append((case, method, repeat, seconds, cpu, rise, peak))
            del model
    results.put(rows)


def run(full=False, repeats=2, seed=0, progress=None, cases=None):
    """Every case of ``CASES`` (or ``cases``) with scikit-learn and treelib's methods,
    each in a fresh process fitting ``repeats`` times (``full``: twice as many).  About
    four minutes on two cores at two repeats."""
    import pandas as pd

    records, start = [], time.perf_counter()
    for case in cases or CASES:
        for method in (REFERENCE, *treelib_methods(case)):
            rows = in_fresh_process(shapes_child,
                                    (case, method, repeats * (2 if full else 1), seed),
                                    f"{method} on {case}")
            records += rows
            if progress is not None:
                print(f"{case:>22} {method:>14}: {min(r[4] for r in rows):8.3f} CPU s, "
                      f"growth {max(r[5] for r in rows):8.1f} MiB   elapsed "
                      f"{clock(time.perf_counter() - start)}", file=progress, flush=True)
    fits = pd.DataFrame(records, columns=COLUMNS)
    ratios = goal_ratios(fits)["ratio"]
    return fits, {"threads": "1 (threadpoolctl); each estimator in a fresh process",
                  "ratios": "; ".join(f"{goal}={r:.2f}" for goal, r in ratios.items())}


def goals():
    """Issue 24's goals on these cases, in ``growth.GOALS``' form: treelib over
    scikit-learn, time (CPU), memory growth and the process's peak memory, each <= 2."""
    rows = []
    for case in CASES:
        for method in treelib_methods(case):
            for statistic, what in (("cpu_seconds", "time"), ("peak_mib", "memory growth"),
                                    ("process_peak_mib", "process peak")):
                rows.append((f"{case}: {method} / scikit-learn {what}", case, method,
                             REFERENCE, statistic, 2.0, "<="))
    return tuple(rows)


def goal_ratios(fits):
    """One row per goal of ``goals()`` (ratio, target, met) from the fits of ``run``.
    O(rows)."""
    return growth_goal_ratios(fits, goals())
