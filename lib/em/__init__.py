"""Expectation maximization (EM), Chapter 7 ("Expectation maximization").

* :mod:`lib.em.known_variance`: EM for k means with a known variance, and the lower
  bound EM climbs (sections "EM for k means", "The general EM algorithm and why it works");
* :mod:`lib.em.mixture`: :class:`GaussianMixture` (sections "Mixtures of Gaussians",
  "When EM goes wrong", "Try it yourself");
* :mod:`lib.em.candy`: :class:`MixtureOfNaiveBayes`, the candy bags (section "A mixture
  of candy bags");
* :mod:`lib.em.loop`: :func:`run_em`, the one EM loop (E step, M step, one stopping
  rule, one recorded history) of every model fitted by EM in the course, including
  Baum-Welch (:meth:`lib.hmm.HMM.fit`) and EM for networks (:func:`lib.bn.fit_em`);
* :mod:`lib.em.variational`: :func:`mean_field_gaussian`, :func:`gaussian_kl` (section
  "When the E step is intractable: variational inference").

EM for a Bayesian network with missing values (section "Bayesian networks with missing
values") is :func:`lib.bn.fit_em` (``net.fit_em(data)``), the one EM for networks,
shared with Chapter 6. The figures are in :mod:`lib.plots.em`.
"""
from .candy import MixtureOfNaiveBayes, candy_counts, candy_parameters, candy_theta
from .known_variance import EMTrace, em_known_variance, lower_bound_curves, one_mean_em_path
from .loop import EMResult, run_em
from .mixture import GaussianMixture, em_history, gaussian_log_densities, mixture_log_likelihood, sample_mixture
from .variational import FactorialTrace, MeanFieldTrace, factorial_em, gaussian_kl, mean_field_gaussian

__all__ = [
    "EMResult", "run_em", "EMTrace", "em_known_variance", "lower_bound_curves", "one_mean_em_path",
    "GaussianMixture", "gaussian_log_densities", "mixture_log_likelihood", "sample_mixture",
    "em_history", "MixtureOfNaiveBayes", "candy_counts", "candy_parameters", "candy_theta",
    "MeanFieldTrace", "mean_field_gaussian", "gaussian_kl", "FactorialTrace", "factorial_em",
]
