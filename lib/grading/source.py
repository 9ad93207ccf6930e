"""Exercise sources (otter-style markers) and the release of student notebooks.

The format is documented for authors in ``exercises/README.md``. In short, inside a
source notebook (MyST ``.md`` or ``.ipynb``):

* a raw or code cell ``# BEGIN QUESTION`` with lines ``name: q1`` and ``points: 2``
  opens a question, a cell ``# END QUESTION`` closes it;
* in code cells, ``x = value  # SOLUTION`` becomes ``x = ...`` and the lines between
  ``# BEGIN SOLUTION`` and ``# END SOLUTION`` become ``...`` (top level) or
  ``raise NotImplementedError("exercise")`` (indented, i.e. a function body);
* a code cell starting ``# TESTS`` (public) or ``# HIDDEN TESTS`` holds one test per
  statement, ``answer_expr == expected_expr`` (see :mod:`lib.grading.checks`),
  optionally followed by ``  # hint: <text>`` (shown when the test fails);
* the header may declare a multiple-choice question: ``choices: a, b, c, d``.
"""
import ast
import io
import json
import pprint
import re
import shutil
import tokenize
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

import jupytext
import nbformat

from lib.notebooks.setup_cell import course_repository, setup_cell

from .checks import expected_value

BEGIN_QUESTION, END_QUESTION = "# BEGIN QUESTION", "# END QUESTION"
BEGIN_SOLUTION, END_SOLUTION = "# BEGIN SOLUTION", "# END SOLUTION"
PUBLIC_TESTS, HIDDEN_TESTS = "# TESTS", "# HIDDEN TESTS"
SOLUTION_LINE = re.compile(r"^(\s*)([^=#]+?)\s*=\s*(.*?)\s*#\s*SOLUTION\s*$")
STUB = 'raise NotImplementedError("exercise")'
HINT = re.compile(r"#\s*hint:\s*(.*?)\s*$", re.IGNORECASE)


class Test(tuple):
    """One test: the pair ``(answer, expected)`` (source text) and the author's ``hint``.

    It unpacks as a pair (``for answer, expected in question.tests``); ``.answer``,
    ``.expected`` and ``.hint`` (text or None) name the parts.
    """

    def __new__(cls, answer, expected, hint=None):
        self = super().__new__(cls, (answer, expected))
        self.hint = hint
        return self

    answer = property(lambda self: self[0])
    expected = property(lambda self: self[1])

    def __getnewargs__(self):
        return (self[0], self[1], self.hint)

    def __eq__(self, other):
        return tuple.__eq__(self, other) and getattr(other, "hint", self.hint) == self.hint

    __hash__ = tuple.__hash__

    def __repr__(self):
        return f"Test({self[0]!r}, {self[1]!r}, hint={self.hint!r})"


@dataclass
class Question:
    """One graded question: its name, points, tests (:class:`Test`) and choices (or None)."""

    name: str
    points: float
    public: list = field(default_factory=list)
    hidden: list = field(default_factory=list)
    choices: Optional[list] = None

    @property
    def tests(self):
        """All tests, public first (the order of the grader's report)."""
        return self.public + self.hidden


@dataclass
class Exercise:
    """A parsed source notebook: its name (file stem), notebook and questions by name."""

    name: str
    notebook: nbformat.NotebookNode
    questions: dict


def find_source(path):
    """The source notebook of an exercise folder (or ``path`` itself if it is a file)."""
    path = Path(path)
    if path.is_file():
        return path
    found = sorted(p for p in path.iterdir() if p.suffix in (".md", ".ipynb") and p.stem == path.name)
    if len(found) != 1:
        raise ValueError(f"{path}: expected one source notebook {path.name}.md or {path.name}.ipynb")
    return found[0]


def read_source(path):
    """Read and parse the source notebook of an exercise (a folder or a file)."""
    path = find_source(path)
    nb = jupytext.read(path) if path.suffix == ".md" else nbformat.read(path, as_version=4)
    return parse(nb, path.stem)


def _first_line(cell):
    return cell.source.lstrip().split("\n", 1)[0].strip()


def _parse_header(cell, where):
    meta = {}
    for line in cell.source.strip().split("\n")[1:]:
        key, sep, value = line.partition(":")
        if not sep:
            raise ValueError(f"{where}: expected `key: value` lines after {BEGIN_QUESTION}, got {line!r}")
        meta[key.strip().lstrip("#").strip()] = value.strip()
    name = meta.get("name", "")
    if not name.isidentifier():
        raise ValueError(f"{where}: {BEGIN_QUESTION} needs `name: <identifier>`, got {name!r}")
    try:
        points = float(meta.get("points", ""))
    except ValueError:
        raise ValueError(f"{where}: question {name} needs `points: <number>`") from None
    if not points > 0:
        raise ValueError(f"{where}: question {name} must be worth more than 0 points")
    choices = None
    if "choices" in meta:
        choices = [c.strip() for c in meta["choices"].split(",")]
        if len(choices) < 2 or not all(choices) or len(set(choices)) != len(choices):
            raise ValueError(f"{where}: question {name}: `choices:` needs two or more distinct "
                             f"options separated by commas, got {meta['choices']!r}")
    return Question(name, int(points) if points.is_integer() else points, choices=choices)


