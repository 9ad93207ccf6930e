"""Tests of lib/bn.py (Chapter 6, "Bayesian networks").

The source documents' numbers, exact inference three ways on random networks, the
samplers, parameter and structure learning, every validation error, and oracle
comparisons with pgmpy on the ALARM, ASIA and SACHS networks shipped in
lib/data/networks/.
"""
import gzip
import itertools
import math
import warnings
from pathlib import Path

import numpy as np
import pytest

from lib.bn import BayesNet, ImpossibleEvidenceError, family_score, hill_climb, read_bif
from lib.plots.bn import layered_layout

NETWORKS = Path(__file__).resolve().parents[2] / "lib" / "data" / "networks"
TF = ["true", "false"]


def earthquake_net():
    """Seed 001's network: Q earthquake, B burglary, R radio, A alarm, C call."""
    return BayesNet([
        ("Q", TF, [], [0.0001, 0.9999]),
        ("B", TF, [], [0.001, 0.999]),
        ("R", TF, ["Q"], [[0.999, 0.001], [0.0005, 0.9995]]),
        ("A", TF, ["Q", "B"], [[0.999, 0.001], [0.8, 0.2], [0.95, 0.05], [0.001, 0.999]]),
        ("C", TF, ["A"], [[0.9, 0.1], [0.01, 0.99]]),
    ])


def random_net(seed, n_vars=7, max_parents=3, zeros=False):
    rng = np.random.default_rng(seed)
    specs = []
    for i in range(n_vars):
        k = int(rng.integers(2, 4))
        cand = list(range(i))
        parents = sorted(rng.choice(cand, size=min(len(cand), int(rng.integers(0, max_parents + 1))),
                                    replace=False).tolist()) if cand else []
        shape = [specs[p][1].__len__() for p in parents] + [k]
        cpt = rng.dirichlet(np.ones(k) * 0.8, size=int(np.prod(shape[:-1]))).reshape(shape)
        if zeros:
            cpt = np.where(rng.random(shape) < 0.15, 0.0, cpt) + 1e-12
            cpt[..., 0] += 1e-3
            cpt /= cpt.sum(-1, keepdims=True)
        specs.append((f"X{i}", [f"s{j}" for j in range(k)], [f"X{p}" for p in parents], cpt))
    order = rng.permutation(n_vars)  # declared in any order
    return BayesNet([specs[i] for i in order])


# ------------------------------------------------------------------ seed numbers
def test_seed001_joint_probability():
    net = earthquake_net()
    p = net.joint({"Q": "false", "B": "true", "R": "true", "A": "false", "C": "true"})
    assert p == pytest.approx(0.9999 * 0.001 * 0.0005 * 0.05 * 0.01, rel=1e-12)
    assert p == pytest.approx(2.49975e-10, rel=1e-12)


def test_seed001_cpts_and_parameter_count():
    net = earthquake_net()
    assert net.cpts["A"][1, 0].tolist() == [0.95, 0.05]      # P(A | notQ, B)
    assert net.cpts["R"][1, 1] == 0.9995
    assert net.n_parameters() == 1 + 1 + 2 + 4 + 2
    assert net.order.index("A") > max(net.order.index("Q"), net.order.index("B"))


def test_earthquake_posteriors_three_ways():
    net = earthquake_net()
    for var, ev in [("B", {"C": "true"}), ("Q", {"C": "true", "R": "true"}),
                    ("A", {"R": "false"}), ("B", {"C": "true", "Q": "true"})]:
        ps = [net.query(var, ev, method=m) for m in ("elimination", "enumeration", "joint")]
        assert np.allclose(ps[0], ps[1], atol=1e-14) and np.allclose(ps[0], ps[2], atol=1e-14)
    # by hand: P(B | C) = sum_{q,a} P(q)P(B)P(a|q,B)P(C|a) / P(C)
    pq, pb = np.array([1e-4, 1 - 1e-4]), np.array([1e-3, 1 - 1e-3])
    pa = net.cpts["A"][..., 0]
    pc = 0.9 * pa + 0.01 * (1 - pa)
    joint_bc = (pq[:, None] * pb[None, :] * pc).sum(0)
    assert net.query("B", {"C": "true"})[0] == pytest.approx(joint_bc[0] / joint_bc.sum(), rel=1e-12)


def test_explaining_away():
    net = earthquake_net()
    pb_c = net.query("B", {"C": "true"})[0]
    pb_cr = net.query("B", {"C": "true", "R": "true"})[0]
    assert pb_cr < pb_c / 5  # the radio report explains the alarm away


def test_thunder_conditionally_independent_of_storm_given_lightning():
    net = BayesNet([("Storm", TF, [], [0.3, 0.7]),
                    ("Lightning", TF, ["Storm"], [[0.6, 0.4], [0.05, 0.95]]),
                    ("Thunder", TF, ["Lightning"], [[0.95, 0.05], [0.02, 0.98]])])
    for l in TF:
        a = net.query("Thunder", {"Storm": "true", "Lightning": l})
        b = net.query("Thunder", {"Storm": "false", "Lightning": l})
        c = net.query("Thunder", {"Lightning": l})
        assert np.allclose(a, c) and np.allclose(b, c)
    assert not np.allclose(net.query("Thunder", {"Storm": "true"}), net.query("Thunder"))


