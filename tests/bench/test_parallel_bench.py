"""The parallel benchmark (``treelib.bench.parallel``), run small, and the committed
results file: every part and case is there, and the Amdahl table reads it."""

import numpy as np
import pandas as pd

from treelib import bench
from treelib.bench import parallel


def test_threads_are_timed_side_by_side():
    records = parallel.time_threads(cases=("california",), splitters=("hist",),
                                    whats=("growth",), repeats=1)
    assert [r[4] for r in records] == [1, 2]
    assert all(r[6] > 0 and r[7] > 0 for r in records)


def test_amdahl_table_from_two_points():
    fits = pd.DataFrame({"part": "threads", "case": "c", "method": "m", "what": "w",
                         "workers": [1, 2, 1, 2], "repeat": [0, 0, 1, 1],
                         "wall_seconds": [10.0, 6.0, 11.0, 7.0]})
    row = parallel.amdahl_table(fits).iloc[0]
    assert row.speedup_2 == 10 / 6 and np.isclose(row.serial_fraction, 0.2)
    assert np.isclose(row.speedup_4, 1 / (0.2 + 0.8 / 4))


def test_the_committed_file_holds_every_part():
    fits, info = bench.load_results("parallel")
    assert "uncommitted" not in info["treelib commit"]
    threads = fits[fits.part == "threads"]
    assert set(threads.case) == set(parallel.THREAD_CASES)
    assert set(threads.method) == set(parallel.SPLITTERS)
    assert set(threads.workers) == {1, 2}
    assert set(fits[fits.part == "sklearn"].method) == {"random_forest",
                                                        "hist_gradient_boosting"}
    network = fits[fits.part == "network"]
    assert len(network) == len(parallel.NETWORK_SIZES)
    assert float(info["network beta (bytes/s)"]) > 0
