"""Growth orders against scikit-learn: time and peak memory of whole trees, each
growth order fitted in a fresh process so that its peak memory is its own."""

import gc
import time

import numpy as np

from treelib.bench.fitting import clock, resampled_california, time_fit, tree_model

#: Data sets of the growth benchmark: rows (None: all of california_housing, else a
#: seeded resample of it with small noise) and the depth limit of every tree.
GROWTH_CASES = {
    "california_full_depth": {"n_samples": None, "max_depth": None},
    "million_rows_depth_10": {"n_samples": 1_000_000, "max_depth": 10},
}
GROWTH_METHODS = ("recursive", "depth_first", "best_first", "level_wise", "sklearn")


def growth_data(case, seed=0):
    """X, y of a growth case (``resampled_california``)."""
    return resampled_california(GROWTH_CASES[case]["n_samples"], seed)


def make_growth_model(method, max_depth):
    """scikit-learn's regressor, or treelib's with the named builder (cumsum splitter)."""
    if method == "sklearn":
        return tree_model("sklearn", max_depth=max_depth)
    return tree_model("treelib", builder=method, max_depth=max_depth)


def memory_kib(field):
    """A field of /proc/self/status (VmRSS, VmHWM) in KiB; None where unavailable."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def reset_peak_memory():
    """Reset the kernel's peak-RSS counter of this process (Linux >= 4.0)."""
    try:
        with open("/proc/self/clear_refs", "w") as clear:
            clear.write("5")
        return True
    except OSError:
        return False


def growth_child(method, case, repeats, seed, results):
    """Run in a fresh process: fit ``repeats`` trees, report seconds, the peak rise of
    the resident set during the fit, the peak resident set of the whole process (data
    and imports included), leaves and depth."""
    from threadpoolctl import threadpool_limits

    X, y = growth_data(case, seed)
    max_depth = GROWTH_CASES[case]["max_depth"]
    with threadpool_limits(limits=1):
        make_growth_model(method, max_depth).fit(X[:500], y[:500])   # warm up
        rows = []
        for repeat in range(repeats):
            gc.collect()
            before = memory_kib("VmRSS")
            measured = reset_peak_memory() and before is not None
            model = make_growth_model(method, max_depth)
            seconds = time_fit(model, X, y)
            peak = memory_kib("VmHWM") if measured else None
            rows.append((case, method, repeat, seconds,
                         float("nan") if peak is None else (peak - before) / 1024,
                         float("nan") if peak is None else peak / 1024,
                         int(model.get_n_leaves()), int(model.get_depth())))
            del model
    results.put(rows)


def time_growth(cases, methods=GROWTH_METHODS, repeats=1, seed=0, progress=None):
    """Fit one regression tree per growth method on each case, each method in a fresh
    process.  Returns a DataFrame: case, method, repeat, seconds, peak_mib (the rise of
    the resident set above what the process held before the fit, scikit-learn's C
    allocations included), process_peak_mib (the whole process's peak: data and imports
    included), n_leaves, depth."""
    import multiprocessing

    import pandas as pd

    context = multiprocessing.get_context("spawn")
    records, start = [], time.perf_counter()
    for case in cases:
        for method in methods:
            results = context.Queue()
            child = context.Process(target=growth_child,
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
                print(f"{case:>24} {method:>11}: {mean:8.3f} s per tree, peak "
                      f"{rows[-1][4]:7.1f} MiB   elapsed "
                      f"{clock(time.perf_counter() - start)}", file=progress, flush=True)
    return pd.DataFrame(records, columns=["case", "method", "repeat", "seconds", "peak_mib",
                                          "process_peak_mib", "n_leaves", "depth"])


def growth_summary(fits):
    """Mean seconds, peak memory and the ratio to scikit-learn per case and method."""
    table = fits.groupby(["case", "method"], sort=False).agg(
        seconds=("seconds", "mean"), peak_mib=("peak_mib", "max"),
        n_leaves=("n_leaves", "first"), depth=("depth", "first"))
    sklearn_seconds = table.xs("sklearn", level="method")["seconds"]
    table["vs_sklearn"] = table["seconds"] / sklearn_seconds.reindex(
        table.index.get_level_values("case")).to_numpy()
    return table


def run(full=False, repeats=None, seed=0, progress=None, methods=GROWTH_METHODS):
    """California at full depth (3 repeats with ``full``), and with ``full`` also a
    million rows at depth 10 (1 repeat)."""
    import pandas as pd

    fits = [time_growth(["california_full_depth"], methods, repeats or (3 if full else 1),
                        seed, progress)]
    if full:
        fits.append(time_growth(["million_rows_depth_10"], methods, 1, seed, progress))
    return (pd.concat(fits, ignore_index=True),
            {"grid": "full" if full else "quick",
             "splitter": "cumsum (every treelib builder)"})
