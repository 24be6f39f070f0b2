"""Benchmarks behind the book's timing tables.

Command line::

    python -m treelib.bench timing --full   # the seed article's grid, about 15 minutes
    python -m treelib.bench timing          # a small grid, about a minute

    python -m treelib.bench growth --full   # growth orders against scikit-learn
    python -m treelib.bench growth          # california_housing only, a minute or two

    python -m treelib.bench bins            # histogram trees against max_bins
    python -m treelib.bench subtraction     # the histogram subtraction trick
    python -m treelib.bench auc             # seed article 001's AUC table
    python -m treelib.bench methods         # every split method, side by side
    python -m treelib.bench rdt_cost        # random decision trees against O(depth x n)

``timing --full`` writes ``benchmarks/timing_full.csv``, ``growth --full`` writes
``benchmarks/growth.csv`` and the others ``benchmarks/<command>.csv`` (override with
``--output``): one row per fitted tree,
preceded by ``# key: value`` lines that record the machine it ran on.  Every fit runs
with BLAS/OpenMP pinned to one thread.
"""

import argparse
import datetime
import gc
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np

#: Where committed benchmark results live (the repository's ``benchmarks`` folder).
RESULTS_DIR = Path(__file__).resolve().parent.parent / "benchmarks"

#: The seed article's grid: (n_samples, repeats).  Step 50 from 500 to 2,050 with 5
#: repeats, step 100 from 2,200 to 7,900 with 3, step 1,000 from 8,000 to 20,000 with 1.
SEED_GRID = ([(n, 5) for n in range(500, 2100, 50)]
             + [(n, 3) for n in range(2200, 8000, 100)]
             + [(n, 1) for n in range(8000, 20001, 1000)])

#: A grid small enough to run while the book builds.
QUICK_GRID = [(500, 3), (1000, 3), (2000, 2), (4000, 1)]

#: Every method grows trees with the same depth limit.
TIMING_MAX_DEPTH = 6
TIMING_METHODS = ("naive", "scan", "cumsum", "sklearn")


def cpu_model():
    """The CPU's model name, from /proc/cpuinfo where it exists."""
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def code_version():
    """The git commit of the treelib being timed ('+ changes' if the tree is dirty)."""
    import subprocess

    root = Path(__file__).resolve().parent.parent
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=root,
                                capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no",
                                "treelib"], cwd=root,
                               capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown (not a git checkout)"
    return commit + (" + uncommitted changes to treelib" if dirty else "")


