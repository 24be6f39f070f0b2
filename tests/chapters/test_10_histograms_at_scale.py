"""Chapter 10 ("Histograms at scale"): the chapter's readable subtraction trick
(``histogram``, ``children_histograms``, tag "teaching") gives the counted histograms and
treelib's, the counts the chapter reads from ``treelib.counters.GrowthCounter`` and the
claims it makes about the subtraction trick and treelib's histogram grower hold.  No test
looks at seconds: the chapter prints timings beside the committed benchmarks and never
claims who wins."""

import numpy as np
import pytest

from tests.conftest import claim, notebook_cells, tagged_cells
from tests.reference import assert_same_tree
from treelib.bench import california_split, load_results
from treelib.binning import bin_features
from treelib.counters import GrowthCounter
from treelib.criteria import centered
from treelib.finders import Finder
from treelib.finders.histogram import node_histograms
from treelib.growth import LevelOptions, StoppingRules, grow

NOTEBOOK = "10_histograms_at_scale.ipynb"
TEACHING = notebook_cells(NOTEBOOK)
histogram, children_histograms = TEACHING["histogram"], TEACHING["children_histograms"]
EPS = np.finfo(np.float64).eps


def hist_tree(X, Y, max_depth=None, subtract=True, max_bins=255):
    finder = Finder("hist", "squared_error", max_bins=max_bins)
    codes, counter = finder.prepare(X), GrowthCounter()
    tree = grow("level_wise", codes, Y, finder, StoppingRules(max_depth=max_depth), counter,
                level=LevelOptions(subtract=subtract))
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


# --- the readable subtraction trick ---------------------------------------------------


def split_node(seed):
    """A node of 2 to 300 samples, 1 to 3 features of 2 to 9 bins (some empty), targets
    spread over many magnitudes (or small integers on a large offset), split at random
    into two non-empty children."""
    rng = np.random.default_rng(seed)
    n, f, n_bins = [2, 5, 40, 300][seed % 4], 1 + seed % 3, 2 + seed % 8
    codes = rng.integers(0, max(1, n_bins - seed % 2), size=(n, f)).astype(np.uint8)
    if seed % 3 == 2:
        y = rng.integers(-3, 4, size=n) + 1e6
    else:
        y = rng.normal(size=n) * 10.0 ** rng.integers(-6, 7, size=n)
    goes_left = rng.random(n) < [0.5, 0.1, 0.9][seed % 3]
    goes_left[0], goes_left[-1] = True, False
    return codes, y, goes_left, n_bins


def rounding_bound(codes, y, n_bins):
    """How far a subtracted sum of a bin may be from the counted one: 2 n EPS times the
    parent's sum of |y| in the bin (n its samples in the bin).  Each of the three sums
    (parent, smaller child, larger child counted) adds its bin's terms one after another
    (``np.bincount``), so it is off by at most (m - 1) u times its bin's sum of |y|, at most
    the parent's (u = EPS / 2 the unit roundoff), and the subtraction adds one rounding:
    at most 3 n u = 1.5 n EPS in all.  Counts are integers and subtract exactly."""
    counts, abs_sums = histogram(codes, np.abs(y), n_bins)
    return 2 * counts * EPS * abs_sums


@pytest.mark.parametrize("seed", range(16))
def test_the_subtracted_histogram_is_the_counted_one(seed):
    codes, y, goes_left, n_bins = split_node(seed)
    parent = histogram(codes, y, n_bins)
    left, right = children_histograms(parent, codes, y, goes_left, n_bins)
    bound = rounding_bound(codes, y, n_bins)
    smaller = goes_left if goes_left.sum() <= (~goes_left).sum() else ~goes_left
    for got, rows in [(left, goes_left), (right, ~goes_left)]:
        counts, sums = histogram(codes[rows], y[rows], n_bins)
        np.testing.assert_array_equal(got[0], counts)             # counts exactly
        assert np.all(np.abs(got[1] - sums) <= bound)             # sums to rounding
        if rows is smaller:                                       # counted: bit for bit
            np.testing.assert_array_equal(got[1], sums)


