"""The bound cap of the Newton gain of gradient boosting's nodes: how far below a node's
best gain a cut can lie and still tie with it (``treelib.split.Candidates.contenders``),
from the node's sums alone (``treelib.gains.bound_cap``'s reasoning for the Newton gain);
and the rounding bounds of a few cuts (``treelib.gains.gain_rounding_bound``).

The grower asks for the caps of one or two nodes at a time, and for the bounds of the
few cuts that contend with a node's best, thousands of times a fit; numpy's calls on
arrays of two cost more than the arithmetic, so these are computed in Python floats,
the same operations in the same order (the same bits; tests/growth/test_boosting_caps.py
checks them against numpy's on special and random values).  O(nodes or cuts) per call."""

import numpy as np

from treelib.gains import EPS


def newton_caps_in_floats(G, H, N, A, scale, top):
    """``newton_bound_cap`` of a few nodes in Python
    floats, ``4 EPS (max(top, 0) + 2 G^2 / H) + 32 EPS N A scale`` per node: the same
    operations in the same order on the same doubles, so the same bits, several times
    faster than numpy's calls for the one or two nodes a grower searches at a time.
    ``G, H, N, A, top``: float64 arrays (m,).  None (use numpy) unless ``top`` is one
    such gain per node and every H is nonzero (Python's division by zero raises where
    numpy's gives inf or NaN).  O(m)."""
    if not (isinstance(top, np.ndarray) and top.dtype == np.float64
            and top.shape == G.shape):
        return None
    H = H.tolist()
    if 0.0 in H:
        return None
    eps, caps = float(EPS), []
    for t, g, h, n, a in zip(top.tolist(), G.tolist(), H, N.tolist(), A.tolist()):
        t = t if t > 0.0 or t != t else 0.0        # np.maximum(t, 0.0): NaN kept, -0 to 0
        caps.append(4 * eps * (t + 2 * g * g / h) + 32 * eps * n * a * scale)
    return np.array(caps)


#: ``newton_bound_cap`` of at most this many nodes is computed in Python floats.
FLOAT_NODES = 8


def newton_bound_cap(sums, top, s=slice(None)):
    """``treelib.gains.bound_cap`` for the Newton gain of the nodes ``s`` whose best
    gains are ``top``: ``4 EPS (top + 2 G^2 / H) + 32 N EPS A scale``, since
    ``|G_L| / H_L`` is a weighted mean of the node's ``|g / h|``, at most the tree's
    largest, ``sums.scale``.  Only cuts within twice this of a node's best gain can tie
    with it.  O(nodes)."""
    if isinstance(s, slice) and s == slice(None) and len(sums.G) <= FLOAT_NODES:
        caps = newton_caps_in_floats(sums.G, sums.H, sums.N, sums.A, sums.scale, top)
        if caps is not None:                      # (None: numpy's division by zero)
            return caps
    G, H, N, A = sums.G[s], sums.H[s], sums.N[s], sums.A[s]
    with np.errstate(divide="ignore", invalid="ignore"):
        return 4 * EPS * (np.maximum(top, 0.0) + 2 * G * G / H) + 32 * EPS * N * A * sums.scale


def newton_bounds_in_floats(GL, HL, G, H, A, N, gain, l2):
    """``treelib.gains.gain_rounding_bound`` (criterion "newton", ``abs_total=A``,
    ``terms=BoundTerms(n_terms=N, l2=l2)``) of a few cuts of one node in Python floats:
    ``4 EPS (|gain| + 2 G^2 / (H + l2)) + 16 EPS N A (|G_L| / (H_L + l2) + |G - G_L| /
    (H - H_L + l2))``, the same operations in the same order (the same bits).
    ``GL, HL, gain``: float64 arrays (c,); ``G, H, A, N``: the node's floats.  None
    (use numpy) where Python's division by zero would raise.  O(c)."""
    eps4, eps16 = float(4 * EPS), float(16 * EPS)
    G, H, A, N, l2 = float(G), float(H), float(A), float(N), float(l2)
    bounds = []
    try:
        for gl, hl, g in zip(GL.tolist(), HL.tolist(), gain.tolist()):
            terms = abs(g) + 2 * (G * G) / (H + l2)
            slope = abs(gl) / (hl + l2) + abs(G - gl) / ((H - hl) + l2)
            bounds.append(eps4 * terms + eps16 * N * (A * slope))
    except ZeroDivisionError:
        return None
    return np.array(bounds)
