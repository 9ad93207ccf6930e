"""Every launch route runs the notebooks readers open.

The notebooks are those of a clone of the `notebooks` branch as readers fetch it:
tools/export_notebooks.py writes the launch tree, tools/publish_notebooks.sh (the script
.github/workflows/publish.yml runs) publishes it into a local bare repository, and the
tests clone that. Each notebook is executed once per `make test` in each environment that
differs from the book build's in what it runs:

* a Colab-like venv with Colab's preinstalled (older) versions and no course library, from
  a folder outside any checkout (like Colab's /content): every notebook of the clone runs
  top to bottom in a fresh kernel; its own first cell installs the library, from
  $BAYES_COURSE_REPO pointed at the clone. The Colab route must also upgrade nothing:
  after all the notebooks ran, the venv holds what Colab had plus the course library,
  same versions.
* a Binder-like venv made from binder/requirements.txt alone (tests/launch/binder_env.py; the
  clone's binder/ is the same), with the clone's `lib` first on the path as repo2docker's
  `-e .` in the clone would have it. Its packages are the book build's, same versions
  (asserted here), so the strict book build's execution of every notebook stands for
  running the code cells there; what Binder changes is what is installed. So a notebook
  whose code depends on that (an import in a ``try``/``if`` or function of a module the
  Binder venv lacks, where the book build takes the other branch) runs top to bottom in a
  fresh Binder kernel; of the others (today all: Binder has scikit-learn and pgmpy, the
  libraries the chapters guard, at the book build's versions, asserted here), the set-up
  cell and every import of every code cell, guarded ones included, run there, all in one
  fresh kernel. (The JupyterLab session of tests/browser/ also runs the interactive
  figures in this venv.)

Each notebook runs as a test of pytest's nbval plugin (``pytest --nbval-lax``, with the
venv's python, tests/launch/binder_env.run_notebooks: one nbval process per route, one
fresh kernel per notebook): any error fails the test, and the report names the failing
cell.
"""
import importlib.metadata
import re
import shutil
import subprocess
import sys
import tomllib

import nbformat
import pytest
from binder_env import (
    COLAB,
    ROOT,
    binder_python,
    binder_runs,
    colab_python,
    freeze,
    missing_modules,
    nested_modules,
    published_clone,
    run_notebooks,
)

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("launch")]  # Binder-like and Colab-like venvs run every notebook

CHAPTERS = sorted(p.stem for p in (ROOT / "chapters").glob("*.md"))
EXERCISES = sorted(p.name for p in (ROOT / "exercises").iterdir() if (p / f"{p.name}.md").is_file())
NOTEBOOKS = [f"chapters/{c}.ipynb" for c in CHAPTERS] + [f"_generated/exercises/{e}/{e}.ipynb" for e in EXERCISES]


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    """A reader's clone of the published `notebooks` branch."""
    return published_clone(tmp_path_factory.mktemp("launch"))[1]


@pytest.fixture(scope="module")
def binder(tree):
    """The Binder venv's python, and the environment in which its kernels import the clone's `lib`."""
    for name in ["requirements.txt", "runtime.txt"]:
        assert (tree / "binder" / name).read_text() == (ROOT / "binder" / name).read_text()
    python, env = binder_python(), {"PYTHONPATH": str(tree)}
    where = subprocess.run([str(python), "-c", "import lib; print(lib.__file__)"], cwd="/", capture_output=True,
                           text=True, check=True, env={**env, "PATH": "/usr/bin:/bin"}).stdout.strip()
    assert where == str(tree / "lib" / "__init__.py")
    return python, env


@pytest.fixture(scope="module")
def colab(tmp_path_factory):
    python = colab_python(tmp_path_factory.mktemp("colab") / "venv")
    return python, freeze(python)


def test_the_launch_branch_holds_one_notebook_per_chapter_and_exercise(tree):
    assert sorted(p.name for p in (tree / "chapters").iterdir()) == [f"{c}.ipynb" for c in CHAPTERS]
    assert sorted(str(p.relative_to(tree)) for p in tree.rglob("*.ipynb") if ".git" not in p.parts) == sorted(NOTEBOOKS)
    assert not (tree / "exercises").exists(), "exercise sources (with solutions) stay off the launch branch"
    for name in ["pyproject.toml", "binder/requirements.txt", "lib/data/networks/alarm.bif.gz"]:
        assert (tree / name).is_file(), name