@pytest.mark.parametrize("seed", range(16))
def test_the_readable_histograms_are_treelibs_node_histograms(seed):
    """``node_histograms`` adds a bin's samples in the same order (sample by sample), so
    the parent's and the counted child's histograms are its own bit for bit; the
    subtracted child's counts are too, its sums to the rounding bound."""
    codes, y, goes_left, n_bins = split_node(seed)
    parent = histogram(codes, y, n_bins)
    sums, counts, _ = node_histograms(codes, y[:, None], n_bins)
    np.testing.assert_array_equal(parent[0], counts)
    np.testing.assert_array_equal(parent[1], sums[..., 0])
    children = children_histograms(parent, codes, y, goes_left, n_bins)
    smaller = 0 if goes_left.sum() <= (~goes_left).sum() else 1
    for k, rows in enumerate([goes_left, ~goes_left]):
        sums, counts, _ = node_histograms(codes[rows], y[rows, None], n_bins)
        np.testing.assert_array_equal(children[k][0], counts)
        if k == smaller:
            np.testing.assert_array_equal(children[k][1], sums[..., 0])
        else:
            assert np.all(np.abs(children[k][1] - sums[..., 0])
                          <= rounding_bound(codes, y, n_bins))


def test_the_chapters_latitude_histograms_need_the_rounding_bound(training, full_tree):
    """At the root of the training rows the subtracted sums are not the counted ones bit
    for bit (the chapter prints False), but within the bound."""
    X, Y = training
    tree, _ = full_tree
    codes = bin_features(X[:, [6]], max_bins=32)[0]
    d = centered(Y[:, 0])
    root_left = X[:, tree.feature[0]] <= tree.threshold[0]
    left, right = children_histograms(histogram(codes, d, 32), codes, d, root_left, 32)
    assert root_left.sum() > (~root_left).sum()             # the left child is subtracted
    counts, sums = histogram(codes[root_left], d[root_left], 32)
    np.testing.assert_array_equal(left[0], counts)
    assert not np.array_equal(left[1], sums)
    assert np.all(np.abs(left[1] - sums) <= rounding_bound(codes, d, 32))


def test_the_grower_counts_what_the_readable_trick_counts(training):
    """At depth 1 the grower, like ``children_histograms``, counts the root and the smaller
    child of the root's split only: f (n + n_smaller) pairs, one histogram per feature
    subtracted."""
    X, Y = training
    tree, counter = hist_tree(X, Y, 2, subtract=True)
    n_smaller = min(tree.n_node_samples[tree.children_left[0]],
                    tree.n_node_samples[tree.children_right[0]])
    f = X.shape[1]
    assert counter.histogram_pairs == f * (len(Y) + n_smaller)
    assert counter.subtracted_histograms == f


