"""The `notebooks` branch as readers fetch it: published by tools/publish_notebooks.sh
(the script .github/workflows/publish.yml runs) into a local bare repository, cloned,
and updated by nbgitpuller (its own GitPuller) after a second publish.

Also: the student notebook ``python -m lib.grading release`` writes is the one the
launch buttons open, and its set-up cell says which front-end piece is missing.
"""
import re
import shutil
import subprocess
import sys

import nbformat
import pytest
from binder_env import CONFIG, ROOT, button_links, launch_tree, named_notebook, notebook_pages, publish, published_clone
from nbgitpuller.pull import GitPuller

from lib.grading.source import release_all
from lib.notebooks import setup_cell

BRANCH = CONFIG["repository"]["branch"]
HUB = "https://hub.university.edu"


def git(where, *args):
    return subprocess.run(["git", "-C", str(where), *args], capture_output=True, text=True, check=True).stdout.strip()


def pull(remote, clone):
    """What the JupyterHub button does: nbgitpuller clones, or updates an existing clone."""
    return "".join(GitPuller(str(remote), str(clone), branch=BRANCH).pull())


@pytest.fixture(scope="module")
def published(tmp_path_factory):
    return published_clone(tmp_path_factory.mktemp("publish"))


def test_every_notebook_a_button_names_is_in_the_published_clone(published, tmp_path):
    _, clone = published
    pages = notebook_pages()
    assert len(pages) == 18, pages  # 9 chapters and 9 exercise sets
    named = set()
    for page in pages:
        links = {**button_links(page, tmp_path, ""), **button_links(page, tmp_path, HUB)}
        assert {"Binder", "Colab", "JupyterHub"} <= set(links), (page, links)
        for route in ("Binder", "Colab", "JupyterHub"):
            path = named_notebook(route, links[route])
            assert path == f"{page}.ipynb", (route, links[route])
            nb = nbformat.read(clone / path, as_version=4)  # in the clone, a valid notebook
            nbformat.validate(nb)
            assert nb.cells[0].id == setup_cell.CELL_ID
            named.add(path)
    in_clone = {str(p.relative_to(clone)) for p in clone.rglob("*.ipynb") if ".git" not in p.parts}
    assert in_clone == named, "every notebook of the branch has a button, and every button a notebook"
    assert git(clone, "status", "--porcelain") == ""


def test_the_branch_has_its_own_gitignore_and_no_sources_or_workflows(published):
    _, clone = published
    tracked = git(clone, "ls-files").split("\n")
    assert ".gitignore" in tracked and "chapters/*.ipynb" not in (clone / ".gitignore").read_text()
    assert not [t for t in tracked if t.startswith(("exercises/", ".github/")) or t.endswith(".md") and
                t.startswith("chapters/")]
    for name in ["pyproject.toml", "binder/requirements.txt", "lib/notebooks/setup_cell.py"]:
        assert name in tracked, name


# what marks a solution or a hidden test in an exercise source (lib/grading/source.py)
SOLUTION_MARKS = re.compile(r"^\s*# (BEGIN SOLUTION|HIDDEN TESTS)\b|#\s*SOLUTION\s*$", re.MULTILINE)


def test_no_file_of_the_branch_holds_a_solution(tmp_path):
    """Students browse the `notebooks` branch (Binder's and the hub's file browser): no file
    there holds an exercise source's solutions or hidden tests (the grader's own code, which
    defines the marks, excepted)."""
    tree = launch_tree(tmp_path / "tree")
    assert (tree / "_generated" / "exercises").is_dir()
    found = [str(path.relative_to(tree)) for path in tree.rglob("*") if path.is_file()
             and "lib/grading" not in path.relative_to(tree).as_posix()
             and SOLUTION_MARKS.search(path.read_text(errors="replace"))]
    assert found == []
    source = ROOT / "exercises" / "01_bayesian_learning" / "01_bayesian_learning.md"
    assert SOLUTION_MARKS.search(source.read_text()), "the marks are the exercise sources' own"


def test_a_tree_whose_gitignore_hides_the_notebooks_is_refused(tmp_path):
    """The first publish of publish.yml committed 0 notebooks: main's .gitignore came along."""
    tree = launch_tree(tmp_path / "tree")
    (tree / ".gitignore").write_text((ROOT / ".gitignore").read_text())
    subprocess.run(["git", "init", "-q", "--bare", str(tmp_path / "remote.git")], check=True)
    result = publish(tree, tmp_path / "remote.git")
    assert result.returncode == 1 and "chapters/01_bayesian_learning.ipynb" in result.stderr, result.stderr
    assert git(tmp_path / "remote.git", "branch", "--list") == ""  # nothing pushed


