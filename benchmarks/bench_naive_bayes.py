"""Multinomial naive Bayes, fit + predict: lib.naive_bayes.MultinomialNB vs scikit-learn.

Both sides get the same objects and do the same work: ``fit(Xtr, ytr).predict(Xte)`` on
the matrices as the user has them. On 20 Newsgroups that is CountVectorizer's output:
int64 CSR whose training matrix has *unsorted* column indices (``fit_transform``
renumbers the vocabulary alphabetically in place). That layout is asserted, and so is
that neither side sorts or casts the shared input in place (a side that did would hand
the other canonical input from the second call on). The synthetic case is canonical
float64 CSR, the easy case, and is labelled so. Fit and predict are also timed apart.

Why ``results.md`` once said 0.87 where an independent CPU-time harness measured
1.1-1.3: the same code (commit 33c2ab0) re-run on this machine gives 1.25 with this
script, so the number was not the code's. It came from wall-clock timings of single
~150 ms calls under load (scikit-learn's median then was 163 ms, today 62 ms); the
synthetic row, which skips lib's int-to-float conversion (the index sort) entirely,
looked better still. The index sort itself (``scipy.sparse`` ``astype`` sums
duplicates, which sorts every row) was about three quarters of lib's fit.
"""
import harness  # noqa: F401  (first: pins BLAS threads before numpy loads)

# isort: split
import numpy as np
import scipy.sparse as sp
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.naive_bayes import MultinomialNB as SkMultinomialNB

from lib.datasets import load_20newsgroups
from lib.naive_bayes import MultinomialNB


def synthetic_counts(n_docs, rng, n_words=100_000, n_classes=20, tokens_per_doc=160):
    """A 20-Newsgroups-shaped count matrix: Zipf word frequencies, per-class tilts."""
    base = 1.0 / (np.arange(n_words) + 10.0) ** 1.05
    y = rng.integers(n_classes, size=n_docs)
    lengths = rng.geometric(1.0 / tokens_per_doc, size=n_docs)
    rows, cols = [], []
    for c in range(n_classes):
        p = base * np.exp(rng.normal(0.0, 1.0, n_words))
        docs = np.flatnonzero(y == c)
        n_tok = lengths[docs]
        rows.append(np.repeat(docs, n_tok))
        cols.append(rng.choice(n_words, size=n_tok.sum(), p=p / p.sum()))
    rows, cols = np.concatenate(rows), np.concatenate(cols)
    X = sp.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(n_docs, n_words))
    X.sum_duplicates()
    return X, y


def fit_predict(cls, Xtr, ytr, Xte):
    model = cls(alpha=1.0).fit(Xtr, ytr)
    return model, model.predict(Xte)


def check(a, b):
    assert np.array_equal(a[1], b[1]), "predictions differ"
    return np.abs(a[0].feature_log_prob_ - b[0].feature_log_prob_).max()


def fingerprint(*matrices):
    """What a side could change in place: dtype, index arrays, sortedness flags."""
    return [(X.dtype, X.data.tobytes(), X.indices.tobytes(), X.indptr.tobytes(),
             X.has_sorted_indices) for X in matrices]


def compare_nb(name, Xtr, ytr, Xte, note):
    """fit+predict, fit alone and predict alone; the inputs must come out unchanged."""
    before = fingerprint(Xtr, Xte)
    yield harness.compare(f"{name} fit+predict",
                          lambda: fit_predict(MultinomialNB, Xtr, ytr, Xte),
                          lambda: fit_predict(SkMultinomialNB, Xtr, ytr, Xte),
                          check, tol=1e-9, target=1.0, note=note)
    lib_model, sk_model = MultinomialNB().fit(Xtr, ytr), SkMultinomialNB().fit(Xtr, ytr)
    yield harness.compare(f"{name} fit", lambda: MultinomialNB().fit(Xtr, ytr),
                          lambda: SkMultinomialNB().fit(Xtr, ytr),
                          lambda a, b: np.abs(a.feature_log_prob_ - b.feature_log_prob_).max(),
                          tol=1e-9, target=1.0, note="max |feature_log_prob_ difference|")
    yield harness.compare(f"{name} predict", lambda: lib_model.predict_log_proba(Xte),
                          lambda: sk_model.predict_log_proba(Xte),
                          lambda a, b: np.abs(a - b).max(), tol=1e-9, target=1.0,
                          note="max |log posterior difference|")
    assert fingerprint(Xtr, Xte) == before, "a side changed the shared input in place"


def cases():
    rng = np.random.default_rng(20)
    X, y = synthetic_counts(11_314 + 7_532, rng)
    Xtr, ytr, Xte = X[:11_314], y[:11_314], X[11_314:]
    assert Xtr.has_canonical_format and Xtr.dtype == np.float64
    yield from compare_nb(
        f"naive Bayes, synthetic 11314x100000 ({Xtr.nnz / 1e6:.2f} M nnz, canonical float CSR)",
        Xtr, ytr, Xte, "max |feature_log_prob_ difference|; predictions identical")

    train, test = load_20newsgroups("train"), load_20newsgroups("test")
    vectorizer = CountVectorizer()
    Xtr, Xte = vectorizer.fit_transform(train.data), vectorizer.transform(test.data)
    assert Xtr.dtype == np.int64 and not Xtr.has_sorted_indices, "expected CountVectorizer's layout"
    yield from compare_nb(
        f"naive Bayes, 20 Newsgroups ({Xtr.shape[0]}x{Xtr.shape[1]}, {Xtr.nnz / 1e6:.2f} M nnz, "
        "CountVectorizer int64 CSR)", Xtr, train.target, Xte,
        "CountVectorizer() counts as returned (int64 CSR, training indices unsorted), "
        "vectorizing not timed; predictions identical")


if __name__ == "__main__":
    harness.main("naive_bayes", cases)
