"""Sphinx extension of the course website: a page read from the execution cache is
written to ``jupyter_execute/`` (and so to the site's ``.ipynb`` download) with its
outputs.

myst-nb 1.x, on a cache hit, renders the page from a merged copy of the notebook, but
writes the notebook it read, without outputs, to ``jupyter_execute/``. The page's
download button then offers a notebook with no outputs, and the read-back of
``make nbval`` finds nothing executed. A freshly executed notebook does not have this
problem: nbclient fills the notebook in place. This extension copies the merged cells
and metadata back into the notebook that was read, so both paths write the same file.
``make book`` stores every notebook in the cache before Sphinx runs
(``tools/execute_book.py``), so every page of a build takes the cache path.
"""
from myst_nb.core.execute.cache import NotebookClientCache

_start_client = NotebookClientCache.start_client


def _start_client_in_place(self):
    read = self._notebook
    _start_client(self)
    if self._notebook is not read:  # a cache hit: outputs were merged into a copy
        read.update(self._notebook)
        self._notebook = read


def setup(app):
    NotebookClientCache.start_client = _start_client_in_place
    return {"parallel_read_safe": True, "parallel_write_safe": True}
