"""Link each chapter's first use of a glossary term to book/glossary.md.

    python tools/link_glossary.py          # add the missing links, list what changed
    python tools/link_glossary.py --check  # only list (exit 1 if a link is missing)

A term is a ``## Heading`` of book/glossary.md (``TERMS`` below gives the words that
count as a use of it).  In every chapter (``notebooks/NN_*.ipynb``), the first use of each
term in the prose after the opening cell becomes ``[use](../book/glossary.md#anchor)``,
unless the chapter already links that term.  Code, math, links, headings and directive
lines are never touched.  The link is a plain markdown link, so it works in JupyterLab
(it opens the glossary) as in the HTML (``myst_heading_anchors`` gives every heading of
the glossary its anchor).
"""

import re
import sys
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
GLOSSARY = ROOT / "book" / "glossary.md"

#: The words that count as a use of each glossary heading (regular expressions, matched
#: case-insensitively at word boundaries).
TERMS = {
    "Split": r"splits?", "Cut": r"cuts?", "Impurity": r"impurity",
    "Gain": r"gains?", "Gini impurity": r"Gini impurity", "Entropy": r"entropy",
    "Variance-to-sum identity": r"variance-to-sum identity",
    "Running sums": r"running sums?", "Exact search": r"exact search(?:es)?",
    "Tie": r"ties?", "Growth order": r"growth orders?",
    "Level-wise growth": r"level-wise growth", "min_samples_leaf": r"min_samples_leaf",
    "Histogram": r"histograms?", "Bin": r"bins?",
    "Subtraction trick": r"subtraction trick", "Random thresholds": r"random thresholds?",
    "Random decision tree": r"random decision trees?",
    "Gradient and hessian": r"hessians?", "Newton gain": r"Newton gain",
    "min_child_weight": r"min_child_weight", "Learning rate": r"learning rates?",
    "Line search": r"line search", "GOSS": r"GOSS", "Bagging": r"bagging|bagged",
    "Random forest": r"random forests?", "Oblivious tree": r"oblivious trees?",
    "Poisson deviance": r"Poisson deviance", "Learned direction": r"learned direction",
    "Categorical split": r"categorical splits?", "Fixed-point sum": r"fixed-point sums?",
    "Quantile sketch": r"quantile sketch(?:es)?", "Allreduce": r"allreduce",
    "Cost-complexity pruning": r"cost-complexity pruning", "Weakest link": r"weakest links?",
    "Selection bias": r"selection bias", "Impurity importance": r"impurity importances?",
    "Permutation importance": r"permutation importances?",
    "Target statistics": r"target statistics?", "Monotonic constraint": r"monotonic constraints?",
    "Greedy search": r"greedy (?:search|growth|grower)s?", "Optimal tree": r"optimal trees?",
    "Lookahead": r"lookahead",
}

#: Terms so basic that every chapter uses them from its first line (chapter 1 defines
#: them, and every reader starts there): in the glossary, never linked automatically.
NOT_LINKED = {"Split", "Cut"}

#: What is never rewritten: fenced blocks and directive lines, headings, option lines,
#: inline code, math, links, HTML tags.
PROTECTED = re.compile(
    r"^(`{3,}|:{3,})[^\n]*\n.*?^\1\s*$"       # a fenced block whose body is not prose ...
    r"|^(?:`{3,}|:{3,})[^\n]*$|^#[^\n]*$|^:[\w-]+:[^\n]*$"  # ... fence lines, headings
    r"|`[^`\n]*`|\$\$.*?\$\$|\$[^$\n]+\$|!?\[[^\]]*\]\([^)]*\)|<[^>\n]+>",
    re.M | re.S)
PROSE_FENCE = re.compile(r"^(?:`{3,}|:{3,})\{(?:admonition|note|tip|hint|important|warning"
                         r"|caution|attention|seealso|dropdown)")


def anchor(heading):
    """The anchor MyST gives a heading: lower case, spaces to hyphens, other punctuation
    dropped (``"Variance-to-sum identity"`` -> ``variance-to-sum-identity``)."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def headings():
    return re.findall(r"^## (.+)$", GLOSSARY.read_text(), re.M)


def protected_spans(markdown):
    """Character ranges of ``markdown`` that are not prose.  A fenced prose directive
    (an admonition, a dropdown) protects only its fence and option lines."""
    spans = []
    for match in PROTECTED.finditer(markdown):
        if match.group(1) and PROSE_FENCE.match(match.group(0)):
            first = match.group(0).split("\n", 1)[0]
            spans.append((match.start(), match.start() + len(first)))
            inner = match.group(0)[len(first):]
            spans += [(match.start() + len(first) + s, match.start() + len(first) + e)
                      for s, e in protected_spans(inner.rsplit("\n", 1)[0])]
            spans.append((match.end() - len(match.group(0).rsplit("\n", 1)[-1]),
                          match.end()))
        else:
            spans.append(match.span())
    return spans


def first_use(markdown, pattern):
    """The first match of ``pattern`` in the prose of ``markdown``, or None."""
    spans = protected_spans(markdown)
    for match in re.finditer(rf"(?<![\w`/#-])(?:{pattern})(?![\w`-])", markdown, re.I):
        if not any(start <= match.start() < end for start, end in spans):
            return match
    return None


def link_chapter(cells, terms):
    """Add the missing glossary links to ``cells`` (markdown cells after the first);
    returns the headings linked."""
    prose = [c for c in cells[1:] if c.cell_type == "markdown"]
    linked = []
    for heading in terms:
        if heading in NOT_LINKED:
            continue
        target = f"../book/glossary.md#{anchor(heading)}"
        if any(f"({target})" in cell.source for cell in cells):   # not a longer anchor
            continue
        for cell in prose:
            match = first_use(cell.source, TERMS[heading])
            if match:
                cell.source = (cell.source[:match.start()] + f"[{match.group(0)}]({target})"
                               + cell.source[match.end():])
                linked.append(heading)
                break
    return linked


def main(check):
    terms = headings()
    unknown = set(terms) ^ set(TERMS)
    if unknown:
        print(f"glossary headings and TERMS differ: {sorted(unknown)}", file=sys.stderr)
        return 1
    missing = 0
    for path in sorted((ROOT / "notebooks").glob("[0-9]*.ipynb")):
        notebook = nbformat.read(path, as_version=4)
        linked = link_chapter(notebook.cells, terms)
        if linked:
            missing += len(linked)
            print(f"{path.name}: {'missing' if check else 'linked'} {', '.join(linked)}")
            if not check:
                nbformat.write(notebook, path)
    return 1 if check and missing else 0


if __name__ == "__main__":
    sys.exit(main("--check" in sys.argv[1:]))
