"""Random thresholds: the split finder of extremely randomized trees.

Instead of scoring every cut of every feature, draw **one threshold per feature**,
uniformly between the feature's smallest and largest value in the node, and keep the
best of these f candidates.  This is scikit-learn's ``splitter="random"`` and the split of
extremely randomized trees (Geurts, Ernst and Wehenkel, 2006).  No sort: each candidate
is scored from the sums of the samples below its threshold, all features at once with
one matrix product.
"""

import numpy as np

from treelib.criteria import node_statistics
from treelib.gains import score_cuts
from treelib.split import Split, best_cut


def random_split(X, Y, rng, criterion="squared_error", min_samples_leaf=1, weights=None):
    """Best of one uniformly random threshold per feature; None if no candidate is valid.

    Parameters
    ----------
    X : ndarray of shape (n, f)
        The node's features.
    Y : ndarray of shape (n, k) or (n,)
        The node's statistics (targets for squared error, one-hot classes otherwise).
    rng : numpy.random.Generator
        Draws the f thresholds: ``t_j = min_j + u_j (max_j - min_j)``, ``u_j`` uniform in
        [0, 1).  As in scikit-learn, a draw that rounds up to ``max_j`` becomes ``min_j``
        so that both children are non-empty.
    criterion : {"squared_error", "gini", "entropy"}
    min_samples_leaf : int
        A candidate leaving fewer samples in a child is dropped (its feature is then not
        split at this node), as scikit-learn's random splitter does.
    weights : ndarray of shape (n,), optional
        Sample weights.

    Returns
    -------
    Split or None
        The candidate with the highest gain (ties as ``treelib.split.best_cut``);
        constant features have no candidate.

    Notes
    -----
    **O(f n k) per node**: one comparison ``X <= t`` per value and one matrix product for
    the left sums; no sort, whatever n is.
    """
    n = len(X)
    if np.isnan(X).any():
        raise ValueError("splitter='random' does not handle missing values; use 'cumsum' "
                         "or 'hist'")
    node = node_statistics(Y, [n], criterion, weights)
    low, high = X.min(axis=0).astype(np.float64), X.max(axis=0).astype(np.float64)
    threshold = random_thresholds(low, high, rng.random(X.shape[1]))
    goes_left = X <= threshold                                    # (n, f)
    n_left = goes_left.sum(axis=0)
    sums_left = goes_left.T.astype(np.float64) @ node.stats       # (f, k)
    w_left = n_left if weights is None else goes_left.T.astype(np.float64) @ weights
    gains, bounds = score_cuts(sums_left, w_left, node.totals[0], node.weight[0], criterion,
                               None if node.abs_totals is None else node.abs_totals[0],
                               n_terms=n)
    valid = (high > low) & (n_left >= min_samples_leaf) & (n - n_left >= min_samples_leaf)
    gains = np.where(valid, gains, -np.inf)[None, :]               # one cut per feature
    best = best_cut(gains, np.where(valid, bounds, 0.0)[None, :])
    if best is None:
        return None
    _, feature = best
    return Split(feature=feature, threshold=float(threshold[feature]),
                 gain=max(float(gains[0, feature]), 0.0), n_left=int(n_left[feature]),
                 n_right=int(n - n_left[feature]))


def random_thresholds(low, high, uniforms):
    """The drawn thresholds, one formula for every grower: ``low + u (high - low)`` in
    float64 for the ``uniforms`` u in [0, 1), replaced by ``low`` where it rounds up to
    ``high`` (so both children are non-empty when ``high > low``).  ``low`` and ``high``
    are a feature's smallest and largest values in the node (any shapes that broadcast
    with ``uniforms``).  O(size)."""
    threshold = low + uniforms * (high - low)
    return np.where(threshold >= high, low, threshold)
