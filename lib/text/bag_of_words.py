"""Naive Bayes for documents (Chapter 5, sections "Documents as bags of words",
"Learning and classifying", "Counting words or noting their presence", "How well does it
work?", "The learning curve"): tokens, count matrices, :class:`NaiveBayesText`, the
LEARN/CLASSIFY_NAIVE_BAYES_TEXT pseudo-code, word contributions, confusion matrices and
learning curves. Every probability is handled in log space, so documents of 10^5 tokens
give finite scores.
"""
import re
from itertools import chain

import numpy as np
import scipy.sparse as sp

from lib._classifier import ProbabilisticClassifier
from lib._validation import (
    check_array,
    check_counts,
    check_index_map,
    check_is_fitted,
    check_items,
    check_labels,
    check_option,
    check_rng,
    check_scalar,
)

#: A token is a run of two or more letters or digits (the default of scikit-learn's
#: CountVectorizer, so that the two can be compared on the same vocabulary).
TOKEN = re.compile(r"(?u)\b\w\w+\b")


def tokenize(text):
    """Lower-case ``text`` and split it into tokens of at least two letters or digits.

    Used in: Chapter 5, section "Documents as bags of words".

    >>> tokenize("Great skater, and a HARD shot!")
    ['great', 'skater', 'and', 'hard', 'shot']
    """
    if not isinstance(text, str):
        raise TypeError(f"a document must be a str, got {type(text).__name__}")
    return TOKEN.findall(text.lower())


def count_matrix(docs, vocabulary=None):
    """Bag-of-words counts: a sparse matrix ``X[d, k]`` = occurrences of word k in doc d.

    Parameters
    ----------
    docs : list of str
    vocabulary : dict, optional
        Maps words to column numbers. Words of ``docs`` that are not in it are ignored.
        By default the vocabulary is every distinct token of ``docs``, in alphabetical
        order.

    Returns
    -------
    (scipy.sparse.csr_matrix, dict)
        The counts (one row per document) and the vocabulary.

    Used in: Chapter 5, section "Documents as bags of words".

    >>> X, vocab = count_matrix(["the cat sat", "the the dog"])
    >>> sorted(vocab), X.toarray().tolist()
    (['cat', 'dog', 'sat', 'the'], [[1, 0, 1, 1], [0, 1, 0, 2]])
    """
    docs = check_items(docs, "corpus")
    tokens = [tokenize(doc) for doc in docs]
    lengths = np.array([len(t) for t in tokens])
    if vocabulary is not None:
        check_index_map(vocabulary, "vocabulary", what="word")
    else:
        words = sorted(dict.fromkeys(chain.from_iterable(tokens)))
        vocabulary = {word: k for k, word in enumerate(words)}
    get = vocabulary.get
    columns = np.fromiter((get(t, -1) for t in chain.from_iterable(tokens)), dtype=np.int64, count=lengths.sum())
    rows = np.repeat(np.arange(len(docs)), lengths)
    known = columns >= 0
    X = sp.coo_matrix((np.ones(known.sum(), dtype=np.int64), (rows[known], columns[known])),
                      shape=(len(docs), len(vocabulary))).tocsr()
    return X, vocabulary


