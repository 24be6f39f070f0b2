"""Bagging, and how a forest grows its trees.

A bootstrap sample is drawn as integer sample weights, scikit-learn's draw row for row:
tree i gets the seed ``RandomState(random_state).randint(2**31 - 1, size=n_estimators)[i]``
and the rows ``RandomState(seed).randint(0, n, n_bootstrap)``, as in
``sklearn.ensemble``.  Each tree is grown by the fastest grower that supports the
settings (``forest_builder``): level by level wherever the options' table allows it (the
exact or histogram search, a criterion scored from sums, no missing value), a feature
subset included, else depth first (best first with ``max_leaf_nodes``).  Level-wise trees
with exact cuts (``splitter="cumsum"``) or random thresholds (extra trees, ``"random"``)
are grown in batches of at most ``BATCH_TREES`` (exact trees: about
``treelib.growth.level_batch.BATCH_SAMPLES`` stacked samples; large trees grow one a
batch, which runs faster), every level of a batch's trees in the same numpy calls
(``treelib.growth.level_batch.grow_exact_batch``, from the rows sorted once for the whole
forest; ``treelib.growth.level_random.grow_random_batch``): each tree is still the one
its seed grows alone, bit for bit.  Histogram trees (``"hist"``) grow one by one.
"""

import multiprocessing
import warnings
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import dataclass, replace
from functools import partial

import numpy as np
from sklearn.utils import check_random_state

from treelib.estimators.params import check_number, numpy_rng
from treelib.finders import Finder, feature_subset
from treelib.growth import grow, without_zero_weights
from treelib.growth.level_batch import batch_trees, grow_exact_batch
from treelib.growth.level_random import grow_random_batch
from treelib.growth.level_sort import sorted_rows
from treelib.options import combines
from treelib.validation import check_sample_weight

#: scikit-learn's bound for the seeds of the trees (``np.iinfo(np.int32).max``).
MAX_INT = np.iinfo(np.int32).max

#: Most trees a forest of level-wise trees ("cumsum" or "random") grows in one batch (per
#: worker); a batch holds its trees' samples and level statistics (and, exact, sorted
#: rows, at most ``treelib.growth.level_batch.BATCH_BYTES`` of them), this many trees'.
BATCH_TREES = 16

#: The splitters whose trees accept missing values (NaN).
MISSING_VALUE_SPLITTERS = ("cumsum", "hist")


def forest_builder(splitter, criterion, max_features, n_features, max_leaf_nodes,
                   has_missing):
    """The fastest growth order for these settings: "best_first" for ``max_leaf_nodes``,
    else "level_wise" where the options' table (``treelib.options``) lets it grow these
    trees (the exact or histogram search, a criterion scored from sums, no missing
    value), else "depth_first".

    A feature subset (``max_features`` below ``n_features``) grows level-wise too.  Its
    trees are not the per-node growers' for the same seed: a per-node grower draws a
    node's features when it reaches it, depth first, and a level-wise grower meets the
    nodes breadth first, so each searched node takes its draw breadth first from the
    tree's generator instead (``treelib.growth.level_features``): the same distribution
    of feature subsets, other draws.  ``builder="depth_first"`` grows the per-node
    trees.  A single ``DecisionTree*`` keeps its own default (depth first, whatever
    ``max_features``): scikit-learn's growth order and node numbering, and the same tree
    for the same ``random_state`` as before; one tree's per-node cost is small, where a
    forest multiplies it by its trees.  O(rows of the table)."""
    if max_leaf_nodes is not None:
        return "best_first"
    subset = feature_subset(max_features, n_features)
    if combines(builder="level_wise", splitter=splitter, criterion=criterion,
                max_features=subset, missing=has_missing):
        return "level_wise"
    return "depth_first"


#: scikit-learn's reason, word for word, for its forests' expected failure of
#: ``check_sample_weight_equivalence_on_dense_data`` (and ``..._on_sparse_data``).
WEIGHTS_ARE_NOT_REPEATS = "sample_weight is not equivalent to removing/repeating samples."


def expected_failed_checks(forest):
    """The scikit-learn estimator checks a forest fails by design, ``{check: reason}``,
    for ``parametrize_with_checks(..., expected_failed_checks=expected_failed_checks)``.

    A bootstrap drawn from weighted rows (each row with probability proportional to its
    weight) is not the bootstrap of the rows repeated, so a forest with
    ``bootstrap=True`` fails the weights-equal-repeats check, as scikit-learn's forests
    do.  scikit-learn 1.9 has no tag for this (``_xfail_checks`` is gone, ``_more_tags``
    refused); its own test suite lists the check, with this reason, for RandomForest*
    (whose default is ``bootstrap=True``) in
    ``sklearn.utils._test_common.instance_generator.PER_ESTIMATOR_XFAIL_CHECKS``.  This
    is that list for treelib's forests, read from ``bootstrap`` rather than the class:
    without bootstrap (ExtraTrees* by default) the check passes."""
    if getattr(forest, "bootstrap", False):
        return {"check_sample_weight_equivalence_on_dense_data": WEIGHTS_ARE_NOT_REPEATS,
                "check_sample_weight_equivalence_on_sparse_data": WEIGHTS_ARE_NOT_REPEATS}
    return {}


