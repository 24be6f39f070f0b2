"""The committed benchmark files are complete and consistent.

These check results, not code: every file in ``benchmarks/`` records the machine it ran
on and holds every case, method and repeat its command runs; quantities that do not
depend on the machine (tree sizes, scores of deterministic models, counts) are the same
in every repeat and agree with a fresh computation.  Nothing here looks at seconds:
rerunning any benchmark on another machine, faster or slower, never breaks the suite.

`make test` runs this file on an emulated other CPU (see tools/other_cpu.py), beside the
notebooks, so the numbers it compares must not depend on the last bits of a float.
"""

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.svm import LinearSVC

from treelib import bench
from treelib.bench import auc, bins, growth, methods, subtraction, timing
from treelib.binning import bin_features
from treelib.datasets import load_libsvm

SPLIT_BENCHMARKS = ["bins", "subtraction", "auc", "rdt_cost", "methods"]
LIBSVM = {"a1a", "a9a", "mushrooms", "splice"}


LATER_BENCHMARKS = ["criteria", "missing", "categorical", "boosting", "forests", "parallel",
                    "distributed", "speed", "shapes", "per_node"]


@pytest.mark.parametrize("name", ["timing_full", "growth", *SPLIT_BENCHMARKS,
                                  *LATER_BENCHMARKS])
def test_every_file_records_its_machine(name):
    _, info = bench.load_results(name)
    for key in ["cpu", "numpy", "scikit-learn", "threads", "treelib commit", "date"]:
        assert info[key], f"{name}.csv does not record {key}"
    assert "uncommitted" not in info["treelib commit"]


def test_the_goal_files_hold_every_case_method_and_repeat():
    """speed.csv and shapes.csv, which issue 24's goal table reads
    (``treelib.bench.goals``): every case with every method, the same number of times."""
    from treelib.bench import shapes, speed

    fits, info = bench.load_results("speed")
    expected = {(case, method) for case, (_, n_trees) in speed.CASES.items()
                for method in speed.methods(case, n_trees, 0)}
    counts = fits.groupby(["case", "method"]).size()
    assert set(counts.index) == expected and set(counts) == {int(info["repeats"])}
    fits, info = bench.load_results("shapes")
    expected = {(case, method) for case in shapes.CASES
                for method in [shapes.REFERENCE, *shapes.treelib_methods(case)]}
    counts = fits.groupby(["case", "method"]).size()
    assert set(counts.index) == expected and set(counts) == {int(info["repeats"])}
    assert (fits.process_peak_mib > 0).all() and (fits.cpu_seconds > 0).all()


def test_timing_covers_the_seed_grid():
    fits, info = bench.load_results("timing_full")
    assert info["grid"] == "seed" and info["max_depth"] == str(timing.TIMING_MAX_DEPTH)
    assert set(fits.method) == set(timing.TIMING_METHODS)
    expected = {n: repeats * len(timing.TIMING_METHODS) for n, repeats in timing.SEED_GRID}
    assert fits.groupby("n_samples").size().to_dict() == expected


def test_growth_covers_every_case_and_treelib_grows_one_tree():
    fits, info = bench.load_results("growth")
    assert info["grid"] == "full"
    for case in ["california_full_depth", "million_rows_depth_10"]:   # what chapters read
        assert set(growth.GROWTH_METHODS) <= set(fits[fits.case == case].method)
    for case in set(fits.case):
        assert set(fits[fits.case == case].method) <= set(growth.case_methods(case))
    # the exact builders grow one tree (the histogram builder cuts between bins)
    treelib_fits = fits[~fits.method.isin(["sklearn", growth.HIST_METHOD])]
    assert (treelib_fits.groupby("case").n_leaves.nunique() == 1).all()


def test_bins_covers_every_setting_and_each_tree_is_deterministic():
    fits, info = bench.load_results("bins")
    repeats = int(info["repeats"])
    pairs = fits.groupby(["depth", "max_bins"]).size()
    expected = {(depth, max_bins) for depth in bins.BINS_DEPTHS
                for max_bins in (0, *bins.BINS_GRID)}
    assert set(pairs.index) == expected and (pairs == repeats).all()
    by_setting = fits.groupby(["depth", "max_bins"])
    assert (by_setting.test_r2.nunique() == 1).all() and (by_setting.n_leaves.nunique() == 1).all()


