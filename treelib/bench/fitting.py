"""Timing one fit, the data the benchmarks fit, and the models they compare."""

import datetime
import gc
import time

import numpy as np


def time_fit(model, X, y):
    """Seconds to fit ``model`` once, garbage collection paused (as ``timeit`` does)."""
    return time_fit_cpu(model, X, y)[0]


def time_fit_cpu(model, X, y):
    """``(wall seconds, CPU seconds)`` of one fit of ``model``, garbage collection done
    before and paused during the fit (neither clock counts the collection)."""
    gc.collect()
    gc.disable()
    try:
        start, cpu = time.perf_counter(), time.process_time()
        model.fit(X, y)
        return time.perf_counter() - start, time.process_time() - cpu
    finally:
        gc.enable()


def clock(seconds):
    """Seconds as h:mm:ss, for progress lines."""
    return str(datetime.timedelta(seconds=round(seconds)))


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


def resampled_california(n_samples, seed=0):
    """``n_samples`` rows resampled from california_housing with replacement, Gaussian
    noise of 0.001 standard deviations added to every feature, so that nearly all values
    are distinct, as in a genuinely large data set (None: the data set itself)."""
    from treelib.datasets import load_california_housing

    X, y = load_california_housing(return_X_y=True)
    if n_samples is None:
        return X, y
    rng = np.random.default_rng(seed)
    rows = rng.integers(0, len(y), n_samples)
    noise = rng.normal(scale=1e-3, size=(n_samples, X.shape[1])) * X.std(axis=0)
    return X[rows] + noise, y[rows]


def r2(y, prediction):
    """Coefficient of determination."""
    return float(1.0 - np.sum((y - prediction) ** 2) / np.sum((y - y.mean()) ** 2))


def tree_model(library, task="regression", **parameters):
    """A decision tree of ``library`` ("treelib" or "sklearn") for ``task``
    ("regression" or "classification"), with the given parameters."""
    if library == "sklearn":
        import sklearn.tree as module

        parameters.setdefault("random_state", 0)
    else:
        import treelib.estimators as module
    name = "DecisionTreeRegressor" if task == "regression" else "DecisionTreeClassifier"
    return getattr(module, name)(**parameters)
