"""Benchmarks behind the book's timing tables.

Command line::

    python -m treelib.bench timing --full   # the seed article's grid, about 15 minutes
    python -m treelib.bench timing          # a small grid, about a minute

``--full`` writes ``benchmarks/timing_full.csv`` (override with ``--output``): one row
per fitted tree, preceded by ``# key: value`` lines that record the machine it ran
on.  Every fit runs with BLAS/OpenMP pinned to one thread.
"""

import argparse
import datetime
import gc
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np

#: Where committed benchmark results live (the repository's ``benchmarks`` folder).
RESULTS_DIR = Path(__file__).resolve().parent.parent / "benchmarks"

#: The seed article's grid: (n_samples, repeats).  Step 50 from 500 to 2,050 with 5
#: repeats, step 100 from 2,200 to 7,900 with 3, step 1,000 from 8,000 to 20,000 with 1.
SEED_GRID = ([(n, 5) for n in range(500, 2100, 50)]
             + [(n, 3) for n in range(2200, 8000, 100)]
             + [(n, 1) for n in range(8000, 20001, 1000)])

#: A grid small enough to run while the book builds.
QUICK_GRID = [(500, 3), (1000, 3), (2000, 2), (4000, 1)]

#: Every method grows trees with the same depth limit.
TIMING_MAX_DEPTH = 6
TIMING_METHODS = ("naive", "scan", "cumsum", "sklearn")


def cpu_model():
    """The CPU's model name, from /proc/cpuinfo where it exists."""
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def code_version():
    """The git commit of the treelib being timed ('+ changes' if the tree is dirty)."""
    import subprocess

    root = Path(__file__).resolve().parent.parent
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=root,
                                capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no",
                                "treelib"], cwd=root,
                               capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown (not a git checkout)"
    return commit + (" + uncommitted changes to treelib" if dirty else "")


def machine_info():
    """What a timing depends on: CPU, cores, load, Python and library versions, the
    code's commit, date."""
    import sklearn

    load = os.getloadavg() if hasattr(os, "getloadavg") else None
    return {
        "cpu": cpu_model(),
        "logical_cpus": os.cpu_count(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "scikit-learn": sklearn.__version__,
        "threads": "1 (BLAS/OpenMP pinned with threadpoolctl)",
        "load average (1 min) at start": "unknown" if load is None else f"{load[0]:.2f}",
        "treelib commit": code_version(),
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
    }


def make_model(method, max_depth):
    """A regression tree with the given split method ('sklearn' for scikit-learn's)."""
    if method == "sklearn":
        from sklearn.tree import DecisionTreeRegressor

        return DecisionTreeRegressor(max_depth=max_depth, random_state=0)
    from treelib.estimators import DecisionTreeRegressor

    return DecisionTreeRegressor(splitter=method, max_depth=max_depth)


def time_fit(model, X, y):
    """Seconds to fit ``model`` once, garbage collection paused (as ``timeit`` does)."""
    gc.collect()
    gc.disable()
    try:
        start = time.perf_counter()
        model.fit(X, y)
        return time.perf_counter() - start
    finally:
        gc.enable()


def _clock(seconds):
    return str(datetime.timedelta(seconds=round(seconds)))


def time_tree_fits(grid, methods=TIMING_METHODS, max_depth=TIMING_MAX_DEPTH, seed=0,
                   progress=None):
    """Fit one tree per method on random subsamples of california_housing.

    For every ``(n, repeats)`` of ``grid`` and every repeat, draw ``n`` rows without
    replacement (seeded by ``seed``, ``n`` and the repeat, so any part of a grid can be
    rerun alone) and time each method on the same rows.

    Returns a DataFrame with one row per fit: n_samples, repeat, method, seconds.
    ``progress``, if given, is a stream that receives one line per grid point.
    """
    import pandas as pd
    from threadpoolctl import threadpool_limits

    from treelib.datasets import load_california_housing

    X, y = load_california_housing(return_X_y=True)
    work = np.array([n * repeats for n, repeats in grid], dtype=float)
    records, start = [], time.perf_counter()
    with threadpool_limits(limits=1):
        for method in methods:  # warm up: the first fit pays for imports and caches
            make_model(method, max_depth).fit(X[:200], y[:200])
        for k, (n, repeats) in enumerate(grid):
            for repeat in range(repeats):
                rows = np.random.default_rng([seed, n, repeat]).choice(len(y), n, replace=False)
                for method in methods:
                    seconds = time_fit(make_model(method, max_depth), X[rows], y[rows])
                    records.append((n, repeat, method, seconds))
            if progress is not None:
                elapsed = time.perf_counter() - start
                left = elapsed * work[k + 1:].sum() / work[: k + 1].sum()
                print(f"[{k + 1:3d}/{len(grid)}] n = {n:6d} x {repeats}   "
                      f"elapsed {_clock(elapsed)}   about {_clock(left)} left",
                      file=progress, flush=True)
    return pd.DataFrame(records, columns=["n_samples", "repeat", "method", "seconds"])


def mean_seconds(fits):
    """Mean seconds per n_samples (rows) and method (columns), as the seed reports."""
    table = fits.pivot_table(index="n_samples", columns="method", values="seconds",
                             aggfunc="mean")
    ordered = [m for m in TIMING_METHODS if m in table.columns]
    return table[ordered + [m for m in table.columns if m not in ordered]]


def fit_exponent(n_samples, seconds):
    """Slope b of the least-squares line log(seconds) = a + b log(n): time ~ n^b."""
    slope, _ = np.polyfit(np.log(n_samples), np.log(seconds), 1)
    return float(slope)


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


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m treelib.bench", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    timing = commands.add_parser("timing", help="time whole trees on california_housing")
    timing.add_argument("--full", action="store_true",
                        help="the seed article's grid, n = 500 ... 20,000 (slow)")
    timing.add_argument("--methods", nargs="+", default=list(TIMING_METHODS),
                        choices=TIMING_METHODS)
    timing.add_argument("--max-depth", type=int, default=TIMING_MAX_DEPTH)
    timing.add_argument("--seed", type=int, default=0)
    timing.add_argument("--output", type=Path,
                        help="CSV to write (default with --full: benchmarks/timing_full.csv)")
    args = parser.parse_args(argv)

    grid = SEED_GRID if args.full else QUICK_GRID
    output = args.output or (RESULTS_DIR / "timing_full.csv" if args.full else None)
    info = machine_info()
    info.update(grid="seed" if args.full else "quick", max_depth=args.max_depth,
                seed=args.seed)
    print("\n".join(f"{k}: {v}" for k, v in info.items()), file=sys.stderr)
    fits = time_tree_fits(grid, args.methods, args.max_depth, args.seed, progress=sys.stderr)
    print(mean_seconds(fits).round(4).to_string())
    if output is not None:
        write_results(fits, output, info)
        print(f"wrote {output}", file=sys.stderr)


if __name__ == "__main__":
    main()
