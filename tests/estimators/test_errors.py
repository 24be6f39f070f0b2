"""Clear errors where scikit-learn gives a clear one or works (issue 19): string
categories, arrays after a DataFrame fit, validation_fraction, NaN in sample_weight,
absolute_error with missing values, categorical_splitter without categories, and the
inputs treelib refuses on purpose (infinite X in HistGradientBoosting, negative sample
weights, targets that overflow), each with its reason."""

import numpy as np
import pandas as pd
import pytest
from sklearn import ensemble

from treelib import (
    DecisionTreeClassifier,
    DecisionTreeRegressor,
    HistGradientBoostingClassifier,
    HistGradientBoostingRegressor,
    ObliviousTreeRegressor,
    RandomForestRegressor,
)


def strings(n=80, seed=0):
    """A column of string categories (object dtype) that drives the target, and a
    numeric column."""
    rng = np.random.default_rng(seed)
    colour = rng.choice(["red", "green", "blue"], n)
    X = pd.DataFrame({"colour": colour, "size": rng.normal(size=n)})
    y = np.select([colour == "green", colour == "blue"], [3.0, 1.0], 0.0) + X["size"] / 10
    return X, y


# predicting from a numpy array after a DataFrame fit is what some tests mean to do
pytestmark = pytest.mark.filterwarnings("ignore:X does not have valid feature names")

TREE = dict(max_depth=3)
BOOSTING = dict(max_iter=5, min_samples_leaf=5)
MODELS = [lambda **p: DecisionTreeRegressor(**TREE, **p),
          lambda **p: HistGradientBoostingRegressor(**BOOSTING, **p)]


# --- string categories ----------------------------------------------------------------------


@pytest.mark.parametrize("make", MODELS)
@pytest.mark.parametrize("chosen", [["colour"], [0], [True, False]])
def test_a_string_column_listed_as_categorical_is_accepted(make, chosen):
    # scikit-learn's HistGradientBoosting accepts it (an OrdinalEncoder, sorted categories);
    # treelib failed with "could not convert string to float"
    X, y = strings()
    model = make(categorical_features=chosen).fit(X, y)
    assert model.is_categorical_.tolist() == [True, False]
    assert model.categories_[0].tolist() == ["blue", "green", "red"]
    # the same model as on a pandas category column with those categories
    as_category = X.assign(colour=pd.Categorical(X["colour"],
                                                 categories=["blue", "green", "red"]))
    reference = make().fit(as_category, y)
    np.testing.assert_array_equal(model.predict(X), reference.predict(as_category))
    # predict takes the strings, as objects, as a category column, or in an object array
    np.testing.assert_array_equal(model.predict(as_category), model.predict(X))
    np.testing.assert_array_equal(model.predict(X.to_numpy()), model.predict(X))
    unseen = X.assign(colour=["purple"] * len(X))             # unknown: as missing
    missing = X.assign(colour=[None] * len(X))
    np.testing.assert_array_equal(model.predict(unseen), model.predict(missing))


@pytest.mark.parametrize("make", MODELS)
def test_an_object_array_with_string_categories_is_accepted(make):
    X, y = strings()
    array = X.to_numpy()                                        # dtype object
    model = make(categorical_features=[0]).fit(array, y)
    frame = make(categorical_features=[0]).fit(X, y)
    np.testing.assert_array_equal(model.predict(array), frame.predict(X))


def test_string_categories_agree_with_scikit_learns_histgradientboosting_on_the_classes():
    X, y = strings(n=400)
    labels = (y > 0.5).astype(int)
    ours = HistGradientBoostingClassifier(max_iter=20, categorical_features=["colour"])
    theirs = ensemble.HistGradientBoostingClassifier(max_iter=20,
                                                     categorical_features=["colour"])
    assert ours.fit(X, labels).score(X, labels) == theirs.fit(X, labels).score(X, labels)


@pytest.mark.parametrize("make", MODELS)
def test_a_string_column_not_listed_as_categorical_is_named(make):
    X, y = strings()
    with pytest.raises(ValueError, match=r"column 'colour' \(column 0\) holds strings "
                                         r"\(dtype object\) but is not a categorical "
                                         "feature: list it in categorical_features"):
        make().fit(X, y)
    with pytest.raises(ValueError, match=r"holds strings \(dtype category\)"):
        make(categorical_features=None).fit(X.astype({"colour": "category"}), y)


