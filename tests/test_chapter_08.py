"""Chapter 8 ("Random splits and random decision trees"): the chapter's loop over the
features equals treelib's random_split, and the chapter's claims hold.

``random_split_by_loop`` is loaded from the notebook's cell tagged "teaching": for every
feature it draws a threshold uniformly between the node's minimum and maximum (the f
uniforms drawn at once, as ``random_split`` does), scores it from scratch with
``split_gain`` and keeps the best candidate, lowest feature on ties.  It must return
``random_split``'s split: same feature, threshold bit for bit, same sizes, gain to rounding.
``toy_data`` (tagged "helpers") is the two-dimensional problem of the chapter's figure.
"""

import numpy as np
import pytest
from conftest import notebook_cells
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import balanced_accuracy_score, roc_auc_score
from sklearn.svm import LinearSVC

from treelib import (
    DecisionTreeClassifier,
    RandomDecisionTreeClassifier,
    RandomDecisionTreeRegressor,
    bench,
)
from treelib.criteria import one_hot
from treelib.datasets import load_libsvm, load_seed_auc_table
from treelib.random_splits import random_split

NOTEBOOK = "08_random_splits.ipynb"
random_split_by_loop = notebook_cells(NOTEBOOK)["random_split_by_loop"]
toy_data = notebook_cells(NOTEBOOK, tag="helpers")["toy_data"]

DATASETS = ["a1a", "a9a", "mushrooms", "splice"]


# --- the teaching version ------------------------------------------------------------


@st.composite
def nodes(draw):
    """A node of 1 to 50 samples and 1 to 5 features: small integers (ties, constant
    columns), wide floats, or a feature whose two values are adjacent floats (a draw then
    often rounds up to the maximum); targets with a large offset, or class labels."""
    n = draw(st.integers(1, 50))
    f = draw(st.integers(1, 5))
    X = draw(hnp.arrays(np.float64, (n, f), elements=st.integers(-3, 3).map(float)
                        | st.floats(-1e3, 1e3, allow_subnormal=False)))
    if draw(st.booleans()):
        X[:, 0] = np.where(np.arange(n) % 2 == 0, 1.0, np.nextafter(1.0, 2.0))
    criterion = draw(st.sampled_from(["squared_error", "gini", "entropy"]))
    if criterion == "squared_error":
        y = draw(st.sampled_from([0.0, 1e6])) + draw(
            hnp.arrays(np.float64, n, elements=st.floats(-10, 10, allow_subnormal=False)))
    else:
        y = draw(hnp.arrays(np.int64, n, elements=st.integers(0, 2)))
    return X, y, criterion, draw(st.integers(1, 4)), draw(st.integers(0, 2**32 - 1))


def assert_same_split(X, y, criterion, min_samples_leaf, seed):
    stats = y if criterion == "squared_error" else one_hot(y, 3)
    expected = random_split(X, stats, np.random.default_rng(seed), criterion, min_samples_leaf)
    ours = random_split_by_loop(X, y, np.random.default_rng(seed), criterion, min_samples_leaf)
    if expected is None:
        assert ours is None
        return
    assert (ours.feature, ours.threshold, ours.n_left, ours.n_right) == (
        expected.feature, expected.threshold, expected.n_left, expected.n_right)
    scale = 1.0 if criterion != "squared_error" else 1.0 + np.abs(y - y.mean()).max() ** 2
    assert ours.gain == pytest.approx(expected.gain, rel=1e-6, abs=1e-9 * len(y) * scale)


@settings(max_examples=500, deadline=None)
@given(node=nodes())
def test_the_loop_is_random_split(node):
    assert_same_split(*node)


def test_the_loop_turns_a_draw_that_rounds_up_into_the_minimum():
    # Two adjacent floats: any u >= 1/2 rounds low + u (high - low) up to high.
    X = np.array([[1.0], [np.nextafter(1.0, 2.0)]] * 3)
    y = np.arange(6.0)
    thresholds = {random_split_by_loop(X, y, np.random.default_rng(s)).threshold
                  for s in range(20)}
    assert thresholds == {1.0}
    for seed in range(20):
        assert_same_split(X, y, "squared_error", 1, seed)


def test_the_loop_on_the_california_root():
    X_train, _, y_train, _ = bench.california_split()
    for seed in range(5):
        assert_same_split(X_train, y_train, "squared_error", 1, seed)
    assert random_split_by_loop(X_train, y_train, np.random.default_rng(0),
                                min_samples_leaf=len(y_train)) is None


