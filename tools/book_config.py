"""Write a variant of ``_config.yml`` for one of the Makefile's builds.

    python tools/book_config.py verified NOTEBOOK ... > _build/_config_verified.yml
    python tools/book_config.py teacher > _build/_config_teacher.yml

- ``verified`` (`make test`): the strict build executes only the notebooks named (from
  scratch, as `make book` does); every other page is rendered from the committed outputs
  that `make nbval` has just verified, so no notebook runs twice except those named.
- ``teacher`` (`make teacher-book`): nothing executed, the exercises' solutions removed.

Everything else (warnings as errors, ``nb_execution_raise_on_error``, stderr as a
warning) is the reader's configuration, unchanged.
"""

import argparse
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent


def verified_config(config, executed):
    """``config`` executing only the notebooks ``executed`` (file names)."""
    notebooks = sorted(path.name for path in (ROOT / "notebooks").glob("*.ipynb"))
    unknown = sorted(set(executed) - set(notebooks))
    if unknown:
        raise SystemExit(f"book_config: no such notebook: {', '.join(unknown)}")
    config["execute"]["execute_notebooks"] = "force"
    config["execute"]["exclude_patterns"] = [f"notebooks/{name}" for name in notebooks
                                             if name not in executed]
    return config


def teacher_config(config):
    """``config`` with nothing executed and the solutions removed (book/_ext/teacher_build.py:
    sphinx-exercise's own ``hide_solutions`` breaks on gated solutions)."""
    config["execute"]["execute_notebooks"] = "off"
    config["sphinx"]["local_extensions"] = {"teacher_build": str(ROOT / "book" / "_ext")}
    return config


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("variant", choices=["verified", "teacher"])
    parser.add_argument("notebooks", nargs="*", help="verified: the notebooks to execute")
    args = parser.parse_args(argv)
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    if args.variant == "verified":
        config = verified_config(config, args.notebooks)
    else:
        config = teacher_config(config)
    yaml.safe_dump(config, sys.stdout, sort_keys=False)


if __name__ == "__main__":
    main()
