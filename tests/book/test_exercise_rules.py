"""The exercise sets follow the course's rules (issue 28, ``exercises/README.md``).

* Precision: every number is checked to 4 significant digits (``lib.grading.checks``'s
  default tolerance, ``rtol=5e-4``), in public and hidden tests alike: no test states a
  tolerance of its own, every question with a non-integer number to check says "4
  significant digits", and the solution rounded to 4 significant digits (a value, or
  every number a function returns) passes every test of its question.
"""
import ast
import re
import warnings
from pathlib import Path

import numpy as np
import pytest
from exercise_sets import SETS, Mutant, _map, caught, question_cells, question_text, solved

from lib.grading.checks import expected_value
from lib.grading.source import (
    BEGIN_QUESTION,
    BEGIN_SOLUTION,
    END_QUESTION,
    END_SOLUTION,
    HIDDEN_TESTS,
    PUBLIC_TESTS,
    SOLUTION_LINE,
    read_source,
    strip_solutions,
)

ROOT = Path(__file__).resolve().parents[2]
STATED = "4 significant digits"


def _approx_keywords(expected):
    node = ast.parse(expected, mode="eval").body
    return [k.arg for k in node.keywords] if (
        isinstance(node, ast.Call) and getattr(node.func, "id", "") == "approx") else []


def _checks_real_numbers(question):
    """True when some test compares with a non-integer number (the rule's tolerance)."""
    for t in question.tests:
        data = expected_value(t.expected)
        if isinstance(data, dict) and data.get("$type") == "approx":
            return True
        if not isinstance(data, (bool, str, dict)) and data is not None:
            if np.asarray(data).dtype.kind == "f":
                return True
    return False


def round4(x):
    """``x`` (a number or array) rounded to 4 significant digits."""
    x = np.asarray(x, dtype=float)
    finite = np.isfinite(x) & (x != 0)
    safe = np.where(finite, x, 1.0)
    digits = 3 - np.floor(np.log10(np.abs(safe)))
    return np.where(finite, np.round(safe * 10.0 ** digits) / 10.0 ** digits, x)


@pytest.mark.parametrize("name", SETS)
def test_no_test_states_its_own_tolerance(name):
    """Public and hidden tests use the one tolerance of the course."""
    questions, _, _, _ = solved(name)
    for q in questions.values():
        for t in q.tests:
            assert not _approx_keywords(t.expected), (
                f"{name} {q.name}: `{t.expected}` states a tolerance; the course checks 4 "
                "significant digits everywhere (exercises/README.md, precision)")


@pytest.mark.parametrize("name", SETS)
def test_numeric_questions_state_the_precision(name):
    questions, _, _, _ = solved(name)
    exercise = read_source(ROOT / "exercises" / name)
    for q in questions.values():
        if _checks_real_numbers(q):
            assert STATED in question_text(exercise, q.name), (
                f"{name} {q.name}: checks numbers but does not say '{STATED}'")


@pytest.mark.parametrize("name", SETS)
def test_answers_to_four_significant_digits_pass(name):
    """The tests honour the stated precision: the solution, rounded, passes all of them."""
    questions, namespace, answers, choices = solved(name)
    for q, targets in answers.items():
        if q in choices:
            continue
        for kind, target in targets:
            original = namespace[target]
            if kind == "value":
                rounded = _map(original, round4)
                if rounded is None:  # not a number (a string, a list of words)
                    continue
            else:
                def rounded(*a, _f=original, **k):
                    result = _f(*a, **k)
                    y = _map(result, round4)
                    return result if y is None else y
            ns = dict(namespace)
            ns[target] = rounded
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                failed = [t for t in questions[q].tests if caught([t], ns)]
            assert not failed, f"{name} {q}: {target} to {STATED} fails {failed}"


def test_round4():
    assert np.allclose(round4([0.0131579, 1017.88652, 0.0, -2.34567e-7, np.inf]),
                       [0.01316, 1018.0, 0.0, -2.346e-7, np.inf], rtol=1e-12, atol=0)
    assert isinstance(Mutant, type)


