"""The Newton bound cap of a few nodes and the rounding bounds of a few cuts in Python
floats (``treelib.growth.boosting_caps``): the same bits as numpy's
formula on every input, zeros of both signs, NaN and infinite gains, huge and tiny sums
included; numpy's path where Python's floats would raise (a zero H)."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from treelib.gains import EPS, BoundTerms, gain_rounding_bound
from treelib.growth.boosting_caps import (
    FLOAT_NODES,
    newton_bound_cap,
    newton_bounds_in_floats,
    newton_caps_in_floats,
)
from treelib.growth.boosting_histograms import NodeSums

SPECIAL = [0.0, -0.0, 1.0, -1.0, 1e-300, 1e300, -1e300, 5e-324, np.inf, -np.inf, np.nan]


def numpy_caps(sums, top):
    with np.errstate(all="ignore"):
        return (4 * EPS * (np.maximum(top, 0.0) + 2 * sums.G * sums.G / sums.H)
                + 32 * EPS * sums.N * sums.A * sums.scale)


def floats(nonzero=False):
    special = [v for v in SPECIAL if not (nonzero and v == 0)]
    values = st.floats(allow_nan=True, allow_infinity=True)
    if nonzero:
        values = values.filter(lambda v: v != 0)
    return st.one_of(st.sampled_from(special), values)


@settings(max_examples=100, deadline=None)
@given(st.integers(1, FLOAT_NODES).flatmap(lambda m: st.tuples(
    *(st.lists(floats(k == 1), min_size=m, max_size=m) for k in range(5)))),
    st.sampled_from([0.0, 1.0, 3.5, 1e300]))
def test_floats_are_numpys_bits(columns, scale):
    G, H, N, A, top = (np.array(c, dtype=np.float64) for c in columns)
    sums = NodeSums(G, H, N, A, scale)
    caps = newton_caps_in_floats(sums.G, sums.H, sums.N, sums.A, sums.scale, top)
    with np.errstate(all="ignore"):
        expected = numpy_caps(sums, top)
    assert caps.tobytes() == expected.tobytes()
    assert newton_bound_cap(sums, top).tobytes() == expected.tobytes()


def test_a_zero_hessian_or_other_inputs_go_to_numpy():
    sums = NodeSums([1.0, 2.0], [0.0, 3.0], [2, 3], [1.0, 2.0], 1.0)
    top = np.array([0.5, -0.0])
    assert newton_caps_in_floats(sums.G, sums.H, sums.N, sums.A, 1.0, top) is None
    assert newton_bound_cap(sums, top).tobytes() == numpy_caps(sums, top).tobytes()
    assert newton_caps_in_floats(sums.G, sums.H, sums.N, sums.A, 1.0, 0.5) is None
    many = NodeSums(*(np.arange(1.0, FLOAT_NODES + 2),) * 4, 2.0)
    top = np.linspace(-1, 1, FLOAT_NODES + 1)
    assert newton_bound_cap(many, top).tobytes() == numpy_caps(many, top).tobytes()
    assert newton_bound_cap(many, top[3], 3) == numpy_caps(many, top)[3]


@settings(max_examples=100, deadline=None)
@given(st.integers(1, FLOAT_NODES).flatmap(lambda c: st.tuples(
    *(st.lists(floats(), min_size=c, max_size=c) for _ in range(3)))),
    st.tuples(floats(), floats(), floats(), st.integers(1, 10**9)),
    st.sampled_from([0.0, 0.5, 1e-300]))
def test_bounds_in_floats_are_gain_rounding_bounds_bits(cuts, node, l2):
    GL, HL, gain = (np.array(c, dtype=np.float64) for c in cuts)
    G, H, A, N = node
    c = len(GL)
    with np.errstate(all="ignore"):
        expected = gain_rounding_bound(GL[:, None], HL, np.full((c, 1), G), np.full(c, H),
                                       "newton", abs_total=np.full((c, 1), A), gain=gain,
                                       terms=BoundTerms(n_terms=np.full(c, float(N)), l2=l2))
    bounds = newton_bounds_in_floats(GL, HL, np.float64(G), np.float64(H), np.float64(A),
                                     np.float64(N), gain, l2)
    if bounds is None:                                    # a division by zero: numpy's
        assert np.any(HL + l2 == 0) or np.any(H - HL + l2 == 0) or H + l2 == 0
    else:                        # the same bits; a NaN (never a tie's bound) may differ
        nan = np.isnan(expected)  # in its sign bit, the hardware's and not the formula's
        np.testing.assert_array_equal(np.isnan(bounds), nan)
        assert bounds[~nan].tobytes() == expected[~nan].tobytes()
