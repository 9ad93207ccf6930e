"""How `make test` shares the work out (CONTRIBUTING.md, "What each stage runs"):
the pytest-xdist groups of tests/conftest.py, and what the Binder route and the
JupyterLab session run of a notebook when the book build's execution stands for the rest
(tests/binder_env.py)."""
import importlib.util
from pathlib import Path
from types import SimpleNamespace

import nbformat
from binder_env import binder_run, widget_cells

TESTS = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location("tests_conftest", TESTS / "conftest.py")  # not tests/browser's
conftest = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(conftest)


def group(name, fixtures=(), lab_tests=None):
    item = SimpleNamespace(fixturenames=list(fixtures))
    return conftest.xdist_group(item, TESTS / name, [] if lab_tests is None else lab_tests)


def test_the_launch_routes_run_side_by_side_and_the_rest_of_their_file_together():
    assert group("test_launch.py", ["tree", "binder", "notebook"]) == "launch-binder"
    assert group("test_launch.py", ["tree", "colab", "notebook", "tmp_path"]) == "launch-colab"
    assert group("test_launch.py", ["colab"]) == "launch-colab"  # the upgraded-nothing check, after the runs
    assert group("test_launch.py", ["tree", "chapter"]) == "test_launch.py"


def test_files_with_shared_fixtures_stay_in_one_worker_and_the_others_spread():
    assert group("test_hub.py", ["hub", "reader"]) == "test_hub.py"
    assert group("test_grading_sandbox.py", ["batch"]) == "test_grading_sandbox.py"
    assert group("test_exercises.py", ["name", "tmp_path"]) is None
    assert group("browser/test_a11y.py", ["browser", "site_url"]) is None


def test_the_jupyterlab_tests_share_a_server_per_group():
    lab_tests = []
    names = [group(f"browser/{f}", ["lab"], lab_tests) for f in
             ["test_binder_session.py"] * 3 + ["test_widget_latency.py"] * 9]
    assert set(names) == {f"lab-{k}" for k in range(conftest.LAB_GROUPS)}
    assert len(lab_tests) == 12
    counts = [names.count(n) for n in set(names)]
    assert max(counts) - min(counts) <= 1


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
    run = binder_run(path)
    assert [c.source for c in run.cells] == ["print('set-up')", "import numpy as np\nfrom scipy import stats"]


def test_binder_runs_all_of_a_notebook_whose_code_depends_on_what_is_installed(tmp_path):
    for guarded in ["try:\n    import sklearn\nexcept ImportError:\n    sklearn = None",
                    "if find_spec('sklearn'):\n    from sklearn.svm import SVC",
                    "def fit():\n    import sklearn\n    return sklearn"]:
        path = notebook(tmp_path, "import numpy as np", guarded, "x = 1")
        assert binder_run(path) == nbformat.read(path, as_version=4)


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
