"""How `make test` shares the work out (CONTRIBUTING.md, "What each stage runs"):
the pytest-xdist groups of tests/conftest.py, and what the Binder route and the
JupyterLab session run of a notebook when the book build's execution stands for the rest
(tests/launch/binder_env.py); the order in which the slow stage sends its scopes out; and that
what `make` runs keeps Python's bytecode cache."""
import ast
import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import nbformat
from binder_env import binder_imports, binder_runs, widget_cells

TESTS = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location("tests_conftest", TESTS / "conftest.py")  # not tests/browser's
conftest = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(conftest)


def scope(nodeid, lab_scopes=None):
    return conftest.xdist_scope(nodeid, {} if lab_scopes is None else lab_scopes)


def test_the_launch_routes_run_side_by_side_and_the_rest_of_their_file_together():
    launch = "tests/launch/test_launch.py::"
    assert scope(launch + "test_notebook_runs_in_the_binder_environment[chapters/01.ipynb]") == "launch-binder"
    assert scope(launch + "test_binder_has_the_book_builds_versions_of_what_the_notebooks_use") == "launch-binder"
    assert scope(launch + "test_notebook_runs_on_colab_after_its_own_set_up_cell[chapters/01.ipynb]") == "launch-colab"
    assert scope(launch + "test_the_colab_set_up_cell_installed_the_library_and_upgraded_nothing") == "launch-colab"
    assert scope(launch + "test_chapter_solutions_start_collapsed_and_still_run[01]") == "test_launch.py"
    defined = {n.name for n in ast.walk(ast.parse((TESTS / "test_launch.py").read_text()))
               if isinstance(n, ast.FunctionDef)}
    assert set(conftest.LAUNCH_ROUTES) <= defined, set(conftest.LAUNCH_ROUTES) - defined


def test_files_with_shared_fixtures_stay_in_one_worker_and_the_others_spread():
    assert scope("tests/launch/test_hub.py::test_the_links_clone_the_branch_into_the_readers_home") == "tests/launch/test_hub.py"
    assert scope("tests/grading/test_grading_sandbox.py::test_gradebook") == "tests/grading/test_grading_sandbox.py"
    one = "tests/grading/test_exercises.py::test_instructor_edition_full_marks_and_blank_release_zero[01_bayesian_learning]"
    assert scope(one) == one
    axe = "tests/browser/test_a11y.py::test_page_in_chromium[chapters/01_bayesian_learning.html-phone]"
    assert scope(axe) == axe
    assert conftest.SPREAD_FILES <= {p.name for p in TESTS.glob("test_*.py")}


def test_the_slow_stage_sends_its_longest_scopes_out_first():
    routes = set(conftest.LAUNCH_ROUTES.values())
    for name in conftest.FIRST_SCOPES:
        assert name in routes or (TESTS.parent / name).is_file(), f"FIRST_SCOPES: no scope {name!r}"
    launch = "tests/launch/test_launch.py::"
    ids = ["tests/book/test_book.py::test_a", "tests/launch/test_hub.py::test_b[1]", launch + "test_chapter_solutions[01]",
           launch + "test_notebook_runs_on_colab_after_its_own_set_up_cell[chapters/01.ipynb]",
           "tests/grading/test_grading_sandbox.py::test_c", launch + "test_notebook_runs_in_the_binder_environment[x]",
           "tests/launch/test_hub.py::test_b[2]", launch + "test_the_colab_set_up_cell_installed_the_library_and_upgraded_nothing"]
    scopes = list(dict.fromkeys(scope(i) for i in ids))  # in the order they come
    assert conftest.longest_first(scopes) == ["launch-colab", "tests/launch/test_hub.py", "tests/grading/test_grading_sandbox.py",
                                              "launch-binder", "tests/book/test_book.py", "test_launch.py"]


def test_what_make_runs_writes_and_reads_pythons_bytecode_cache():
    probe = f'probe:\n\t@{sys.executable} -c "import sys; print(sys.dont_write_bytecode)"'
    out = subprocess.run(["make", "-s", "--no-print-directory", f"--eval={probe}", "probe"], cwd=TESTS.parent,
                         env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}, capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.strip() == "False", out


def test_the_jupyterlab_tests_share_a_server_per_scope():
    lab_scopes = {}
    ids = ([f"tests/browser/test_binder_session.py::test_{k}" for k in range(3)]
           + [f"tests/browser/test_widget_latency.py::test_interactive[{k:02d}]" for k in range(9)])
    names = [scope(i, lab_scopes) for i in ids]
    assert names == [scope(i, lab_scopes) for i in ids], "the same test, the same scope"
    assert set(names) == {f"lab-{k}" for k in range(conftest.LAB_GROUPS)}
    counts = [names.count(n) for n in set(names)]
    assert max(counts) - min(counts) <= 1
    assert conftest.LAB_FILES <= {p.name for p in (TESTS / "browser").glob("test_*.py")}


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
                    "import numpy as np\nfrom lib.widgets import interactive_figure\nuse_course_style()",  # 1
                    "rng = np.random.default_rng(0)",                   # 2
                    "data = rng.normal(size=10)",                       # 3
                    "unused = np.arange(5)\nassert unused.sum() == 10",  # 4: not needed
                    "md:prose",                                         # 5
                    "rng.shuffle(data)",                                # 6: changes data
                    "fig = plot(unused)",                               # 7: not needed
                    "box = interactive_figure(plot, {'k': (1, 5)}, data=data)",  # 8
                    "box",                                              # 9
                    "after = data.mean()")                              # 10: after the figures
    assert widget_cells(path) == [0, 1, 2, 3, 6, 8, 9]
