"""Gradescope autograder package of one exercise, and its run on Gradescope.

``python -m lib.grading autograder exercises/NN_topic --out autograder.zip`` writes
the zip Gradescope asks for ("Configure Autograder", zip upload):

* ``setup.sh`` (run once when Gradescope builds the image): installs Python,
  bubblewrap and ``requirements.txt`` into a virtual environment;
* ``run_autograder`` (run for each submission): grades ``/autograder/submission`` with
  the same grader as ``grade`` (sandbox, self-test of the instructor solution first)
  and writes ``/autograder/results/results.json`` with Gradescope's documented fields
  (``score``, ``output``, ``tests[]`` with ``name``, ``score``, ``max_score``,
  ``output``, ``visibility``, ``status`` ``passed``/``failed``);
* ``requirements.txt``, the course's ``lib`` package (``course/lib``) and the
  exercise folder (``course/exercise/NN_topic``; only the grader reads it).

Paths are configurable for testing: ``AUTOGRADER_ROOT`` (instead of ``/autograder``)
and ``AUTOGRADER_PYTHON`` (instead of the environment ``setup.sh`` makes).
"""
import json
import os
import re
import shutil
import stat
import tempfile
import zipfile
from pathlib import Path

from .gradebook import atomic_write
from .isolation import ROOT
from .source import find_source, read_source

SETUP = """#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder image.
set -euo pipefail
AG="${AUTOGRADER_ROOT:-/autograder}"
apt-get update -qq
apt-get install -y -qq python3 python3-venv python3-pip bubblewrap
python3 -m venv "$AG/venv"
"$AG/venv/bin/python" -m pip install --quiet --upgrade pip
"$AG/venv/bin/python" -m pip install --quiet -r "$AG/source/requirements.txt"
"""

RUN = """#!/usr/bin/env bash
# Gradescope runs this for every submission: grade $AG/submission into
# $AG/results/results.json with the course's grader (sandboxed, see instructors.md).
set -euo pipefail
AG="${{AUTOGRADER_ROOT:-/autograder}}"
PY="${{AUTOGRADER_PYTHON:-$AG/venv/bin/python}}"
export PYTHONPATH="$AG/source/course"
cd "$AG/source/course"
exec "$PY" -m lib.grading run-autograder --root "$AG" \\
    --source "$AG/source/course/exercise/{name}"
"""

def requirements():
    """What the grader needs: the course's runtime dependencies and its ``grade`` extra
    (``dependencies`` and ``[project.optional-dependencies] grade`` of pyproject.toml)."""
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    deps = []
    for key in ("dependencies", "grade"):
        block = re.search(rf"^{key}\s*=\s*\[(.*?)\]", text, re.S | re.M)
        deps += re.findall(r'"([^"]+)"', block.group(1)) if block else []
    return deps


def build(source, out):
    """Write the autograder zip of the exercise ``source`` to ``out``; returns its path."""
    exercise = read_source(source)
    folder = find_source(source).parent
    out = Path(out)
    files = {
        "setup.sh": SETUP,
        "run_autograder": RUN.format(name=exercise.name),
        "requirements.txt": "\n".join(requirements()) + "\n",
    }
    tmp = out.with_name(f".{out.name}.tmp")
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as z:
        for name, text in files.items():
            info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
            info.external_attr = (0o755 if name != "requirements.txt" else 0o644) << 16
            z.writestr(info, text)
        for path in sorted((ROOT / "lib").rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts and not path.name.startswith("."):
                z.write(path, f"course/lib/{path.relative_to(ROOT / 'lib')}")
        for path in sorted(folder.iterdir()):
            if path.is_file() and not path.is_symlink() and not path.name.startswith("."):
                z.write(path, f"course/exercise/{exercise.name}/{path.name}")
    os.replace(tmp, out)
    return out


def run_autograder(root, source):
    """Grade ``root/submission`` (one student's upload) and write ``root/results/results.json``.

    The exercise folder (solutions, hidden tests) is made root's alone first (folders
    0700, files 0600). In the sandbox, or where bubblewrap cannot start (Gradescope's
    Docker container), as an unprivileged uid that cannot read it (``fallback``); never
    without either. Refusals (no sandbox, instructor solution not at full marks) raise
    ``ValueError`` and write no results: Gradescope then reports the autograder as
    failed rather than giving the student 0.
    """
    from .grade import grade

    root, source = Path(root), Path(source)
    for folder, _, files in os.walk(source):
        os.chmod(folder, 0o700)
        for name in files:
            os.chmod(Path(folder) / name, 0o600)
    with tempfile.TemporaryDirectory(prefix="autograder-") as tmp:
        subs, out = Path(tmp) / "subs", Path(tmp) / "out"
        subs.mkdir()
        upload = subs / "submission"
        shutil.copytree(root / "submission", upload, symlinks=True,
                        ignore=lambda d, names: [n for n in names if _special(Path(d) / n)])
        [result] = grade(source, subs, out, workers=1, fallback=True)
        results = json.loads((out / "submissions" / result["id"] / "results.json").read_text())
    (root / "results").mkdir(parents=True, exist_ok=True)
    atomic_write(root / "results" / "results.json", json.dumps(results, indent=1) + "\n")
    return results


def _special(path):
    """FIFOs, sockets and devices are not copied (their names still count)."""
    mode = os.lstat(path).st_mode
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode) or stat.S_ISLNK(mode))

