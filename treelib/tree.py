"""The fitted tree: parallel flat arrays, as in scikit-learn's ``tree_``.

Node 0 is the root.  For node ``i``: ``children_left[i]`` and ``children_right[i]`` are
the ids of its children for ``x[feature] <= threshold`` and ``x[feature] > threshold``,
and ``children_missing[i]`` the child for a missing ``x`` (NaN), ``TREE_LEAF`` (-1) where
there is none; ``feature[i]`` and ``threshold[i]`` are its test (``TREE_UNDEFINED``, -2,
at a leaf); ``value[i]`` its prediction (a row: the mean target, or the class
proportions), ``impurity[i]`` its impurity, ``n_node_samples[i]`` the training samples it
holds and ``weighted_n_node_samples[i]`` their total sample weight.  A split of a
categorical feature (``categorical[i]``) sends left the category codes whose bits are set
in row i of ``category_bits`` (256 bits, packed), instead of testing a threshold.

A split node of a CART tree has both children, and its missing-value child is one of
them (``missing_go_to_left``: where the training samples with a missing value went, or,
if it had none, the larger child, as in scikit-learn); a random decision tree (Fan et al.,
2003) creates a child only where training samples went, the missing one included, and a
row whose branch has no child stops at the split node, whose value then answers for it.
"""

from dataclasses import dataclass

import numpy as np

#: ``children_left``/``children_right`` of a leaf (scikit-learn's value).
TREE_LEAF = -1
#: ``feature`` and ``threshold`` of a leaf (scikit-learn's value).
TREE_UNDEFINED = -2

#: The branches of a split, in the order of ``TreeRecorder.add_nodes``'s ``branch``.
LEFT, RIGHT, MISSING = 0, 1, 2


