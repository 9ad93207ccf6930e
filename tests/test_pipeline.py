"""How `make test` shares the work out (CONTRIBUTING.md, "What each stage runs"):
the pytest-xdist groups and markers the test files set (tests/conftest.py), the order in
which the slow stage sends its groups out, and what the Binder route and the JupyterLab
session run of a notebook when the book build's execution stands for the rest
(tests/launch/binder_env.py); and that what `make` runs keeps Python's bytecode cache."""
import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from binder_env import binder_imports, binder_runs, nested_modules, widget_cells

TESTS = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location("tests_conftest", TESTS / "conftest.py")  # not tests/browser's
conftest = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(conftest)
# A plugin that prints each collected test, in the order the run sends them out, with its
# pytest-xdist group (its xdist_group marks joined as pytest-xdist joins them) and markers.
PROBE = """
import pytest

@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items):
    for item in items:
        groups = {str(m.args[0] if m.args else m.kwargs["name"]) for m in item.iter_markers("xdist_group")}
        marks = {m.name for m in item.iter_markers()} & {"slow", "browser"}
        print("ITEM", item.nodeid, "_".join(sorted(groups)) or "-", ",".join(sorted(marks)) or "-", sep="\\t")
"""
SLOW = ["tests/book/test_book.py", "tests/grading/test_exercises.py", "tests/grading/test_grading_sandbox.py",
        "tests/launch/test_hub.py", "tests/launch/test_launch.py", "tests/launch/test_min_deps.py"]


@pytest.fixture(scope="module")
def collected(tmp_path_factory):
    """``[(node id, group, markers)]`` of the slow stage's collection of SLOW and of tests/browser."""
    where = tmp_path_factory.mktemp("probe")
    (where / "xdist_probe.py").write_text(PROBE)
    out = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
                          "-p", "xdist_probe", *SLOW, "tests/browser"], cwd=TESTS.parent, capture_output=True, text=True,
                         env={**{k: v for k, v in os.environ.items() if k != "PYTEST_ADDOPTS"},  # not the outer run's
                              "PYTHONPATH": str(where)})
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    return [tuple(line.split("\t")[1:]) for line in out.stdout.splitlines() if line.startswith("ITEM\t")]


def groups(collected, prefix):
    return {group for nodeid, group, _ in collected if nodeid.startswith(prefix)}


def test_the_launch_routes_run_side_by_side_and_the_rest_of_their_file_together(collected):
    launch = "tests/launch/test_launch.py::"
    assert groups(collected, launch + "test_notebook_runs_in_the_binder_environment[") == {"binder_launch"}
    assert groups(collected, launch + "test_binder_has_the_book_builds_versions_of_what_the_notebooks_use") == {"binder_launch"}
    assert groups(collected, launch + "test_notebook_runs_on_colab_after_its_own_set_up_cell[") == {"colab_launch"}
    assert groups(collected, launch + "test_the_colab_set_up_cell_installed_the_library_and_upgraded_nothing") == {"colab_launch"}
    assert groups(collected, launch + "test_chapter_solutions_start_collapsed_and_still_run[") == {"launch"}
    assert groups(collected, launch) == {"binder_launch", "colab_launch", "launch"}


def test_files_with_shared_fixtures_stay_in_one_worker_and_the_others_spread(collected):
    assert groups(collected, "tests/launch/test_hub.py::") == {"hub"}
    assert groups(collected, "tests/grading/test_grading_sandbox.py::") == {"grading_sandbox"}
    assert groups(collected, "tests/launch/test_min_deps.py::") == {"min_deps"}
    assert groups(collected, "tests/grading/test_exercises.py::") == {"-"}
    assert groups(collected, "tests/browser/") <= {"-"}


def test_slow_and_browser_tests_are_marked_in_their_files(collected):
    marks = {nodeid: mark for nodeid, _, mark in collected}
    assert {m for n, m in marks.items() if n.startswith("tests/browser/")} <= {"browser,slow"}
    for name in ["tests/launch/test_launch.py::", "tests/launch/test_hub.py::", "tests/grading/test_exercises.py::"]:
        assert {m for n, m in marks.items() if n.startswith(name)} == {"slow"}, name
    book = {n: m for n, m in marks.items() if n.startswith("tests/book/test_book.py::")}
    assert book["tests/book/test_book.py::test_a_failing_cell_fails_the_strict_build"] == "slow"
    assert "-" in book.values()  # the rest of the file is fast


def test_the_slow_stage_sends_its_longest_groups_out_first(collected):
    first = list(dict.fromkeys(group for _, group, _ in collected))[:len(conftest.FIRST_GROUPS)]
    assert first == conftest.FIRST_GROUPS


def test_pytest_xdist_runs_a_group_in_one_worker(tmp_path):
    """The groups are pytest-xdist's own (``--dist loadgroup``): with pytest 9.2 and
    pytest-xdist 3.8 they are silently ignored (pyproject.toml pins pytest below 9.2)."""
    (tmp_path / "test_group.py").write_text(
        "import os, pytest\n"
        "@pytest.mark.parametrize('k', range(6))\n"
        "@pytest.mark.xdist_group('together')\n"
        "def test_k(k):\n"
        "    open(f'worker-{k}', 'w').write(os.environ['PYTEST_XDIST_WORKER'])\n")
    out = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "2", "--dist", "loadgroup",
                          "test_group.py"], cwd=tmp_path, capture_output=True, text=True)
    assert out.returncode == 0, out.stdout[-3000:]
    assert len({(tmp_path / f"worker-{k}").read_text() for k in range(6)}) == 1


