"""Tests of lib.hmm: textbook numbers, brute-force enumeration, hmmlearn as an oracle,
fast == plain, long sequences and bad input."""
import itertools
import warnings

import numpy as np
import pytest

from lib.hmm import HMM, fast

hmmlearn = pytest.importorskip("hmmlearn.hmm")


def umbrella():
    # state 0 = rain, 1 = no rain; symbol 0 = no umbrella, 1 = umbrella
    return HMM([0.5, 0.5], [[0.7, 0.3], [0.3, 0.7]], [[0.1, 0.9], [0.8, 0.2]])


def random_hmm(rng, n, m, concentration=1.0):
    return HMM(rng.dirichlet(np.full(n, concentration)),
               rng.dirichlet(np.full(n, concentration), n),
               rng.dirichlet(np.full(m, concentration), n))


def oracle(model, n_iter=1):
    ref = hmmlearn.CategoricalHMM(n_components=model.n_states, n_features=model.n_symbols,
                                  init_params="", params="ste", n_iter=n_iter,
                                  implementation="scaling", tol=-np.inf)
    ref.startprob_ = model.start.copy()
    ref.transmat_ = model.transition.copy()
    ref.emissionprob_ = model.emission.copy()
    return ref


def brute_force(model, obs):
    """Joint probabilities of all state paths, by enumeration."""
    paths = list(itertools.product(range(model.n_states), repeat=len(obs)))
    joint = []
    for path in paths:
        p = model.start[path[0]] * model.emission[path[0], obs[0]]
        for t in range(1, len(obs)):
            p *= model.transition[path[t - 1], path[t]] * model.emission[path[t], obs[t]]
        joint.append(p)
    return np.array(paths), np.array(joint)


# ------------------------------------------------------------------ textbook numbers
def test_umbrella_filtering_and_smoothing():
    h = umbrella()
    f = h.filter([1, 1])
    assert f[0, 0] == pytest.approx(0.818, abs=5e-4)
    assert f[1, 0] == pytest.approx(0.883, abs=5e-4)
    assert h.smooth([1, 1])[0, 0] == pytest.approx(0.883, abs=5e-4)


def test_umbrella_viterbi():
    path, log_p = umbrella().viterbi([1, 1, 0, 1, 1])
    assert path.tolist() == [0, 0, 1, 0, 0]          # rain, rain, no rain, rain, rain
    # the most likely path's joint probability, worked out by hand
    p = 0.5 * 0.9 * 0.7 * 0.9 * 0.3 * 0.8 * 0.3 * 0.9 * 0.7 * 0.9
    assert log_p == pytest.approx(np.log(p))


def path_log_p(model, obs, path):
    return (np.log(model.start[path[0]]) + np.log(model.emission[path, obs]).sum()
            + np.log(model.transition[path[:-1], path[1:]]).sum())


def same_or_tie(model, obs, path, other, agreement=0.95):
    """Two Viterbi paths agree, or differ only where two paths tie exactly."""
    if not np.array_equal(path, other):
        assert path_log_p(model, obs, path) == pytest.approx(path_log_p(model, obs, other), rel=1e-12)
        assert np.mean(path == other) > agreement


# ------------------------------------------------------------------ brute force
@pytest.mark.parametrize("seed", range(4))
def test_against_enumeration(seed):
    rng = np.random.default_rng(seed)
    h = random_hmm(rng, 3, 4)
    obs = rng.integers(0, 4, size=6)
    paths, joint = brute_force(h, obs)
    assert h.log_likelihood(obs) == pytest.approx(np.log(joint.sum()))
    path, log_p = h.viterbi(obs)
    assert path.tolist() == paths[joint.argmax()].tolist()
    assert log_p == pytest.approx(np.log(joint.max()))
    smoothed = np.array([[joint[paths[:, t] == i].sum() for i in range(3)] for t in range(6)])
    np.testing.assert_allclose(h.smooth(obs), smoothed / joint.sum(), atol=1e-12)
    for t in range(6):       # filtering sees only e_1..e_t
        prefix_paths, prefix_joint = brute_force(h, obs[: t + 1])
        filtered = [prefix_joint[prefix_paths[:, t] == i].sum() for i in range(3)]
        np.testing.assert_allclose(h.filter(obs)[t], np.array(filtered) / prefix_joint.sum(), atol=1e-12)


