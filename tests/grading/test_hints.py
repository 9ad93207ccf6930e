"""Every named mistake (issue 28, exercises/README.md): for each misconception a question
lists in its header (``mistakes public N: <mistake>``), a wrong answer that makes it shows
the hint the author wrote for it first, in the test order and in the grader's feedback.
The wrong answers: ``CASES`` below (sets 01-04 and the questions added since) and the
makers of tests/grading/named_mistakes.py (sets 05-09), run by one test."""
import json
import re

import numpy as np
import pytest
from exercise_sets import SETS, first_failure, mistakes, replies, solved
from named_mistakes import cases

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


def p_value(wins_a, wins_b):
    """The exact test's two-sided p-value (chapter 4) where P(theta > 1/2) is asked."""
    from scipy.stats import binomtest
    return float(binomtest(wins_a, wins_a + wins_b, 0.5).pvalue) if wins_a + wins_b else 1.0


def ece_without_bins(confidence, correct, n_bins=10):
    """The mean gap post by post, |confidence - correct|, where the binned ECE is asked."""
    return float(np.mean(np.abs(np.asarray(confidence, float) - np.asarray(correct, float))))


def ece_with(signed=False, weighted=True, midpoint=False):
    """The expected calibration error of set 05 q10 with one of its usual slips."""
    def ece(confidence, correct, n_bins=10):
        confidence, correct = np.asarray(confidence, float), np.asarray(correct, float)
        bins = np.clip(np.ceil(confidence * n_bins).astype(int) - 1, 0, n_bins - 1)
        gaps, weights = [], []
        for b in np.unique(bins):
            inside = bins == b
            level = (b + 0.5) / n_bins if midpoint else confidence[inside].mean()
            gap = correct[inside].mean() - level
            gaps.append(gap if signed else abs(gap))
            weights.append(inside.mean() if weighted else 1 / len(np.unique(bins)))
        return float(np.dot(weights, gaps))
    return ece


def temperature_in_probabilities(log_proba, T):
    """Temperature scaling normalised in probability space (exp underflows on real posts)."""
    p = np.exp(np.asarray(log_proba, dtype=float) / T)
    with np.errstate(all="ignore"):  # 0 / 0 on a real post: the mistake itself
        return np.log(p / p.sum(axis=1, keepdims=True))


def q_update_with(sigma_power=2, residual=True):
    """Set 07 q8's update with the evidence over sigma**sigma_power, and the other cause
    left out of the residual when ``residual`` is False."""
    def q_update(x, m_j, w_k, w_j, pi_k, sigma):
        rest = x - w_j * m_j if residual else x
        logit = np.log(pi_k / (1 - pi_k)) + w_k * (rest - w_k / 2) / sigma**sigma_power
        return float(1 / (1 + np.exp(-logit)))
    return q_update


def knn_radius_cube(half_width):
    """Set 09 q7 with a cube for the ball: of side r, or of half-width r (side 2r)."""
    def knn_radius(k, n, d):
        side = (k / n) ** (1 / d)
        return side / 2 if half_width else side
    return knn_radius


def odds_form(combine=np.prod, back_to_probability=True, on_odds=True):
    """Set 01 q11 the ways students go wrong: the posterior odds returned as they are, the
    likelihood ratios applied to the prior probability, added, or multiplied straight
    (which overflows on hundreds of results)."""
    def posterior_probability(prevalence, likelihood_ratios):
        start = prevalence / (1 - prevalence) if on_odds else prevalence
        with np.errstate(all="ignore"):  # inf / inf: the overflow is the mistake shown
            odds = start * (combine(likelihood_ratios) if len(likelihood_ratios) else 1.0)
            return float(odds / (1 + odds) if back_to_probability and on_odds else odds)
    return posterior_probability


