"""Tests of lib.bn.learning.fit_em, the one EM for Bayesian networks (Chapter 6, section
"Hidden variables: gradient ascent on the CPTs"; Chapter 7, section "Bayesian networks
with missing values"), against brute-force enumeration over the full joint table."""
from itertools import product

import numpy as np
import pytest

from lib.bn import BayesNet, fit_em

VARS = ["X1", "X2", "X3", "X4"]
PARENTS = {"X1": [], "X2": ["X1"], "X3": ["X1"], "X4": ["X2", "X3"]}
# the partial instantiations of seed 002 ("?" = missing)
SEED_TABLE = [[0, "?", 1, 1], [1, "?", "?", 1], [0, "?", 1, 1], ["?", "?", "?", 0]]


def random_net(seed):
    rng = np.random.default_rng(seed)
    cpts = {"X1": rng.dirichlet([2, 2]), "X2": rng.dirichlet([2, 2], 2),
            "X3": rng.dirichlet([2, 2], 2), "X4": rng.dirichlet([2, 2], (2, 2))}
    return BayesNet([(v, [0, 1], PARENTS[v], cpts[v]) for v in VARS]), cpts


def joint(cpts):
    """P(x1, x2, x3, x4) of the diamond, one axis per variable."""
    return np.einsum("a,ab,ac,bcd->abcd", cpts["X1"], cpts["X2"], cpts["X3"], cpts["X4"])


def brute_force_log_likelihood(cpts, rows):
    total = 0.0
    for row in rows:
        p = 0.0
        for x in product([0, 1], repeat=4):
            if any(r != "?" and r != xi for r, xi in zip(row, x)):
                continue
            p += (cpts["X1"][x[0]] * cpts["X2"][x[0], x[1]] * cpts["X3"][x[0], x[2]]
                  * cpts["X4"][x[1], x[2], x[3]])
        total += np.log(p)
    return total


def brute_force_em(cpts, rows, n_iter, pseudo_count=0.0):
    """EM with the E step summed over the full joint table (the oracle)."""
    cpts = {v: np.array(t, dtype=float) for v, t in cpts.items()}
    lls = []
    for t in range(n_iter + 1):
        table = joint(cpts)
        post, ll = np.zeros_like(table), 0.0
        for row in rows:
            index = tuple(slice(None) if x == "?" else x for x in row)
            ll += np.log(table[index].sum())
            post[index] += table[index] / table[index].sum()
        lls.append(ll)
        if t == n_iter:
            break
        for i, v in enumerate(VARS):
            fam = [VARS.index(u) for u in PARENTS[v]] + [i]
            c = np.einsum(post, list(range(4)), fam) + pseudo_count
            total = c.sum(-1, keepdims=True)
            cpts[v] = np.where(total > 0, c / np.where(total > 0, total, 1), cpts[v])
    return cpts, np.array(lls)


