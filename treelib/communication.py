"""What a parallel tree costs: Amdahl's law for threads, and the bytes a distributed tree
sends per level with the time they take (a latency-bandwidth model), on paper.

**Threads.**  If a fraction s of one thread's time stays serial, p threads take
``s + (1 - s) / p`` of it (Amdahl, 1967): the speed-up is at most 1 / s, however many
cores.  ``amdahl_fit`` finds s from measured times, ``amdahl_speedup`` extrapolates.

**Machines.**  A split needs only sums: with the rows spread over p workers, each worker
builds its nodes' histograms from its own rows, and the histograms are added up.  A
level of m nodes, f features, B bins and k statistics per bin (2 for squared error:
the sum and the count; ``limbs`` float64 digits each for exact fixed-point sums,
``treelib.fixed_point``) makes a message of ``m f B k 8 limbs`` bytes per worker
(``histogram_bytes``), whatever the number of rows.  How it travels (``level_traffic``,
the messages and bytes on one worker's critical path):

=================== ===================================================================
``allreduce``       ring all-reduce: 2 (p - 1) steps, each worker sends and receives
                    2 (p - 1) / p of the message; every worker then has every sum and
                    chooses the same splits (XGBoost's and treelib.distributed's way)
``reduce_scatter``  LightGBM's data-parallel learner: each worker receives and adds up
                    the histograms of f / p features only ((p - 1) / p of the message),
                    finds their best splits, and the splits are all-gathered
``tree``            a reduction up a binary tree (ceil(log2 p) rounds of the whole
                    message) and the splits broadcast back down
``feature_parallel`` each worker holds every row of f / p features: it sends only its
                    best split per node, and the winner broadcasts which rows go left
                    (one bit per row; LightGBM's feature-parallel learner keeps every row
                    on every worker to avoid even that)
``voting``          LightGBM's voting-parallel learner (PV-Tree): each worker votes for
                    its top-k features per node, and only the 2k elected features'
                    histograms are all-reduced
=================== ===================================================================

A message of b bytes costs ``alpha + b / beta`` seconds (``Network``: latency alpha,
bandwidth beta, Hockney's model).  ``simulate_fit`` adds the compute (rows x features
histogram updates per level, divided among the workers) to the communication, level by
level, for a tree grown level-wise to a given depth, its histograms described by
``Histograms`` (bins, statistics, digits, subtraction).

**Spark MLlib** groups the nodes of a level under a memory cap (``maxMemoryInMB``,
default 256): ``spark_passes`` counts the passes over the data one level then takes.
Everything here is arithmetic on numbers: O(levels) per call.
"""

import math
from dataclasses import dataclass

import numpy as np

#: The ways of adding up histograms (or not) that ``level_traffic`` knows.
SCHEMES = ("allreduce", "reduce_scatter", "tree", "feature_parallel", "voting")
#: Bytes of one chosen split sent between workers: feature, bin and gain.
SPLIT_BYTES = 3 * 8


@dataclass(frozen=True)
class Network:
    """Hockney's model of a link: a message of b bytes takes ``alpha + b / beta``
    seconds (``alpha`` the latency in seconds, ``beta`` the bandwidth in bytes/s)."""

    alpha: float
    beta: float

    def seconds(self, messages, n_bytes):
        return messages * self.alpha + n_bytes / self.beta


def fit_network(n_bytes, seconds):
    """The ``Network`` that fits measured transfer times best (least squares of
    ``seconds = alpha + bytes / beta``)."""
    slope, intercept = np.polyfit(np.asarray(n_bytes, float), np.asarray(seconds, float), 1)
    return Network(alpha=max(float(intercept), 0.0), beta=float(1 / slope))


def histogram_bytes(nodes, features, bins, statistics, limbs=1):
    """Bytes of the histograms of a level: nodes x features x bins x statistics x 8
    bytes (x limbs for exact fixed-point digits)."""
    return nodes * features * bins * statistics * 8 * limbs


