"""Nonparametric density estimation: k-nearest-neighbour and Gaussian kernel density
estimates, and choosing k or the kernel width by cross-validation (Chapter 9,
"Nonparametric density estimation").

Both estimators keep the whole training sample as the "model". Distances between all
query and training points are computed as one matrix product per chunk of queries
(``|q - x|^2 = |q|^2 + |x|^2 - 2 q.x``), so 10,000 queries against 2,000 training points
take a fraction of a second; chunks bound the memory to about ``CHUNK_CELLS`` numbers.
Where that expansion would lose accuracy (points far apart compared with the kernel
width) a chunk is computed from the coordinate differences instead
(``_expansion_cancels``, ``_direct_squared_distances``).
The chapter's figures are drawn in :mod:`lib.plots.density`.
"""
import numpy as np
from scipy.special import gammaln, logsumexp
from scipy.stats import multivariate_normal

from lib._validation import check_mixture, check_option, check_points, check_rng, check_scalar, check_scale
from lib.em.mixture import sample_mixture  # noqa: F401  (Chapter 9 draws its sample with it)

CHUNK_CELLS = 65_536      # distances held in memory at once (512 kB: fits in the cache)
WIDENING = np.array([1.0, 2.0, 4.0])   # kernel widths of the kNN normaliser's proposal
EXPANSION_TOL = 1e-11     # largest rounding error (log-kernel units) the fast expansion may make

# The three-component mixture of Figures 20.7 and 20.11 of the source: weights
# 0.2, 0.3, 0.5 from left to right (the source gives only the weights; the means and
# covariances below are this course's choice, on the unit square).
MIXTURE_WEIGHTS = np.array([0.2, 0.3, 0.5])
MIXTURE_MEANS = np.array([[0.22, 0.62], [0.50, 0.32], [0.76, 0.62]])
MIXTURE_COVARIANCES = np.array([
    [[0.0080, 0.0020], [0.0020, 0.0100]],
    [[0.0140, -0.0030], [-0.0030, 0.0060]],
    [[0.0060, 0.0015], [0.0015, 0.0070]],
])
MIXTURE = (MIXTURE_WEIGHTS, MIXTURE_MEANS, MIXTURE_COVARIANCES)   # sample_mixture(n, *MIXTURE)


