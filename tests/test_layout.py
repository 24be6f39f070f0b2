"""treelib's layout stays readable: what import-linter and ruff do not check.

import-linter (``make lint``) checks the layers; this checks that no module imports
another's private names (a leading underscore: an implementation detail of its own
module), that modules stay short enough to read in one sitting, and that nothing
observes the library by patching it.
"""

import ast
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MODULES = sorted((ROOT / "treelib").rglob("*.py"))
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
MAX_LINES = 400


def private_imports(path):
    """``(line, name)`` of every private name a module imports from another module."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            found += [(node.lineno, f"{node.module}.{alias.name}") for alias in node.names
                      if alias.name.startswith("_") and not alias.name.startswith("__")]
        elif isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names
                      if any(part.startswith("_") and not part.startswith("__")
                             for part in alias.name.split("."))]
    return found


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_private_name_is_imported_across_modules(path):
    assert private_imports(path) == []


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_modules_stay_readable(path):
    assert len(path.read_text().splitlines()) <= MAX_LINES


def test_the_check_finds_a_private_import(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text("from treelib.finders.exact import _Node\nimport numpy._core\n")
    assert private_imports(sample) == [(1, "treelib.finders.exact._Node"),
                                       (2, "numpy._core")]


@pytest.mark.parametrize("path", MODULES + NOTEBOOKS, ids=lambda p: str(p.relative_to(ROOT)))
def test_nothing_patches_the_library_to_observe_it(path):
    text = path.read_text()
    if path.suffix == ".ipynb":
        text = "\n".join("".join(cell["source"]) for cell in json.loads(text)["cells"])
    assert "unittest.mock" not in text and "mock.patch" not in text
