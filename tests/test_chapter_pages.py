"""A chapter page teaches; the apparatus lives in the appendix, and nothing scrolls.

- **Nothing scrolls sideways.**  The HTML theme's code column shows ``WIDTH`` characters
  at 1280 px (measured in headless Chromium with sphinx-book-theme 1.3: 80, less a margin);
  no code line, code block in the prose or text output line of a page in the book is
  wider.  Outputs a page shows as a table or an image (a DataFrame's ``text/html``, a
  figure's PNG) are judged by what is shown, not by their plain-text twin.
- **No apparatus on a chapter page.**  Commit hashes, load averages and machine records
  (CPU names) belong to appendix A8, "How the benchmarks ran"; a chapter keeps a ratio, a
  sentence and a link.
- **Check yourself.**  Every chapter ends its main text with two or three short questions,
  each with a folded answer (a ``{dropdown}``), beside the exercises.
- **The glossary.**  Every chapter links the first use of each glossary term to
  book/glossary.md (tools/link_glossary.py adds the links), and every such link reaches
  a term.

Each check is also run on a planted page below, so that it is shown to fail.
"""

import re
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
CHAPTERS = [p for p in NOTEBOOKS if p.name[0].isdigit()]

#: Characters a code line or an output line may hold (the theme shows 80 at 1280 px).
WIDTH = 79

#: Output kinds a page shows instead of plain text (the widest first: text/plain is
#: judged only when nothing else is shown).
SHOWN_INSTEAD = ("text/html", "image/png", "image/svg+xml", "text/markdown")

FENCE = re.compile(r"^\s*(`{3,}|:{3,})\s*(\S*)")


def fenced_code(markdown):
    """The lines of the code blocks of a markdown cell: fenced blocks that are not
    directives (``{exercise-start}``, ``{dropdown}``, ...; their bodies are prose)."""
    code, directives, closing = [], [], None
    for line in markdown.splitlines():
        fence = FENCE.match(line)
        if closing is not None:
            if fence and fence.group(1) == closing and not fence.group(2):
                closing = None
            else:
                code.append(line)
        elif fence and fence.group(2).startswith("{"):
            directives.append(fence.group(1))
        elif fence and not fence.group(2) and fence.group(1) in directives:
            directives.remove(fence.group(1))
        elif fence and fence.group(1).startswith("`"):
            closing = fence.group(1)
    return "\n".join(code)


def shown_text(output):
    """The plain text a page shows for one output ('' if it shows a table or image)."""
    if output.output_type == "stream":
        return output.text
    if output.output_type in ("execute_result", "display_data"):
        data = output.get("data", {})
        if any(kind in data for kind in SHOWN_INSTEAD):
            return ""
        return data.get("text/plain", "")
    return ""


def wide_lines(cells):
    """``(cell index, what, line)`` for every line wider than WIDTH."""
    wide = []
    for index, cell in enumerate(cells):
        texts = []
        if cell.cell_type == "code":
            texts.append(("code", cell.source))
            texts += [("output", shown_text(o)) for o in cell.get("outputs", [])]
        else:
            texts.append(("code in prose", fenced_code(cell.source)))
        wide += [(index, what, line) for what, text in texts for line in text.splitlines()
                 if len(line) > WIDTH]
    return wide


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_no_line_scrolls_sideways(path):
    wide = wide_lines(nbformat.read(path, as_version=4).cells)
    assert not wide, f"{len(wide)} lines wider than {WIDTH}: " + "\n".join(
        f"cell {i} {what}: {line}" for i, what, line in wide[:10])


BOOK_PAGES = [p for p in sorted((ROOT / "book").glob("*.md")) if p.name != "writing.md"]


@pytest.mark.parametrize("path", BOOK_PAGES, ids=lambda p: p.name)
def test_no_code_line_of_a_book_page_scrolls(path):
    """The book's own pages (writing.md is for authors, not in the book)."""
    wide = [line for line in fenced_code(path.read_text()).splitlines() if len(line) > WIDTH]
    assert not wide, wide


def test_a_wide_line_is_found():
    long = "x = " + "1 + " * 30 + "1"
    cells = [nbformat.v4.new_code_cell(long, outputs=[
                 nbformat.v4.new_output("stream", name="stdout", text="a" * 80 + "\nb\n"),
                 nbformat.v4.new_output("execute_result", data={
                     "text/plain": "c" * 90, "text/html": "<table></table>"})]),
             nbformat.v4.new_markdown_cell("Prose may run on " * 20 + "\n```python\n"
                                           + long + "\n```\n"),
             nbformat.v4.new_markdown_cell("````{exercise-end}\n````\n\n" + "Prose " * 20
                                           + "\n```{dropdown} Answer\n" + "Prose " * 20
                                           + "\n```\n")]
    assert [(i, what) for i, what, _ in wide_lines(cells)] == [
        (0, "code"), (0, "output"), (1, "code in prose")]


