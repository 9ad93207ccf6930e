"""No page offers "Live Code" (Thebe), and no document promises it.

The button was removed (issue 35) because it could not be made to work:

* sphinx-thebe 0.3.1 (the newest release, the one jupyter-book 1.x loads) calls
  ``thebelab.bootstrap()`` without options. Thebe's ``bootstrap`` then forces
  ``useBinder: true`` over the page's configuration (so no other Jupyter server can be
  named) and returns before it starts a kernel session when ``requestKernel`` is not
  passed: every run button answers "Attempting to execute on a cell without an
  attached kernel" (read in thebe 0.9.3; 0.8.2, which the pages request, is not on the
  npm registry the tests use, so the test could not serve the pages' own Thebe).
* sphinx-thebe runs the ``thebe-init`` cells when a kernel session reports ``ready``
  (none is started, see above) by clicking ``.thebelab-run-button``, a button Thebe 0.9
  no longer has (``.thebe-run-button``). And the chapters' imports (the exercises'
  ``check``) are ``remove-cell`` cells, absent from the page: the first visible cells
  would raise NameError even with a kernel.

Binder, Colab and a JupyterHub open the whole notebook instead, and the launch tests run
those notebooks top to bottom. tests/browser/test_no_thebe_button.py checks the built
pages.
"""
import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
DOCS = ["README.md", "CONTRIBUTING.md", "how_to_use.md", "intro.md", "instructors.md", "exercises/README.md"]
PROMISE = re.compile(r"live[ -]?code|thebe", re.I)


def test_the_book_configures_no_live_code_button():
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    assert config["launch_buttons"].get("thebe") is False
    assert "thebe_config" not in config.get("sphinx", {}).get("config", {})


def test_no_document_or_page_source_promises_live_code():
    pages = DOCS + [str(p.relative_to(ROOT)) for p in sorted(ROOT.glob("chapters/*.md"))]
    pages += [str(p.relative_to(ROOT)) for p in sorted(ROOT.glob("exercises/*/*.md"))]
    found = [f"{page}:{n}: {line.strip()}" for page in pages
             for n, line in enumerate((ROOT / page).read_text().splitlines(), 1) if PROMISE.search(line)]
    assert not found, "Live Code / Thebe promised, but the site has no such button:\n" + "\n".join(found)
