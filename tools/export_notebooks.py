"""The notebooks that launch buttons open (Binder, Colab, a JupyterHub), as plain .ipynb.

    python tools/export_notebooks.py OUT_DIR                     chapters -> OUT_DIR/NN_topic.ipynb
    python tools/export_notebooks.py --exercises OUT_DIR [--instructor]
                                     release the exercises, each with the set-up cell
    python tools/export_notebooks.py --launch OUT_DIR            the whole `notebooks` branch

Every exported notebook starts with the set-up cell of ``lib/notebooks/setup_cell.py``
(tag ``remove-cell``), the one ``python -m lib.grading release`` writes: where the course
library is not installed (Colab, a JupyterHub), it installs it with pip, and it says
which front-end piece (jupyterlab-myst, the widget front end) is missing. The launch
branch's exercise notebooks are exactly what ``python -m lib.grading release`` writes.

Chapters get markdown that JupyterLab with
jupyterlab-myst, and Colab, can show: what jupyterlab-myst cannot resolve inside one
notebook becomes readable text (citations, references to other chapters, the book's
math macros, ``literalinclude``, ``glue:md``), and solution cells start collapsed.

The launch branch holds only notebooks for the chapters and exercises (no MyST ``.md``
sources, no exercise sources): one file per chapter, nothing that jupytext could
rewrite on autosave, and no solutions in the students' file browser (see README).
"""
import argparse
import filecmp
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import jupytext
import nbformat
import yaml

# every notebook starts with the set-up cell that `python -m lib.grading release` writes
from lib.notebooks.setup_cell import CELL_ID as SETUP_ID
from lib.notebooks.setup_cell import course_repository, setup_cell

ROOT = Path(__file__).resolve().parents[1]
CONFIG = yaml.safe_load((ROOT / "_config.yml").read_text())


# The launch branch's own .gitignore: main's ignores the generated notebooks, which are
# all this branch is for. This one ignores only what a reader's server and pip leave
# behind in the clone (nbgitpuller keeps them out of its merges).
LAUNCH_GITIGNORE = """.ipynb_checkpoints/
__pycache__/
*.egg-info/
build/
"""

ROLE = re.compile(r"\{(cite|cite:p|cite:t|ref|numref|eq)\}`([^`]*)`")
LABEL = re.compile(r"^\(([\w.:-]+)\)=\s*$", re.M)
HEADING = re.compile(r"^\(([\w.:-]+)\)=\s*\n+(#+)\s+(.+)$", re.M)
DEFINES = r"(^\({0}\)=|name:\s*{0}\s*$|:label:\s*{0}\s*$|\$\$\s*\({0}\)|^#\s*\({0}\)=)"
KINDS = {"fig": "figure", "tbl": "table", "ex": "exercise", "eq": "equation", "sec": "section"}


def add_setup(nb):
    """Put the set-up cell first (replacing an older one); returns ``nb``."""
    nb.cells = [c for c in nb.cells if c.get("id") != SETUP_ID]
    nb.cells.insert(0, setup_cell(course_repository(ROOT)))
    return nb