def non_decreasing(ll, rel=1e-10):
    ll = np.asarray(ll)
    return np.all(np.diff(ll) >= -rel * np.abs(ll[1:]).max() - 1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_network_em_likelihood_equals_brute_force(seed):
    net, cpts = random_net(seed)
    res = net.copy().fit_em(SEED_TABLE, n_iter=15, tol=0)
    assert len(res.log_likelihoods_) == 16 and res.n_iter_ == 15
    assert np.isclose(res.log_likelihoods_[0], brute_force_log_likelihood(cpts, SEED_TABLE))
    # entry t is the likelihood under the CPTs after t M steps: the last entry is
    # that of the returned network
    final = brute_force_log_likelihood(dict(res.cpts), SEED_TABLE)
    assert np.isclose(res.log_likelihoods_[-1], final)
    assert non_decreasing(res.log_likelihoods_)
    # the enumeration E step agrees with lib.bn's exact inference, iteration by iteration
    oracle, lls = brute_force_em(cpts, SEED_TABLE, 15)
    assert np.allclose(lls, res.log_likelihoods_)
    for v in VARS:
        assert np.allclose(oracle[v], res.cpts[v])
    # the starting network is unchanged (copy), the function form is the same EM
    assert all(np.allclose(net.cpts[v], cpts[v]) for v in VARS)
    same = fit_em(net.copy(), SEED_TABLE, n_iter=15, tol=0)
    assert np.allclose(same.log_likelihoods_, res.log_likelihoods_)


def test_map_em_matches_brute_force_with_pseudo_counts():
    net, cpts = random_net(5)
    res = net.copy().fit_em(SEED_TABLE, n_iter=10, pseudo_count=1.0, tol=0)
    oracle, lls = brute_force_em(cpts, SEED_TABLE, 10, pseudo_count=1.0)
    assert np.allclose(lls, res.log_likelihoods_)
    assert all(np.allclose(oracle[v], res.cpts[v]) for v in VARS)
    assert min(res.cpts[v].min() for v in VARS) > 0.05


def test_expected_counts_by_hand():
    net, cpts = random_net(0)
    counts, ll = net.expected_counts([[0, "?", 1, 1]])
    # P(X2 | X1=0, X3=1, X4=1) is proportional to P(X2 | X1=0) P(X4=1 | X2, X3=1)
    w = cpts["X2"][0] * cpts["X4"][:, 1, 1]
    assert np.allclose(counts["X2"][0], w / w.sum())
    assert np.isclose(counts["X1"].sum(), 1) and np.isclose(counts["X1"][0], 1)
    assert np.isclose(ll, np.log(cpts["X1"][0] * cpts["X3"][0, 1] * w.sum()))


def test_network_em_complete_data_is_one_step_ml():
    net, _ = random_net(1)
    rows = [[0, 1, 1, 0], [1, 0, 1, 1], [0, 0, 0, 0], [1, 1, 1, 1]]
    res = net.copy().fit_em(rows, n_iter=3, tol=0)
    ml = net.copy().fit({v: [r[i] for r in rows] for i, v in enumerate(VARS)})
    for v in VARS:  # parent configurations that occur (EM keeps the others' rows)
        seen = ml.counts_[v].sum(-1) > 0
        assert np.allclose(res.cpts[v][seen], ml.cpts[v][seen])
        assert np.allclose(res.cpts[v][~seen], net.cpts[v][~seen])


@pytest.mark.parametrize("seed", range(3))
def test_network_em_never_decreases_on_random_data(seed):
    rng = np.random.default_rng(seed)
    net, cpts = random_net(seed + 10)
    full = net.sample(60, rng=rng, codes=True)
    rows = [[("?" if rng.random() < 0.3 else int(v)) for v in row] for row in full]
    res = net.copy().fit_em(rows, n_iter=25, tol=0)
    assert non_decreasing(res.log_likelihoods_)
    assert np.isclose(res.log_likelihoods_[0], brute_force_log_likelihood(cpts, rows))
    assert np.isclose(res.log_likelihoods_[-1],
                      brute_force_log_likelihood(dict(res.cpts), rows))


def test_tol_stops_early_and_data_forms_agree():
    net, _ = random_net(2)
    long = net.copy().fit_em(SEED_TABLE, n_iter=500, tol=1e-10)
    assert long.n_iter_ < 500
    assert abs(long.log_likelihoods_[-1] - long.log_likelihoods_[-2]) < 1e-9
    as_dicts = [{v: (None if x == "?" else x) for v, x in zip(VARS, row)} for row in SEED_TABLE]
    other = net.copy().fit_em(as_dicts, n_iter=5, tol=0)
    same = net.copy().fit_em(SEED_TABLE, n_iter=5, tol=0)
    assert np.allclose(other.log_likelihoods_, same.log_likelihoods_)


def test_network_em_bad_input():
    net, cpts = random_net(0)
    with pytest.raises(ValueError, match="unknown state 2"):
        net.copy().fit_em([[0, 2, 1, 1]])
    with pytest.raises(ValueError, match="3 values"):
        net.copy().fit_em([[0, 1, 1]])
    with pytest.raises(ValueError, match="empty"):
        net.copy().fit_em([])
    with pytest.raises(TypeError, match="BayesNet"):
        fit_em("not a net", SEED_TABLE)
    for bad in (float("nan"), -1.0, float("inf")):
        with pytest.raises(ValueError, match="pseudo_count"):
            net.copy().fit_em(SEED_TABLE, pseudo_count=bad)
    with pytest.raises(TypeError, match="pseudo_count"):
        net.copy().fit_em(SEED_TABLE, pseudo_count="1")
    with pytest.raises(TypeError, match="n_iter"):
        net.copy().fit_em(SEED_TABLE, n_iter=2.5)
    with pytest.raises(ValueError, match="n_iter"):
        net.copy().fit_em(SEED_TABLE, n_iter=-1)
    with pytest.raises(ValueError, match="tol"):
        net.copy().fit_em(SEED_TABLE, tol=float("nan"))
    with pytest.raises(ValueError, match="CPT"):
        BayesNet([(v, [0, 1], PARENTS[v], {**cpts, "X1": [0.5, 0.6]}[v]) for v in VARS])
    with pytest.raises(ValueError, match="cycle"):
        BayesNet([("A", [0, 1], ["B"]), ("B", [0, 1], ["A"])])
    # a row of probability zero under the starting CPTs
    zero = BayesNet([("A", [0, 1], [], [1.0, 0.0]), ("B", [0, 1], ["A"], [[0.5, 0.5], [0.5, 0.5]])])
    with pytest.raises(ValueError, match="probability zero"):
        zero.fit_em([[1, "?"]])
    with pytest.raises(ValueError, match="probability zero"):
        zero.fit_em([[1, 0]])


def test_em_keeps_the_chapter_6_and_7_numbers():
    """Seed 002's table from the chapter's start: the numbers Chapter 7 prints."""
    net0 = BayesNet([
        ("X1", [0, 1], [], [0.5, 0.5]),
        ("X2", [0, 1], ["X1"], [[0.7, 0.3], [0.4, 0.6]]),
        ("X3", [0, 1], ["X1"], [[0.5, 0.5], [0.5, 0.5]]),
        ("X4", [0, 1], ["X2", "X3"], [[[0.6, 0.4], [0.3, 0.7]], [[0.5, 0.5], [0.2, 0.8]]]),
    ])
    cpts = {v: net0.cpts[v] for v in VARS}
    res = net0.copy().fit_em(SEED_TABLE, n_iter=40, tol=0)
    oracle, lls = brute_force_em(cpts, SEED_TABLE, 40)
    assert np.allclose(res.log_likelihoods_, lls)
    assert all(np.allclose(res.cpts[v], oracle[v]) for v in VARS)
    assert min(res.cpts[v].min() for v in VARS) < 0.01


@pytest.mark.parametrize("dtype", [np.int64, np.int8, bool])
def test_unique_rows_is_numpys_unique_over_rows(dtype):
    # EM and structural EM group rows with it: the same rows, order, inverse and counts
    from lib.bn._common import unique_rows
    rng = np.random.default_rng(0)
    for rows, cols in [(200, 5), (1, 3), (7, 1), (0, 4), (5, 0)]:
        table = rng.integers(-1, 3, size=(rows, cols)).astype(dtype)
        want_rows, want_inverse, want_counts = np.unique(table, axis=0, return_inverse=True, return_counts=True)
        got_rows, got_inverse, got_counts = unique_rows(table, return_inverse=True, return_counts=True)
        assert got_rows.dtype == table.dtype and got_rows.tolist() == want_rows.tolist()
        assert got_inverse.tolist() == want_inverse.ravel().tolist() and got_counts.tolist() == want_counts.tolist()
        assert unique_rows(table).tolist() == want_rows.tolist()
    wide = rng.integers(0, 2**40, size=(30, 3))  # codes over 62 bits: numpy's own unique
    assert unique_rows(wide).tolist() == np.unique(wide, axis=0).tolist()
    with pytest.raises(ValueError, match="2-D"):
        unique_rows([1, 2, 3])
