"""Print the environment that makes this machine compute like a different CPU.

    env $(python tools/other_cpu.py) python -m pytest ...

A reader's CPU changes the last bits of what numpy and BLAS compute: numpy picks its
SIMD loops (SSE, AVX2, AVX-512) at run time, and OpenBLAS picks its kernels by CPU
model.  Results the book commits must not depend on those bits, and `make test` proves it
by checking the committed notebooks and numbers under another machine's code paths:

- ``NPY_DISABLE_CPU_FEATURES``: every SIMD extension numpy dispatches to at run time
  (AVX2/FMA3, AVX-512, ... whatever this numpy build has), so that numpy runs its
  baseline loops only;
- ``OPENBLAS_CORETYPE``: an OpenBLAS kernel other than the one this CPU selects
  (Nehalem, an SSE4 kernel that every x86-64 CPU of the last 15 years can run; on a CPU
  that already uses it, Prescott).

Nothing is printed for OpenBLAS on a CPU that is not x86-64 (its kernel names differ).
"""

import platform
import sys


def numpy_dispatched_features():
    """The SIMD extensions this numpy build may dispatch to beyond its baseline."""
    from numpy._core._multiarray_umath import __cpu_dispatch__

    return sorted(__cpu_dispatch__)


def openblas_kernel():
    """The OpenBLAS kernel numpy's BLAS runs with here (None if it cannot tell)."""
    from threadpoolctl import threadpool_info

    for library in threadpool_info():
        if library.get("internal_api") == "openblas":
            return library.get("architecture")
    return None


def other_cpu_environment():
    """``{variable: value}`` for the emulated CPU."""
    environment = {}
    features = numpy_dispatched_features()
    if features:
        environment["NPY_DISABLE_CPU_FEATURES"] = " ".join(features)
    if platform.machine().lower() in ("x86_64", "amd64"):
        native = (openblas_kernel() or "").lower()
        environment["OPENBLAS_CORETYPE"] = "Prescott" if native == "nehalem" else "Nehalem"
    return environment


def main():
    # One shell word per variable: `env $(python tools/other_cpu.py) command`.
    words = [f"{key}={value.replace(' ', ',')}" for key, value in
             other_cpu_environment().items()]
    print(" ".join(words))
    return 0


if __name__ == "__main__":
    sys.exit(main())
