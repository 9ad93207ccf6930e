"""The class roster and the bulk-download layouts of Canvas, Moodle and Gradescope.

A roster is a CSV file with one row per student: the columns ``id`` and ``name`` are
required; ``email``, ``canvas_id``, ``moodle_id``, ``sis_id``, ``sis_login_id`` and
``section`` are optional (any other column is kept and ignored). Every grade run with a
roster has one gradebook row per student, also for those who handed in nothing.

:func:`collect` matches the entries of a submissions folder to the roster, by the layout
the entries come in (documented in ``instructors.md``, "Collecting submissions"):

* **Canvas** ("Download Submissions"): flat files
  ``<lastfirst>[_late]_<canvas user id>_<attachment id>_<original file name>``; the user
  id is the roster's ``canvas_id``, ``late`` marks a submission after the due date.
* **Moodle** ("Download all submissions"): one folder per participant,
  ``<Full Name>_<participant id>_assignsubmission_file_/`` holding the uploaded files, or
  flat files ``<Full Name>_<participant id>_assignsubmission_file_<file name>``; the
  participant id is the roster's ``moodle_id``.
* **Gradescope** ("Export Submissions"): folders ``submission_<n>/`` and a
  ``submission_metadata.yml`` mapping each folder to ``:submitters:`` (``:name:``,
  ``:sid:``, ``:email:``) and ``:created_at:``; matched by ``sid`` (the roster's
  ``sis_id``, else its ``id``), then by ``email``.
* **plain**: an entry named by the roster's ``id`` (``<id>.ipynb`` or a folder ``<id>/``).

An entry that matches no student is never given a made-up id silently: it keeps the
intake's id and is listed by name in ``Collected.unmatched``.
"""
import csv
import os
import re
from collections import defaultdict
from dataclasses import dataclass, field, fields
from datetime import datetime
from pathlib import Path

from .intake import Submission, find_submissions

OPTIONAL = ("email", "canvas_id", "moodle_id", "sis_id", "sis_login_id", "section")
CANVAS = re.compile(r"(?P<name>[a-z0-9-]*?)(?P<late>_late)?_(?P<user>\d+)_(?P<attachment>\d+)_(?P<file>.+)",
                    re.IGNORECASE)
MOODLE = re.compile(r"(?P<name>.+?)_(?P<participant>\d+)_assignsubmission_(?P<plugin>[a-z]+)_(?P<file>.*)")
GRADESCOPE_METADATA = "submission_metadata.yml"


@dataclass
class Student:
    """One row of the roster."""

    id: str
    name: str
    email: str = ""
    canvas_id: str = ""
    moodle_id: str = ""
    sis_id: str = ""
    sis_login_id: str = ""
    section: str = ""


