"""Benchmarks behind the book's tables: one module per benchmark, one command registry.

Command line (``python -m treelib.bench --help``)::

    python -m treelib.bench timing --full   # the seed article's grid, about 20 minutes
    python -m treelib.bench timing          # a small grid, about a minute
    python -m treelib.bench growth --full   # growth orders against scikit-learn
    python -m treelib.bench growth --ratios benchmarks/growth.csv   # issue 15's goals
    python -m treelib.bench bins            # histogram trees against max_bins
    python -m treelib.bench subtraction     # the histogram subtraction trick
    python -m treelib.bench auc             # seed article 001's AUC table
    python -m treelib.bench methods         # every split method, side by side
    python -m treelib.bench rdt_cost        # random decision trees against O(depth x n)
    python -m treelib.bench criteria        # absolute error against n, Poisson on bikeshare
    python -m treelib.bench missing         # missing values: three answers, masked california
    python -m treelib.bench categorical     # categorical splits against the number of categories
    python -m treelib.bench selection_bias  # null features: how often each is picked (a minute)
    python -m treelib.bench optimal_depth2  # greedy against optimal depth-2 trees
    python -m treelib.bench pruning_cv      # pruning against stopping rules, chosen by CV
    python -m treelib.bench monotonic       # monotonic_cst: held-out error with and without
    python -m treelib.bench boosting        # gradient boosting against its peers
    python -m treelib.bench forests         # ensembles against ensembles, forest fit time
    python -m treelib.bench distributed     # histograms on a LocalCluster: bytes and time
    python -m treelib.bench parallel        # threads, scikit-learn's parallelism, a LocalCluster
    python -m treelib.bench speed           # issue 24: forests per node, level-wise, n_jobs
    python -m treelib.bench per_node        # issue 24: the per-node growers' time per node
    python -m treelib.bench shapes          # issue 24: many classes, wide data (fresh processes)
    python -m treelib.bench speed --ratios benchmarks/speed.csv   # issue 24's whole goal table

Each writes ``benchmarks/<file>.csv`` (``--output`` to change): one row per fit, after
``# key: value`` lines that record the machine it ran on.  Every fit runs with
BLAS/OpenMP pinned to one thread.  This package is the book's tooling, not part of the
algorithms: it imports pandas, scikit-learn and threadpoolctl.
"""

from dataclasses import dataclass
from types import ModuleType

from treelib.bench import (
    auc,
    bins,
    boosting,
    categorical,
    criteria,
    distributed,
    forests,
    growth,
    methods,
    missing,
    monotonic,
    optimal_depth2,
    parallel,
    per_node,
    pruning_cv,
    rdt_cost,
    selection_bias,
    shapes,
    speed,
    subtraction,
    timing,
)
from treelib.bench.auc import make_auc_model
from treelib.bench.categorical import (
    CATEGORICAL_STRATEGIES,
    brute_force_partition,
    categorical_table,
    time_categorical,
)
from treelib.bench.criteria import bikeshare_split, poisson_deviance, time_medians
from treelib.bench.fitting import california_split, r2, resampled_california, time_fit
from treelib.bench.forests import tree_predictions
from treelib.bench.goals import goal_table
from treelib.bench.growth import MANY_CLASSES, goal_ratios, growth_data, make_growth_model
from treelib.bench.machine import machine_info
from treelib.bench.methods import SPLIT_METHOD_TABLE, compare_methods
from treelib.bench.missing import (
    MISSING_STRATEGIES,
    make_missing_model,
    masked_california,
    missing_table,
    time_missing,
)
from treelib.bench.missing_trees import present_split, surrogates_of
from treelib.bench.results import (
    RESULTS_DIR,
    fit_exponent,
    load_results,
    read_results,
    write_results,
)
from treelib.bench.selection_bias import selection_table, time_ratio


@dataclass(frozen=True)
class Benchmark:
    """A command of ``python -m treelib.bench``: its module's ``run(full, repeats, seed,
    progress) -> (fits, info)``, what it measures, and the file it writes (with
    ``--full`` for the two that have a quick and a full grid; None: print only)."""

    module: ModuleType
    help: str
    output: str | None
    full_output: str | None = None

    def output_file(self, full):
        return self.full_output if full else self.output


