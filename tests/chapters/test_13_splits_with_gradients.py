"""Chapter 13 ("Splits with gradients"): its teaching code against treelib, and the claims
its text makes.

``newton_leaf`` / ``newton_gain`` are the Newton step and gain of one leaf;
``newton_cut_gains`` scores every cut of one feature from histograms of gradients and
hessians.  The boosting loop around them is chapter 14's (tests/chapters/test_14_*).
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from tests.conftest import claim, notebook_cells
from treelib import HistGradientBoostingClassifier
from treelib.binning import bin_features
from treelib.datasets import load_california_housing
from treelib.gains import gain_from_sums
from treelib.growth.boosting_grower import BoostingRules, grow_boosting_tree
from treelib.growth.boosting_histograms import (
    BinnedData,
    NodeSums,
    best_splits,
    count_histograms,
)
from treelib.losses import HalfBinomialLoss, HalfSquaredError

PAGE = "13_splits_with_gradients.ipynb"
NS = notebook_cells(PAGE)
newton_leaf, newton_gain = NS["newton_leaf"], NS["newton_gain"]
newton_cut_gains = NS["newton_cut_gains"]


@pytest.fixture(scope="module")
def california():
    X, y = load_california_housing(return_X_y=True)
    codes, thresholds = bin_features(X, 255)
    return X, y, codes, [len(t) + 1 for t in thresholds]


def first_gradients(y, labels=False):
    """The float64 gradients and hessians of every sample before the first tree."""
    loss = HalfBinomialLoss() if labels else HalfSquaredError()
    target = (y > 2.0).astype(float) if labels else y
    raw = np.zeros((len(y), 1)) + loss.baseline(target)
    g, h = loss.gradient_hessian(target, raw)
    g = g[:, 0].astype(np.float64)
    h = np.ones(len(y)) if h is None else h[:, 0].astype(np.float64)
    return target, g, h


@pytest.fixture(scope="module")
def after_forty(california):
    """Labels, gradients and hessians of the classification target after 40 trees."""
    X, y, _, _ = california
    labels = (y > 2.0).astype(float)
    model = HistGradientBoostingClassifier(max_iter=40, early_stopping=False)
    raw = model.fit(X, labels).decision_function(X)[:, None]
    g, h = (a[:, 0].astype(np.float64)
            for a in HalfBinomialLoss().gradient_hessian(labels, raw))
    return labels, g, h


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


@settings(max_examples=100, deadline=None)
@given(g=hnp.arrays(np.float64, 12, elements=st.floats(-3, 3)),
       h=hnp.arrays(np.float64, 12, elements=st.floats(0.01, 2)),
       left=hnp.arrays(bool, 12))
def test_the_newton_gain_is_the_weighted_sse_decrease(g, h, left):
    """Exercise 3: weights h, targets -g/h; the decrease of the weighted SSE is the gain."""
    if left.all() or not left.any():
        return

    def weighted_sse(z, w):
        return np.sum(w * (z - np.sum(w * z) / np.sum(w)) ** 2)

    z = -g / h
    decrease = (weighted_sse(z, h) - weighted_sse(z[left], h[left])
                - weighted_sse(z[~left], h[~left]))
    scale = 1.0 + np.sum(g * g / h)             # the size of the sums that cancel
    assert abs(decrease - newton_gain(g, h, left)) <= 1e-12 * scale


# --- the claims of the text, each tied to its sentence with claim() ----------------------


def test_claim_squared_error_gives_back_the_sse_decrease(california):
    claim(PAGE, "The two agree to the float32 rounding of the gradients.")
    X, y, _, _ = california
    _, g, h = first_gradients(y)
    cut = X[:, 0] <= 5.0

    def sse(values):
        return np.sum((values - values.mean()) ** 2)

    decrease = sse(y) - sse(y[cut]) - sse(y[~cut])
    assert newton_gain(g, h, cut) == pytest.approx(decrease, rel=1e-6)


def test_claim_the_newton_step_falls_short_of_the_log_loss_minimum(california):
    claim(PAGE, "The Newton step falls short here")
    X, y, _, _ = california
    labels, g, h = first_gradients(y, labels=True)
    loss = HalfBinomialLoss()
    raw = np.zeros((len(y), 1)) + loss.baseline(labels)
    leaf = X[:, 0] > 6
    grid = np.linspace(0, 6, 6001)
    best = grid[np.argmin([loss.loss(labels[leaf], raw[leaf] + v) for v in grid])]
    assert newton_leaf(g[leaf], h[leaf]) < best - 1.0


def test_claim_both_pick_median_income_at_the_same_threshold(california):
    claim(PAGE, "Both pick median income, at the same threshold.")
    X, y, codes, n_bins = california
    _, g, h = first_gradients(y)
    best = max((newton_cut_gains(codes[:, j], g, h, max(n_bins),
                                 min_samples_leaf=20).max(), j) for j in range(8))
    tree, _ = grow_boosting_tree(BinnedData(codes, n_bins), g,
                                 rules=BoostingRules(max_leaf_nodes=2))
    cut = int(np.argmax(newton_cut_gains(codes[:, best[1]], g, h, max(n_bins),
                                         min_samples_leaf=20)))
    assert best[1] == tree.feature[0] == 0 and cut == int(tree.threshold[0])


def test_claim_the_gain_peaks_near_the_largest_running_sum_of_gradients(california):
    claim(PAGE, "of gradients $G_L$ is largest (bins 158 and 161 above)")
    claim(PAGE, "Poor block groups (left) are rarely expensive: their gradients $p - y$ are "
                "positive")
    X, y, codes, n_bins = california
    _, g, h = first_gradients(y, labels=True)
    G_bins = np.bincount(codes[:, 0], weights=g, minlength=n_bins[0])
    gains = newton_cut_gains(codes[:, 0], g, h, n_bins[0], min_samples_leaf=20)
    assert abs(G_bins.sum()) < 1e-3
    assert (int(np.argmax(np.cumsum(G_bins)[:-1])), int(np.argmax(gains))) == (158, 161)
    assert G_bins[:100].sum() > 0 > G_bins[200:].sum()
    assert np.ptp(h) == 0                       # every hessian equal before the first tree


def test_claim_min_child_weight_forbids_the_cuts_of_sure_samples(california, after_forty):
    claim(PAGE, "Here `min_child_weight=1` allows slightly fewer cuts than "
                "`min_samples_leaf=20` (198 against 202, all of them among those 202), and "
                "`min_child_weight=5` half as many as `min_child_weight=1` (99).")
    claim(PAGE, "their median hessian is 0.11 of the largest possible, $1/4$, and all 690 "
                "together hold 21.8. A child of 20 of them at the median holds 0.54.")
    X, _, codes, n_bins = california
    _, g, h = after_forty
    node = X[:, 0] > 8
    masks = [np.isfinite(newton_cut_gains(codes[node, 5], g[node], h[node], n_bins[5],
                                          **rule))
             for rule in (dict(min_samples_leaf=20), dict(min_child_weight=1.0),
                          dict(min_child_weight=5.0))]
    assert [int(m.sum()) for m in masks] == [202, 198, 99]
    assert not (masks[1] & ~masks[0]).any()          # the 198 are among the 202
    claim(PAGE, "the smallest child that `min_child_weight=1` allows here keeps 23 of these "
                "sure block groups, the smallest that `min_child_weight=5` allows 139, where "
                "`min_samples_leaf=20` allows 20 of any kind")
    n_left = np.cumsum(np.bincount(codes[node, 5], minlength=n_bins[5]))[:-1]
    smaller = np.minimum(n_left, node.sum() - n_left)
    assert [int(smaller[m].min()) for m in masks] == [20, 23, 139]
    assert node.sum() == 690
    assert round(np.median(h[node]) / 0.25, 2) == 0.11
    assert round(h[node].sum(), 1) == 21.8 and round(20 * np.median(h[node]), 2) == 0.54


def test_claim_the_weighted_identity_holds_after_forty_trees(california, after_forty):
    claim(PAGE, "with weights $h_i$ and targets $-g_i/h_i$ (exercise 3 derives it)")
    X, _, _, _ = california
    _, g, h = after_forty
    cut = X[:, 0] <= 5.0

    def weighted_sse(z, w):
        return np.sum(w * (z - np.sum(w * z) / np.sum(w)) ** 2)

    z = -g / h
    decrease = weighted_sse(z, h) - weighted_sse(z[cut], h[cut]) - weighted_sse(z[~cut],
                                                                                 h[~cut])
    assert decrease == pytest.approx(newton_gain(g, h, cut), rel=1e-9)


def test_claim_l2_shrinks_small_leaves_most_and_moves_the_first_split(california):
    claim(PAGE, "so cuts that isolate few samples lose their appeal: the first split can "
                "move.")
    _, y, codes, n_bins = california
    _, g, _ = first_gradients(y)
    data = BinnedData(codes, n_bins)
    trees = [grow_boosting_tree(data, g, rules=BoostingRules(l2_regularization=l2))[0]
             for l2 in (0.0, 200.0)]
    assert trees[0].threshold[0] != trees[1].threshold[0]
    for tree, l2 in zip(trees, (0.0, 200.0)):
        leaves = np.flatnonzero(tree.is_leaf)
        n = tree.n_node_samples[leaves]
        if l2:             # the leaf values shrink by n / (n + l2): most for the small ones
            assert abs(tree.value[leaves[np.argmin(n)], 0]) < 0.1


def test_claim_cuts_of_different_features_tie_before_the_first_tree(california):
    claim(PAGE, "Such ties happen in the first tree of a classifier (below, two class counts "
                "are reached by cuts of different features)")
    X, y, codes, n_bins = california
    labels = (y > 2.0).astype(float)
    loss = HalfBinomialLoss()
    raw = np.zeros((len(y), 1)) + loss.baseline(labels)
    g, h = (a[:, 0].astype(np.float64) for a in loss.gradient_hessian(labels, raw))
    cuts = {}
    for j in range(X.shape[1]):
        gains = newton_cut_gains(codes[:, j], g, h, max(n_bins), min_samples_leaf=20)
        for b in np.flatnonzero(np.isfinite(gains)):
            left = codes[:, j] <= b
            key = (int(labels[left].sum()), int((1 - labels[left]).sum()))
            cuts.setdefault(key, []).append((j, gains[b]))
    tied = [c for c in cuts.values() if len({j for j, _ in c}) > 1]
    assert len(tied) == 2
    for c in tied:                  # the same class counts: the same gain, to rounding
        assert max(v for _, v in c) - min(v for _, v in c) <= 1e-9 * max(v for _, v in c)
