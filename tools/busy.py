"""Run a command while other work keeps every core busy, as on a reader's laptop.

    python tools/busy.py [--workers N] -- COMMAND [ARG ...]

Starts ``N`` processes (default: one per core) that spin in a loop at normal priority,
runs ``COMMAND``, stops the spinners and exits with the command's exit code.  `make test`
builds the chapters that start processes, threads or a cluster this way: races that a
quiet machine never shows (a Dask worker's heartbeat arriving after its scheduler has
closed, once) show up when the scheduler is slow to get a core.
"""

import argparse
import multiprocessing
import os
import subprocess
import sys


def spin():
    """Keep one core busy until terminated."""
    x = 0
    while True:
        x = (x * 1103515245 + 12345) % 2**31


def run_busy(command, workers):
    """Run ``command`` (a list) with ``workers`` spinning processes; its exit code."""
    spinners = [multiprocessing.Process(target=spin, daemon=True) for _ in range(workers)]
    for spinner in spinners:
        spinner.start()
    try:
        return subprocess.call(command)
    finally:
        for spinner in spinners:
            spinner.terminate()
        for spinner in spinners:
            spinner.join()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 2,
                        help="busy processes (default: one per core)")
    parser.add_argument("command", nargs=argparse.REMAINDER,
                        help="the command to run, after --")
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("give the command to run after --")
    if args.workers < 1:
        parser.error("--workers must be at least 1")
    return run_busy(command, args.workers)


if __name__ == "__main__":
    sys.exit(main())
