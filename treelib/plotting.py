"""Plotting conventions shared by the book's chapters (matplotlib only)."""

import matplotlib as mpl

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
    """Apply ``BOOK_STYLE`` to matplotlib's defaults."""
    mpl.rcParams.update(BOOK_STYLE)