def read_roster(path):
    """The students of the roster CSV ``path``, in its order; ``ValueError`` naming the
    problem (a missing column, an empty or repeated id, an LMS id given to two students)."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"roster {path}: no such file")
    with open(path, encoding="utf-8-sig", newline="") as f:
        reader = csv.DictReader(f)
        header = [h.strip() for h in reader.fieldnames or []]
        missing = [c for c in ("id", "name") if c not in header]
        if missing:
            raise ValueError(f"roster {path}: no column {', '.join(missing)} (its columns: {header}); "
                             "a roster needs id and name, optionally " + ", ".join(OPTIONAL))
        reader.fieldnames = header
        rows = list(reader)
    names = [f.name for f in fields(Student)]
    students = [Student(**{k: (row.get(k) or "").strip() for k in names}) for row in rows]
    for column in ("id", "canvas_id", "moodle_id", "sis_id", "email"):
        seen = {}
        for line, s in enumerate(students, start=2):
            value = getattr(s, column)
            if column == "id" and not value:
                raise ValueError(f"roster {path}, line {line}: empty id")
            if value and value.lower() in seen:
                raise ValueError(f"roster {path}, lines {seen[value.lower()]} and {line}: "
                                 f"the same {column} {value!r} for two students")
            seen[value.lower()] = line
    return students


@dataclass
class Collected:
    """The submissions of a folder matched to a roster.

    ``submissions``: one :class:`~lib.grading.intake.Submission` per entry (its id is the
    student's roster id when matched); ``layout``: ``canvas``, ``moodle``, ``gradescope``
    or ``plain``; ``unmatched``: entry names matched to no student; ``late``: roster ids
    the LMS marked late; ``submitted_at``: roster id -> submission time (a ``datetime``,
    from the LMS where it says, else the file's modification time).
    """

    submissions: list
    layout: str
    students: list = field(default_factory=list)
    unmatched: list = field(default_factory=list)
    late: set = field(default_factory=set)
    submitted_at: dict = field(default_factory=dict)


def detect_layout(folder):
    """``gradescope``, ``canvas``, ``moodle`` or ``plain``: the layout of most entries."""
    names = [n for n in os.listdir(folder) if not n.startswith(".")]
    if GRADESCOPE_METADATA in names:
        return "gradescope"
    counts = {"moodle": sum(bool(MOODLE.fullmatch(n)) for n in names),
              "canvas": sum(bool(CANVAS.fullmatch(n)) and not MOODLE.fullmatch(n) for n in names)}
    best = max(counts, key=counts.get)
    return best if counts[best] and counts[best] * 2 >= len(names) else "plain"


def _mtime(paths):
    return datetime.fromtimestamp(max(os.lstat(p).st_mtime for p in paths)).astimezone()


def collect(folder, students, exclude=(), layout=None):
    """Match the entries of ``folder`` to ``students`` (:func:`read_roster`): a
    :class:`Collected`. ``layout``: force one (default: :func:`detect_layout`)."""
    folder = Path(folder)
    layout = layout or detect_layout(folder)
    skip = {Path(p).resolve() for p in exclude}
    key = {"canvas": "canvas_id", "moodle": "moodle_id"}.get(layout)
    by_key = {getattr(s, key): s for s in students if getattr(s, key)} if key else {}
    groups = defaultdict(list)  # student id -> entry paths (Canvas: one file per upload)
    found = Collected([], layout, list(students))
    if layout == "gradescope":
        return _gradescope(folder, students, skip, found)
    for entry in find_submissions(folder, exclude=exclude):
        if entry.path.resolve() in skip:
            continue
        student = None
        if layout == "canvas" and (m := CANVAS.fullmatch(entry.entry)):
            student = by_key.get(m["user"])
            if student and m["late"]:
                found.late.add(student.id)
        elif layout == "moodle" and (m := MOODLE.fullmatch(entry.entry)):
            student = by_key.get(m["participant"])
        elif layout == "plain":
            student = next((s for s in students if s.id.lower() == entry.id.lower()), None)
        if student is None:
            found.unmatched.append(entry.entry)
            found.submissions.append(entry)
        else:
            groups[student.id].append(entry)
    for sid, entries in groups.items():
        paths = [e.path for e in entries]
        found.submitted_at[sid] = _mtime(paths)
        if len(entries) == 1 and layout != "canvas":
            found.submissions.append(Submission(sid, entries[0].path, entries[0].entry))
        else:  # Canvas: every file of the student, read as one submission
            found.submissions.append(Submission(sid, folder, " + ".join(e.entry for e in entries),
                                                files=tuple(paths)))
    found.submissions.sort(key=lambda s: s.id)
    return found


def _gradescope(folder, students, skip, found):
    import yaml

    meta = yaml.safe_load((folder / GRADESCOPE_METADATA).read_text(encoding="utf-8")) or {}
    if not isinstance(meta, dict):
        raise ValueError(f"{folder / GRADESCOPE_METADATA}: not a mapping of submission folders")
    by_sid = {(s.sis_id or s.id).lower(): s for s in students}
    by_email = {s.email.lower(): s for s in students if s.email}
    for entry in find_submissions(folder, exclude=skip):
        if entry.entry == GRADESCOPE_METADATA:
            continue
        record = meta.get(entry.entry) if isinstance(meta.get(entry.entry), dict) else {}
        submitters = record.get(":submitters") or []
        student = None
        for person in submitters if isinstance(submitters, list) else []:
            person = person if isinstance(person, dict) else {}
            student = (by_sid.get(str(person.get(":sid") or "").lower())
                       or by_email.get(str(person.get(":email") or "").lower()))
            if student:
                break
        if student is None:
            found.unmatched.append(entry.entry)
            found.submissions.append(entry)
            continue
        created = record.get(":created_at")
        if isinstance(created, str):
            created = datetime.fromisoformat(created.replace(" UTC", "+00:00").replace(" ", "T", 1))
        found.submitted_at[student.id] = created if isinstance(created, datetime) else _mtime([entry.path])
        found.submissions.append(Submission(student.id, entry.path, entry.entry))
    found.submissions.sort(key=lambda s: s.id)
    return found
