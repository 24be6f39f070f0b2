"""The chapters import only treelib's public API, and that API is documented and stable.

The public modules are ``treelib.PUBLIC_MODULES``.  A public module's public names are its
``__all__``, or, for a module without one, the names it defines at its top level without a
leading underscore (not those it imports).  Internal submodules (``treelib.finders.exact``,
``treelib.growth.boosting_histograms``, ...) are reached through their package's
``__all__``, so that a refactor inside a package rewrites no chapter.

- every notebook imports only ``from <public module> import <public name or public
  module>`` or ``import <public module>``;
- every public name exists and is documented: a docstring for a function, class or module,
  a ``#:`` comment above (or a string below) the assignment of a constant;
- ``tests/data/public_api.txt`` lists every public name (``module.name``): a name that
  disappears fails (deprecate it rather than remove it), a new one must be added to the
  file (``python -m tests.test_public_api`` rewrites it).
"""

import ast
import dataclasses
import functools
import importlib
import inspect
import sys
from pathlib import Path

import nbformat
import pytest

import treelib

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
API_FILE = Path(__file__).resolve().parent / "data" / "public_api.txt"


def own_definitions(module):
    """The names ``module`` defines at its top level without a leading underscore (its
    functions, classes and assigned constants, not what it imports).  O(size of its
    source)."""
    names = []
    for node in ast.parse(Path(module.__file__).read_text()).body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.append(node.name)
        elif isinstance(node, ast.Assign):
            names += [t.id for t in node.targets if isinstance(t, ast.Name)]
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.append(node.target.id)
    return sorted({n for n in names if not n.startswith("_")})


@functools.cache
def public_names(module_name):
    """The public names of a public module, sorted: its ``__all__``, or its own definitions.
    Cached (a tuple): the checks ask ~340 times; O(module size) once per module."""
    module = importlib.import_module(module_name)
    if hasattr(module, "__all__"):
        return tuple(sorted(module.__all__))
    return tuple(own_definitions(module))


def is_public(module_name, name=None):
    """Whether ``from module_name import name`` (``import module_name`` if name is None)
    reaches the public API."""
    if module_name not in treelib.PUBLIC_MODULES:
        return False
    return (name is None or f"{module_name}.{name}" in treelib.PUBLIC_MODULES
            or name in public_names(module_name))


def code_imports(source):
    """``(module, name)`` of every treelib import in ``source`` (name None for ``import
    module``); IPython's ``%`` and ``!`` lines are skipped."""
    lines = ["" if line.lstrip().startswith(("%", "!")) else line
             for line in source.splitlines()]
    found = []
    for node in ast.walk(ast.parse("\n".join(lines))):
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "treelib":
            found += [(node.lineno, node.module, alias.name) for alias in node.names]
        elif isinstance(node, ast.Import):
            found += [(node.lineno, alias.name, None) for alias in node.names
                      if alias.name.split(".")[0] == "treelib"]
    return [(module, name) for _, module, name in sorted(found, key=lambda f: f[0])]


def non_public_imports(path):
    """``"<notebook> cell <i>: <import>"`` for every import of a name outside the public
    API in the code cells of the notebook ``path``."""
    notebook = nbformat.read(path, as_version=4)
    found = []
    for index, cell in enumerate(notebook.cells):
        if cell.cell_type != "code":
            continue
        for module, name in code_imports(cell.source):
            if not is_public(module, name):
                what = f"import {module}" if name is None else f"from {module} import {name}"
                found.append(f"{Path(path).name} cell {index}: {what}")
    return found


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_chapters_import_only_the_public_api(path):
    found = non_public_imports(path)
    assert found == [], ("import these through their package's __all__ (re-export them "
                         "there if needed):\n" + "\n".join(found))


def test_the_check_finds_an_internal_import(tmp_path):
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_markdown_cell("from treelib.finders.exact import x"),
                      nbformat.v4.new_code_cell("%matplotlib inline\nimport numpy as np\n"
                                                "from treelib.finders import Finder"),
                      nbformat.v4.new_code_cell("def f():\n"
                                                "    from treelib.finders.exact import SCORERS\n"
                                                "import treelib.growth.level_cuts\n"
                                                "from treelib import fixed_point, nothing")]
    nbformat.write(notebook, tmp_path / "sample.ipynb")
    assert non_public_imports(tmp_path / "sample.ipynb") == [
        "sample.ipynb cell 2: from treelib.finders.exact import SCORERS",
        "sample.ipynb cell 2: import treelib.growth.level_cuts",
        "sample.ipynb cell 2: from treelib import nothing"]