def test_bins_two_bins_at_full_depth_stop_at_the_distinct_code_combinations():
    fits, _ = bench.load_results("bins")
    leaves = fits.groupby(["depth", "max_bins"]).n_leaves.first()
    X_train, _, _, _ = bench.california_split()
    codes, _ = bin_features(X_train, max_bins=2)
    assert leaves[("full", 2)] == len(np.unique(codes, axis=0))


def test_subtraction_covers_every_case_and_counts_fewer_pairs_for_the_same_tree():
    fits, info = bench.load_results("subtraction")
    repeats = int(info["repeats"])
    assert set(fits.case) == set(subtraction.SUBTRACTION_CASES)
    assert (fits.groupby(["case", "subtract"]).size() == repeats).all()
    for case, part in fits.groupby("case"):
        assert part.n_leaves.nunique() == 1, case
        counted = part.groupby("subtract").counted.agg(["min", "max"])
        assert (counted["min"] == counted["max"]).all()            # counts are exact
        assert counted.loc[True, "min"] < counted.loc[False, "min"]


def test_methods_covers_every_method_depth_and_task():
    fits, info = bench.load_results("methods")
    assert set(fits.method) == set(methods.SPLIT_METHOD_TABLE)
    assert set(fits.depth.astype(str)) == set(methods.METHOD_DEPTHS)
    assert set(fits.task) == {"regression", "classification"}
    exact = fits[fits.method.isin(["naive", "scan", "cumsum", "cumsum, level-wise"])]
    # the four exact treelib methods grow the same trees
    assert (exact.groupby(["depth", "task"]).n_leaves.nunique() == 1).all()


def test_rdt_cost_covers_its_plan_and_routes_as_counted():
    fits, info = bench.load_results("rdt_cost")
    assert set(fits.experiment) == {"n", "depth", "features"}
    depth = fits[fits.experiment == "depth"]
    assert (depth.depth <= depth.max_depth).all()
    features = fits[fits.experiment == "features"].groupby("n_features").sample_levels.median()
    assert list(features.index) == [123, 246, 492, 984]
    # the same rows and draws: repeating the features leaves the samples routed alone
    assert 0.9 < features.iloc[-1] / features.iloc[0] < 1.1


@pytest.fixture(scope="module")
def auc_results():
    fits, _ = bench.load_results("auc")
    return fits


def test_auc_covers_every_data_set_and_method_without_warnings(auc_results):
    repeats = auc_results.groupby(["data", "method"]).size()
    assert set(auc_results.data) == LIBSVM and set(auc_results.method) == set(auc.AUC_METHODS)
    assert len(repeats) == len(LIBSVM) * len(auc.AUC_METHODS) and (repeats == 3).all()
    assert auc_results.warnings.isna().all()
    assert (auc_results.groupby(["data", "method"]).auc.nunique() == 1).all()


def test_auc_of_the_linear_models_is_what_a_fresh_fit_gives(auc_results):
    """liblinear and lbfgs stop at a tolerance (1e-4 by default), and their iterations
    follow BLAS, whose kernels differ by CPU: a fresh fit on another machine moves the
    decision values by about that tolerance, which reorders a few of the ~1.7e8 pairs of
    positives and negatives of a1a's test set (one pair is 6e-9 of AUC) and can flip the
    label of a test row whose decision value is within it of zero (one row moves the
    balanced accuracy by about 1e-4).  Hence the tolerances, far above what the chapter
    prints (3 decimals)."""
    data = load_libsvm("a1a")
    a1a = auc_results[auc_results.data == "a1a"]
    committed = a1a.groupby("method")[["auc", "auc_labels"]].mean()
    for name, model in [("linear_svc", LinearSVC(random_state=0)),
                        ("logistic", LogisticRegression())]:
        model.fit(data.X_train, data.y_train)
        scores = roc_auc_score(data.y_test, model.decision_function(data.X_test))
        labels = roc_auc_score(data.y_test, model.predict(data.X_test))
        assert scores == pytest.approx(committed.loc[name, "auc"], abs=1e-4)
        assert labels == pytest.approx(committed.loc[name, "auc_labels"], abs=1e-3)


