"""The exercise sets solved, perturbed and graded without a kernel: the machinery of the
mutation test (tests/grading/test_mutation.py), shared by the tests of hints, named
mistakes, wrong answers, display precision and the exercise rules (a helper module, not
a test module: no test module imports another)."""
import ast
import contextlib
import functools
import inspect
import io
import math
import re
import warnings
from pathlib import Path

import numpy as np

from lib.grading.checks import evaluate, expected_value, judge
from lib.grading.source import (
    BEGIN_QUESTION,
    BEGIN_SOLUTION,
    END_QUESTION,
    HIDDEN_TESTS,
    PUBLIC_TESTS,
    SOLUTION_LINE,
    read_source,
    strip_solutions,
)

ROOT = Path(__file__).resolve().parents[2]
SETS = sorted(p.name for p in (ROOT / "exercises").iterdir()
              if p.is_dir() and (p / f"{p.name}.md").is_file())
LN2 = math.log(2)


def _first(cell):
    return cell.source.lstrip().split("\n", 1)[0].strip()


def _header(cell):
    meta = {}
    for line in cell.source.strip().split("\n")[1:]:
        key, _, value = line.partition(":")
        meta[key.strip()] = value.strip()
    return meta


def solution_cells(exercise):
    """(header of the question the cell sits in, or None; cell) for every code cell of the
    source that is neither a marker nor a tests cell, in order."""
    meta = None
    for cell in exercise.notebook.cells:
        if cell.cell_type == "markdown":
            continue
        first = _first(cell)
        if first == BEGIN_QUESTION:
            meta = _header(cell)
        elif first == END_QUESTION:
            meta = None
        elif cell.cell_type == "code" and first not in (PUBLIC_TESTS, HIDDEN_TESTS):
            yield meta, cell


@functools.lru_cache(maxsize=None)
def solved(name):
    """(questions, namespace, answers): the solution run once; answers[q] = [(kind, target)]."""
    exercise = read_source(ROOT / "exercises" / name)
    namespace = {"__name__": "__main__"}
    answers, choices = {}, {}
    for meta, cell in solution_cells(exercise):
        source = strip_solutions(cell.source, keep=True)
        with contextlib.redirect_stdout(io.StringIO()):
            exec(compile(source, f"<{name}>", "exec"), namespace)  # noqa: S102 - course code
        if meta is None:
            continue
        question = meta["name"]
        answers.setdefault(question, [])
        if "choices" in meta:
            choices[question] = [c.strip() for c in meta["choices"].split(",")]
        for line in cell.source.split("\n"):
            match = SOLUTION_LINE.match(line)
            if match:
                answers[question].append(("value", match.group(2).strip()))
        if BEGIN_SOLUTION in cell.source:
            for node in ast.parse(source).body:
                if isinstance(node, ast.FunctionDef):
                    answers[question].append(("function", node.name))
    return exercise.questions, namespace, answers, choices


# --- perturbations ----------------------------------------------------------------

def _numeric(x):
    return isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, (bool, np.bool_))


def _map(x, f):
    """Apply ``f`` to a number or a numeric array; lists/tuples element-wise; else None."""
    if _numeric(x):
        y = f(np.asarray(float(x)))
        return type(x)(y) if isinstance(x, (int, np.integer)) and float(y).is_integer() else float(y)
    if isinstance(x, np.ndarray) and x.dtype.kind in "iuf" and x.size:
        return f(x.astype(float))
    if isinstance(x, (list, tuple)) and x:
        parts = [_map(v, f) for v in x]
        return None if any(p is None for p in parts) else type(x)(parts)
    return None


def _shift(a):
    """Off the normalisation: add 10 % of the mean magnitude (an unnormalised array)."""
    return a + 0.1 * (np.mean(np.abs(a)) or 1.0)


def _reverse(a):
    return a[::-1] if a.ndim else a


OUTPUT = {"x1.1": lambda a: a * 1.1, "x0.5": lambda a: a * 0.5, "+1": lambda a: a + 1,
          "-1": lambda a: a - 1, "ln/log2": lambda a: a * LN2, "log2/ln": lambda a: a / LN2,
          "unnormalised": _shift, "reversed": _reverse}


def _same(a, b):
    try:
        return bool(np.allclose(np.asarray(a, dtype=float), np.asarray(b, dtype=float),
                                rtol=1e-9, atol=1e-12, equal_nan=True))
    except (TypeError, ValueError):
        return a == b


def value_mutants(value, options=None):
    """{label: perturbed value} of a graded value (other options for multiple choice)."""
    if options is not None:
        return {f"option {o}": o for o in options if o != str(value).strip().lower()}
    out = {}
    for label, f in OUTPUT.items():
        try:
            with np.errstate(all="ignore"):
                y = _map(value, f)
        except (TypeError, ValueError):
            y = None
        if y is not None and not (np.shape(y) == np.shape(value) and _same(y, value)):
            out[label] = y
    return out


class Mutant:
    """A perturbed function and its memory (cleared before each run of a group of tests).

    An output perturbation that changed no output on any test call is not counted
    (the output was not a number); a swapped or ignored argument always counts.
    """

    def __init__(self, func, memory=None, always_counts=False):
        self.func, self.memory, self.always_counts = func, {} if memory is None else memory, always_counts

    def counts(self):
        return self.always_counts or bool(self.memory)