#: What the apparatus looks like: a commit hash (7 to 40 hex digits, letters and digits
#: both), a load average, a CPU's name.
APPARATUS = re.compile(
    r"(?<![\w.])(?=[0-9a-f]{7,40}\b)(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,40}\b"
    r"|load average|loadavg|\bEPYC\b|\bXeon\b|\bRyzen\b|Core\(TM\)|\bmodel name\b"
    r"|\bcommit(?:ted)? (?:hash|[0-9a-f]{7})", re.I)


def apparatus(cells):
    """``(cell index, match)`` for every piece of apparatus a page shows: in its prose,
    its code or its outputs (plain text, tables and markdown alike)."""
    found = []
    for index, cell in enumerate(cells):
        texts = [cell.source]
        for output in cell.get("outputs", []):
            texts.append(output.get("text", ""))
            data = output.get("data", {})
            texts += [data[kind] for kind in ("text/plain", "text/html", "text/markdown")
                      if kind in data and "base64," not in data[kind]]
        found += [(index, m.group(0)) for text in texts for m in APPARATUS.finditer(text)]
    return found


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.name)
def test_no_apparatus_on_a_chapter_page(path):
    assert apparatus(nbformat.read(path, as_version=4).cells) == []


def test_apparatus_is_found():
    cells = [nbformat.v4.new_markdown_cell("Timed at treelib e4938c4 on this machine."),
             nbformat.v4.new_code_cell("x = 0xdeadbeef1", outputs=[nbformat.v4.new_output(
                 "stream", name="stdout", text="AMD EPYC 7B13, load average 2.07\n")]),
             nbformat.v4.new_markdown_cell("A ratio of 1.8 on 1,000,000 rows; see A8.")]
    assert apparatus(cells) == [(0, "e4938c4"), (1, "EPYC"), (1, "load average")]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_an_animations_drawing_code_is_folded_in_the_html(path):
    """The frames teach; the 30-50 lines that draw them are folded (``hide-input``)."""
    for cell in nbformat.read(path, as_version=4).cells:
        if any('class="animation"' in o.get("data", {}).get("text/html", "")
               for o in cell.get("outputs", [])):
            assert "hide-input" in cell.metadata.get("tags", []), cell.source[:80]


CHECK = re.compile(r"^## Check yourself\s*\n(.*?)(?=^## |\Z)", re.M | re.S)
ANSWER = re.compile(r"^(`{3,}|:{3,})\{dropdown\}\s*Answer", re.M)


def check_yourself(path):
    """The number of questions with a folded answer in the chapter's "Check yourself"
    section (None if it has none)."""
    text = "\n\n".join(c.source for c in nbformat.read(path, as_version=4).cells
                       if c.cell_type == "markdown")
    section = CHECK.search(text)
    return None if section is None else len(ANSWER.findall(section.group(1)))


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.name)
def test_every_chapter_asks_the_reader_to_check_themselves(path):
    assert check_yourself(path) in (2, 3), \
        "a '## Check yourself' section with 2 or 3 questions, each answered in a " \
        "```{dropdown} Answer``` block"


# --- the glossary ------------------------------------------------------------------------

sys.path.insert(0, str(ROOT / "tools"))
import link_glossary  # noqa: E402

GLOSSARY_LINK = re.compile(r"\]\((?:\.\./book/|\./)?glossary\.md#([\w-]+)\)")


def test_every_glossary_link_reaches_a_term():
    anchors = {link_glossary.anchor(h) for h in link_glossary.headings()}
    pages = [*NOTEBOOKS, *(ROOT / "book").glob("*.md")]
    broken = {(page.name, target) for page in pages
              for target in GLOSSARY_LINK.findall(page.read_text()) if target not in anchors}
    assert not broken, sorted(broken)


def test_every_glossary_term_is_listed_and_defined():
    assert set(link_glossary.headings()) == set(link_glossary.TERMS)
    assert len(link_glossary.headings()) >= 25


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.name)
def test_chapters_link_their_glossary_terms(path):
    """tools/link_glossary.py has been run: the first use of each term is a link."""
    cells = nbformat.read(path, as_version=4).cells
    assert link_glossary.link_chapter(cells, link_glossary.headings()) == []


def test_a_missing_glossary_link_is_found():
    cells = [nbformat.v4.new_markdown_cell("# Title"),
             nbformat.v4.new_markdown_cell("The `histogram` and $gain$ of a [bin](x.md); "
                                           "a histogram's gain.\n```python\nties = 1\n```"),
             nbformat.v4.new_markdown_cell("## Entropy\n\nThe entropy of a node.")]
    assert link_glossary.link_chapter(cells, ["Histogram", "Gain", "Tie", "Entropy"]) == [
        "Histogram", "Gain", "Entropy"]
    assert cells[2].source == ("## Entropy\n\nThe [entropy](../book/glossary.md#entropy) "
                               "of a node.")
    assert cells[1].source.startswith("The `histogram` and $gain$ of a [bin](x.md); a "
                                      "[histogram](../book/glossary.md#histogram)'s "
                                      "[gain](../book/glossary.md#gain).")
