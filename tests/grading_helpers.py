"""Shared pieces of the grading tests: the chapter 1 set, its answers, notebook editing."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from lib.grading.source import release_all

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "tests" / "data" / "grading" / "01_bayesian_learning"  # a frozen copy of the set
SOURCE_FILE = SOURCE / "01_bayesian_learning.md"
NAME = "01_bayesian_learning"
FULL = {"q1": 2, "q2": 3, "q3": 2, "q4": 1}

PREDICTIVE = '''def predictive(data, prior=prior):
    """P(next candy is lime | data)."""
    {pre}
    data = np.asarray(data)
    joint = prior * lime ** data.sum() * (1 - lime) ** (len(data) - data.sum())
    return float(joint @ lime / joint.sum())'''
ANSWERS = {
    "q1": "answer_q1 = prior * lime**3 / np.sum(prior * lime**3)",
    "q2": PREDICTIVE.format(pre="pass"),
    "q3": "answer_q3 = 4",
    "q4": 'answer_q4 = "b"',
}


# The sandbox needs bubblewrap (.ci/run installs it); without it these tests cannot run.
needs_bwrap = pytest.mark.skipif(shutil.which("bwrap") is None,
                                 reason="bubblewrap (bwrap) is not installed: apt-get install bubblewrap")


@pytest.fixture(scope="module")
def released(tmp_path_factory):
    """The student and the instructor notebooks of the chapter 1 set."""
    out = tmp_path_factory.mktemp("release")
    student = release_all(SOURCE, out / "student")[0]
    instructor = release_all(SOURCE, out / "instructor", instructor=True)[0]
    return student, instructor


def answered(student, **answers):
    """The student notebook with the correct answers, except ``answers`` (cell sources)."""
    nb = nbformat.read(student, as_version=4)
    for q, source in {**ANSWERS, **answers}.items():
        cells = [c for c in nb.cells if c.cell_type == "code"
                 and c.metadata.get("grading", {}).get("question") == q
                 and not c.source.startswith("check(")]
        cells[-1].source = source
    return nb


def add_cell(nb, source, before_question=None):
    """Insert a code cell at the end, or before the first cell of ``before_question``."""
    index = len(nb.cells)
    if before_question:
        index = next(i for i, c in enumerate(nb.cells)
                     if c.metadata.get("grading", {}).get("question") == before_question)
    nb.cells.insert(index, nbformat.v4.new_code_cell(source))
    return nb


def private_checkout(tmp):
    """A copy of the course (lib, exercises, tests, pyproject) in a folder of mode 0700.

    The sandbox's user cannot enter it: the grader must still work from there.
    """
    tmp = Path(tmp)
    os.chmod(tmp, 0o700)
    copy = tmp / "course"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for name in ("lib", "exercises", "tests"):
        shutil.copytree(ROOT / name, copy / name, ignore=ignore)
    shutil.copytree(SOURCE, copy / "exercises" / NAME, dirs_exist_ok=True)  # the frozen set 01
    shutil.copy2(ROOT / "pyproject.toml", copy / "pyproject.toml")
    return copy


def run_in(checkout, code, *args, timeout=900):
    """Run Python ``code`` with ``checkout`` as the course (its ``lib`` first on the path)."""
    env = dict(os.environ, PYTHONPATH=str(checkout))
    return subprocess.run([sys.executable, "-c", code, *map(str, args)], cwd=checkout, env=env,
                          capture_output=True, text=True, timeout=timeout)