def test_a_republish_commits_on_top_and_a_readers_edited_copy_updates(tmp_path):
    remote, _ = published_clone(tmp_path)
    tree, reader = tmp_path / "launch-tree", tmp_path / "hub-home" / "bayesian-learning"
    pull(remote, reader)  # the reader's first click: a clone (depth 1, as on a hub)
    first = git(remote, "rev-parse", BRANCH)

    # The reader works: answers exercise 1's first question, runs chapter 1 (outputs saved),
    # deletes chapter 2 by mistake and saves a notebook of their own.
    exercise = reader / "_generated/exercises/01_bayesian_learning/01_bayesian_learning.ipynb"
    nb = nbformat.read(exercise, as_version=4)
    answer = next(c for c in nb.cells if c.cell_type == "code" and "= ..." in c.source)
    answer.source = answer.source.replace("= ...", "= 0.5  # my answer", 1)
    nbformat.write(nb, exercise)
    chapter = reader / "chapters/01_bayesian_learning.ipynb"
    nb = nbformat.read(chapter, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text="ran\n")]
            cell.execution_count = 1
    nbformat.write(nb, chapter)
    (reader / "chapters/02_estimation.ipynb").unlink()
    (reader / "chapters/my_notes.ipynb").write_text(nbformat.writes(nbformat.v4.new_notebook()))

    # The course changes: a sentence of chapter 1 and of exercise 1, and a new notebook.
    for path in [chapter, exercise]:
        nb = nbformat.read(tree / path.relative_to(reader), as_version=4)
        text = next(c for c in nb.cells if c.cell_type == "markdown")
        text.source += "\n\nA sentence added in the second edition."
        nbformat.write(nb, tree / path.relative_to(reader))
    (tree / "chapters/10_new.ipynb").write_text(nbformat.writes(nbformat.v4.new_notebook()))
    result = publish(tree, remote)
    assert result.returncode == 0, result.stderr
    second = git(remote, "rev-parse", BRANCH)
    assert git(remote, "rev-parse", f"{second}^") == first, "the second publish is a commit on top of the first"
    assert publish(tree, remote).stdout.startswith(f"{BRANCH} of {remote} already holds")  # nothing new

    log = pull(remote, reader)  # the reader clicks again
    assert "Automatic commit by nbgitpuller" in log and "refusing" not in log
    assert git(reader, "merge-base", "--is-ancestor", second, "HEAD") == ""  # the update is merged
    for path in [chapter, exercise]:
        nb = nbformat.read(path, as_version=4)
        nbformat.validate(nb)
        assert "A sentence added in the second edition." in "".join(c.source for c in nb.cells)
    assert "= 0.5  # my answer" in exercise.read_text()
    assert all(c.outputs for c in nbformat.read(chapter, as_version=4).cells
               if c.cell_type == "code"), "the reader's outputs survive"
    assert (reader / "chapters/02_estimation.ipynb").is_file(), "a deleted notebook comes back"
    assert (reader / "chapters/10_new.ipynb").is_file() and (reader / "chapters/my_notes.ipynb").is_file()


def test_the_released_student_notebooks_are_the_launch_branchs(published, tmp_path):
    """`python -m lib.grading release` (what an instructor hands out) writes, byte for byte,
    the exercise notebooks the launch buttons open, set-up cell included."""
    _, clone = published
    subprocess.run([sys.executable, "-m", "lib.grading", "release", "exercises", "--out", str(tmp_path / "out")],
                   cwd=ROOT, check=True, capture_output=True)
    released = sorted(p.relative_to(tmp_path / "out") for p in (tmp_path / "out").rglob("*") if p.is_file())
    assert released and all((clone / "_generated/exercises" / p).read_bytes() == (tmp_path / "out" / p).read_bytes()
                            for p in released)
    for path in (tmp_path / "out").rglob("*.ipynb"):
        first = nbformat.read(path, as_version=4).cells[0]
        assert first.id == setup_cell.CELL_ID and first.source == SOURCE


# The set-up cell of this course (the repository of its _config.yml)
SOURCE = setup_cell.source((CONFIG["repository"]["url"], CONFIG["repository"]["branch"]))


def test_the_set_up_cell_installs_from_the_configured_repository(tmp_path):
    assert f"git+{CONFIG['repository']['url']}@{CONFIG['repository']['branch']}" in SOURCE
    assert setup_cell.course_repository(ROOT / "exercises") == (CONFIG["repository"]["url"], BRANCH)
    # a course team's fork: its own _config.yml names its repository, and the released
    # notebooks install from it
    fork = tmp_path / "fork"
    shutil.copytree(ROOT / "exercises" / "01_bayesian_learning", fork / "exercises" / "01_bayesian_learning")
    config = (ROOT / "_config.yml").read_text()
    assert config.count(CONFIG["repository"]["url"]) == 1
    (fork / "_config.yml").write_text(config.replace(CONFIG["repository"]["url"], "https://github.com/a-team/their-fork"))
    [released] = release_all(fork / "exercises", tmp_path / "out")
    cell = nbformat.read(released, as_version=4).cells[0]
    assert "git+https://github.com/a-team/their-fork@notebooks" in cell.source
    assert CONFIG["repository"]["url"] not in cell.source
    (fork / "_config.yml").write_text("title: no repository\n")
    with pytest.raises(ValueError, match="no repository.url"):
        release_all(fork / "exercises", tmp_path / "out")


