"""Ensembles against ensembles: seed article 001's random decision trees, random forests
and extra trees of equal size (30 trees) on california_housing (test R^2) and a9a (test
AUC), with scikit-learn's forests beside treelib's; and treelib's
RandomForestRegressor's fit time against scikit-learn's (100 trees, one thread).

Every fit records its wall-clock seconds and the CPU seconds of the process
(``time.process_time``): on a machine shared with other work, the wall clock also counts
the time spent waiting for a core, and the CPU time does not.  The 100 trees of each
library are fitted as ten forests of ten trees, the two libraries alternating, so that a
change of load during the run falls on both alike.
"""

import gc
import time

import numpy as np

from treelib.bench.fitting import california_split, r2

#: The ensembles compared, each with ``N_TREES`` trees: (method, library).
ENSEMBLES = (("random decision trees", "treelib"), ("random forest", "treelib"),
             ("extra trees", "treelib"), ("random forest", "scikit-learn"),
             ("extra trees", "scikit-learn"))

#: Seed article 001's ensemble size, given to every ensemble.
N_TREES = 30

#: The sizes at which each ensemble is also scored (its first trees, averaged).
SIZES = (1, 2, 3, 5, 10, 20, 30)

#: The fit-time comparison: scikit-learn's default forest size, in blocks of this many.
RATIO_TREES = 100
RATIO_BLOCK = 10

COLUMNS = ["experiment", "data", "method", "library", "n_trees", "repeat", "seconds",
           "cpu_seconds", "score", "metric"]


def timed_fit(model, X, y):
    """Wall-clock and CPU seconds of one fit, garbage collection paused."""
    gc.collect()
    gc.disable()
    try:
        wall, cpu = time.perf_counter(), time.process_time()
        model.fit(X, y)
        return time.perf_counter() - wall, time.process_time() - cpu
    finally:
        gc.enable()


def make_ensemble(method, library, task, n_trees=N_TREES, seed=0, **parameters):
    """An ensemble of ``n_trees`` trees with each library's defaults for ``task``
    ("regression" or "classification"); random decision trees with seed 001's settings
    (at least 4 rows per leaf, depth limit the number of features)."""
    if library == "scikit-learn":
        from sklearn import ensemble as module
    else:
        import treelib.estimators as module
    kind = "Regressor" if task == "regression" else "Classifier"
    name = {"random decision trees": "RandomDecisionTree", "random forest": "RandomForest",
            "extra trees": "ExtraTrees"}[method] + kind
    return getattr(module, name)(n_estimators=n_trees, random_state=seed, **parameters)


def tree_predictions(model, X, task):
    """Each tree's prediction of every row (trees, n): the mean target, or the positive
    class's probability."""
    column = 0 if task == "regression" else 1
    if hasattr(model.estimators_[0], "tree_"):                      # scikit-learn's
        if task == "regression":
            return np.array([tree.predict(X) for tree in model.estimators_])
        return np.array([tree.predict_proba(X)[:, 1] for tree in model.estimators_])
    X = X.astype(np.float64 if "RandomDecision" in type(model).__name__ else np.float32)
    return np.array([tree.predict(X)[:, column] for tree in model.estimators_])


def size_scores(predictions, y, task, sizes=SIZES):
    """The score of the mean of the first m trees for every m of ``sizes``: R^2, or the
    AUC of the averaged probabilities."""
    from sklearn.metrics import roc_auc_score

    running = np.cumsum(predictions, axis=0)
    score = r2 if task == "regression" else roc_auc_score
    return [(m, float(score(y, running[m - 1] / m))) for m in sizes if m <= len(predictions)]


def load_task(data):
    """``X_train, X_test, y_train, y_test, task, metric`` of a data set of the benchmark."""
    if data == "california_housing":
        return (*california_split(), "regression", "R2")
    from treelib.datasets import load_libsvm

    split = load_libsvm(data)
    return (split.X_train, split.X_test, split.y_train, split.y_test, "classification",
            "AUC")