# --- section 3: random decision trees on the toy problem -----------------------------


def test_toy_data_is_seeded_and_not_linearly_separable():
    X, y = toy_data(600, seed=0)
    X2, y2 = toy_data(600, seed=0)
    np.testing.assert_array_equal(X, X2)
    np.testing.assert_array_equal(y, y2)
    assert 0.15 < y.mean() < 0.4
    linear = LogisticRegression().fit(X, y)
    assert (linear.predict(X) == y).mean() < 0.85   # a line misses the corner or the disc


def test_the_random_trees_are_smoother_and_rank_better_than_cart_on_the_toy():
    X, y = toy_data(600, seed=0)
    X_test, y_test = toy_data(5000, seed=1)
    cart = DecisionTreeClassifier().fit(X, y)
    deep = RandomDecisionTreeClassifier(max_depth=10, random_state=0).fit(X, y)
    shallow = RandomDecisionTreeClassifier(random_state=0).fit(X, y)
    assert shallow.max_depth_ == 2                     # default: the number of features
    assert np.isin(cart.predict_proba(X_test)[:, 1], [0, 1]).all()
    assert np.isin(deep.predict_proba(X_test)[:, 1], [0, 1]).mean() < 0.05
    auc = {name: roc_auc_score(y_test, model.predict_proba(X_test)[:, 1])
           for name, model in [("cart", cart), ("deep", deep), ("shallow", shallow)]}
    assert auc["deep"] > auc["cart"] + 0.05 and auc["deep"] > auc["shallow"] + 0.05


# --- section 4: missing values ----------------------------------------------------------


def test_missing_incomes_cost_less_than_dropping_the_feature():
    X_train, X_test, y_train, y_test = bench.california_split()
    rng = np.random.default_rng(0)
    X_train_nan, X_test_nan = X_train.copy(), X_test.copy()
    X_train_nan[rng.random(len(X_train)) < 0.2, 0] = np.nan
    X_test_nan[rng.random(len(X_test)) < 0.2, 0] = np.nan

    def score(A, B):
        model = RandomDecisionTreeRegressor(n_estimators=10, max_depth=12, random_state=0)
        return model.fit(A, y_train), model.score(B, y_test)

    model, missing = score(X_train_nan, X_test_nan)
    _, complete = score(X_train, X_test)
    _, dropped = score(X_train[:, 1:], X_test[:, 1:])
    assert dropped < missing < complete
    tree = next(t for t in model.estimators_ if t.feature[0] == 0)
    missing_child = tree.children[0, 2]
    assert tree.n_node_samples[missing_child] == np.isnan(X_train_nan[:, 0]).sum()


# --- section 6: the seed's table ----------------------------------------------------------


def test_published_table_is_what_the_chapter_quotes():
    seed = load_seed_auc_table().set_index(["data", "method"])
    assert set(seed.index.get_level_values("data")) == set(DATASETS)
    assert set(seed.index.get_level_values("method")) == {"RDT", "J48 (C4.5)", "SMO (SVM)", "LR"}
    expected = {("a1a", "RDT"): (0.879, 0.569), ("a9a", "RDT"): (0.890, 24.171),
                ("mushrooms", "RDT"): (1.000, 3.608), ("splice", "RDT"): (0.909, 0.387),
                ("a1a", "SMO (SVM)"): (0.760, 1.574), ("a1a", "LR"): (0.751, 1.010),
                ("a9a", "SMO (SVM)"): (0.761, 1637.011), ("a9a", "LR"): (0.763, 35.901),
                ("splice", "SMO (SVM)"): (0.843, 1.742), ("splice", "LR"): (0.853, 0.819),
                ("splice", "J48 (C4.5)"): (0.935, 0.770)}
    for key, (auc, seconds) in expected.items():
        assert seed.loc[key, "auc"] == auc and seed.loc[key, "seconds"] == seconds


def test_auc_of_hard_labels_is_the_balanced_accuracy_on_a1a():
    """Both are (sensitivity + specificity) / 2 for 0/1 predictions: the same few
    divisions of counts, so equal to rounding."""
    data = load_libsvm("a1a")
    for model in [LinearSVC(random_state=0), LogisticRegression()]:
        labels = model.fit(data.X_train, data.y_train).predict(data.X_test)
        assert roc_auc_score(data.y_test, labels) == pytest.approx(
            balanced_accuracy_score(data.y_test, labels), rel=1e-12)
