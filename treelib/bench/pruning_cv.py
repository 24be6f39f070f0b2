"""Pruning against stopping rules: the held-out error of an unpruned tree, of trees
stopped early (``max_depth`` or ``min_samples_leaf`` chosen by K-fold cross-validation)
and of the full tree pruned by minimal cost-complexity pruning (``ccp_alpha`` chosen by
the same cross-validation, at the lowest mean validation error and by the
one-standard-error rule), on california (regression, squared error, 2,000 training and
4,000 held-out rows) and digits (classification, Gini, 1,000 training and 797 held-out
rows), over several random splits of the rows.

The folds are scikit-learn's ``KFold`` (5 folds, shuffled with the seed); everything
else is treelib.  Each fold's candidate ``ccp_alpha`` values are scored from one full
tree per fold and its pruning path (the subtree for an alpha is read off the path,
not refitted).  Error: mean squared error (california, in (100,000 $)^2) or the share of
misclassified digits.
"""

import time

import numpy as np

#: The settings a stopping rule is chosen from by cross-validation.
STOPPING_GRIDS = {"max_depth": [2, 3, 4, 5, 6, 7, 8, 10, 12, 14],
                  "min_samples_leaf": [1, 2, 4, 8, 16, 32, 64, 128]}
#: Candidate alphas scored by cross-validation (from the training set's path).
N_CANDIDATES = 40
N_FOLDS = 5


def load_task(data, seed):
    """``(X_train, y_train, X_test, y_test, task)`` of ``data`` ("california" or
    "digits"), the rows split at random by ``seed``."""
    rng = np.random.default_rng(seed)
    if data == "california":
        from treelib.datasets import load_california_housing

        X, y = load_california_housing(return_X_y=True)
        rows = rng.permutation(len(y))
        train, test = rows[:2000], rows[2000:6000]
        task = "regression"
    else:
        from sklearn.datasets import load_digits

        X, y = load_digits(return_X_y=True)
        rows = rng.permutation(len(y))
        train, test = rows[:1000], rows[1000:]
        task = "classification"
    return X[train], y[train], X[test], y[test], task


def make_tree(task, **settings):
    """An unfitted treelib tree for ``task`` (squared error or Gini)."""
    from treelib import DecisionTreeClassifier, DecisionTreeRegressor

    model = DecisionTreeRegressor if task == "regression" else DecisionTreeClassifier
    return model(**settings)


def tree_error(model, tree, X, y, task):
    """Error of the flat ``tree`` (fitted by ``model``, possibly pruned) on ``X, y``."""
    value = tree.predict(X)
    if task == "regression":
        return float(np.mean((value[:, 0] - y) ** 2))
    return float(np.mean(model.classes_[np.argmax(value, axis=1)] != y))


def candidate_alphas(path_alphas, n=N_CANDIDATES):
    """About ``n`` candidate alphas: the geometric means of consecutive distinct alphas
    of a pruning path (one inside each interval where a subtree is optimal, as Breiman
    et al. choose them), taken at log-spaced positions counted from the root's end so
    that small trees are all represented.  Starts with 0 (the full tree)."""
    alphas = np.unique(np.maximum(path_alphas, 0.0))
    middles = np.sqrt(alphas[:-1] * alphas[1:])
    if len(middles) > n:
        back = np.unique(np.round(np.geomspace(1, len(middles), n)).astype(int))
        middles = middles[len(middles) - back]
    return np.unique(np.append(0.0, middles))


def subtree_for(tree, path, alpha):
    """The subtree of ``tree`` that ``ccp_alpha = alpha`` keeps, read off its ``path``
    (collapse while the weakest link's alpha is <= ``alpha``)."""
    from treelib.pruning import collapse

    above = np.flatnonzero(path.ccp_alphas > alpha)
    steps = above[0] if above.size else len(path.ccp_alphas)
    return collapse(tree, path.nodes[1:steps])


def cv_alpha_errors(X, y, task, alphas, n_folds=N_FOLDS, seed=0):
    """Validation error of every alpha in ``alphas`` on every fold: an array of shape
    (n_folds, len(alphas)).  One full tree and one pruning path per fold."""
    from sklearn.model_selection import KFold

    from treelib.pruning import pruning_path

    errors = np.empty((n_folds, len(alphas)))
    folds = KFold(n_folds, shuffle=True, random_state=seed).split(X)
    for k, (fit, check) in enumerate(folds):
        model = make_tree(task).fit(X[fit], y[fit])
        path = pruning_path(model.tree_)
        for j, alpha in enumerate(alphas):
            errors[k, j] = tree_error(model, subtree_for(model.tree_, path, alpha),
                                      X[check], y[check], task)
    return errors


