"""Sphinx extension of the course website: a chapter's ``.ipynb`` download is a student
notebook that runs anywhere, not the build's executed notebook.

sphinx-book-theme's download menu links ``_sources/<page>.ipynb``, where it copies the
notebook myst-nb executed (outputs, no set-up cell, raw MyST roles, ``import lib`` that
fails outside a checkout). When the build has finished, each such file of a MyST page is
replaced by the chapter as ``tools/export_notebooks.py`` writes it for the launch buttons
(the set-up cell first, which installs the course library where it is missing; every
code cell of the page, hidden ones included; no outputs), except that every reference
becomes the text the page shows for it: ``{numref}`` "Fig. 1.2", ``{eq}`` "(1.3)",
``{ref}`` the section's title, ``{cite}`` "Author Year".
"""
import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _exporter():
    spec = importlib.util.spec_from_file_location("export_notebooks", ROOT / "tools" / "export_notebooks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def shown(app):
    """``{label: (text, number)}``: what the pages show for a reference to each label
    (``number``: the figure, table or equation number, else ``None``)."""
    env, out = app.env, {}
    std = env.get_domain("std")
    for label, (docname, node_id, title) in std.labels.items():
        numbers = env.toc_fignumbers.get(docname, {})
        kind = next((k for k, ids in numbers.items() if node_id in ids), None)
        if kind is None:
            out[label] = (title, None)
        else:
            number = ".".join(map(str, numbers[kind][node_id]))
            out[label] = (app.config.numfig_format.get(kind, kind.title() + " %s") % number, number)
    for label, (docname, _) in env.get_domain("math").equations.items():
        number = ".".join(map(str, env.toc_fignumbers[docname]["displaymath"][f"equation-{label}"]))
        out[label] = (f"({number})", number)
    return out


def write_downloads(app, exception):
    if exception is not None or app.builder.format != "html":
        return
    pages = [docname for docname in sorted(app.env.found_docs)
             if (Path(app.outdir) / "_sources" / f"{docname}.ipynb").is_file()
             and Path(app.env.doc2path(docname)).suffix == ".md"]
    if not pages:
        return
    export = _exporter()
    readable, labels = export.Readable(), shown(app)
    for docname in pages:
        export.export(Path(app.env.doc2path(docname)), (Path(app.outdir) / "_sources" / docname).parent,
                      readable, labels)


def setup(app):
    app.connect("build-finished", write_downloads)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
