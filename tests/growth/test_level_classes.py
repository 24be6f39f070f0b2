"""The class-count scoring of the level-wise grower (``treelib.growth.level_classes``)
against the plain version (one-hot rows summed node by node with ``np.cumsum``, scored by
``treelib.gains``), bit for bit: whole rows or blocks of a few positions, the sums from
runs or from ranks, Gini and entropy."""

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from treelib.criteria import node_statistics, one_hot
from treelib.gains import BoundTerms, gain_from_sums, gain_rounding_bound
from treelib.growth.level_classes import children_statistics, class_blocks, class_scores
from treelib.growth.level_cuts import best_cuts
from treelib.growth.level_wise import Level
from treelib.segments import segment_starts


@st.composite
def levels(draw):
    """A level of a few nodes over random samples: X with ties and few or many values,
    classes (16-bit codes), the level's sorted rows and node statistics."""
    n, f = draw(st.integers(2, 80)), draw(st.integers(1, 3))
    k = draw(st.sampled_from([2, 3, 7, 40]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    X = np.column_stack([rng.integers(0, draw(st.sampled_from([1, 3, 50])), n)
                         .astype(np.float64) for _ in range(f)])
    classes = rng.integers(0, k, n).astype(np.uint16)
    n_nodes = draw(st.integers(1, max(1, n // 4)))
    cuts = np.sort(rng.choice(np.arange(1, n), n_nodes - 1, replace=False))
    counts = np.diff(np.concatenate([[0], cuts, [n]]))
    node_of = np.repeat(np.arange(n_nodes), counts)
    samples = rng.permutation(n)                       # node s: samples[starts[s]: ...]
    order = np.stack([samples[np.lexsort((X[samples, j], node_of))] for j in range(f)])
    criterion = draw(st.sampled_from(["gini", "entropy"]))
    Y = one_hot(classes, k)
    nodes = node_statistics(Y[order[0]], counts, criterion)
    level = Level(node_ids=np.arange(n_nodes), counts=counts, nodes=nodes,
                  order=order.astype(np.int32),
                  x_sorted=np.stack([X[order[j], j] for j in range(f)]))
    return level, classes, k, criterion, draw(st.integers(1, 3))


def plain_scores(level, classes, k, criterion, min_samples_leaf):
    """(feature, node, label, gain, bound) of every candidate cut, from one-hot rows summed
    node by node with ``np.cumsum``: the reference."""
    Y = one_hot(classes, k)
    starts, result = segment_starts(level.counts), []
    for j in range(level.order.shape[0]):
        for s, (start, count) in enumerate(zip(starts, level.counts)):
            x = level.x_sorted[j, start:start + count]
            left = np.cumsum(Y[level.order[j, start:start + count]], axis=0)[:-1]
            w_left = np.arange(1, count, dtype=np.float64)
            ok = (x[1:] > x[:-1]) & (w_left >= min_samples_leaf) & (
                count - w_left >= min_samples_leaf)
            at = np.flatnonzero(ok)
            total, w = level.nodes.totals[s], level.nodes.weight[s]
            gains = gain_from_sums(left[at], w_left[at], total, w, criterion)
            bounds = gain_rounding_bound(left[at], w_left[at], total, w, criterion, None,
                                         gains, BoundTerms(n_terms=count))
            result += [(j, s, a, g, b) for a, g, b in zip(at, gains, bounds)]
    return result


def scored(level, classes, k, criterion, min_samples_leaf, budget, ranks):
    """Every block's candidate cuts, in the same form as ``plain_scores``."""
    result = []
    for block in class_blocks(level.order.shape[0], level.order.shape[1], k, 1, budget):
        s = class_scores(level, classes, k, block, criterion, min_samples_leaf, ranks)
        bounds = s.bounds_at(np.arange(len(s.gains)))
        result += list(zip(s.feature, s.node, s.label, s.gains, bounds))
    return result


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(levels(), st.sampled_from([1, 2, 3, 10**9]), st.sampled_from([None, False, True]))
def test_class_scores_equal_the_plain_cumulative_sums(case, positions, ranks):
    level, classes, k, criterion, min_samples_leaf = case
    expected = plain_scores(level, classes, k, criterion, min_samples_leaf)
    # blocks of ``positions`` positions (10**9: whole rows together)
    got = scored(level, classes, k, criterion, min_samples_leaf,
                 min(positions * k, 10**9), ranks)
    assert [(int(j), int(s), int(a)) for j, s, a, _, _ in got] == [
        (j, s, int(a)) for j, s, a, _, _ in expected]
    assert np.array_equal([g for *_, g, _ in got], [g for *_, g, _ in expected])
    assert np.array_equal([b for *_, b in got], [b for *_, b in expected])


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(levels(), st.sampled_from([1, 2, 5]))
def test_blocks_of_positions_choose_the_cuts_of_whole_rows(case, positions):
    level, classes, k, criterion, min_samples_leaf = case
    f, p = level.order.shape

    def best(budget):
        return best_cuts(len(level.counts), class_blocks(f, p, k, 1, budget),
                         lambda block: class_scores(level, classes, k, block, criterion,
                                                    min_samples_leaf))

    for whole, chunked in zip(best(10**9), best(positions * k)):
        assert np.array_equal(whole, chunked)


def test_class_blocks_cover_every_position_within_the_budget():
    for f, p, k, n_jobs, budget in [(5, 100, 3, 1, 10**6), (5, 100, 30, 1, 600),
                                    (3, 1000, 200, 2, 10**4), (2, 7, 1000, 1, 10)]:
        blocks = class_blocks(f, p, k, n_jobs, budget)
        covered = np.zeros((f, p), dtype=int)
        for features, begin, end in blocks:
            covered[features.start:features.stop, begin:end] += 1
            assert (end - begin) * len(features) * k <= max(k, budget // n_jobs)
        assert (covered == 1).all()


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 60), st.sampled_from([1, 2, 5, 300]), st.sampled_from(["gini", "entropy"]),
       st.integers(0, 2**32 - 1))
def test_children_statistics_equal_those_of_the_one_hot_rows(n, k, criterion, seed):
    rng = np.random.default_rng(seed)
    classes = rng.integers(0, k, n).astype(np.uint16)
    samples = rng.permutation(n)
    n_nodes = int(rng.integers(1, n + 1))
    counts = np.diff(np.concatenate([[0], np.sort(rng.choice(np.arange(1, n), n_nodes - 1,
                                                             replace=False)), [n]]))
    got = children_statistics(classes, samples, counts, k, criterion)
    expected = node_statistics(one_hot(classes, k)[samples], counts, criterion)
    assert got.stats is None and got.abs_totals is None
    for field in ("value", "impurity", "totals", "weight", "scale"):
        assert np.array_equal(getattr(got, field), getattr(expected, field)), field