def test_what_make_runs_writes_and_reads_pythons_bytecode_cache():
    probe = f'probe:\n\t@{sys.executable} -c "import sys; print(sys.dont_write_bytecode)"'
    out = subprocess.run(["make", "-s", "--no-print-directory", f"--eval={probe}", "probe"], cwd=TESTS.parent,
                         env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}, capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.strip() == "False", out


def notebook(tmp_path, *sources):
    nb = nbformat.v4.new_notebook()
    setup = nbformat.v4.new_code_cell("print('set-up')")
    setup.id = "course-setup"
    nb.cells = [setup] + [nbformat.v4.new_markdown_cell(s[3:]) if s.startswith("md:") else nbformat.v4.new_code_cell(s)
                          for s in sources]
    path = tmp_path / "nb.ipynb"
    nbformat.write(nb, path)
    return path


def test_binder_runs_the_set_up_cell_and_every_import(tmp_path):
    path = notebook(tmp_path, "import numpy as np\nx = np.ones(3)", "md:text",
                    "%matplotlib inline\nfrom scipy import stats\nimport numpy as np\nstats.norm.pdf(x)")
    assert binder_imports(path) == ["import numpy as np", "from scipy import stats"]
    [(run, covered)] = binder_runs([path])
    assert [c.source for c in run.cells] == ["print('set-up')", "import numpy as np\nfrom scipy import stats"]
    assert covered == [path]


def test_binder_runs_all_of_a_notebook_whose_code_depends_on_what_is_installed(tmp_path):
    for guarded in ["try:\n    import sklearn\nexcept ImportError:\n    sklearn = None",
                    "if find_spec('sklearn'):\n    from sklearn.svm import SVC",
                    "def fit():\n    import sklearn\n    return sklearn"]:
        path = notebook(tmp_path, "import numpy as np", guarded, "x = 1")
        assert binder_imports(path) is None
        assert binder_runs([path]) == [(nbformat.read(path, as_version=4), [path])]


def test_a_guarded_import_the_binder_venv_can_make_runs_as_an_import(tmp_path):
    """With ``missing`` known, only a guarded import of a module the venv lacks makes the
    notebook run whole; one it has runs with the other imports (the book build, with the
    same versions, took the same branch)."""
    path = notebook(tmp_path, "import numpy as np", "try:\n    from sklearn.svm import SVC\nexcept ImportError:\n    SVC = None",
                    "def fit():\n    import pgmpy.estimators\n    return pgmpy")
    assert binder_imports(path, missing=set()) == ["import numpy as np", "from sklearn.svm import SVC",
                                                   "import pgmpy.estimators"]
    assert binder_imports(path, missing={"pgmpy"}) is None
    assert binder_imports(path, missing={"scipy"}) is not None
    assert nested_modules([path]) == {"sklearn", "pgmpy"}


def test_binder_runs_the_imports_of_all_other_notebooks_in_one_kernel(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "c").mkdir()
    first = notebook(tmp_path / "a", "import numpy as np\nx = np.ones(2)")
    guarded = notebook(tmp_path / "b", "try:\n    import sklearn\nexcept ImportError:\n    pass")
    second = notebook(tmp_path / "c", "import numpy as np\nfrom lib.bn import BayesNet\nnet = BayesNet()")
    runs = binder_runs([first, guarded, second])
    assert [covered for _, covered in runs] == [[guarded], [first, second]]
    assert [c.source for c in runs[1][0].cells] == ["print('set-up')", "import numpy as np\nfrom lib.bn import BayesNet"]


def test_the_widget_cells_and_what_they_need_but_no_other_cell(tmp_path):
    path = notebook(tmp_path,
                    "import numpy as np\nfrom lib.plots.interactive import interactive_figure\nuse_course_style()",  # 1
                    "rng = np.random.default_rng(0)",                   # 2
                    "data = rng.normal(size=10)",                       # 3
                    "unused = np.arange(5)\nassert unused.sum() == 10",  # 4: not needed
                    "md:prose",                                         # 5
                    "rng.shuffle(data)",                                # 6: changes data
                    "fig = plot(unused)",                               # 7: not needed
                    "from lib.em import em_history\nimport scipy\nfor k in range(3):\n"
                    "    assert em_history(data, k)",                   # 8: needed for its imports only
                    "assert data.mean() > -5 and np.all(data.copy() < 9)",  # 9: reads data, changes nothing
                    "try:\n    import pgmpy\nexcept ImportError:\n    pgmpy = None",  # 10: a guarded import, not needed
                    "box = interactive_figure(plot, {'k': (1, 5)}, data=data)",  # 11
                    "box",                                              # 12
                    "after = data.mean()")                              # 13: after the figures
    assert widget_cells(path) == {0: None, 1: None, 2: None, 3: None, 6: None,
                                  8: "from lib.em import em_history\nimport scipy", 11: None, 12: None}
