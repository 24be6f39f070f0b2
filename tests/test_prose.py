"""The prose is checked as the code is: its numbers come from outputs, its references reach.

- **Numbers trace to outputs.** A number the prose of a page quotes appears, to the digits
  quoted, in an output or a code cell above it on the same page (rounded there to those
  digits, or as a percentage of a printed fraction), or is a constant in ``CONSTANTS``
  below, with the reason.  Small whole numbers (counts a reader checks by eye: "two cores",
  "depth 6", "3 to 5 exercises") and years are not measured numbers; every decimal,
  percentage, ratio and larger whole number is.
- **References to chapters are links that name the right chapter.**  "chapter 7" or
  "appendix A3" in prose is a link to the chapter's file, and the number in the link's
  text is the chapter's place in ``_toc.yml`` (chapters are numbered in the order of the
  table of contents; appendix pages A1, A2, ... likewise), so a renumbered chapter cannot
  leave a stale number behind.

Each check is also run on a planted error below, so that it is shown to fail.
"""

import re
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))

#: Constants the prose may quote without an output: what they are is said beside them.
CONSTANTS = {
    "255", "256",        # bins: scikit-learn's and LightGBM's default (255 + one for missing)
    "65,536",            # 2**16: the largest bin count of 16-bit codes
    "1,048,576",         # 2**20: treelib's NODE_VALUES (values per node searched at once)
    "2,097,152",         # 2**21: treelib's CHUNK_VALUES
    "31",                # LightGBM's default num_leaves
    "0.1",               # the learning rate scikit-learn, LightGBM and XGBoost default to
    "100",               # scikit-learn's and LightGBM's default n_estimators / max_iter
}

#: Whole numbers up to this are counts a reader checks by eye, not measurements.
SMALL = 20

NUMBER = re.compile(r"(?<![\w.])[-−]?(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(\s?%|\s?[x×](?!\w))?")
REFERENCE_WORDS = (r"chapters?|appendix|appendices|exercises?|equations?|eqs?\.|seeds?"
                   r"|articles?|parts?|figures?|sections?|steps?|table|lines?|version")


FENCE = re.compile(r"^\s*(`{3,}|:{3,})\s*(.*)$")
#: Directives whose body is prose (admonitions, exercises, solutions); any other fenced
#: block (code, math, console) is not prose.
PROSE_DIRECTIVES = re.compile(r"^\{(admonition|note|tip|hint|important|warning|caution|"
                              r"attention|seealso|dropdown|exercise|solution)")


def without_code_blocks(markdown):
    """``markdown`` with its fence lines and the bodies of code and math blocks removed;
    the bodies of prose directives (admonitions, exercises, solutions) kept."""
    kept, open_fences, skipping = [], [], None
    for line in markdown.splitlines():
        fence = FENCE.match(line)
        if skipping:
            if fence and fence.group(1) == skipping and not fence.group(2):
                skipping = None
            continue
        if not fence:
            kept.append(line)
        elif not fence.group(2) and fence.group(1) in open_fences:
            open_fences.remove(fence.group(1))       # a directive closes
        elif PROSE_DIRECTIVES.match(fence.group(2)):
            open_fences.append(fence.group(1))       # its body is prose
        else:
            skipping = fence.group(1)                # code, math, console: not prose
    return "\n".join(kept)


def prose_of(markdown):
    """The sentences of a markdown cell: code, math, markup and link targets removed, and
    numbered references ("chapter 7", "equation (8)") left to the reference check."""
    text = re.sub(r"\$\$.*?\$\$", " ", without_code_blocks(markdown), flags=re.S)
    text = re.sub(r"\$[^$\n]+\$", " ", text)
    text = re.sub(r"`[^`]*`", " ", text)
    text = re.sub(r"\[A?\d+\]\([^)]*\.(?:ipynb|md)[^)]*\)", " ", text)  # [27](27_....ipynb)
    text = re.sub(r"\]\([^)]*\)", "]", text)
    text = re.sub(r"^\s*:[\w-]+:.*$", " ", text, flags=re.M)
    text = re.sub(r"<[^>]+>", " ", text)
    text = re.sub(r"\b\d+-bit\b", " ", text)                     # types: 64-bit integers
    text = re.sub(r"\b(?:scikit-learn|numpy|pandas|LightGBM|XGBoost|Dask|Python|"
                  r"jupyter-book)\s+\d+(?:\.\d+)+", " ", text, flags=re.I)   # versions
    return re.sub(rf"\b(?:{REFERENCE_WORDS})\s+\(?A?\d+\)?"
                  r"(?:\s*(?:,|and|or|to|-|–)\s*\(?A?\d+\)?)*", " ", text, flags=re.I)


