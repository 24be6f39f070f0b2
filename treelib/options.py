"""Which of the estimators' options combine: one table, declared once.

Every estimator's ``fit`` (and ``treelib.finders.Finder``,
``treelib.growth.grow_level_wise``, ``treelib.growth.RandomTreeRule``) calls ``check`` with
the options it was given; ``check`` raises one ValueError that names the options that clash,
their values and the reason.  ``RULES`` is the table: a row says that some values of two (or
three) options do not combine, or, with ``allowed``, that a pair one might doubt does, and
why.  ``render_matrix`` writes it as the markdown matrix of the README and of the book's
page "Which options combine".

The options are the estimators' choices that interact, each reduced to the values that
matter (``value``): ``max_features`` is "all" or "some" (fewer than the features),
``n_jobs`` "1" or "more", ``classes`` "<=2" (a regressor too) or ">=3".  ``splitter=
"random_tree"`` stands for ``RandomDecisionTree*`` and ``criterion="newton"`` for the
``HistGradientBoosting*`` estimators (Newton's gain on gradients and hessians).  A row
with ``offered=False`` says that no estimator takes both options (one of them has no
such parameter): ``check`` refuses it like any other.
"""

import dataclasses
import functools

#: Every option of the table and its values (the default first), in the matrix's order.
OPTIONS = {
    "builder": ("depth_first", "recursive", "best_first", "level_wise"),
    "splitter": ("cumsum", "naive", "scan", "hist", "random", "random_tree"),
    "criterion": ("squared_error", "absolute_error", "poisson", "gini", "entropy", "newton"),
    "max_features": ("all", "some"),
    "max_leaf_nodes": ("none", "set"),
    "categorical": ("no", "yes"),
    "missing": ("no", "yes"),
    "sample_weight": ("no", "yes"),
    "n_jobs": ("1", "more"),
    "histogram_sums": ("float", "fixed_point"),
    "early_stopping": ("off", "on"),
    "learning_rate": ("fixed", "line_search"),
    "sampling": ("none", "goss"),
    "classes": ("<=2", ">=3"),
}

#: What the options mean, for the matrix's page.
MEANING = {
    "max_features": "all: every feature searched (None); some: fewer than the features",
    "max_leaf_nodes": "none or set (an int)",
    "categorical": "categorical features in X",
    "missing": "missing values (NaN) in X (in rows of positive weight)",
    "sample_weight": "sample weights given to fit",
    "n_jobs": "1 (or None), or more threads",
    "classes": "classes of a classifier (a regressor counts as <=2)",
}

PER_NODE = ("recursive", "depth_first", "best_first")
NOT_NEWTON = ("squared_error", "absolute_error", "poisson", "gini", "entropy")
REGRESSION = ("squared_error", "absolute_error", "poisson")
FIXED = "histogram_sums='fixed_point'"


@dataclasses.dataclass(frozen=True)
class Rule:
    """One row of the table: the options' values ``when`` (each a tuple of values, all
    options at once), the reason in one sentence (``{option}`` is replaced by the value
    given), whether the combination is ``allowed``, and ``unless``: values of another
    option under which the row does not apply.  ``offered=False``: no estimator takes
    both options."""

    when: dict
    reason: str
    allowed: bool = False
    unless: dict = dataclasses.field(default_factory=dict)
    offered: bool = True

    def applies(self, values):
        """Whether the row holds for ``values`` (table values; an option left out does
        not hold, an ``unless`` option left out does not excuse).  O(options)."""
        return (all(values.get(k) in v for k, v in self.when.items())
                and not any(values.get(k) in v for k, v in self.unless.items()))


def _no(reason, offered=True, unless=None, **when):
    when = {k: v if isinstance(v, tuple) else (v,) for k, v in when.items()}
    unless = {k: v if isinstance(v, tuple) else (v,) for k, v in (unless or {}).items()}
    return Rule(when, reason, offered=offered, unless=unless)


