"""The wrong answers of sets 05-09's named mistakes (issue 28), each built on the solved
set's namespace: one maker per set (or question) returns ``[(question, mistake, target,
wrong value)]``. tests/grading/test_hints.py runs them with its own table (a helper module,
not a test module)."""
import functools

import numpy as np


def case05(ns):
    X, lab, V = ns["X_train"], ns["train_labels"], ns["vocabulary"]
    space = np.asarray(X[lab == "sci.space"].sum(axis=0)).ravel()
    allg = np.asarray(X.sum(axis=0)).ravel()

    def bigram_no_pad_end(sentences, previous, word, alpha=0):
        c_i = c_ij = 0
        for s in sentences:
            padded = ["<s>"] + list(s)
            for a, b in zip(padded[:-1], padded[1:]):
                if a == previous:
                    c_i += 1
                    c_ij += b == word
        Vn = len({w for s in sentences for w in s}) + 2
        d = c_i + alpha * Vn
        return (c_ij + alpha) / d if d > 0 else 0.0

    def bigram_V_words(sentences, previous, word, alpha=0):
        c_i = c_ij = 0
        for s in sentences:
            padded = ["<s>"] + list(s) + ["</s>"]
            for a, b in zip(padded[:-1], padded[1:]):
                if a == previous:
                    c_i += 1
                    c_ij += b == word
        Vn = len({w for s in sentences for w in s})
        d = c_i + alpha * Vn
        return (c_ij + alpha) / d if d > 0 else 0.0

    def multinomial_score(present, p, prior):
        present, p = np.asarray(present), np.asarray(p, float)
        with np.errstate(divide="ignore"):
            return float(np.log(prior) + np.sum(np.where(present == 1, np.log(p), 0.0)))

    return [
        ("q1", "ML estimate n_k / n (no add-one)", "answer_q1", space / space.sum()),
        ("q1", "counts of all four groups", "answer_q1", (allg + 1) / (allg.sum() + len(V))),
        ("q2", "no </s> at the end of a sentence", "bigram_estimate", bigram_no_pad_end),
        ("q2", "V without </s> and <unk>", "bigram_estimate", bigram_V_words),
        (
            "q3",
            "the multinomial model's best size",
            "answer_q3",
            max(ns["sizes"], key=lambda s: ns["accuracy"]("multinomial", s)),
        ),
        ("q6", "absent words skipped (the multinomial score)", "bernoulli_log_score", multinomial_score),
        (
            "q7",
            "mean of 1 / p (arithmetic, not geometric)",
            "perplexity",
            lambda probs: float(np.mean(1 / np.asarray(probs, float))),
        ),
        ("q7", "cross-entropy in bits for the perplexity", "perplexity", lambda probs: float(-np.mean(np.log2(probs)))),
        (
            "q8",
            "ML estimates without add-one",
            "word_log_odds",
            lambda a, b, na, nb, V: float(np.log(a / na) - np.log(b / nb)) if a and b else float("nan"),
        ),
        (
            "q8",
            "log odds of the counts (no normalisation by the group sizes)",
            "word_log_odds",
            lambda a, b, na, nb, V: float(np.log((a + 1) / (b + 1))),
        ),
    ]


