"""What a timing depends on: the machine, the libraries, the code's commit."""

import datetime
import os
import platform
import subprocess
from pathlib import Path

import numpy as np

#: The repository that holds treelib (its ``benchmarks`` folder holds the results).
REPOSITORY = Path(__file__).resolve().parent.parent.parent


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
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPOSITORY,
                                capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no",
                                "treelib"], cwd=REPOSITORY,
                               capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown (not a git checkout)"
    return commit + (" + uncommitted changes to treelib" if dirty else "")


def machine_info():
    """CPU, cores, load, Python and library versions, the code's commit, the date."""
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
