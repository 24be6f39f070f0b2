"""Gradient boosting against its peers: treelib's HistGradientBoosting, scikit-learn's,
LightGBM and XGBoost on california_housing (test R^2) and a9a (test AUC), one thread
each; then two of treelib's options: seed 003's line-searched step against fixed
shrinkage, and GOSS against its sampling rates.

Every library grows 31-leaf trees best first (XGBoost: ``grow_policy="lossguide"``) with
a learning rate of 0.1, at most 255 bins, no L2 regularisation, a minimum hessian of
1e-3 per leaf and no early stopping; scikit-learn and treelib keep 20 samples per leaf
(LightGBM's ``min_child_samples``; XGBoost has no such count).  Fit times include the
binning.
"""

import numpy as np

from treelib.bench.fitting import california_split, r2, resampled_california, time_fit

#: The libraries compared.
PEERS = ("treelib", "scikit-learn", "lightgbm", "xgboost")
#: Boosting iterations of every fit.
ITERATIONS = 200
#: Iterations at which the line-search experiment reads the test score.
CHECKPOINTS = (5, 10, 25, 50, 100, 200)
#: GOSS's (top_rate, other_rate) pairs; (1, 0): no sampling.
GOSS_RATES = ((1.0, 0.0), (0.3, 0.2), (0.2, 0.1), (0.1, 0.05), (0.05, 0.025))


def boosting_data(name, seed=0):
    """``(X_train, X_test, y_train, y_test, task)`` of "california" (75/25 split of
    float32 values), "california_200k" (200,000 rows resampled from it with a little
    noise, ``resampled_california``, split 75/25) or "a9a" (LIBSVM's own split)."""
    if name == "california":
        return (*california_split(seed), "regression")
    if name == "california_200k":
        X, y = resampled_california(200_000, seed)
        n_train = 150_000
        return X[:n_train], X[n_train:], y[:n_train], y[n_train:], "regression"
    from treelib.datasets import load_libsvm

    data = load_libsvm(name)
    return data.X_train, data.X_test, data.y_train, data.y_test, "classification"


def peer_model(library, task, n_iter=None, **options):
    """A boosting model of ``library`` with the shared settings (module docstring),
    ``n_iter`` iterations (None: ``ITERATIONS``)."""
    regression, n_iter = task == "regression", n_iter or ITERATIONS
    if library in ("treelib", "scikit-learn"):
        if library == "treelib":
            import treelib.estimators as module
        else:
            import sklearn.ensemble as module
        name = "HistGradientBoosting" + ("Regressor" if regression else "Classifier")
        return getattr(module, name)(max_iter=n_iter, early_stopping=False, **options)
    if library == "lightgbm":
        import lightgbm

        model = lightgbm.LGBMRegressor if regression else lightgbm.LGBMClassifier
        return model(n_estimators=n_iter, num_leaves=31, learning_rate=0.1,
                     min_child_samples=20, min_child_weight=1e-3, reg_lambda=0.0,
                     max_bin=255, num_threads=1, verbose=-1, **options)
    import xgboost

    model = xgboost.XGBRegressor if regression else xgboost.XGBClassifier
    return model(n_estimators=n_iter, tree_method="hist", grow_policy="lossguide",
                 max_leaves=31, max_depth=0, learning_rate=0.1, reg_lambda=0.0,
                 min_child_weight=1e-3, max_bin=255, n_jobs=1, **options)


def score(model, X, y, task):
    """Test R^2 (regression) or AUC (classification)."""
    if task == "regression":
        return r2(y, model.predict(X))
    from sklearn.metrics import roc_auc_score

    return float(roc_auc_score(y, model.predict_proba(X)[:, 1]))


def record(records, progress, **row):
    records.append(row)
    if progress is not None:
        print(f"{row['experiment']:>11} {row['dataset']:>10} {row['library']:>12} "
              f"{row['variant']:>16} {row['iterations']:>4}: {row['seconds']:8.3f} s, "
              f"score {row['score']:.4f}", file=progress, flush=True)


def compare_peers(records, datasets, repeats, seed, progress):
    """Fit time and test score of the four libraries, ``ITERATIONS`` iterations."""
    for dataset in datasets:
        X_train, X_test, y_train, y_test, task = boosting_data(dataset, seed)
        for repeat in range(repeats):
            for library in PEERS:
                model = peer_model(library, task)
                seconds = time_fit(model, X_train, y_train)
                record(records, progress, experiment="peers", dataset=dataset,
                       library=library, variant="default", iterations=ITERATIONS,
                       repeat=repeat, seconds=seconds,
                       score=score(model, X_test, y_test, task))


