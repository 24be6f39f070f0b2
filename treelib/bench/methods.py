"""Every split method of the book side by side: a regression tree on the california
split (fit seconds, test R^2) and a classification tree on a1a (fit seconds, test AUC),
at depth 8 and at full depth."""

import numpy as np

from treelib.bench.bins import depth_of
from treelib.bench.fitting import california_split, r2, time_fit

#: Every split method of the book: name -> (kind, growth, cost per node, estimator
#: parameters).  "library" says whose code it is.
SPLIT_METHOD_TABLE = {
    "naive": ("exact", "depth first", "O(f n^2)", "treelib", {"splitter": "naive"}),
    "scan": ("exact", "depth first", "O(f n log n) sort + O(f n) Python steps",
             "treelib", {"splitter": "scan"}),
    "cumsum": ("exact", "depth first", "O(f n log n) sort + O(f n) numpy", "treelib",
               {"splitter": "cumsum"}),
    "cumsum, level-wise": ("exact", "level-wise", "O(f n) numpy (one sort at the root)",
                           "treelib", {"splitter": "cumsum", "builder": "level_wise"}),
    "scikit-learn": ("exact", "depth first", "O(f n log n), compiled", "scikit-learn",
                     {"splitter": "best"}),
    "hist 255": ("histogram", "level-wise", "O(f n + f B), subtraction (one binning)",
                 "treelib", {"splitter": "hist", "builder": "level_wise", "max_bins": 255}),
    "hist 32": ("histogram", "level-wise", "O(f n + f B), subtraction (one binning)",
                "treelib", {"splitter": "hist", "builder": "level_wise", "max_bins": 32}),
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
        return cls(n_estimators=30, min_samples_leaf=4, max_depth=depth_of(depth),
                   random_state=seed)
    if library == "scikit-learn":
        cls = sklearn.tree.DecisionTreeRegressor if regression else \
            sklearn.tree.DecisionTreeClassifier
    else:
        cls = estimators.DecisionTreeRegressor if regression else \
            estimators.DecisionTreeClassifier
    return cls(max_depth=depth_of(depth), random_state=seed, **parameters)


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
                        score = (r2(yb, model.predict(Xb)) if task == "regression"
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


def run(full=False, repeats=3, seed=0, progress=None):
    return compare_methods(repeats=repeats, seed=seed, progress=progress), {}