#: The table.  ``check`` raises the reason of the first row that holds and is not allowed.
RULES = (
    Rule({"builder": ("level_wise",), "splitter": ("random_tree",)}, "random decision trees "
         "draw a whole level at once: they grow level-wise only", allowed=True),
    _no(f"{FIXED} sums histograms: it needs splitter='hist'", histogram_sums="fixed_point",
        splitter=("cumsum", "naive", "scan", "random", "random_tree")),
    _no(f"{FIXED} supports criterion='squared_error' only (and boosting's log-loss)",
        histogram_sums="fixed_point", criterion=("absolute_error", "poisson")),
    _no("DecisionTreeClassifier has no histogram_sums: fixed-point classification is "
        "HistGradientBoostingClassifier's (criterion 'newton')", False,
        histogram_sums="fixed_point", criterion=("gini", "entropy")),
    _no(f"{FIXED} grows a tree level-wise (builder=None or 'level_wise'); only boosting's "
        "trees grow best first", unless={"criterion": "newton"},
        histogram_sums="fixed_point", builder=PER_NODE),
    _no(f"{FIXED} searches with one thread", histogram_sums="fixed_point", n_jobs="more"),
    _no(f"{FIXED} does not support categorical features", histogram_sums="fixed_point",
        categorical="yes"),
    _no(f"{FIXED} takes no missing values (NaN)",
        histogram_sums="fixed_point", missing="yes"),
    _no(f"{FIXED} does not support sample_weight", histogram_sums="fixed_point",
        sample_weight="yes"),
    _no(f"{FIXED} boosts every iteration: set early_stopping=False (with 'auto' it is on "
        "above 10,000 rows)", histogram_sums="fixed_point", early_stopping="on"),
    _no(f"{FIXED} grows every tree on every row: it does not support it",
        histogram_sums="fixed_point", sampling="goss"),
    _no(f"{FIXED} takes a fixed learning rate", histogram_sums="fixed_point",
        learning_rate="line_search"),
    _no(f"{FIXED} supports the binary log-loss only", histogram_sums="fixed_point",
        classes=">=3"),
    _no(f"{FIXED} searches every feature of every node: it needs max_features=None",
        histogram_sums="fixed_point", max_features="some"),
    _no("early stopping is boosting's (HistGradientBoosting*, criterion 'newton')", False,
        unless={"criterion": "newton"}, early_stopping="on"),
    _no("learning_rate='line_search' is boosting's (HistGradientBoosting*, criterion "
        "'newton')", False, unless={"criterion": "newton"}, learning_rate="line_search"),
    _no("sampling is boosting's (HistGradientBoosting*, criterion 'newton')", False,
        unless={"criterion": "newton"}, sampling="goss"),
    _no("boosting grows its trees best first (HistGradientBoosting* have no builder)", False,
        criterion="newton", builder=("recursive", "depth_first", "level_wise")),
    _no("boosting searches histograms (HistGradientBoosting* have no splitter)", False,
        criterion="newton", splitter=("cumsum", "naive", "scan", "random", "random_tree")),
    _no("boosting searches every feature (HistGradientBoosting* have no max_features)", False,
        criterion="newton", max_features="some"),
    _no("boosting searches with one thread (HistGradientBoosting* have no n_jobs)", False,
        criterion="newton", n_jobs="more"),
    _no("random decision trees draw a whole level at once: grow them with "
        "builder='level_wise' (RandomDecisionTree* do)", False, builder=PER_NODE,
        splitter="random_tree"),
    _no("random decision trees choose nothing by a criterion: they record the variance or "
        "the Gini impurity (RandomDecisionTree* have no criterion)", False,
        splitter="random_tree", criterion=("absolute_error", "poisson", "entropy", "newton")),
    _no("random decision trees draw one feature per node (RandomDecisionTree* have no "
        "max_features)", False, splitter="random_tree", max_features="some"),
    _no("random decision trees stop at a depth only (RandomDecisionTree* have no "
        "max_leaf_nodes)", False, splitter="random_tree", max_leaf_nodes="set"),
    _no("random decision trees split numbers only (RandomDecisionTree* have no "
        "categorical_features)", False, splitter="random_tree", categorical="yes"),
    _no("RandomDecisionTree* take no sample weights", False, splitter="random_tree",
        sample_weight="yes"),
    _no("RandomDecisionTree* grow with one thread (no n_jobs)", False,
        splitter="random_tree", n_jobs="more"),
    _no("a regressor has no classes", False, criterion=REGRESSION, classes=">=3"),
    _no("n_jobs above 1 divides a level's search among threads: it needs "
        "builder='level_wise'", builder=PER_NODE, n_jobs="more"),
    _no("n_jobs above 1 shares level-wise growth, which needs splitter 'cumsum' or 'hist'; "
        "got {splitter}", n_jobs="more", splitter=("naive", "scan", "random")),
    _no("n_jobs above 1 shares level-wise growth, which searches every feature of every "
        "node (max_features=None)", n_jobs="more", max_features="some"),
    _no("n_jobs above 1 shares level-wise growth, which cannot stop at a number of leaves",
        n_jobs="more", max_leaf_nodes="set"),
    _no("n_jobs above 1 shares level-wise growth, which does not split categorical "
        "features", n_jobs="more", categorical="yes"),
    _no("n_jobs above 1 shares level-wise growth, which scores cuts from sums (not "
        "criterion='absolute_error')", n_jobs="more", criterion="absolute_error"),
    _no("n_jobs above 1 shares level-wise growth, which does not handle missing values "
        "(NaN)", n_jobs="more", missing="yes"),
    _no("level-wise growth scans whole levels with its own vectorized search: it needs "
        "splitter 'cumsum', 'hist' or 'random'; got {splitter}", builder="level_wise",
        splitter=("naive", "scan")),
    _no("max_leaf_nodes needs best-first growth (the most useful leaves first); level-wise "
        "growth cannot stop at a number of leaves", builder="level_wise",
        max_leaf_nodes="set"),
    _no("max_leaf_nodes needs best-first growth (the most useful leaves first); use "
        "builder='best_first'", builder=("recursive", "depth_first"), max_leaf_nodes="set"),
    _no("level-wise growth does not split categorical features; grow the tree with "
        "builder='depth_first' or 'best_first'", builder="level_wise", categorical="yes"),
    _no("level-wise growth scores cuts from sums; criterion='absolute_error' needs a "
        "per-node grower (builder='depth_first' or 'best_first')", builder="level_wise",
        criterion="absolute_error"),
    _no("level-wise growth does not handle missing values (NaN); grow the tree with "
        "builder='depth_first' or 'best_first'", unless={"splitter": "random_tree"},
        builder="level_wise", missing="yes"),
    _no("criterion='absolute_error' needs running medians, which splitter={splitter} does "
        "not keep (its gains come from sums); use splitter 'naive', 'scan' or 'cumsum'",
        criterion="absolute_error", splitter=("hist", "random")),
    _no("criterion='absolute_error' does not handle missing values, and X contains NaN: "
        "missing values are handled by splitter 'cumsum' or 'hist' with criterion "
        "'squared_error' or 'poisson' (scikit-learn's trees also take them with "
        "'absolute_error'); impute X or choose another criterion",
        criterion="absolute_error", missing="yes"),
    _no("splitter={splitter} does not handle missing values (NaN); use splitter 'cumsum' "
        "or 'hist'", splitter=("naive", "scan", "random"), missing="yes"),
    _no("splitter={splitter} does not split categorical features; use 'cumsum' or 'hist'",
        splitter="random", categorical="yes"),
)