def choose_alpha(alphas, errors, one_se=False):
    """The alpha of lowest mean validation error, or with ``one_se`` the largest alpha
    whose mean error is within one standard error of that lowest mean."""
    mean = errors.mean(axis=0)
    best = int(np.argmin(mean))
    if not one_se:
        return float(alphas[best])
    se = errors[:, best].std(ddof=1) / np.sqrt(len(errors))
    return float(alphas[np.flatnonzero(mean <= mean[best] + se).max()])


def cv_setting(X, y, task, name, grid, n_folds=N_FOLDS, seed=0):
    """The value of the stopping rule ``name`` in ``grid`` of lowest mean validation
    error (the same folds as ``cv_alpha_errors``)."""
    from sklearn.model_selection import KFold

    errors = np.zeros(len(grid))
    for fit, check in KFold(n_folds, shuffle=True, random_state=seed).split(X):
        for j, value in enumerate(grid):
            model = make_tree(task, **{name: value}).fit(X[fit], y[fit])
            errors[j] += tree_error(model, model.tree_, X[check], y[check], task)
    return grid[int(np.argmin(errors))]


def compare_pruning(datasets=("california", "digits"), seeds=range(5), progress=None):
    """Every way of sizing a tree on every data set and seed.  A DataFrame: data, seed,
    method, setting (the value chosen), error (held out), n_leaves, seconds (choosing
    and fitting)."""
    import pandas as pd
    from threadpoolctl import threadpool_limits

    from treelib.pruning import pruning_path

    records = []
    with threadpool_limits(limits=1):
        for data in datasets:
            for seed in seeds:
                X, y, X_test, y_test, task = load_task(data, seed)
                start = time.perf_counter()
                full = make_tree(task).fit(X, y)
                seconds = time.perf_counter() - start
                rows = [("unpruned", 0.0, full, seconds)]
                for name, grid in STOPPING_GRIDS.items():
                    start = time.perf_counter()
                    value = cv_setting(X, y, task, name, grid, seed=seed)
                    model = make_tree(task, **{name: value}).fit(X, y)
                    rows.append((name, value, model, time.perf_counter() - start))
                start = time.perf_counter()
                alphas = candidate_alphas(pruning_path(full.tree_).ccp_alphas)
                errors = cv_alpha_errors(X, y, task, alphas, seed=seed)
                for method, one_se in [("ccp_alpha", False), ("ccp_alpha, 1 se", True)]:
                    alpha = choose_alpha(alphas, errors, one_se)
                    model = make_tree(task, ccp_alpha=alpha).fit(X, y)
                    rows.append((method, alpha, model, time.perf_counter() - start))
                for method, value, model, seconds in rows:
                    error = tree_error(model, model.tree_, X_test, y_test, task)
                    records.append((data, seed, method, value, error, model.tree_.n_leaves,
                                    seconds))
                    if progress is not None:
                        print(f"{data:>10} seed {seed} {method:>16}: error {error:.4f}, "
                              f"{model.tree_.n_leaves:5d} leaves ({seconds:.1f} s)",
                              file=progress, flush=True)
    return pd.DataFrame(records, columns=["data", "seed", "method", "setting", "error",
                                          "n_leaves", "seconds"])


def pruning_table(fits):
    """Per data set and method: the mean held-out error over the seeds, its ratio to the
    unpruned tree's (mean over seeds of the per-seed ratios) and the median leaves."""
    unpruned = fits[fits.method == "unpruned"].set_index(["data", "seed"]).error
    ratio = fits.error.to_numpy() / unpruned.loc[list(zip(fits.data, fits.seed))].to_numpy()
    table = fits.assign(ratio=ratio).groupby(["data", "method"], sort=False).agg(
        error=("error", "mean"), ratio=("ratio", "mean"), leaves=("n_leaves", "median"))
    return table


def run(full=False, repeats=1, seed=0, progress=None):
    seeds = range(seed, seed + (10 if full else 5))
    return compare_pruning(seeds=seeds, progress=progress), {
        "folds": f"{N_FOLDS}-fold KFold (scikit-learn), shuffled with the seed",
        "data": "california 2,000 train / 4,000 test rows; digits 1,000 / 797"}