def staged_scores(model, X, y, task):
    """The test score after each iteration of a treelib model."""
    if task == "regression":
        return [r2(y, p) for p in model.staged_predict(X)]
    from sklearn.metrics import roc_auc_score

    return [float(roc_auc_score(y, raw)) for raw in model.staged_decision_function(X)]


def line_search_against_shrinkage(records, datasets, seed, progress):
    """Test scores along the iterations of treelib's boosting with the line-searched
    step, a fixed step of 1 and the fixed shrinkage 0.1; the mean step taken."""
    for dataset in datasets:
        X_train, X_test, y_train, y_test, task = boosting_data(dataset, seed)
        for rate in ("line_search", 1.0, 0.1):
            model = peer_model("treelib", task, learning_rate=rate)
            seconds = time_fit(model, X_train, y_train)
            scores = staged_scores(model, X_test, y_test, task)
            for iterations in CHECKPOINTS:
                record(records, progress, experiment="line_search", dataset=dataset,
                       library="treelib", variant=f"learning_rate={rate}",
                       iterations=iterations, repeat=0, seconds=seconds,
                       score=scores[iterations - 1],
                       mean_step=float(np.mean(model.step_sizes_[:iterations])))


def goss_rates(records, datasets, repeats, seed, progress):
    """Fit time and test score of treelib's and LightGBM's GOSS against the rates."""
    for dataset in datasets:
        X_train, X_test, y_train, y_test, task = boosting_data(dataset, seed)
        for repeat in range(repeats):
            for top, other in GOSS_RATES:
                for library in ("treelib", "lightgbm"):
                    if top == 1.0:
                        options = {}
                    elif library == "treelib":
                        options = dict(sampling="goss", top_rate=top, other_rate=other,
                                       random_state=seed)
                    else:
                        options = dict(data_sample_strategy="goss", top_rate=top,
                                       other_rate=other, random_state=seed)
                    model = peer_model(library, task, **options)
                    seconds = time_fit(model, X_train, y_train)
                    record(records, progress, experiment="goss", dataset=dataset,
                           library=library, variant=f"top={top},other={other}",
                           iterations=ITERATIONS, repeat=repeat, seconds=seconds,
                           score=score(model, X_test, y_test, task),
                           sampled=top + other if top < 1 else 1.0)


def fit_time_ratio(fits, dataset="california"):
    """treelib's fit time over scikit-learn's (medians over repeats) in the peers'
    experiment, and the two test scores."""
    peers = fits[(fits.experiment == "peers") & (fits.dataset == dataset)]
    medians = peers.groupby("library")[["seconds", "score"]].median()
    return (float(medians.loc["treelib", "seconds"] / medians.loc["scikit-learn", "seconds"]),
            float(medians.loc["treelib", "score"]), float(medians.loc["scikit-learn", "score"]))


def per_repeat_ratio(fits, dataset="california"):
    """The median over repeats of treelib's fit time over scikit-learn's in the same
    repeat (the two fits run one after the other, under the same load), and the
    ratios in order.  O(repeats)."""
    peers = fits[(fits.experiment == "peers") & (fits.dataset == dataset)]
    seconds = peers.pivot_table(index="repeat", columns="library", values="seconds")
    ratios = (seconds["treelib"] / seconds["scikit-learn"]).tolist()
    return float(np.median(ratios)), ratios


def run(full=False, repeats=3, seed=0, progress=None, datasets=("california", "a9a"),
        goss_datasets=("california", "california_200k", "a9a")):
    """The three experiments (three fits per setting by default, as the committed file has
    them: the chapters quote medians of three), as one DataFrame:
    experiment, dataset, library, variant, iterations, repeat, seconds, score, and
    mean_step (line search) or sampled (GOSS: the fraction of rows a tree sees)."""
    import pandas as pd
    from threadpoolctl import threadpool_limits

    records = []
    with threadpool_limits(limits=1):
        compare_peers(records, datasets, repeats, seed, progress)
        line_search_against_shrinkage(records, datasets, seed, progress)
        goss_rates(records, goss_datasets, repeats, seed, progress)
    fits = pd.DataFrame(records)
    info = {}
    for dataset in datasets:
        ratio, ours, theirs = fit_time_ratio(fits, dataset)
        info[f"fit time ratio treelib / scikit-learn ({dataset})"] = (
            f"{ratio:.2f} (scores {ours:.4f} and {theirs:.4f})")
        median, ratios = per_repeat_ratio(fits, dataset)
        info[f"per-repeat fit time ratios ({dataset})"] = (
            f"median {median:.2f} of {', '.join(f'{r:.2f}' for r in ratios)}")
    return fits, info
