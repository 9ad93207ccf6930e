"""Graded exercises: authoring format, release, self-check and a sandboxed grader.

* :mod:`lib.grading.source` reads exercise sources (otter-style markers, documented in
  ``exercises/README.md``) and releases student notebooks (``release``).
* :mod:`lib.grading.checks` holds the tests' semantics (one comparison, :func:`same`,
  for ``check`` and the grader) and ``check("q1")`` (:class:`Checker`), which released
  notebooks create in their first cell.
* :mod:`lib.grading.grade` grades a folder of submissions (:mod:`lib.grading.intake`
  reads it safely, :mod:`lib.grading.gradebook` writes grades.csv and summary.csv);
  each submission runs :mod:`lib.grading.sandbox` inside the bubblewrap sandbox of
  :mod:`lib.grading.isolation` (an allow-listed view of the files, no network, a uid
  and process limit of its own).
* :mod:`lib.grading.autograder` writes and runs a Gradescope autograder package.

Command line (``python -m lib.grading --help``)::

    python -m lib.grading release exercises/ --out DIR [--instructor]
    python -m lib.grading grade --source exercises/01_bayesian_learning \\
        --submissions DIR --out DIR [--workers N] [--only ID] [--unsafe-no-sandbox]
    python -m lib.grading autograder exercises/01_bayesian_learning --out autograder.zip

Used in: the exercise pages of the book ("Exercises" part) and ``instructors.md``.
"""
from .checks import Checker, approx, same

__all__ = ["Checker", "approx", "same"]
