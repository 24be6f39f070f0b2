"""Random thresholds level-wise: extremely randomized trees grown a whole level at a time.

The ``"random"`` finder (``treelib.finders.random.random_split``) draws, in one node, one
threshold per feature uniformly between the feature's smallest and largest value there
and keeps the best of these candidates.  Called node after node, a tree costs a Python
call per node.  Here every node of a level is drawn and scored at once, with a fixed
number of numpy calls per level and chunk of features: the nodes' minima and maxima by
segmented reductions, the drawn thresholds' left sums by one pass over the level's rows.
No feature is ever sorted.

**The draw contract.**  A per-node grower draws a node's numbers when it reaches it,
depth first; a level-wise grower meets the nodes breadth first and cannot know how many
numbers a left subtree will take before it has grown it, so it follows its own contract:

    the nodes that are searched (those no stopping rule makes leaves) take their numbers
    from the tree's generator (``finder.rng``) breadth first, level after level, left to
    right.  Each takes, in this order,

    - with ``max_features`` k below the f features: f uniform *keys*
      (``rng.random(f)``), which choose its features as ``treelib.growth.level_features``
      does (the k varying features of smallest key, in increasing order, then when
      fewer than k vary, features that do not), then k uniform numbers
      (``rng.random(k)``), the t-th for its t-th chosen feature;
    - without (every feature searched): f uniform numbers (``rng.random(f)``), the j-th
      for feature j, as ``random_split`` draws them.

    Feature j's threshold is ``t = lo_j + u (hi_j - lo_j)`` in float64 (``lo_j``,
    ``hi_j`` its smallest and largest value in the node), replaced by ``lo_j`` when it
    rounds up to ``hi_j``: ``random_split``'s definition (``treelib.finders.random
    .random_thresholds``).  A feature that does not vary in the node, or whose threshold
    leaves a child fewer than ``min_samples_leaf`` samples (or no weight), is no
    candidate; the best candidate wins under the one tie rule (``treelib.split
    .best_cut``: lowest feature among gains equal up to rounding).

A level takes its numbers in one call, ``rng.random((m, f + k))`` or ``rng.random((m,
f))``, which fills row after row: node p of the level gets the numbers p per-node calls
would give.  Without ``max_features`` a node's draws are exactly ``random_split``'s, so a
stump is the per-node growers' stump; deeper trees differ from theirs only by the order
in which the nodes take their draws (the same distribution of trees).  A node's split
is ``random_split``'s on its drawn features with its drawn numbers, except that the left
sums are added in another order (gains equal up to rounding, decided by the tie rule).

**A batch of trees** (``grow_random_batch``; the forests grow their level-wise extra
trees through it, batch by batch: ``treelib.estimators.bagging.grow_forest_trees``): the
levels of several trees, each with its own generator and sample weights, are laid out
tree after tree and searched in the same numpy calls; each tree takes its draws from its
own generator under the contract, so it is the tree grown alone, bit for bit (a node's
sums never mix with another node's).  Only the draws loop over the trees; the nodes are
recorded level by level in shared arrays and handed to each tree once, at the end
(``treelib.growth.level_random_records``).

The level's values are laid out feature by feature, (c, p) for c features of p
samples, gathered with ``np.take`` from a (f, n) copy of the features, so that the
segmented reductions run along contiguous rows (the same pairwise sums as along the
samples' axis).  Only the few contenders of each node (gains within 4 bound caps of its
best, before it) get rounding bounds (``best_draws``).

Costs per level of m searched nodes holding n_active samples, f features, k statistics:
O(f n_active) for the minima and maxima (with ``max_features``: of the features each node
examines, in key order, until k vary, ``treelib.growth.level_random_draws``), O(f
n_active k) for the left sums, O(m f k) to score; O(n_active k) to partition the samples
and compute the children.  Memory: the (f, n) copy of the features, a chunk of at most
``CHUNK_VALUES`` gathered values, the (m, f) draws, thresholds, gains and left sums (m <=
n_active / 2: below the data's own size), the level's sample ids and statistics, O(n k),
and the nodes recorded so far.
"""