def case06(ns):
    p_q, p_b, p_r, p_a, p_c, T, F = (ns[k] for k in ("p_q", "p_b", "p_r", "p_a", "p_c", "T", "F"))
    alarm = ns["alarm"]

    def joint_not_divided(pq, pb, pa):
        pq, pb, pa = (np.asarray(t, float) for t in (pq, pb, pa))
        return float(np.einsum("q,b,qb->b", pq, pb, pa[:, :, 0])[0])

    def q_false(pq, pb, pa):
        pb, pa = np.asarray(pb, float), np.asarray(pa, float)
        j = pb * pa[1, :, 0]
        return float(j[0] / j.sum())

    def likelihood(pq, pb, pa):
        pq, pa = np.asarray(pq, float), np.asarray(pa, float)
        return float(pq @ pa[:, 0, 0])

    def by_n(x, u, n_x, n_u):
        c = np.zeros((n_u, n_x))
        np.add.at(c, (np.asarray(u, int), np.asarray(x, int)), 1)
        return c / len(x)

    def unweighted(w, b):
        w, b = np.asarray(w, float), np.asarray(b, float)
        return float(b.mean()), float(w.sum() ** 2 / np.sum(w**2))

    def ess_n(w, b):
        w, b = np.asarray(w, float), np.asarray(b, float)
        return float(w @ b / w.sum()), float(len(w))

    return [
        (
            "q1",
            "P(A | Q, B) read for a burglary (p_a index order)",
            "answer_q1",
            p_q[T] * p_b[F] * p_r[T, T] * p_a[T, T, T] * p_c[T, T],
        ),
        ("q1", "the call's factor left out", "answer_q1", p_q[T] * p_b[F] * p_r[T, T] * p_a[T, F, T]),
        ("q2", "joint P(A, B) not divided by P(A)", "posterior_burglary", joint_not_divided),
        ("q2", "the earthquake fixed to false (not summed out)", "posterior_burglary", q_false),
        ("q2", "the likelihood P(A | B) for the posterior", "posterior_burglary", likelihood),
        ("q3", "f1 transposed (indexed [b, a])", "eliminate_q", lambda pq, pa: ns["eliminate_q"](pq, pa).T),
        ("q4", "counts divided by N (the joint, not the conditional)", "ml_cpt", by_n),
        (
            "q4",
            "the table transposed (rows = child values)",
            "ml_cpt",
            lambda x, u, nx, nu: ns["ml_cpt"](x, u, nx, nu).T,
        ),
        (
            "q5",
            "the earthquake's probabilities for the burglary's",
            "answer_q5",
            np.array([alarm.query("Q", {"C": "true"})[0], alarm.query("Q", {"C": "true", "R": "true"})[0]]),
        ),
        (
            "q6",
            "weights include the sampled variables' probabilities",
            "answer_q6",
            np.array([p_c[a, T] * p_r[q, T] * p_q[q] * p_b[T] * p_a[q, T, a] for q in (T, F) for a in (T, F)]),
        ),
        (
            "q6",
            "a sum of the evidence probabilities",
            "answer_q6",
            np.array([p_c[a, T] + p_r[q, T] for q in (T, F) for a in (T, F)]),
        ),
        ("q7", "unweighted fraction of samples with B", "weighted_estimate", unweighted),
        ("q7", "the number of samples as the effective sample size", "weighted_estimate", ess_n),
    ]


def case07(ns):
    X = ns["X_candy"]

    def post(theta, p1, p2):
        l1 = np.array([np.prod(np.where(r == 0, p1, 1 - p1)) for r in X])
        l2 = np.array([np.prod(np.where(r == 0, p2, 1 - p2)) for r in X])
        return theta * l1 / (theta * l1 + (1 - theta) * l2), l1

    resp, lik = post(0.6, 0.6, 0.4)
    noprior, _ = post(0.5, 0.6, 0.4)

    def per_component(x, means, sigma):
        x, means = np.asarray(x, float), np.asarray(means, float)
        lp = -((x[:, None] - means[None, :]) ** 2) / (2 * sigma**2)
        r = np.exp(lp - lp.max(axis=0, keepdims=True))
        r /= r.sum(axis=0, keepdims=True)
        return r.T @ x / r.sum(axis=0)

    def hard(x, means, sigma):
        x, means = np.asarray(x, float), np.asarray(means, float)
        lab = np.argmin(np.abs(x[:, None] - means[None, :]), axis=1)
        return np.array([x[lab == i].mean() if np.any(lab == i) else means[i] for i in range(len(means))])

    net, rows = ns["net"], ns["rows"]
    prior_table = sum(
        np.array(
            [
                (np.eye(2)[r["X1"], i] if "X1" in r else net.query("X1", r)[i]) * np.array([[0.8, 0.2], [0.3, 0.7]])[i]
                for i in (0, 1)
            ]
        )
        for r in rows
    )

    def m_unbiased(x, resp):
        w, m, v = ns["m_step"](x, resp)
        n = np.asarray(resp, float).sum(axis=0)
        return w, m, v * n / (n - 1) if np.all(n > 1) else v * np.inf

    def m_weights_n(x, resp):
        w, m, v = ns["m_step"](x, resp)
        return w * len(x), m, v

    return [
        ("q1", "the likelihood P(candy | Bag = 1) for the posterior", "answer_q1", lik),
        ("q1", "the prior theta left out (equal bag weights)", "answer_q1", noprior),
        ("q2", "responsibilities normalised per component, not per point", "em_step", per_component),
        ("q2", "hard assignments (k-means, not EM)", "em_step", hard),
        ("q5", "the prior table P(X2 | X1) for the posterior", "answer_q5", prior_table),
        ("q6", "variances divided by n_i - 1", "m_step", m_unbiased),
        ("q6", "weights n_i not divided by N", "m_step", m_weights_n),
        (
            "q7",
            "log odds of component 2 against component 1",
            "logistic_coefficients",
            lambda a, b, s: tuple(-v for v in ns["logistic_coefficients"](a, b, s)),
        ),
        (
            "q7",
            "sigma not squared",
            "logistic_coefficients",
            lambda a, b, s: tuple(v * s for v in ns["logistic_coefficients"](a, b, s)),
        ),
    ]


