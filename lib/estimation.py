"""Estimating probabilities: maximum likelihood, MAP and conjugate priors.

Used in: Chapter 2, "Estimating probabilities" (``chapters/02_estimation.md``).
The formulas follow Mitchell's lecture slides (CMU 10-601, 2021: MLE / MAP for a
Bernoulli variable with a Beta prior, Dirichlet conjugacy, parameter counting), Russell
and Norvig (3rd ed., sections 20.2.1, 20.2.3 and 20.2.4: candy networks, Gaussian and
linear Gaussian maximum likelihood, Beta priors as virtual counts) and Mitchell (1997,
chapter 6: maximum likelihood as least squares and as cross entropy). The chapter's figures are drawn in
:mod:`lib.plots.estimation`.

Convention for the MAP estimate (the mode of the posterior). A Beta(A, B) or
Dirichlet(alpha) density has a single highest point only when every parameter is at
least 1 and not all of them equal 1. Then the mode is
``(alpha - 1) / sum(alpha - 1)``; a parameter equal to 1 gives a mode on the
boundary (probability 0 for that outcome). When some parameter is below 1 the
density grows without bound at the boundary, and when all equal 1 it is flat; in
both cases there is no MAP estimate and :meth:`BetaPosterior.mode`,
:meth:`DirichletPosterior.mode` and :func:`map_bernoulli` raise ``ValueError``.
"""
import numpy as np
from scipy.optimize import minimize
from scipy.special import betainc, betaincinv, betaln, expit, gammaln, xlog1py, xlogy

from lib._validation import (
    check_array,
    check_binary,
    check_consistent_length,
    check_keyed_numbers,
    check_probabilities,
    check_probability_vector,
    check_scalar,
    check_stochastic_matrix,
)
from lib.bayes import DiscreteBayesLearner

__all__ = [
    "mle_bernoulli", "map_bernoulli", "BetaPosterior", "DirichletPosterior",
    "bernoulli_log_likelihood", "wrapper_counts", "wrapper_log_likelihood",
    "wrapper_mle", "gaussian_mle", "linear_gaussian_mle", "cross_entropy", "fit_logistic",
    "fit_logistic_sets", "grid_learner",
    "n_params_full_table", "n_params_joint_given_class", "n_params_naive_bayes",
]


#: Largest Beta/Dirichlet parameter for which the log density formula keeps ~7 correct
#: digits: its terms are about alpha in size and cancel, losing alpha * 1e-16.
_HUGE = 1e8


# --------------------------------------------------------------------------- checks
def _counts(values, name):
    """Return ``values`` as a float array of finite, non-negative counts."""
    arr = check_array(values, name, min_samples=0)
    if (arr < 0).any():
        raise ValueError(f"{name} must be non-negative counts, got {values!r}")
    return arr


def _positive(values, name):
    """Return ``values`` as a float array of finite, strictly positive numbers."""
    arr = check_array(values, name, min_samples=0)
    if not (arr > 0).all():
        raise ValueError(f"{name} must be finite and > 0, got {values!r}")
    return arr


def _mode(alpha):
    """Mode of a Beta/Dirichlet with parameters ``alpha`` (last axis), see module doc."""
    if (alpha < 1).any():
        raise ValueError("no MAP estimate: a parameter below 1 makes the density "
                         f"unbounded at the boundary (parameters {alpha.tolist()})")
    if (alpha == 1).all(axis=-1).any():
        raise ValueError("no MAP estimate: all parameters equal 1, the density is flat")
    return _normalise(alpha - 1)


def _normalise(weights):
    """``weights / weights.sum()`` without overflow for huge (e.g. 1e308) weights."""
    scaled = weights / weights.max(axis=-1, keepdims=True)
    return scaled / scaled.sum(axis=-1, keepdims=True)