# ------------------------------------------------------------------ hmmlearn oracle
@pytest.mark.parametrize("n, m, T", [(2, 3, 50), (3, 5, 1001), (8, 20, 5000), (2, 3, 1)])
def test_against_hmmlearn(n, m, T):
    rng = np.random.default_rng(n * 1000 + T)
    h = random_hmm(rng, n, m)
    _, obs = h.sample(T, rng)
    ref = oracle(h)
    X = obs[:, None]
    assert h.log_likelihood(obs) == pytest.approx(ref.score(X), rel=1e-10)
    ref_log_p, ref_path = ref.decode(X, algorithm="viterbi")
    path, log_p = h.viterbi(obs)
    assert log_p == pytest.approx(ref_log_p, rel=1e-10)
    same_or_tie(h, obs, path, ref_path)
    np.testing.assert_allclose(h.smooth(obs), ref.predict_proba(X), atol=1e-10)
    np.testing.assert_allclose(h.predict_proba(obs), ref.predict_proba(X), atol=1e-10)
    same_or_tie(h, obs, h.predict(obs), ref.predict(X))


@pytest.mark.parametrize("n, m, lengths", [(2, 3, [400]), (3, 6, [300, 50, 1000]), (8, 20, [3000]),
                                           (2, 4, [1, 2, 7, 500, 33, 1, 64])])
def test_baum_welch_update_equals_hmmlearn(n, m, lengths):
    rng = np.random.default_rng(sum(lengths))
    truth = random_hmm(rng, n, m)
    seqs = [truth.sample(T, rng)[1] for T in lengths]
    h = random_hmm(rng, n, m)
    h.n_iter = 1
    for _ in range(3):                     # three single iterations, compared each time
        ref = oracle(h, n_iter=1)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ref.fit(np.concatenate(seqs)[:, None], lengths=lengths)
        h.fit(seqs)
        np.testing.assert_allclose(h.start, ref.startprob_, atol=1e-10)
        np.testing.assert_allclose(h.transition, ref.transmat_, atol=1e-10)
        np.testing.assert_allclose(h.emission, ref.emissionprob_, atol=1e-10)


def test_baum_welch_log_likelihood_never_decreases_and_recovers_casino():
    casino = HMM([0.5, 0.5], [[0.95, 0.05], [0.1, 0.9]], [[1 / 6] * 6, [0.1] * 5 + [0.5]])
    rng = np.random.default_rng(0)
    seqs = [casino.sample(n, rng)[1] for n in (8000, 2000)]
    h = HMM([0.5, 0.5], [[0.8, 0.2], [0.2, 0.8]],
            [[0.17, 0.17, 0.17, 0.17, 0.16, 0.16], [0.15, 0.15, 0.15, 0.15, 0.15, 0.25]],
            n_iter=300, tol=1e-8)   # a gain of 1e-4 over the 10,000 symbols
    h.fit(seqs)
    history = np.array(h.log_likelihoods_)
    assert np.all(np.diff(history) >= -1e-6 * np.abs(history[1:]))
    assert h.n_iter_ < 300                  # stopped by the tolerance
    np.testing.assert_allclose(h.transition, casino.transition, atol=0.05)
    np.testing.assert_allclose(h.emission, casino.emission, atol=0.05)


def test_several_sequences_at_once_equal_one_at_a_time():
    rng = np.random.default_rng(11)
    h = random_hmm(rng, 3, 4)
    seqs = [h.sample(T, rng)[1] for T in (1, 2, 3, 50, 999, 17, 1)]
    together = h._forward_backward_many(seqs)
    for obs, (alpha, beta, ll, _) in zip(seqs, together):
        alpha_p, ll_p = h.forward_plain(obs)
        np.testing.assert_allclose(alpha, alpha_p, atol=1e-12)
        np.testing.assert_allclose(beta, h.backward_plain(obs), atol=1e-12)
        assert ll == pytest.approx(ll_p, rel=1e-11)
    # an impossible sequence among possible ones
    det = HMM([1, 0], [[0, 1], [1, 0]], [[1, 0], [0, 1]])
    lls = [ll for _, _, ll, _ in det._forward_backward_many([np.array([0, 1, 0]), np.array([0, 0, 1, 1] * 9), np.array([0, 1])])]
    assert lls[0] == 0.0 and lls[1] == -np.inf and lls[2] == 0.0


def test_fit_accepts_one_array_and_keeps_rows_without_counts():
    h = HMM([1.0, 0.0], [[1.0, 0.0], [0.5, 0.5]], [[0.5, 0.5, 0.0], [0.2, 0.3, 0.5]], n_iter=2)
    h.fit(np.array([0, 1, 1, 0]))
    # state 1 is never visited: its rows keep their old values
    np.testing.assert_allclose(h.transition[1], [0.5, 0.5])
    np.testing.assert_allclose(h.emission[1], [0.2, 0.3, 0.5])
    np.testing.assert_allclose(h.emission[0], [0.5, 0.5, 0.0])


