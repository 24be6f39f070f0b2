"""Categorical features at the estimators' boundary (``treelib.estimators.encoding``):
which columns are categorical (scikit-learn's conventions: pandas dtypes, indices, a
boolean mask, names), their categories and codes, and the trees grown on them: the same
tree whichever way the columns are named, unknown categories routed as missing values,
and the errors."""

import numpy as np
import pandas as pd
import pytest

from tests.reference import assert_same_tree
from treelib.estimators import DecisionTreeClassifier, DecisionTreeRegressor
from treelib.estimators.encoding import (
    MAX_CATEGORIES,
    categorical_mask,
    encode_categories,
    fit_categories,
)


def frame(n=120, seed=0):
    """A numeric column, a pandas categorical column (4 levels, in a non-sorted order,
    one of them never used) whose levels drive the target, and a numeric column."""
    rng = np.random.default_rng(seed)
    colour = pd.Categorical(rng.choice(["red", "green", "blue"], size=n),
                            categories=["red", "green", "blue", "grey"])
    X = pd.DataFrame({"size": rng.integers(0, 5, size=n).astype(float), "colour": colour,
                      "noise": rng.normal(size=n)})
    effect = {"red": 0.0, "green": 3.0, "blue": 0.5}
    y = np.array([effect[c] for c in colour]) + X["size"] / 10 + rng.normal(scale=0.1,
                                                                            size=n)
    return X, y


# --- which columns, which categories, which codes -------------------------------------------


def test_categorical_mask_follows_scikit_learns_conventions():
    X, _ = frame()
    assert categorical_mask("from_dtype", X, 3).tolist() == [False, True, False]
    assert categorical_mask("from_dtype", X.to_numpy(), 3).tolist() == [False] * 3
    assert categorical_mask(None, X, 3).tolist() == [False] * 3
    assert categorical_mask([1], X, 3).tolist() == [False, True, False]
    assert categorical_mask(np.array([True, False, True]), X, 3).tolist() == [True, False, True]
    assert categorical_mask(["colour", "size"], X, 3).tolist() == [True, True, False]
    with pytest.raises(ValueError, match="boolean mask needs 3 entries"):
        categorical_mask([True, False], X, 3)
    with pytest.raises(ValueError, match=r"indices must be in \[0, 3\); got \[3\]"):
        categorical_mask([3], X, 3)
    with pytest.raises(ValueError, match=r"names unknown columns: \['shape'\]$"):
        categorical_mask(["shape"], X, 3)
    with pytest.raises(ValueError, match="given by name needs X as a DataFrame"):
        categorical_mask(["colour"], X.to_numpy(), 3)
    with pytest.raises(ValueError, match="must be None, 'from_dtype', a boolean mask"):
        categorical_mask([0.5], X, 3)


def test_unknown_column_names_are_listed_as_written():
    X, _ = frame()
    with pytest.raises(ValueError, match=r"names unknown columns: \['shape'\]$"):
        categorical_mask(["shape"], X, 3)


def test_categories_and_codes():
    X, _ = frame(n=8)
    categories = fit_categories(X, np.array([True, True, False]))
    # a pandas column keeps its levels in their order, without a level no row has (it is
    # unknown, as in scikit-learn's HistGradientBoosting); a numeric column gets its
    # sorted distinct present values
    assert categories[1].tolist() == ["red", "green", "blue"]
    assert categories[0].tolist() == sorted(set(X["size"])) and categories[2] is None
    new = pd.DataFrame({"size": [max(X["size"]) + 7, np.nan, categories[0][0]],
                        "colour": pd.Categorical(["grey", "blue", None],
                                                 categories=["grey", "blue"]),
                        "noise": [1.5, 2.5, 3.5]})
    codes = encode_categories(new, categories)
    assert isinstance(codes, pd.DataFrame) and list(codes.columns) == list(new.columns)
    # an unknown value and a missing one: NaN; known ones: their index in the categories
    np.testing.assert_array_equal(codes["size"], [np.nan, np.nan, 0.0])
    np.testing.assert_array_equal(codes["colour"], [np.nan, 2.0, np.nan])   # grey unseen
    np.testing.assert_array_equal(codes["noise"], new["noise"])     # untouched
    as_array = encode_categories(np.array([[1.0, 2.0]]), [None, np.array([2.0, 5.0])])
    np.testing.assert_array_equal(as_array, [[1.0, 0.0]])