def assignment_is_documented(module, name, seen=()):
    """Whether the assignment of the constant ``name`` that ``module`` defines or imports
    has a ``#:`` comment on the line above it (or above the assignments right above it,
    or ending its line), or a string below it.
    Follows ``from x import name`` to the module that assigns it.  O(size of sources)."""
    path = Path(module.__file__)
    lines = path.read_text().splitlines()
    body = ast.parse("\n".join(lines)).body
    for i, node in enumerate(body):
        targets = (node.targets if isinstance(node, ast.Assign)
                   else [node.target] if isinstance(node, ast.AnnAssign) else [])
        if any(isinstance(t, ast.Name) and t.id == name for t in targets):
            first = i        # a '#:' comment documents the assignments right below it
            while first and isinstance(body[first - 1], (ast.Assign, ast.AnnAssign)) and (
                    body[first - 1].end_lineno == body[first].lineno - 1):
                first -= 1
            start = body[first].lineno
            above = lines[start - 2].strip() if start > 1 else ""
            after = body[i + 1] if i + 1 < len(body) else None
            string_below = (isinstance(after, ast.Expr) and isinstance(after.value, ast.Constant)
                            and isinstance(after.value.value, str))
            return above.startswith("#:") or "#:" in lines[node.lineno - 1] or string_below
    for node in body:
        if isinstance(node, ast.ImportFrom) and node.module and node.module not in seen:
            if any((alias.asname or alias.name) == name for alias in node.names):
                source = importlib.import_module(node.module)
                return assignment_is_documented(source, name, (*seen, node.module))
    return False


def class_docstring(cls):
    """The docstring written for ``cls`` (not the signature a dataclass generates)."""
    doc = cls.__dict__.get("__doc__") or ""
    generated = dataclasses.is_dataclass(cls) and doc.startswith(f"{cls.__name__}(")
    return "" if generated else doc.strip()


def undocumented(module_name):
    """The public names of ``module_name`` missing from it or without documentation."""
    module = importlib.import_module(module_name)
    found = [] if module.__doc__ else [f"{module_name} (module docstring)"]
    for name in public_names(module_name):
        if not hasattr(module, name):
            found.append(f"{module_name}.{name} (missing)")
            continue
        value = getattr(module, name)
        if inspect.isclass(value):
            documented = bool(class_docstring(value))
        elif inspect.ismodule(value) or callable(value) and hasattr(value, "__code__"):
            documented = bool(value.__doc__ and value.__doc__.strip())
        else:
            documented = assignment_is_documented(module, name)
        if not documented:
            found.append(f"{module_name}.{name}")
    return found


#: Public names still without documentation, in modules this test's author could not edit
#: (issue 21): each wants a '#:' comment above its assignment (a docstring for the two
#: functions).  The list may only shrink: a name documented since must leave it.
KNOWN_UNDOCUMENTED = {}


@pytest.mark.parametrize("module_name", treelib.PUBLIC_MODULES)
def test_public_names_exist_and_are_documented(module_name):
    found = undocumented(module_name)
    known = KNOWN_UNDOCUMENTED.get(module_name, [])
    new = [name for name in found if name not in known]
    assert new == [], ("give each a docstring (functions, classes) or a '#:' comment "
                       "above its assignment (constants):\n" + "\n".join(new))
    assert sorted(known) == sorted(set(known) & set(found)), \
        "documented since: remove from KNOWN_UNDOCUMENTED " + str(set(known) - set(found))


def test_the_check_finds_an_undocumented_name(tmp_path, monkeypatch):
    (tmp_path / "sample_api.py").write_text(
        '"""A sample."""\n\n#: documented\nA = 1\nB = 2  #: documented\nD = 3\n\nE = 4\n'
        '\n\ndef f():\n    """Doc."""\n\n\ndef g():\n    pass\n\n\nclass C:\n    x = 1\n')
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(treelib, "PUBLIC_MODULES", ("sample_api",))
    assert undocumented("sample_api") == ["sample_api.C", "sample_api.E", "sample_api.g"]


def current_api():
    """Every public name, ``module.name``, sorted."""
    return sorted(f"{m}.{n}" for m in treelib.PUBLIC_MODULES for n in public_names(m))


def listed_api():
    """The names ``tests/data/public_api.txt`` lists (``#`` lines are comments)."""
    return [line.strip() for line in API_FILE.read_text().splitlines()
            if line.strip() and not line.startswith("#")]


def api_changes(listed, current):
    """Messages for the names removed from and added to the public API."""
    removed = sorted(set(listed) - set(current))
    added = sorted(set(current) - set(listed))
    messages = []
    if removed:
        messages.append("removed from the public API (chapters and readers use these names: "
                        "deprecate a name, keeping it and warning, rather than remove it; "
                        "only then delete it from tests/data/public_api.txt):\n  "
                        + "\n  ".join(removed))
    if added:
        messages.append("new public names: add them to tests/data/public_api.txt "
                        "(python -m tests.test_public_api rewrites it):\n  "
                        + "\n  ".join(added))
    return messages


def test_the_public_api_is_stable():
    messages = api_changes(listed_api(), current_api())
    assert messages == [], "\n".join(messages)


def test_the_stability_check_reports_removed_and_added_names():
    messages = api_changes(["treelib.a", "treelib.b"], ["treelib.b", "treelib.c"])
    assert len(messages) == 2
    assert "deprecate" in messages[0] and messages[0].endswith("treelib.a")
    assert messages[1].endswith("treelib.c")


if __name__ == "__main__":
    API_FILE.parent.mkdir(exist_ok=True)
    header = ("# treelib's public API, one module.name per line (tests/test_public_api.py).\n"
              "# Remove a name only after deprecating it; add every new public name.\n")
    API_FILE.write_text(header + "\n".join(current_api()) + "\n")
    print(f"{API_FILE}: {len(current_api())} names", file=sys.stderr)
