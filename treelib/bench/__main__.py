"""``python -m treelib.bench <command>``: run a benchmark of ``treelib.bench.BENCHMARKS``
and write its CSV with the machine it ran on."""

import argparse
import sys
import time
from pathlib import Path

from treelib.bench import BENCHMARKS
from treelib.bench.fitting import clock
from treelib.bench.machine import machine_info
from treelib.bench.results import RESULTS_DIR, write_results


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m treelib.bench",
                                     description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    for name, benchmark in BENCHMARKS.items():
        command = commands.add_parser(name, help=benchmark.help)
        if benchmark.full_output is not None:
            command.add_argument("--full", action="store_true",
                                 help=f"the full grid, written to benchmarks/"
                                      f"{benchmark.full_output}.csv")
        command.add_argument("--repeats", type=int, default=None,
                             help="fits per setting (default: the benchmark's own)")
        command.add_argument("--seed", type=int, default=0)
        command.add_argument("--output", type=Path, help="CSV to write")
        if hasattr(benchmark.module, "print_goal_ratios"):
            command.add_argument("--ratios", type=Path, metavar="CSV",
                                 help="print the goal ratios of a CSV this benchmark "
                                      "wrote, with its machine, and run nothing")
    args = parser.parse_args(argv)
    benchmark = BENCHMARKS[args.command]
    if getattr(args, "ratios", None) is not None:
        benchmark.module.print_goal_ratios(args.ratios)
        return 0
    full = getattr(args, "full", False)
    name = benchmark.output_file(full)
    output = args.output or (None if name is None else RESULTS_DIR / f"{name}.csv")
    info = machine_info()
    info.update(benchmark=args.command, seed=args.seed)
    print("\n".join(f"{k}: {v}" for k, v in info.items()), file=sys.stderr)
    start = time.perf_counter()
    options = {} if args.repeats is None else {"repeats": args.repeats}
    fits, extra = benchmark.module.run(full=full, seed=args.seed, progress=sys.stderr,
                                       **options)
    info.update(extra)
    info["repeats"] = args.repeats if args.repeats is not None else (
        int(fits["repeat"].max()) + 1 if "repeat" in fits else 1)
    info["duration"] = clock(time.perf_counter() - start)
    print(fits.describe().round(4).to_string())
    if output is not None:
        write_results(fits, output, info)
        print(f"wrote {output} ({info['duration']})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