def function_mutants(func):
    """{label: perturbed function}: perturbed outputs, swapped or ignored arguments."""
    params = [p for p in inspect.signature(func).parameters.values()
              if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    out = {}
    for label, f in OUTPUT.items():
        changed = {}

        def perturbed(*a, _f=f, _changed=changed, **k):
            result = func(*a, **k)
            with np.errstate(all="ignore"):
                y = _map(result, _f)
            if y is None or (np.shape(y) == np.shape(result) and _same(y, result)):
                return result
            _changed["yes"] = True
            return y
        out[f"output {label}"] = Mutant(perturbed, changed)
    for i in range(len(params) - 1):
        def swapped(*a, _i=i, **k):
            bound = inspect.signature(func).bind(*a, **k)
            bound.apply_defaults()
            args = list(bound.arguments.values())
            args[_i], args[_i + 1] = args[_i + 1], args[_i]
            return func(*args)
        out[f"swap {params[i].name}, {params[i + 1].name}"] = Mutant(swapped, always_counts=True)
    for p in params:
        seen = {}

        def ignored(*a, _p=p.name, _seen=seen, **k):
            bound = inspect.signature(func).bind(*a, **k)
            bound.apply_defaults()
            _seen.setdefault(_p, bound.arguments[_p])
            bound.arguments[_p] = _seen[_p]
            return func(*bound.args, **bound.kwargs)
        out[f"ignore {p.name}"] = Mutant(ignored, seen, always_counts=True)
    return out


def caught(tests, namespace):
    """True when at least one of ``tests`` [(answer_expr, expected_expr, ...)] fails."""
    with np.errstate(all="ignore"), warnings.catch_warnings():  # perturbed answers may divide by 0
        warnings.simplefilter("ignore", RuntimeWarning)
        return any(judge(t[0], evaluate(t[0], namespace), expected_value(t[1]))[0] != "passed"
                   for t in tests)


def first_failure(question, namespace):
    """``"public 2"`` / ``"hidden 1"``: the test whose hint the student sees first
    (the feedback lists public failures, then hidden hints, each in the tests' order)."""
    for group, tests in (("public", question.public), ("hidden", question.hidden)):
        for i, t in enumerate(tests, start=1):
            if caught([t], namespace):
                return f"{group} {i}"
    return None


@functools.lru_cache(maxsize=None)
def mistakes(name):
    """{question: {mistake: "public 2"}}: the authors' lists, from the question headers'
    ``mistakes public 2: label; label`` lines (see exercises/README.md)."""
    out, exercise = {}, read_source(ROOT / "exercises" / name)
    for cell in exercise.notebook.cells:
        if cell.cell_type != "markdown" and _first(cell) == BEGIN_QUESTION:
            meta = _header(cell)
            out[meta["name"]] = {label.strip(): key.split(" ", 1)[1]
                                 for key, value in meta.items() if key.startswith("mistakes ")
                                 for label in value.split(";") if label.strip()}
    return out


def mutation_report(name):
    """[(question, target, label, kind, caught_by_public, caught_by_hidden, first_failure)]."""
    questions, namespace, answers, choices = solved(name)
    rows = []
    for q, targets in answers.items():
        question = questions[q]
        tested = {node.id for t in question.tests
                  for node in ast.walk(ast.parse(t[0], mode="eval")) if isinstance(node, ast.Name)}
        for kind, target in targets:
            if target not in tested:  # a helper line of the solution, graded through others
                continue
            original = namespace[target]
            if kind == "value":
                mutants = value_mutants(original, choices.get(q))
            else:
                mutants = function_mutants(original)
            for label, mutant in mutants.items():
                results, counts = [], not isinstance(mutant, Mutant)
                for tests in (question.public, question.hidden, None):
                    value = mutant
                    if isinstance(mutant, Mutant):  # fresh memory for each run
                        mutant.memory.clear()
                        value = mutant.func
                    ns = dict(namespace)
                    ns[target] = value
                    results.append(caught(tests, ns) if tests is not None else first_failure(question, ns))
                    if isinstance(mutant, Mutant):
                        counts = counts or mutant.counts()
                if not counts:
                    continue
                what = "choice" if q in choices else kind
                rows.append((q, target, label, what, *results))
    return rows



def replies(question, values):
    """The sandbox's two replies for ``question``: its public tests' values, then its hidden ones'."""
    n = len(question.public)
    return [{"question": question.name, "pass": 0, "status": "ok", "results": values[:n]},
            {"question": question.name, "pass": 1, "status": "ok", "results": values[n:]}]


def question_cells(exercise, name):
    """The cells of question ``name`` (between its markers)."""
    inside = False
    for cell in exercise.notebook.cells:
        first = cell.source.lstrip().split("\n", 1)[0].strip()
        if cell.cell_type != "markdown" and first == BEGIN_QUESTION:
            inside = re.search(rf"^name:\s*{name}\s*$", cell.source, re.M) is not None
        elif cell.cell_type != "markdown" and first == END_QUESTION:
            inside = False
        elif inside:
            yield cell


def question_text(exercise, name):
    """The markdown of question ``name``."""
    return "\n".join(c.source for c in question_cells(exercise, name) if c.cell_type == "markdown")