CASES = [  # set, question, the mistake as listed in the header, target, wrong answer
    ("01_bayesian_learning", "q1", "likelihood without the prior", "answer_q1",
     lambda ns: ns["lime"] ** 3 / np.sum(ns["lime"] ** 3)),
    ("01_bayesian_learning", "q2", "MAP prediction (the most probable bag's P(lime))", "predictive",
     lambda ns: lambda data, prior=ns["prior"]: float(ns["lime"][np.argmax(
         prior * ns["lime"] ** np.sum(data) * (1 - ns["lime"]) ** (len(data) - np.sum(data)))])),
    ("01_bayesian_learning", "q3", "h5 most probable (MAP), not above one half", "answer_q3",
     lambda ns: next(n for n in range(50) if np.argmax(ns["prior"] * ns["lime"] ** n) == 4)),
    ("01_bayesian_learning", "q5", "marginals multiplied (candies independent without the bag)", "answer_q5",
     lambda ns: float(np.sum(ns["prior"] * ns["lime"]) ** 2 * np.sum(ns["prior"] * (1 - ns["lime"])))),
    ("01_bayesian_learning", "q6", "MAP hypothesis's vote (not the weighted vote)", "bayes_optimal",
     lambda ns: lambda posteriors, says: np.asarray(says, dtype=float)[int(np.argmax(posteriors))]),
    ("01_bayesian_learning", "q7", "the Bayes optimal error (1 - max p)", "gibbs_error",
     lambda ns: lambda posteriors, says: float(1 - np.max(ns["bayes_optimal"](posteriors, says)))),
    ("01_bayesian_learning", "q10", "the prior 1/56 (not divided by P(D))", "answer_q10", lambda ns: 1 / 56),
    ("02_estimation", "q1", "P(cherry | red) for P(red | cherry)", "answer_q1",
     lambda ns: np.array([0.4, 32 / 47, 15 / 47])),
    ("02_estimation", "q2", "posterior mean instead of the mode", "map_estimate",
     lambda ns: lambda heads, tails, a, b: (heads + a) / (heads + tails + a + b)),
    ("02_estimation", "q4", "sample standard deviation (N - 1)", "gaussian_ml",
     lambda ns: lambda x: (float(np.mean(x)), float(np.std(x, ddof=1)) if len(x) > 1 else float("nan"))),
    ("02_estimation", "q4", "variance for the standard deviation", "gaussian_ml",
     lambda ns: lambda x: (float(np.mean(x)), float(np.var(x)))),
    ("02_estimation", "q6", "posterior mean (two imaginary rolls per face) instead of the mode", "laplace",
     lambda ns: lambda rolls, k: (np.bincount(np.asarray(rolls, dtype=int), minlength=k + 1)[1:] + 2) / (len(rolls) + 2 * k)),
    ("02_estimation", "q7", "unbiased sigma (N - 2)", "linear_gaussian_fit",
     lambda ns: lambda x, y: (*ns["linear_gaussian_fit"](x, y)[:2],
                              ns["linear_gaussian_fit"](x, y)[2] * np.sqrt(len(x) / max(len(x) - 2, 1)))),
    ("02_estimation", "q8", "mean instead of sum", "cross_entropy",
     lambda ns: lambda y, p: ns["cross_entropy"](y, p) / len(y)),
    ("03_mdl", "q1", "data bits only (no bits to name the bag)", "answer_q1",
     lambda ns: -2 * np.log2(ns["lime"][1:])),
    ("03_mdl", "q2", "a whole log2 n per parameter", "two_part_bits",
     lambda ns: lambda log_likelihood, k, n: -log_likelihood / np.log(2) + k * np.log2(n)),
    ("03_mdl", "q2", "nats not converted to bits", "two_part_bits",
     lambda ns: lambda log_likelihood, k, n: -log_likelihood + 0.5 * k * np.log2(n)),
    ("03_mdl", "q3", "parameter bits forgotten (N = 10)", "answer_q3", lambda ns: 10),
    ("03_mdl", "q4", "two-part code length in bits instead of BIC", "answer_q4",
     lambda ns: ns["answer_q4"] / (2 * np.log(2))),
    ("03_mdl", "q7", "the biased coin's bits per toss instead of the saving", "saving_per_toss",
     lambda ns: lambda p: float(-p * np.log2(p) - (1 - p) * np.log2(1 - p))),
    ("04_naive_bayes", "q1", "normalised posteriors instead of the scores", "answer_q1",
     lambda ns: ns["answer_q1"] / ns["answer_q1"].sum()),
    ("04_naive_bayes", "q1", "raw counts (no smoothing)", "answer_q1",
     lambda ns: np.array([9 / 14 * 2 / 9 * 2 / 9 * 6 / 9 * 6 / 9, 5 / 14 * 3 / 5 * 2 / 5 * 1 / 5 * 2 / 5])),
    ("04_naive_bayes", "q1", "no class prior", "answer_q1",
     lambda ns: ns["answer_q1"] / np.array([9 / 14, 5 / 14])),
    ("04_naive_bayes", "q2", "Laplace's rule whatever m", "m_estimate",
     lambda ns: lambda count, class_count, r, m: (count + 1) / (class_count + r)),
    ("04_naive_bayes", "q3", "the inverse ratio L21/L12", "answer_q3", lambda ns: 1 / ns["answer_q3"]),
    ("04_naive_bayes", "q5", "all 16 covariance entries (symmetry ignored)", "answer_q5", lambda ns: (62, 26)),
    ("04_naive_bayes", "q6", "only the present value's factor (absent adds nothing)", "boolean_weight",
     lambda ns: lambda theta_good, theta_bad: float(np.log(theta_good / theta_bad))),
    ("04_naive_bayes", "q7", "the two losses' roles exchanged", "threshold",
     lambda ns: lambda l12, l21: l21 / (l12 + l21)),
    ("01_bayesian_learning", "q9", "base-rate neglect (the answer is the sensitivity)", "p_ill_given_positive",
     lambda ns: lambda prevalence, sensitivity, specificity: sensitivity),
    ("01_bayesian_learning", "q9", "sensitivity and specificity confused", "p_ill_given_positive",
     lambda ns: lambda prevalence, sensitivity, specificity: ns["p_ill_given_positive"](
         prevalence, specificity, sensitivity)),
    ("01_bayesian_learning", "q11", "returns the posterior odds, not a probability", "posterior_probability",
     lambda ns: odds_form(back_to_probability=False)),
    ("01_bayesian_learning", "q11", "likelihood ratio times the prior probability (not the odds)",
     "posterior_probability", lambda ns: odds_form(on_odds=False)),
    ("01_bayesian_learning", "q11", "likelihood ratios added, not multiplied", "posterior_probability",
     lambda ns: odds_form(combine=np.sum)),
    ("01_bayesian_learning", "q11", "product of the likelihood ratios overflows", "posterior_probability",
     lambda ns: odds_form()),
    ("08_hmm", "q2", "transition before day 1", "filtered", lambda ns: filtered_transition_first),
    ("06_bayesian_networks", "q7", "unnormalised mean (not divided by the sum of the weights)",
     "weighted_estimate", lambda ns: weighted_mean_unnormalised),
    ("03_mdl", "q6", "r for r - 1 free numbers", "family_bits", lambda ns: family_bits_r),
    ("08_hmm", "q6", "row-normalised M-step matrix", "answer_q6", row_normalised),
    ("08_hmm", "q8", "beta rescaled to sum to one", "answer_q8",
     lambda ns: ns["answer_q8"] / ns["answer_q8"].sum()),  # what chapter 8's code does
    ("02_estimation", "q3", "MAP pseudo-counts a - 1 for the posterior mean", "answer_q3",
     lambda ns: next(a for a in range(1, 100) if (8 + a) / (8 + 2 * a) < 0.7)),
    # the questions appended by the chapters branch (issue 25), conformed to issue 28's rules
    ("02_estimation", "q9", "Beta posterior mean instead of the grid's", "grid_posterior_mean",
     lambda ns: lambda cherries, limes, n_points: (cherries + 1) / (cherries + limes + 2)),
    ("02_estimation", "q9", "theta as the lime fraction", "grid_posterior_mean",
     lambda ns: lambda cherries, limes, n_points: ns["grid_posterior_mean"](limes, cherries, n_points)),
    ("04_naive_bayes", "q9", "p-value of the exact test", "prob_a_better", lambda ns: p_value),
    ("04_naive_bayes", "q9", "posterior mean of theta", "prob_a_better",
     lambda ns: lambda wins_a, wins_b: (wins_a + 1) / (wins_a + wins_b + 2)),
    ("04_naive_bayes", "q9", "mass below one half", "prob_a_better",
     lambda ns: lambda wins_a, wins_b: 1 - ns["prob_a_better"](wins_a, wins_b)),
    ("04_naive_bayes", "q9", "no prior (Beta(wins_a, wins_b))", "prob_a_better",
     lambda ns: lambda wins_a, wins_b: ns["prob_a_better"](wins_a - 1, wins_b - 1)),
    ("05_text_classification", "q9", "probabilities instead of log posteriors", "temperature_scale",
     lambda ns: lambda log_proba, T: np.exp(ns["temperature_scale"](log_proba, T))),
    ("05_text_classification", "q9", "rows not renormalised after scaling", "temperature_scale",
     lambda ns: lambda log_proba, T: np.asarray(log_proba, dtype=float) / T),
    ("05_text_classification", "q9", "normalised in probability space (exp underflows)",
     "temperature_scale", lambda ns: temperature_in_probabilities),
    ("05_text_classification", "q9", "log posteriors multiplied by T", "temperature_scale",
     lambda ns: lambda log_proba, T: ns["temperature_scale"](log_proba, 1 / T)),
    ("05_text_classification", "q10", "mean of |confidence - correct| over the posts (no bins)",
     "calibration_error", lambda ns: ece_without_bins),
    ("05_text_classification", "q10", "signed gaps (no absolute value)", "calibration_error",
     lambda ns: ece_with(signed=True)),
    ("05_text_classification", "q10", "unweighted mean of the bins' gaps", "calibration_error",
     lambda ns: ece_with(weighted=False)),
    ("05_text_classification", "q10", "bin midpoint instead of the mean confidence", "calibration_error",
     lambda ns: ece_with(midpoint=True)),
    ("07_em", "q8", "evidence divided by sigma, not its square", "q_update",
     lambda ns: q_update_with(sigma_power=1)),
    ("07_em", "q8", "other cause left out (x instead of x minus its expected contribution)",
     "q_update", lambda ns: q_update_with(residual=False)),
    ("07_em", "q10", "penalty d ln N (the half left out)", "observed_bic",
     lambda ns: lambda net, rows: float(net.log_likelihood(rows) - net.n_parameters() * np.log(len(rows)))),
    ("07_em", "q10", "every CPT entry counted, not the free parameters", "observed_bic",
     lambda ns: lambda net, rows: float(net.log_likelihood(rows) - 0.5 * sum(np.size(net.cpts[n]) for n in net.names)
                                        * np.log(len(rows)))),
    ("09_density", "q7", "cube of side r for the ball", "knn_radius", lambda ns: knn_radius_cube(False)),
    ("09_density", "q7", "cube of half-width r for the ball", "knn_radius", lambda ns: knn_radius_cube(True)),
]


