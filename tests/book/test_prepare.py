"""`make prepare` (the first step of `make book`) writes nothing when nothing changed: the
released exercise pages, the chapters' .ipynb copies and the execution cache's key record
keep their modification times, so that Sphinx reads no page again and a no-op `make book`
is quick (benchmarks/results.md)."""
import os
import re
import subprocess
import sys
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import exec_cache  # noqa: E402
import export_notebooks  # noqa: E402


def mtimes(folder):
    return {p.relative_to(folder): p.stat().st_mtime_ns for p in Path(folder).rglob("*") if p.is_file()}


def test_prepare_runs_the_steps_tested_here_and_removes_nothing_itself():
    dry = subprocess.run(["make", "-n", "prepare", f"STAMP={ROOT / 'pyproject.toml'}"], cwd=ROOT,
                         capture_output=True, text=True, check=True).stdout
    steps = [line for line in dry.splitlines() if "python" in line]
    assert [re.sub(r".*python ", "", s).split()[:2] for s in steps] == [
        ["tools/export_notebooks.py", "--exercises"], ["tools/export_notebooks.py", "chapters"],
        ["tools/exec_cache.py", "./_build"]], steps
    assert not re.search(r"\brm\b", dry), dry


def test_a_second_release_and_export_write_nothing(tmp_path):
    exercises, chapters = tmp_path / "exercises", tmp_path / "chapters"
    export_notebooks.release_exercises(exercises)
    export_notebooks.export_chapters(chapters)
    before = {"exercises": mtimes(exercises), "chapters": mtimes(chapters)}
    assert len(before["exercises"]) >= 9 and len(before["chapters"]) == len(list((ROOT / "chapters").glob("*.md")))
    export_notebooks.release_exercises(exercises)
    export_notebooks.export_chapters(chapters)
    assert {"exercises": mtimes(exercises), "chapters": mtimes(chapters)} == before

    # a changed or missing file is written again, a file no exercise has is removed, the rest stay
    first, second = sorted(exercises.glob("*/*.ipynb"))[:2]
    nb = nbformat.read(first, as_version=4)
    nb.cells[-1].source += "\n# edited"
    nbformat.write(nb, first)
    second.unlink()
    (exercises / "10_gone").mkdir()
    (exercises / "10_gone" / "10_gone.ipynb").write_text("{}")
    edited = mtimes(exercises)
    written = export_notebooks.release_exercises(exercises)
    after = mtimes(exercises)
    assert "# edited" not in first.read_text() and second.is_file() and not (exercises / "10_gone").exists()
    assert {p for p in after if after[p] != before["exercises"][p]} == {first.relative_to(exercises),
                                                                         second.relative_to(exercises)}
    assert after[first.relative_to(exercises)] != edited[first.relative_to(exercises)]
    assert sorted(written) == sorted(exercises.glob("*/*.ipynb"))


def test_a_second_key_check_writes_nothing(tmp_path):
    build, page = tmp_path / "_build", tmp_path / "page.md"
    page.write_text("---\njupytext: {}\n---\n\n```{code-cell} ipython3\nimport lib.bayes\n```\n")
    assert exec_cache.invalidate(build, [page]) == [str(page.resolve())]
    before = mtimes(tmp_path)
    assert exec_cache.invalidate(build, [page]) == []
    assert mtimes(tmp_path) == before


def test_book_runs_only_when_a_checkout_file_is_newer_than_the_last_builds_stamp(tmp_path):
    stamp = tmp_path / "_build" / ".book-stamp"
    stamp.parent.mkdir()
    stamp.touch()

    def up_to_date(stamp_time):
        os.utime(stamp, (stamp_time, stamp_time))
        return subprocess.run(["make", "-q", "book", f"OUT={tmp_path}", f"STAMP={ROOT / 'pyproject.toml'}"],
                              cwd=ROOT, capture_output=True).returncode == 0

    later = stamp.stat().st_mtime + 3600  # just touched: an hour later is newer than every file
    assert up_to_date(later)
    assert not up_to_date((ROOT / "chapters" / "01_bayesian_learning.md").stat().st_mtime - 1)
    assert not up_to_date((ROOT / "exercises").stat().st_mtime - 1)  # a page added or removed
    assert not up_to_date((ROOT / "lib" / "bayes.py").stat().st_mtime - 1)
