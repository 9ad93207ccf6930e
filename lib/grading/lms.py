"""Grades into an LMS: the roster's rows, and the import files of Canvas and Moodle.

With a roster (:mod:`lib.grading.roster`) a grade run writes, beside ``grades.csv``:

* ``canvas_grades.csv``: Canvas's gradebook import layout. Header
  ``Student,ID,SIS User ID,SIS Login ID,Section,<assignment>``, then a
  ``Points Possible`` row, then one row per student (``ID`` is the Canvas user id, the
  roster's ``canvas_id``). ``<assignment>`` is ``Name (assignment id)`` to update an
  existing Canvas assignment (``--canvas-assignment``), else the exercise's name (Canvas
  then creates an assignment of that name). A blank grade leaves Canvas's unchanged.
* ``moodle_grades.csv``: for Moodle's "Import > CSV file": ``Email address``,
  ``ID number`` (the roster's ``sis_id``), ``Full name``, the grade column (the
  exercise's name) and ``Feedback``; at import, map "Email address" (or "ID number") to
  the user and the grade column to the assignment's grade item.
* ``grades_plain.csv``: ``id,name,email,<questions>,total,note``.

All are written by the csv module, one header row (Canvas: plus its Points Possible row),
no comment lines; students without a graded submission have a blank grade, never 0.
"""
import csv
import io
from pathlib import Path

from . import gradebook

CANVAS_HEADER = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
MOODLE_HEADER = ["Email address", "ID number", "Full name"]


def with_roster(results, collected, exercise, only=None):
    """``results`` with a row per roster student who has none ("no submission", blank
    scores; not when regrading ``only`` one), and unmatched entries named in their note."""
    unmatched = {s.id for s in collected.submissions if s.entry in collected.unmatched}
    for r in results:
        if r["id"] in unmatched:
            r["output"] = f"not on the roster: {r['path']}" + (f"; {r['output']}" if r["output"] else "")
    if only is not None:
        return results
    have = {r["id"] for r in results}
    missing = [{"id": s.id, "path": "", "score": None, "output": "no submission", "graded": False,
                "missing": True, "tests": [{"name": q.name, "score": None, "max_score": q.points}
                                           for q in exercise.questions.values()]}
               for s in collected.students if s.id not in have]
    return sorted(results + missing, key=lambda r: r["id"])


def _write_csv(path, rows):
    table = io.StringIO()
    csv.writer(table).writerows([[gradebook.cell(v) for v in row] for row in rows])
    gradebook.atomic_write(path, table.getvalue())


def canvas_rows(students, totals, points, assignment):
    """Canvas's gradebook import rows: header, Points Possible, one row per student."""
    rows = [CANVAS_HEADER + [assignment], ["Points Possible", "", "", "", "", points]]
    rows += [[s.name, s.canvas_id, s.sis_id, s.sis_login_id, s.section, totals.get(s.id)]
             for s in students]
    return rows


def moodle_rows(students, totals, feedback, column):
    """Moodle's CSV grade import rows: identifiers, full name, grade, feedback."""
    return [MOODLE_HEADER + [column, "Feedback"]] + [
        [s.email, s.sis_id, s.name, totals.get(s.id), feedback.get(s.id, "")] for s in students]


def short_feedback(row, names):
    """One line for an LMS feedback column: each question's score and the row's note."""
    scores = ", ".join(f"{q} {'-' if v is None else v}" for q, v in zip(names, row[2:-2]))
    return f"{scores}; {row[-1]}" if row[-1] else scores


def write_all(out, exercise, rows, collected, roster=None, canvas_assignment=None):
    """Write the LMS files of ``rows`` (``grades.csv``'s, with roster ids) into ``out``;
    returns text for the run's summary (the unmatched entries, by name)."""
    out, names = Path(out), list(exercise.questions)
    total_points = sum(q.points for q in exercise.questions.values())
    students = collected.students
    by_id = {row[0]: row for row in rows}
    totals = {sid: row[-2] for sid, row in by_id.items()}
    feedback = {sid: short_feedback(row, names) for sid, row in by_id.items()}
    _write_csv(out / "canvas_grades.csv",
               canvas_rows(students, totals, total_points, canvas_assignment or exercise.name))
    _write_csv(out / "moodle_grades.csv", moodle_rows(students, totals, feedback, exercise.name))
    plain = [["id", "name", "email", *names, "total", "note"]]
    plain += [[s.id, s.name, s.email, *by_id[s.id][2:]] for s in students if s.id in by_id]
    _write_csv(out / "grades_plain.csv", plain)
    lines = [f"\nroster: {len(students)} students, layout {collected.layout}, "
             f"{sum(1 for s in students if totals.get(s.id) is None)} without a graded submission"]
    if collected.unmatched:
        lines.append("submissions matched to no student of the roster (graded under their own "
                     "names, not in the LMS files): " + ", ".join(collected.unmatched))
    lines.append(f"LMS files: {out / 'canvas_grades.csv'}, {out / 'moodle_grades.csv'}, "
                 f"{out / 'grades_plain.csv'}")
    return "\n".join(lines)
