"""Bayesian networks over discrete variables (Chapter 6; Chapter 7 uses the EM).

The package separates, as pgmpy does (models / inference / estimators), the
representation from the algorithms, one module per part of Chapter 6:

* :mod:`lib.bn.network`: :class:`BayesNet` (variables, states, CPTs, validation, data
  encoding, the joint probability);
* :mod:`lib.bn.inference`: enumeration, variable elimination, the full joint;
* :mod:`lib.bn.sampling`: prior, rejection and Gibbs sampling, likelihood weighting;
* :mod:`lib.bn.learning`: ML/MAP counting, expected counts, EM, gradient ascent;
* :mod:`lib.bn.structure`: scores (log likelihood, BIC/MDL, AIC, BDeu) and hill climbing;
* :mod:`lib.bn.structure_mcmc`: Bayesian averaging over structures (order MCMC, exact
  enumeration of DAGs);
* :mod:`lib.bn.independence`: d-separation, Markov blankets, v-structures, CPDAGs;
* :mod:`lib.bn.constraint`: conditional independence tests and the PC algorithm;
* :mod:`lib.bn.continuous`: linear-Gaussian CPDs and discretisation (numeric variables);
* :mod:`lib.bn.structural_em`: structure learning with missing values or a hidden variable (Chapter 7);
* :mod:`lib.bn.bif`: reading BIF files.

Its drawings are :mod:`lib.plots.bn` (``from lib.plots.bn import plot_network``): the
algorithms load without a plotting library.

The algorithms are functions taking the network first (``query(net, "B", ev)``);
:class:`BayesNet` gets a method for each (``net.query("B", ev)``), generated below from
the function (its signature and docstring), so the two cannot drift apart.
"""
import functools

from .bif import read_bif
from .constraint import ci_test, pc
from .independence import (
    active_trails,
    cpdag,
    d_separated,
    dsep_check,
    markov_blanket,
    markov_equivalent,
    reachable,
    v_structures,
)
from .inference import eliminate, elimination_plan, log_evidence, query
from .learning import expected_counts, fit, fit_em, fit_gradient_ascent, log_likelihood, node_log_likelihood
from .network import BayesNet, ImpossibleEvidenceError, NetworkArrays
from .sampling import SamplingResult, forward_sample, gibbs_sampling, likelihood_weighting, rejection_sampling, sample
from .structure import family_score, hill_climb, score

__all__ = [
    "BayesNet", "NetworkArrays", "ImpossibleEvidenceError", "SamplingResult", "read_bif",
    "query", "log_evidence", "eliminate", "elimination_plan", "forward_sample", "sample", "rejection_sampling",
    "likelihood_weighting", "gibbs_sampling", "expected_counts", "fit_em",
    "fit_gradient_ascent", "score", "family_score", "hill_climb", "d_separated", "reachable",
    "active_trails", "dsep_check", "markov_blanket", "v_structures", "cpdag", "markov_equivalent",
    "ci_test", "pc",
]

#: The functions that are also methods of :class:`BayesNet` (``net.f(...)`` is ``f(net, ...)``).
METHODS = (query, log_evidence, elimination_plan, sample, rejection_sampling,
           likelihood_weighting, gibbs_sampling, fit, log_likelihood, node_log_likelihood,
           expected_counts, fit_em, fit_gradient_ascent, score)


def _as_method(func):
    @functools.wraps(func)
    def method(self, *args, **kwargs):
        return func(self, *args, **kwargs)
    return method


for _func in METHODS:
    setattr(BayesNet, _func.__name__, _as_method(_func))
BayesNet.hill_climb = staticmethod(hill_climb)     # ``BayesNet.hill_climb(data, ...)``
del _func
