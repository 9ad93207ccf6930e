"""instructors.md's start-to-finish section run as written (slow): its shell commands, read
from the document (``tests/book/test_docs.py``'s reading of commands), run in order in a fresh
clone of the repository made by how_to_use.md's ``git clone`` (with the venv that runs
these tests, as test_docs.py's clone has it), after a generated class is put where the
section tells the instructor to put it: ``roster.csv``, ``extensions.csv`` and the
downloads ``submissions.zip`` (Canvas) and ``moodle_submissions.zip`` (Moodle) in the
clone's folder. Then the files the section names are checked: the gradebook, the LMS
files against their documented layouts (:mod:`lib.grading.lms`), the feedback pages and
zips, the class report."""
import csv
import shutil
import subprocess
import zipfile
from datetime import datetime, timezone

import pytest
from documents import ROOT, commands, fresh_clone, section, shell_env, substituted
from grading_helpers import lms_download

from lib.grading import lms
from lib.grading.source import read_source, release_all

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("instructors_walkthrough"),  # instructors.md's commands in a fresh clone
              pytest.mark.skipif(shutil.which("bwrap") is None or shutil.which("unzip") is None,
                                reason="bubblewrap (bwrap) or unzip is not installed")]

HEADING = "The whole job, start to finish"
SET = ROOT / "exercises" / "01_bayesian_learning"
DUE = datetime(2026, 11, 20, 23, 59, tzinfo=timezone.utc)  # the section's --deadline
WRONG_Q1 = {"q1": "answer_q1 = prior * lime**3"}  # unnormalised: q1's second public test fails
SYNTAX_Q2 = {"q2": "def predictive(data, prior=prior)\n    return 0.5"}
ROSTER = [("asmith", "Alice Smith", "1001", "501"), ("bjones", "Bob Jones", "1002", "502"),
          ("cwu", "Chen Wu", "1003", "503"), ("dlee", "Dana Lee", "1004", "504"),
          ("eng", "Eve Ng", "1005", "505")]  # eng hands in nothing
# (full name, user id, answers, hours after the deadline): cwu 1.5 days late (2 days
# started: 20 %), dlee 40 h late with a 3-day extension (no penalty)
CANVAS = [("Alice Smith", "1001", None, -2), ("Bob Jones", "1002", WRONG_Q1, -1),
          ("Chen Wu", "1003", None, 36), ("Dana Lee", "1004", None, 40)]
MOODLE = [("Alice Smith", "501", None, -2), ("Bob Jones", "502", None, -2),
          ("Chen Wu", "503", SYNTAX_Q2, -2), ("Dana Lee", "504", None, -2)]


