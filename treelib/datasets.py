"""Data sets shipped with treelib, loaded without a network.

``load_california_housing`` returns exactly what scikit-learn's
``fetch_california_housing`` returns (same features, order, units and return
conventions), read from the StatLib file committed in ``treelib/data``.
"""

import functools
from importlib import resources

import numpy as np

FEATURE_NAMES = ["MedInc", "HouseAge", "AveRooms", "AveBedrms",
                 "Population", "AveOccup", "Latitude", "Longitude"]
TARGET_NAMES = ["MedHouseVal"]

DESCR = """California housing (StatLib; Pace and Barry, 1997)

20,640 census block groups of California from the 1990 U.S. census, one row each.
Features (8, numeric, no missing values):
  MedInc      median income in the block group (tens of thousands of USD)
  HouseAge    median house age in the block group (years)
  AveRooms    average number of rooms per household
  AveBedrms   average number of bedrooms per household
  Population  block group population (people)
  AveOccup    average number of household members
  Latitude    block group latitude (degrees)
  Longitude   block group longitude (degrees)
Target:
  MedHouseVal median house value (hundreds of thousands of USD; capped at 5.00001)

The file is the one scikit-learn's fetch_california_housing downloads; the per-household
averages and the target's unit follow scikit-learn's transformation.
Reference: R. Kelley Pace and Ronald Barry, "Sparse Spatial Autoregressions",
Statistics and Probability Letters 33 (1997) 291-297.
"""


class Bunch(dict):
    """A dict whose keys are also attributes, like scikit-learn's ``Bunch``."""

    def __getattr__(self, key):
        try:
            return self[key]
        except KeyError:
            raise AttributeError(key) from None

    def __dir__(self):
        return list(self.keys())


def data_path(name):
    """Path of a file shipped in ``treelib/data`` (works from any working directory)."""
    return resources.files("treelib") / "data" / name


@functools.lru_cache(maxsize=1)
def _raw_california_housing():
    with resources.as_file(data_path("cal_housing.data.gz")) as path:
        raw = np.loadtxt(path, delimiter=",")
    raw.setflags(write=False)
    return raw


def load_california_housing(return_X_y=False, as_frame=False):
    """Load the California housing regression data set (20,640 samples, 8 features).

    Parameters
    ----------
    return_X_y : bool, default=False
        Return ``(data, target)`` instead of a Bunch.
    as_frame : bool, default=False
        Return a pandas DataFrame (features) and Series (target); the Bunch then also
        holds ``frame``, the features and the target in one DataFrame.

    Returns
    -------
    Bunch with ``data``, ``target``, ``frame``, ``feature_names``, ``target_names`` and
    ``DESCR``; or the tuple ``(data, target)`` if ``return_X_y``.

    Notes
    -----
    The raw columns are longitude, latitude, housingMedianAge, totalRooms,
    totalBedrooms, population, households, medianIncome, medianHouseValue.  As in
    scikit-learn, rooms and bedrooms are divided by households, AveOccup is
    population / households, and the target is medianHouseValue / 100,000.
    """
    raw = _raw_california_housing()
    longitude, latitude, age, rooms, bedrooms, population, households, income, value = raw.T
    data = np.column_stack([
        income,
        age,
        rooms / households,
        bedrooms / households,
        population,
        population / households,
        latitude,
        longitude,
    ])
    target = value / 100000.0
    frame = None
    if as_frame:
        import pandas as pd

        frame = pd.DataFrame(data, columns=FEATURE_NAMES)
        frame[TARGET_NAMES[0]] = target
        data = frame[FEATURE_NAMES]
        target = frame[TARGET_NAMES[0]]
    if return_X_y:
        return data, target
    return Bunch(data=data, target=target, frame=frame, feature_names=list(FEATURE_NAMES),
                 target_names=list(TARGET_NAMES), DESCR=DESCR)


def load_seed_timings():
    """The timing table published in seed article 000 (appendix 5.1), as a DataFrame.

    Seconds to build one regression tree on ``n_samples`` rows of california_housing,
    with the article's O(n^2) baseline and with its fast scan; one core of an Aliyun
    ecs.t5-lc1m2.large instance.  Columns: n_samples, baseline_seconds, fast_seconds.
    """
    import pandas as pd

    with resources.as_file(data_path("seed000_timings.csv")) as path:
        return pd.read_csv(path)
