"""Mutation test of the exercise sets: do the tests catch plausible wrong answers?

For each set, the instructor solution's code cells run once in a namespace (no kernel).
Then every graded answer is perturbed automatically, the way students go wrong: a value
x1.1 or x0.5, off by one, natural log instead of log2 (or back), an array reversed or
shifted off its normalisation; a function whose output is perturbed alike, whose two
arguments are swapped, or which ignores one argument (it keeps using the value of its
first call); the other options of a multiple-choice question. A perturbed answer is
*caught* by a group of tests when at least one of them fails.

Required (issue 13): the public tests catch at least 80 % of the perturbed computed
answers (numbers, arrays, functions) of each set; the hidden tests catch all perturbed
answers, multiple choice included. Perturbed values equal to the solution (0 x 1.1) are
not counted. Issue 28: every perturbed answer is among its question's listed mistakes
(``mistakes public 2: x1.1; ignore prior`` in the header), and the first test that fails
(the first hint the student sees) is the one listed for it.
"""
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
import pytest

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
PUBLIC_SHARE = 0.8


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


@pytest.mark.parametrize("name", SETS)
def test_solution_passes_its_own_tests(name):
    questions, namespace, _, _ = solved(name)
    for q in questions.values():
        for t in q.tests:  # (answer, expected) or Test(answer, expected, hint)
            status, msg = judge(t[0], evaluate(t[0], dict(namespace)), expected_value(t[1]))
            assert status == "passed", f"{name} {q.name}: {msg}"


@pytest.mark.parametrize("name", SETS)
def test_tests_catch_perturbed_answers(name):
    rows = mutation_report(name)
    computed = [r for r in rows if r[3] != "choice"]
    assert computed, f"{name}: no computed answer to perturb"
    missed_hidden = [r[:3] for r in rows if not r[5]]
    assert not missed_hidden, f"{name}: hidden tests miss {missed_hidden}"
    share = sum(r[4] for r in computed) / len(computed)
    missed = [r[:3] for r in computed if not r[4]]
    assert share >= PUBLIC_SHARE, (f"{name}: public tests catch {share:.0%} of "
                                   f"{len(computed)} perturbed answers; missed {missed}")


@pytest.mark.parametrize("name", SETS)
def test_first_hint_is_the_one_written_for_the_mistake(name):
    """Every perturbed answer is in its question's list of mistakes, and the first hint the
    student sees is the one of the test the author listed for that kind of mistake."""
    listed, wrong = mistakes(name), []
    for q, _target, label, _, _, _, first in mutation_report(name):
        if listed[q].get(label) != first:
            wrong.append(f"{q} {label!r}: listed {listed[q].get(label)}, first hint from {first}")
    assert not wrong, f"{name}: " + "; ".join(wrong)


@pytest.mark.parametrize("name", SETS)
def test_questions_are_graded_independently(name):
    """No test uses another question's graded answer: a wrong q2 must not cost q5's points."""
    questions, _, answers, _ = solved(name)
    for q, question in questions.items():
        others = {target for p, targets in answers.items() if p != q for _, target in targets}
        used = {node.id for t in question.tests
                for node in ast.walk(ast.parse(t[0], mode="eval")) if isinstance(node, ast.Name)}
        assert not used & others, f"{name} {q}: tests use {sorted(used & others)} of other questions"


@pytest.mark.parametrize("name", SETS)
def test_every_question_has_a_hint_on_each_test_line(name):
    """Every test line of the source ends with ``# hint: ...`` (shown when it fails)."""
    text = (ROOT / "exercises" / name / f"{name}.md").read_text()
    for block in re.findall(r"```\{code-cell\}[^\n]*\n(# (?:HIDDEN )?TESTS\n.*?)```", text, re.S):
        for line in block.strip().split("\n")[1:]:
            if line.strip() and not line.lstrip().startswith("#"):
                assert re.search(r"#\s*hint:\s*\S", line), f"{name}: test without a hint: {line}"


def test_multiple_choice_keys_are_spread():
    """No letter is the key of more than 40 % of the course's multiple-choice questions."""
    keys = []
    for name in SETS:
        questions, namespace, answers, choices = solved(name)
        for q, options in choices.items():
            value = namespace[answers[q][0][1]]
            assert str(value) in options, f"{name} {q}: key {value!r} not in {options}"
            keys.append(str(value))
    assert keys
    worst = max(set(keys), key=keys.count)
    assert keys.count(worst) <= 0.4 * len(keys), f"key {worst!r}: {keys.count(worst)} of {len(keys)}"


def draft_mistakes(name):
    """{question: ["mistakes public 1: x1.1; ignore prior", ...]}: header lines listing every
    perturbed answer at the test that catches it first now (a draft to review: reorder the
    tests when a hint does not fit its mistake, and add the named misconceptions)."""
    groups = {}
    for q, _, label, _, _, _, first in mutation_report(name):
        groups.setdefault(q, {}).setdefault(first, []).append(label)
    return {q: [f"mistakes {w}: {'; '.join(by[w])}" for w in
                sorted(by, key=lambda w: (w.split()[0] != "public", int(w.split()[1])))]
            for q, by in groups.items()}


if __name__ == "__main__":  # a report: python -m tests.test_mutation [--mistakes] [set ...]
    import sys
    if sys.argv[1:2] == ["--mistakes"]:
        for name in sys.argv[2:] or SETS:
            for q, lines in draft_mistakes(name).items():
                print(f"{name} {q}:", *lines, sep="\n    ")
        raise SystemExit(0)
    for name in sys.argv[1:] or SETS:
        rows = mutation_report(name)
        comp = [r for r in rows if r[3] != "choice"]
        print(f"{name}: public {sum(r[4] for r in comp)}/{len(comp)}, "
              f"hidden {sum(r[5] for r in rows)}/{len(rows)}")
        for r in rows:
            if not (r[4] and r[5]) or mistakes(name)[r[0]].get(r[2]) != r[6]:
                print("   ", r, "listed:", mistakes(name)[r[0]].get(r[2]))
