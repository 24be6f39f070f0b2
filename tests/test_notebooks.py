"""The committed notebooks are what nbval and the book expect: listed in the table of
contents, executed top to bottom, free of errors and warnings."""

import re
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
TOC = (ROOT / "_toc.yml").read_text()
IN_TOC = re.findall(r"file:\s*(notebooks/\S+)", TOC)
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


def test_every_notebook_is_in_the_book():
    assert sorted(f"notebooks/{p.stem}" for p in NOTEBOOKS) == sorted(IN_TOC)


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