CASES += cases(solved)
# named mistakes that need a test of their own (below)
SPECIAL = {("07_em", "q3", "the worst seed, not the smallest bad one"),
           ("08_hmm", "q3", "all rolls counted (the ten ordinary ones too)")}


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("name, q, mistake, target, wrong", CASES, ids=[f"{c[0][:2]}-{c[1]}-{c[2]}" for c in CASES])
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
    with np.errstate(all="ignore"):  # a wrong answer may divide by zero in a test (code_lengths(0))
        values = [evaluate(t.answer, ns) for t in question.tests]
    output = score_question(question, expected, replies(question, values), "")["output"]
    hints = sorted((t.hint for t in question.tests if t.hint in output), key=output.find)
    assert hints and hints[0] == hint, (hint, output)


def test_07_q3_worst_seed_is_not_the_smallest_bad_one():
    """Set 07 q3: the seed of the worst run (a neighbouring reading of 'a worse local
    maximum') gets the 'smallest bad seed' hint first."""
    questions, namespace, _, _ = solved("07_em")
    worst = min(range(20), key=namespace["final_loglik"])
    assert worst != namespace["answer_q3"]
    ns = dict(namespace, answer_q3=worst)
    assert first_failure(questions["q3"], ns) == mistakes("07_em")["q3"]["the worst seed, not the smallest bad one"]


