"""The instructor edition marks the site it builds, so that it is never published.

When any exercise page is built from a notebook released with its solutions
(``metadata.grading.edition == "instructor"``: ``make book EDITION=instructor`` runs
``tools/export_notebooks.py --exercises ... --instructor``), a file ``INSTRUCTOR_EDITION``
is written at the top of the HTML folder before any page is, and
``tools/publish_site.sh`` (``make publish``, the publish workflow) refuses a folder that
has it. A student build that ends without error removes a marker left in its folder.
"""
import json
from pathlib import Path

MARKER = "INSTRUCTOR_EDITION"


def solved_notebooks(srcdir):
    """The exercise notebooks under ``srcdir`` that carry their solutions."""
    return [p.relative_to(srcdir).as_posix() for p in sorted(Path(srcdir).glob("_generated/exercises/*/*.ipynb"))
            if json.loads(p.read_text(encoding="utf-8"))["metadata"].get("grading", {}).get("edition") == "instructor"]


def write_marker(srcdir, outdir):
    """Mark ``outdir`` when the pages built from ``srcdir`` show solutions; the solved notebooks."""
    solved = solved_notebooks(srcdir)
    if solved:
        (Path(outdir) / MARKER).write_text(
            "The instructor edition: its exercise pages show the solutions. Never publish it\n"
            "(tools/publish_site.sh refuses). Built from:\n" + "".join(f"  {name}\n" for name in solved))
    return solved


def drop_stale_marker(srcdir, outdir):
    """After a whole student build: remove a marker an instructor build left in ``outdir``."""
    if not solved_notebooks(srcdir):
        (Path(outdir) / MARKER).unlink(missing_ok=True)


def setup(app):
    app.connect("builder-inited", lambda app: app.builder.format == "html" and write_marker(app.srcdir, app.outdir))
    app.connect("build-finished", lambda app, exc: exc is None and app.builder.format == "html"
                and drop_stale_marker(app.srcdir, app.outdir))
    return {"parallel_read_safe": True, "parallel_write_safe": True}
