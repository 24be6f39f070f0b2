"""Open every page of a built book in headless Chromium at 1280 x 900 and list what a
reader would have to scroll sideways: code blocks, outputs, tables and animations wider
than the page's column.

    python tools/check_html_width.py [_build/html]

tests/test_chapter_pages.py holds code and text lines to 79 characters, which is what
the theme's column shows (book/_static/custom.css trims the cells' padding and the code
font inside exercises and admonitions so that it does); this tool checks the result as
the browser lays it out, tables included.  It needs Chromium (Debian's ``chromium``) and
the Python package ``playwright`` (nothing is downloaded), so, like tools/check_lab.py,
it is not part of ``make test``.  Exit status 1 if anything scrolls.
"""

import sys
from pathlib import Path

from check_lab import CHROMIUM, CHROMIUM_FLAGS  # the same browser, started the same way

#: What may scroll: the page's blocks, not inline math (MathJax's spans report a few
#: pixels of overflow that no reader sees).
WIDE = """[...document.querySelectorAll(
    'article pre, article table, article .output, article div.animation, article img')]
  .filter(e => e.scrollWidth - e.clientWidth > 1)
  .map(e => [e.tagName.toLowerCase(), e.scrollWidth - e.clientWidth,
             (e.textContent || '').trim().slice(0, 60).replace(/\\s+/g, ' ')])"""


def main(html_dir):
    from playwright.sync_api import sync_playwright

    html = Path(html_dir).resolve()
    pages = sorted(html.glob("notebooks/*.html")) + sorted(html.glob("book/*.html"))
    problems = 0
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        for path in pages:
            page.goto(path.as_uri())
            page.wait_for_timeout(200)
            for kind, pixels, text in page.evaluate(WIDE):
                print(f"check_html_width: {path.relative_to(html)}: a {kind} "
                      f"{pixels} px too wide: {text!r}")
                problems += 1
        browser.close()
    if not problems:
        print(f"check_html_width: nothing in {len(pages)} pages scrolls sideways at 1280 px")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "_build/html"))