def test_every_notebook_starts_with_the_same_set_up_cell(tree):
    first = {path: nbformat.read(tree / path, as_version=4).cells[0] for path in NOTEBOOKS}
    sources = {cell.source for cell in first.values()}
    assert len(sources) == 1 and all(c.cell_type == "code" and c.id == "course-setup" for c in first.values())
    assert "BAYES_COURSE_REPO" in sources.pop()


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_chapter_markdown_keeps_only_what_jupyterlab_myst_resolves(tree, chapter):
    nb = nbformat.read(tree / "chapters" / f"{chapter}.ipynb", as_version=4)
    markdown = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    everything = "\n".join(c.source for c in nb.cells)
    for gone in ["{cite}", "{glue:md}", "{literalinclude}", "\\newcommand", "\\given", "\\argmax", "\\E "]:
        assert gone not in markdown, gone
    for role, body in re.findall(r"\{(ref|numref|eq)\}`([^`]*)`", markdown):
        label = re.sub(r".*<([^>]+)>$", r"\1", body)
        defined = rf"(^\({re.escape(label)}\)=|name:\s*{re.escape(label)}\s*$|:label:\s*{re.escape(label)}\s*$|\$\$\s*\({re.escape(label)}\))"
        assert re.search(defined, everything, re.M), f"{chapter}: {{{role}}}`{body}` points outside the notebook"
    source = (ROOT / "chapters" / f"{chapter}.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", markdown, re.S)  # each literalinclude: the included code
    assert len(blocks) >= source.count("{literalinclude}") and all(b.strip() for b in blocks)


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_chapter_solutions_start_collapsed_and_still_run(tree, chapter):
    source = (ROOT / "chapters" / f"{chapter}.md").read_text()
    nb = nbformat.read(tree / "chapters" / f"{chapter}.ipynb", as_version=4)
    solutions = re.findall(r"```\{solution-start\}.*?```\n(.*?)```\{solution-end\}", source, re.S)
    assert solutions
    hidden = [c for c in nb.cells if c.metadata.get("jupyter", {}).get("source_hidden")]
    shown = " ".join(" ".join(c.source.split()) for c in nb.cells if c not in hidden)
    for body in solutions:
        for code in re.findall(r"```\{code-cell\}[^\n]*\n(?::[^\n]*\n)*(.*?)```", body, re.S):
            match = [c for c in hidden if c.cell_type == "code" and c.source.endswith(code.strip())]
            assert match and all(c.metadata["jupyter"]["outputs_hidden"] for c in match), code[:80]
        prose = re.sub(r"```\{code-cell\}.*?```|\+\+\+[^\n]*", "", body, flags=re.S).split()
        if prose:
            assert " ".join(prose[:12]) not in shown, f"{chapter}: solution text shown: {' '.join(prose[:12])}"


def test_runtime_dependencies_are_a_readers_not_the_graders():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    names = {re.split(r"[<>=!~\[ ]", d)[0].lower() for d in project["dependencies"]}
    assert {"numpy", "scipy", "matplotlib", "ipywidgets", "pandas"} <= names
    assert not names & {"nbclient", "nbformat", "ipykernel", "jupytext", "myst-nb", "jupyter-book"}
    grade = " ".join(project["optional-dependencies"]["grade"])
    assert all(name in grade for name in ["nbclient", "nbformat", "ipykernel", "jupytext"])


# What the notebooks' code depends on: the course library's runtime dependencies, and the
# distributions of what the notebooks import in a try/if or function (scikit-learn, pgmpy).
RUNTIME = sorted({re.split(r"[<>=!~\[ ]", d)[0].lower()
                  for d in tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]})


def guarded_distributions(tree):
    """The distributions (book build's venv) of the modules the notebooks import in a block."""
    owners = importlib.metadata.packages_distributions()
    return sorted({d.lower() for m in nested_modules([tree / n for n in NOTEBOOKS]) for d in owners.get(m, [])})


@pytest.mark.xdist_group("binder")
@pytest.mark.slow
def test_binder_has_the_book_builds_versions_of_what_the_notebooks_use(tree, binder):
    python, _ = binder
    binder_versions, book_versions = freeze(python), freeze(sys.executable)
    guarded = guarded_distributions(tree)
    assert {"scikit-learn", "pgmpy"} <= set(guarded), guarded
    differ = {name: (binder_versions.get(name), book_versions.get(name)) for name in RUNTIME + guarded
              if binder_versions.get(name) != book_versions.get(name)}
    assert not differ, ("Binder's versions (first) differ from the book build's: the book build no longer "
                        f"stands for running the notebooks on Binder: {differ}")


@pytest.fixture(scope="module")
def binder_results(tree, binder):
    """``{notebook: None, or what failed in the Binder run that stands for it}``: each run
    (tests/binder_env.binder_runs) executed once by nbval, beside the first notebook it
    stands for."""
    python, env = binder
    results = {}
    paths = [tree / n for n in NOTEBOOKS]
    missing = missing_modules(python, nested_modules(paths), **env)  # guarded imports Binder cannot make
    runs = {notebooks[0].with_name(f"binder-{notebooks[0].name}"): (nb, notebooks)  # same folder, same paths
            for nb, notebooks in binder_runs(paths, missing)}
    for path, (nb, _) in runs.items():
        nbformat.write(nb, path)
    try:
        failures = run_notebooks(python, runs, **env)
    finally:
        for path in runs:
            path.unlink()
    for path, (_, notebooks) in runs.items():
        results.update(dict.fromkeys(notebooks, failures[path]))
    return results


