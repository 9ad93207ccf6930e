"""Write plain .ipynb copies of the chapters (no outputs), for launch buttons and nbval.

    python tools/export_notebooks.py OUT_DIR

Binder and Colab open `.ipynb` files (Colab cannot open MyST `.md` notebooks), so the
book's launch buttons point at `chapters/NN_topic.ipynb`: `make book` writes these
copies next to the sources (they are git-ignored and excluded from the Sphinx build;
sphinx-book-theme links to the `.ipynb` when it exists), and the publishing workflow
commits them to the `notebooks` branch that the launch buttons open. Each copy starts
with a cell that, on Colab only, clones the course and installs its library.
"""
import sys
from pathlib import Path

import jupytext
import nbformat
import yaml

ROOT = Path(__file__).resolve().parents[1]
REPO = yaml.safe_load((ROOT / "_config.yml").read_text())["repository"]["url"]

COLAB_SETUP = f'''# On Google Colab only: fetch the course and install its library (elsewhere: nothing).
import sys
if "google.colab" in sys.modules:
    import subprocess
    subprocess.run(["git", "clone", "--depth", "1", "{REPO}", "/content/course"], check=True)
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "-e", "/content/course"], check=True)
    sys.path.insert(0, "/content/course")'''


def export(page, out_dir):
    nb = jupytext.read(page)
    setup = nbformat.v4.new_code_cell(COLAB_SETUP, metadata={"tags": ["remove-cell"]})
    nb.cells.insert(0, setup)
    nb.metadata.pop("jupytext", None)
    target = Path(out_dir) / f"{page.stem}.ipynb"
    nbformat.write(nb, target)
    return target


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python tools/export_notebooks.py OUT_DIR")
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    for page in sorted((ROOT / "chapters").glob("*.md")):
        export(page, out)
