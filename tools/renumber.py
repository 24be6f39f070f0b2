"""Renumber chapter references after the table of contents changed.

    python tools/renumber.py          # rewrite in place, list what changed
    python tools/renumber.py --check  # only list (exit 1 if anything is stale)

Chapters are numbered in the order of ``_toc.yml`` (``tests/test_prose.py`` checks it):
a link such as ``[chapter 14](15_forests.ipynb)`` or a numbered list item
``14. [Forests](../notebooks/15_forests.ipynb)`` gets the number of the chapter it points
to.  Pages: every notebook's markdown cells, and ``book/*.md``.
"""

import re
import sys
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.test_prose import LINK, toc_numbers  # noqa: E402  (one definition of both)

NUMBER_IN_LINK = re.compile(r"\b((?:chapters?|appendix)\s+)(A?\d+)\b|^(A?\d+)$", re.I)
ITEM = re.compile(rf"^(\s*)(\d+)(\.\s+){LINK.pattern}", re.M)


def renumbered(markdown, numbers):
    """``markdown`` with every link's chapter number and list item number made right."""
    def link(match):
        text, target = match.group(1), match.group(2)
        number = numbers.get(target)
        if number is None:
            return match.group(0)
        new = NUMBER_IN_LINK.sub(
            lambda m: (m.group(1) + number) if m.group(1) else number, text.strip()
            ) if NUMBER_IN_LINK.search(text.strip()) else text
        return match.group(0).replace(f"[{text}]", f"[{new}]", 1)

    def item(match):
        number = numbers.get(match.group(5))
        if number is None or not number.isdigit():
            return match.group(0)
        return f"{match.group(1)}{number}{match.group(3)}" + match.group(0)[
            len(match.group(1) + match.group(2) + match.group(3)):]

    return LINK.sub(link, ITEM.sub(item, markdown))


def main(check):
    numbers, changed = toc_numbers(), []
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        notebook = nbformat.read(path, as_version=4)
        dirty = False
        for cell in notebook.cells:
            if cell.cell_type == "markdown":
                new = renumbered(cell.source, numbers)
                if new != cell.source:
                    cell.source, dirty = new, True
        if dirty:
            changed.append(path)
            if not check:
                nbformat.write(notebook, path)
    for path in sorted((ROOT / "book").glob("*.md")):
        text = path.read_text()
        new = renumbered(text, numbers)
        if new != text:
            changed.append(path)
            if not check:
                path.write_text(new)
    for path in changed:
        print(("stale: " if check else "renumbered: ") + str(path.relative_to(ROOT)))
    return 1 if check and changed else 0


if __name__ == "__main__":
    sys.exit(main("--check" in sys.argv[1:]))
