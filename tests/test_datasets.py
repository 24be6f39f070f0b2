"""treelib's copy of california_housing matches scikit-learn's conventions."""

import numpy as np
import pandas as pd
import pytest

from treelib.datasets import FEATURE_NAMES, load_california_housing, load_seed_timings


def test_shape_names_and_means():
    # the means and names given in ../shared/data/README.md
    data = load_california_housing()
    assert data.data.shape == (20640, 8)
    assert data.target.shape == (20640,)
    assert data.feature_names == ["MedInc", "HouseAge", "AveRooms", "AveBedrms",
                                  "Population", "AveOccup", "Latitude", "Longitude"]
    assert data.target_names == ["MedHouseVal"]
    np.testing.assert_allclose(
        data.data.mean(axis=0),
        [3.870671, 28.639486, 5.428999, 1.096675, 1425.476744, 3.070655, 35.631861,
         -119.569704], atol=5e-7)
    assert data.target.mean() == pytest.approx(2.068558, abs=5e-7)
    assert data.frame is None
    assert "Pace" in data.DESCR


def test_first_row_follows_the_transformation():
    # raw: -122.23,37.88,41,880,129,322,126,8.3252,452600
    X, y = load_california_housing(return_X_y=True)
    np.testing.assert_array_equal(
        X[0], [8.3252, 41.0, 880 / 126, 129 / 126, 322.0, 322 / 126, 37.88, -122.23])
    assert y[0] == 452600 / 100000.0


def test_as_frame():
    data = load_california_housing(as_frame=True)
    assert isinstance(data.data, pd.DataFrame) and list(data.data.columns) == FEATURE_NAMES
    assert isinstance(data.target, pd.Series) and data.target.name == "MedHouseVal"
    assert list(data.frame.columns) == FEATURE_NAMES + ["MedHouseVal"]
    X, y = load_california_housing(return_X_y=True, as_frame=True)
    np.testing.assert_array_equal(X.to_numpy(), load_california_housing().data)
    assert isinstance(y, pd.Series)


def test_loading_twice_gives_independent_arrays():
    a = load_california_housing().data
    a[:] = 0
    assert load_california_housing().data[0, 0] == 8.3252


def test_seed_timings():
    table = load_seed_timings()
    assert list(table.columns) == ["n_samples", "baseline_seconds", "fast_seconds"]
    assert len(table) == 103
    assert table.n_samples.iloc[0] == 500 and table.n_samples.iloc[-1] == 20000
    # the seed reports a speed-up of about 55x at n = 20,000
    last = table.iloc[-1]
    assert last.baseline_seconds / last.fast_seconds == pytest.approx(55, abs=1)


# ---- LIBSVM data sets (seed article 001's table) -------------------------------------

def test_shipped_libsvm_files_are_the_published_ones():
    import hashlib

    from treelib.datasets import data_path

    sums = data_path("libsvm/MD5SUMS").read_text().split()
    for digest, name in zip(sums[0::2], sums[1::2]):
        assert hashlib.md5(data_path(f"libsvm/{name}").read_bytes()).hexdigest() == digest


@pytest.mark.parametrize("name, n_train, n_test, n_features, n_positive_train", [
    ("a1a", 1605, 30956, 123, 395),
    ("a9a", 32561, 16281, 123, 7841),
    ("mushrooms", 7124, 1000, 112, None),
    ("splice", 1000, 2175, 60, 517),
])
def test_libsvm_splits_have_the_documented_sizes(name, n_train, n_test, n_features,
                                                 n_positive_train):
    from treelib.datasets import load_libsvm

    data = load_libsvm(name)
    assert data.X_train.shape == (n_train, n_features)
    assert data.X_test.shape == (n_test, n_features)
    assert set(np.unique(data.y_train)) == set(np.unique(data.y_test)) == {0, 1}
    if n_positive_train is not None:
        assert data.y_train.sum() == n_positive_train


def test_mushrooms_split_is_seeded_and_disjoint():
    from treelib.datasets import load_libsvm

    a, b, c = load_libsvm("mushrooms"), load_libsvm("mushrooms"), load_libsvm("mushrooms",
                                                                               seed=1)
    np.testing.assert_array_equal(a.X_test, b.X_test)
    assert not np.array_equal(a.X_test, c.X_test)
    assert a.y_train.sum() + a.y_test.sum() == 3916     # every row used exactly once


def test_sparse_on_request_and_unknown_names():
    from scipy import sparse

    from treelib.datasets import load_libsvm

    assert sparse.issparse(load_libsvm("splice", dense=False).X_train)
    with pytest.raises(ValueError, match="unknown LIBSVM data set 'w1a'"):
        load_libsvm("w1a")


def test_seed_auc_table():
    from treelib.datasets import load_seed_auc_table

    table = load_seed_auc_table()
    assert len(table) == 16 and set(table.data) == {"a1a", "a9a", "mushrooms", "splice"}
    assert table.set_index(["data", "method"]).loc[("a1a", "RDT"), "auc"] == 0.879


