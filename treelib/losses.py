"""The losses gradient boosting minimises: a baseline, then gradients and hessians.

Gradient boosting works on *raw predictions* F (the sum of the trees' values, plus a
constant baseline) and asks a loss only three things: the best constant F_0 (the
baseline), and, for every sample, the first and second derivatives of its loss with
respect to its raw prediction, the **gradient** g and the **hessian** h.  A tree is then
grown on (g, h) alone (``treelib.growth.boosting_grower``).

========================= ==================================== ====================
loss                      per sample, y and raw prediction F    g, h
========================= ==================================== ====================
``HalfSquaredError``      (F - y)^2 / 2                         F - y, 1
``HalfBinomialLoss``      log(1 + e^F) - y F  (y in {0, 1})     p - y, p (1 - p)
``HalfMultinomialLoss``   log sum_k e^{F_k} - F_y               p_k - [y = k],
                                                                p_k (1 - p_k)
========================= ==================================== ====================

with p = 1 / (1 + e^-F) (two classes) or the softmax of the F_k.  These are
scikit-learn's ``HalfSquaredError``, ``HalfBinomialLoss`` and ``HalfMultinomialLoss``
(``sklearn._loss``) formula for formula, including their branches for large |F|.

**float32 gradients.**  scikit-learn's HistGradientBoosting computes gradients and
hessians in float64 and *stores* them in float32 (``G_H_DTYPE``); the histograms then
add these float32 values in float64.  The rounding to float32 changes every gradient by
up to 6e-8 relative, and so every split's sums and every leaf value; to grow the same
trees, ``gradient_hessian`` rounds the same way (``dtype=np.float32``, the default).
Pass ``dtype=np.float64`` to keep full precision.  Raw predictions stay float64.

Sample weights multiply every sample's gradient and hessian (and its loss), as in
scikit-learn.  Costs: O(n k) for n samples and k raw predictions per sample.
"""

import numpy as np

#: scikit-learn's gradient boosting stores gradients and hessians in this type.
GRADIENT_DTYPE = np.float32


def log1pexp(x):
    """``log(1 + exp(x))`` without overflow, with scikit-learn's branches."""
    x = np.asarray(x, dtype=np.float64)
    out = np.empty_like(x)
    low, mid, high = x <= -37, (x > -37) & (x <= -2), (x > -2) & (x <= 18)
    top = x > 18
    out[low] = np.exp(x[low])
    out[mid] = np.log1p(np.exp(x[mid]))
    out[high] = x[high] + np.log1p(np.exp(-x[high]))
    out[top] = x[top] + np.exp(-x[top])
    return out


def expit(x):
    """The logistic function ``1 / (1 + exp(-x))``."""
    x = np.asarray(x, dtype=np.float64)
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


def weighted_mean(values, weights):
    """``np.average`` (scikit-learn's own choice for every baseline)."""
    return np.average(values, weights=weights, axis=0)


class HalfSquaredError:
    """Half the squared error, ``(F - y)^2 / 2``: g = F - y, h = 1 (a constant)."""

    n_outputs = 1
    constant_hessian = True

    def __init__(self, n_classes=None):
        pass

    def baseline(self, y, weights=None):
        """The best constant raw prediction: the (weighted) mean of y, shape (1,)."""
        return self.baseline_from_mean(weighted_mean(np.asarray(y, np.float64), weights))

    def baseline_from_mean(self, mean):
        """The baseline given the (weighted) mean target, however it was summed."""
        return np.atleast_1d(np.float64(mean))

    def gradient_hessian(self, y, raw, weights=None, dtype=GRADIENT_DTYPE):
        """Gradients (n, 1) and hessians: None for the constant 1 without weights, else
        the weights (n, 1)."""
        g = raw[:, 0] - y
        if weights is None:
            return g.astype(dtype)[:, None], None
        return (g * weights).astype(dtype)[:, None], weights.astype(dtype)[:, None]

    def loss(self, y, raw, weights=None):
        """The (weighted) mean loss."""
        return float(np.average(0.5 * (raw[:, 0] - y) ** 2, weights=weights))

    def predict(self, raw):
        """Predictions from raw predictions: the identity."""
        return raw[:, 0]


