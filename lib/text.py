"""Learning to classify text: naive Bayes for documents and n-gram language models.

Chapter 5, "Learning to classify text", uses everything in this module:

* :func:`tokenize` and :func:`count_matrix` turn documents into a sparse matrix of
  word counts (the bag of words);
* :func:`learn_naive_bayes_text` and :func:`classify_naive_bayes_text` follow the
  LEARN_NAIVE_BAYES_TEXT / CLASSIFY_NAIVE_BAYES_TEXT pseudo-code of Mitchell (1997),
  :class:`NaiveBayesText` is the same learner as an estimator (``fit`` / ``predict``),
  with a Bernoulli (word presence) variant;
* :class:`NGramModel` is a unigram, bigram, trigram, ... language model with
  maximum-likelihood or add-k estimates, sentence log probabilities, perplexity and
  sampling;
* the chapter's figures are drawn in :mod:`lib.plots.text`.

Every probability is handled in log space, so documents of 10^5 tokens give finite
scores.
"""
import re
from itertools import chain, repeat

import numpy as np
import scipy.sparse as sp
from scipy.special import logsumexp

# A token is a run of two or more letters or digits (the default of scikit-learn's
# CountVectorizer, so that the two can be compared on the same vocabulary).
TOKEN = re.compile(r"(?u)\b\w\w+\b")
# For language models single letters ("I", "a") and contractions ("don't") count too.
LM_TOKEN = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n\s*\n")
_QUOTE = re.compile(r"^\s*[>|:]|(writes|wrote|says):\s*$")


def tokenize(text):
    """Lower-case ``text`` and split it into tokens of at least two letters or digits.

    Used in: Chapter 5, section "Documents as bags of words".

    >>> tokenize("Great skater, and a HARD shot!")
    ['great', 'skater', 'and', 'hard', 'shot']
    """
    if not isinstance(text, str):
        raise TypeError(f"a document must be a str, got {type(text).__name__}")
    return TOKEN.findall(text.lower())


def _check_documents(docs, what="corpus"):
    if isinstance(docs, str):
        raise TypeError(f"the {what} must be a list of documents, not a single str")
    docs = list(docs)
    if not docs:
        raise ValueError(f"empty {what}: at least one document is needed")
    return docs


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
    docs = _check_documents(docs)
    tokens = [tokenize(doc) for doc in docs]
    lengths = np.array([len(t) for t in tokens])
    if vocabulary is None:
        words = sorted(dict.fromkeys(chain.from_iterable(tokens)))
        vocabulary = {word: k for k, word in enumerate(words)}
    get = vocabulary.get
    columns = np.fromiter((get(t, -1) for t in chain.from_iterable(tokens)), dtype=np.int64, count=lengths.sum())
    rows = np.repeat(np.arange(len(docs)), lengths)
    known = columns >= 0
    X = sp.coo_matrix((np.ones(known.sum(), dtype=np.int64), (rows[known], columns[known])),
                      shape=(len(docs), len(vocabulary))).tocsr()
    return X, vocabulary


