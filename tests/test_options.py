"""The table of which options combine (``treelib.options``) is what the estimators do.

A test generated from the table: for every pair of option values (and the triples its
rows name), a tiny estimator is fitted on a few rows with the other options chosen so
that no other row is involved; it must fit when the table says yes and raise a
ValueError with the table's reason when it says no.  Where the table says that no
estimator offers a pair, no estimator's signature takes both.  And the matrix the README
and the book's page show is the one the table renders.
"""

import inspect
import itertools
from pathlib import Path

import numpy as np
import pytest
from sklearn.base import is_classifier

from treelib import options
from treelib.criteria import CLASSIFICATION_CRITERIA, REGRESSION_CRITERIA
from treelib.estimators import (
    DecisionTreeClassifier,
    DecisionTreeRegressor,
    HistGradientBoostingClassifier,
    HistGradientBoostingRegressor,
    RandomDecisionTreeClassifier,
    RandomDecisionTreeRegressor,
)
from treelib.finders import SPLITTERS
from treelib.growth import GROWERS
from treelib.options import OPTIONS, RULES

ROOT = Path(__file__).resolve().parent.parent
ESTIMATORS = (DecisionTreeRegressor, DecisionTreeClassifier, HistGradientBoostingRegressor,
              HistGradientBoostingClassifier, RandomDecisionTreeRegressor,
              RandomDecisionTreeClassifier)
BOOSTING = (HistGradientBoostingRegressor, HistGradientBoostingClassifier)
RANDOM_TREES = (RandomDecisionTreeRegressor, RandomDecisionTreeClassifier)
#: The parameter (of __init__, or of fit) that offers an option's other values.
PARAMETER = {"max_features": "max_features", "max_leaf_nodes": "max_leaf_nodes",
             "categorical": "categorical_features", "n_jobs": "n_jobs",
             "histogram_sums": "histogram_sums", "early_stopping": "early_stopping",
             "learning_rate": "learning_rate", "sampling": "sampling"}


def offers(estimator, option, value):
    """Whether ``estimator`` (a class) takes ``option=value``, read from its signature
    and its kind, not from the table."""
    init = inspect.signature(estimator.__init__).parameters
    if option == "builder":
        return ("builder" in init and value in GROWERS
                or value == ("best_first" if estimator in BOOSTING else "level_wise")
                and estimator in BOOSTING + RANDOM_TREES)
    if option == "splitter":
        return ("splitter" in init and value in SPLITTERS
                or value == ("hist" if estimator in BOOSTING else "random_tree")
                and estimator in BOOSTING + RANDOM_TREES)
    if option == "criterion":
        return criterion_of(estimator, value)
    if value == OPTIONS[option][0] or option == "missing":
        return True
    if option == "sample_weight":
        return "sample_weight" in inspect.signature(estimator.fit).parameters
    if option == "classes":
        return is_classifier(estimator())
    return PARAMETER[option] in init


def criterion_of(estimator, value):
    if estimator in BOOSTING:
        return value == "newton"
    if estimator in RANDOM_TREES:            # the impurity the trees record
        return value == ("gini" if is_classifier(estimator()) else "squared_error")
    criteria = CLASSIFICATION_CRITERIA if is_classifier(estimator()) else REGRESSION_CRITERIA
    return value in criteria


def offering(chosen):
    """The estimators that take every option value of ``chosen``."""
    return [e for e in ESTIMATORS if all(offers(e, k, v) for k, v in chosen.items())]


def realise(values):
    """A tiny estimator and its data, ``(model, X, y, fit_keywords)``, with ``values``."""
    estimator = offering(values)[0]
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    if values["categorical"] == "yes":
        X[:, 2] = np.arange(40) % 4
    if values["missing"] == "yes":
        X[1, 0] = np.nan
    n_classes = 3 if values["classes"] == ">=3" else 2
    y = (np.arange(40) % n_classes if is_classifier(estimator())
         else rng.poisson(3.0, 40).astype(float) + X[:, 1].clip(0))
    fit = {}
    if values["sample_weight"] == "yes":
        fit["sample_weight"] = rng.uniform(0.5, 2.0, 40)
    params = {"random_state": 0, "max_depth": 3}
    if estimator in RANDOM_TREES:
        return estimator(n_estimators=2, **params), X, y, fit
    params["max_leaf_nodes"] = 4 if values["max_leaf_nodes"] == "set" else None
    params["categorical_features"] = [2] if values["categorical"] == "yes" else None
    if "histogram_sums" in inspect.signature(estimator.__init__).parameters:
        params["histogram_sums"] = values["histogram_sums"]
    if estimator in BOOSTING:
        params.update(max_iter=3, min_samples_leaf=2, validation_fraction=0.25,
                      early_stopping=values["early_stopping"] == "on",
                      learning_rate=("line_search" if values["learning_rate"] == "line_search"
                                     else 0.1),
                      sampling="goss" if values["sampling"] == "goss" else None)
        return estimator(**params), X, y, fit
    params.update(builder=values["builder"], splitter=values["splitter"],
                  criterion=values["criterion"],
                  max_features=2 if values["max_features"] == "some" else None,
                  n_jobs=2 if values["n_jobs"] == "more" else None)
    return estimator(**params), X, y, fit


