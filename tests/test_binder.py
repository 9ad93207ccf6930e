"""Binder: a fresh environment made from binder/ alone runs the chapters.

This is what mybinder.org does (repo2docker installs binder/requirements.txt from the
repository root, then runs binder/postBuild), checked offline: the packages come from
the package index, and chapter 1 then executes in that environment.
"""
import json
import os
import subprocess
from pathlib import Path

import pytest

from binder_env import ROOT, binder_python


@pytest.fixture(scope="module")
def binder_env():
    return binder_python()


def test_runtime_pins_a_supported_python():
    assert (ROOT / "binder" / "runtime.txt").read_text().strip() in {"python-3.10", "python-3.11", "python-3.12"}


def test_requirements_install_the_course_library_from_the_repository():
    lines = (ROOT / "binder" / "requirements.txt").read_text().split("\n")
    assert "-e ." in lines


def test_postbuild_opens_markdown_chapters_as_notebooks(tmp_path):
    subprocess.run(["bash", str(ROOT / "binder" / "postBuild")], env={**os.environ, "HOME": str(tmp_path)}, check=True)
    settings = json.loads((tmp_path / ".jupyter" / "labconfig" / "default_setting_overrides.json").read_text())
    viewers = settings["@jupyterlab/docmanager-extension:plugin"]["defaultViewers"]
    assert viewers["markdown"] == "Jupytext Notebook"


def test_chapter_one_executes_in_the_binder_environment(binder_env, tmp_path):
    script = (
        "import sys, jupytext, nbclient\n"
        "nb = jupytext.read(sys.argv[1])\n"
        "nbclient.NotebookClient(nb, kernel_name='python3', timeout=300).execute()\n"
        "print('cells', len(nb.cells))\n"
    )
    chapter = ROOT / "chapters" / "01_bayesian_learning.md"
    result = subprocess.run([str(binder_env), "-c", script, str(chapter)], cwd=tmp_path,
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "cells" in result.stdout
    # the library was imported from this repository, not from somewhere else
    where = subprocess.run([str(binder_env), "-c", "import lib; print(lib.__file__)"],
                           capture_output=True, text=True, check=True).stdout
    assert Path(where.strip()).resolve().parent == ROOT / "lib"
