"""Every exercise set: the instructor edition scores full marks, the blank release zero.

Both notebooks are graded the way students' notebooks are (``lib.grading.grade``, fresh
kernels), so this also proves that the released notebook runs top to bottom.
"""
import inspect
from pathlib import Path

import pytest

from lib.grading.grade import grade
from lib.grading.source import read_source, release_all

pytestmark = [pytest.mark.slow]  # grades every exercise set in fresh kernels (no group: the sets spread)

ROOT = Path(__file__).resolve().parents[2]
SETS = sorted(p.name for p in (ROOT / "exercises").iterdir()
              if p.is_dir() and (p / f"{p.name}.md").is_file())


@pytest.mark.parametrize("name", SETS)
def test_instructor_edition_full_marks_and_blank_release_zero(name, tmp_path):
    source = ROOT / "exercises" / name
    subs = tmp_path / "subs"
    for edition, instructor in (("solved", True), ("blank", False)):
        [nb] = release_all(source, tmp_path / edition, instructor=instructor)
        (subs / edition).mkdir(parents=True)
        (subs / edition / f"{name}.ipynb").write_bytes(nb.read_bytes())
    # the sandbox is not under test here (course code only): run without it where possible
    unsafe = {"unsafe_no_sandbox": True} if "unsafe_no_sandbox" in inspect.signature(grade).parameters else {}
    results = {r.get("submission", r.get("id")): r for r in grade(
        source, subs, tmp_path / "out", workers=2, cell_timeout=120, timeout=600, **unsafe)}
    full = sum(q.points for q in read_source(source).questions.values())
    assert results["solved"]["score"] == full, [t for t in results["solved"]["tests"] if t["status"] != "passed"]
    assert results["blank"]["score"] == 0, results["blank"]
    assert all(t["status"] != "passed" for t in results["blank"]["tests"]), results["blank"]


@pytest.mark.parametrize("name", SETS)
def test_set_size(name):
    """6 to 13 questions per set (20 to 60 minutes for a student who read the chapter)."""
    assert 6 <= len(read_source(ROOT / "exercises" / name).questions) <= 13
