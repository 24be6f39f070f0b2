"""Appendix A4 ("The seed's timing table, rerun"): the claims about the published table and
the shape of the committed file.  No claim about our own seconds is asserted: they belong
to the machine that ran them."""

import pytest

from treelib.bench import fit_exponent, load_results, timing
from treelib.datasets import load_seed_timings


def test_the_committed_file_records_its_machine_and_follows_the_seeds_grid():
    fits, record = load_results("timing_full")
    for key in ["cpu", "logical_cpus", "python", "numpy", "scikit-learn", "threads",
                "treelib commit", "date", "grid", "max_depth"]:
        assert key in record
    assert record["grid"] == "seed"
    seed = load_seed_timings()
    assert sorted(fits.n_samples.unique()) == seed.n_samples.tolist()
    assert fits.groupby("n_samples").repeat.nunique().to_dict() == dict(timing.SEED_GRID)


def test_the_published_speed_up_and_exponents():
    seed = load_seed_timings().set_index("n_samples")
    n = seed.index.to_numpy()
    ratio = seed.baseline_seconds / seed.fast_seconds
    assert ratio.loc[500] == pytest.approx(18.7, abs=0.05)
    assert ratio.loc[20000] == pytest.approx(55.1, abs=0.05)
    assert fit_exponent(n, ratio) == pytest.approx(0.22, abs=0.005)
    upper = n >= 8000
    assert fit_exponent(n[upper], seed.baseline_seconds[upper]) == pytest.approx(1.73, abs=0.005)


def test_the_seeds_bump():
    """The published fast-scan times nearly double from 6,600 to 7,200 (three repeats per
    size there) and fall back, while the baseline on the same samples rises smoothly."""
    seed = load_seed_timings().set_index("n_samples")
    fast, baseline = seed.fast_seconds, seed.baseline_seconds
    assert dict(timing.SEED_GRID)[7000] == 3
    bump = fast.loc[6600:7200]
    assert len(bump) == 7 and (bump > 1.25 * fast.loc[6400]).all()
    assert (bump > 1.25 * fast.loc[7300]).all()
    assert fast.loc[7100] / fast.loc[6400] == pytest.approx(1.95, abs=0.01)
    window = baseline.loc[6200:7500]
    assert window.max() / window.min() == pytest.approx(1.30, abs=0.005)