_YES_NO = {True: "yes", False: "no"}
_ON_OFF = {True: "on", False: "off"}


def value(option, raw):
    """The table's value of ``option`` given as the estimator holds it (a table value
    passes as it is): ``max_features`` an int below the features or None,
    ``max_leaf_nodes`` an int or None, ``n_jobs``, ``classes`` a count, the flags
    ``categorical``, ``missing``, ``sample_weight``, ``early_stopping`` booleans.  O(1)."""
    if option not in OPTIONS:
        raise ValueError(f"unknown option {option!r}; the table has {list(OPTIONS)}")
    if isinstance(raw, str) and raw in OPTIONS[option]:
        return raw
    if option == "max_features":
        return "all" if raw is None else "some"
    if option == "max_leaf_nodes":
        return "none" if raw is None else "set"
    if option == "n_jobs":
        return "1" if raw in (None, 1) else "more"
    if option == "classes":
        return "<=2" if raw is None or raw <= 2 else ">=3"
    if option == "sampling":
        return "none" if raw is None else raw
    if option == "learning_rate":
        return "line_search" if raw == "line_search" else "fixed"
    if option in ("categorical", "missing", "sample_weight"):
        return _YES_NO[bool(raw)]
    if option == "early_stopping":
        return _ON_OFF[bool(raw)]
    return raw


