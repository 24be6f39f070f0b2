"""Every algorithm the book names has a readable version that a chapter shows, tested equal
to treelib's fast path (issue 21; scikit-learn's ``_build_histogram_naive`` beside the
optimised one is the pattern).

The readable versions are the chapters' code cells tagged ``teaching``
(``tests.conftest.notebook_cells``).  This module is their inventory: it checks that each
one still exists and stays short, that the test naming it exists, and compares the core
ones with the fast path again here, on seeded nodes full of ties, duplicates, constant
features and tiny sizes.  Lines: the teaching function's own lines, comments included.
Test: "here" (this module, and the chapter's tests), "ch." (``tests/chapters/test_<ch>_*``
only); ``CHAPTER_TESTS`` names the chapter's test of each row.

========================== === ============================== ================================= ====
algorithm                  ch. teaching function (lines)      fast path                         test
========================== === ============================== ================================= ====
gain of one split          01  gain_curve (4)                 criteria.split_gain               ch.
variance-to-sum identity   02  raw_sum_gains (11),            finders.threshold_gains           here
                               welford_gains (24)
naive O(n^2) split         03  naive_scores (6)               finders.SCORERS["naive"]          here
running-sum scan           03  scan_scores (11)               finders.SCORERS["scan"]           here
cumsum scan                03  cumsum_scores (6)              finders.SCORERS["cumsum"]         here
depth-first growth         05  grow_tree (21)                 growth.grow("recursive")          ch.
best-first growth          05  grow_best_first (19)           growth.grow("best_first")         ch.
level-wise running sums    06  padded_cumsum (6)              segments.segmented_cumsum         here
level-wise partition       06  stable_partition (4)           growth.partition, partition_plan  here
Gini and entropy gains     07  class_count_gains (30),        finders.threshold_gains           here
                               distinct_value_gini (12)
histogram split            09  bin_cut_gains (14)             finders.histogram_gains           here
subtraction trick          10  children_histograms (9),       finders.node_histograms,          ch.
                               histogram (5)                  the grower's GrowthCounter
random thresholds          11  random_split_by_loop (30)      finders.random_split              here
routing a row (prediction) 12  route (15)                     Tree.apply                        ch.
random decision tree node  12  random_node_rule (23)          growth.grow_random_tree's root    ch.
Newton gain on (g, h)      13  newton_gain (9),               gains.gain_from_sums("newton"),   ch.
                               newton_cut_gains (17)          the boosting grower's best split
gradient boosting loop     14  boost (16)                     HistGradientBoostingRegressor     ch.
GOSS                       14  goss (12)                      growth.goss_sample                here
bootstrap (bagging)        15  bootstrap_weights (3)          RandomForest's sample weights     ch.
oblivious level split      16  best_level_test (15),          ObliviousTreeRegressor            ch.
                               grow_oblivious_by_loop (9)
Poisson gains              17  poisson_gains (14)             threshold_gains("poisson")        ch.
absolute error (medians)   17  absolute_error_gains (10),      finders.median_gains              ch.
                               prefix_abs_losses (25)
missing values both ways   18  gains_both_ways (24)           best_split (cumsum, NaN)          ch.
surrogate splits           18  best_surrogate (20)            bench.surrogates_of               ch.
categorical: sort by mean  19  sorted_partition (10)          brute force over partitions       ch.
weakest link (pruning)     20  weakest_link (14)              pruning.weakest_links             ch.
max of many chance gains   21  best_gain (9)                  finders.exact_split               ch.
ordered target statistics  21  ordered_ts (10)                ordered_target_statistics         ch.
monotonic constraints      22  allowed (7), best_cut (11),    finders.monotonic.allowed_cuts,   ch.
                               grow (24)                      the constrained trees
optimal depth-2 tree       23  quadrant_sums (13),            growth.grow_optimal_depth2        ch.
                               child_gains (13),
                               best_depth2 (20)
histograms of row parts    24  part_histogram (5),            the histogram grower's root split ch.
                               best_bin (9)
merging value counts       25  merge_value_counts (7)         sketch.merged_counts              ch.
merging quantile sketches  25  merge_summaries (15)           sketch.merge                      ch.
fixed-point sums           24  fixed_point_sum (6)            fixed_point.to_float of digits    ch.
========================== === ============================== ================================= ====

Every algorithm the book teaches now has its readable version (merging quantile sketches,
the last one missing, came with chapter 25).  ``fixed_point_sum`` equals
``treelib.fixed_point``'s sum bit for bit on grids of two digits (at most 2**20 rows);
with more digits ``to_float`` rounds once per digit, within one unit in the last place.
Longer than about 25 lines: ``class_count_gains``
(30: both criteria at once) and ``random_split_by_loop`` (30).
"""

