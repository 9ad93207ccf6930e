"""Bayesian networks: inference, parameter and structure learning, lib.bn vs pgmpy."""
import harness  # noqa: F401  (first: pins BLAS threads before numpy loads)
import gzip
import logging

import numpy as np
import pandas as pd
from pgmpy.estimators import BIC, HillClimbSearch
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


def cases():
    alarm, pg_alarm = load("alarm")
    evidence = {"HRBP": "HIGH", "CO": "LOW", "BP": "LOW", "HRSAT": "HIGH", "EXPCO2": "LOW"}
    query = ["LVFAILURE", "HYPOVOLEMIA"]
    ve = VariableElimination(pg_alarm)

    def ve_check(a, b):
        b = b.copy()
        b.normalize()
        perm = [b.variables.index(v) for v in query]
        vals = np.transpose(b.values, perm)
        for k, v in enumerate(query):
            vals = np.take(vals, [b.state_names[v].index(s) for s in alarm.states[v]], axis=k)
        return np.abs(a - vals).max()
    yield harness.compare(
        "BN variable elimination, ALARM, 2 query variables, 5 evidence",
        lambda: alarm.query(query, evidence),
        lambda: ve.query(query, evidence=evidence, show_progress=False),
        ve_check, tol=1e-12, target=0.5,
        note="max |posterior difference|; pgmpy's VariableElimination object built once, outside the timing")

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
