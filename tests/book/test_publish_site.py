"""Solutions are never published by accident: `make book EDITION=instructor` builds into a
folder of its own, the build marks a site built from solved notebooks (_ext/edition.py),
and tools/publish_site.sh (`make publish`, the publish workflow) refuses a marked site
before anything is pushed."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "_ext"))
import edition  # noqa: E402

SCRIPT = ROOT / "tools" / "publish_site.sh"


def make_dry_run(*args):
    return subprocess.run(["make", "--no-print-directory", "-n", "-B", *args], cwd=ROOT, capture_output=True, text=True, check=True,
                          env={**os.environ, "MAKEFLAGS": ""}).stdout


def test_the_instructor_edition_builds_into_its_own_folder():
    student, instructor = make_dry_run("book"), make_dry_run("book", "EDITION=instructor")
    assert "jupyter-book build . -W -n --keep-going --path-output .\n" in student
    assert "jupyter-book build . -W -n --keep-going --path-output _build/instructor\n" in instructor
    assert "--instructor" in instructor and "--instructor" not in student
    assert "_build/instructor" not in student
    # make publish publishes the student site; with EDITION=instructor, the marked folder
    assert make_dry_run("publish").strip() == "tools/publish_site.sh ./_build/html"
    assert make_dry_run("publish", "EDITION=instructor").strip() == "tools/publish_site.sh _build/instructor/_build/html"


@pytest.fixture(scope="module")
def released(tmp_path_factory):
    """Exercise set 1 as `make book` generates it (release_all, what
    tools/export_notebooks.py --exercises [--instructor] runs), per edition:
    ``{edition: the source folder of a build}``."""
    from lib.grading.source import release_all

    out = {}
    for name in ("student", "instructor"):
        src = tmp_path_factory.mktemp(name)
        release_all(ROOT / "exercises" / "01_bayesian_learning", src / "_generated" / "exercises",
                    instructor=name == "instructor")
        out[name] = src
    return out


def test_a_build_of_solved_notebooks_is_marked_and_a_student_build_is_not(released, tmp_path):
    html = tmp_path / "html"
    html.mkdir()
    assert edition.write_marker(released["instructor"], html) == [
        "_generated/exercises/01_bayesian_learning/01_bayesian_learning.ipynb"]
    assert "01_bayesian_learning.ipynb" in (html / edition.MARKER).read_text()
    edition.drop_stale_marker(released["instructor"], html)  # an instructor build keeps it
    assert (html / edition.MARKER).exists()
    # a student build into the same folder: no marker written; the stale one goes at its end
    assert edition.write_marker(released["student"], html) == []
    assert (html / edition.MARKER).exists()
    edition.drop_stale_marker(released["student"], html)
    assert not (html / edition.MARKER).exists()


def test_the_extension_is_loaded_by_the_book():
    import yaml

    config = yaml.safe_load((ROOT / "_config.yml").read_text())["sphinx"]
    assert config["local_extensions"]["edition"] == "_ext"


@pytest.fixture
def site(tmp_path):
    """A built site (index.html) and a fake ghp-import on PATH that records its arguments."""
    folder = tmp_path / "html"
    folder.mkdir()
    (folder / "index.html").write_text("<html></html>")
    bin_ = tmp_path / "bin"
    bin_.mkdir()
    (bin_ / "ghp-import").write_text(f'#!/bin/sh\nprintf "%s " "$@" >> {tmp_path}/pushed\n')
    (bin_ / "ghp-import").chmod(0o755)
    return folder, tmp_path / "pushed", {**os.environ, "PATH": f"{bin_}:{os.environ['PATH']}"}


def publish(env, *args):
    return subprocess.run([str(SCRIPT), *args], cwd=ROOT, capture_output=True, text=True, env=env)


def test_publishing_a_student_site_runs_ghp_import(site):
    folder, pushed, env = site
    assert publish(env, "--check", str(folder)).returncode == 0 and not pushed.exists()
    result = publish(env, str(folder))
    assert result.returncode == 0, result.stderr
    assert pushed.read_text() == f"-n -p -f {folder} "


def test_publishing_the_instructor_edition_is_refused_before_any_push(site):
    folder, pushed, env = site
    (folder / edition.MARKER).write_text("The instructor edition\n")
    for args in (["--check", str(folder)], [str(folder)]):
        result = publish(env, *args)
        assert result.returncode == 1 and "refusing to publish" in result.stderr and "instructor edition" in result.stderr
    assert not pushed.exists()


def test_a_folder_without_a_site_is_refused(site, tmp_path):
    _, pushed, env = site
    result = publish(env, str(tmp_path / "nothing"))
    assert result.returncode == 2 and "not a built site" in result.stderr and not pushed.exists()
