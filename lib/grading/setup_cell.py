"""The set-up cell that opens every student notebook (chapters and released exercises).

One cell, written by :func:`lib.grading.source.release` and by
``tools/export_notebooks.py`` alike, so the notebook an instructor releases is the one
the launch buttons open. Where the course library is missing (Colab, a JupyterHub
without it) the cell installs it with pip: from ``$BAYES_COURSE_REPO`` when set (the
tests point it at a local clone), else from the checkout the notebook sits in
(nbgitpuller's clone on a hub), else from the `notebooks` branch of :data:`REPOSITORY`.
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
import nbformat

# The repository and branch the launch buttons open; tests/test_launch.py checks that
# they are _config.yml's `repository.url` and `repository.branch`.
REPOSITORY = "https://github.com/bayes-course/bayesian-learning"
BRANCH = "notebooks"
CELL_ID = "course-setup"

SOURCE = f'''# Set-up (Colab, a JupyterHub): install the course library when it is missing, and say
# which part of this page's front end is missing. Elsewhere (Binder, a local install) it
# installs nothing and upgrades nothing.
import importlib, importlib.util, os, site, subprocess, sys
from pathlib import Path
_had_widgets = importlib.util.find_spec("jupyterlab_widgets") is not None
if importlib.util.find_spec("lib") is None:
    _checkout = next((p for p in [Path.cwd(), *Path.cwd().parents]
                      if (p / "pyproject.toml").is_file() and (p / "lib" / "__init__.py").is_file()), None)
    _source = os.environ.get("BAYES_COURSE_REPO") or (str(_checkout) if _checkout else
                                                       "git+{REPOSITORY}@{BRANCH}")
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", _source], check=True)
    if os.path.isdir(site.getusersitepackages()) and site.getusersitepackages() not in sys.path:
        site.addsitedir(site.getusersitepackages())  # pip fell back to a user install
    importlib.invalidate_caches()
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


def setup_cell():
    """The set-up cell (a new code cell, tag ``remove-cell``, id ``course-setup``)."""
    cell = nbformat.v4.new_code_cell(SOURCE, metadata={"tags": ["remove-cell"]})
    cell.id = CELL_ID
    return cell
