"""Tests of lib.bn.independence (d-separation, Markov blanket, CPDAG), lib.bn.constraint
(CI tests, PC) and the BDeu score, against pgmpy and scipy on ASIA, ALARM and random
DAGs, and numerically against exact inference."""
import itertools
import warnings

import numpy as np
import pytest
from scipy.stats import chi2, chi2_contingency

from lib.bn import BayesNet, family_score, hill_climb
from lib.bn.constraint import ci_test, pc
from lib.bn.independence import (
    active_trails,
    cpdag,
    d_separated,
    markov_blanket,
    markov_equivalent,
    reachable,
    v_structures,
)
from lib.datasets import load_network

pgmpy = pytest.importorskip("pgmpy")
with warnings.catch_warnings():
    warnings.simplefilter("ignore", FutureWarning)
    from pgmpy.base import DAG  # noqa: E402
pytestmark = pytest.mark.filterwarnings("ignore::FutureWarning")  # pgmpy's deprecation notices


def random_dag(rng, n, p_edge):
    names = [f"V{i}" for i in range(n)]
    order = rng.permutation(n)
    return names, [(names[order[i]], names[order[j]]) for i in range(n) for j in range(i + 1, n)
                   if rng.random() < p_edge]


def graphs():
    rng = np.random.default_rng(0)
    out = [("asia", load_network("asia").edges(), load_network("asia").names),
           ("alarm", load_network("alarm").edges(), load_network("alarm").names)]
    for k in range(12):
        names, edges = random_dag(rng, int(rng.integers(4, 12)), float(rng.uniform(0.15, 0.6)))
        out.append((f"random{k}", edges, names))
    return out


@pytest.mark.parametrize("name, edges, names", graphs(), ids=lambda v: v if isinstance(v, str) else "")
def test_d_separation_matches_pgmpy(name, edges, names):
    dag = DAG()
    dag.add_nodes_from(names)
    dag.add_edges_from(edges)
    rng = np.random.default_rng(len(name))
    n_sep = n_con = 0
    for _ in range(150):
        k = int(rng.integers(0, min(5, len(names) - 2) + 1))
        pick = [names[i] for i in rng.choice(len(names), size=k + 2, replace=False)]
        x, y, z = pick[0], pick[1], pick[2:]
        sep = d_separated(edges, x, y, z, nodes=names)
        assert sep == (not dag.is_dconnected(x, y, observed=z)), (x, y, z)
        got = reachable(edges, x, z, nodes=names)
        assert got == set(dag.active_trail_nodes(x, observed=z)[x]) - {x}
        n_sep += sep
        n_con += not sep
    assert (n_con > 0 or not edges) and (n_sep > 0 or name == "asia")


@pytest.mark.parametrize("name, edges, names", graphs()[:1] + graphs()[2:8],
                         ids=lambda v: v if isinstance(v, str) else "")
def test_active_trails_agree_with_reachability(name, edges, names):
    rng = np.random.default_rng(1)
    for _ in range(60):
        k = int(rng.integers(0, min(3, len(names) - 2) + 1))
        pick = [names[i] for i in rng.choice(len(names), size=k + 2, replace=False)]
        trails = active_trails(edges, pick[0], pick[1], pick[2:], nodes=names)
        assert all(t[0] == pick[0] and t[-1] == pick[1] and len(set(t)) == len(t) for t, _ in trails)
        open_ = [t for t, b in trails if b is None]
        assert (not open_) == d_separated(edges, pick[0], pick[1], pick[2:], nodes=names)


def test_trail_kinds_on_the_three_connections():
    chain, fork, coll = [("A", "B"), ("B", "C")], [("B", "A"), ("B", "C")], [("A", "B"), ("C", "B")]
    assert active_trails(chain, "A", "C", ["B"]) == [(["A", "B", "C"], ("B", "observed chain"))]
    assert active_trails(fork, "A", "C", ["B"]) == [(["A", "B", "C"], ("B", "observed fork"))]
    assert active_trails(coll, "A", "C") == [(["A", "B", "C"], ("B", "closed collider"))]
    # a collider is opened by evidence on a descendant
    assert not d_separated(coll + [("B", "D")], "A", "C", ["D"])
    assert d_separated(coll + [("B", "D")], "A", "C")
    assert not d_separated(chain, "A", "C") and d_separated(chain, "A", "C", "B")