def bootstrap_size(n_samples, max_samples, sample_weight):
    """Rows drawn per tree (scikit-learn's rule): all ``n_samples`` (None), ``max_samples``
    (an int), or that fraction of the rows, or of the total sample weight (a float)."""
    if max_samples is None:
        return n_samples
    if isinstance(max_samples, (int, np.integer)) and not isinstance(max_samples, bool):
        return check_number("max_samples", max_samples, integer=True, low=1)
    check_number("max_samples", max_samples, integer=False, low=0.0, low_open=True)
    total = n_samples if sample_weight is None else float(np.sum(sample_weight))
    return max(int(max_samples * total), 1)


def bootstrap_counts(seed, n_samples, n_bootstrap, sample_weight=None):
    """How many times each row is drawn for the tree of ``seed``: ``n_bootstrap`` draws
    with replacement, uniform, or proportional to ``sample_weight`` (scikit-learn's
    ``_generate_sample_indices``, draw for draw).  O(n)."""
    random = check_random_state(seed)
    if sample_weight is None:
        rows = random.randint(0, n_samples, n_bootstrap)
    else:
        rows = random.choice(n_samples, n_bootstrap, replace=True,
                             p=sample_weight / np.sum(sample_weight))
    return np.bincount(rows, minlength=n_samples).astype(np.float64)


def checked_sample_weight(sample_weight, n_samples):
    """``treelib.validation.check_sample_weight`` (None stays None), with the message
    scikit-learn's checks expect when every weight is zero."""
    if sample_weight is None:
        return None
    weights = np.asarray(sample_weight, dtype=np.float64)
    if weights.size and np.all(weights == 0):
        raise ValueError("every sample weight is zero: no sample counts")
    return check_sample_weight(weights, n_samples)


#: The forests' ``builder`` choices (None: ``forest_builder`` picks).
FOREST_BUILDERS = ("level_wise", "depth_first", "best_first")


def check_forest_builder(builder):
    """``builder`` if it is None or one of ``FOREST_BUILDERS``, else a ValueError naming
    them.  O(1)."""
    if builder is not None and (not isinstance(builder, str)
                                or builder not in FOREST_BUILDERS):
        raise ValueError(f"builder must be None or one of {list(FOREST_BUILDERS)}; "
                         f"got {builder!r}")
    return builder


def oob_values(trees, seeds, X, n_bootstrap, sample_weight):
    """Mean value, over the ``trees`` that did not draw it (their ``seeds``' bootstrap
    samples), of every training row of ``X``; rows that every tree drew get NaN (with a
    warning, as in scikit-learn).  O(trees x (n + prediction))."""
    totals, counts = None, np.zeros(len(X))
    for seed, tree in zip(seeds, trees):
        unsampled = bootstrap_counts(seed, len(X), n_bootstrap, sample_weight) == 0
        value = tree.predict(X[unsampled])
        totals = np.zeros((len(X), value.shape[1])) if totals is None else totals
        totals[unsampled] += value
        counts[unsampled] += 1
    if (counts == 0).any():
        warnings.warn("Some inputs do not have OOB scores. This probably means too "
                      "few trees were used to compute any reliable OOB estimates.",
                      UserWarning, stacklevel=4)
    with np.errstate(invalid="ignore", divide="ignore"):
        return totals / counts[:, None]


@dataclass(frozen=True)
class ForestJob:
    """What every tree of a forest shares: the rows ``X`` (float32) and targets ``Y``
    (n, k), the ``sample_weight`` (or None), the rows drawn per tree (``n_bootstrap``;
    None: no bootstrap), the growth order ``builder``, the stopping ``rules`` and the
    ``finder``'s settings (``treelib.finders.Finder``'s keywords but ``rng``); for batched
    exact trees, ``presorted``: ``X`` sorted once for every batch (``sorted_rows``; None:
    each batch sorts it, ``grow_forest`` sets it)."""

    X: np.ndarray
    Y: np.ndarray
    sample_weight: np.ndarray | None
    n_bootstrap: int | None
    builder: str
    rules: object
    finder: dict
    presorted: tuple | None = None


def tree_weights(job, seed):
    """The sample weights of the tree of ``seed``: its bootstrap counts, else the forest's
    ``sample_weight`` (None: all 1).  O(n)."""
    return (job.sample_weight if job.n_bootstrap is None else
            bootstrap_counts(seed, len(job.X), job.n_bootstrap, job.sample_weight))