def digits(match):
    """The number a match quotes, without thousands separators: ``'123840'``, ``'0.857'``."""
    return match.group(1).replace(",", "") + (match.group(2) or "")


def decimals(number):
    return len(number.split(".")[1]) if "." in number else 0


def is_measured(match):
    number = digits(match)
    if match.group(0).strip().lstrip("-−") in CONSTANTS or number in {
            c.replace(",", "") for c in CONSTANTS}:
        return False
    if "." in number or match.group(3):
        return True
    return int(number) > SMALL and not 1900 <= int(number) <= 2030


def shown(number, percent, printed):
    """Whether ``number`` (a string, as quoted) is one of ``printed`` rounded to its digits,
    or, quoted as a percentage, 100 times one of them."""
    places, value = decimals(number), float(number)
    for candidate in printed:
        if decimals(candidate) < places:
            continue
        for scale in ((1, 100) if percent else (1,)):
            if abs(round(float(candidate) * scale, places) - value) < 10 ** -(places + 3):
                return True
    return False


def outputs_of(cell):
    texts = []
    for output in cell.get("outputs", []):
        texts.append(output.get("text", ""))
        data = output.get("data", {})
        texts += [data[kind] for kind in ("text/plain", "text/html", "text/markdown")
                  if kind in data]
    return "\n".join(texts)


def numbers_of(text):
    """The numbers a text shows, as ``digits`` gives them (``1_000`` in code too)."""
    return {digits(m) for m in NUMBER.finditer(re.sub(r"(?<=\d)_(?=\d)", "", text))}


def exercise_parameters(cells):
    """``{cell index: numbers}``: an exercise's question may quote the parameters that its
    solution's code sets (``1,000 draws``), since the reader sees that code run."""
    parameters, inside = {}, []
    for index, cell in enumerate(cells):
        if cell.cell_type == "markdown" and "{exercise-start}" in cell.source:
            inside = []
        if cell.cell_type == "code" and inside is not None:
            parameters.setdefault("code", set()).update(numbers_of(cell.source))
        if inside is not None:
            inside.append(index)
        if cell.cell_type == "markdown" and "{solution-end}" in cell.source and inside:
            code = parameters.pop("code", set())
            parameters.update({i: code for i in inside})
            inside = None
    parameters.pop("code", None)
    return parameters


def untraced_numbers(cells):
    """``(cell index, number)`` of every measured number in the prose of ``cells`` that no
    output or code above it shows (in an exercise, or its own solution's code)."""
    printed, missing = set(), []
    parameters = exercise_parameters(cells)
    for index, cell in enumerate(cells):
        if cell.cell_type == "code":
            printed |= numbers_of(cell.source) | numbers_of(outputs_of(cell))
            continue
        known = printed | parameters.get(index, set())
        for match in NUMBER.finditer(prose_of(cell.source)):
            percent = bool(match.group(3) and "%" in match.group(3))
            if is_measured(match) and not shown(digits(match), percent, known):
                missing.append((index, match.group(0).strip()))
    return missing


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_numbers_in_prose_come_from_outputs(path):
    cells = nbformat.read(path, as_version=4).cells
    assert untraced_numbers(cells) == []


