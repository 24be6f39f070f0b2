"""The best cut of every node of a level, under the one tie rule, a few features at a time.

The level-wise growers score the candidate cuts of all the nodes of a level a chunk of
features at a time (to keep memory to a chunk's worth), so they cannot hand a whole
(cuts x features) array of gains to ``treelib.split.best_cut``.  ``best_cuts`` applies the
same rule (``treelib.split.tie_winners``) to what each chunk leaves behind, and finds the
same cut.  It needs the
rounding bounds of the few cuts that can be tied with a node's best only: the *contenders*,
within twice ``treelib.gains.bound_cap`` of the best gain seen so far.
"""

import numpy as np

from treelib.growth.threads import run_chunks
from treelib.split import tie_winners


def best_cuts(n_nodes, chunks, scores, n_jobs=1):
    """The best cut of each of ``n_nodes`` nodes, as ``treelib.split.best_cut`` picks it.

    ``chunks`` lists the features in groups (every feature once, in increasing order);
    ``scores(features)`` returns the ``treelib.split.Candidates`` of a group.  Returns
    ``(feature, label, gain)`` per node; ``gain`` is -inf for a node without any candidate.

    The rule: the reference cut is the highest gain (lowest feature, then lowest label,
    among equals); a cut is tied with it when ``gain + bound >= reference gain -
    reference bound``; the lowest feature, then the lowest label, among tied cuts wins.
    A tied cut's gain is within twice the node's bound cap of the best, so only the cuts
    that close to the best gain seen so far are kept, with their bounds, as contenders;
    the rule is applied to them at the end.  With ``n_jobs`` threads
    (``treelib.growth.threads``) each group is scored and pruned against its own best
    gains, which are at most the node's best, so no tied cut is ever pruned: the rule
    then sees the same tied cuts, and picks the same cut, for every ``n_jobs``.
    O(candidates) numpy work in O(chunks) calls of ``scores``.
    """
    if n_jobs == 1:                    # one running best, shared by the groups in turn
        shared = np.full(n_nodes, -np.inf)
        kept = [scores(chunk).contenders(shared) for chunk in chunks]
    else:
        kept = run_chunks(lambda chunk: scores(chunk).contenders(np.full(n_nodes, -np.inf)),
                          chunks, n_jobs)
    return choose(n_nodes, kept)


def choose(n_nodes, kept):
    """The tie rule of ``best_cuts`` applied to the contenders ``kept`` of every group.

    The rule reads each node's contenders by feature, then label.  The groups come in
    increasing feature order with their entries sorted by feature, node and label, so a
    stable sort by node alone puts them in that order: O(c log groups) for c contenders
    (a three-key ``np.lexsort`` took ten times as long).  Entries out of that order are
    noticed (one pass) and sorted by all three keys."""
    node, feature, label, gain, bound = (np.concatenate(part) for part in zip(*kept))
    order = np.argsort(node, kind="stable")                     # node, then feature, label
    if not in_node_order(node[order], feature[order], label[order]):
        order = np.lexsort((label, feature, node))
    node, feature, gain, bound, label = (a[order] for a in (node, feature, gain, bound, label))
    first = np.ones(len(node), dtype=bool)
    first[1:] = node[1:] != node[:-1]
    starts = np.flatnonzero(first)
    chosen = tie_winners(gain, bound, starts)
    result_feature = np.zeros(n_nodes, dtype=np.intp)
    result_label = np.zeros(n_nodes, dtype=np.intp)
    result_gain = np.full(n_nodes, -np.inf)
    nodes = node[starts]
    result_feature[nodes], result_label[nodes] = feature[chosen], label[chosen]
    result_gain[nodes] = gain[chosen]
    return result_feature, result_label, result_gain


def in_node_order(node, feature, label):
    """Whether entries sorted by node are sorted by feature, then label, inside each
    node.  O(entries)."""
    same_node, same_feature = node[1:] == node[:-1], feature[1:] == feature[:-1]
    backwards = (feature[1:] < feature[:-1]) | (same_feature & (label[1:] < label[:-1]))
    return not np.any(same_node & backwards)