@pytest.mark.parametrize("make", MODELS)
def test_strings_at_predict_after_a_category_fit(make):
    # fitted on a pandas category column, predicting from plain strings (object dtype)
    X, y = strings()
    model = make().fit(X.assign(colour=X["colour"].astype("category")), y)
    np.testing.assert_array_equal(model.predict(X), model.predict(
        X.assign(colour=X["colour"].astype("category"))))


@pytest.mark.parametrize("make", MODELS)
def test_numbers_where_string_categories_were_fitted_are_refused(make):
    # a numpy array of codes after a pandas fit was read as all-unknown categories;
    # scikit-learn raises (a TypeError: its encoder cannot compare numbers to strings)
    X, y = strings()
    model = make().fit(X.assign(colour=X["colour"].astype("category")), y)
    codes = np.column_stack([X["colour"].astype("category").cat.codes, X["size"]])
    with pytest.raises(TypeError, match=r"categorical feature 0 was fitted on string "
                                        r"categories \('blue', 'green', 'red'\) but got "
                                        "numbers; pass the values themselves"):
        model.predict(codes)
    with pytest.raises(TypeError, match="fitted on string categories"):
        model.predict(X.assign(colour=X["colour"].astype("category").cat.codes))


@pytest.mark.parametrize("make", MODELS)
def test_strings_where_numeric_categories_were_fitted_are_refused(make):
    X, y = strings()
    codes = X.assign(colour=X["colour"].astype("category").cat.codes.astype(float))
    model = make(categorical_features=[0]).fit(codes, y)
    with pytest.raises(TypeError, match=r"categorical feature 'colour' \(column 0\) was "
                                        "fitted on number categories .* but got strings"):
        model.predict(X)


@pytest.mark.parametrize("make", MODELS)
def test_mixed_strings_and_numbers_in_a_category_are_refused(make):
    X, y = strings()
    X["colour"] = X["colour"].astype(object)
    X.loc[0, "colour"] = 7
    with pytest.raises(TypeError, match=r"categorical feature 'colour' \(column 0\) mixes "
                                        "numbers and strings"):
        make(categorical_features=["colour"]).fit(X, y)


@pytest.mark.parametrize("make", MODELS)
def test_predict_with_the_wrong_number_of_columns_is_scikit_learns_error(make):
    X, y = strings()
    model = make(categorical_features=["colour"]).fit(X, y)
    with pytest.raises(ValueError, match="X has 1 features, but .* is expecting 2"):
        model.predict(X[["size"]].to_numpy())
    with pytest.raises(ValueError, match="Feature names seen at fit time, yet now missing"):
        model.predict(X[["colour"]])
    # numeric categories in the second column of an array: was an IndexError
    numeric = make(categorical_features=[1]).fit(X[["size", "size"]].to_numpy(), y)
    with pytest.raises(ValueError, match="X has 1 features, but .* is expecting 2"):
        numeric.predict(X[["size"]].to_numpy())


# --- parameters -----------------------------------------------------------------------------


@pytest.mark.parametrize("fraction", [1.0, 0.0, 1.5, -1, True, "half"])
def test_validation_fraction_out_of_range_is_named_with_its_range(fraction):
    # 1.0 failed inside train_test_split, naming its test_size
    X, y = np.arange(60.0)[:, None], np.arange(60.0)
    model = HistGradientBoostingRegressor(early_stopping=True, validation_fraction=fraction)
    with pytest.raises(ValueError, match=r"validation_fraction must be a float in \(0, 1\) "
                                         r"\(a fraction of the rows\), an int >= 1 \(a "
                                         r"number of rows\) or None; got "):
        model.fit(X, y)


@pytest.mark.parametrize("fraction", [60, 100, 0.999])
def test_validation_fraction_that_leaves_no_training_row_is_named(fraction):
    X, y = np.arange(60.0)[:, None], np.arange(60.0)
    model = HistGradientBoostingRegressor(early_stopping=True, validation_fraction=fraction)
    with pytest.raises(ValueError, match=rf"validation_fraction={fraction} cannot split 60 "
                                         "samples into training and validation rows"):
        model.fit(X, y)


def test_categorical_splitter_is_checked_without_categorical_features():
    X, y = np.arange(20.0)[:, None], np.arange(20.0)
    with pytest.raises(ValueError, match=r"categorical_splitter must be one of "
                                         r"\['partition', 'one_vs_rest'\]; got 'bad'"):
        DecisionTreeRegressor(categorical_splitter="bad").fit(X, y)


# --- sample weights, missing values ---------------------------------------------------------


