"""Discrete HMMs: lib.hmm.HMM against hmmlearn's CategoricalHMM on the grid
N in {2, 8, 32, 64} states x T in {1e3, 1e4, 1e5, 1e6} steps, for the forward pass
(log-likelihood), Viterbi and one Baum-Welch iteration, plus the sticky two-state
Viterbi cases of issue 17 and one model that needs the log-space recursions.

How it measures (as the issue's independent checker does):

* answers first: log-likelihoods within 1e-9 T, the same Viterbi path (or an exact tie),
  the same parameters after Baum-Welch (1e-8);
* CPU time (``time.process_time``) of lib and peer, interleaved (lib, peer, peer, lib,
  ...), ``REPS`` repetitions after a warm-up call of each; each repetition is the mean of
  enough back-to-back calls to last 20 ms; medians are reported. The warm-up call also
  compiles lib's numba loops (or loads them from numba's cache); that one-time cost is
  measured separately, in fresh processes (:func:`compile_cost`);
* the peer is hmmlearn's *best* implementation per cell: ``implementation="scaling"`` and
  ``"log"`` are both timed in the repetitions when their warm-up times are within a
  factor 2, else only the faster; the faster median is the peer (Viterbi has only the
  log implementation);
* peak memory: tracemalloc's peak during one call of each (numpy arrays, hmmlearn's
  pybind11 arrays and numba's own allocations are all traced);
* Baum-Welch is ``fit`` from the same parameters with ``n_iter`` iterations (3, or 1 at
  T = 1e6), reported per iteration (setup included, for both);
* fewer repetitions where one call takes seconds (N >= 32 at T = 1e6: ``BIG_REPS``).

Usage: python benchmarks/bench_hmm.py [--cells 2:1e5,8:1e6] [--ops forward,viterbi,fit]
       [--no-sticky] [--no-grid] [--reps 5]
"""
import argparse
import gc
import os
import statistics
import subprocess
import sys
import time

import harness  # noqa: F401  (first: pins BLAS threads before numpy loads)

# isort: split
import hmmlearn
import numpy as np
from hmmlearn.hmm import CategoricalHMM

from lib.hmm import HMM, fast

GRID_N = (2, 8, 32, 64)
GRID_T = (1_000, 10_000, 100_000, 1_000_000)
N_SYMBOLS = {2: 3, 8: 20, 32: 20, 64: 20}
MEM_TARGET = 1.2
REPS, BIG_REPS = 5, 3
MIN_TIME = 0.02
PEER = f"hmmlearn {hmmlearn.__version__} CategoricalHMM"


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


def cpu(fn, number=1):
    """CPU seconds per call of ``fn`` (harness._time measures wall time)."""
    gc.collect()
    t0 = time.process_time()
    for _ in range(number):
        fn()
    return (time.process_time() - t0) / number


def measure(case, lib, peers, check, tol, target_ratio, reps, per_call=1, note="", tol_text=None,
            drop_wrong=False, **info):
    """Check, then time ``lib`` against the best of ``peers`` ({implementation: call}).
    With ``drop_wrong``, a peer implementation whose answer differs is left out (and
    named in the note) instead of failing the case."""
    lib_out = lib()                                        # warm-up (and JIT compile)
    warm = {}                                              # the peers' warm-up times
    diffs = {}
    for impl, peer in peers.items():
        t0 = time.process_time()
        out = peer()
        warm[impl] = time.process_time() - t0
        diffs[impl] = float(check(lib_out, out))
        if drop_wrong and not diffs[impl] <= tol:
            note += f"; hmmlearn {impl!r} left out: its answer differs by {diffs[impl]:.3g}"
            del warm[impl]
            continue
        assert diffs[impl] <= tol, f"{case}: lib and hmmlearn ({impl}) differ by {diffs[impl]:.3g} > {tol:g}"
    peers = {impl: call for impl, call in peers.items() if impl in warm}
    fastest = min(peers, key=warm.get)
    timed = {impl: call for impl, call in peers.items() if warm[impl] <= 2 * warm[fastest]}
    number = max(1, int(MIN_TIME / max(min(warm.values()), 1e-6)))
    times = {name: [] for name in ["lib", *timed]}
    calls = {"lib": lib, **timed}
    for r in range(reps):
        order = list(calls) if r % 2 == 0 else list(calls)[::-1]
        for name in order:
            times[name].append(cpu(calls[name], number) / per_call)
    med = {name: statistics.median(ts) for name, ts in times.items()}
    impl = min(timed, key=med.get)
    row = dict(case=case, lib=med["lib"], peer=med[impl], lib_all=times["lib"], peer_all=times[impl],
               peer_impl=impl, peer_name=f"{PEER}, implementation={impl!r}", number=number, reps=reps,
               diff=diffs[impl], tol=tol_text or f"{tol:g}", target=target_ratio, mem_target=MEM_TARGET,
               mem_lib=harness.peak_mib(lib), mem_peer=harness.peak_mib(peers[impl]), note=note,
               other_impls={k: med[k] for k in timed if k != impl}, **info)
    harness.with_ratios(row)
    print(f"{case:52s} lib {row['lib'] * 1e3:9.3f} ms  peer({impl}) {row['peer'] * 1e3:9.3f} ms  "
          f"ratio {row['ratio']:5.2f} (<= {target_ratio})  mem {row['mem_lib']:.2f}/{row['mem_peer']:.2f} MiB "
          f"({row['mem_ratio']:.2f})", flush=True)
    return row


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


