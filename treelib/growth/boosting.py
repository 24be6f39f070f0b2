"""The boosting loop: trees grown one after another on the gradients of a loss.

Gradient boosting starts from the best constant raw prediction F_0 (the loss's
baseline) and adds one tree per iteration::

    g, h  = the loss's gradients and hessians at F_{m-1}     (treelib.losses)
    tree  = a tree grown on (g, h), leaves -G / (H + l2)     (treelib.growth.boosting_grower)
    F_m   = F_{m-1} + step * tree

with one tree per raw prediction (one per class for more than two classes).  The step is
a fixed shrinkage, the *learning rate*, or, as in seed article 003, the result of a
**line search**: the ``alpha`` in [0, 1] that minimises the training loss of
``F_{m-1} + alpha * tree`` (a golden-section search, the loss being convex in alpha).

**GOSS** (LightGBM's gradient-based one-side sampling; Ke et al., 2017) grows each tree on
part of the rows: the ``top_rate`` fraction with the largest ``|g h|``, and a random
``other_rate`` fraction of the others, whose gradients and hessians are multiplied by
``(n - n_top) / n_other`` so that their sums stay unbiased.  As in LightGBM, the first
``1 / learning_rate`` iterations use every row.  The tree then predicts every row.

**Early stopping** (scikit-learn's): with validation data, the loss on them is recorded
after every iteration (and before the first), and the loop stops once none of the last
``n_iter_no_change`` scores (minus the loss) improves on the one before them by more than
``tol``; without validation data, the training loss plays that role.

Cost per iteration: the gradients, O(n k), and the trees (see the grower).
"""

import dataclasses
from dataclasses import dataclass, field

import numpy as np

from treelib.growth.boosting_grower import BoostingRules, grow_boosting_tree
from treelib.split import MISSING_BIN

#: The line search stops when the interval of alpha is this short.
LINE_SEARCH_TOLERANCE = 1e-4
GOLDEN = (np.sqrt(5.0) - 1.0) / 2.0


@dataclass
class BoostedTrees:
    """What the loop grew: ``trees[m][k]`` the tree of iteration m for raw prediction k,
    thresholds in bins; ``baseline`` (k,); ``steps[m][k]`` the step that scaled it (the
    learning rate, or the line search's alpha); the scores (minus the loss) of early
    stopping; and ``raw`` the training rows' raw predictions."""

    baseline: np.ndarray
    trees: list = field(default_factory=list)
    steps: list = field(default_factory=list)
    train_score: list = field(default_factory=list)
    validation_score: list = field(default_factory=list)
    raw: np.ndarray | None = None


def codes_as_values(codes):
    """Bin codes as floats, missing values as NaN: a tree whose thresholds are bins
    routes them with ``Tree.apply`` exactly as its training rows went."""
    values = codes.astype(np.float64)
    values[codes == MISSING_BIN] = np.nan
    return values


def line_search(loss, y, raw, k, update, weights=None):
    """The alpha in [0, 1] minimising the loss of ``raw`` with ``alpha * update`` added to
    its column k: golden-section search (the loss is convex in alpha), to
    ``LINE_SEARCH_TOLERANCE``."""
    def value(alpha):
        trial = raw.copy()
        trial[:, k] += alpha * update
        return loss.loss(y, trial, weights)

    low, high = 0.0, 1.0
    a, b = high - GOLDEN * (high - low), low + GOLDEN * (high - low)
    fa, fb = value(a), value(b)
    while high - low > LINE_SEARCH_TOLERANCE:
        if fa <= fb:
            high, b, fb = b, a, fa
            a = high - GOLDEN * (high - low)
            fa = value(a)
        else:
            low, a, fa = a, b, fb
            b = low + GOLDEN * (high - low)
            fb = value(b)
    best = min((value(0.0), 0.0), (fa, a), (fb, b), (value(1.0), 1.0))
    return best[1]


def goss_sample(g, h, top_rate, other_rate, rng):
    """LightGBM's one-side sampling: the rows with the largest ``|g h|`` (summed over the
    outputs) and a uniform sample of the others, whose g and h are amplified.  Returns
    the increasing rows and the amplified ``g`` and ``h`` (n, k) (``h`` never None)."""
    n = len(g)
    n_top, n_other = int(top_rate * n), int(other_rate * n)
    h = np.ones_like(g) if h is None else h.copy()
    g = g.copy()
    order = np.argsort(-np.abs(g * h).sum(axis=1), kind="stable")
    other = rng.choice(order[n_top:], size=min(n_other, n - n_top), replace=False)
    if len(other):
        g[other] *= (n - n_top) / len(other)
        h[other] *= (n - n_top) / len(other)
    return np.sort(np.concatenate([order[:n_top], other])), g, h


def should_stop(scores, n_iter_no_change, tol):
    """scikit-learn's rule: stop when none of the last ``n_iter_no_change`` scores beats
    the one before them by more than ``tol``."""
    if len(scores) < n_iter_no_change + 1:
        return False
    reference = scores[-n_iter_no_change - 1] + tol
    return not any(score > reference for score in scores[-n_iter_no_change:])