def run_set_up_cell(folder, source=SOURCE):
    """The set-up cell run by a python without site-packages (no course library) in
    ``folder``, its pip replaced by a stand-in that installs a course library (a package
    ``lib`` with ``bayes.py``) into a folder of its own on the path; the finished process."""
    fake_pip = f'''import subprocess, sys
def pip(command, check):
    print("pip:", command[-1])
    package = {str(folder.parent / "installed" / "lib")!r}
    __import__("os").makedirs(package, exist_ok=True)
    for name in ("__init__.py", "bayes.py"):
        open(package + "/" + name, "w").write("")
    sys.path.append(package.rsplit("/", 1)[0])
subprocess.run = pip
'''
    code = fake_pip + source + "\nimport lib.bayes\nprint('course library:', lib.__file__)"
    return subprocess.run([sys.executable, "-S", "-c", code], cwd=folder, capture_output=True, text=True,
                          env={"PATH": "/usr/bin:/bin"})


def test_an_empty_lib_folder_beside_the_notebook_is_not_the_course_library(tmp_path):
    (tmp_path / "content" / "lib").mkdir(parents=True)  # a namespace package to Python
    result = run_set_up_cell(tmp_path / "content")
    assert result.returncode == 0, result.stderr
    out = result.stdout.splitlines()
    assert out[0] == f"pip: git+{CONFIG['repository']['url']}@{BRANCH}"
    assert out[-1] == f"course library: {tmp_path / 'installed' / 'lib' / '__init__.py'}"


def test_a_notebook_written_outside_a_course_names_the_missing_repository(tmp_path):
    (tmp_path / "content").mkdir()
    assert setup_cell.course_repository(tmp_path) is None
    result = run_set_up_cell(tmp_path / "content", setup_cell.source(None))
    assert result.returncode == 1 and "pip:" not in result.stdout
    assert "names no repository to install it from" in result.stderr


def test_the_course_library_found_is_not_installed_again(tmp_path):
    (tmp_path / "content" / "lib").mkdir(parents=True)
    for name in ("__init__.py", "bayes.py"):
        (tmp_path / "content" / "lib" / name).write_text("")
    result = run_set_up_cell(tmp_path / "content")
    assert result.returncode == 0, result.stderr
    assert "pip:" not in result.stdout
    assert result.stdout.splitlines()[-1] == f"course library: {tmp_path / 'content' / 'lib' / '__init__.py'}"


def test_another_package_called_lib_that_hides_the_installed_one_is_named(tmp_path):
    (tmp_path / "content" / "lib").mkdir(parents=True)
    (tmp_path / "content" / "lib" / "__init__.py").write_text("")  # not the course's: no bayes.py
    result = run_set_up_cell(tmp_path / "content")
    assert result.returncode == 1 and "pip:" in result.stdout
    assert f"the folder {tmp_path / 'content' / 'lib' / '__init__.py'} hides it: rename that folder" in result.stderr


@pytest.mark.parametrize("missing, colab, notes", [
    ((), False, []),
    (("jupyterlab_myst",), False, ["no jupyterlab-myst"]),
    (("jupyterlab_widgets",), False, ["No widget front end"]),
    (("jupyterlab_myst", "jupyterlab_widgets"), True, ["no jupyterlab-myst"]),  # Colab has its own widgets
])
def test_the_set_up_cell_names_the_missing_front_end(monkeypatch, capsys, missing, colab, notes):
    import lib

    monkeypatch.setitem(sys.modules, "lib", lib)  # the course library
    for name in ("jupyterlab_myst", "jupyterlab_widgets"):
        monkeypatch.setitem(sys.modules, name, None if name in missing else sys.modules.get(name, sys))
    if colab:
        monkeypatch.setitem(sys.modules, "google.colab", sys)
    exec(SOURCE, {})
    out = [line for line in capsys.readouterr().out.splitlines() if line.startswith("Note:")]
    assert len(out) == len(notes) and all(n in line for n, line in zip(notes, out)), out


def test_the_set_up_cell_installs_a_missing_library_and_asks_for_a_reload_of_new_widgets(monkeypatch, capsys):
    installed = []

    import lib

    def pip(command, check):  # instead of pip: the library and the widget front end appear
        installed.append(command)
        monkeypatch.setitem(sys.modules, "lib", lib)
        monkeypatch.setitem(sys.modules, "jupyterlab_widgets", sys)

    for name in ("lib", "jupyterlab_widgets"):
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.setitem(sys.modules, "jupyterlab_myst", sys)
    monkeypatch.setattr(subprocess, "run", pip)
    monkeypatch.setenv("BAYES_COURSE_REPO", "/somewhere/clone")
    exec(SOURCE, {})
    assert installed == [[sys.executable, "-m", "pip", "install", "--quiet", "/somewhere/clone"]]
    assert "reload this page" in capsys.readouterr().out
