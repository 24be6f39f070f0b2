"""The level-wise partition by a gather (``gather_plan``, ``gather_rows``) against the
scatter (``partition_plan``, ``partition_rows``) and the stable partition written out
node by node: the same rows, for any split of the nodes and any children kept."""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from treelib.growth.level_partition import (
    gather_plan,
    gather_rows,
    partition_plan,
    partition_rows,
)


@st.composite
def levels(draw):
    """Node sizes, left counts, children kept, and rows (c, p) whose node s sends
    ``n_left[s]`` samples left, anywhere in the node (each row its own choice)."""
    counts = np.array(draw(st.lists(st.integers(1, 7), min_size=1, max_size=6)))
    n_left = np.array([draw(st.integers(0, c)) for c in counts])
    m = len(counts)
    keep_left = np.array(draw(st.lists(st.booleans(), min_size=m, max_size=m)))
    keep_right = np.array(draw(st.lists(st.booleans(), min_size=m, max_size=m)))
    c, p = draw(st.integers(1, 4)), int(counts.sum())
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    rows = rng.permutation(np.tile(np.arange(p), (c, 1)), axis=1).astype(np.int32)
    starts = np.cumsum(counts) - counts
    goes_left = np.zeros((c, p), dtype=bool)
    for r in range(c):
        for s in range(m):
            left = rng.choice(counts[s], n_left[s], replace=False)
            goes_left[r, starts[s] + left] = True
    return counts, n_left, (keep_left, keep_right), rows, goes_left


@given(levels())
def test_gather_moves_rows_as_the_scatter_does(level):
    counts, n_left, (keep_left, keep_right), rows, goes_left = level
    plan = partition_plan(counts, n_left, keep_left, keep_right)
    scattered = np.empty((len(rows), plan[2]), dtype=rows.dtype)
    partition_rows(plan, goes_left, [(rows, scattered)])
    values = rows * 0.5                            # a second array, moved alike
    gathered = rows.copy()
    source, n_lefts = gather_plan(counts, n_left, keep_left, keep_right)
    assert len(source) == plan[2] and n_lefts == n_left.sum()
    moved_values = np.empty((len(rows), len(source)))
    gather_rows((source, n_lefts), goes_left,
                [(gathered, gathered[:, :len(source)]), (values, moved_values)])
    np.testing.assert_array_equal(gathered[:, :len(source)], scattered)
    np.testing.assert_array_equal(moved_values, scattered * 0.5)
    ends = np.cumsum(counts)                        # node by node: left, then right
    for r in range(len(rows)):
        expected = []
        for s in range(len(counts)):
            node, left = (a[r, ends[s] - counts[s]:ends[s]] for a in (rows, goes_left))
            expected += list(node[left]) * bool(keep_left[s])
            expected += list(node[~left]) * bool(keep_right[s])
        np.testing.assert_array_equal(scattered[r], expected)


def test_gather_of_a_level_whose_children_are_all_dropped_is_empty():
    source, n_lefts = gather_plan(np.array([3, 2]), np.array([1, 2]), [False, False],
                                  [False, False])
    rows = np.arange(5)[None]
    out = np.empty((1, 0), dtype=rows.dtype)
    gather_rows((source, n_lefts), np.array([[True, False, False, True, True]]),
                [(rows, out)])
    assert len(source) == 0 and n_lefts == 3
