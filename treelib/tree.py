"""The fitted tree: parallel flat arrays, as in scikit-learn's ``tree_``.

Node 0 is the root.  For node ``i``: ``children_left[i]`` and ``children_right[i]`` are
the ids of its children (``TREE_LEAF`` = -1 for a leaf), ``feature[i]`` and
``threshold[i]`` its test ``x[feature] <= threshold`` (``TREE_UNDEFINED`` = -2 for a
leaf), ``value[i]`` its prediction (a row: the mean target for regression),
``impurity[i]`` its impurity and ``n_node_samples[i]`` the training samples it holds.
"""

from dataclasses import dataclass

import numpy as np

TREE_LEAF = -1
TREE_UNDEFINED = -2


@dataclass(frozen=True, eq=False)
class Tree:
    """A fitted binary tree stored as parallel arrays (one entry per node)."""

    children_left: np.ndarray
    children_right: np.ndarray
    feature: np.ndarray
    threshold: np.ndarray
    value: np.ndarray
    impurity: np.ndarray
    n_node_samples: np.ndarray

    @property
    def node_count(self):
        return len(self.children_left)

    @property
    def is_leaf(self):
        return self.children_left == TREE_LEAF

    @property
    def n_leaves(self):
        return int(self.is_leaf.sum())

    def node_depth(self):
        """Depth of every node (the root has depth 0).  O(depth) numpy steps."""
        depth = np.zeros(self.node_count, dtype=np.intp)
        level = np.array([0])
        while level.size:
            parents = level[self.children_left[level] != TREE_LEAF]
            for children in (self.children_left[parents], self.children_right[parents]):
                depth[children] = depth[parents] + 1
            level = np.concatenate([self.children_left[parents],
                                    self.children_right[parents]])
        return depth

    @property
    def max_depth(self):
        return int(self.node_depth().max())

    def apply(self, X):
        """Leaf id reached by every row of ``X``.

        All rows descend together, one level per numpy step: O(n x depth) work and
        O(depth) Python iterations, with no Python loop over samples.
        """
        X = np.asarray(X)
        node = np.zeros(len(X), dtype=np.intp)
        rows = np.arange(len(X))
        active = self.children_left[node] != TREE_LEAF
        while active.any():
            rows, here = rows[active], node[rows[active]]
            goes_left = X[rows, self.feature[here]] <= self.threshold[here]
            node[rows] = np.where(goes_left, self.children_left[here],
                                  self.children_right[here])
            active = self.children_left[node[rows]] != TREE_LEAF
        return node

    def feature_importances(self, n_features):
        """Total gain of each feature's splits, normalised to sum to 1 (all zeros for a
        single leaf): scikit-learn's impurity-based ``feature_importances_``.  O(nodes).
        """
        internal = np.flatnonzero(~self.is_leaf)
        left, right = self.children_left[internal], self.children_right[internal]
        weighted = self.n_node_samples * self.impurity          # n I(node)
        gain = weighted[internal] - weighted[left] - weighted[right]
        importances = np.bincount(self.feature[internal], weights=gain,
                                  minlength=n_features)
        total = importances.sum()
        return importances / total if total > 0 else importances

    def predict(self, X):
        """The ``value`` row of the leaf reached by every row of ``X``."""
        return self.value[self.apply(X)]

    def export_text(self, feature_names=None, decimals=3, class_names=None):
        """The tree as indented text, one line per test or leaf, in the layout of
        ``sklearn.tree.export_text``.  With ``class_names`` (a classifier's
        ``classes_``), a leaf shows its majority class before its proportions."""
        names = feature_names or [f"feature_{j}" for j in range(int(self.feature.max()) + 1)]
        lines, stack = [], [(0, 0)]
        while stack:
            item = stack.pop()
            if isinstance(item, str):
                lines.append(item)
                continue
            node, depth = item
            bar = "|   " * depth + "|--- "
            if self.children_left[node] == TREE_LEAF:
                value = ", ".join(f"{v:.{decimals}f}" for v in self.value[node])
                if class_names is None:
                    lines.append(f"{bar}value: [{value}]")
                else:
                    majority = class_names[int(np.argmax(self.value[node]))]
                    lines.append(f"{bar}class: {majority}  (proportions [{value}])")
                continue
            name, t = names[self.feature[node]], f"{self.threshold[node]:.{decimals}f}"
            lines.append(f"{bar}{name} <= {t}")
            stack += [(self.children_right[node], depth + 1), f"{bar}{name} >  {t}",
                      (self.children_left[node], depth + 1)]
        return "\n".join(lines)


class TreeRecorder:
    """Collects nodes while a builder grows a tree, then freezes them into a ``Tree``."""

    def __init__(self):
        self.nodes = []

    def add_node(self, parent, is_left, value, impurity, n_samples):
        """Append a node (a leaf until ``set_split`` is called) and link it to its parent."""
        node = len(self.nodes)
        self.nodes.append([TREE_LEAF, TREE_LEAF, TREE_UNDEFINED, float(TREE_UNDEFINED),
                           np.atleast_1d(value), float(impurity), int(n_samples)])
        if parent != TREE_LEAF:
            self.nodes[parent][0 if is_left else 1] = node
        return node

    def set_split(self, node, feature, threshold):
        self.nodes[node][2:4] = [int(feature), float(threshold)]

    def finish(self):
        left, right, feature, threshold, value, impurity, n = zip(*self.nodes)
        return Tree(children_left=np.array(left, dtype=np.intp),
                    children_right=np.array(right, dtype=np.intp),
                    feature=np.array(feature, dtype=np.intp),
                    threshold=np.array(threshold, dtype=np.float64),
                    value=np.array(value, dtype=np.float64),
                    impurity=np.array(impurity, dtype=np.float64),
                    n_node_samples=np.array(n, dtype=np.intp))