class NaiveBayesText(ProbabilisticClassifier):
    """Naive Bayes for documents: multinomial (bag of words) or Bernoulli (word presence).

    ``event_model="multinomial"`` is the learner of LEARN_NAIVE_BAYES_TEXT: every word
    position of a document is a roll of one ``|Vocabulary|``-sided die per class, and

    ``P(w_k | v_j) = (n_k + alpha) / (n + alpha |Vocabulary|)``

    (``alpha = 1`` is the pseudo-code's add-one rule, the MAP estimate under a
    Dirichlet prior with all parameters equal to 2). ``event_model="bernoulli"`` has one
    yes/no variable per vocabulary word, "does the word occur in the document?", with
    ``P(X_k = 1 | v_j) = (docs of class j containing w_k + alpha) / (|docs_j| + 2 alpha)``;
    absent words count as evidence too.

    Fitted attributes: ``classes_``, ``class_count_``, ``class_log_prior_``,
    ``vocabulary_`` (word -> column), ``in_vocabulary_`` (columns seen in training),
    ``feature_count_`` and ``feature_log_prob_`` (classes x words; the log probability
    of a word in the multinomial model, of its presence in the Bernoulli one).

    Used in: Chapter 5, sections "Learning and classifying" and "Counting words or
    noting their presence".

    >>> model = NaiveBayesText().fit(["goal puck ice", "orbit moon launch"], ["hockey", "space"])
    >>> model.predict(["the puck hit the ice"]).tolist()
    ['hockey']
    """

    def __init__(self, event_model="multinomial", alpha=1.0):
        self.event_model = check_option(event_model, "event_model", ("multinomial", "bernoulli"))
        self.alpha = check_scalar(alpha, "alpha", low=0, high=1e100, closed="right")

    def fit(self, docs, labels):
        """Learn from raw documents: the vocabulary is every token of ``docs``."""
        docs = check_items(docs, "corpus")
        check_labels(labels, "labels", n_samples=len(docs))
        counts, vocabulary = count_matrix(docs)
        if not vocabulary:
            raise ValueError("docs hold no token (a word of at least two letters or digits, "
                             "see tokenize): there is nothing to learn from")
        return self.fit_counts(counts, labels, vocabulary)

    def fit_counts(self, counts, labels, vocabulary=None):
        """Learn from a document-by-word count matrix (rows = documents).

        Columns that are zero in every training document are left out of the
        vocabulary: their log probabilities are set to 0, so the words they stand for
        are skipped when a document is classified, exactly as if they had never been
        columns.
        """
        X = _count_csr(counts, "counts")
        labels = check_labels(labels, "labels", n_samples=X.shape[0])
        if vocabulary is not None:
            check_index_map(vocabulary, "vocabulary", size=X.shape[1], what="word")
        self.vocabulary_ = vocabulary if vocabulary is not None else {k: k for k in range(X.shape[1])}
        # for each target value v_j: docs_j is the set of rows labelled v_j
        self.classes_, y = np.unique(labels, return_inverse=True)
        docs_j = sp.csr_matrix((np.ones(len(y)), (y, np.arange(len(y)))), shape=(len(self.classes_), len(y)))
        # P(v_j) = |docs_j| / |Examples|
        self.class_count_ = np.bincount(y, minlength=len(self.classes_)).astype(float)
        self.class_log_prior_ = np.log(self.class_count_ / len(y))
        # Vocabulary = the words that occur somewhere in Examples
        self.in_vocabulary_ = np.asarray(X.sum(axis=0)).ravel() > 0
        vocabulary_size = self.in_vocabulary_.sum()
        if self.event_model == "multinomial":
            # Text_j = all of docs_j joined: n_k counts word w_k in Text_j, n all its words
            n_k = np.asarray((docs_j @ X).todense())
            n = n_k.sum(axis=1, keepdims=True)
            # P(w_k | v_j) = (n_k + 1) / (n + |Vocabulary|), with alpha in place of the 1
            log_prob = np.log(n_k + self.alpha) - np.log(n + self.alpha * vocabulary_size)
        else:
            # number of documents of class v_j in which w_k occurs at least once
            n_k = np.asarray((docs_j @ _presence(X)).todense())
            p = (n_k + self.alpha) / (self.class_count_[:, None] + 2 * self.alpha)
            log_prob = np.log(p)
            self.feature_log_absent_ = np.where(self.in_vocabulary_, np.log1p(-p), 0.0)
        self.feature_count_ = n_k
        # Stored as the transpose of a C-contiguous (words, classes) array, so that
        # feature_log_prob_.T, the dense operand of X @ W, is not copied per prediction.
        self.feature_log_prob_ = np.ascontiguousarray(
            np.where(self.in_vocabulary_, log_prob, 0.0).T).T
        return self

    def _counts(self, docs):
        check_is_fitted(self, "classes_")
        if sp.issparse(docs) or isinstance(docs, np.ndarray):
            X = _count_csr(docs, "docs")
            if X.shape[1] != self.feature_log_prob_.shape[1]:
                raise ValueError(f"docs as counts must have one column per vocabulary word "
                                 f"({self.feature_log_prob_.shape[1]}), got {X.shape[1]}")
            return X
        return count_matrix(check_items(docs, "list of documents"), self.vocabulary_)[0]

    def joint_log_likelihood(self, docs):
        """``log P(v_j) + log P(doc | v_j)`` for every document (rows) and class (columns).

        ``docs`` is a list of str or a count matrix with the model's columns.
        """
        X = self._counts(docs)
        if self.event_model == "multinomial":
            return np.asarray(X @ self.feature_log_prob_.T) + self.class_log_prior_
        present = _presence(X)
        log_odds = self.feature_log_prob_ - self.feature_log_absent_
        return (np.asarray(present @ log_odds.T) + self.feature_log_absent_.sum(axis=1)
                + self.class_log_prior_)

    # predict / predict_proba / predict_log_proba (rows = documents; ``predict`` is v_NB)
    # come from ProbabilisticClassifier over this joint log likelihood
    _joint_log_likelihood = joint_log_likelihood

    def score(self, docs, labels):
        """Fraction of documents whose predicted class equals their label."""
        predicted = self.predict(docs)
        labels = check_labels(labels, "labels", n_samples=len(predicted))
        return float(np.mean(predicted == labels))


