"""The instructor's side without kernels: the roster, the LMS download layouts (a fixture
per layout), the LMS import files read back against their documented columns."""
import base64
import csv
import json
import re
import zipfile
from datetime import datetime, timedelta, timezone
from pathlib import Path
from types import SimpleNamespace

import nbformat
import pytest

from lib.grading import deadlines, feedback_html, lms, report, source
from lib.grading.intake import read_notebook
from lib.grading.roster import collect, detect_layout, read_roster

NB = json.dumps({"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5})
ROSTER = """id,name,email,canvas_id,moodle_id,sis_id,sis_login_id,section
asmith,Alice Smith,alice@uni.example,1001,501,S1,alice,A
bjones,Bob Jones,bob@uni.example,1002,502,S2,bob,A
cwu,Chen Wu,chen@uni.example,1003,503,S3,chen,B
dlee,Dana Lee,dana@uni.example,1004,504,S4,dana,B
"""


def write(folder, files):
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    return folder


@pytest.fixture
def roster(tmp_path):
    (tmp_path / "roster.csv").write_text(ROSTER)
    return read_roster(tmp_path / "roster.csv")


def test_the_roster_is_read_and_its_mistakes_named(tmp_path, roster):
    assert [s.id for s in roster] == ["asmith", "bjones", "cwu", "dlee"]
    with pytest.raises(ValueError, match="roster .*nowhere.csv: no such file"):
        read_roster(tmp_path / "nowhere.csv")
    assert (roster[0].name, roster[0].canvas_id, roster[0].moodle_id, roster[0].sis_login_id) == (
        "Alice Smith", "1001", "501", "alice")
    for text, message in [("name,email\nA,a@x\n", "no column id"),
                          ("id,name\na,A\na,B\n", "the same id 'a' for two students"),
                          ("id,name,canvas_id\na,A,7\nb,B,7\n", "the same canvas_id '7'"),
                          ("id,name\n,A\n", "line 2: empty id")]:
        (tmp_path / "bad.csv").write_text(text)
        with pytest.raises(ValueError, match=message):
            read_roster(tmp_path / "bad.csv")


def test_canvas_layout_matches_by_user_id_and_reads_the_late_flag(tmp_path, roster):
    folder = write(tmp_path / "canvas", {
        "smithalice_1001_9001_01_bayesian_learning.ipynb": NB,
        "jonesbob_late_1002_9002_01_bayesian_learning-1.ipynb": NB,
        "wuchen_1003_9003_homework.ipynb": NB,            # two notebooks of one student
        "wuchen_1003_9004_homework-1.ipynb": NB,
        "stranger_2999_9005_x.ipynb": NB,                  # not on the roster
    })
    found = collect(folder, roster)
    assert found.layout == "canvas" == detect_layout(folder)
    subs = {s.id: s for s in found.submissions}
    assert sorted(subs) == ["asmith", "bjones", "cwu", "stranger_2999_9005_x"]
    assert found.unmatched == ["stranger_2999_9005_x.ipynb"] and found.late == {"bjones"}
    assert read_notebook(subs["asmith"])[1] == "smithalice_1001_9001_01_bayesian_learning.ipynb"
    with pytest.raises(ValueError, match=r"^two notebooks in one submission \(wuchen_1003_9003_homework"):
        read_notebook(subs["cwu"])
    assert isinstance(found.submitted_at["asmith"], datetime)


def test_moodle_layout_folders_and_flat_files(tmp_path, roster):
    folder = write(tmp_path / "moodle", {
        "Alice Smith_501_assignsubmission_file_/01_bayesian_learning.ipynb": NB,
        "Bob Jones_502_assignsubmission_file_/a.ipynb": NB,
        "Bob Jones_502_assignsubmission_file_/b.ipynb": NB,
        "Chen Wu_503_assignsubmission_file_/work.zip": "PK",
        "Dana Lee_504_assignsubmission_file_notes.txt": "text",
        "Eve Stranger_599_assignsubmission_file_/x.ipynb": NB,
    })
    found = collect(folder, roster)
    assert found.layout == "moodle"
    subs = {s.id: s for s in found.submissions}
    assert sorted(subs)[1:] == ["asmith", "bjones", "cwu", "dlee"]
    assert sorted(subs)[0].startswith("Eve_Stranger_599_assignsubmission_file-")
    assert found.unmatched == ["Eve Stranger_599_assignsubmission_file_"]
    assert read_notebook(subs["asmith"])[1] == "Alice Smith_501_assignsubmission_file_/01_bayesian_learning.ipynb"
    with pytest.raises(ValueError, match="^two notebooks in one folder"):
        read_notebook(subs["bjones"])
    with pytest.raises(ValueError, match=r"work.zip is a zip file \(.ipynb expected\): not graded"):
        read_notebook(SimpleNamespace(**{**vars(subs["cwu"]), "files": (subs["cwu"].path / "work.zip",)}))
    with pytest.raises(ValueError, match=r"notes.txt is not a notebook \(.ipynb expected\)"):
        read_notebook(subs["dlee"])


def test_gradescope_layout_reads_the_metadata(tmp_path, roster):
    folder = write(tmp_path / "gradescope", {
        "submission_metadata.yml": (
            "submission_111:\n  :submitters:\n  - :name: Alice Smith\n    :sid: S1\n"
            "    :email: alice@uni.example\n  :created_at: 2026-11-20 23:59:00.000000000 +00:00\n"
            "  :score: 0.0\n"
            "submission_112:\n  :submitters:\n  - :name: Chen Wu\n    :sid: ''\n"
            "    :email: CHEN@uni.example\n  :created_at: 2026-11-21 10:00:00.000000000 +00:00\n"
            "submission_113:\n  :submitters:\n  - :name: Nobody\n    :sid: X9\n    :email: n@x\n"),
        "submission_111/01_bayesian_learning.ipynb": NB,
        "submission_112/hw.ipynb": NB,
        "submission_113/hw.ipynb": NB,
    })
    found = collect(folder, roster)
    assert found.layout == "gradescope"
    assert sorted(s.id for s in found.submissions) == ["asmith", "cwu", "submission_113"]
    assert found.unmatched == ["submission_113"]
    assert found.submitted_at["asmith"] == datetime(2026, 11, 20, 23, 59, tzinfo=timezone.utc)
    assert found.submitted_at["cwu"] == datetime(2026, 11, 21, 10, 0, tzinfo=timezone.utc)


def test_plain_layout_matches_roster_ids(tmp_path, roster):
    folder = write(tmp_path / "plain", {"asmith.ipynb": NB, "BJones": "", "zed.ipynb": NB})
    (folder / "BJones").unlink()
    write(folder / "BJones", {"hw.ipynb": NB})
    found = collect(folder, roster)
    assert found.layout == "plain"
    assert sorted(s.id for s in found.submissions) == ["asmith", "bjones", "zed"]
    assert found.unmatched == ["zed.ipynb"]


def question(name, points, public, hidden=()):
    public = [source.Test(a, "1", h) for a, h in public]
    hidden = [source.Test(a, "1", None) for a in hidden]
    return SimpleNamespace(name=name, points=points, public=public, hidden=hidden, tests=public + hidden)


EXERCISE = SimpleNamespace(name="01_bayesian_learning", questions={
    "q1": question("q1", 2, [("a.shape", "one entry per hypothesis"), ("a.sum()", "normalise")], ["a[0]"]),
    "q2": question("q2", 3, [("b", "<the likelihood & the prior>")])})


def read_csv(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.reader(f))


def test_lms_files_have_the_documented_columns(tmp_path, roster):
    rows = [["asmith", "a.ipynb", 2, 3, 5, ""], ["bjones", "b.ipynb", 2, 0, 2, "cell 3 failed"],
            ["cwu", "", None, None, None, "no submission"],
            ["dlee", "d.zip", None, None, None, "=d.zip is a zip file"]]
    due = datetime(2026, 11, 20, 23, 59, tzinfo=timezone.utc)
    found = SimpleNamespace(students=roster, layout="canvas", unmatched=["stranger.ipynb"], submissions=[],
                            late={"bjones"}, submitted_at={"asmith": due, "bjones": due + timedelta(hours=30)})
    policy = deadlines.Policy(due, per_day=10, cap=15)
    text = lms.write_all(tmp_path, EXERCISE, rows, found, canvas_assignment="Exercise 1 (4242)", policy=policy)
    assert "stranger.ipynb" in text and "2 without a graded submission" in text
    canvas = read_csv(tmp_path / "canvas_grades.csv")
    assert canvas[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "Exercise 1 (4242)"]
    assert canvas[1] == ["Points Possible", "", "", "", "", "5"]
    assert canvas[2:] == [["Alice Smith", "1001", "S1", "alice", "A", "5"],
                          ["Bob Jones", "1002", "S2", "bob", "A", "1.7"],  # 2 days late: -15 %
                          ["Chen Wu", "1003", "S3", "chen", "B", ""],
                          ["Dana Lee", "1004", "S4", "dana", "B", ""]]
    moodle = read_csv(tmp_path / "moodle_grades.csv")
    assert moodle[0] == ["Email address", "ID number", "Full name", "01_bayesian_learning", "Feedback"]
    assert moodle[2] == ["bob@uni.example", "S2", "Bob Jones", "1.7", "q1 2, q2 0; cell 3 failed"]
    assert moodle[3] == ["chen@uni.example", "S3", "Chen Wu", "", "q1 -, q2 -; no submission"]
    assert moodle[4][4] == "q1 -, q2 -; =d.zip is a zip file"  # not at the start: no formula
    plain = read_csv(tmp_path / "grades_plain.csv")
    assert plain[0] == ["id", "name", "email", "q1", "q2", "total", "late", "late_days", "penalty", "final", "note"]
    assert plain[1] == ["asmith", "Alice Smith", "alice@uni.example", "2", "3", "5", "", "0", "0", "5", ""]
    assert plain[2] == ["bjones", "Bob Jones", "bob@uni.example", "2", "0", "2", "LMS: late", "2", "15",
                        "1.7", "cell 3 failed"]
    assert plain[4] == ["dlee", "Dana Lee", "dana@uni.example", "", "", "", "", "", "", "", "'=d.zip is a zip file"]
    for name in ("canvas_grades.csv", "moodle_grades.csv", "grades_plain.csv"):
        assert not Path(tmp_path / name).read_text().startswith("#")


def test_lms_files_read_back_against_the_lms_documented_layouts(tmp_path, roster):
    """What Canvas and Moodle document for their imports (the rules and sources are in
    lib/grading/lms.py's docstring): Canvas's gradebook import,
    https://community.canvaslms.com/t5/Instructor-Guide/How-do-I-import-grades-in-the-Gradebook/ta-p/807
    and, spelled out, https://teaching.resources.osu.edu/toolsets/carmencanvas/guides/
    calculating-final-grades/import-csv-file-carmen-grades (Student, ID, SIS User ID: one of
    them identifies the student; SIS Login ID, Section, then the assignments); Moodle's
    https://docs.moodle.org/311/en/Grade_import (user by email or ID number, feedback
    with its grade column); Moodle's feedback zip importer,
    https://github.com/moodle/moodle/blob/main/mod/assign/feedback/file/importziplib.php
    (<full name>_<participant id>_assignsubmission_file per path part). The files written
    pass; each rule, broken, is named."""
    rows = [["asmith", "a.ipynb", 2, 3, 5, ""], ["bjones", "b.ipynb", 2, 0, 2, ""],
            ["cwu", "", None, None, None, "no submission"], ["dlee", "d.ipynb", 0, 0, 0, ""]]
    found = SimpleNamespace(students=roster, layout="moodle", unmatched=[], late=set(), submitted_at={},
                            submissions=[SimpleNamespace(id=s.id, entry=f"{s.name}_{s.moodle_id}_assignsubmission_file_")
                                         for s in roster if s.id != "cwu"])
    results = [{"id": r[0], "score": r[4], "output": r[5], "tests": []} for r in rows if r[1]]
    lms.write_all(tmp_path, EXERCISE, rows, found, results)
    canvas = lms.check_canvas_import(tmp_path / "canvas_grades.csv")
    assert [(r[1], r[5]) for r in canvas] == [("1001", "5"), ("1002", "2"), ("1003", ""), ("1004", "0")]
    assert [r[0] for r in lms.check_moodle_import(tmp_path / "moodle_grades.csv")] == [
        "alice@uni.example", "bob@uni.example", "chen@uni.example", "dana@uni.example"]
    assert lms.check_moodle_feedback_zip(tmp_path / "feedback_moodle.zip", {"501", "502", "503", "504"}) == {
        m: [f"{n}_{m}_assignsubmission_file_/feedback.html"]
        for n, m in (("Alice Smith", "501"), ("Bob Jones", "502"), ("Dana Lee", "504"))}

    def broken(name, old, new):
        path = tmp_path / f"broken_{name}"
        path.write_text((tmp_path / name).read_text().replace(old, new, 1))
        return path

    for old, new, why in (("SIS User ID,", "SIS UserID,", "the header must be"),
                          ("Points Possible", "Points", "row 2 must be the Points Possible row"),
                          (",1002,S2,", ",,,", "neither ID nor SIS User ID"),
                          (",1002,", ",1001,", "rows 3 and 4: the same student 1001"),
                          (",A,5\n", ",A,6\n", "grade 6 is outside 0..5.0"),
                          (",A,5\n", ",A,five\n", "grade 'five' is not a number")):
        with pytest.raises(ValueError, match=re.escape(why)):
            lms.check_canvas_import(broken("canvas_grades.csv", old, new))
    for old, new, why in ((",Feedback", "", "the header must be Email address"),
                          ("bob@uni.example", "", "row 3: no email address"),
                          ("bob@uni.example", "alice@uni.example", "rows 2 and 3: the same email address")):
        with pytest.raises(ValueError, match=re.escape(why)):
            lms.check_moodle_import(broken("moodle_grades.csv", old, new))
    for entry in ("Alice Smith_501_assignfeedback_file_/feedback.html", "Alice Smith_999_assignsubmission_file_/x.html",
                  "asmith/feedback.html", "Alice Smith_501_assignsubmission_file_/.feedback.html"):
        with zipfile.ZipFile(tmp_path / "bad.zip", "w") as zf:
            zf.writestr(entry, "x")
        with pytest.raises(ValueError, match=re.escape(entry)):
            lms.check_moodle_feedback_zip(tmp_path / "bad.zip", {"501"})


def test_missing_students_get_blank_rows_and_unmatched_are_named(roster):
    found = SimpleNamespace(students=roster, unmatched=["zed.ipynb"],
                            submissions=[SimpleNamespace(id="zed", entry="zed.ipynb")])
    results = [{"id": "asmith", "path": "a.ipynb", "output": "", "tests": []},
               {"id": "zed", "path": "zed.ipynb", "output": "", "tests": []}]
    rows = lms.with_roster(results, found, EXERCISE)
    assert [r["id"] for r in rows] == ["asmith", "bjones", "cwu", "dlee", "zed"]
    assert rows[1]["output"] == "no submission" and rows[1]["graded"] is False
    assert [t["score"] for t in rows[1]["tests"]] == [None, None]
    assert rows[4]["output"] == "not on the roster: zed.ipynb"
    assert [r["id"] for r in lms.with_roster(results[:1], found, EXERCISE, only="asmith")] == ["asmith"]


def test_report_counts_first_misconceptions_and_failures(tmp_path):
    P, F, E = "passed", "failed", "error"
    students = [  # q1: public a.shape, a.sum(), hidden a[0]; q2: public b
        {"id": "s1", "total": 5, "scores": {"q1": 2, "q2": 3}, "outcomes": {"q1": [P, P, P], "q2": [P]}},
        {"id": "s2", "total": 0, "scores": {"q1": 0, "q2": 0}, "outcomes": {"q1": [F, F, F], "q2": [E]}},
        {"id": "s3", "total": 3, "scores": {"q1": 0, "q2": 3}, "outcomes": {"q1": [P, F, P], "q2": [P]}},
        {"id": "s4", "total": 0, "scores": {"q1": 0, "q2": 0}, "outcomes": {"q1": [P, F, F], "q2": [F]}},
        {"id": "s5", "total": None, "scores": {"q1": None, "q2": None}, "outcomes": {}, "late_days": 2},
    ]
    data = lms.class_data(EXERCISE, [], [], SimpleNamespace(students=[]))
    data["students"] = students
    (tmp_path / "class.json").write_text(json.dumps(data))
    assert report.first_misconceptions(data["questions"], students) == {
        "q1": [("normalise", 2), ("one entry per hypothesis", 1)],
        "q2": [("<the likelihood & the prior>", 2)]}
    assert report.test_failures(data["questions"], students)["q1"] == [
        ("a.shape", 1), ("a.sum()", 3), ("hidden test 3", 2)]
    assert report.means(data["questions"], students) == {"q1": (0.5, 4), "q2": (1.5, 4), "total": (2.0, 4)}
    page = report.write_report(tmp_path).read_text()
    assert "<li>2 students: normalise</li><li>1 student: one entry per hypothesis</li>" in page
    assert "&lt;the likelihood &amp; the prior&gt;" in page and "a[0]" not in page
    alt = re.search(r"<img src='data:image/png;base64,([A-Za-z0-9+/=]+)' alt='([^']*)'>", page)
    assert alt and base64.b64decode(alt[1]).startswith(b"\x89PNG")
    assert alt[2] == ("Histogram of the totals of 4 graded students out of 5 points: "
                      "2 with 0, 1 with 3, 1 with 5.")
    rows = read_csv(tmp_path / "report.csv")
    assert ["first misconception", "q1", "normalise", "2", ""] in rows
    assert ["mean", "total", "", "2.0", "4"] in rows and ["late", "s5", "", "2", ""] in rows


def test_feedback_pages_are_escaped_sections_and_zips_use_the_download_names(tmp_path, roster):
    result = {"id": "asmith", "score": 2, "output": "", "graded": True, "tests": [
        {"name": "q1", "score": 2, "max_score": 2, "status": "passed", "output": "all 3 tests passed"},
        {"name": "q2", "score": 0, "max_score": 3, "status": "failed",
         "output": "public tests: `b` gave <script>x</script>. Hint: the prior."}]}
    text = feedback_html.page(result, EXERCISE, "Alice Smith")
    assert "<h2>q2: 0/3 points</h2>" in text and "&lt;script&gt;x&lt;/script&gt;" in text
    assert "<p>Hint: the prior.</p>" in text and "Checked: <code>a.shape</code>, <code>a.sum()</code> and 1 hidden test." in text
    assert feedback_html.upload_name("moodle", "Alice Smith_501_assignsubmission_file_") == \
        "Alice Smith_501_assignsubmission_file_/feedback.html"
    assert feedback_html.upload_name("canvas", "jonesbob_late_1002_9002_hw.ipynb + jonesbob_late_1002_9003_x.ipynb") \
        == "jonesbob_late_1002_9002_feedback.html"
    found = SimpleNamespace(students=roster, layout="moodle", submissions=[
        SimpleNamespace(id="asmith", entry="Alice Smith_501_assignsubmission_file_")])
    missing = {"id": "bjones", "missing": True}
    bundle = feedback_html.write_all(tmp_path, EXERCISE, [result, missing], found)
    with zipfile.ZipFile(bundle) as zf:
        assert zf.namelist() == ["Alice Smith_501_assignsubmission_file_/feedback.html"]
    assert (tmp_path / "submissions" / "asmith" / "feedback.html").read_text() == text
    bundle = feedback_html.write_all(tmp_path, EXERCISE, [], found)  # a regrade of someone else
    with zipfile.ZipFile(bundle) as zf:
        assert zf.read("Alice Smith_501_assignsubmission_file_/feedback.html").decode() == text


def test_late_policy_extensions_and_their_mistakes(tmp_path):
    due = deadlines.parse_time("2026-11-20T23:59+00:00")
    (tmp_path / "ext.csv").write_text("id,days\nasmith,3\n")
    policy = deadlines.Policy(due, per_day=10, cap=25, extensions=deadlines.read_extensions(tmp_path / "ext.csv"))
    late = due + timedelta(days=2, minutes=1)
    assert [policy.days_late(s, t) for s, t in [("bjones", due), ("bjones", due + timedelta(seconds=1)),
                                                  ("bjones", late), ("asmith", late), ("x", None)]] == [0, 1, 3, 0, None]
    assert [policy.final(10, d) for d in (0, 1, 2, 3, 9)] == [10, 9, 8, 7.5, 7.5] and policy.final(None, 1) is None
    assert deadlines.Policy().days_late("a", late) is None
    assert deadlines.parse_time("2026-11-20T23:59").tzinfo is not None  # local time
    for text, message in [("id,extra\na,1\n", "needs the columns id and days"),
                          ("id,days\na,soon\n", "line 2: days 'soon' is not a number"),
                          ("id,days\na,-1\n", "days must be 0 or more")]:
        (tmp_path / "bad.csv").write_text(text)
        with pytest.raises(ValueError, match=message):
            deadlines.read_extensions(tmp_path / "bad.csv")
    with pytest.raises(ValueError, match="extensions .*nowhere.csv: no such file"):
        deadlines.read_extensions(tmp_path / "nowhere.csv")
    with pytest.raises(ValueError, match="not an ISO 8601 time"):
        deadlines.parse_time("Friday")
    with pytest.raises(ValueError, match="percentages from 0 to 100"):
        deadlines.Policy(due, per_day=150)


def test_check_all_reports_every_question_and_missing_cells_are_named(capsys):
    from lib.grading import Checker, student

    spec = {"exercise": "x", "questions": {
        "q1": {"points": 1, "choices": None, "tests": [["answer_q1", "4", "count the limes"]]},
        "q2": {"points": 1, "choices": None, "tests": [["answer_q2", "1", None]]}}}
    ns = {"check": Checker(spec), "answer_q1": 3, "answer_q2": 1}
    exec("summary = check.all()", ns)
    assert ns["summary"]["q1"].startswith("q1: 0 of 1 public tests passed") and \
        ns["summary"]["q2"].startswith("q2: all 1 public tests passed")
    assert capsys.readouterr().out.splitlines()[:2] == [ns["summary"]["q1"], ns["summary"]["q2"]]
    assert "summary" in ns and "_check" not in ns
    released = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell("setup"), nbformat.v4.new_code_cell("check = Checker({})"),
        nbformat.v4.new_code_cell("answer_q1 = 4", metadata={"grading": {"question": "q1"}}),
        nbformat.v4.new_code_cell('check("q1")', metadata={"grading": {"question": "q1"}})])
    released.cells[0].id = "course-setup"
    assert student.missing_cells(released, ["q1"]) == []
    del released.cells[3], released.cells[1]
    assert student.missing_cells(released, ["q1", "q2"]) == [
        "the cell that creates check (check = Checker(...))", 'the cell check("q1")',
        "the answer cell of q2", 'the cell check("q2")']