class Readable:
    """Rewrites MyST markdown that jupyterlab-myst (or Colab) cannot resolve as readable text."""

    def __init__(self):
        self.titles, self.chapter_of = {}, {}
        for page in sorted((ROOT / "chapters").glob("*.md")) + sorted((ROOT / "exercises").glob("*/*.md")):
            text = page.read_text()
            chapter = re.search(r"^# (.+)$", text, re.M)
            for label, _, title in HEADING.findall(text):
                self.titles[label] = title.strip()
            for label in re.findall(r"(?:^\(|name:\s*|:label:\s*|\$\$\s*\()([\w.:-]+)", text, re.M):
                self.chapter_of.setdefault(label, chapter.group(1).strip() if chapter else page.stem)
        self.bib = _bibliography(ROOT / "references.bib")
        macros = CONFIG["sphinx"]["config"]["mathjax3_config"]["tex"]["macros"]
        self.macros = [(re.compile(r"\\" + name + r"(?![A-Za-z])"), value) for name, value in macros.items()]

    def cite(self, keys):
        return "(" + "; ".join(self.bib.get(k.strip(), k.strip()) for k in keys.split(",")) + ")"

    def reference(self, role, body, local):
        text, label = (re.fullmatch(r"(.*?)\s*<([^>]+)>", body) or re.fullmatch(r"()(.*)", body)).groups()
        if label in local:
            return None  # jupyterlab-myst resolves references inside the notebook
        if text and "%s" not in text:
            return text
        kind = KINDS.get(label.split("-")[0], "part")
        chapter = self.chapter_of.get(label)
        if role == "ref" and label in self.titles:
            where = f" in the chapter *{chapter}*" if chapter and chapter != self.titles[label] else ""
            return f"the section *{self.titles[label]}*{where}" if where else f"the chapter *{self.titles[label]}*"
        return f"the {kind} in the chapter *{chapter}*" if chapter else f"the {kind} `{label}`"

    def markdown(self, source, local, shown=None):
        """``source`` with what jupyterlab-myst cannot resolve as text; with ``shown`` (``{label:
        (text, number)}``: what the built page shows for each reference, see
        ``_ext/downloads.py``) every reference becomes that text, inside the notebook too."""
        def role(m):
            if m[1].startswith("cite"):
                inside_parens = m.string[m.start() - 1:m.start()] == "(" and m.string[m.end():m.end() + 1] == ")"
                return self.cite(m[2])[1:-1] if inside_parens else self.cite(m[2])
            if shown is not None:
                text, label = (re.fullmatch(r"(.*?)\s*<([^>]+)>", m[2]) or re.fullmatch(r"()(.*)", m[2])).groups()
                if label not in shown:
                    raise KeyError(f"{{{m[1]}}}`{m[2]}`: the build has no label {label!r}")
                default, number = shown[label]
                return text.replace("%s", number or "") if text else default
            return self.reference(m[1], m[2], local) or m[0]

        source = ROLE.sub(role, source)
        source = re.sub(r"```\{glue:md\}[^\n]*\n(?::[^\n]*\n)*```", "*(The table is printed by the code cell above.)*", source)
        source = re.sub(r"```\{literalinclude\}\s*(\S+)\n((?::[^\n]*\n)*)```", _include, source)
        for pattern, value in self.macros:
            source = pattern.sub(lambda _, value=value: value, source)
        return source

    def notebook(self, nb, shown=None):
        text = "\n".join(c.source for c in nb.cells)
        bare = ROLE.sub("", text)
        local = {label for label in set(re.findall(r"[\w.:-]+", bare))
                 if label in self.chapter_of and re.search(DEFINES.format(re.escape(label)), bare, re.M)}
        # the book's macro cell: each markdown cell is rendered alone, so macros are expanded
        nb.cells = [c for c in nb.cells if not (c.cell_type == "markdown" and "\\newcommand" in c.source)]
        for cell in nb.cells:
            if cell.cell_type == "markdown":
                cell.source = self.markdown(cell.source, local, shown)
        collapse_solutions(nb)
        return nb


def _include(match):
    """A ``literalinclude`` (paths relative to chapters/) as a python code block, as Sphinx reads it."""
    from sphinx.directives.code import LiteralInclude, LiteralIncludeReader

    options = {}
    for line in match[2].splitlines():
        key, _, value = line[1:].partition(":")
        value = value.strip()
        value = value[1:-1] if value[:1] == value[-1:] == '"' and len(value) > 1 else value
        options[key.strip()] = LiteralInclude.option_spec[key.strip()](value or None)

    class Config:
        source_encoding = "utf-8"

    code, _ = LiteralIncludeReader(str((ROOT / "chapters" / match[1]).resolve()), options, Config()).read()
    return f"```python\n{code.rstrip()}\n```"


def _bibliography(path):
    """``{key: "Author et al. 1977"}`` from a BibTeX file (pybtex, as sphinxcontrib-bibtex reads it)."""
    from pybtex.database import parse_file

    out = {}
    for key, entry in parse_file(str(path)).entries.items():
        people = entry.persons.get("author") or entry.persons.get("editor") or []
        names = [" ".join(p.last_names).replace("{", "").replace("}", "") for p in people]
        who = (names[0] if len(names) == 1 else " and ".join(names) if len(names) == 2
               else f"{names[0]} et al." if names else "“" + entry.fields.get("title", key).replace("{", "").replace("}", "") + "”")
        year = entry.fields.get("year", "")
        out[key] = f"{who} {year}" if year and year != "n.d." else who
    return out


def collapse_solutions(nb):
    """Start every cell of an in-chapter solution collapsed (JupyterLab: click to open).

    A solution runs from a ``solution-start`` directive to ``solution-end``, across
    cells. The markdown cell holding ``solution-start`` is split after the directive,
    so the question stays visible and the answer starts collapsed.
    """
    start = re.compile(r"^```\{solution-start\}[^\n]*\n(?::[^\n]*\n)*```[ \t]*\n?", re.M)
    end = re.compile(r"^```\{solution-end\}[^\n]*\n```[ \t]*$", re.M)
    cells, inside = [], False

    def hidden(cell):
        # JupyterLab shows a collapsed cell's first line: make it a title, not the answer
        title = "Solution (collapsed: click the ⋯ or the bar on the left to open)"
        cell.source = f"# {title}\n{cell.source}" if cell.cell_type == "code" else f"{title}\n\n{cell.source}"
        cell.metadata.setdefault("jupyter", {}).update({"source_hidden": True, "outputs_hidden": True})
        cell.metadata["solution"] = True
        return cell

    for cell in nb.cells:
        if cell.cell_type != "markdown" or not (inside or start.search(cell.source)):
            cells.append(hidden(cell) if inside else cell)
            continue
        text, part = cell.source, 0
        while text:  # split the cell at the markers; the parts inside a solution are hidden
            marker = (end if inside else start).search(text)
            cut = len(text) if marker is None else marker.start() if inside else marker.end()
            head, text = text[:cut], text[cut:]
            if head.strip():
                piece = nbformat.v4.new_markdown_cell(head.strip("\n"), metadata=dict(cell.metadata))
                piece.id, part = f"{cell.get('id') or 'md'}-{part}", part + 1
                cells.append(hidden(piece) if inside else piece)
            if marker is not None:
                inside = not inside
    seen = set()
    for n, cell in enumerate(cells):
        if not cell.get("id") or cell.id in seen:
            cell.id = f"cell-{n}"
        seen.add(cell.id)
    nb.cells = cells
    return nb


