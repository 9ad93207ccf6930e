"""PC of lib.bn.constraint against pgmpy's PC (``PC(df).estimate``) on ASIA samples, and
the conservative and majority orientation rules (Chapter 6, section "PC as it is
practised").

With the same conditional-independence test, pgmpy's skeleton is the library's with
``untestable="dependent"``. With pgmpy's own tests the outputs differ in three places,
each asserted here with its cause: a test with zero degrees of freedom (pgmpy: NaN, the
link stays; the library's default: p = 1, the link goes), Yates' continuity correction
(pgmpy's ``g_sq`` / ``chi_square`` apply it to every 2 x 2 table, the library does not),
and a link claimed by two v-structures in opposite directions (pgmpy's
``orient_colliders`` deletes both arrows, so the link leaves the PDAG)."""
import warnings

import numpy as np
import pytest
from scipy.stats import chi2_contingency

from lib.bn.constraint import ci_test, pc
from lib.datasets import load_network

pgmpy = pytest.importorskip("pgmpy")
pd = pytest.importorskip("pandas")
with warnings.catch_warnings():
    warnings.simplefilter("ignore", FutureWarning)
    from pgmpy.estimators import PC  # noqa: E402
    from pgmpy.estimators.CITests import chi_square, g_sq  # noqa: E402
pytestmark = pytest.mark.filterwarnings("ignore::FutureWarning")  # pgmpy's deprecation notices

ASIA = load_network("asia")
EITHER_LINKS = {frozenset(("either", "xray")), frozenset(("either", "dysp"))}


def sample(n, seed):
    data = ASIA.sample(n, np.random.default_rng(seed))
    return data, pd.DataFrame(data)


def pgmpy_pc(df, variant, test, return_type="pdag"):
    return PC(df).estimate(variant=variant, ci_test=test, significance_level=0.01, max_cond_vars=3,
                           show_progress=False, return_type=return_type)


def library_test(df):
    """The library's G-test in pgmpy's calling convention (zero dof: not independent)."""
    def test(X, Y, Z, data, independencies=None, significance_level=0.01, **kwargs):
        t = ci_test(df, X, Y, list(Z), states=ASIA.states)
        return t.dof > 0 and t.p_value >= significance_level
    return test


def edges(pdag):
    return ({frozenset(e) for e in pdag.undirected_edges}, set(pdag.directed_edges))


def chosen(seps, pair):
    return set(seps[frozenset(pair)])


@pytest.mark.parametrize("variant", ["orig", "stable"])
@pytest.mark.parametrize("n, seed", [(20000, 2), (500, 3)])
def test_same_test_same_skeleton(n, seed, variant):
    data, df = sample(n, seed)
    skel, seps = pgmpy_pc(df, variant, library_test(df), return_type="skeleton")
    ours = pc(data, states=ASIA.states, untestable="dependent", stable=variant == "stable")
    assert {frozenset(e) for e in skel.edges()} == ours.skeleton
    assert set(seps) == set(ours.sepsets)
    # both search level by level, so the separating sets have the same size; which set
    # of that size is found first depends on the order of the candidates (pgmpy draws
    # them from Python sets, whose order changes with PYTHONHASHSEED)
    assert all(len(seps[k]) == len(ours.sepsets[k]) for k in seps)
    if n == 20000:
        differ = {k for k in seps if set(seps[k]) != ours.sepsets[k]}
        assert differ <= {frozenset(("asia", "either"))}
        # asia and either are separated by tub, by xray and by dysp alike
        assert all(ci_test(data, "asia", "either", [v], states=ASIA.states).p_value > 0.01
                   for v in ("tub", "xray", "dysp"))
        # pgmpy's orientation step on the library's separating sets: the same CPDAG
        undirected, directed = edges(PC.orient_colliders(skel, ours.sepsets).apply_meeks_rules(apply_r4=False))
        assert directed == ours.cpdag.directed and undirected == ours.cpdag.undirected
        assert len(directed) == 5 and len(ours.skeleton) == 8