@dataclass(frozen=True)
class BoostingSettings:
    """How the loop boosts: ``max_iter`` iterations; ``learning_rate`` a float, or
    ``"line_search"`` for seed 003's per-step search; ``rules`` a ``BoostingRules`` (None:
    its defaults); ``sampling`` None or ``"goss"`` (``top_rate``, ``other_rate``, ``rng``
    a numpy Generator); ``early_stopping``: record the scores and stop as scikit-learn
    does (``n_iter_no_change``, ``tol``)."""

    max_iter: int = 100
    learning_rate: float | str = 0.1
    rules: BoostingRules | None = None
    sampling: str | None = None
    top_rate: float = 0.2
    other_rate: float = 0.1
    rng: np.random.Generator | None = None
    early_stopping: bool = False
    n_iter_no_change: int = 10
    tol: float = 1e-7


@dataclass
class Boosting:
    """The loop's state: the data, targets ``y``, ``loss``, sample ``weights``,
    ``settings``, ``counter``, the ``fit`` so far, the training rows' raw predictions
    ``raw``, and the validation rows' (``val_values``, ``val_y``, ``val_w``, ``val_raw``;
    None without validation)."""

    data: object
    y: np.ndarray
    loss: object
    weights: np.ndarray | None
    settings: BoostingSettings
    counter: object
    fit: BoostedTrees
    raw: np.ndarray
    val_values: np.ndarray | None = None
    val_y: np.ndarray | None = None
    val_w: np.ndarray | None = None
    val_raw: np.ndarray | None = None

    def record_scores(self):
        """Append the training (and validation) scores, minus the losses.  O(n k)."""
        self.fit.train_score.append(-self.loss.loss(self.y, self.raw, self.weights))
        if self.val_raw is not None:
            self.fit.validation_score.append(-self.loss.loss(self.val_y, self.val_raw,
                                                             self.val_w))

    def iterate(self, iteration):
        """One iteration: a tree per raw prediction on the gradients at ``raw``, each
        added with its step (the learning rate, or the line search's alpha).  O(n k) and
        the trees."""
        settings, loss = self.settings, self.loss
        search = isinstance(settings.learning_rate, str)
        warm_up = 0 if search else int(1.0 / settings.learning_rate)
        g, h = loss.gradient_hessian(self.y, self.raw, self.weights)
        rows = None
        if settings.sampling == "goss" and iteration >= warm_up:
            rows, g, h = goss_sample(g, h, settings.top_rate, settings.other_rate,
                                     settings.rng)
        trees, steps = [], []
        for k in range(loss.n_outputs):
            tree, node_of = grow_boosting_tree(
                self.data, g[:, k], None if h is None else h[:, k], self.rules,
                1.0 if search else settings.learning_rate, rows, self.counter)
            update = tree.value[node_of, 0]
            step = (line_search(loss, self.y, self.raw, k, update, self.weights) if search
                    else settings.learning_rate)
            if search:
                tree = scaled(tree, step)
                update = tree.value[node_of, 0]
            self.raw[:, k] += update
            if self.val_raw is not None:
                self.val_raw[:, k] += tree.predict(self.val_values)[:, 0]
            trees.append(tree)
            steps.append(step)
        self.fit.trees.append(trees)
        self.fit.steps.append(steps)

    @property
    def rules(self):
        return BoostingRules() if self.settings.rules is None else self.settings.rules

    def should_stop(self):
        """scikit-learn's early-stopping rule on the validation scores, or the
        training scores without validation data."""
        scores = self.fit.validation_score if self.val_raw is not None else \
            self.fit.train_score
        return should_stop(scores, self.settings.n_iter_no_change, self.settings.tol)


def boost(data, y, loss, settings=None, *, weights=None, validation=None, counter=None,
          **keywords):
    """Boost ``settings.max_iter`` iterations of trees on ``data`` (a ``BinnedData``) and
    targets ``y`` (class codes for the log-losses) with ``loss`` (``treelib.losses``).

    ``settings``: a ``BoostingSettings`` (None: one made of ``keywords``, its fields:
    ``boost(..., max_iter=50, learning_rate="line_search")``); ``weights``: the
    sample weights (None: all 1); ``validation``: None or ``(codes, y, weights)`` of the
    validation rows, binned as the training rows; ``counter``: a
    ``treelib.counters.GrowthCounter``.  Returns a ``BoostedTrees``.  Cost: see the
    module docstring.
    """
    if settings is None:
        settings = BoostingSettings(**keywords)
    elif keywords:
        raise ValueError(f"boost takes settings or their keywords, not both: {sorted(keywords)}")
    fit = BoostedTrees(baseline=loss.baseline(y, weights))
    state = Boosting(data, y, loss, weights, settings, counter, fit,
                     np.zeros((data.n_samples, loss.n_outputs)) + fit.baseline)
    if validation is not None:
        state.val_values, state.val_y, state.val_w = (codes_as_values(validation[0]),
                                                      validation[1], validation[2])
        state.val_raw = np.zeros((len(state.val_y), loss.n_outputs)) + fit.baseline
    if settings.early_stopping:
        state.record_scores()
    for iteration in range(settings.max_iter):
        state.iterate(iteration)
        if settings.early_stopping:
            state.record_scores()
            if state.should_stop():
                break
    fit.raw = state.raw
    return fit


def scaled(tree, step):
    """``tree`` with every value multiplied by ``step``."""
    return dataclasses.replace(tree, value=tree.value * step)
