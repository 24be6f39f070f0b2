"""``treelib.distributed.fit`` on a LocalCluster of two worker processes: the histogram
tree, the boosting regressor and the binary boosting classifier are the local exact fits
bit for bit, with uneven partitions, an empty one and more partitions than workers; and
the inputs it refuses."""

import dask.array as da
import numpy as np
import pytest
from sklearn.base import clone

from tests.reference import assert_identical_trees
from treelib import distributed
from treelib.datasets import load_california_housing
from treelib.estimators import (
    DecisionTreeClassifier,
    DecisionTreeRegressor,
    HistGradientBoostingClassifier,
    HistGradientBoostingRegressor,
)

#: Uneven partitions, an empty one, more partitions than workers.
CHUNKS = (700, 0, 300, 1000)


@pytest.fixture(scope="module")
def client():
    from dask.distributed import Client, LocalCluster

    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                           dashboard_address=None)
    client = Client(cluster.scheduler_address)        # as a real cluster is reached
    yield client
    client.close()
    cluster.close()


@pytest.fixture(scope="module")
def data():
    X, y = load_california_housing(return_X_y=True)
    return X[:2000], y[:2000]


def fitted_trees(model):
    return [model.tree_] if hasattr(model, "tree_") else [row[0] for row in model.trees_]


def assert_bit_for_bit(remote, local, X):
    assert len(fitted_trees(remote)) == len(fitted_trees(local))
    for a, b in zip(fitted_trees(remote), fitted_trees(local)):
        assert_identical_trees(a, b)
    assert np.array_equal(remote.predict(X), local.predict(X))
    for name in ("bin_thresholds_",):
        assert all(np.array_equal(p, q) for p, q in zip(getattr(remote, name),
                                                        getattr(local, name)))


@pytest.mark.slow
@pytest.mark.parametrize("model, target", [
    (DecisionTreeRegressor(splitter="hist", max_depth=6, histogram_sums="exact"), "y"),
    (HistGradientBoostingRegressor(max_iter=3, max_leaf_nodes=8,
                                   histogram_sums="exact"), "y"),
    (HistGradientBoostingClassifier(max_iter=3, max_leaf_nodes=8,
                                    histogram_sums="exact"), "labels"),
], ids=["tree", "boosting_regressor", "boosting_classifier"])
def test_distributed_fit_is_the_local_fit_bit_for_bit(client, data, model, target):
    X, y = data
    y = np.where(y > 2, "high", "low") if target == "labels" else y * 1e3 + 5e6
    remote = distributed.fit(clone(model), da.from_array(X, chunks=(CHUNKS, -1)),
                             da.from_array(y, chunks=500), client)
    local = clone(model).fit(X, y)
    assert_bit_for_bit(remote, local, X)
    if target == "labels":
        assert np.array_equal(remote.classes_, local.classes_)
        assert np.array_equal(remote.predict_proba(X), local.predict_proba(X))
    stats = remote.distributed_stats_
    assert stats["partitions"] == 4 and stats["workers"] <= 2
    assert stats["rows_per_partition"] == list(CHUNKS)
    assert stats["summary_rounds"] >= 1 and stats["bytes_reduced"] > 0


@pytest.mark.slow
def test_float32_dask_input_and_one_partition(client, data):
    X, y = data
    model = DecisionTreeRegressor(splitter="hist", max_depth=4, histogram_sums="exact")
    remote = distributed.fit(clone(model), da.from_array(X.astype(np.float32), chunks=-1),
                             da.from_array(y, chunks=-1), client)
    assert_bit_for_bit(remote, clone(model).fit(X.astype(np.float32), y), X)


def test_refuses_float_sums_and_other_inputs():
    X, y = np.arange(40.0).reshape(20, 2), np.arange(20.0)
    Xd, yd = da.from_array(X, chunks=(5, -1)), da.from_array(y, chunks=5)
    exact = DecisionTreeRegressor(splitter="hist", histogram_sums="exact")
    with pytest.raises(ValueError, match="needs histogram_sums='exact'"):
        distributed.fit(DecisionTreeRegressor(splitter="hist"), Xd, yd, None)
    with pytest.raises(ValueError, match="needs histogram_sums='exact'"):
        distributed.fit(HistGradientBoostingRegressor(), Xd, yd, None)
    with pytest.raises(ValueError, match="must be dask arrays"):
        distributed.fit(exact, X, y, None)
    with pytest.raises(ValueError, match="partitioned by rows only"):
        distributed.fit(exact, da.from_array(X, chunks=(5, 1)), yd, None)
    with pytest.raises(ValueError, match="as many rows"):
        distributed.fit(exact, Xd, yd[:10], None)
    with pytest.raises(ValueError, match="fits"):
        distributed.fit(DecisionTreeClassifier(), Xd, yd, None)
    with pytest.raises(ValueError, match="splitter='hist'"):
        distributed.fit(DecisionTreeRegressor(histogram_sums="exact"), Xd, yd, None)
    with pytest.raises(ValueError, match="early stopping"):
        distributed.fit(HistGradientBoostingRegressor(histogram_sums="exact",
                                                      early_stopping=True), Xd, yd, None)
