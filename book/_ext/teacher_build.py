"""The teacher's build: the book without the exercises' solutions (`make teacher-book`).

sphinx-exercise's own ``hide_solutions`` does not handle the *gated* solutions the
chapters use (``solution-start`` ... ``solution-end``, whose code cells are executed with
the chapter): it drops the start marker but leaves the end marker, which the HTML writer
cannot render, and the solution's cells between them would show unhidden.  This extension
lets sphinx-exercise merge each gated solution into one solution node as usual, then
removes every solution node, its cells included, before the pages are written.
"""

from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx_exercise.nodes import solution_node


class RemoveSolutions(SphinxPostTransform):
    """Every solution node (a merged gated solution and its cells) removed from a page."""

    default_priority = 999          # after sphinx-exercise's own post-transforms

    def run(self, **kwargs):
        for node in list(self.document.findall(solution_node)):
            node.parent.remove(node)


def setup(app):
    app.add_post_transform(RemoveSolutions)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
