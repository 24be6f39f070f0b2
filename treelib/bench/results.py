"""Benchmark results as CSV files that record the machine they ran on."""

from pathlib import Path

import numpy as np

from treelib.bench.machine import REPOSITORY

#: Where committed benchmark results live (the repository's ``benchmarks`` folder).
RESULTS_DIR = REPOSITORY / "benchmarks"


def write_results(fits, path, info):
    """Write ``fits`` as CSV, preceded by one ``# key: value`` line per ``info`` item."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as out:
        for key, value in info.items():
            out.write(f"# {key}: {value}\n")
        fits.to_csv(out, index=False, lineterminator="\n")


def read_results(path):
    """Read a file written by ``write_results``: returns ``(fits, info)``."""
    import pandas as pd

    info = {}
    with open(path) as lines:
        for line in lines:
            if not line.startswith("# "):
                break
            key, value = line[2:].rstrip("\n").split(": ", 1)
            info[key] = value
    return pd.read_csv(path, comment="#"), info


def load_results(name):
    """Read a committed benchmark, e.g. ``load_results("timing_full")``."""
    path = RESULTS_DIR / f"{name}.csv"
    if not path.exists():
        raise FileNotFoundError(
            f"{path} not found: benchmark results live in the repository's benchmarks/ "
            "folder (install treelib from a clone with `pip install -e .`, or regenerate "
            f"them with `python -m treelib.bench`)")
    return read_results(path)


def fit_exponent(n_samples, seconds):
    """Slope b of the least-squares line log(seconds) = a + b log(n): time ~ n^b."""
    slope, _ = np.polyfit(np.log(n_samples), np.log(seconds), 1)
    return float(slope)
