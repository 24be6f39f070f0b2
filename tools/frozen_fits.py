"""Prove that a refactor changed no fit: the same catalogue of fits, run against a frozen
copy of treelib and against this checkout, must give bit-identical fingerprints.

    .venv/bin/python tools/frozen_fits.py --against d93cccc [--quick] [--only TEXT]
    .venv/bin/python tools/frozen_fits.py --frozen-path /tmp/frozen [--quick]

The frozen revision's ``treelib/`` is materialised with ``git archive`` in a temporary
directory (or taken from ``--frozen-path``, a directory that holds ``treelib/``).  The
CATALOGUE (every estimator of ``treelib.estimators`` across builders, splitters, criteria
and options; ``best_split``, ``Finder`` and ``grow`` called directly) runs in two fresh
processes, one per copy (``PYTHONPATH`` points ``import treelib`` at it, BLAS and OpenMP on
one thread), side by side on two cores.  Each prints ``{case id: sha256}``: the fingerprint
hashes every array that defines the fitted model (each tree's arrays, with dtype and shape)
and its predictions on the training rows.  A case that raises is recorded as the exception's
type, so an option refused by both copies is compared too.  The command prints
"N cases, all bit-identical" and exits 0, or one line per case that differs (which parts
of the model differ, or which copy raised what) and exits 1.  Cost: the catalogue's fits
twice, about a minute per copy (``--quick``: a fixed quarter of the cases).
"""

import argparse
import dataclasses
import functools
import hashlib
import itertools
import json
import os
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
THREADS = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}

# --- fingerprints -------------------------------------------------------------------------

#: The arrays that define a fitted tree, by class name (other dataclasses: all fields).
DEFINING = {
    "Tree": ("children_left", "children_right", "children_missing", "feature", "threshold",
             "value", "impurity", "n_node_samples", "weighted_n_node_samples", "categorical",
             "category_bits"),
    "ObliviousTree": ("feature", "threshold", "bin", "gain", "value", "impurity",
                      "n_leaf_samples", "weighted_n_leaf_samples"),
    "Split": ("feature", "threshold", "gain", "n_left", "n_right", "bin",
              "missing_go_to_left", "categories_left"),
}
#: The fitted attributes fingerprinted, where an estimator has them.
FITTED = ("tree_", "estimators_", "trees_", "baseline_", "step_sizes_", "train_score_",
          "validation_score_", "n_iter_", "bin_thresholds_", "classes_", "n_classes_",
          "feature_importances_", "max_features_", "max_depth_", "seeds_", "builder_",
          "oob_score_", "oob_prediction_", "oob_decision_function_", "is_categorical_",
          "categories_", "do_early_stopping_", "n_features_in_")
#: The predictions fingerprinted (on the training X), where an estimator has them.
PREDICTIONS = ("predict", "predict_proba", "decision_function")
ABSENT = object()


def feed(h, obj):
    """Add ``obj`` to the hash ``h``: arrays by dtype, shape and bytes (object arrays by
    their values), scalars as int64/float64, containers item by item, dataclasses by their
    defining fields.  O(size of obj)."""
    if obj is ABSENT:
        h.update(b"<absent>")
    elif obj is None or isinstance(obj, (bool, np.bool_)):
        h.update(f"<{obj!r}>".encode())
    elif isinstance(obj, (int, np.integer)):
        h.update(b"i" + np.int64(obj).tobytes())
    elif isinstance(obj, (float, np.floating)):
        h.update(b"f" + np.float64(obj).tobytes())
    elif isinstance(obj, str):
        h.update(b"s" + obj.encode() + b"\0")
    elif isinstance(obj, np.ndarray):
        h.update(f"a{obj.dtype.str}{obj.shape}".encode())
        if obj.dtype == object:
            feed(h, obj.tolist())
        else:
            h.update(np.ascontiguousarray(obj).tobytes())
    elif isinstance(obj, (list, tuple)):
        h.update(f"[{len(obj)}".encode())
        for item in obj:
            feed(h, item)
    elif isinstance(obj, dict):
        h.update(f"{{{len(obj)}".encode())
        for key in sorted(obj, key=str):
            feed(h, str(key))
            feed(h, obj[key])
    elif dataclasses.is_dataclass(obj):
        for name in defining_fields(obj):
            feed(h, name)
            feed(h, getattr(obj, name, ABSENT))
    elif hasattr(obj, "to_numpy"):                       # pandas
        feed(h, [str(getattr(obj, "dtype", "")), obj.to_numpy()])
    else:
        raise TypeError(f"cannot fingerprint a {type(obj).__name__}")