def test_d_separation_is_independence_in_the_numbers():
    """Wherever d-separated, P(x | y, z) = P(x | z) exactly; the d-connected
    triples of ASIA show a difference for some states."""
    asia = load_network("asia")
    rng = np.random.default_rng(3)
    gaps = {True: [], False: []}
    for _ in range(60):
        pick = [asia.names[i] for i in rng.choice(8, size=int(rng.integers(2, 5)), replace=False)]
        x, y, z = pick[0], pick[1], pick[2:]
        gap = 0.0
        for zs in itertools.product(*(asia.states[v] for v in z)):
            ev = dict(zip(z, zs))
            if asia.log_evidence(ev) == -np.inf:
                continue
            base = asia.query(x, ev)
            for s in asia.states[y]:
                if asia.log_evidence({**ev, y: s}) > -np.inf:
                    gap = max(gap, np.abs(asia.query(x, {**ev, y: s}) - base).max())
        gaps[d_separated(asia, x, y, z)].append(gap)
    assert gaps[True] and max(gaps[True]) < 1e-12
    assert gaps[False] and np.mean(np.array(gaps[False]) > 1e-6) > 0.8


@pytest.mark.parametrize("name, edges, names", graphs(), ids=lambda v: v if isinstance(v, str) else "")
def test_markov_blanket_and_cpdag_match_pgmpy(name, edges, names):
    dag = DAG()
    dag.add_nodes_from(names)
    dag.add_edges_from(edges)
    for n in names:
        assert markov_blanket(edges, n, nodes=names) == set(dag.get_markov_blanket(n))
    pdag = dag.to_pdag()
    ours = cpdag(edges, nodes=names)
    assert ours.directed == set(pdag.directed_edges)
    assert ours.undirected == {frozenset(e) for e in pdag.undirected_edges}


def test_asia_cpdag_and_equivalence():
    asia = load_network("asia")
    c = cpdag(asia)
    assert c.undirected == {frozenset(e) for e in [("asia", "tub"), ("smoke", "lung"),
                                                   ("smoke", "bronc")]}
    assert v_structures(asia) == [("bronc", "dysp", "either"), ("lung", "either", "tub")]
    flipped = [(v, u) if (u, v) == ("smoke", "lung") else (u, v) for u, v in asia.edges()]
    assert markov_equivalent(asia, flipped)
    collider = [(v, u) if (u, v) == ("tub", "either") else (u, v) for u, v in asia.edges()]
    assert not markov_equivalent(asia, collider)
    rng = np.random.default_rng(5)
    for _ in range(40):                        # random single reversals, against pgmpy
        names, edges = random_dag(rng, 6, 0.5)
        if not edges:
            continue
        k = int(rng.integers(len(edges)))
        other = edges[:k] + [edges[k][::-1]] + edges[k + 1:]
        try:
            markov_equivalent(edges, other)
        except ValueError:                     # the reversal made a cycle
            continue
        a, b = DAG(), DAG()
        for g, e in ((a, edges), (b, other)):
            g.add_nodes_from(names)
            g.add_edges_from(e)
        assert markov_equivalent(edges, other) == a.is_iequivalent(b)


def test_bad_graph_inputs():
    with pytest.raises(ValueError, match="cycle"):
        d_separated([("A", "B"), ("B", "A")], "A", "B")
    with pytest.raises(ValueError, match="not a node"):
        d_separated([("A", "B")], "A", "Z")
    with pytest.raises(ValueError, match="disjoint"):
        d_separated([("A", "B"), ("B", "C")], "A", "C", ["A"])
    with pytest.raises(ValueError, match="pair"):
        markov_blanket([("A", "B", "C")], "A")
    with pytest.raises(TypeError, match="net_or_edges"):
        cpdag(42)