def _hints(body):
    """``{line: hint}`` of the ``# hint:`` comments of a tests cell's body."""
    hints = {}
    try:
        for tok in tokenize.generate_tokens(io.StringIO(body).readline):
            match = HINT.match(tok.string) if tok.type == tokenize.COMMENT else None
            if match and match.group(1):
                hints[tok.start[0]] = match.group(1)
    except (tokenize.TokenError, SyntaxError):
        pass
    return hints


def _parse_tests(cell, where):
    body = cell.source.strip().split("\n", 1)[1] if "\n" in cell.source.strip() else ""
    try:
        tree = ast.parse(body)
    except SyntaxError as exc:
        raise ValueError(f"{where}: test line {exc.lineno}: {exc.msg}") from None
    tests, hints = [], _hints(body)
    for stmt in tree.body:
        value = getattr(stmt, "value", None)
        if not (isinstance(stmt, ast.Expr) and isinstance(value, ast.Compare)
                and len(value.ops) == 1 and isinstance(value.ops[0], ast.Eq)):
            raise ValueError(f"{where}: test line {stmt.lineno} is not `answer_expr == expected_expr`")
        answer, expected = (ast.get_source_segment(body, n) for n in (value.left, value.comparators[0]))
        try:
            json.dumps(expected_value(expected))
        except Exception as exc:
            raise ValueError(f"{where}: expected value {expected!r} of test line {stmt.lineno} "
                             f"cannot be evaluated: {type(exc).__name__}: {exc}") from None
        tests.append(Test(answer, expected, hints.get(stmt.end_lineno)))
    if not tests:
        raise ValueError(f"{where}: a tests cell without tests")
    return tests


def parse(nb, name="exercise"):
    """Parse the markers of a source notebook into an :class:`Exercise`.

    Malformed markers raise ``ValueError`` naming the cell (``cell 7``, 1-based).
    """
    questions, current, solved = {}, None, []
    for i, cell in enumerate(nb.cells, start=1):
        first = _first_line(cell)
        where = f"{name}: cell {i} ({first[:40]!r})"
        if cell.cell_type == "markdown":
            continue
        if first == BEGIN_QUESTION:
            if current:
                raise ValueError(f"{where}: {BEGIN_QUESTION} inside question {current.name} "
                                 f"(missing {END_QUESTION})")
            current = _parse_header(cell, where)
            if current.name in questions:
                raise ValueError(f"{where}: duplicate question name {current.name}")
            questions[current.name] = current
        elif first == END_QUESTION:
            if not current:
                raise ValueError(f"{where}: {END_QUESTION} without {BEGIN_QUESTION}")
            if not current.public or not current.hidden:
                raise ValueError(f"{where}: question {current.name} needs a {PUBLIC_TESTS} "
                                 f"and a {HIDDEN_TESTS} cell")
            _check_choices(current, solved, where)
            current, solved = None, []
        elif first in (PUBLIC_TESTS, HIDDEN_TESTS):
            if not current:
                raise ValueError(f"{where}: {first} outside a question")
            (current.public if first == PUBLIC_TESTS else current.hidden).extend(_parse_tests(cell, where))
        elif cell.cell_type == "code":
            strip_solutions(cell.source, where=where)  # validates the solution markers
            solved += [m.group(3) for m in map(SOLUTION_LINE.match, cell.source.split("\n")) if m]
    if current:
        raise ValueError(f"{name}: question {current.name} has no {END_QUESTION}")
    if not questions:
        raise ValueError(f"{name}: no {BEGIN_QUESTION} cell")
    return Exercise(name, nb, questions)


def _check_choices(question, solutions, where):
    """A multiple-choice question's solution (literal ``# SOLUTION`` values and the tests'
    expected strings) must be one of its ``choices``."""
    if not question.choices:
        return
    found = []
    for text in solutions + [t.expected for t in question.tests]:
        try:
            value = ast.literal_eval(text)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
        if isinstance(value, str):
            found.append(value)
    options = {c.lower() for c in question.choices}
    wrong = [v for v in found if v.strip().lower() not in options]
    if not found or wrong:
        raise ValueError(f"{where}: question {question.name}: the solution "
                         f"{wrong[0] if wrong else 'value'!r} is not one of its choices "
                         f"{', '.join(question.choices)} (write `answer = \"x\"  # SOLUTION` "
                         "with x one of them)")


