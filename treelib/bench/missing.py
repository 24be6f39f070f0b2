"""Missing values, three classic answers side by side: a regression tree of depth 8 on the
california split with a fraction of MedInc hidden (in the training and the test rows),
completely at random or not at random (the largest incomes hidden), 0 to 50%.

Strategies (``MISSING_STRATEGIES``): a learned default direction (treelib's "cumsum" and
"hist" finders, scikit-learn's tree), a branch of their own (a CART tree with a third
child, ``treelib.bench.missing_trees.OwnBranchTree``; and seed article 001's random
decision trees, 30 of them), CART's surrogate splits (rpart's rules,
``treelib.bench.missing_trees.SurrogateTree``), and, as a baseline, the training mean
imputed.  Each fit is timed on one thread and scored by its test R^2; each repeat draws
another split and mask.
"""

import numpy as np

from treelib.bench.fitting import california_split, r2
from treelib.bench.missing_trees import OwnBranchTree, SurrogateTree
from treelib.bench.timers import timed

#: The strategies: name -> (answer, whose code).
MISSING_STRATEGIES = {
    "mean imputation": ("baseline", "treelib cumsum on imputed X"),
    "default direction": ("learned default direction", "treelib cumsum"),
    "default direction, hist": ("learned default direction", "treelib hist"),
    "scikit-learn": ("learned default direction", "scikit-learn (compiled)"),
    "own branch": ("own branch", "reference CART with a third child"),
    "surrogate splits": ("surrogate splits", "reference CART, rpart's rules"),
    "random decision trees (30)": ("own branch", "treelib, seed article 001"),
}
MECHANISMS = ("completely_at_random", "not_at_random")
FRACTIONS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5)
#: The depth of every tree (random decision trees: their depth limit).
MISSING_DEPTH = 8
#: The feature whose values are hidden: MedInc, the strongest predictor.
MASKED_FEATURE = 0


class MeanImputed:
    """A model fitted on X with every missing value replaced by its column's training
    mean (the same means at prediction time)."""

    def __init__(self, model):
        self.model = model

    def fit(self, X, y):
        self.means_ = np.nanmean(X, axis=0)
        self.model.fit(np.where(np.isnan(X), self.means_, X), y)
        return self

    def predict(self, X):
        return self.model.predict(np.where(np.isnan(X), self.means_, X))


def make_missing_model(strategy, seed=0, max_depth=MISSING_DEPTH):
    """The estimator of ``MISSING_STRATEGIES[strategy]``."""
    import sklearn.tree

    from treelib import estimators

    if strategy == "mean imputation":
        return MeanImputed(estimators.DecisionTreeRegressor(max_depth=max_depth))
    if strategy == "default direction":
        return estimators.DecisionTreeRegressor(max_depth=max_depth)
    if strategy == "default direction, hist":
        return estimators.DecisionTreeRegressor(splitter="hist", max_depth=max_depth)
    if strategy == "scikit-learn":
        return sklearn.tree.DecisionTreeRegressor(max_depth=max_depth, random_state=seed)
    if strategy == "own branch":
        return OwnBranchTree(max_depth=max_depth)
    if strategy == "surrogate splits":
        return SurrogateTree(max_depth=max_depth)
    if strategy == "random decision trees (30)":
        return estimators.RandomDecisionTreeRegressor(n_estimators=30, min_samples_leaf=4,
                                                      max_depth=max_depth,
                                                      random_state=seed)
    raise ValueError(f"unknown strategy {strategy!r}; choose one of "
                     f"{list(MISSING_STRATEGIES)}")


def masked_california(mechanism, fraction, seed=0, n_train=None):
    """The california split with ``fraction`` of MedInc hidden in the training rows and,
    separately, in the test rows (``treelib.datasets.mask_values``; seeds ``seed`` and
    ``seed + 1`` for the draws completely at random).  ``n_train``: the first rows of the
    training set only (None: all 15,480).  Returns ``X_train, X_test, y_train, y_test``."""
    from treelib.datasets import mask_values

    X_train, X_test, y_train, y_test = california_split(seed)
    if n_train is not None:
        X_train, y_train = X_train[:n_train], y_train[:n_train]
    X_train = mask_values(X_train, fraction, feature=MASKED_FEATURE, mechanism=mechanism,
                          seed=seed)
    X_test = mask_values(X_test, fraction, feature=MASKED_FEATURE, mechanism=mechanism,
                         seed=seed + 1)
    return X_train, X_test, y_train, y_test


def time_missing(strategies=tuple(MISSING_STRATEGIES), mechanisms=MECHANISMS,
                 fractions=FRACTIONS, repeats=3, seed=0, n_train=None, progress=None):
    """Fit every strategy on every masked data set, once per repeat.

    Repeat r draws its own training/test split and mask (seed ``seed + r``), so the spread
    of the test R^2 over the repeats is the noise of the data, and the seconds of the
    repeats are three fits of the same size.  Returns a DataFrame: strategy, mechanism,
    fraction, repeat, seconds (wall clock), cpu_seconds (the process's), test_r2,
    n_leaves (the nodes that answer: leaves, or for random decision trees the nodes of
    all 30 trees)."""
    import pandas as pd
    from threadpoolctl import threadpool_limits

    records = []
    with threadpool_limits(limits=1):
        for mechanism in mechanisms:
            for fraction in fractions:
                for repeat in range(repeats):
                    data = masked_california(mechanism, fraction, seed + repeat, n_train)
                    X_train, X_test, y_train, y_test = data
                    for strategy in strategies:
                        if repeat == 0:                                    # warm up
                            make_missing_model(strategy, seed).fit(X_train[:300],
                                                                   y_train[:300])
                        model = make_missing_model(strategy, seed + repeat)
                        _, seconds, cpu = timed(model.fit, X_train, y_train)
                        score = r2(y_test, model.predict(X_test))
                        records.append((strategy, mechanism, fraction, repeat, seconds, cpu,
                                        score, answering_nodes(model)))
                if progress is not None:
                    print(f"{mechanism:>20} {fraction:.1f}: R^2 "
                          + ", ".join(f"{r[6]:.3f}" for r in records[-len(strategies):]),
                          file=progress, flush=True)
    return pd.DataFrame(records, columns=["strategy", "mechanism", "fraction", "repeat",
                                          "seconds", "cpu_seconds", "test_r2", "n_leaves"])


def answering_nodes(model):
    """Leaves of a fitted tree (all the nodes of an ensemble's trees)."""
    model = getattr(model, "model", model)
    if hasattr(model, "estimators_"):
        return int(sum(t.node_count for t in model.estimators_))
    return int(model.tree_.n_leaves)


def missing_table(fits, quantity="test_r2", aggregate=None):
    """One row per strategy, one column per (mechanism, fraction): the mean test R^2 over
    the repeats (``quantity="test_r2"``) or the median fit seconds (``"seconds"``,
    ``"cpu_seconds"``), or any other ``aggregate`` of them ("std": their spread)."""
    aggregate = aggregate or ("mean" if quantity == "test_r2" else "median")
    table = fits.pivot_table(index="strategy", columns=["mechanism", "fraction"],
                             values=quantity, aggfunc=aggregate)
    order = [s for s in MISSING_STRATEGIES if s in table.index]
    return table.loc[order]


def run(full=False, repeats=3, seed=0, progress=None):
    fits = time_missing(repeats=repeats, seed=seed, progress=progress)
    return fits, {"max_depth": MISSING_DEPTH, "masked feature": "MedInc"}
