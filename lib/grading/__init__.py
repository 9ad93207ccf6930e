"""Graded exercises: authoring format, release, self-check and a sandboxed grader.

* :mod:`lib.grading.source` reads exercise sources (otter-style markers, documented in
  ``exercises/README.md``) and releases student notebooks (``release``).
* :mod:`lib.grading.checks` holds the tests' semantics and ``check("q1")``
  (:class:`Checker`), which released notebooks create in their first cell.
* :mod:`lib.grading.grade` grades a folder of submissions; each one runs in
  :mod:`lib.grading.sandbox`, a subprocess without network or access to the sources.

Command line (``python -m lib.grading --help``)::

    python -m lib.grading release exercises/ --out DIR [--instructor]
    python -m lib.grading grade --source exercises/01_bayesian_learning \\
        --submissions DIR --out DIR [--workers N]

Used in: the exercise pages of the book ("Exercises" part) and ``instructors.md``.
"""
from .checks import Checker, approx

__all__ = ["Checker", "approx"]
