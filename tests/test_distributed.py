"""``treelib.distributed.fit`` on a LocalCluster of two worker processes: the histogram
tree, the boosting regressor and the binary boosting classifier are the local fixed-point fit
bit for bit, with uneven partitions, an empty one and more partitions than workers, with
labels of any dtype, and when a worker dies mid-fit; the inputs it refuses, as the local
fit does; and ``local_cluster`` closes without a word on stderr on a busy machine."""

import asyncio
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import dask.array as da
import numpy as np
import pytest
from dask.distributed import Client, LocalCluster, WorkerPlugin
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

#: The repository (the working directory of the subprocesses that import treelib).
ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def client():
    with distributed.local_cluster(n_workers=2) as (cluster, _):
        client = Client(cluster.scheduler_address)    # as a real cluster is reached
        yield client
        client.close()


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
    (DecisionTreeRegressor(splitter="hist", max_depth=6, histogram_sums="fixed_point"), "y"),
    (DecisionTreeRegressor(splitter="hist", max_depth=6, histogram_sums="fixed_point",
                           ccp_alpha=1e4), "y"),     # 19 of its 119 nodes kept
    (HistGradientBoostingRegressor(max_iter=3, max_leaf_nodes=8,
                                   histogram_sums="fixed_point"), "y"),
    (HistGradientBoostingClassifier(max_iter=3, max_leaf_nodes=8,
                                    histogram_sums="fixed_point"), "labels"),
], ids=["tree", "pruned_tree", "boosting_regressor", "boosting_classifier"])
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
    model = DecisionTreeRegressor(splitter="hist", max_depth=4, histogram_sums="fixed_point")
    remote = distributed.fit(clone(model), da.from_array(X.astype(np.float32), chunks=-1),
                             da.from_array(y, chunks=-1), client)
    assert_bit_for_bit(remote, clone(model).fit(X.astype(np.float32), y), X)


def test_refuses_float_sums_and_other_inputs():
    X, y = np.arange(40.0).reshape(20, 2), np.arange(20.0)
    Xd, yd = da.from_array(X, chunks=(5, -1)), da.from_array(y, chunks=5)
    exact = DecisionTreeRegressor(splitter="hist", histogram_sums="fixed_point")
    with pytest.raises(ValueError, match="needs histogram_sums='fixed_point'"):
        distributed.fit(DecisionTreeRegressor(splitter="hist"), Xd, yd, None)
    with pytest.raises(ValueError, match="needs histogram_sums='fixed_point'"):
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
        distributed.fit(DecisionTreeRegressor(histogram_sums="fixed_point"), Xd, yd, None)
    with pytest.raises(ValueError, match="early stopping"):
        distributed.fit(HistGradientBoostingRegressor(histogram_sums="fixed_point",
                                                      early_stopping=True), Xd, yd, None)


def test_refuses_unknown_chunk_sizes_by_name():
    X = da.from_array(np.arange(40.0).reshape(20, 2) - 20, chunks=(5, -1))
    y = da.from_array(np.arange(20.0), chunks=5)
    exact = DecisionTreeRegressor(splitter="hist", histogram_sums="fixed_point")
    with pytest.raises(ValueError, match=r"X has unknown chunk sizes.*X.compute_chunk_sizes"):
        distributed.fit(exact, X[X[:, 0] > 0], y[y > 9], None)
    with pytest.raises(ValueError, match=r"y has unknown chunk sizes.*y.compute_chunk_sizes"):
        distributed.fit(exact, X[10:], y[y > 9], None)


@pytest.mark.slow
@pytest.mark.parametrize("labels", [np.array([False, True]), np.array([3, 7]),
                                    np.array(["a", "b"]), np.array(["a", "bb"], dtype=object)],
                         ids=["bool", "int", "str", "object"])
