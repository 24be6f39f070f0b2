"""Check a built HTML book: every page exists and nothing needs a network.

    python tools/check_book.py _build/html

Fails (exit 1) when a page from _toc.yml is missing, a page loads a script, stylesheet,
font or image from another host, MathJax is not served locally, a chapter's
"download notebook" link points to nothing, or an animation (treelib.plotting.animation:
matplotlib's player with its frames inside the page) weighs more than ANIMATION_MB.
"""

import re
import sys
from pathlib import Path

REMOTE = re.compile(r'<(?:script|link|img|iframe)\b[^>]*\b(?:src|href)="(https?:)?//[^"]*"',
                    re.IGNORECASE)
#: The most one animation may add to its page (the frames are PNGs, base64 in the page).
ANIMATION_MB = 1.5
#: One animation: matplotlib's player from its <div class="animation"> to the script that
#: holds its frames.
ANIMATION = re.compile(r'<div class="animation">.*?var frames = new Array.*?</script>', re.S)


def animation_problems(page, text):
    """What is wrong with the animations of one built page: each must stay under
    ANIMATION_MB and play its frames from the page itself."""
    problems = []
    for number, match in enumerate(ANIMATION.finditer(text), 1):
        megabytes = len(match.group(0).encode()) / 1e6
        if megabytes > ANIMATION_MB:
            problems.append(f"{page}: animation {number} weighs {megabytes:.1f} MB "
                            f"(at most {ANIMATION_MB})")
        if "data:image/png;base64," not in match.group(0):
            problems.append(f"{page}: animation {number} has no frames in the page")
    return problems


def toc_pages(root):
    pages = ["book/intro"]
    for line in (root / "_toc.yml").read_text().splitlines():
        match = re.match(r"\s*-?\s*file:\s*(\S+)", line)
        if match:
            pages.append(match.group(1))
    return pages


def main(html_dir):
    html = Path(html_dir)
    root = Path(__file__).resolve().parent.parent
    problems = []
    if not (html / "index.html").exists():
        problems.append("index.html is missing")
    for page in toc_pages(root):
        built = html / f"{page}.html"
        if not built.exists():
            problems.append(f"{built} is missing")
            continue
        text = built.read_text(encoding="utf-8")
        for match in REMOTE.finditer(text):
            problems.append(f"{built}: loads from the network: {match.group(0)[:120]}")
        problems += animation_problems(built, text)
        if page.startswith("notebooks/"):
            source = html / "_sources" / f"{page}.ipynb"
            if not source.exists():
                problems.append(f"{built}: its download link needs {source}")
    if not (html / "_static" / "mathjax" / "tex-chtml.js").exists():
        problems.append("MathJax is not in _static/mathjax: math would need a network")
    if "cdn.jsdelivr.net/npm/mathjax" in "".join(
            p.read_text(encoding="utf-8") for p in html.rglob("*.html")):
        problems.append("a page still loads MathJax from a CDN")
    for problem in problems:
        print("check_book:", problem, file=sys.stderr)
    if not problems:
        print(f"check_book: {html} is complete and works offline")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "_build/html"))
