"""Chapter 13 ("Splits with gradients"): its teaching code against treelib, and the claims
its text makes.

``newton_leaf`` / ``newton_gain`` are the Newton step and gain of one leaf;
``newton_cut_gains`` scores every cut of one feature from histograms of gradients and
hessians; ``boost`` is the boosting loop on treelib's grower; ``goss`` (exercise 3) is
LightGBM's one-side sampling.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from tests.conftest import notebook_cells
from treelib import HistGradientBoostingClassifier, HistGradientBoostingRegressor
from treelib.binning import bin_features
from treelib.datasets import load_california_housing
from treelib.gains import gain_from_sums
from treelib.growth.boosting import goss_sample
from treelib.growth.boosting_grower import BoostingRules
from treelib.growth.boosting_histograms import (
    BinnedData,
    NodeSums,
    best_splits,
    count_histograms,
)
from treelib.losses import HalfBinomialLoss, HalfSquaredError

NS = notebook_cells("13_splits_with_gradients.ipynb")
newton_leaf, newton_gain = NS["newton_leaf"], NS["newton_gain"]
newton_cut_gains, boost, goss = NS["newton_cut_gains"], NS["boost"], NS["goss"]


@pytest.fixture(scope="module")
def california():
    X, y = load_california_housing(return_X_y=True)
    codes, thresholds = bin_features(X, 255)
    return X, y, codes, [len(t) + 1 for t in thresholds]


@settings(max_examples=100, deadline=None)
@given(g=hnp.arrays(np.float64, 12, elements=st.floats(-3, 3)),
       h=hnp.arrays(np.float64, 12, elements=st.floats(0.1, 2)),
       left=hnp.arrays(bool, 12), l2=st.sampled_from([0.0, 1.0]))
def test_the_newton_step_and_gain_are_treelibs(g, h, left, l2):
    if left.all() or not left.any():
        return
    expected = gain_from_sums(np.array([g[left].sum()]), h[left].sum(), np.array([g.sum()]),
                              h.sum(), "newton", l2)
    assert newton_gain(g, h, left, l2) == pytest.approx(expected, rel=1e-9, abs=1e-9)
    # the leaf value minimises the second-order loss G v + (H + l2) v^2 / 2
    v = newton_leaf(g, h, l2)
    loss = [g.sum() * w + (h.sum() + l2) * w * w / 2 for w in (v - 1e-3, v, v + 1e-3)]
    assert loss[1] <= min(loss[0], loss[2])


@pytest.mark.parametrize("target", ["regression", "classification"])
def test_every_cut_of_a_feature_is_scored_as_the_grower_scores_it(california, target):
    X, y, codes, n_bins = california
    if target == "regression":
        loss, labels = HalfSquaredError(), y
    else:
        loss, labels = HalfBinomialLoss(), (y > 2.0).astype(float)
    raw = np.zeros((len(y), 1)) + loss.baseline(labels)
    g, h = loss.gradient_hessian(labels, raw)
    g = g[:, 0].astype(np.float64)
    h = np.ones(len(y)) if h is None else h[:, 0].astype(np.float64)
    data = BinnedData(codes, n_bins)
    hist = count_histograms(data, None, g, h)
    found = best_splits(hist, NodeSums(g.sum(), h.sum(), len(g), np.abs(g).sum(),
                                       np.max(np.abs(g) / h)),
                        data, BoostingRules(min_samples_leaf=20), [False])[0]
    best = max((newton_cut_gains(codes[:, j], g, h, data.width, min_samples_leaf=20,
                                 min_child_weight=1e-3).max(), j) for j in range(8))
    gain, feature, cut = found[:3]
    assert best[1] == feature
    gains = newton_cut_gains(codes[:, feature], g, h, data.width, min_samples_leaf=20,
                             min_child_weight=1e-3)
    assert int(np.argmax(gains)) == cut
    assert gains[cut] == pytest.approx(gain, rel=1e-9)


def test_the_boosting_loop_is_the_estimators_bit_for_bit(california):
    X, y, codes, n_bins = california
    fitted, losses = boost(codes, n_bins, y, HalfSquaredError(), n_iter=8)
    model = HistGradientBoostingRegressor(max_iter=8, early_stopping=False).fit(X, y)
    np.testing.assert_array_equal(fitted, model.predict(X))
    assert all(b < a for a, b in zip(losses, losses[1:]))      # every tree helps


def test_the_loop_with_the_log_loss_is_the_classifiers(california):
    X, y, codes, n_bins = california
    labels = (y > 2.0).astype(float)
    fitted, _ = boost(codes, n_bins, labels, HalfBinomialLoss(), n_iter=5)
    model = HistGradientBoostingClassifier(max_iter=5, early_stopping=False).fit(X, labels)
    np.testing.assert_allclose(fitted, model.decision_function(X), rtol=1e-12, atol=1e-14)


@settings(max_examples=50, deadline=None)
@given(n=st.integers(20, 300), seed=st.integers(0, 2**32 - 1),
       rates=st.sampled_from([(0.2, 0.1), (0.5, 0.5), (0.05, 0.3)]))
def test_the_exercises_goss_is_treelibs(n, seed, rates):
    rng = np.random.default_rng(seed)
    g = rng.normal(size=(n, 1)).astype(np.float32)
    h = rng.uniform(0, 0.25, size=(n, 1)).astype(np.float32)
    mine = goss(g, h, *rates, np.random.default_rng(seed))
    theirs = goss_sample(g, h, *rates, np.random.default_rng(seed))
    for a, b in zip(mine, theirs):
        np.testing.assert_array_equal(a, b)


def test_claim_squared_error_gives_back_the_sse_decrease(california):
    X, y, _, _ = california
    g = (y.mean() - y).astype(np.float32).astype(np.float64)
    cut = X[:, 0] <= 5.0

    def sse(values):
        return np.sum((values - values.mean()) ** 2)

    decrease = sse(y) - sse(y[cut]) - sse(y[~cut])
    assert newton_gain(g, np.ones(len(y)), cut) == pytest.approx(decrease, rel=1e-6)


def test_claim_the_line_search_of_the_log_loss_moves_and_starts_near_one(california):
    X, y, _, _ = california
    labels = (y > 2.0).astype(float)
    model = HistGradientBoostingClassifier(learning_rate="line_search", max_iter=10,
                                           early_stopping=False).fit(X, labels)
    steps = model.step_sizes_[:, 0]
    assert steps[0] > 0.8 and steps.min() < 0.95 and len(np.unique(steps)) > 1
