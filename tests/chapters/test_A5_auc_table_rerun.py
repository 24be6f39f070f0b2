"""Appendix A5 (seed article 001's AUC table, rerun): the published table is what the page
quotes, and the committed rerun says what the page says of it.  Timings are ratios read
from the committed file and the published table, never seconds measured in a test.  (That
the AUC of hard labels is the balanced accuracy is A2's claim, tested in
test_A2_seed_errata.py.)"""

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

from tests.conftest import claim
from treelib import DecisionTreeClassifier, RandomDecisionTreeClassifier
from treelib.bench import load_results
from treelib.bench.auc import make_auc_model
from treelib.datasets import load_libsvm, load_seed_auc_table

DATASETS = ["a1a", "a9a", "mushrooms", "splice"]
PAGE = "A5_auc_table_rerun.ipynb"


@pytest.fixture(scope="module")
def ours():
    fits, _ = load_results("auc")
    assert (fits.groupby(["data", "method"])[["auc", "auc_labels"]].nunique() == 1).all().all()
    return fits.groupby(["data", "method"])[["auc", "auc_labels"]].mean()


def test_published_table_is_what_the_page_quotes():
    seed = load_seed_auc_table().set_index(["data", "method"])
    assert set(seed.index.get_level_values("data")) == set(DATASETS)
    assert set(seed.index.get_level_values("method")) == {"RDT", "J48 (C4.5)", "SMO (SVM)", "LR"}
    expected = {("a1a", "RDT"): (0.879, 0.569), ("a9a", "RDT"): (0.890, 24.171),
                ("mushrooms", "RDT"): (1.000, 3.608), ("splice", "RDT"): (0.909, 0.387),
                ("a1a", "SMO (SVM)"): (0.760, 1.574), ("a1a", "LR"): (0.751, 1.010),
                ("a9a", "SMO (SVM)"): (0.761, 1637.011), ("a9a", "LR"): (0.763, 35.901),
                ("splice", "SMO (SVM)"): (0.843, 1.742), ("splice", "LR"): (0.853, 0.819),
                ("splice", "J48 (C4.5)"): (0.935, 0.770)}
    for key, (auc, seconds) in expected.items():
        assert seed.loc[key, "auc"] == auc and seed.loc[key, "seconds"] == seconds


def test_the_random_decision_trees_reproduce(ours):
    claim(PAGE, "**The random decision trees come close to the published AUCs** on three data "
                "sets: 0.884 on a1a (seed 0.879), 0.889 on a9a (seed 0.890), 1.000 on mushrooms "
                "(seed 1.000); on splice ours is higher, 0.935 against the seed's 0.909.")
    seed = load_seed_auc_table().set_index(["data", "method"])
    for data, value in [("a1a", 0.884), ("a9a", 0.889), ("mushrooms", 1.000), ("splice", 0.935)]:
        assert round(ours.loc[(data, "rdt"), "auc"], 3) == value
    for data in ["a1a", "a9a", "mushrooms"]:
        assert abs(ours.loc[(data, "rdt"), "auc"] - seed.loc[(data, "RDT"), "auc"]) < 0.01
    assert ours.loc[("splice", "rdt"), "auc"] > seed.loc[("splice", "RDT"), "auc"]


def test_the_published_linear_models_match_the_auc_of_labels(ours):
    claim(PAGE, "**The linear models' published AUCs lie within a hundredth of the AUCs of our "
                "linear models' predicted labels** (other implementations of the same models), "
                "far from those of their scores")
    claim(PAGE, "the linear models reach 0.887 and 0.893 on a1a and 0.902 and 0.902 on a9a, "
                "above the random decision trees, ours and the seed's; on splice they stay below "
                "ours (0.927 against 0.935) but above the seed's (0.909), and on mushrooms every "
                "method is perfect.")
    seed = load_seed_auc_table().set_index(["data", "method"])
    for data in ["a1a", "a9a", "mushrooms", "splice"]:
        for theirs, method in [("SMO (SVM)", "linear_svc"), ("LR", "logistic")]:
            published = seed.loc[(data, theirs), "auc"]
            assert abs(ours.loc[(data, method), "auc_labels"] - published) < 0.01
            if data != "mushrooms":                                       # (all perfect)
                assert ours.loc[(data, method), "auc"] > published + 0.07  # scores rank better
    for method in ["linear_svc", "logistic"]:
        for data in ["a1a", "a9a"]:                # scored by their outputs, above the RDT
            assert ours.loc[(data, method), "auc"] > ours.loc[(data, "rdt"), "auc"]
        assert ours.loc[("splice", method), "auc"] < ours.loc[("splice", "rdt"), "auc"]
        for data in ["a1a", "a9a", "splice"]:      # above the seed's random trees everywhere
            assert ours.loc[(data, method), "auc"] > seed.loc[(data, "RDT"), "auc"]
    # "every method is perfect" on mushrooms: to the three digits the table prints
    assert (ours.xs("mushrooms", level="data")["auc"].round(3) == 1).all()
    assert (seed.xs("mushrooms", level="data")["auc"] == 1).all()


