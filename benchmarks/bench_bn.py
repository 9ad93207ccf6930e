"""Bayesian networks: inference, parameter and structure learning, lib.bn vs pgmpy."""
import harness  # noqa: F401  (first: pins BLAS threads before numpy loads)

# isort: split
import gzip
import logging
import os

import numpy as np
import pandas as pd
from pgmpy.estimators import BIC, HillClimbSearch
from pgmpy.factors.discrete import TabularCPD
from pgmpy.inference import VariableElimination
from pgmpy.models import DiscreteBayesianNetwork
from pgmpy.parameter_estimator import DiscreteMLE
from pgmpy.readwrite import BIFReader

from lib.bn import BayesNet, read_bif

NETWORKS = harness.ROOT / "lib" / "data" / "networks"
logging.getLogger("pgmpy").setLevel(logging.ERROR)


def load(name):
    path = NETWORKS / f"{name}.bif.gz"
    return read_bif(path), BIFReader(string=gzip.open(path, "rt").read()).get_model()


def as_lib_layout(net, cpd):
    """A pgmpy TabularCPD as lib's array: axes (parents in net order..., variable), lib state order."""
    var = cpd.variable
    axes = [var] + list(cpd.variables[1:])
    order = list(net.parents[var]) + [var]
    table = np.transpose(cpd.values, [axes.index(v) for v in order])
    for k, v in enumerate(order):
        perm = [list(cpd.state_names[v]).index(s) for s in net.states[v]]
        table = np.take(table, perm, axis=k)
    return table


def to_pgmpy(net):
    """The same network as a pgmpy DiscreteBayesianNetwork (CPT columns: parents in C order)."""
    model = DiscreteBayesianNetwork(net.edges())
    model.add_nodes_from(net.names)
    for v in net.names:
        par = list(net.parents[v])
        model.add_cpds(TabularCPD(
            v, net.card[v], np.moveaxis(net.cpts[v], -1, 0).reshape(net.card[v], -1),
            evidence=par or None, evidence_card=[net.card[p] for p in par] or None,
            state_names={u: list(net.states[u]) for u in [v] + par}))
    return model


def random_network(n, rng, window=12, max_parents=3):
    """n variables with 2-3 states, each with up to ``max_parents`` parents drawn from the
    ``window`` variables before it, Dirichlet(1) CPT rows."""
    specs = []
    for i in range(n):
        lo = max(0, i - window)
        k = int(rng.integers(0, min(max_parents, i - lo) + 1))
        parents = [f"X{j}" for j in sorted(rng.choice(np.arange(lo, i), k, replace=False))]
        card = int(rng.integers(2, 4))
        shape = [specs[int(p[1:])][1].__len__() for p in parents] + [card]
        specs.append((f"X{i}", [f"s{s}" for s in range(card)], parents,
                      rng.dirichlet(np.ones(card), size=shape[:-1]) if parents
                      else rng.dirichlet(np.ones(card))))
    return BayesNet(specs)


def random_queries(net, rng, n_queries=60, max_evidence=27):
    """``n_queries`` (query variables, evidence) pairs: 1-2 query variables, 0 to
    ``max_evidence`` evidence variables (uniformly), evidence states taken from a
    forward sample so that the evidence is possible."""
    sample = net.sample(n_queries, rng)
    out = []
    for t in range(n_queries):
        names = list(rng.permutation(net.names))
        n_q = int(rng.integers(1, 3))
        n_ev = int(rng.integers(0, min(max_evidence, len(names) - n_q) + 1))
        out.append((names[:n_q], {v: str(sample[v][t]) for v in names[n_q:n_q + n_ev]}))
    return out


