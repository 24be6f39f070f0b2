"""Issue 24's goal table, first part: forests with ``max_features`` on the level-wise
engines, and forests across processes (``n_jobs``).

Cases (one thread for BLAS and OpenMP, ``threadpoolctl``; every repeat times the methods
of a case side by side, so the ratios of one repeat share the machine's load):

- ``rf_digits``: RandomForestClassifier, max_features "sqrt", on digits (1,797 x 64, ten
  classes): treelib per node (``builder="depth_first"``), treelib level-wise (the
  default: each node's own draw, ``treelib.growth.level_features``), and scikit-learn;
- ``rf_california``: RandomForestRegressor on california, every feature (both libraries'
  default; treelib grows it level-wise), and with max_features 1/3 per node and
  level-wise;
- ``et_digits``: ExtraTreesClassifier (max_features "sqrt") on digits, per node and
  level-wise (the default, ``treelib.growth.level_random``), and scikit-learn;
- ``et_california``: ExtraTreesRegressor (every feature) on california, level-wise and
  scikit-learn (per node, ten full-depth trees would take minutes);
- ``n_jobs``: the level-wise digits forest with ``n_jobs`` 1 and 2 (processes), and
  scikit-learn's forest with 1 and 2 (joblib's threads).

The level-wise methods pass ``builder="level_wise"``, the forests' default for these
settings (``treelib.estimators.bagging.forest_builder``), so that the names stay true.

Rows: case, method, n_trees, repeat, seconds (wall), cpu_seconds (this process only: the
worker processes' time is not in it), score (test accuracy or R^2 on a held-out quarter).
``ratios(fits)`` gives each method's median over the repeats of its time divided by the
reference's in the same repeat.
"""

import gc
import time

import numpy as np

from treelib.bench.fitting import california_split

COLUMNS = ["case", "method", "n_trees", "repeat", "seconds", "cpu_seconds", "score"]

#: Each case's reference method (the denominator of its ratios).
REFERENCES = {"rf_digits": "scikit-learn", "rf_california": "scikit-learn",
              "rf_california_third": "scikit-learn", "et_digits": "scikit-learn",
              "et_california": "scikit-learn", "n_jobs": "treelib n_jobs=1"}


def digits_split(seed=0):
    """digits, three quarters to fit and one to score (stratified by nothing: shuffled)."""
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split

    X, y = load_digits(return_X_y=True)
    return train_test_split(X, y, test_size=0.25, random_state=seed)


def forest(library, task, n_trees, seed, kind="RandomForest", **parameters):
    """A random forest (``kind="ExtraTrees"``: extra trees) of ``library`` ("treelib" or
    "scikit-learn") for ``task``."""
    if library == "scikit-learn":
        from sklearn import ensemble as module
    else:
        import treelib.estimators as module
    kind += "Regressor" if task == "regression" else "Classifier"
    return getattr(module, kind)(n_trees, random_state=seed, **parameters)


def extra_trees(case, n_trees, seed):
    """``{method: model}`` of the extra-trees cases."""
    task, data = (("classification", "digits") if case == "et_digits" else
                  ("regression", "california"))
    models = {"scikit-learn": forest("scikit-learn", task, n_trees, seed, "ExtraTrees")}
    if data == "digits":
        models["treelib per node"] = forest("treelib", task, n_trees, seed, "ExtraTrees",
                                            builder="depth_first")
    models["treelib level_wise"] = forest("treelib", task, n_trees, seed, "ExtraTrees",
                                          builder="level_wise")
    return models


def methods(case, n_trees, seed):
    """``{method: model}`` of a case (the module's docstring)."""
    if case == "rf_digits":
        return {"scikit-learn": forest("scikit-learn", "classification", n_trees, seed),
                "treelib per node": forest("treelib", "classification", n_trees, seed,
                                           builder="depth_first"),
                "treelib level_wise": forest("treelib", "classification", n_trees, seed,
                                             builder="level_wise")}
    if case == "rf_california":
        return {"scikit-learn": forest("scikit-learn", "regression", n_trees, seed),
                "treelib level_wise": forest("treelib", "regression", n_trees, seed,
                                             builder="level_wise")}
    if case == "rf_california_third":
        third = {"max_features": 1 / 3}
        return {"scikit-learn": forest("scikit-learn", "regression", n_trees, seed, **third),
                "treelib per node": forest("treelib", "regression", n_trees, seed,
                                           builder="depth_first", **third),
                "treelib level_wise": forest("treelib", "regression", n_trees, seed,
                                             builder="level_wise", **third)}
    if case.startswith("et_"):
        return extra_trees(case, n_trees, seed)
    level = {"builder": "level_wise"}
    return {"treelib n_jobs=1": forest("treelib", "classification", n_trees, seed, **level),
            "treelib n_jobs=2": forest("treelib", "classification", n_trees, seed,
                                       n_jobs=2, **level),
            "scikit-learn n_jobs=1": forest("scikit-learn", "classification", n_trees, seed),
            "scikit-learn n_jobs=2": forest("scikit-learn", "classification", n_trees, seed,
                                            n_jobs=2)}


def timed_score(model, data):
    """Wall and CPU seconds of ``model.fit`` on ``data``'s training part, and its score on
    the test part (garbage collection paused during the fit)."""
    X_train, X_test, y_train, y_test = data
    gc.collect()
    gc.disable()
    try:
        wall, cpu = time.perf_counter(), time.process_time()
        model.fit(X_train, y_train)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    finally:
        gc.enable()
    return wall, cpu, float(model.score(X_test, y_test))


#: Case: (data, trees).
CASES = {"rf_digits": ("digits", 20), "rf_california": ("california", 10),
         "rf_california_third": ("california", 3), "et_digits": ("digits", 20),
         "et_california": ("california", 10), "n_jobs": ("digits", 40)}


def run(full=False, repeats=3, seed=0, progress=None):
    """Every case of ``CASES`` ``repeats`` times (``full`` doubles the trees), one thread
    for numerical libraries.  About three minutes on two cores."""
    import pandas as pd
    from threadpoolctl import threadpool_limits

    data = {"digits": digits_split(seed), "california": california_split(seed)}
    records = []
    with threadpool_limits(limits=1):
        for case, (name, n_trees) in CASES.items():
            n_trees *= 2 if full else 1
            for repeat in range(repeats):
                for method, model in methods(case, n_trees, seed).items():
                    wall, cpu, score = timed_score(model, data[name])
                    records.append((case, method, n_trees, repeat, wall, cpu, score))
                    if progress is not None:
                        print(f"{case:>20} {method:>22} {wall:8.3f} s  score {score:.4f}",
                              file=progress, flush=True)
    fits = pd.DataFrame(records, columns=COLUMNS)
    return fits, {"threads": "1 (threadpoolctl); n_jobs cases: 2 processes or threads",
                  "ratios": "; ".join(f"{c}/{m}={r:.2f}"
                                      for (c, m), r in ratios(fits).items())}


def ratios(fits):
    """``{(case, method): median over repeats of seconds / the reference's seconds in the
    same repeat}``.  O(rows)."""
    result = {}
    for (case, method), rows in fits.groupby(["case", "method"], sort=False):
        reference = fits[(fits.case == case) & (fits.method == REFERENCES[case])]
        per_repeat = (rows.set_index("repeat").seconds
                      / reference.set_index("repeat").seconds)
        result[(case, method)] = float(np.median(per_repeat))
    return result