from dataclasses import dataclass

import numpy as np

from treelib.criteria import NodeStatistics, node_statistics
from treelib.finders.random import random_thresholds
from treelib.gains import bound_cap, score_cuts, score_gains
from treelib.growth.level_classes import children_statistics
from treelib.growth.level_features import some_features
from treelib.growth.level_partition import gather_plan
from treelib.growth.level_random_draws import drawn_features, gathered
from treelib.growth.level_random_records import BatchRecords
from treelib.growth.level_wise import select
from treelib.growth.threads import CHUNK_VALUES, feature_chunks
from treelib.segments import segment_ids, segment_starts
from treelib.split import tie_winners


@dataclass
class RandomLevel:
    """The nodes of a level that are searched (of one tree, or of a batch of trees,
    tree after tree): their ids in their tree, their samples (node after node, ``counts``
    each, in increasing sample id), their ``NodeStatistics`` (m rows), unless the
    statistics are classes the samples' ``stats`` rows (as ``node_statistics`` gives
    them: centred on their node for squared error), each node's ``tree`` and the
    samples' weights ``w`` (None: all 1)."""

    node_ids: np.ndarray
    samples: np.ndarray
    counts: np.ndarray
    nodes: NodeStatistics
    stats: np.ndarray | None
    tree: np.ndarray
    w: np.ndarray | None
    constant: np.ndarray | None = None


@dataclass
class RandomSearch:
    """What every level reads: the features ``data`` (n, f) and ``columns`` (f, n), both
    C order, the criterion, ``min_samples_leaf``, the class code of every sample
    (classification; None otherwise), the number of statistics ``width``, each tree's
    generator (``rngs``) and ``max_features`` (None: every feature)."""

    data: np.ndarray
    columns: np.ndarray
    criterion: str
    min_samples_leaf: int
    classes: np.ndarray | None
    width: int
    rngs: list
    max_features: int | None


@dataclass
class Draws:
    """A level's candidates: per node (rows) and drawn slot (columns), the slot's feature
    (None: slot j is feature j), its threshold, samples sent left, gain (-inf: no
    candidate), left sums (m, slots, k) and left weights (None: the counts), and the
    features known constant in each node (None without ``max_features``)."""

    features: np.ndarray | None
    threshold: np.ndarray
    n_left: np.ndarray
    gains: np.ndarray
    sums: np.ndarray
    w_left: np.ndarray | None
    constant: np.ndarray | None = None


def grow_level_wise_random(data, Y, finder, rules, counter=None, weights=None):
    """Grow an extremely randomized tree (``finder.splitter == "random"``) one level at
    a time, under the draw contract of the module docstring.

    ``data`` (n, f) holds finite features, ``Y`` (n, k) the statistics
    (``treelib.criteria.target_statistics``), ``finder`` the criterion,
    ``min_samples_leaf``, ``max_features`` and the generator ``rng``, ``rules`` the
    ``StoppingRules`` (no ``max_leaf_nodes``), ``counter`` an optional ``GrowthCounter``,
    ``weights`` (n,) positive sample weights.  Nodes are numbered breadth first.  Per
    level, the costs of the module docstring; O(depth) Python iterations.
    """
    return grow_random_batch(data, Y, [finder], rules, [weights], counter)[0]


