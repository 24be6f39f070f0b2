"""Level-wise scoring with whole sample weights: the left weights from one plain running
sum (``whole_left_weights``) are the segmented running sums bit for bit, and trees grown
with bootstrap counts equal the depth-first trees."""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from treelib.finders import Finder
from treelib.growth import StoppingRules, grow
from treelib.growth.level_scores import whole_left_weights, whole_weights
from treelib.segments import segment_ids, segment_starts, segmented_cumsum


@given(st.data())
def test_whole_left_weights_are_the_segmented_running_sums(data):
    counts = np.array(data.draw(st.lists(st.integers(1, 9), min_size=1, max_size=6)))
    c, p = data.draw(st.integers(1, 4)), int(counts.sum())
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    scale = data.draw(st.sampled_from([1, 3, 2**40]))
    weights = rng.integers(1, 6, size=p + 3).astype(np.float64) * scale
    assert whole_weights(weights)
    samples = np.stack([rng.permutation(p + 3)[:p] for _ in range(c)]).astype(np.int32)
    row, position = np.divmod(np.arange(c * p), p)              # every position a cut
    start = segment_starts(counts)[segment_ids(counts)][position]
    got = whole_left_weights(weights.astype(np.int64), samples, (row, position, start))
    expected = segmented_cumsum(np.take(weights, samples.T), counts)[position, row]
    np.testing.assert_array_equal(got, expected)


def test_weights_that_are_not_whole_numbers_are_not_whole():
    assert not whole_weights(np.array([1.0, 2.5]))
    assert not whole_weights(np.array([2.0**52, 2.0**52]))
    assert not whole_weights(None)


@given(st.integers(0, 2**32 - 1), st.integers(5, 60))
def test_bootstrap_weighted_regression_trees_equal_depth_first_trees(seed, n):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 4, size=(n, 3)).astype(np.float64)
    y = rng.normal(size=(n, 1)) * 1e3 + 1e6
    w = np.bincount(rng.integers(0, n, n), minlength=n).astype(np.float64)
    w[w == 0] = 1.0                                    # positive: both growers keep all
    trees = [grow(builder, X, y, Finder("cumsum", "squared_error"), StoppingRules(),
                  weights=w) for builder in ("level_wise", "depth_first")]
    level, depth = (t.to_arrays() if hasattr(t, "to_arrays") else t for t in trees)
    assert level.node_count == depth.node_count
    assert np.array_equal(np.sort(level.threshold), np.sort(depth.threshold))
    assert np.array_equal(np.sort(level.value.ravel()), np.sort(depth.value.ravel()))
