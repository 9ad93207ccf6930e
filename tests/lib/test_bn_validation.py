"""Bad input to lib.bn, module by module: clear errors, never a silent wrong answer;
and numerics: posteriors stay right when P(evidence) underflows a double."""
import math

import numpy as np
import pytest
from scipy.special import logsumexp

from lib.bn import BayesNet, ImpossibleEvidenceError, hill_climb, read_bif

TF = ["T", "F"]

GOOD_BIF = """network test { }
variable A { type discrete [ 2 ] { T, F }; }
variable B { type discrete [ 2 ] { T, F }; }
variable C { type discrete [ 2 ] { T, F }; }
probability ( A ) { table 0.3, 0.7; }
probability ( B ) { table 0.6, 0.4; }
probability ( C | A, B ) {
  (T, T) 0.9, 0.1;
  (T, F) 0.8, 0.2;
  (F, T) 0.3, 0.7;
  (F, F) 0.05, 0.95;
}
"""


def write(tmp_path, text, name="net.bif"):
    path = tmp_path / name
    path.write_text(text)
    return path


# ------------------------------------------------------------------------ bif
def test_read_bif_good_file(tmp_path):
    net = read_bif(write(tmp_path, GOOD_BIF))
    assert net.parents["C"] == ("A", "B")
    assert net.cpts["C"][1, 0].tolist() == [0.3, 0.7]


@pytest.mark.parametrize("old, new, match", [
    ("  (T, T) 0.9, 0.1;", "  (T) 0.9, 0.1;", "names 1 parent state"),           # one of two parents
    ("probability ( B ) { table 0.6, 0.4; }",
     "probability ( B ) { table 0.6, 0.4; }\nprobability ( B ) { table 0.5, 0.5; }", "two probability blocks"),
    ("probability ( C | A, B ) {", "probability ( C | A, D ) {", "undeclared parent"),
    ("  (T, F) 0.8, 0.2;", "  (T, F) 0.8, 0.3;", "sums to"),                   # not summing to one
    ("probability ( A ) { table 0.3, 0.7; }", "probability ( A ) { table 0.3, 0.6; }", "sums to"),
    ("  (F, T) 0.3, 0.7;", "  (F, X) 0.3, 0.7;", "'X' is not a state of parent 'B'"),
    ("  (F, F) 0.05, 0.95;", "", "does not cover"),                            # a missing row
    ("  (F, F) 0.05, 0.95;", "  (T, T) 0.05, 0.95;", "given twice"),
    ("  (F, F) 0.05, 0.95;", "  (F, F) 0.05, 0.9, 0.05;", "3 probabilities"),
    ("  (F, F) 0.05, 0.95;", "  (F, F) 0.05, abc;", "must be numbers"),
    ("probability ( A ) { table 0.3, 0.7; }", "probability ( A ) { table 0.3, 0.7, 0.0; }", "3 numbers"),
    ("probability ( A ) { table 0.3, 0.7; }", "probability ( A ) { table -0.3, 1.3; }", "negative"),
    ("probability ( A ) { table 0.3, 0.7; }", "probability ( Z ) { table 0.3, 0.7; }", "undeclared variable"),
    ("variable C { type discrete [ 2 ] { T, F }; }",
     "variable C { type discrete [ 2 ] { T, F }; }\nvariable C { type discrete [ 2 ] { T, F }; }", "declared twice"),
    ("variable C { type discrete [ 2 ] { T, F }; }", "variable C { type discrete [ 3 ] { T, F }; }", "declares 3"),
    ("probability ( A ) { table 0.3, 0.7; }", "probability ( A | C ) { (T) 0.3, 0.7; (F) 0.5, 0.5; }", "cycle"),
])
def test_read_bif_refuses_malformed_files(tmp_path, old, new, match):
    assert old in GOOD_BIF
    with pytest.raises(ValueError, match=match) as err:
        read_bif(write(tmp_path, GOOD_BIF.replace(old, new)))
    assert "net.bif" in str(err.value)  # the error names the file