def test_classes_and_predictions_keep_the_labels_dtype(client, data, labels):
    X, y = data
    y = labels[(y > 2).astype(int)]
    model = HistGradientBoostingClassifier(max_iter=2, max_leaf_nodes=4,
                                           histogram_sums="fixed_point")
    remote = distributed.fit(clone(model), da.from_array(X, chunks=(CHUNKS, -1)),
                             da.from_array(y, chunks=500), client)
    local = clone(model).fit(X, y)
    assert remote.classes_.dtype == local.classes_.dtype
    assert list(remote.classes_) == list(local.classes_) == list(labels)
    assert remote.predict(X).dtype == local.predict(X).dtype
    assert np.array_equal(remote.predict(X), local.predict(X))
    assert_bit_for_bit(remote, local, X)


@pytest.mark.slow
def test_targets_the_local_fit_refuses_are_refused_as_it_does(client, data):
    X, y = data
    Xd = da.from_array(X, chunks=(CHUNKS, -1))
    regressor = HistGradientBoostingRegressor(max_iter=1, histogram_sums="fixed_point")
    words = da.from_array(np.where(y > 2, "high", "low"), chunks=500)
    with pytest.raises(ValueError, match="y must be numbers for a regressor"):
        distributed.fit(clone(regressor), Xd, words, client)
    numbers = np.where(y > 2, "2.5", "1")                 # the local fit converts them
    remote = distributed.fit(clone(regressor), Xd, da.from_array(numbers, chunks=500),
                             client)
    assert_bit_for_bit(remote, clone(regressor).fit(X, numbers), X)
    classifier = HistGradientBoostingClassifier(max_iter=1, histogram_sums="fixed_point")
    for target, message in [(np.where(y > 2, 0.5, 1.5), "Unknown label type: continuous"),
                            (np.where(y > 2, np.nan, 1.0), "Input y contains NaN")]:
        with pytest.raises(ValueError, match=message):
            clone(classifier).fit(X, target)
        with pytest.raises(ValueError, match=message):
            distributed.fit(clone(classifier), Xd, da.from_array(target, chunks=500),
                            client)


async def die():
    """(Run on a worker: its process ends at once, as a killed one does.)"""
    os._exit(1)


def fit_in_thread(*args, seconds=60):
    """``distributed.fit(*args)`` in a daemon thread: its result or exception, or None if
    it has not returned within ``seconds``."""
    out = []

    def run():
        try:
            out.append(distributed.fit(*args))
        except Exception as error:                  # handed to the test
            out.append(error)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    return out[0] if out else None


def kill_at_round(monkeypatch, number, kill):
    """Make ``DaskParts.reduce`` call ``kill(parts)`` before its round ``number``."""
    reduce, rounds = distributed.DaskParts.reduce, []

    def counting(parts, method, *args):
        rounds.append(method)
        if len(rounds) == number:
            kill(parts)
        return reduce(parts, method, *args)

    monkeypatch.setattr(distributed.DaskParts, "reduce", counting)


@pytest.mark.slow
@pytest.mark.parametrize("model", [
    DecisionTreeRegressor(splitter="hist", max_depth=5, histogram_sums="fixed_point"),
    HistGradientBoostingRegressor(max_iter=3, max_leaf_nodes=8, histogram_sums="fixed_point"),
], ids=["tree", "boosting"])
def test_a_worker_killed_mid_fit_is_replaced_exactly(client, data, model, monkeypatch):
    X, y = data
    kill_at_round(monkeypatch, 6, lambda parts: client.run(die, workers=[parts.workers[-1]],
                                                           wait=False))
    start = time.perf_counter()
    remote = fit_in_thread(clone(model), da.from_array(X, chunks=(CHUNKS, -1)),
                           da.from_array(y, chunks=500), client)
    assert remote is not None, "distributed.fit still blocked 60 s after a worker died"
    assert not isinstance(remote, Exception), remote
    assert_bit_for_bit(remote, clone(model).fit(X, y), X)
    assert remote.distributed_stats_["parts_rebuilt"] >= 1
    print(f"fit with a worker killed: {time.perf_counter() - start:.1f} s")


