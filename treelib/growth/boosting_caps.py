"""The bound cap of the Newton gain of gradient boosting's nodes: how far below a node's
best gain a cut can lie and still tie with it (``treelib.split.Candidates.contenders``),
from the node's sums alone (``treelib.gains.bound_cap``'s reasoning for the Newton gain);
and the rounding bounds of a few cuts (``treelib.gains.gain_rounding_bound``).

The grower asks for the caps of one or two nodes at a time, and for the bounds of the
few cuts that contend with a node's best, thousands of times a fit; numpy's calls on
arrays of two cost more than the arithmetic, so these are computed in Python floats.
Each formula is written once, with operators alone (``newton_cap`` here,
``treelib.gains.rounding_bound``, ``squares_terms`` and ``squares_slope``), and called
on numpy's arrays or per element on Python's floats: the same operations in the same
order, so the same bits (tests/growth/test_boosting_caps.py checks them against
numpy's on special and random values); the maximum and the divisions by zero are the
callers'.  O(nodes or cuts) per call."""

import numpy as np

from treelib.gains import EPS, rounding_bound, squares_slope, squares_terms


def newton_cap(top, G, H, N, A, scale, eps):
    """The formula of ``newton_bound_cap``, ``4 eps (top + 2 G^2 / H) + 32 eps N A
    scale``, for best gains ``top`` already raised to 0 (the callers' maximum) and
    nonzero ``H`` (or the caller's division by zero).  Operators only, so numpy's arrays
    (``eps``: ``EPS``) and Python's floats (``float(EPS)``) give the same bits.  O(1) per
    element."""
    return 4 * eps * (top + 2 * G * G / H) + 32 * eps * N * A * scale


def newton_caps_in_floats(G, H, N, A, scale, top):
    """``newton_bound_cap`` of a few nodes in Python floats (``newton_cap`` per node), the
    same bits as numpy's, several times faster than numpy's calls for the one or two
    nodes a grower searches at a time.  ``G, H, N, A, top``: float64 arrays (m,).  None
    (use numpy) unless ``top`` is one such gain per node and every H is nonzero
    (Python's division by zero raises where numpy's gives inf or NaN).  O(m)."""
    if not (isinstance(top, np.ndarray) and top.dtype == np.float64
            and top.shape == G.shape):
        return None
    H = H.tolist()
    if 0.0 in H:
        return None
    eps, caps = float(EPS), []
    for t, g, h, n, a in zip(top.tolist(), G.tolist(), H, N.tolist(), A.tolist()):
        t = t if t > 0.0 or t != t else 0.0        # np.maximum(t, 0.0): NaN kept, -0 to 0
        caps.append(newton_cap(t, g, h, n, a, scale, eps))
    return np.array(caps)


#: ``newton_bound_cap`` of at most this many nodes is computed in Python floats.
FLOAT_NODES = 8


def newton_bound_cap(sums, top, s=slice(None)):
    """``treelib.gains.bound_cap`` for the Newton gain of the nodes ``s`` whose best
    gains are ``top``: ``newton_cap``, ``4 EPS (max(top, 0) + 2 G^2 / H) + 32 N EPS A
    scale``, since ``|G_L| / H_L`` is a weighted mean of the node's ``|g / h|``, at most
    the tree's largest, ``sums.scale``.  Only cuts within twice this of a node's best
    gain can tie with it.  O(nodes)."""
    if isinstance(s, slice) and s == slice(None) and len(sums.G) <= FLOAT_NODES:
        caps = newton_caps_in_floats(sums.G, sums.H, sums.N, sums.A, sums.scale, top)
        if caps is not None:                      # (None: numpy's division by zero)
            return caps
    G, H, N, A = sums.G[s], sums.H[s], sums.N[s], sums.A[s]
    with np.errstate(divide="ignore", invalid="ignore"):
        return newton_cap(np.maximum(top, 0.0), G, H, N, A, sums.scale, EPS)


def newton_bounds_in_floats(GL, HL, G, H, A, N, gain, l2):
    """``treelib.gains.gain_rounding_bound`` (criterion "newton", ``abs_total=A``,
    ``terms=BoundTerms(n_terms=N, l2=l2)``) of a few cuts of one node in Python floats:
    its formulas per cut (``rounding_bound`` of ``squares_terms`` and ``A`` times
    ``squares_slope``, ``4 EPS (|gain| + 2 G^2 / (H + l2)) + 16 EPS N A (|G_L| / (H_L +
    l2) + |G - G_L| / (H - H_L + l2))``), the same bits as numpy's.  ``GL, HL, gain``:
    float64 arrays (c,); ``G, H, A, N``: the node's floats.  None (use numpy) where
    Python's division by zero would raise.  O(c)."""
    eps = float(EPS)
    G, H, A, N, l2 = float(G), float(H), float(A), float(N), float(l2)
    squares, bounds = G * G, []
    try:
        for gl, hl, g in zip(GL.tolist(), HL.tolist(), gain.tolist()):
            bounds.append(rounding_bound(squares_terms(g, squares, H, l2), eps, N,
                                         A * squares_slope(gl, hl, G, H, l2)))
    except ZeroDivisionError:
        return None
    return np.array(bounds)