def test_06_q5_widget_values_copied_pass():
    """Set 06 q5's widget prints 6 decimals; a student who copies them passes every test."""
    questions, namespace, _, _ = solved("06_bayesian_networks")
    shown = [float(f"{v:.6f}") for v in namespace["answer_q5"]]
    ns = dict(namespace, answer_q5=np.array(shown))
    assert not [t for t in questions["q5"].tests if caught([t], ns)]
    ns["answer_q5"] = np.array([float(f"{v:.3f}") for v in namespace["answer_q5"]])
    assert caught(questions["q5"].hidden, ns)  # fewer digits than the rule: fails


# --- hints and public tests never give the answer away ----------------------------

NUMBER = re.compile(r"(?<![\w.])-?\d+\.\d+(?:e-?\d+)?|(?<![\w.])\d+e-?\d+")


def _squash(text):
    """Text reduced for comparing a formula in words with code: no spaces, parentheses,
    ``*``, ``np.``/``math.``, ``**`` as ``^``; lower case."""
    text = text.lower().replace("**", "^").replace("np.", "").replace("math.", "")
    return re.sub(r"[\s()*\[\]]", "", text)


def solution_code(exercise, name):
    """The solution lines of question ``name`` (``# SOLUTION`` right sides, solution blocks)."""
    block, lines = False, []
    for cell in question_cells(exercise, name):
        if cell.cell_type == "code":
            for line in cell.source.split("\n"):
                if line.strip().startswith(BEGIN_SOLUTION):
                    block = True
                elif line.strip().startswith(END_SOLUTION):
                    block = False
                elif block:
                    lines.append(re.sub(r"^\s*(return|\w+\s*=)\s*", "", line.split("#")[0]))
                elif SOLUTION_LINE.match(line):
                    lines.append(SOLUTION_LINE.match(line).group(3))
    lines = [re.sub(r"^\s*(float|int|list|np\.array)\((.*)\)\s*$", r"\2", x) for x in lines]
    return [s for s in map(_squash, lines) if len(s) >= 8]


def _numbers_of(data):
    if isinstance(data, dict):
        return _numbers_of(data.get("value")) if data.get("$type") == "approx" else []
    if isinstance(data, (bool, str)) or data is None:
        return []
    try:
        return [float(v) for v in np.ravel(np.asarray(data, dtype=float))]
    except (TypeError, ValueError):
        return []


def _in_text(value, text):
    """True when the question's text states ``value`` (to the digits it shows)."""
    for found in NUMBER.findall(text):
        decimals = len(found.split(".")[1]) if "." in found and "e" not in found else 12
        if abs(float(found) - value) <= 0.5 * 10.0 ** -decimals + 1e-12:
            return True
    return False


def answer_leaks(name):
    """[(question, where, what)]: hints or public test code holding the solution's
    expression, or a number of the answer (a solution value, a hidden expected value)
    that the question's text does not state."""
    exercise = read_source(ROOT / "exercises" / name)
    questions, namespace, answers, _ = solved(name)
    given = "\n".join(strip_solutions(c.source) for c in exercise.notebook.cells  # the data
                      if c.cell_type == "code" and not c.source.lstrip().startswith(
                          (PUBLIC_TESTS, HIDDEN_TESTS, BEGIN_QUESTION, END_QUESTION)))
    found = []
    for q in questions.values():
        text, code = question_text(exercise, q.name) + given, solution_code(exercise, q.name)
        secret = [v for kind, target in answers[q.name] if kind == "value"
                  for v in _numbers_of(namespace[target]) if not float(v).is_integer()]
        secret += [v for t in q.hidden for v in _numbers_of(expected_value(t.expected))
                   if not float(v).is_integer()]
        shown = [(f"hint of `{t.answer}`", t.hint) for t in q.tests if t.hint]
        shown += [(f"public test `{t.answer}`", f"{t.answer} == {t.expected}") for t in q.public]
        for where, what in shown:
            squashed = _squash(what)
            found += [(q.name, where, f"the solution's `{c}`") for c in code if c in squashed]
            expected_side = what.split(" == ", 1)[1] if where.startswith("public") else what
            for number in NUMBER.findall(expected_side):
                value = float(number)
                if (value.is_integer() or _in_text(value, text)
                        or len(number.split("e")[0].replace("-", "").replace(".", "").lstrip("0")) < 3):
                    continue
                if any(abs(value - s) <= 5e-4 * abs(s) for s in secret):
                    found.append((q.name, where, f"the answer's value {number}"))
    return found