def test_bdeu_matches_pgmpy():
    from pgmpy.estimators import BDeu
    from pgmpy.models import DiscreteBayesianNetwork
    asia = load_network("asia")
    data = asia.sample(3000, np.random.default_rng(0))
    import pandas as pd
    df = pd.DataFrame(data)
    X = asia.encode(data)
    card = asia.arrays.card
    for ess in (1.0, 10.0, 50.0):
        ref = BDeu(df, equivalent_sample_size=ess, state_names={k: list(v) for k, v in asia.states.items()})
        for n in asia.names:
            i = asia.index[n]
            for ps in ([], list(asia.parents[n]), [m for m in asia.names if m != n][:3]):
                ours = family_score(X, i, [asia.index[p] for p in ps], card, "bdeu", ess)
                assert ours == pytest.approx(ref.local_score(n, ps), rel=1e-10, abs=1e-8)
        assert asia.score(data, "bdeu", equivalent_sample_size=ess) == pytest.approx(
            ref.score(DiscreteBayesianNetwork(asia.edges())), rel=1e-10)
    learned = hill_climb(data, states=asia.states, score="bdeu")
    assert learned.score_ >= asia.score(data, "bdeu") - 1e-6
    with pytest.raises(ValueError, match="equivalent_sample_size"):
        asia.score(data, "bdeu", equivalent_sample_size=0)


def test_ci_test_matches_scipy_and_pgmpy():
    import pandas as pd
    from pgmpy.estimators.CITests import chi_square, g_sq
    rng = np.random.default_rng(1)
    n = 4000
    s3 = [0, 1, 2]
    net = BayesNet([("Z", s3, [], [0.3, 0.3, 0.4]),
                    ("X", s3, ["Z"], rng.dirichlet(np.ones(3) * 3, size=3)),
                    ("Y", s3, ["Z", "X"], rng.dirichlet(np.ones(3) * 3, size=9))])
    data = net.sample(n, rng)
    x, y, z = (np.asarray(data[v]) for v in "XYZ")
    df = pd.DataFrame(data)
    for method, lam, ref in (("chi2", None, chi_square), ("g2", "log-likelihood", g_sq)):
        for given in ([], ["Z"]):
            res = ci_test(data, "X", "Y", given, method=method)
            stat, dof = 0.0, 0
            strata = [np.ones(n, bool)] if not given else [z == k for k in range(3)]
            for m in strata:
                tab = pd.crosstab(x[m], y[m]).to_numpy()
                c, _, d, _ = chi2_contingency(tab, correction=False, lambda_=lam)
                stat, dof = stat + c, dof + d
            assert res.statistic == pytest.approx(stat, rel=1e-10) and res.dof == dof
            assert res.p_value == pytest.approx(chi2.sf(stat, dof), rel=1e-8, abs=1e-300)
            # pgmpy (no Yates correction here: every table has dof > 1)
            r_stat, r_p, r_dof = ref(X="X", Y="Y", Z=given, data=df, boolean=False)
            assert res.statistic == pytest.approx(r_stat, rel=1e-10) and res.dof == r_dof
    with pytest.raises(ValueError, match="not a column"):
        ci_test(data, "X", "W")
    with pytest.raises(ValueError, match="method"):
        ci_test(data, "X", "Y", method="fisher")


def test_pc_recovers_a_faithful_network():
    rng = np.random.default_rng(2)
    TF = ["t", "f"]
    net = BayesNet([("A", TF, [], [0.4, 0.6]), ("B", TF, [], [0.7, 0.3]),
                    ("C", TF, ["A", "B"], [[0.9, 0.1], [0.5, 0.5], [0.4, 0.6], [0.05, 0.95]]),
                    ("D", TF, ["C"], [[0.8, 0.2], [0.2, 0.8]]),
                    ("E", TF, ["B"], [[0.25, 0.75], [0.85, 0.15]])])
    data = net.sample(20000, rng)
    res = pc(data, states=net.states, alpha=0.01)
    assert res.skeleton == net.skeleton()
    truth = cpdag(net)
    assert res.cpdag == truth
    assert truth.directed == {("A", "C"), ("B", "C"), ("C", "D")}
    assert frozenset(("A", "B")) in res.sepsets and res.sepsets[frozenset(("A", "B"))] == set()


