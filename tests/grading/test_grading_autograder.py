"""The Gradescope autograder package, unpacked into a fake /autograder layout and run.

``setup.sh`` is not run (it installs from the network); ``run_autograder`` is, with
``AUTOGRADER_ROOT`` pointing at the fake layout and ``AUTOGRADER_PYTHON`` at this
environment, on an honest and a blank submission.
"""
import json
import os
import subprocess
import sys
import zipfile

import nbformat
import pytest
from grading_helpers import FULL, NAME, SOURCE, answered, needs_bwrap, released  # noqa: F401 - fixture

from lib.grading.__main__ import main
from lib.grading.autograder import requirements

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("grading_autograder")]  # the Gradescope package graded in kernels

DOCUMENTED = {"score", "output", "tests"}
DOCUMENTED_TEST = {"name", "score", "max_score", "output", "visibility", "status"}


@pytest.fixture(scope="module")
def package(tmp_path_factory):
    out = tmp_path_factory.mktemp("package") / "autograder.zip"
    assert main(["autograder", str(SOURCE), "--out", str(out)]) == 0
    return out


def test_the_zip_holds_what_gradescope_asks_for(package):
    with zipfile.ZipFile(package) as z:
        names = set(z.namelist())
        assert {"setup.sh", "run_autograder", "requirements.txt"} <= names
        assert f"course/exercise/{NAME}/{NAME}.md" in names and "course/lib/grading/grade.py" in names
        assert not any("tests/" in n or "__pycache__" in n or "/exercises/" in n for n in names)
        for script in ("setup.sh", "run_autograder"):
            assert z.getinfo(script).external_attr >> 16 & 0o111
        setup = z.read("setup.sh").decode()
        assert "bubblewrap" in setup and "requirements.txt" in setup
        assert f"exercise/{NAME}" in z.read("run_autograder").decode()
        reqs = z.read("requirements.txt").decode().split()
    assert reqs == requirements() and any(r.startswith("nbclient") for r in reqs)
    for script in ("setup.sh", "run_autograder"):
        with zipfile.ZipFile(package) as z:
            text = z.read(script).decode()
        assert subprocess.run(["bash", "-n"], input=text, text=True).returncode == 0


def _run(package, tmp_path, notebook):
    root = tmp_path / "autograder"
    with zipfile.ZipFile(package) as z:
        z.extractall(root / "source")
    (root / "submission").mkdir()
    if notebook is not None:
        nbformat.write(notebook, root / "submission" / "my_work.ipynb")
        (root / "submission" / ".ipynb_checkpoints").mkdir()
    env = dict(os.environ, AUTOGRADER_ROOT=str(root), AUTOGRADER_PYTHON=sys.executable)
    env.pop("PYTHONPATH", None)
    proc = subprocess.run(["bash", str(root / "source" / "run_autograder")], env=env,
                          capture_output=True, text=True, timeout=600)
    results = root / "results" / "results.json"
    return proc, json.loads(results.read_text()) if results.exists() else None


@needs_bwrap
@pytest.mark.parametrize("kind", ["honest", "blank"])
def test_run_autograder_on_a_fake_layout(package, released, tmp_path, kind):
    notebook = answered(released[0]) if kind == "honest" else nbformat.read(released[0], as_version=4)
    proc, results = _run(package, tmp_path, notebook)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert set(results) <= DOCUMENTED
    assert results["score"] == (8 if kind == "honest" else 0)
    assert [t["name"] for t in results["tests"]] == list(FULL)
    for t in results["tests"]:
        assert set(t) == DOCUMENTED_TEST and t["visibility"] == "visible"
        assert t["status"] == ("passed" if kind == "honest" else "failed")
        assert t["max_score"] == FULL[t["name"]]
    if kind == "blank":
        assert all("not answered yet" in t["output"] for t in results["tests"])
