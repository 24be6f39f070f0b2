"""A batch of exact level-wise trees grown in the same numpy calls (forests' trees).

A forest grows many trees on the same rows, each from its own sample weights (a
bootstrap's counts) and its own generator.  Grown one by one, each tree pays the fixed
cost of every level (a few dozen numpy calls on small arrays) alone.  Here the trees of
a batch are laid out **tree after tree** and grown as one level-wise "tree" whose root
level holds T nodes (``treelib.growth.level_wise.grow_trees``):

- the samples: tree t's rows of positive weight, in increasing row order (what
  ``treelib.growth.without_zero_weights`` keeps), stacked, tree 0's first;
- the sorted rows: every feature of the data is sorted **once** (stable), and tree t's
  block of row j is that order filtered to tree t's rows.  A stable sort filtered to a
  subset is the subset's own stable sort (ties stay in increasing row order), so each
  block is what the tree sorts alone;
- every level holds the trees' nodes tree after tree (the partition keeps the nodes'
  order), every per-node sum restarts at its node, so no tree's sums mix with another's.

Each tree is therefore the tree ``grow_level_wise_exact`` grows alone from its finder
and weights, bit for bit (splits, thresholds, values, impurities, numbering).  Only the
draws of ``max_features`` (each tree from its own generator, under the contract of
``treelib.growth.level_features``), the recording of the nodes and the roots' weights
loop over the trees.

Costs: O(f n log n) for the one sort (or none, given it), O(T f n) to filter it, then a
level's cost on the T trees' samples together, O(f N k) for N stacked samples, with the
Python calls of one tree plus O(T) per level.  Memory: the batch's sorted rows, O(f N),
plus its targets and statistics, O(N k); a batch is cut into groups of at most
``BATCH_BYTES`` bytes of sorted rows (``batch_trees``).
"""

import numpy as np

from treelib.finders import feature_subset
from treelib.growth.level_sort import sorted_rows
from treelib.growth.level_wise import check_no_missing, grow_trees

#: Most bytes of sorted rows (sample ids and values) that one group of a batch holds.
BATCH_BYTES = 2**28

#: Samples a forest's batch stacks, about (``batch_trees``).  Measured (one thread, 20
#: trees on digits, 1,347 rows: 0.30 s one by one, 0.20 s in batches of 4, 0.18 s of 10
#: or 20; 10 trees on california, 15,480 rows: 0.97 s one by one, 1.06 s in pairs, 1.2
#: to 1.3 s in batches of 4 to 20): small trees gain, large ones lose as their levels'
#: arrays leave the processor's caches.
BATCH_SAMPLES = 2**14