class NaiveBayesText:
    """Naive Bayes for documents: multinomial (bag of words) or Bernoulli (word presence).

    ``event_model="multinomial"`` is the learner of LEARN_NAIVE_BAYES_TEXT: every word
    position of a document is a roll of one |Vocabulary|-sided die per class, and

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
        if event_model not in ("multinomial", "bernoulli"):
            raise ValueError(f"event_model must be 'multinomial' or 'bernoulli', got {event_model!r}")
        if not np.isscalar(alpha) or not alpha > 0:
            raise ValueError(f"alpha must be a positive number, got {alpha!r}")
        self.event_model = event_model
        self.alpha = float(alpha)

    def fit(self, docs, labels):
        """Learn from raw documents: the vocabulary is every token of ``docs``."""
        docs = _check_documents(docs)
        _check_labels(docs, labels)
        counts, vocabulary = count_matrix(docs)
        return self.fit_counts(counts, labels, vocabulary)

    def fit_counts(self, counts, labels, vocabulary=None):
        """Learn from a document-by-word count matrix (rows = documents).

        Columns that are zero in every training document are left out of the
        vocabulary: their log probabilities are set to 0, so the words they stand for
        are skipped when a document is classified, exactly as if they had never been
        columns.
        """
        X = sp.csr_matrix(counts)
        labels = _check_labels(range(X.shape[0]), labels)
        if X.shape[0] == 0:
            raise ValueError("empty corpus: at least one document is needed")
        if vocabulary is not None and len(vocabulary) != X.shape[1]:
            raise ValueError(f"the vocabulary has {len(vocabulary)} words but the counts have {X.shape[1]} columns")
        if X.nnz and X.data.min() < 0:
            raise ValueError("word counts must not be negative")
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
            n_k = np.asarray((docs_j @ (X > 0).astype(float)).todense())
            p = (n_k + self.alpha) / (self.class_count_[:, None] + 2 * self.alpha)
            log_prob = np.log(p)
            self.feature_log_absent_ = np.where(self.in_vocabulary_, np.log1p(-p), 0.0)
        self.feature_count_ = n_k
        self.feature_log_prob_ = np.where(self.in_vocabulary_, log_prob, 0.0)
        return self

    def _counts(self, docs):
        if not hasattr(self, "feature_log_prob_"):
            raise ValueError("this NaiveBayesText is not fitted yet: call fit first")
        if sp.issparse(docs) or isinstance(docs, np.ndarray):
            X = sp.csr_matrix(docs)
            if X.shape[1] != self.feature_log_prob_.shape[1]:
                raise ValueError(f"the counts have {X.shape[1]} columns, the model {self.feature_log_prob_.shape[1]} words")
            return X
        return count_matrix(_check_documents(docs, "list of documents"), self.vocabulary_)[0]

    def joint_log_likelihood(self, docs):
        """``log P(v_j) + log P(doc | v_j)`` for every document (rows) and class (columns).

        ``docs`` is a list of str or a count matrix with the model's columns.
        """
        X = self._counts(docs)
        if self.event_model == "multinomial":
            return np.asarray(X @ self.feature_log_prob_.T) + self.class_log_prior_
        present = (X > 0).astype(float)
        log_odds = self.feature_log_prob_ - self.feature_log_absent_
        return (np.asarray(present @ log_odds.T) + self.feature_log_absent_.sum(axis=1)
                + self.class_log_prior_)

    def predict_log_proba(self, docs):
        """Log posterior ``log P(v_j | doc)`` (rows = documents)."""
        joint = self.joint_log_likelihood(docs)
        return joint - logsumexp(joint, axis=1, keepdims=True)

    def predict_proba(self, docs):
        """Posterior ``P(v_j | doc)`` (rows = documents, each summing to one)."""
        return np.exp(self.predict_log_proba(docs))

    def predict(self, docs):
        """The most probable class of each document, ``v_NB``."""
        joint = self.joint_log_likelihood(docs)
        return self.classes_[np.argmax(joint, axis=1)]

    def score(self, docs, labels):
        """Fraction of documents whose predicted class equals their label."""
        return float(np.mean(self.predict(docs) == np.asarray(labels)))


def _check_labels(docs, labels):
    if isinstance(labels, str):
        raise TypeError("labels must be a sequence of class labels, not a single str")
    labels = np.asarray(list(labels))
    if labels.ndim != 1 or len(labels) != len(docs):
        raise ValueError(f"mismatched lengths: {len(docs)} documents but {labels.size} labels")
    return labels


def learn_naive_bayes_text(examples, labels, alpha=1.0):
    """LEARN_NAIVE_BAYES_TEXT: estimate ``P(v_j)`` and ``P(w_k | v_j)`` from documents.

    Returns a fitted multinomial :class:`NaiveBayesText` (the pseudo-code's probability
    terms are its ``class_log_prior_`` and ``feature_log_prob_``, in log space).
    Used in: Chapter 5, section "Learning and classifying".

    >>> model = learn_naive_bayes_text(["a goal a save", "a launch"], ["hockey", "space"])
    >>> sorted(model.vocabulary_)
    ['goal', 'launch', 'save']
    """
    examples = _check_documents(examples)
    labels = _check_labels(examples, labels)
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
    if model.event_model != "multinomial":
        raise ValueError("word_contributions needs a multinomial model")
    words, counts = np.unique([t for t in tokenize(doc) if t in model.vocabulary_], return_counts=True)
    columns = np.array([model.vocabulary_[w] for w in words], dtype=int)
    return words.tolist(), model.feature_log_prob_[:, columns] * counts


def most_indicative_words(model, n_words=8):
    """The ``n_words`` words of each class with the largest ``log P(w|v_j) - log P(w|others)``.

    ``P(w | others)`` is the mean of ``P(w | v_i)`` over the other classes. Returns a
    dict ``{class: [words]}``. Used in: Chapter 5, section "What the classifier learnt".
    """
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

    Used in: Chapter 5, section "How well does it work?".
    """
    labels, predicted = np.asarray(labels), np.asarray(predicted)
    if labels.shape != predicted.shape:
        raise ValueError(f"mismatched lengths: {labels.size} labels but {predicted.size} predictions")
    return np.bincount(labels * n_classes + predicted, minlength=n_classes**2).reshape(n_classes, n_classes)


