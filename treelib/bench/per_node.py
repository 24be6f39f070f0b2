"""Issue 24, the per-node growers' fixed cost: time per node against scikit-learn's.

One full-depth tree per fit, grown per node (``builder="depth_first"``, or
``"best_first"``), beside scikit-learn's ``DecisionTree*`` on the same rows; the time of
a fit divided by its number of nodes is the time per node.  Most nodes of a full-depth
tree are small, so the ratio measures the work a node costs whatever its size (Python
calls, allocations), which is what the per-node growers add to scikit-learn's Cython.

Cases (one thread for BLAS and OpenMP, ``threadpoolctl``; every repeat fits treelib and
scikit-learn side by side, so the ratios of one repeat share the machine's load):

- ``california``: DecisionTreeRegressor on 5,000 california rows (8 features), every
  feature, and ``california_sqrt`` with ``max_features="sqrt"``;
- ``california_best``: the same tree best first (``max_leaf_nodes=2,000``);
- ``digits``: DecisionTreeClassifier on digits (1,797 x 64, ten classes), every feature,
  and ``digits_sqrt`` with ``max_features="sqrt"`` (a random forest's trees).

Rows: case, method, repeat, seconds (wall), cpu_seconds, nodes, us_per_node.
``ratios(fits)`` gives each case's median over the repeats of treelib's time per node
divided by scikit-learn's in the same repeat.
"""

import numpy as np

from treelib.bench.fitting import time_fit_cpu

COLUMNS = ["case", "method", "repeat", "seconds", "cpu_seconds", "nodes", "us_per_node"]

#: Case: (data, estimator kind, parameters shared by both libraries, treelib's builder).
CASES = {
    "california": ("california", "Regressor", {}, "depth_first"),
    "california_sqrt": ("california", "Regressor", {"max_features": "sqrt"}, "depth_first"),
    "california_best": ("california", "Regressor", {"max_leaf_nodes": 2000}, "best_first"),
    "digits": ("digits", "Classifier", {}, "depth_first"),
    "digits_sqrt": ("digits", "Classifier", {"max_features": "sqrt"}, "depth_first"),
}


def case_data(name, seed=0):
    """``(X, y)`` of a case: 5,000 california rows (float32, permuted with ``seed``) or
    all of digits."""
    if name == "digits":
        from sklearn.datasets import load_digits

        return load_digits(return_X_y=True)
    from treelib.datasets import load_california_housing

    X, y = load_california_housing(return_X_y=True)
    rows = np.random.default_rng(seed).permutation(len(y))[:5000]
    return X[rows].astype(np.float32), y[rows]


def models(case, seed):
    """``{method: model}`` of a case: scikit-learn's tree and treelib's."""
    import sklearn.tree

    import treelib.estimators

    _, kind, parameters, builder = CASES[case]
    name = "DecisionTree" + kind
    return {"scikit-learn": getattr(sklearn.tree, name)(random_state=seed, **parameters),
            "treelib": getattr(treelib.estimators, name)(random_state=seed, builder=builder,
                                                         **parameters)}


def run(full=False, repeats=5, seed=0, progress=None):
    """Every case of ``CASES`` ``repeats`` times (``full``: twice as many), one thread for
    numerical libraries.  About two minutes on two cores."""
    import pandas as pd
    from threadpoolctl import threadpool_limits

    data = {name: case_data(name, seed) for name in ("california", "digits")}
    records = []
    with threadpool_limits(limits=1):
        for repeat in range(repeats * (2 if full else 1)):
            for case, (name, *_) in CASES.items():
                for method, model in models(case, seed + repeat).items():
                    wall, cpu = time_fit_cpu(model, *data[name])
                    nodes = int(model.tree_.node_count)
                    records.append((case, method, repeat, wall, cpu, nodes,
                                    1e6 * wall / nodes))
                    if progress is not None:
                        print(f"{case:>16} {method:>12} {wall:8.3f} s {nodes:6d} nodes "
                              f"{1e6 * wall / nodes:8.1f} us/node", file=progress,
                              flush=True)
    fits = pd.DataFrame(records, columns=COLUMNS)
    return fits, {"threads": "1 (threadpoolctl)",
                  "ratios": "; ".join(f"{case}={r:.2f}" for case, r in ratios(fits).items())}


def ratios(fits):
    """``{case: median over repeats of treelib's us_per_node / scikit-learn's in the same
    repeat}``.  O(rows)."""
    result = {}
    for case, rows in fits.groupby("case", sort=False):
        per_method = rows.pivot(index="repeat", columns="method", values="us_per_node")
        result[case] = float(np.median(per_method["treelib"] / per_method["scikit-learn"]))
    return result