def machine_info():
    """What a timing depends on: CPU, cores, load, Python and library versions, the
    code's commit, date."""
    import sklearn

    load = os.getloadavg() if hasattr(os, "getloadavg") else None
    return {
        "cpu": cpu_model(),
        "logical_cpus": os.cpu_count(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "scikit-learn": sklearn.__version__,
        "threads": "1 (BLAS/OpenMP pinned with threadpoolctl)",
        "load average (1 min) at start": "unknown" if load is None else f"{load[0]:.2f}",
        "treelib commit": code_version(),
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
    }


def make_model(method, max_depth):
    """A regression tree with the given split method ('sklearn' for scikit-learn's)."""
    if method == "sklearn":
        from sklearn.tree import DecisionTreeRegressor

        return DecisionTreeRegressor(max_depth=max_depth, random_state=0)
    from treelib.estimators import DecisionTreeRegressor

    return DecisionTreeRegressor(splitter=method, max_depth=max_depth)


def time_fit(model, X, y):
    """Seconds to fit ``model`` once, garbage collection paused (as ``timeit`` does)."""
    gc.collect()
    gc.disable()
    try:
        start = time.perf_counter()
        model.fit(X, y)
        return time.perf_counter() - start
    finally:
        gc.enable()


def _clock(seconds):
    return str(datetime.timedelta(seconds=round(seconds)))


def time_tree_fits(grid, methods=TIMING_METHODS, max_depth=TIMING_MAX_DEPTH, seed=0,
                   progress=None):
    """Fit one tree per method on random subsamples of california_housing.

    For every ``(n, repeats)`` of ``grid`` and every repeat, draw ``n`` rows without
    replacement (seeded by ``seed``, ``n`` and the repeat, so any part of a grid can be
    rerun alone) and time each method on the same rows.

    Returns a DataFrame with one row per fit: n_samples, repeat, method, seconds.
    ``progress``, if given, is a stream that receives one line per grid point.
    """
    import pandas as pd
    from threadpoolctl import threadpool_limits

    from treelib.datasets import load_california_housing

    X, y = load_california_housing(return_X_y=True)
    work = np.array([n * repeats for n, repeats in grid], dtype=float)
    records, start = [], time.perf_counter()
    with threadpool_limits(limits=1):
        for method in methods:  # warm up: the first fit pays for imports and caches
            make_model(method, max_depth).fit(X[:200], y[:200])
        for k, (n, repeats) in enumerate(grid):
            for repeat in range(repeats):
                rows = np.random.default_rng([seed, n, repeat]).choice(len(y), n, replace=False)
                for method in methods:
                    seconds = time_fit(make_model(method, max_depth), X[rows], y[rows])
                    records.append((n, repeat, method, seconds))
            if progress is not None:
                elapsed = time.perf_counter() - start
                left = elapsed * work[k + 1:].sum() / work[: k + 1].sum()
                print(f"[{k + 1:3d}/{len(grid)}] n = {n:6d} x {repeats}   "
                      f"elapsed {_clock(elapsed)}   about {_clock(left)} left",
                      file=progress, flush=True)
    return pd.DataFrame(records, columns=["n_samples", "repeat", "method", "seconds"])


def mean_seconds(fits):
    """Mean seconds per n_samples (rows) and method (columns), as the seed reports."""
    table = fits.pivot_table(index="n_samples", columns="method", values="seconds",
                             aggfunc="mean")
    ordered = [m for m in TIMING_METHODS if m in table.columns]
    return table[ordered + [m for m in table.columns if m not in ordered]]


def fit_exponent(n_samples, seconds):
    """Slope b of the least-squares line log(seconds) = a + b log(n): time ~ n^b."""
    slope, _ = np.polyfit(np.log(n_samples), np.log(seconds), 1)
    return float(slope)


# --- growth orders against scikit-learn ---------------------------------------------

#: Data sets of the growth benchmark: rows (None: all of california_housing, else a
#: seeded resample of it with small noise) and the depth limit of every tree.
GROWTH_CASES = {
    "california_full_depth": {"n_samples": None, "max_depth": None},
    "million_rows_depth_10": {"n_samples": 1_000_000, "max_depth": 10},
}
GROWTH_METHODS = ("recursive", "depth", "best", "level", "sklearn")


def growth_data(case, seed=0):
    """X, y of a growth case.  The large case resamples california_housing with
    replacement and adds Gaussian noise of 0.001 standard deviations to every feature,
    so that nearly all values are distinct, as in a genuinely large data set."""
    from treelib.datasets import load_california_housing

    X, y = load_california_housing(return_X_y=True)
    n_samples = GROWTH_CASES[case]["n_samples"]
    if n_samples is None:
        return X, y
    rng = np.random.default_rng(seed)
    rows = rng.integers(0, len(y), n_samples)
    noise = rng.normal(scale=1e-3, size=(n_samples, X.shape[1])) * X.std(axis=0)
    return X[rows] + noise, y[rows]


def make_growth_model(method, max_depth):
    """scikit-learn's regressor, or treelib's with the named builder (cumsum splitter)."""
    if method == "sklearn":
        from sklearn.tree import DecisionTreeRegressor

        return DecisionTreeRegressor(max_depth=max_depth, random_state=0)
    from treelib.estimators import DecisionTreeRegressor

    return DecisionTreeRegressor(builder=method, max_depth=max_depth)


def _memory_kib(field):
    """A field of /proc/self/status (VmRSS, VmHWM) in KiB; None where unavailable."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def _reset_peak_memory():
    """Reset the kernel's peak-RSS counter of this process (Linux >= 4.0)."""
    try:
        with open("/proc/self/clear_refs", "w") as clear:
            clear.write("5")
        return True
    except OSError:
        return False


def _growth_child(method, case, repeats, seed, results):
    """Run in a fresh process: fit ``repeats`` trees, report seconds and peak memory."""
    from threadpoolctl import threadpool_limits

    X, y = growth_data(case, seed)
    max_depth = GROWTH_CASES[case]["max_depth"]
    with threadpool_limits(limits=1):
        make_growth_model(method, max_depth).fit(X[:500], y[:500])   # warm up
        rows = []
        for repeat in range(repeats):
            gc.collect()
            before = _memory_kib("VmRSS")
            measured = _reset_peak_memory() and before is not None
            model = make_growth_model(method, max_depth)
            seconds = time_fit(model, X, y)
            peak = (_memory_kib("VmHWM") - before) / 1024 if measured else float("nan")
            rows.append((case, method, repeat, seconds, peak, int(model.get_n_leaves()),
                         int(model.get_depth())))
            del model
    results.put(rows)


def time_growth(cases, methods=GROWTH_METHODS, repeats=1, seed=0, progress=None):
    """Fit one regression tree per growth method on each case, each method in a fresh
    process, so that its peak memory (the rise of the resident set above what the
    process held before the fit, scikit-learn's C allocations included) is its own.

    Returns a DataFrame: case, method, repeat, seconds, peak_mib, n_leaves, depth.
    """
    import multiprocessing

    import pandas as pd

    context = multiprocessing.get_context("spawn")
    records, start = [], time.perf_counter()
    for case in cases:
        for method in methods:
            results = context.Queue()
            child = context.Process(target=_growth_child,
                                    args=(method, case, repeats, seed, results))
            child.start()
            try:
                rows = results.get(timeout=3600)   # a child that dies must not hang us
            finally:
                child.join()
            if child.exitcode != 0:
                raise RuntimeError(f"{method} on {case} failed (exit code "
                                   f"{child.exitcode})")
            records += rows
            if progress is not None:
                mean = np.mean([r[3] for r in rows])
                print(f"{case:>24} {method:>9}: {mean:8.3f} s per tree, peak "
                      f"{rows[-1][4]:7.1f} MiB   elapsed "
                      f"{_clock(time.perf_counter() - start)}", file=progress, flush=True)
    return pd.DataFrame(records, columns=["case", "method", "repeat", "seconds",
                                          "peak_mib", "n_leaves", "depth"])


def growth_summary(fits):
    """Mean seconds, peak memory and the ratio to scikit-learn per case and method."""
    table = fits.groupby(["case", "method"], sort=False).agg(
        seconds=("seconds", "mean"), peak_mib=("peak_mib", "max"),
        n_leaves=("n_leaves", "first"), depth=("depth", "first"))
    sklearn_seconds = table.xs("sklearn", level="method")["seconds"]
    table["vs_sklearn"] = table["seconds"] / sklearn_seconds.reindex(
        table.index.get_level_values("case")).to_numpy()
    return table


# --- approximate and random splits (chapters 7 to 9) ---------------------------------

#: The histogram benchmark's grid of ``max_bins`` and tree depths ("full": no limit).
BINS_GRID = (2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 255)
BINS_DEPTHS = ("6", "10", "full")


def _depth(label):
    return None if label == "full" else int(label)


def california_split(seed=0, test_size=0.25):
    """california_housing as float32 values (as the trees see them), split once into
    training and test rows by a seeded permutation: ``X_train, X_test, y_train, y_test``."""
    from treelib.datasets import load_california_housing

    X, y = load_california_housing(return_X_y=True)
    X = X.astype(np.float32).astype(np.float64)
    rows = np.random.default_rng(seed).permutation(len(y))
    n_test = int(round(test_size * len(y)))
    test, train = rows[:n_test], rows[n_test:]
    return X[train], X[test], y[train], y[test]


def _r2(y, prediction):
    return float(1.0 - np.sum((y - prediction) ** 2) / np.sum((y - y.mean()) ** 2))


def time_bins(grid=BINS_GRID, depths=BINS_DEPTHS, repeats=3, seed=0, progress=None):
    """Fit and score level-wise regression trees on the california split: histogram
    splits with every ``max_bins`` of ``grid``, and the exact scan (``max_bins`` 0).

    Returns a DataFrame: depth, max_bins, repeat, seconds (binning included), train_r2,
    test_r2, n_leaves.
    """
    import pandas as pd
    from threadpoolctl import threadpool_limits

    from treelib.estimators import DecisionTreeRegressor

    X_train, X_test, y_train, y_test = california_split(seed)
    records = []
    with threadpool_limits(limits=1):
        DecisionTreeRegressor(splitter="hist", builder="level").fit(X_train[:300],
                                                                    y_train[:300])
        for depth in depths:
            for max_bins in (0, *grid):
                for repeat in range(repeats):
                    model = DecisionTreeRegressor(
                        builder="level", max_depth=_depth(depth),
                        **({"splitter": "hist", "max_bins": max_bins} if max_bins else {}))
                    seconds = time_fit(model, X_train, y_train)
                    records.append((depth, max_bins, repeat, seconds,
                                    _r2(y_train, model.predict(X_train)),
                                    _r2(y_test, model.predict(X_test)),
                                    model.get_n_leaves()))
                if progress is not None:
                    print(f"depth {depth:>4}, max_bins {max_bins or 'exact':>5}: "
                          f"{records[-1][3]:.3f} s, test R^2 {records[-1][5]:.4f}",
                          file=progress, flush=True)
    return pd.DataFrame(records, columns=["depth", "max_bins", "repeat", "seconds",
                                          "train_r2", "test_r2", "n_leaves"])


#: Cases of the subtraction benchmark: a growth case of ``GROWTH_CASES`` and max_bins.
SUBTRACTION_CASES = {"california_full_depth": 255, "million_rows_depth_10": 255}


def time_subtraction(cases=tuple(SUBTRACTION_CASES), repeats=3, seed=0, progress=None):
    """The level-wise histogram builder with and without the subtraction trick.

    For every case of ``GROWTH_CASES`` (its data and depth limit), bin the features once
    (timed), then grow the tree on the codes with ``subtract`` True and False, counting
    the (sample, feature) pairs added into histograms.  Returns a DataFrame: case,
    subtract, repeat, seconds (growth only), binning_seconds, counted (pairs counted),
    n_leaves.
    """
    from unittest import mock

    import pandas as pd
    from threadpoolctl import threadpool_limits

    from treelib import histogram
    from treelib.binning import bin_features

    records = []
    with threadpool_limits(limits=1):
        for case in cases:
            X, y = growth_data(case, seed)
            X = X.astype(np.float32).astype(np.float64)
            start = time.perf_counter()
            codes, thresholds = bin_features(X, SUBTRACTION_CASES[case])
            binning = time.perf_counter() - start
            n_bins = max(len(t) for t in thresholds) + 1
            for repeat in range(repeats):
                for subtract in (True, False):
                    counted = []

                    def counting(codes_, stats, samples, *args, _real=histogram._histograms):
                        counted.append(len(samples) * codes_.shape[1])
                        return _real(codes_, stats, samples, *args)

                    with mock.patch.object(histogram, "_histograms", counting):
                        gc.collect()
                        start = time.perf_counter()
                        tree = histogram.build_histogram_level_wise(
                            codes, y[:, None], n_bins=n_bins, subtract=subtract,
                            max_depth=GROWTH_CASES[case]["max_depth"])
                        seconds = time.perf_counter() - start
                    records.append((case, subtract, repeat, seconds, binning, sum(counted),
                                    tree.n_leaves))
                    if progress is not None:
                        print(f"{case:>24} subtract={subtract!s:5}: {seconds:7.3f} s, "
                              f"{sum(counted):,} pairs counted", file=progress, flush=True)
    return pd.DataFrame(records, columns=["case", "subtract", "repeat", "seconds",
                                          "binning_seconds", "counted", "n_leaves"])


#: The methods of seed article 001's table as we run them: name -> (maker, score).
AUC_METHODS = ("rdt", "treelib_cart", "sklearn_cart", "linear_svc", "logistic")


def make_auc_model(method, seed=0):
    """The classifiers of the AUC table, with defaults as the seed used Weka's: random
    decision trees as seed 001 ran them (30 trees, at least 4 samples per leaf, depth
    limit = number of features), full-depth CART trees (treelib's level-wise builder,
    scikit-learn's), and scikit-learn's LinearSVC and LogisticRegression."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.svm import LinearSVC
    from sklearn.tree import DecisionTreeClassifier as SklearnTree

    from treelib.estimators import DecisionTreeClassifier, RandomDecisionTreeClassifier

    return {"rdt": lambda: RandomDecisionTreeClassifier(n_estimators=30, min_samples_leaf=4,
                                                        random_state=seed),
            "treelib_cart": lambda: DecisionTreeClassifier(builder="level"),
            "sklearn_cart": lambda: SklearnTree(random_state=seed),
            "linear_svc": lambda: LinearSVC(random_state=seed),
            "logistic": lambda: LogisticRegression()}[method]()


def _scores(model, X):
    """Continuous scores for the AUC: the positive class's probability, or the signed
    distance to the separating hyperplane for a linear SVM."""
    if hasattr(model, "predict_proba"):
        return model.predict_proba(X)[:, 1]
    return model.decision_function(X)


def auc_table(datasets=("a1a", "a9a", "mushrooms", "splice"), methods=AUC_METHODS,
              repeats=3, seed=0, progress=None):
    """Seed article 001's experiment on the shipped LIBSVM data sets.

    Every method is fitted ``repeats`` times on the training file (timed) and scored on
    the test file: the AUC of its continuous scores, and the AUC of its predicted
    labels (what a ranking of hard 0/1 predictions gives: the balanced accuracy).
    Returns a DataFrame: data, method, repeat, seconds, auc, auc_labels, warnings.
    """
    import warnings

    import pandas as pd
    from sklearn.metrics import roc_auc_score
    from threadpoolctl import threadpool_limits

    from treelib.datasets import load_libsvm

    records = []
    with threadpool_limits(limits=1):
        for name in datasets:
            data = load_libsvm(name)
            for method in methods:
                for repeat in range(repeats):
                    model = make_auc_model(method, seed)
                    with warnings.catch_warnings(record=True) as caught:
                        warnings.simplefilter("always")
                        seconds = time_fit(model, data.X_train, data.y_train)
                    records.append((name, method, repeat, seconds,
                                    roc_auc_score(data.y_test, _scores(model, data.X_test)),
                                    roc_auc_score(data.y_test, model.predict(data.X_test)),
                                    "; ".join(sorted({w.category.__name__ for w in caught}))))
                if progress is not None:
                    print(f"{name:>10} {method:>13}: AUC {records[-1][4]:.4f}, "
                          f"{records[-1][3]:.3f} s", file=progress, flush=True)
    return pd.DataFrame(records, columns=["data", "method", "repeat", "seconds", "auc",
                                          "auc_labels", "warnings"])


#: Every split method of the book: name -> (kind, growth, cost per node, estimator
#: parameters).  "library" says whose code it is.
SPLIT_METHOD_TABLE = {
    "naive": ("exact", "depth first", "O(f n^2)", "treelib", {"splitter": "naive"}),
    "scan": ("exact", "depth first", "O(f n log n) sort + O(f n) Python steps",
             "treelib", {"splitter": "scan"}),
    "cumsum": ("exact", "depth first", "O(f n log n) sort + O(f n) numpy", "treelib",
               {"splitter": "cumsum"}),
    "cumsum, level-wise": ("exact", "level-wise", "O(f n) numpy (one sort at the root)",
                           "treelib", {"splitter": "cumsum", "builder": "level"}),
    "scikit-learn": ("exact", "depth first", "O(f n log n), compiled", "scikit-learn",
                     {"splitter": "best"}),
    "hist 255": ("histogram", "level-wise", "O(f n + f B), subtraction (one binning)",
                 "treelib", {"splitter": "hist", "builder": "level", "max_bins": 255}),
    "hist 32": ("histogram", "level-wise", "O(f n + f B), subtraction (one binning)",
                "treelib", {"splitter": "hist", "builder": "level", "max_bins": 32}),
    "hist 255, depth first": ("histogram", "depth first", "O(f n + f B) (one binning)",
                              "treelib", {"splitter": "hist", "max_bins": 255}),
    "random thresholds": ("random", "depth first", "O(f n)", "treelib",
                          {"splitter": "random"}),
    "scikit-learn random": ("random", "depth first", "O(f n), compiled", "scikit-learn",
                            {"splitter": "random"}),
    "random decision trees (30)": ("random, no search", "level-wise",
                                   "O(n), one feature; 30 trees", "treelib", {}),
}
#: Settings of the comparison: the depth limit of the single trees ("full": none).
METHOD_DEPTHS = ("8", "full")


def make_method_model(method, task, depth, seed=0):
    """The estimator of ``SPLIT_METHOD_TABLE[method]`` for ``task`` ("regression" or
    "classification") at ``depth``.  Random decision trees keep seed 001's settings
    (30 trees, 4 samples per leaf) and take ``depth`` as their depth limit ("full":
    the number of features, the seed's rule)."""
    import sklearn.tree

    from treelib import estimators

    _, _, _, library, parameters = SPLIT_METHOD_TABLE[method]
    regression = task == "regression"
    if method.startswith("random decision trees"):
        cls = (estimators.RandomDecisionTreeRegressor if regression
               else estimators.RandomDecisionTreeClassifier)
        return cls(n_estimators=30, min_samples_leaf=4, max_depth=_depth(depth),
                   random_state=seed)
    if library == "scikit-learn":
        cls = sklearn.tree.DecisionTreeRegressor if regression else \
            sklearn.tree.DecisionTreeClassifier
    else:
        cls = estimators.DecisionTreeRegressor if regression else \
            estimators.DecisionTreeClassifier
    return cls(max_depth=_depth(depth), random_state=seed, **parameters)


def compare_methods(methods=tuple(SPLIT_METHOD_TABLE), depths=METHOD_DEPTHS, repeats=3,
                    slow_repeats=1, seed=0, progress=None):
    """Every split method on the same two tasks: a regression tree on the california
    split (fit seconds, test R^2) and a classification tree on a1a (fit seconds, test
    AUC of the predicted probabilities).  "naive" and "scan" are fitted ``slow_repeats``
    times, the others ``repeats`` times.

    Returns a DataFrame: method, depth, task, repeat, seconds, score (R^2 or AUC),
    n_leaves.
    """
    import pandas as pd
    from sklearn.metrics import roc_auc_score
    from threadpoolctl import threadpool_limits

    from treelib.datasets import load_libsvm

    X_train, X_test, y_train, y_test = california_split(seed)
    a1a = load_libsvm("a1a")
    tasks = {"regression": (X_train, y_train, X_test, y_test),
             "classification": (a1a.X_train, a1a.y_train, a1a.X_test, a1a.y_test)}
    records = []
    with threadpool_limits(limits=1):
        for method in methods:
            for depth in depths:
                for task, (Xa, ya, Xb, yb) in tasks.items():
                    make_method_model(method, task, depth, seed).fit(Xa[:200], ya[:200])
                    n = slow_repeats if method in ("naive", "scan") else repeats
                    for repeat in range(n):
                        model = make_method_model(method, task, depth, seed)
                        seconds = time_fit(model, Xa, ya)
                        score = (_r2(yb, model.predict(Xb)) if task == "regression"
                                 else roc_auc_score(yb, model.predict_proba(Xb)[:, 1]))
                        leaves = (sum(t.n_leaves for t in model.estimators_)
                                  if hasattr(model, "estimators_") else model.get_n_leaves())
                        records.append((method, depth, task, repeat, seconds, score, leaves))
                    if progress is not None:
                        print(f"{method:>28} depth {depth:>4} {task:>14}: "
                              f"{seconds:8.3f} s, score {score:.4f}", file=progress,
                              flush=True)
    return pd.DataFrame(records, columns=["method", "depth", "task", "repeat", "seconds",
                                          "score", "n_leaves"])


def method_table(fits):
    """One row per split method: its kind, growth order and cost per node, then for
    each depth setting the median fit seconds and the mean score of both tasks
    (california: test R^2; a1a: test AUC).  Columns are (setting, quantity) pairs."""
    import pandas as pd

    grouped = fits.groupby(["method", "depth", "task"], sort=False).agg(
        seconds=("seconds", "median"), score=("score", "mean"))
    rows = [m for m in SPLIT_METHOD_TABLE if m in set(fits.method)]
    columns = {("", name): [SPLIT_METHOD_TABLE[m][k] for m in rows]
               for k, name in enumerate(["kind", "growth", "cost per node"])}
    for depth in dict.fromkeys(fits.depth):
        setting = "full depth" if depth == "full" else f"depth {depth}"
        for task, data, score in [("regression", "california", "test R^2"),
                                  ("classification", "a1a", "test AUC")]:
            for quantity, name in [("seconds", f"{data} fit (s)"), ("score", f"{data} {score}")]:
                columns[(setting, name)] = [grouped[quantity].get((m, depth, task), np.nan)
                                            for m in rows]
    table = pd.DataFrame(columns, index=pd.Index(rows, name="method"))
    table.columns = pd.MultiIndex.from_tuples(table.columns)
    return table


def rdt_cost(seed=0, repeats=3, progress=None):
    """The training cost of random decision trees on a9a, against the seed's
    O(depth x n): one tree per seed, grown on n rows (n = 2,048 .. all 32,561) with the
    depth limit d (2 .. 123), and on the 123 features repeated (123 .. 984 features).

    Returns a DataFrame: experiment, n_samples, n_features, max_depth, repeat, seconds,
    depth (reached), sample_levels (the sum over the levels of the samples still
    active: the O(depth x n) quantity).
    """
    import pandas as pd
    from threadpoolctl import threadpool_limits

    from treelib.criteria import one_hot
    from treelib.datasets import load_libsvm
    from treelib.random_trees import build_random_tree

    data = load_libsvm("a9a")
    X, Y = data.X_train, one_hot(data.y_train, 2)
    n_all = len(Y)
    plan = ([("n", n, 1, 123) for n in (2048, 4096, 8192, 16384, n_all)]
            + [("depth", n_all, 1, d) for d in (2, 4, 8, 16, 32, 64, 123)]
            + [("features", n_all, k, 123) for k in (1, 2, 4, 8)])
    records = []
    with threadpool_limits(limits=1):
        for experiment, n, copies, max_depth in plan:
            rows = np.random.default_rng([seed, n]).permutation(n_all)[:n]
            Xs, Ys = np.tile(X[rows], copies), Y[rows]
            for repeat in range(repeats):
                rng = np.random.default_rng([seed, repeat])
                gc.collect()
                start = time.perf_counter()
                tree = build_random_tree(Xs, Ys, rng, max_depth=max_depth,
                                         min_samples_leaf=4)
                seconds = time.perf_counter() - start
                split = tree.feature >= 0
                records.append((experiment, n, Xs.shape[1], max_depth, repeat, seconds,
                                tree.max_depth, int(tree.n_node_samples[split].sum())))
            if progress is not None:
                print(f"{experiment:>8}: n = {n:6d}, f = {Xs.shape[1]:4d}, d <= {max_depth:3d}:"
                      f" {seconds:.3f} s", file=progress, flush=True)
    return pd.DataFrame(records, columns=["experiment", "n_samples", "n_features",
                                          "max_depth", "repeat", "seconds", "depth",
                                          "sample_levels"])


def write_results(fits, path, info):
    """Write ``fits`` as CSV, preceded by one ``# key: value`` line per ``info`` item."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as out:
        for key, value in info.items():
            out.write(f"# {key}: {value}\n")
        fits.to_csv(out, index=False, lineterminator="\n")


def read_results(path):
    """Read a file written by ``write_results``: returns ``(fits, info)``."""
    import pandas as pd

    info = {}
    with open(path) as lines:
        for line in lines:
            if not line.startswith("# "):
                break
            key, value = line[2:].rstrip("\n").split(": ", 1)
            info[key] = value
    return pd.read_csv(path, comment="#"), info


def load_results(name):
    """Read a committed benchmark, e.g. ``load_results("timing_full")``."""
    path = RESULTS_DIR / f"{name}.csv"
    if not path.exists():
        raise FileNotFoundError(
            f"{path} not found: benchmark results live in the repository's benchmarks/ "
            "folder (install treelib from a clone with `pip install -e .`, or regenerate "
            f"them with `python -m treelib.bench`)")
    return read_results(path)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m treelib.bench", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    timing = commands.add_parser("timing", help="time whole trees on california_housing")
    timing.add_argument("--full", action="store_true",
                        help="the seed article's grid, n = 500 ... 20,000 (slow)")
    timing.add_argument("--methods", nargs="+", default=list(TIMING_METHODS),
                        choices=TIMING_METHODS)
    timing.add_argument("--max-depth", type=int, default=TIMING_MAX_DEPTH)
    timing.add_argument("--seed", type=int, default=0)
    timing.add_argument("--output", type=Path,
                        help="CSV to write (default with --full: benchmarks/timing_full.csv)")
    growth = commands.add_parser("growth", help="growth orders against scikit-learn")
    growth.add_argument("--full", action="store_true",
                        help="also the 1,000,000-row case, and 3 repeats on california")
    growth.add_argument("--methods", nargs="+", default=list(GROWTH_METHODS),
                        choices=GROWTH_METHODS)
    growth.add_argument("--seed", type=int, default=0)
    growth.add_argument("--output", type=Path,
                        help="CSV to write (default with --full: benchmarks/growth.csv)")
    for name, (_, help_text) in SPLIT_BENCHMARKS.items():
        command = commands.add_parser(name, help=help_text)
        command.add_argument("--repeats", type=int, default=3)
        command.add_argument("--seed", type=int, default=0)
        command.add_argument("--output", type=Path,
                             help=f"CSV to write (default: benchmarks/{name}.csv)")
    args = parser.parse_args(argv)
    if args.command == "growth":
        return _main_growth(args)
    if args.command in SPLIT_BENCHMARKS:
        return _main_split_benchmark(args)

    grid = SEED_GRID if args.full else QUICK_GRID
    output = args.output or (RESULTS_DIR / "timing_full.csv" if args.full else None)
    info = machine_info()
    info.update(grid="seed" if args.full else "quick", max_depth=args.max_depth,
                seed=args.seed)
    print("\n".join(f"{k}: {v}" for k, v in info.items()), file=sys.stderr)
    fits = time_tree_fits(grid, args.methods, args.max_depth, args.seed, progress=sys.stderr)
    print(mean_seconds(fits).round(4).to_string())
    if output is not None:
        write_results(fits, output, info)
        print(f"wrote {output}", file=sys.stderr)


def _main_growth(args):
    output = args.output or (RESULTS_DIR / "growth.csv" if args.full else None)
    info = machine_info()
    info.update(benchmark="growth", grid="full" if args.full else "quick", seed=args.seed,
                splitter="cumsum (every treelib builder)")
    print("\n".join(f"{k}: {v}" for k, v in info.items()), file=sys.stderr)
    fits = []
    if args.full:
        fits.append(time_growth(["california_full_depth"], args.methods, repeats=3,
                                seed=args.seed, progress=sys.stderr))
        fits.append(time_growth(["million_rows_depth_10"], args.methods, repeats=1,
                                seed=args.seed, progress=sys.stderr))
    else:
        fits.append(time_growth(["california_full_depth"], args.methods, repeats=1,
                                seed=args.seed, progress=sys.stderr))
    import pandas as pd

    fits = pd.concat(fits, ignore_index=True)
    print(growth_summary(fits).round(3).to_string())
    if output is not None:
        write_results(fits, output, info)
        print(f"wrote {output}", file=sys.stderr)


#: The benchmarks of the part on approximate and random splits: command -> (function of
#: (repeats, seed, progress) returning the fits, help).  Each writes benchmarks/<command>.csv.
SPLIT_BENCHMARKS = {
    "bins": (lambda repeats, seed, progress: time_bins(repeats=repeats, seed=seed,
                                                        progress=progress),
             "histogram trees against max_bins on california (a minute or two)"),
    "subtraction": (lambda repeats, seed, progress: time_subtraction(
        repeats=repeats, seed=seed, progress=progress),
        "the histogram subtraction trick on california and a million rows (minutes)"),
    "auc": (lambda repeats, seed, progress: auc_table(repeats=repeats, seed=seed,
                                                       progress=progress),
            "seed article 001's AUC table on the four LIBSVM data sets (minutes)"),
    "methods": (lambda repeats, seed, progress: compare_methods(repeats=repeats, seed=seed,
                                                                progress=progress),
                "every split method on california and a1a (about 10 minutes)"),
    "rdt_cost": (lambda repeats, seed, progress: rdt_cost(seed=seed, repeats=repeats,
                                                          progress=progress),
                 "training cost of random decision trees against n, depth, features"),
}


def _main_split_benchmark(args):
    output = args.output or RESULTS_DIR / f"{args.command}.csv"
    info = machine_info()
    info.update(benchmark=args.command, repeats=args.repeats, seed=args.seed)
    print("\n".join(f"{k}: {v}" for k, v in info.items()), file=sys.stderr)
    start = time.perf_counter()
    fits = SPLIT_BENCHMARKS[args.command][0](args.repeats, args.seed, sys.stderr)
    info["duration"] = _clock(time.perf_counter() - start)
    write_results(fits, output, info)
    print(f"wrote {output} ({info['duration']})", file=sys.stderr)


if __name__ == "__main__":
    main()