def test_where_pgmpy_differs_and_why():
    data, df = sample(20000, 2)
    kept = {v: pc(data, states=ASIA.states, untestable="dependent", stable=v == "stable") for v in ("orig", "stable")}
    for name, method, lam, ref in (("g_sq", "g2", "log-likelihood", g_sq),
                                   ("chi_square", "chi2", "pearson", chi_square)):
        # 1. zero degrees of freedom: given tub and lung, either is constant
        stat, p, dof = ref("either", "xray", ["tub", "lung"], df, boolean=False)
        assert dof == 0 and np.isnan(p)
        t = ci_test(data, "either", "xray", ["tub", "lung"], states=ASIA.states, method=method)
        assert t.dof == 0 and t.p_value == 1.0
        # Yates' correction on the 2 x 2 table of asia and either
        table = pd.crosstab(df["asia"], df["either"]).to_numpy()
        _, p_yates, *_ = chi2_contingency(table, correction=True, lambda_=lam)
        _, p_plain, *_ = chi2_contingency(table, correction=False, lambda_=lam)
        assert ref("asia", "either", [], df, boolean=False)[1] == pytest.approx(p_yates, rel=1e-9)
        ours = ci_test(data, "asia", "either", states=ASIA.states, method=method).p_value
        assert ours == pytest.approx(p_plain, rel=1e-9) and p_plain < p_yates
        found = {}
        for variant in ("orig", "stable"):
            removed = pc(data, states=ASIA.states, method=method, stable=variant == "stable")
            skel, seps = found[variant] = pgmpy_pc(df, variant, name, return_type="skeleton")
            theirs = {frozenset(e) for e in skel.edges()}
            assert theirs == kept[variant].skeleton == ASIA.skeleton()       # NaN keeps the links
            assert theirs - removed.skeleton == EITHER_LINKS                 # p = 1 removes them
        if pgmpy.__version__.startswith("1.1"):     # its "stable" runs the same loop as "orig"
            assert found["orig"][1] == found["stable"][1]
        sep = chosen(found["orig"][1], ("asia", "either"))
        if name == "g_sq":
            # 2. with the correction the G-test no longer rejects at 0.01: pgmpy
            # separates asia and either by the empty set, the library by tub
            assert p_plain < 0.01 < p_yates and sep == set()
        else:
            assert p_plain < p_yates < 0.01 and len(sep) == 1              # no change at 0.01
        undirected, directed = edges(pgmpy_pc(df, "orig", name))
        links = undirected | {frozenset(e) for e in directed}
        if "tub" in sep:
            assert directed == kept["orig"].cpdag.directed and len(links) == 8
        else:
            # 3. tub outside the set makes asia -> tub <- either, against
            # tub -> either <- lung; pgmpy's orient_colliders deletes both arrows of
            # tub - either, so 7 of the 8 links remain (the library keeps the first arrow)
            assert ASIA.skeleton() - links == {frozenset(("tub", "either"))} and len(links) == 7
            assert {("asia", "tub"), ("lung", "either")} <= directed
        assert ("tub", "either") in kept["orig"].cpdag.directed


def test_conservative_and_majority_rules():
    data, _ = sample(20000, 2)
    std, cons, maj = (pc(data, states=ASIA.states, untestable="dependent", orient=o)
                      for o in ("standard", "conservative", "majority"))
    assert std.cpdag == cons.cpdag == maj.cpdag and std.ambiguous == maj.ambiguous == frozenset()
    # asia - tub - either is a chain; tub is in 4 of the 7 sets that separate asia and either
    key = (frozenset(("asia", "either")), "tub")
    assert cons.ambiguous == {key}
    sets = [s for a, b, s, p in cons.tests[len(std.tests):] if {a, b} == {"asia", "either"} and p > 0.01]
    assert len(sets) == 7 and sum("tub" in s for s in sets) == 4
    # 500 rows: plain PC gives 4 CPDAGs over 12 orders, the voting rules one in every order
    few = ASIA.sample(500, np.random.default_rng(3))
    orders = [list(ASIA.names), ASIA.names[::-1]] + [
        list(np.random.default_rng(k).permutation(ASIA.names)) for k in range(10)]
    def outcomes(orient, stable=False):
        return {(frozenset(r.cpdag.directed), r.ambiguous) for r in
                (pc(few, states=ASIA.states, orient=orient, stable=stable, order=o) for o in orders)}
    assert len(outcomes("standard")) == 4 and len(outcomes("standard", stable=True)) == 1
    bronc_dysp_either = (frozenset(("bronc", "either")), "dysp")
    for orient in ("conservative", "majority"):
        assert outcomes(orient) == {(frozenset(), frozenset({bronc_dysp_either}))}
    maj = pc(few, states=ASIA.states, orient="majority")
    n_std = len(pc(few, states=ASIA.states).tests)
    sets = [s for a, b, s, p in maj.tests[n_std:] if {a, b} == {"bronc", "either"} and p > 0.01]
    assert len(sets) == 10 and sum("dysp" in s for s in sets) == 5      # exactly half: a tie
    with pytest.raises(ValueError, match="orient"):
        pc(few, states=ASIA.states, orient="vote")


def test_meek_skips_ambiguous_triples():
    from lib.bn.independence import meek_rules
    skeleton = {frozenset(("c", "a")), frozenset(("a", "b"))}
    # c -> a - b with c, b unlinked: rule 1 reads c - a - b as a non-collider
    assert meek_rules(["a", "b", "c"], skeleton, {("c", "a")}, {frozenset(("a", "b"))}).directed == {
        ("c", "a"), ("a", "b")}
    undecided = meek_rules(["a", "b", "c"], skeleton, {("c", "a")}, {frozenset(("a", "b"))},
                      ambiguous={(frozenset(("c", "b")), "a")})
    assert undecided.directed == {("c", "a")} and undecided.undirected == {frozenset(("a", "b"))}
