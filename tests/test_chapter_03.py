"""Chapter 3 ("Three ways to search one node"): the seed article's code, as the chapter
transcribes it, really has the bugs the chapter shows, and is right where the chapter
says it is.  The transcriptions are loaded from the notebook's cells tagged "teaching"."""

import warnings

import numpy as np
import pytest
from conftest import notebook_cells
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from treelib import DecisionTreeRegressor
from treelib.bench import fit_exponent
from treelib.criteria import split_gain, sum_squared_error
from treelib.datasets import FEATURE_NAMES, load_california_housing, load_seed_timings
from treelib.splits import best_split, threshold_gains

NS = notebook_cells("03_three_searches.ipynb")
seed_baseline_split = NS["seed_baseline_split"]
seed_score_repaired = NS["seed_score_repaired"]
seed_fast_split = NS["seed_fast_split"]


@pytest.fixture(scope="module")
def housing():
    return load_california_housing(return_X_y=True)


def run_seed_baseline(X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # np.var of an empty slice
        return seed_baseline_split(X, y)


def claimed_gain(score, y):
    """The seed's score is S_L^2/n_L + S_R^2/n_R; minus S^2/n it is a gain."""
    return score - np.sum(y) ** 2 / len(y)


def cut_is_between_equal_values(x, n_left):
    values = np.sort(x)
    return values[n_left - 1] == values[n_left]


# (a) the baseline's choice does not depend on the target


@settings(max_examples=50, deadline=None)
@given(X=hnp.arrays(np.float64, st.tuples(st.integers(3, 12), st.integers(1, 3)),
                    elements=st.floats(-100, 100, allow_nan=False)),
       seed=st.integers(0, 2**32 - 1))
def test_seed_baseline_ignores_the_target(X, seed):
    rng = np.random.default_rng(seed)
    y1, y2 = rng.normal(size=len(X)), 1e3 * rng.normal(size=len(X))
    a, b = run_seed_baseline(X, y1), run_seed_baseline(X, y2)
    assert a[:2] == b[:2]
    assert a[2] == b[2] or (np.isnan(a[2]) and np.isnan(b[2]))


def test_seed_baseline_picks_population_whatever_the_target(housing):
    X, y = housing
    sub = np.random.default_rng(0).choice(len(y), 1000, replace=False)
    choices = {run_seed_baseline(X[sub], target)[:2]
               for target in (y[sub], np.random.default_rng(1).permutation(y[sub]),
                              np.zeros(1000))}
    assert len(choices) == 1
    (feature, _), = choices
    assert FEATURE_NAMES[feature] == "Population"
    assert best_split(X[sub], y[sub]).feature != feature


# (b) slicing by row number is not slicing by rank


def test_seed_slices_are_never_the_left_child(housing):
    X, y = housing
    sub = np.random.default_rng(0).choice(len(y), 1000, replace=False)
    x = X[sub, FEATURE_NAMES.index("MedInc")]
    ind = np.argsort(x, kind="stable")
    assert len(np.arange(ind[499])) != 500
    assert not any(set(range(ind[k])) == set(ind[: k + 1]) for k in range(len(ind) - 1))


# (c) the unweighted score prefers to peel off one sample


def test_unweighted_score_peels_off_one_sample_where_squared_error_does_not():
    x, y = np.arange(1.0, 10.0), np.array([0.0, 2, 0, 2, 4, 6, 4, 6, 10])
    score = seed_score_repaired(x, y)
    _, gains = threshold_gains(x, y)
    assert np.argmin(score) + 1 == 8  # n_L = 8: the right child is the single y = 10
    assert np.argmax(gains) + 1 == 4  # n_L = 4: between the two groups


@settings(max_examples=50, deadline=None)
@given(y=hnp.arrays(np.float64, st.integers(2, 15), elements=st.floats(-50, 50)))
def test_repaired_score_is_the_unweighted_sum_of_child_variances(y):
    x = np.arange(len(y), dtype=float)
    expected = [np.var(y[: j + 1]) + np.var(y[j + 1:]) - np.var(y) for j in range(len(y) - 1)]
    np.testing.assert_allclose(seed_score_repaired(x, y), expected, atol=1e-9)


# (d) the fast scan is right without ties, wrong with them


@settings(max_examples=100, deadline=None)
@given(X=hnp.arrays(np.float64, st.tuples(st.integers(2, 20), st.integers(1, 3)),
                    elements=st.integers(-10**6, 10**6).map(float), unique=True),
       seed=st.integers(0, 2**32 - 1))
def test_seed_fast_scan_finds_the_best_gain_when_values_are_distinct(X, seed):
    y = np.random.default_rng(seed).normal(size=len(X))
    _, _, score, left_ind, _ = seed_fast_split(X, y)
    ours = best_split(X, y)
    scale = sum_squared_error(y)
    assert claimed_gain(score, y) == pytest.approx(ours.gain, rel=1e-9, abs=1e-9 * scale)
    goes_left = np.zeros(len(y), dtype=bool)
    goes_left[left_ind] = True
    assert split_gain(y, goes_left) == pytest.approx(ours.gain, rel=1e-9, abs=1e-9 * scale)


def test_seed_fast_scan_cuts_inside_the_run_of_age_52(housing):
    X, y = housing
    X_age = X[:, [FEATURE_NAMES.index("HouseAge")]]
    _, threshold, score, left_ind, right_ind = seed_fast_split(X_age, y)
    ours = best_split(X_age, y)
    assert threshold == 52
    assert cut_is_between_equal_values(X_age[:, 0], len(left_ind))
    assert claimed_gain(score, y) > ours.gain + 100  # 850.05 against 637.80
    assert (X_age[:, 0] <= threshold).all()  # at prediction "<=" does not split at all
    assert (X_age[:, 0] < threshold).sum() == ours.n_left  # and "<" is treelib's split


def test_seed_fast_scan_cuts_between_equal_values_whatever_their_order(housing):
    # the chapter's shuffles: the error does not come from the file's order of ties
    X, y = housing
    X_age = X[:, [FEATURE_NAMES.index("HouseAge")]]
    inside = 0
    for s in range(20):
        rows = np.random.default_rng([3, s]).permutation(len(y))
        _, _, score, left_ind, _ = seed_fast_split(X_age[rows], y[rows])
        if cut_is_between_equal_values(X_age[rows, 0], len(left_ind)):
            inside += 1
            assert claimed_gain(score, y[rows]) > best_split(X_age, y).gain
    assert inside >= 15


def test_seed_fast_scan_cuts_between_equal_values_in_a_real_tree(housing):
    X, y = housing
    leaf = DecisionTreeRegressor(max_depth=3).fit(X, y).apply(X)
    for s in range(3):
        rng = np.random.default_rng([3, s])
        inside = 0
        for node in np.unique(leaf):
            m = rng.permutation(np.flatnonzero(leaf == node))
            f, _, score, left_ind, _ = seed_fast_split(X[m], y[m])
            if cut_is_between_equal_values(X[m, f], len(left_ind)):
                inside += 1
                assert claimed_gain(score, y[m]) > best_split(X[m], y[m]).gain
        assert inside >= 3


# (e) the seed's own timings: a speed-up of about 55, growing far slower than n


def test_seed_timings_show_a_speedup_far_below_n():
    seed = load_seed_timings().set_index("n_samples")
    ratio = seed.baseline_seconds / seed.fast_seconds
    assert 50 < ratio.loc[20000] < 60
    assert fit_exponent(seed.index.to_numpy(), ratio) < 0.5
    assert fit_exponent(seed.index.to_numpy(), seed.baseline_seconds) < 1.5