def test_broken_notebooks_are_flagged_once_and_the_cascade_is_named():
    from lib.grading import notes

    released = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell("check = Checker({})"), nbformat.v4.new_code_cell("import numpy as np\nx = 1"),
        nbformat.v4.new_code_cell("prior = [0.1, 0.9]"),
        nbformat.v4.new_code_cell("answer_q1 = 1", metadata={"grading": {"question": "q1"}})])
    for i, c in enumerate(released.cells):
        c.id = f"cell-{i + 1}"
    cells = [dict(c) for c in released.cells[2:]]  # check and import cells deleted
    cells.append({"cell_type": "code", "id": "x", "source": "def predictive(data)\n    return 1\nlime = 2"})
    tests = [{"name": "q2", "score": 0, "max_score": 3, "output": "public tests: `predictive([])` raised "
              "NameError: name 'predictive' is not defined. Hint: average over the bags."},
             {"name": "q3", "score": 0, "max_score": 1, "output": "`answer_q3` raised NameError: name "
              "'answer_q3' is not defined"}]
    events = [{"cell": 3, "question": None, "status": "error", "message": "Traceback\nSyntaxError: expected ':'"},
              {"cell": 5, "question": None, "status": "error", "message": "NameError: later"}]
    words, tests = notes.flag(cells, events, tests, released)
    assert words == ["check cell deleted", "import cell deleted (import numpy as np)",
                     "cell 3 failed (SyntaxError: expected ':'): answers after it that use its names "
                     "could not be checked"]
    assert tests[0]["output"] == "not checked: cell 3 failed, and this answer uses predictive from it"
    assert tests[1]["output"].startswith("`answer_q3` raised NameError")  # not a name of that cell
    assert notes.defined_names("import numpy as np\na, b = 1, 2\nclass K:\n    y = 3\nz == 1") == {"np", "a", "K"}
    assert notes.deleted_cells([{"id": None}], released) == []  # no ids kept: nothing said
    cells.append({"cell_type": "code", "source": 'check("q1")'})
    assert notes.without_check_cells([{"cell": 4, "status": "error"}, {"cell": 3}, {"question": "q1"}],
                                     cells) == [{"cell": 3}, {"question": "q1"}]