def level_traffic(scheme, workers, nodes, features, bins, statistics, *, rows=0, top_k=2):
    """``(messages, bytes)`` that one worker sends in sequence for one level under
    ``scheme`` (a name of ``SCHEMES``; see the module docstring): ``nodes`` histograms of
    ``features`` x ``bins`` x ``statistics`` float64 numbers (for exact fixed-point sums,
    ``statistics`` counts each digit: the statistics times ``limbs``, see
    ``histogram_bytes``); ``rows``: the rows of the level (for the partition bits of
    ``feature_parallel``); ``top_k``: the features each worker votes for (``voting``).
    O(1)."""
    p = workers
    if scheme not in SCHEMES:
        raise ValueError(f"unknown scheme {scheme!r}; choose one of {list(SCHEMES)}")
    if p <= 1:
        return 0, 0.0
    message = histogram_bytes(nodes, features, bins, statistics)
    splits = nodes * SPLIT_BYTES
    rounds = math.ceil(math.log2(p))
    if scheme == "allreduce":
        return 2 * (p - 1), 2 * (p - 1) / p * message
    if scheme == "reduce_scatter":
        return 2 * (p - 1), (p - 1) / p * message + (p - 1) * splits
    if scheme == "tree":
        return 2 * rounds, rounds * (message + splits)
    if scheme == "feature_parallel":
        return (p - 1) + rounds, (p - 1) * splits + rounds * rows / 8
    elected = histogram_bytes(nodes, min(2 * top_k, features), bins, statistics)
    return 3 * (p - 1), (p - 1) * nodes * top_k * 8 + 2 * (p - 1) / p * elected


@dataclass(frozen=True)
class Histograms:
    """How the histograms of a simulated fit (``simulate_fit``) are built and sent:
    ``bins`` per feature, ``statistics`` per bin (2 for squared error: the sum and the
    count), each ``limbs`` float64 digits (exact fixed-point sums,
    ``treelib.fixed_point``), and with ``subtraction`` only the smaller child of each
    pair counted and sent (the sibling's histograms are the parent's minus its)."""

    bins: int = 255
    statistics: int = 2
    limbs: int = 1
    subtraction: bool = True


def simulate_fit(scheme, workers, rows, features, depth, network, seconds_per_pair, *,
                 histograms=Histograms()):
    """Time and bytes of a tree grown level-wise to ``depth`` (every node splits: 2**d
    nodes at depth d) with the rows spread over ``workers``, its histograms as
    ``histograms`` (a ``Histograms``) says.

    Compute: every level counts each row once per feature into a histogram,
    ``seconds_per_pair`` per (row, feature) pair, divided among the workers (by rows, or
    by features for ``feature_parallel``).  With ``histograms.subtraction``, only the
    smaller child of each pair is counted and sent (half the rows at most, half the
    nodes).  Returns a dict: seconds, compute_seconds, comm_seconds, bytes (per worker).
    O(depth)."""
    compute = comm = sent = 0.0
    subtraction = histograms.subtraction
    for d in range(depth):
        nodes = 2**d if not subtraction or d == 0 else 2**(d - 1)
        counted = rows if not subtraction or d == 0 else rows / 2
        compute += counted * features * seconds_per_pair / workers
        messages, n_bytes = level_traffic(scheme, workers, nodes, features, histograms.bins,
                                          histograms.statistics * histograms.limbs,
                                          rows=rows)
        comm += network.seconds(messages, n_bytes)
        sent += n_bytes
    return {"seconds": compute + comm, "compute_seconds": compute, "comm_seconds": comm,
            "bytes": sent}


def spark_passes(nodes, features, bins, statistics=3, max_memory_mb=256):
    """Passes over the data Spark MLlib makes for a level of ``nodes`` nodes: it groups
    as many nodes as fit their statistics (features x bins x statistics doubles; 3 for
    variance: count, sum, sum of squares) in ``maxMemoryInMB``, one pass per group."""
    per_node = features * bins * statistics * 8
    per_pass = max(1, int(max_memory_mb * 2**20 // per_node))
    return math.ceil(nodes / per_pass)


def amdahl_speedup(serial_fraction, workers):
    """Amdahl's law: the speed-up of ``workers`` threads when ``serial_fraction`` of
    one thread's time cannot be shared."""
    workers = np.asarray(workers, float)
    return 1 / (serial_fraction + (1 - serial_fraction) / workers)


def amdahl_fit(workers, seconds):
    """The serial fraction s (clipped to [0, 1]) that fits measured times best:
    ``seconds = T1 (s + (1 - s) / workers)`` is linear in 1 / workers, fitted by least
    squares; returns ``(s, T1)``."""
    inverse = 1 / np.asarray(workers, float)
    slope, intercept = np.polyfit(inverse, np.asarray(seconds, float), 1)
    t1 = slope + intercept
    return float(np.clip(intercept / t1, 0.0, 1.0)), float(t1)
