"""The categorical benchmark, run small: brute force is what it says, and every strategy
stands where the theory puts it (the sorted partition equals brute force, which beats one
category against the rest and the ordered codes; a multiway split gains the most)."""

import itertools

import numpy as np

from treelib.bench import categorical
from treelib.criteria import split_gain


def test_subset_sums_enumerate_every_subset_by_its_bits():
    values = np.array([1.0, 10.0, 100.0, 1000.0])
    sums = categorical.subset_sums(values)
    assert len(sums) == 16
    for subset in range(16):
        assert sums[subset] == sum(v for i, v in enumerate(values) if subset >> i & 1)


def test_brute_force_partition_tries_every_partition():
    rng = np.random.default_rng(0)
    for q in (2, 3, 5, 7):
        codes = np.concatenate([np.arange(q), rng.integers(0, q, 60)])
        y = rng.integers(0, 20, len(codes)).astype(np.float64)
        gain, left = categorical.brute_force_partition(codes, y)
        best = max(split_gain(y, np.isin(codes, subset))
                   for r in range(1, q) for subset in itertools.combinations(range(q - 1), r))
        assert abs(gain - best) <= 1e-9 * best
        assert abs(split_gain(y, np.isin(codes, left)) - gain) <= 1e-9 * best


def test_multiway_gain_is_the_between_groups_sum_of_squares():
    rng = np.random.default_rng(2)
    codes = rng.integers(0, 6, 200)
    y = rng.normal(size=200)
    between = sum((codes == c).sum() * (y[codes == c].mean() - y.mean()) ** 2
                  for c in range(6))
    assert abs(categorical.multiway_gain(codes, y) - between) <= 1e-9 * between


def test_time_categorical_ranks_the_strategies_as_the_theory_says():
    fits = categorical.time_categorical(features=("month", "hour x working day"), repeats=1)
    share = categorical.categorical_table(fits)
    month = share.loc[(12, "month")]
    assert abs(month["partition"] - month["brute force"]) <= 1e-12
    assert month["one_vs_rest"] <= month["partition"] and month["ordinal"] <= month["partition"]
    assert (share["multiway"] >= share["partition"]).all()
    # no brute force beyond 24 categories
    assert np.isnan(share.loc[(48, "hour x working day"), "brute force"])
    assert (fits.seconds > 0).all()
