"""Benchmarks behind the book's timing tables.

Command line::

    python -m treelib.bench timing --full   # the seed article's grid, about 15 minutes
    python -m treelib.bench timing          # a small grid, about a minute

    python -m treelib.bench growth --full   # growth orders against scikit-learn
    python -m treelib.bench growth          # california_housing only, a minute or two

``timing --full`` writes ``benchmarks/timing_full.csv`` and ``growth --full`` writes
``benchmarks/growth.csv`` (override with ``--output``): one row per fitted tree,
preceded by ``# key: value`` lines that record the machine it ran on.  Every fit runs
with BLAS/OpenMP pinned to one thread.
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


# --- growth orders against scikit-learn ---------------------------------------------

#: Data sets of the growth benchmark: rows (None: all of california_housing, else a
#: seeded resample of it with small noise) and the depth limit of every tree.
GROWTH_CASES = {
    "california_full_depth": {"n_samples": None, "max_depth": None},
    "million_rows_depth_10": {"n_samples": 1_000_000, "max_depth": 10},
}
GROWTH_METHODS = ("recursive", "depth", "best", "level", "sklearn")


def growth_data(case, seed=0):
    """X, y of a growth case.  The large case resamples california_housing with
    replacement and adds Gaussian noise of 0.001 standard deviations to every feature,
    so that nearly all values are distinct, as in a genuinely large data set."""
    from treelib.datasets import load_california_housing

    X, y = load_california_housing(return_X_y=True)
    n_samples = GROWTH_CASES[case]["n_samples"]
    if n_samples is None:
        return X, y
    rng = np.random.default_rng(seed)
    rows = rng.integers(0, len(y), n_samples)
    noise = rng.normal(scale=1e-3, size=(n_samples, X.shape[1])) * X.std(axis=0)
    return X[rows] + noise, y[rows]


def make_growth_model(method, max_depth):
    """scikit-learn's regressor, or treelib's with the named builder (cumsum splitter)."""
    if method == "sklearn":
        from sklearn.tree import DecisionTreeRegressor

        return DecisionTreeRegressor(max_depth=max_depth, random_state=0)
    from treelib.estimators import DecisionTreeRegressor

    return DecisionTreeRegressor(builder=method, max_depth=max_depth)


def _memory_kib(field):
    """A field of /proc/self/status (VmRSS, VmHWM) in KiB; None where unavailable."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def _reset_peak_memory():
    """Reset the kernel's peak-RSS counter of this process (Linux >= 4.0)."""
    try:
        with open("/proc/self/clear_refs", "w") as clear:
            clear.write("5")
        return True
    except OSError:
        return False


def _growth_child(method, case, repeats, seed, results):
    """Run in a fresh process: fit ``repeats`` trees, report seconds and peak memory."""
    from threadpoolctl import threadpool_limits

    X, y = growth_data(case, seed)
    max_depth = GROWTH_CASES[case]["max_depth"]
    with threadpool_limits(limits=1):
        make_growth_model(method, max_depth).fit(X[:500], y[:500])   # warm up
        rows = []
        for repeat in range(repeats):
            gc.collect()
            before = _memory_kib("VmRSS")
            measured = _reset_peak_memory() and before is not None
            model = make_growth_model(method, max_depth)
            seconds = time_fit(model, X, y)
            peak = (_memory_kib("VmHWM") - before) / 1024 if measured else float("nan")
            rows.append((case, method, repeat, seconds, peak, int(model.get_n_leaves()),
                         int(model.get_depth())))
            del model
    results.put(rows)


def time_growth(cases, methods=GROWTH_METHODS, repeats=1, seed=0, progress=None):
    """Fit one regression tree per growth method on each case, each method in a fresh
    process, so that its peak memory (the rise of the resident set above what the
    process held before the fit, scikit-learn's C allocations included) is its own.

    Returns a DataFrame: case, method, repeat, seconds, peak_mib, n_leaves, depth.
    """
    import multiprocessing

    import pandas as pd

    context = multiprocessing.get_context("spawn")
    records, start = [], time.perf_counter()
    for case in cases:
        for method in methods:
            results = context.Queue()
            child = context.Process(target=_growth_child,
                                    args=(method, case, repeats, seed, results))
            child.start()
            try:
                rows = results.get(timeout=3600)   # a child that dies must not hang us
            finally:
                child.join()
            if child.exitcode != 0:
                raise RuntimeError(f"{method} on {case} failed (exit code "
                                   f"{child.exitcode})")
            records += rows
            if progress is not None:
                mean = np.mean([r[3] for r in rows])
                print(f"{case:>24} {method:>9}: {mean:8.3f} s per tree, peak "
                      f"{rows[-1][4]:7.1f} MiB   elapsed "
                      f"{_clock(time.perf_counter() - start)}", file=progress, flush=True)
    return pd.DataFrame(records, columns=["case", "method", "repeat", "seconds",
                                          "peak_mib", "n_leaves", "depth"])


def growth_summary(fits):
    """Mean seconds, peak memory and the ratio to scikit-learn per case and method."""
    table = fits.groupby(["case", "method"], sort=False).agg(
        seconds=("seconds", "mean"), peak_mib=("peak_mib", "max"),
        n_leaves=("n_leaves", "first"), depth=("depth", "first"))
    sklearn_seconds = table.xs("sklearn", level="method")["seconds"]
    table["vs_sklearn"] = table["seconds"] / sklearn_seconds.reindex(
        table.index.get_level_values("case")).to_numpy()
    return table


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
    growth = commands.add_parser("growth", help="growth orders against scikit-learn")
    growth.add_argument("--full", action="store_true",
                        help="also the 1,000,000-row case, and 3 repeats on california")
    growth.add_argument("--methods", nargs="+", default=list(GROWTH_METHODS),
                        choices=GROWTH_METHODS)
    growth.add_argument("--seed", type=int, default=0)
    growth.add_argument("--output", type=Path,
                        help="CSV to write (default with --full: benchmarks/growth.csv)")
    args = parser.parse_args(argv)
    if args.command == "growth":
        return _main_growth(args)

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


def _main_growth(args):
    output = args.output or (RESULTS_DIR / "growth.csv" if args.full else None)
    info = machine_info()
    info.update(benchmark="growth", grid="full" if args.full else "quick", seed=args.seed,
                splitter="cumsum (every treelib builder)")
    print("\n".join(f"{k}: {v}" for k, v in info.items()), file=sys.stderr)
    fits = []
    if args.full:
        fits.append(time_growth(["california_full_depth"], args.methods, repeats=3,
                                seed=args.seed, progress=sys.stderr))
        fits.append(time_growth(["million_rows_depth_10"], args.methods, repeats=1,
                                seed=args.seed, progress=sys.stderr))
    else:
        fits.append(time_growth(["california_full_depth"], args.methods, repeats=1,
                                seed=args.seed, progress=sys.stderr))
    import pandas as pd

    fits = pd.concat(fits, ignore_index=True)
    print(growth_summary(fits).round(3).to_string())
    if output is not None:
        write_results(fits, output, info)
        print(f"wrote {output}", file=sys.stderr)


if __name__ == "__main__":
    main()
