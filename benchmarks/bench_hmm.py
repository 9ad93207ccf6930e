"""Discrete HMMs: lib.hmm.HMM against hmmlearn's CategoricalHMM on the grid
N in {2, 8, 32, 64} states x T in {1e3, 1e4, 1e5, 1e6} steps, for the forward pass
(log-likelihood), Viterbi and Baum-Welch, plus the sticky two-state Viterbi cases.

The peer is hmmlearn's *best* implementation for each cell: ``implementation="scaling"``
and ``"log"`` are both timed once (best of three) and the faster one is compared with
(Viterbi has only one). Targets (issue 17): ratio lib / peer <= 1.0 where N <= 8 and
T >= 1e4, <= 2.0 elsewhere; peak memory <= 1.2 x the peer's.

Usage: python benchmarks/bench_hmm.py [--cells 2:1e5,8:1e6] [--ops forward,viterbi,fit]
       [--no-sticky] [--no-grid]
Run with OPENBLAS_NUM_THREADS=1 (harness sets it); answers are compared before timing.
"""
import argparse
import os
import time

import harness  # noqa: F401  (first: pins BLAS threads before numpy loads)
import numpy as np
from hmmlearn.hmm import CategoricalHMM

from lib.hmm import HMM

GRID_N = (2, 8, 32, 64)
GRID_T = (1_000, 10_000, 100_000, 1_000_000)
N_SYMBOLS = {2: 3, 8: 20, 32: 20, 64: 20}
MEM_TARGET = 1.2


def target(n, T):
    return 1.0 if n <= 8 and T >= 10_000 else 2.0


def random_params(n, m, rng):
    A = rng.dirichlet(np.ones(n), n) + 4 * np.eye(n)          # sticky states
    return rng.dirichlet(np.ones(n)), A / A.sum(1, keepdims=True), rng.dirichlet(np.ones(m) * 0.5, n)


def peer_model(params, implementation, n_iter=1):
    s, A, B = params
    model = CategoricalHMM(len(s), n_features=B.shape[1], n_iter=n_iter, tol=-np.inf,
                           init_params="", params="ste", implementation=implementation)
    model.startprob_, model.transmat_, model.emissionprob_ = s, A, B
    return model


def fastest(make_call):
    """The hmmlearn implementation ('scaling' or 'log') whose call is faster (best of 3)."""
    times = {}
    for impl in ("scaling", "log"):
        call = make_call(impl)
        call()
        times[impl] = min(_once(call) for _ in range(3))
    return min(times, key=times.get)


def _once(call):
    t0 = time.perf_counter()
    call()
    return time.perf_counter() - t0


def path_check(model, obs, T):
    def check(a, b):
        (path, log_p), (ref_log_p, ref_path) = a, b
        if not np.array_equal(path, ref_path):     # allowed only where two paths tie exactly
            def score(p):
                return (np.log(model.start[p[0]]) + np.log(model.transition[p[:-1], p[1:]]).sum()
                        + np.log(model.emission[p, obs]).sum())
            assert abs(score(path) - score(ref_path)) <= 1e-9 * T, "Viterbi paths differ"
        return abs(log_p - ref_log_p)
    return check


