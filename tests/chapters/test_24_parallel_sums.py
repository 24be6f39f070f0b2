"""Chapter 24 ("Parallel sums"): its teaching code against treelib, and the claims its
text makes, checked on data (no timings).

``part_histogram`` / ``best_bin`` build one feature's histogram from a worker's rows and
read the best cut from a histogram.  ``fixed_point_sum`` rounds every value to a multiple
of ``2**exponent``, adds the multiples as Python ints and rounds the total once: it equals
``treelib.fixed_point``'s sum bit for bit when the grid has two digits (sums over at most
``2**20`` rows), where ``to_float`` adds the two digits with one rounding; with three or
more digits ``to_float`` rounds once per digit, and the two may differ by one unit in the
last place (rarely: once in 800 seeded sums when this was written).
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import claim, notebook_cells
from treelib import fixed_point
from treelib.bench import load_results
from treelib.binning import bin_features
from treelib.datasets import load_california_housing
from treelib.estimators import DecisionTreeRegressor
from treelib.growth.threads import feature_chunks

NAME = "24_parallel_sums.ipynb"
NS = notebook_cells(NAME)
part_histogram, best_bin = NS["part_histogram"], NS["best_bin"]
fixed_point_sum = NS["fixed_point_sum"]


@pytest.fixture(scope="module")
def california():
    X, y = load_california_housing(return_X_y=True)
    codes, thresholds = bin_features(X, 255)
    return X, y, codes, thresholds


def four_parts(n):
    return np.array_split(np.arange(n), 4)


def test_the_best_bin_is_treelibs_root_split(california):
    X, y, codes, thresholds = california
    z = y - y.mean()
    gains = [best_bin(*part_histogram(codes[:, j], z, 256)) for j in range(X.shape[1])]
    feature = int(np.argmax([g for _, g in gains]))
    tree = DecisionTreeRegressor(splitter="hist", max_depth=1).fit(X, y).tree_
    assert tree.feature[0] == feature
    assert np.float32(tree.threshold[0]) == np.float32(thresholds[feature][gains[feature][0]])


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 6))
def test_parts_histograms_add_up_to_the_whole(seed, n_parts):
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, 12, 300)
    z = rng.normal(size=300)
    cuts = np.sort(rng.integers(0, 301, n_parts - 1))
    pieces = [part_histogram(c, v, 12) for c, v in zip(np.split(codes, cuts),
                                                      np.split(z, cuts))]
    counts, sums = part_histogram(codes, z, 12)
    assert np.array_equal(sum(p[0] for p in pieces), counts)
    np.testing.assert_allclose(sum(p[1] for p in pieces), sums, rtol=0, atol=1e-12)


def test_four_parts_choose_the_split_of_all_rows(california):
    _, y, codes, _ = california
    z = y - y.mean()
    pieces = [part_histogram(codes[rows, 0], z[rows], 256) for rows in four_parts(len(y))]
    added = sum(p[0] for p in pieces), sum(p[1] for p in pieces)
    assert best_bin(*added)[0] == best_bin(*part_histogram(codes[:, 0], z, 256))[0]
    # the message (4 KiB) is smaller than a part's values of the feature
    assert 256 * 2 * 8 < len(four_parts(len(y))[0]) * 8


def test_float_order_matters_and_fixed_point_digits_do_not(california):
    _, y, codes, _ = california
    z = y - y.mean()
    parts = four_parts(len(y))
    sums = [part_histogram(codes[rows, 0], z[rows], 256)[1] for rows in parts]
    left_to_right = ((sums[0] + sums[1]) + sums[2]) + sums[3]
    pairwise = (sums[0] + sums[1]) + (sums[2] + sums[3])
    assert (left_to_right != pairwise).any()
    np.testing.assert_allclose(left_to_right, pairwise, rtol=0, atol=1e-9)
    grid = fixed_point.make_grid(np.abs(z).max(), len(z))
    digits = fixed_point.to_digits(z, grid)
    per_part = [np.stack([np.bincount(codes[rows, 0], weights=digits[rows, t], minlength=256)
                          for t in range(grid.limbs)], axis=-1) for rows in parts]
    a = ((per_part[0] + per_part[1]) + per_part[2]) + per_part[3]
    b = (per_part[3] + per_part[1]) + (per_part[0] + per_part[2])
    assert np.array_equal(fixed_point.to_float(a, grid), fixed_point.to_float(b, grid))


def treelibs_fixed_point_sum(values, n_rows):
    """``treelib.fixed_point``'s sum of ``values`` on the grid for ``n_rows`` rows, and the
    grid."""
    grid = fixed_point.make_grid(np.abs(values).max(), n_rows)
    return fixed_point.to_float(fixed_point.to_digits(values, grid).sum(axis=0), grid), grid


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([None, 2**20, 2**21, 2**30]))
def test_fixed_point_sum_is_treelibs(seed, n_rows):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 200))
    values = rng.normal(size=n) * 10.0 ** rng.integers(-12, 12, size=n)   # wide magnitudes
    values[rng.random(n) < 0.2] = 0.0
    theirs, grid = treelibs_fixed_point_sum(values, n_rows or n)
    ours = fixed_point_sum(values, grid.exponent)
    assert ours == fixed_point_sum(rng.permutation(values), grid.exponent)   # any order
    if grid.limbs == 2:
        assert np.float64(ours).tobytes() == np.float64(theirs).tobytes()
    else:                                   # to_float rounds once per digit
        assert abs(ours - theirs) <= np.spacing(abs(theirs))


def test_the_chapters_readable_sums_are_treelibs(california):
    claim(NAME, "In Python, with Python's whole numbers")
    _, y, codes, _ = california
    z = y - y.mean()
    grid = fixed_point.make_grid(np.abs(z).max(), len(z))
    assert grid.limbs == 2
    digits = fixed_point.to_digits(z, grid)
    sums = np.stack([np.bincount(codes[:, 0], weights=digits[:, t], minlength=256)
                     for t in range(grid.limbs)], axis=-1)
    ours = [fixed_point_sum(z[codes[:, 0] == b][::-1], grid.exponent) for b in range(256)]
    assert np.array(ours).tobytes() == fixed_point.to_float(sums, grid).tobytes()


@pytest.mark.parametrize("splitter", ["hist", "cumsum"])
def test_the_tree_does_not_depend_on_n_jobs(california, splitter):
    X, y, _, _ = california
    trees = [DecisionTreeRegressor(splitter=splitter, builder="level_wise", max_depth=12,
                                   n_jobs=n_jobs).fit(X, y).tree_ for n_jobs in (1, 2, 4)]
    for tree in trees[1:]:
        for field in ("feature", "threshold", "value", "children_left", "impurity"):
            assert np.array_equal(getattr(trees[0], field), getattr(tree, field))


def test_eight_features_keep_at_most_eight_threads_busy():
    claim(NAME, "a level of 8 features gives at most 8 groups, so 32 threads could not even "
                "all be busy")
    assert len(feature_chunks(8, 20_640, 32)) == 8
    assert len(feature_chunks(8, 1_000_000, 32)) == 8


def test_a_histogram_is_a_tenth_of_a_parts_rows(california):
    claim(NAME, "of two numbers, 4 KiB, against 40.3 KiB for its 5,160 values")
    X = california[0]
    rows = np.array_split(np.arange(len(X)), 4)[0]
    assert (len(rows), round(len(rows) * 8 / 2**10, 1), 256 * 2 * 8 / 2**10) == (5160, 40.3, 4)


def test_the_committed_speed_ups_the_text_reads():
    claim(NAME, "the exact grower's growth on a million rows ran 1.40x faster with two "
                "threads, while on california both growers slowed down with them")
    claim(NAME, "Threads paid on a million rows and not on california")
    claim(NAME, "a second thread gains little or nothing, or even slows the fit down")
    from treelib.bench import parallel as parallel_bench

    committed, _ = load_results("parallel")
    table = parallel_bench.amdahl_table(committed).set_index(["case", "method", "what"])
    speedup = table.speedup_2.round(2)
    assert speedup["million_rows", "cumsum", "growth"] == 1.40
    assert speedup["million_rows", "hist", "growth"] > 1
    assert speedup["california", "hist", "growth"] < 1
    assert speedup["california", "cumsum", "growth"] < 1
    # the clipped serial fraction: a slow-down is drawn as s = 1
    assert (table.serial_fraction[table.speedup_2 < 1] == 1).all()


def test_the_order_of_the_rows_moves_float_values_not_fixed_point_ones(california):
    claim(NAME, "The splits survive both shuffles, but about a tenth of the node values "
                "change in their last bits.")
    X, y = california[:2]

    def fit(order, sums):
        model = DecisionTreeRegressor(splitter="hist", histogram_sums=sums, max_depth=10)
        return model.fit(X[order], y[order]).tree_

    for sums in ("float", "fixed_point"):
        base = fit(np.arange(len(y)), sums)
        for seed in (0, 1):
            other = fit(np.random.default_rng(seed).permutation(len(y)), sums)
            assert np.array_equal(base.threshold, other.threshold)
            moved = np.mean(base.value != other.value)
            assert (0.05 < moved < 0.2) if sums == "float" else moved == 0


def test_the_grids_of_the_exercise():
    claim(NAME, "California: $k = 15$, $b = 37$, two digits. A million rows: $k = 20$, "
                "$b = 32$, two digits. A billion: $k = 30$, $b = 22$, three digits")
    grids = [fixed_point.make_grid(1.0, n) for n in (20_640, 10**6, 10**9)]
    assert [(g.bits, g.limbs) for g in grids] == [(37, 2), (32, 2), (22, 3)]
    for g, k in zip(grids, (15, 20, 30)):
        assert g.bits == 52 - k and g.limbs == -(-64 // g.bits)


def test_the_grid_is_at_most_2_to_the_minus_62_of_the_largest_value():
    claim(NAME, "on a fine grid (its spacing at most $2^{-62}$ of the largest value)")
    claim(NAME, "enough digits for at least $64$ bits in all")
    ratios = []
    for n in (1, 100, 20_640, 2**20, 2**20 + 1, 10**6, 10**9):
        for top in (1e-5, 0.75, 1.0, 3.0, 2.0**40):
            grid = fixed_point.make_grid(top, n)
            assert grid.bits * grid.limbs >= 64
            ratios.append(2.0**grid.exponent / top)
    assert max(ratios) == 2.0**-62          # reached: a million rows, a power of two


def test_a_row_costs_9_to_16_bytes_a_bin_16(california):
    claim(NAME, "a row costs 9 to 16 bytes (a code of 1 to 8 bytes and an 8-byte target), "
                "a bin 16")
    _, y, codes, _ = california
    assert codes.dtype.itemsize == 1 and y.dtype.itemsize == 8
    counts, sums = part_histogram(codes[:100, 0], y[:100], 256)
    assert (counts.nbytes + sums.nbytes) // 256 == 16
    assert 100 * (8 + 8) < 2 * 2**10 < 256 * 16       # 100 rows, even with 8-byte codes