def describe(option, raw):
    """How an error message names ``option`` given as ``raw``.  O(1)."""
    named = {"categorical": "categorical features", "missing": "missing values (NaN) in X",
             "sample_weight": "sample_weight", "early_stopping": "early stopping"}
    if option in named:
        return named[option]
    if option == "classes":
        return f"{raw} classes"
    return f"{option}={raw!r}"


def refusal(values):
    """The first row of ``RULES`` that refuses ``values`` (table values, by option), or
    None if they combine.  O(rows x options)."""
    return next((r for r in RULES if not r.allowed and r.applies(values)), None)


def check(**options):
    """Raise one ValueError naming the options that do not combine, their values and
    the table's reason; options not given are not judged.  Keywords: the names of
    ``OPTIONS``, values as ``value`` takes them.  O(rows x options)."""
    rule = refusal({k: value(k, v) for k, v in options.items()})
    if rule is not None:
        clash = " and ".join(describe(k, options[k]) for k in rule.when)
        reason = rule.reason.format(**{k: repr(v) for k, v in options.items()})
        raise ValueError(f"{clash} do not combine: {reason}")


def combines(**options):
    """Whether the options combine (``check`` would not raise).  O(rows x options)."""
    return refusal({k: value(k, v) for k, v in options.items()}) is None


@functools.lru_cache(maxsize=None)
def _complete(chosen, refused):
    names = [k for k, _ in chosen] + [k for k in OPTIONS if k not in dict(chosen)]
    chosen = dict(chosen)
    own = [i for i, r in enumerate(RULES) if not r.allowed and set(r.when) <= set(chosen)
           and all(chosen[k] in v for k, v in r.when.items())]
    if refused and not own:
        return None
    limit = min(own) if refused else len(RULES)

    def extend(values, depth):
        for i, rule in enumerate(RULES):
            known = set(rule.when) | set(rule.unless) <= set(values)
            # (a row after the refusing one may hold too, unless no estimator offers it)
            later = refused and (i > limit and rule.offered or i in own)
            if not rule.allowed and known and rule.applies(values) and not later:
                return None
        if depth == len(names):
            return values if not refused or RULES.index(refusal(values)) in own else None
        option = names[depth]
        for choice in [chosen[option]] if option in chosen else OPTIONS[option]:
            found = extend({**values, option: choice}, depth + 1)
            if found is not None:
                return found
        return None

    return extend({}, 0)


def decide(**chosen):
    """``(rule, values)``: whether the options ``chosen`` (table values) combine, the others
    free: every option's value in ``values``, those of ``chosen`` as given, the others
    (defaults first) such that no other row refuses them; ``rule`` None if they combine,
    else the row that refuses them (then ``values`` holds no other refusal before it, or
    is None when no choice of the others avoids one).  A depth-first search over the
    other options' values, each step O(rows x options)."""
    found = _complete(tuple(chosen.items()), False)
    if found is not None:
        return None, found
    found = _complete(tuple(chosen.items()), True)
    return refusal(found if found is not None else chosen), found


def _either(values):
    values = [repr(v) for v in values]
    return values[0] if len(values) == 1 else ", ".join(values[:-1]) + " or " + values[-1]