@pytest.mark.xdist_group("binder")
@pytest.mark.slow
@pytest.mark.parametrize("notebook", NOTEBOOKS)
def test_notebook_runs_in_the_binder_environment(tree, binder_results, notebook):
    failure = binder_results[tree / notebook]
    assert failure is None, f"{notebook} failed on Binder:\n{failure}"


@pytest.fixture(scope="module")
def colab_results(tree, colab, tmp_path_factory):
    """``{notebook: None, or what failed on Colab}``: each notebook copied alone, with its
    folder's data files, into a folder of its own outside any checkout (as Colab opens one
    in /content), then all run in the order of NOTEBOOKS (the first one's set-up cell
    installs the course library) by one nbval process, each in its own kernel."""
    python, _ = colab
    base = tmp_path_factory.mktemp("colab-content")
    copies = {}
    for i, notebook in enumerate(NOTEBOOKS):
        content = base / f"{i:02d}"
        shutil.copytree((tree / notebook).parent, content)
        copies[content / (tree / notebook).name] = notebook
    return {copies[path]: failure for path, failure in run_notebooks(python, copies, BAYES_COURSE_REPO=str(tree)).items()}


@pytest.mark.xdist_group("colab")
@pytest.mark.slow
@pytest.mark.parametrize("notebook", NOTEBOOKS)
def test_notebook_runs_on_colab_after_its_own_set_up_cell(colab_results, notebook):
    failure = colab_results[notebook]
    assert failure is None, f"{notebook} failed on Colab:\n{failure}"


REQUIRES = """
import importlib.metadata as m, re, sys
todo, seen = [sys.argv[1]], set()
while todo:
    name = re.sub(r"[-_.]+", "-", todo.pop()).lower()
    if name not in seen:
        seen.add(name)
        try:
            todo += [re.split(r"[<>=!~;\\[ (]", r, maxsplit=1)[0] for r in m.requires(name) or [] if "extra ==" not in r]
        except m.PackageNotFoundError:
            pass
print(" ".join(sorted(seen)))
"""


def requirements(python, package):
    """``package`` and everything it requires (not its extras), as the venv of ``python`` has them."""
    out = subprocess.run([str(python), "-c", REQUIRES, package], capture_output=True, text=True, check=True)
    return set(out.stdout.split())


@pytest.mark.xdist_group("colab")
@pytest.mark.slow
def test_the_colab_set_up_cell_installed_the_library_and_upgraded_nothing(colab):
    python, before = colab
    after = freeze(python)
    assert "bayes-course-lib" not in before
    assert after.pop("bayes-course-lib", None) == "0.1.0", "the set-up cell did not install the course"
    # Chapter 6's pgmpy comparison installs pgmpy where it is missing: it may add pgmpy and
    # what pgmpy requires, and change nothing that was there
    added = set(after) - set(before)
    assert not added or added <= requirements(python, "pgmpy"), added - requirements(python, "pgmpy")
    assert {k: after[k] for k in before} == before, {k: (v, after.get(k)) for k, v in before.items()
                                                     if after.get(k) != v}
    for pin in COLAB:  # Colab's versions are the ones the kernel ran with
        name, version = pin.split("==")
        assert after[name.lower().replace("_", "-")] == version


@pytest.mark.slow
def test_nbval_runs_every_cell_and_names_the_one_that_fails(tmp_path):
    """The launch routes' harness (binder_env.run_notebooks, here with this venv's python):
    a notebook passes only when nbval ran each of its code cells without error, in its own
    folder, also when it shares the nbval process with others; a failure names the cell
    and its traceback."""
    def notebook(name, *cells):
        nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells], metadata={
            "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}})
        (tmp_path / name).parent.mkdir(exist_ok=True)
        nbformat.write(nb, tmp_path / name)
        return tmp_path / name

    good = notebook("good/good.ipynb", "import os\nhere = os.getcwd()", f"assert here == {str(tmp_path / 'good')!r}")
    bad = notebook("bad.ipynb", "x = 1", "x / 0", "y = 2")
    assert run_notebooks(sys.executable, [good])[good] is None
    failures = run_notebooks(sys.executable, [bad, good])  # one process; each in its own kernel and folder
    assert failures[good] is None
    assert failures[bad].startswith("nbval: 1 failed, 2 passed (3 code cells)")
    assert "bad.ipynb::Cell 1" in failures[bad] and "ZeroDivisionError" in failures[bad] and "\x1b[" not in failures[bad]
    # a notebook whose cells nbval never ran (an unreadable file) fails with pytest's report
    broken = tmp_path / "broken.ipynb"
    broken.write_text("{not json")
    failures = run_notebooks(sys.executable, [good, broken])
    assert failures[good] is None and failures[broken].startswith("nbval: 0 failed, 0 passed (unreadable code cells)"), failures