def grow_random_batch(data, Y, finders, rules, weights, counter=None):
    """Grow one extremely randomized tree per finder of ``finders`` (each with its own
    generator; the same criterion, ``min_samples_leaf`` and ``max_features``) at once,
    every level of all of them in the same numpy calls: each tree is the one
    ``grow_level_wise_random`` grows from its finder and its ``weights`` (a list, one
    (n,) array or None per tree; a weight of 0 leaves the sample out), bit for bit.
    Memory and work per level: those of one tree times the trees; Python calls per
    level: one draw per tree, the rest shared.  Returns the ``Tree`` list."""
    data = np.ascontiguousarray(data)
    if np.isnan(data).any():
        raise ValueError("splitter='random' does not handle missing values (NaN); use "
                         "'cumsum' or 'hist'")
    finder = finders[0]
    rows = [np.arange(len(Y)) if w is None else np.flatnonzero(np.asarray(w) > 0)
            for w in weights]
    samples, counts = np.concatenate(rows), np.array([len(r) for r in rows])
    w = (None if all(w is None for w in weights) else np.concatenate(
        [np.ones(len(r)) if w is None else np.asarray(w, np.float64)[r]
         for r, w in zip(rows, weights)]))
    root = node_statistics(Y[samples], counts, finder.criterion, w)
    records = BatchRecords(root, counts)
    root_ids = np.zeros(len(finders), dtype=np.intp)
    classes = np.argmax(Y, axis=1) if finder.criterion in ("gini", "entropy") else None
    search = RandomSearch(data, np.ascontiguousarray(data.T), finder.criterion,
                          finder.min_samples_leaf, classes,
                          Y.shape[1] if classes is not None else root.stats.shape[1],
                          [f.rng for f in finders],
                          some_features(finder, data))
    level = RandomLevel(root_ids, samples, counts, root,
                        None if classes is not None else root.stats,
                        np.arange(len(finders)), w)
    keep = ~rules.is_leaf(counts, root.impurity, 0, finder.min_samples_leaf)
    level = select_level(level, keep, counts) if keep.any() else None
    growth = (Y, rules, records, root.weight.astype(np.float64))
    depth = 0
    while level is not None:
        if counter is not None:
            counter.searched(depth, len(level.counts), len(level.samples))
        level = grow_random_level(level, search, growth, depth)
        depth += 1
    del search, level                     # the features' copy: not needed to finish
    return records.finish()


def select_level(level, keep, counts):
    """The nodes ``keep`` of ``level`` (whose nodes hold ``counts`` samples each) and
    their samples.  O(n_active k)."""
    rows = np.repeat(keep, counts)

    def kept(values):                   # np.compress: the rows of a mask, faster
        return None if values is None else np.compress(rows, values, axis=0)
    return RandomLevel(level.node_ids[keep], kept(level.samples), counts[keep],
                       select(level.nodes, keep), kept(level.stats),
                       level.tree[keep], kept(level.w),
                       None if level.constant is None else level.constant[keep])


def level_draws(level, search):
    """The level's numbers under the contract: ``(features, uniforms, ranges,
    constant)``, each node's drawn features (m, k), their smallest and largest values in
    it (two (m, k) arrays) and the features known constant in each node (m, f)
    (``treelib.growth.level_random_draws.drawn_features``), or (None, f uniforms, None,
    None) without ``max_features``; one uniform per slot.  O(m f) for the draws, plus
    the examined features' values."""
    f = search.data.shape[1]
    k = 0 if search.max_features is None else int(search.max_features)
    per_tree = np.bincount(level.tree, minlength=len(search.rngs))
    numbers = np.concatenate([search.rngs[t].random((per_tree[t], f + k))
                              for t in np.flatnonzero(per_tree)])      # tree after tree
    if search.max_features is None:
        return None, numbers, None, None
    features, low, high, constant = drawn_features(level, search.columns, numbers[:, :f], k)
    return features, numbers[:, f:], (low, high), constant


def score_level(level, search):
    """Every node's candidates (``Draws``): each drawn slot's threshold, left count,
    gain and bound, a chunk of slots at a time.  O(slots n_active k)."""
    features, uniforms, ranges, constant = level_draws(level, search)
    m, slots = uniforms.shape
    shape = (m, slots)
    draws = Draws(features, np.empty(shape), np.empty(shape, np.intp), np.empty(shape),
                  np.empty(shape + (search.width,)),
                  None if level.w is None else np.empty(shape), constant)
    per_slot = len(level.samples) * (4 + (search.width if search.classes is None else 1))
    for chunk in feature_chunks(slots, per_slot, 1, CHUNK_VALUES):
        columns = slice(chunk.start, chunk.stop)
        score_chunk(level, search, draws,
                    (columns, uniforms[:, columns],
                     None if ranges is None else (ranges[0][:, columns],
                                                  ranges[1][:, columns])))
    return draws