@pytest.mark.parametrize("name", SETS)
def test_hints_and_public_tests_do_not_give_the_answer(name):
    leaks = answer_leaks(name)
    assert not leaks, f"{name}: " + "; ".join(f"{q} {w}: {x}" for q, w, x in leaks)


def test_leak_check_catches_a_formula_and_a_value():
    assert _squash("1 + p log2 p + (1 - p) log2(1 - p)") == _squash(
        "1 + p * np.log2(p) + (1 - p) * np.log2(1 - p)")
    assert _in_text(0.818182, "rain is 0.818 on day 1") and not _in_text(0.8945, "0.818")


def test_05_q1_hidden_tests_check_every_entry():
    """Set 05 q1: an answer with two columns swapped fails a hidden test (issue 28)."""
    questions, namespace, _, _ = solved("05_text_classification")
    answer, vocabulary = namespace["answer_q1"], namespace["vocabulary"]
    i, j = vocabulary["space"], vocabulary["launch"]
    swapped = answer.copy()
    swapped[[i, j]] = swapped[[j, i]]
    assert not caught(questions["q1"].hidden, namespace)
    assert caught(questions["q1"].hidden, dict(namespace, answer_q1=swapped))


# --- the chapter's words in the set ------------------------------------------------

TERM = re.compile(r"(?<![*\w])\*\*([^*\n]+?)\*\*(?!\*)|(?<![*\w])\*([^*\s][^*\n]*?)\*(?![*\w])|\{term\}`([^`<]+)")


def set_terms(name):
    """The terms a set's markdown puts in bold, italics or a {term} role (not the
    multiple-choice letters)."""
    text = "\n".join(c.source for c in read_source(ROOT / "exercises" / name).notebook.cells
                     if c.cell_type == "markdown")
    text = re.sub(r"\$[^$]*\$", "", text)  # math is not a term
    terms = {next(g for g in m.groups() if g).strip() for m in TERM.finditer(text)}
    return sorted(t for t in terms if len(t) > 1)


def _in_chapter(term, chapter):
    words = re.escape(term.lower().rstrip("s")).replace(r"\ ", r"[\s\-]+")
    return re.search(words, chapter.lower()) is not None


@pytest.mark.parametrize("name", SETS)
def test_set_terms_are_the_chapters(name):
    """Every term a set emphasises or defines appears in its chapter (chapters/NN_topic.md)."""
    chapter = (ROOT / "chapters" / f"{name}.md").read_text()
    missing = [t for t in set_terms(name) if not _in_chapter(t, chapter)]
    assert not missing, f"{name}: terms not in chapters/{name}.md: {missing}"


def test_set_terms_finds_bold_italic_and_term_roles():
    assert _in_chapter("imaginary examples", "with imaginary\nexamples") and not _in_chapter("beta", "b")
    assert [m.group(1) or m.group(2) for m in TERM.finditer("a **family** and *parents*, 2 * 3 * 4")] == [
        "family", "parents"]


@pytest.mark.parametrize("name", SETS)
def test_hidden_tests_see_the_whole_answer(name):
    """A graded value is never checked through a sample of its entries only: some hidden
    test of its question reads it whole (not ``answer_q1[...]``)."""
    questions, _, answers, _ = solved(name)
    for q, targets in answers.items():
        for kind, target in targets:
            uses = [t.answer for t in questions[q].hidden if re.search(rf"\b{target}\b", t.answer)]
            if kind == "value" and uses:
                assert any(re.search(rf"\b{target}\b(?!\s*\[)", u) for u in uses), (
                    f"{name} {q}: hidden tests read only entries of {target}: {uses}")