def _count_csr(counts, name):
    """Checked counts as a float CSR matrix, its column indices left as they are
    (:func:`lib._validation.check_counts` converts the values only)."""
    X = check_counts(counts, name)
    return X if sp.issparse(X) else sp.csr_matrix(X)


def _presence(X):
    """0/1 float CSR matrix of the entries of ``X`` (a float CSR of counts) above zero."""
    if not X.has_canonical_format:  # a repeated (row, column) entry must count once
        X = X.copy()
        X.sum_duplicates()
    present = type(X)(((X.data > 0).astype(float), X.indices, X.indptr), shape=X.shape)
    present.eliminate_zeros()
    return present


def learn_naive_bayes_text(examples, labels, alpha=1.0):
    """LEARN_NAIVE_BAYES_TEXT: estimate ``P(v_j)`` and ``P(w_k | v_j)`` from documents.

    Returns a fitted multinomial :class:`NaiveBayesText` (the pseudo-code's probability
    terms are its ``class_log_prior_`` and ``feature_log_prob_``, in log space).
    Used in: Chapter 5, section "Learning and classifying".

    >>> model = learn_naive_bayes_text(["a goal a save", "a launch"], ["hockey", "space"])
    >>> sorted(model.vocabulary_)
    ['goal', 'launch', 'save']
    """
    examples = check_items(examples, "corpus")
    labels = check_labels(labels, "labels", n_samples=len(examples))
    # 1. Vocabulary <- all distinct words and tokens in Examples (documents become count rows)
    counts, vocabulary = count_matrix(examples)
    # 2. the P(v_j) and P(w_k | v_j) terms, for all classes and words at once
    return NaiveBayesText("multinomial", alpha).fit_counts(counts, labels, vocabulary)


def classify_naive_bayes_text(model, doc):
    """CLASSIFY_NAIVE_BAYES_TEXT: the most probable class of one document.

    Works with the log probabilities, so that long documents do not underflow.
    Used in: Chapter 5, section "Learning and classifying".
    """
    if getattr(model, "event_model", None) != "multinomial":
        raise ValueError("classify_naive_bayes_text needs a multinomial model from learn_naive_bayes_text")
    check_is_fitted(model, "feature_log_prob_")
    # positions <- the word positions of doc that hold a Vocabulary token
    positions = [model.vocabulary_[t] for t in tokenize(doc) if t in model.vocabulary_]
    # v_NB = argmax_j log P(v_j) + sum over positions of log P(a_i | v_j)
    scores = model.class_log_prior_ + model.feature_log_prob_[:, positions].sum(axis=1)
    return model.classes_[np.argmax(scores)]


def word_contributions(model, doc):
    """How much each word of ``doc`` pushes each class: ``count * log P(w | v_j)``.

    Returns ``(words, contributions)`` with one column of ``contributions`` (shape
    classes x words) per distinct vocabulary word of ``doc``; the class scores are
    ``class_log_prior_ + contributions.sum(axis=1)``. Multinomial models only.
    Used in: Chapter 5, section "Try it: classify your own sentence".
    """
    if getattr(model, "event_model", None) != "multinomial":
        raise ValueError("word_contributions needs a multinomial model")
    check_is_fitted(model, "feature_log_prob_")
    words, counts = np.unique([t for t in tokenize(doc) if t in model.vocabulary_], return_counts=True)
    columns = np.array([model.vocabulary_[w] for w in words], dtype=int)
    return words.tolist(), model.feature_log_prob_[:, columns] * counts