def heart_networks():
    three = ["none", "moderate", "severe"]
    causes = ["Smoking", "Diet", "Exercise"]
    hidden = BayesNet([(c, three) for c in causes] + [("HeartDisease", three, causes)]
                      + [(f"Symptom{k}", three, ["HeartDisease"]) for k in (1, 2, 3)])
    without = BayesNet([(c, three) for c in causes]
                       + [(f"Symptom{k}", three, causes + [f"Symptom{j}" for j in range(1, k)])
                          for k in (1, 2, 3)])
    return hidden, without


def test_figure_20_10_parameter_counts():
    hidden, without = heart_networks()
    assert hidden.n_parameters() == 78
    assert without.n_parameters() == 708


# ---------------------------------------------------------- exact inference
@pytest.mark.parametrize("seed", range(8))
def test_enumeration_elimination_joint_agree_on_random_networks(seed):
    net = random_net(seed, zeros=seed % 2 == 1)
    rng = np.random.default_rng(100 + seed)
    joint = net.joint_table()
    assert joint.sum() == pytest.approx(1.0)
    for _ in range(6):
        names = list(rng.permutation(net.names))
        q = names[:int(rng.integers(1, 3))]
        ev = {n: net.states[n][int(rng.integers(net.card[n]))] for n in names[3:3 + int(rng.integers(0, 4))]}
        try:
            pe = net.query(q, ev, method="joint")
        except ValueError:
            continue
        pv = net.query(q, ev, method="elimination")
        pn = net.query(q, ev, method="enumeration")
        assert pv.shape == tuple(net.card[v] for v in q)
        assert np.allclose(pv, pe, atol=1e-12) and np.allclose(pn, pe, atol=1e-12)
        assert math.exp(net.log_evidence(ev)) == pytest.approx(
            sum(net.joint(dict(zip(net.names, (net.states[n][k] for n, k in zip(net.names, cfg)))))
                for cfg in itertools.product(*(range(net.card[n]) for n in net.names))
                if all(net.states[n][cfg[net.names.index(n)]] == s for n, s in ev.items())), rel=1e-9)


def test_joint_table_matches_joint():
    net = random_net(3)
    table = net.joint_table()
    rng = np.random.default_rng(0)
    for _ in range(5):
        cfg = [int(rng.integers(net.card[n])) for n in net.names]
        assert table[tuple(cfg)] == pytest.approx(net.joint({n: net.states[n][k] for n, k in zip(net.names, cfg)}))


def test_elimination_plan_prunes_barren_nodes():
    net = earthquake_net()
    plan = net.elimination_plan("B", {"C": "true"})
    assert plan["pruned"] == ["R"]
    assert sorted(plan["order"]) == ["A", "Q"]
    assert plan["largest_factor_vars"] == 3 and plan["largest_factor_size"] == 8


def _naive_min_fill(net, relevant, evidence, hidden):
    """Min-fill order of ``hidden`` (ties: smallest largest-factor size, then network
    position) with every score recomputed from scratch at every step: the reference
    for the incremental version in lib.bn.inference. The graph joins the unobserved
    members of each relevant variable's family."""
    nb = {}
    for child in relevant:
        family = [u for u in (*net.parents[child], child) if u not in evidence]
        for u in family:
            nb.setdefault(u, set()).update(set(family) - {u})
    order, left = [], set(hidden)
    while left:
        def score(h):
            ns = nb.get(h, set())
            fill = sum(1 for a, b in itertools.combinations(ns, 2) if b not in nb[a])
            return fill, math.prod(net.card[x] for x in ns) * net.card[h], net.names.index(h)
        best = min(left, key=score)
        left.discard(best)
        ns = nb.pop(best, set())
        for x in ns:
            nb[x] |= ns - {x}
            nb[x].discard(best)
        order.append(best)
    return order


@pytest.mark.parametrize("seed", range(6))
def test_incremental_min_fill_equals_recomputing_every_score(seed):
    rng = np.random.default_rng(seed)
    names = [f"V{i}" for i in range(25)]
    specs = []
    for i, n in enumerate(names):
        parents = [names[j] for j in rng.choice(i, size=min(i, int(rng.integers(0, 4))), replace=False)]
        specs.append((n, ["a", "b", "c"][:int(rng.integers(2, 4))], parents))
    net = BayesNet(specs)
    for _ in range(10):
        order = list(rng.permutation(names))
        q, ev = order[:2], {n: net.states[n][0] for n in order[2:2 + int(rng.integers(0, 8))]}
        plan = net.elimination_plan(q, ev)
        relevant = set(names) - set(plan["pruned"])
        hidden = relevant - set(q) - set(ev)
        assert plan["order"] == _naive_min_fill(net, relevant, ev, hidden)


