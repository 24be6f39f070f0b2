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
