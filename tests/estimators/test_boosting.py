"""treelib's HistGradientBoosting against scikit-learn's, and its own options.

Agreement: with equal parameters and ``early_stopping=False``, the predictions on the
training rows are scikit-learn's to the last bit (same bins, float32 gradients added in
the same order, same rules).  The tolerance asserted, 1e-12 relative, leaves room for a
numpy whose pairwise sums or ``exp`` round differently, not for a different split: one
different split moves some predictions by a leaf value, 1e-4 or more here.
"""

import numpy as np
import pytest
from sklearn import ensemble
from sklearn._loss.loss import HalfBinomialLoss, HalfMultinomialLoss, HalfSquaredError
from sklearn.metrics import r2_score

from treelib import HistGradientBoostingClassifier, HistGradientBoostingRegressor, losses
from treelib.datasets import load_california_housing, load_libsvm
from treelib.growth.boosting import goss_sample, line_search

AGREEMENT = 1e-12


def max_relative_difference(a, b):
    return float(np.max(np.abs(a - b) / np.maximum(np.abs(b), 1e-300)))


@pytest.fixture(scope="module")
def california():
    return load_california_housing(return_X_y=True)


@pytest.mark.slow
def test_predictions_equal_scikit_learns_on_california_after_100_iterations(california):
    X, y = california
    ours = HistGradientBoostingRegressor(early_stopping=False).fit(X, y)
    theirs = ensemble.HistGradientBoostingRegressor(early_stopping=False).fit(X, y)
    assert ours.n_iter_ == theirs.n_iter_ == 100
    assert max_relative_difference(ours.predict(X), theirs.predict(X)) <= AGREEMENT


@pytest.mark.parametrize("parameters", [
    dict(max_iter=10, l2_regularization=2.0, max_depth=4, min_samples_leaf=7, max_bins=32),
    dict(max_iter=10, max_leaf_nodes=None, max_depth=3, learning_rate=0.5),
])
def test_parameters_mean_what_they_mean_in_scikit_learn(california, parameters):
    X, y = california
    ours = HistGradientBoostingRegressor(early_stopping=False, **parameters).fit(X, y)
    theirs = ensemble.HistGradientBoostingRegressor(early_stopping=False,
                                                    **parameters).fit(X, y)
    assert max_relative_difference(ours.predict(X), theirs.predict(X)) <= AGREEMENT


@pytest.mark.parametrize("seed", range(4))
def test_missing_values_go_where_scikit_learns_do(seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(400, 3))
    y = X[:, 0] * 2 + np.sin(3 * X[:, 1]) + rng.normal(scale=0.1, size=400)
    X[rng.random(X.shape) < 0.15] = np.nan
    X[:, 2][X[:, 0] > 1] = np.nan                          # missing, not at random
    parameters = dict(max_iter=15, min_samples_leaf=5, early_stopping=False)
    ours = HistGradientBoostingRegressor(**parameters).fit(X, y)
    theirs = ensemble.HistGradientBoostingRegressor(**parameters).fit(X, y)
    assert max_relative_difference(ours.predict(X), theirs.predict(X)) <= AGREEMENT


def test_binary_log_loss_on_a9a_is_scikit_learns():
    data = load_libsvm("a9a")
    X, y = data.X_train[:8000], data.y_train[:8000]
    parameters = dict(max_iter=10, early_stopping=False)
    ours = HistGradientBoostingClassifier(**parameters).fit(X, y)
    theirs = ensemble.HistGradientBoostingClassifier(**parameters).fit(X, y)
    # probabilities from the same raw predictions, up to numpy's exp against libm's
    np.testing.assert_allclose(ours.decision_function(X), theirs.decision_function(X),
                               rtol=AGREEMENT, atol=1e-14)
    np.testing.assert_array_equal(ours.predict(X), theirs.predict(X))


def test_early_stopping_stops_where_scikit_learns_does(california):
    X, y = california
    X, y = X[:12000], y[:12000]                      # above 10,000: "auto" enables it
    parameters = dict(max_iter=200, learning_rate=0.5, n_iter_no_change=3, random_state=3)
    ours = HistGradientBoostingRegressor(**parameters).fit(X, y)
    theirs = ensemble.HistGradientBoostingRegressor(**parameters).fit(X, y)
    assert ours.do_early_stopping_ and ours.n_iter_ == theirs.n_iter_ < 200
    np.testing.assert_allclose(ours.validation_score_, theirs.validation_score_, rtol=1e-12)
    np.testing.assert_allclose(ours.train_score_, theirs.train_score_, rtol=1e-12)


@pytest.mark.parametrize("ours, theirs, n_classes", [
    (losses.HalfSquaredError(), HalfSquaredError(), None),
    (losses.HalfBinomialLoss(), HalfBinomialLoss(), 2),
    (losses.HalfMultinomialLoss(4), HalfMultinomialLoss(n_classes=4), 4)])