def grid_cases(cells, ops, n_iter_fit):
    for n, T in cells:
        rng = np.random.default_rng(1000 * n + int(np.log10(T)))
        m = N_SYMBOLS[n]
        _, obs = HMM(*random_params(n, m, rng)).sample(T, rng)
        X = obs.reshape(-1, 1)
        params = random_params(n, m, rng)
        lib = HMM(*params)
        size = f"N={n}, M={m}, T={T:.0e}"
        goal = target(n, T)
        if "forward" in ops:
            impl = fastest(lambda i: (lambda: peer_model(params, i).score(X)))
            peer = peer_model(params, impl)
            yield harness.compare(
                f"HMM forward, {size}", lambda: lib.log_likelihood(obs), lambda: peer.score(X),
                lambda a, b: abs(a - b), tol=1e-9 * T, tol_text="1e-9 T", target=goal,
                note=f"peer: hmmlearn score, implementation={impl!r}; |log-likelihood difference|")
        if "viterbi" in ops:
            peer = peer_model(params, "log")
            yield harness.compare(
                f"HMM Viterbi, {size}", lambda: lib.viterbi(obs),
                lambda: peer.decode(X, algorithm="viterbi"), path_check(lib, obs, T),
                tol=1e-9 * T, tol_text="1e-9 T", target=goal,
                note="peer: hmmlearn decode(algorithm='viterbi') (log only); same path (or an exact tie)")
        if "fit" in ops:
            impl = fastest(lambda i: (lambda: peer_model(params, i, n_iter_fit).fit(X)))

            def bw_check(a, b):
                d_ll = abs(a.log_likelihoods_[-1] - b.monitor_.history[-1])
                assert d_ll <= 1e-9 * T, f"last log-likelihoods differ by {d_ll:.3g}"
                return max(np.abs(a.start - b.startprob_).max(), np.abs(a.transition - b.transmat_).max(),
                           np.abs(a.emission - b.emissionprob_).max())
            yield harness.compare(
                f"HMM Baum-Welch x{n_iter_fit}, {size}",
                lambda: HMM(*params).fit(obs, n_iter=n_iter_fit, tol=-np.inf),
                lambda: peer_model(params, impl, n_iter_fit).fit(X), bw_check, tol=1e-8, target=goal,
                note=f"peer: hmmlearn fit, implementation={impl!r}; max |parameter difference| "
                     f"after {n_iter_fit} iterations")


def sticky_cases(T=1_000_000):
    """Two states that rarely switch, weak emissions (0.6 / 0.4): no cliff in Viterbi."""
    for switch in (0.01, 1e-6):
        params = (np.array([0.5, 0.5]), np.array([[1 - switch, switch], [switch, 1 - switch]]),
                  np.array([[0.6, 0.4], [0.4, 0.6]]))
        lib = HMM(*params)
        _, obs = lib.sample(T, np.random.default_rng(7))
        X = obs.reshape(-1, 1)
        peer = peer_model(params, "log")
        yield harness.compare(
            f"HMM Viterbi, sticky chain, switch {switch:g}, T={T:.0e}", lambda: lib.viterbi(obs),
            lambda: peer.decode(X, algorithm="viterbi"), path_check(lib, obs, T),
            tol=1e-9 * T, tol_text="1e-9 T", target=2.0,
            note="peer: hmmlearn decode (log); emissions 0.6/0.4; no cliff: within 2x")


def load():
    """The machine's load averages (the integrator reruns on a quiet machine)."""
    return os.getloadavg()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cells", default=None, help="comma-separated N:T, e.g. 2:1e5,8:1e6")
    parser.add_argument("--ops", default="forward,viterbi,fit")
    parser.add_argument("--fit-iter", type=int, default=3)
    parser.add_argument("--no-sticky", action="store_true")
    parser.add_argument("--no-grid", action="store_true")
    args = parser.parse_args()
    cells = ([(int(c.split(":")[0]), int(float(c.split(":")[1]))) for c in args.cells.split(",")]
             if args.cells else [(n, T) for n in GRID_N for T in GRID_T])
    ops = set(args.ops.split(","))
    print(f"load average before: {' '.join(f'{x:.2f}' for x in load())}", flush=True)

    def cases():
        if not args.no_grid:
            yield from grid_cases(cells, ops, args.fit_iter)
        if not args.no_sticky:
            yield from sticky_cases()
    rows = harness.main("hmm", cases)
    print(f"load average after: {' '.join(f'{x:.2f}' for x in load())}")
    print(f"\n{'case':58s} {'ratio':>6s} {'target':>6s} {'mem':>5s}  met?")
    for r in rows:
        ok = r["ratio"] <= r["target"] and r["mem_ratio"] <= MEM_TARGET
        print(f"{r['case']:58s} {r['ratio']:6.2f} {r['target']:6.1f} {r['mem_ratio']:5.2f}  "
              f"{'yes' if ok else 'NO'}")


if __name__ == "__main__":
    main()
