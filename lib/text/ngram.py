"""n-gram language models of sentences (Chapter 5, section "Language models"): post bodies
without headers and quotes, sentence splitting, and :class:`NGramModel`."""
import re
from itertools import repeat

import numpy as np

from lib._validation import check_is_fitted, check_items, check_rng, check_scalar

#: For language models single letters ("I", "a") and contractions ("don't") count too.
LM_TOKEN = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n\s*\n")
_QUOTE = re.compile(r"^\s*[>|:]|(writes|wrote|says):\s*$")


def post_body(post):
    """The text of a Usenet post without its header block and quoted lines.

    Drops everything up to the first empty line (the header), lines that quote an
    earlier post (starting with ``>``, ``|`` or ``:``) and "... writes:" lines.
    Used in: Chapter 5, section "Language models".
    """
    if not isinstance(post, str):
        raise TypeError(f"post must be a str, got {type(post).__name__}")
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


_SENTENCE_KINDS = (str, list, tuple)


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
        self.n = check_scalar(n, "n (1 = unigram, 2 = bigram, ...)", kind="integer", low=1)
        self.smoothing = check_scalar(smoothing, "smoothing", low=0, high=1e100)

    def fit(self, corpus):
        """Count the n-grams of ``corpus``: a list of sentences, each a list of words
        (or a str, split with :func:`sentences`' tokenizer)."""
        corpus = [self._words(s) for s in check_items(corpus, "corpus of sentences", kinds=_SENTENCE_KINDS)]
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
        if not isinstance(sentence, _SENTENCE_KINDS):
            raise TypeError(f"a sentence must be a str or a list of words, got {type(sentence).__name__}")
        words = list(sentence)
        for word in words:
            if not isinstance(word, str):
                raise TypeError(f"a sentence must hold words (str), got {word!r} in {words[:8]!r}")
        return words

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
        check_is_fitted(self, "ngram_codes_")
        return self._log_probs([sentence])

    def log_prob(self, sentence):
        """``log P(w_1, ..., w_L, </s>)``: natural log probability of a whole sentence."""
        return float(self.token_log_probs(sentence).sum())

    def sentence_log_probs(self, corpus):
        """:meth:`log_prob` of every sentence of ``corpus`` at once (an array)."""
        check_is_fitted(self, "ngram_codes_")
        corpus = [self._words(s) for s in check_items(corpus, "corpus of sentences", kinds=_SENTENCE_KINDS)]
        logs = self._log_probs(corpus)
        starts = np.cumsum([0] + [len(s) + 1 for s in corpus[:-1]])
        return np.add.reduceat(logs, starts)

    def prob(self, word, context=()):
        """``P(word | context)`` where ``context`` lists the previous words (the last
        ``n - 1`` are used; missing ones are ``<s>``)."""
        check_is_fitted(self, "ngram_codes_")
        if not isinstance(word, str):
            raise TypeError(f"word must be a str, got {word!r}")
        context = self._words(list(context) if isinstance(context, tuple) else context)
        context = context[-(self.n - 1):] if self.n > 1 else []
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
        check_is_fitted(self, "ngram_codes_")
        logs = self._log_probs(check_items(corpus, "corpus of sentences", kinds=_SENTENCE_KINDS))
        return float(np.exp(-logs.mean()))

    def sample(self, rng, max_words=30):
        """Draw one sentence (a list of words) word by word from the model."""
        check_is_fitted(self, "ngram_codes_")
        rng = check_rng(rng)
        max_words = check_scalar(max_words, "max_words", kind="integer", low=0)
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