@dataclass(frozen=True, eq=False)
class Tree:
    """A fitted tree stored as parallel arrays (one entry per node)."""

    children_left: np.ndarray
    children_right: np.ndarray
    children_missing: np.ndarray
    feature: np.ndarray
    threshold: np.ndarray
    value: np.ndarray
    impurity: np.ndarray
    n_node_samples: np.ndarray
    weighted_n_node_samples: np.ndarray
    categorical: np.ndarray
    category_bits: np.ndarray

    @property
    def node_count(self):
        return len(self.feature)

    @property
    def is_leaf(self):
        return self.feature == TREE_UNDEFINED

    @property
    def n_leaves(self):
        return int(self.is_leaf.sum())

    @property
    def missing_go_to_left(self):
        """Whether a missing value goes to the left child, per node (False at leaves)."""
        return (self.children_missing == self.children_left) & ~self.is_leaf

    @property
    def children(self):
        """(nodes, 3): the left, right and missing child of every node."""
        return np.column_stack([self.children_left, self.children_right,
                                self.children_missing])

    def node_depth(self):
        """Depth of every node (the root has depth 0).  O(depth) numpy steps."""
        depth = np.zeros(self.node_count, dtype=np.intp)
        children = self.children
        level = np.array([0])
        while level.size:
            below = children[level]                                # (nodes, 3)
            exists = below != TREE_LEAF
            depth[below[exists]] = np.repeat(depth[level], exists.sum(axis=1)) + 1
            # a CART split's missing-value child is its left or right child: once each
            level = np.unique(below[exists])
        return depth

    @property
    def max_depth(self):
        return int(self.node_depth().max())

    def apply(self, X):
        """The node that answers for every row of ``X``: the leaf it reaches, or the
        split node where its branch has no child.

        All rows descend together, one level per numpy step: O(n x depth) work and
        O(depth) Python iterations, with no Python loop over samples.
        """
        X = np.asarray(X)
        node = np.zeros(len(X), dtype=np.intp)
        rows = np.arange(len(X))
        children = self.children
        while len(rows):
            here = node[rows]
            splits = self.feature[here] != TREE_UNDEFINED
            rows, here = rows[splits], here[splits]
            values = X[rows, self.feature[here]]
            left = values <= self.threshold[here]
            categorical = self.categorical[here] & ~np.isnan(values)
            if categorical.any():
                left[categorical] = self.categories_go_left(here[categorical],
                                                            values[categorical])
            branch = np.where(np.isnan(values), MISSING, np.where(left, LEFT, RIGHT))
            child = children[here, branch]
            moves = child != TREE_LEAF
            rows = rows[moves]
            node[rows] = child[moves]
        return node

    def categories_go_left(self, nodes, codes):
        """Whether category ``codes[i]`` goes left at categorical split ``nodes[i]``."""
        codes = codes.astype(np.intp)
        return ((self.category_bits[nodes, codes >> 3] >> (codes & 7)) & 1).astype(bool)

    def categories_left(self, node):
        """The category codes that categorical split ``node`` sends left."""
        return np.flatnonzero(np.unpackbits(self.category_bits[node], bitorder="little"))

    def predict(self, X):
        """The ``value`` row of the node that answers for every row of ``X``."""
        return self.value[self.apply(X)]

    def feature_importances(self, n_features):
        """Total gain of each feature's splits, normalised to sum to 1 (all zeros for a
        single leaf): scikit-learn's impurity-based ``feature_importances_``.  A split's
        gain is ``n I`` of the node minus that of each child it has.  O(nodes).
        """
        internal = np.flatnonzero(~self.is_leaf)
        weighted = self.weighted_n_node_samples * self.impurity   # W I(node)
        children = self.children[internal]                      # (splits, 3)
        # a CART split's missing-value child is its left or right child: count it once
        twin = (children[:, 2] == children[:, 0]) | (children[:, 2] == children[:, 1])
        children[twin, 2] = TREE_LEAF
        below = np.where(children != TREE_LEAF, weighted[children], 0.0).sum(axis=1)
        importances = np.bincount(self.feature[internal], weights=weighted[internal] - below,
                                  minlength=n_features)
        total = importances.sum()
        return importances / total if total > 0 else importances

    def export_text(self, feature_names=None, decimals=3, class_names=None):
        """The tree as indented text, one line per test or leaf, in the layout of
        ``sklearn.tree.export_text``.  With ``class_names`` (a classifier's
        ``classes_``), a leaf shows its majority class before its proportions.  A
        missing-value branch is shown as ``<name> is missing``; a branch without a child
        is not shown, nor the missing-value direction of a CART split (where missing values
        follow one of its two children)."""
        names = feature_names or [f"feature_{j}" for j in range(int(self.feature.max()) + 1)]
        lines, stack = [], [(0, 0)]
        while stack:
            item = stack.pop()
            if isinstance(item, str):
                lines.append(item)
                continue
            node, depth = item
            bar = "|   " * depth + "|--- "
            if self.is_leaf[node]:
                value = ", ".join(f"{v:.{decimals}f}" for v in self.value[node])
                if class_names is None:
                    lines.append(f"{bar}value: [{value}]")
                else:
                    majority = class_names[int(np.argmax(self.value[node]))]
                    lines.append(f"{bar}class: {majority}  (proportions [{value}])")
                continue
            name, t = names[self.feature[node]], f"{self.threshold[node]:.{decimals}f}"
            branches = [(f"{bar}{name} <= {t}", self.children_left[node]),
                        (f"{bar}{name} >  {t}", self.children_right[node]),
                        (f"{bar}{name} is missing", self.children_missing[node])]
            if self.categorical[node]:
                chosen = "{" + ", ".join(str(c) for c in self.categories_left(node)) + "}"
                branches[:2] = [(f"{bar}{name} in {chosen}", self.children_left[node]),
                                (f"{bar}{name} not in {chosen}", self.children_right[node])]
            if branches[2][1] in (branches[0][1], branches[1][1]):   # CART: a direction
                branches.pop()
            for text, child in reversed(branches):        # a stack: push the last first
                if child != TREE_LEAF:
                    stack += [(child, depth + 1), text]
        return "\n".join(lines)