# --- the benchmarks of the chapters on counts and medians, missing values and categorical
# features (criteria, missing, categorical) ---------------------------------------------


@pytest.mark.parametrize("name", ["criteria", "missing", "categorical"])
def test_the_chapter_benchmarks_record_their_machine_and_both_clocks(name):
    fits, info = bench.load_results(name)
    for key in ["cpu", "numpy", "scikit-learn", "threads", "treelib commit", "date"]:
        assert info[key], f"{name}.csv does not record {key}"
    assert "uncommitted" not in info["treelib commit"]
    assert {"seconds", "cpu_seconds"} <= set(fits.columns)


def test_criteria_covers_every_size_method_and_split():
    from treelib.bench import criteria

    fits, info = bench.load_results("criteria")
    repeats = int(info["repeats"])
    medians = fits[fits.experiment == "median"]
    expected = {(n, m) for n in criteria.MEDIAN_SIZES for m in criteria.MEDIAN_METHODS
                if not (m == "rescan" and n > criteria.MAX_RESCAN)}
    sizes = medians.groupby(["n_samples", "method"]).size()
    assert set(sizes.index) == expected and (sizes == repeats).all()
    # the three searches find the same best gain (sums of n terms, in different orders)
    spread = medians.groupby("n_samples").gain.agg(lambda g: g.max() - g.min())
    assert (spread <= 1e-9 * medians.groupby("n_samples").gain.max()).all()
    counts = fits[fits.experiment == "poisson"]
    runs = counts.groupby(["split", "depth", "method"]).size()
    assert len(runs) == (criteria.POISSON_SPLITS * len(criteria.POISSON_DEPTHS)
                         * len(criteria.POISSON_CRITERIA)) and (runs == 1).all()


def test_criteria_poisson_scores_are_what_a_fresh_fit_gives():
    from treelib import DecisionTreeRegressor
    from treelib.bench import criteria

    fits, _ = bench.load_results("criteria")
    row = fits[(fits.experiment == "poisson") & (fits.method == "poisson")
               & (fits.depth.astype(str) == "4") & (fits.split == 0)].iloc[0]
    X_train, X_test, y_train, y_test = criteria.bikeshare_split(0)
    model = DecisionTreeRegressor(criterion="poisson", max_depth=4, min_samples_leaf=5)
    predicted = model.fit(X_train, y_train).predict(X_test)
    assert criteria.poisson_deviance(y_test, predicted) == pytest.approx(row.deviance, rel=1e-9)
    assert model.get_n_leaves() == row.n_leaves


def test_missing_covers_every_setting_and_the_cart_answers_agree_without_holes():
    from treelib.bench import missing

    fits, info = bench.load_results("missing")
    repeats = int(info["repeats"])
    cells = fits.groupby(["strategy", "mechanism", "fraction"]).size()
    assert len(cells) == (len(missing.MISSING_STRATEGIES) * len(missing.MECHANISMS)
                          * len(missing.FRACTIONS)) and (cells == repeats).all()
    nothing = fits[fits.fraction == 0.0].pivot_table(index=["mechanism", "repeat"],
                                                     columns="strategy", values="test_r2")
    for strategy in ["mean imputation", "own branch", "surrogate splits"]:
        np.testing.assert_allclose(nothing[strategy], nothing["default direction"], rtol=1e-9)


def test_missing_scores_are_what_a_fresh_fit_gives():
    from treelib.bench import missing

    fits, _ = bench.load_results("missing")
    row = fits[(fits.strategy == "default direction") & (fits.mechanism == "not_at_random")
               & (fits.fraction == 0.3) & (fits.repeat == 0)].iloc[0]
    X_train, X_test, y_train, y_test = missing.masked_california("not_at_random", 0.3, seed=0)
    model = missing.make_missing_model("default direction").fit(X_train, y_train)
    assert bench.r2(y_test, model.predict(X_test)) == pytest.approx(row.test_r2, rel=1e-9)