# ------------------------------------------------------------------ fast == plain
@pytest.mark.parametrize("T", [1, 2, 3, 10, 97, 1000, 4097])
@pytest.mark.parametrize("n, m", [(2, 3), (4, 7)])
def test_fast_equals_plain(T, n, m):
    rng = np.random.default_rng(T + n)
    h = random_hmm(rng, n, m, concentration=0.5)
    obs = h.sample(T, rng)[1]
    alpha, ll = h.forward(obs)
    alpha_p, ll_p = h.forward_plain(obs)
    np.testing.assert_allclose(alpha, alpha_p, atol=1e-12)
    assert ll == pytest.approx(ll_p, rel=1e-11)
    assert h.log_likelihood(obs) == pytest.approx(ll_p, rel=1e-11)
    np.testing.assert_allclose(h.backward(obs), h.backward_plain(obs), atol=1e-12)
    path, log_p = h.viterbi(obs)
    path_p, log_p_p = h.viterbi_plain(obs)
    assert log_p == pytest.approx(log_p_p, rel=1e-11)
    same_or_tie(h, obs, path, path_p)


@pytest.mark.parametrize("case", ["identity", "cycle", "zeros", "sticky"])
def test_fast_equals_plain_on_awkward_models(case):
    rng = np.random.default_rng(1)
    if case == "identity":      # never changes state: block scores never "forget" the start
        h = HMM([0.5, 0.5], [[1, 0], [0, 1]], [[0.999, 0.001], [0.001, 0.999]])
        obs = rng.integers(0, 2, 3000)
    elif case == "cycle":       # deterministic
        h = HMM([1, 0, 0], [[0, 1, 0], [0, 0, 1], [1, 0, 0]], np.eye(3))
        obs = np.tile([0, 1, 2], 1000)
    elif case == "zeros":
        h = HMM([0.3, 0.7], [[0.5, 0.5], [0.5, 0.5]], [[0.5, 0.5, 0], [0, 0.5, 0.5]])
        obs = rng.integers(0, 3, 3001)
    else:
        h = HMM([0.5, 0.5], [[0.999, 0.001], [0.002, 0.998]], [[0.5, 0.5], [0.4, 0.6]])
        obs = h.sample(5000, rng)[1]
    alpha, ll = h.forward(obs)
    alpha_p, ll_p = h.forward_plain(obs)
    assert ll == pytest.approx(ll_p, rel=1e-10)
    np.testing.assert_allclose(alpha, alpha_p, atol=1e-10)
    np.testing.assert_allclose(h.backward(obs), h.backward_plain(obs), atol=1e-10)
    same_or_tie(h, obs, h.viterbi(obs)[0], h.viterbi_plain(obs)[0])


def test_impossible_sequence_has_zero_likelihood():
    h = HMM([1, 0], [[0, 1], [1, 0]], [[1, 0], [0, 1]])
    assert h.log_likelihood([0, 1, 0, 1]) == pytest.approx(0.0)
    assert h.log_likelihood([0, 1, 1, 0] * 50) == -np.inf
    assert h.viterbi_plain([0, 1, 1, 0] * 50)[1] == -np.inf


# ------------------------------------------------------------------ long sequences
def test_million_step_sequence_has_finite_log_likelihood():
    rng = np.random.default_rng(3)
    h = random_hmm(rng, 3, 4)
    obs = rng.integers(0, 4, 1_000_000)
    ll = h.log_likelihood(obs)
    assert np.isfinite(ll) and ll < -1e5
    gamma = h.smooth(obs)
    np.testing.assert_allclose(gamma.sum(axis=1), 1.0, atol=1e-12)
    assert np.isfinite(h.viterbi(obs)[1])


def test_smoothed_marginals_sum_to_one_and_match_filter_at_the_end():
    rng = np.random.default_rng(4)
    h = random_hmm(rng, 4, 5)
    obs = h.sample(2000, rng)[1]
    gamma, alpha = h.smooth(obs), h.filter(obs)
    np.testing.assert_allclose(gamma.sum(axis=1), 1.0, atol=1e-12)
    np.testing.assert_allclose(gamma[-1], alpha[-1], atol=1e-12)   # nothing comes later