def ve_cases(label, net, model, queries, target):
    """All ``queries`` answered by lib and by pgmpy's VariableElimination, cold: lib's
    cache of elimination plans is emptied before *every* query (each timed call plans
    each of its queries from scratch), pgmpy's VariableElimination object is built
    once, outside the timing (it plans per query anyway)."""
    ve = VariableElimination(model)

    def run_lib():
        out = []
        for q, ev in queries:
            net.__dict__.pop("_plans", None)
            out.append(net.query(q, ev))
        return out

    def run_pgmpy():
        return [ve.query(q, evidence=ev, show_progress=False) for q, ev in queries]

    def check(ours, theirs):
        worst = 0.0
        for (q, _), a, b in zip(queries, ours, theirs):
            b = b.copy()
            b.normalize()
            vals = np.transpose(b.values, [b.variables.index(v) for v in q])
            for k, v in enumerate(q):
                vals = np.take(vals, [b.state_names[v].index(s) for s in net.states[v]], axis=k)
            worst = max(worst, np.abs(a - vals).max())
        return worst
    n_ev = [len(ev) for _, ev in queries]
    return harness.compare(
        f"BN variable elimination cold, {label}, {len(queries)} random queries "
        f"({min(n_ev)}-{max(n_ev)} evidence)", run_lib, run_pgmpy, check, tol=1e-9,
        target=target, note="max |posterior difference| over all queries; 1-2 query variables; "
        "no elimination plan reused (lib's plan cache emptied before every query); pgmpy "
        "VariableElimination built once outside the timing, its default (greedy) ordering")


def cases():
    alarm, pg_alarm = load("alarm")
    rng = np.random.default_rng(17)
    yield ve_cases("ALARM", alarm, pg_alarm, random_queries(alarm, rng), target=0.2)
    sachs, pg_sachs = load("sachs")
    yield ve_cases("SACHS", sachs, pg_sachs, random_queries(sachs, rng), target=0.3)
    rand = random_network(100, np.random.default_rng(100))
    yield ve_cases("random 100-node network", rand, to_pgmpy(rand), random_queries(rand, rng),
                   target=0.3)

    if os.environ.get("BENCH_BN_VE_ONLY"):   # the inference rows alone
        return
    df = pd.DataFrame(alarm.sample(10_000, rng=np.random.default_rng(3)))
    structure = BayesNet.from_edges(alarm.states, alarm.edges())
    pg_structure = DiscreteBayesianNetwork(pg_alarm.edges())
    pg_structure.add_nodes_from(pg_alarm.nodes())
    state_names = {v: list(s) for v, s in alarm.states.items()}

    def mle_check(a, b):
        return max(np.abs(a.cpts[v] - as_lib_layout(a, b.get_cpds(v))).max() for v in a.names)
    yield harness.compare(
        "BN maximum-likelihood fit, ALARM, 10000 rows",
        lambda: structure.fit(df),
        lambda: pg_structure.fit(df, estimator=DiscreteMLE(state_names=state_names)),
        mle_check, tol=1e-12, target=0.5,
        note="max |CPT entry difference|; both read the same DataFrame of state labels")

    asia, _ = load("asia")
    df = pd.DataFrame(asia.sample(5_000, rng=np.random.default_rng(4)))
    score = BIC(df)

    def hc_check(a, b):
        graph = DiscreteBayesianNetwork(a.edges())
        graph.add_nodes_from(a.names)
        bic_lib = score.score(graph)
        bic_peer = score.score(b)
        assert bic_lib >= bic_peer - 1e-6, f"lib BIC {bic_lib:.3f} < pgmpy BIC {bic_peer:.3f}"
        same_scorer = abs(a.score(df, "bic") - bic_lib)
        assert same_scorer <= 1e-6, f"lib and pgmpy BIC of the same graph differ by {same_scorer:.3g}"
        print(f"    BIC (pgmpy's scorer): lib {bic_lib:.3f}, pgmpy {bic_peer:.3f}; "
              f"edges lib {sorted(a.edges())}, pgmpy {sorted(b.edges())}")
        return abs(bic_lib - bic_peer)
    yield harness.compare(
        "BN hill climbing (BIC), ASIA, 5000 rows",
        lambda: BayesNet.hill_climb(df, score="bic"),
        lambda: HillClimbSearch(df).estimate(scoring_method=BIC(df), show_progress=False),
        hc_check, tol=np.inf, tol_text="lib BIC >= pgmpy BIC", target=1.0,
        note="|BIC(lib graph) - BIC(pgmpy graph)|, both scored by pgmpy's BIC; lib's must be >= pgmpy's")


if __name__ == "__main__":
    harness.main("bn", cases)
