"""The set-up cell that opens every student notebook (chapters and released exercises).

One cell, written by :func:`lib.grading.source.release` and by
``tools/export_notebooks.py`` alike, so the notebook an instructor releases is the one
the launch buttons open. Where the course library is missing (Colab, a JupyterHub
without it) the cell installs it with pip: from ``$BAYES_COURSE_REPO`` when set (the
tests point it at a local clone), else from the checkout the notebook sits in
(nbgitpuller's clone on a hub), else from the `notebooks` branch of the course's repository,
read from ``_config.yml`` (``repository.url`` and ``.branch``) when the notebook is
written (:func:`course_repository`): a course team that forks the repository and edits
``_config.yml`` gets its own fork installed. A folder called ``lib`` counts as the course
library only if it has the module it must have (``lib/bayes.py``): an empty ``lib/``
beside the notebook (a namespace package to Python) does not stop the install.
pip keeps what is installed when it satisfies the library's ranges, so nothing the
running kernel uses is upgraded.

The cell then prints a note for each front-end piece that is missing, instead of
failing silently: MyST markdown shown as plain text (no ``jupyterlab-myst``; Colab),
no widget front end (no ``jupyterlab_widgets``), or a widget front end that pip has
just installed (the page must be reloaded before sliders show). It looks in the
kernel's environment, which on Binder, Colab and a single-environment hub is also the
server's.

Used in: every chapter and exercise notebook of the `notebooks` branch (README,
"Launching the notebooks").
"""
from pathlib import Path

import nbformat

CELL_ID = "course-setup"

TEMPLATE = '''# Set-up (Colab, a JupyterHub): install the course library when it is missing, and say
# which part of this page's front end is missing. Elsewhere (Binder, a local install) it
# installs nothing and upgrades nothing.
import importlib, importlib.util, os, site, subprocess, sys
from pathlib import Path
_had_widgets = importlib.util.find_spec("jupyterlab_widgets") is not None

def _course_lib():  # any folder called lib is a package to Python: is it the course's?
    _spec = importlib.util.find_spec("lib")
    return bool(_spec and _spec.origin and Path(_spec.origin).with_name("bayes.py").is_file())

if not _course_lib():
    _checkout = next((p for p in [Path.cwd(), *Path.cwd().parents]
                      if (p / "pyproject.toml").is_file() and (p / "lib" / "bayes.py").is_file()), None)
    _source = os.environ.get("BAYES_COURSE_REPO") or (str(_checkout) if _checkout else {remote!r})
    if not _source:
        raise ModuleNotFoundError("The course library is not installed and this notebook names no "
                                  "repository to install it from: pip install it, then run this cell again.")
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", _source], check=True)
    if os.path.isdir(site.getusersitepackages()) and site.getusersitepackages() not in sys.path:
        site.addsitedir(site.getusersitepackages())  # pip fell back to a user install
    importlib.invalidate_caches()
    if not _course_lib():
        raise ModuleNotFoundError(f"The course library was installed, but the folder {{importlib.util.find_spec('lib').origin}} "
                                  "hides it: rename that folder, then run this cell again.")
_colab, _notes = "google.colab" in sys.modules, []
if _colab or importlib.util.find_spec("jupyterlab_myst") is None:
    _notes.append("MyST markup (notes, figure and exercise blocks) shows as plain text here: "
                  "this front end has no jupyterlab-myst. The website shows the page formatted.")
if not _colab and importlib.util.find_spec("jupyterlab_widgets") is None:
    _notes.append("No widget front end (jupyterlab_widgets): sliders will not show; "
                  "each figure shows its default view.")
elif not _colab and not _had_widgets:
    _notes.append("The widget front end was just installed: save, then reload this page "
                  "so that the sliders show.")
for _note in _notes:
    print("Note:", _note)'''


def setup_cell(repository):
    """The set-up cell (a new code cell, tag ``remove-cell``, id ``course-setup``) that
    installs from ``repository`` (see :func:`source`)."""
    cell = nbformat.v4.new_code_cell(source(repository), metadata={"tags": ["remove-cell"]})
    cell.id = CELL_ID
    return cell


def source(repository):
    """The set-up cell's code, installing from ``repository`` (``(url, branch)``, see
    :func:`course_repository`) where it finds no course library; with ``None`` (the
    grader's own copy, run where the library is installed) it names no repository."""
    remote = f"git+{repository[0]}@{repository[1]}" if repository else None
    return TEMPLATE.format(remote=remote)


def course_repository(start):
    """``(url, branch)``: ``repository.url`` and ``repository.branch`` of the ``_config.yml``
    of the course checkout that holds ``start`` (the launch buttons open that branch);
    ``None`` outside a course checkout (the cell then installs only from a checkout or
    ``$BAYES_COURSE_REPO``, and says so where it finds neither)."""
    import yaml

    start = Path(start).resolve()
    for folder in [start, *start.parents]:
        if (folder / "_config.yml").is_file():
            repository = (yaml.safe_load((folder / "_config.yml").read_text()) or {}).get("repository") or {}
            if not repository.get("url") or not repository.get("branch"):
                raise ValueError(f"{folder / '_config.yml'}: no repository.url and repository.branch "
                                 "(the repository the set-up cell installs the course library from)")
            return repository["url"], repository["branch"]
    return None
