"""The book itself: the table of contents and the strictness of the build.

The full strict build (`jupyter-book build . -W -n --keep-going`) runs as part of
`make test`; these tests check the properties it relies on.
"""
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


def toc_files():
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    files = [toc["root"]]
    for part in toc.get("parts", []):
        files += [entry["file"] for entry in part["chapters"]]
    return files


def test_toc_lists_only_pages_that_exist():
    for name in toc_files():
        if name.startswith("_generated/"):
            continue  # written by `make book` (released exercises)
        assert any((ROOT / f"{name}{ext}").exists() for ext in (".md", ".ipynb")), name


def test_every_chapter_is_in_the_toc_in_order():
    listed = [f for f in toc_files() if f.startswith("chapters/")]
    on_disk = sorted(f"chapters/{p.stem}" for p in (ROOT / "chapters").glob("*.md"))
    assert listed == on_disk


def test_every_exercise_set_is_in_the_toc_in_order():
    """Each folder of exercises/ (a set: exercises/NN_topic/NN_topic.md) has its released
    page in the table of contents, and the toc lists no set that is not there."""
    listed = [f for f in toc_files() if f.startswith("_generated/exercises/")]
    on_disk = sorted(f"_generated/exercises/{p.name}/{p.name}" for p in (ROOT / "exercises").iterdir() if p.is_dir())
    assert listed == on_disk
    assert all((ROOT / "exercises" / f.split("/")[2] / f"{f.split('/')[2]}.md").is_file() for f in on_disk)


@pytest.mark.parametrize("page", sorted((ROOT / "chapters").glob("*.md")), ids=lambda p: p.stem)
def test_chapter_is_a_myst_notebook_without_outputs(page):
    text = page.read_text()
    assert text.startswith("---\njupytext:"), "chapters start with the jupytext header"
    assert "format_name: myst" in text
    assert re.search(r"^\(ch-[a-z0-9-]+\)=\n# ", text, re.M), "a chapter label before the title"
    assert ":tags: [remove-cell]" in text, "hidden assertion cells check the numbers"


def build(book, *extra):
    cmd = [str(BIN / "jupyter-book"), "build", str(book), "-W", "-n", "--keep-going", *extra]
    return subprocess.run(cmd, capture_output=True, text=True)


def mini_book(tmp_path, cell):
    for item in ["_config.yml", "references.bib", "logo.svg", "lib", "_ext", "_static"]:
        (tmp_path / item).symlink_to(ROOT / item)
    (tmp_path / "chapters").mkdir()
    header = (ROOT / "chapters" / "01_bayesian_learning.md").read_text().split("---", 2)[1]
    (tmp_path / "chapters" / "99_test.md").write_text(
        f"---{header}---\n\n(ch-test)=\n# Test\n\n```{{code-cell}} ipython3\n{cell}\n```\n"
    )
    (tmp_path / "intro.md").write_text("# Test book\n\n```{bibliography}\n:all:\n```\n")
    (tmp_path / "_toc.yml").write_text(
        "format: jb-book\nroot: intro\nparts:\n  - caption: Chapters\n    chapters:\n"
        "      - file: chapters/99_test\n"
    )
    return tmp_path


@pytest.mark.slow
def test_a_failing_cell_fails_the_strict_build(tmp_path):
    result = build(mini_book(tmp_path, "assert 0.8 == 0.9, 'seed number changed'"))
    assert result.returncode != 0
    assert "seed number changed" in result.stdout + result.stderr


def test_chapters_define_the_book_macros_for_jupyterlab():
    """The book's MathJax macros (_config.yml) are also defined in each chapter's hidden
    first markdown cell, so that a chapter's .md opened as a notebook through jupytext
    renders the maths (the exported notebooks drop that cell and have the macros written
    out in each markdown cell: tools/export_notebooks.py)."""
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    macros = config["sphinx"]["config"]["mathjax3_config"]["tex"]["macros"]
    for page in sorted((ROOT / "chapters").glob("*.md")):
        head = page.read_text().split("(ch-", 1)[0]
        assert '+++ {"tags": ["remove-cell"]}' in head, page.name
        for name in macros:
            assert f"\\newcommand{{\\{name}}}" in head, f"{page.name} does not define \\{name}"


SEED_KEYS = ("seed000", "seed001", "seed002", "seed003", "seed004")


def _cited_keys(text):
    """Every key inside {cite}`...` / {cite:p}`...` roles of a MyST page."""
    return {key.strip() for group in re.findall(r"\{cite(?::\w+)?\}`([^`]*)`", text)
            for key in group.split(",")}


def _site_sources():
    """Every page of the table of contents that is a source file, plus the exercise sources."""
    pages = [ROOT / f"{name}.md" for name in toc_files() if (ROOT / f"{name}.md").exists()]
    return sorted(set(pages) | set((ROOT / "exercises").glob("*/*.md")))


