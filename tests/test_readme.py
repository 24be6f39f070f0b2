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


def registry_rows():
    """``{file stem: (command, pages)}`` of the README's table of benchmarks, pages as the
    chapter and appendix numbers of its "read by" column ("ch. 6, 10, A8" -> 06, 10, A8)."""
    rows = {}
    for line in README.splitlines():
        row = re.match(r"\| `(\w+)(?: --full)?` \| `(\w+)\.csv`.*\| ([^|]*) \|$", line)
        if row:
            pages = re.findall(r"\b(A\d|\d+)\b", row.group(3).split("(")[0])
            rows[row.group(2)] = (row.group(1), {p.zfill(2) if p.isdigit() else p
                                                 for p in pages})
    return rows


def benchmark_readers():
    """``{file stem: pages}``: the pages that load a committed benchmark, A8 for each
    ``## <file>.csv:`` section it has."""
    import nbformat

    readers = {}
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        page = path.name.split("_")[0]
        for cell in nbformat.read(path, as_version=4).cells:
            source = cell.source
            names = (re.findall(r"load_results\(\s*[\"'](\w+)[\"']", source)
                     if cell.cell_type == "code" else
                     re.findall(r"^## (\w+)\.csv:", source, re.M))
            for name in names:
                readers.setdefault(name, set()).add(page)
    return readers


def test_the_benchmark_table_names_every_command_and_the_pages_that_read_it():
    from treelib.bench import BENCHMARKS

    rows = registry_rows()
    commands = {command for command, _ in rows.values()}
    assert commands == set(BENCHMARKS), sorted(commands ^ set(BENCHMARKS))
    readers = benchmark_readers()
    for stem, (_, pages) in rows.items():
        assert pages == readers.get(stem, set()), stem