def test_08_q3_all_rolls_counted():
    """Set 08 q3: counting the ten ordinary rolls too gets the 'number of sixes' hint first."""
    questions, namespace, _, _ = solved("08_hmm")
    ns = dict(namespace, answer_q3=namespace["answer_q3"] + 10)
    assert (
        first_failure(questions["q3"], ns) == mistakes("08_hmm")["q3"]["all rolls counted (the ten ordinary ones too)"]
    )


KINDS = re.compile(r"^(x1\.1|x0\.5|\+1|-1|ln/log2|log2/ln|unnormalised|reversed|option \w+|output .+|swap .+|ignore .+)$")


def named_mistakes(name):
    """{question: {misconception: "public 2"}}: the listed mistakes that are not a mutation
    kind (x1.1, swap a, b, option c, ...) but a misconception in words."""
    return {q: {label: where for label, where in listed.items() if not KINDS.match(label)}
            for q, listed in mistakes(name).items()}


@pytest.mark.parametrize("name", SETS)
def test_every_question_names_its_neighbouring_concept(name):
    """exercises/README.md: every computed question lists the neighbouring concept a student
    most likely gives instead (a misconception in words) at a public test."""
    _, _, _, choices = solved(name)
    bad = [q for q, named in named_mistakes(name).items() if q not in choices
           and not any(where.startswith("public") for where in named.values())]
    assert not bad, f"{name}: no misconception listed at a public test in {bad}"


@pytest.mark.parametrize("name", SETS)
def test_every_named_misconception_has_a_wrong_answer(name):
    """Every misconception a question lists has a wrong answer in CASES (above, with
    named_mistakes.py's), which shows that its hint is the first one the student sees."""
    cases = {(c[0], c[1], c[2]) for c in CASES} | SPECIAL
    bad = [f"{q}: {label!r}" for q, named in named_mistakes(name).items()
           for label in named if (name, q, label) not in cases]
    assert not bad, f"{name}: no wrong answer in tests/grading/test_hints.py CASES for " + "; ".join(bad)


def test_named_mistakes_are_told_from_mutation_kinds():
    assert KINDS.match("output x1.1") and KINDS.match("swap wins_a, wins_b") and KINDS.match("option c")
    assert not KINDS.match("the inverse ratio L21/L12") and not KINDS.match("r for r - 1 free numbers")