def fit_check(T):
    def check(a, b):
        d_ll = abs(a.log_likelihoods_[-2] - b.monitor_.history[-1])   # ours adds the fitted model's
        assert d_ll <= 1e-9 * T, f"last log-likelihoods differ by {d_ll:.3g}"
        return max(np.abs(a.start - b.startprob_).max(), np.abs(a.transition - b.transmat_).max(),
                   np.abs(a.emission - b.emissionprob_).max())
    return check


def grid_cases(cells, ops, reps):
    slow = {}                           # (op, N) -> hmmlearn implementations > 2x slower at the last T

    def implementations(op, n, T):
        skip = slow.get((op, n), ())
        if T >= 1_000_000 and skip:     # (a warm-up of the slower one would take up to a minute)
            return [i for i in ("scaling", "log") if i not in skip], (
                f"; {', '.join(map(repr, skip))} not run: more than 2x slower at T=1e5")
        return ["scaling", "log"], ""

    def remember(row, op, n):
        slow[op, n] = tuple(i for i in ("scaling", "log") if i != row["peer_impl"] and i not in row["other_impls"])
        return row

    for n, T in cells:
        rng = np.random.default_rng(1000 * n + int(np.log10(T)))
        m = N_SYMBOLS[n]
        _, obs = HMM(*random_params(n, m, rng)).sample(T, rng)
        X = obs.reshape(-1, 1)
        params = random_params(n, m, rng)
        lib = HMM(*params)
        info = dict(N=n, T=T, M=m)
        r = BIG_REPS if n >= 32 and T >= 1_000_000 else reps
        size = f"N={n}, M={m}, T={T:.0e}"
        goal = target(n, T)
        if "forward" in ops:
            impls, skipped = implementations("forward", n, T)
            peers = {i: (lambda p=peer_model(params, i): p.score(X)) for i in impls}
            yield remember(measure(
                f"HMM forward, {size}", lambda: lib.log_likelihood(obs), peers,
                lambda a, b: abs(a - b), 1e-9 * T, goal, r, tol_text="1e-9 T", op="forward",
                note="forward: lib HMM.log_likelihood vs hmmlearn score; |log-likelihood difference|" + skipped,
                **info), "forward", n)
        if "viterbi" in ops:
            peer = peer_model(params, "log")
            yield measure(f"HMM Viterbi, {size}", lambda: lib.viterbi(obs),
                          {"log": lambda: peer.decode(X, algorithm="viterbi")}, path_check(lib, obs, T),
                          1e-9 * T, goal, r, tol_text="1e-9 T", op="viterbi",
                          note="Viterbi: lib HMM.viterbi vs hmmlearn decode(algorithm='viterbi') (log only); "
                               "same path (or an exact tie), |log-probability difference|", **info)
        if "fit" in ops:
            k = 1 if T >= 1_000_000 else 3
            impls, skipped = implementations("fit", n, T)
            peers = {i: (lambda i=i: peer_model(params, i, k).fit(X)) for i in impls}
            yield remember(measure(
                f"HMM Baum-Welch (per iteration), {size}",
                lambda: HMM(*params, n_iter=k, tol=0).fit(obs), peers, fit_check(T),
                1e-8, goal, r, per_call=k, op="fit",
                note=f"Baum-Welch: fit from the same parameters, {k} iteration(s) (setup included), "
                     f"time / {k}; max |parameter difference|" + skipped, **info), "fit", n)


