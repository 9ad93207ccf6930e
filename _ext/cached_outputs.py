"""Sphinx extension of the course website: a page read from the execution cache is
written to ``jupyter_execute/`` with its outputs (``_ext/downloads.py`` makes the
site's ``.ipynb`` download).

myst-nb 1.x, on a cache hit, renders the page from a merged copy of the notebook, but
writes the notebook it read, without outputs, to ``jupyter_execute/``: the read-back of
``make nbval`` would find nothing executed. ``make book`` stores every notebook in the cache
before Sphinx runs (``tools/execute_book.py``), so every page of a build takes that path.

Once every page is read (Sphinx's ``env-updated`` event, before any page is written and
its download copied), each notebook in ``jupyter_execute/`` that the cache holds is
merged with its cached outputs by jupyter-cache, the same merge myst-nb renders the page
from, and written back.
"""
from pathlib import Path

import nbformat
from jupyter_cache import get_cache


def write_cached_outputs(app, env):
    config = env.mystnb_config
    if config.execution_mode != "cache":
        return
    cache = get_cache(config.execution_cache_path)
    for path in sorted(Path(config.output_folder).rglob("*.ipynb")):
        notebook = nbformat.read(path, as_version=4)
        try:
            _, merged = cache.merge_match_into_notebook(notebook)
        except KeyError:  # not in the cache (a page executed with errors, or not a page)
            continue
        if merged != notebook:
            nbformat.write(merged, path)


def setup(app):
    app.connect("env-updated", write_cached_outputs)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
