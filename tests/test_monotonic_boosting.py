"""Monotonic constraints (``monotonic_cst``) in treelib's HistGradientBoosting (issue 23,
part 3).

- scikit-learn's HistGradientBoosting with the same constraints: the same predictions
  (``AGREEMENT``, 1e-12 relative, as tests/estimators/test_boosting.py: bit for bit
  where the trees are the same, a different split would move predictions by a leaf
  value) on california (regression, features of both signs constrained) and its binary
  version (log-loss: the raw prediction, the log-odds of the second class, is the
  constrained one; scikit-learn flips no sign here), and on a9a;
- the fitted functions are monotonic along every constrained feature (grids);
- a brute force of the constrained Newton split of one node: every cut of every feature
  enumerated, its children's values clipped to the node's bounds, the order checked,
  scikit-learn's gain ``G v - G_L v_L - G_R v_R`` (ties, duplicates, constant features,
  tiny n, offsets);
- bad input: a ValueError naming the problem.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import ensemble

from treelib import HistGradientBoostingClassifier, HistGradientBoostingRegressor
from treelib.datasets import load_california_housing, load_libsvm
from treelib.finders.monotonic import (
    first_best_cuts,
    monotonic_signs,
    newton_middle,
    newton_scan_gains,
    newton_value,
)
from treelib.growth.boosting_grower import BoostingRules
from treelib.growth.boosting_histograms import BinnedData, NodeSums, count_histograms
from treelib.growth.boosting_monotonic import scan_splits

AGREEMENT = 1e-12
CONSTRAINT = [1, 0, 1, 0, 0, -1, -1, 0]


def max_relative_difference(a, b):
    return float(np.max(np.abs(a - b) / np.maximum(np.abs(b), 1e-300)))


@pytest.fixture(scope="module")
def california():
    return load_california_housing(return_X_y=True)


def fit_both(kind, X, y, **parameters):
    ours = {"regressor": HistGradientBoostingRegressor,
            "classifier": HistGradientBoostingClassifier}[kind]
    theirs = {"regressor": ensemble.HistGradientBoostingRegressor,
              "classifier": ensemble.HistGradientBoostingClassifier}[kind]
    parameters = dict(early_stopping=False, **parameters)
    return ours(**parameters).fit(X, y), theirs(**parameters).fit(X, y)


def raw(model, X):
    return model.predict(X) if hasattr(model, "loss") and model.loss == "squared_error" \
        else model.decision_function(X)


def test_constrained_regression_equals_scikit_learns_on_a_california_subsample(california):
    X, y = california[0][:2000], california[1][:2000]
    ours, theirs = fit_both("regressor", X, y, max_iter=8, monotonic_cst=CONSTRAINT,
                            l2_regularization=1.0, min_samples_leaf=5)
    free = HistGradientBoostingRegressor(early_stopping=False, max_iter=8,
                                         l2_regularization=1.0, min_samples_leaf=5).fit(X, y)
    assert max_relative_difference(ours.predict(X), theirs.predict(X)) <= AGREEMENT
    assert np.abs(ours.predict(X) - free.predict(X)).max() > 0.01   # the constraint bites


@pytest.mark.slow
@pytest.mark.parametrize("parameters", [
    dict(),
    dict(max_iter=20, l2_regularization=2.0, max_depth=4, min_samples_leaf=7, max_bins=32),
    dict(max_iter=20, max_leaf_nodes=None, max_depth=5, learning_rate=0.5),
])
def test_constrained_regression_equals_scikit_learns_on_california(california, parameters):
    X, y = california
    ours, theirs = fit_both("regressor", X, y, monotonic_cst=CONSTRAINT, **parameters)
    assert max_relative_difference(ours.predict(X), theirs.predict(X)) <= AGREEMENT


@pytest.mark.slow
@pytest.mark.parametrize("parameters", [
    dict(max_iter=30),
    dict(max_iter=20, l2_regularization=1.0, min_samples_leaf=5, learning_rate=0.3,
         max_leaf_nodes=15),
])
def test_constrained_binary_log_loss_equals_scikit_learns_on_california(california,
                                                                         parameters):
    X, y = california
    labels = (y > np.median(y)).astype(int)
    ours, theirs = fit_both("classifier", X, labels, monotonic_cst=CONSTRAINT, **parameters)
    np.testing.assert_allclose(ours.decision_function(X), theirs.decision_function(X),
                               rtol=AGREEMENT, atol=1e-14)
    np.testing.assert_array_equal(ours.predict(X), theirs.predict(X))


@pytest.mark.slow
def test_constrained_binary_log_loss_equals_scikit_learns_on_a9a():
    data = load_libsvm("a9a")
    X, y = data.X_train[:8000], data.y_train[:8000]
    cst = np.zeros(X.shape[1], int)
    cst[:10:2], cst[1:10:2] = 1, -1
    ours, theirs = fit_both("classifier", X, y, max_iter=10, monotonic_cst=cst)
    np.testing.assert_allclose(ours.decision_function(X), theirs.decision_function(X),
                               rtol=AGREEMENT, atol=1e-14)


def grid_differences(model, X, feature, rows=40, points=25):
    """The differences of ``model``'s raw predictions along a grid of ``feature`` (its
    training range), one row of X at a time: (rows, points - 1)."""
    grid = np.linspace(X[:, feature].min(), X[:, feature].max(), points)
    base = X[np.linspace(0, len(X) - 1, rows).astype(int)]
    batch = np.repeat(base, points, axis=0)
    batch[:, feature] = np.tile(grid, rows)
    return np.diff(raw(model, batch).reshape(rows, points), axis=1)


@pytest.mark.parametrize("kind", ["regressor", "classifier"])
def test_fitted_functions_are_monotonic_along_constrained_features(california, kind):
    X, y = california[0][:3000], california[1][:3000]
    target = y if kind == "regressor" else (y > np.median(y)).astype(int)
    model = (HistGradientBoostingRegressor if kind == "regressor" else
             HistGradientBoostingClassifier)(monotonic_cst=CONSTRAINT, max_iter=15,
                                             min_samples_leaf=5, early_stopping=False)
    model.fit(X, target)
    for feature, sign in enumerate(CONSTRAINT):
        if sign:
            assert (sign * grid_differences(model, X, feature) >= 0).all(), feature


def brute_force_split(codes, g, h, limits, signs, rules):
    """scikit-learn's constrained split of one node by enumeration: the largest gain
    ``G v - G_L v_L - G_R v_R`` (clipped values) over the cuts that keep the rules and
    the order; returns ``{(feature, bin): gain}`` of the allowed cuts."""
    value, bounds = limits
    G, H, l2 = g.sum(), h.sum(), rules.l2_regularization
    gains = {}
    for j in range(codes.shape[1]):
        for b in range(int(codes[:, j].max())):
            left = codes[:, j] <= b
            GL, HL, nl = g[left].sum(), h[left].sum(), left.sum()
            if min(nl, len(g) - nl) < rules.min_samples_leaf or \
                    min(HL, H - HL) < rules.min_hessian_to_split:
                continue
            vl, vr = (float(newton_value(a, c, l2, bounds)) for a, c in ((GL, HL),
                                                                        (G - GL, H - HL)))
            if signs[j] * (vl - vr) > 0:
                continue
            gains[j, b] = G * value - GL * vl - (G - GL) * vr
    return gains


@settings(max_examples=150, deadline=None)
@given(st.integers(2, 14), st.integers(1, 3), st.integers(0, 2 ** 32 - 1),
       st.sampled_from([0.0, 1.0]), st.sampled_from([0.0, 1e6]), st.booleans())
def test_the_constrained_newton_split_is_the_brute_forces(n, f, seed, l2, offset, bounded):
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, rng.integers(1, 5), size=(n, f)).astype(np.uint8)
    codes[:, 0] = np.sort(codes[:, 0])             # (duplicates, constant features)
    g = np.round(rng.normal(size=n), 1) + offset * (rng.random() < 0.5)
    g = g - offset * (g > offset / 2)              # large offsets, then ties of values
    h = rng.choice([0.5, 1.0, 2.0], size=n)
    signs = tuple(int(s) for s in rng.integers(-1, 2, size=f))
    rules = BoostingRules(min_samples_leaf=1, l2_regularization=l2, monotonic_cst=signs)
    G, H = g.sum(), h.sum()
    value = float(newton_value(G, H, l2))
    lower, upper = (value - 0.3, value + 0.2) if bounded else (-np.inf, np.inf)
    value = min(max(value, lower), upper)
    data = BinnedData(codes, codes.max(axis=0).astype(int) + 1)
    sums = NodeSums([G], [H], [n], [np.abs(g).sum()], (np.abs(g) / h).max())
    sums.limits = [(G, H, value, lower, upper)]
    found = scan_splits(count_histograms(data, None, g, h), sums, data, rules)[0]
    gains = brute_force_split(codes, g, h, (value, (lower, upper)), signs, rules)
    tolerance = 1e-9 * (1 + np.abs(g).sum() ** 2 / h.min() + abs(G * value))
    best = max(gains.values(), default=-np.inf)
    if found is None:
        assert best <= tolerance
        return
    assert (found.feature, found.cut) in gains
    assert abs(found.gain - best) <= tolerance
    assert abs(gains[found.feature, found.cut] - best) <= tolerance


def test_newton_values_and_middle_are_scikit_learns():
    from sklearn.ensemble._hist_gradient_boosting.splitting import compute_node_value

    for G, H, l2, lower, upper in [(3.0, 2.0, 0.0, -np.inf, np.inf), (3.0, 2.0, 1.0, -1.2, 0.5),
                                   (-7.0, 0.25, 0.5, -1.0, 2.0), (0.1, 1e-3, 0.0, 0.0, 1.0)]:
        assert float(newton_value(G, H, l2, (lower, upper))) == compute_node_value(
            G, H, lower, upper, l2)
    assert newton_middle(1.0, 2.0) == 1.5


def test_constrained_gains_refuse_cuts_out_of_order():
    GL = np.array([[[-1.0, 1.0], [-1.0, 1.0]]])    # left values 1, -1 (H_L = 1)
    HL = np.ones((1, 2, 2))
    node = ([0.0], [0.0], [-np.inf], [np.inf])
    out = newton_scan_gains((GL, HL), (-GL, HL), node, (1, -1), 0.0)
    # increasing: the left value 1 above the right's -1 is refused; decreasing: the other;
    # the others gain 0 v - G_L v_L - G_R v_R in scikit-learn's arithmetic, to the bit
    v = 1 / (1 + 1e-15)
    np.testing.assert_array_equal(out, [[[-np.inf, 2 * v], [2 * v, -np.inf]]])


def test_the_first_best_cut_in_scikit_learns_scan_order_wins():
    # equal gains: the lower feature; in a feature, left to right (missing values right)
    # first, then right to left (missing values left): the highest such cut
    left_to_right = np.array([[[1.0, 3.0, 3.0], [3.0, 0.0, 0.0]]])
    right_to_left = np.array([[[0.0, 5.0, 5.0], [0.0, 0.0, 0.0]]])
    assert [a.tolist() for a in first_best_cuts(left_to_right)] == [[0], [1], [3.0]]
    assert [a.tolist() for a in first_best_cuts(left_to_right, right_to_left)] == \
        [[0], [5], [5.0]]


def test_all_zero_constraints_change_nothing(california):
    X, y = california[0][:2000], california[1][:2000]
    parameters = dict(max_iter=5, early_stopping=False)
    plain = HistGradientBoostingRegressor(**parameters).fit(X, y)
    zero = HistGradientBoostingRegressor(monotonic_cst=[0] * 8, **parameters).fit(X, y)
    np.testing.assert_array_equal(plain.predict(X), zero.predict(X))


def test_a_dict_names_the_features(california):
    pandas = pytest.importorskip("pandas")
    X, y = california[0][:2000], california[1][:2000]
    frame = pandas.DataFrame(X, columns=[f"x{j}" for j in range(8)])
    parameters = dict(max_iter=5, early_stopping=False)
    by_name = HistGradientBoostingRegressor(monotonic_cst={"x0": 1, "x5": -1},
                                            **parameters).fit(frame, y)
    by_place = HistGradientBoostingRegressor(monotonic_cst=[1, 0, 0, 0, 0, -1, 0, 0],
                                             **parameters).fit(X, y)
    np.testing.assert_array_equal(by_name.predict(frame), by_place.predict(X))
    with pytest.raises(ValueError, match="unknown: \\['nope'\\]"):
        HistGradientBoostingRegressor(monotonic_cst={"nope": 1}).fit(frame, y)
    with pytest.raises(ValueError, match="feature names"):
        HistGradientBoostingRegressor(monotonic_cst={"x0": 1}).fit(X, y)


@pytest.mark.parametrize("model, X, y, match", [
    (HistGradientBoostingRegressor(monotonic_cst=[1, 0]), [[0, 1, 2]] * 4, [1, 2, 3, 4],
     "monotonic_cst has shape"),
    (HistGradientBoostingRegressor(monotonic_cst=[2, 0, 0]), [[0, 1, 2]] * 4, [1, 2, 3, 4],
     "-1, 0 or 1"),
    (HistGradientBoostingRegressor(monotonic_cst=[1, 0, 0], categorical_features=[0]),
     [[0, 1, 2]] * 4, [1, 2, 3, 4], "categorical features \\[0\\]"),
    (HistGradientBoostingClassifier(monotonic_cst=[0, 0, 0]), [[0, 1, 2]] * 6,
     [0, 1, 2, 0, 1, 2], "multiclass classification \\(3 classes\\)"),
    (HistGradientBoostingRegressor(monotonic_cst=[1, 0, 0], histogram_sums="fixed_point"),
     [[0, 1, 2]] * 4, [1, 2, 3, 4], "monotonic_cst needs histogram_sums='float'"),
])
def test_bad_input_is_named(model, X, y, match):
    with pytest.raises(ValueError, match=match):
        model.fit(np.array(X, float), np.array(y))


def test_monotonic_signs_reads_both_forms():
    categorical = np.zeros(3, bool)
    assert monotonic_signs(None, categorical) is None
    assert monotonic_signs([0, 0, 0], categorical) is None
    assert monotonic_signs([1, 0, -1], categorical) == (1, 0, -1)
    assert monotonic_signs({"b": -1}, categorical, ["a", "b", "c"]) == (0, -1, 0)


def node_multiset(ours, theirs, iteration):
    """The (leaf?, feature, samples) of every node of the two trees of ``iteration``,
    sorted (treelib and scikit-learn number their nodes differently)."""
    tree, nodes = ours.trees_[iteration][0], theirs._predictors[iteration][0].nodes
    mine = sorted((bool(leaf), -1 if leaf else int(j), int(n))
                  for leaf, j, n in zip(tree.is_leaf, tree.feature, tree.n_node_samples))
    return mine, sorted((bool(leaf), -1 if leaf else int(j), int(n))
                        for leaf, j, n in zip(nodes["is_leaf"], nodes["feature_idx"],
                                              nodes["count"]))


def assert_same_fit(ours, theirs, X):
    """Bit-identical predictions, and the same nodes in every tree."""
    np.testing.assert_array_equal(ours.predict(X), theirs.predict(X))
    for iteration in range(theirs.n_iter_):
        mine, its = node_multiset(ours, theirs, iteration)
        assert mine == its, iteration


def test_ties_of_mirrored_cuts_are_scikit_learns_on_4000_california_rows(california):
    # At iteration 11 a node whose value sits at its lower bound can be cut by feature 6
    # or by feature 7 into the same two children; their gains, computed in two orders,
    # are one ulp apart, and scikit-learn keeps the larger (feature 7), not the lowest.
    X, y = california[0][:4000], california[1][:4000]
    ours, theirs = fit_both("regressor", X, y, max_iter=30, monotonic_cst=CONSTRAINT,
                            min_samples_leaf=5)
    assert_same_fit(ours, theirs, X)


def three_constrained_features(seed, missing=False, n=400):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 5))
    y = (X[:, 0] - 0.5 * X[:, 1] + np.sin(3 * X[:, 2]) + X[:, 3] * X[:, 4]
         + 0.3 * rng.normal(size=n))
    if missing:
        X[rng.random(X.shape) < 0.1] = np.nan
    return X, y


@pytest.mark.parametrize("seed, missing, max_iter", [(2, False, 4), (2, True, 5)])
def test_noise_gains_split_as_scikit_learns_do(seed, missing, max_iter):
    # Nodes at a bound whose cuts' children are both clipped to it gain rounding noise
    # (1e-16): scikit-learn splits them when the noise is above 0, and so does treelib.
    X, y = three_constrained_features(seed, missing)
    ours, theirs = fit_both("regressor", X, y, max_iter=max_iter, min_samples_leaf=5,
                            monotonic_cst=[1, -1, 1, 0, 0])
    assert_same_fit(ours, theirs, X)
    gains = np.concatenate([p[0].nodes["gain"][~p[0].nodes["is_leaf"].astype(bool)]
                            for p in theirs._predictors])
    assert (np.abs(gains) < 1e-12).any()            # such splits were made


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("missing", [False, True])
def test_three_constrained_features_equal_scikit_learns(seed, missing):
    X, y = three_constrained_features(seed, missing)
    ours, theirs = fit_both("regressor", X, y, max_iter=15 if missing else 30,
                            min_samples_leaf=5, monotonic_cst=[1, -1, 1, 0, 0])
    assert_same_fit(ours, theirs, X)
