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
* With a roster: :mod:`lib.grading.roster` (the class, the LMS download layouts),
  :mod:`lib.grading.lms` (Canvas, Moodle and plain CSV files), :mod:`lib.grading.deadlines`,
  :mod:`lib.grading.feedback_html` (pages and bulk-upload zips), :mod:`lib.grading.report`
  (the class report); :mod:`lib.grading.notes` words a broken notebook's note, and
  :mod:`lib.grading.student` is ``check.all()`` and ``check.export()``.

Command line (``python -m lib.grading --help``)::

    python -m lib.grading release exercises/ --out DIR [--instructor]
    python -m lib.grading grade --source exercises/01_bayesian_learning \\
        --submissions DIR --out DIR [--workers N] [--only ID] [--unsafe-no-sandbox]
        [--roster roster.csv] [--layout canvas|moodle|gradescope|plain]
        [--canvas-assignment 'NAME (ID)'] [--deadline ISO --late-penalty PCT --late-cap PCT
        --extensions CSV]
    python -m lib.grading report DIR
    python -m lib.grading autograder exercises/01_bayesian_learning --out autograder.zip

Used in: the exercise pages of the book ("Exercises" part) and ``instructors.md``.
"""
from .checks import Checker, approx, same

__all__ = ["Checker", "approx", "same"]