@pytest.mark.parametrize("page", _site_sources(), ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_pages_cite_published_works_not_the_course_seed_documents(page):
    text = page.read_text()
    assert "source document" not in text.lower(), f"{page.name} mentions a 'source document'"
    assert not re.search(r"\bseed00\d\b", text), f"{page.name} names a seed document"
    assert "n.d." not in text, f"{page.name} has an undated (n.d.) reference"
    bib = (ROOT / "references.bib").read_text()
    defined = set(re.findall(r"@\w+\{([^,\s]+),", bib))
    assert not set(SEED_KEYS) & defined, "references.bib still defines seed entries"
    assert "n.d." not in bib, "references.bib has an undated (n.d.) entry"
    assert _cited_keys(text) <= defined, f"{page.name} cites keys missing from references.bib"


def execute_book(book, *notebooks):
    """tools/execute_book.py on a mini-book (its notebooks into its cache)."""
    cmd = [sys.executable, str(ROOT / "tools" / "execute_book.py"), str(book / "_build"),
           *map(str, notebooks), "--jobs", "2", "--config", str(book / "_config.yml")]
    return subprocess.run(cmd, capture_output=True, text=True, cwd=book)


# The kernel's transport (Unix sockets, not TCP ports that a kernel of another process can
# take first) and a printed value the pages must show.
TRANSPORT_CELL = ("from ipykernel.kernelapp import IPKernelApp\n"
                  "print('transport', IPKernelApp.instance().transport, 'value', 6 * 7)")


@pytest.mark.slow
def test_pre_execution_fills_the_cache_that_the_strict_build_reads(tmp_path):
    """make book: tools/execute_book.py executes the notebooks, then the build uses their
    outputs without executing anything again; the executed notebook it writes has the
    outputs too (_ext/cached_outputs.py), while the page's .ipynb download is the student
    notebook (_ext/downloads.py): the set-up cell, then the page's code, no outputs. Also
    the control of the failing-cell test above: the same mini-book with a passing cell
    builds strictly."""
    book = mini_book(tmp_path, TRANSPORT_CELL)
    ran = execute_book(book, book / "chapters" / "99_test.md")
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "1 of 1 notebooks to execute" in ran.stdout
    result = build(book)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert "Executing notebook" not in result.stdout + result.stderr
    assert "transport ipc value 42" in (book / "_build/html/chapters/99_test.html").read_text()
    executed = book / "_build/jupyter_execute/chapters/99_test.ipynb"
    cell = [c for c in nbformat.read(executed, as_version=4).cells if c.cell_type == "code"][-1]
    assert cell.execution_count == 1 and "transport ipc value 42" in cell.outputs[0]["text"]
    page = book / "_build/html/chapters/99_test.html"
    [link] = re.findall(r'<a href="([^"]+)"[^>]*title="Download notebook file"', page.read_text())
    download = [c for c in nbformat.read(page.parent / link, as_version=4).cells if c.cell_type == "code"]
    assert [c.id for c in download][0] == "course-setup" and download[-1].source == TRANSPORT_CELL
    assert len(download) == 2 and not any(c.outputs for c in download)
    again = execute_book(book, book / "chapters" / "99_test.md")
    assert "0 of 1 notebooks to execute" in again.stdout, "a cached notebook is not run again"


@pytest.mark.slow
def test_a_failing_cell_stops_pre_execution_and_caches_nothing(tmp_path):
    book = mini_book(tmp_path, "assert 0.8 == 0.9, 'seed number changed'")
    ran = execute_book(book, book / "chapters" / "99_test.md")
    assert ran.returncode == 1
    assert "seed number changed" in ran.stdout and "99_test.md FAILED" in ran.stdout
    assert "1 notebook(s) failed" in ran.stderr
    again = execute_book(book, book / "chapters" / "99_test.md")
    assert "1 of 1 notebooks to execute" in again.stdout, "the failed run left no cache record"


def test_pre_execution_names_bad_arguments(tmp_path):
    for args, message in [(["nope.md"], "no such notebook: nope.md"),
                          ([__file__, "--jobs", "0"], "--jobs must be at least 1, got 0")]:
        ran = subprocess.run([sys.executable, str(ROOT / "tools" / "execute_book.py"), str(tmp_path), *args],
                             capture_output=True, text=True)
        assert ran.returncode == 2 and message in ran.stderr, ran.stderr


def test_frames_leave_the_doctree_when_a_page_is_read(tmp_path):
    """_ext/static_frames.py: an explorer frame (a ``data:`` URI in the page's raw HTML)
    is written to ``<doctrees>/frames`` as the page is read, so the pickled doctree holds
    its file name only; writing the page copies the frame beside the site's pages."""
    import base64
    from types import SimpleNamespace

    from docutils import nodes
    sys.path.insert(0, str(ROOT / "_ext"))
    import static_frames
    png = (ROOT / "logo.svg").read_bytes()  # any bytes: frames are named by their content
    body = f'<span data-values="{{}}" data-src="data:image/png;base64,{base64.b64encode(png).decode()}"></span>'
    app = SimpleNamespace(outdir=str(tmp_path / "out"), srcdir=str(tmp_path), doctreedir=str(tmp_path / "doctrees"),
                          env=SimpleNamespace(docname="chapters/x", images={}))
    doctree = nodes.section("", nodes.raw("", body, format="html"))
    static_frames._frames_out_of_doctree(app, doctree)
    [raw] = doctree.findall(nodes.raw)
    src = re.search(r'data-src="([^"]+)"', raw.astext()).group(1)
    assert src.startswith("../_images/frames/") and "base64" not in raw.rawsource and raw["format"] == "html"
    assert (tmp_path / "doctrees" / "frames" / src.rsplit("/", 1)[1]).read_bytes() == png
    context = {"body": raw.astext(), "script_files": []}
    static_frames._move_frames(app, "chapters/x", "page.html", context, None)
    assert context["body"] == raw.astext() and (tmp_path / "out" / src[3:]).read_bytes() == png
