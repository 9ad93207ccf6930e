"""Tests of lib.density: scikit-learn's KernelDensity as an oracle, normalisation,
cross-validation and bad input."""
import numpy as np
import pytest
from scipy.special import logsumexp

from lib import density
from lib.density import cross_validate, kernel_density, knn_density

sklearn_neighbors = pytest.importorskip("sklearn.neighbors")


@pytest.mark.parametrize("d, width", [(1, 0.3), (2, 0.02), (2, 0.07), (2, 0.2), (3, 0.5), (8, 1.0)])
def test_kernel_density_equals_sklearn(d, width):
    rng = np.random.default_rng(d)
    data, query = rng.random((300, d)), rng.random((500, d)) * 1.4 - 0.2
    ref = sklearn_neighbors.KernelDensity(kernel="gaussian", bandwidth=width).fit(data)
    ours, theirs = kernel_density(query, data, width, log=True), ref.score_samples(query)
    # scikit-learn's tree sums in linear space and loses accuracy where the density is
    # tiny, so compare with it where it is not, and with a brute-force sum everywhere
    some = theirs > -20
    assert some.sum() >= 100
    np.testing.assert_allclose(ours[some], theirs[some], rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(kernel_density(query, data, width)[some], np.exp(theirs[some]), rtol=1e-9)
    d2 = ((query[:, None, :] - data[None, :, :]) ** 2).sum(axis=2)
    brute = logsumexp(-d2 / (2 * width**2), axis=1) - np.log(300) - d / 2 * np.log(2 * np.pi * width**2)
    np.testing.assert_allclose(ours, brute, rtol=1e-12, atol=1e-10)


def test_kernel_density_chunks_far_points_and_offsets(monkeypatch):
    rng = np.random.default_rng(0)
    data = rng.random((50, 2)) + 1e4             # far from the origin: centring matters
    query = np.vstack([data[:3] + 0.01, [[1e4 + 50, 1e4]]])   # the last is far away
    ref = sklearn_neighbors.KernelDensity(bandwidth=0.05).fit(data)
    monkeypatch.setattr(density, "CHUNK_CELLS", 60)   # one query per chunk
    log_p = kernel_density(query, data, 0.05, log=True)
    np.testing.assert_allclose(log_p, ref.score_samples(query), rtol=1e-8)
    assert np.isfinite(log_p[-1]) and log_p[-1] < -1e5     # the density itself underflows
    assert kernel_density(query, data, 0.05)[-1] == 0.0


def _direct_log_kde(query, data, width):
    """log KDE from the coordinate differences themselves (no expansion), scipy logsumexp."""
    d2 = ((query[:, None, :] - data[None, :, :]) ** 2).sum(axis=2)
    return (logsumexp(-d2 / (2 * width**2), axis=1) - np.log(len(data))
            - data.shape[1] / 2 * np.log(2 * np.pi * width**2))


@pytest.mark.parametrize("d", [1, 2, 3])
@pytest.mark.parametrize("spread", [1e3, 1e4, 1e5, 1e6, 1e7])
def test_kernel_density_stays_accurate_when_the_spread_dwarfs_the_width(d, spread):
    """|q|^2 + |x|^2 - 2 q.x cancels when the data spread is large against the width
    (errors of 1e-2 at 1e7); the log densities must stay within 1e-9 of direct sums."""
    rng = np.random.default_rng(int(spread) % 97 + d)
    width = 0.3
    data = rng.standard_normal((400, d)) * spread * width + 5e4   # off the origin as well
    query = np.vstack([data[:60] + rng.normal(0, width, (60, d)),   # near data points
                       rng.standard_normal((40, d)) * spread * width + 5e4])
    ours, ref = kernel_density(query, data, width, log=True), _direct_log_kde(query, data, width)
    assert np.all(np.abs(ours - ref) <= 1e-9 * np.maximum(1.0, np.abs(ref)))
    # the near queries have log densities of order 1, so this is an absolute 1e-9 there
    assert np.abs(ref[:60]).max() < 50 + d * np.log(spread)


def test_kernel_density_fast_path_keeps_1e_minus_9_over_moderate_spreads():
    rng = np.random.default_rng(5)
    for spread in np.geomspace(1, 3e3, 12):
        data = rng.random((200, 2)) * spread
        query = np.vstack([data[:40] + rng.normal(0, 0.05, (40, 2)), rng.random((40, 2)) * spread])
        ours, ref = kernel_density(query, data, 1.0, log=True), _direct_log_kde(query, data, 1.0)
        assert np.all(np.abs(ours - ref) <= 1e-9 * np.maximum(1.0, np.abs(ref))), spread


def test_knn_density_stays_accurate_when_far_apart():
    rng = np.random.default_rng(6)
    data = rng.standard_normal((300, 2)) * 1e7
    query = data[:20] + rng.normal(0, 1e-2, (20, 2))
    r = np.sort(np.sqrt(((query[:, None] - data[None]) ** 2).sum(axis=2)), axis=1)[:, 2]
    expected = np.log(3 / 300) - np.log(np.pi) - 2 * np.log(r)
    np.testing.assert_allclose(knn_density(query, data, 3, log=True), expected, rtol=1e-12)


def test_kernel_density_integrates_to_one():
    rng = np.random.default_rng(1)
    data = rng.standard_normal(200)
    grid = np.linspace(-8, 8, 4001)
    assert np.trapezoid(kernel_density(grid, data, 0.3), grid) == pytest.approx(1.0, abs=1e-6)


def test_knn_density_by_hand():
    data = np.array([0.0, 1.0, 3.0])
    # at 0.5 the 2nd nearest point (3.0 is farther) is at distance 0.5: 2 / (3 * 2 * 0.5)
    assert knn_density([0.5], data, 2)[0] == pytest.approx(2 / 3)
    # in 2-D the ball is a disc: k / (N pi r^2)
    data2 = np.array([[0.0, 0.0], [3.0, 4.0]])
    assert knn_density([[0.0, 0.0]], data2, 2)[0] == pytest.approx(2 / (2 * np.pi * 25))
    assert knn_density([[0.0, 0.0]], data2, 1)[0] == np.inf       # zero radius
    assert knn_density([[0.0, 0.0]], data2, 2, log=True)[0] == pytest.approx(np.log(2 / (2 * np.pi * 25)))


@pytest.mark.parametrize("dist", ["uniform", "normal"])
def test_knn_density_integrates_to_about_one_over_the_data(dist):
    # The kNN estimate is not normalised (its tails fall like 1/|x|, so its integral
    # over the whole line diverges). Over the region holding the data, with many
    # points, k large and k/N small, it integrates to nearly 1.
    rng = np.random.default_rng(2)
    x = rng.random(5000) if dist == "uniform" else rng.standard_normal(5000)
    lo, hi = (0.0, 1.0) if dist == "uniform" else (-4.0, 4.0)
    grid = np.linspace(lo, hi, 8001)
    assert np.trapezoid(knn_density(grid, x, 50), grid) == pytest.approx(1.0, abs=0.04)
    # beyond the data the integral keeps growing (like log |x|): not a density
    few = x[:200]
    tail = np.geomspace(hi, 1e6, 2001)
    grid = np.concatenate([-tail[::-1], np.linspace(-hi, hi, 2001), tail])
    assert np.trapezoid(knn_density(grid, few, 20), grid) > 2.0


def test_knn_density_matches_sorted_distances():
    rng = np.random.default_rng(3)
    data, query = rng.random((200, 2)), rng.random((30, 2))
    r = np.sort(np.linalg.norm(query[:, None] - data[None], axis=2), axis=1)[:, 9]
    np.testing.assert_allclose(knn_density(query, data, 10), 10 / (200 * np.pi * r**2), rtol=1e-9)


def test_cross_validation_picks_sensible_values():
    data, _ = density.sample_mixture(128, *density.MIXTURE, rng=3)
    k, k_scores = cross_validate(data, "knn", [1, 3, 10, 40, 100], rng=0)
    w, w_scores = cross_validate(data, "kernel", [0.005, 0.02, 0.07, 0.2, 0.5], rng=0)
    assert k in (3, 10) and w in (0.02, 0.07)
    assert k_scores.argmax() not in (0, 4) and w_scores.argmax() not in (0, 4)
    # a sample from one wide Gaussian wants a wider kernel than one from a narrow one
    rng = np.random.default_rng(0)
    narrow, _ = cross_validate(rng.normal(0, 0.1, 300), "kernel", np.geomspace(0.005, 2, 30))
    wide, _ = cross_validate(rng.normal(0, 1.0, 300), "kernel", np.geomspace(0.005, 2, 30))
    assert 3 < wide / narrow < 30


def test_mixture_density_integrates_to_one_and_sample_proportions():
    g = np.linspace(-0.5, 1.5, 401)
    xx, yy = np.meshgrid(g, g)
    p = density.mixture_density(np.column_stack([xx.ravel(), yy.ravel()]))
    assert p.sum() * (g[1] - g[0]) ** 2 == pytest.approx(1.0, abs=1e-3)
    _, z = density.sample_mixture(20_000, *density.MIXTURE, rng=0)
    np.testing.assert_allclose(np.bincount(z) / 20_000, [0.2, 0.3, 0.5], atol=0.01)


@pytest.mark.parametrize("call, error, message", [
    (lambda: knn_density([[0.0, 0.0]], [[0.0, 1.0], [1.0, 1.0]], 3), ValueError,
     "k must be an integer in [1, 2], got 3"),
    (lambda: knn_density([[0.0, 0.0]], [[0.0, 1.0], [1.0, 1.0]], 1.5), TypeError,
     "must be an integer in [1, 2], got 1.5"),
    (lambda: knn_density([[0.0, 0.0]], [[0.0, 1.0]], 0), ValueError, "got 0"),
    (lambda: knn_density([[0.0]], [[0.0, 1.0]], 1), ValueError, "query has 1 dimensions but the data have 2"),
    (lambda: kernel_density([[0.0]], [[0.0]], 0.0), ValueError, "the kernel width must be a real number > 0, got 0"),
    (lambda: kernel_density([[0.0]], [[0.0]], -1), ValueError, "the kernel width must be a real number > 0, got -1"),
    (lambda: kernel_density([[0.0]], [[0.0]], "wide"), TypeError, "the kernel width must be a real number > 0, got 'wide'"),
    (lambda: kernel_density([[0.0]], [[0.0]], np.nan), ValueError, "the kernel width must be a real number > 0, got nan"),
    (lambda: kernel_density([[0.0]], [[np.nan]], 1.0), ValueError, "data must not contain NaN"),
    (lambda: kernel_density([[0.0]], [[np.inf]], 1.0), ValueError, "data must be finite"),
    (lambda: kernel_density([[0.0]], np.empty((0, 1)), 1.0), ValueError, "empty data"),
    (lambda: kernel_density(np.zeros((2, 2, 2)), [[0.0]], 1.0), ValueError, "query must be a 1-D or 2-D array, got shape (2, 2, 2)"),
    (lambda: kernel_density([["a"]], [[0.0]], 1.0), TypeError, "query must hold real numbers"),
    (lambda: cross_validate([[0.0], [1.0], [2.0]], "tree", [1]), ValueError, "method must be"),
    (lambda: cross_validate([[0.0], [1.0], [2.0]], "kernel", []), ValueError, "values is empty"),
    (lambda: cross_validate([[0.0], [1.0], [2.0]], "kernel", [1.0], n_folds=4), ValueError, "n_folds"),
    (lambda: cross_validate([[0.0], [1.0], [2.0]], "kernel", [1.0], n_folds=2, rng="seed"), TypeError, "rng must be"),
    (lambda: cross_validate(np.zeros((10, 3)), "knn", [1]), ValueError, "duplicate points"),
    (lambda: density.knn_log_normaliser(np.ones((5, 4)), [2]), ValueError, "got 5 copies of one"),
    (lambda: density.knn_log_normaliser(np.eye(4), [5]), ValueError, "got 5"),
    (lambda: density.knn_log_normaliser(np.eye(4), [2], n_samples=0), ValueError, "n_samples"),
    (lambda: density.held_out_scores(5, 2), ValueError, "n must be an integer >= 10, got 5"),
    (lambda: density.held_out_scores(50, 0), ValueError, "d must be an integer >= 1, got 0"),
    (lambda: density.curse_mixture(2.5), TypeError, "d must be an integer"),
    (lambda: density.log_ball_volume(0), ValueError, "d must be an integer >= 1"),
    (lambda: density.mixture_density([[0.5, 0.5]], weights=[0.5, 0.5]), ValueError,
     "weights must have 3 entries, got 2"),
    (lambda: density.mixture_density([[0.5, 0.5]], weights=[0.5, 0.5, 0.5]), ValueError,
     "weights must sum to 1"),
    (lambda: density.mixture_density([[np.nan, 0.5]]), ValueError, "points must not contain NaN"),
    (lambda: density.mixture_density([[0.5, 0.5]], covariances=-density.MIXTURE_COVARIANCES),
     ValueError, "covariances[0] must be symmetric positive definite"),
    (lambda: density.sample_mixture(10, density.MIXTURE_WEIGHTS, density.MIXTURE_MEANS[:2],
                                            density.MIXTURE_COVARIANCES, 0), ValueError,
     "weights must have 2 entries, got 3"),
])
def test_bad_input(call, error, message):
    with pytest.raises(error) as err:
        call()
    assert message in str(err.value)


def test_figures_of_chapter_9_draw():
    from lib.plots.density import plot_cross_validation, plot_density_sliders, plot_estimates, plot_sample

    data, _ = density.sample_mixture(60, *density.MIXTURE, rng=0)
    assert len(plot_sample(data, k=5).axes) == 2
    assert len(plot_estimates(data, "knn", [5, 10], n_grid=20).axes) == 2
    assert len(plot_estimates(data, "kernel", [0.05], n_grid=20).axes) == 1
    assert len(plot_cross_validation([1, 2, 4], [-1.0, -0.5, -0.8], [0.1, 0.2], [-1.0, -2.0]).axes) == 2
    assert len(plot_density_sliders(k=5, width=0.1, data=data, n_grid=20).axes) == 3
    from lib.plots.density import plot_curse
    runs = [{"true": -1.0, "em": -1.1, "kernel": -1.2, "knn": -1.3}] * 2
    fig = plot_curse([10, 20], runs, [1, 2], runs)
    assert len(fig.axes) == 2 and len(fig.axes[0].lines) == 4
    np.testing.assert_allclose(fig.axes[1].lines[0].get_ydata(), [0.1, 0.1])   # EM shortfall


@pytest.mark.parametrize("d", [1, 3, 5, 8])
@pytest.mark.parametrize("k", [1, 4, 17])
def test_knn_density_equals_brute_force_in_any_dimension(d, k):
    """One query at a time, with a Python loop and math.gamma: k / (N V_d r_k^d)."""
    import math
    rng = np.random.default_rng(10 * d + k)
    data, query = rng.standard_normal((60, d)), rng.standard_normal((25, d)) * 1.5
    expected = []
    for q in query:
        r = sorted(math.dist(q, x) for x in data)[k - 1]
        volume = math.pi ** (d / 2) / math.gamma(d / 2 + 1)
        expected.append(k / (len(data) * volume * r**d))
    np.testing.assert_allclose(knn_density(query, data, k), expected, rtol=1e-9)
    np.testing.assert_allclose(knn_density(query, data, k, log=True), np.log(expected), rtol=1e-9)


@pytest.mark.parametrize("d", [1, 2])
def test_knn_log_normaliser_is_the_integral_over_the_widened_box(d):
    rng = np.random.default_rng(d)
    data = rng.standard_normal((80, d))
    lo, hi = data.min(0), data.max(0)
    lo, hi = lo - 0.25 * (hi - lo), hi + 0.25 * (hi - lo)
    axes = [np.linspace(a, b, 3001 if d == 1 else 401) for a, b in zip(lo, hi)]
    grid = np.stack(np.meshgrid(*axes, indexing="ij"), -1).reshape(-1, d)
    for k in (3, 10):
        p = knn_density(grid, data, k).reshape([len(a) for a in axes])
        for a in axes[::-1]:
            p = np.trapezoid(p, a, axis=-1)
        assert density.knn_log_normaliser(data, [k])[0] == pytest.approx(np.log(p), abs=0.01)


def test_knn_log_normaliser_matches_plain_monte_carlo_in_three_dimensions():
    """Importance sampling against uniform sampling in the same ball (many more draws)."""
    rng = np.random.default_rng(7)
    data = np.r_[rng.normal(0, 1, (60, 3)), rng.normal(4, 0.5, (60, 3))]
    centre = data.mean(0)
    radius = 1.5 * np.linalg.norm(data - centre, axis=1).max()
    m = 400_000
    u = rng.standard_normal((m, 3))
    u = centre + u / np.linalg.norm(u, axis=1, keepdims=True) * radius * rng.random((m, 1)) ** (1 / 3)
    volume = 4 / 3 * np.pi * radius**3
    for k in (8, 30):       # both estimates have a standard error of about 1.5%
        plain = np.log(knn_density(u, data, k).mean() * volume)
        ours = density.knn_log_normaliser(data, [k], n_samples=20_000, rng=1)[0]
        assert ours == pytest.approx(plain, abs=0.05)
    # several k at once give the one-k answers; the mass in the ball exceeds 1
    z = density.knn_log_normaliser(data, [8, 30], n_samples=20_000, rng=1)
    np.testing.assert_allclose(z, [density.knn_log_normaliser(data, [k], n_samples=20_000, rng=1)[0]
                                   for k in (8, 30)], rtol=1e-12)
    assert np.all(z > 0.2)


def test_cross_validation_of_k_works_beyond_two_dimensions():
    rng = np.random.default_rng(4)
    data = rng.standard_normal((400, 4))
    k, scores = cross_validate(data, "knn", [1, 2, 5, 10, 20, 50, 150], rng=0)
    assert k in (5, 10, 20, 50)
    assert scores[0] < scores.max() - 0.3 and scores[-1] < scores.max()


def test_mixture_density_log_in_many_dimensions():
    rng = np.random.default_rng(8)
    weights, means, covs = density.curse_mixture(6)
    x = rng.standard_normal((50, 6)) * 2
    direct = np.zeros(50)
    for w, m, c in zip(weights, means, covs):
        diff = x - m
        maha = np.einsum("ij,ij->i", diff, np.linalg.solve(c, diff.T).T)
        direct += w * np.exp(-0.5 * maha) / np.sqrt(np.linalg.det(2 * np.pi * c))
    np.testing.assert_allclose(density.mixture_density(x, weights, means, covs, log=True),
                               np.log(direct), rtol=1e-12)
    far = np.full((1, 6), 200.0)                           # the density underflows there
    assert np.isfinite(density.mixture_density(far, weights, means, covs, log=True)).all()
    # the curse mixture: unit-length diagonal, separation 3 in every dimension
    for d in (1, 2, 9):
        _, m, c = density.curse_mixture(d)
        assert np.linalg.norm(m[2] - m[1]) == pytest.approx(3.0)
        np.testing.assert_allclose(np.sqrt(c[:, 0, 0]), [1.0, 0.5, 0.75])


def test_held_out_scores_agree_with_scikit_learn():
    from sklearn.mixture import GaussianMixture as SkMixture

    r = density.held_out_scores(300, 3, n_test=500, rng=5)
    rng = np.random.default_rng(5)                    # the same draws: test set first
    mixture = density.curse_mixture(3)
    test, _ = density.sample_mixture(500, *mixture, rng=rng)
    train, _ = density.sample_mixture(300, *mixture, rng=rng)
    assert r["true"] == pytest.approx(density.mixture_density(test, *mixture, log=True).mean())
    kde = sklearn_neighbors.KernelDensity(bandwidth=r["width"]).fit(train)
    assert r["kernel"] == pytest.approx(kde.score_samples(test).mean(), rel=1e-9)
    sk = SkMixture(3, n_init=3, reg_covar=1e-3, random_state=0).fit(train)
    assert r["em"] == pytest.approx(sk.score(test), abs=0.02)
    # the width is the five-fold choice on the training points (the stream goes on)
    assert r["width"] == cross_validate(train, "kernel", np.geomspace(0.05, 3, 18), rng=rng)[0]
    assert r["true"] > max(r["em"], r["kernel"], r["knn"])
    assert 1 < r["k"] < 100 and 0.05 < r["width"] < 3


def test_kernel_width_whose_square_underflows_is_refused_by_name():
    with pytest.raises(ValueError, match="kernel width must be .*its square"):
        kernel_density([0.0], [0.0], width=1e-200)
    with pytest.raises(ValueError, match="kernel width must be .*its square"):
        cross_validate(np.arange(10.0), "kernel", [1.0, 1e-170], n_folds=2)
    # just above the limit the value is still right: 1 / (sqrt(2 pi) w) at the point
    w = 1e-150
    assert np.isclose(kernel_density([0.0], [0.0], w, log=True)[0],
                      -np.log(w) - 0.5 * np.log(2 * np.pi))


def test_cross_validate_knn_on_duplicated_points_names_the_duplicates():
    with pytest.raises(ValueError, match=r"duplicate points: data\[\d+\] = \[1.0\].*k = 1"):
        cross_validate(np.ones((20, 1)), "knn", [1, 2])


def test_one_sample_mixture_and_one_mixture_check_for_chapters_7_and_9():
    import lib.em
    from lib._validation import check_mixture
    assert density.sample_mixture is lib.em.sample_mixture
    x, z = density.sample_mixture(4000, *density.MIXTURE, rng=0)
    np.testing.assert_allclose(np.bincount(z) / 4000, density.MIXTURE_WEIGHTS, atol=0.02)
    np.testing.assert_allclose(x[z == 2].mean(axis=0), density.MIXTURE_MEANS[2], atol=0.01)
    with pytest.raises(ValueError, match=r"covariances\[1\] must be symmetric positive definite"):
        check_mixture([0.5, 0.5], [[0.0], [1.0]], [[[1.0]], [[0.0]]])


def test_em_shortfalls_started_at_the_truth_agree_with_scikit_learn():
    from sklearn.mixture import GaussianMixture as SkMixture

    out = density.em_shortfalls(400, 3, n_inits=(2,), n_test=500, rng=4)
    assert set(out) == {2, "truth", "p/2n"}
    assert out["p/2n"] == pytest.approx((3 * 3 + 3 * 6 + 2) / 800)
    rng = np.random.default_rng(4)                    # the same draws: test set first
    weights, means, covs = density.curse_mixture(3)
    test, _ = density.sample_mixture(500, weights, means, covs, rng=rng)
    train, _ = density.sample_mixture(400, weights, means, covs, rng=rng)
    sk = SkMixture(3, reg_covar=1e-3, weights_init=weights, means_init=means,
                   precisions_init=np.linalg.inv(covs), tol=1e-6, max_iter=500).fit(train)
    truth = density.mixture_density(test, weights, means, covs, log=True).mean()
    assert out["truth"][0] == pytest.approx(truth - sk.score(test), abs=2e-3)
    assert out["truth"][1] == pytest.approx(sk.score(train) * 400, abs=1.0)
    assert out["truth"][0] > 0 and out[2][0] > 0
    with pytest.raises(ValueError, match="n_inits"):
        density.em_shortfalls(400, 3, n_inits=(0,))