def test_sample_frequencies():
    h = HMM([1.0, 0.0], [[0.9, 0.1], [0.3, 0.7]], [[0.8, 0.2], [0.1, 0.9]])
    states, symbols = h.sample(50_000, 0)
    assert states[0] == 0
    # stationary distribution of the chain: (0.75, 0.25)
    assert np.mean(states == 0) == pytest.approx(0.75, abs=0.02)
    assert np.mean(symbols[states == 1] == 1) == pytest.approx(0.9, abs=0.01)
    assert np.mean((states[:-1] == 0) & (states[1:] == 1)) / np.mean(states[:-1] == 0) == pytest.approx(0.1, abs=0.01)


# ------------------------------------------------------------------ bad input
GOOD = dict(start=[0.5, 0.5], transition=[[0.7, 0.3], [0.3, 0.7]], emission=[[0.5, 0.5], [0.5, 0.5]])


@pytest.mark.parametrize("changes, error, message", [
    (dict(start=[0.5, 0.6]), ValueError, "start must sum to 1.*1.1"),
    (dict(transition=[[0.7, 0.2], [0.3, 0.7]]), ValueError, r"transition must have each row sum to 1.*0\.9.*row \(0,\)"),
    (dict(emission=[[0.5, 0.5], [0.6, 0.5]]), ValueError, r"emission must have each row sum to 1.*row \(1,\)"),
    (dict(transition=[[1.2, -0.2], [0.3, 0.7]]), ValueError, r"transition must hold probabilities in \[0, 1\]"),
    (dict(transition=[[0.7, 0.3, 0.0], [0.3, 0.7, 0.0]]), ValueError, r"transition must have shape \(2, 2\)"),
    (dict(emission=[[1.0], [1.0], [1.0]]), ValueError, r"emission must have shape \(2, any\), got \(3, 1\)"),
    (dict(start=[[0.5, 0.5]]), ValueError, "start must be a 1-D array"),
    (dict(start=[0.5, np.nan]), ValueError, "start must not contain NaN"),
    (dict(emission=[[0.5, np.inf], [0.5, 0.5]]), ValueError, "emission must be finite"),
    (dict(transition=[0.7, 0.3]), ValueError, "transition must be a 2-D array"),
    (dict(emission=[["a", "b"], [0.5, 0.5]]), TypeError, "emission must hold real numbers"),
    (dict(start=None), ValueError, "start must be a 1-D array, got shape"),
    (dict(start=[]), ValueError, "start must have at least 1"),
    (dict(emission=np.zeros((2, 0))), ValueError, r"emission must have at least 1 column"),
])
def test_bad_parameters(changes, error, message):
    with pytest.raises(error, match=message):
        HMM(**{**GOOD, **changes})


@pytest.mark.parametrize("obs, error, message", [
    ([0, 1, 2], ValueError, r"obs must hold symbols in 0\.\.1, got values from 0 to 2"),
    ([0, -1], ValueError, r"obs must hold symbols in 0\.\.1"),
    ([0.5, 1.0], ValueError, "obs must hold integer symbols"),
    ([0, np.nan], ValueError, "obs must not contain NaN"),
    ([0, np.inf], ValueError, "obs must be finite"),
    (["a", "b"], TypeError, "obs must hold integer symbols 0..1, got dtype <U1"),
    ([True, False], TypeError, "obs must hold integer symbols.*booleans"),
    ([], ValueError, "obs must have at least 1"),
    ([[0, 1]], ValueError, "obs must be a 1-D array"),
    (None, ValueError, "obs must be a 1-D array, got shape"),
    (3, ValueError, "obs must be a 1-D array, got shape"),
])
def test_bad_symbols(obs, error, message):
    h = umbrella()
    for method in (h.forward, h.forward_plain, h.backward, h.backward_plain, h.filter, h.smooth,
                   h.viterbi, h.viterbi_plain, h.predict, h.predict_proba, h.log_likelihood):
        with pytest.raises(error, match=message):
            method(obs)
    with pytest.raises(error, match=message.replace("obs", r"sequences\[1\]")):
        h.fit([[0, 1], obs])


def test_whole_number_floats_are_accepted():
    h = umbrella()
    assert h.log_likelihood(np.array([1.0, 0.0])) == pytest.approx(h.log_likelihood([1, 0]))
    assert h.log_likelihood(np.array([1, 0], dtype=object)) == pytest.approx(h.log_likelihood([1, 0]))


