"""A class graded end to end in the sandbox (slow): a Canvas-layout and a Moodle-layout
download of 30 generated submissions (right, partly wrong, broken kinds, late, a stranger),
each against its roster with a student who handed in nothing. Every row, the LMS files,
the feedback zips, the flagged notes and the report's misconception counts are checked
against what was planted."""
import csv
import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from datetime import datetime, timezone
from pathlib import Path

import nbformat
import pytest
from grading_helpers import with_answers as notebook

from lib.grading import lms
from lib.grading.source import read_source, release_all

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / "exercises" / "01_bayesian_learning"
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("grading_class_run"),  # a class of 30 from Canvas and Moodle layouts, in the sandbox
              pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap (bwrap) is not installed")]

DUE = datetime(2026, 11, 20, 23, 59, tzinfo=timezone.utc)
# planted answers (question -> cell source), beside the solution's
Q1_UNNORMALISED = {"q1": "answer_q1 = prior * lime**3"}
Q3_TOO_FEW = {"q3": "answer_q3 = 3"}
SYNTAX = {"q2": "def predictive(data, prior=prior)\n    return 0.5"}


def roster(path, prefix, n, lms_column):
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["id", "name", "email", lms_column, "sis_id"])
        for i in range(1, n + 1):
            w.writerow([f"{prefix}{i:02d}", f"Student{prefix.upper()}{i:02d} Test", f"{prefix}{i:02d}@uni.example",
                        str((2000 if prefix == "c" else 3000) + i), f"S-{prefix}{i:02d}"])
    return path


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("class")
    instructor = release_all(SOURCE, tmp / "release", instructor=True)[0]
    right = notebook(instructor)
    canvas, moodle = tmp / "canvas", tmp / "moodle"
    canvas.mkdir()
    plan_c = {i: right for i in range(1, 9)} | {i: notebook(instructor, Q1_UNNORMALISED) for i in (9, 10, 11)}
    plan_c[12] = notebook(instructor, SYNTAX)
    for i, text in plan_c.items():
        late = "_late" if i in (6, 7, 8) else ""
        (canvas / f"teststudentc{i:02d}{late}_{2000 + i}_{7000 + i}_01_bayesian_learning.ipynb").write_text(text)
    (canvas / "teststudentc13_2013_7013_answers.txt").write_text("q1: 0.42")
    (canvas / "teststudentc14_2014_7014_01_bayesian_learning.ipynb").write_text(right)
    (canvas / "teststudentc14_2014_7015_01_bayesian_learning-1.ipynb").write_text(right)
    (canvas / "teststudentc15_2015_7016_01_bayesian_learning.ipynb").write_text(right)
    (canvas / "intruder_2999_7999_01_bayesian_learning.ipynb").write_text(right)
    for path in canvas.iterdir():  # submission times: three late (flagged by Canvas), c05 late but extended
        late = {"c05": 2, "c06": 1.5, "c07": 1.5, "c08": 1.5}.get(path.name[11:14], -0.1)
        os.utime(path, (DUE.timestamp() + late * 86400,) * 2)
    (tmp / "extensions.csv").write_text("id,days\nc05,3\n")
    plan_m = {i: right for i in range(1, 10)} | {i: notebook(instructor, Q3_TOO_FEW) for i in (10, 11, 12)}
    plan_m[13] = notebook(instructor, {**Q1_UNNORMALISED, **Q3_TOO_FEW})
    no_check = nbformat.reads(right, as_version=4)
    no_check.cells = [c for c in no_check.cells if "check = Checker(" not in c.source]
    plan_m[9] = nbformat.writes(no_check)  # right answers, the check cell deleted
    for i, text in plan_m.items():
        folder = moodle / f"Student{'M'}{i:02d} Test_{3000 + i}_assignsubmission_file_"
        folder.mkdir(parents=True)
        (folder / "01_bayesian_learning.ipynb").write_text(text)
    two = moodle / "StudentM14 Test_3014_assignsubmission_file_"
    two.mkdir()
    (two / "a.ipynb").write_text(right)
    (two / "b.ipynb").write_text(right)
    zipped = moodle / "StudentM15 Test_3015_assignsubmission_file_"
    zipped.mkdir()
    with zipfile.ZipFile(zipped / "work.zip", "w") as zf:
        zf.writestr("01_bayesian_learning.ipynb", right)
    runs = {}
    policy = ["--deadline", DUE.isoformat(), "--late-penalty", "10", "--late-cap", "30",
              "--extensions", str(tmp / "extensions.csv")]
    for name, subs, prefix, column, extra in (("canvas", canvas, "c", "canvas_id", policy),
                                              ("moodle", moodle, "m", "moodle_id", [])):
        rost = roster(tmp / f"{name}_roster.csv", prefix, 16, column)  # student 16 handed in nothing
        out = tmp / f"grades_{name}"
        proc = subprocess.run([sys.executable, "-m", "lib.grading", "grade", "--source", str(SOURCE),
                               "--submissions", str(subs), "--out", str(out), "--workers", "2",
                               "--roster", str(rost), "--no-progress",
                               "--canvas-assignment", "Exercise 1 (4242)", *extra],
                              cwd=ROOT, capture_output=True, text=True, timeout=900)
        assert proc.returncode == 0, proc.stderr[-3000:]
        runs[name] = {"out": out, "stdout": proc.stdout}
    return runs