def _chunk_rows(n_queries, n_data):
    """Slices of the queries, each chunk holding about ``CHUNK_CELLS`` distances."""
    step = max(1, CHUNK_CELLS // n_data)
    return (slice(a, a + step) for a in range(0, n_queries, step))


def _expansion_cancels(gqq, gxx, d):
    """Whether ``g |q|^2 + g |x|^2 - 2 g q.x`` (centred points) may be off by more than
    ``EXPANSION_TOL``: its rounding error is about ``eps (d + 2) |g| (|q|^2 + |x|^2)``,
    absolute, so it cancels when the points lie far apart compared with the distances
    that matter (a data spread of 1e7 kernel widths gave log-density errors of 1e-2)."""
    bound = 4 * (d + 2) * np.finfo(float).eps * (np.abs(gqq).max() + np.abs(gxx).max())
    return bound > EXPANSION_TOL


def _direct_squared_distances(query, data):
    """``|q - x|^2`` from the coordinate differences, one coordinate at a time (exact to
    the rounding of each term; the raw coordinates, as centring would round too)."""
    d2 = np.zeros((len(query), len(data)))
    for k in range(data.shape[1]):
        diff = query[:, k, None] - data[:, k]
        diff *= diff
        d2 += diff
    return d2


def _squared_distances(query, data):
    """Chunks ``(rows, d2)``: squared distances from ``query[rows]`` to every data point."""
    centre = data.mean(axis=0)               # centring keeps the expansion accurate
    q, x = query - centre, data - centre
    xx = np.einsum("ij,ij->i", x, x)
    qq = np.einsum("ij,ij->i", q, q)
    for rows in _chunk_rows(len(q), len(x)):
        if _expansion_cancels(qq[rows], xx, x.shape[1]):
            yield rows, _direct_squared_distances(query[rows], data)
            continue
        d2 = q[rows] @ (-2.0 * x.T)
        d2 += xx
        d2 += qq[rows, None]
        np.maximum(d2, 0.0, out=d2)          # rounding can make tiny distances negative
        yield rows, d2


def log_ball_volume(d):
    """Log of the volume of the unit ball in ``d`` dimensions, ``pi^(d/2) / Gamma(d/2 + 1)``."""
    d = check_scalar(d, "d", kind="integer", low=1)
    return 0.5 * d * np.log(np.pi) - gammaln(0.5 * d + 1)


# ---------------------------------------------------------------------- estimators
def knn_density(query, data, k, log=False):
    """k-nearest-neighbour density estimate at each query point.

    ``P(x) = k / (N V_d r_k(x)^d)``: the fraction ``k / N`` of the sample that lies in
    the smallest ball around ``x`` holding ``k`` sample points, divided by that ball's
    volume (``r_k`` is the distance to the k-th nearest sample point, ``V_d`` the
    volume of the unit ball). The estimate is *not* a normalised density: far from
    the data it falls off only like ``1 / |x|^d``, so its integral over all of space
    diverges. Over the region holding the data it integrates to about 1 when ``k`` is
    large and ``k / N`` small.

    Used in: Chapter 9, section "k nearest neighbours".

    Parameters
    ----------
    query : array (m, d) or (m,)
    data : array (N, d) or (N,)
    k : int, 1 <= k <= N
    log : bool
        Return the log density instead (``inf`` where ``r_k = 0``).

    Examples
    --------
    >>> round(float(knn_density([0.5], [0.0, 1.0], k=1)[0]), 12)  # 1 / (2 * 1 * (2 * 0.5))
    0.5
    """
    data = check_points(data, "data")
    query = check_points(query, "query", data.shape[1])
    k = check_scalar(k, "k", kind="integer", low=1, high=len(data))
    log_p = _knn_log_density(query, data, [k])[:, 0]
    return log_p if log else np.exp(log_p)


def _knn_log_density(query, data, ks):
    """Log kNN density for several ``k`` at once: shape ``(len(query), len(ks))``."""
    n, d = data.shape
    ks = np.asarray(ks)
    r2 = np.empty((len(query), len(ks)))
    for rows, d2 in _squared_distances(query, data):
        # (a row sort: numpy's partition at several k is several times slower)
        r2[rows] = np.sort(d2, axis=1)[:, ks - 1]
    with np.errstate(divide="ignore"):
        return np.log(ks / n) - log_ball_volume(d) - 0.5 * d * np.log(r2)


def kernel_density(query, data, width, log=False):
    """Gaussian kernel density estimate: the average of one spherical Gaussian bump of
    standard deviation ``width`` centred on each data point.

    ``P(x) = (1/N) sum_j (2 pi w^2)^(-d/2) exp(-|x - x_j|^2 / (2 w^2))``, evaluated in
    log space with the log-sum-exp trick (``log=True`` returns ``log P(x)``, which stays
    finite far from the data where ``P(x)`` itself underflows to 0).

    Used in: Chapter 9, section "Kernel density estimation".

    Examples
    --------
    >>> round(float(kernel_density([0.0], [0.0], width=1.0)[0]), 4)  # 1 / sqrt(2 pi)
    0.3989
    """
    data = check_points(data, "data")
    query = check_points(query, "query", data.shape[1])
    width = check_scale(width, "the kernel width")
    n, d = data.shape
    g = -0.5 / width**2
    centre = data.mean(axis=0)                   # centring keeps the expansion accurate
    q, x = query - centre, data - centre
    # log kernel = g |q|^2 + (g |x|^2 - 2 g q.x); the g |q|^2 part is added last
    gxx, x_scaled = g * np.einsum("ij,ij->i", x, x), (-2.0 * g) * x.T
    out = g * np.einsum("ij,ij->i", q, q)
    for rows in _chunk_rows(len(q), n):
        if _expansion_cancels(out[rows], gxx, d):   # far apart against w: the differences
            e, out[rows] = g * _direct_squared_distances(query[rows], data), 0.0
        else:
            e = q[rows] @ x_scaled + gxx
        top = e.max(axis=1)                      # log-sum-exp, one row per query
        e -= top[:, None]
        np.exp(e, out=e)
        out[rows] += np.log(e.sum(axis=1)) + top
    log_p = out - np.log(n) - 0.5 * d * np.log(2 * np.pi * width**2)
    return log_p if log else np.exp(log_p)


def cross_validate(data, method, values, n_folds=5, rng=0):
    """Mean held-out log-likelihood per data point of each candidate ``k`` or width.

    The sample is split at random into ``n_folds`` folds; each fold in turn is held
    out, the estimate is built from the others and the log density of the held-out
    points is averaged.

    The kNN estimate is not normalised, and unnormalised it would always win with
    ``k = 1`` (its spikes at the data points are tall, and nothing charges it for
    their infinite total mass). So for ``method="knn"`` each estimate is first divided
    by its mass near the training data (:func:`knn_log_normaliser`); the kernel
    estimate integrates to 1 already.

    Parameters
    ----------
    data : array (N, d)
    method : {"knn", "kernel"}
    values : sequence of candidate k (for "knn") or widths (for "kernel")
    n_folds : int, 2 <= n_folds <= N
    rng : seed or numpy Generator (for the split)

    Returns
    -------
    best, scores : the value with the highest score, and an array of the scores.

    Used in: Chapter 9, section "Choosing k and w by cross-validation".
    """
    data = check_points(data, "data")
    check_option(method, "method", ("knn", "kernel"))
    values = list(values)
    if not values:
        raise ValueError("values is empty: give at least one candidate")
    if method == "kernel":
        values = [check_scale(w, "the kernel width") for w in values]
    n_folds = check_scalar(n_folds, "n_folds", kind="integer", low=2, high=len(data))
    rng = check_rng(rng)
    folds = np.array_split(rng.permutation(len(data)), n_folds)
    scores = np.zeros(len(values))
    for held in folds:
        train = np.delete(data, held, axis=0)
        if method == "knn":
            ks = [check_scalar(k, "k", kind="integer", low=1, high=len(train)) for k in values]
            log_p = _knn_log_density(data[held], train, ks)
            if np.isposinf(log_p).any():
                i, j = np.argwhere(np.isposinf(log_p))[0]
                raise ValueError(
                    f"data has duplicate points: data[{held[i]}] = {data[held[i]].tolist()} "
                    f"coincides with at least k = {ks[j]} of the other points, where the kNN "
                    "density is infinite; remove the duplicates or try larger k")
            scores += (log_p - knn_log_normaliser(train, ks, rng=rng)).sum(axis=0)
        else:
            for i, w in enumerate(values):
                scores[i] += kernel_density(data[held], train, w, log=True).sum()
    scores /= len(data)
    return values[int(np.argmax(scores))], scores


def knn_log_normaliser(data, ks, n_samples=2000, rng=0):
    """Log of the mass of the kNN estimate near the data, for each ``k`` in ``ks``.

    The kNN estimate has infinite total mass (its tails fall like ``1/|x|^d``), so it
    is normalised over a region around the data instead. In one and two dimensions
    the region is the data's bounding box widened by a quarter of its size on each
    side, integrated on a grid (2000 cells, or 100 x 100). In more dimensions a grid
    is out of reach; the region is the ball around the data mean whose radius is 1.5
    times the largest distance of a data point from the mean, and the integral is
    estimated by importance sampling with ``n_samples`` draws from a defensive
    mixture (half a Gaussian kernel estimate of the data, half uniform in the ball),
    so that both the bulk near the data and the tails in the ball are covered.

    Used in: Chapter 9, sections "Choosing k and w by cross-validation" and "The
    curse of dimensionality, measured".
    """
    data = check_points(data, "data")
    n, d = data.shape
    ks = np.array([check_scalar(k, "k", kind="integer", low=1, high=n) for k in np.atleast_1d(ks).tolist()])
    if d <= 2:
        lo, hi = data.min(axis=0), data.max(axis=0)
        lo, hi = lo - 0.25 * (hi - lo) - 1e-9, hi + 0.25 * (hi - lo) + 1e-9
        cells = 100 if d == 2 else 2000
        axes = [a + (b - a) * (np.arange(cells) + 0.5) / cells for a, b in zip(lo, hi)]
        grid = np.stack(np.meshgrid(*axes, indexing="ij"), axis=-1).reshape(-1, d)
        cell = np.prod((hi - lo) / cells)
        return logsumexp(_knn_log_density(grid, data, ks), axis=0) + np.log(cell)
    n_samples = check_scalar(n_samples, "n_samples", kind="integer", low=1)
    rng = check_rng(rng)
    centre = data.mean(axis=0)
    radius = 1.5 * np.sqrt(((data - centre) ** 2).sum(axis=1).max())
    if radius == 0:
        raise ValueError(f"data must hold at least two distinct points, got {n} copies of one")
    # kernel parts: a data point plus Gaussian noise, of Silverman's rule-of-thumb
    # width and of WIDENING times it (heavier tails, as the kNN estimate has)
    width = data.std(axis=0).mean() * (4 / ((d + 2) * n)) ** (1 / (d + 4)) * WIDENING
    parts = len(width) + 1
    which = rng.integers(parts, size=n_samples)
    x = data[rng.integers(n, size=n_samples)]
    x = x + width[np.minimum(which, parts - 2), None] * rng.standard_normal((n_samples, d))
    far = which == parts - 1                      # uniform in the ball
    direction = rng.standard_normal((far.sum(), d))
    direction /= np.linalg.norm(direction, axis=1, keepdims=True)
    x[far] = centre + direction * radius * rng.random((far.sum(), 1)) ** (1 / d)
    x = x[((x - centre) ** 2).sum(axis=1) <= radius**2]     # draws outside count as 0
    # one pass over the distances gives r_k for the kNN estimate and the kernel parts
    r2, log_q = np.empty((len(x), len(ks))), np.empty((len(x), parts))
    log_q[:, -1] = -log_ball_volume(d) - d * np.log(radius)
    for rows, d2 in _squared_distances(x, data):
        r2[rows] = np.sort(d2, axis=1)[:, ks - 1]
        nearest = d2.min(axis=1, keepdims=True)
        for j, w in enumerate(width):          # log-sum-exp, the nearest term factored out
            total = np.exp((nearest - d2) / (2 * w**2)).sum(axis=1)
            log_q[rows, j] = (np.log(total) - nearest[:, 0] / (2 * w**2) - np.log(n)
                              - 0.5 * d * np.log(2 * np.pi * w**2))
    with np.errstate(divide="ignore"):
        log_knn = np.log(ks / n) - log_ball_volume(d) - 0.5 * d * np.log(r2)
    log_w = log_knn - (logsumexp(log_q, axis=1) - np.log(parts))[:, None]
    return logsumexp(log_w, axis=0) - np.log(n_samples)


# ---------------------------------------------------------------------- the mixture
def mixture_density(points, weights=MIXTURE_WEIGHTS, means=MIXTURE_MEANS,
                    covariances=MIXTURE_COVARIANCES, log=False):
    """Density of a mixture of 2-D (or d-D) Gaussians at each point (its log with
    ``log=True``, computed with log-sum-exp, so it stays finite in many dimensions).

    Used in: Chapter 9, section "A sample from a mixture".
    """
    weights, means, covariances = check_mixture(weights, means, covariances)
    x = check_points(points, "points", means.shape[1])
    terms = np.empty((len(x), len(weights)))
    for j, (m, c) in enumerate(zip(means, covariances)):
        terms[:, j] = multivariate_normal(m, c).logpdf(x)
    log_p = logsumexp(terms + np.log(weights), axis=1)
    return log_p if log else np.exp(log_p)


# ---------------------------------------------------------------------- curse of dimensionality
def curse_mixture(d):
    """The mixture of the dimension experiment: weights 0.2, 0.3, 0.5, means ``-3u``,
    ``0`` and ``3u`` along the diagonal ``u = (1, ..., 1) / sqrt(d)`` (the same
    separation in every dimension) and covariances ``I``, ``0.5^2 I`` and ``0.75^2 I``.
    Returns ``(weights, means, covariances)``.

    Used in: Chapter 9, section "The curse of dimensionality, measured".
    """
    d = check_scalar(d, "d", kind="integer", low=1)
    u = np.ones(d) / np.sqrt(d)
    means = np.outer([-3.0, 0.0, 3.0], u)
    covariances = np.array([s**2 * np.eye(d) for s in (1.0, 0.5, 0.75)])
    return MIXTURE_WEIGHTS.copy(), means, covariances


def held_out_scores(n, d, n_test=2000, rng=0, n_init=20):
    """Mean held-out log likelihood per point of four densities for ``n`` training
    points from :func:`curse_mixture` in ``d`` dimensions, scored on ``n_test`` fresh
    points: ``"true"`` (the mixture itself), ``"em"`` (a three-component Gaussian
    mixture fitted by EM, the best of ``n_init`` restarts), ``"kernel"`` (Gaussian kernel estimate, the
    width chosen by five-fold cross-validation on the training points) and ``"knn"``
    (k chosen the same way, normalised by :func:`knn_log_normaliser`). The chosen
    ``"width"`` and ``"k"`` are returned too.

    Used in: Chapter 9, section "The curse of dimensionality, measured".
    """
    from lib.em import GaussianMixture  # the one EM implementation (Chapter 7)

    n = check_scalar(n, "n", kind="integer", low=10)
    n_test = check_scalar(n_test, "n_test", kind="integer", low=1)
    rng = check_rng(rng)
    mixture = curse_mixture(d)
    test, _ = sample_mixture(n_test, *mixture, rng=rng)   # first: the same test set for every n
    train, _ = sample_mixture(n, *mixture, rng=rng)
    width, _ = cross_validate(train, "kernel", np.geomspace(0.05, 3, 18), rng=rng)
    ks = [k for k in (1, 2, 3, 5, 8, 13, 20, 30, 50, 80, 130, 200) if k <= 0.8 * n]
    k, _ = cross_validate(train, "knn", ks, rng=rng)
    em = GaussianMixture(3, n_init=n_init, reg=1e-3, random_state=rng).fit(train)
    knn = _knn_log_density(test, train, [k])[:, 0] - knn_log_normaliser(train, [k], rng=rng)[0]
    return {"true": mixture_density(test, *mixture, log=True).mean(),
            "em": em.score(test),
            "kernel": kernel_density(test, train, width, log=True).mean(),
            "knn": knn.mean(), "width": width, "k": k}


def em_shortfalls(n, d, n_inits=(3, 20), n_test=2000, rng=0):
    """How far EM falls short of the truth on :func:`curse_mixture`, and whether it
    reached the global optimum. For ``n`` training points in ``d`` dimensions (and
    ``n_test`` test points), fits a three-component mixture with each number of random
    restarts in ``n_inits`` and once started at the true parameters. Returns a dict
    keyed by each ``n_init`` and ``"truth"``, each value ``(shortfall, log_lik)``: the
    mean held-out log likelihood per point lost against the true density, and the
    training log likelihood reached (the higher, the closer to the global optimum).
    ``"p/2n"`` is the asymptotic expected shortfall ``p / (2n)``, ``p`` the number of
    free parameters.

    Used in: Chapter 9, section "The curse of dimensionality, measured".
    """
    from lib.em import GaussianMixture

    n = check_scalar(n, "n", kind="integer", low=10)
    rng = check_rng(rng)
    mixture = curse_mixture(d)
    test, _ = sample_mixture(n_test, *mixture, rng=rng)
    train, _ = sample_mixture(n, *mixture, rng=rng)
    truth = mixture_density(test, *mixture, log=True).mean()
    starts = {k: {"n_init": check_scalar(k, "n_inits", kind="integer", low=1), "random_state": rng}
              for k in n_inits}
    starts["truth"] = {"init": dict(zip(["weights", "means", "covariances"], mixture))}
    out = {}
    for key, options in starts.items():
        em = GaussianMixture(3, reg=1e-3, **options).fit(train)
        out[key] = (truth - em.score(test), em.log_likelihoods_[-1])
    out["p/2n"] = (3 * d + 3 * d * (d + 1) // 2 + 2) / (2 * n)
    return out
