"""A split, its threshold, and the one tie rule every finder shares."""

from dataclasses import dataclass

import numpy as np

#: Bin code of a missing value (``treelib.binning`` cuts real values into at most 255
#: bins, codes 0 .. 254).
MISSING_BIN = 255


@dataclass(frozen=True)
class Split:
    """The best split of a node: ``X[:, feature] <= threshold`` goes left.

    ``gain`` is ``n I(node) - n_left I(left) - n_right I(right)`` for the criterion ``I``
    that found it: for squared error the node's sum of squared errors minus its
    children's, in squared units of y.  ``n_left`` and ``n_right`` count the samples each
    child receives.  A histogram finder works on bin codes: its splits also carry ``bin``,
    the last bin that goes left (``code <= bin`` is the same test on the training data as
    ``x <= threshold``).  A missing value (NaN, or the missing bin) goes left when
    ``missing_go_to_left``; a split whose node had no missing value sends them to its
    larger child, as scikit-learn does.  ``threshold`` is +inf for the split that sends
    every present value left and only the missing ones right.  A split of a categorical
    feature sends the categories (codes) in ``categories_left`` left, and has no
    threshold (NaN).
    """

    feature: int
    threshold: float
    gain: float
    n_left: int
    n_right: int
    bin: int | None = None
    missing_go_to_left: bool = False
    categories_left: tuple | None = None

    def goes_left(self, data):
        """Boolean mask of the rows of ``data`` that go left: ``data`` holds the features,
        or their bin codes for a histogram split (missing: ``MISSING_BIN``, 255)."""
        column = np.asarray(data)[:, self.feature]
        if self.categories_left is not None:
            missing = np.isnan(column) if column.dtype.kind == "f" else column == MISSING_BIN
            return np.where(missing, self.missing_go_to_left,
                            np.isin(column, self.categories_left))
        if self.bin is not None:
            missing = column == MISSING_BIN
            return np.where(missing, self.missing_go_to_left, column <= self.bin)
        return np.where(np.isnan(column), self.missing_go_to_left, column <= self.threshold)


def midpoint(low, high):
    """Threshold halfway between two neighbouring values, ``low <= t < high``.

    Computed in float64 as ``low/2 + high/2`` (no overflow).  When the two values are
    adjacent floats the midpoint can round up to ``high``, which would send ``high``
    left; the threshold is then ``low`` itself.
    """
    low, high = np.asarray(low, dtype=np.float64), np.asarray(high, dtype=np.float64)
    mid = low / 2 + high / 2
    return np.where((low <= mid) & (mid < high), mid, low)


def best_cut(gains, bounds):
    """Position ``(cut, feature)`` of the best cut in ``gains`` (cuts x features); None
    if every gain is ``-inf``.

    The tie rule, the same for every finder in treelib:

    1. the *reference* cut is the highest gain (the first one in feature order, then cut
       order, if several are equal);
    2. a cut is *tied* with it when its gain could equal the reference's up to rounding:
       ``gain + bound >= reference gain - reference bound``, with ``bounds`` the rounding
       bounds of ``treelib.gains.gain_rounding_bound``;
    3. among the tied cuts the lowest feature index wins, then the lowest cut (the lowest
       threshold).

    A cut is never tied with a better one by more than rounding can explain, however
    large the node's impurity.  O(cuts x features).
    """
    by_feature = np.asarray(gains).T                # feature-major: row j is feature j
    if by_feature.size == 0 or not np.isfinite(by_feature).any():
        return None
    reference = np.unravel_index(np.argmax(by_feature), by_feature.shape)
    floor = by_feature[reference] - np.asarray(bounds).T[reference]
    tied = by_feature + np.asarray(bounds).T >= floor
    feature = int(np.argmax(tied.any(axis=1)))
    return int(np.argmax(tied[feature])), feature
