"""Two clocks for one call: wall-clock seconds, and the CPU seconds of this process.

On a machine shared with other work, a single-threaded call waits while other processes
run: its wall-clock time grows with the machine's load, its CPU time much less.  The
benchmarks of the chapters on counts and medians, missing values and categorical
features record both (``seconds`` and ``cpu_seconds``) and their chapters read the CPU
seconds.
"""

import gc
import time


def timed(function, *args, **kwargs):
    """``(result, wall seconds, CPU seconds)`` of one call, garbage collection paused
    (as ``timeit`` does)."""
    gc.collect()
    gc.disable()
    try:
        wall, cpu = time.perf_counter(), time.process_time()
        result = function(*args, **kwargs)
        return result, time.perf_counter() - wall, time.process_time() - cpu
    finally:
        gc.enable()