# ---------------------------------------------------------------- Bernoulli estimates
def mle_bernoulli(n1, n0):
    """Maximum-likelihood estimate ``n1 / (n1 + n0)`` of P(X = 1).

    ``n1`` ones and ``n0`` zeros were observed (Mitchell's alpha1 and alpha0, Russell and
    Norvig's c cherries and l limes). Works elementwise on arrays.
    Used in: Chapter 2, section "Maximum likelihood for a coin".

    >>> mle_bernoulli(1, 0)   # one cherry: the bag is "all cherry"
    1.0
    """
    n1, n0 = _counts(n1, "n1"), _counts(n0, "n0")
    total = n1 + n0
    if (total == 0).any():
        raise ValueError("mle_bernoulli needs at least one observation (empty data)")
    ratio = n1 / total
    return float(ratio) if ratio.ndim == 0 else ratio


def map_bernoulli(n1, n0, a=1.0, b=1.0):
    """MAP estimate of P(X = 1) with a Beta(a, b) prior after ``n1`` ones, ``n0`` zeros.

    Equals ``(n1 + a - 1) / ((n1 + a - 1) + (n0 + b - 1))``: maximum likelihood with
    ``a - 1`` imaginary ones and ``b - 1`` imaginary zeros added (Mitchell 2021). Raises
    ``ValueError`` when the posterior Beta(n1 + a, n0 + b) has no mode (see the module
    docstring). Used in: Chapter 2, section "MAP estimates and imaginary examples".

    >>> map_bernoulli(1, 0, a=2, b=2)   # Laplace: (1 + 1) / (1 + 1 + 0 + 1)
    0.6666666666666666
    """
    return BetaPosterior(a, b).update(n1, n0).mode()


# ------------------------------------------------------------------ conjugate priors
class BetaPosterior:
    """A Beta(a, b) belief about a probability theta; ``update`` adds observed counts.

    The hyperparameters are virtual counts (Russell and Norvig, section 20.2.4): Beta(a, b)
    behaves like a uniform Beta(1, 1) prior after a - 1 ones and b - 1 zeros.
    Objects are immutable: :meth:`update` returns a new posterior.
    Used in: Chapter 2, sections "Beta priors are virtual counts" and the
    interactive figure.

    >>> BetaPosterior(1, 1).update(heads=2, tails=0)
    BetaPosterior(a=3.0, b=1.0)
    """

    def __init__(self, a=1.0, b=1.0):
        self.a = check_scalar(a, "a", low=0, closed="neither")
        self.b = check_scalar(b, "b", low=0, closed="neither")

    def __repr__(self):
        return f"BetaPosterior(a={self.a}, b={self.b})"

    def update(self, heads=0, tails=0):
        """Posterior after ``heads`` more ones and ``tails`` more zeros."""
        heads = check_scalar(heads, "heads", low=0)
        tails = check_scalar(tails, "tails", low=0)
        return BetaPosterior(self.a + heads, self.b + tails)

    def mean(self):
        """Posterior mean a / (a + b), the probability that the next draw is 1."""
        return 1.0 / (1.0 + self.b / self.a)   # a / (a + b) without overflow in a + b

    def var(self):
        """Posterior variance ab / ((a + b)^2 (a + b + 1)) = mean (1 - mean) / (a + b + 1).

        Computed in the second form, so that huge parameters (1e200) do not overflow.
        """
        m, m1 = self.mean(), 1.0 / (1.0 + self.a / self.b)
        return m * m1 / (self.a + self.b + 1)

    def mode(self):
        """Posterior mode (a - 1) / (a + b - 2), the MAP estimate; ValueError if none."""
        return float(_mode(np.array([self.a, self.b]))[0])

    def logpdf(self, theta):
        """Log density at ``theta`` (array); -inf outside [0, 1]; NaN raises ValueError.

        For huge parameters (above ``_HUGE``) the three terms of the formula are huge
        and nearly cancel, leaving no correct digit near the mode; there the density is
        taken from scipy's ``beta.pdf`` (Boost's algorithm, which avoids the
        cancellation). Where that density underflows the formula is kept: the log
        density is then itself huge and negative, so its relative error stays small.
        """
        theta = check_array(theta, "theta", allow_inf=True, min_samples=0)
        inside = (theta >= 0) & (theta <= 1)
        t = np.clip(theta, 0, 1)
        out = xlogy(self.a - 1, t) + xlog1py(self.b - 1, -t) - betaln(self.a, self.b)
        if max(self.a, self.b) > _HUGE:
            from scipy.stats import beta  # imported here: scipy.stats loads slowly

            density = beta.pdf(t, self.a, self.b)
            out = np.where(density > 0, np.log(np.where(density > 0, density, 1.0)), out)
        return np.where(inside, out, -np.inf)[()]

    def pdf(self, theta):
        """Density beta[a, b](theta) = theta^(a-1) (1-theta)^(b-1) / B(a, b) (eq. 20.6)."""
        return np.exp(self.logpdf(theta))

    def cdf(self, theta):
        """P(Theta <= theta), the regularised incomplete beta function."""
        theta = check_array(theta, "theta", allow_inf=True, min_samples=0)
        return betainc(self.a, self.b, np.clip(theta, 0, 1))[()]

    def interval(self, level=0.95):
        """Equal-tailed credible interval holding probability ``level``."""
        level = check_scalar(level, "level", low=0, high=1, closed="neither")
        tails = np.array([(1 - level) / 2, (1 + level) / 2])
        lo, hi = betaincinv(self.a, self.b, tails)
        return float(lo), float(hi)


