"""The forests benchmark (``treelib.bench.forests``), run small: every ensemble of both
libraries, scored at every size by the mean of its first trees; the fit-time records;
and the committed results file holds what the chapter reads from it."""

import numpy as np
import pytest

from treelib import bench
from treelib.bench import forests
from treelib.bench.fitting import r2


def test_every_ensemble_is_fitted_and_scored_at_every_size(monkeypatch):
    X_train, X_test, y_train, y_test, task, metric = forests.load_task("california_housing")
    monkeypatch.setattr(forests, "load_task", lambda data: (
        X_train[:400], X_test[:300], y_train[:400], y_test[:300], task, metric))
    records = forests.compare_ensembles(datasets=("california_housing",), n_trees=3)
    # three trees: scored at the sizes 1, 2 and 3 of SIZES
    assert {r[2:4] for r in records} == set(forests.ENSEMBLES)
    assert len(records) == len(forests.ENSEMBLES) * 3
    timed = [r for r in records if not np.isnan(r[6])]
    assert len(timed) == len(forests.ENSEMBLES) and all(r[4] == 3 for r in timed)


def test_the_score_of_m_trees_is_the_score_of_their_mean():
    predictions = np.array([[1.0, 2.0, 3.0], [3.0, 2.0, 1.0], [2.0, 2.0, 2.0]])
    y = np.array([2.0, 2.0, 2.5])
    scores = dict(forests.size_scores(predictions, y, "regression", sizes=(1, 2, 3)))
    assert scores[1] == r2(y, predictions[0])
    assert scores[2] == pytest.approx(r2(y, predictions[:2].mean(axis=0)))
    assert set(scores) == {1, 2, 3}


def test_tree_predictions_are_each_trees():
    X_train, X_test, y_train, _, task, _ = forests.load_task("california_housing")
    for method, library in forests.ENSEMBLES:
        model = forests.make_ensemble(method, library, task, 3, max_depth=3)
        model.fit(X_train[:300], y_train[:300])
        predictions = forests.tree_predictions(model, X_test[:50], task)
        assert predictions.shape == (3, 50)
        np.testing.assert_allclose(predictions.mean(axis=0), model.predict(X_test[:50]),
                                   rtol=1e-12)


def test_the_committed_results_hold_both_experiments():
    fits, info = bench.load_results("forests")
    assert set(fits.experiment) == {"ensembles", "fit_time"}
    full = fits[(fits.experiment == "ensembles") & (fits.n_trees == forests.N_TREES)]
    assert len(full) == 2 * len(forests.ENSEMBLES)
    assert set(fits[fits.experiment == "fit_time"].n_trees) == {forests.RATIO_TREES}
    assert float(info["fit_time_ratio (treelib / scikit-learn)"]) > 0
