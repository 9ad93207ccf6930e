"""Multinomial naive Bayes, fit + predict: lib.naive_bayes.MultinomialNB vs scikit-learn."""
import harness  # noqa: F401  (first: pins BLAS threads before numpy loads)
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


def cases():
    rng = np.random.default_rng(20)
    X, y = synthetic_counts(11_314 + 7_532, rng)
    Xtr, ytr, Xte = X[:11_314], y[:11_314], X[11_314:]
    yield harness.compare(
        f"naive Bayes fit+predict, synthetic 11314x100000 ({Xtr.nnz / 1e6:.2f} M nnz)",
        lambda: fit_predict(MultinomialNB, Xtr, ytr, Xte),
        lambda: fit_predict(SkMultinomialNB, Xtr, ytr, Xte),
        check, tol=1e-9, target=1.0,
        note="max |feature_log_prob_ difference|; predictions identical")

    train, test = load_20newsgroups("train"), load_20newsgroups("test")
    vectorizer = CountVectorizer()
    Xtr, Xte = vectorizer.fit_transform(train.data), vectorizer.transform(test.data)
    yield harness.compare(
        f"naive Bayes fit+predict, 20 Newsgroups ({Xtr.shape[0]}x{Xtr.shape[1]}, "
        f"{Xtr.nnz / 1e6:.2f} M nnz)",
        lambda: fit_predict(MultinomialNB, Xtr, train.target, Xte),
        lambda: fit_predict(SkMultinomialNB, Xtr, train.target, Xte),
        check, tol=1e-9, target=1.0,
        note="CountVectorizer() counts (int64 CSR), not timed")


if __name__ == "__main__":
    harness.main("naive_bayes", cases)