#: Every benchmark, by command name.
BENCHMARKS = {
    "timing": Benchmark(timing, "time whole trees on california_housing (the seed's "
                        "grid with --full, about 20 minutes)", None, "timing_full"),
    "growth": Benchmark(growth, "growth orders against scikit-learn, time and memory "
                        "(with --full also a million rows)", None, "growth"),
    "bins": Benchmark(bins, "histogram trees against max_bins on california (a minute)",
                      "bins"),
    "subtraction": Benchmark(subtraction, "the histogram subtraction trick on california "
                             "and a million rows (a minute)", "subtraction"),
    "auc": Benchmark(auc, "seed article 001's AUC table on the four LIBSVM data sets "
                     "(minutes)", "auc"),
    "methods": Benchmark(methods, "every split method on california and a1a (the "
                         "O(n^2) baseline dominates: 10-20 minutes)", "methods"),
    "rdt_cost": Benchmark(rdt_cost, "training cost of random decision trees against n, "
                          "depth and features", "rdt_cost"),
    "criteria": Benchmark(criteria, "absolute error: running median against the O(n^2) "
                          "rescan and scikit-learn; Poisson against squared error on "
                          "bikeshare (a few minutes)", "criteria"),
    "missing": Benchmark(missing, "missing values: default direction, own branch and "
                         "surrogate splits on masked california (about 5 minutes)",
                         "missing"),
    "categorical": Benchmark(categorical, "categorical splits of bikeshare against the "
                             "number of categories (a minute)", "categorical"),
    "forests": Benchmark(forests, "random decision trees, random forests and extra trees of "
                         "30 trees each on california and a9a, and the random forest's fit "
                         "time against scikit-learn's (about 20 minutes)", "forests"),
}
BENCHMARKS["optimal_depth2"] = Benchmark(optimal_depth2, "greedy against optimal depth-2 "
                                         "trees: SSE and time (about a minute)",
                                         "optimal_depth2")
BENCHMARKS["pruning_cv"] = Benchmark(pruning_cv, "held-out error of unpruned, stopped "
                                     "(max_depth, "
                                     "min_samples_leaf) and pruned trees, each chosen by "
                                     "5-fold CV, on california and digits (about 5 "
                                     "minutes)", "pruning_cv")
BENCHMARKS["monotonic"] = Benchmark(monotonic, "held-out error of trees and boosting with "
                                    "and without monotonic_cst on california and "
                                    "bikeshare (about 3 minutes)", "monotonic")
BENCHMARKS["selection_bias"] = Benchmark(selection_bias, "split-selection bias: null "
                                        "features picked at the root, many seeds, and "
                                        "the unbiased rule's cost (a minute)",
                                        "selection_bias")
BENCHMARKS["parallel"] = Benchmark(parallel, "n_jobs 1 and 2 in the level-wise growers, "
                                   "scikit-learn's parallelism, a LocalCluster's latency and "
                                   "bandwidth (about 10 minutes)", "parallel")
BENCHMARKS["boosting"] = Benchmark(boosting, "gradient boosting against scikit-learn, "
                                   "LightGBM and XGBoost; line search; GOSS (minutes)",
                                   "boosting")
BENCHMARKS["speed"] = Benchmark(speed, "issue 24: forests (random forests, extra trees) "
                                "with max_features per node and level-wise, and across "
                                "processes, against scikit-learn (about a minute)", "speed")
BENCHMARKS["per_node"] = Benchmark(per_node, "issue 24: time per node of the per-node "
                                   "growers against scikit-learn's (about 2 minutes)",
                                   "per_node")
BENCHMARKS["shapes"] = Benchmark(shapes, "issue 24: many classes (500, 1,000) and wide data "
                                 "(200 x 40,000; 50 x 200,000): time and memory growth "
                                 "against scikit-learn, each fit in a fresh process "
                                 "(about 4 minutes)", "shapes")
BENCHMARKS["distributed"] = Benchmark(distributed, "fixed-point trees and boosting on a "
                                      "LocalCluster of 2 workers: bytes per round, time "
                                      "against the local exact and float fits (quick; "
                                      "--full: all of california)", "distributed_quick",
                                      "distributed")

__all__ = ["BENCHMARKS", "Benchmark", "RESULTS_DIR", "california_split", "fit_exponent",
           "load_results", "machine_info", "r2", "read_results", "resampled_california",
           "time_fit", "write_results"]
# what the chapters use: three benchmarks as modules, and helpers of the others
__all__ += ["boosting", "parallel", "timing"]
__all__ += ["CATEGORICAL_STRATEGIES", "MANY_CLASSES", "MISSING_STRATEGIES", "SPLIT_METHOD_TABLE",
            "bikeshare_split", "brute_force_partition", "categorical_table", "compare_methods",
            "goal_ratios", "growth_data", "make_auc_model", "make_growth_model",
            "make_missing_model", "masked_california", "missing_table", "poisson_deviance",
            "present_split", "surrogates_of", "time_categorical", "time_medians",
            "time_missing", "tree_predictions"]
__all__ += ["selection_table", "time_ratio"]
__all__ += ["goal_table"]