def test_answers_of_fractions_and_decimals_are_graded_by_value():
    from decimal import Decimal
    from fractions import Fraction

    from lib.grading.checks import run_test

    good = Fraction(9, 14) * Fraction(3, 12) ** 2 * Fraction(7, 11) ** 2
    test = ("bool(np.isclose(answer_q1[0] * 14 / 9 * 12**2 * 11**2, np.round(answer_q1[0] * 14 / 9 * "
            "12**2 * 11**2), rtol=5e-4)) == True", "True", "smoothed estimates")
    for answer in ([good, Fraction(1, 100)], (good, 0.01), [Decimal(float(good)), Decimal("0.01")]):
        ns = {"np": __import__("numpy"), "answer_q1": answer}
        assert run_test(test, ns) == ("passed", f"`{test[0]}` is right"), answer
        assert ns["answer_q1"] is answer  # the student's variable is left as it was
    assert run_test(("answer_q2 + 1", "approx(1.5)"), {"answer_q2": Fraction(1, 2)})[0] == "passed"
    assert run_test(("answer_q3", "['a', 'b']"), {"answer_q3": ["a", "b"]})[0] == "passed"  # not numbers
    # the import cell deleted, or np rebound: the tests use the grader's numpy
    for ns in ({"answer_q1": [1, 2]}, {"answer_q1": [1, 2], "np": 5}):
        assert run_test(("np.shape(answer_q1)", "(2,)"), ns)[0] == "passed"
        assert ns.get("np", 5) == 5  # the student's namespace unchanged


def test_class_options_without_a_roster_or_deadline_are_refused(capsys):
    from lib.grading.__main__ import main

    assert main(["grade", "--source", "x", "--submissions", "y", "--out", "z", "--deadline", "2026-11-20"]) == 2
    assert "--deadline need --roster" in capsys.readouterr().err
    assert main(["grade", "--source", "x", "--submissions", "y", "--out", "z", "--roster", "r.csv",
                 "--late-penalty", "10"]) == 2
    assert "--late-penalty and --extensions need --deadline" in capsys.readouterr().err
