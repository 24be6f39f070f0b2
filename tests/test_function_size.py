"""Functions a reader can hold in mind (issue 21): no function in treelib runs over
``MAX_LINES`` lines or takes more than ``MAX_PARAMETERS`` parameters, as no module runs over
400 lines (``tests/test_layout.py``).

A function's lines run from its ``def`` to its last line (docstring and comments
included, decorators not); its parameters are all of them (positional, keyword-only,
``*args`` and ``**kwargs`` one each), the ``self`` or ``cls`` of a method not counted.
Nested functions are measured on their own (and count in their parent's lines).

One exemption, and only one: the ``__init__`` of a scikit-learn estimator (a subclass of
``sklearn.base.BaseEstimator``) may take any number of parameters, because they are the
estimator's hyperparameters, named and stored as scikit-learn requires (``get_params`` reads
them back from the signature); such an ``__init__`` must do nothing but store them
(``self.name = name``, or hand them to ``super().__init__``), and it keeps the line limit.

``BEING_SPLIT`` lists the offenders allowed while they are being split (six in P2-P4's
growth modules when the test was written, five split since); each must still be an offender
(delete its entry once its function is split), so the list can only shrink, to empty.
Cost: one parse of every treelib module.
"""

import ast
import importlib
from pathlib import Path

import pytest
from sklearn.base import BaseEstimator

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "treelib"
MAX_LINES = 60
MAX_PARAMETERS = 8

#: Today's offenders (``module.function``, ``module.Class.method``) and why they are
#: allowed for now.  Delete an entry when its function is split; never add one.
BEING_SPLIT = {}


def parameters(function):
    """The parameters of a ``def`` (its ``self``/``cls`` not counted)."""
    arguments = function.args
    names = [a.arg for a in arguments.posonlyargs + arguments.args + arguments.kwonlyargs]
    names += [a.arg for a in (arguments.vararg, arguments.kwarg) if a is not None]
    if names and names[0] in ("self", "cls"):
        names = names[1:]
    return names


def functions(source, module):
    """``(qualified name, def node, enclosing class node or None)`` of every function
    defined in ``source`` (``module``'s), nested ones included.  O(size of source)."""
    found = []

    def visit(node, prefix, owner):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                name = f"{prefix}.{child.name}"
                found.append((name, child, owner))
                visit(child, name, None)
            elif isinstance(child, ast.ClassDef):
                visit(child, f"{prefix}.{child.name}", child)
            else:
                visit(child, prefix, owner)

    visit(ast.parse(source), module, None)
    return found


def stores_only_its_parameters(function):
    """Whether an ``__init__`` does nothing but store its parameters as scikit-learn asks:
    each statement is ``self.p = p`` or ``super().__init__(...)`` of parameters by name
    (a docstring allowed)."""
    names = set(parameters(function))
    body = function.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]

    def stored(statement):
        return (isinstance(statement, ast.Assign) and len(statement.targets) == 1
                and isinstance(statement.targets[0], ast.Attribute)
                and isinstance(statement.targets[0].value, ast.Name)
                and statement.targets[0].value.id == "self"
                and isinstance(statement.value, ast.Name)
                and statement.targets[0].attr == statement.value.id
                and statement.value.id in names)

    def handed_up(statement):
        call = statement.value if isinstance(statement, ast.Expr) else None
        return (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
                and call.func.attr == "__init__" and isinstance(call.func.value, ast.Call)
                and isinstance(call.func.value.func, ast.Name)
                and call.func.value.func.id == "super"
                and all(isinstance(a, ast.Name) and a.id in names
                        for a in call.args + [k.value for k in call.keywords]))

    return all(stored(s) or handed_up(s) for s in body)


def is_estimator_init(module, function, owner):
    """The exemption: ``__init__`` of a scikit-learn estimator class of ``module`` that
    only stores its hyperparameters (imports ``module``)."""
    if function.name != "__init__" or owner is None:
        return False
    cls = getattr(importlib.import_module(module), owner.name, None)
    return (isinstance(cls, type) and issubclass(cls, BaseEstimator)
            and stores_only_its_parameters(function))


