"""Chapter 4 ("What each search costs"): the claims its text makes that do not depend on a
clock.  Timings themselves are never asserted (they belong to a machine); what is checked
is the grid of the experiment, the committed file's shape, the counts of positions and
candidate cuts behind the exponents, and the published table's exponents.
"""

import numpy as np
import pytest

from treelib import Finder
from treelib.bench import fit_exponent, load_results, timing
from treelib.criteria import target_statistics
from treelib.datasets import load_california_housing, load_seed_timings
from treelib.finders.exact import candidate_cuts
from treelib.growth import StoppingRules, grow

SIZES = [500, 1000, 2000, 5000, 10000, 20000]


@pytest.fixture(scope="module")
def housing():
    data = load_california_housing()
    return data.data, data.target, data.feature_names


def benchmark_rows(n, n_rows):
    """The rows the timing benchmark draws for size n, repeat 0."""
    return np.random.default_rng([0, n, 0]).choice(n_rows, n, replace=False)


def test_the_grid_is_the_seeds():
    grid = dict(timing.SEED_GRID)
    assert list(grid) == load_seed_timings().n_samples.tolist()
    assert {n for n, r in grid.items() if r == 5} == set(range(500, 2100, 50))
    assert {n for n, r in grid.items() if r == 3} == set(range(2200, 8000, 100))
    assert {n for n, r in grid.items() if r == 1} == set(range(8000, 20001, 1000))
    fits, record = load_results("timing_full")
    assert fits.groupby("n_samples").repeat.nunique().to_dict() == grid
    assert set(fits.method) == set(timing.TIMING_METHODS)
    assert record["max_depth"] == str(timing.TIMING_MAX_DEPTH)


def test_share_of_candidate_cuts_at_the_root(housing):
    X, y, _ = housing
    cuts = []
    for n in SIZES:
        valid = candidate_cuts(X[benchmark_rows(n, len(y))])[2]
        cuts.append(valid.sum())
        if n == 500:
            assert valid.mean() == pytest.approx(0.76, abs=0.005)
        if n == 20000:
            assert valid.mean() == pytest.approx(0.43, abs=0.005)
    positions = [8 * (n - 1) for n in SIZES]
    assert fit_exponent(SIZES, positions) == pytest.approx(1.00, abs=0.005)
    assert fit_exponent(SIZES, cuts) == pytest.approx(0.85, abs=0.005)


class CountingFinder(Finder):
    cuts = positions = 0

    def search_features(self, data, Y, weights, categories):
        valid = candidate_cuts(data)[2]
        self.cuts += int(valid.sum())
        self.positions += valid.size
        return super().search_features(data, Y, weights, categories)


def test_share_of_candidate_cuts_over_whole_trees(housing):
    """Exercise 4: over whole depth-6 trees the share falls from 0.84 to 0.54."""
    X, y, _ = housing
    cuts, positions = [], []
    for n in SIZES:
        rows = benchmark_rows(n, len(y))
        finder = CountingFinder("cumsum", "squared_error")
        grow("depth_first", X[rows], target_statistics(y[rows], "squared_error"), finder,
             StoppingRules(max_depth=6))
        cuts.append(finder.cuts)
        positions.append(finder.positions)
    assert cuts[0] / positions[0] == pytest.approx(0.84, abs=0.005)
    assert cuts[-1] / positions[-1] == pytest.approx(0.54, abs=0.005)
    assert fit_exponent(SIZES, positions) == pytest.approx(1.00, abs=0.005)
    assert fit_exponent(SIZES, cuts) == pytest.approx(0.88, abs=0.005)


def test_the_seeds_published_exponents():
    seed = load_seed_timings()
    n = seed.n_samples.to_numpy()
    assert fit_exponent(n, seed.baseline_seconds) == pytest.approx(1.26, abs=0.005)
    assert fit_exponent(n, seed.fast_seconds) == pytest.approx(1.04, abs=0.005)
    ratio = seed.baseline_seconds / seed.fast_seconds
    assert ratio.iloc[0] == pytest.approx(18.7, abs=0.05)
    assert ratio.iloc[-1] == pytest.approx(55.1, abs=0.05)


def test_house_age_has_few_candidate_cuts(housing):
    """Exercise 3: on 2,000 rows HouseAge offers about 50 cuts, AveRooms nearly 2,000."""
    X, y, names = housing
    rows = np.random.default_rng(0).permutation(len(y))[:2000]
    counts = {name: candidate_cuts(X[rows][:, [names.index(name)]])[2].sum()
              for name in ["HouseAge", "AveRooms"]}
    assert counts["HouseAge"] <= 51 and counts["AveRooms"] >= 1900


def test_chain_sum_of_squares():
    """Exercise 2's closed form."""
    for n in [2, 3, 10, 1000]:
        assert sum(m * m for m in range(2, n + 1)) == (n * (n + 1) * (2 * n + 1) - 6) // 6
