"""Sums that do not depend on the order of the additions: statistics as fixed-point integers.

Floating-point addition rounds, so it is not associative: ``(a + b) + c`` and ``a + (b +
c)`` can differ in the last bit.  Two computations that add the same numbers in different
orders (a cluster adding its workers' histograms up a tree, one process adding them row
after row) get different bits, and a cut whose gain ties another's to the last bit can
change.  Integers add exactly, in any order; XGBoost's GPU histograms quantise gradients to
64-bit fixed-point integers for this reason.

Here a column of statistics v is written on a grid of spacing ``2**exponent`` as integers
``q = round(v / 2**exponent)``, each kept as ``limbs`` float64 digits of ``bits`` bits:

    q = d_0 + d_1 2**bits + ... + d_(T-1) 2**(bits (T - 1)),    |d_t| <= 2**(bits - 1).

``bits`` is chosen from the number of rows n so that n ``2**(bits - 1)`` <= ``2**51``:
then any sum of the digits of at most n rows is an integer below ``2**53`` in magnitude,
exact in float64 whatever the order, so ``np.bincount`` adds them exactly.  The grid
holds at least ``PRECISION_BITS`` bits in all: its spacing is at most ``2**-62`` of the
largest |v| (the largest may sit just above a power of two), so a value moves by at most
``2**-63`` of the largest, far below the ``2**-53`` that a single float addition loses.
A sum becomes one float again at the end (``to_float``), computed from the exact digits
alone, so every order of addition gives the same bits.

Costs: O(n T) to write n values, O(T) per sum to read one back; a histogram of T digits
costs T ``np.bincount`` passes instead of one.
"""

from dataclasses import dataclass

import numpy as np

#: Bits of every value kept below the largest |value| of a column.
PRECISION_BITS = 64
#: Sums of digits stay below this in magnitude, with room for one centring step.
SUM_BOUND_BITS = 51


@dataclass(frozen=True)
class Grid:
    """The fixed-point layout of one column of statistics: the grid's spacing
    ``2**exponent``, ``bits`` per digit and ``limbs`` digits per value."""

    exponent: int
    bits: int
    limbs: int


def make_grid(max_abs, n_rows):
    """The ``Grid`` for values of magnitude at most ``max_abs`` (finite) whose sums run over
    at most ``n_rows`` rows.  O(1)."""
    if not np.isfinite(max_abs) or max_abs < 0:
        raise ValueError(f"max_abs must be finite and non-negative, got {max_abs!r}")
    n_rows = max(int(n_rows), 1)
    bits = SUM_BOUND_BITS + 1 - int(np.ceil(np.log2(n_rows)))
    if bits < 8:
        raise ValueError(f"{n_rows} rows leave fewer than 8 bits per digit for exact sums")
    limbs = -(-PRECISION_BITS // bits)
    top = int(np.frexp(max_abs)[1]) if max_abs > 0 else 0     # max_abs < 2**top
    return Grid(exponent=top - (limbs * bits - 1), bits=bits, limbs=limbs)


def to_digits(values, grid):
    """The digits of ``values`` (any shape) on ``grid``: an array of shape
    ``values.shape + (grid.limbs,)``, least significant digit first.  Every step is exact
    but the last digit's rounding (values finer than the grid's spacing).  O(values x
    limbs)."""
    rest = np.ldexp(np.asarray(values, dtype=np.float64), -grid.exponent)
    digits = np.empty(rest.shape + (grid.limbs,))
    for t in range(grid.limbs - 1, -1, -1):
        digit = np.rint(np.ldexp(rest, -grid.bits * t))
        rest = rest - np.ldexp(digit, grid.bits * t)          # exact: see module docstring
        digits[..., t] = digit
    return digits


def normalise(digits, grid):
    """Exact sums of digits (any leading shape, last axis the limbs) with carries moved up,
    so that every digit but the top one is at most ``2**(bits - 1)`` in magnitude.  The
    integer they stand for is unchanged.  O(size)."""
    digits = np.array(digits, dtype=np.float64)
    for t in range(grid.limbs - 1):
        carry = np.rint(np.ldexp(digits[..., t], -grid.bits))
        digits[..., t] -= np.ldexp(carry, grid.bits)
        digits[..., t + 1] += carry
    return digits


def to_float(digits, grid):
    """The float nearest (within one rounding per digit) to the number that exact sums of
    digits stand for; a function of the digits alone, so the same sums give the same bits
    however they were added.  O(size)."""
    digits = normalise(digits, grid)
    value = np.ldexp(digits[..., -1], grid.bits * (grid.limbs - 1))
    for t in range(grid.limbs - 2, -1, -1):
        value = value + np.ldexp(digits[..., t], grid.bits * t)
    return np.ldexp(value, grid.exponent)


def centre(digits, counts, mean, grid):
    """Exact sums of ``v - mean`` from exact sums of v's digits over ``counts`` rows:
    ``digits - counts * digits(mean)``, with ``mean`` rounded to the grid first (so the
    result is exact).  ``mean`` broadcasts against ``counts``.  O(size)."""
    mean_digits = normalise(to_digits(mean, grid), grid)
    return digits - np.asarray(counts, np.float64)[..., None] * mean_digits