def table(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.reader(f))


def rows(out):
    return {r["id"]: r for r in csv.DictReader(open(out / "grades.csv", newline="", encoding="utf-8"))}


FULL = {q.name: q.points for q in read_source(SOURCE).questions.values()}
TOTAL = sum(FULL.values())


def test_every_row_of_the_canvas_class(graded):
    got = rows(graded["canvas"]["out"])
    assert sorted(got) == [f"c{i:02d}" for i in range(1, 17)] + ["intruder_2999_7999_01_bayesian_learning"]
    for i in range(1, 9):
        assert [got[f"c{i:02d}"][q] for q in FULL] == [str(p) for p in FULL.values()], got[f"c{i:02d}"]
    for sid in ("c09", "c10", "c11"):
        assert got[sid]["q1"] == "0" and got[sid]["total"] == str(TOTAL - FULL["q1"]), got[sid]
    assert got["c12"]["q2"] == "0" and got["c12"]["q1"] == str(FULL["q1"])
    assert re.fullmatch(r"cell \d+ failed \(SyntaxError: .*\): answers after it that use its names could "
                        r"not be checked", got["c12"]["note"]), got["c12"]
    q3 = json.loads((graded["canvas"]["out"] / "submissions" / "c12" / "results.json").read_text())["tests"][2]
    assert q3["score"] == FULL["q3"], q3  # the cascade stops at the cell's own names
    for sid, note in (("c13", "teststudentc13_2013_7013_answers.txt is not a notebook"),
                      ("c14", "two notebooks in one submission"), ("c16", "no submission")):
        assert got[sid]["note"].startswith(note), got[sid]
        assert {got[sid][q] for q in [*FULL, "total"]} == {""}, got[sid]
    assert got["c15"]["total"] == str(TOTAL)
    assert got["intruder_2999_7999_01_bayesian_learning"]["note"].startswith("not on the roster: intruder_")
    assert "intruder_2999_7999_01_bayesian_learning.ipynb" in graded["canvas"]["stdout"]
    plain = table(graded["canvas"]["out"] / "grades_plain.csv")
    assert plain[0][-6:] == ["total", "late", "late_days", "penalty", "final", "note"]
    plain = {r[0]: dict(zip(plain[0], r)) for r in plain[1:]}
    assert sorted(sid for sid, r in plain.items() if r["late"] == "LMS: late") == ["c06", "c07", "c08"]
    for sid in ("c06", "c07", "c08"):  # 1.5 days late: 2 days started, 20 %
        assert (plain[sid]["late_days"], plain[sid]["penalty"], plain[sid]["final"]) == ("2", "20", str(TOTAL * 0.8))
    assert (plain["c05"]["late_days"], plain["c05"]["final"]) == ("0", str(TOTAL))  # the extension
    assert (plain["c01"]["late_days"], plain["c16"]["late_days"]) == ("0", "")
    report = (graded["canvas"]["out"] / "report.html").read_text()
    assert "c06: 2 day(s) late (marked late by the LMS)" in report and "c05:" not in report


def test_canvas_import_file_and_feedback_zip(graded):
    """Canvas's documented import layout (lib/grading/lms.py, CANVAS_GUIDE and CANVAS_RULES:
    https://community.canvaslms.com/t5/Instructor-Guide/How-do-I-import-grades-in-the-Gradebook/ta-p/807)."""
    out = graded["canvas"]["out"]
    assert len(lms.check_canvas_import(out / "canvas_grades.csv")) == 16
    rows_ = table(out / "canvas_grades.csv")
    assert rows_[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "Exercise 1 (4242)"]
    assert rows_[1] == ["Points Possible", "", "", "", "", str(TOTAL)]
    assert [r[1] for r in rows_[2:]] == [str(2000 + i) for i in range(1, 17)]
    scores = [r[5] for r in rows_[2:]]
    assert scores[12:] == ["", "", str(TOTAL), ""] and scores[8:11] == [str(TOTAL - FULL["q1"])] * 3
    assert scores[:8] == [str(TOTAL)] * 5 + [str(TOTAL * 0.8)] * 3  # the late penalty
    with zipfile.ZipFile(out / "feedback_canvas.zip") as zf:
        names = sorted(zf.namelist())
    expected = sorted([f"teststudentc{i:02d}{'_late' if i in (6, 7, 8) else ''}_{2000 + i}_{7000 + i}_feedback.html"
                       for i in range(1, 14)] + ["teststudentc14_2014_7014_feedback.html",
                                                 "teststudentc15_2015_7016_feedback.html"])
    assert names == expected