class DirichletPosterior:
    """A Dirichlet(alpha_1..alpha_K) belief about the probabilities of K outcomes.

    Conjugate to the multinomial (Mitchell 2021, the dice example): after counts n_k the
    posterior is Dirichlet(alpha_k + n_k). Immutable; :meth:`update` returns a new
    object. Used in: Chapter 2, section "Dirichlet priors for dice".

    >>> DirichletPosterior([1, 1, 1]).update([2, 0, 1]).mean()
    array([0.5       , 0.16666667, 0.33333333])
    """

    def __init__(self, alpha):
        alpha = _positive(alpha, "alpha")
        if alpha.ndim != 1 or alpha.size < 2:
            raise ValueError(f"alpha must be a 1-D array of at least 2 values, got shape {alpha.shape}")
        self.alpha = alpha

    def __repr__(self):
        return f"DirichletPosterior(alpha={self.alpha.tolist()})"

    def update(self, counts):
        """Posterior after observing ``counts[k]`` outcomes of kind k."""
        counts = _counts(counts, "counts")
        if counts.shape != self.alpha.shape:
            raise ValueError(f"counts has shape {counts.shape}, expected {self.alpha.shape}")
        return DirichletPosterior(self.alpha + counts)

    def mean(self):
        """Posterior mean alpha_k / sum(alpha): the predictive probability of outcome k."""
        return _normalise(self.alpha)

    def mode(self):
        """MAP estimate (alpha_k - 1) / sum(alpha - 1); ValueError if none (module doc)."""
        return _mode(self.alpha)

    def logpdf(self, theta):
        """Log density at probability vectors ``theta`` (last axis of length K).

        ``theta`` must lie on the probability simplex (entries in [0, 1] summing to one
        within 1e-6); anything else, NaN included, raises ValueError: the Dirichlet
        density is only defined there.
        """
        theta = check_array(theta, "theta")
        if theta.shape[-1:] != self.alpha.shape:
            raise ValueError(f"theta must have last axis of length {self.alpha.size}, "
                             f"got shape {theta.shape}")
        if theta.ndim == 1:
            check_probability_vector(theta, "theta (a point of the simplex)")
        else:
            check_stochastic_matrix(theta, "theta (points of the simplex)")
        if self.alpha.max() > _HUGE:
            raise ValueError(f"alpha must be at most {_HUGE:g} for the log density: beyond, "
                             "its terms cancel and no digit of the result is correct; got "
                             f"{self.alpha.max():g}")
        log_b = gammaln(self.alpha).sum() - gammaln(self.alpha.sum())
        return (xlogy(self.alpha - 1, theta).sum(axis=-1) - log_b)[()]

    def pdf(self, theta):
        """Density of Dirichlet(alpha) at probability vectors ``theta``."""
        return np.exp(self.logpdf(theta))


