"""tools/frozen_fits.py: fingerprints that see every bit of a fit, and a comparison that
reports each difference (the whole catalogue is run by the tool, not here)."""

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from treelib import DecisionTreeRegressor

TOOL = Path(__file__).resolve().parent.parent / "tools" / "frozen_fits.py"
spec = importlib.util.spec_from_file_location("frozen_fits", TOOL)
frozen_fits = importlib.util.module_from_spec(spec)
spec.loader.exec_module(frozen_fits)


def fitted_parts(**params):
    X, y = frozen_fits.dataset("cal_small")
    model = DecisionTreeRegressor(**params).fit(X, y)
    return frozen_fits.model_parts(model, X)


def test_the_same_fit_has_the_same_fingerprint():
    one, two = fitted_parts(max_depth=3), fitted_parts(max_depth=3)
    assert one == two
    assert frozen_fits.combine(one) == frozen_fits.combine(two)
    assert {"tree_.threshold", "tree_.value", "tree_.children_left", "predict"} <= set(one)


def test_another_max_depth_has_another_fingerprint():
    shallow, deeper = fitted_parts(max_depth=3), fitted_parts(max_depth=4)
    assert frozen_fits.combine(shallow) != frozen_fits.combine(deeper)
    assert shallow["tree_.threshold"] != deeper["tree_.threshold"]
    assert shallow["predict"] != deeper["predict"]


def test_a_fingerprint_sees_dtype_shape_and_one_bit():
    digest = frozen_fits.digest
    zeros = np.zeros(6)
    assert digest(zeros) != digest(zeros.astype(np.int64))          # the same bytes
    assert digest(zeros.reshape(2, 3)) != digest(zeros.reshape(3, 2))
    assert digest(np.array([0.1])) != digest(np.array([np.nextafter(0.1, 1.0)]))
    assert digest(np.array(["a", "b"], dtype=object)) != digest(np.array(["a", "c"],
                                                                         dtype=object))
    with pytest.raises(TypeError, match="cannot fingerprint"):
        digest(object())


def case(case_id, run):
    return frozen_fits.Case(case_id, run)


def raise_(error):
    def run():
        raise error("why")
    return run


def test_compare_reports_a_planted_difference():
    same = frozen_fits.run_case(case("a", lambda: fitted_parts(max_depth=3)))
    frozen = {"a": same, "b": same, "c": same}
    current = {"a": same, "b": frozen_fits.run_case(case("b", lambda: fitted_parts(max_depth=4))),
               "c": same}
    lines = frozen_fits.compare(frozen, current)
    assert len(lines) == 1
    assert lines[0].startswith("b: differs in ")
    assert "tree_.threshold" in lines[0] and "predict" in lines[0]
    assert frozen_fits.compare(frozen, dict(frozen)) == []


def test_compare_reports_raises_and_missing_cases():
    fits = frozen_fits.run_case(case("x", lambda: {"p": "0" * 64}))
    value_error = frozen_fits.run_case(case("x", raise_(ValueError)))
    type_error = frozen_fits.run_case(case("x", raise_(TypeError)))
    assert value_error == {"raises": "ValueError", "message": "why"}
    frozen = {"fits": fits, "both": value_error, "types": value_error, "gone": fits}
    current = {"fits": type_error, "both": value_error, "types": type_error, "new": fits}
    assert frozen_fits.compare(frozen, current) == [
        "fits: raises TypeError in current only (why)",
        "types: raises ValueError in frozen, TypeError in current (why)",
        "gone: missing in the current run",
        "new: missing in the frozen run"]


def test_catalogue_ids_are_unique_and_quick_is_a_subset():
    full = [c.id for c in frozen_fits.catalogue()]
    quick = [c.id for c in frozen_fits.catalogue(quick=True)]
    assert len(set(full)) == len(full) > 1000
    assert set(quick) < set(full) and len(quick) < len(full) / 2
    for family in ("DecisionTreeClassifier(", "RandomForestRegressor(", "ExtraTreesClassifier(",
                   "RandomDecisionTreeRegressor(", "ObliviousTreeClassifier(",
                   "HistGradientBoostingClassifier(", "best_split(", "node(", "grow(",
                   "data@"):
        assert any(i.startswith(family) for i in quick), family


def test_the_command_compares_two_copies(capsys):
    root = str(TOOL.parent.parent)
    assert frozen_fits.main(["--frozen-path", root, "--only", "data@cal_tiny"]) == 0
    assert capsys.readouterr().out.endswith("1 case, all bit-identical\n")