def score_chunk(level, search, draws, where):
    """``score_level`` for the slots ``where`` = (slice, their uniforms (m, c), their
    nodes' ranges or None): gather the slots' values of the level's samples (c, p), draw
    the thresholds, add up the left sums and score them (``treelib.gains.score_cuts``,
    as ``random_split``); fills ``draws``.  O(c n_active k)."""
    columns, uniforms, ranges = where
    counts, samples, nodes = level.counts, level.samples, level.nodes
    starts = segment_starts(counts)
    if draws.features is None:
        values = np.take(search.columns[columns], samples, axis=1)           # (c, p)
        ranges = (np.minimum.reduceat(values, starts, axis=1).T,
                  np.maximum.reduceat(values, starts, axis=1).T)
    else:
        values = gathered(search.columns, samples, counts, draws.features[:, columns])
    low, high = ranges[0].astype(np.float64), ranges[1].astype(np.float64)    # (m, c)
    threshold = random_thresholds(low, high, uniforms)
    goes_left = values <= np.repeat(threshold.T, counts, axis=1)              # (c, p)
    del values
    n_left = left_counts(goes_left, counts)
    sums_left = left_sums(goes_left, level, search, starts)                   # (m, c, k)
    w_left = n_left if level.w is None else np.add.reduceat(
        np.where(goes_left, level.w, 0.0), starts, axis=1).T
    gains = score_gains(sums_left, w_left, nodes.totals[:, None], nodes.weight[:, None],
                        search.criterion)
    draws.sums[:, columns] = sums_left
    if draws.w_left is not None:
        draws.w_left[:, columns] = w_left
    leaf = search.min_samples_leaf
    valid = (high > low) & (n_left >= leaf) & (counts[:, None] - n_left >= leaf)
    draws.threshold[:, columns], draws.n_left[:, columns] = threshold, n_left
    draws.gains[:, columns] = np.where(valid, gains, -np.inf)


def left_counts(goes_left, counts):
    """How many samples of each node go left (m, c), from ``goes_left`` (c, p) (the
    nodes one after the other, ``counts`` each): exact integer running counts, read at
    each node's end.  O(c p)."""
    running = np.cumsum(goes_left, axis=1,
                        dtype=np.int32 if goes_left.shape[1] < 2**31 else np.intp)
    ends = running[:, np.cumsum(counts) - 1].T.astype(np.intp)
    ends[1:] -= ends[:-1].copy()
    return ends


def left_sums(goes_left, level, search, starts):
    """The sums (m, c, k) of the statistics of each node's samples that go left, for
    every slot of the chunk ``goes_left`` (c, p): class by class counts (weighted: the
    weights) from one ``np.bincount``, or each column of the level's ``stats`` by
    segmented sums.  O(p c k)."""
    c, p = goes_left.shape
    k = search.width
    if search.classes is None:
        return np.stack([np.add.reduceat(np.where(goes_left, level.stats[:, j], 0.0),
                                         starts, axis=1).T for j in range(k)], axis=-1)
    # key of (node, slot, class): node s's slot t's class q at (s c + t) k + q
    cells = len(level.counts) * c * k
    index = np.int32 if cells < 2**31 else np.intp             # int32: a few times faster
    cell = (segment_ids(level.counts) * (c * k)).astype(index)
    cell += np.take(search.classes, level.samples)
    left = goes_left.ravel()
    key = np.compress(left, (cell + np.arange(0, c * k, k, dtype=index)[:, None]).ravel())
    w = None if level.w is None else np.compress(left, np.tile(level.w, c))
    return np.bincount(key, weights=w, minlength=cells).reshape(-1, c, k)