def table(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


@pytest.fixture(scope="module")
def clone(tmp_path_factory):
    return fresh_clone(tmp_path_factory.mktemp("docs"))


@pytest.fixture(scope="module")
def walked(clone, tmp_path_factory):
    """The section's commands, each run as written in the clone: {command: stdout}."""
    instructor = release_all(SET, tmp_path_factory.mktemp("solved"), instructor=True)[0]
    with open(clone / "roster.csv", "w", newline="") as f:
        csv.writer(f).writerows([["id", "name", "email", "canvas_id", "moodle_id", "sis_id"]] + [
            [sid, name, f"{sid}@uni.example", c, m, f"S{k}"] for k, (sid, name, c, m) in enumerate(ROSTER, 1)])
    (clone / "extensions.csv").write_text("id,days\ndlee,3\n")
    lms_download(clone / "submissions.zip", "canvas", instructor, CANVAS, DUE)
    lms_download(clone / "moodle_submissions.zip", "moodle", instructor, MOODLE, DUE)
    found = commands(section((ROOT / "instructors.md").read_text(), HEADING))
    assert [c.split()[:4] for _, c in found] == [
        ["python", "-m", "lib.grading", "release"], ["unzip", "submissions.zip", "-d", "canvas_download/"],
        ["unzip", "moodle_submissions.zip", "-d", "moodle_download/"], ["python", "-m", "lib.grading", "grade"],
        ["python", "-m", "lib.grading", "report"], ["python", "-m", "lib.grading", "grade"]], found
    out = {}
    for _, command in found:
        run = subprocess.run(["bash", "-c", substituted(command, clone)], cwd=clone, env=shell_env(clone),
                             capture_output=True, text=True, timeout=1200)
        assert run.returncode == 0, f"`{command}` failed:\n{run.stdout[-3000:]}\n{run.stderr[-3000:]}"
        out[command] = run.stdout
    return out


def test_the_start_to_finish_section_runs_as_written(clone, walked):
    text = section((ROOT / "instructors.md").read_text(), HEADING)
    total = sum(q.points for q in read_source(SET).questions.values())
    q1 = read_source(SET).questions["q1"]
    home = clone.parent / "home"
    assert (home / "course-release" / "01_bayesian_learning" / "01_bayesian_learning.ipynb").is_file()
    assert len(list((clone / "canvas_download").iterdir())) == len(CANVAS)
    grades = clone / "grades"
    named = ["grades.csv", "canvas_grades.csv", "moodle_grades.csv", "grades_plain.csv", "class.json",
             "report.html", "report.csv", "feedback_canvas.zip", "feedback_moodle.zip"]
    assert all(f"`{name}`" in text for name in named), "the section no longer names these files"
    rows = {r["id"]: r for r in table(grades / "grades.csv")}
    assert sorted(rows) == [sid for sid, *_ in ROSTER]
    assert [rows[s]["total"] for s in ("asmith", "bjones", "cwu", "dlee", "eng")] == [
        str(total), str(total - q1.points), str(total), str(total), ""]
    assert rows["eng"]["note"] == "no submission"
    plain = {r["id"]: r for r in table(grades / "grades_plain.csv")}
    assert (plain["cwu"]["late"], plain["cwu"]["penalty"], plain["cwu"]["final"]) == ("LMS: late", "20",
                                                                                      str(total * 0.8))
    assert (plain["dlee"]["late_days"], plain["dlee"]["final"]) == ("0", str(total))
    canvas = lms.check_canvas_import(grades / "canvas_grades.csv")
    assert [(r[1], r[5]) for r in canvas] == [("1001", str(total)), ("1002", str(total - q1.points)),
                                               ("1003", str(total * 0.8)), ("1004", str(total)), ("1005", "")]
    assert [r[0] for r in lms.check_moodle_import(grades / "moodle_grades.csv")] == [
        f"{sid}@uni.example" for sid, *_ in ROSTER]
    for sid in ("asmith", "bjones", "cwu", "dlee"):
        page = (grades / "submissions" / sid / "feedback.html").read_text()
        assert "<h2>q1:" in page and (grades / "submissions" / sid / "feedback.txt").is_file()
    with zipfile.ZipFile(grades / "feedback_canvas.zip") as zf:
        assert sorted(zf.namelist()) == ["jonesbob_1002_70001_feedback.html", "leedana_late_1004_70003_feedback.html",
                                         "smithalice_1001_70000_feedback.html", "wuchen_late_1003_70002_feedback.html"]
    report = (grades / "report.html").read_text()
    assert "alt='Histogram of the totals of" in report
    misconceptions = [r for r in csv.reader(open(grades / "report.csv", newline="")) if r[:2] == ["first misconception", "q1"]]
    assert [(r[2], r[3]) for r in misconceptions] == [(q1.public[1].hint, "1")]
    assert "report.html" in walked["python -m lib.grading report grades/"]
    moodle = clone / "grades_moodle"
    by_participant = lms.check_moodle_feedback_zip(moodle / "feedback_moodle.zip", {m for *_, m in ROSTER})
    assert sorted(by_participant) == ["501", "502", "503", "504"]
    notes = {r["id"]: r["note"] for r in table(moodle / "grades.csv")}
    assert notes["cwu"].startswith("cell ") and "(SyntaxError" in notes["cwu"], notes
    assert notes["eng"] == "no submission" and notes["asmith"] == ""