import ast
import re
from pathlib import Path

import numpy as np
import pytest

from tests.conftest import NOTEBOOKS, notebook_cells, tagged_cells
from treelib.criteria import node_statistics, one_hot, target_statistics
from treelib.finders import (
    SCORERS,
    candidate_cuts,
    histogram_gains,
    node_histograms,
    random_split,
    threshold_gains,
)
from treelib.growth import goss_sample, partition, partition_plan
from treelib.segments import segmented_cumsum

CHAPTER_DIR = Path(__file__).resolve().parent / "chapters"
#: The tests in ``tests/chapters`` that compare each row's readable version with the fast
#: path: (the file's prefix, the tests), keyed by the row's first teaching function.
CHAPTER_TESTS = {
    'gain_curve': ('test_01', []),
    'raw_sum_gains': ('test_02', ['test_welford_gains_match_treelib']),
    'naive_scores': ('test_03', ['test_teaching_scorers_give_treelibs_gains']),
    'scan_scores': ('test_03', []),
    'cumsum_scores': ('test_03', []),
    'grow_tree': ('test_05', ['test_grow_tree_grows_the_arrays_of_the_recursive_grower']),
    'grow_best_first': ('test_05', [
        'test_grow_best_first_makes_treelibs_splits_in_the_same_order',
        'test_equal_gains_pop_the_leaf_created_first',
    ]),
    'padded_cumsum': ('test_06', ['test_padded_cumsum_is_segmented_cumsum_bit_for_bit']),
    'stable_partition': ('test_06', ['test_stable_partition_is_treelibs_partition']),
    'class_count_gains': ('test_07', ['test_class_count_gains_equals_threshold_gains']),
    'bin_cut_gains': ('test_09', ['test_bin_cut_gains_equal_histogram_gains']),
    'children_histograms': ('test_10', [
        'test_the_subtracted_histogram_is_the_counted_one',
        'test_the_readable_histograms_are_treelibs_node_histograms',
        'test_the_grower_counts_what_the_readable_trick_counts',
    ]),
    'random_split_by_loop': ('test_11', ['test_the_loop_is_random_split']),
    'route': ('test_12', ['test_route_answers_as_apply']),
    'random_node_rule': ('test_12', ['test_the_readable_rule_draws_treelibs_root']),
    'newton_gain': ('test_13', [
        'test_the_newton_step_and_gain_are_treelibs',
        'test_every_cut_of_a_feature_is_scored_as_the_grower_scores_it',
    ]),
    'boost': ('test_14', ['test_the_boosting_loop_is_the_estimators_bit_for_bit']),
    'goss': ('test_14', ['test_the_exercises_goss_is_treelibs']),
    'bootstrap_weights': ('test_15', ['test_the_bootstrap_weights_are_scikit_learns_and_treelibs']),
    'best_level_test': ('test_16', ['test_the_loops_choose_treelibs_tests']),
    'poisson_gains': ('test_17', ['test_poisson_gains_are_treelibs']),
    'absolute_error_gains': ('test_17', ['test_absolute_error_gains_are_treelibs_running_median']),
    'gains_both_ways': ('test_18', ['test_gains_both_ways_find_the_cumsum_finders_split']),
    'best_surrogate': ('test_18', ['test_the_teaching_surrogate_is_the_benchmarks']),
    'sorted_partition': ('test_19', ['test_sorting_by_the_mean_is_optimal_for_squared_error']),
    'weakest_link': ('test_20', ['test_the_teaching_weakest_link_is_treelibs']),
    'best_gain': ('test_21', ['test_best_gain_is_exact_splits']),
    'ordered_ts': ('test_21', ['test_ordered_ts_is_treelibs']),
    'allowed': ('test_22', ['test_allowed_is_treelibs_allowed_cuts',
                            'test_the_teaching_grower_is_treelibs_and_scikit_learns_tree']),
    'quadrant_sums': ('test_23', ['test_quadrant_sums_are_the_rows_counted_with_masks',
                                  'test_the_search_finds_the_brute_force_and_treelibs_total_gain']),
    'part_histogram': ('test_24', ['test_the_best_bin_is_treelibs_root_split']),
    'merge_value_counts': ('test_25', []),
    'merge_summaries': ('test_25', ['test_merge_summaries_is_treelibs_merge']),
    'fixed_point_sum': ('test_24', ['test_fixed_point_sum_is_treelibs',
                                    'test_the_chapters_readable_sums_are_treelibs']),
}
#: The readable versions that may be longer than about 25 lines (see the docstring).
LONGER = {"class_count_gains": 30, "random_split_by_loop": 30}
SEEDS = range(12)


