"""Plotting conventions shared by the book's chapters (matplotlib only)."""

import re

import matplotlib as mpl
import numpy as np

#: One look for every figure in the book.
BOOK_STYLE = {
    "figure.figsize": (7.0, 4.2),
    "figure.dpi": 100,
    "savefig.dpi": 100,
    "figure.facecolor": "white",
    "axes.grid": True,
    "grid.alpha": 0.3,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.titlesize": "medium",
    "legend.frameon": False,
}

#: The same colour and name for a split method in every chapter.
METHOD_COLORS = {"naive": "#d62728", "scan": "#1f77b4", "cumsum": "#2ca02c",
                 "sklearn": "#7f7f7f", "seed baseline": "#ff9896", "seed fast": "#aec7e8"}
METHOD_LABELS = {"naive": r"naive, $O(n^2)$ per node", "scan": "scan (Python loop)",
                 "cumsum": "cumsum (vectorized)", "sklearn": "scikit-learn (Cython)",
                 "seed baseline": "seed: baseline", "seed fast": "seed: fast scan"}


def use_book_style():
    """Apply ``BOOK_STYLE`` to matplotlib's defaults, and in a notebook draw figures at
    twice their pixel density ("retina"), so they stay sharp on high-DPI screens and
    when zoomed."""
    mpl.rcParams.update(BOOK_STYLE)
    try:
        from matplotlib_inline.backend_inline import set_matplotlib_formats
    except ImportError:          # not in IPython: nothing to configure
        return
    set_matplotlib_formats("retina")


def plot_tree(tree, feature_names=None, class_names=None, max_depth=None, decimals=2,
              ax=None):
    """Draw a ``treelib.tree.Tree`` top down: each split node shows its test and sample
    count, each leaf its value (or majority class) and count; edges are labelled with
    the branch.  Leaves are spread evenly left to right, each parent centred above its
    children.  ``max_depth`` cuts the drawing (not the tree) at that depth.  Returns the
    matplotlib Axes.  O(nodes) artists: meant for trees of a few dozen nodes.
    """
    import matplotlib.pyplot as plt

    names = feature_names or [f"x{j}" for j in range(int(tree.feature.max()) + 2)]
    children, position, depth_of, n_leaves = _tree_layout(tree, max_depth)
    lowest = max(depth_of[node] for node in children)
    if ax is None:
        width = max(4.0, 1.6 * n_leaves)
        _, ax = plt.subplots(figsize=(min(width, 14.0), 1.3 * (lowest + 1)))
    _draw_edges(ax, tree, children, position, depth_of)
    for node in children:
        text, colour = _node_text(tree, node, bool(children[node]), names, class_names,
                                  decimals)
        ax.text(position[node], -depth_of[node], text, ha="center", va="center",
                fontsize=8, zorder=2,
                bbox={"boxstyle": "round,pad=0.3", "fc": colour, "ec": "0.5"})
    ax.set_xlim(-0.7, n_leaves - 0.3)
    ax.set_ylim(-lowest - 0.6, 0.6)
    ax.axis("off")
    return ax


def _tree_layout(tree, max_depth):
    """``(children, position, depth_of, n_leaves)`` of ``plot_tree``'s drawing: the drawn
    children of every drawn node (a CART split's missing-value child, its left or right
    child, once), each node's x (leaves 0, 1, ... in order, parents centred above their
    children), every node's depth and the number of drawn leaves.  O(nodes)."""

    depth_of = tree.node_depth()
    shown = depth_of <= (np.inf if max_depth is None else max_depth)
    children = {node: list(dict.fromkeys(c for c in tree.children[node] if c >= 0 and shown[c]))
                for node in range(tree.node_count) if shown[node]}
    position, next_leaf = {}, [0]

    def place(node):                       # in-order: leaves left to right
        below = children[node]
        if not below:
            position[node] = float(next_leaf[0])
            next_leaf[0] += 1
        else:
            for child in below:
                place(child)
            position[node] = float(np.mean([position[c] for c in below]))

    place(0)
    return children, position, depth_of, next_leaf[0]


