"""The lowest versions pyproject.toml allows are the ones tested (scikit-learn's min-dependencies job).

A venv (``_build/min-deps-venv``, made again only when pyproject.toml changes) holds the
course library (editable) and, pinned by tools/min_deps.py, every floor of
pyproject.toml's ``dependencies`` and ``grade`` extra and of the test packages lib's
tests import. In it:

* lib's doctests and lib's own unit test files (``lib_test_files``: every tests/lib/test_*.py
  that imports one of lib's algorithm modules and nothing of the book and grading tooling),
  with `make unit`'s markers, in one process (about 2 min of CPU; two pytest-xdist workers
  took 15 % more, each importing everything again, and `make test`'s other lines fill the
  cores anyway). ``MIN_DEPS_UNIT=all``
  runs all of `make unit` there (about 3 min 15 s of CPU); its book, docs and publishing
  tests fail there for want of the tools the floor set leaves out (jupyter_cache, docutils,
  sphinx_book_theme, nbgitpuller, ruff);
* the grader on exercise set 09: the instructor's solution must score full marks;

and the venv must hold exactly the floors, so a floor that differs from the tested
version fails here. The chapters and exercise sets run at the runtime floors on the Colab
route (tests/test_launch.py runs every one of them in a venv of Colab's versions, which
are the runtime floors: ``test_the_colab_route_runs_at_the_runtime_floors``), so they are
not executed a second time here. The chapters, the exercise sets and lib may call only what the
floor numpy has (``np.trapezoid`` is numpy 2.0's).
"""
import ast
import csv
import hashlib
import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from binder_env import COLAB, DATA, ROOT, _venv
from packaging.version import Version

sys.path.insert(0, str(ROOT / "tools"))
from min_deps import TEST_PACKAGES, constraints, floors, runtime  # noqa: E402

from lib.grading.source import read_source  # noqa: E402

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("min_deps")]  # a venv of the lowest allowed versions: lib tests, chapters, grader

ENV = ROOT / "_build" / "min-deps-venv"
CONSTRAINTS = ROOT / "_build" / "min-deps-constraints.txt"
# the book and grading tooling: the grader (run here on set 09 instead; its tests need
# nbformat, jupytext, kernels and a sandbox), the tools, the book's extensions that need
# Sphinx or docutils (_ext/libapi.py, the API page's layout) and the tests' helpers
TOOLING = ("lib.grading", "lib.notebooks", *(p.stem for p in (ROOT / "tools").glob("*.py")),
           *(p.stem for p in (ROOT / "_ext").glob("*.py")
             if re.search(r"^(from|import) (sphinx|docutils)\b", p.read_text(), re.MULTILINE)),
           *(p.stem for p in (ROOT / "tests").rglob("*.py") if not p.stem.startswith(("test_", "conftest"))))
# lib's modules that are not algorithms: the data download (its tests and the docs and CI
# tests, which import it for the archive's path, try nothing a floor version changes)
NOT_ALGORITHMS = ("lib.datasets",)


def imported(path):
    """The modules a Python file imports (absolute imports, anywhere in it)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            names |= {node.module} | {f"{node.module}.{alias.name}" for alias in node.names}
    return names


def _within(name, modules):
    return any(name == m or name.startswith(m + ".") for m in modules)


def lib_test_files(tests=ROOT / "tests" / "lib"):
    """lib's own test files, read from the tree: every tests/lib/test_*.py that imports one of
    lib's algorithm modules and nothing of the book and grading tooling (``TOOLING``)."""
    files = []
    for path in sorted(tests.glob("test_*.py")):
        names = imported(path)
        if (any(_within(n, ["lib"]) and n != "lib" and not _within(n, NOT_ALGORITHMS) for n in names)
                and not any(_within(n, TOOLING) for n in names)):
            files.append(path.name)
    return files


SET = ROOT / "exercises" / "09_density"


@pytest.fixture(scope="module")
def python():
    CONSTRAINTS.parent.mkdir(exist_ok=True)
    CONSTRAINTS.write_text(constraints())
    key = hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()
    return _venv(ENV, key, ["-c", str(CONSTRAINTS), "-e", ".[grade]", *TEST_PACKAGES])