def grid_learner(n_grid=101, a=1.0, b=1.0):
    """Chapter 1's learner with ``n_grid`` bags of cherry fraction ``0, 1/(n_grid-1), .., 1``.

    The prior gives bag ``theta_i`` a weight proportional to the Beta(a, b) density at
    ``theta_i`` (uniform for ``a = b = 1``); outcomes are ``"cherry"`` (probability
    ``theta_i``) and ``"lime"``. After ``c`` cherries and ``l`` limes the posterior mass
    of bag ``i``, divided by the grid step, approaches the Beta(a + c, b + l) density at
    ``theta_i`` as the grid gets finer. Needs ``a, b >= 1`` (the density is finite at 0
    and 1). Returns ``(theta, learner)``: the grid and the
    :class:`lib.bayes.DiscreteBayesLearner`.

    Used in: Chapter 2, section "From five bags to a continuum".

    >>> theta, learner = grid_learner(5)
    >>> theta, learner.posterior(["cherry"]).round(3)
    (array([0.  , 0.25, 0.5 , 0.75, 1.  ]), array([0. , 0.1, 0.2, 0.3, 0.4]))
    """
    n_grid = check_scalar(n_grid, "n_grid", kind="integer", low=2)
    a = check_scalar(a, "a", low=1)
    b = check_scalar(b, "b", low=1)
    theta = np.linspace(0.0, 1.0, n_grid)
    weight = np.exp(xlogy(a - 1, theta) + xlog1py(b - 1, -theta) - betaln(a, b))
    return theta, DiscreteBayesLearner(_normalise(weight), {"cherry": theta, "lime": 1 - theta})


# --------------------------------------------------------------- candy with wrappers
def bernoulli_log_likelihood(theta, n1, n0):
    """Log likelihood ``n1 log theta + n0 log(1 - theta)`` (natural log, elementwise).

    Used in: Chapter 2, section "Maximum likelihood for a coin".
    """
    theta = check_probabilities(theta, "theta", min_samples=0)
    n1, n0 = _counts(n1, "n1"), _counts(n0, "n0")
    return (xlogy(n1, theta) + xlog1py(n0, -theta))[()]


def wrapper_counts(cherry, red):
    """Counts (c, l, rc, gc, rl, gl) from boolean arrays of flavours and wrappers.

    ``cherry[j]`` is True for a cherry candy, ``red[j]`` True for a red wrapper.
    Used in: Chapter 2, section "Three parameters: flavour and wrapper".
    """
    cherry, red = check_binary(cherry, "cherry", ndim=1), check_binary(red, "red", ndim=1)
    check_consistent_length(cherry=cherry, red=red)
    c, rc, rl = cherry.sum(), (cherry & red).sum(), (~cherry & red).sum()
    l = cherry.size - c
    return dict(c=int(c), l=int(l), rc=int(rc), gc=int(c - rc), rl=int(rl), gl=int(l - rl))


def wrapper_log_likelihood(params, counts):
    """Log likelihood of the flavour/wrapper network (Figure 20.2b).

    ``params = (theta, theta1, theta2)``: P(cherry), P(red | cherry), P(red | lime);
    ``counts`` as returned by :func:`wrapper_counts`. The log likelihood is a sum of
    three Bernoulli terms, one per parameter.
    Used in: Chapter 2, section "Three parameters: flavour and wrapper".
    """
    params = check_probabilities(params, "params (theta, theta1, theta2)", ndim=1)
    if params.size != 3:
        raise ValueError(f"params must be (theta, theta1, theta2), got {params.size} values")
    theta, theta1, theta2 = params
    k = check_keyed_numbers(counts, "counts", ("c", "l", "rc", "gc", "rl", "gl"), low=0)
    return (bernoulli_log_likelihood(theta, k["c"], k["l"])
            + bernoulli_log_likelihood(theta1, k["rc"], k["gc"])
            + bernoulli_log_likelihood(theta2, k["rl"], k["gl"]))


def wrapper_mle(counts):
    """Closed-form ML estimates c/(c+l), rc/(rc+gc), rl/(rl+gl) of the wrapper network.

    Used in: Chapter 2, section "Three parameters: flavour and wrapper".
    """
    k = check_keyed_numbers(counts, "counts", ("c", "l", "rc", "gc", "rl", "gl"), low=0)
    return (float(mle_bernoulli(k["c"], k["l"])), float(mle_bernoulli(k["rc"], k["gc"])),
            float(mle_bernoulli(k["rl"], k["gl"])))


# ---------------------------------------------------------------- continuous models
def _data(x, name, min_size=1):
    return check_array(x, name, ndim=1, min_samples=min_size)