def test_more_than_255_categories_are_refused():
    X = np.arange(MAX_CATEGORIES + 1, dtype=float)[:, None]
    assert len(fit_categories(X[:-1], np.array([True]))[0]) == MAX_CATEGORIES == 255
    with pytest.raises(ValueError, match="categorical feature 0 has 256 categories; at most "
                                         "255 are supported"):
        DecisionTreeRegressor(categorical_features=[0]).fit(X, np.arange(256.0))


# --- trees on categorical features ---------------------------------------------------------


@pytest.mark.parametrize("splitter", ["cumsum", "hist"])
def test_the_same_tree_whichever_way_the_columns_are_named(splitter):
    X, y = frame()
    by_dtype = DecisionTreeRegressor(splitter=splitter, max_depth=4).fit(X, y)
    assert by_dtype.is_categorical_.tolist() == [False, True, False]
    assert by_dtype.tree_.categorical[0]            # the colour splits the root
    # green (code 1) against red and blue: the partition strategy sorts them by mean
    assert by_dtype.tree_.categories_left(0).tolist() in ([1], [0, 2, 3], [0, 2])
    codes = X.assign(colour=X["colour"].cat.codes.astype(float))
    for categorical_features in ([1], [False, True, False], ["colour"]):
        other = DecisionTreeRegressor(splitter=splitter, max_depth=4,
                                      categorical_features=categorical_features)
        assert_same_tree(other.fit(codes, y).tree_, by_dtype.tree_)
    np.testing.assert_array_equal(by_dtype.predict(X), other.predict(codes))


def test_unknown_categories_go_where_missing_values_go():
    X, y = frame()
    model = DecisionTreeRegressor(max_depth=3).fit(X, y)
    unknown = X.copy()
    unknown["colour"] = pd.Categorical(["purple"] * len(X))            # never seen
    missing = X.assign(colour=pd.Categorical([None] * len(X), categories=["red"]))
    np.testing.assert_array_equal(model.predict(unknown), model.predict(missing))
    # at the root (a colour split) they all take its missing-value branch
    tree = model.tree_
    assert tree.categorical[0]
    below, stack = set(), [tree.children_missing[0]]
    while stack:
        node = stack.pop()
        below.add(node)
        stack += [c for c in (tree.children_left[node], tree.children_right[node]) if c >= 0]
    assert set(model.apply(unknown)) <= below


def test_one_vs_rest_sends_one_category_alone():
    X, y = frame()
    model = DecisionTreeRegressor(max_depth=1, categorical_splitter="one_vs_rest").fit(X, y)
    left = model.tree_.categories_left(0).tolist()
    # one of the three categories present, alone on one side (the unused grey aside)
    assert len(left) == 1 or len(set(range(3)) - set(left)) == 1


def test_categorical_splitter_and_builder_are_checked():
    X, y = frame(n=30)
    with pytest.raises(ValueError, match=r"categorical_splitter must be one of "
                                         r"\['partition', 'one_vs_rest'\]; got 'sorted'"):
        DecisionTreeRegressor(categorical_splitter="sorted").fit(X, y)
    with pytest.raises(ValueError, match="level-wise growth does not split categorical"):
        DecisionTreeRegressor(builder="level_wise").fit(X, y)
    with pytest.raises(ValueError, match="splitter='random' does not split categorical"):
        DecisionTreeRegressor(splitter="random", random_state=0).fit(X, y)


def test_classifier_on_penguins_with_categories_and_missing_values():
    from treelib.datasets import load_penguins

    X, y = load_penguins(return_X_y=True)
    model = DecisionTreeClassifier(max_depth=3).fit(X, y)
    assert model.is_categorical_.tolist() == [dtype == "category" for dtype in
                                              X.dtypes.astype(str)]
    assert model.categories_[list(X.columns).index("island")].tolist() == sorted(
        X["island"].cat.categories)
    assert model.score(X, y) > 0.9
