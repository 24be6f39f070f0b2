"""Issue 24's goal table, first part: forests with ``max_features`` on the level-wise
engines, forests across processes (``n_jobs``), and single level-wise trees.

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
- ``n_jobs``: the level-wise california forest (RandomForestRegressor, every feature,
  eight trees of about a second each) with ``n_jobs`` 1 and 2 (processes), and
  scikit-learn's forest with 1 and 2 (joblib's threads).  (A digits forest grows in
  batches in a fraction of a second: starting the processes would be most of it);
- ``rf_synthetic``: RandomForestClassifier (max_features "sqrt"), five trees, on 100,000
  rows of scikit-learn's ``make_classification`` (20 features, 10 informative, four
  classes; 25,000 more rows scored), level-wise and scikit-learn (per node, the forest
  would take minutes);
- ``tree_digits`` and ``tree_california``: one full-depth DecisionTreeClassifier on
  digits and one exact (splitter "cumsum") DecisionTreeRegressor on california, each
  ``builder="level_wise"``, and scikit-learn's tree.  A digits tree takes milliseconds:
  its ratio is the noisiest of the table.

The whole goal table (these cases with ``shapes``, ``per_node`` and ``boosting``) is
``goal_table`` (``treelib.bench.goals``); ``python -m treelib.bench speed --ratios
benchmarks/speed.csv`` prints it.

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
              "et_california": "scikit-learn", "n_jobs": "treelib n_jobs=1",
              "rf_synthetic": "scikit-learn", "tree_digits": "scikit-learn",
              "tree_california": "scikit-learn"}


def digits_split(seed=0):
    """digits, three quarters to fit and one to score (stratified by nothing: shuffled)."""
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split

    X, y = load_digits(return_X_y=True)
    return train_test_split(X, y, test_size=0.25, random_state=seed)


def synthetic_split(seed=0):
    """100,000 rows of a four-class ``make_classification`` set (20 features, 10
    informative) to fit, 25,000 more to score.  O(rows x features)."""
    from sklearn.datasets import make_classification

    X, y = make_classification(125_000, 20, n_informative=10, n_classes=4,
                               random_state=seed)
    return X[:100_000], X[100_000:], y[:100_000], y[100_000:]


def single_trees(case, seed):
    """``{method: model}`` of the single-tree cases: scikit-learn's tree and treelib's
    grown level-wise (exact: splitter "cumsum")."""
    import sklearn.tree

    import treelib.estimators

    name = "DecisionTree" + ("Classifier" if case == "tree_digits" else "Regressor")
    return {"scikit-learn": getattr(sklearn.tree, name)(random_state=seed),
            "treelib level_wise": getattr(treelib.estimators, name)(
                builder="level_wise", splitter="cumsum", random_state=seed)}


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
    if case.startswith("tree_"):
        return single_trees(case, seed)
    if case == "rf_synthetic":
        return {"scikit-learn": forest("scikit-learn", "classification", n_trees, seed),
                "treelib level_wise": forest("treelib", "classification", n_trees, seed,
                                             builder="level_wise")}
    level = {"builder": "level_wise"}
    return {"treelib n_jobs=1": forest("treelib", "regression", n_trees, seed, **level),
            "treelib n_jobs=2": forest("treelib", "regression", n_trees, seed,
                                       n_jobs=2, **level),
            "scikit-learn n_jobs=1": forest("scikit-learn", "regression", n_trees, seed),
            "scikit-learn n_jobs=2": forest("scikit-learn", "regression", n_trees, seed,
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
         "et_california": ("california", 10), "n_jobs": ("california", 8),
         "rf_synthetic": ("synthetic", 5), "tree_digits": ("digits", 1),
         "tree_california": ("california", 1)}


def run(full=False, repeats=3, seed=0, progress=None):
    """Every case of ``CASES`` ``repeats`` times (``full`` doubles the forests' trees),
    one thread for numerical libraries.  About a minute on two cores (65 seconds at a
    load of 1.5, three repeats)."""
    import pandas as pd
    from threadpoolctl import threadpool_limits

    data = {"digits": digits_split(seed), "california": california_split(seed),
            "synthetic": synthetic_split(seed)}
    records = []
    with threadpool_limits(limits=1):
        for case, (name, n_trees) in CASES.items():
            n_trees *= 2 if full and n_trees > 1 else 1
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
    return {(case, method): paired_ratio(fits, case, method, REFERENCES[case])
            for case, method in dict.fromkeys(zip(fits.case, fits.method))}


def paired_ratio(fits, case, numerator, denominator, column="seconds"):
    """Median over repeats of ``numerator``'s ``column`` divided by ``denominator``'s in
    the same repeat of ``case`` (NaN where the fits lack either).  O(rows)."""
    rows = fits[fits.case == case].pivot_table(index="repeat", columns="method",
                                                values=column)
    if numerator not in rows or denominator not in rows:
        return float("nan")
    return float(np.median(rows[numerator] / rows[denominator]))


def goal_table(folder=None, paths=None):
    """Every row of issue 24's goal table from the benchmark files in ``folder`` (default
    ``benchmarks/``; ``paths``: ``{file stem: path}`` overrides), as a DataFrame: see
    ``treelib.bench.goals.goal_table``.  O(rows of the files)."""
    from treelib.bench import goals

    return goals.goal_table(folder, paths)


def print_goal_ratios(path, out=None):
    """Print issue 24's whole goal table (``python -m treelib.bench speed --ratios
    FILE``): ``path`` is a speed CSV, the other files (shapes, per_node, boosting) are
    read beside it; each file's machine first.  O(rows of the files)."""
    from pathlib import Path

    from treelib.bench import goals

    goals.print_goals(Path(path).parent, {"speed": Path(path)}, out)