@pytest.mark.parametrize("make", [DecisionTreeRegressor, DecisionTreeClassifier,
                                  HistGradientBoostingRegressor, RandomForestRegressor,
                                  ObliviousTreeRegressor])
def test_nan_in_sample_weight_says_so_without_splitters(make):
    X, y = np.arange(20.0)[:, None], np.arange(20.0) % 2
    weights = np.ones(20)
    weights[3] = np.nan
    with pytest.raises(ValueError, match=r"sample_weight contains NaN \(first at position "
                                         r"3\); sample_weight must not have missing "
                                         "values$"):
        make().fit(X, y, sample_weight=weights)


def test_absolute_error_with_missing_values_says_what_is_supported():
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(40, 2)), rng.normal(size=40)
    X[3, 1] = np.nan
    # it said "splitter='cumsum' ... does not handle missing values; use splitter
    # 'cumsum' or 'hist'": the splitter it named and the one it advised were the same
    with pytest.raises(ValueError, match=r"criterion='absolute_error' does not handle "
                                         r"missing values, and X contains NaN: missing "
                                         r"values are handled by splitter 'cumsum' or "
                                         r"'hist' with criterion 'squared_error' or "
                                         r"'poisson'") as error:
        DecisionTreeRegressor(criterion="absolute_error").fit(X, y)
    assert "use splitter 'cumsum'" not in str(error.value)
    DecisionTreeRegressor(criterion="absolute_error").fit(X[~np.isnan(X).any(axis=1)],
                                                          y[~np.isnan(X).any(axis=1)])


# --- stricter than scikit-learn, and saying why ----------------------------------------------


@pytest.mark.parametrize("make", [HistGradientBoostingRegressor, HistGradientBoostingClassifier])
def test_histgradientboosting_refuses_infinity_and_says_why(make):
    X, y = np.arange(40.0)[:, None], np.arange(40.0) % 2
    X[5, 0] = np.inf
    ensemble.HistGradientBoostingRegressor(max_iter=2).fit(X, y)      # scikit-learn: fine
    why = (r"X contains infinity \(first at row 5, column 0\); HistGradientBoosting "
           r"refuses it, unlike scikit-learn's .* midpoints of neighbouring values")
    with pytest.raises(ValueError, match=why):
        make(max_iter=2).fit(X, y)
    model = make(max_iter=2).fit(np.arange(40.0)[:, None], y)
    with pytest.raises(ValueError, match=why):
        model.predict(X)
    assert "refuses infinite values in X" in " ".join(make.__doc__.split())


@pytest.mark.parametrize("make", [DecisionTreeRegressor, RandomForestRegressor,
                                  HistGradientBoostingRegressor, ObliviousTreeRegressor])
def test_negative_sample_weights_are_refused_with_the_reason(make):
    X, y = np.arange(20.0)[:, None], np.arange(20.0)
    weights = np.ones(20)
    weights[2] = -1.0
    with pytest.raises(ValueError, match=r"sample_weight must be non-negative; found -1.0 at "
                                         r"position 2. treelib refuses negative weights, "
                                         r"which scikit-learn accepts: a node's total "
                                         "weight .* could then be zero or negative"):
        make().fit(X, y, sample_weight=weights)
    assert "negative sample weights (a" in " ".join(make.__doc__.split())


def test_histgradientboosting_refuses_targets_whose_gradients_overflow():
    # it failed with "TypeError: cannot unpack non-iterable NoneType object"
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 2))
    HistGradientBoostingRegressor(**BOOSTING).fit(X, X[:, 0] * 1e37)          # fine
    with pytest.raises(ValueError, match=r"y lies up to .* from its mean: the gradients, "
                                         r"float32 as in scikit-learn, overflow beyond "
                                         r"3.4e\+38 .* rescale y"):
        HistGradientBoostingRegressor(**BOOSTING).fit(X, X[:, 0] * 1e300)
    assert "more than 3.4e38 from their mean" in " ".join(
        HistGradientBoostingRegressor.__doc__.split())


@pytest.mark.parametrize("make", [DecisionTreeRegressor, RandomForestRegressor,
                                  ObliviousTreeRegressor])
def test_trees_refuse_targets_whose_squares_overflow_and_say_why(make):
    X = np.arange(20.0)[:, None]
    with pytest.raises(ValueError, match=r"overflow float64 .* \(scikit-learn accepts such "
                                         r"targets and compares overflowed gains; treelib "
                                         r"refuses them\); rescale y"):
        make().fit(X, np.arange(20.0) * 1e300)
    assert "square sums of targets, which would overflow float64" in " ".join(
        make.__doc__.split())
