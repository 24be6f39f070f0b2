"""Seed article 001's AUC table on the four shipped LIBSVM data sets: random decision
trees, CART (treelib's and scikit-learn's), LinearSVC and LogisticRegression."""

from treelib.bench.fitting import time_fit

#: The methods of seed article 001's table as we run them: name -> (maker, score).
AUC_METHODS = ("rdt", "treelib_cart", "sklearn_cart", "linear_svc", "logistic")


def make_auc_model(method, seed=0):
    """The classifiers of the AUC table, with defaults as the seed used Weka's: random
    decision trees as seed 001 ran them (30 trees, at least 4 samples per leaf, depth
    limit = number of features), full-depth CART trees (treelib's level-wise builder,
    scikit-learn's), and scikit-learn's LinearSVC and LogisticRegression."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.svm import LinearSVC
    from sklearn.tree import DecisionTreeClassifier as SklearnTree

    from treelib.estimators import DecisionTreeClassifier, RandomDecisionTreeClassifier

    return {"rdt": lambda: RandomDecisionTreeClassifier(n_estimators=30, min_samples_leaf=4,
                                                        random_state=seed),
            "treelib_cart": lambda: DecisionTreeClassifier(builder="level_wise"),
            "sklearn_cart": lambda: SklearnTree(random_state=seed),
            "linear_svc": lambda: LinearSVC(random_state=seed),
            "logistic": lambda: LogisticRegression()}[method]()


def _scores(model, X):
    """Continuous scores for the AUC: the positive class's probability, or the signed
    distance to the separating hyperplane for a linear SVM."""
    if hasattr(model, "predict_proba"):
        return model.predict_proba(X)[:, 1]
    return model.decision_function(X)


def auc_table(datasets=("a1a", "a9a", "mushrooms", "splice"), methods=AUC_METHODS,
              repeats=3, seed=0, progress=None):
    """Seed article 001's experiment on the shipped LIBSVM data sets.

    Every method is fitted ``repeats`` times on the training file (timed) and scored on
    the test file: the AUC of its continuous scores, and the AUC of its predicted
    labels (what a ranking of hard 0/1 predictions gives: the balanced accuracy).
    Returns a DataFrame: data, method, repeat, seconds, auc, auc_labels, warnings.
    """
    import warnings

    import pandas as pd
    from sklearn.metrics import roc_auc_score
    from threadpoolctl import threadpool_limits

    from treelib.datasets import load_libsvm

    records = []
    with threadpool_limits(limits=1):
        for name in datasets:
            data = load_libsvm(name)
            for method in methods:
                for repeat in range(repeats):
                    model = make_auc_model(method, seed)
                    with warnings.catch_warnings(record=True) as caught:
                        warnings.simplefilter("always")
                        seconds = time_fit(model, data.X_train, data.y_train)
                    records.append((name, method, repeat, seconds,
                                    roc_auc_score(data.y_test, _scores(model, data.X_test)),
                                    roc_auc_score(data.y_test, model.predict(data.X_test)),
                                    "; ".join(sorted({w.category.__name__ for w in caught}))))
                if progress is not None:
                    print(f"{name:>10} {method:>13}: AUC {records[-1][4]:.4f}, "
                          f"{records[-1][3]:.3f} s", file=progress, flush=True)
    return pd.DataFrame(records, columns=["data", "method", "repeat", "seconds", "auc",
                                          "auc_labels", "warnings"])


def run(full=False, repeats=3, seed=0, progress=None):
    return auc_table(repeats=repeats, seed=seed, progress=progress), {}
