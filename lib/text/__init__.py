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

Layout: :mod:`lib.text.bag_of_words` (documents and naive Bayes) and
:mod:`lib.text.ngram` (language models); both are imported here.

Every probability is handled in log space, so documents of 10^5 tokens give finite
scores.
"""
from lib.text.bag_of_words import (
                                   TOKEN,
                                   NaiveBayesText,
                                   classify_naive_bayes_text,
                                   confusion_matrix,
                                   count_matrix,
                                   learn_naive_bayes_text,
                                   learning_curve,
                                   most_indicative_words,
                                   tokenize,
                                   word_contributions,
)
from lib.text.ngram import LM_TOKEN, NGramModel, post_body, sentences

__all__ = [
    "TOKEN", "LM_TOKEN", "tokenize", "count_matrix", "NaiveBayesText", "learn_naive_bayes_text",
    "classify_naive_bayes_text", "word_contributions", "most_indicative_words",
    "confusion_matrix", "learning_curve", "post_body", "sentences", "NGramModel",
]