def table_rows():
    """(chapter, teaching functions, tested here) of every row of the module docstring's
    table; a row continues on the lines below it whose first two columns are blank."""
    rule = next(i for i, line in enumerate(__doc__.splitlines()) if line.startswith("==="))
    lines = __doc__.splitlines()[rule + 3:]
    rows = []
    for line in lines:
        if line.startswith("==="):
            break
        if line[:30].strip():
            rows.append((line[27:30].strip(), [], line[96:].strip() == "here"))
        rows[-1][1].extend(re.findall(r"(\w+) \(\d+\)", line[31:61]))
    return rows


def notebook_of(chapter):
    """The notebook whose name starts with the chapter's number."""
    return next(p.name for p in sorted(NOTEBOOKS.glob(f"{chapter}_*.ipynb")))


def teaching_functions(name):
    """``{function name: its number of lines}`` of the teaching cells of a notebook."""
    found = {}
    for cell in tagged_cells(name):
        for node in ast.parse(cell.source).body:
            if isinstance(node, ast.FunctionDef):
                found[node.name] = node.end_lineno - node.lineno + 1
    return found


def test_the_table_has_every_row():
    rows = table_rows()
    assert len(rows) == 34 and all(functions for _, functions, _ in rows)
    assert sorted(functions[0] for _, functions, _ in rows) == sorted(CHAPTER_TESTS)


@pytest.mark.parametrize("row", table_rows(), ids=lambda row: "+".join(row[1]))
def test_each_readable_version_exists_is_short_and_is_tested(row):
    chapter, functions, _ = row
    found = teaching_functions(notebook_of(chapter))
    for function in functions:
        assert function in found, f"{function} is no longer a teaching function"
        assert found[function] <= LONGER.get(function, 25), f"{function}: {found[function]}"
    prefix, tests = CHAPTER_TESTS[functions[0]]
    matches = sorted(CHAPTER_DIR.glob(f"{prefix}_*.py"))
    assert len(matches) == 1, prefix
    source = matches[0].read_text()
    assert "notebook_cells" in source          # it loads the chapter's teaching cells
    for test in tests:
        assert f"def {test}(" in source, f"{matches[0].name} has no {test}"


# --- the core ones, compared again on seeded awkward nodes -------------------------------


def awkward_node(seed):
    """A node of 1 to 40 samples, 1 to 3 features: ties, duplicates, constant features,
    small integer targets, sometimes a large offset."""
    rng = np.random.default_rng(seed)
    n = [1, 2, 3, 5, 8, 40][seed % 6]
    f = 1 + seed % 3
    X = rng.integers(0, 1 + seed % 4, size=(n, f)).astype(float)
    if seed % 4 == 1:
        X[:, 0] = 7.0                                        # a constant feature
    y = rng.integers(-3, 4, size=n).astype(float) + (1e6 if seed % 5 == 4 else 0.0)
    return X, y


@pytest.mark.parametrize("seed", SEEDS)
def test_the_three_scorers_are_treelibs(seed):
    teaching = notebook_cells("03_three_searches.ipynb")
    X, y = awkward_node(seed)
    if len(y) < 2:
        return
    order, _, valid = candidate_cuts(X)
    Y = target_statistics(y, "squared_error")
    for name in SCORERS:
        fast, bounds = SCORERS[name](Y, order, valid)
        for j in range(X.shape[1]):
            ours = teaching[f"{name}_scores"](y[order[:, j]], valid[:, j])
            np.testing.assert_array_equal(np.isfinite(ours), np.isfinite(fast[:, j]))
            finite = np.isfinite(ours)       # the same gain summed in other orders
            assert np.all(np.abs(ours[finite] - fast[finite, j])
                          <= 2 * bounds[finite, j] + 1e-6 * (1 + np.abs(fast[finite, j])))


