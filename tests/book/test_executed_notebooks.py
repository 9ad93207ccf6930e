"""The notebook stage of `make test` (`make nbval`): the notebooks the strict book build
executed are read back (tools/check_executed.py), not executed again. Every page of the
table of contents must have been executed top to bottom from its current code, with no
error in any output. The exported copies the launch buttons open are executed by
tests/launch/test_launch.py (the Binder-like venv run is their notebook test)."""
import importlib.util
import os
import re
import shutil
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
from check_executed import check, problems, source_code, source_path, toc_pages  # noqa: E402

_spec = importlib.util.spec_from_file_location("export_notebooks", ROOT / "tools" / "export_notebooks.py")
export_notebooks = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(export_notebooks)

BUILD = os.environ.get("BOOK_BUILD")


def test_a_bad_execution_is_reported():
    cell = {"cell_type": "code", "source": "x = 1", "execution_count": 1, "outputs": []}
    assert problems(["x = 1"], {"cells": [cell]}) == []
    assert "a stale cached execution" in problems(["x = 2"], {"cells": [cell]})[0]
    assert problems(["x = 1"], {"cells": [dict(cell, execution_count=None)]}) == ["1 code cells were not executed"]
    error = dict(cell, outputs=[{"output_type": "error", "ename": "AssertionError", "evalue": "", "traceback": []}])
    assert problems(["x = 1"], {"cells": [error]}) == ["code cell 0: AssertionError"]
    later = [dict(cell, execution_count=2), dict(cell, source="y = 2", execution_count=1)]
    assert problems(["x = 1", "y = 2"], {"cells": later}) == ["cells were not executed top to bottom"]


def test_a_figure_with_text_on_text_is_reported():
    """figure_png records what a reader cannot read (lib.layout); the read-back names it,
    for an image and for a frame of an explorer."""
    import base64

    from lib.plots.export import figure_png
    from lib.plots.style import new_figure

    fig = new_figure((3, 2))
    fig.subplots().set_title("a title")
    fig.axes[0].text(0.5, 1.02, "on the title", transform=fig.axes[0].transAxes, ha="center")
    png = base64.b64encode(figure_png(fig, {"n": 3})).decode()
    cell = {"cell_type": "code", "source": "x = 1", "execution_count": 1, "outputs": [
        {"output_type": "display_data", "data": {"image/png": png}},
        {"output_type": "display_data", "data": {"text/html": f'<span data-src="data:image/png;base64,{png}"></span>'}}]}
    found = problems(["x = 1"], {"cells": [cell]})
    assert len(found) == 2 and all(f.startswith('code cell 0: a figure drawn for {"n": 3}: ') and "on the title" in f
                                   for f in found), found


def test_source_code_drops_the_cell_options(tmp_path):
    page = tmp_path / "p.md"
    page.write_text("# T\n\n```{code-cell} ipython3\n:tags: [remove-cell]\n:mystnb:\n:  figure:\n"
                    "x = 1\n```\n\ntext\n\n```{code-cell} ipython3\ny = x\n```\n")
    assert source_code(page) == ["x = 1", "y = x"]


def test_a_page_the_build_did_not_execute_is_reported(tmp_path):
    assert "did not execute" in check(tmp_path, "chapters/01_bayesian_learning")[0]


@pytest.mark.slow
@pytest.mark.skipif(not BUILD, reason="BOOK_BUILD is not set: `make nbval` (part of `make test`) runs this after `make book`")
@pytest.mark.parametrize("page", toc_pages())
def test_every_notebook_was_executed_by_the_book_build(page):
    found = check(BUILD, page)
    assert not found, f"{page}: {found}"


def site_download(page):
    """``(html, download)``: the built page and the .ipynb its download menu links."""
    html = Path(BUILD) / "html" / f"{page}.html"
    # the download menu's .ipynb: a chapter's "notebook file" (its source file is the .md), an
    # exercise's "source file"; the launch links (Colab's ends in .ipynb too) are elsewhere
    [link] = set(re.findall(r'<a href="([^"]*_sources/[^"]+\.ipynb)"[^>]*title="Download ', html.read_text()))
    download = (html.parent / link).resolve()
    assert download.is_relative_to((Path(BUILD) / "html").resolve()) and download.is_file(), link
    return html, download