def _draw_edges(ax, tree, children, position, depth_of):
    """The edges of ``plot_tree``'s drawing, each labelled with its branch (≤, >,
    missing).  O(nodes)."""

    labels = {0: "≤", 1: ">", 2: "missing"}
    for node, below in children.items():
        for child in below:
            branch = int(np.flatnonzero(tree.children[node] == child)[0])
            ax.plot([position[node], position[child]], [-depth_of[node], -depth_of[child]],
                    color="0.6", zorder=1)
            ax.text((position[node] + position[child]) / 2,
                    -(depth_of[node] + depth_of[child]) / 2, labels[branch], fontsize=8,
                    ha="center", va="center", color="0.35",
                    bbox={"boxstyle": "round,pad=0.1", "fc": "white", "ec": "none"})


def _node_text(tree, node, drawn_below, names, class_names, decimals):
    """``(text, colour)`` of a node's box in ``plot_tree``: its test and count for a
    split whose children are drawn, else its value (or majority class) and count.
    O(classes)."""

    count = f"n = {tree.n_node_samples[node]:,}"
    if not tree.is_leaf[node] and drawn_below:
        return (f"{names[tree.feature[node]]} ≤ {tree.threshold[node]:.{decimals}f}\n"
                f"{count}"), "#dbe9f6"
    if class_names is not None:
        return f"{class_names[int(np.argmax(tree.value[node]))]}\n{count}", "#e5f5e0"
    return f"{tree.value[node, 0]:.{decimals}f}\n{count}", "#e5f5e0"


#: The player's buttons: matplotlib draws them with Font Awesome icons loaded from a CDN;
#: these characters need no network.
PLAYER_ICONS = {"fa fa-minus": "&minus;", "fa fa-plus": "+", "fa fa-pause": "&#10074;&#10074;",
                "fa fa-play fa-flip-horizontal": "&#9664;", "fa fa-play": "&#9654;",
                "fa fa-step-backward": "&#9664;|", "fa fa-step-forward": "|&#9654;",
                "fa fa-fast-backward": "|&#9664;&#9664;",
                "fa fa-fast-forward": "&#9654;&#9654;|"}

#: Frames of an animation are drawn at this pixel density: a 7 x 4.2 inch figure at 80
#: dots per inch is 560 x 336 pixels, a few tens of kB a frame.
ANIMATION_DPI = 80


def animation(figure, draw, frames, interval=400):
    """An animation for a notebook and the HTML book, with no network: matplotlib's
    ``FuncAnimation`` rendered by ``to_jshtml`` (every frame a PNG inside the page, with
    play, pause and step buttons; the script is inline, nothing is loaded from a CDN).
    The player's icons are plain characters (``PLAYER_ICONS``), not a web font, and the
    first frame is the player's image from the start, so a page that runs no scripts (an
    untrusted notebook in JupyterLab) still shows it.
    ``draw(frame)`` redraws ``figure`` for each item of ``frames``; ``interval`` is the
    milliseconds between frames.  The figure is closed, so it is not shown a second time
    as a still.  Returns an ``IPython.display.HTML``.  Cost: one PNG per frame, about
    20-60 kB each at ``ANIMATION_DPI``: keep it under 40 frames for a page of < 1.5 MB."""
    import matplotlib.pyplot as plt
    from IPython.display import HTML
    from matplotlib.animation import FuncAnimation

    frames = list(frames)
    figure.set_dpi(ANIMATION_DPI)
    moving = FuncAnimation(figure, draw, frames=frames, interval=interval, repeat=False)
    # to_jshtml saves frames at savefig.dpi (the book style's 100): use the figure's
    with mpl.rc_context({"animation.embed_limit": 8.0, "savefig.dpi": "figure"}):
        page = moving.to_jshtml(fps=1000 / interval, default_mode="once")
    plt.close(figure)
    page = re.sub(r'<link rel="stylesheet"\s+href="https?://[^"]*font-awesome[^"]*">', "", page)
    for icon, text in PLAYER_ICONS.items():
        page = page.replace(f'<i class="{icon}"></i>', text)
    first = re.search(r'frames\[0\] = "(data:image/png;base64,[^"]*)"', page)
    if first:           # shown as a still where scripts do not run (an untrusted notebook)
        still = first.group(1).replace("\\\n", "")
        page = re.sub(r'<img id="(_anim_img\w+)">', lambda m: f'<img id="{m.group(1)}" '
                      f'src="{still}" alt="the first frame of the animation">', page, count=1)
    if re.search(r'(?:src|href)="https?://', page):
        raise RuntimeError("the animation's HTML would load something from the network")
    return HTML(page)