def run(python, *args, cwd=ROOT):
    env = {**os.environ, "BAYES_COURSE_DATA": DATA, "PYDEVD_DISABLE_FILE_VALIDATION": "1",
           "PATH": f"{Path(python).parent}{os.pathsep}{os.environ['PATH']}"}
    env.pop("PYTHONPATH", None)
    env.pop("PYTEST_ADDOPTS", None)  # not the outer run's (a profiling plugin this venv does not have)
    return subprocess.run([str(python), *args], cwd=cwd, capture_output=True, text=True, env=env)


def test_the_venv_holds_exactly_the_floors(python):
    script = "import importlib.metadata as m, json, sys; print(json.dumps({n: m.version(n) for n in sys.argv[1:]}))"
    wanted = floors()
    installed = json.loads(run(python, "-c", script, *wanted).stdout)
    assert {n: Version(v) for n, v in installed.items()} == {n: Version(v) for n, v in wanted.items()}


def test_the_python_floor_is_the_python_tested(python):
    """pyproject.toml's requires-python names the Python these tests run on (the machine's,
    which makes every venv here), not an older one no test runs."""
    floor = re.fullmatch(r">=\s*(\d+\.\d+)", tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["requires-python"])
    assert floor, "requires-python is a lower bound only"
    tested = run(python, "-c", "import sys; print('%d.%d' % sys.version_info[:2])").stdout.strip()
    assert floor[1] == tested


def test_lib_test_files_are_read_from_the_tree():
    files = lib_test_files()
    assert {"test_hmm.py", "test_bn_dsep.py", "test_widgets.py", "test_validation_discrete.py"} <= set(files)
    assert not {"test_grading.py", "test_named_mistakes.py", "test_datasets.py", "test_docs.py", "test_min_deps.py",
                "test_api.py"} & set(files)


def test_libs_unit_tests_pass_at_the_floors(python):
    files = ["tests"] if os.environ.get("MIN_DEPS_UNIT") == "all" else [f"tests/lib/{f}" for f in lib_test_files()]
    result = run(python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", "not slow and not browser",
                 *files, "--doctest-modules", "lib")
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-2000:]


def test_the_colab_route_runs_at_the_runtime_floors():
    """Colab's versions, with which tests/test_launch.py runs every chapter and exercise set
    (the Colab route), are the floors of every runtime dependency: those runs are the
    chapters' lowest-versions runs."""
    colab = {pin.split("==")[0].lower().replace("_", "-"): pin.split("==")[1] for pin in COLAB}
    lowest = floors()
    assert {name: colab.get(name) for name in runtime()} == {name: lowest[name] for name in runtime()}


def test_the_grader_gives_set_09s_solution_full_marks_at_the_floors(python, tmp_path):
    assert run(python, "-m", "lib.grading", "release", str(SET), "--instructor",
               "--out", str(tmp_path / "solved")).returncode == 0
    [solution] = (tmp_path / "solved").rglob("*.ipynb")
    (tmp_path / "subs").mkdir()
    (tmp_path / "subs" / "solved.ipynb").write_bytes(solution.read_bytes())
    result = run(python, "-m", "lib.grading", "grade", "--source", str(SET), "--submissions", str(tmp_path / "subs"),
                 "--out", str(tmp_path / "out"), "--unsafe-no-sandbox", "--no-progress", "--workers", "1")
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    [row] = csv.DictReader(line for line in (tmp_path / "out" / "grades.csv").open() if not line.startswith("#"))
    assert float(row["total"]) == sum(q.points for q in read_source(SET).questions.values()), row


NP_NAME = re.compile(r"\bnp\.([A-Za-z_]\w*)")


def test_sources_use_only_what_the_floor_numpy_has(python):
    names = set(json.loads(run(python, "-c", "import json, numpy; print(json.dumps(dir(numpy)))").stdout))
    sources = [*ROOT.glob("chapters/*.md"), *ROOT.glob("exercises/*/*.md"), *ROOT.glob("lib/**/*.py")]
    used = {(path.relative_to(ROOT).as_posix(), name) for path in sources
            for name in NP_NAME.findall(path.read_text())}
    assert len({path for path, _ in used}) > 20, "no numpy calls found: is the pattern right?"
    assert sorted((path, f"np.{name}") for path, name in used if name not in names) == []