def cases():
    """Every pair of values of two options, and the triples the rows name (a row's
    options with an ``unless`` value, a row of three options)."""
    values = [(option, value) for option, choices in OPTIONS.items() for value in choices]
    found = [dict(pair) for pair in itertools.combinations(values, 2)
             if pair[0][0] != pair[1][0]]
    for rule in RULES:
        when = {k: v[0] for k, v in rule.when.items()}
        if len(when) > 2:
            found.append(when)
        for option, excused in rule.unless.items():
            found.append({**when, option: excused[0]})
            found.append({**when, option: next(v for v in OPTIONS[option] if v not in excused)})
    return found


CASES = cases()


@pytest.mark.parametrize("chosen", CASES,
                         ids=["-".join(f"{k}={v}" for k, v in c.items()) for c in CASES])
def test_the_estimators_do_what_the_table_says(chosen):
    rule, values = options.decide(**chosen)
    if rule is not None and not rule.offered:
        assert offering(chosen) == []        # no estimator takes both: as the row says
        return
    assert values is not None, f"the table leaves {chosen} undecided"
    if not offering(values):                 # nothing to fit: the table must refuse it
        assert rule is not None and offering(chosen) == []
        return
    model, X, y, fit = realise(values)
    if rule is None:
        model.fit(X, y, **fit)
        return
    reason = rule.reason.format(**{k: repr(v) for k, v in values.items()})
    with pytest.raises(ValueError) as error:
        model.fit(X, y, **fit)
    assert f"do not combine: {reason}" in str(error.value)


def test_the_cases_cover_every_row_and_both_answers():
    # every row that refuses decides at least one case, and some cases fit
    decided = {RULES.index(rule) if rule else None
               for rule, _ in (options.decide(**chosen) for chosen in CASES)}
    refusing = {i for i, rule in enumerate(RULES) if not rule.allowed}
    assert refusing <= decided and None in decided


def test_check_names_the_options_their_values_and_the_reason():
    with pytest.raises(ValueError, match=r"^builder='level_wise' and max_leaf_nodes=4 do not "
                                         r"combine: max_leaf_nodes needs best-first growth"):
        options.check(builder="level_wise", max_leaf_nodes=4, splitter="cumsum")
    with pytest.raises(ValueError, match=r"^builder='level_wise' and splitter='scan' do not "
                                         r"combine: .* needs splitter 'cumsum', 'hist' or "
                                         r"'random'; got 'scan'$"):
        options.check(builder="level_wise", splitter="scan")
    with pytest.raises(ValueError, match="^histogram_sums='fixed_point' and 3 classes do not"):
        options.check(histogram_sums="fixed_point", criterion="newton", classes=3)
    options.check(builder="level_wise", splitter="random_tree", missing=True)
    options.check(builder="level_wise", max_leaf_nodes=None, max_features=None, n_jobs=2)
    assert not options.combines(builder="depth_first", n_jobs=-1)
    with pytest.raises(ValueError, match="unknown option 'colour'"):
        options.check(colour="red")


def embedded(path, kind):
    """The table and footnotes between the ``kind`` markers of ``path``."""
    text = path.read_text()
    start, end = f"<!-- options-{kind}: generated -->\n", f"<!-- /options-{kind} -->"
    assert text.count(start) == 1 and text.count(end) == 1, path
    return text[text.index(start) + len(start):text.index(end)]


@pytest.mark.parametrize("page, kind", [("README.md", "matrix"), ("book/options.md", "list")])
def test_the_pages_show_the_rendered_table(page, kind):
    """The README shows the matrix; the book, whose column is narrow, the same as a list."""
    render = {"matrix": options.render_matrix, "list": options.render_list}[kind]
    expected = render() + "\n" + options.render_footnotes()
    assert embedded(ROOT / page, kind) == expected, (
        "regenerate it: python tools/render_options.py")