def test_read_bif_refuses_empty_or_unblocked(tmp_path):
    with pytest.raises(ValueError, match="no discrete variable"):
        read_bif(write(tmp_path, "nothing here"))
    with pytest.raises(ValueError, match="no probability block"):
        read_bif(write(tmp_path, GOOD_BIF.replace("probability ( B ) { table 0.6, 0.4; }", "")))


# -------------------------------------------------------------------- network
@pytest.mark.parametrize("spec, error, match", [
    ([("A", TF, ["B"]), ("B", TF, ["A"])], ValueError, "cycle"),
    ([("A", TF, ["B"]), ("B", TF, ["C"]), ("C", TF, ["A"])], ValueError, "cycle"),
    ([("A", TF, ["A"])], ValueError, "own parent"),
    ([("A", TF, ["Z"])], ValueError, "not a variable"),
    ([("A", TF), ("A", TF)], ValueError, "duplicate"),
    ([("A", ["x", "x"])], ValueError, "duplicate states"),
    ([("A", "TF")], TypeError, "list of labels"),
    ([("A", TF, [], [0.5, np.nan])], ValueError, "NaN"),
    ([("A", TF, [], [1.5, -0.5])], ValueError, "negative"),
    ([("A", TF, [], [0.5, 0.6])], ValueError, "sums to"),
    ([("A", TF, [], [0.2, 0.3, 0.5])], ValueError, "shape"),
    ([], ValueError, "at least one"),
])
def test_network_refuses_bad_specs(spec, error, match):
    with pytest.raises(error, match=match):
        BayesNet(spec)


def chain():
    return BayesNet([("A", TF, [], [0.3, 0.7]), ("B", TF, ["A"], [[0.9, 0.1], [0.2, 0.8]])])


def test_unknown_variables_and_states_in_every_entry_point():
    net = chain()
    for call in (lambda: net.query("Z"), lambda: net.query("A", {"Z": "T"}),
                 lambda: net.query("A", {"B": "maybe"}), lambda: net.log_evidence({"B": "maybe"}),
                 lambda: net.likelihood_weighting("A", {"B": "maybe"}, 10),
                 lambda: net.rejection_sampling("Z", {}, 10),
                 lambda: net.gibbs_sampling("A", {"Z": "T"}, 10),
                 lambda: net.joint({"A": "T", "B": "maybe"}),
                 lambda: net.fit({"A": ["T", "x"], "B": ["T", "F"]}),
                 lambda: net.fit({"A": ["T"], "Z": ["T"]}),
                 lambda: net.expected_counts({"A": ["T", "x"]}),
                 lambda: net.fit_em({"B": ["T", "maybe"]}),
                 lambda: net.set_cpt("Z", [0.5, 0.5])):
        with pytest.raises(ValueError, match="unknown|not variables"):
            call()
    with pytest.raises(ValueError, match="also appear"):
        net.query("A", {"A": "T"})


@pytest.mark.parametrize("value, error", [(float("nan"), ValueError), (-1, ValueError),
                                          (float("inf"), ValueError), ("1", TypeError),
                                          (None, TypeError), ([1], TypeError)])
def test_pseudo_counts_are_checked(value, error):
    net = chain()
    data = net.sample(20, rng=0)
    with pytest.raises(error, match="pseudo_count"):
        net.fit(data, pseudo_count=value)
    with pytest.raises(error, match="pseudo_count"):
        net.copy().fit_em({"B": data["B"]}, pseudo_count=value)
    with pytest.raises(error, match="pseudo_count"):
        hill_climb(data, pseudo_count=value)