class HalfBinomialLoss:
    """Log-loss of two classes coded 0 and 1, ``log(1 + e^F) - y F``: g = p - y,
    h = p (1 - p), p = expit(F)."""

    n_outputs = 1
    constant_hessian = False

    def __init__(self, n_classes=2):
        pass

    def baseline(self, y, weights=None):
        """The log-odds of the (weighted) proportion of class 1, clipped to (eps, 1 - eps)
        with eps = 10 x float64's epsilon, shape (1,)."""
        return self.baseline_from_mean(weighted_mean(np.asarray(y, np.float64), weights))

    def baseline_from_mean(self, mean):
        """The baseline given the (weighted) proportion of class 1, however it was
        summed."""
        eps = 10 * np.finfo(np.float64).eps
        p = np.clip(mean, eps, 1 - eps)
        return np.atleast_1d(np.log(p / (1 - p)))

    def gradient_hessian(self, y, raw, weights=None, dtype=GRADIENT_DTYPE):
        """Gradients and hessians (n, 1), as scikit-learn's ``cgrad_hess_half_binomial``:
        with e = exp(-F), g = ((1 - y) - y e) / (1 + e) and h = e / (1 + e)^2; for
        F <= -37, e = exp(F), g = e - y, h = e."""
        F = raw[:, 0]
        far = F <= -37
        e = np.exp(np.where(far, F, -F))
        g = np.where(far, e - y, ((1 - y) - y * e) / (1 + e))
        h = np.where(far, e, e / (1 + e) ** 2)
        if weights is not None:
            g, h = g * weights, h * weights
        return g.astype(dtype)[:, None], h.astype(dtype)[:, None]

    def loss(self, y, raw, weights=None):
        return float(np.average(log1pexp(raw[:, 0]) - y * raw[:, 0], weights=weights))

    def predict(self, raw):
        """The probability of class 1."""
        return expit(raw[:, 0])


class HalfMultinomialLoss:
    """Log-loss of k classes coded 0 .. k - 1, ``log sum_k e^{F_k} - F_y``: one raw
    prediction per class, g_k = p_k - [y = k], h_k = p_k (1 - p_k), p the softmax."""

    constant_hessian = False

    def __init__(self, n_classes=3):
        self.n_outputs = int(n_classes)

    def baseline(self, y, weights=None):
        """The symmetric multinomial logit of the (weighted) class proportions, each
        clipped to (eps, 1 - eps): ``log p_k - mean_k log p_k``, shape (k,)."""
        eps = np.finfo(np.float64).eps
        p = np.array([weighted_mean(np.asarray(y) == k, weights)
                      for k in range(self.n_outputs)], dtype=np.float64)
        log_p = np.log(np.clip(p, eps, 1 - eps))
        return log_p - log_p.mean()

    def probabilities(self, raw):
        """The softmax of every row of ``raw`` (n, k), in one (n, k) array (in place: the
        same bits as ``exp(raw - max) / sum``).  O(n k)."""
        e = raw - raw.max(axis=1, keepdims=True)
        np.exp(e, out=e)
        e /= e.sum(axis=1, keepdims=True)
        return e

    def gradient_hessian(self, y, raw, weights=None, dtype=GRADIENT_DTYPE):
        """g = p - [y = k] and h = p (1 - p), in place on the probabilities (the same
        bits, two (n, k) float64 arrays at a time rather than five).  O(n k)."""
        p = self.probabilities(raw)
        h = np.subtract(1, p)
        h *= p                                          # (1 - p) p: p (1 - p)'s bits
        if weights is not None:
            h *= weights[:, None]
        h = h.astype(dtype)
        np.subtract(p, np.asarray(y)[:, None] == np.arange(self.n_outputs), out=p)
        if weights is not None:
            p *= weights[:, None]
        return p.astype(dtype), h

    def loss(self, y, raw, weights=None):
        top = raw.max(axis=1)
        log_sum = top + np.log(np.exp(raw - top[:, None]).sum(axis=1))
        chosen = raw[np.arange(len(raw)), np.asarray(y, dtype=np.intp)]
        return float(np.average(log_sum - chosen, weights=weights))

    def predict(self, raw):
        """The class probabilities (n, k)."""
        return self.probabilities(raw)


#: The losses by scikit-learn's names.
LOSSES = {"squared_error": HalfSquaredError, "log_loss_binary": HalfBinomialLoss,
          "log_loss_multiclass": HalfMultinomialLoss}
