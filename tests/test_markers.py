"""The markers are set in each test file (``pytestmark`` or a decorator; tests/conftest.py
says what each means): every file of tests/browser/ marks itself, and the markers are
registered, so that a typo fails instead of selecting nothing. tests/test_pipeline.py checks
what a collection sees."""
import re
from pathlib import Path

TESTS = Path(__file__).resolve().parent


def test_every_browser_file_marks_itself_browser_and_slow():
    for path in sorted((TESTS / "browser").glob("test_*.py")):
        assert re.search(r"^pytestmark = \[pytest\.mark\.browser, pytest\.mark\.slow\]", path.read_text(), re.M), path.name


def test_no_table_of_file_names_sets_a_marker():
    assert "add_marker" not in (TESTS / "conftest.py").read_text()


def test_the_markers_are_registered(pytestconfig):
    lines = pytestconfig.getini("markers")
    assert any(line.startswith("slow:") for line in lines) and any(line.startswith("browser:") for line in lines)
    assert "--strict-markers" in pytestconfig.getini("addopts")


def test_the_slow_stage_skips_only_files_without_a_slow_marker():
    """`make slow` does not import a test file without ``mark.slow`` in its text
    (tests/conftest.py, pytest_ignore_collect): so no file may mark a test slow another way
    (a marker added in code, or taken by name)."""
    for path in sorted(TESTS.rglob("test_*.py")):
        text = path.read_text()
        assert not re.search(r"add_marker|getattr\(pytest\.mark|pytest\.mark\[", text) or "mark.slow" in text, path.name
