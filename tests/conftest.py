"""Shared test fixtures.  The references (brute force, tree walker, tolerances) live in
``tests/reference.py``."""

from pathlib import Path

import nbformat

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"


def notebook_cells(name, tag="teaching"):
    """Run the code cells of ``notebooks/<name>`` tagged ``tag`` and return their
    namespace.  A chapter marks the cells that define a teaching version of an
    algorithm with this tag; a test then checks that version against treelib."""
    notebook = nbformat.read(NOTEBOOKS / name, as_version=4)
    namespace = {}
    cells = [c for c in notebook.cells
             if c.cell_type == "code" and tag in c.get("metadata", {}).get("tags", [])]
    if not cells:
        raise LookupError(f"{name} has no code cell tagged {tag!r}")
    for cell in cells:
        exec(compile(cell.source, f"{name}[{tag}]", "exec"), namespace)
    return namespace


def prose(name):
    """The markdown of ``notebooks/<name>``, its white space folded to single spaces."""
    notebook = nbformat.read(NOTEBOOKS / name, as_version=4)
    return " ".join(" ".join(c.source.split()) for c in notebook.cells
                    if c.cell_type == "markdown")


def claim(name, sentence):
    """Assert that ``notebooks/<name>`` still says ``sentence`` (white space folded).

    A test that asserts a claim the page makes ("needs 25 trees", "within noise from 24
    bins on") calls this first, so the claim and its assertion cannot drift apart: when
    the page is rewritten, the test fails until the assertion is brought along."""
    sentence = " ".join(sentence.split())
    assert sentence in prose(name), f"{name} no longer says: {sentence!r}"
