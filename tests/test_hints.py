"""Sets 02, 03, 06 and 08 re-tried with the mistakes of issue 28: the first hint the student
sees is the one the author wrote for that mistake (listed in the question's header as
``mistakes public N: <mistake>``), and the grader's feedback shows it first."""
import json

import numpy as np
import pytest
from test_feedback import replies
from test_mutation import first_failure, mistakes, solved

from lib.grading.checks import evaluate, expected_value
from lib.grading.grade import score_question


def filtered_transition_first(obs, start, transition, emission):
    """The textbook convention chapter 8 discusses: a transition before day 1."""
    start, transition, emission = map(np.asarray, (start, transition, emission))
    rows, belief = [], start
    for e in obs:
        b = (belief @ transition) * emission[:, e]
        rows.append(b / b.sum())
        belief = rows[-1]
    return np.array(rows)


def weighted_mean_unnormalised(weights, b_true):
    """The mean of w * b over the samples, not divided by the sum of the weights."""
    w, b = np.asarray(weights, float), np.asarray(b_true, float)
    return float(np.mean(w * b)), float(w.sum() ** 2 / np.sum(w ** 2))


def family_bits_r(counts, n):
    """Model bits with r free numbers per parent configuration instead of r - 1."""
    counts = np.asarray(counts, dtype=float)
    n_ij = counts.sum(axis=1, keepdims=True)
    safe = np.where(counts > 0, counts, 1.0)
    data = -np.sum(counts * np.log2(safe / np.where(n_ij > 0, n_ij, 1.0)))
    q, r = counts.shape
    return float(data + 0.5 * r * q * np.log2(n))


def row_normalised(namespace):
    """The M step's new transition matrix where the E step's expected counts are asked."""
    counts = namespace["answer_q6"]
    return counts / counts.sum(axis=1, keepdims=True)


CASES = [  # set, question, the mistake as listed in the header, target, wrong answer
    ("08_hmm", "q2", "transition before day 1", "filtered", lambda ns: filtered_transition_first),
    ("06_bayesian_networks", "q7", "unnormalised mean (not divided by the sum of the weights)",
     "weighted_estimate", lambda ns: weighted_mean_unnormalised),
    ("03_mdl", "q6", "r for r - 1 free numbers", "family_bits", lambda ns: family_bits_r),
    ("08_hmm", "q6", "row-normalised M-step matrix", "answer_q6", row_normalised),
    ("08_hmm", "q8", "beta rescaled to sum to one", "answer_q8",
     lambda ns: ns["answer_q8"] / ns["answer_q8"].sum()),  # what chapter 8's code does
    ("02_estimation", "q3", "MAP pseudo-counts a - 1 for the posterior mean", "answer_q3",
     lambda ns: next(a for a in range(1, 100) if (8 + a) / (8 + 2 * a) < 0.7)),
]


@pytest.mark.parametrize("name, q, mistake, target, wrong", CASES, ids=[c[2] for c in CASES])
def test_first_hint_names_the_mistake(name, q, mistake, target, wrong):
    questions, namespace, _, _ = solved(name)
    question, listed = questions[q], mistakes(name)[q]
    assert mistake in listed, f"{name} {q}: {mistake!r} is not in the question's mistakes"
    ns = dict(namespace)
    ns[target] = wrong(namespace)
    first = first_failure(question, ns)
    assert first == listed[mistake], f"{name} {q} {mistake!r}: first hint from {first}"
    group, i = first.split()
    hint = (question.public if group == "public" else question.hidden)[int(i) - 1].hint
    # the grader's feedback shows that hint before any other
    expected = [json.loads(json.dumps(expected_value(t.expected))) for t in question.tests]
    values = [evaluate(t.answer, ns) for t in question.tests]
    output = score_question(question, expected, replies(question, values), "")["output"]
    hints = sorted((t.hint for t in question.tests if t.hint in output), key=output.find)
    assert hints and hints[0] == hint, (hint, output)