@pytest.mark.slow
@pytest.mark.skipif(not BUILD, reason="BOOK_BUILD is not set: `make nbval` (part of `make test`) runs this after `make book`")
@pytest.mark.parametrize("page", toc_pages())
def test_the_sites_ipynb_download_is_a_student_notebook(page, tmp_path):
    """The .ipynb that the page's download menu links. For an exercise, the released
    notebook itself. For a chapter (MyST source), the student notebook of _ext/downloads.py:
    the set-up cell first, then exactly the code cells of the launch branch's copy of the
    chapter (the Colab route of tests/launch/test_launch.py runs that copy top to bottom in the
    Colab-like venv, outside any checkout), no outputs, and every MyST role replaced by
    the text the page shows for it."""
    html, download = site_download(page)
    source = source_path(page)
    if source.suffix == ".ipynb":
        assert download.read_bytes() == source.read_bytes()
        return
    nb = nbformat.read(download, as_version=4)
    launch = export_notebooks.export(source, tmp_path, export_notebooks.Readable())
    code = [c.source for c in nbformat.read(launch, as_version=4).cells if c.cell_type == "code"]
    assert nb.cells[0].id == "course-setup" and nb.cells[0].source == code[0]
    assert f"git+{export_notebooks.CONFIG['repository']['url']}@" in code[0]
    assert [c.source for c in nb.cells if c.cell_type == "code"] == code
    assert not any(c.get("outputs") for c in nb.cells), "a download with the build's outputs"
    markdown = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    assert not re.findall(r"\{[\w:]+\}`[^`]*`", markdown)
    # the numbers of figures, tables and equations, as the page shows them
    numbers = set(re.findall(r'<span class="std std-numref">([^<]+)</span>|href="#equation-[^"]+">(\([\d.]+\))</a>',
                             html.read_text()))
    for text in {a or b for a, b in numbers}:
        assert text in markdown, f"{page}: the page shows {text!r}, the download does not"


@pytest.mark.skipif(not BUILD, reason="BOOK_BUILD is not set: `make nbval` (part of `make test`) runs this after `make book`")
def test_the_built_reference_page_has_an_entry_for_every_public_name():
    """api.html, as built: each public name of each package of lib (tests/book/test_api.py
    lists the packages) has its entry, under the package where it is defined."""
    sys.path.insert(0, str(ROOT / "_ext"))
    import libapi

    import lib

    ids = set(re.findall(r'id="(lib\.[\w.]+)"', (Path(BUILD) / "html" / "api.html").read_text()))
    expected = []
    for package in libapi.submodules(lib):  # each public package of lib, as api.md lists them
        name = package.__name__
        names = libapi.public_names(package)
        exported = {id(getattr(package, n)) for n in names}
        for n in names:  # under the package, or (imported from elsewhere) under its home
            value = getattr(package, n)
            home = name if libapi.defined_in(value, package) or not callable(value) else value.__module__
            expected.append(f"{home}.{n}" if home == name else f"lib.{home.split('.')[1]}.{n}")
        for sub in libapi.submodules(package):  # a submodule's names the package does not export
            expected += [f"{sub.__name__}.{n}" for n in libapi.public_names(sub)
                         if id(getattr(sub, n)) not in exported and libapi.defined_in(getattr(sub, n), sub)]
    missing = [e for e in expected if e not in ids]
    assert len(expected) > 300 and not missing, missing


@pytest.mark.slow
@pytest.mark.skipif(not BUILD, reason="BOOK_BUILD is not set: `make nbval` (part of `make test`) runs this after `make book`")
def test_the_sites_chapter_download_runs_on_colab(tmp_path):
    """Chapter 1 as a reader downloads it from the built page: copied alone into an empty
    folder outside any checkout (like Colab's /content), it runs top to bottom under nbval
    (``--nbval-lax``) in a Colab-like venv that has no course library. Its own set-up cell
    installs the library (from a reader's clone of the published `notebooks` branch,
    through ``$BAYES_COURSE_REPO``), and every other cell runs with only what the cells
    before it defined: a download without its set-up cell, or without a hidden cell that
    a later one needs, fails here. (The slow stage's Colab route runs the launch branch's
    copies of every notebook; this runs the file the site serves.)"""
    from binder_env import colab_python, published_clone, run_notebooks

    _, download = site_download("chapters/01_bayesian_learning")
    content = tmp_path / "content"
    content.mkdir()
    notebook = Path(shutil.copy(download, content))
    python = colab_python(tmp_path / "colab")
    clone = published_clone(tmp_path / "published")[1]
    failure = run_notebooks(python, [notebook], BAYES_COURSE_REPO=str(clone))[notebook]
    assert failure is None, f"the site's download of chapter 1 failed on Colab:\n{failure}"