@pytest.mark.filterwarnings("ignore:Port .* is already in use")
def test_a_fit_whose_workers_all_left_raises_within_its_timeout(monkeypatch):
    X = np.random.default_rng(0).normal(size=(200, 3))
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        kill_at_round(monkeypatch, 3, lambda parts: cluster.scale(0))
        start = time.perf_counter()
        error = fit_in_thread(
            DecisionTreeRegressor(splitter="hist", max_depth=4, histogram_sums="fixed_point"),
            da.from_array(X, chunks=(50, -1)), da.from_array(X[:, 0], chunks=50), client,
            2.0)
        assert isinstance(error, distributed.WorkerLostError), error
        assert "none joined within 2.0 s" in str(error)
        assert time.perf_counter() - start < 30


CYCLE = """
import numpy as np
from treelib import distributed
from treelib.estimators import DecisionTreeRegressor
X = np.random.default_rng(0).normal(size=(400, 3))
tree = DecisionTreeRegressor(splitter="hist", max_depth=3, histogram_sums="fixed_point")
if {with_block}:
    with distributed.local_cluster() as (cluster, client):
        distributed.fit(tree, distributed.row_blocks(X, 100),
                        distributed.row_blocks(X[:, 0], 100), client)
else:
    cluster, client = distributed.local_cluster()
    distributed.fit(tree, distributed.row_blocks(X, 100),
                    distributed.row_blocks(X[:, 0], 100), client)
    client.close()
    cluster.close()
"""


@pytest.mark.slow
def test_a_local_cluster_closes_silently_with_both_cores_busy():
    """Five fresh processes (as five kernels) start a cluster, fit, close it, while two
    busy loops keep both cores busy: nothing may reach stderr (the book's build fails on
    it).  The old shutdown wrote "Worker process still alive after 4.0 seconds, killing",
    and "Failed to communicate with scheduler during heartbeat" when the scheduler was
    slow to answer a worker that was closing."""
    spinners = [subprocess.Popen([sys.executable, "-c", "while True: pass"])
                for _ in range(2)]
    try:
        for cycle in range(5):
            run = subprocess.run([sys.executable, "-c",
                                  CYCLE.format(with_block=cycle % 2 == 0)],
                                 cwd=ROOT, capture_output=True, text=True, timeout=600)
            assert run.returncode == 0 and run.stderr == "", f"cycle {cycle}: {run.stderr}"
    finally:
        for spinner in spinners:
            spinner.kill()
            spinner.wait()


class SlowClose(WorkerPlugin):
    """(A worker slow to close, as on a loaded machine: its plugins' teardown takes 1.5 s,
    while its heartbeat goes on.)"""

    async def teardown(self, worker):
        await asyncio.sleep(1.5)


RACE = """
import time
from dask.distributed import Client, LocalCluster
from tests.test_distributed import SlowClose
from treelib import distributed
if {old}:
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None)
    client = Client(cluster)
else:
    cluster, client = distributed.local_cluster()
client.register_plugin(SlowClose())
client.close()
cluster.loop.add_callback(lambda: cluster.loop.call_later(0.3, time.sleep, 3))
cluster.close()
"""


@pytest.mark.slow
def test_a_closing_worker_waits_for_its_heartbeat_in_flight():
    """The race, made certain: the scheduler's process busy for 3 s (its loop blocked)
    while the workers close slowly.  A LocalCluster's worker closes its connections with a
    heartbeat in flight, which logs "Failed to communicate with scheduler during
    heartbeat"; ``local_cluster``'s worker awaits the heartbeat's answer first."""
    def run(old):
        return subprocess.run([sys.executable, "-c", RACE.format(old=old)], cwd=ROOT,
                              capture_output=True, text=True, timeout=600)

    assert "Failed to communicate with scheduler during heartbeat" in run(True).stderr
    silent = run(False)
    assert silent.returncode == 0 and silent.stderr == "", silent.stderr