def case08(ns):
    um, tr = ns["umbrella"], ns["transition"]
    f3 = um.filter([1, 1, 1])[2]
    f4 = um.filter([1, 1, 1, 1])[3]

    def smoothed_argmax(obs, start, transition, emission):
        from lib.hmm import HMM

        return [
            int(i)
            for i in HMM(np.asarray(start, float), np.asarray(transition, float), np.asarray(emission, float))
            .smooth(np.asarray(obs))
            .argmax(axis=1)
        ]

    def filtered_argmax(obs, start, transition, emission):
        return [int(i) for i in ns["filtered"](obs, start, transition, emission).argmax(axis=1)]

    xi_f = sum(
        np.outer(
            um.filter([1, 1, 0][: t + 1])[t],
            um.filter([1, 1, 0][: t + 2])[t + 1] / (um.filter([1, 1, 0][: t + 1])[t] @ tr),
        )
        * tr
        for t in (0, 1)
    )
    return [
        ("q1", "day 4 updated with an umbrella (filtered, not a forecast)", "answer_q1", np.array([f3[0], f4[0]])),
        (
            "q1",
            "day 3 as a forecast from day 2 (evidence of day 3 left out)",
            "answer_q1",
            np.array([um.filter([1, 1])[1] @ tr[:, 0], (um.filter([1, 1])[1] @ tr) @ tr[:, 0]]),
        ),
        (
            "q2",
            "smoothed instead of filtered",
            "filtered",
            lambda obs, start, transition, emission: (
                __import__("lib.hmm", fromlist=["HMM"])
                .HMM(np.asarray(start, float), np.asarray(transition, float), np.asarray(emission, float))
                .smooth(np.asarray(obs))
            ),
        ),
        ("q4", "the most likely state of each day (smoothed)", "viterbi", smoothed_argmax),
        ("q4", "the most likely state of each day (filtered)", "viterbi", filtered_argmax),
        ("q6", "filtered instead of smoothed pair probabilities", "answer_q6", xi_f),
        ("q7", "a alone (the persistence of rain)", "stationary_rain", lambda a, b: a),
        ("q7", "one step of the chain from an even start", "stationary_rain", lambda a, b: (a + 1 - b) / 2),
        (
            "q7",
            "the share of rain's persistence a / (a + b)",
            "stationary_rain",
            lambda a, b: a / (a + b) if a + b else 0.5,
        ),
    ]


def case09(ns):
    def knn_r(query, data, k):
        return 2 * ns["knn_density_1d"](query, data, k)

    def kde_w2(query, data, w):
        return ns["kde"](query, data, w) / w

    def kde_sum(query, data, w):
        return ns["kde"](query, data, w) * len(np.atleast_1d(np.asarray(data, float)))

    return [
        ("q1", "interval of length r, not 2r", "knn_density_1d", knn_r),
        (
            "q1",
            "the k-th point of the sorted data, not the k-th nearest",
            "knn_density_1d",
            lambda q, d, k: np.full(
                len(np.atleast_1d(q)), k / (len(d) * 2 * np.abs(np.sort(d)[k - 1])) if np.sort(d)[k - 1] else np.inf
            ),
        ),
        ("q2", "a sum of the bumps, not their mean", "kde", kde_sum),
        ("q2", "normaliser with w squared", "kde", kde_w2),
        ("q3", "the lowest held-out log-likelihood", "answer_q3", min(ns["widths"], key=ns["held_out_score"])),
        ("q5", "the full distance D in the exponent", "best_width", lambda D, d: D / np.sqrt(d)),
        ("q5", "d left out (the one-dimensional answer)", "best_width", lambda D, d: D / 2),
        ("q6", "the grid side counted once (n_grid * n_data)", "kernel_terms", lambda g, n: g * n),
        ("q6", "doubling the data only (factor 2)", "answer_q6", 2.0),
    ]


def case06_q11(ns):
    alarm, vs = ns["alarm"], ns["v_structures"](ns["alarm"])
    return [
        (
            "q11",
            "the skeleton (links without directions)",
            "answer_q11",
            sorted(tuple(sorted(e)) for e in alarm.edges()),
        ),
        ("q11", "arrows reversed", "answer_q11", [(c, p) for p, c in ns["answer_q11"]]),
        (
            "q11",
            "only the v-structure arrows (Meek's rules not applied)",
            "answer_q11",
            sorted({(a, c) for a, c, _ in vs} | {(b, c) for _, c, b in vs}),
        ),
        ("q11", "no link compelled", "answer_q11", []),
        ("q11", "every arrow of the network (a DAG as its own class)", "answer_q11", alarm.edges()),
    ]