def test_an_untraced_number_is_found():
    cells = [nbformat.v4.new_code_cell("print(0.8713)", outputs=[nbformat.v4.new_output(
                 "stream", name="stdout", text="0.8713\n")]),
             nbformat.v4.new_markdown_cell("The steps average 0.871 (87.1%, about 0.87), "
                                           "not 0.857; see chapter 7 and 255 bins."),
             nbformat.v4.new_markdown_cell("A speed-up of 6.5x on 41,000 rows."),
             nbformat.v4.new_markdown_cell("````{exercise-start}\n:label: ch01-ex1\n````\n"
                                           "Why 0.95 with 1,000 draws?\n```python\nx = 0.33\n"
                                           "```\n````{exercise-end}\n````"),
             nbformat.v4.new_markdown_cell("````{solution-start} ch01-ex1\n````"),
             nbformat.v4.new_code_cell("draws = 1_000"),
             nbformat.v4.new_markdown_cell("````{solution-end}\n````")]
    assert untraced_numbers(cells) == [(1, "0.857"), (2, "6.5x"), (2, "41,000"), (3, "0.95")]


# --- references to chapters -------------------------------------------------------------

def toc_numbers():
    """``{file name: 'N' or 'AN'}``: chapters numbered in the order of ``_toc.yml``."""
    files = re.findall(r"file:\s*notebooks/(\S+)", (ROOT / "_toc.yml").read_text())
    chapters = [f for f in files if not f.startswith("A")]
    appendix = [f for f in files if f.startswith("A")]
    numbers = {f"{f}.ipynb": str(i) for i, f in enumerate(chapters, 1)}
    numbers.update({f"{f}.ipynb": f"A{i}" for i, f in enumerate(appendix, 1)})
    return numbers


LINK = re.compile(r"\[([^\]]*)\]\((?:\.\./notebooks/|\./)?([\w-]+\.ipynb)(?:#[^)]*)?\)")
NAMED = re.compile(r"\b(?:chapters?|appendix|appendices)\s+(A?\d+)", re.I)


def stale_references(markdown, numbers):
    """What is wrong with the chapter references of a markdown text: a numbered chapter
    named outside a link, or a link whose text names another number than its target's."""
    problems = []
    for text, target in LINK.findall(markdown):
        named = NAMED.findall(text) or re.findall(r"^(A?\d+)$", text.strip())
        if named and named != [numbers.get(target)]:
            problems.append(f"[{' '.join(text.split())}]({target}) is chapter "
                            f"{numbers.get(target)}")
    for item, text, target in re.findall(rf"^\s*(\d+)\.\s+{LINK.pattern}", markdown,
                                         re.MULTILINE):
        if item != numbers.get(target):
            problems.append(f"item {item}. [{text}]({target}) is chapter {numbers.get(target)}")
    for bare in NAMED.finditer(LINK.sub(" ", re.sub(r"`[^`]*`", " ", markdown))):
        problems.append(f"'{bare.group(0)}' is not a link")
    return problems


def prose_pages():
    for path in NOTEBOOKS:
        yield path.name, "\n\n".join(c.source for c in nbformat.read(path, as_version=4)
                                     .cells if c.cell_type == "markdown")
    for path in sorted((ROOT / "book").glob("*.md")):
        if path.name != "writing.md":
            yield path.name, path.read_text()


@pytest.mark.parametrize("name, markdown", list(prose_pages()), ids=lambda x: x[:40])
def test_chapter_references_are_links_to_the_right_chapter(name, markdown):
    assert stale_references(markdown, toc_numbers()) == []


def test_a_stale_reference_is_found():
    numbers = {"09_histogram_splits.ipynb": "9", "A3_profiling_and_memory.ipynb": "A3"}
    text = ("the [histogram scan of chapter 7](09_histogram_splits.ipynb), "
            "[appendix A3](A3_profiling_and_memory.ipynb), [A2](A3_profiling_and_memory.ipynb)"
            " and appendix A6\n8. [Histogram splits](../notebooks/09_histogram_splits.ipynb)")
    assert stale_references(text, numbers) == [
        "[histogram scan of chapter 7](09_histogram_splits.ipynb) is chapter 9",
        "[A2](A3_profiling_and_memory.ipynb) is chapter A3",
        "item 8. [Histogram splits](09_histogram_splits.ipynb) is chapter 9",
        "'appendix A6' is not a link"]
