"""Every exercise set: the instructor edition scores full marks, the blank release zero.

The blank release is graded the way students' notebooks are (``lib.grading.grade``, a
fresh kernel), so this also proves that the released notebook runs top to bottom. The
instructor edition is graded by the grader itself before it grades anyone: ``grade``
runs it in a fresh kernel first and refuses (``GradingRefused``) unless it scores full
marks (tests/grading/test_grading_sandbox.py checks the refusal), so it is not graded a
second time here as a submission.
"""
import importlib
import inspect
from pathlib import Path

import pytest

from lib.grading.grade import grade
from lib.grading.source import read_source, release_all

pytestmark = [pytest.mark.slow]  # grades every exercise set in fresh kernels (no group: the sets spread)

grading = importlib.import_module("lib.grading.grade")  # the module (lib.grading.grade is also the function)
ROOT = Path(__file__).resolve().parents[2]
SETS = sorted(p.name for p in (ROOT / "exercises").iterdir()
              if p.is_dir() and (p / f"{p.name}.md").is_file())


@pytest.mark.parametrize("name", SETS)
def test_instructor_edition_full_marks_and_blank_release_zero(name, tmp_path, monkeypatch):
    source = ROOT / "exercises" / name
    subs = tmp_path / "subs"
    [nb] = release_all(source, tmp_path / "blank", instructor=False)
    (subs / "blank").mkdir(parents=True)
    (subs / "blank" / f"{name}.ipynb").write_bytes(nb.read_bytes())
    self_tests, run = [], grading.grade_one

    def graded(sub, *args, **kwargs):  # records the grader's own run of the instructor edition
        result = run(sub, *args, **kwargs)
        if sub.id == "instructor-solution":
            self_tests.append(result)
        return result

    monkeypatch.setattr(grading, "grade_one", graded)
    monkeypatch.setattr(grading, "_SELF_TESTS", {})  # graded here, not taken from an earlier test
    # the sandbox is not under test here (course code only): run without it where possible
    unsafe = {"unsafe_no_sandbox": True} if "unsafe_no_sandbox" in inspect.signature(grade).parameters else {}
    results = {r.get("submission", r.get("id")): r for r in grade(
        source, subs, tmp_path / "out", workers=2, cell_timeout=120, timeout=600, **unsafe)}
    full = sum(q.points for q in read_source(source).questions.values())
    [solved] = self_tests
    assert solved["score"] == full, [t for t in solved["tests"] if t["status"] != "passed"]
    assert results["blank"]["score"] == 0, results["blank"]
    assert all(t["status"] != "passed" for t in results["blank"]["tests"]), results["blank"]


@pytest.mark.parametrize("name", SETS)
def test_set_size(name):
    """6 to 13 questions per set (20 to 60 minutes for a student who read the chapter)."""
    assert 6 <= len(read_source(ROOT / "exercises" / name).questions) <= 13
