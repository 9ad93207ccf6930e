"""Read back the notebooks the strict book build executed, instead of executing them again.

`make book` executes every chapter and released exercise notebook once (``raise_on_error:
true``: a raising cell, and so every hidden ``remove-cell`` assertion that pins a number,
fails the build; ``-W``: a warning fails it). This checks what that execution left in
``BUILD/jupyter_execute``: every page was executed, top to bottom, from the code that is
in its source now (not an older cached run), no cell shows an error or a traceback, and
no image (or frame of an interactive figure) carries a layout problem that
``lib.plots.export.figure_png`` recorded (text on text, a legend over data).
Used by `make nbval` (tests/book/test_executed_notebooks.py) and `make chapter`
(tools/build_one.py).

Usage: python tools/check_executed.py BUILD_DIR [PAGE...]   (pages as in _toc.yml)
"""
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CELL = re.compile(r"^```\{code-cell\}[^\n]*\n(.*?)^```", re.S | re.M)


def toc_pages(root=ROOT):
    """The chapter and exercise pages of the table of contents (``chapters/01_...``)."""
    return re.findall(r"file:\s*((?:chapters|_generated/exercises)/\S+)", (Path(root) / "_toc.yml").read_text())


def _text(source):
    return "".join(source) if isinstance(source, list) else source


def source_code(path):
    """The code of a source notebook's code cells (MyST ``.md`` or ``.ipynb``), stripped."""
    path = Path(path)
    if path.suffix == ".ipynb":
        return [_text(c["source"]).strip() for c in json.loads(path.read_text())["cells"] if c["cell_type"] == "code"]
    return [re.sub(r"\A(?::[^\n]*\n)+", "", c).strip() for c in CELL.findall(path.read_text())]


def problems(source_cells, executed):
    """What is wrong with an executed notebook (the dict of its .ipynb) given its source's
    code cells: not executed, executed from other code, or an error in an output."""
    cells = [c for c in executed["cells"] if c["cell_type"] == "code"]
    found = []
    if [_text(c["source"]).strip() for c in cells] != source_cells:
        found.append("its code differs from the source (a stale cached execution)")
    counts = [c.get("execution_count") for c in cells if _text(c["source"]).strip()]
    if None in counts:
        found.append(f"{counts.count(None)} code cells were not executed")
    elif counts != sorted(counts):
        found.append("cells were not executed top to bottom")
    for i, cell in enumerate(cells):
        for out in cell.get("outputs", []):
            if out.get("output_type") == "error" or "Traceback (most recent call last)" in _text(out.get("text", "")):
                found.append(f"code cell {i}: {out.get('ename', 'traceback')}")
            found += [f"code cell {i}: a figure{where}: {problem}" for where, problem in _layout(out.get("data", {}))]
    return found


FRAME = re.compile(r'data-src="data:image/png;base64,([A-Za-z0-9+/=]+)"')


def _layout(data):
    """``(where, problem)`` for each layout problem (text on text, a legend over data) that
    lib.plots.export.figure_png recorded in the PNGs of an output: its image, and the frames
    of an interactive figure's explorer."""
    import base64
    import io

    from PIL import Image

    images = [_text(data["image/png"])] if "image/png" in data else []
    images += FRAME.findall(_text(data.get("text/html", "")))
    out = []
    for image in images:
        info = Image.open(io.BytesIO(base64.b64decode(image))).info  # its text chunks, not its pixels
        if "lib.layout" in info:
            values = info.get("lib.values", "null")
            where = "" if values == "null" else f" drawn for {values}"
            out += [(where, problem) for problem in json.loads(info["lib.layout"])]
    return out


def source_path(page, root=ROOT):
    """The source of a page (``chapters/01_bayesian_learning``): its .md or .ipynb, or None."""
    return next((Path(root) / f"{page}{ext}" for ext in (".md", ".ipynb") if (Path(root) / f"{page}{ext}").exists()),
                None)


def check(build, page, root=ROOT):
    """The problems of one page (``chapters/01_bayesian_learning``) executed in ``build``."""
    source = source_path(page, root)
    executed = Path(build) / "jupyter_execute" / f"{page}.ipynb"
    if source is None:
        return [f"no source for {page}"]
    if not executed.is_file():
        return [f"{executed} missing: the book build did not execute it"]
    return problems(source_code(source), json.loads(executed.read_text()))


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__.split("Usage: ")[1])
    pages = sys.argv[2:] or toc_pages()
    bad = {page: found for page in pages if (found := check(sys.argv[1], page))}
    for page, found in bad.items():
        print(f"{page}: {'; '.join(found)}")
    print(f"{len(pages) - len(bad)} of {len(pages)} executed notebooks read back without a problem")
    sys.exit(1 if bad else 0)