@pytest.mark.parametrize("seed", SEEDS)
def test_the_raw_sum_and_welford_gains_are_treelibs_without_offset(seed):
    teaching = notebook_cells("02_variance_to_sum.ipynb")
    X, y = awkward_node(seed)
    y = y - (1e6 if seed % 5 == 4 else 0.0)    # raw sums lose digits with an offset
    thresholds, gains = threshold_gains(X[:, -1], target_statistics(y, "squared_error"))
    for name in ("raw_sum_gains", "welford_gains"):
        t, g = teaching[name](X[:, -1], y)
        np.testing.assert_array_equal(t, thresholds)
        np.testing.assert_allclose(g, gains, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("seed", SEEDS)
def test_the_gini_and_entropy_scans_are_treelibs(seed):
    teaching = notebook_cells("07_classification_splits.ipynb")
    X, y = awkward_node(seed)
    labels = (y > 0).astype(int) + (y > 2)
    Y = one_hot(np.unique(labels, return_inverse=True)[1], len(np.unique(labels)))
    t, gini, entropy = teaching["class_count_gains"](X[:, -1], labels)
    for criterion, ours in (("gini", gini), ("entropy", entropy)):
        thresholds, gains = threshold_gains(X[:, -1], Y, criterion)
        np.testing.assert_array_equal(t, thresholds)
        np.testing.assert_allclose(ours, gains, rtol=1e-9, atol=1e-9)
    t_distinct, gini_distinct = teaching["distinct_value_gini"](X[:, -1], labels)
    np.testing.assert_array_equal(t_distinct, t)
    np.testing.assert_allclose(gini_distinct, gini, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("seed", SEEDS)
def test_the_bin_scan_is_histogram_gains(seed):
    bin_cut_gains = notebook_cells("09_histogram_splits.ipynb")["bin_cut_gains"]
    X, y = awkward_node(seed)
    codes = X[:, -1].astype(np.intp)
    n_bins = int(codes.max(initial=0)) + 2             # an empty bin at the end too
    node = node_statistics(y[:, None], [len(y)], "squared_error")
    sums, counts, _ = node_histograms(codes[:, None], node.stats, n_bins)
    gains, bounds = histogram_gains(sums, counts, node.totals[0], "squared_error", 1,
                                    node.abs_totals[0])
    ours = bin_cut_gains(codes, y, n_bins)
    np.testing.assert_array_equal(np.isfinite(ours), np.isfinite(gains[0]))
    finite = np.isfinite(ours)
    assert np.all(np.abs(ours[finite] - gains[0, finite]) <= 2 * bounds[0, finite] + 1e-300)


@pytest.mark.parametrize("seed", SEEDS)
def test_the_random_loop_is_random_split(seed):
    loop = notebook_cells("11_random_thresholds.ipynb")["random_split_by_loop"]
    X, y = awkward_node(seed)
    Y = y[:, None]
    ours = loop(X, Y, np.random.default_rng(seed))
    fast = random_split(X, Y, np.random.default_rng(seed))
    if fast is None:
        assert ours is None
        return
    assert (ours.feature, ours.threshold, ours.n_left, ours.n_right) == (
        fast.feature, fast.threshold, fast.n_left, fast.n_right)
    assert ours.gain == pytest.approx(fast.gain, rel=1e-9, abs=1e-6)


@pytest.mark.parametrize("seed", SEEDS)
def test_goss_is_goss_sample_bit_for_bit(seed):
    goss = notebook_cells("14_the_boosting_loop.ipynb")["goss"]
    rng = np.random.default_rng(seed)
    n = [5, 20, 101][seed % 3]
    g = rng.integers(-2, 3, size=(n, 1)).astype(np.float32)        # many ties in |g h|
    h = np.full((n, 1), 0.25, dtype=np.float32)
    for a, b in zip(goss(g, h, 0.2, 0.3, np.random.default_rng(seed)),
                    goss_sample(g, h, 0.2, 0.3, np.random.default_rng(seed))):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("seed", SEEDS)
def test_the_level_wise_sums_and_partition_are_treelibs_bit_for_bit(seed):
    teaching = notebook_cells("06_level_wise_growth.ipynb")
    rng = np.random.default_rng(seed)
    counts = rng.integers(1, 6, size=1 + seed % 4)
    values = rng.normal(size=counts.sum()) * 10.0 ** rng.integers(-8, 8, size=counts.sum())
    np.testing.assert_array_equal(teaching["padded_cumsum"](values, counts),
                                  segmented_cumsum(values, counts))
    goes_left = rng.random(counts.sum()) < 0.5
    row = rng.permutation(counts.sum())
    n_left = np.add.reduceat(goes_left.astype(int), np.r_[0, np.cumsum(counts)[:-1]])
    keep = np.ones(len(counts), dtype=bool)
    np.testing.assert_array_equal(
        teaching["stable_partition"](row, goes_left, counts),
        partition(partition_plan(counts, n_left, keep, keep), goes_left, [row])[0])
