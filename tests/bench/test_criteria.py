"""The criteria benchmark, run small: the three absolute-error searches find the same
split, the rescan is the O(n^2) definition, and the Poisson experiment scores what it
says."""

import numpy as np
import pytest
from sklearn.metrics import mean_poisson_deviance

from treelib import best_split
from treelib.bench import criteria


def test_rescan_is_the_definition_of_the_absolute_error_split():
    rng = np.random.default_rng(0)
    for _ in range(20):
        n = int(rng.integers(4, 40))
        x = rng.integers(0, 8, n).astype(np.float64)
        y = rng.integers(0, 6, n).astype(np.float64)
        if np.ptp(x) == 0:
            continue
        threshold, gain = criteria.rescan_median_split(x, y)
        naive = best_split(x[:, None], y, "naive", criterion="absolute_error")
        # losses are sums of n small integers (and halves): exact in floats
        assert gain == naive.gain
        goes_left = x <= threshold
        loss = [np.abs(part - np.median(part)).sum() for part in (y, y[goes_left],
                                                                  y[~goes_left])]
        assert gain == loss[0] - loss[1] - loss[2]


def test_time_medians_finds_one_split_three_ways():
    fits = criteria.time_medians(sizes=(200, 500), repeats=1)
    assert len(fits) == 2 * len(criteria.MEDIAN_METHODS)
    assert (fits.seconds > 0).all()
    for n, part in fits.groupby("n_samples"):
        # the same best gain (rounding of sums of n terms aside), and treelib's running
        # median and the rescan the same threshold (both take the lowest on ties)
        assert np.ptp(part.gain) <= 1e-9 * part.gain.abs().max(), n
        by_method = part.set_index("method").threshold
        assert by_method["running median"] == by_method["rescan"]


def test_the_rescan_stops_at_its_limit(monkeypatch):
    monkeypatch.setattr(criteria, "MAX_RESCAN", 100)
    fits = criteria.time_medians(sizes=(150,), repeats=1)
    assert "rescan" not in set(fits.method)


def test_poisson_deviance_is_scikit_learns():
    rng = np.random.default_rng(1)
    y = rng.poisson(3.0, 200).astype(np.float64)
    mu = rng.uniform(0.5, 6.0, 200)
    assert criteria.poisson_deviance(y, mu) == pytest.approx(mean_poisson_deviance(y, mu),
                                                              rel=1e-12)


def test_time_poisson_scores_both_criteria_on_every_split():
    fits = criteria.time_poisson(depths=("2", "4"), splits=2)
    assert len(fits) == 2 * 2 * len(criteria.POISSON_CRITERIA)
    assert set(fits.split) == {0, 1}
    assert (fits.deviance > 0).all() and fits.r2.between(0.2, 1).all()
    depth_2 = fits[fits.depth == "2"]
    assert (depth_2.n_leaves == 4).all()


def test_bikeshare_split_is_seeded_and_numeric():
    X_train, X_test, y_train, y_test = criteria.bikeshare_split(0)
    assert len(X_train) + len(X_test) == 8645 and X_train.shape[1] == 12
    np.testing.assert_array_equal(criteria.bikeshare_split(0)[1], X_test)
    assert np.isfinite(X_train).all() and (y_train >= 1).all()