def strip_solutions(source, keep=False, where="cell"):
    """Replace the solutions in a code cell's source (or, with ``keep``, drop only the markers)."""
    out, indent = [], None
    for n, line in enumerate(source.split("\n"), start=1):
        text = line.strip()
        if text.startswith(BEGIN_SOLUTION):
            if indent is not None:
                raise ValueError(f"{where}: line {n}: nested {BEGIN_SOLUTION}")
            indent = line[: len(line) - len(line.lstrip())]
            if not keep:
                out.append(indent + (STUB if indent else "..."))
        elif text.startswith(END_SOLUTION):
            if indent is None:
                raise ValueError(f"{where}: line {n}: {END_SOLUTION} without {BEGIN_SOLUTION}")
            indent = None
        elif indent is not None:
            if keep:
                out.append(line)
        elif re.search(r"#\s*SOLUTION\s*$", line):
            match = SOLUTION_LINE.match(line)
            if not match:
                raise ValueError(f"{where}: line {n}: `# SOLUTION` must end a line `name = value`")
            lead, target, value = match.groups()
            out.append(f"{lead}{target} = {value if keep else '...'}")
        else:
            out.append(line)
    if indent is not None:
        raise ValueError(f"{where}: {BEGIN_SOLUTION} without {END_SOLUTION}")
    return "\n".join(out)


def release(exercise, instructor=False, repository=None):
    """The student notebook of an exercise (or, with ``instructor``, the solved one).

    Solutions are replaced, hidden-test and marker cells removed, each public-tests cell
    becomes ``check("q1")``, and a first cell creates ``check`` with the public tests
    (the instructor edition keeps the solutions and checks the hidden tests too). Before
    it comes the set-up cell of :mod:`lib.notebooks.setup_cell` (installs the course where
    it is missing, as on Colab), the same cell the launch notebooks start with. Cells
    of a question carry ``metadata.grading.question``; the notebook carries
    ``metadata.grading.exercise``. The result has no outputs.
    """
    spec = {"exercise": exercise.name, "public_only": not instructor, "questions": {
        q.name: {"points": q.points, "choices": q.choices,
                 "tests": [[t.answer, t.expected, t.hint] for t in (q.tests if instructor else q.public)]}
        for q in exercise.questions.values()}}
    setup = ("# Run this cell first. After answering a question, run check(\"q1\") to test "
             "your answer\n# (public tests only; the graders also run hidden tests). "
             "Do not edit this cell.\n"
             f"from lib.grading import Checker\n\ncheck = Checker({pprint.pformat(spec, width=88)})")
    cells = [setup_cell(repository), nbformat.v4.new_code_cell(setup, metadata={"tags": ["remove-cell"]})]
    question = None
    for i, cell in enumerate(exercise.notebook.cells, start=1):
        first = _first_line(cell)
        if cell.cell_type != "markdown" and first == BEGIN_QUESTION:
            question = _parse_header(cell, "").name
            continue
        if cell.cell_type != "markdown" and first == END_QUESTION:
            question = None
            continue
        if cell.cell_type == "code" and first == HIDDEN_TESTS:
            continue
        meta = dict(cell.metadata)  # tags, figure captions (mystnb), ...
        if question:
            meta["grading"] = {"question": question}
        if cell.cell_type == "code" and first == PUBLIC_TESTS:
            cells.append(nbformat.v4.new_code_cell(f'check("{question}")', metadata=meta))
        elif cell.cell_type == "code":
            source = strip_solutions(cell.source, keep=instructor, where=f"cell {i}")
            cells.append(nbformat.v4.new_code_cell(source, metadata=meta))
        elif cell.cell_type == "markdown":
            cells.append(nbformat.v4.new_markdown_cell(cell.source, metadata=meta))
        else:
            cells.append(nbformat.v4.new_raw_cell(cell.source, metadata=meta))
    for n, cell in enumerate(cells[1:], start=1):
        cell.id = f"cell-{n}"  # stable ids: releasing twice gives the same file
    nb = nbformat.v4.new_notebook(cells=cells, metadata={
        "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
        "language_info": {"name": "python"},
        "grading": {"exercise": exercise.name, "edition": "instructor" if instructor else "student"},
    })
    nbformat.validate(nb)
    return nb


def release_all(source, out, instructor=False):
    """Release every exercise under ``source`` (an ``exercises/`` folder or one exercise).

    Writes ``out/NN_topic/NN_topic.ipynb`` plus the other files of the exercise folder
    (data, images); returns the written notebook paths. The set-up cell installs from the
    repository of the course's ``_config.yml`` (the one above ``source``).
    """
    source, out = Path(source), Path(out)
    folders = [source] if source.is_file() or _is_exercise(source) else sorted(
        p for p in source.iterdir() if p.is_dir() and _is_exercise(p))
    if not folders:
        raise ValueError(f"{source}: no exercise folder (NN_topic/NN_topic.md or .ipynb)")
    repository = course_repository(source)
    written = []
    for folder in folders:
        path = find_source(folder)
        exercise = read_source(path)
        target = out / exercise.name
        target.mkdir(parents=True, exist_ok=True)
        for extra in path.parent.iterdir():
            if extra.is_file() and extra != path and extra.name != "README.md" and folder.is_dir():
                shutil.copy2(extra, target / extra.name)
        nb_path = target / f"{exercise.name}.ipynb"
        nbformat.write(release(exercise, instructor, repository), nb_path)
        written.append(nb_path)
    return written


def _is_exercise(folder):
    return folder.is_dir() and any(
        (folder / f"{folder.name}{ext}").is_file() for ext in (".md", ".ipynb"))
