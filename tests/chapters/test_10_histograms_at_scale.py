"""Chapter 10 ("Histograms at scale"): the counts the chapter reads from
``treelib.counters.GrowthCounter`` and the claims it makes about the subtraction trick and
treelib's histogram grower hold.  No test looks at seconds: the chapter prints timings
beside the committed benchmarks and never claims who wins."""

import numpy as np
import pytest

from tests.reference import assert_same_tree
from treelib.bench import california_split, load_results
from treelib.binning import bin_features
from treelib.counters import GrowthCounter
from treelib.criteria import centered
from treelib.finders import Finder
from treelib.finders.histogram import node_histograms
from treelib.growth import StoppingRules, grow


def hist_tree(X, Y, max_depth=None, subtract=True, max_bins=255):
    finder = Finder("hist", "squared_error", max_bins=max_bins, subtract=subtract)
    codes, counter = finder.prepare(X), GrowthCounter()
    tree = grow("level_wise", codes, Y, finder, StoppingRules(max_depth=max_depth), counter)
    return tree, counter


def node_depths(tree):
    """Depth of every node of a level-wise tree (parents are numbered before their
    children), from the left and right children only."""
    depth = np.zeros(tree.node_count, dtype=int)
    for node in np.flatnonzero(~tree.is_leaf):
        depth[[tree.children_left[node], tree.children_right[node]]] = depth[node] + 1
    return depth


@pytest.fixture(scope="module")
def training():
    X_train, _, y_train, _ = california_split()
    return X_train, y_train[:, None]


@pytest.fixture(scope="module")
def full_tree(training):
    return hist_tree(*training)


def test_the_levels_of_the_full_tree(full_tree):
    tree, counter = full_tree
    assert (tree.n_leaves, node_depths(tree).max()) == (14856, 32)
    assert counter.searches == tree.node_count - tree.n_leaves
    assert sum(counter.nodes_per_depth) == counter.searches
    # the top levels hold every sample in few nodes; depth 16 holds tiny nodes
    assert counter.samples_per_depth[:7] == [15480] * 7
    assert counter.samples_per_depth[6] / counter.nodes_per_depth[6] > 240
    assert (counter.nodes_per_depth[16], counter.samples_per_depth[16]) == (1425, 9522)


@pytest.mark.parametrize("max_depth", [10, None])
def test_subtraction_counts_fewer_pairs_for_the_same_tree(training, max_depth):
    on, c_on = hist_tree(*training, max_depth, subtract=True)
    off, c_off = hist_tree(*training, max_depth, subtract=False)
    assert_same_tree(on, off)
    assert c_on.histogram_pairs < c_off.histogram_pairs and c_off.subtracted_histograms == 0
    saved = 1 - c_on.histogram_pairs / c_off.histogram_pairs
    assert round(saved, 2) == {10: 0.41, None: 0.23}[max_depth]
    assert c_on.subtracted_histograms == {10: 408, None: 416}[max_depth]


def test_exercise_the_pairs_saved_at_depth_one_are_the_larger_childs(training, full_tree):
    tree, _ = full_tree
    larger = max(tree.n_node_samples[tree.children_left[0]],
                 tree.n_node_samples[tree.children_right[0]])
    assert larger == 12203
    _, c_on = hist_tree(*training, 2, subtract=True)
    _, c_off = hist_tree(*training, 2, subtract=False)
    f = training[0].shape[1]
    assert c_off.histogram_pairs - c_on.histogram_pairs == f * larger
    assert c_on.subtracted_histograms == f


def test_no_subtraction_where_nodes_are_smaller_than_their_histograms(training, full_tree):
    tree, counter = full_tree
    subtracted = {d: hist_tree(*training, d)[1].subtracted_histograms for d in (4, 8, 12)}
    assert subtracted == {4: 56, 8: 336, 12: counter.subtracted_histograms}
    depth, split = node_depths(tree), ~tree.is_leaf
    for d in range(14, depth.max()):
        parents = np.flatnonzero(split & (depth == d))
        larger = np.maximum(tree.n_node_samples[tree.children_left[parents]],
                            tree.n_node_samples[tree.children_right[parents]])
        assert (larger < 255).all()