def most_indicative_words(model, n_words=8):
    """The ``n_words`` words of each class with the largest ``log P(w|v_j) - log P(w|others)``.

    ``P(w | others)`` is the mean of ``P(w | v_i)`` over the other classes. Returns a
    dict ``{class: [words]}``. Used in: Chapter 5, section "What the classifier learnt".
    """
    check_is_fitted(model, "feature_log_prob_")
    n_words = check_scalar(n_words, "n_words", kind="integer", low=1)
    words = np.empty(len(model.vocabulary_), dtype=object)
    for word, k in model.vocabulary_.items():
        words[k] = word
    prob = np.exp(model.feature_log_prob_)
    n_classes = len(model.classes_)
    others = (prob.sum(axis=0) - prob) / max(n_classes - 1, 1)
    with np.errstate(divide="ignore"):
        ratio = np.where(model.in_vocabulary_, model.feature_log_prob_ - np.log(others), -np.inf)
    top = np.argsort(-ratio, axis=1)[:, :n_words]
    return {c: words[top[j]].tolist() for j, c in enumerate(model.classes_)}


def confusion_matrix(labels, predicted, n_classes):
    """``C[i, j]`` = number of documents of class ``i`` predicted as class ``j``.

    ``labels`` and ``predicted`` are class numbers ``0 .. n_classes - 1``; any other
    value raises ValueError (it would be counted in a wrong cell otherwise).
    Used in: Chapter 5, section "How well does it work?".
    """
    n_classes = check_scalar(n_classes, "n_classes", kind="integer", low=1)
    labels = _class_numbers(labels, "labels", n_classes)
    predicted = _class_numbers(predicted, "predicted", n_classes)
    if labels.shape != predicted.shape:
        raise ValueError(f"labels and predicted must have the same length, got {labels.size} "
                         f"labels and {predicted.size} predictions")
    return np.bincount(labels * n_classes + predicted, minlength=n_classes**2).reshape(n_classes, n_classes)


def _class_numbers(values, name, n_classes):
    values = check_array(values, name, ndim=1, dtype=None, min_samples=0)
    if values.size and not np.all(values == np.round(values)):
        raise ValueError(f"{name} must hold class numbers (integers), got {values[values != np.round(values)][0]:g}")
    bad = (values < 0) | (values >= n_classes)
    if bad.any():
        raise ValueError(f"{name} must hold class numbers in 0..{n_classes - 1}, got "
                         f"{values[bad][0]:g} (at position {int(np.flatnonzero(bad)[0])})")
    return values.astype(np.int64)


def learning_curve(counts, labels, train_rows, test_rows, sizes, rng, repeats=3, event_model="multinomial"):
    """Test accuracy of naive Bayes trained on random subsets of ``train_rows``.

    For each size in ``sizes`` (number of training documents), ``repeats`` random
    subsets of ``train_rows`` are drawn with ``rng``; each fitted model is scored on
    ``test_rows``. The vocabulary of each model is the words of its own subset.
    Returns an array of accuracies, shape ``(len(sizes), repeats)``.
    Used in: Chapter 5, section "The learning curve".
    """
    X = _count_csr(counts, "counts")
    labels = check_labels(labels, "labels", n_samples=X.shape[0])
    train_rows, test_rows = np.asarray(train_rows), np.asarray(test_rows)
    rng = check_rng(rng)
    repeats = check_scalar(repeats, "repeats", kind="integer", low=1)
    sizes = [check_scalar(size, "sizes[i]", kind="integer", low=1, high=len(train_rows))
             for size in sizes]
    X_test, y_test = X[test_rows], labels[test_rows]
    accuracy = np.empty((len(sizes), repeats))
    for i, size in enumerate(sizes):
        for r in range(repeats):
            rows = rng.choice(train_rows, size=size, replace=False)
            model = NaiveBayesText(event_model).fit_counts(X[rows], labels[rows])
            accuracy[i, r] = model.score(X_test, y_test)
    return accuracy