def test_categorical_covers_every_feature_and_strategy_and_is_exact():
    from treelib.bench import categorical

    fits, info = bench.load_results("categorical")
    repeats = int(info["repeats"])
    runs = fits.groupby(["feature", "strategy"]).size()
    assert (runs == repeats).all()
    for feature, part in fits.groupby("feature"):
        q = int(part.n_categories.iloc[0])
        expected = set(categorical.CATEGORICAL_STRATEGIES) - (
            {"brute force"} if q > categorical.MAX_BRUTE_FORCE else set())
        assert set(part.strategy) == expected, feature
    assert (fits.groupby(["feature", "strategy"]).gain.nunique() == 1).all()
    share = categorical.categorical_table(fits)
    ran = share["brute force"].notna()
    np.testing.assert_allclose(share.loc[ran, "partition"], share.loc[ran, "brute force"],
                               rtol=1e-9)
    fresh = categorical.time_categorical(features=("month",), strategies=("partition",),
                                         repeats=1)
    assert fresh.share.iloc[0] == pytest.approx(share.loc[(12, "month"), "partition"],
                                                rel=1e-9)


def test_boosting_covers_its_experiments_and_treelib_grows_scikit_learns_trees():
    from treelib.bench import boosting

    fits, info = bench.load_results("boosting")
    for key in ["cpu", "numpy", "scikit-learn", "threads", "treelib commit", "date"]:
        assert info[key], f"boosting.csv does not record {key}"
    assert "uncommitted" not in info["treelib commit"]
    repeats = int(info["repeats"])
    peers = fits[fits.experiment == "peers"]
    assert peers.groupby(["dataset", "library"]).size().to_dict() == {
        (d, lib): repeats for d in ("a9a", "california") for lib in boosting.PEERS}
    # the same trees: the same test score, in every repeat (deterministic models); on a9a
    # up to ties between complementary one-hot columns, which route a few test rows
    # differently (appendix A6): the AUC agrees to 1e-5
    scores = peers.groupby(["dataset", "library"]).score.agg(["min", "max"])
    assert (scores["min"] == scores["max"]).all()
    for dataset, tolerance in (("california", 1e-12), ("a9a", 1e-5)):
        assert scores.loc[(dataset, "treelib"), "min"] == pytest.approx(
            scores.loc[(dataset, "scikit-learn"), "min"], abs=tolerance)
    # seed 003's line search takes whole steps for squared error: the fixed step of 1
    searched = fits[(fits.experiment == "line_search") & (fits.dataset == "california")]
    by_variant = searched.pivot_table(index="iterations", columns="variant", values="score")
    np.testing.assert_array_equal(by_variant["learning_rate=line_search"],
                                  by_variant["learning_rate=1.0"])
    goss = fits[fits.experiment == "goss"]
    assert goss.groupby(["dataset", "library"]).size().eq(
        repeats * len(boosting.GOSS_RATES)).all()


def test_distributed_rounds_add_up():
    """Every case fitted the three ways in every repeat; the distributed fits of a case
    are the same rounds (the fit is deterministic), and a tree reduction over p
    partitions moves p - 1 summaries per round, so a fit's bytes are p - 1 times the
    bytes of its rounds' summaries."""
    fits, info = bench.load_results("distributed")
    assert "LocalCluster" in info["cluster"]
    whole = fits[fits.record == "fit"]
    repeats = int(info["repeats"])
    for case, part in whole.groupby("case"):
        assert part.groupby("method").size().to_dict() == {
            "float": repeats, "fixed_point": repeats, "distributed": repeats}, case
        remote = part[part.method == "distributed"]
        assert remote.rounds.nunique() == 1 and remote.bytes.nunique() == 1, case
        rounds = fits[(fits.record == "round") & (fits.case == case)]
        assert len(rounds) == remote.rounds.iloc[0], case
        partitions = int(remote.partitions.iloc[0])
        assert remote.bytes.iloc[0] == (partitions - 1) * rounds.bytes.sum(), case
        assert (part.data_bytes == part.rows * 9 * 8).all()      # 8 features and y, float64
