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
* ``grades_plain.csv``: ``id,name,email,<questions>,total,late,late_days,penalty,final,note``
  (``late``: ``LMS: late`` when the LMS marked the submission late; ``late_days``,
  ``penalty`` (percent) and ``final`` from the late policy, :mod:`lib.grading.deadlines`).

The Canvas and Moodle files carry the ``final`` grade (the total after any late penalty).

All are written by the csv module, one header row (Canvas: plus its Points Possible row),
no comment lines; students without a graded submission have a blank grade, never 0.
"""
import csv
import io
import json
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


def class_data(exercise, rows, results, collected, old=None, late_days=None):
    """The data of the class report (``class.json``): the tests, and per student the
    scores and each test's outcome (``old``: an earlier class.json, updated)."""
    names = {s.id: s.name for s in collected.students}
    outcomes = {r["id"]: {t["name"]: t.get("outcomes") for t in r["tests"]} for r in results}
    if old:
        outcomes = {**{s["id"]: s.get("outcomes") for s in old["students"]}, **outcomes}
    return {"exercise": exercise.name, "questions": {q.name: {"points": q.points, "tests": [
        {"answer": t.answer, "hint": t.hint, "public": i < len(q.public)} for i, t in enumerate(q.tests)]}
        for q in exercise.questions.values()},
        "students": [{"id": row[0], "name": names.get(row[0], ""), "path": row[1],
                      "scores": dict(zip(exercise.questions, row[2:-2])), "total": row[-2],
                      "note": row[-1], "outcomes": outcomes.get(row[0]) or {},
                      "lms_late": row[0] in getattr(collected, "late", ()),
                      "late_days": (late_days or {}).get(row[0])} for row in rows]}


def write_all(out, exercise, rows, collected, results=(), canvas_assignment=None, policy=None):
    """Write the LMS files of ``rows`` (``grades.csv``'s, with roster ids) into ``out``,
    ``class.json``, the class report, the feedback pages and zip of ``results``; returns
    text for the run's summary (the unmatched entries, by name). ``policy``: a
    :class:`lib.grading.deadlines.Policy` (default: no deadline)."""
    from . import feedback_html, report
    from .deadlines import Policy

    policy = policy or Policy()

    out, names = Path(out), list(exercise.questions)
    total_points = sum(q.points for q in exercise.questions.values())
    students = collected.students
    by_id = {row[0]: row for row in rows}
    days = {sid: policy.days_late(sid, collected.submitted_at.get(sid))
            for sid, row in by_id.items() if row[-2] is not None}
    raw = {sid: row[-2] for sid, row in by_id.items()}
    totals = {sid: policy.final(total, days.get(sid)) for sid, total in raw.items()}
    feedback = {sid: short_feedback(row, names) for sid, row in by_id.items()}
    _write_csv(out / "canvas_grades.csv",
               canvas_rows(students, totals, total_points, canvas_assignment or exercise.name))
    _write_csv(out / "moodle_grades.csv", moodle_rows(students, totals, feedback, exercise.name))
    plain = [["id", "name", "email", *names, "total", "late", "late_days", "penalty", "final", "note"]]
    plain += [[s.id, s.name, s.email, *by_id[s.id][2:-1], "LMS: late" if s.id in collected.late else "",
               days.get(s.id), policy.penalty(days.get(s.id)) if days.get(s.id) is not None else None,
               totals[s.id], by_id[s.id][-1]] for s in students if s.id in by_id]
    _write_csv(out / "grades_plain.csv", plain)
    old = out / "class.json"
    data = class_data(exercise, rows, results, collected,
                      json.loads(old.read_text(encoding="utf-8")) if old.exists() else None, days)
    gradebook.atomic_write(old, json.dumps(data, indent=1) + "\n")
    page = report.write_report(out)
    bundle = feedback_html.write_all(out, exercise, results, collected)
    lines = [f"\nroster: {len(students)} students, layout {collected.layout}, "
             f"{sum(1 for s in students if totals.get(s.id) is None)} without a graded submission"]
    if collected.unmatched:
        lines.append("submissions matched to no student of the roster (graded under their own "
                     "names, not in the LMS files): " + ", ".join(collected.unmatched))
    lines.append(f"LMS files: {out / 'canvas_grades.csv'}, {out / 'moodle_grades.csv'}, "
                 f"{out / 'grades_plain.csv'}")
    lines.append(f"class report: {page}; feedback pages: {out / 'submissions'}/ID/feedback.html, "
                 f"to upload: {bundle}")
    return "\n".join(lines)
