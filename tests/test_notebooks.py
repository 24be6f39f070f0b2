"""The committed notebooks are what nbval and the book expect, in the form of a course.

Every notebook is listed in the table of contents, executed top to bottom, free of errors
and warnings.  Every chapter (``notebooks/NN_*.ipynb``) opens with what the reader will
learn and needs to know, has 3 to 5 exercises with solutions, ends with what the reader
should now know, and keeps its main text near a 20-minute read; its prose uses only the
MyST that jupyterlab-myst renders, so it reads the same in JupyterLab as in the HTML
(book/writing.md).  Appendix pages (``notebooks/A*_*.ipynb``) hold the evidence.
"""

import re
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
TOC = (ROOT / "_toc.yml").read_text()
IN_TOC = re.findall(r"file:\s*(notebooks/\S+)", TOC)
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
CHAPTERS = [p for p in NOTEBOOKS if p.name[0].isdigit()]

#: MyST that jupyterlab-myst renders as the book does (book/writing.md); roles such as
#: {glue} and {cite} need Sphinx and show as bare text in JupyterLab.
DIRECTIVES = {"admonition", "note", "tip", "hint", "important", "warning", "caution",
              "attention", "seealso", "dropdown", "math", "exercise-start", "exercise-end",
              "solution-start", "solution-end"}
DIRECTIVE = re.compile(r"^\s*(?:`{3,}|:{3,})\s*\{([^}]+)\}", re.MULTILINE)
ROLE = re.compile(r"\{([a-z][a-z:-]*)\}`")
#: Main text (prose outside exercises and solutions) of a 15-minute read: one idea.
MAX_WORDS = 3000


def markdown(path):
    return [c.source for c in nbformat.read(path, as_version=4).cells
            if c.cell_type == "markdown"]


def main_text_words(path):
    """Words of the prose, exercises and solutions left out."""
    words, inside = 0, False
    for source in markdown(path):
        if re.search(r"\{(exercise|solution)-start\}", source):
            inside = True
        if not inside:
            words += len(source.split())
        if re.search(r"\{(exercise|solution)-end\}", source):
            inside = False
    return words


def test_every_notebook_is_in_the_book():
    assert sorted(f"notebooks/{p.stem}" for p in NOTEBOOKS) == sorted(IN_TOC)


def test_every_link_to_a_chapter_reaches_one():
    """A link to a renamed or removed chapter is a warning, so an error, in the strict
    build; found here in a second."""
    pages = [*NOTEBOOKS, *(ROOT / "book").glob("*.md"), ROOT / "README.md"]
    missing = {(page.name, target) for page in pages
               for target in re.findall(r"\]\((?:\.\./notebooks/)?([\w-]+\.ipynb)\)",
                                        page.read_text())
               if not (ROOT / "notebooks" / target).exists()}
    assert not missing, sorted(missing)


def test_the_bibliography_parses_and_has_every_cited_key():
    """The strict build parses book/references.bib when it starts (a missing brace stops
    it); this finds that, and a cited key with no entry, in a second."""
    from pybtex.database import parse_file

    keys = set(parse_file(ROOT / "book" / "references.bib").entries)
    pages = [ROOT / "book" / "intro.md", ROOT / "book" / "references.md"]
    cited = set()
    for page in pages:
        for group in re.findall(r"\{cite:[pt]\}`([^`]+)`", page.read_text()):
            cited.update(key.strip() for key in group.split(","))
    assert cited and cited <= keys, sorted(cited - keys)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_is_executed_and_clean(path):
    notebook = nbformat.read(path, as_version=4)
    assert notebook.metadata["kernelspec"]["name"] == "python3"
    first = notebook.cells[0]
    assert first.cell_type == "markdown" and first.source.startswith("# "), \
        "a chapter opens with its title"
    code = [c for c in notebook.cells if c.cell_type == "code"]
    counts = [c.execution_count for c in code]
    assert counts == list(range(1, len(code) + 1)), \
        f"{path.name} was not executed top to bottom in one run: {counts}"
    for cell in code:
        for output in cell.outputs:
            assert output.output_type != "error", f"error output in: {cell.source[:80]}"
            assert not (output.output_type == "stream" and output.name == "stderr"), \
                f"stderr output (a warning?) in: {cell.source[:80]}"
        last = cell.source.rstrip().splitlines()[-1] if cell.source.strip() else ""
        assert not last.rstrip().endswith(";"), (
            "nbval runs cells without history, so IPython ignores a trailing ';': end "
            f"the cell with plt.show() or `_ = ...` instead: {last}")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_prose_reads_the_same_in_jupyterlab(path):
    for source in markdown(path):
        assert not ROLE.findall(source), f"a Sphinx-only role in: {source[:120]}"
        unknown = set(DIRECTIVE.findall(source)) - DIRECTIVES
        assert not unknown, f"directives jupyterlab-myst does not render: {unknown}"


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.name)
def test_chapter_has_the_form_of_a_course(path):
    cells = markdown(path)
    opening = cells[0]
    assert "What you will learn" in opening and "Before you start" in opening
    text = "\n".join(cells)
    exercises = re.findall(r"\{exercise-start\}\s*\n:label:\s*(\S+)", text)
    solutions = re.findall(r"\{solution-start\}\s*(\S+)", text)
    assert 3 <= len(exercises) <= 5, f"{len(exercises)} exercises"
    number = path.name[:2]        # labels are unique in the book: chNN-exK, NN the chapter's
    assert all(re.fullmatch(rf"ch{number}-ex\d+", label) for label in exercises), exercises
    assert len(set(exercises)) == len(exercises), "an exercise label is used twice"
    assert sorted(exercises) == sorted(solutions), "every exercise has its solution"
    assert all(":class: dropdown" in text.split(f"{{solution-start}} {label}", 1)[1][:80]
               for label in exercises), "solutions are folded"
    assert "## Exercises" in text
    assert cells[-1].lstrip().startswith("## What you should now know")
    assert main_text_words(path) <= MAX_WORDS


#: Code that starts worker processes, threads or a cluster, or calls a library that does:
#: output that a busy machine could change (a late heartbeat on stderr, once).
CONCURRENT = re.compile(r"LocalCluster|local_cluster|n_jobs\s*=|lightgbm|xgboost"
                        r"|boosting_bench|parallel_bench|time_threads|ThreadPool|multiprocessing")


def under_load():
    """The notebooks `make test` executes from scratch with every core busy (Makefile)."""
    makefile = (ROOT / "Makefile").read_text()
    return set(re.search(r"^UNDER_LOAD \?=(.*)$", makefile, re.MULTILINE).group(1).split())


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_concurrent_notebooks_are_built_under_load(path):
    code = "\n".join(c.source for c in nbformat.read(path, as_version=4).cells
                     if c.cell_type == "code")
    if CONCURRENT.search(code):
        assert path.name in under_load(), f"add {path.name} to UNDER_LOAD in the Makefile"


def test_under_load_names_notebooks():
    assert under_load() and under_load() <= {p.name for p in NOTEBOOKS}
