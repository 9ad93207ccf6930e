"""Grades into an LMS: the roster's rows, and the import files of Canvas and Moodle.

With a roster (:mod:`lib.grading.roster`) a grade run writes, beside ``grades.csv``:

* ``canvas_grades.csv``: Canvas's gradebook import layout. Header
  ``Student,ID,SIS User ID,SIS Login ID,Section,<assignment>``, then a
  ``Points Possible`` row, then one row per student (``ID`` is the Canvas user id, the
  roster's ``canvas_id``). ``<assignment>`` is ``Name (assignment id)`` to update an
  existing Canvas assignment (``--canvas-assignment``), else the exercise's name (Canvas
  then creates an assignment of that name). A blank grade is an empty cell, never a 0.
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

The LMSs' documented layouts, checked by :func:`check_canvas_import`,
:func:`check_moodle_import` and :func:`check_moodle_feedback_zip` (the tests read every
file written back through them; ``benchmarks/bench_grading.py --class`` too):

* Canvas, Grades > Import (:data:`CANVAS_GUIDE`; the rules as a Canvas university's guide
  spells them out, :data:`CANVAS_RULES`): the columns ``Student`` (name), ``ID``, ``SIS
  User ID`` (one of these three identifies the student), ``SIS Login ID``, ``Section``,
  then one column per assignment; a new assignment column creates the assignment, a
  grade in the file overwrites the one in Canvas. The ``Points Possible`` row is the
  second row of Canvas's own gradebook export, the template those guides start from
  (no stored page states the importer's rule for it). Checked: that header, that row
  (blank identity cells, the points), a Canvas user id or SIS User ID in every student
  row (so no student is matched by name alone), each id once, grades blank or numbers
  from 0 to the points.
* Moodle, Grades > Import > CSV file (:data:`MOODLE_IMPORT`): the first row names the
  columns, which are mapped at import; the user is identified by mapping ``Email address``
  to the user's email (case-sensitive: written as the roster has it) or ``ID number`` to
  the user's ID number; "please include both feedback and grades for the activity": a
  feedback column is only imported with its grade column. Checked: the header holds
  ``Email address``, ``ID number``, one grade column and ``Feedback``, every row a
  non-empty email address (each once), grades blank or numbers >= 0.
* Moodle, assignment > "Upload multiple feedback files in a zip": the importer
  (:data:`MOODLE_ZIP_IMPORTER`) splits each path part at ``_`` into at most five pieces,
  ``full name``, ``participant id`` (a number, a participant of the assignment),
  ``plugin type``, ``plugin name`` and the rest; the first part that parses so names the
  student, and files whose names start with ``.`` or ``~`` are skipped. Checked: every
  file's folder parses to a roster student's ``moodle_id`` and ``assignsubmission_file``.

Moodle's offline grading worksheet is not written (no documentation of its columns was
found to check it against); its grade import above covers the same need.
"""
import csv
import io
import json
from pathlib import Path

from . import gradebook

CANVAS_HEADER = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
MOODLE_HEADER = ["Email address", "ID number", "Full name"]
#: Canvas's own guide to importing grades (cited, not read: no stored copy).
CANVAS_GUIDE = "https://community.canvaslms.com/t5/Instructor-Guide/How-do-I-import-grades-in-the-Gradebook/ta-p/807"
#: The page whose Canvas import rules the checks follow.
CANVAS_RULES = ("https://teaching.resources.osu.edu/toolsets/carmencanvas/guides/calculating-final-grades/"
                "import-csv-file-carmen-grades")
#: Moodle's documentation of grade import from CSV.
MOODLE_IMPORT = "https://docs.moodle.org/311/en/Grade_import"
#: Moodle's importer of bulk feedback zips, whose folder naming the zip follows.
MOODLE_ZIP_IMPORTER = "https://github.com/moodle/moodle/blob/main/mod/assign/feedback/file/importziplib.php"


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


def _read_csv(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.reader(f))