def test_chain_elimination_stays_small_and_does_not_underflow():
    # a long chain with evidence everywhere: P(evidence) ~ 1e-900 underflows a plain
    # product; the largest factor has two variables whatever the length
    k = 3000
    trans = np.array([[0.9, 0.1], [0.2, 0.8]])
    specs = [("V0", TF, [], [0.5, 0.5])] + [(f"V{i}", TF, [f"V{i-1}"], trans) for i in range(1, k)]
    net = BayesNet(specs)
    obs = {i: i % 4 // 2 for i in range(1, k)}  # true, true, false, false, ...
    ev = {f"V{i}": TF[s] for i, s in obs.items()}
    plan = net.elimination_plan("V0", ev)
    assert plan["largest_factor_vars"] <= 2
    # reference: log P(evidence) = log sum_v0 P(v0) prod_i P(v_i | v_{i-1})
    logs = np.log(trans)
    first = np.log([0.5, 0.5]) + logs[:, obs[1]]
    rest = sum(logs[obs[i - 1], obs[i]] for i in range(2, k))
    assert net.log_evidence(ev) == pytest.approx(float(np.logaddexp(*first) + rest), rel=1e-10)
    assert net.log_evidence(ev) < -900 * math.log(10)
    p = net.query("V0", ev)
    assert np.allclose(p, np.exp(first - np.logaddexp(*first)))


# ------------------------------------------------------------ sampling
def test_prior_sampling_frequencies():
    net = random_net(5)
    X = net.sample(200_000, np.random.default_rng(1), codes=True)
    for j, n in enumerate(net.names):
        freq = np.bincount(X[:, j], minlength=net.card[n]) / len(X)
        assert np.allclose(freq, net.query(n), atol=0.006)
    labels = net.sample(5, np.random.default_rng(1))
    assert set(labels) == set(net.names) and all(len(c) == 5 for c in labels.values())


@pytest.mark.parametrize("method", ["rejection_sampling", "likelihood_weighting", "gibbs_sampling"])
def test_samplers_converge(method):
    net = earthquake_net()
    ev = {"C": "true"}
    exact = net.query("A", ev)
    n = {"rejection_sampling": 400_000, "likelihood_weighting": 200_000, "gibbs_sampling": 40_000}[method]
    res = getattr(net, method)("A", ev, n, rng=np.random.default_rng(7))
    assert np.allclose(res.p, exact, atol=0.02)
    assert res.running.shape == (n, 2) and np.allclose(res.running[-1], res.p)
    assert res.n_effective > 0


@pytest.mark.parametrize("seed", [0, 1])
def test_samplers_converge_on_random_network(seed):
    net = random_net(seed + 10)
    var, other = net.names[0], net.names[-1]
    ev = {other: net.states[other][0]}
    exact = net.query(var, ev)
    for method, n in [("rejection_sampling", 100_000), ("likelihood_weighting", 100_000),
                      ("gibbs_sampling", 30_000)]:
        res = getattr(net, method)(var, ev, n, rng=np.random.default_rng(seed))
        assert np.allclose(res.p, exact, atol=0.03), method


def test_effective_samples_with_unlikely_evidence():
    net = earthquake_net()
    ev = {"C": "true", "R": "true"}
    n = 100_000
    p_e = math.exp(net.log_evidence(ev))
    rej = net.rejection_sampling("B", ev, n, rng=np.random.default_rng(0))
    lw = net.likelihood_weighting("B", ev, n, rng=np.random.default_rng(0))
    assert rej.n_effective == pytest.approx(n * p_e, abs=5 * math.sqrt(n * p_e) + 1)
    assert rej.n_effective < 30
    assert lw.n_effective < n / 100  # most weights are tiny


def test_eliminate_and_forward_sample_are_the_algorithms_under_query_and_the_samplers():
    from lib.bn import eliminate, forward_sample
    net = earthquake_net()
    a, ev = net.index["A"], net.evidence_codes({"C": "true"})
    table, log_scale, plan = eliminate(net, [a], ev)
    joint = table * math.exp(log_scale)  # P(A, C = true)
    assert joint.sum() == pytest.approx(math.exp(net.log_evidence({"C": "true"})), rel=1e-12)
    np.testing.assert_allclose(joint / joint.sum(), net.query("A", {"C": "true"}), rtol=1e-12)
    assert set(plan["order"]) == {"Q", "B"}  # C observed, R barren (no ancestor of A or C)
    X, log_w = forward_sample(net, 20_000, np.random.default_rng(3), fixed=ev)
    assert np.all(X[:, net.index["C"]] == ev[net.index["C"]])
    # each weight is P(C = true | A) of the sample's alarm: 0.9 or 0.01
    np.testing.assert_allclose(np.exp(log_w), np.where(X[:, a] == 0, 0.9, 0.01))
    weighted = np.bincount(X[:, a], weights=np.exp(log_w), minlength=2)
    assert np.allclose(weighted / weighted.sum(), net.query("A", {"C": "true"}), atol=0.02)
    Y, zero = forward_sample(net, 5, rng=np.random.default_rng(3))
    assert Y.shape == (5, 5) and not zero.any()
    assert np.array_equal(Y, net.sample(5, np.random.default_rng(3), codes=True))


@pytest.mark.parametrize("call, error, words", [
    (lambda f, e, net: e(net, ["A"], {}), ValueError, "q must be distinct variable indices 0..4"),
    (lambda f, e, net: e(net, [3, 3], {}), ValueError, "got [3, 3]"),
    (lambda f, e, net: e(net, [3], {"C": "true"}), ValueError, "ev must map variable indices"),
    (lambda f, e, net: e(net, [3], {4: 2}), ValueError, "got 4: 2"),
    (lambda f, e, net: f(net, 0), ValueError, "n must be an integer >= 1"),
    (lambda f, e, net: f(net, 3, fixed=[4]), TypeError, "fixed must be a dict"),
    (lambda f, e, net: f(net, 3, fixed={9: 0}), ValueError, "got 9: 0"),
    (lambda f, e, net: f(net, 3, rng="seed"), TypeError, "rng must be None, an integer seed"),
])
def test_eliminate_and_forward_sample_refuse_names_and_bad_codes(call, error, words):
    from lib.bn import eliminate, forward_sample
    with pytest.raises(error) as info:
        call(forward_sample, eliminate, earthquake_net())
    assert words in str(info.value)


# ------------------------------------------------------------ learning
def test_fit_recovers_cpts_from_a_large_sample():
    true = random_net(2, n_vars=5, max_parents=2)
    data = true.sample(100_000, np.random.default_rng(3))
    model = BayesNet.from_edges(true.states, true.edges()).fit(data)
    for n in true.names:
        assert np.allclose(model.cpts[n], true.cpts[n], atol=0.03), n
    assert sum(c.sum() for c in model.counts_.values()) == 100_000 * len(true.names)


def test_fit_counting_formula_and_pseudo_counts():
    net = BayesNet([("Y", ["spam", "ham"]), ("W", [0, 1], ["Y"])])
    data = {"Y": ["spam", "spam", "spam", "ham"], "W": [1, 1, 0, 0]}
    net.fit(data)
    assert np.allclose(net.cpts["Y"], [3 / 4, 1 / 4])
    assert np.allclose(net.cpts["W"], [[1 / 3, 2 / 3], [1, 0]])
    net.fit(data, pseudo_count=1)
    assert np.allclose(net.cpts["W"], [[2 / 5, 3 / 5], [2 / 3, 1 / 3]])
    assert np.allclose(net.cpts["Y"], [4 / 6, 2 / 6])


def test_fit_unseen_parent_configuration_is_uniform_and_weights_act_as_counts():
    net = BayesNet([("A", TF), ("B", ["x", "y", "z"], ["A"])])
    net.fit({"A": ["true", "true"], "B": ["x", "y"]})
    assert np.allclose(net.cpts["B"][1], 1 / 3)
    rows = {"A": ["true", "false", "false"], "B": ["x", "y", "z"]}
    w = net.copy().fit(rows, sample_weight=[3, 1, 2])
    rep = net.copy().fit({"A": ["true"] * 3 + ["false"] * 3, "B": ["x"] * 3 + ["y", "z", "z"]})
    assert all(np.allclose(w.cpts[n], rep.cpts[n]) for n in net.names)


def test_log_likelihood_decomposes_per_node():
    net = random_net(4)
    data = net.sample(500, np.random.default_rng(0))
    parts = net.node_log_likelihood(data)
    assert sum(parts.values()) == pytest.approx(net.log_likelihood(data))
    X = net.encode(data)
    direct = sum(math.log(net.joint({n: net.states[n][k] for n, k in zip(net.names, row)})) for row in X)
    assert net.log_likelihood(data) == pytest.approx(direct)
    assert net.log_likelihood(data, per_row=True).shape == (500,)


def test_ml_parameters_maximise_the_likelihood():
    true = random_net(6, n_vars=5)
    data = true.sample(2000, np.random.default_rng(0))
    ml = true.copy().fit(data)
    assert ml.log_likelihood(data) >= true.log_likelihood(data)
    assert ml.log_likelihood(data) == pytest.approx(ml.score(data, "loglik"))
    smooth = true.copy().fit(data, pseudo_count=1)
    assert ml.log_likelihood(data) >= smooth.log_likelihood(data)


@pytest.mark.parametrize("seed", range(4))
def test_adding_a_parent_never_lowers_the_training_likelihood(seed):
    # Exercise 20.8
    true = random_net(seed, n_vars=5)
    data = true.sample(300, np.random.default_rng(seed))
    edges = true.edges()
    base = BayesNet.from_edges(true.states, edges).fit(data).log_likelihood(data)
    candidates = [(u, v) for u in true.names for v in true.names if u != v and (u, v) not in edges]
    for u, v in candidates:
        try:
            bigger = BayesNet.from_edges(true.states, edges + [(u, v)])
        except ValueError:
            continue  # a cycle
        assert bigger.fit(data).log_likelihood(data) >= base - 1e-9


def test_bic_score_by_hand():
    net = BayesNet([("A", TF), ("B", TF, ["A"])])
    data = {"A": ["true", "true", "false", "false", "false"], "B": ["true", "false", "false", "false", "true"]}
    ll = 2 * math.log(2 / 5) + 3 * math.log(3 / 5) + 2 * math.log(1 / 2) + math.log(1 / 3) + 2 * math.log(2 / 3)
    assert net.score(data, "loglik") == pytest.approx(ll)
    assert net.score(data, "bic") == pytest.approx(ll - 0.5 * math.log(5) * 3)
    assert net.score(data, "mdl") == pytest.approx(-(ll - 0.5 * math.log(5) * 3) / math.log(2))
    assert net.score(data, "aic") == pytest.approx(ll - 3)
    with pytest.raises(ValueError, match="score must be one of"):
        family_score(net.encode(data), 0, [], [2, 2], "k3")


def small_true_net():
    return BayesNet([
        ("A", TF, [], [0.4, 0.6]),
        ("B", TF, [], [0.7, 0.3]),
        ("C", TF, ["A", "B"], [[0.95, 0.05], [0.6, 0.4], [0.3, 0.7], [0.05, 0.95]]),
        ("D", TF, ["C"], [[0.85, 0.15], [0.2, 0.8]]),
        ("E", ["lo", "mid", "hi"], ["C"], [[0.7, 0.2, 0.1], [0.1, 0.3, 0.6]]),
    ])


def test_hill_climbing_recovers_the_skeleton():
    true = small_true_net()
    data = true.sample(5000, np.random.default_rng(0))
    found = hill_climb(data, score="bic")
    assert found.skeleton() == true.skeleton()
    assert found.score_ == pytest.approx(found.score(data, "bic"))
    assert found.score_ >= true.score(data, "bic") - 1e-6
    assert np.all(np.diff(found.trace_) > 0)
    # the v-structure A -> C <- B is identifiable
    assert set(found.parents["C"]) == {"A", "B"}


def test_hill_climbing_restarts_escape_a_local_optimum():
    true = small_true_net()
    data = true.sample(5000, np.random.default_rng(11))
    greedy = hill_climb(data)
    assert greedy.skeleton() != true.skeleton()  # stuck: A -> B added to mimic A -> C <- B
    assert greedy.score_ < true.score(data, "bic")
    better = hill_climb(data, restarts=30, perturb=8, rng=0)
    assert better.score_ > greedy.score_
    assert better.skeleton() == true.skeleton()
    assert ("restart", None, None) in better.moves_


def test_hill_climbing_with_few_samples_finds_fewer_edges_and_loglik_overfits():
    true = small_true_net()
    few = true.sample(30, np.random.default_rng(0))
    assert len(hill_climb(few, states=true.states).edges()) < len(true.edges())
    dense = hill_climb(true.sample(300, np.random.default_rng(1)), states=true.states, score="loglik")
    assert len(dense.edges()) > len(true.edges())
    mdl = hill_climb(true.sample(3000, np.random.default_rng(2)), states=true.states, score="mdl")
    assert mdl.skeleton() == true.skeleton() and np.all(np.diff(mdl.trace_) < 0)


def test_hill_climbing_options():
    true = small_true_net()
    data = true.sample(5000, np.random.default_rng(0))
    one = hill_climb(data, score="bic", max_parents=1)
    assert max(len(p) for p in one.parents.values()) <= 1
    start = BayesNet.from_edges(true.states, [("A", "C")])
    found = BayesNet.hill_climb(data, start=start)
    assert found.skeleton() == true.skeleton() and found.moves_[0] != ("add", "A", "C")
    with pytest.raises(ValueError, match="score must be one of"):
        hill_climb(data, score="k2")


# ------------------------------------------------ missing data: EM and gradients
def forest_fire_net():
    """Mitchell's forest-fire network; only the Campfire CPT is from the book."""
    return BayesNet([
        ("Storm", TF, [], [0.3, 0.7]),
        ("BusTourGroup", TF, [], [0.4, 0.6]),
        ("Lightning", TF, ["Storm"], [[0.7, 0.3], [0.05, 0.95]]),
        ("Campfire", TF, ["Storm", "BusTourGroup"], [[0.4, 0.6], [0.1, 0.9], [0.8, 0.2], [0.2, 0.8]]),
        ("Thunder", TF, ["Lightning"], [[0.95, 0.05], [0.1, 0.9]]),
        ("ForestFire", TF, ["Storm", "Lightning", "Campfire"],
         [[0.6, 0.4], [0.3, 0.7], [0.4, 0.6], [0.05, 0.95],
          [0.8, 0.2], [0.6, 0.4], [0.5, 0.5], [0.01, 0.99]]),
    ])


def test_expected_counts_on_complete_data_are_counts():
    net = forest_fire_net()
    data = net.sample(400, np.random.default_rng(0))
    counts, ll = net.expected_counts(data)
    fitted = net.copy().fit(data)
    assert all(np.allclose(counts[n], fitted.counts_[n]) for n in net.names)
    assert ll == pytest.approx(net.log_likelihood(data))


def test_expected_counts_with_hidden_variables_match_inference():
    net = forest_fire_net()
    full = net.sample(300, np.random.default_rng(1))
    data = {k: v for k, v in full.items() if k not in ("Lightning", "Campfire")}
    data["Thunder"] = np.where(np.arange(300) % 7 == 0, None, full["Thunder"]).astype(object)
    counts, ll = net.expected_counts(data)
    # brute force with query() row by row
    ref = {n: np.zeros(net.cpt_shape(n)) for n in net.names}
    ref_ll = 0.0
    for t in range(300):
        ev = {k: data[k][t] for k in data if data[k][t] is not None}
        ref_ll += net.log_evidence(ev)
        for n in net.names:
            fam = list(net.parents[n]) + [n]
            hidden = [u for u in fam if u not in ev]
            idx = tuple(net.states[u].index(ev[u]) if u in ev else slice(None) for u in fam)
            if hidden:
                ref[n][idx] += net.query(hidden, ev)
            else:
                ref[n][idx] += 1
    assert ll == pytest.approx(ref_ll)
    assert all(np.allclose(counts[n], ref[n]) for n in net.names)
    assert net.log_likelihood(data) == pytest.approx(ref_ll)
    assert np.allclose(net.log_likelihood(data, per_row=True).sum(), ref_ll)


def test_em_and_projected_gradient_ascent_increase_the_likelihood():
    true = forest_fire_net()
    full = true.sample(1000, np.random.default_rng(2))
    data = {k: v for k, v in full.items() if k not in ("Lightning", "Campfire")}
    start = true.copy()
    rng = np.random.default_rng(3)
    for n in start.names:
        start.set_cpt(n, rng.dirichlet([2, 2], size=int(np.prod(start.cpt_shape(n)[:-1]))))
    em = start.copy().fit_em(data, n_iter=60)
    ga = start.copy().fit_gradient_ascent(data, eta=0.3, n_iter=150)
    assert np.all(np.diff(em.log_likelihoods_) >= -1e-8)
    assert ga.log_likelihoods_[-1] > ga.log_likelihoods_[0] + 1000
    assert abs(ga.log_likelihoods_[-1] - em.log_likelihoods_[-1]) < 10
    assert em.log_likelihoods_[-1] >= true.log_likelihood(data) - 1


def test_mitchell_renormalised_rule_converges_to_square_root_counts():
    # with complete data the fixed point of "add eta * gradient, divide by the row sum"
    # is w proportional to sqrt(counts), not the ML estimate counts / total
    net = BayesNet([("A", ["a", "b", "c"])])
    data = {"A": ["a"] * 60 + ["b"] * 30 + ["c"] * 10}
    net.fit_gradient_ascent(data, eta=0.2, n_iter=500, rule="mitchell")
    root = np.sqrt([60, 30, 10])
    assert np.allclose(net.cpts["A"], root / root.sum(), atol=1e-3)
    proj = BayesNet([("A", ["a", "b", "c"])]).fit_gradient_ascent(data, eta=0.2, n_iter=500)
    assert np.allclose(proj.cpts["A"], [0.6, 0.3, 0.1], atol=1e-3)
    with pytest.raises(ValueError, match="rule"):
        net.fit_gradient_ascent(data, rule="newton")


# ------------------------------------------------------------ data forms
def test_data_forms_are_equivalent():
    net = small_true_net()
    cols = net.sample(50, np.random.default_rng(0))
    X = net.encode(cols)
    rows = [{n: cols[n][t] for n in net.names} for t in range(50)]
    assert np.array_equal(net.encode(rows), X)
    assert np.array_equal(net.encode(X), X)
    pd = pytest.importorskip("pandas")
    assert np.array_equal(net.encode(pd.DataFrame(cols)), X)
    dec = net.decode(X)
    assert all(list(dec[n]) == list(cols[n]) for n in net.names)
    # missing values: None, NaN and absent columns
    part = dict(cols)
    del part["C"]
    part["D"] = [None] + list(cols["D"][1:])
    Xm = net.encode(part, allow_missing=True)
    assert np.all(Xm[:, net.names.index("C")] == -1) and Xm[0, net.names.index("D")] == -1
    num = BayesNet([("N", [0, 1])])
    assert num.encode({"N": [0.0, np.nan, 1.0]}, allow_missing=True)[:, 0].tolist() == [0, -1, 1]


# ------------------------------------------------------------ validation
def test_validation_errors():
    with pytest.raises(ValueError, match="cycle"):
        BayesNet([("A", TF, ["C"]), ("B", TF, ["A"]), ("C", TF, ["B"])])
    with pytest.raises(ValueError, match="own parent"):
        BayesNet([("A", TF, ["A"])])
    with pytest.raises(ValueError, match="not a variable"):
        BayesNet([("A", TF, ["Z"])])
    with pytest.raises(ValueError, match="sums to"):
        BayesNet([("A", TF, [], [0.5, 0.6])])
    with pytest.raises(ValueError, match="negative"):
        BayesNet([("A", TF, [], [1.5, -0.5])])
    with pytest.raises(ValueError, match="NaN"):
        BayesNet([("A", TF, [], [np.nan, 0.5])])
    with pytest.raises(ValueError, match="shape"):
        BayesNet([("A", TF), ("B", TF, ["A"], [0.5, 0.5])])
    with pytest.raises(ValueError, match="duplicate variable"):
        BayesNet([("A", TF), ("A", TF)])
    with pytest.raises(ValueError, match="duplicate states"):
        BayesNet([("A", ["x", "x"])])
    with pytest.raises(ValueError, match="at least one variable"):
        BayesNet([])
    with pytest.raises(TypeError, match="string"):
        BayesNet([("A", "xy")])
    net = earthquake_net()
    with pytest.raises(ValueError, match="unknown state 'maybe' of variable 'C'"):
        net.query("B", {"C": "maybe"})
    with pytest.raises(ValueError, match="unknown variable 'Z'"):
        net.query("B", {"Z": "true"})
    with pytest.raises(ValueError, match="unknown query variable"):
        net.query("Z")
    with pytest.raises(ValueError, match="also appear in the evidence"):
        net.query("B", {"B": "true"})
    with pytest.raises(ValueError, match="also appear in the evidence"):
        net.likelihood_weighting("B", {"B": "true"}, 10)
    with pytest.raises(ValueError, match="unknown method"):
        net.query("B", method="magic")
    with pytest.raises(ValueError, match="every variable"):
        net.joint({"Q": "true"})
    with pytest.raises(ValueError, match="unknown state 'yes'"):
        net.fit({n: ["yes"] for n in net.names})
    with pytest.raises(ValueError, match="missing values"):
        net.fit({"Q": ["true"], "B": ["true"], "R": ["true"], "A": ["true"]})
    with pytest.raises(ValueError, match="not variables"):
        net.fit({"Z": ["true"]})
    with pytest.raises(ValueError, match="empty"):
        net.fit({n: [] for n in net.names})
    with pytest.raises(ValueError, match="different lengths"):
        net.fit({"Q": ["true"], "B": ["true", "false"]})
    with pytest.raises(ValueError, match="out of range"):
        net.encode(np.full((2, 5), 7))
    with pytest.raises(ValueError, match="pseudo_count"):
        net.fit(net.sample(3, 0), pseudo_count=-1)
    with pytest.raises(TypeError, match="evidence"):
        net.query("B", ["C"])


def test_zero_probability_evidence():
    """Every exact and sampling method refuses impossible evidence with one error."""
    net = BayesNet([("A", TF, [], [1.0, 0.0]), ("B", TF, ["A"], [[1.0, 0.0], [0.5, 0.5]])])
    calls = [lambda ev, m=m: net.query("A", ev, method=m) for m in ("elimination", "enumeration", "joint")]
    calls += [lambda ev, f=f: getattr(net, f)("A", ev, 100, rng=0)
              for f in ("rejection_sampling", "likelihood_weighting", "gibbs_sampling")]
    messages = set()
    for call in calls:
        with pytest.raises(ImpossibleEvidenceError, match="probability zero") as err:
            call({"B": "false"})
        messages.add(str(err.value))
    assert len(messages) == 1
    assert issubclass(ImpossibleEvidenceError, ValueError)
    assert net.log_evidence({"B": "false"}) == -math.inf
    with pytest.raises(ValueError, match="probability zero"):
        net.expected_counts({"B": ["false"]})
    # possible but very unlikely evidence is not refused: rejection keeps no sample
    rare = BayesNet([("A", TF, [], [1e-12, 1 - 1e-12]), ("B", TF, ["A"], [[0.0, 1.0], [1.0, 0.0]])])
    res = rare.rejection_sampling("A", {"B": "false"}, 100, rng=0)
    assert res.n_effective == 0 and np.all(np.isnan(res.p))
    assert rare.query("A", {"B": "false"})[0] == pytest.approx(1.0)
    assert rare.gibbs_sampling("A", {"B": "false"}, 50, rng=0).p[0] == 1.0


# ------------------------------------------------------------ BIF files, drawings
def test_read_bif_networks():
    alarm = read_bif(NETWORKS / "alarm.bif.gz")
    asia = read_bif(NETWORKS / "asia.bif.gz")
    sachs = read_bif(NETWORKS / "sachs.bif.gz")
    assert (len(alarm.names), len(alarm.edges()), alarm.n_parameters()) == (37, 46, 509)
    assert (len(asia.names), len(asia.edges()), asia.n_parameters()) == (8, 8, 18)
    assert (len(sachs.names), len(sachs.edges()), sachs.n_parameters()) == (11, 17, 178)
    assert np.allclose(asia.cpts["dysp"][0, 1], [0.8, 0.2])  # (bronc=yes, either=no)


def test_layout_and_drawings():
    import matplotlib
    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    from lib.plots.bn import plot_evidence_explorer, plot_network, plot_sampling_convergence

    net = earthquake_net()
    pos = layered_layout(net)
    assert pos["A"][1] < pos["Q"][1] and pos["C"][1] < pos["A"][1]
    assert isinstance(plot_network(net), Figure)
    fig = plot_evidence_explorer(net, n_samples=500, seed=0, Q="unobserved", B="unobserved",
                                 R="true", A="unobserved", C="true")
    assert isinstance(fig, Figure)
    res = net.likelihood_weighting("B", {"C": "true"}, 100, rng=0)
    assert isinstance(plot_sampling_convergence([res.running[:, 0]], 0.07, ["lw"]), Figure)


# ------------------------------------------------------------ pgmpy oracle
@pytest.fixture(scope="module")
def pgmpy():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import logging
        logging.getLogger("pgmpy").setLevel(logging.ERROR)
        import pgmpy.estimators
        import pgmpy.inference
        import pgmpy.models
        import pgmpy.readwrite
    return pgmpy


def pgmpy_model(pgmpy, name):
    text = gzip.open(NETWORKS / f"{name}.bif.gz", "rt").read()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return pgmpy.readwrite.BIFReader(string=text).get_model()


def from_pgmpy(model):
    specs = []
    for cpd in model.get_cpds():
        var, parents = cpd.variable, list(cpd.variables[1:])
        specs.append((var, cpd.state_names[var], parents, np.moveaxis(cpd.values, 0, -1)))
    return BayesNet(specs)


NETS = ["alarm", "asia", "sachs"]


@pytest.mark.parametrize("name", NETS)
def test_bif_reader_matches_pgmpy(pgmpy, name):
    ours, theirs = read_bif(NETWORKS / f"{name}.bif.gz"), from_pgmpy(pgmpy_model(pgmpy, name))
    assert set(ours.names) == set(theirs.names)
    for n in ours.names:
        assert ours.parents[n] == theirs.parents[n] and ours.states[n] == theirs.states[n]
        assert np.allclose(ours.cpts[n], theirs.cpts[n], atol=1e-12)


@pytest.mark.parametrize("name", NETS)
def test_posteriors_match_pgmpy_variable_elimination(pgmpy, name):
    model = pgmpy_model(pgmpy, name)
    net = read_bif(NETWORKS / f"{name}.bif.gz")
    ve = pgmpy.inference.VariableElimination(model)
    rng = np.random.default_rng(42)
    sample = net.sample(200, rng)
    checked = 0
    for t in range(15):
        names = list(rng.permutation(net.names))
        q = names[0]
        ev = {n: str(sample[n][t]) for n in names[1:1 + int(rng.integers(0, 5))]}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ref = ve.query([q], evidence=ev, show_progress=False)
        ref_vals = np.array([ref.values[ref.state_names[q].index(s)] for s in net.states[q]])
        assert np.allclose(net.query(q, ev), ref_vals, atol=1e-9, rtol=0)
        checked += 1
    assert checked == 15


@pytest.mark.parametrize("name", NETS)
def test_ml_fit_and_bic_match_pgmpy(pgmpy, name):
    pd = pytest.importorskip("pandas")
    model = pgmpy_model(pgmpy, name)
    net = read_bif(NETWORKS / f"{name}.bif.gz")
    data = net.sample(3000, np.random.default_rng(1))
    df = pd.DataFrame(data)
    states = {n: list(net.states[n]) for n in net.names}
    fitted = BayesNet.from_edges(net.states, net.edges()).fit(df)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mle = pgmpy.estimators.MaximumLikelihoodEstimator(model, df, state_names=states)
        for n in net.names:
            cpd = mle.estimate_cpd(n)
            ref = np.moveaxis(cpd.values, 0, -1)
            order = [list(cpd.variables[1:]).index(p) for p in net.parents[n]] + [len(net.parents[n])]
            assert np.allclose(fitted.cpts[n], np.transpose(ref, order), atol=1e-12), n
        bic = pgmpy.estimators.BIC(df, state_names=states).score(model)
    assert fitted.score(df, "bic") == pytest.approx(bic, rel=1e-10)


def test_hill_climbing_bic_at_least_as_good_as_pgmpy(pgmpy):
    pd = pytest.importorskip("pandas")
    asia = read_bif(NETWORKS / "asia.bif.gz")
    data = asia.sample(5000, np.random.default_rng(0))
    df = pd.DataFrame(data)
    states = {n: list(asia.states[n]) for n in asia.names}
    ours = hill_climb(df, states=states, score="bic")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        dag = pgmpy.estimators.HillClimbSearch(df, state_names=states).estimate(
            scoring_method="bic-d", show_progress=False)
        theirs = pgmpy.estimators.BIC(df, state_names=states).score(dag)
    assert ours.score_ >= theirs - 1e-6
    assert ours.score(df, "bic") == pytest.approx(ours.score_)


def test_encoding_of_label_types():
    net = BayesNet([("Flag", [True, False]), ("N", [1, 2, 3], ["Flag"]), ("S", ["a", "b"])])
    X = net.encode({"Flag": np.array([True, False, True]), "N": np.array([3, 1, 2]),
                    "S": np.array(["b", "a", "b"], dtype=object)})
    assert X.tolist() == [[0, 2, 1], [1, 0, 0], [0, 1, 1]]
    with pytest.raises(ValueError, match="unknown state 'c' of variable 'S'"):
        net.encode({"Flag": [True, True], "N": [1, 1], "S": ["a", "c"]})
    with pytest.raises(ValueError, match="unknown state 7 of variable 'N'"):
        net.encode({"Flag": [True], "N": [7], "S": ["a"]})
    Xm = net.encode({"Flag": [None, True], "N": [1, float("nan")], "S": ["a", None]}, allow_missing=True)
    assert Xm.tolist() == [[-1, 0, 0], [0, -1, -1]]


def test_bayesnet_methods_are_the_functions_with_their_signatures():
    import dataclasses
    import inspect

    import lib.bn as bn
    for func in bn.METHODS:
        method = getattr(BayesNet, func.__name__)
        assert method.__wrapped__ is func
        assert inspect.signature(method) == inspect.signature(func)
        assert method.__doc__ == func.__doc__
    net = BayesNet([("R", TF, [], [0.2, 0.8]), ("W", TF, ["R"], [[0.9, 0.1], [0.1, 0.9]])])
    assert list(inspect.signature(net.query).parameters) == ["variables", "evidence", "method"]
    np.testing.assert_allclose(net.query("R", {"W": "true"}), bn.query(net, "R", {"W": "true"}))
    assert BayesNet.hill_climb is bn.hill_climb
    assert dataclasses.is_dataclass(net.arrays)


def test_network_arrays_are_read_only_and_follow_set_cpts():
    import dataclasses
    net = BayesNet([("R", TF, [], [0.2, 0.8]), ("W", TF, ["R"], [[0.9, 0.1], [0.1, 0.9]])])
    a = net.arrays
    assert a.parents == ((), (0,)) and a.children == ((1,), ()) and a.card.tolist() == [2, 2]
    np.testing.assert_allclose(a.cumulative_rows[1], [[0.9, 1.0], [0.1, 1.0]])
    with pytest.raises(dataclasses.FrozenInstanceError):
        a.card = None
    with pytest.raises(ValueError, match="read-only"):
        a.cpt[0][0] = 1.0
    net.cpts["R"][0] = 0.2            # the network's own table is still its own
    with pytest.raises(ValueError, match="sums to 1.5"):   # refused: nothing stored
        net.set_cpts({"R": [0.5, 0.5], "W": [[1.0, 0.5], [0.1, 0.9]]})
    assert net.arrays is a and net.cpts["R"].tolist() == [0.2, 0.8]
    net.set_cpts({"R": [0.5, 0.5]})
    assert net.arrays is not a and net.arrays.plans is a.plans    # the graph's plans kept
    np.testing.assert_allclose(net.arrays.log_rows[0], np.log([[0.5, 0.5]]))
    np.testing.assert_allclose(net.query("R", {"W": "true"}), [0.9, 0.1])