def test_cart_in_place_of_j48(ours):
    claim(PAGE, "In its place, full-depth CART trees come close to the seed's J48 on a1a, a9a "
                "and mushrooms (0.707, 0.751 and 1.000 against 0.712, 0.755 and 1.000), but not "
                "on splice (0.887 against 0.935).")
    seed = load_seed_auc_table().set_index(["data", "method"])
    for data in ["a1a", "a9a", "mushrooms"]:
        assert abs(ours.loc[(data, "treelib_cart"), "auc"]
                   - seed.loc[(data, "J48 (C4.5)"), "auc"]) < 0.01
    assert seed.loc[("splice", "J48 (C4.5)"), "auc"] - ours.loc[("splice", "treelib_cart"),
                                                                "auc"] > 0.04


def test_training_time_ratios_within_each_table():
    claim(PAGE, "On each of the four data sets the seed's random trees were the faster (0.473 "
                "to 0.904 of logistic regression's time) and ours the slower (12.6 to 89.9 times "
                "as long).")
    claim(PAGE, "in the committed rerun treelib's 30 random trees took 12.6 to 89.9 times as "
                "long as scikit-learn's logistic regression, where the seed's, in Dice, took "
                "0.47 to 0.90 times as long as Weka's.")
    seed = load_seed_auc_table().set_index(["data", "method"])
    fits, _ = load_results("auc")
    seconds = fits.groupby(["data", "method"])["seconds"].median()
    seed_ratio = [seed.loc[(d, "RDT"), "seconds"] / seed.loc[(d, "LR"), "seconds"]
                  for d in DATASETS]
    our_ratio = [seconds[(d, "rdt")] / seconds[(d, "logistic")] for d in DATASETS]
    assert round(min(seed_ratio), 3) == 0.473 and round(max(seed_ratio), 3) == 0.904
    assert round(min(our_ratio), 1) == 12.6 and round(max(our_ratio), 1) == 89.9
    a9a = DATASETS.index("a9a")
    assert round(seed_ratio[a9a], 3) == 0.673 and round(our_ratio[a9a], 1) == 12.6
    assert make_auc_model("rdt").get_params()["n_estimators"] == 30


def test_fresh_fits_give_the_committed_aucs(ours):
    claim(PAGE, "A full-depth tree's leaves are nearly pure, so its probabilities are nearly "
                "all 0 or 1 and the AUC of its probabilities is close to that of its labels")
    a1a = load_libsvm("a1a")
    cart = DecisionTreeClassifier(builder="level_wise").fit(a1a.X_train, a1a.y_train)
    proba = cart.predict_proba(a1a.X_test)[:, 1]
    assert np.isin(proba, [0, 1]).mean() > 0.95
    assert abs(roc_auc_score(a1a.y_test, proba)
               - roc_auc_score(a1a.y_test, cart.predict(a1a.X_test))) < 0.01
    assert roc_auc_score(a1a.y_test, proba) == pytest.approx(
        ours.loc[("a1a", "treelib_cart"), "auc"], rel=1e-12)
    splice = load_libsvm("splice")
    rdt = RandomDecisionTreeClassifier(n_estimators=30, min_samples_leaf=4, random_state=0)
    rdt.fit(splice.X_train, splice.y_train)
    assert roc_auc_score(splice.y_test, rdt.predict_proba(splice.X_test)[:, 1]) == \
        pytest.approx(ours.loc[("splice", "rdt"), "auc"], rel=1e-12)
