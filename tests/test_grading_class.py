"""The instructor's side without kernels: the roster, the LMS download layouts (a fixture
per layout), the LMS import files read back against their documented columns."""
import csv
import json
from datetime import datetime, timezone
from pathlib import Path
from types import SimpleNamespace

import pytest

from lib.grading import lms
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


EXERCISE = SimpleNamespace(name="01_bayesian_learning", questions={
    "q1": SimpleNamespace(name="q1", points=2), "q2": SimpleNamespace(name="q2", points=3)})


def read_csv(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.reader(f))


def test_lms_files_have_the_documented_columns(tmp_path, roster):
    rows = [["asmith", "a.ipynb", 2, 3, 5, ""], ["bjones", "b.ipynb", 2, 0, 2, "cell 3 failed"],
            ["cwu", "", None, None, None, "no submission"],
            ["dlee", "d.zip", None, None, None, "=d.zip is a zip file"]]
    found = SimpleNamespace(students=roster, layout="canvas", unmatched=["stranger.ipynb"])
    text = lms.write_all(tmp_path, EXERCISE, rows, found, canvas_assignment="Exercise 1 (4242)")
    assert "stranger.ipynb" in text and "2 without a graded submission" in text
    canvas = read_csv(tmp_path / "canvas_grades.csv")
    assert canvas[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "Exercise 1 (4242)"]
    assert canvas[1] == ["Points Possible", "", "", "", "", "5"]
    assert canvas[2:] == [["Alice Smith", "1001", "S1", "alice", "A", "5"],
                          ["Bob Jones", "1002", "S2", "bob", "A", "2"],
                          ["Chen Wu", "1003", "S3", "chen", "B", ""],
                          ["Dana Lee", "1004", "S4", "dana", "B", ""]]
    moodle = read_csv(tmp_path / "moodle_grades.csv")
    assert moodle[0] == ["Email address", "ID number", "Full name", "01_bayesian_learning", "Feedback"]
    assert moodle[2] == ["bob@uni.example", "S2", "Bob Jones", "2", "q1 2, q2 0; cell 3 failed"]
    assert moodle[3] == ["chen@uni.example", "S3", "Chen Wu", "", "q1 -, q2 -; no submission"]
    assert moodle[4][4] == "q1 -, q2 -; =d.zip is a zip file"  # not at the start: no formula
    plain = read_csv(tmp_path / "grades_plain.csv")
    assert plain[0] == ["id", "name", "email", "q1", "q2", "total", "note"]
    assert plain[4] == ["dlee", "Dana Lee", "dana@uni.example", "", "", "", "'=d.zip is a zip file"]
    for name in ("canvas_grades.csv", "moodle_grades.csv", "grades_plain.csv"):
        assert not Path(tmp_path / name).read_text().startswith("#")


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
