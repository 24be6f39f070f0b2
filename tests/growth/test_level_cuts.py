"""The tie rule of the level-wise growers, applied to contenders from several groups
(``treelib.growth.level_cuts.choose``), against the rule written out node by node."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from treelib.growth.level_cuts import choose


def rule_node_by_node(n_nodes, node, feature, label, gain, bound):
    """The rule of ``best_cuts``, one node at a time, from unordered entries."""
    result = (np.zeros(n_nodes, np.intp), np.zeros(n_nodes, np.intp), np.full(n_nodes, -np.inf))
    for s in range(n_nodes):
        mine = np.flatnonzero(node == s)
        if len(mine) == 0:
            continue
        by_key = sorted(mine, key=lambda i: (feature[i], label[i]))
        reference = max(by_key, key=lambda i: gain[i])      # the first of the highest
        floor = gain[reference] - bound[reference]
        chosen = next(i for i in by_key if gain[i] + bound[i] >= floor)
        result[0][s], result[1][s], result[2][s] = feature[chosen], label[chosen], gain[chosen]
    return result


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_contenders_of_ordered_groups_follow_the_rule(data):
    n_nodes = data.draw(st.integers(1, 6))
    n_features = data.draw(st.integers(1, 4))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    entries = {(f, s, lab) for f in range(n_features) for s in range(n_nodes)
               for lab in range(4) if rng.random() < 0.5}
    feature, node, label = np.array(sorted(entries), dtype=np.intp).reshape(-1, 3).T
    # few distinct gains and bounds: exact ties and overlapping bounds are common
    gain = rng.integers(0, 4, len(node)) * 0.5
    bound = rng.choice([0.0, 0.25, 0.6], len(node))
    expected = rule_node_by_node(n_nodes, node, feature, label, gain, bound)
    # the entries in groups of features, in increasing feature order
    cuts = np.sort(rng.choice(n_features + 1, rng.integers(0, n_features + 1)))
    groups = np.split(np.arange(len(node)), np.searchsorted(feature, cuts))
    kept = [(node[g], feature[g], label[g], gain[g], bound[g]) for g in groups]
    for got, want in zip(choose(n_nodes, kept), expected):
        np.testing.assert_array_equal(got, want)
    # out of order (shuffled): noticed, and the same cuts
    shuffle = rng.permutation(len(node))
    kept = [(node[shuffle], feature[shuffle], label[shuffle], gain[shuffle], bound[shuffle])]
    for got, want in zip(choose(n_nodes, kept), expected):
        np.testing.assert_array_equal(got, want)