def compare_ensembles(datasets=("california_housing", "a9a"), ensembles=ENSEMBLES,
                      n_trees=N_TREES, seed=0, progress=None):
    """Fit every ensemble once on every data set (timed) and score it on the test rows at
    every size of ``SIZES`` (its first m trees averaged).  Returns a list of records
    with the fields of ``COLUMNS``."""
    records = []
    for data in datasets:
        X_train, X_test, y_train, y_test, task, metric = load_task(data)
        for method, library in ensembles:
            make_ensemble(method, library, task, 2, seed).fit(X_train[:300], y_train[:300])
            model = make_ensemble(method, library, task, n_trees, seed)
            seconds, cpu = timed_fit(model, X_train, y_train)
            scores = size_scores(tree_predictions(model, X_test, task), y_test, task)
            for m, score in scores:
                last = m == n_trees
                records.append(("ensembles", data, method, library, m, 0,
                                seconds if last else np.nan, cpu if last else np.nan, score,
                                metric))
            if progress is not None:
                print(f"{data:>18} {method:>21} ({library:>12}): {metric} "
                      f"{scores[-1][1]:.4f}, {seconds:.1f} s", file=progress, flush=True)
    return records


def fit_time_ratio(repeats=1, n_trees=RATIO_TREES, block=RATIO_BLOCK, seed=0,
                   progress=None):
    """treelib's and scikit-learn's RandomForestRegressor (defaults) on all of
    california_housing: ``n_trees`` trees per library and repeat, fitted as forests of
    ``block`` trees (seeds ``seed``, ``seed + 1``, ...), the libraries alternating.
    Returns one record per library and repeat, as ``compare_ensembles`` does, with the
    wall-clock and CPU seconds summed over the blocks (no score)."""
    from treelib.datasets import load_california_housing

    X, y = load_california_housing(return_X_y=True)
    records = []
    for repeat in range(repeats):
        totals = {"treelib": [0.0, 0.0], "scikit-learn": [0.0, 0.0]}
        for k in range(n_trees // block):
            for library, total in totals.items():
                model = make_ensemble("random forest", library, "regression", block,
                                      seed + k)
                seconds, cpu = timed_fit(model, X, y)
                total[0] += seconds
                total[1] += cpu
        for library, (seconds, cpu) in totals.items():
            records.append(("fit_time", "california_housing (all rows)", "random forest",
                            library, n_trees, repeat, seconds, cpu, np.nan, "R2"))
            if progress is not None:
                print(f"fit time, {n_trees} trees, {library:>12}: {seconds:.1f} s "
                      f"({cpu:.1f} s CPU)", file=progress, flush=True)
    return records


def run(full=False, repeats=1, seed=0, progress=None):
    """The benchmark: the ensembles compared, then the fit-time ratio.  The information
    returned holds the median ratio treelib / scikit-learn and how treelib grew the
    forest's trees."""
    import pandas as pd
    from threadpoolctl import threadpool_limits

    start = time.perf_counter()
    with threadpool_limits(limits=1):
        records = compare_ensembles(seed=seed, progress=progress)
        records += fit_time_ratio(repeats=repeats, seed=seed, progress=progress)
    fits = pd.DataFrame(records, columns=COLUMNS)
    timed = fits[fits.experiment == "fit_time"].groupby("library")[
        ["seconds", "cpu_seconds"]].median()
    ratio = timed.loc["treelib"] / timed.loc["scikit-learn"]
    info = {"n_trees": N_TREES, "ratio_trees": RATIO_TREES,
            "fit_time_ratio (treelib / scikit-learn)": f"{ratio['seconds']:.3f}",
            "cpu_time_ratio (treelib / scikit-learn)": f"{ratio['cpu_seconds']:.3f}",
            "treelib random forest grower (regression, classification)":
                f"{forest_builders()}",
            "minutes": f"{(time.perf_counter() - start) / 60:.1f}"}
    return fits, info


def forest_builders():
    """The growers treelib's default forests use on the two data sets."""
    from treelib.datasets import load_california_housing

    X, y = load_california_housing(return_X_y=True)
    regression = make_ensemble("random forest", "treelib", "regression", 1).fit(X[:200],
                                                                                y[:200])
    classification = make_ensemble("random forest", "treelib", "classification", 1)
    classification.fit(X[:200], y[:200] > 2)
    return regression.builder_, classification.builder_
