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


def assert_same_tree(a, b):
    """Walk trees ``a`` and ``b`` from the root in parallel (their node ids may differ)
    and check that every pair of nodes holds the same test (feature, and threshold
    bit for bit), the same number of samples, the same value and impurity (up to
    rounding), and that leaves face leaves."""
    import numpy as np

    stack, visited = [(0, 0)], 0
    while stack:
        i, j = stack.pop()
        visited += 1
        where = f"node {i} of the first tree, {j} of the second"
        assert a.n_node_samples[i] == b.n_node_samples[j], where
        np.testing.assert_allclose(a.value[i], b.value[j], rtol=1e-9, atol=1e-12,
                                   err_msg=where)
        np.testing.assert_allclose(a.impurity[i], b.impurity[j], rtol=1e-9, atol=1e-12,
                                   err_msg=where)
        a_leaf, b_leaf = a.children_left[i] == -1, b.children_left[j] == -1
        assert a_leaf == b_leaf, where
        if a_leaf:
            assert a.feature[i] == b.feature[j] == -2, where
            continue
        assert a.feature[i] == b.feature[j], where
        assert a.threshold[i] == b.threshold[j], where      # exactly
        stack += [(a.children_left[i], b.children_left[j]),
                  (a.children_right[i], b.children_right[j])]
    assert visited == a.node_count == b.node_count
