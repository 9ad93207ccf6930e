"""Build one chapter alone, strictly (which executes it once), then read back the executed
notebook (tools/check_executed.py, as `make nbval` does for the whole book).

Used by ``make chapter CH=02_estimation`` while writing a chapter: much faster than
the whole book, and it does not touch ``_build/`` (it works in a temporary folder).
``--html DIR`` keeps the built pages in ``DIR`` (for example to run the browser tests on
them: ``BOOK_HTML=DIR .venv/bin/python -m pytest tests/browser/test_a11y.py``).

Chapters link to each other (``{ref}`sec-nb-subtleties```, ``{numref}`fig-em-...```,
``{eq}`eq-...```). So that such links resolve under ``-W`` without building the other
chapters, every other chapter is replaced by a *stub* page: no code and no prose, only
its headings with their labels, its equation labels and its figure names, in the book's
order (so chapter and section numbers are those of the full book). A link to a label
that no chapter defines still fails the build, as it does in ``make book``.
"""
import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from check_executed import check

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent

FENCE = re.compile(r"^\s*(`{3,}|~{3,}|:{3,})\s*(?:\{(?P<directive>[\w:-]+)\})?")
TARGET = re.compile(r"^\((?P<label>[^()\s]+)\)=\s*$")
HEADING = re.compile(r"^(?P<level>#{1,6})\s+(?P<title>\S.*)$")
EQUATION = re.compile(r"\$\$\s*\((?P<label>[^()\s]+)\)\s*$")
OPTION = re.compile(r"^:\s*(?P<option>name|label):\s*(?P<label>\S+)\s*$")


def chapter_order():
    """The chapters' file stems in the order of the book's table of contents."""
    listed = re.findall(r"file:\s*chapters/(\S+)", (ROOT / "_toc.yml").read_text())
    present = sorted(p.stem for p in (ROOT / "chapters").glob("*.md"))
    return [c for c in listed if c in present] + [c for c in present if c not in listed]


def _closes(fence, line):
    mark = line.strip()
    return len(mark) >= len(fence) and set(mark) == {fence[0]}


def stub(page):
    """The linkable skeleton of a chapter (MyST markdown): headings with their labels,
    then its equation labels, figure names and exercise labels."""
    lines = page.read_text().splitlines()
    if lines and lines[0].strip() == "---":  # jupytext header
        end = next((i for i, line in enumerate(lines[1:], 1) if line.strip() == "---"), 0)
        lines = lines[end + 1:]
    out, equations, figures, exercises = [], [], [], []
    fence = directive = None
    for line in lines:
        if fence:
            if _closes(fence, line):
                fence = None
            elif m := OPTION.match(line):
                if directive == "math":
                    equations.append(m["label"])
                elif directive and directive.startswith("exercise"):
                    exercises.append(m["label"])
                elif m["option"] == "name":  # a figure's name (directive or mystnb cell option)
                    figures.append(m["label"])
            continue
        if m := FENCE.match(line):
            fence, directive = m[1], m["directive"]
            continue
        if m := TARGET.match(line):
            out.append(line)
        elif m := HEADING.match(line):
            out += [line, "", "Stub page of the one-chapter build.", ""]
        elif m := EQUATION.search(line):
            equations.append(m["label"])
    if out and TARGET.match(out[-1]):  # a label at the very end needs something to point to
        out += ["", "Stub paragraph."]
    for label in equations:
        out += ["", "$$", "0", f"$$ ({label})"]
    for label in figures:
        out += ["", "```{figure} ../logo.svg", f":name: {label}", "", "Stub of a figure of the book.", "```"]
    for label in exercises:
        out += ["", "```{exercise}", f":label: {label}", "", "Stub of an exercise of the book.", "```"]
    return "\n".join(out) + "\n"


def write_tree(tmp, page):
    """Lay out a one-chapter book in the folder ``tmp``: ``page`` (linked, not copied),
    stubs of the other chapters in the book's order (``page`` last if it is not a
    chapter of the book), the configuration, and an intro page with the bibliography."""
    tmp = Path(tmp)
    for item in ["_config.yml", "references.bib", "logo.svg", "lib", "_static", "_ext"]:
        (tmp / item).symlink_to(ROOT / item)
    (tmp / "chapters").mkdir()
    order = chapter_order()
    order += [page.stem] if page.stem not in order else []
    for stem in order:
        if stem == page.stem:
            (tmp / "chapters" / page.name).symlink_to(page)
        else:
            (tmp / "chapters" / f"{stem}.md").write_text(stub(ROOT / "chapters" / f"{stem}.md"))
    (tmp / "intro.md").write_text(f"# {page.stem}\n\n```{{bibliography}}\n:all:\n```\n")
    (tmp / "_toc.yml").write_text(
        "format: jb-book\nroot: intro\nparts:\n  - caption: Chapters\n    numbered: true\n"
        "    chapters:\n" + "".join(f"      - file: chapters/{stem}\n" for stem in order)
    )


def main(name, html=None):
    page = ROOT / "chapters" / f"{name.removesuffix('.md')}.md"
    if not page.exists():
        sys.exit(f"no chapter {page.relative_to(ROOT)}")
    with tempfile.TemporaryDirectory(prefix=f"book-{page.stem}-") as tmp:
        tmp = Path(tmp)
        write_tree(tmp, page)
        build = [str(BIN / "jupyter-book"), "build", str(tmp), "-W", "-n", "--keep-going"]
        if subprocess.run(build).returncode:
            sys.exit(f"strict build of {page.name} failed")
        if html:
            shutil.rmtree(html, ignore_errors=True)
            shutil.copytree(tmp / "_build" / "html", html)
        found = check(tmp / "_build", f"chapters/{page.stem}")  # read back, not executed again
        if found:
            sys.exit(f"executed {page.name}: {'; '.join(found)}")
        print(f"{page.name}: strict build passed, executed notebook read back")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Strict one-chapter build and nbval.")
    parser.add_argument("chapter", help="e.g. 01_bayesian_learning")
    parser.add_argument("--html", type=Path, help="copy the built website into this folder")
    args = parser.parse_args()
    main(args.chapter, args.html)
