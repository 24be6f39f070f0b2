"""Chapter 3 ("Three ways to search one node"): the teaching scorers against treelib's,
and the claims the text makes.

The three teaching scorers score one feature's cuts from its sorted targets: the naive
one from the definition, the scan and the cumsum scan from the running sum of the centred
targets (n S_L^2 / (n_L n_R)).  On integer targets every gain is a rational with
denominator n n_L n_R (at most 40 x 20 x 20 = 16,000), so two different gains differ by at
least 1/16,000, while the rounding of these computations (n <= 40, |y| <= 20) stays below
1e-8: an absolute tolerance of 1e-6 separates the two.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import claim, notebook_cells
from tests.reference import exact_gain
from treelib import best_split
from treelib.criteria import target_statistics
from treelib.datasets import load_california_housing
from treelib.finders.exact import SCORERS, candidate_cuts
from treelib.split import best_cut

PAGE = "03_three_searches.ipynb"
NS = notebook_cells(PAGE)
TEACHING = {name: NS[f"{name}_scores"] for name in ("naive", "scan", "cumsum")}
TOLERANCE = 1e-6


@st.composite
def node(draw):
    """A node with 1 to 3 features full of ties and small integer targets."""
    n = draw(st.integers(2, 40))
    f = draw(st.integers(1, 3))
    n_values = draw(st.integers(1, n))
    X = np.array(draw(st.lists(st.lists(st.integers(0, n_values - 1), min_size=f, max_size=f),
                               min_size=n, max_size=n)), dtype=float)
    y = np.array(draw(st.lists(st.integers(-20, 20), min_size=n, max_size=n)), dtype=float)
    return X, y, draw(st.integers(1, 3))


@settings(max_examples=200, deadline=None)
@given(node())
def test_teaching_scorers_give_treelibs_gains(data):
    X, y, min_samples_leaf = data
    order, _, valid = candidate_cuts(X, min_samples_leaf)
    Y = target_statistics(y, "squared_error")
    for name, scorer in TEACHING.items():
        reference, _ = SCORERS[name](Y, order, valid)
        for j in range(X.shape[1]):
            ours = scorer(y[order[:, j]], valid[:, j])
            np.testing.assert_array_equal(np.isinf(ours), ~valid[:, j])
            for i in np.flatnonzero(valid[:, j]):
                goes_left = np.zeros(len(y), dtype=bool)
                goes_left[order[: i + 1, j]] = True
                exact = float(exact_gain(y, goes_left, "squared_error"))
                assert abs(ours[i] - exact) <= TOLERANCE
                assert abs(reference[i, j] - exact) <= TOLERANCE


def test_worked_example():
    claim(PAGE, "The three gain columns agree; the skeleton above turns each into the same cut, "
          "and so does treelib's `best_split`, given each splitter in turn")
    claim(PAGE, "All six send $x \\le 2.75$ left, the midpoint between 2.5 and 3, with a gain "
          "of 24.")
    x = np.array([4.0, 2.5, 1.0, 5.5, 2.5, 3.0])
    y = np.array([6.0, 3.0, 1.0, 7.0, 2.0, 5.0])
    order, _, valid = candidate_cuts(x[:, None])
    assert order[:, 0].tolist() == [2, 1, 4, 5, 0, 3]
    for scorer in TEACHING.values():
        gains = scorer(y[order[:, 0]], valid[:, 0])
        np.testing.assert_allclose(gains, [10.8, -np.inf, 24.0, 18.75, 10.8], atol=TOLERANCE)
    for scorer in TEACHING.values():
        feature, threshold, gain = NS["exact_search"](x[:, None], y, scorer)
        assert (feature, threshold) == (0, 2.75) and gain == pytest.approx(24.0)
    for splitter in SCORERS:
        split = best_split(x[:, None], y, splitter)
        assert (split.threshold, split.n_left) == (2.75, 3)
        assert split.gain == pytest.approx(24.0)
    # exercises 2 and 3
    assert candidate_cuts(x[:, None], 2)[2][:, 0].tolist() == [False, False, True, True, False]
    assert best_split(x[:, None], y, min_samples_leaf=2).threshold == 2.75
    mirrored = best_split(-x[:, None], y)
    assert (mirrored.threshold, mirrored.gain) == (-2.75, pytest.approx(24.0))
    assert np.flatnonzero(mirrored.goes_left(-x[:, None])).tolist() == [0, 3, 5]


def test_the_tie_rule_chooses_the_first_of_two_equal_cuts():
    """Mirrored targets: the cuts after the first and the fifth sample have equal gains;
    every splitter returns the first."""
    claim(PAGE, "Computed the naive way, the two gains differ in their last bits and a plain "
          "`argmax` takes the fifth cut; computed from running sums they are equal and it takes "
          "the first.")
    claim(PAGE, "All three scorers then take the first cut, and `best_split` returns the same "
          "threshold whichever splitter it is given.")
    x = np.arange(6.0)
    y = np.array([1.0, 0.7, 0.5, 0.5, 0.7, 1.0])
    assert exact_gain(y, x <= 0.5, "squared_error") == exact_gain(y, x <= 4.5,
                                                                  "squared_error")
    for splitter in SCORERS:
        assert best_split(x[:, None], y, splitter).threshold == 0.5
    order, _, valid = candidate_cuts(x[:, None])
    for splitter, scorer in SCORERS.items():
        gains, bounds = scorer(y[:, None], order, valid)
        g = gains[:, 0]
        assert (g[0] == g[4]) == (splitter != "naive")
        assert np.argmax(g) == (4 if splitter == "naive" else 0)
        assert abs(g[0] - g[4]) <= bounds[0, 0] + bounds[4, 0]
        assert best_cut(gains, bounds) == (0, 0)


@pytest.fixture(scope="module")
def housing():
    data = load_california_housing()
    return data.data, data.target, data.feature_names


def test_the_scan_figure(housing):
    """The node of 40 block groups: the best cut (after 34 samples) is not where S_L is
    lowest (after 18), because of the weight n / (n_L n_R)."""
    claim(PAGE, "The poorer block groups come first, and most of them are cheaper than the node's "
          "average, so their centred targets are negative and $S_L$ falls, to its lowest, "
          "$-10.2$, after 18 samples. The last six samples are all more expensive than the "
          "average")
    claim(PAGE, "A cut's gain is $S_L^2$ times $n/(n_L n_R)$, a weight that is smallest for a cut "
          "in the middle and grows toward the ends")
    claim(PAGE, "after 34 samples $S_L$ is still $-9.29$, and cutting off the six richest block "
          "groups gains 16.9, against 10.6 at the lowest point.")
    claim(PAGE, "a cut's gain is $S_L^2$ weighted by $n/(n_L n_R)$, a weight smallest in the "
          "middle of the node and largest near its ends")
    X, y, _ = housing
    rows = np.random.default_rng(3).choice(len(y), size=40, replace=False)
    x_node, y_node = X[rows, 0], y[rows]
    order = np.argsort(x_node, kind="stable")
    sorted_y = y_node[order]
    valid = np.diff(x_node[order]) > 0
    gains = TEACHING["cumsum"](sorted_y, valid)
    s_left = np.cumsum(sorted_y - sorted_y.mean())[:-1]
    assert valid.all()
    assert (np.argmax(gains) + 1, np.argmin(s_left) + 1) == (34, 18)
    assert round(s_left[17], 1) == -10.2 and round(s_left[33], 2) == -9.29
    assert (round(gains[33], 1), round(gains[17], 1)) == (16.9, 10.6)
    assert np.mean(sorted_y[:18] < y_node.mean()) > 0.5      # most of the poorer, cheaper
    assert np.all(y_node[order[34:]] > y_node.mean())        # the six richest, all above
    n_left = np.arange(1, 40)
    weight = 40 / (n_left * (40 - n_left))
    assert np.argmin(weight) == 19 and weight[0] == weight[-1] == weight.max()
    assert np.all(np.diff(weight[:20]) < 0) and np.all(np.diff(weight[19:]) > 0)


def test_three_splitters_same_split_on_a_real_node(housing):
    claim(PAGE, "The three searches choose the same cut, MedInc $\\le$ 5.0319, and report the "
          "same gain to six digits.")
    X, y, names = housing
    rows = np.random.default_rng(0).choice(len(y), size=2000, replace=False)
    splits = {s: best_split(X[rows], y[rows], s) for s in SCORERS}
    keys = {(s.feature, s.threshold, s.n_left) for s in splits.values()}
    assert len(keys) == 1
    assert len({f"{s.gain:.6g}" for s in splits.values()}) == 1
    feature, threshold, _ = keys.pop()
    assert names[feature] == "MedInc" and threshold == pytest.approx(5.0319)
    # check yourself 3: the best cut is ahead of the runner-up by far more than rounding
    claim(PAGE, "They choose the same cut because the best cut is ahead of the others by far "
          "more than rounding")
    order, _, valid = candidate_cuts(X[rows])
    for scorer in SCORERS.values():
        gains, bounds = scorer(target_statistics(y[rows], "squared_error"), order, valid)
        i, j = np.unravel_index(np.argmax(gains), gains.shape)
        runner_up = np.sort(gains[np.isfinite(gains)])[-2]
        assert gains[i, j] - runner_up > 1e6 * bounds[i, j]


@settings(max_examples=200, deadline=None)
@given(node())
def test_every_splitter_breaks_an_exact_tie_the_same_way(data):
    """On integer targets two different gains differ by at least 1/16,000, far more than
    rounding: no cut comes within rounding of the best without equalling it, so every
    splitter chooses the lowest feature, then the lowest threshold, among the cuts of the
    largest exact gain."""
    claim(PAGE, "so the searches break an exact tie, like the mirrored one, the same way. They "
          "can still part only where another cut's gain comes within rounding of the best "
          "without equalling it.")
    X, y, min_samples_leaf = data
    order, x_sorted, valid = candidate_cuts(X, min_samples_leaf)
    exact = {}
    for j in range(X.shape[1]):                         # feature-major: the tie rule's order
        for i in np.flatnonzero(valid[:, j]):
            goes_left = np.zeros(len(y), dtype=bool)
            goes_left[order[: i + 1, j]] = True
            exact[(j, i)] = exact_gain(y, goes_left, "squared_error")
    if not exact:
        return
    best = max(exact.values())
    j, i = next(key for key, gain in exact.items() if gain == best)
    for splitter in SCORERS:
        split = best_split(X, y, splitter, min_samples_leaf=min_samples_leaf)
        assert (split.feature, split.n_left) == (j, i + 1), splitter


@settings(max_examples=60, deadline=None)
@given(node())
def test_the_skeleton_finds_treelibs_split_when_the_best_cut_is_unique(data):
    """The ten-line skeleton (``exact_search``) with the cumsum scorer against
    ``best_split``: the same feature, threshold and gain whenever one cut's gain is the
    largest by more than the tolerance (ties are the tie rule's business)."""
    X, y, _ = data
    gains = []
    for j in range(X.shape[1]):
        order, _, valid = candidate_cuts(X[:, j:j + 1])
        gains.extend(g for g in TEACHING["cumsum"](y[order[:, 0]], valid[:, 0]) if g > -np.inf)
    gains = sorted(gains)
    if not gains or (len(gains) > 1 and gains[-1] - gains[-2] <= TOLERANCE):
        return
    feature, threshold, gain = NS["exact_search"](X, y, TEACHING["cumsum"])
    split = best_split(X, y, "cumsum")
    assert (feature, threshold) == (split.feature, split.threshold)
    assert abs(gain - split.gain) <= TOLERANCE


def test_check_yourself_moving_a_tied_sample():
    """Check yourself, question 1: the second sample at 2.5 moved a little to the right
    (2.6) opens a candidate cut after two samples, gaining 12; the cut after three samples
    (24) stays the best, its threshold now halfway between 2.6 and 3."""
    claim(PAGE, "cut, scored from $S_L = -4$ with two samples left: "
          "$6 \\times 16 / (2 \\times 4) = 12$. That is less than the 24 of the cut after "
          "three samples, so that cut stays the best")
    x = np.array([4.0, 2.5, 1.0, 5.5, 2.6, 3.0])
    y = np.array([6.0, 3.0, 1.0, 7.0, 2.0, 5.0])
    order, _, valid = candidate_cuts(x[:, None])
    assert valid[:, 0].all()
    for scorer in TEACHING.values():
        gains = scorer(y[order[:, 0]], valid[:, 0])
        np.testing.assert_allclose(gains, [10.8, 12.0, 24.0, 18.75, 10.8], atol=TOLERANCE)
    split = best_split(x[:, None], y)
    assert split.n_left == 3 and split.threshold == pytest.approx(2.8)