# ---- bikeshare, penguins and missing values ------------------------------------------------


def test_shipped_extra_files_are_the_recorded_ones():
    import gzip
    import hashlib

    from treelib.datasets import data_path

    sums = data_path("extra/MD5SUMS").read_text().split()
    assert sums[1::2] == ["bikeshare.csv", "penguins.csv"]
    for digest, name in zip(sums[0::2], sums[1::2]):
        raw = gzip.decompress(data_path(f"extra/{name}.gz").read_bytes())
        assert hashlib.md5(raw).hexdigest() == digest


def test_bikeshare():
    from treelib.datasets import MONTHS, WEATHER, load_bikeshare

    data = load_bikeshare()
    X, y = data.data, data.target
    assert X.shape == (8645, 12) and len(y) == 8645 and y.name == "bikers"
    assert data.feature_names == list(X.columns) and data.target_names == ["bikers"]
    # the two counts that add up to the target are left out
    assert not {"casual", "registered"} & set(data.frame.columns)
    assert list(data.frame.columns) == list(X.columns) + ["bikers"]
    # counts of rentals, 1 .. 651, every hour of the day
    assert y.dtype.kind == "i" and (y.min(), y.max()) == (1, 651)
    assert sorted(X["hr"].unique()) == list(range(24))
    # months and weather as pandas categories, in their natural order, none missing
    assert X["mnth"].cat.categories.tolist() == MONTHS and len(MONTHS) == 12
    assert X["weathersit"].cat.categories.tolist() == WEATHER and len(WEATHER) == 4
    assert not data.frame.isna().any().any()
    assert set(X["mnth"]) == set(MONTHS)                   # 2011: every month present
    X2, y2 = load_bikeshare(return_X_y=True)
    pd.testing.assert_frame_equal(X2, X)
    pd.testing.assert_series_equal(y2, y)


def test_penguins():
    from treelib.datasets import load_penguins

    data = load_penguins()
    X, y = data.data, data.target
    assert X.shape == (344, 7) and y.name == "species"
    assert y.value_counts().to_dict() == {"Adelie": 152, "Gentoo": 124, "Chinstrap": 68}
    assert X["island"].cat.categories.tolist() == ["Biscoe", "Dream", "Torgersen"]
    assert X["sex"].dtype == "category"
    # genuine missing values: sex for 11 birds, the four measurements for 2 (the same 2)
    missing = X.isna().sum().to_dict()
    assert missing == {"island": 0, "bill_length_mm": 2, "bill_depth_mm": 2,
                       "flipper_length_mm": 2, "body_mass_g": 2, "sex": 11, "year": 0}
    measured = ["bill_length_mm", "bill_depth_mm", "flipper_length_mm", "body_mass_g"]
    assert (X[measured].isna().sum(axis=1) % 4 == 0).all()
    assert X["sex"].isna().sum() == 11 and y.isna().sum() == 0


@pytest.mark.parametrize("fraction", [0.0, 0.1, 0.25, 1.0])
@pytest.mark.parametrize("mechanism", ["completely_at_random", "not_at_random"])
def test_mask_values_hides_a_fraction_of_one_feature(fraction, mechanism):
    from treelib.datasets import mask_values

    X = np.arange(60.0).reshape(20, 3)[np.random.default_rng(0).permutation(20)]
    masked = mask_values(X, fraction, feature=1, mechanism=mechanism, seed=3)
    hidden = np.isnan(masked[:, 1])
    assert hidden.sum() == round(fraction * 20)
    np.testing.assert_array_equal(masked[~hidden], X[~hidden])      # nothing else moves
    np.testing.assert_array_equal(np.delete(masked, 1, axis=1), np.delete(X, 1, axis=1))
    assert not np.isnan(X).any()                                   # a copy


def test_mask_values_mechanisms():
    from treelib.datasets import mask_values

    x = np.random.default_rng(1).permutation(np.arange(1000.0))[:, None]
    mnar = np.isnan(mask_values(x, 0.2, mechanism="not_at_random")[:, 0])
    # not at random: exactly the 200 largest values are hidden
    assert x[mnar, 0].min() == 800.0 and x[~mnar, 0].max() == 799.0
    # completely at random: seeded, another seed hides other values; the hidden values
    # look like all of them (mean 499.5, a standard error of 20 for 200 draws)
    a = np.isnan(mask_values(x, 0.2, seed=0)[:, 0])
    assert np.array_equal(a, np.isnan(mask_values(x, 0.2, seed=0)[:, 0]))
    assert not np.array_equal(a, np.isnan(mask_values(x, 0.2, seed=1)[:, 0]))
    assert abs(x[a, 0].mean() - 499.5) < 5 * 20
    with pytest.raises(ValueError, match="mechanism must be 'completely_at_random' or "
                                         "'not_at_random'; got 'at_random'"):
        mask_values(x, 0.2, mechanism="at_random")
