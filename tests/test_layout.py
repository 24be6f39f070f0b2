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


#: Methods of namedtuples: public API despite their underscore.
NAMEDTUPLE_API = {"_replace", "_asdict", "_fields", "_make", "_field_defaults"}


def private_reaches(path):
    """``(line, expression)`` of every ``obj._name`` a module calls or reads where ``obj``
    is not ``self``, ``cls`` or ``super()`` and ``_name`` is defined nowhere in the module
    (so it is another module's private method or attribute)."""
    tree = ast.parse(path.read_text())
    defined = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            defined.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            defined.add(node.id)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            defined.add(node.attr)
    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Attribute) and node.attr.startswith("_")
                and not node.attr.startswith("__")):
            continue
        base = node.value
        if isinstance(base, ast.Name) and base.id in ("self", "cls"):
            continue
        if isinstance(base, ast.Call) and getattr(base.func, "id", None) == "super":
            continue
        if node.attr not in defined and node.attr not in NAMEDTUPLE_API:
            found.append((node.lineno, ast.unparse(node)))
    return found


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_module_reaches_into_another_modules_private_names(path):
    assert private_reaches(path) == []


def test_the_check_finds_a_private_reach(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text("class A:\n    def _mine(self):\n        return self._theirs()\n\n\n"
                      "def f(tree, a):\n    a._mine()\n    super()._close()\n"
                      "    return tree._stopping_rules(3), tree.n._replace(x=1)\n")
    assert private_reaches(sample) == [(9, "tree._stopping_rules")]