def case06_q12(ns):
    pc, states = ns["pc"], ns["asia"].states

    def counting(key, fixed_order=False, pass_stable=True, sort=True, share=False):
        def cpdag_counts(data, orders, stable):
            found = {}
            for order in orders:
                result = pc(data, states=states, order=None if fixed_order else order,
                            stable=stable and pass_stable)
                found[key(result)] = found.get(key(result), 0) + (1 / len(orders) if share else 1)
            return sorted(found.values(), reverse=True) if sort else list(found.values())
        return cpdag_counts

    def whole(r):
        return frozenset(r.cpdag.directed), frozenset(r.cpdag.undirected)

    def one_when_stable(data, orders, stable):
        return [len(orders)] if stable else counting(whole)(data, orders, False)

    def number(data, orders, stable):
        return len(counting(whole)(data, orders, stable))

    return [
        ("q12", "skeletons counted instead of CPDAGs", "cpdag_counts", counting(lambda r: frozenset(r.skeleton))),
        ("q12", "the same order in every run", "cpdag_counts", counting(whole, fixed_order=True)),
        ("q12", "stable not passed on to pc", "cpdag_counts", counting(whole, pass_stable=False)),
        ("q12", "PC-stable taken as order-independent", "cpdag_counts", one_when_stable),
        ("q12", "the number of CPDAGs instead of the counts", "cpdag_counts", number),
        ("q12", "shares of the orders instead of counts", "cpdag_counts", counting(whole, share=True)),
        ("q12", "counts in the order first found (not sorted)", "cpdag_counts", counting(whole, sort=False)),
    ]


def case06_q13(ns):
    """Set 06 q13's mistakes, each built on the solution: the graphs and scores it averages."""
    import itertools

    from scipy.special import logsumexp

    family_score = ns["family_score"]

    def graphs(acyclic=True):
        for code in itertools.product(range(3), repeat=3):
            A = np.zeros((3, 3))
            for (u, v), c in zip([(0, 1), (0, 2), (1, 2)], code):
                if c:
                    A[(u, v) if c == 1 else (v, u)] = 1
            if not acyclic or np.trace(A @ A @ A) == 0:
                yield A

    def scored(X, alpha, acyclic=True, **score):
        options = score or {"score": "bdeu", "equivalent_sample_size": alpha}
        gs = list(graphs(acyclic))
        s = np.array([sum(family_score(X, i, list(np.flatnonzero(A[:, i])), [2, 2, 2], **options)
                          for i in range(3)) for A in gs])
        return s, np.array(gs)

    def average(s, gs):
        return np.einsum("g,gij->ij", np.exp(s - logsumexp(s)), gs)

    return [
        ("q13", "the single best graph's links (0 or 1) instead of the average", "edge_posterior",
         lambda X, alpha: (lambda s, gs: gs[np.argmax(s)])(*scored(X, alpha))),
        ("q13", "unnormalised (exp of the scores not divided by their sum)", "edge_posterior",
         lambda X, alpha: (lambda s, gs: np.einsum("g,gij->ij", np.exp(s), gs))(*scored(X, alpha))),
        ("q13", "the two cyclic graphs counted (27 graphs)", "edge_posterior",
         lambda X, alpha: average(*scored(X, alpha, acyclic=False))),
        ("q13", "the BIC score (alpha never reaches the score)", "edge_posterior",
         lambda X, alpha: average(*scored(X, alpha, score="bic"))),
        ("q13", "the log scores used as weights (no exponential)", "edge_posterior",
         lambda X, alpha: (lambda s, gs: np.einsum("g,gij->ij", s / s.sum(), gs))(*scored(X, alpha))),
        ("q13", "the matrix transposed (P(j -> i) at [i, j])", "edge_posterior",
         lambda X, alpha: average(*scored(X, alpha)).T),
    ]


MAKERS = [
    ("05_text_classification", case05),
    ("06_bayesian_networks", case06),
    ("06_bayesian_networks", case06_q11),
    ("06_bayesian_networks", case06_q12),
    ("06_bayesian_networks", case06_q13),
    ("07_em", case07),
    ("08_hmm", case08),
    ("09_density", case09),
]


def _wrong(make, i, namespace):
    return make(namespace)[i][3]


def cases(solved):
    """``[(set, question, mistake, target, wrong)]``, ``wrong(namespace)`` the wrong value, as in
    test_hints.py's table (``solved``: the set's solution run, for the questions' names)."""
    return [(name, case[0], case[1], case[2], functools.partial(_wrong, make, i))
            for name, make in MAKERS for i, case in enumerate(make(solved(name)[1]))]