def test_numeric_arguments_of_samplers_and_learners():
    net = chain()
    with pytest.raises(ValueError, match="n must"):
        net.sample(0)
    with pytest.raises(TypeError, match="n must"):
        net.likelihood_weighting("A", {"B": "T"}, 2.5)
    with pytest.raises(TypeError, match="n must"):
        net.rejection_sampling("A", {"B": "T"}, "10")
    with pytest.raises(ValueError, match="burn_in"):
        net.gibbs_sampling("A", {"B": "T"}, 10, burn_in=-1)
    with pytest.raises(TypeError, match="rng"):
        net.sample(5, rng="seed")
    with pytest.raises(ValueError, match="one query variable"):
        net.likelihood_weighting(["A", "B"], {}, 10)
    with pytest.raises(ValueError, match="sample_weight"):
        net.fit(net.sample(4, rng=0), sample_weight=[1, 1, np.nan, 1])
    with pytest.raises(ValueError, match="sample_weight"):
        net.fit(net.sample(4, rng=0), sample_weight=[1, 1])
    with pytest.raises(ValueError, match="eta"):
        net.fit_gradient_ascent({"B": ["T"]}, eta=-1)
    with pytest.raises(ValueError, match="rule"):
        net.fit_gradient_ascent({"B": ["T"]}, rule="newton")
    with pytest.raises(ValueError, match="score"):
        net.score(net.sample(5, rng=0), score="k2")
    with pytest.raises(ValueError, match="max_parents"):
        hill_climb(net.sample(5, rng=0), max_parents=-1)
    with pytest.raises(TypeError, match="BayesNet"):
        hill_climb(net.sample(5, rng=0), start="A -> B")
    with pytest.raises(ValueError, match="3 values"):
        net.log_likelihood([["T", "F", "T"]])
    with pytest.raises(TypeError, match="rows"):
        net.fit(["T", "F"])


# ------------------------------------------------------------ impossible evidence
def test_impossible_evidence_same_error_everywhere_on_a_larger_network():
    """Evidence made impossible deep in a network (a deterministic CPT)."""
    net = BayesNet([("A", TF, [], [0.5, 0.5]), ("B", TF, ["A"], [[1.0, 0.0], [0.0, 1.0]]),
                    ("C", TF, ["B"], [[0.7, 0.3], [0.4, 0.6]]), ("D", TF, ["A", "C"], None)])
    ev = {"A": "T", "B": "F"}
    errors = []
    for call in (lambda: net.query("C", ev), lambda: net.query("C", ev, method="enumeration"),
                 lambda: net.query("C", ev, method="joint"), lambda: net.query(["C", "D"], ev),
                 lambda: net.rejection_sampling("C", ev, 50, rng=1),
                 lambda: net.likelihood_weighting("C", ev, 50, rng=1),
                 lambda: net.gibbs_sampling("C", ev, 50, rng=1)):
        with pytest.raises(ImpossibleEvidenceError) as err:
            call()
        errors.append(str(err.value))
    assert len(set(errors)) == 1 and "probability zero" in errors[0]
    assert net.log_evidence(ev) == -math.inf


# ---------------------------------------------------------------- underflow
@pytest.mark.parametrize("n_children", [10, 1000, 3000])
def test_posterior_with_many_observed_children_matches_log_space(n_children):
    """P(evidence) far below 1e-308: variable elimination keeps the posterior right."""
    rng = np.random.default_rng(n_children)
    prior = np.array([0.4, 0.35, 0.25])
    cpts = rng.dirichlet([1.0, 1.0, 1.0, 1.0], size=3)      # P(child | Q), 4 states
    states = ["a", "b", "c", "d"]
    obs = rng.integers(0, 4, n_children)
    net = BayesNet([("Q", ["q0", "q1", "q2"], [], prior)]
                   + [(f"C{i}", states, ["Q"], cpts) for i in range(n_children)])
    ev = {f"C{i}": states[s] for i, s in enumerate(obs)}
    log_post = np.log(prior) + np.log(cpts[:, obs]).sum(axis=1)
    expected = np.exp(log_post - logsumexp(log_post))
    assert net.query("Q", ev) == pytest.approx(expected, rel=1e-9, abs=1e-300)
    assert net.log_evidence(ev) == pytest.approx(logsumexp(log_post), rel=1e-10)
    if n_children >= 1000:
        assert logsumexp(log_post) < math.log(1e-308)
        # a hidden parent of many observed children: one child's posterior, and P(e)
        one = {k: v for k, v in ev.items() if k != "C0"}
        lp = np.log(prior) + np.log(cpts[:, obs[1:]]).sum(axis=1)
        w = np.exp(lp - logsumexp(lp))
        assert net.query("C0", one) == pytest.approx(w @ cpts, rel=1e-9)
        with pytest.raises(ValueError, match="use 'elimination'"):
            net.query("Q", ev, method="enumeration")
        with pytest.raises(ValueError, match="entries"):
            net.query("Q", ev, method="joint")
        # likelihood weighting works in log weights: no division by zero
        assert net.likelihood_weighting("Q", ev, 200, rng=0).p.sum() == pytest.approx(1.0)


