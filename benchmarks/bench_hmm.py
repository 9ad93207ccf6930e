"""Discrete HMM on T = 100,000 steps: lib.hmm.HMM vs hmmlearn CategoricalHMM (scaling)."""
import harness  # noqa: F401  (first: pins BLAS threads before numpy loads)
import numpy as np
from hmmlearn.hmm import CategoricalHMM

from lib.hmm import HMM

T = 100_000
N_ITER = 10


def random_hmm(n, m, rng):
    A = rng.dirichlet(np.ones(n), n) + 4 * np.eye(n)          # sticky states
    return rng.dirichlet(np.ones(n)), A / A.sum(1, keepdims=True), rng.dirichlet(np.ones(m) * 0.5, n)


def peer_model(params, n_iter=1):
    s, A, B = params
    model = CategoricalHMM(len(s), n_features=B.shape[1], n_iter=n_iter, tol=-np.inf,
                           init_params="", params="ste", implementation="scaling")
    model.startprob_, model.transmat_, model.emissionprob_ = s, A, B
    return model


def cases():
    rng = np.random.default_rng(8)
    for n, m in ((2, 3), (8, 20)):
        _, obs = HMM(*random_hmm(n, m, rng)).sample(T, rng)
        X = obs.reshape(-1, 1)
        start = random_hmm(n, m, rng)                         # Baum-Welch starts here
        lib, peer = HMM(*start), peer_model(start)
        size = f"N={n}, M={m}, T={T}"
        yield harness.compare(
            f"HMM forward log-likelihood, {size}",
            lambda: lib.log_likelihood(obs), lambda: peer.score(X),
            lambda a, b: abs(a - b), tol=1e-9 * T, tol_text="1e-9 T", target=3.0, note="|log-likelihood difference|")

        def viterbi_check(a, b):
            assert np.array_equal(a[0], b[1]), "Viterbi paths differ"
            return abs(a[1] - b[0])
        yield harness.compare(
            f"HMM Viterbi, {size}", lambda: lib.viterbi(obs),
            lambda: peer.decode(X, algorithm="viterbi"), viterbi_check, tol=1e-9 * T, tol_text="1e-9 T",
            target=3.0, note="same path; |log-probability difference|")

        def bw_check(a, b):
            d_ll = abs(a.log_likelihoods_[-1] - b.monitor_.history[-1])
            assert d_ll <= 1e-9 * T, f"last log-likelihoods differ by {d_ll:.3g}"
            return max(np.abs(a.start - b.startprob_).max(), np.abs(a.transition - b.transmat_).max(),
                       np.abs(a.emission - b.emissionprob_).max())
        yield harness.compare(
            f"HMM Baum-Welch, {N_ITER} iterations, {size}",
            lambda: HMM(*start).fit(obs, n_iter=N_ITER, tol=-np.inf),
            lambda: peer_model(start, N_ITER).fit(X), bw_check, tol=1e-8, target=3.0,
            note="max |parameter difference| after 10 iterations (last log-likelihood checked too)")


if __name__ == "__main__":
    harness.main("hmm", cases)