def _grade(value, where, most=None):
    """A grade cell: blank, or a number from 0 to ``most``; ValueError naming ``where``."""
    if value == "":
        return None
    try:
        number = float(value)
    except ValueError:
        raise ValueError(f"{where}: grade {value!r} is not a number") from None
    if not 0 <= number <= (most if most is not None else float("inf")):
        raise ValueError(f"{where}: grade {value} is outside 0..{most}")
    return number


def check_canvas_import(path):
    """The student rows of a Canvas gradebook import file, after checking it against
    Canvas's documented layout (module docstring); ``ValueError`` naming the first broken rule."""
    rows = _read_csv(path)
    if not rows or rows[0][:5] != CANVAS_HEADER or len(rows[0]) < 6:
        raise ValueError(f"{path}: the header must be {', '.join(CANVAS_HEADER)} and an assignment column "
                         f"({CANVAS_GUIDE}), not {rows[0] if rows else 'empty'}")
    if len(rows) < 2 or rows[1][0] != "Points Possible" or any(rows[1][1:5]):
        raise ValueError(f"{path}: row 2 must be the Points Possible row with blank identity cells")
    points = [_grade(v, f"{path}, Points Possible") for v in rows[1][5:]]
    seen = {}
    for n, row in enumerate(rows[2:], 3):
        if len(row) != len(rows[0]):
            raise ValueError(f"{path}, row {n}: {len(row)} cells, the header has {len(rows[0])}")
        key = row[1] or row[2]
        if not key:
            raise ValueError(f"{path}, row {n}: neither ID nor SIS User ID, so Canvas could match "
                             f"{row[0]!r} by name only")
        if key in seen:
            raise ValueError(f"{path}, rows {seen[key]} and {n}: the same student {key}")
        seen[key] = n
        for value, most in zip(row[5:], points):
            _grade(value, f"{path}, row {n}", most)
    return rows[2:]


def check_moodle_import(path):
    """The rows of a Moodle CSV grade import file, after checking it against Moodle's
    documented import (module docstring); ``ValueError`` naming the first broken rule."""
    rows = _read_csv(path)
    header = rows[0] if rows else []
    if header[:2] != MOODLE_HEADER[:2] or len(header) != 5 or header[-1] != "Feedback":
        raise ValueError(f"{path}: the header must be Email address, ID number, Full name, the grade "
                         f"column and Feedback ({MOODLE_IMPORT}), not {header}")
    seen = {}
    for n, row in enumerate(rows[1:], 2):
        if len(row) != len(header) or not row[0]:
            raise ValueError(f"{path}, row {n}: no email address to identify the user, or not "
                             f"{len(header)} cells: {row}")
        if row[0] in seen:
            raise ValueError(f"{path}, rows {seen[row[0]]} and {n}: the same email address {row[0]}")
        seen[row[0]] = n
        _grade(row[3], f"{path}, row {n}")
    return rows[1:]


def check_moodle_feedback_zip(path, participants):
    """``{participant id: [file names]}`` of a zip for Moodle's "Upload multiple feedback
    files in a zip", after checking that every file's path names one of ``participants``
    (the roster's ``moodle_id`` values) the way Moodle's importer parses it (module
    docstring); ``ValueError`` naming the first file it would not import."""
    import zipfile

    found = {}
    with zipfile.ZipFile(path) as zf:
        for name in zf.namelist():
            if name.endswith("/"):
                continue
            parts = name.split("/")
            info = parts[0].split("_", 4)
            if len(parts) > 1 and parts[-1][:1] in (".", "~"):
                raise ValueError(f"{path}: {name}: Moodle skips files whose names start with . or ~")
            if len(info) < 4 or not info[1].isdigit() or info[1] not in participants \
                    or info[2:4] != ["assignsubmission", "file"]:
                raise ValueError(f"{path}: {name}: not <full name>_<participant id>_assignsubmission_file_ "
                                 f"with a participant of the roster ({MOODLE_ZIP_IMPORTER})")
            found.setdefault(info[1], []).append(name)
    return found