def test_linear_gaussian_and_discretise():
    from sklearn.linear_model import LinearRegression

    from lib.bn.continuous import discretise, fit_linear_gaussian
    rng = np.random.default_rng(0)
    U = rng.normal(size=(300, 2))
    y = U @ [1.5, -0.5] + 2 + rng.normal(0, 0.3, 300)
    cpd = fit_linear_gaussian(U, y)
    ref = LinearRegression().fit(U, y)
    assert np.allclose(cpd.weights, ref.coef_) and np.isclose(cpd.intercept, ref.intercept_)
    assert np.isclose(cpd.sd, np.sqrt(np.mean((y - ref.predict(U)) ** 2)))
    from scipy.stats import norm
    assert np.allclose(cpd.logpdf(U, y), norm.logpdf(y, ref.predict(U), cpd.sd))
    codes, edges = discretise(y, 4)
    assert np.array_equal(np.bincount(codes), [75, 75, 75, 75])
    assert np.array_equal(discretise([edges[0] - 1, edges[-1] + 1], 4, edges=edges)[0], [0, 3])
    with pytest.raises(ValueError, match="child"):
        fit_linear_gaussian(U, y[:-1])
    with pytest.raises(ValueError, match="rows"):
        fit_linear_gaussian([[1.0]], [2.0])
    with pytest.raises(ValueError, match="sd = 0"):
        fit_linear_gaussian([0, 1, 2, 3], [1, 3, 5, 7])
    with pytest.raises(ValueError, match="edges"):
        discretise([1, 1, 1, 1, 2], 4)


def test_structural_em_climbs_and_completes():
    from lib.bn.structural_em import complete_data, structural_em
    TF = ["t", "f"]
    truth = BayesNet([("A", TF, [], [0.4, 0.6]), ("B", TF, [], [0.7, 0.3]),
                      ("C", TF, ["A", "B"], [[0.9, 0.1], [0.5, 0.5], [0.4, 0.6], [0.05, 0.95]]),
                      ("D", TF, ["C"], [[0.8, 0.2], [0.2, 0.8]]),
                      ("E", TF, ["B"], [[0.25, 0.75], [0.85, 0.15]])])
    rng = np.random.default_rng(1)
    X = truth.encode(truth.sample(2000, rng))
    X[rng.random(X.shape) < 0.3] = -1
    # expected completion: weights add up to the number of rows, and the weighted
    # counts are EM's expected counts
    Xc, w = complete_data(truth, X)
    assert np.all(Xc >= 0) and np.isclose(w.sum(), len(X))
    fitted = truth.copy()
    fitted.fit(Xc, sample_weight=w)
    counts, _ = truth.expected_counts(X)
    for n in truth.names:
        c = counts[n]
        assert np.allclose(fitted.cpts[n], c / c.sum(axis=-1, keepdims=True))
    net = structural_em(X, truth.states, restarts=30, perturb=6, rng=np.random.default_rng(0))
    assert np.all(np.diff(net.bic_trace_) > -1e-6)
    assert markov_equivalent(net, truth)
    # weighted hill climbing equals hill climbing on repeated rows
    rows = truth.encode(truth.sample(300, np.random.default_rng(3)))
    weights = np.random.default_rng(4).integers(1, 4, len(rows))
    a = hill_climb(rows, states=truth.states, sample_weight=weights)
    b = hill_climb(np.repeat(rows, weights, axis=0), states=truth.states)
    assert a.edges() == b.edges() and np.isclose(a.score_, b.score_)
    with pytest.raises(ValueError, match="sample_weight"):
        hill_climb(rows, states=truth.states, sample_weight=-weights)
    with pytest.raises(ValueError, match="sample_weight"):
        hill_climb(rows, states=truth.states, sample_weight=0 * weights)


def test_dsep_figure_marks_trails():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from lib.plots.bn import layered_layout, plot_dsep_explorer
    asia = load_network("asia")
    pos = layered_layout(asia)
    fig = plot_dsep_explorer(asia, "tub", "smoke", pos=pos, dysp="observed")
    assert "d-connected" in fig.get_suptitle()
    reds = [p for p in fig.axes[0].patches if getattr(p, "get_linewidth", lambda: 0)() == 3]
    assert len(reds) == 6                     # the edges of the two open trails
    plt.close(fig)
    fig = plot_dsep_explorer(asia, "tub", "smoke", pos=pos)
    assert "d-separated" in fig.get_suptitle() and "= 0" in fig.get_suptitle()
    plt.close(fig)


