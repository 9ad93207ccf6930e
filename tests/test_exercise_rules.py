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

from lib.grading.checks import expected_value
from lib.grading.source import BEGIN_QUESTION, END_QUESTION
from test_mutation import Mutant, _map, caught, solved

ROOT = Path(__file__).resolve().parents[1]
SETS = sorted(p.name for p in (ROOT / "exercises").iterdir()
              if p.is_dir() and (p / f"{p.name}.md").is_file())
STATED = "4 significant digits"


def question_text(exercise, name):
    """The markdown of question ``name`` (its cells between the markers)."""
    inside, parts = False, []
    for cell in exercise.notebook.cells:
        first = cell.source.lstrip().split("\n", 1)[0].strip()
        if cell.cell_type != "markdown" and first == BEGIN_QUESTION:
            inside = re.search(rf"^name:\s*{name}\s*$", cell.source, re.M) is not None
        elif cell.cell_type != "markdown" and first == END_QUESTION:
            inside = False
        elif inside and cell.cell_type == "markdown":
            parts.append(cell.source)
    return "\n".join(parts)


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
    exercise = __import__("lib.grading.source", fromlist=["read_source"]).read_source(
        ROOT / "exercises" / name)
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
