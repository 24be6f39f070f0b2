"""Monotonic constraints: the held-out error of constrained against unconstrained models
(chapter 22), over data sets, training sizes, label noise and seeds.

Data sets (``DATASETS``), each with the constraint a practitioner would set:
california housing (the price rises with the median income, ``MedInc``: +1) and bikeshare's
hourly rentals (more with the temperature, ``temp``: +1; fewer with the humidity, ``hum``:
-1; the month and the weather taken as their codes).  For each seed, a test set of
``N_TEST`` rows and, disjoint from it, a training set of each size in ``SIZES``; the
training targets get Gaussian noise of ``noise`` times the target's standard deviation
(0: none), the test targets none.  Models (``MODELS``): treelib's DecisionTreeRegressor
(``min_samples_leaf=10``) and HistGradientBoostingRegressor (100 iterations, no early
stopping), each fitted with and without ``monotonic_cst``.  The error is the test mean
squared error over the test target's variance (1 - R^2)."""

import time
from functools import lru_cache

import numpy as np

#: Training sizes of the quick run; ``--full`` adds the larger one.
SIZES = (250, 1000, 4000)
FULL_SIZES = SIZES + (12000,)
#: Label noise added to the training targets, in standard deviations of the target.
NOISES = (0.0, 1.0)
#: Rows held out for the error.
N_TEST = 4000
#: Seeds of the quick run (``--full``: twice as many).
N_SEEDS = 5
COLUMNS = ["dataset", "model", "n_train", "noise", "seed", "repeat", "constrained",
           "relative_error", "seconds"]


@lru_cache(maxsize=None)
def california():
    """California housing: X, y and the constraints (the median income rises)."""
    from treelib.datasets import load_california_housing

    data = load_california_housing()
    signs = np.zeros(data.data.shape[1], dtype=np.int8)
    signs[data.feature_names.index("MedInc")] = 1
    return data.data, data.target, signs


@lru_cache(maxsize=None)
def bikeshare():
    """Bikeshare's hourly rentals: X (categories as their codes), y and the constraints
    (temperature +1, humidity -1)."""
    from treelib.datasets import load_bikeshare

    data = load_bikeshare()
    frame = data.data
    columns = list(frame.columns)
    X = np.column_stack([frame[c].cat.codes if frame[c].dtype == "category" else frame[c]
                         for c in columns]).astype(np.float64)
    signs = np.zeros(len(columns), dtype=np.int8)
    signs[columns.index("temp")], signs[columns.index("hum")] = 1, -1
    return X, data.target.to_numpy(np.float64), signs


#: The data sets: name -> a function returning (X, y, monotonic_cst).
DATASETS = {"california": california, "bikeshare": bikeshare}


def make_model(model, signs=None, seed=0):
    """treelib's ``"tree"`` or ``"boosting"`` regressor, constrained by ``signs`` (None:
    unconstrained)."""
    from treelib import DecisionTreeRegressor, HistGradientBoostingRegressor

    if model == "tree":
        return DecisionTreeRegressor(min_samples_leaf=10, monotonic_cst=signs,
                                     random_state=seed)
    return HistGradientBoostingRegressor(max_iter=100, early_stopping=False,
                                         monotonic_cst=signs, random_state=seed)


def split_rows(n_rows, n_train, seed):
    """A test set of ``N_TEST`` rows and a disjoint training set of ``n_train`` rows."""
    rows = np.random.default_rng(seed).permutation(n_rows)
    return rows[N_TEST:N_TEST + n_train], rows[:N_TEST]


def relative_errors(dataset, model, n_train, noise, seed):
    """(unconstrained, constrained) test error / test variance, and the seconds of both
    fits, for one data set, model, training size, noise and seed."""
    X, y, signs = DATASETS[dataset]()
    train, test = split_rows(len(y), n_train, seed)
    rng = np.random.default_rng(seed + 1000)
    target = y[train] + noise * y.std() * rng.standard_normal(len(train))
    results = []
    for constraint in (None, signs):
        start = time.perf_counter()
        fitted = make_model(model, constraint, seed).fit(X[train], target)
        seconds = time.perf_counter() - start
        error = np.mean((fitted.predict(X[test]) - y[test]) ** 2) / y[test].var()
        results.append((float(error), seconds))
    return results


def compare(datasets=tuple(DATASETS), models=("tree", "boosting"), sizes=SIZES,
            noises=NOISES, seeds=range(N_SEEDS), progress=None):
    """Every combination: one record per fit (COLUMNS)."""
    records = []
    for dataset in datasets:
        for model in models:
            for n_train in sizes:
                for noise in noises:
                    for seed in seeds:
                        pair = relative_errors(dataset, model, n_train, noise, seed)
                        for constrained, (error, seconds) in enumerate(pair):
                            records.append((dataset, model, n_train, noise, seed, 0,
                                            bool(constrained), error, seconds))
                    if progress is not None:
                        print(f"{dataset:>10} {model:>8} n={n_train:5d} noise={noise}: "
                              f"done", file=progress, flush=True)
    return records


def cost_table(fits):
    """One row per data set, model, noise and training size: the median over seeds of
    the constrained error over the unconstrained one (below 1: the constraint helps),
    and in how many seeds the constraint helped."""
    import pandas as pd

    wide = fits.pivot_table(index=["dataset", "model", "noise", "n_train", "seed"],
                            columns="constrained", values="relative_error")
    ratio = wide[True] / wide[False]
    grouped = ratio.groupby(level=["dataset", "model", "noise", "n_train"])
    return pd.DataFrame({"ratio": grouped.median(),
                         "helped": (ratio < 1).groupby(
                             level=["dataset", "model", "noise", "n_train"]).sum(),
                         "seeds": grouped.size()})


def run(full=False, repeats=1, seed=0, progress=None):
    """The benchmark (``repeats`` is unused: each seed is one fit of each model)."""
    import pandas as pd
    from threadpoolctl import threadpool_limits

    start = time.perf_counter()
    sizes = FULL_SIZES if full else SIZES
    seeds = range(seed, seed + (2 if full else 1) * N_SEEDS)
    with threadpool_limits(limits=1):
        records = compare(sizes=sizes, seeds=seeds, progress=progress)
    fits = pd.DataFrame(records, columns=COLUMNS)
    table = cost_table(fits)
    info = {"n_test": N_TEST, "seeds": len(seeds),
            "median ratio (constrained / unconstrained)": f"{table['ratio'].median():.3f}",
            "minutes": f"{(time.perf_counter() - start) / 60:.1f}"}
    return fits, info