def footnote(rule):
    """A row as a sentence: its options, yes or no, the reason.  O(options)."""
    when = " with ".join(f"{k} {_either(v)}" for k, v in rule.when.items())
    unless = "".join(f", unless {k} is {_either(v)}" for k, v in rule.unless.items())
    answer = "yes" if rule.allowed else "no" if rule.offered else "no (not offered)"
    reason = rule.reason.format(**{k: _either(v) for k, v in rule.when.items()})
    return f"{when}{unless}: {answer}; {reason}."


def verdicts(option, choice, other):
    """Does ``option=choice`` combine with each value of ``other`` (``decide``)?  A list
    of ``(verdict, values, row number)``: ``("yes", values, n)`` for an allowed row that
    says why a pair does, ``("no", values, n)`` for the values a row refuses (``values``
    empty when the row refuses every value of ``other``, or its one "yes"/"on").  Empty
    if every value combines.  O(values x decide)."""
    found = [("yes", list(r.when[other]), n) for n, r in enumerate(RULES, 1)
             if r.allowed and set(r.when) == {option, other} and choice in r.when[option]]
    refused = {}
    for value_ in OPTIONS[other]:
        pair = {option: choice, other: value_}
        rule = decide(**pair)[0] or next(     # (refused but for an ``unless``: footnoted)
            (r for r in RULES if r.unless and not r.allowed and set(r.when) == set(pair)
             and all(pair[k] in v for k, v in r.when.items())), None)
        if rule is not None:
            refused.setdefault(RULES.index(rule) + 1, []).append(value_)
    for number, values in refused.items():
        flag = values == [OPTIONS[other][1]] and values[0] in ("yes", "on")
        found.append(("no", [] if flag or len(values) == len(OPTIONS[other]) else values,
                      number))
    return found


def cell(option, choice, other):
    """The matrix's cell: "yes", or the ``verdicts`` as "no: a, b (7)", "no (15)" or
    "yes: a (1)", joined by "; ".  O(values x decide)."""
    return "; ".join(f"{verdict}{': ' + ', '.join(values) if values else ''} ({number})"
                     for verdict, values, number in verdicts(option, choice, other)) or "yes"


def render_matrix():
    """The table as a markdown matrix: a row per option value, a column per option, each
    cell "yes" or the values that do not combine with the row's number (``footnotes``).
    O(values x options x rows)."""
    names = list(OPTIONS)
    lines = ["| | " + " | ".join(names) + " |", "|---" * (len(names) + 1) + "|"]
    for option, choices in OPTIONS.items():
        for choice in choices:
            cells = ["·" if other == option else cell(option, choice, other)
                     for other in names]
            lines.append(f"| {option}={choice} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def render_list():
    """The same table as a list a narrow page can show: per option value, the values of
    other options it does not combine with, and those it combines with only as a row
    says, each with the row's number.  O(values x options x rows)."""
    lines = []
    for option, choices in OPTIONS.items():
        for choice in choices:
            said = [phrase(other, *found) for other in OPTIONS if other != option
                    for found in verdicts(option, choice, other)]
            lines.append(f"- **{option}={choice}**: "
                         + ("; ".join(said) if said else "combines with everything") + "\n")
    return "".join(lines)


def phrase(other, verdict, values, number):
    """One of the ``verdicts`` as list text: "not with other=a or b (7)", "not with other
    (15)" or "with other=a as row 1 says"."""
    named = f"{other}={' or '.join(values)}" if values else other
    return f"not with {named} ({number})" if verdict == "no" else \
        f"with {named} as row {number} says"


def render_footnotes():
    """The rows of the table, numbered as the matrix's cells cite them.  O(rows)."""
    return "".join(f"{n}. {footnote(rule)}\n" for n, rule in enumerate(RULES, 1))


__all__ = ["MEANING", "OPTIONS", "RULES", "Rule", "check", "combines", "decide",
           "render_footnotes", "render_list", "render_matrix"]