def defining_fields(obj):
    return DEFINING.get(type(obj).__name__) or [f.name for f in dataclasses.fields(obj)]


def digest(obj):
    """sha256 (hex) of ``obj`` as ``feed`` reads it."""
    h = hashlib.sha256()
    feed(h, obj)
    return h.hexdigest()


def leaves(value):
    """The dataclass objects of ``value`` (one, or nested lists of them), in order, or
    None if ``value`` is not made of them."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return [value]
    if isinstance(value, (list, tuple)) and value:
        found = [leaves(item) for item in value]
        if all(f is not None for f in found):
            return [leaf for f in found for leaf in f]
    return None


def parts_of(name, value):
    """``{part: sha256}`` of one attribute: trees field by field over all of them
    (``estimators_.threshold``) plus their nesting (``estimators_.shape``), else whole."""
    trees = leaves(value)
    if trees is None:
        return {name: digest(value)}
    fields = defining_fields(trees[0])
    parts = {f"{name}.{field}": digest([getattr(t, field, ABSENT) for t in trees])
             for field in fields}
    parts[f"{name}.shape"] = digest([type(t).__name__ for t in trees]
                                    + [repr(nesting(value))])
    return parts


def nesting(value):
    if isinstance(value, (list, tuple)):
        return [nesting(item) for item in value]
    return 0


def model_parts(model, X):
    """``{part: sha256}`` of a fitted estimator: its FITTED attributes and PREDICTIONS on
    ``X``.  O(model size + predictions)."""
    parts = {}
    for name in FITTED:
        try:
            value = getattr(model, name)
        except AttributeError:
            continue
        parts.update(parts_of(name, value))
    for method in PREDICTIONS:
        if hasattr(model, method):
            parts[method] = digest(getattr(model, method)(X))
    return parts


def combine(parts):
    """The fingerprint of a case: sha256 over its sorted parts."""
    return hashlib.sha256("".join(f"{k}={v}\n" for k, v in sorted(parts.items()))
                          .encode()).hexdigest()


def run_case(case):
    """``{"sha256", "parts"}`` of a case, or ``{"raises": type, "message"}``."""
    try:
        parts = case.run()
    except Exception as error:           # noqa: BLE001 (recorded, compared)
        first = str(error).splitlines()[0][:160] if str(error) else ""
        return {"raises": type(error).__name__, "message": first}
    return {"sha256": combine(parts), "parts": {k: v[:16] for k, v in parts.items()}}


# --- data (built in each copy; their fingerprints are cases too) --------------------------

@functools.cache
def dataset(name):
    """``(X, y)`` of a catalogue data set, by name.  Small: at most 600 rows."""
    import treelib.datasets as d

    rng = np.random.default_rng(0)
    if name in ("cal", "cal_small", "cal_tiny", "cal_nan", "ties", "ties3"):
        X, y = d.load_california_housing(return_X_y=True)
        rows = rng.permutation(len(X))[:600]
        X, y = np.asarray(X, np.float64)[rows], np.asarray(y, np.float64)[rows]
        if name in ("cal_tiny", "cal_small"):
            return (X[:30], y[:30]) if name == "cal_tiny" else (X[:300], y[:300])
        if name == "cal_nan":
            return with_nan(X, (0, 2, 5)), y
        if name == "ties":
            return np.round(X[:400]), np.round(y[:400], 1)
        if name == "ties3":
            return np.round(X[:400]), np.digitize(y[:400], np.quantile(y[:400], [1 / 3, 2 / 3]))
        return X, y
    if name.startswith(("three", "two")):
        return synthetic(name)
    if name.startswith("penguins"):
        X, y = d.load_penguins(return_X_y=True)
        if name == "penguins_reg":
            keep = X["body_mass_g"].notna().to_numpy()
            return X[keep].drop(columns="body_mass_g"), X["body_mass_g"][keep].to_numpy()
        return X, y.to_numpy()
    X, y = d.load_bikeshare(return_X_y=True)
    rows = rng.permutation(len(X))[:600]
    X, y = X.iloc[rows].reset_index(drop=True), y.to_numpy()[rows].astype(np.float64)
    if name == "bike":
        return X, y
    X = X.drop(columns=["mnth", "weathersit"]).to_numpy(np.float64)
    size = {"bike_tiny": 30, "bike_small": 300}.get(name, len(X))
    return X[:size], y[:size]


def with_nan(X, columns, fraction=0.15, seed=1):
    X = X.copy()
    rng = np.random.default_rng(seed)
    for j in columns:
        X[rng.random(len(X)) < fraction, j] = np.nan
    return X


def synthetic(name):
    """Three classes from a noisy linear rule on 5 features (rounded: some ties); "two":
    two of them; "_tiny": 40 rows; "_nan": missing values."""
    rng = np.random.default_rng(2)
    X = np.round(rng.normal(size=(300, 5)), 2)
    y = np.argmax(X[:, :3] @ rng.normal(size=(3, 3)) + rng.normal(scale=0.5, size=(300, 3)),
                  axis=1)
    if name.startswith("two"):
        y = (y == 0).astype(np.int64)
    if name.endswith("_tiny"):
        return X[:40], y[:40]
    if name.endswith("_nan"):
        return with_nan(X, (0, 3)), y
    return X, y


def sample_weight(n, seed=3):
    """Weights in [0, 2) with about one in five exactly zero."""
    rng = np.random.default_rng(seed)
    return np.round(rng.uniform(0, 2, n), 3) * (rng.random(n) > 0.2)


@functools.cache
def fixed_point_name():
    """The name of fixed-point histogram sums in this copy: "fixed_point", or "exact"
    before the rename (found by trying both on a tiny fit)."""
    from treelib.estimators import DecisionTreeRegressor

    X, y = dataset("cal_tiny")
    for name in ("fixed_point", "exact"):
        try:
            DecisionTreeRegressor(splitter="hist", histogram_sums=name, max_depth=1).fit(X, y)
            return name
        except (ValueError, TypeError):
            continue
    return "fixed_point"


FIXED_POINT = "<fixed_point>"


# --- the catalogue ------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Case:
    id: str
    run: object             # () -> {part: sha256}


def show(params):
    return ", ".join(f"{k}={'fixed_point' if v == FIXED_POINT else repr(v)}"
                     for k, v in params.items())


def fit_estimator(name, data, params, weighted):
    from treelib import estimators

    X, y = dataset(data)
    params = {k: fixed_point_name() if v == FIXED_POINT else v for k, v in params.items()}
    model = getattr(estimators, name)(**params)
    if weighted:
        model.fit(X, y, sample_weight=sample_weight(len(y)))
    else:
        model.fit(X, y)
    return model_parts(model, X)


def fit(name, data, weighted=False, **params):
    """A case fitting ``treelib.estimators.<name>(**params)`` on ``data``."""
    case_id = f"{name}({show(params)})@{data}{'+weights' if weighted else ''}"
    return Case(case_id, functools.partial(fit_estimator, name, data, params, weighted))


BUILDERS = ("recursive", "depth_first", "best_first", "level_wise")
SEARCHES = ("scan", "cumsum", "hist", "random")
REGRESSION = ("squared_error", "absolute_error", "poisson")
CLASSIFICATION = ("gini", "entropy")
TREE_OPTIONS = ({"max_depth": None}, {"max_depth": 5, "min_samples_leaf": 7},
                {"min_samples_leaf": 0.02, "min_samples_split": 10}, {"max_features": 3},
                {"max_features": "sqrt", "max_depth": 6}, {"max_leaf_nodes": 17},
                {"min_impurity_decrease": 0.01, "max_depth": 8}, {"weighted": True})


def decision_tree_grid():
    """Builder x splitter x criterion at depth 8 ("naive" on 50 rows)."""
    for builder, splitter in itertools.product(BUILDERS, ("naive",) + SEARCHES):
        tiny = "_tiny" if splitter == "naive" else ""
        common = dict(builder=builder, splitter=splitter, max_depth=8, random_state=0)
        for criterion in REGRESSION:
            data = ("bike" if tiny else "bike_num") if criterion == "poisson" else "cal"
            data += tiny
            yield fit("DecisionTreeRegressor", data, criterion=criterion, **common)
        for criterion in CLASSIFICATION:
            yield fit("DecisionTreeClassifier", "three" + tiny, criterion=criterion, **common)


def decision_tree_options():
    """Stopping rules, feature sampling, weights; missing values; ties; max_bins."""
    for options, builder, splitter in itertools.product(TREE_OPTIONS, BUILDERS, SEARCHES):
        common = dict(builder=builder, splitter=splitter, random_state=0, **options)
        yield fit("DecisionTreeRegressor", "cal_small", **common)
        yield fit("DecisionTreeClassifier", "three", criterion="entropy", **common)
    for builder, splitter in itertools.product(BUILDERS, SEARCHES):
        common = dict(builder=builder, splitter=splitter, random_state=1)
        for criterion in REGRESSION:
            yield fit("DecisionTreeRegressor", "cal_nan", criterion=criterion, max_depth=8,
                      **common)
        yield fit("DecisionTreeClassifier", "three_nan", **common)
        for criterion in ("squared_error", "absolute_error"):
            yield fit("DecisionTreeRegressor", "ties", criterion=criterion, **common)
        yield fit("DecisionTreeClassifier", "ties3", criterion="gini", **common)
    for builder, max_bins in itertools.product(BUILDERS, (2, 16, 64)):
        common = dict(builder=builder, splitter="hist", max_bins=max_bins)
        yield fit("DecisionTreeRegressor", "cal", **common)
        yield fit("DecisionTreeClassifier", "three", **common)


def decision_tree_special():
    """Categorical features (penguins, bikeshare), threads, fixed-point sums."""
    for builder, splitter, strategy in itertools.product(
            BUILDERS, SEARCHES, ("partition", "one_vs_rest")):
        common = dict(builder=builder, splitter=splitter, categorical_splitter=strategy,
                      random_state=0)
        for criterion in CLASSIFICATION:
            yield fit("DecisionTreeClassifier", "penguins", criterion=criterion, **common)
        for criterion in ("squared_error", "poisson"):
            yield fit("DecisionTreeRegressor", "bike", criterion=criterion, max_depth=8,
                      **common)
        yield fit("DecisionTreeRegressor", "penguins_reg", **common)
    yield fit("DecisionTreeClassifier", "penguins", categorical_features=None)
    yield fit("DecisionTreeClassifier", "penguins", categorical_features=[0])
    for splitter, max_depth, builder in itertools.product(("cumsum", "hist"), (None, 6),
                                                          ("level_wise", "depth_first")):
        common = dict(builder=builder, splitter=splitter, max_depth=max_depth, n_jobs=2)
        yield fit("DecisionTreeRegressor", "cal", **common)
        yield fit("DecisionTreeRegressor", "bike_num", criterion="poisson", **common)
        for criterion in CLASSIFICATION:
            yield fit("DecisionTreeClassifier", "three", criterion=criterion, **common)
    for builder, max_depth, max_bins in itertools.product((None, "level_wise", "depth_first"),
                                                          (4, None), (255, 32)):
        yield fit("DecisionTreeRegressor", "cal", splitter="hist", histogram_sums=FIXED_POINT,
                  builder=builder, max_depth=max_depth, max_bins=max_bins)
    yield fit("DecisionTreeRegressor", "cal", True, splitter="hist",
              histogram_sums=FIXED_POINT)
    yield fit("DecisionTreeRegressor", "cal", splitter="cumsum", histogram_sums=FIXED_POINT)
    yield fit("DecisionTreeRegressor", "cal_nan", splitter="hist", histogram_sums=FIXED_POINT)


FORESTS = ("RandomForestRegressor", "RandomForestClassifier", "ExtraTreesRegressor",
           "ExtraTreesClassifier")
FOREST_OPTIONS = ({}, {"max_features": "sqrt"}, {"max_features": 0.5}, {"weighted": True},
                  {"max_leaf_nodes": 15}, {"oob_score": True}, {"max_samples": 0.5},
                  {"min_samples_leaf": 3, "max_depth": 6}, {"max_bins": 32})


def forest_cases():
    """Forests of 3 trees on 300 rows: splitter x criterion x bootstrap, then options."""
    for name, splitter, bootstrap in itertools.product(FORESTS, ("scan", "cumsum", "hist",
                                                                 "random"), (True, False)):
        regression = name.endswith("Regressor")
        for criterion in REGRESSION if regression else CLASSIFICATION:
            if splitter == "scan" and criterion not in ("squared_error", "gini"):
                continue
            data = ("bike_small" if criterion == "poisson" else "cal_small" if regression
                    else "three")
            yield fit(name, data, n_estimators=3, max_depth=8, splitter=splitter,
                      criterion=criterion, bootstrap=bootstrap, random_state=0)
    for name, splitter, options in itertools.product(FORESTS, ("cumsum", "hist", "random"),
                                                     FOREST_OPTIONS):
        data = "cal_small" if name.endswith("Regressor") else "three"
        yield fit(name, data, n_estimators=3, splitter=splitter, random_state=3,
                  bootstrap=True, **options)
        if not options:
            yield fit(name, "three_nan" if data == "three" else "cal_nan", n_estimators=3,
                      max_depth=8, splitter=splitter, random_state=3)


def other_estimator_cases():
    """Random decision trees, oblivious trees."""
    for (name, data), max_depth, leaf in itertools.product(
            (("RandomDecisionTreeRegressor", "cal"), ("RandomDecisionTreeRegressor", "cal_nan"),
             ("RandomDecisionTreeClassifier", "three"),
             ("RandomDecisionTreeClassifier", "three_nan")), (None, 4), (4, 1)):
        yield fit(name, data, n_estimators=10, max_depth=max_depth, min_samples_leaf=leaf,
                  random_state=5)
    yield fit("RandomDecisionTreeClassifier", "penguins", n_estimators=3, random_state=0)
    for (name, data, criterion), depth, bins in itertools.product(
            (("ObliviousTreeRegressor", "cal", "squared_error"),
             ("ObliviousTreeRegressor", "cal", "absolute_error"),
             ("ObliviousTreeClassifier", "three", "gini"),
             ("ObliviousTreeClassifier", "three", "entropy")), (3, 6), (255, 16)):
        yield fit(name, data, criterion=criterion, max_depth=depth, max_bins=bins)
        yield fit(name, data, True, criterion=criterion, max_depth=depth, max_bins=bins)
    yield fit("ObliviousTreeRegressor", "cal", min_impurity_decrease=0.05)
    yield fit("ObliviousTreeRegressor", "ties", max_depth=8)
    yield fit("ObliviousTreeClassifier", "cal_nan")


BOOSTING_OPTIONS = ({}, {"learning_rate": "line_search"}, {"sampling": "goss"},
                    {"sampling": "goss", "top_rate": 0.3, "other_rate": 0.2,
                     "learning_rate": 0.3},
                    {"l2_regularization": 1.0}, {"max_leaf_nodes": None, "max_depth": 3},
                    {"min_samples_leaf": 5, "max_leaf_nodes": 7}, {"max_bins": 32},
                    {"weighted": True},
                    {"early_stopping": True, "validation_fraction": 0.2,
                     "n_iter_no_change": 3},
                    {"histogram_sums": FIXED_POINT})


def boosting_cases():
    """Boosting, 15 iterations: options x data (NaN, categorical, binary, 3 classes)."""
    for options, (name, data) in itertools.product(BOOSTING_OPTIONS, (
            ("HistGradientBoostingRegressor", "cal"),
            ("HistGradientBoostingRegressor", "cal_nan"),
            ("HistGradientBoostingRegressor", "bike"),
            ("HistGradientBoostingRegressor", "ties"),
            ("HistGradientBoostingClassifier", "two"),
            ("HistGradientBoostingClassifier", "three"),
            ("HistGradientBoostingClassifier", "penguins"))):
        params = {"max_iter": 15, "early_stopping": False, "random_state": 0, **options}
        yield fit(name, data, **params)


def api_cases():
    """``best_split``, ``Finder`` on one node and ``grow`` with each builder, called the
    way the chapters call them."""
    for splitter, criterion, leaf, weighted in itertools.product(
            ("naive", "scan", "cumsum"), REGRESSION + CLASSIFICATION, (1, 5), (False, True)):
        data = "cal_tiny" if criterion in REGRESSION else "three_tiny"
        yield api("best_split", data, weighted, splitter=splitter, criterion=criterion,
                  min_samples_leaf=leaf)
    for splitter, criterion, max_features in itertools.product(
            ("naive", "scan", "cumsum", "hist", "random"), REGRESSION + CLASSIFICATION,
            (None, 3)):
        data = "cal_tiny" if criterion in REGRESSION else "three_tiny"
        yield api("node", data, False, splitter=splitter, criterion=criterion,
                  max_features=max_features)
    for builder, splitter, criterion, weighted in itertools.product(
            BUILDERS, ("cumsum", "hist", "random"), ("squared_error", "gini"), (False, True)):
        data = "cal" if criterion == "squared_error" else "three"
        yield api("grow", data, weighted, builder=builder, splitter=splitter,
                  criterion=criterion)


def api(kind, data, weighted, **params):
    case_id = f"{kind}({show(params)})@{data}{'+weights' if weighted else ''}"
    return Case(case_id, functools.partial(call_api, kind, data, weighted, params))


def call_api(kind, data, weighted, params):
    from treelib import best_split
    from treelib.criteria import target_statistics
    from treelib.finders import Finder
    from treelib.growth import StoppingRules, grow

    X, y = dataset(data)
    params = dict(params)
    weights = sample_weight(len(y)) if weighted else None
    if kind == "best_split":
        return {"split": digest(best_split(X, y, sample_weight=weights, **params))}
    builder, criterion = params.pop("builder", None), params.pop("criterion")
    finder = Finder(params.pop("splitter"), criterion, min_samples_leaf=2,
                    rng=np.random.default_rng(4), **params)
    codes, Y = finder.prepare(X), target_statistics(y, criterion)
    if kind == "node":
        return {"split": digest(finder(codes, Y))}
    tree = grow(builder, codes, Y, finder, StoppingRules(max_depth=6), weights=weights)
    return {**parts_of("tree", tree), "predict": digest(tree.predict(codes))}


def data_cases():
    for name in ("cal", "cal_small", "cal_tiny", "cal_nan", "ties", "ties3", "three", "three_tiny",
                 "three_nan", "two", "penguins", "penguins_reg", "bike", "bike_num",
                 "bike_small", "bike_tiny"):
        yield Case(f"data@{name}", functools.partial(data_parts, name))


def data_parts(name):
    X, y = dataset(name)
    if hasattr(X, "columns"):
        return {"X": digest({str(c): X[c] for c in X.columns}), "y": digest(y)}
    return {"X": digest(X), "y": digest(y)}


FAMILIES = (data_cases, decision_tree_grid, decision_tree_options, decision_tree_special,
            forest_cases, other_estimator_cases, boosting_cases, api_cases)


def catalogue(quick=False, only=None):
    """Every case, in a fixed order; ``quick``: the data cases and a fixed quarter of the
    others (chosen by a hash of the id); ``only``: ids containing that text."""
    cases = [case for family in FAMILIES for case in family()]
    ids = [case.id for case in cases]
    if len(set(ids)) != len(ids):
        raise ValueError(f"duplicate case ids: {sorted({i for i in ids if ids.count(i) > 1})}")
    if quick:
        cases = [c for c in cases if c.id.startswith("data@")
                 or int(hashlib.sha1(c.id.encode()).hexdigest(), 16) % 4 == 0]
    if only:
        cases = [c for c in cases if only in c.id]
    return cases


def worker(quick, only):
    """Run the catalogue with whichever treelib is on the path; print the JSON."""
    import treelib

    warnings.simplefilter("ignore")
    start, cpu = time.perf_counter(), time.process_time()
    results = {case.id: run_case(case) for case in catalogue(quick, only)}
    print(json.dumps({"treelib": str(Path(treelib.__file__).resolve().parent),
                      "version": getattr(treelib, "__version__", "?"),
                      "seconds": time.perf_counter() - start,
                      "cpu_seconds": time.process_time() - cpu, "cases": results}))


# --- the two runs and their comparison ----------------------------------------------------

def start_worker(root, quick, only, workdir):
    """A fresh process running the catalogue with ``root/treelib``."""
    command = [sys.executable, "-P", str(Path(__file__).resolve()), "--worker"]
    command += ["--quick"] * quick + (["--only", only] if only else [])
    env = {**os.environ, **THREADS, "PYTHONPATH": str(root), "PYTHONWARNINGS": "ignore"}
    return subprocess.Popen(command, cwd=workdir, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def collect(process, root, label):
    out, err = process.communicate()
    if process.returncode != 0:
        raise SystemExit(f"the {label} run failed (exit {process.returncode}):\n{err[-3000:]}")
    result = json.loads(out)
    expected = (Path(root) / "treelib").resolve()
    if Path(result["treelib"]) != expected:
        raise SystemExit(f"the {label} run imported treelib from {result['treelib']}, "
                         f"not {expected}")
    return result


def describe(case, frozen, current):
    """Why a case differs, in one line, or None if it is bit-identical."""
    if frozen is None or current is None:
        return f"{case}: missing in the {'frozen' if frozen is None else 'current'} run"
    raised = ("raises" in frozen, "raises" in current)
    if raised == (True, True):
        if frozen["raises"] == current["raises"]:
            return None
        return (f"{case}: raises {frozen['raises']} in frozen, {current['raises']} in "
                f"current ({current['message']})")
    if raised != (False, False):
        side, result = ("frozen", frozen) if raised[0] else ("current", current)
        return f"{case}: raises {result['raises']} in {side} only ({result['message']})"
    if frozen["sha256"] == current["sha256"]:
        return None
    a, b = frozen["parts"], current["parts"]
    changed = [p for p in sorted(set(a) | set(b)) if a.get(p) != b.get(p)]
    shown = [p + ("" if p in a and p in b else " (frozen only)" if p in a else
                  " (current only)") for p in changed]
    return f"{case}: differs in {', '.join(shown)}"


def compare(frozen, current):
    """One line per case whose results differ (``frozen``, ``current``: {id: result})."""
    lines = []
    for case in list(frozen) + [c for c in current if c not in frozen]:
        line = describe(case, frozen.get(case), current.get(case))
        if line:
            lines.append(line)
    return lines


def materialise(rev, directory):
    """``git archive`` the revision's treelib/ into ``directory``; its full hash."""
    full = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--verify", f"{rev}^{{commit}}"],
                          capture_output=True, text=True, check=True).stdout.strip()
    archive = subprocess.run(["git", "-C", str(REPO), "archive", full, "treelib"],
                             capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(directory)], input=archive, check=True)
    return full


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--against", help="the frozen revision (a git commit)")
    parser.add_argument("--frozen-path", help="a directory holding the frozen treelib/")
    parser.add_argument("--quick", action="store_true", help="a fixed quarter of the cases")
    parser.add_argument("--only", help="only the cases whose id contains this text")
    parser.add_argument("--limit", type=int, default=40,
                        help="list at most this many differing cases (0: all)")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        return worker(args.quick, args.only)
    if not (args.against or args.frozen_path):
        parser.error("give --against REV or --frozen-path DIR")
    with tempfile.TemporaryDirectory(prefix="frozen_fits_") as tmp:
        root, label = args.frozen_path, args.against
        if root is None:
            root = Path(tmp) / "frozen"
            root.mkdir()
            label = materialise(args.against, root)[:12]
        runs = {"frozen": (Path(root).resolve(), start_worker(root, args.quick, args.only, tmp)),
                "current": (REPO, start_worker(REPO, args.quick, args.only, tmp))}
        results = {label_: collect(p, r, label_) for label_, (r, p) in runs.items()}
    for side, result in results.items():
        print(f"{side:8} {result['treelib']} ({result['version']}"
              f"{', ' + label if side == 'frozen' and label else ''}): "
              f"{len(result['cases'])} cases, {result['seconds']:.1f} s "
              f"({result['cpu_seconds']:.1f} s CPU)")
    lines = compare(results["frozen"]["cases"], results["current"]["cases"])
    total = len(set(results["frozen"]["cases"]) | set(results["current"]["cases"]))
    if not lines:
        print(f"{total} case{'s' * (total != 1)}, all bit-identical")
        return 0
    print(f"{len(lines)} of {total} cases differ:")
    shown = lines[:args.limit] if args.limit > 0 else lines
    for line in shown:
        print("  " + line)
    if len(shown) < len(lines):
        print(f"  ... and {len(lines) - len(shown)} more (--limit 0 lists them; --only TEXT "
              "reruns the cases whose id contains TEXT)")
    return 1


if __name__ == "__main__":
    sys.exit(main())
