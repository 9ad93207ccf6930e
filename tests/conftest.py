"""Markers for the whole suite, set here by file (and for a few tests by name) so that the
test files need no decorators: `make unit` runs ``-m "not slow and not browser"`` in
parallel (pytest-xdist) in a few minutes; `make test` runs everything.

* ``slow``: executes notebooks in kernels, builds a book, creates a venv, or grades in the
  sandbox (the stages of `make test` after the unit tests);
* ``browser``: drives Chromium (everything under tests/browser/, `make browser`).

A new test file that starts kernels, builds or venvs belongs in ``SLOW_FILES`` (or its
slow tests in ``SLOW_TESTS``); ``tests/test_markers.py`` times nothing but checks that
these names still exist.
"""
from collections import OrderedDict
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent

# `make unit` passes --doctest-modules (for lib/): the two conftest.py files are plugins,
# not modules to collect (both are named `conftest`).
collect_ignore = ["conftest.py", "browser/conftest.py"]

# Whole files: every test in them starts a kernel, a build, a venv or a sandbox.
SLOW_FILES = {
    "test_launch.py",              # Binder-like and Colab-like venvs run every notebook
    "test_exercises.py",           # grades every exercise set in fresh kernels
    "test_grading_sandbox.py",     # bubblewrap sandboxes, a Debian-Python venv, kernels
    "test_grading_autograder.py",  # the Gradescope package graded in kernels
    "test_grading_class_run.py",   # a class of 30 from Canvas and Moodle layouts, in the sandbox
    "test_instructors_walkthrough.py",  # instructors.md's start-to-finish commands in a fresh clone
    "test_min_deps.py",            # a venv of the lowest allowed versions: lib tests, chapters, grader
}

# Single tests (file -> test function names) in otherwise fast files.
SLOW_TESTS = {
    "test_book.py": {"test_a_failing_cell_fails_the_strict_build",
                     "test_pre_execution_fills_the_cache_that_the_strict_build_reads",
                     "test_a_failing_cell_stops_pre_execution_and_caches_nothing"},
    "test_build_one.py": {"test_links_to_other_chapters_resolve_and_unknown_labels_still_fail"},
    "test_binder.py": {"test_binder_environment_has_the_library_from_the_repository_and_no_build_tools",
                       "test_installed_package_finds_its_data_outside_a_checkout"},
    "test_grading.py": {"test_released_notebook_runs_headless_renamed_and_writes_nothing"},
    "test_polls.py": {"test_the_graders_kernel_is_read_in_slices",
                      "test_the_book_pre_executors_kernels_are_read_in_slices"},
    "test_bn_structure_mcmc.py": {"test_order_mcmc_matches_exact_averaging_over_20_data_sets"},
    "test_bn_structural_em.py": {"test_heart_disease_structure_is_recovered_on_most_samples"},
    "test_executed_notebooks.py": {"test_every_notebook_was_executed_by_the_book_build",
                                   "test_the_sites_ipynb_download_is_a_student_notebook",
                                   "test_the_sites_chapter_download_runs_on_colab"},
}


# pytest-xdist scopes (`--dist loadgroup` in `make slow` and `make browser`): the tests of a
# scope run in one worker, in order, so a module's expensive fixture (a hub, a sandbox
# batch, a venv's state) is made once. Slow tests are grouped by file; the launch routes
# are two scopes (Binder, Colab) so the two venvs run side by side; the JupyterLab tests
# share one server per scope (LAB_GROUPS of them); the other browser tests, and those of
# SPREAD_FILES, go one by one to the next free worker. The scopes are read from the node
# ids by the scheduler below: pytest-xdist 3.8's own `xdist_group` marks are silently
# ignored by pytest 9.2 (pytest-xdist issue #1386), so none are used.
LAUNCH_ROUTES = {
    "test_binder_has_the_book_builds_versions_of_what_the_notebooks_use": "launch-binder",
    "test_notebook_runs_in_the_binder_environment": "launch-binder",
    "test_notebook_runs_on_colab_after_its_own_set_up_cell": "launch-colab",
    "test_the_colab_set_up_cell_installed_the_library_and_upgraded_nothing": "launch-colab",  # after the runs
}
LAB_FILES = {"test_binder_session.py", "test_widget_latency.py"}
LAB_GROUPS = 2
SPREAD_FILES = {"test_exercises.py"}  # no shared fixture
# The longest scopes of the slow stage (make test, 2026-11-27: 445, 266, 231 and 127 s
# under load) go out first, so that none of them is left running alone at the end.
FIRST_SCOPES = ["launch-colab", "tests/launch/test_min_deps.py", "tests/launch/test_hub.py", "tests/grading/test_grading_sandbox.py", "launch-binder"]


def xdist_scope(nodeid, lab_scopes):
    """The scope of a test (``lab_scopes``: node id -> scope of the JupyterLab tests seen so
    far, which alternate between LAB_GROUPS scopes in collection order)."""
    path, _, rest = nodeid.partition("::")
    name, function = Path(path).name, rest.split("[")[0]
    if name == "test_launch.py":
        return LAUNCH_ROUTES.get(function, name)
    if name in LAB_FILES:
        return lab_scopes.setdefault(nodeid, f"lab-{len(lab_scopes) % LAB_GROUPS}")
    if "browser" in Path(path).parts or name in SPREAD_FILES:
        return nodeid
    return path


def pytest_xdist_make_scheduler(config, log):
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class ScopeScheduling(LoadScopeScheduling):
        lab_scopes = {}

        def _split_scope(self, nodeid):
            return xdist_scope(nodeid, self.lab_scopes)

        def _assign_work_unit(self, node):  # the queue of scopes, FIRST_SCOPES first
            self.workqueue = OrderedDict((s, self.workqueue[s]) for s in longest_first(self.workqueue))
            super()._assign_work_unit(node)

    return ScopeScheduling(config, log)


def longest_first(scopes):
    """The scopes of FIRST_SCOPES first, in that order, then the others as they came."""
    rank = {scope: i for i, scope in enumerate(FIRST_SCOPES)}
    return sorted(scopes, key=lambda scope: rank.get(scope, len(rank)))


def pytest_collection_modifyitems(config, items):
    for item in items:
        path = Path(str(item.fspath))
        if TESTS / "browser" in path.parents:
            item.add_marker(pytest.mark.browser)
            item.add_marker(pytest.mark.slow)
        elif path.name in SLOW_FILES or getattr(item, "originalname", None) in SLOW_TESTS.get(path.name, ()):
            item.add_marker(pytest.mark.slow)