def gaussian_mle(x):
    """ML mean and standard deviation of 1-D data: the average and sqrt(SS / N).

    Note the N (not N - 1) in the denominator (Russell and Norvig, equation 20.4).
    Used in: Chapter 2, section "Gaussian data".

    >>> gaussian_mle([1.0, 3.0])
    (2.0, 1.0)
    """
    x = _data(x, "x")
    scale = np.abs(x).max() or 1.0     # work on x / scale: no overflow for huge values
    z = x / scale
    mu = z.mean()
    return float(mu * scale), float(np.sqrt(np.mean((z - mu) ** 2)) * scale)


def linear_gaussian_mle(x, y):
    """ML parameters (theta1, theta2, sigma) of y = theta1 x + theta2 + N(0, sigma^2).

    theta1 and theta2 are the least-squares line; sigma is the root mean squared
    residual (N in the denominator). Used in: Chapter 2, section
    "Linear Gaussian models: ML is least squares".
    """
    x, y = _data(x, "x", 2), _data(y, "y", 2)
    check_consistent_length(x=x, y=y)
    dx = x - x.mean()
    if not (dx != 0).any():
        raise ValueError("all x values are equal: the slope is not identifiable")
    theta1 = np.dot(dx, y - y.mean()) / np.dot(dx, dx)
    theta2 = y.mean() - theta1 * x.mean()
    sigma = np.sqrt(np.mean((y - theta1 * x - theta2) ** 2))
    return float(theta1), float(theta2), float(sigma)


def cross_entropy(y, p):
    """Cross entropy ``-sum y ln p + (1 - y) ln(1 - p)`` of 0/1 labels and predictions.

    This is minus the log likelihood of the labels when p = P(y = 1 | x) (Mitchell 1997, section 6.5).
    Used in: Chapter 2, section "Probability prediction: ML is cross entropy".
    """
    y = check_binary(y, "y").astype(float)
    p = check_probabilities(p, "p")
    if y.shape != p.shape:
        raise ValueError(f"y and p must have the same shape, got {y.shape} and {p.shape}")
    return float(-(xlogy(y, p) + xlog1py(1 - y, -p)).sum())


def _check_loss(loss):
    if loss not in ("cross_entropy", "squared"):
        raise ValueError(f"loss must be 'cross_entropy' or 'squared', got {loss!r}")


def fit_logistic(x, y, loss="cross_entropy"):
    """Fit ``h(x) = 1 / (1 + exp(-(w0 + w @ x)))`` to 0/1 labels by minimising ``loss``.

    ``loss="cross_entropy"`` minimises :func:`cross_entropy`, which is maximum
    likelihood (the fit of unpenalised logistic regression); ``loss="squared"``
    minimises ``sum (h(x_i) - y_i)^2``, treating the labels as numbers to regress on.
    ``x`` has shape (N,) or (N, d). Returns ``w = (w0, w1, ..., wd)``. Both losses are
    minimised by BFGS with exact gradients, starting from zero. With separable data the
    cross entropy has no minimum (the weights grow without bound).

    Used in: Chapter 2, section "Probability prediction: ML is cross entropy".
    """
    X = check_array(x, "x", ndim=(1, 2), min_samples=2)
    X = np.column_stack([np.ones(len(X)), X.reshape(len(X), -1)])
    y = check_binary(_data(y, "y", 2), "y").astype(float)
    check_consistent_length(x=X, y=y)
    if y.min() == y.max():
        raise ValueError("y must contain both labels 0 and 1 to fit a probability model")
    _check_loss(loss)

    def objective(w):
        z = X @ w
        h = expit(z)
        if loss == "cross_entropy":                 # sum log(1 + e^z) - y z, stable form
            return np.sum(np.logaddexp(0, z) - y * z), X.T @ (h - y)
        return np.sum((h - y) ** 2), X.T @ (2 * (h - y) * h * (1 - h))

    res = minimize(objective, np.zeros(X.shape[1]), jac=True, method="BFGS",
                   options={"gtol": 1e-9, "maxiter": 1000})
    return res.x


