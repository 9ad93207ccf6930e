"""The environments the launch buttons give a reader, rebuilt offline for the tests.

* ``binder_python()``: a fresh venv made from ``binder/requirements.txt`` alone, as
  repo2docker does (``pip install -r binder/requirements.txt`` from the repository root);
* ``colab_python()``: a venv with what Colab has preinstalled (its old ipykernel,
  jupyter_client, ipywidgets, IPython and classic notebook, numpy, scipy, matplotlib,
  pandas), without the course: the notebook's own set-up cell must install it;
* ``launch_tree()``: the `notebooks` branch the buttons open (tools/export_notebooks.py).

The venvs live in ``_build/`` and are made again only when their inputs change (key
file), so repeated test runs reuse them. Shared by tests/test_binder.py,
tests/test_launch.py and tests/browser/test_binder_session.py.
"""
import hashlib
import importlib.util
import os
import shutil
import subprocess
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ENV = ROOT / "_build" / "binder-venv"
COLAB_ENV = ROOT / "_build" / "colab-venv"
TREE = ROOT / "_build" / "launch-tree"

# Colab's preinstalled versions of what the kernel and its front end use (2025 runtime),
# on this machine's Python. The set-up cell must leave every one of them as it is.
COLAB = ["ipykernel==6.17.1", "jupyter_client==7.4.9", "ipywidgets==7.7.1", "ipython==7.34.0",
         "notebook==6.5.7", "traitlets==5.7.1", "tornado==6.4.2", "numpy==2.0.2", "scipy==1.14.1",
         "matplotlib==3.10.0", "pandas==2.2.2", "numba==0.60.0"]

# Where the kernels find the 20 Newsgroups archive (Chapter 5), as in the Makefile.
DATA = os.environ.get("BAYES_COURSE_DATA") or str((ROOT.parent / "shared" / "data").resolve())


def _venv(where, key, install):
    stamp = where / ".env-key"
    if not stamp.exists() or stamp.read_text() != key:
        shutil.rmtree(where, ignore_errors=True)
        venv.create(where, with_pip=True)
        subprocess.run([str(where / "bin" / "python"), "-m", "pip", "install", "--quiet",
                        "--disable-pip-version-check", *install], cwd=ROOT, check=True)
        stamp.write_text(key)
    return where / "bin" / "python"


def binder_python():
    key = hashlib.sha256(b"".join(p.read_bytes() for p in sorted((ROOT / "binder").iterdir()))
                         + (ROOT / "pyproject.toml").read_bytes()).hexdigest()
    return _venv(ENV, key, ["-r", "binder/requirements.txt"])


def colab_python():
    """The Colab-like venv, with the course library uninstalled (each call)."""
    python = _venv(COLAB_ENV, " ".join(COLAB), COLAB)
    subprocess.run([str(python), "-m", "pip", "uninstall", "--quiet", "--yes", "bayes-course-lib"],
                   capture_output=True, check=False)
    return python


def freeze(python):
    """``{name: version}`` of what a venv has installed (pip's own view)."""
    out = subprocess.run([str(python), "-m", "pip", "list", "--format=freeze", "--disable-pip-version-check"],
                         capture_output=True, text=True, check=True).stdout
    return dict(line.lower().replace("_", "-").split("==") for line in out.split() if "==" in line)


def launch_tree(where=TREE):
    """Write the `notebooks` branch (chapters and exercises as .ipynb) into ``where``."""
    spec = importlib.util.spec_from_file_location("export_notebooks", ROOT / "tools" / "export_notebooks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.launch_tree(where)


# Now and then (about one notebook in 40 here, with ipykernel 6 and 7 alike) a cell's reply
# never reaches nbclient: kernel and client both sit idle until the cell timeout. A cell of
# these notebooks takes well under 240 s, so a cell timeout means that lost reply: the
# notebook is run once more in a fresh kernel, and the retry is printed.
EXECUTE = """
import sys, nbformat, nbclient
from nbclient.exceptions import CellTimeoutError
path = sys.argv[1]
for attempt in (1, 2):
    nb = nbformat.read(path, as_version=4)
    try:
        nbclient.NotebookClient(nb, kernel_name="python3", timeout=240,
                                resources={"metadata": {"path": sys.argv[2]}}).execute()
        break
    except CellTimeoutError as error:
        if attempt == 2:
            raise
        print("retried after a cell timeout:", str(error).splitlines()[0])
errors = [o for c in nb.cells for o in c.get("outputs", []) if o.get("output_type") == "error"]
assert not errors, errors
print("executed", sum(c.cell_type == "code" for c in nb.cells), "code cells")
"""


def execute(python, notebook, **env):
    """Run ``notebook`` top to bottom in a fresh kernel of ``python``; the finished process."""
    return subprocess.run([str(python), "-c", EXECUTE, str(notebook), str(Path(notebook).parent)],
                          cwd=Path(notebook).parent, capture_output=True, text=True,
                          env={**os.environ, "BAYES_COURSE_DATA": DATA, "PYDEVD_DISABLE_FILE_VALIDATION": "1",
                               **env})
