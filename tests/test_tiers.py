"""The test tiers (issue 21): `make quick` leaves out the slow families of ``conftest.SLOW``
and runs the rest under the hypothesis profile "dev"; `make unit` runs everything under "ci".

The tiers are checked on the real collection, slow marks applied (conftest keeps it in
``config.stash``): this session's if it collected the whole suite, else a child pytest's,
with this module as its plugin (``pytest_collection_finish`` below writes it out)."""

import json
import os
import re
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import COLLECTED, DEV_EXAMPLES, SLOW, cap_examples, slow_reason

ROOT = Path(__file__).resolve().parent.parent
OUT = "TREELIB_TIERS_OUT"

#: Test modules every one of whose tests is slow, and why none of them belongs in quick.
ALL_SLOW = {
}


def pytest_collection_finish(session):
    """In the child pytest only (``TREELIB_TIERS_OUT`` set): write the collection that
    conftest kept to that file.  O(tests)."""
    out = os.environ.get(OUT)
    if out:
        Path(out).write_text(json.dumps(session.config.stash[COLLECTED]))


def whole_suite(rows):
    """Whether ``rows`` hold a test of every test module under tests/.  O(tests)."""
    modules = {row[0].split("::")[0] for row in rows}
    return all(str(p.relative_to(ROOT)) in modules for p in (ROOT / "tests").rglob("test_*.py"))


@pytest.fixture(scope="module")
def collected(request, tmp_path_factory):
    """Every test of the suite as {id, slow, hypothesis}, slow marks applied: this session's
    collection if it holds the whole suite (as in `make quick`), else a child pytest's
    (about 10 s of CPU).  O(tests)."""
    rows = request.config.stash.get(COLLECTED, [])
    if not whole_suite(rows):
        out = tmp_path_factory.mktemp("tiers") / "collected.json"
        env = {**os.environ, OUT: str(out)}
        env.pop("PYTEST_ADDOPTS", None)
        run = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q",
                              "-p", "no:cacheprovider", "-p", "no:xdist",
                              "-p", "tests.test_tiers", "tests"],
                             cwd=ROOT, env=env, capture_output=True, text=True)
        assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
        rows = json.loads(out.read_text())
    assert whole_suite(rows)
    return [{"id": i, "slow": slow, "hypothesis": hypothesis} for i, slow, hypothesis in rows]


def by_module(rows):
    modules = defaultdict(list)
    for row in rows:
        modules[row["id"].split("::")[0]].append(row)
    return modules


def test_every_slow_pattern_still_matches_a_test(collected):
    stale = [pattern for pattern, _ in SLOW
             if not any(re.match(pattern, row["id"]) for row in collected)]
    assert not stale, f"patterns of conftest.SLOW that match no test: {stale}"


def test_a_test_is_marked_slow_when_a_pattern_matches_it(collected):
    unmarked = [row["id"] for row in collected if slow_reason(row["id"]) and not row["slow"]]
    assert not unmarked, unmarked[:5]
    assert any(row["slow"] for row in collected)


def test_every_module_with_a_fast_test_keeps_one_in_quick(collected):
    modules = by_module(collected)
    missing = [m for m, rows in modules.items()
               if m not in ALL_SLOW and all(row["slow"] for row in rows)]
    assert not missing, f"modules with no test left in quick: {missing}"
    listed = [m for m in ALL_SLOW if m not in modules or not all(r["slow"] for r in modules[m])]
    assert not listed, f"ALL_SLOW lists modules that are gone or keep a quick test: {listed}"


def test_every_finders_hypothesis_test_stays_in_quick(collected):
    finders = [row for row in collected
               if row["id"].startswith("tests/finders/") and row["hypothesis"]]
    assert len(finders) >= 20          # the brute-force comparisons (and their kin) are found
    slow = [row["id"] for row in finders if row["slow"]]
    assert not slow, f"finders' hypothesis tests marked slow: {slow}"


def test_the_profiles_are_reproducible_ones_long_and_short():
    ci, dev = (settings.get_profile(name) for name in ("ci", "dev"))
    assert (ci.max_examples, ci.deadline, ci.derandomize, ci.database) == (100, None, True,
                                                                          None)
    assert (dev.max_examples, dev.deadline, dev.derandomize, dev.database) == (
        DEV_EXAMPLES, None, True, None)


def test_the_cap_shortens_a_test_whose_own_settings_ask_for_more():
    calls = []

    @settings(max_examples=200, database=None, derandomize=True, deadline=None)
    @given(st.integers())
    def many(n):
        calls.append(n)

    cap_examples(many, 5)
    many()
    assert 0 < len(calls) <= 5
    assert many._hypothesis_internal_use_settings.deadline is None   # the rest is kept
    cap_examples(many, 500)                                          # a cap never raises it
    assert many._hypothesis_internal_use_settings.max_examples == 5


def recipe(target):
    """The command lines of ``target`` in the Makefile.  O(Makefile)."""
    text = (ROOT / "Makefile").read_text()
    body = re.search(rf"^{target}:.*\n((?:\t.*\n)+)", text, re.MULTILINE)
    assert body, f"no recipe for {target}"
    return body.group(1)


def test_quick_runs_the_fast_tests_under_dev_and_unit_everything_under_ci():
    quick, unit = recipe("quick"), recipe("unit")
    assert '-m "not slow"' in quick and "--hypothesis-profile=dev" in quick
    assert "--hypothesis-profile=ci" in unit
    assert not re.search(r"\s-[mk]\s", unit.replace("python -m pytest", "")), unit  # it all
