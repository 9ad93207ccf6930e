"""The suite, laid out by what it tests: ``tests/lib/`` (lib's unit tests, one file per
module), ``tests/book/`` (chapters, the build, claims, notation, documents, exercise
content), ``tests/grading/`` (the grader and the exercise sets graded), ``tests/launch/``
(Binder, Colab, the hub, the published branch, the lowest versions) and
``tests/browser/`` (Chromium); ``tests/`` itself holds the tests of the suite and CI.

Each file sets its own markers (``pytestmark``, or a decorator on a few tests):

* ``slow``: executes notebooks in kernels, builds a book, creates a venv, or grades in the
  sandbox (the stages of `make test` after the unit tests);
* ``browser``: drives Chromium (every file of tests/browser/, `make browser`).

`make unit` runs ``-m "not slow and not browser"`` in parallel (pytest-xdist).

pytest-xdist groups (`make slow` runs ``--dist loadgroup``): a file whose module fixture
is expensive (a hub, a sandbox batch, a venv) marks itself ``xdist_group``, so that one
worker runs it in order and makes the fixture once; tests/launch/test_launch.py is three
groups (the Binder route, the Colab route, the rest of the file), so that the two venvs
run side by side; tests without a group go one by one to the next free worker. The
JupyterLab tests need no group: browser-lab runs in one process, with one server.
"""

# `make unit` passes --doctest-modules (for lib/): the two conftest.py files are plugins,
# not modules to collect (both are named `conftest`).
collect_ignore = ["conftest.py", "browser/conftest.py"]

# The longest groups of the slow stage (make test, 2026-11-27: 445, 266, 231 and 127 s
# under load) go out first, so that none of them is left running alone at the end:
# pytest-xdist hands the groups out in collection order, which is sorted here.
FIRST_GROUPS = ["colab_launch", "min_deps", "hub", "grading_sandbox", "binder_launch"]


def xdist_group(item):
    """The group pytest-xdist gives ``item`` (its ``xdist_group`` marks, joined as xdist
    joins them), or None."""
    names = {str(m.args[0] if m.args else m.kwargs.get("name", "default")) for m in item.iter_markers("xdist_group")}
    return "_".join(sorted(names)) or None


def pytest_collection_modifyitems(items):
    rank = {group: i for i, group in enumerate(FIRST_GROUPS)}
    items.sort(key=lambda item: rank.get(xdist_group(item), len(rank)))


def pytest_ignore_collect(collection_path, config):
    """The slow stage (``-m "slow and not browser"``) does not import a test file that marks
    no test slow (no ``mark.slow`` in its text): its workers' collection skips the unit
    tests' imports (scikit-learn, pgmpy) and the tables some build on import."""
    if (config.option.markexpr == "slow and not browser" and collection_path.suffix == ".py"
            and collection_path.name.startswith("test_") and "mark.slow" not in collection_path.read_text()):
        return True
    return None