def test_exercise_sixteen_bins_subtract_more(training, full_tree):
    _, c16 = hist_tree(*training, max_bins=16)
    assert c16.subtracted_histograms > 10 * full_tree[1].subtracted_histograms


def test_the_subtraction_figure_and_exercise(training, full_tree):
    """parent - smaller child = larger child: counts exactly, sums to rounding."""
    X, Y = training
    tree, _ = full_tree
    left = X[:, tree.feature[0]] <= tree.threshold[0]
    smaller = left if left.sum() < (~left).sum() else ~left
    assert smaller.sum() == 3277
    codes, _ = bin_features(X, max_bins=255)
    d = centered(Y[:, 0])[:, None]
    p_sums, p_counts, _ = node_histograms(codes, d, 255)
    s_sums, s_counts, _ = node_histograms(codes[smaller], d[smaller], 255)
    l_sums, l_counts, _ = node_histograms(codes[~smaller], d[~smaller], 255)
    np.testing.assert_array_equal(p_counts - s_counts, l_counts)
    assert np.abs((p_sums - s_sums) - l_sums).max() <= 1e-12 * np.abs(d).sum()


def test_targets_offset_by_a_billion_grow_the_same_tree(training):
    X, Y = training
    shifted = Y + 1e9
    a, _ = hist_tree(X, shifted, 10)
    b, _ = hist_tree(X, shifted - 1e9, 10)
    for name in ("feature", "threshold", "children_left", "n_node_samples"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))


def test_populated_bins_give_the_dense_sums_bit_for_bit(training):
    X, Y = training
    codes, _ = bin_features(X, max_bins=255)
    for seed in range(20):
        rows = np.random.default_rng(seed).choice(len(Y), 20, replace=False)
        for j in range(X.shape[1]):
            node_codes, d = codes[rows, j], centered(Y[rows, 0])
            dense = np.bincount(node_codes, weights=d, minlength=255)
            order = np.argsort(node_codes, kind="stable")
            populated, run = np.unique(node_codes[order], return_inverse=True)
            np.testing.assert_array_equal(dense[populated],
                                          np.bincount(run, weights=d[order]))


def test_the_grower_declines_to_subtract_when_the_parent_is_far_more_spread_out():
    rng = np.random.default_rng(0)
    X, noise = rng.uniform(size=(4000, 3)), rng.normal(size=4000)
    counts = {}
    for height in (1.0, 1e6):
        _, counter = hist_tree(X, (noise + height * (X[:, 0] > 0.8))[:, None], 2)
        counts[height] = (counter.subtracted_histograms, counter.histogram_pairs)
    assert counts == {1.0: (3, 14541), 1e6: (0, 24000)}


def test_memory_stays_below_the_data(training, full_tree):
    X, _ = training
    _, counter = full_tree
    assert 0 < counter.peak_bytes < 0.4 * X.nbytes
    widest = max(counter.nodes_per_depth)
    assert widest * X.shape[1] * 255 * 16 > 100 * counter.peak_bytes


# --- the committed benchmarks (counts only) ----------------------------------------------


def test_committed_subtraction_counts():
    fits, _ = load_results("subtraction")
    assert {"case", "subtract", "seconds", "binning_seconds", "counted", "subtracted",
            "n_leaves"} <= set(fits.columns)
    for _, rows in fits.groupby("case"):
        on, off = rows[rows["subtract"]], rows[~rows["subtract"]]
        assert on.counted.nunique() == off.counted.nunique() == 1
        assert on.counted.iloc[0] < off.counted.iloc[0]
        assert (on.subtracted > 0).all() and (off.subtracted == 0).all()
        assert rows.n_leaves.nunique() == 1                 # the same tree either way
    million = fits[fits.case == "million_rows_depth_10"]
    assert 1_000_000 / million.n_leaves.iloc[0] > 1000     # leaves far larger than 255 bins


def test_committed_growth_has_the_million_row_builders():
    fits, _ = load_results("growth")
    million = fits[fits.case == "million_rows_depth_10"]
    assert {"level_wise", "sklearn"} <= set(million.method)
