"""The markers of tests/conftest.py point at files and tests that exist, so a renamed slow
test cannot drop silently into `make unit` (or out of it)."""
import ast
import importlib.util
from pathlib import Path

TESTS = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location("tests_conftest", TESTS / "conftest.py")  # not tests/browser's
_conftest = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_conftest)
SLOW_FILES, SLOW_TESTS = _conftest.SLOW_FILES, _conftest.SLOW_TESTS


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
