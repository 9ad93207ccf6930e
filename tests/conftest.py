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
}

# Single tests (file -> test function names) in otherwise fast files.
SLOW_TESTS = {
    "test_book.py": {"test_a_failing_cell_fails_the_strict_build",
                     "test_the_same_book_builds_when_the_cell_passes"},
    "test_build_one.py": {"test_links_to_other_chapters_resolve_and_unknown_labels_still_fail"},
    "test_binder.py": {"test_binder_environment_has_the_library_from_the_repository_and_no_build_tools",
                       "test_installed_package_finds_its_data_outside_a_checkout"},
    "test_grading.py": {"test_released_notebook_runs_headless_renamed_and_writes_nothing"},
    "test_executed_notebooks.py": {"test_every_notebook_was_executed_by_the_book_build"},
}


# pytest-xdist groups (`--dist loadgroup` in `make slow` and `make browser`): the tests of a
# group run in one worker, in order, so a module's expensive fixture (a hub, a venv's
# state) is made once. Slow tests are grouped by file; the launch routes are two groups
# (Binder, Colab) so the two venvs run side by side; the JupyterLab tests share one
# server per group (LAB_GROUPS of them); the other browser tests spread over the workers.
LAUNCH_GROUPS = {"binder": "launch-binder", "colab": "launch-colab"}
LAB_FILES = {"test_binder_session.py", "test_widget_latency.py"}
LAB_GROUPS = 2
SPREAD_FILES = {"test_exercises.py"}  # no shared fixture: each test to the next free worker


def xdist_group(item, path, lab_tests):
    if path.name == "test_launch.py":
        route = next((LAUNCH_GROUPS[f] for f in LAUNCH_GROUPS if f in getattr(item, "fixturenames", ())), None)
        return route or path.name
    if path.name in LAB_FILES:
        lab_tests.append(item)
        return f"lab-{(len(lab_tests) - 1) % LAB_GROUPS}"
    return None if TESTS / "browser" in path.parents or path.name in SPREAD_FILES else path.name


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the groups
def pytest_collection_modifyitems(config, items):
    lab_tests = []
    for item in items:
        path = Path(str(item.fspath))
        if TESTS / "browser" in path.parents:
            item.add_marker(pytest.mark.browser)
            item.add_marker(pytest.mark.slow)
        elif path.name in SLOW_FILES or getattr(item, "originalname", None) in SLOW_TESTS.get(path.name, ()):
            item.add_marker(pytest.mark.slow)
        if item.get_closest_marker("slow"):
            group = xdist_group(item, path, lab_tests)
            if group:
                item.add_marker(pytest.mark.xdist_group(group))
