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
from scipy.special import gammaln

from lib._validation import (check_array, check_option, check_probability_vector, check_rng,
                             check_scalar, check_shape)

CHUNK_CELLS = 65_536      # distances held in memory at once (512 kB: fits in the cache)
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


# ---------------------------------------------------------------------- validation
def _points(x, name, d=None):
    """``x`` as a finite float array of shape ``(n, d)`` (1-D input means ``d = 1``)."""
    a = check_array(x, name, ndim=(1, 2))
    if a.ndim == 1:
        a = a[:, None]
    if d is not None and a.shape[1] != d:
        raise ValueError(f"{name} has {a.shape[1]} dimensions but the data have {d}")
    return a


def _check_k(k, n):
    return check_scalar(k, f"k (1 to the number of data points, {n})", kind="integer",
                        low=1, high=n)


def _check_width(width):
    return check_scalar(width, "the kernel width", low=0, closed="neither")


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

    Parameters
    ----------
    query : array (m, d) or (m,)
    data : array (N, d) or (N,)
    k : int, 1 <= k <= N
    log : bool
        Return the log density instead (``inf`` where ``r_k = 0``).

    Used in: Chapter 9, section "k nearest neighbours".

    Examples
    --------
    >>> float(knn_density([0.5], [0.0, 1.0], k=1)[0])  # 1 / (2 * 1 * (2 * 0.5))
    0.5
    """
    data = _points(data, "data")
    query = _points(query, "query", data.shape[1])
    k = _check_k(k, len(data))
    log_p = _knn_log_density(query, data, [k])[:, 0]
    return log_p if log else np.exp(log_p)


def _knn_log_density(query, data, ks):
    """Log kNN density for several ``k`` at once: shape ``(len(query), len(ks))``."""
    n, d = data.shape
    ks = np.asarray(ks)
    r2 = np.empty((len(query), len(ks)))
    for rows, d2 in _squared_distances(query, data):
        r2[rows] = np.partition(d2, ks - 1, axis=1)[:, ks - 1]
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
    data = _points(data, "data")
    query = _points(query, "query", data.shape[1])
    width = _check_width(width)
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
    their infinite total mass). So for ``method="knn"`` (1-D or 2-D data only) each
    estimate is first divided by its integral over the data's bounding box widened by
    a quarter of its size on each side; the kernel estimate integrates to 1 already.

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
    data = _points(data, "data")
    check_option(method, "method", ("knn", "kernel"))
    values = list(values)
    if not values:
        raise ValueError("values is empty: give at least one candidate")
    if method == "kernel":
        values = [_check_width(w) for w in values]
    n_folds = check_scalar(n_folds, "n_folds", kind="integer", low=2, high=len(data))
    rng = check_rng(rng)
    if method == "knn" and data.shape[1] > 2:
        raise ValueError("cross-validating k needs 1-D or 2-D data (the estimate is normalised on a grid)")
    lo, hi = data.min(axis=0), data.max(axis=0)
    lo, hi = lo - 0.25 * (hi - lo) - 1e-9, hi + 0.25 * (hi - lo) + 1e-9
    folds = np.array_split(rng.permutation(len(data)), n_folds)
    scores = np.zeros(len(values))
    for held in folds:
        train = np.delete(data, held, axis=0)
        if method == "knn":
            ks = [_check_k(k, len(train)) for k in values]
            cells = 100 if data.shape[1] == 2 else 2000
            axes = [a + (b - a) * (np.arange(cells) + 0.5) / cells for a, b in zip(lo, hi)]
            grid = np.stack(np.meshgrid(*axes, indexing="ij"), axis=-1).reshape(-1, len(lo))
            cell = np.prod((hi - lo) / cells)
            log_z = np.log(np.exp(_knn_log_density(grid, train, ks)).sum(axis=0) * cell)
            scores += (_knn_log_density(data[held], train, ks) - log_z).sum(axis=0)
        else:
            for i, w in enumerate(values):
                scores[i] += kernel_density(data[held], train, w, log=True).sum()
    scores /= len(data)
    return values[int(np.argmax(scores))], scores


# ---------------------------------------------------------------------- the mixture
def mixture_density(points, weights=MIXTURE_WEIGHTS, means=MIXTURE_MEANS,
                    covariances=MIXTURE_COVARIANCES):
    """Density of a mixture of 2-D (or d-D) Gaussians at each point.

    Used in: Chapter 9, section "A sample from a mixture".
    """
    weights, means, covariances = _check_mixture(weights, means, covariances)
    x = _points(points, "points", means.shape[1])
    total = np.zeros(len(x))
    for w, m, c in zip(weights, means, covariances):
        diff = x - m
        sol = np.linalg.solve(c, diff.T).T
        norm = np.sqrt(np.linalg.det(2 * np.pi * c))
        total += w * np.exp(-0.5 * np.einsum("ij,ij->i", diff, sol)) / norm
    return total


def sample_mixture(n, rng, weights=MIXTURE_WEIGHTS, means=MIXTURE_MEANS,
                   covariances=MIXTURE_COVARIANCES):
    """``n`` points drawn from the Gaussian mixture, and which component drew each.

    Used in: Chapter 9, section "A sample from a mixture" (the 128-point sample).
    """
    weights, means, covariances = _check_mixture(weights, means, covariances)
    n = check_scalar(n, "n", kind="integer", low=0)
    rng = check_rng(rng)
    z = rng.choice(len(weights), size=n, p=weights)
    chol = np.linalg.cholesky(covariances)
    eps = rng.standard_normal((n, means.shape[1]))
    return means[z] + np.einsum("nij,nj->ni", chol[z], eps), z


def _check_mixture(weights, means, covariances):
    """K weights summing to one, K means of dimension d, K symmetric positive definite
    d x d covariances: a mismatch raises instead of silently dropping a component."""
    means = check_array(means, "means", ndim=2)
    K, d = means.shape
    weights = check_probability_vector(weights, "weights", size=K)
    covariances = check_shape(check_array(covariances, "covariances", ndim=3),
                              "covariances", (K, d, d))
    for k, c in enumerate(covariances):
        if not np.allclose(c, c.T) or np.linalg.eigvalsh(c)[0] <= 0:
            raise ValueError(f"covariances[{k}] must be symmetric positive definite, got {c.tolist()}")
    return weights, means, covariances