def fit_logistic_sets(xs, ys, loss="cross_entropy", gtol=1e-9, max_iter=500):
    """:func:`fit_logistic` on each of S data sets at once: row s of ``xs`` and ``ys``.

    ``xs`` and ``ys`` have shape (S, N); returns the (S, 2) array of ``(w0, w1)``, the
    optimum :func:`fit_logistic` finds for each row (tested to 1e-6), about a hundred times
    faster: one Newton iteration on all sets together (the squared error's with the
    Gauss-Newton matrix, which stays positive), each step halved until the loss falls
    enough (Armijo), until the largest gradient component is below ``gtol`` (BFGS's test)
    or a step no longer moves the weights.
    Used in: Chapter 2, section "Probability prediction: ML is cross entropy" (20 seeds).

    >>> x = np.array([[-2., -1., 0., 1., 2.], [-2., -1., 0., 1., 2.]])
    >>> y = np.array([[0, 0, 1, 0, 1], [0, 1, 0, 1, 1]])
    >>> w = fit_logistic_sets(x, y)
    >>> bool(np.allclose(w[1], fit_logistic(x[1], y[1]), atol=1e-6))
    True
    """
    X = check_array(xs, "xs", ndim=2, min_features=2)
    y = check_binary(ys, "ys", ndim=2).astype(float)
    if X.shape != y.shape:
        raise ValueError(f"xs and ys must have the same shape (sets, points), got {X.shape} and {y.shape}")
    rows = np.flatnonzero(y.min(axis=1) == y.max(axis=1))
    if rows.size:
        raise ValueError(f"each row of ys must contain both labels 0 and 1; rows {rows[:5].tolist()} do not")
    _check_loss(loss)
    design = np.stack([np.ones_like(X), X], axis=-1)            # (S, N, 2)

    def evaluate(w):   # fit_logistic's objective per set (shown in the chapter), and curvature weights
        z = np.einsum("snk,sk->sn", design, w)
        h = expit(z)
        if loss == "cross_entropy":
            f, r, d = np.sum(np.logaddexp(0, z) - y * z, axis=1), h - y, h * (1 - h)
        else:
            s = h * (1 - h)
            f, r, d = np.sum((h - y) ** 2, axis=1), 2 * (h - y) * s, 2 * s * s
        return f, np.einsum("snk,sn->sk", design, r), d

    w = np.zeros((len(X), 2))
    f, g, d = evaluate(w)
    active = np.ones(len(X), bool)
    for _ in range(max_iter):
        active &= np.abs(g).max(axis=1) > gtol
        if not active.any():
            return w
        H = np.einsum("snk,sn,snl->skl", design, d, design)   # (Gauss-)Newton matrix per set
        step = -np.linalg.solve(H + 1e-12 * np.eye(2), g[..., None])[..., 0]
        step[~active] = 0
        t = np.ones(len(X))
        for _ in range(60):                                      # backtracking, per set
            f_new, g_new, d_new = evaluate(w + t[:, None] * step)
            short = active & (f_new > f + 1e-4 * t * np.sum(g * step, axis=1) + 1e-13 * np.abs(f))
            if not short.any():
                break
            t[short] /= 2
        active &= np.abs(t[:, None] * step).max(axis=1) > 1e-13  # a step that no longer moves: done
        w, f, g, d = w + t[:, None] * step, f_new, g_new, d_new
    raise RuntimeError(f"fit_logistic_sets: {int(active.sum())} of {len(X)} sets did not converge "
                       f"in {max_iter} iterations")


# ------------------------------------------------------------- parameter counting
def _n_vars(n):
    return check_scalar(n, "n", kind="integer", low=1)


def n_params_full_table(n):
    """Free parameters of a table P(Y | X_1..X_n), Y and X_i boolean: 2**n.

    One number P(Y = 1 | x) per configuration x. Exact Python integer.
    Used in: Chapter 2, section "Counting parameters".
    """
    return 2 ** _n_vars(n)


def n_params_joint_given_class(n):
    """Free parameters of P(X_1..X_n | Y) plus P(Y) without independence: 2(2**n - 1) + 1."""
    return 2 * (2 ** _n_vars(n) - 1) + 1


def n_params_naive_bayes(n):
    """Free parameters of naive Bayes with n boolean attributes: 2n + 1."""
    return 2 * _n_vars(n) + 1