def learning_curve(counts, labels, train_rows, test_rows, sizes, rng, repeats=3, event_model="multinomial"):
    """Test accuracy of naive Bayes trained on random subsets of ``train_rows``.

    For each size in ``sizes`` (number of training documents), ``repeats`` random
    subsets of ``train_rows`` are drawn with ``rng``; each fitted model is scored on
    ``test_rows``. The vocabulary of each model is the words of its own subset.
    Returns an array of accuracies, shape ``(len(sizes), repeats)``.
    Used in: Chapter 5, section "The learning curve".
    """
    X = sp.csr_matrix(counts)
    labels = np.asarray(labels)
    train_rows, test_rows = np.asarray(train_rows), np.asarray(test_rows)
    if max(sizes) > len(train_rows):
        raise ValueError(f"a training size of {max(sizes)} is more than the {len(train_rows)} training rows")
    X_test, y_test = X[test_rows], labels[test_rows]
    accuracy = np.empty((len(sizes), repeats))
    for i, size in enumerate(sizes):
        for r in range(repeats):
            rows = rng.choice(train_rows, size=size, replace=False)
            model = NaiveBayesText(event_model).fit_counts(X[rows], labels[rows])
            accuracy[i, r] = model.score(X_test, y_test)
    return accuracy


# --------------------------------------------------------------------------- n-grams

def post_body(post):
    """The text of a Usenet post without its header block and quoted lines.

    Drops everything up to the first empty line (the header), lines that quote an
    earlier post (starting with ``>``, ``|`` or ``:``) and "... writes:" lines.
    Used in: Chapter 5, section "Language models".
    """
    _, _, body = post.partition("\n\n")
    return "\n".join(line for line in body.splitlines() if not _QUOTE.search(line))


