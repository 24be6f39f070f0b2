"""Chapter 6 ("Level-wise growth"): the chapter's zero-padded running sums and its stable
partition equal treelib's, bit for bit, and its claims about the counters, the segmented
layout, the rounding residue and the committed benchmark hold.

The teaching cells (tag "teaching": ``padded_cumsum`` and exercise 1's
``stable_partition``) are loaded from the notebook."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from tests.conftest import claim, notebook_cells
from tests.reference import assert_same_tree
from treelib.bench import load_results
from treelib.counters import GrowthCounter
from treelib.criteria import centered, target_statistics
from treelib.datasets import load_california_housing
from treelib.finders import Finder
from treelib.growth import StoppingRules, grow
from treelib.growth.level_partition import partition, partition_plan
from treelib.segments import FEW_SEGMENTS, segmented_cumsum

PAGE = "06_level_wise_growth.ipynb"
TEACHING = notebook_cells(PAGE)
padded_cumsum = TEACHING["padded_cumsum"]
stable_partition = TEACHING["stable_partition"]
FINDER = Finder("cumsum", "squared_error")


@st.composite
def segments(draw, columns=False):
    counts = draw(st.lists(st.integers(1, 20), min_size=1, max_size=12))
    shape = (sum(counts), draw(st.integers(1, 3))) if columns else sum(counts)
    values = draw(hnp.arrays(np.float64, shape, elements=st.floats(
        -1e12, 1e12, allow_nan=False, allow_subnormal=False)))
    return values, np.array(counts)


# --- the teaching cells -------------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(data=st.one_of(segments(), segments(columns=True)))
def test_padded_cumsum_is_segmented_cumsum_bit_for_bit(data):
    values, counts = data
    np.testing.assert_array_equal(padded_cumsum(values, counts),
                                  segmented_cumsum(values, counts))
    # and both are each segment's own np.cumsum
    bounds = np.r_[0, np.cumsum(counts)]
    np.testing.assert_array_equal(
        padded_cumsum(values, counts),
        np.concatenate([np.cumsum(values[a:b], axis=0) for a, b in zip(bounds, bounds[1:])]))


@settings(max_examples=300, deadline=None)
@given(counts=st.lists(st.integers(1, 15), min_size=1, max_size=8), data=st.data())
def test_stable_partition_is_treelibs_partition(counts, data):
    counts = np.array(counts)
    n = int(counts.sum())
    row = data.draw(st.permutations(range(n)))
    goes_left = data.draw(hnp.arrays(bool, n))
    n_left = np.add.reduceat(goes_left.astype(int), np.r_[0, np.cumsum(counts)[:-1]])
    keep = np.ones(len(counts), dtype=bool)
    plan = partition_plan(counts, n_left, keep, keep)
    np.testing.assert_array_equal(stable_partition(np.array(row), goes_left, counts),
                                  partition(plan, goes_left, [np.array(row)])[0])


# --- the chapter's claims -----------------------------------------------------------


@pytest.fixture(scope="module")
def housing():
    X, y = load_california_housing(return_X_y=True)
    return X.astype(np.float32).astype(np.float64), target_statistics(y, "squared_error")


def test_both_orders_search_the_same_nodes_of_the_subsample(housing):
    claim(PAGE, "Both grow a tree of 3,865 nodes and search the same 1,932 of them, the same "
          "number at every depth")
    X, Y = housing
    rows = np.random.default_rng(0).choice(len(Y), size=2000, replace=False)
    counters = {b: GrowthCounter() for b in ["depth_first", "level_wise"]}
    trees = {b: grow(b, X[rows], Y[rows], FINDER, StoppingRules(), counter=c)
             for b, c in counters.items()}
    assert_same_tree(trees["depth_first"], trees["level_wise"])
    assert trees["level_wise"].node_count == 3865
    for counter in counters.values():
        assert counter.searches == 1932 and counter.levels == 27
    assert counters["depth_first"].nodes_per_depth == counters["level_wise"].nodes_per_depth
    assert (counters["depth_first"].samples_per_depth
            == counters["level_wise"].samples_per_depth)


def test_the_full_depth_tree_takes_40_passes(housing):
    claim(PAGE, "The first levels handle every sample; from depth 18 on, fewer than half are "
          "still being split. Over all 40 passes the grower handles 18.7 $n$ samples")
    claim(PAGE, "The full-depth counter above searched 1, 2, 4, ..., 64 nodes at depths 0 to 6 "
          "and all 20,640 samples at each of those depths")
    X, Y = housing
    counter = GrowthCounter()
    tree = grow("level_wise", X, Y, FINDER, StoppingRules(), counter=counter)
    assert (tree.node_count, tree.max_depth) == (39461, 40)
    assert counter.searches == 19730 and counter.levels == 40
    samples = np.array(counter.samples_per_depth)
    assert int(np.argmax(samples < len(Y) / 2)) == 18
    assert round(samples.sum() / len(Y), 1) == 18.7
    assert counter.nodes_per_depth[:7] == [1, 2, 4, 8, 16, 32, 64]
    assert counter.samples_per_depth[:7] == [len(Y)] * 7
    assert counter.peak_bytes == X.shape[1] * len(Y) * (4 + 8)
    # exercise 3
    shallow = GrowthCounter()
    grow("level_wise", X, Y, FINDER, StoppingRules(max_depth=5), counter=shallow)
    assert shallow.nodes_per_depth == [1, 2, 4, 8, 16]
    assert shallow.samples_per_depth == [len(Y)] * 5


def test_stable_partitions_keep_every_segment_sorted():
    """The figure's claim, on random data: the rows built by repeated partitions are
    sorted inside every node, at every level, for every feature."""
    rng = np.random.default_rng(0)
    X = rng.integers(0, 30, size=(200, 3)).astype(np.float64)
    y = X[:, 0] + rng.normal(size=200)
    tree = grow("level_wise", X, target_statistics(y, "squared_error"), FINDER,
                StoppingRules(max_depth=4))
    for j in range(3):
        row, counts, nodes = np.argsort(X[:, j], kind="stable"), np.array([200]), [0]
        for _ in range(4):
            splits = tree.children_left[nodes] != -1
            if not splits.all():           # a leaf above the last level: stop there
                break
            node = np.repeat(nodes, counts)
            goes_left = X[row, tree.feature[node]] <= tree.threshold[node]
            n_left = np.add.reduceat(goes_left.astype(int), np.r_[0, np.cumsum(counts)[:-1]])
            row, = partition(partition_plan(counts, n_left, splits, splits), goes_left, [row])
            counts = np.column_stack([n_left, counts - n_left]).ravel()
            nodes = np.column_stack([tree.children_left[nodes],
                                     tree.children_right[nodes]]).ravel()
            np.testing.assert_array_equal(counts, tree.n_node_samples[nodes])
            for part in np.split(row, np.cumsum(counts)[:-1]):
                assert (np.diff(X[part, j]) >= 0).all()


def test_segmented_cumsum_sums_small_groups_slice_by_slice():
    claim(PAGE, "sums a group of only a few nodes (eight or fewer) slice by slice")
    assert FEW_SEGMENTS == 8


def test_a_node_near_1e12_swamps_a_later_node_near_1e_minus_10():
    claim(PAGE, "The residue is over a million times node B's sums, and node B's sums cut out of "
          "the long cumulative sum are wrong in their tenth significant digit or earlier")
    claim(PAGE, "so the error should shrink by roughly $10^{12} / 10^4 = 10^8$.")
    y_A = 1e12 * np.array([1.3, 1.9, 1.1, 1.7, 1.45, 1.05])
    y_B = 1e-10 * np.array([1.2, 1.6, 1.1, 1.9, 1.4])
    counts = np.array([6, 5])
    running = np.cumsum(np.r_[y_A, y_B])
    assert (running[6:] - running[5] == 0).all()                 # raw targets: all lost
    stats = np.r_[centered(y_A), centered(y_B)]
    running = np.cumsum(stats)
    own = np.cumsum(centered(y_B))
    cut_out = running[6:] - running[5]
    assert running[5] != 0 and abs(running[5]) / np.abs(own).max() > 1e6
    assert np.abs(cut_out - own).max() / np.abs(own).max() > 1e-10
    np.testing.assert_array_equal(segmented_cumsum(stats, counts)[6:], own)
    # exercise 4: a larger node A, near 1e12 and near 1e4
    draws = np.random.default_rng(4).uniform(1, 2, 1000)
    errors = []
    for scale in [1e12, 1e4]:
        run = np.cumsum(np.r_[centered(scale * draws), centered(y_B)])
        cut = run[1000:] - run[999]
        assert not np.array_equal(cut, own)
        errors.append(np.abs(cut - own).max() / np.abs(own).max())
    assert errors[0] / errors[1] > 1e5
    assert 1e7 < errors[0] / errors[1] < 1e9            # the predicted 1e8, within ten


def test_the_committed_growth_benchmark_has_what_the_chapter_reads():
    claim(PAGE, "The same tree took the depth-first grower about 43 times as long as the "
          "level-wise grower")
    fits, _ = load_results("growth")
    orders = {"recursive", "depth_first", "best_first", "level_wise", "sklearn"}
    assert orders <= set(fits.method[fits.case == "california_full_depth"])
    # every treelib growth order grows the same tree
    treelib_fits = fits[fits.method.isin(orders - {"sklearn"})]
    assert treelib_fits.groupby("case").n_leaves.nunique().eq(1).all()
    seconds = fits[fits.case == "california_full_depth"].groupby("method").seconds.mean()
    assert round(seconds["depth_first"] / seconds["level_wise"]) == 43


def test_the_animated_map_tree_takes_one_pass_per_level(housing):
    claim(PAGE, "The number of passes is the depth, 4, however many nodes a level holds: the "
          "last pass scores the cuts of the 6 nodes of depth 3 that can be split, all together; "
          "the other 2 were leaves from the start.")
    claim(PAGE, "a depth limit of 4 and at least 20 block groups per leaf")
    claim(PAGE, "a node too small to leave 20 block groups on each side stays a leaf (grey)")
    X, _ = housing
    _, y = load_california_housing(return_X_y=True)
    pick = np.random.default_rng(1).choice(len(y), size=1500, replace=False)
    counter = GrowthCounter()
    tree = grow("level_wise", X[pick][:, [7, 6]],
                target_statistics(y[pick], "squared_error"),
                Finder("cumsum", "squared_error", min_samples_leaf=20),
                StoppingRules(max_depth=4), counter=counter)
    assert tree.max_depth == 4 and counter.levels == 4
    assert (tree.node_count, tree.n_leaves) == (27, 14)
    assert tree.n_node_samples[tree.is_leaf].min() >= 20
    # every level's nodes searched in its pass, but at depth 3 two are too small to split
    depths = tree.node_depth()
    assert np.bincount(depths)[:4].tolist() == [1, 2, 4, 8]
    assert counter.nodes_per_depth == [1, 2, 4, 6]
    small = (depths == 3) & (tree.n_node_samples < 2 * 20)
    assert small.sum() == 2 and tree.is_leaf[small].all()
    # the searched nodes are the split ones: each got the dashed best cut of the animation
    assert [int((~tree.is_leaf[depths == d]).sum()) for d in range(4)] == [1, 2, 4, 6]