def test_cpdag_grid_draws_each_graph_in_its_panel():
    import matplotlib.pyplot as plt
    from matplotlib.patches import FancyArrowPatch

    from lib.bn.independence import CPDAG
    from lib.plots.bn import layered_layout, plot_cpdags
    asia = load_network("asia")
    graphs = [cpdag(asia), None, CPDAG({("tub", "either")}, {frozenset(("lung", "either"))})]
    fig = plot_cpdags(graphs, asia.names, layered_layout(asia), ["class", "", "two links"], ncols=2)
    assert len(fig.axes) == 4 and [ax.get_title() for ax in fig.axes] == ["class", "", "two links", ""]
    arrows = [[a for a in ax.get_children() if isinstance(a, FancyArrowPatch)] for ax in fig.axes]
    assert [len(a) for a in arrows] == [8, 0, 2, 0]          # the class: 5 arrows, 3 lines
    plt.close(fig)


def test_markov_blanket_figure_colours_the_blanket():
    from matplotlib.colors import to_hex
    from matplotlib.patches import FancyBboxPatch

    from lib.plots.bn import plot_markov_blankets
    asia = load_network("asia")
    fig = plot_markov_blankets(asia, ["lung", "either"])
    for ax, node in zip(fig.axes, ["lung", "either"]):
        blanket = markov_blanket(asia, node)
        assert ax.get_title() == f"blanket of {node}: {len(blanket)} of 7 others"
        boxes = [p for p in ax.get_children() if isinstance(p, FancyBboxPatch)]
        faces = {t.get_text(): to_hex(b.get_facecolor()) for t in ax.texts for b in boxes
                 if np.allclose(t.get_position(), (b.get_x() + b.get_width() / 2,
                                                   b.get_y() + b.get_height() / 2))}
        assert len(faces) == 8
        assert {n for n, c in faces.items() if c == "#9ecae1"} == blanket
        assert {n for n, c in faces.items() if c == "#fdae6b"} == {node}


def test_bdeu_with_an_unseen_state_is_the_written_out_formula():
    """A child state that never appears: the library keeps the formula's terms, pgmpy
    1.1 leaves out ln G(a/(q r)) once per unseen state and observed parent configuration."""
    import pandas as pd
    from pgmpy.estimators import BDeu
    from scipy.special import gammaln
    rng = np.random.default_rng(3)
    parent, child = rng.integers(3, size=60), rng.integers(2, size=60)   # child states 2, 3 unseen
    X, card, ess = np.c_[parent, child], np.array([3, 4]), 5.0
    q, r = 3, 4
    by_hand = 0.0
    for j in range(q):
        n_jk = [np.sum((parent == j) & (child == k)) for k in range(r)]
        by_hand += gammaln(ess / q) - gammaln(ess / q + sum(n_jk))
        by_hand += sum(gammaln(ess / (q * r) + n) - gammaln(ess / (q * r)) for n in n_jk)
    ours = family_score(X, 1, [0], card, "bdeu", ess)
    assert ours == pytest.approx(by_hand, rel=1e-12)
    assert family_score(X, 1, [], card, "bdeu", ess) == pytest.approx(
        gammaln(ess) - gammaln(ess + 60)
        + sum(gammaln(ess / r + np.sum(child == k)) - gammaln(ess / r) for k in range(r)), rel=1e-12)
    states = {"P": ["x", "y", "z"], "C": ["a", "b", "c", "d"]}
    df = pd.DataFrame({"P": np.array(states["P"])[parent], "C": np.array(states["C"])[child]})
    theirs = BDeu(df, equivalent_sample_size=ess, state_names=states).local_score("C", ["P"])
    if pgmpy.__version__.startswith("1.1"):      # the difference the chapter describes
        assert ours - theirs == pytest.approx(2 * q * gammaln(ess / (q * r)), rel=1e-9)