def sentences(text):
    """Split ``text`` into sentences, each a list of lower-case word tokens.

    A sentence ends at ``.``, ``!`` or ``?`` followed by white space, or at an empty
    line. Used in: Chapter 5, section "Language models".

    >>> sentences("I can only comment on the Kings. Great skater!")
    [['i', 'can', 'only', 'comment', 'on', 'the', 'kings'], ['great', 'skater']]
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    found = (LM_TOKEN.findall(part.lower()) for part in _SENTENCE_END.split(text))
    return [s for s in found if s]


class NGramModel:
    """An n-gram language model: ``P(w_l | w_{l-n+1}, ..., w_{l-1})``.

    ``n = 1`` is the unigram model, ``n = 2`` the bigram model of the source notes,
    ``n = 3`` the trigram model. Each sentence is padded with ``n - 1`` start symbols
    ``<s>`` and one end symbol ``</s>``, so that sentence lengths are modelled too and
    the probabilities of all sentences sum to one. With ``C_i`` the number of times the
    context ``i`` occurs and ``C_ij`` the number of times word ``j`` follows it,

    ``P(j | i) = (C_ij + k) / (C_i + k V)``

    where ``k = smoothing`` (0 gives the maximum-likelihood estimate ``C_ij / C_i``, 1
    add-one smoothing) and ``V`` is the number of possible next tokens: the training
    words, ``</s>`` and ``<unk>``, which stands for every word not seen in training.

    Counts are kept as sorted integer codes of the n-grams, so that fitting,
    scoring and sampling are vectorised.

    Used in: Chapter 5, section "Language models".

    >>> lm = NGramModel(2).fit([["the", "cat", "sat"], ["the", "dog", "sat"]])
    >>> lm.prob("cat", ["the"])
    0.5
    """

    START, END, UNKNOWN = "<s>", "</s>", "<unk>"

    def __init__(self, n=2, smoothing=0.0):
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
            raise ValueError(f"n must be a positive integer (1 = unigram, 2 = bigram, ...), got {n!r}")
        if not np.isscalar(smoothing) or not smoothing >= 0:
            raise ValueError(f"smoothing must be a number >= 0, got {smoothing!r}")
        self.n = int(n)
        self.smoothing = float(smoothing)

    def fit(self, corpus):
        """Count the n-grams of ``corpus``: a list of sentences, each a list of words
        (or a str, split with :func:`sentences`' tokenizer)."""
        corpus = [self._words(s) for s in _check_documents(corpus, "corpus of sentences")]
        seen = set().union(*map(set, corpus))
        if {self.START, self.END} & seen:
            raise ValueError(f"sentences must not contain the padding symbols {self.START} and {self.END}")
        words = sorted(seen - {self.UNKNOWN})
        self.words_ = words + [self.END, self.UNKNOWN, self.START]
        self.index_ = {w: i for i, w in enumerate(self.words_)}
        self.n_outcomes_ = len(words) + 2  # possible next tokens: words, </s>, <unk>
        self.base_ = len(self.words_)
        if self.base_ ** self.n >= 2**62:
            raise ValueError(f"n = {self.n} is too large for a vocabulary of {self.base_} words")
        keys = self._codes(corpus)
        self.ngram_codes_, self.ngram_counts_ = np.unique(keys, return_counts=True)
        self.context_codes_, self.context_counts_ = np.unique(keys // self.base_, return_counts=True)
        self.n_tokens_ = len(keys)
        return self

    def _words(self, sentence):
        if isinstance(sentence, str):
            return LM_TOKEN.findall(sentence.lower())
        return list(sentence)

    def _codes(self, corpus):
        """Integer codes of the n-grams of every padded sentence of ``corpus``.

        Each sentence (which must not contain ``<s>`` or ``</s>`` itself) becomes
        ``<s> ... <s> w_1 ... w_L </s>`` (``n - 1`` start
        symbols); one n-gram ends at every ``w_l`` and at ``</s>``. The code of an
        n-gram is its token numbers written as the digits of a base-``len(words_)``
        number, so that codes sort and compare like the n-grams themselves, and the
        code of an n-gram's context is ``code // len(words_)``.
        """
        start, end = self.index_[self.START], self.index_[self.END]
        get, unknown = self.index_.get, self.index_[self.UNKNOWN]
        ids = []
        for sentence in corpus:
            ids.extend([start] * (self.n - 1))
            ids.extend(map(get, sentence, repeat(unknown)))
            ids.append(end)
        ids = np.array(ids, dtype=np.int64)
        width = len(ids) - self.n + 1
        codes = np.zeros(width, dtype=np.int64)
        for m in range(self.n):
            codes = codes * self.base_ + ids[m:m + width]
        return codes[ids[self.n - 1:] != start]

    @staticmethod
    def _lookup(sorted_codes, counts, codes):
        at = np.minimum(np.searchsorted(sorted_codes, codes), len(sorted_codes) - 1)
        return np.where(sorted_codes[at] == codes, counts[at], 0)

    def _check_fitted(self):
        if not hasattr(self, "ngram_codes_"):
            raise ValueError("this NGramModel is not fitted yet: call fit first")

    def _log_probs(self, corpus):
        codes = self._codes([self._words(s) for s in corpus])
        c_ij = self._lookup(self.ngram_codes_, self.ngram_counts_, codes)
        c_i = self._lookup(self.context_codes_, self.context_counts_, codes // self.base_)
        k = self.smoothing
        with np.errstate(divide="ignore", invalid="ignore"):
            p = (c_ij + k) / (c_i + k * self.n_outcomes_)
            return np.log(np.nan_to_num(p, nan=0.0))

    def token_log_probs(self, sentence):
        """``log P`` of each token of ``sentence`` (and of the final ``</s>``) given its context.

        ``-inf`` marks a token that the model gives probability zero (an unseen n-gram
        under maximum likelihood).
        """
        self._check_fitted()
        return self._log_probs([sentence])

    def log_prob(self, sentence):
        """``log P(w_1, ..., w_L, </s>)``: natural log probability of a whole sentence."""
        return float(self.token_log_probs(sentence).sum())

    def sentence_log_probs(self, corpus):
        """:meth:`log_prob` of every sentence of ``corpus`` at once (an array)."""
        self._check_fitted()
        corpus = [self._words(s) for s in _check_documents(corpus, "corpus of sentences")]
        logs = self._log_probs(corpus)
        starts = np.cumsum([0] + [len(s) + 1 for s in corpus[:-1]])
        return np.add.reduceat(logs, starts)

    def prob(self, word, context=()):
        """``P(word | context)`` where ``context`` lists the previous words (the last
        ``n - 1`` are used; missing ones are ``<s>``)."""
        self._check_fitted()
        context = list(context)[-(self.n - 1):] if self.n > 1 else []
        ids = [self.index_[self.START]] * (self.n - 1 - len(context))
        ids += [self.index_.get(w, self.index_[self.UNKNOWN]) for w in context]
        ids.append(self.index_.get(word, self.index_[self.UNKNOWN]))
        code = np.int64(0)
        for i in ids:
            code = code * self.base_ + i
        c_ij = self._lookup(self.ngram_codes_, self.ngram_counts_, np.array([code]))[0]
        c_i = self._lookup(self.context_codes_, self.context_counts_, np.array([code // self.base_]))[0]
        denominator = c_i + self.smoothing * self.n_outcomes_
        return float((c_ij + self.smoothing) / denominator) if denominator > 0 else 0.0

    def perplexity(self, corpus):
        """``exp(-(sum of log P) / N)`` over the sentences of ``corpus``, where ``N``
        counts every predicted token including each ``</s>``. ``inf`` when some
        token has probability zero."""
        self._check_fitted()
        logs = self._log_probs(_check_documents(corpus, "corpus of sentences"))
        return float(np.exp(-logs.mean()))

    def sample(self, rng, max_words=30):
        """Draw one sentence (a list of words) word by word from the model."""
        self._check_fitted()
        ids = [self.index_[self.START]] * (self.n - 1)
        out = []
        for _ in range(max_words + 1):
            context = 0
            for i in ids[len(ids) - (self.n - 1):] if self.n > 1 else []:
                context = context * self.base_ + i
            lo, hi = np.searchsorted(self.ngram_codes_, [context * self.base_, (context + 1) * self.base_])
            weights = np.full(self.n_outcomes_, self.smoothing)
            np.add.at(weights, self.ngram_codes_[lo:hi] % self.base_, self.ngram_counts_[lo:hi])
            if weights.sum() == 0:
                break
            nxt = rng.choice(self.n_outcomes_, p=weights / weights.sum())
            if self.words_[nxt] == self.END:
                break
            out.append(self.words_[nxt])
            ids.append(nxt)
        return out
