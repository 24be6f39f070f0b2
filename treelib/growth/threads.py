"""How a level's split search is divided among threads: the one place for that question.

The level-wise growers (``treelib.growth.level_wise`` and ``level_wise_hist``) score the
cuts of every node of a level a group of features at a time.  The groups are independent
(a feature's sorted row, or its histograms, need nothing from another feature), so they
can run at the same time: ``run_chunks`` hands them to a ``ThreadPoolExecutor``.  Threads
share the data, so nothing is copied, and they can truly run together because numpy
releases the GIL inside its loops (``np.argsort``, ``np.cumsum``, ``np.bincount``,
``np.take``, element-wise arithmetic on large arrays); the Python between those calls
runs one thread at a time.

Why features and not nodes: every feature's sorted row has the same node boundaries, so
a group of features is one contiguous slice of the level's arrays, and each group's best
cuts per node are merged by ``treelib.growth.level_cuts.best_cuts`` under the one tie rule
(lowest feature, then lowest threshold, among cuts whose gains are equal within their
rounding bounds).  That merge looks at the set of all candidate cuts, never at the order
the groups finished in, so the tree is the same, bit for bit, for every ``n_jobs``.
(Splitting by nodes would serve levels with few features and many nodes; splitting by
rows is what the distributed fit does, adding histograms.)

Costs: the work is the serial work, O(f n_active k) per level, divided among
``min(n_jobs, groups)`` threads, plus per level one executor (about 0.1 ms per thread
started) and O(groups) Python calls.  Amdahl's law bounds the speed-up by what stays
serial: the histogram grower's partition of the rows to the children (the exact grower
partitions its rows by feature groups too), the merge of the groups' best cuts,
the Python of every call, and the time numpy holds the GIL.  Memory: each running group
holds its own temporaries, so the budget of ``CHUNK_VALUES`` values is shared among the
threads (each group gets ``CHUNK_VALUES / n_jobs``): the peak stays that of one thread.
"""

import math
import numbers
import os
from concurrent.futures import ThreadPoolExecutor

#: Temporary values (positions x features x statistics) that the groups of features
#: scored at the same time hold together, at most.  Each value costs a few dozen bytes
#: of temporaries (the exact scorer's sums, cut positions, nodes and gains about 110,
#: and it counts its values twice), so a level's search holds about 100 MiB at most,
#: whatever the data's size.
CHUNK_VALUES = 2**21


def check_n_jobs(n_jobs):
    """``n_jobs`` as a number of workers (a level's threads here; a forest's processes,
    ``treelib.estimators.bagging.grow_forest``): None is 1, -1 every core
    (``os.cpu_count()``), a positive integer itself; anything else raises a ValueError.
    O(1)."""
    if n_jobs is None:
        return 1
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, numbers.Integral) or not (
            n_jobs >= 1 or n_jobs == -1):
        raise ValueError(f"n_jobs must be a positive integer, -1 (every core) or None; "
                         f"got {n_jobs!r}")
    return (os.cpu_count() or 1) if n_jobs == -1 else int(n_jobs)


def feature_chunks(n_features, values_per_feature, n_jobs=1, budget=CHUNK_VALUES):
    """The features in groups (ranges, in increasing order) for ``n_jobs`` threads: each
    group holds at most ``budget / n_jobs`` temporary values (``values_per_feature`` per
    feature), and at most ``ceil(features / n_jobs)`` features, so that the threads
    share the work evenly.  O(groups)."""
    per_thread = budget // max(1, n_jobs)
    size = max(1, min(n_features, per_thread // max(1, int(values_per_feature))))
    size = min(size, max(1, math.ceil(n_features / max(1, n_jobs))))
    return [range(j, min(j + size, n_features)) for j in range(0, n_features, size)]


def run_chunks(function, chunks, n_jobs=1):
    """``[function(chunk) for chunk in chunks]``, computed by up to ``n_jobs`` threads;
    the results come back in the order of ``chunks`` whatever order they finish in.  An
    exception in any call is raised here.  With one thread or one chunk, no executor."""
    chunks = list(chunks)
    workers = min(n_jobs, len(chunks))
    if workers <= 1:
        return [function(chunk) for chunk in chunks]
    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(function, chunks))