@pytest.mark.parametrize("sequences, options, error, message", [
    ([], {}, ValueError, "at least one"),
    (5, {}, TypeError, "sequences must be a list"),
    ([[0, 1]], dict(n_iter=0), ValueError, "n_iter"),
    ([[0, 1]], dict(n_iter=True), TypeError, "n_iter"),
    ([[0, 1]], dict(n_iter=2.5), TypeError, "n_iter"),
    ([[0, 1]], dict(n_iter="3"), TypeError, "n_iter"),
    ([[0, 1]], dict(tol=np.nan), ValueError, "tol"),
    ([[0, 1]], dict(tol="small"), TypeError, "tol"),
    ([[0, 1]], dict(tol=-1e-3), ValueError, "tol"),
])
def test_bad_fit_arguments(sequences, options, error, message):
    u = umbrella()
    h = HMM(u.start, u.transition, u.emission, **options)   # checked by fit, as scikit-learn does
    with pytest.raises(error, match=message):
        h.fit(sequences)
    np.testing.assert_array_equal(h.transition, u.transition)


@pytest.mark.parametrize("n_steps, rng, error", [(0, 0, ValueError), (-3, 0, ValueError), (2.5, 0, TypeError),
                                                 ("10", 0, TypeError), (None, 0, TypeError), (True, 0, TypeError),
                                                 (5, "seed", TypeError)])
def test_bad_sample_arguments(n_steps, rng, error):
    with pytest.raises(error, match="n_steps" if rng == 0 else "rng"):
        umbrella().sample(n_steps, rng)


# ------------------------------------------------------------------ impossible evidence
IMPOSSIBLE = [
    # (model, sequence, position of the first impossible symbol)
    (HMM([1, 0], [[0, 1], [1, 0]], [[1, 0], [0, 1]]), [0, 1, 1, 0] * 50, 2),
    (HMM([0.5, 0.5], [[0.9, 0.1], [0.2, 0.8]], [[0.5, 0.5, 0], [0.5, 0.5, 0]]), [0, 1, 2, 0], 2),
    (HMM([1, 0], [[0.5, 0.5], [0.5, 0.5]], [[0, 1], [1, 0]]), [0, 1], 0),
    # impossible only at the very end of a long sequence (the fast blocked path)
    (HMM([1, 0, 0], [[0.5, 0.5, 0], [0, 0.5, 0.5], [0, 0, 1]], [[1, 0], [1, 0], [0, 1]]),
     [0] * 3000 + [1, 1, 1, 0], 3003),
]


@pytest.mark.parametrize("case", range(len(IMPOSSIBLE)))
def test_impossible_evidence_is_refused_by_every_inference_method(case):
    from lib.hmm import ImpossibleEvidenceError

    h, obs, position = IMPOSSIBLE[case]
    before = (h.start.copy(), h.transition.copy(), h.emission.copy())
    assert h.log_likelihood(obs) == -np.inf              # its exact value
    for method in (h.filter, h.forward, h.backward, h.smooth, h.predict_proba, h.viterbi, h.predict,
                   lambda o: h.fit([o]), lambda o: h.fit([[0], o])):
        with pytest.raises(ImpossibleEvidenceError, match=f"probability zero.*position {position}\\b"):
            method(obs)
    assert issubclass(ImpossibleEvidenceError, ValueError)
    for a, b in zip(before, (h.start, h.transition, h.emission)):   # fit changed nothing
        np.testing.assert_array_equal(a, b)


def test_possible_sequence_with_zeros_in_the_model_is_not_refused():
    h = HMM([1, 0], [[0, 1], [1, 0]], [[1, 0], [0, 1]])
    np.testing.assert_allclose(h.smooth([0, 1, 0]), [[1, 0], [0, 1], [1, 0]])
    assert h.viterbi([0, 1, 0])[0].tolist() == [0, 1, 0]


# ------------------------------------------------------------------ underflow
def log_enumeration(model, obs):
    """Log joint probability of every state path, computed in logarithms."""
    paths = np.array(list(itertools.product(range(model.n_states), repeat=len(obs))))
    with np.errstate(divide="ignore"):
        log_joint = (np.log(model.start[paths[:, 0]]) + np.log(model.emission[paths, obs]).sum(axis=1)
                     + np.log(model.transition[paths[:, :-1], paths[:, 1:]]).sum(axis=1))
    return paths, log_joint


def tiny_model(rng, n, m, tiny=1e-200):
    """A random model where about half of the entries are near ``tiny``."""
    def rows(k, width):
        p = rng.dirichlet(np.ones(width), k)
        small = rng.random(p.shape) < 0.5
        small[np.arange(k), rng.integers(0, width, k)] = False      # one ordinary entry per row
        p[small] = tiny * rng.uniform(0.5, 2, small.sum())
        return p / p.sum(axis=1, keepdims=True)
    return HMM(rows(1, n)[0], rows(n, n), rows(n, m))


