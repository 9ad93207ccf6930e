"""Feedback returned to students: one HTML page per student, and zips for bulk upload.

``submissions/ID/feedback.html``: the total, the note, then a section per question (its
score, what was checked: the public tests' expressions, and the grader's message with
the hint), every text escaped with ``html.escape``. ``feedback.txt`` stays for scripts.

Bulk upload (``instructors.md``, "Returning feedback"):

* ``feedback_moodle.zip``: ``<download folder>/feedback.html`` per student, the folder
  names of Moodle's download (``Full Name_<participant id>_assignsubmission_file_``), as
  Moodle's "Upload multiple feedback files in a zip" needs;
* ``feedback_canvas.zip``: ``<lastfirst>_<user id>_<attachment id>_feedback.html``, the
  name prefix of Canvas's download, as Canvas's "Re-Upload Submissions" needs;
* otherwise ``feedback.zip``: ``<roster id>/feedback.html``.
"""
import html
import re
import zipfile
from pathlib import Path

from . import gradebook
from .roster import CANVAS, MOODLE

STYLE = ("body{font-family:sans-serif;max-width:50em;margin:auto;padding:1em;line-height:1.4}"
         "section{border-top:1px solid #999;margin-top:1em}.passed{color:#1a6e1a}.other{color:#a0301a}")


def page(result, exercise, name=""):
    """The HTML feedback page of one result (``grade.grade_one``'s dict)."""
    e = html.escape
    total = sum(q.points for q in exercise.questions.values())
    who = f"{name} ({result['id']})" if name else result["id"]
    score = "not graded" if not result.get("graded", True) else f"{result['score']}/{total}"
    parts = [f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>Feedback: "
             f"{e(exercise.name)}</title><style>{STYLE}</style></head><body>",
             f"<h1>Feedback on {e(exercise.name)}</h1>", f"<p>{e(who)}: <strong>{e(score)}</strong></p>"]
    if result["output"]:
        parts.append(f"<p><strong>Note:</strong> {e(result['output'])}</p>")
    for t in result["tests"]:
        q = exercise.questions[t["name"]]
        shown = "-" if t["score"] is None or not result.get("graded", True) else t["score"]
        status = t.get("status", "not graded")
        checked = ", ".join(f"<code>{e(x.answer)}</code>" for x in q.public)
        hidden = f" and {len(q.hidden)} hidden test{'s' * (len(q.hidden) != 1)}" if q.hidden else ""
        parts.append(
            f"<section><h2>{e(t['name'])}: {shown}/{t['max_score']} points</h2>"
            f"<p class='{'passed' if status == 'passed' else 'other'}'>{e(status)}</p>"
            f"<p>Checked: {checked or 'no public test'}{hidden}.</p>"
            + "".join(f"<p>{e(s.strip())}</p>" for s in _sections(t.get("output", ""))) + "</section>")
    parts.append("</body></html>\n")
    return "\n".join(parts)


def _sections(text):
    """The grader's message in readable pieces: public tests, each hint, hidden tests."""
    return [p for p in re.split(r"(?=public tests:|Hint:|hidden tests?)", text or "") if p.strip()]


def upload_name(layout, entry):
    """The file's name in the bulk-upload zip for a submission entry of ``layout``."""
    first = entry.split(" + ")[0]
    if layout == "moodle" and (m := MOODLE.fullmatch(first)):
        return f"{m['name']}_{m['participant']}_assignsubmission_file_/feedback.html"
    if layout == "canvas" and (m := CANVAS.fullmatch(first)):
        return f"{m['name']}{m['late'] or ''}_{m['user']}_{m['attachment']}_feedback.html"
    return None


def write_all(out, exercise, results, collected):
    """Write the feedback pages of ``results``, then the bulk-upload zip of every roster
    student's page in ``out`` (after a regrade of one, the others' pages are reused);
    returns the zip's path."""
    out = Path(out)
    names = {s.id: s.name for s in collected.students}
    for r in results:
        if not r.get("missing"):
            folder = out / "submissions" / r["id"]
            folder.mkdir(parents=True, exist_ok=True)
            gradebook.atomic_write(folder / "feedback.html", page(r, exercise, names.get(r["id"], "")))
    zip_name = {"moodle": "feedback_moodle.zip", "canvas": "feedback_canvas.zip"}.get(
        collected.layout, "feedback.zip")
    tmp = out / f".{zip_name}.tmp"
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as zf:
        for sub in sorted(collected.submissions, key=lambda s: s.id):
            html_page = out / "submissions" / sub.id / "feedback.html"
            if sub.id in names and html_page.exists():
                name = upload_name(collected.layout, sub.entry) or f"{sub.id}/feedback.html"
                zf.writestr(name, html_page.read_text(encoding="utf-8"))
    tmp.replace(out / zip_name)
    return out / zip_name