def test_the_levels_of_the_full_tree(full_tree):
    claim(NOTEBOOK, "and counting $f\\,n_d$ pairs is the bigger term (123,840 pairs against "
                    "32,640 dense cells at depth 4). At depth 6 the two are about level "
                    "(123,840 pairs, 130,560 cells)")
    claim(NOTEBOOK, "14,610 of the 14,855 nodes searched lie at depth 8 or below, with 10.5 "
                    "samples each on average")
    tree, counter = full_tree
    f, B = 8, 255
    nodes, samples = counter.nodes_per_depth, counter.samples_per_depth
    for depth in range(5):                                 # counting is the bigger term
        assert f * samples[depth] > f * B * nodes[depth]
    assert (f * samples[4], f * B * nodes[4]) == (123840, 32640)
    assert (f * samples[6], f * B * nodes[6]) == (123840, 130560)
    assert 0.9 < (f * samples[6]) / (f * B * nodes[6]) < 1.1       # about level
    for depth in range(8, len(nodes)):                     # dense scoring would dominate
        assert f * B * nodes[depth] > f * samples[depth]
    assert (sum(nodes[8:]), counter.searches) == (14610, 14855)
    assert round(sum(samples[8:]) / sum(nodes[8:]), 1) == 10.5
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
    claim(NOTEBOOK, "nearly the same saving in pairs (509,776 and 513,344)")
    assert c_off.histogram_pairs - c_on.histogram_pairs == {10: 509776,
                                                            None: 513344}[max_depth]


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
    claim(NOTEBOOK, "in this page's tree on the training rows it subtracts nothing below "
                    "depth 12.")
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
    claim(NOTEBOOK, "With quantile bins the parent's histogram is far more even than its "
                    "child's, 336 to 651 block groups per bin. The high-income child is spread "
                    "very unevenly over the same bins: from 5 block groups in the northernmost "
                    "bin (latitude 39.43 to 41.95) to 234 in a bin south of Los Angeles (33.60 "
                    "to 33.73).")
    lat_codes, lat_cuts = bin_features(X[:, [6]], max_bins=32)
    parent = np.bincount(lat_codes[:, 0], minlength=32)
    child = np.bincount(lat_codes[smaller, 0], minlength=32)
    edges = np.concatenate([[X[:, 6].min()], lat_cuts[0], [X[:, 6].max()]])
    assert (parent.min(), parent.max()) == (336, 651)
    assert (child.min(), np.argmin(child), child.max()) == (5, 31, 234)
    assert edges[np.argmax(child):np.argmax(child) + 2].round(2).tolist() == [33.60, 33.73]
    assert edges[31:].round(2).tolist() == [39.43, 41.95]
    codes, _ = bin_features(X, max_bins=255)
    d = centered(Y[:, 0])[:, None]
    p_sums, p_counts, _ = node_histograms(codes, d, 255)
    s_sums, s_counts, _ = node_histograms(codes[smaller], d[smaller], 255)
    l_sums, l_counts, _ = node_histograms(codes[~smaller], d[~smaller], 255)
    np.testing.assert_array_equal(p_counts - s_counts, l_counts)
    claim(NOTEBOOK, "within rounding of it, here less than $10^{-15}$ times the parent's sum "
                    "of $|y - \\bar y|$")
    assert np.abs((p_sums - s_sums) - l_sums).max() <= 1e-15 * np.abs(d).sum()


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
    claim(NOTEBOOK, "The grower's histograms and sorted rows never took more than 0.36 of the "
                    "features' size at once")
    X, _ = training
    _, counter = full_tree
    assert 0 < counter.peak_bytes and round(counter.peak_bytes / X.nbytes, 2) == 0.36
    widest = max(counter.nodes_per_depth)
    assert widest * X.shape[1] * 255 * 16 > 100 * counter.peak_bytes


# --- the committed benchmarks (counts only) ----------------------------------------------


def test_committed_subtraction_counts():
    claim(NOTEBOOK, "On a million rows the trick removes most of the counting (62% fewer "
                    "pairs), and the fit takes 1.54 times as long without it. On california "
                    "at full depth it removes a quarter of the pairs, and the fit takes as "
                    "long with it as without (1.00)")
    fits, _ = load_results("subtraction")
    sub = fits.groupby(["case", "subtract"]).agg(
        seconds=("seconds", "median"), binning=("binning_seconds", "median"),
        counted=("counted", "first"))
    for case, fewer, ratio in [("million_rows_depth_10", 0.62, 1.54),
                               ("california_full_depth", 0.25, 1.00)]:
        on, off = sub.loc[(case, True)], sub.loc[(case, False)]
        assert round(1 - on.counted / off.counted, 2) == fewer
        assert round(off.seconds / on.seconds, 2) == ratio
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
    claim(NOTEBOOK, "There the exact level-wise tree took 3.4 times as long as the histogram "
                    "tree with its binning")
    claim(NOTEBOOK, "A leaf of these depth-10 trees holds 1,172 samples on average")
    fits, _ = load_results("growth")
    million = fits[fits.case == "million_rows_depth_10"]
    assert {"level_wise", "level_wise_hist", "sklearn"} <= set(million.method)
    seconds = million.groupby("method").seconds.median()
    assert round(seconds["level_wise"] / seconds["level_wise_hist"], 1) == 3.4
    leaves = million[million.method == "level_wise_hist"].n_leaves.unique()
    assert len(leaves) == 1 and round(1_000_000 / leaves[0]) == 1172
    leaf_counts = million.groupby("method").n_leaves.first()
    assert leaf_counts["sklearn"] != leaf_counts["level_wise"]
    assert leaf_counts["level_wise_hist"] != leaf_counts["level_wise"]


