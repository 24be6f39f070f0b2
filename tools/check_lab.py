"""Open every chapter in JupyterLab, in headless Chromium, and check that it reads as the
HTML book does: no MyST role or directive left as raw text, math typeset, exercises and
solutions rendered by jupyterlab-myst.

    python tools/check_lab.py [--screenshots DIR] [--show TEXT ...] [notebooks/01_...ipynb ...]

With ``--screenshots``, one picture of each notebook's top, and with ``--show``, one more
for each TEXT: the first cell (its source or its output) that contains it, scrolled into
view (``--show "Check yourself" --show 'class="animation"'``).

Needs Chromium (Debian's ``chromium`` package, /usr/bin/chromium) and the Python package
``playwright`` (``pip install playwright``; it drives the installed Chromium, nothing is
downloaded).  Exit status 1 if a chapter shows raw markup.  Not part of ``make test``:
the CI machines have no browser.
"""

import argparse
import json
import os
import re
import secrets
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.request import urlopen

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update",
                  "--disable-sync"]
#: What raw MyST looks like when nothing rendered it: a role ``{name}`...``` or a fence.
RAW_MARKUP = re.compile(r"\{[a-z][a-z:-]*\}`|^\s*(```|:::)\s*\{", re.MULTILINE)


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_lab(port, token, settings):
    """JupyterLab on localhost, every notebook cell rendered (no windowing)."""
    tracker = Path(settings) / "@jupyterlab" / "notebook-extension"
    tracker.mkdir(parents=True)
    (tracker / "tracker.jupyterlab-settings").write_text(json.dumps({"windowingMode": "none"}))
    workspaces = Path(settings) / "workspaces"           # a fresh workspace every time
    workspaces.mkdir()
    environment = dict(os.environ, JUPYTERLAB_SETTINGS_DIR=str(settings),
                       JUPYTERLAB_WORKSPACES_DIR=str(workspaces))
    command = [sys.executable, "-m", "jupyter", "lab", "--no-browser", f"--port={port}",
               f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={ROOT}",
               "--ServerApp.open_browser=False", "--allow-root"]
    server = subprocess.Popen(command, env=environment, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    for _ in range(120):
        try:
            urlopen(f"http://127.0.0.1:{port}/api/status?token={token}", timeout=1)
            return server
        except OSError:
            time.sleep(0.5)
    server.terminate()
    raise RuntimeError("JupyterLab did not start")


def show_cells(page, screenshot, texts):
    """One screenshot per text: the first cell that contains it, scrolled into view."""
    for number, text in enumerate(texts, 1):
        cells = page.query_selector_all(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Cell")
        found = next((c for c in cells if text in c.inner_html()), None)
        if found is None:
            print(f"check_lab: no cell shows {text!r}")
            continue
        found.scroll_into_view_if_needed()
        page.wait_for_timeout(1500)
        page.screenshot(path=str(screenshot.with_name(f"{screenshot.stem}-{number}.png")))


def check_notebook(page, url, screenshot=None, show=()):
    """Problems found in one rendered notebook (an empty list if it reads well)."""
    page.goto(url)
    page.wait_for_selector(".jp-MarkdownCell", state="attached", timeout=60_000)
    page.wait_for_timeout(3000)                     # let MathJax and myst finish
    problems = []
    cells = page.query_selector_all(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-MarkdownCell")
    for number, cell in enumerate(cells):
        text = cell.inner_text()
        for match in RAW_MARKUP.finditer(text):
            problems.append(f"markdown cell {number}: raw markup {match.group(0)!r} in "
                            f"{text[max(0, match.start() - 40):match.end() + 40]!r}")
    source = page.content()
    if "$" in "".join(c.inner_text() for c in cells) and "mjx-container" not in source:
        problems.append("math is not typeset")
    if screenshot is not None:
        page.screenshot(path=str(screenshot), full_page=True)
        show_cells(page, screenshot, show)
    return problems


def main(argv=None):
    from playwright.sync_api import sync_playwright

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="*", type=Path)
    parser.add_argument("--screenshots", type=Path)
    parser.add_argument("--show", action="append", default=[])
    args = parser.parse_args(argv)
    notebooks = args.notebooks or sorted((ROOT / "notebooks").glob("*.ipynb"))
    port, token = free_port(), secrets.token_hex(16)
    failures = 0
    with tempfile.TemporaryDirectory() as settings:
        server = start_lab(port, token, settings)
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=CHROMIUM,
                                                     args=CHROMIUM_FLAGS)
                page = browser.new_page(viewport={"width": 1280, "height": 900})
                for path in notebooks:
                    relative = Path(path).resolve().relative_to(ROOT).as_posix()
                    shot = None
                    if args.screenshots:
                        args.screenshots.mkdir(parents=True, exist_ok=True)
                        shot = args.screenshots / (Path(path).stem + ".png")
                    problems = check_notebook(
                        page, f"http://127.0.0.1:{port}/lab/workspaces/{Path(path).stem}/tree/"
                              f"{relative}?reset&token={token}", shot, args.show)
                    status = "ok" if not problems else f"{len(problems)} problem(s)"
                    print(f"check_lab: {relative}: {status}")
                    for problem in problems:
                        print(f"    {problem}")
                    failures += bool(problems)
                browser.close()
        finally:
            server.terminate()
            server.wait(timeout=30)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
