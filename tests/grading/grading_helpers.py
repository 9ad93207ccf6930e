"""Shared pieces of the grading tests: the chapter 1 set, its answers, notebook editing."""
import fcntl
import hashlib
import os
import shutil
import stat
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import nbformat
import pytest
from binder_env import UV, UV_ENV

from lib.grading.source import release_all

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / "tests" / "grading" / "data" / "01_bayesian_learning"  # a frozen copy of the set
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


def with_answers(instructor, answers=None):
    """The solved notebook ``instructor`` (its text) with the answer cells of ``answers``
    ({question: cell source}) replaced: a generated submission."""
    nb = nbformat.read(instructor, as_version=4)
    for q, text in (answers or {}).items():
        cells = [c for c in nb.cells if c.cell_type == "code" and not c.source.startswith("check(")
                 and c.metadata.get("grading", {}).get("question") == q]
        cells[-1].source = text
    return nbformat.writes(nb)


def lms_download(path, layout, instructor, plan, due):
    """A bulk download zipped as the LMS gives it, each entry's time its submission time.

    ``plan``: ``(full name, LMS user id, answers, hours after due)`` per submission
    (``answers`` as :func:`with_answers`). ``layout`` ``canvas``: flat files
    ``<lastfirst>[_late]_<user id>_<attachment id>_<file>`` (``_late`` when after ``due``);
    ``moodle``: ``<Full Name>_<participant id>_assignsubmission_file_/<file>``.
    """
    with zipfile.ZipFile(path, "w") as zf:
        for k, (name, user, answers, hours) in enumerate(plan):
            first, last = name.lower().split()
            entry = (f"{last}{first}{'_late' * (hours > 0)}_{user}_{70000 + k}_{NAME}.ipynb" if layout == "canvas"
                     else f"{name}_{user}_assignsubmission_file_/{NAME}.ipynb")
            when = time.localtime(due.timestamp() + hours * 3600)[:6]  # unzip reads it as local time
            zf.writestr(zipfile.ZipInfo(entry, when), with_answers(instructor, answers))
    return path


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


NOBODY = ["setpriv", "--reuid", "65534", "--regid", "65534", "--clear-groups"]


def world_readable_python():
    """A venv of Debian's ``/usr/bin/python3`` with what grading needs, that every user can
    run (the project's own venv may rest on a Python under ``/root``, mode 0700).

    It lives in ``/var/tmp`` under a fixed name and is made again only when
    ``pyproject.toml`` or the base Python change (key file), or when it is not this
    user's own folder, closed to everybody else's writes. The course's ``lib`` is not
    installed: the grader uses the checkout's, as ``run_autograder`` does.
    """
    from lib.grading.autograder import requirements

    base = Path("/usr/bin/python3")
    if not os.access(base, os.X_OK):
        pytest.skip("no system /usr/bin/python3 to build a venv every user can run")
    where = Path("/var/tmp") / f"bayes-course-grading-venv-{os.geteuid()}"
    key = hashlib.sha256((ROOT / "pyproject.toml").read_bytes() + os.path.realpath(base).encode()
                         + str(os.stat(os.path.realpath(base)).st_mtime).encode()).hexdigest()
    stamp = where / ".env-key"
    with open(f"{where}.lock", "a") as lock:  # one builder at a time (parallel test runs)
        fcntl.flock(lock, fcntl.LOCK_EX)
        info = os.lstat(where) if os.path.lexists(where) else None
        owned = info and stat.S_ISDIR(info.st_mode) and info.st_uid == os.geteuid() and not info.st_mode & 0o022
        if not owned or not stamp.exists() or stamp.read_text() != key:
            if info and not stat.S_ISDIR(info.st_mode):
                os.unlink(where)
            shutil.rmtree(where, ignore_errors=True)
            made = subprocess.run([str(base), "-m", "venv", "--without-pip", str(where)], capture_output=True, text=True)
            assert made.returncode == 0, f"apt-get install python3-venv? {made.stderr[-2000:]}"
            # uv (tests/launch/binder_env.py) installs what pip would, for a sixth of its CPU
            installed = subprocess.run([str(UV), "pip", "install", "--quiet", "--python", str(where / "bin" / "python"),
                                        *requirements()], capture_output=True, text=True, env=UV_ENV)
            assert installed.returncode == 0, installed.stderr[-3000:]
            subprocess.run(["chmod", "-R", "u+rwX,go+rX,go-w", str(where)], check=True)
            stamp.write_text(key)
    return where / "bin" / "python"