def best_draws(draws, level, search):
    """Each node's winning slot under the one tie rule (``treelib.split.tie_winners``,
    slots in increasing feature order) and its gain (-inf: no candidate), with rounding
    bounds for the contenders alone (as ``treelib.split.best_contender``): the
    reference is the node's first slot of highest gain, and only the slots before it
    within 4 bound caps (``treelib.gains.bound_cap``) of its gain can win instead.
    O(m slots), and O(k) per contender."""
    gains, nodes = draws.gains, level.nodes
    m, slots = gains.shape
    winner = np.argmax(gains, axis=1)
    best = gains[np.arange(m), winner]
    cap = bound_cap(nodes.totals, nodes.weight, search.criterion, nodes.abs_totals, best,
                    level.counts, nodes.scale)
    before = np.arange(slots) <= winner[:, None]
    contends = before & (gains >= (best - 4 * cap)[:, None]) & (gains > -np.inf)
    ties = np.flatnonzero(np.count_nonzero(contends, axis=1) > 1)
    if len(ties) == 0:
        return winner, best
    node, slot = np.nonzero(contends[ties])
    node = ties[node]
    w_left = (draws.n_left if draws.w_left is None else draws.w_left)[node, slot]
    _, bounds = score_cuts(draws.sums[node, slot], w_left, nodes.totals[node],
                           nodes.weight[node], search.criterion,
                           None if nodes.abs_totals is None else nodes.abs_totals[node],
                           n_terms=level.counts[node])
    starts = np.flatnonzero(np.diff(node, prepend=-1))
    winner[ties] = slot[tie_winners(gains[node, slot], bounds, starts)]
    return winner, gains[np.arange(m), winner]


def grow_random_level(level, search, growth, depth):
    """Split every node of ``level`` (at ``depth``) on its best drawn threshold, record
    the splits and all the children in their trees, and return the children that may
    split as the next level (None if none).  O(f n_active k) (``score_level``), plus
    O(n_active k) for the children and O(trees) Python calls."""
    Y, rules, records, total_weight = growth
    draws = score_level(level, search)
    slot, gain = best_draws(draws, level, search)
    nodes = np.arange(len(level.counts))
    splitting = ~rules.rejects(gain, total_weight[level.tree])
    parents = np.flatnonzero(splitting)
    if len(parents) == 0:
        return None
    feature = slot if draws.features is None else draws.features[nodes, slot]
    threshold, n_left = draws.threshold[nodes, slot], draws.n_left[nodes, slot]
    goes_left = (gathered(search.columns, level.samples, level.counts, feature[:, None])[0]
                 <= np.repeat(threshold, level.counts))
    source, _ = gather_plan(level.counts, n_left, splitting, splitting)
    source = np.concatenate([np.flatnonzero(goes_left), np.flatnonzero(~goes_left)])[source]
    moved = [np.take(level.samples, source)] + ([] if level.w is None
                                                else [np.take(level.w, source)])
    child_counts = np.column_stack([n_left, level.counts - n_left])[parents].ravel()
    child = (children_statistics(search.classes, moved[0], child_counts, Y.shape[1],
                                 search.criterion)
             if search.classes is not None and level.w is None else
             node_statistics(np.take(Y, moved[0], axis=0), child_counts, search.criterion,
                             moved[1] if len(moved) > 1 else None))
    child_ids = records.add_level((level.tree[parents], level.node_ids[parents]),
                                  (feature[parents], threshold[parents]), child,
                                  child_counts)
    keep = ~rules.is_leaf(child_counts, child.impurity, depth + 1, search.min_samples_leaf)
    if not keep.any():
        return None
    children = RandomLevel(child_ids, moved[0], child_counts, child,
                           None if search.classes is not None else child.stats,
                           np.repeat(level.tree[parents], 2),
                           moved[1] if len(moved) > 1 else None,
                           None if draws.constant is None
                           else np.repeat(draws.constant[parents], 2, axis=0))
    return select_level(children, keep, child_counts)
