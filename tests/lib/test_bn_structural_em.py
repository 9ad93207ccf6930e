"""Tests of lib.bn.structural_em with a genuinely hidden variable (Chapter 7, section
"Structural EM with a hidden variable"): the expected completions against brute-force
enumeration of the joint table, the refusals, and the recovery of the hidden node's
parents and children (a small network here; the heart-disease network over 20 samples in
the slow test)."""
import numpy as np
import pytest

from lib.bn import BayesNet
from lib.bn.structural_em import complete_data, hidden_start, structural_em
from lib.datasets import heart_disease_network

TF = ["t", "f"]


def small_truth():
    """Two causes -> hidden H -> three symptoms, all binary (15 parameters)."""
    return BayesNet([("A", TF, [], [0.5, 0.5]), ("B", TF, [], [0.6, 0.4]),
                     ("H", TF, ["A", "B"], [[0.95, 0.05], [0.1, 0.9], [0.1, 0.9], [0.95, 0.05]]),
                     ("S1", TF, ["H"], [[0.9, 0.1], [0.15, 0.85]]),
                     ("S2", TF, ["H"], [[0.85, 0.15], [0.1, 0.9]]),
                     ("S3", TF, ["H"], [[0.8, 0.2], [0.2, 0.8]])])


def hidden_sample(truth, n, seed, hidden):
    data = truth.sample(n, np.random.default_rng(seed))
    del data[hidden]
    return data


def test_completions_weight_every_value_of_the_hidden_node_by_brute_force_posterior():
    net = hidden_start(small_truth().states, "H", ["A"], rng=3)
    data = hidden_sample(small_truth(), 40, 0, "H")
    Xc, w = complete_data(net, data)
    X = net.encode(data, allow_missing=True)
    joint = net.joint_table()
    expected = np.zeros_like(joint)               # sum over rows of P(completion | row)
    h = net.index["H"]
    for row in X:
        index = tuple(slice(None) if j == h else int(v) for j, v in enumerate(row))
        expected[index] += joint[index] / joint[index].sum()
    got = np.zeros_like(joint)
    np.add.at(got, tuple(Xc.T), w)
    assert np.allclose(got, expected) and np.isclose(w.sum(), 40)
    # the weighted counts of the completions are EM's expected counts
    counts, _ = net.expected_counts(data)
    for n in net.names:
        fam = [net.index[p] for p in net.parents[n]] + [net.index[n]]
        assert np.allclose(np.einsum(got, list(range(6)), fam), counts[n])


def test_hidden_start_links_the_hidden_node_to_every_observed_variable():
    start = hidden_start(small_truth().states, "H", ["A", "S2"], rng=0)
    assert set(start.parents["H"]) == {"A", "S2"}
    assert set(start.children["H"]) == {"B", "S1", "S3"}
    assert not np.allclose(start.cpts["S1"][0], start.cpts["S1"][1])   # states not interchangeable
    latent_class = hidden_start(small_truth().states, "H", rng=0)
    assert set(latent_class.children["H"]) == {"A", "B", "S1", "S2", "S3"}


def test_structural_em_recovers_the_hidden_nodes_parents_and_children():
    truth = small_truth()
    net = structural_em(hidden_sample(truth, 3000, 3, "H"), truth.states, hidden="H",
                        rng=np.random.default_rng(3))
    assert set(net.parents["H"]) == {"A", "B"} and set(net.children["H"]) == {"S1", "S2", "S3"}
    assert set(net.edges()) == set(truth.edges())
    # Friedman's guarantee: the observed-data BIC never falls from round to round
    assert np.all(np.diff(net.bic_trace_) > -1e-6)
    assert net.bic_trace_[-1] >= net.bic_trace_[0]
    assert net.bic_trace_[-1] == net.start_bics_.max() and len(net.start_bics_) == 8


def test_bad_hidden_variables_are_refused_by_name():
    truth = small_truth()
    data = hidden_sample(truth, 50, 0, "H")
    with pytest.raises(ValueError, match="'H' is observed in 50 rows"):
        structural_em(truth.sample(50, np.random.default_rng(0)), truth.states, hidden="H")
    with pytest.raises(ValueError, match="hidden variable 'Z' is not a variable"):
        structural_em(data, truth.states, hidden="Z")
    with pytest.raises(ValueError, match="not variables of the network"):
        structural_em(dict(data, Q=data["A"]), truth.states, hidden="H")
    with pytest.raises(ValueError, match="at least 2 states"):
        structural_em(data, dict(truth.states, H=["only"]), hidden="H")
    with pytest.raises(ValueError, match="n_starts"):
        structural_em(data, truth.states, hidden="H", n_starts=0)
    with pytest.raises(ValueError, match="start parent 'H'"):
        hidden_start(truth.states, "H", ["H"])


def test_heart_disease_network_has_the_textbooks_parameter_counts():
    truth = heart_disease_network()
    assert truth.n_parameters() == 78
    observed = {n: s for n, s in truth.states.items() if n != "HeartDisease"}
    causes = ["Smoking", "Diet", "Exercise"]
    without = BayesNet([(n, s, causes + [f"Symptom{j}" for j in range(1, int(n[-1]))]
                         if n.startswith("Symptom") else []) for n, s in observed.items()])
    assert without.n_parameters() == 708


RECOVERY_SEEDS = range(20)


@pytest.mark.slow
def test_heart_disease_structure_is_recovered_on_most_samples():
    """2000 rows, seeds 0-19, 8 starts (the default). Measured: 20 of 20 recovered, 88 s of
    CPU (with 5000 rows also 20 of 20, in 212 s; with 5000 rows and 4 starts 18 of 20,
    seeds 10 and 19 stopping below the true graph's BIC); one miss is allowed for float
    rounding in the searches."""
    truth = heart_disease_network()
    found = []
    for seed in RECOVERY_SEEDS:
        net = structural_em(hidden_sample(truth, 2000, seed, "HeartDisease"), truth.states,
                            hidden="HeartDisease", rng=np.random.default_rng(seed))
        assert np.all(np.diff(net.bic_trace_) > -1e-6)
        found.append(set(net.edges()) == set(truth.edges()))
    assert sum(found) >= 19, found
