"""Data sets shipped with treelib, loaded without a network.

``load_california_housing`` returns exactly what scikit-learn's
``fetch_california_housing`` returns (same features, order, units and return
conventions), read from the StatLib file committed in ``treelib/data``.
``load_libsvm`` reads four LIBSVM binary classification data sets (a1a, a9a,
mushrooms, splice) with their train/test splits, and ``load_seed_auc_table`` the
figures seed article 001 published for them.
"""

import functools
from importlib import resources

import numpy as np

#: California housing's eight features, in column order.
FEATURE_NAMES = ["MedInc", "HouseAge", "AveRooms", "AveBedrms",
                 "Population", "AveOccup", "Latitude", "Longitude"]
#: California housing's target (median house value, in 100,000 dollars).
TARGET_NAMES = ["MedHouseVal"]

#: A description of california housing (source, rows, columns).
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


#: The LIBSVM data sets shipped in ``treelib/data/libsvm``: declared number of
#: features, training file, test file (None: no official split).
LIBSVM_DATASETS = {
    "a1a": (123, "a1a.gz", "a1a.t.gz"),
    "a9a": (123, "a9a.gz", "a9a.t.gz"),
    "mushrooms": (112, "mushrooms.gz", None),
    "splice": (60, "splice.gz", "splice.t.gz"),
}
#: mushrooms has no official split; seed article 001 used 7,124 training rows and 1,000
#: test rows, drawn here by a seeded permutation.
MUSHROOMS_TEST_SIZE = 1000


def _read_svmlight(name, n_features):
    from sklearn.datasets import load_svmlight_file

    with resources.as_file(data_path(f"libsvm/{name}")) as path:
        X, y = load_svmlight_file(str(path), n_features=n_features)
    return X, (y > 0).astype(np.int64)        # labels -1/+1 (or 0/1) as 0/1


def load_libsvm(name, *, dense=True, seed=0):
    """Load a LIBSVM binary classification data set with its train/test split.

    Parameters
    ----------
    name : {"a1a", "a9a", "mushrooms", "splice"}
    dense : bool, default=True
        Return dense float64 arrays (the files are sparse; all four fit in memory).
    seed : int, default=0
        Seeds the 7,124 / 1,000 split of mushrooms, which has no official one.

    Returns
    -------
    Bunch with ``X_train``, ``y_train``, ``X_test``, ``y_test`` (labels 0/1, the
    positive class 1) and ``n_features``.  Read with scikit-learn's
    ``load_svmlight_file``, with the number of features the data set declares (a1a's
    training file never uses its last four).
    """
    if name not in LIBSVM_DATASETS:
        raise ValueError(f"unknown LIBSVM data set {name!r}; choose one of "
                         f"{sorted(LIBSVM_DATASETS)}")
    n_features, train_file, test_file = LIBSVM_DATASETS[name]
    X_train, y_train = _read_svmlight(train_file, n_features)
    if test_file is not None:
        X_test, y_test = _read_svmlight(test_file, n_features)
    else:
        rows = np.random.default_rng(seed).permutation(len(y_train))
        test, train = rows[:MUSHROOMS_TEST_SIZE], rows[MUSHROOMS_TEST_SIZE:]
        X_train, y_train, X_test, y_test = (X_train[train], y_train[train],
                                            X_train[test], y_train[test])
    if dense:
        X_train, X_test = X_train.toarray(), X_test.toarray()
    return Bunch(X_train=X_train, y_train=y_train, X_test=X_test, y_test=y_test,
                 n_features=n_features)


def load_seed_auc_table():
    """Table 2 of seed article 001 for the four shipped data sets, as a DataFrame.

    AUC and training seconds of random decision trees (RDT: 30 trees, at least 4
    samples per leaf, depth limit = number of features) against J48 (C4.5), SMO (an
    SVM) and logistic regression, as published.  Columns: data, method, auc, seconds.
    """
    import pandas as pd

    with resources.as_file(data_path("seed001_table2.csv")) as path:
        return pd.read_csv(path)