def test_every_row_of_the_moodle_class_and_its_files(graded):
    """Moodle's documented grade import (https://docs.moodle.org/311/en/Grade_import) and
    feedback zip importer (mod/assign/feedback/file/importziplib.php), as lib/grading/lms.py
    states them."""
    out = graded["moodle"]["out"]
    assert len(lms.check_moodle_import(out / "moodle_grades.csv")) == 16
    assert sorted(lms.check_moodle_feedback_zip(out / "feedback_moodle.zip", {str(3000 + i) for i in range(1, 17)})) \
        == [str(3000 + i) for i in range(1, 16)]
    got = rows(out)
    assert sorted(got) == [f"m{i:02d}" for i in range(1, 17)]
    assert all(got[f"m{i:02d}"]["total"] == str(TOTAL) for i in range(1, 10))
    assert got["m09"]["note"] == "check cell deleted" and got["m01"]["note"] == ""
    assert all(got[f"m{i}"]["q3"] == "0" and got[f"m{i}"]["total"] == str(TOTAL - FULL["q3"]) for i in (10, 11, 12))
    assert got["m13"]["total"] == str(TOTAL - FULL["q1"] - FULL["q3"])
    for sid, note in (("m14", "two notebooks in one folder"), ("m15", "StudentM15 Test_3015_assignsubmission_file_/work.zip"
                                                                  " is a zip file"), ("m16", "no submission")):
        assert note in got[sid]["note"] and got[sid]["total"] == "", got[sid]
    moodle = table(out / "moodle_grades.csv")
    assert moodle[0] == ["Email address", "ID number", "Full name", "01_bayesian_learning", "Feedback"]
    assert moodle[1][:4] == ["m01@uni.example", "S-m01", "StudentM01 Test", str(TOTAL)]
    assert moodle[16][3:] == ["", ", ".join(f"{q} -" for q in FULL) + "; no submission"]
    with zipfile.ZipFile(out / "feedback_moodle.zip") as zf:
        assert sorted(zf.namelist()) == [f"StudentM{i:02d} Test_{3000 + i}_assignsubmission_file_/feedback.html"
                                         for i in range(1, 16)]
    assert not (out / "grades.csv").read_text().startswith("#")


def test_the_report_counts_the_planted_misconceptions(graded):
    questions = read_source(SOURCE).questions
    for name, planted in (("canvas", {"q1": {questions["q1"].public[1].hint: 3}}),
                          ("moodle", {"q1": {questions["q1"].public[1].hint: 1},
                                      "q3": {questions["q3"].public[1].hint: 4}})):
        out = graded[name]["out"]
        report = table(out / "report.csv")
        found = {}
        for kind, q, hint, count, _ in report[1:]:
            if kind == "first misconception":
                found.setdefault(q, {})[hint] = int(count)
        assert {q: v for q, v in found.items() if q in planted} == planted, found
        assert set(found) <= set(planted) | {"q2"}, found  # q2: the syntax error's cell
        page = (out / "report.html").read_text()
        assert "alt='Histogram of the totals of" in page
    proc = subprocess.run([sys.executable, "-m", "lib.grading", "report", str(graded["moodle"]["out"])],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0 and "report.html" in proc.stdout, proc.stderr


def test_export_runs_the_saved_notebook_in_a_fresh_kernel(tmp_path, capsys):
    from lib.grading import Checker
    from lib.grading.source import release

    exercise = read_source(SOURCE)
    nb, solved = release(exercise), release(exercise, instructor=True)
    for mine, theirs in zip(nb.cells[1:], solved.cells[1:]):
        if "check = Checker(" not in mine.source:
            mine.source = theirs.source
    check = Checker({"exercise": exercise.name, "questions": {q: {} for q in exercise.questions}})
    path = tmp_path / "01_bayesian_learning.ipynb"
    nbformat.write(nb, path)
    assert check.export(path) == tmp_path / "to_upload" / path.name
    assert "Exported" in capsys.readouterr().out
    ran = nbformat.read(tmp_path / "to_upload" / path.name, as_version=4)
    assert all(c.execution_count for c in ran.cells if c.cell_type == "code" and c.source.strip())
    broken = nbformat.read(path, as_version=4)
    index = next(i for i, c in enumerate(broken.cells, start=1) if c.metadata.get("grading", {}).get("question") == "q2"
                 and c.cell_type == "code" and not c.source.startswith("check("))
    broken.cells[index - 1].source = "def predictive(data)\n    return 1"
    nbformat.write(broken, tmp_path / "broken.ipynb")
    assert check.export(tmp_path / "broken.ipynb") is None
    out = capsys.readouterr().out
    assert out.startswith(f"Not exported: cell {index} failed in a fresh kernel (SyntaxError"), out
    assert not (tmp_path / "to_upload" / "broken.ipynb").exists()
    broken.cells = [c for c in broken.cells if c.source.strip() != 'check("q2")']
    nbformat.write(broken, tmp_path / "cut.ipynb")
    assert check.export(tmp_path / "cut.ipynb") is None
    assert 'lacks the cell check("q2")' in capsys.readouterr().out
