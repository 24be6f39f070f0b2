"""The speed benchmark's cases for issue 24's goal table run small: the synthetic
forest and the two single level-wise trees, and the per-repeat ratios."""

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import make_classification

from treelib.bench import speed


def small_synthetic(seed=0):
    X, y = make_classification(500, 20, n_informative=10, n_classes=4, random_state=seed)
    return X[:400], X[400:], y[:400], y[400:]


def test_the_new_cases_fit_the_estimators_the_goals_name():
    trees = speed.methods("tree_digits", 1, 0)
    assert type(trees["scikit-learn"]).__name__ == "DecisionTreeClassifier"
    ours = trees["treelib level_wise"]
    assert (type(ours).__name__, ours.builder, ours.splitter) == (
        "DecisionTreeClassifier", "level_wise", "cumsum")
    ours = speed.methods("tree_california", 1, 0)["treelib level_wise"]
    assert type(ours).__name__ == "DecisionTreeRegressor" and ours.max_depth is None
    forests = speed.methods("rf_synthetic", 5, 0)
    assert set(forests) == {"scikit-learn", "treelib level_wise"}
    assert forests["treelib level_wise"].max_features == "sqrt"
    assert forests["treelib level_wise"].n_estimators == 5
    assert {case for case in speed.CASES} <= set(speed.REFERENCES)


def test_the_synthetic_set_fits_on_100_000_rows():
    X_train, X_test, y_train, y_test = speed.synthetic_split()
    assert X_train.shape == (100_000, 20) and len(X_test) == 25_000
    assert sorted(np.unique(y_train)) == [0, 1, 2, 3]


@pytest.mark.slow
def test_run_writes_the_new_cases_with_the_columns(monkeypatch):
    monkeypatch.setattr(speed, "CASES", {"rf_synthetic": ("synthetic", 2),
                                         "tree_digits": ("digits", 1),
                                         "tree_california": ("california", 1)})
    monkeypatch.setattr(speed, "synthetic_split", small_synthetic)
    fits, info = speed.run(repeats=2)
    assert list(fits.columns) == speed.COLUMNS
    assert fits.groupby(["case", "method"]).size().to_dict() == {
        (case, method): 2 for case in speed.CASES
        for method in ("scikit-learn", "treelib level_wise")}
    assert (fits.seconds > 0).all() and fits.score.between(0.3, 1).all()
    assert set(fits[fits.case == "tree_digits"].n_trees) == {1}
    assert "tree_california/treelib level_wise=" in info["ratios"]


def test_paired_ratio_is_the_median_of_the_ratios_of_each_repeat():
    fits = pd.DataFrame({"case": ["c"] * 6, "method": ["a", "b"] * 3,
                         "repeat": [0, 0, 1, 1, 2, 2],
                         "seconds": [2.0, 1.0, 3.0, 2.0, 5.0, 1.0]})
    assert speed.paired_ratio(fits, "c", "a", "b") == 2.0     # of 2, 1.5, 5 (not 3 / 1)
    assert speed.paired_ratio(fits, "c", "b", "a") == 0.5
    assert np.isnan(speed.paired_ratio(fits, "c", "a", "missing"))
    assert np.isnan(speed.paired_ratio(fits, "other", "a", "b"))
