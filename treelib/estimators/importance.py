"""Permutation importance: how much a fitted model's score drops when one feature's
values are shuffled (Breiman 2001), drawn exactly as scikit-learn draws it.

Impurity importance (``feature_importances_``, MDI) adds up the gains of a feature's
splits on the training data, so it inherits exhaustive search's preference for features
with many cuts (``treelib.finders.unbiased``); permutation importance asks instead what
the model loses, on any data, when a feature's link to the target is broken.

``permutation_importance`` equals ``sklearn.inspection.permutation_importance`` for the
same estimator, data, ``random_state`` and scorer: the same permutations in the same
order, so the same numbers.  scikit-learn draws one seed from ``random_state``
(``randint(2**31)``); every feature then gets a fresh ``RandomState(seed)`` and a copy
of X, and each of its ``n_repeats`` rounds shuffles one index array in place (the
shuffles compound) and reorders the feature's column, already shuffled, by it.
"""

import numbers
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class PermutationImportance:
    """``permutation_importance``'s answer, named as scikit-learn's Bunch:
    ``importances`` (f, n_repeats), baseline score minus each round's score;
    ``importances_mean`` and ``importances_std`` (f,) over the rounds (population
    standard deviation, as ``np.std``); ``baseline_score``, the unshuffled score."""

    importances_mean: np.ndarray
    importances_std: np.ndarray
    importances: np.ndarray
    baseline_score: float


def permutation_seed(random_state):
    """The one seed scikit-learn draws from ``random_state`` (None: numpy's global
    RandomState; an int: ``RandomState(int)``; a ``numpy.random.RandomState``: itself,
    advanced by the draw), as ``check_random_state(random_state).randint(2**31)``.  O(1)."""
    high = np.iinfo(np.int32).max + 1
    if random_state is None:
        return int(np.random.randint(high))
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool):
        return int(np.random.RandomState(random_state).randint(high))
    if isinstance(random_state, np.random.RandomState):
        return int(random_state.randint(high))
    raise ValueError(f"random_state must be None, an int or a numpy.random.RandomState; "
                     f"got {random_state!r}")


def scorer_of(scoring):
    """``scoring`` as a function ``(estimator, X, y) -> float``: None is the estimator's
    own ``score(X, y)``; a callable is used as it is (scikit-learn's scorers, e.g.
    ``sklearn.metrics.get_scorer("r2")``, are such callables).  O(1)."""
    if scoring is None:
        return lambda estimator, X, y: estimator.score(X, y)
    if callable(scoring):
        return scoring
    raise ValueError(f"scoring must be None (the estimator's score) or a callable "
                     f"scorer(estimator, X, y); got {scoring!r} (for a scorer's name, pass "
                     f"sklearn.metrics.get_scorer(name))")


def checked_features(X):
    """``X`` as a 2-D array with at least one row and column and no infinite value (a
    DataFrame is kept as it is, its columns shuffled by position); else a ValueError.
    O(n f) for an array of floats (the infinity check)."""
    if hasattr(X, "iloc"):
        shape = X.shape
    else:
        X = np.asarray(X)
        shape = X.shape
    if len(shape) != 2 or shape[0] == 0 or shape[1] == 0:
        raise ValueError(f"X must be 2-D with at least one sample and one feature; got "
                         f"shape {shape}")
    if not hasattr(X, "iloc") and X.dtype.kind in "fc" and np.isinf(X).any():
        raise ValueError("X contains infinity: permutation importance accepts NaN (for "
                         "estimators that do) but, as scikit-learn's, no infinite value")
    return X


def shuffled_scores(estimator, X, y, column, seed, n_repeats, scorer):
    """The ``n_repeats`` scores with feature ``column`` shuffled, from a fresh
    ``RandomState(seed)`` and a copy of X, exactly as scikit-learn shuffles (each round
    shuffles the index array in place and reorders the already shuffled column by it).
    O(n_repeats (n + one score)), memory one copy of X."""
    rng = np.random.RandomState(seed)
    shuffled = X.copy()
    index = np.arange(shuffled.shape[0])
    scores = []
    for _ in range(n_repeats):
        rng.shuffle(index)
        if hasattr(shuffled, "iloc"):                     # a DataFrame, by position
            values = shuffled.iloc[index, column]
            values.index = shuffled.index
            shuffled[shuffled.columns[column]] = values
        else:
            shuffled[:, column] = shuffled[index, column]
        scores.append(scorer(estimator, shuffled, y))
    return np.array(scores, dtype=np.float64)


def permutation_importance(estimator, X, y, n_repeats=5, random_state=None, scoring=None):
    """Permutation importance of every feature of a fitted ``estimator`` on ``(X, y)``.

    Parameters
    ----------
    estimator : fitted estimator
        Anything with ``score(X, y)`` (or that ``scoring`` can score).
    X : array-like or DataFrame of shape (n_samples, n_features)
        The data whose columns are shuffled (training or held-out data).
    y : array-like of shape (n_samples,)
        Its targets.
    n_repeats : int, default=5
        Shuffles per feature.
    random_state : None, int or numpy.random.RandomState, default=None
        Draws the shuffles, as in scikit-learn (the same value gives the same numbers).
    scoring : callable or None, default=None
        ``scoring(estimator, X, y)``, higher is better; None: ``estimator.score``.

    Returns
    -------
    PermutationImportance
        ``importances`` (f, n_repeats): the baseline score minus each shuffled score;
        their mean and standard deviation per feature; the baseline score.

    Notes
    -----
    Cost: 1 + f n_repeats scores (each a predict over n samples, the bulk of the time)
    plus O(f n_repeats n) to shuffle; memory one copy of X at a time.  Equal to
    ``sklearn.inspection.permutation_importance(estimator, X, y, n_repeats=n_repeats,
    random_state=random_state, scoring=scoring)`` (default ``max_samples``, no sample
    weights).
    """
    if (isinstance(n_repeats, bool) or not isinstance(n_repeats, numbers.Integral)
            or n_repeats < 1):
        raise ValueError(f"n_repeats must be an int >= 1; got {n_repeats!r}")
    X = checked_features(X)
    if y is None or len(y) != X.shape[0]:
        raise ValueError(f"X and y have different numbers of samples: {X.shape[0]} and "
                         f"{None if y is None else len(y)}")
    scorer = scorer_of(scoring)
    seed = permutation_seed(random_state)
    baseline = float(scorer(estimator, X, y))
    scores = np.array([shuffled_scores(estimator, X, y, column, seed, int(n_repeats), scorer)
                       for column in range(X.shape[1])])
    importances = baseline - scores
    return PermutationImportance(importances_mean=np.mean(importances, axis=1),
                                 importances_std=np.std(importances, axis=1),
                                 importances=importances, baseline_score=baseline)