# --- counts, categories and missing values (the chapters on criteria, missing values and
# categorical features) --------------------------------------------------------------

#: Bikeshare's month categories, by code.
MONTHS = ["Jan", "Feb", "March", "April", "May", "June", "July", "Aug", "Sept", "Oct",
          "Nov", "Dec"]
#: Bikeshare's weather categories, by code.
WEATHER = ["clear", "cloudy/misty", "light rain/snow", "heavy rain/snow"]


def _read_extra(name):
    import pandas as pd

    with resources.as_file(data_path(f"extra/{name}")) as path:
        return pd.read_csv(path)


def load_bikeshare(return_X_y=False):
    """Hourly rentals of Capital Bikeshare, Washington D.C., 2011 (8,645 hours).

    UCI "Bike Sharing Dataset" (Fanaee-T and Gama, 2013, CC BY 4.0), in the layout of the
    ISLP package's ``Bikeshare``.  Target ``bikers``: the number of rentals in the hour
    (a count, 1 .. 651).  Features: ``mnth`` (12 month names) and ``weathersit`` (4
    levels, clear to heavy rain/snow) as pandas categories, ``hr`` (0 .. 23), ``season``,
    ``weekday``, ``day``, 0/1 ``holiday`` and ``workingday`` as integers, and the
    normalised ``temp``, ``atemp``, ``hum``, ``windspeed``.  ``casual`` and
    ``registered`` are left out: they add up to the target.

    Returns a Bunch with ``frame`` (every column), ``data`` (the features, a DataFrame)
    and ``target`` (a Series); or ``(data, target)``.
    """
    import pandas as pd

    frame = _read_extra("bikeshare.csv.gz").drop(columns=["casual", "registered"])
    frame["mnth"] = pd.Categorical(frame["mnth"], categories=MONTHS)
    frame["weathersit"] = pd.Categorical(frame["weathersit"], categories=WEATHER)
    data, target = frame.drop(columns="bikers"), frame["bikers"]
    if return_X_y:
        return data, target
    return Bunch(frame=frame, data=data, target=target,
                 feature_names=list(data.columns), target_names=["bikers"])


def load_penguins(return_X_y=False):
    """Palmer Archipelago penguins (Gorman, Williams and Fraser, 2014; CC0): 344 birds
    of 3 species (Adelie 152, Gentoo 124, Chinstrap 68).

    Features: ``island`` (3 levels) and ``sex`` as pandas categories (``sex`` missing for
    11 birds), ``bill_length_mm``, ``bill_depth_mm``, ``flipper_length_mm``,
    ``body_mass_g`` (missing for 2 birds) and ``year``.  Target ``species``.

    Returns a Bunch with ``frame``, ``data`` and ``target``; or ``(data, target)``.
    """
    import pandas as pd

    frame = _read_extra("penguins.csv.gz")
    for column in ["island", "sex"]:
        frame[column] = pd.Categorical(frame[column])
    data, target = frame.drop(columns="species"), frame["species"]
    if return_X_y:
        return data, target
    return Bunch(frame=frame, data=data, target=target,
                 feature_names=list(data.columns), target_names=["species"])


def mask_values(X, fraction, *, feature=0, mechanism="completely_at_random", seed=0):
    """A copy of X with ``fraction`` of the values of column ``feature`` replaced by NaN.

    ``mechanism="completely_at_random"``: the hidden values are drawn uniformly (MCAR);
    ``"not_at_random"``: the largest values are hidden first (MNAR: the chance that a value
    is missing depends on the value itself, as when the richest block groups do not
    report their income).  Seeded.
    """
    X = np.array(X, dtype=np.float64)
    n = len(X)
    k = int(round(fraction * n))
    if mechanism == "completely_at_random":
        rows = np.random.default_rng(seed).permutation(n)[:k]
    elif mechanism == "not_at_random":
        rows = np.argsort(-X[:, feature], kind="stable")[:k]
    else:
        raise ValueError(f"mechanism must be 'completely_at_random' or 'not_at_random'; "
                         f"got {mechanism!r}")
    X[rows, feature] = np.nan
    return X