class TreeRecorder:
    """Collects nodes while a grower grows a tree, then freezes them into a ``Tree``.

    Nodes are added in batches (a whole level, or one node) and numbered in the order
    they are added; a node stays a leaf until ``set_splits`` gives it a test.  O(nodes)
    in all.
    """

    def __init__(self):
        self.batches, self.splits, self.links, self.node_count = [], [], [], 0
        self.categorical_splits = []
        self.node_links, self.node_splits = [], []       # ``add_node``, ``set_split``

    def add_node(self, value, impurity, count, parent, branch, weight):
        """``add_nodes`` of one node (the per-node growers), with less work per call:
        ``value`` (k,), ``impurity``, ``count`` and ``weight`` numbers, ``parent`` an int
        (None: the root); returns its id, an int.  O(1)."""
        self.batches.append((value[None], (impurity,), (count,), (weight,)))
        if parent is not None:
            self.node_links.append((parent, branch, self.node_count))
        self.node_count += 1
        return self.node_count - 1

    def set_split(self, node, feature, threshold, missing_go_to_left):
        """``set_splits`` of one numeric split of one node (an int).  O(1)."""
        self.node_splits.append((node, feature, threshold, bool(missing_go_to_left)))

    def add_nodes(self, value, impurity, counts, parents=None, branch=LEFT, weight=None):
        """Append nodes, children of ``parents`` (None: the root) on ``branch``, holding
        ``counts`` samples of total ``weight`` (default: the counts); return their ids."""
        counts = np.atleast_1d(counts)
        ids = np.arange(self.node_count, self.node_count + len(counts))
        weight = counts if weight is None else np.atleast_1d(weight)
        self.batches.append((np.atleast_2d(value), np.atleast_1d(impurity), counts, weight))
        if parents is not None:
            self.links.append((np.atleast_1d(parents), np.broadcast_to(branch, len(ids)),
                               ids))
        self.node_count += len(counts)
        return ids

    def set_splits(self, nodes, feature, threshold, missing_go_to_left=None,
                   categories_left=None):
        """Give ``nodes`` their tests ``x[feature] <= threshold``; a missing value goes
        left where ``missing_go_to_left`` (None: the node has a missing-value child of its
        own, or none).  ``categories_left``: for one categorical split, the category
        codes it sends left."""
        nodes = np.atleast_1d(nodes)
        self.splits.append((nodes, np.atleast_1d(feature), np.atleast_1d(threshold),
                            None if missing_go_to_left is None
                            else np.broadcast_to(missing_go_to_left, len(nodes))))
        if categories_left is not None:
            self.categorical_splits.append((int(nodes[0]), tuple(categories_left)))

    def finish(self):
        """The flat ``Tree``."""
        value, impurity, counts, weight = (np.concatenate(part) for part in zip(*self.batches))
        children = np.full((self.node_count, 3), TREE_LEAF, dtype=np.intp)
        for parents, branch, ids in self.links:
            children[parents, branch] = ids
        if self.node_links:
            parents, branch, ids = np.array(self.node_links, dtype=np.intp).T
            children[parents, branch] = ids
        splits = list(self.splits)
        if self.node_splits:
            nodes, split_feature, split_threshold, to_left = zip(*self.node_splits)
            splits.append((np.array(nodes, np.intp), np.array(split_feature, np.intp),
                           np.array(split_threshold, np.float64), np.array(to_left)))
        feature = np.full(self.node_count, TREE_UNDEFINED, dtype=np.intp)
        threshold = np.full(self.node_count, float(TREE_UNDEFINED))
        for nodes, split_feature, split_threshold, to_left in splits:
            feature[nodes], threshold[nodes] = split_feature, split_threshold
            if to_left is not None:
                children[nodes, MISSING] = np.where(to_left, children[nodes, LEFT],
                                                    children[nodes, RIGHT])
        left, right, missing = (np.ascontiguousarray(c) for c in children.T)
        categorical = np.zeros(self.node_count, dtype=bool)
        category_bits = np.zeros((self.node_count, 32), dtype=np.uint8)   # 256 bits a row
        for node, codes in self.categorical_splits:
            categorical[node] = True
            bits = np.zeros(256, dtype=bool)
            bits[list(codes)] = True
            category_bits[node] = np.packbits(bits, bitorder="little")
        return Tree(children_left=left, children_right=right, children_missing=missing,
                    feature=feature,
                    threshold=threshold, value=value.astype(np.float64),
                    impurity=impurity.astype(np.float64),
                    n_node_samples=counts.astype(np.intp),
                    weighted_n_node_samples=weight.astype(np.float64),
                    categorical=categorical,
                    category_bits=category_bits)
