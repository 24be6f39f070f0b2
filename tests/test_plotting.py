"""treelib.plotting's animation plays offline, and the book's HTML check weighs it."""

import re
import sys
from pathlib import Path

import matplotlib
import numpy as np

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from treelib.plotting import animation  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))
import check_book  # noqa: E402


def small_animation(frames=5):
    figure, ax = plt.subplots(figsize=(3, 2))
    line, = ax.plot([], [])
    ax.set_xlim(0, frames)
    ax.set_ylim(-1, 1)

    def draw(k):
        x = np.linspace(0, k, 20)
        line.set_data(x, np.sin(x))
        return (line,)

    return animation(figure, draw, range(1, frames + 1)).data


def test_an_animation_needs_no_network_and_holds_every_frame():
    page = small_animation(frames=5)
    assert not re.search(r'(?:src|href)="https?://', page)
    assert 'class="fa' not in page                  # no web-font icons
    assert len(re.findall(r"frames\[\d+\] = \"data:image/png;base64,", page)) == 5
    assert check_book.animation_problems("page", page) == []
    assert re.search(r'<img id="_anim_img\w+" src="data:image/png;base64,', page)  # a still
    assert not plt.get_fignums()                     # the still is not shown twice


def test_the_html_check_finds_a_heavy_animation(monkeypatch):
    page = small_animation(frames=3)
    monkeypatch.setattr(check_book, "ANIMATION_MB", 1e-4)
    problems = check_book.animation_problems("page", page)
    assert len(problems) == 1 and "weighs" in problems[0]
    assert check_book.animation_problems("page", page.replace("data:image/png;base64,",
                                                              "x")) != []