@pytest.mark.parametrize("spec, error, match", [
    ([("A", TF), ("B", TF, "A")], TypeError, "parents of 'B' must be a list"),   # a string of parents
    ([("A", 2)], TypeError, "states of 'A' must be a list"),
    ([(["A"], TF)], TypeError, "hashable"),
    ([("A", TF, [], [["x", "y"]])], TypeError, "CPT of 'A'"),
    (["A"], ValueError, "variable spec"),
    ([{"name": "A", "states": TF, "prior": [0.5, 0.5]}], ValueError, "unknown keys"),
])
def test_network_refuses_malformed_variable_specs(spec, error, match):
    with pytest.raises(error, match=match):
        BayesNet(spec)


def test_hill_climb_data_forms():
    with pytest.raises(TypeError, match="hill_climb needs data"):
        hill_climb([["T", "F"], ["F", "F"]])
    with pytest.raises(TypeError, match="hill_climb needs data"):
        hill_climb([])
    with pytest.raises(ValueError, match="missing values"):
        hill_climb({"A": ["T", None, "F"], "B": ["T", "T", "F"]})
    rows = [{"A": a, "B": a} for a in ["T", "F"] * 50]
    assert hill_climb(rows).skeleton() == {frozenset({"A", "B"})}
    with pytest.raises(TypeError, match="mixes kinds"):
        hill_climb({"A": np.array(["T", 1, "F"], dtype=object), "B": ["T", "T", "F"]})


def test_size_checks_do_not_overflow():
    """Products of many cardinalities are computed exactly (no int64 wrap-around)."""
    hub = BayesNet([("Q", TF, [], [0.5, 0.5])]
                   + [(f"C{i}", ["a", "b", "c", "d"], ["Q"], None) for i in range(40)])
    with pytest.raises(ValueError, match="entries"):
        hub.joint_table()                       # 2 * 4**40 wraps around in int64
    with pytest.raises(ValueError, match="Markov blanket"):
        hub.gibbs_sampling("C0", {"C1": "a"}, 10, rng=0)
    # 70 hidden binary parents of one observed node: the E step takes the per-pattern path
    wide = BayesNet([(f"H{i}", TF, [], [0.5, 0.5]) for i in range(70)]
                    + [(f"X{i}", TF, [f"H{i}"], [[0.9, 0.1], [0.2, 0.8]]) for i in range(70)])
    counts, ll = wide.expected_counts({"X0": ["T", "F"]})
    assert ll == pytest.approx(math.log(0.5 * 0.9 + 0.5 * 0.2) + math.log(0.5 * 0.1 + 0.5 * 0.8))
    assert counts["H0"] == pytest.approx([0.45 / 0.55 + 0.05 / 0.45, 0.1 / 0.55 + 0.4 / 0.45])


def test_read_bif_of_a_truncated_gzip_file_names_the_file(tmp_path):
    from pathlib import Path
    whole = (Path(__file__).resolve().parents[2] / "lib/data/networks/asia.bif.gz").read_bytes()
    cut = tmp_path / "cut.bif.gz"
    cut.write_bytes(whole[: len(whole) // 2])
    with pytest.raises(ValueError, match=r"cut\.bif\.gz: cannot read it .*truncated"):
        read_bif(cut)
    not_gzip = tmp_path / "plain.bif.gz"
    not_gzip.write_text("network unknown {}")
    with pytest.raises(ValueError, match=r"plain\.bif\.gz: cannot read it"):
        read_bif(not_gzip)


def test_set_cpts_refuses_anything_but_a_mapping():
    net = BayesNet([("R", ["y", "n"], [], [0.2, 0.8])])
    with pytest.raises(TypeError, match=r"set_cpts needs a mapping \{variable: table\}, got list"):
        net.set_cpts([("R", [0.5, 0.5])])
    assert net.cpts["R"].tolist() == [0.2, 0.8]