def check_against_log_enumeration(h, obs):
    from scipy.special import logsumexp

    paths, log_joint = log_enumeration(h, obs)
    total = logsumexp(log_joint)
    assert np.isfinite(total)
    assert h.log_likelihood(obs) == pytest.approx(total, rel=1e-9)
    assert h.forward(obs)[1] == pytest.approx(total, rel=1e-9)
    T, N = len(obs), h.n_states
    smoothed = np.array([[np.exp(logsumexp(log_joint[paths[:, t] == i]) - total) for i in range(N)]
                         for t in range(T)])
    np.testing.assert_allclose(h.smooth(obs), smoothed, atol=1e-9)
    for t in (0, T // 2, T - 1):              # filtering: enumerate the prefix
        p_paths, p_log = log_enumeration(h, obs[: t + 1])
        filtered = np.exp([logsumexp(p_log[p_paths[:, t] == i]) - logsumexp(p_log) for i in range(N)])
        np.testing.assert_allclose(h.filter(obs)[t], filtered, atol=1e-9)
    path, log_p = h.viterbi(obs)
    assert log_p == pytest.approx(log_joint.max(), rel=1e-9)
    assert path_log_p(h, obs, path) == pytest.approx(log_joint.max(), rel=1e-9)


def test_entries_near_1e200_match_log_space_enumeration_by_hand():
    # the only way to explain symbol 0 first is start 1e-200 times emission 1e-200
    h = HMM([1e-200, 1], [[1e-200, 1], [1, 1e-200]], [[1e-200, 1], [0, 1]])
    for obs in ([0], [0, 1], [0, 1, 0], [1, 0, 1, 0, 0]):
        check_against_log_enumeration(h, np.array(obs))


@pytest.mark.parametrize("seed", range(8))
def test_entries_near_1e200_match_log_space_enumeration(seed):
    rng = np.random.default_rng(seed)
    n, m = [(2, 2), (3, 3), (2, 4), (3, 2)][seed % 4]
    h = tiny_model(rng, n, m, tiny=[1e-200, 1e-150, 1e-250, 1e-100][seed % 4])
    for T in (1, 3, 7):
        obs = rng.integers(0, m, T)
        paths, log_joint = log_enumeration(h, obs)
        if np.isfinite(log_joint.max()):
            check_against_log_enumeration(h, obs)


def test_fit_on_a_model_with_tiny_entries_equals_hmmlearn_log():
    rng = np.random.default_rng(5)
    h = tiny_model(rng, 3, 4, tiny=1e-120)
    obs = rng.integers(0, 4, 12)
    from scipy.special import logsumexp
    assert np.isfinite(logsumexp(log_enumeration(h, obs)[1]))
    ref = oracle(h)
    ref.implementation = "log"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref.fit(obs[:, None])
    h.n_iter = 1
    h.fit([obs])
    np.testing.assert_allclose(h.transition, ref.transmat_, atol=1e-9)
    np.testing.assert_allclose(h.emission, ref.emissionprob_, atol=1e-9)
    np.testing.assert_allclose(h.start, ref.startprob_, atol=1e-9)


def test_a_state_driven_below_1e300_by_the_evidence_comes_back():
    # 400 steps of evidence against state 1 (ratio 1e-2 each), then a symbol only it emits
    h = HMM([0.5, 0.5], [[1, 0], [0, 1]], [[0.5, 0.5, 0], [0.99, 0.00495, 0.00505]])
    obs = np.array([1] * 400 + [2])
    # only the paths "always state 1" explain the last symbol
    expected = np.log(0.5) + 400 * np.log(0.00495) + np.log(0.00505)
    assert h.log_likelihood(obs) == pytest.approx(expected, rel=1e-12)
    np.testing.assert_allclose(h.smooth(obs)[:, 1], 1.0)
    assert h.filter(obs)[-1].tolist() == [0.0, 1.0]
    assert h.viterbi(obs)[0].tolist() == [1] * 401


# ------------------------------------------------------------------ more bad input
def test_fitted_attributes_before_fit():
    from lib.hmm import NotFittedError

    h = umbrella()
    with pytest.raises(NotFittedError, match="call fit"):
        h.log_likelihoods_  # noqa: B018 - the attribute access is what raises
    assert not hasattr(h, "n_iter_")                     # an AttributeError too
    h.n_iter, h.tol = 2, 0
    h.fit([[0, 1, 1]])
    assert h.n_iter_ == len(h.log_likelihoods_) - 1 == 2


# ------------------------------------------------------------------ fast == reference, every path
def sticky_hmm(rng, n, m, switch):
    A = np.full((n, n), switch / max(n - 1, 1)) + np.eye(n) * (1 - switch - switch / max(n - 1, 1))
    return HMM(rng.dirichlet(np.ones(n)), A / A.sum(axis=1, keepdims=True),
               rng.dirichlet(np.ones(m) * 2, n))


def assert_fast_equals_reference(h, obs):
    alpha, ll = h.forward(obs)
    alpha_p, ll_p = h.forward_plain(obs)
    assert ll == pytest.approx(ll_p, rel=1e-11)
    assert h.log_likelihood(obs) == pytest.approx(ll_p, rel=1e-11)
    np.testing.assert_allclose(alpha, alpha_p, atol=1e-10)
    np.testing.assert_allclose(h.backward(obs), h.backward_plain(obs), atol=1e-10)
    path, log_p = h.viterbi(obs)
    path_p, log_p_p = h.viterbi_plain(obs)
    assert log_p == pytest.approx(log_p_p, rel=1e-11)
    same_or_tie(h, obs, path, path_p, agreement=0.5)    # (models with exact ties)


@pytest.mark.parametrize("n, m, T, switch", [(2, 2, 20000, 0.01), (2, 2, 20000, 1e-6), (3, 4, 6000, 1e-3),
                                             (8, 5, 3000, 0.05), (32, 6, 600, 0.1), (64, 4, 300, 0.3)])
def test_fast_equals_reference_on_sticky_chains(n, m, T, switch):
    rng = np.random.default_rng(n + T)
    h = sticky_hmm(rng, n, m, switch)
    assert_fast_equals_reference(h, h.sample(T, rng)[1])


def test_sticky_two_state_viterbi_of_the_issue():
    # switch probability 0.01 and 1e-6, emissions 0.6 / 0.4: paths tie a lot
    for switch in (0.01, 1e-6):
        h = HMM([0.5, 0.5], [[1 - switch, switch], [switch, 1 - switch]], [[0.6, 0.4], [0.4, 0.6]])
        obs = h.sample(30000, np.random.default_rng(7))[1]
        path, log_p = h.viterbi(obs)
        path_p, log_p_p = h.viterbi_plain(obs)
        assert log_p == pytest.approx(log_p_p, rel=1e-12)
        assert path_log_p(h, obs, path) == pytest.approx(log_p_p, rel=1e-12)


@pytest.mark.parametrize("seed", range(6))
def test_compiled_log_recursions_equal_reference(seed):
    """The log-space loops that run where rescaled products could underflow."""
    from lib.hmm import reference

    rng = np.random.default_rng(seed)
    n, m = [(1, 2), (2, 3), (3, 2), (4, 6), (9, 3), (64, 5)][seed]
    h = random_hmm(rng, n, m, concentration=[0.3, 1.0][seed % 2])
    if n > 1:                                       # an impossible transition, and a block of
        h.transition[0, -1] = 0.0                   # emissions and transitions near 1e-290: sums
        h.transition[n // 2:, :n // 2] *= 1e-290    # that underflow, redone term by term
        h.transition /= h.transition.sum(axis=1, keepdims=True)
        h.emission[: n // 2, m // 2:] *= 1e-290
        h.emission[n // 2:, : m // 2] *= 1e-290
        h.emission /= h.emission.sum(axis=1, keepdims=True)
    for T in (1, 2, 17, 500):
        obs = h.sample(T, rng)[1]
        log_alpha, log_beta = fast.log_messages(h, obs)
        with np.errstate(divide="ignore"):
            args = np.log(h.start), np.log(h.transition), np.log(h.emission.T)[obs]
        np.testing.assert_allclose(log_alpha, reference.forward_log(*args), rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(log_beta, reference.backward_log(*args[1:]), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("seed", range(8))
def test_baum_welch_counts_equal_log_space_counts(seed):
    """The compiled E step (rescaled, no T x N x N array) against the one in logarithms."""
    rng = np.random.default_rng(200 + seed)
    n = [1, 2, 3, 5, 8, 16, 33, 64][seed]
    h = random_hmm(rng, n, 4, concentration=0.5)
    for T in (1, 2, 3, 40, 700):
        obs = h.sample(T, rng)[1]
        ll, (start, transition, emission) = fast.expected_counts(h, obs, 1e-280)
        log_alpha, log_beta = fast.log_messages(h, obs)
        gamma = np.exp(log_alpha + log_beta - ll)
        assert ll == pytest.approx(h.forward_plain(obs)[1], rel=1e-11)
        np.testing.assert_allclose(start, gamma[0], atol=1e-12)
        np.testing.assert_allclose(emission, [np.bincount(obs, g, 4) for g in gamma.T], atol=1e-9)
        expected = h._log_transition_counts(obs, log_alpha, log_beta) if T > 1 else np.zeros((n, n))
        np.testing.assert_allclose(transition, expected, atol=1e-9)


@pytest.mark.parametrize("seed", range(6))
def test_fast_equals_reference_on_random_shapes(seed):
    rng = np.random.default_rng(100 + seed)
    n = [2, 5, 8, 16, 33, 64][seed]
    h = random_hmm(rng, n, 7, concentration=0.7)
    for T in (1, 2, 65, 1500):
        assert_fast_equals_reference(h, h.sample(T, rng)[1])


@pytest.mark.parametrize("seed", range(12))
def test_fast_equals_reference_with_zero_entries(seed):
    """Random models with impossible transitions and emissions (N from 1 to 64), T from 1;
    Baum-Welch counts against the update computed from the plain messages."""
    rng = np.random.default_rng(300 + seed)
    n = [1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64][seed]
    m = 1 + seed % 5
    h = random_hmm(rng, n, m, concentration=0.4)
    for matrix in (h.transition, h.emission):     # zero about a quarter of the entries, keep
        zero = rng.random(matrix.shape) < 0.25    # the largest of each row
        zero[np.arange(len(matrix)), matrix.argmax(axis=1)] = False
        matrix[zero] = 0.0
        matrix /= matrix.sum(axis=1, keepdims=True)
    for T in (1, 2, 3, 30, 400):
        obs = h.sample(T, rng)[1]
        assert_fast_equals_reference(h, obs)
        alpha, _ = h.forward_plain(obs)
        beta = h.backward_plain(obs)
        gamma = alpha * beta / (alpha * beta).sum(axis=1, keepdims=True)
        xi = alpha[:-1, :, None] * h.transition * (h.emission[:, obs[1:]].T * beta[1:])[:, None, :]
        xi /= xi.sum(axis=(1, 2), keepdims=True)
        counts = h._expected_counts(obs)[1]
        np.testing.assert_allclose(counts[0], gamma[0], atol=1e-12)
        np.testing.assert_allclose(counts[1], xi.sum(axis=0), atol=1e-10)
        np.testing.assert_allclose(counts[2], [np.bincount(obs, g, m) for g in gamma.T], atol=1e-10)


def test_impossible_evidence_in_fit_names_the_step():
    h = HMM([1, 0], [[0, 1], [1, 0]], [[1, 0], [0, 1]])
    with pytest.raises(ValueError, match="symbol 1 at position 2 after the 2 symbols"):
        h.fit([[0, 1, 0], [0, 1, 1, 0]])


@pytest.mark.parametrize("tiny, in_logs", [(1e-120, False), (1e-200, False), (1e-290, True)])
def test_fit_where_the_rescaled_messages_lose_precision_equals_hmmlearn_log(tiny, in_logs):
    """Each half of the states almost never emits half the symbols: state shares near
    ``tiny`` in the messages. Below 1e-280 (message entries that lost precision) fit redoes the
    sequence in logarithms; both ways agree with hmmlearn's log implementation."""
    rng = np.random.default_rng(9)
    start, A, E = rng.dirichlet(np.ones(4)), rng.dirichlet(np.ones(4), 4), rng.dirichlet(np.ones(6), 4)
    E[:2, 3:] *= tiny
    E[2:, :3] *= tiny
    h = HMM(start, A, E / E.sum(axis=1, keepdims=True))
    obs = rng.integers(0, 6, 300)
    assert (fast.expected_counts(h, obs, 1e-280)[1] is None) == in_logs
    ref = oracle(h, n_iter=2)
    ref.implementation = "log"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref.fit(obs[:, None])
    h.n_iter, h.tol = 2, 0
    h.fit([obs])
    # hmmlearn's history ends before its last update; ours adds the returned model's value
    assert h.log_likelihoods_[-2] == pytest.approx(ref.monitor_.history[-1], rel=1e-12)
    np.testing.assert_allclose(h.transition, ref.transmat_, atol=1e-9)
    np.testing.assert_allclose(h.emission, ref.emissionprob_, atol=1e-9)
    np.testing.assert_allclose(h.start, ref.startprob_, atol=1e-9)
