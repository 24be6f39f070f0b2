"""Shared test helpers."""

from pathlib import Path

import nbformat

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"


def notebook_cells(name, tag="teaching"):
    """Run the code cells of ``notebooks/<name>`` tagged ``tag`` and return their
    namespace.  A chapter marks the cells that define a teaching version of an
    algorithm with this tag; a test then checks that version against treelib."""
    notebook = nbformat.read(NOTEBOOKS / name, as_version=4)
    namespace = {}
    cells = [c for c in notebook.cells
             if c.cell_type == "code" and tag in c.get("metadata", {}).get("tags", [])]
    if not cells:
        raise LookupError(f"{name} has no code cell tagged {tag!r}")
    for cell in cells:
        exec(compile(cell.source, f"{name}[{tag}]", "exec"), namespace)
    return namespace


def assert_same_tree(a, b, rtol=1e-9):
    """Two ``treelib.tree.Tree`` objects describe the same tree, whatever their node
    ids: walk both from the root in parallel and compare every node's test (threshold
    bit for bit), sample count, value and impurity."""
    import numpy as np

    stack = [(0, 0)]
    while stack:
        i, j = stack.pop()
        assert a.n_node_samples[i] == b.n_node_samples[j], (i, j)
        np.testing.assert_allclose(a.value[i], b.value[j], rtol=rtol, atol=1e-12)
        np.testing.assert_allclose(a.impurity[i], b.impurity[j], rtol=rtol, atol=1e-12)
        a_leaf, b_leaf = a.children_left[i] == -1, b.children_left[j] == -1
        assert a_leaf == b_leaf, (i, j)
        if not a_leaf:
            assert (a.feature[i], a.threshold[i]) == (b.feature[j], b.threshold[j]), (i, j)
            stack += [(a.children_left[i], b.children_left[j]),
                      (a.children_right[i], b.children_right[j])]
    assert a.node_count == b.node_count