def batch_trees(n_samples, n_features, itemsize=8):
    """How many trees of ``n_samples`` rows and ``n_features`` features a forest grows
    in one batch: about ``BATCH_SAMPLES`` stacked samples, within ``BATCH_BYTES`` of
    sorted rows (4-byte ids and ``itemsize``-byte values), at least 1.  O(1)."""
    by_bytes = BATCH_BYTES // max(1, n_samples * n_features * (4 + itemsize))
    return max(1, min(BATCH_SAMPLES // max(1, n_samples), by_bytes))


def grow_exact_batch(data, Y, finders, rules, weights, counter=None, presorted=None):
    """Grow one exact level-wise tree (``finder.splitter == "cumsum"``) per finder of
    ``finders`` (each with its own generator; the same criterion, ``min_samples_leaf``
    and ``max_features``) in the same numpy calls: each tree is the one
    ``grow_level_wise_exact`` grows alone from ``without_zero_weights(data, Y, w)`` and
    its finder, bit for bit.  ``weights`` lists one (n,) array or None per tree (a weight
    of 0 leaves the sample out); ``presorted`` is ``sorted_rows(data)``, given to sort
    the data once for many batches.  Trees with and without weights are grown in
    separate groups (they are scored differently), and groups hold at most
    ``BATCH_BYTES`` of sorted rows (``batch_trees``).  Returns the ``Tree`` list, in the
    order of ``finders``.  Costs: the module docstring's."""
    if len(weights) != len(finders):
        raise ValueError(f"grow_exact_batch takes one weight array (or None) per finder; "
                         f"got {len(weights)} for {len(finders)} finders")
    data = np.asarray(data)
    check_no_missing(data)
    if presorted is None:
        presorted = sorted_rows(data)
    rows = [np.arange(len(Y)) if w is None else np.flatnonzero(np.asarray(w) > 0)
            for w in weights]
    trees = [None] * len(finders)
    subset = feature_subset(finders[0].max_features, data.shape[1]) is not None
    for group in tree_groups(rows, weights, data.shape[1], presorted[1].itemsize):
        stacked = stacked_samples(Y, [rows[t] for t in group], [weights[t] for t in group])
        # a feature subset reads the values by sample (columns), not sorted
        columns = (np.ascontiguousarray(data[np.concatenate([rows[t] for t in group])].T)
                   if subset else None)
        grown = grow_trees(stacked,
                           lambda group=group: stacked_rows(presorted, rows, group, subset),
                           [finders[t] for t in group], rules, counter, columns=columns)
        for t, tree in zip(group, grown):
            trees[t] = tree
    return trees


def tree_groups(rows, weights, n_features, itemsize):
    """The trees cut into groups grown together: those without weights, then those
    with, in order, each group of at most ``BATCH_BYTES`` of sorted rows (a tree of
    ``len(rows[t])`` samples alone if it exceeds it).  O(trees)."""
    groups = []
    for weighted in (False, True):
        group, size = [], 0
        for t in (t for t in range(len(rows)) if (weights[t] is not None) == weighted):
            nbytes = len(rows[t]) * n_features * (4 + itemsize)
            if group and size + nbytes > BATCH_BYTES:
                groups.append(group)
                group, size = [], 0
            group.append(t)
            size += nbytes
        if group:
            groups.append(group)
    return groups


def stacked_samples(Y, rows, weights):
    """The targets (N, k), weights (N,) (None if the trees have none) and per-tree
    sample counts (T,) of the trees whose samples are ``rows`` (each increasing),
    stacked tree after tree.  O(N k)."""
    samples = np.concatenate(rows)
    w = (None if weights[0] is None else
         np.concatenate([np.asarray(w)[r] for r, w in zip(rows, weights)]))
    return Y[samples], w, np.array([len(r) for r in rows])


def stacked_rows(presorted, rows, group, ids_only=False):
    """The sorted rows (``order``, ``x_sorted``, (f, N) each) of the trees ``group``:
    tree t's block is ``presorted`` (the whole data's stable sort, ``sorted_rows``)
    filtered to its samples ``rows[t]``, as stacked ids (its samples numbered on from
    the trees before it); ``x_sorted`` None if ``ids_only``.  O(f n) per tree."""
    order, x_sorted = presorted
    n_samples = order.shape[1]
    total = sum(len(rows[t]) for t in group)
    index = np.int32 if total < 2**31 else np.intp
    orders, values, offset = [], [], 0
    for t in group:
        if len(rows[t]) == n_samples:                   # every row: the order itself
            orders.append(order.astype(index) + offset)     # widened, then offset
            values.append(x_sorted)
        else:                                           # row -> its stacked id, or -1
            local = np.full(n_samples, -1, dtype=index)
            local[rows[t]] = np.arange(offset, offset + len(rows[t]), dtype=index)
            ids = local[order].ravel()
            mine = np.flatnonzero(ids >= 0)             # row by row, in sorted order
            orders.append(ids[mine].reshape(len(order), -1))
            if not ids_only:
                values.append(x_sorted.ravel()[mine].reshape(len(order), -1))
        offset += len(rows[t])
    return (np.concatenate(orders, axis=1),
            None if ids_only else np.concatenate(values, axis=1))