def special_cases(reps, T=1_000_000):
    """Sticky two-state chains (no cliff in Viterbi) and a model with entries near
    1e-290, where lib's rescaled loops hand over to its log-space loops."""
    for switch in (0.01, 1e-6):
        params = (np.array([0.5, 0.5]), np.array([[1 - switch, switch], [switch, 1 - switch]]),
                  np.array([[0.6, 0.4], [0.4, 0.6]]))
        lib = HMM(*params)
        _, obs = lib.sample(T, np.random.default_rng(7))
        X = obs.reshape(-1, 1)
        peer = peer_model(params, "log")
        yield measure(f"HMM Viterbi, sticky chain, switch {switch:g}, N=2, T={T:.0e}", lambda: lib.viterbi(obs),
                      {"log": lambda: peer.decode(X, algorithm="viterbi")}, path_check(lib, obs, T),
                      1e-9 * T, 2.0, reps, tol_text="1e-9 T", op="sticky", N=2, T=T, M=2,
                      note="emissions 0.6/0.4; no cliff: within 2x")
    rng = np.random.default_rng(5)
    n, m, T = 8, 20, 100_000
    s, A, E = random_params(n, m, rng)
    E[:4, 10:] *= 1e-290                # each half of the states almost never emits half the
    E[4:, :10] *= 1e-290                # symbols: state shares near 1e-290 in the messages
    E /= E.sum(axis=1, keepdims=True)
    lib = HMM(s, A, E)
    obs = rng.integers(0, m, T)
    assert not fast.log_likelihood(lib, obs)[1], "the rescaled loop was trusted: no log-space path"
    X = obs.reshape(-1, 1)
    peers = {i: (lambda p=peer_model((s, A, E), i): p.score(X)) for i in ("scaling", "log")}
    yield measure(f"HMM forward, entries near 1e-290 (log-space path), N={n}, M={m}, T={T:.0e}",
                  lambda: lib.log_likelihood(obs), peers, lambda a, b: abs(a - b), 1e-9 * T, 10.0, reps,
                  tol_text="1e-9 T", op="logspace", N=n, T=T, M=m, drop_wrong=True,
                  note="rescaled products could underflow: lib redoes the sequence in logarithms; "
                  "no cliff: within 10x")


COMPILE_CODE = """
import time, numpy as np
t0 = time.process_time()
from lib.hmm import HMM
h = HMM([0.5, 0.5], [[0.9, 0.1], [0.2, 0.8]], [[0.7, 0.3], [0.1, 0.9]])
obs = np.array([0, 1, 1, 0] * 5)
t1 = time.process_time()
h.n_iter = 1
h.log_likelihood(obs); h.viterbi(obs); h.smooth(obs); h.fit(obs)
t2 = time.process_time()
h.log_likelihood(obs); h.viterbi(obs); h.smooth(obs); h.fit(obs)
print(t1 - t0, t2 - t1, time.process_time() - t2)
"""


def compile_cost():
    """One-time costs, each in a fresh process with an empty numba cache directory:
    import, first calls (compiling), and then again (loading the cache)."""
    import tempfile
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache, PYTHONPATH=str(harness.ROOT))
        out = []
        for _ in range(2):
            res = subprocess.run([sys.executable, "-c", COMPILE_CODE], env=env, capture_output=True,
                                 text=True, check=True)
            out.append([float(x) for x in res.stdout.split()])
    return dict(import_s=out[0][0], compile_s=out[0][1], cache_load_s=out[1][1], warm_s=out[1][2])


def load():
    """The machine's load averages."""
    return os.getloadavg()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cells", default=None, help="comma-separated N:T, e.g. 2:1e5,8:1e6")
    parser.add_argument("--ops", default="forward,viterbi,fit")
    parser.add_argument("--reps", type=int, default=REPS)
    parser.add_argument("--no-sticky", action="store_true")
    parser.add_argument("--no-grid", action="store_true")
    args = parser.parse_args()
    cells = ([(int(c.split(":")[0]), int(float(c.split(":")[1]))) for c in args.cells.split(",")]
             if args.cells else [(n, T) for n in GRID_N for T in GRID_T])
    ops = set(args.ops.split(","))
    before = load()
    print(f"load average before: {' '.join(f'{x:.2f}' for x in before)}", flush=True)
    costs = compile_cost()
    print(f"one-time costs: {costs}", flush=True)

    def cases():
        if not args.no_grid:
            yield from grid_cases(cells, ops, args.reps)
        if not args.no_sticky:
            yield from special_cases(args.reps)
    rows = harness.main("hmm", cases)
    after = load()
    for r in rows:
        r.update(load_before=before, load_after=after, one_time=costs)
    harness.OUT.joinpath("hmm.json").write_text(__import__("json").dumps(rows, indent=1))
    print(f"load average after: {' '.join(f'{x:.2f}' for x in after)}")
    print(f"\n{'case':70s} {'ratio':>6s} {'target':>6s} {'mem':>5s}  met?")
    for r in rows:
        ok = r["ratio"] <= r["target"] and r["mem_ratio"] <= MEM_TARGET
        print(f"{r['case']:70s} {r['ratio']:6.2f} {r['target']:6.1f} {r['mem_ratio']:5.2f}  "
              f"{'yes' if ok else 'NO'}")


if __name__ == "__main__":
    main()
