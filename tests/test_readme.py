"""What the README says about the project's own files is true."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()
LOCK = (ROOT / "requirements.lock").read_text()


def locked_versions():
    """``{package: version}`` of requirements.lock (names normalised as pip does)."""
    pins = re.findall(r"^([A-Za-z0-9_.\-\[\]]+)==(\S+)", LOCK, re.MULTILINE)
    return {re.sub(r"[-_.]+", "-", name).lower(): version for name, version in pins}


def quoted_versions():
    """``(package, version)`` pairs the README quotes as verified."""
    listed = re.search(r"versions in `requirements.lock` \(([^)]*)\)", README).group(1)
    pairs = re.findall(r"([a-z][a-z0-9\-]*(?: and [a-z][a-z0-9\-]*)?) (\d+\.\d+[\w.]*)", listed)
    return [(name, version) for names, version in pairs for name in names.split(" and ")]


def test_the_readme_quotes_the_locked_versions():
    locked = locked_versions()
    quoted = quoted_versions()
    assert len(quoted) >= 8
    for name, version in quoted:
        assert locked.get(name) == version, f"README says {name} {version}"


def test_the_lock_pins_every_requirement():
    requirements = re.findall(r"^([A-Za-z][A-Za-z0-9_\-]*)", (ROOT / "requirements.txt")
                              .read_text(), re.MULTILINE)
    locked = locked_versions()
    missing = [name for name in requirements
               if re.sub(r"[-_.]+", "-", name).lower() not in locked]
    assert missing == []


def test_the_venv_step_installs_from_the_lock():
    makefile = (ROOT / "Makefile").read_text()
    assert "-r requirements.txt -c requirements.lock" in makefile
    assert re.search(r"^\$\(STAMP\):.*requirements\.lock", makefile, re.MULTILINE)


def test_running_the_book_quotes_the_locked_versions():
    """book/running_the_book.md names the versions the outputs were checked with."""
    page = (ROOT / "book" / "running_the_book.md").read_text()
    listed = re.search(r"`requirements.lock` \(Python 3\.11 and ([^)]*)\)", page).group(1)
    pairs = re.findall(r"([a-z][a-z0-9\-]*) (\d+\.\d+[\w.]*)", " ".join(listed.split()))
    locked = locked_versions()
    assert len(pairs) >= 8
    for name, version in pairs:
        assert locked.get(name) == version, f"running_the_book.md says {name} {version}"
