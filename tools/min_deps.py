"""The lowest versions the course declares, as pip constraints (scikit-learn's min-dependencies job).

    python tools/min_deps.py            print them: ``name==floor`` for every floor of pyproject.toml

The floors have one source, pyproject.toml: every requirement of ``dependencies`` and of
the ``grade`` extra (what a reader's kernel and the grader need), and of the ``test``
extra those that lib's unit tests, nbval and pytest use in the lowest-versions
environment (``TEST_PACKAGES``). Each must have a ``>=`` floor. tests/launch/test_min_deps.py
installs exactly these versions in a venv (``_build/min-deps-venv``), runs lib's unit
tests and the grader on exercise set 09 there, and checks that the venv holds exactly
these versions; the runtime floors are Colab's versions, with which tests/test_launch.py
runs every chapter and exercise set.
"""
import sys
import tomllib
from pathlib import Path

from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[1]

# Of the `test` extra: what the lowest-versions environment runs lib's tests with (the
# reference libraries the tests compare against, pytest and its plugins). The others
# (Chromium, JupyterLab, the linter, nbgitpuller) serve tests that run in .venv only.
TEST_PACKAGES = ["pytest", "pytest-xdist", "nbval", "scikit-learn", "hmmlearn", "pgmpy", "networkx"]


def _name(requirement):
    return requirement.name.lower().replace("_", "-")


def runtime(pyproject=ROOT / "pyproject.toml"):
    """The names of the runtime ``dependencies`` (what a reader's kernel needs)."""
    return sorted(_name(Requirement(r)) for r in tomllib.loads(Path(pyproject).read_text())["project"]["dependencies"])


def floors(pyproject=ROOT / "pyproject.toml"):
    """``{name: floor}`` of the runtime, ``grade`` and (``TEST_PACKAGES``) ``test`` requirements."""
    project = tomllib.loads(Path(pyproject).read_text())["project"]
    extras = project["optional-dependencies"]
    requirements = [Requirement(r) for r in project["dependencies"] + extras["grade"]]
    tests = {_name(r): r for r in map(Requirement, extras["test"])}
    missing = sorted(set(TEST_PACKAGES) - set(tests))
    if missing:
        raise ValueError(f"{pyproject}: TEST_PACKAGES {missing} are not in the test extra")
    result = {}
    for requirement in requirements + [tests[name] for name in TEST_PACKAGES]:
        lowest = [s.version for s in requirement.specifier if s.operator == ">="]
        if len(lowest) != 1:
            raise ValueError(f"{pyproject}: {requirement} has no floor (one `>=` lower bound)")
        result[_name(requirement)] = lowest[0]
    return result


def constraints(pyproject=ROOT / "pyproject.toml"):
    """pip's constraints file: one ``name==floor`` a line."""
    return "".join(f"{name}=={version}\n" for name, version in floors(pyproject).items())


if __name__ == "__main__":
    sys.stdout.write(constraints())