def export(page, out_dir, readable=None, shown=None):
    """``chapters/NN_topic.md`` -> ``out_dir/NN_topic.ipynb`` with the set-up cell, no outputs
    (with ``shown``: the site's download, see :meth:`Readable.markdown`)."""
    nb = jupytext.read(page)
    nb.metadata.pop("jupytext", None)
    for n, cell in enumerate(nb.cells):  # not jupytext's random ids: the same page, the same file
        cell.id = f"cell-{n}"
    if readable is not None:
        readable.notebook(nb, shown)
    add_setup(nb)
    target = Path(out_dir) / f"{page.stem}.ipynb"
    target.parent.mkdir(parents=True, exist_ok=True)
    nbformat.validate(nb)
    text = nbformat.writes(nb) + "\n"  # as nbformat.write
    if not (target.is_file() and target.read_text() == text):  # unchanged: left as it is (make book)
        target.write_text(text)
    return target


def export_chapters(out_dir):
    readable = Readable()
    return [export(page, out_dir, readable) for page in sorted((ROOT / "chapters").glob("*.md"))]


def release_exercises(out_dir, instructor=False):
    """The notebooks ``python -m lib.grading release`` writes (set-up cell included), synced
    into ``out_dir`` (see :func:`sync`)."""
    from lib.grading.source import release_all

    with tempfile.TemporaryDirectory() as tmp:
        written = release_all(ROOT / "exercises", tmp, instructor=instructor)
        sync(tmp, out_dir)
    return [Path(out_dir) / path.relative_to(tmp) for path in written]


def sync(source, target):
    """Make folder ``target`` hold exactly the files of folder ``source``, writing only the
    files whose bytes differ and removing those that ``source`` lacks: a file left as it
    was keeps its modification time, so a `make book` with nothing changed makes Sphinx
    read no page again (tests/book/test_prepare.py)."""
    source, target = Path(source), Path(target)
    for path in source.rglob("*"):
        copy = target / path.relative_to(source)
        if path.is_file() and not (copy.is_file() and filecmp.cmp(path, copy, shallow=False)):
            copy.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, copy)
    for path in sorted(target.rglob("*"), reverse=True):  # a folder's files before the folder
        if not (source / path.relative_to(target)).exists():
            path.unlink() if path.is_file() or path.is_symlink() else path.rmdir()


def launch_tree(out_dir):
    """The `notebooks` branch: the committed files of the checkout (its own ``.gitignore``),
    with the chapters and exercises as notebooks only (``chapters/NN.ipynb``, ``_generated/exercises/NN/NN.ipynb``,
    the paths the book's launch buttons name)."""
    out = Path(out_dir)
    if out.exists():
        shutil.rmtree(out)
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT, check=True,
                           capture_output=True, text=True).stdout.split()
    for name in files:
        # no exercise sources (solutions), no test suite (its fixtures hold a set's source with
        # solutions and hidden tests), no .md chapters, no workflows (a push with the workflow's
        # token may not change .github/workflows, and readers do not need them)
        if (name.startswith(("exercises/", "tests/", ".github/")) or (name.startswith("chapters/") and name.endswith(".md"))
                or not (ROOT / name).is_file()):
            continue
        (out / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, out / name)
    readable = Readable()
    for page in sorted((ROOT / "chapters").glob("*.md")):
        export(page, out / "chapters", readable)
    release_exercises(out / "_generated" / "exercises")
    (out / ".gitignore").write_text(LAUNCH_GITIGNORE)
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out", help="output folder")
    what = parser.add_mutually_exclusive_group()
    what.add_argument("--exercises", action="store_true", help="release the exercises (as python -m lib.grading release)")
    what.add_argument("--launch", action="store_true", help="write the whole `notebooks` branch")
    parser.add_argument("--instructor", action="store_true", help="with --exercises: keep the solutions")
    args = parser.parse_args(argv)
    if args.launch:
        print(f"launch tree in {launch_tree(args.out)}")
    elif args.exercises:
        for path in release_exercises(args.out, instructor=args.instructor):
            print(f"released {path}")
    else:
        export_chapters(args.out)


if __name__ == "__main__":
    sys.exit(main())
