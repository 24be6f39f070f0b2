"""A level's contenders without their repeats: the cuts of a node that can never matter.

``treelib.growth.level_cuts.best_cuts`` keeps, group of features after group, every cut
that may be tied with its node's best (the *contenders*, with their rounding bounds) and
applies the tie rule (``treelib.split.tie_winners``) to them at the end.  In small nodes
most features cut the same way: a node of two samples has every feature with two
distinct values send the same sample left, with the same gain and bound bit for bit, so
its contenders number about the features, and a deep level of a wide data set's tree
(50 x 200,000) held hundreds of MiB of them.

The rule reads a contender only through its gain and bound, and by its place in feature,
then label, order: the reference is the first entry of the highest gain, the winner the
first entry whose ``gain + bound`` reaches the reference's ``gain - bound``.  Of the
entries of one node with the same gain and bound (bit for bit), the first decides
everything the others could: if one of them is the reference or the winner, the first
is.  ``Distinct`` keeps only that one, so the rule picks the same cut from a group's
contenders reduced to one per (node, gain, bound).  Cost: O(c log c) for c contenders.
"""

from dataclasses import dataclass

import numpy as np

__all__ = ["Distinct", "first_of_repeats"]


def first_of_repeats(node, gain, bound):
    """The indices (increasing) of the entries that are the first of their node with
    their gain and bound bit for bit, the entries listed in the tie rule's order (by
    feature, then label, inside each node).  O(c log c), a stable sort."""
    if len(node) <= 1:
        return np.arange(len(node))
    keys = tuple(np.ascontiguousarray(a, dtype=np.float64).view(np.int64)
                 for a in (bound, gain)) + (node,)
    order = np.lexsort(keys)                      # stable: each group's first comes first
    first = np.ones(len(order), dtype=bool)
    for key in keys:
        sorted_key = key[order]
        first[1:] &= sorted_key[1:] == sorted_key[:-1]
    first[1:] = ~first[1:]
    return np.sort(order[first])


@dataclass
class Distinct:
    """A group's ``treelib.split.Candidates`` whose ``contenders`` drop the repeats
    (``first_of_repeats``); the tie rule picks the same cut from them.  O(c log c)."""

    candidates: object

    def contenders(self, running_max):
        """``Candidates.contenders``, one per (node, gain, bound)."""
        node, feature, label, gain, bound = self.candidates.contenders(running_max)
        if len(node) <= len(running_max):
            return node, feature, label, gain, bound
        keep = first_of_repeats(node, gain, bound)
        return node[keep], feature[keep], label[keep], gain[keep], bound[keep]
