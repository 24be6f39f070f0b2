"""Rewrite the options table where the pages embed it, from ``treelib.options``.

    python tools/render_options.py          # rewrite README.md's matrix and book/options.md's list
    python tools/render_options.py --check  # only say which page is stale (exit 1)

Each page holds the rendering between ``<!-- options-<kind>: generated -->`` and
``<!-- /options-<kind> -->``; ``tests/test_options.py`` checks that it is current.
"""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from treelib import options  # noqa: E402

PAGES = {"matrix": ROOT / "README.md", "list": ROOT / "book" / "options.md"}


def rendered(kind):
    render = {"matrix": options.render_matrix, "list": options.render_list}[kind]
    return render() + "\n" + options.render_footnotes()


def main(check):
    stale = []
    for kind, path in PAGES.items():
        text = path.read_text()
        start, end = f"<!-- options-{kind}: generated -->\n", f"<!-- /options-{kind} -->"
        head, rest = text.split(start)
        _, tail = rest.split(end)
        new = head + start + rendered(kind) + end + tail
        if new != text:
            stale.append(path.relative_to(ROOT))
            if not check:
                path.write_text(new)
    for path in stale:
        print(("stale: " if check else "rewritten: ") + str(path))
    return 1 if check and stale else 0


if __name__ == "__main__":
    sys.exit(main("--check" in sys.argv[1:]))
