"""The cost models of ``treelib.communication``: message sizes, the schemes' traffic,
the latency-bandwidth fit, Spark MLlib's passes and Amdahl's law, on numbers worked by
hand."""

import math

import pytest

from treelib.communication import (
    SCHEMES,
    SPLIT_BYTES,
    Histograms,
    Network,
    amdahl_fit,
    amdahl_speedup,
    fit_network,
    histogram_bytes,
    level_traffic,
    simulate_fit,
    spark_passes,
)


def test_a_levels_message_is_nodes_features_bins_statistics_doubles():
    assert histogram_bytes(4, 8, 255, 2) == 4 * 8 * 255 * 2 * 8
    assert histogram_bytes(4, 8, 255, 2, limbs=3) == 3 * histogram_bytes(4, 8, 255, 2)


@pytest.mark.parametrize("p", [2, 3, 8, 1000])
def test_each_scheme_sends_what_its_algorithm_says(p):
    m, f, b, k = 16, 8, 255, 2
    message = histogram_bytes(m, f, b, k)
    rounds = math.ceil(math.log2(p))
    assert level_traffic("allreduce", p, m, f, b, k) == (2 * (p - 1), 2 * (p - 1) / p * message)
    messages, sent = level_traffic("reduce_scatter", p, m, f, b, k)
    assert sent == pytest.approx((p - 1) / p * message + (p - 1) * m * SPLIT_BYTES)
    assert level_traffic("tree", p, m, f, b, k) == (2 * rounds,
                                                    rounds * (message + m * SPLIT_BYTES))
    # feature-parallel: no histogram at all, only splits and one bit per row
    _, sent = level_traffic("feature_parallel", p, m, f, b, k, rows=8_000)
    assert sent == (p - 1) * m * SPLIT_BYTES + rounds * 1_000
    # voting: the histograms of 2 top_k features only
    _, sent = level_traffic("voting", p, m, f, b, k, top_k=1)
    assert sent == pytest.approx((p - 1) * m * 8 + 2 * (p - 1) / p * histogram_bytes(m, 2, b, k))
    for scheme in SCHEMES:
        assert level_traffic(scheme, 1, m, f, b, k) == (0, 0.0)
    with pytest.raises(ValueError, match="scheme"):
        level_traffic("gossip", p, m, f, b, k)


def test_reduce_scatter_sends_half_of_an_allreduce():
    _, ring = level_traffic("allreduce", 64, 32, 28, 255, 2)
    _, scatter = level_traffic("reduce_scatter", 64, 32, 28, 255, 2)
    assert 0.5 < scatter / ring < 0.51


def test_network_fit_recovers_alpha_and_beta():
    truth = Network(alpha=2e-3, beta=5e8)
    sizes = [1e3, 1e5, 1e7, 1e8]
    fitted = fit_network(sizes, [truth.seconds(1, s) for s in sizes])
    assert fitted.alpha == pytest.approx(2e-3, rel=1e-6)
    assert fitted.beta == pytest.approx(5e8, rel=1e-6)


def test_simulated_fit_shares_compute_and_pays_communication():
    network = Network(alpha=1e-3, beta=1e9)
    one = simulate_fit("allreduce", 1, 10**9, 50, 10, network, 2e-9)
    many = simulate_fit("allreduce", 100, 10**9, 50, 10, network, 2e-9)
    assert one["comm_seconds"] == 0 and many["comm_seconds"] > 0
    assert many["compute_seconds"] == pytest.approx(one["compute_seconds"] / 100)
    # without subtraction every row is counted at every level
    plain = simulate_fit("allreduce", 1, 1000, 5, 4, network, 1.0,
                         histograms=Histograms(subtraction=False))
    assert plain["compute_seconds"] == 4 * 1000 * 5


def test_simulated_fit_sends_its_histograms_digits():
    network = Network(alpha=1e-3, beta=1e9)
    one = simulate_fit("tree", 8, 1000, 5, 4, network, 1.0)
    three = simulate_fit("tree", 8, 1000, 5, 4, network, 1.0, histograms=Histograms(limbs=3))
    # tree: 3 rounds per level, each of the message and the splits; 1 + 1 + 2 + 4 nodes
    splits = 3 * 8 * SPLIT_BYTES
    assert one["bytes"] == 3 * histogram_bytes(8, 5, 255, 2) + splits
    assert three["bytes"] == 3 * histogram_bytes(8, 5, 255, 2, limbs=3) + splits
    assert three["compute_seconds"] == one["compute_seconds"]


def test_spark_groups_nodes_under_its_memory_cap():
    per_node = 100 * 32 * 3 * 8                      # features x bins x statistics x 8
    per_pass = 256 * 2**20 // per_node
    assert spark_passes(per_pass, 100, 32) == 1
    assert spark_passes(per_pass + 1, 100, 32) == 2
    assert spark_passes(4096, 100, 32, max_memory_mb=1) == math.ceil(4096 / (2**20 // per_node))


def test_amdahl():
    assert amdahl_speedup(0.0, 8) == pytest.approx(8)
    assert amdahl_speedup(1.0, 8) == pytest.approx(1)
    s, t1 = amdahl_fit([1, 2, 4], [10 * (0.3 + 0.7 / p) for p in (1, 2, 4)])
    assert s == pytest.approx(0.3) and t1 == pytest.approx(10)
    assert amdahl_fit([1, 2], [1.0, 1.2])[0] == 1.0      # slower with more: clipped