def offenders(source, module):
    """``{qualified name: what exceeds}`` for the functions of ``source`` over a limit,
    the estimator ``__init__`` exemption applied.  O(size of source)."""
    found = {}
    for name, function, owner in functions(source, module):
        lines = function.end_lineno - function.lineno + 1
        n_parameters = len(parameters(function))
        excess = []
        if lines > MAX_LINES:
            excess.append(f"{lines} lines")
        if n_parameters > MAX_PARAMETERS and not is_estimator_init(module, function, owner):
            excess.append(f"{n_parameters} parameters")
        if excess:
            found[name] = ", ".join(excess)
    return found


def package_offenders():
    """``offenders`` of every module of treelib."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found.update(offenders(path.read_text(), module))
    return found


@pytest.fixture(scope="module")
def found():
    return package_offenders()


def test_no_function_over_the_limits(found):
    new = {name: excess for name, excess in found.items() if name not in BEING_SPLIT}
    assert not new, (f"functions over {MAX_LINES} lines or {MAX_PARAMETERS} parameters "
                     f"(split them into named steps, or carry the state in a small "
                     f"dataclass): {new}")


def test_every_listed_offender_still_is_one(found):
    split = sorted(set(BEING_SPLIT) - set(found))
    assert not split, f"no longer offenders: delete them from BEING_SPLIT: {split}"


LONG_BODY = "\n".join(f"    x{i} = {i}" for i in range(58))


@pytest.mark.parametrize("source, expected", [
    # 60 lines and 8 parameters pass; one more of either fails
    (f"def f(a, b, c, d, e, f, g, h):\n    '''doc'''\n{LONG_BODY}\n", {}),
    (f"def f():\n    '''doc'''\n{LONG_BODY}\n    return 1\n", {"m.f": "61 lines"}),
    ("def f(a, b, c, d, e, f, g, *h, i):\n    pass\n", {"m.f": "9 parameters"}),
    ("def f(a, b, c, d, e, f, g, h, **i):\n    pass\n", {"m.f": "9 parameters"}),
    # self and cls are not counted; nested functions and methods are measured
    ("class A:\n    def f(self, a, b, c, d, e, f, g, h):\n        pass\n", {}),
    ("class A:\n    def f(self, a, b, c, d, e, f, g, h, i):\n        pass\n",
     {"m.A.f": "9 parameters"}),
    ("def f():\n    def g(a, b, c, d, e, f, g, h, i):\n        pass\n",
     {"m.f.g": "9 parameters"}),
])
def test_the_limits_are_measured_as_documented(source, expected):
    assert offenders(source, "m") == expected


INIT = """
class {name}:
    def __init__(self, a, b, c, d, e, f, g, h, i):
        '''Hyperparameters.'''
{body}
"""
STORES = "\n".join(f"        self.{p} = {p}" for p in "abcdefghi")


@pytest.mark.parametrize("name, body, exempt", [
    ("DecisionTreeRegressor", STORES, True),
    ("DecisionTreeRegressor",
     "        super().__init__(a, b=b, c=c, d=d, e=e, f=f, g=g, h=h, i=i)", True),
    # an estimator's __init__ that does more than store its hyperparameters
    ("DecisionTreeRegressor", STORES + "\n        self.z = a + 1", False),
    ("DecisionTreeRegressor", STORES + "\n        print(a)", False),
    # not a scikit-learn estimator (Split is a dataclass of treelib.split)
    ("Split", STORES, False),
    ("NotAClass", STORES, False),
])
def test_only_estimator_hyperparameters_are_exempt(name, body, exempt):
    source = INIT.format(name=name, body=body)
    module = "treelib.estimators" if name != "Split" else "treelib.split"
    expected = {} if exempt else {f"{module}.{name}.__init__": "9 parameters"}
    assert offenders(source, module) == expected


def test_the_real_estimators_are_exempt_and_nothing_else(found):
    exempt = []
    for path in sorted((PACKAGE / "estimators").glob("*.py")):
        module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        for name, function, owner in functions(path.read_text(), module):
            if (len(parameters(function)) > MAX_PARAMETERS
                    and is_estimator_init(module, function, owner)):
                exempt.append(name)
    assert "treelib.estimators.trees.DecisionTreeRegressor.__init__" in exempt
    assert all(name.endswith(".__init__") and name not in found for name in exempt)