def test_fewer_and_fewer_larger_children_hold_b_samples(full_tree):
    claim(NOTEBOOK, "from depth 6 on, fewer and fewer larger children hold that many (16 of "
                    "the 64 at depth 6, 9 at depth 8, 1 at depth 10)")
    tree, _ = full_tree
    depth, split = node_depths(tree), ~tree.is_leaf
    pairs, holding = [], []
    for d in range(6, depth.max()):
        parents = np.flatnonzero(split & (depth == d))
        larger = np.maximum(tree.n_node_samples[tree.children_left[parents]],
                            tree.n_node_samples[tree.children_right[parents]])
        pairs.append(len(parents))
        holding.append(int((larger >= 255).sum()))
    assert (pairs[0], holding[0], holding[2], holding[4]) == (64, 16, 9, 1)
    assert all(a >= b for a, b in zip(holding, holding[1:]))       # never more, deeper


# --- exercise 5: the trick added to a nine-line grower -------------------------------------


def test_the_exercise_grower_bins_fewer_rows_for_the_same_partition(training):
    claim(NOTEBOOK, "247 leaves both ways, and with the trick the grower bins 0.39 of the "
                    "rows it bins without it; without it, 139,311 rows")
    claim(NOTEBOOK, "The two trees split the rows alike, but they need not be the same bit "
                    "for bit: where a node has empty bins, their subtracted sums are rounding "
                    "residues rather than zeros, so the grower with the trick may pick a cut "
                    "after a later empty bin, one that sends the same rows left")
    claim(NOTEBOOK, "finds one such node")
    namespace = dict(TEACHING)
    for cell in tagged_cells(NOTEBOOK, "exercise-grower"):
        exec(compile(cell.source, NOTEBOOK, "exec"), namespace)
    # Both growers walk the tree depth first, left before right: record every node's cut
    # (feature, bin; None at a leaf) and its histogram of counts (exact either way).
    calls, best_bin_cut = [], namespace["best_bin_cut"]

    def recorded(counts, sums):
        cut = best_bin_cut(counts, sums)
        calls.append((None if cut is None else tuple(map(int, cut)), counts))
        return cut

    namespace["best_bin_cut"] = recorded
    X, Y = training
    codes, _ = bin_features(X, max_bins=255)
    d, rows = centered(Y[:, 0]), np.arange(len(Y))
    counting, subtracting = {"rows binned": 0}, {"rows binned": len(rows)}
    leaves_a = namespace["grow_counting"](codes, d, rows, 8, counting)
    calls_a, calls[:] = list(calls), []
    leaves_b = namespace["grow_subtracting"](codes, d, rows, histogram(codes, d, 255), 8,
                                             subtracting)
    assert leaves_a == leaves_b == 247
    assert len(calls_a) == len(calls)
    differ = 0
    for (a, counts), (b, _) in zip(calls_a, calls):
        if a == b:
            continue
        differ += 1     # the same feature, and only empty bins between: the same rows left
        assert a[0] == b[0] and not counts[a[0], min(a[1], b[1]) + 1:max(a[1], b[1]) + 1].any()
    assert differ == 1
    assert counting["rows binned"] == 139311 <= 9 * len(rows)
    assert round(subtracting["rows binned"] / counting["rows binned"], 2) == 0.39
