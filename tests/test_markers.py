"""The markers of tests/conftest.py point at files and tests that exist, so a renamed slow
test cannot drop silently into `make unit` (or out of it)."""
import ast
from pathlib import Path

from conftest import SLOW_FILES, SLOW_TESTS

TESTS = Path(__file__).resolve().parent


def test_slow_files_exist():
    missing = sorted(name for name in SLOW_FILES if not (TESTS / name).is_file())
    assert not missing, f"tests/conftest.py SLOW_FILES names files that do not exist: {missing}"


def test_slow_tests_exist():
    for name, tests in SLOW_TESTS.items():
        path = TESTS / name
        assert path.is_file(), f"tests/conftest.py SLOW_TESTS names a missing file: {name}"
        defined = {n.name for n in ast.walk(ast.parse(path.read_text())) if isinstance(n, ast.FunctionDef)}
        assert tests <= defined, f"{name}: no such tests {sorted(tests - defined)}"


def test_the_markers_are_registered(pytestconfig):
    lines = pytestconfig.getini("markers")
    assert any(line.startswith("slow:") for line in lines) and any(line.startswith("browser:") for line in lines)