def test_pc_untestable_and_stable_options():
    asia = load_network("asia")
    data = asia.sample(20000, np.random.default_rng(2))
    removed = pc(data, states=asia.states)
    kept = pc(data, states=asia.states, untestable="dependent")
    either_links = {frozenset(("either", "xray")), frozenset(("either", "dysp"))}
    assert asia.skeleton() - removed.skeleton == either_links       # zero-dof tests read as p = 1
    assert kept.skeleton == asia.skeleton()                          # skipped: the links stay
    # a zero-dof test is recorded as NaN, never as independence
    zero = [t for t in kept.tests if {t[0], t[1]} == {"either", "xray"} and set(t[2]) == {"tub", "lung"}]
    assert zero and all(np.isnan(t[3]) for t in zero)
    # PC-stable: the same result in every order of the variables; plain PC may differ
    few = asia.sample(500, np.random.default_rng(3))
    orders = [list(asia.names), asia.names[::-1]] + [
        list(np.random.default_rng(k).permutation(asia.names)) for k in range(10)]
    def outcomes(stable):
        return {(frozenset(r.skeleton), frozenset(r.cpdag.directed))
                for r in (pc(few, states=asia.states, stable=stable, order=o) for o in orders)}
    assert len(outcomes(True)) == 1 and len(outcomes(False)) > 1
    # PC-stable fixes the skeleton only (Colombo & Maathuis 2014): over 16 orders the
    # separating set recorded for dysp - xray is {tub} in some and {smoke} in others
    # (both ends' neighbour sets hold one; the end visited first supplies it) ...
    orders16 = orders + [list(np.random.default_rng(k).permutation(asia.names)) for k in range(10, 14)]
    runs = [pc(few, states=asia.states, stable=True, order=o) for o in orders16]
    assert len({frozenset(r.skeleton) for r in runs}) == 1
    assert {frozenset(r.sepsets[frozenset(("dysp", "xray"))]) for r in runs} == {frozenset({"tub"}), frozenset({"smoke"})}
    # ... and on 200 rows (seed 16) two CPDAGs over one skeleton, which the voting rules
    # (deciding each triple from the final skeleton) bring back to one
    small = asia.sample(200, np.random.default_rng(16))
    def graphs(**options):
        runs = [pc(small, states=asia.states, stable=True, order=o, **options) for o in orders]
        return ({frozenset(r.skeleton) for r in runs},
                {(frozenset(r.cpdag.directed), frozenset(r.cpdag.undirected), r.ambiguous) for r in runs})
    skeletons, cpdags = graphs()
    assert len(skeletons) == 1 and len(cpdags) == 2
    for orient in ("conservative", "majority"):
        assert len(graphs(orient=orient)[1]) == 1
    # the default order is the network's and gives the earlier result
    assert pc(few, states=asia.states, order=list(asia.names)).skeleton == pc(few, states=asia.states).skeleton
    with pytest.raises(ValueError, match="untestable"):
        pc(data, states=asia.states, untestable="maybe")
    with pytest.raises(ValueError, match="order"):
        pc(data, states=asia.states, order=["asia", "tub"])


def test_pc_remembers_its_tests_per_data_set_and_repeats_its_results():
    # PC over many orders repeats its tests on the same data: they are computed once per
    # data set (a digest of the encoded data), so a run from the memory equals a fresh one
    from lib.bn import constraint
    asia = load_network("asia")
    few, other = (asia.sample(500, np.random.default_rng(seed)) for seed in (3, 4))
    order = list(np.random.default_rng(5).permutation(asia.names))
    constraint._DONE.clear()
    fresh = pc(few, states=asia.states, order=order, orient="majority")
    remembered = len(constraint._DONE)
    assert 0 < remembered < len(fresh.tests)                   # the majority rule repeats tests
    again = pc(few, states=asia.states, order=order, orient="majority")
    assert len(constraint._DONE) == remembered                  # nothing computed again
    assert again.tests == fresh.tests and again.cpdag == fresh.cpdag and again.sepsets == fresh.sepsets
    # another sample of the same shape is another data set, with its own tests
    elsewhere = pc(other, states=asia.states, order=order, orient="majority")
    assert len(constraint._DONE) > remembered
    constraint._DONE.clear()
    assert pc(other, states=asia.states, order=order, orient="majority").tests == elsewhere.tests
    # and each remembered p-value is the one ci_test computes
    for x, y, given, p in fresh.tests[::25]:
        assert p == ci_test(few, x, y, list(given), states=asia.states).p_value