def grow_forest_tree(job, seed):
    """The tree of ``seed`` (its bootstrap sample and its finder's generator) and its
    finder's bin thresholds (None but for ``"hist"``).  With ``builder="level_wise"`` and
    fewer features than all, the level-wise growers draw each node's features under their
    own contract (``treelib.growth.level_features``).  The cost of its grower."""
    finder = Finder(rng=numpy_rng(seed), **job.finder)
    data, Y, weights = without_zero_weights(job.X, job.Y, tree_weights(job, seed))
    data = finder.prepare(data)
    return grow(job.builder, data, Y, finder, job.rules, weights=weights), finder.bin_thresholds


def batched(job):
    """Whether the forest's trees grow in batches: level-wise trees with exact cuts
    (``grow_exact_batch``) or random thresholds (``grow_random_batch``).  O(1)."""
    return (job.builder == "level_wise" and job.finder["splitter"] in ("cumsum", "random")
            and job.rules.max_leaf_nodes is None)


def grow_forest_trees(job, seeds):
    """``grow_forest_tree`` for each of ``seeds``, in order: level-wise exact or extra
    trees all at once (``grow_exact_batch``, ``grow_random_batch``: each tree with its
    own finder, generator and weights, so bit for bit the tree grown alone), the others
    one after the other.  Cost: the trees' growth; memory of a batch: its trees' samples
    and statistics, O(len(seeds) n k), and for exact trees their sorted rows,
    O(len(seeds) n f) in groups of at most ``level_batch.BATCH_BYTES``."""
    if not batched(job):
        return [grow_forest_tree(job, seed) for seed in seeds]
    finders = [Finder(rng=numpy_rng(seed), **job.finder) for seed in seeds]
    weights = [tree_weights(job, seed) for seed in seeds]
    if job.finder["splitter"] == "cumsum":
        trees = grow_exact_batch(job.X, job.Y, finders, job.rules, weights,
                                 presorted=job.presorted)
    else:
        trees = grow_random_batch(job.X, job.Y, finders, job.rules, weights)
    return [(tree, finder.bin_thresholds) for tree, finder in zip(trees, finders)]


def forest_units(job, seeds, n_jobs):
    """The seeds cut into the units of work: one tree each, or for batched forests
    (``batched``) batches of at most ``BATCH_TREES`` trees (exact trees: and at most
    ``level_batch.batch_trees`` of the data's size), a multiple of ``n_jobs`` of them of
    near-equal sizes.  O(trees)."""
    if not batched(job):
        return [seeds[i:i + 1] for i in range(len(seeds))]
    size = BATCH_TREES
    if job.finder["splitter"] == "cumsum":
        size = min(size, batch_trees(*job.X.shape, job.X.dtype.itemsize))
    rounds = -(-len(seeds) // (size * n_jobs))
    return [part for part in np.array_split(np.asarray(seeds), n_jobs * rounds) if len(part)]


def _start_worker(job):                   # each worker process keeps the forest's job
    global _WORKER_JOB
    _WORKER_JOB = job


def _grow_in_worker(seeds):
    return grow_forest_trees(_WORKER_JOB, seeds)


def grow_forest(job, seeds, n_jobs=1, backend="processes"):
    """``grow_forest_tree`` for every seed, in order, with ``n_jobs`` workers: processes
    (each unit of ``forest_units``, a tree or a batch of level-wise trees, grown whole by
    one of them; forked where the platform can, so the data are not copied) or
    ``backend="threads"``.  A tree depends on its seed alone, so the forest is the same
    for every ``n_jobs`` and backend.  O(trees x a tree's cost / n_jobs)."""
    n_jobs = max(1, min(n_jobs, len(seeds)))
    units = forest_units(job, seeds, n_jobs)
    if batched(job) and job.finder["splitter"] == "cumsum" and job.presorted is None:
        job = replace(job, presorted=sorted_rows(job.X))        # once for every batch
    if n_jobs == 1:
        grown = [grow_forest_trees(job, unit) for unit in units]
    elif backend == "threads":
        with ThreadPoolExecutor(n_jobs) as pool:
            grown = list(pool.map(partial(grow_forest_trees, job), units))
    else:
        fork = "fork" in multiprocessing.get_all_start_methods()
        context = multiprocessing.get_context("fork" if fork else None)
        chunk = max(1, len(units) // (4 * n_jobs))
        with ProcessPoolExecutor(n_jobs, mp_context=context, initializer=_start_worker,
                                 initargs=(job,)) as pool:
            grown = list(pool.map(_grow_in_worker, units, chunksize=chunk))
    return [tree for unit in grown for tree in unit]