@pytest.mark.parametrize("weighted", [False, True])
def test_losses_are_scikit_learns(ours, theirs, n_classes, weighted):
    rng = np.random.default_rng(0)
    n = 500
    y = rng.normal(size=n) if n_classes is None else rng.integers(0, n_classes, n) * 1.0
    raw = rng.normal(scale=3, size=(n, ours.n_outputs))
    raw[:5] = [[-50.0], [-37.0], [-20.0], [19.0], [40.0]][:5] if ours.n_outputs == 1 else \
        raw[:5]
    w = rng.uniform(0.5, 2, n) if weighted else None
    g, h = ours.gradient_hessian(y, raw, w)
    shape = (n,) if ours.n_outputs == 1 else (n, ours.n_outputs)
    g_ref, h_ref = (np.empty(shape, np.float32, order="F") for _ in range(2))
    theirs.gradient_hessian(y, raw.reshape(shape), w, g_ref, h_ref)
    np.testing.assert_allclose(g[:, 0] if shape == (n,) else g, g_ref, rtol=2e-7)
    if h is not None:
        np.testing.assert_allclose(h[:, 0] if shape == (n,) else h, h_ref, rtol=2e-7)
    np.testing.assert_allclose(ours.baseline(y, w), theirs.fit_intercept_only(y, w),
                               rtol=1e-14)
    assert ours.loss(y, raw, w) == pytest.approx(
        theirs(y, raw.reshape(shape), w), rel=1e-12)


def test_the_line_search_of_squared_error_always_takes_the_whole_step(california):
    """The Newton leaves of squared error are the mean residuals of their rows, so the
    tree is the least-squares fit of the residuals: alpha = <r, t> / <t, t> = 1."""
    X, y = california
    model = HistGradientBoostingRegressor(learning_rate="line_search", max_iter=5,
                                          early_stopping=False).fit(X, y)
    np.testing.assert_array_equal(model.step_sizes_, 1.0)
    regularised = HistGradientBoostingRegressor(learning_rate="line_search", max_iter=5,
                                                l2_regularization=50.0,
                                                early_stopping=False).fit(X, y)
    assert (regularised.step_sizes_ == 1.0).all()       # (shrunk leaves: alpha > 1, clipped)


def test_the_line_search_minimises_the_loss():
    loss = losses.HalfBinomialLoss()
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, 300) * 1.0
    raw = rng.normal(size=(300, 1))
    update = rng.normal(size=300) * (2 * y - 1)
    alpha = line_search(loss, y, raw, 0, update)
    grid = np.linspace(0, 1, 2001)
    values = [loss.loss(y, raw + a * update[:, None]) for a in grid]
    assert abs(alpha - grid[np.argmin(values)]) <= 1e-3


def test_goss_keeps_the_largest_gradients_and_amplifies_a_sample_of_the_rest():
    rng = np.random.default_rng(2)
    g = rng.normal(size=(1000, 1)).astype(np.float32)
    rows, g_s, h_s = goss_sample(g, None, 0.2, 0.1, rng)
    assert len(rows) == 300 and np.all(np.diff(rows) > 0)
    top = np.argsort(-np.abs(g[:, 0]), kind="stable")[:200]
    assert set(top) <= set(rows)
    others = np.setdiff1d(rows, top)
    np.testing.assert_allclose(g_s[others], g[others] * 8.0)   # (1000 - 200) / 100
    np.testing.assert_allclose(h_s[others], 8.0)
    np.testing.assert_array_equal(h_s[top], 1.0)


def test_goss_that_keeps_every_row_changes_nothing(california):
    X, y = california
    X, y = X[:3000], y[:3000]
    plain = HistGradientBoostingRegressor(max_iter=20, learning_rate=0.2).fit(X, y)
    # 2,850 rows on top, the other 150 all drawn, amplified by 150 / 150 = 1
    goss = HistGradientBoostingRegressor(max_iter=20, learning_rate=0.2, sampling="goss",
                                         top_rate=0.95, other_rate=0.05).fit(X, y)
    np.testing.assert_array_equal(plain.predict(X), goss.predict(X))


def test_goss_learns_from_a_third_of_the_rows(california):
    X, y = california
    rows = np.random.default_rng(0).permutation(len(y))
    train, test = rows[:15000], rows[15000:]
    model = HistGradientBoostingRegressor(max_iter=60, sampling="goss", random_state=0,
                                          early_stopping=False).fit(X[train], y[train])
    assert r2_score(y[test], model.predict(X[test])) > 0.75


def test_multiclass_grows_one_tree_per_class():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(300, 4))
    y = np.digitize(X[:, 0] + 0.5 * X[:, 1], [-0.5, 0.5])
    model = HistGradientBoostingClassifier(max_iter=10, min_samples_leaf=5).fit(X, y)
    assert model.n_trees_per_iteration_ == 3 and len(model.trees_[0]) == 3
    proba = model.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    # Not to the last bit: at the first iteration every sample of a class has the same
    # gradient, so different cuts that isolate the same numbers of each class tie
    # exactly; scikit-learn keeps whichever rounding favours, treelib the lowest feature.
    theirs = ensemble.HistGradientBoostingClassifier(max_iter=10, min_samples_leaf=5).fit(X, y)
    assert abs(model.score(X, y) - theirs.score(X, y)) <= 0.02


@pytest.mark.parametrize("parameter, value", [
    ("learning_rate", 0.0), ("learning_rate", "fast"), ("max_iter", 0), ("max_bins", 256),
    ("max_leaf_nodes", 1), ("early_stopping", "yes"), ("sampling", "bagging"),
    ("top_rate", 0.8), ("validation_fraction", 1.5), ("l2_regularization", -1.0)])
def test_bad_parameters_are_named(parameter, value):
    X, y = np.arange(40.0)[:, None], np.arange(40.0)
    extra = {"other_rate": 0.5} if parameter == "top_rate" else {}
    with pytest.raises(ValueError, match=parameter):
        HistGradientBoostingRegressor(**{parameter: value}, **extra).fit(X, y)
