"""The best split of a boosting tree's node under monotonic constraints, found exactly as
scikit-learn's HistGradientBoosting finds it.

Without constraints, treelib's boosting search (``treelib.growth.boosting_histograms``)
scores cuts by the Newton gain and breaks ties by treelib's one rule (lowest feature,
then lowest cut, among gains equal up to their rounding bounds); it splits a node only
if its best gain is positive beyond rounding.  Under constraints the children's values
are clipped to the node's bounds, and clipping makes gains equal up to their last bits
common, which scikit-learn's arithmetic and scan order then decide:

- a node whose value sits at a bound: every cut whose two children are both clipped to
  it gains ``G v - G_L v - G_R v``, rounding noise (about 1e-16), and scikit-learn
  splits the node when that noise is above 0 (the children keep the bound's value, and
  their descendants can split again);
- two features that cut the node's rows into the same two children (one the mirror of
  the other) gain one ulp apart, and scikit-learn keeps the larger.

So here every cut's gain is computed in scikit-learn's arithmetic (``treelib.finders
.monotonic.newton_scan_gains``: the same sums, the same operations in the same order)
and the first highest in its scan order wins (``first_best_cuts``).  With the sums equal
to the last bit (``treelib.growth.boosting_grower`` adds them in scikit-learn's order),
the trees are scikit-learn's, node for node.

Cost: O(m f B) for m nodes, f features and B bins (the cumulative sums and gains of
every cut, twice with missing values).
"""

import numpy as np

from treelib.finders.monotonic import first_best_cuts, newton_scan_gains
from treelib.growth.boosting_histograms import CutSums, FoundSplit, candidate_sums


def scan_splits(hist, sums, data, rules):
    """The best split of each of m nodes under ``rules.monotonic_cst``, as
    ``treelib.growth.boosting_histograms.best_splits`` returns them (a ``FoundSplit`` or
    None per node), but exactly as scikit-learn's ``Splitter`` finds it (see the module
    docstring): a cut is a candidate when both children keep ``min_samples_leaf`` samples
    and a sum of hessians of ``min_hessian_to_split``; its gain ``newton_scan_gains``
    (with missing values left, the right child's sums added from the last bin down, as
    the right-to-left scan adds them); the first highest in the scan order
    (``first_best_cuts``) splits the node if above 0.  ``sums``: the nodes'
    ``NodeSums`` with their ``limits``.  O(m f C) for C cuts per feature.
    """
    cuts = CutSums(*candidate_sums(hist, data), hessians=hist.h is not None)
    G, H, value, lower, upper = (np.array(a, np.float64) for a in zip(*sums.limits))
    N, C = sums.N[:, None, None], cuts.GL.shape[-1] // (1 + (data.missing_column >= 0))
    signs, l2, node = rules.monotonic_cst, rules.l2_regularization, (G, value, lower, upper)
    G, H = G[:, None, None], H[:, None, None]

    def scored(GL, HL, NL, GR, HR):
        valid = ((NL >= rules.min_samples_leaf) & (N - NL >= rules.min_samples_leaf)
                 & (HL >= rules.min_hessian_to_split) & (HR >= rules.min_hessian_to_split))
        return np.where(valid, newton_scan_gains((GL, HL), (GR, HR), node, signs, l2),
                        -np.inf)

    GL, HL, NL = (a[..., :C] for a in cuts[:3])
    left_to_right, right_to_left = scored(GL, HL, NL, G - GL, H - HL), None
    if data.missing_column >= 0:                 # the present bins 0 .. C - 1
        GR, HR, NR = (np.concatenate([np.cumsum(a[..., C - 1:0:-1], axis=-1)[..., ::-1],
                                      np.zeros(a.shape[:-1] + (1,))], axis=-1)
                      for a in (hist.g, hist.hess, hist.n))
        right_to_left = scored(G - GR, H - HR, N - NR, GR, HR)
        right_to_left[:, ~data.has_missing | data.categorical] = -np.inf
    features, labels, gains = first_best_cuts(left_to_right, right_to_left)
    results = [None] * len(gains)
    for s in np.flatnonzero(gains > 0):
        j, cut = int(features[s]), int(labels[s])
        sums_left = (NL, GL, HL) if cut < C else (N - NR, G - GR, H - HR)
        n_left, G_left, H_left = (float(np.broadcast_to(a, GL.shape)[s, j, cut % C])
                                  for a in sums_left)
        results[s] = FoundSplit(float(gains[s]), j, cut, int(n_left), G_left, H_left,
                                None if cuts.order is None else cuts.order[s, j])
    return results
