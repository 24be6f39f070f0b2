"""Chapter 26 ("Many machines"): the claims its text makes about what travels per level,
the latency-bandwidth model, one pass per level and Spark's passes, checked (no
cluster: the Dask fit's bit-identity is tests/test_distributed.py's)."""

import numpy as np
import pytest

from tests.conftest import claim
from treelib.bench import load_results
from treelib.communication import (
    Histograms,
    Network,
    histogram_bytes,
    level_traffic,
    simulate_fit,
    spark_passes,
)
from treelib.counters import GrowthCounter
from treelib.criteria import one_hot
from treelib.datasets import load_california_housing, load_libsvm
from treelib.growth import RandomTreeRule, StoppingRules, grow_random_tree

NAME = "26_many_machines.ipynb"
SCHEMES = ("allreduce", "reduce_scatter", "tree", "feature_parallel")


@pytest.fixture(scope="module")
def california():
    return load_california_housing(return_X_y=True)


def test_deep_levels_outweigh_california(california):
    X = california[0]
    assert histogram_bytes(2**8, 8, 255, 2) > X.nbytes > histogram_bytes(2**5, 8, 255, 2)


def test_the_simulated_scaling_the_text_describes():
    claim(NAME, "a small data set is fastest on one machine, a billion rows on hundreds of "
                "workers or more")
    _, info = load_results("parallel")
    network = Network(float(info["network alpha (s)"]), float(info["network beta (bytes/s)"]))
    per_pair = 40e-9
    for scheme in SCHEMES:
        one = simulate_fit(scheme, 1, 20_640, 8, 10, network, per_pair)["seconds"]
        assert all(simulate_fit(scheme, p, 20_640, 8, 10, network, per_pair)["seconds"] > one
                   for p in (2, 8, 64, 1000))
        big = [simulate_fit(scheme, p, 10**9, 50, 10, network, per_pair)["seconds"]
               for p in (1, 8, 100)]
        assert big[0] / big[1] > 7 and big[0] / big[2] > 10


def test_spark_passes_of_the_text():
    assert [spark_passes(2**d, 100, 32) for d in (10, 11, 12)] == [1, 1, 2]
    passes = [spark_passes(2**d, 1000, 32) for d in range(12)]
    assert next(d for d, p in enumerate(passes) if p > 1) == 9


def test_a_random_decision_tree_is_one_pass_per_level():
    claim(NAME, "Twelve levels, twelve passes over the rows that are still in nodes that may "
                "split: the count the seed warns about.")
    a9a = load_libsvm("a9a")
    counter = GrowthCounter()
    rule = RandomTreeRule("gini", min_samples_leaf=4, rng=np.random.default_rng(0))
    grow_random_tree(a9a.X_train, one_hot(a9a.y_train, 2), rule, StoppingRules(max_depth=12),
                     counter)
    assert counter.levels == 12
    assert counter.samples_per_depth[0] == len(a9a.y_train)
    assert max(counter.samples_per_depth) <= len(a9a.y_train)


def test_the_scaling_of_a_billion_rows_the_text_reads():
    claim(NAME, "the ring schemes and feature-parallel are fastest on 256 workers and slower on "
                "1,000, the tree is fastest on 1,000.")
    claim(NAME, "bytes decide and the ring schemes come out ahead of the tree, if only "
                "slightly: the compute then takes most of every scheme's time.")
    _, info = load_results("parallel")
    network = Network(float(info["network alpha (s)"]), float(info["network beta (bytes/s)"]))
    per_pair = 35e-9
    workers = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1000]

    def seconds(scheme, p, net=network, key="seconds"):
        return simulate_fit(scheme, p, 10**9, 50, 10, net, per_pair)[key]

    for scheme in SCHEMES:
        fastest = workers[int(np.argmin([seconds(scheme, p) for p in workers]))]
        assert fastest == (1000 if scheme == "tree" else 256)
    mpi = Network(5e-6, network.beta)
    on_1000 = {scheme: seconds(scheme, 1000, mpi) for scheme in SCHEMES}
    assert max(on_1000["allreduce"], on_1000["reduce_scatter"]) < on_1000["tree"]
    assert on_1000["tree"] < 1.05 * min(on_1000["allreduce"], on_1000["reduce_scatter"])
    compute = seconds("tree", 1000, mpi, "compute_seconds")
    assert all(compute > t / 2 for t in on_1000.values())


def test_a_central_worker_carries_p_over_2_times_a_ring_worker():
    claim(NAME, "$p/2$ times what a worker of the ring sends (and receives)")
    message = histogram_bytes(2**8, 8, 255, 2)
    for p in (2, 8, 100):
        ring = level_traffic("allreduce", p, 2**8, 8, 255, 2)[1]
        assert (p - 1) * message == pytest.approx(p / 2 * ring)


def test_digits_cost_little_and_the_subtraction_trick_much():
    claim(NAME, "The subtraction trick matters far more: without it every level counts "
                "all its rows and sends every node's histograms, and the compute nearly "
                "doubles")
    claim(NAME, "Twice the bytes cost little, and the same seconds with either latency")
    claim(NAME, "pays the most, a few percent; feature-parallel, which sends no histograms, "
                "pays nothing.")
    _, info = load_results("parallel")
    network = Network(float(info["network alpha (s)"]), float(info["network beta (bytes/s)"]))
    per_pair = 35e-9

    def seconds(scheme, net, h, key="seconds"):
        return simulate_fit(scheme, 1000, 10**9, 50, 10, net, per_pair,
                            histograms=h)[key]

    extra = {}
    for net in (network, Network(5e-6, network.beta)):
        for scheme in SCHEMES:
            base = seconds(scheme, net, Histograms())
            digits = seconds(scheme, net, Histograms(limbs=2))
            assert base <= digits < 1.05 * base
            extra.setdefault(scheme, []).append(digits - base)
            if scheme == "feature_parallel":
                assert digits == base
            ratio = (seconds(scheme, net, Histograms(subtraction=False),
                             "compute_seconds")
                     / seconds(scheme, net, Histograms(), "compute_seconds"))
            assert 1.7 < ratio < 2
    for dask, mpi in extra.values():        # the same seconds with either latency
        assert dask == pytest.approx(mpi, abs=1e-9)
    assert max(extra, key=lambda scheme: extra[scheme][0]) == "tree"
