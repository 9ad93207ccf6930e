"""Realistic wrong answers (issue 40): a corpus of answers written by working each question
the way students go wrong (a misread definition, the chapter's neighbouring concept, an
off-by-one, a forgotten prior or smoothing term, a wrong log base or axis, a value read
off a figure), kept as data in ``tests/grading/wrong_answers/NN_topic.yml``, one entry per wrong
answer:

    - question: q7
      misconception: one line, what the student believed
      hint: a piece of the hint the student must see first (that test's ``# hint:``)
      code: |              # replaces the solution: rebinds the question's answer
        def gibbs_error(posteriors, says):
            ...

The code runs in the solved set's namespace (``exercise_sets.solved``: no kernel).
Required: at least 90 % of each set's wrong answers fail a public test, every one fails a
hidden test, and the first failing test's hint is the
one written for that misconception: ``hint`` is part of its text). The corpus is not the last word: add to it.
"""
import contextlib
import io
import re
import warnings
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
import yaml
from exercise_sets import SETS as ALL_SETS
from exercise_sets import caught, first_failure, solved

from lib.grading.checks import Checker, expected_value
from lib.grading.source import BEGIN_QUESTION, END_QUESTION, PUBLIC_TESTS, read_source

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "grading" / "wrong_answers"
SETS = ALL_SETS  # every exercise set has its corpus (test_every_set_has_a_corpus)
PUBLIC_SHARE = 0.9


def corpus(name):
    entries = yaml.safe_load((CORPUS / f"{name}.yml").read_text())
    for e in entries:
        missing = {"question", "misconception", "hint", "code"} - set(e)
        assert not missing, f"{name}: entry {e.get('misconception')!r} lacks {sorted(missing)}"
    return entries


def test_every_set_has_a_corpus():
    """The corpus exists for every set (issue 40: all nine), and no file names a set that is gone."""
    assert sorted(p.stem for p in CORPUS.glob("*.yml")) == ALL_SETS


def first_hint(question, first):
    """The hint of test ``first`` ("public 2") of ``question``, or None."""
    if first is None:
        return None
    group, i = first.split()
    return (question.public if group == "public" else question.hidden)[int(i) - 1].hint


def run_wrong(name, entry):
    """(caught by public, caught by hidden, the first hint shown) of one wrong answer."""
    questions, namespace, answers, _ = solved(name)
    question = questions[entry["question"]]
    ns = dict(namespace)
    with contextlib.redirect_stdout(io.StringIO()), np.errstate(all="ignore"), \
            warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        exec(compile(entry["code"], f"<{name} {entry['question']} wrong answer>", "exec"), ns)  # noqa: S102
    targets = [t for _, t in answers[entry["question"]]]
    assert any(ns[t] is not namespace[t] for t in targets), \
        f"{name} {entry['question']}: {entry['misconception']!r} does not rebind {targets}"
    return (caught(question.public, ns), caught(question.hidden, ns),
            first_hint(question, first_failure(question, ns)))


def fits(entry, hint):
    return hint is not None and entry["hint"] in hint


def report(name):
    return [(e, *run_wrong(name, e)) for e in corpus(name)]


@pytest.mark.parametrize("name", SETS)
def test_wrong_answers_fail_and_show_their_hint_first(name):
    rows = report(name)
    escaped = [f"{e['question']} {e['misconception']!r}" for e, _, hidden, _ in rows if not hidden]
    assert not escaped, f"{name}: pass every hidden test: {escaped}"
    share = sum(r[1] for r in rows) / len(rows)
    assert share >= PUBLIC_SHARE, (f"{name}: public tests catch {share:.0%} of {len(rows)}; missed "
                                   f"{[(e['question'], e['misconception']) for e, p, _, _ in rows if not p]}")
    wrong = [f"{e['question']} {e['misconception']!r}: first hint {first!r}"
             for e, _, _, first in rows if not fits(e, first)]
    assert not wrong, f"{name}: " + "; ".join(wrong)


@pytest.mark.parametrize("name", SETS)
def test_every_computed_question_has_four_wrong_answers(name):
    _, _, _, choices = solved(name)
    questions = read_source(ROOT / "exercises" / name).questions
    count = {q: 0 for q in questions if q not in choices}
    for e in corpus(name):
        assert e["question"] in count, f"{name}: {e['question']} is not a computed question"
        count[e["question"]] += 1
    few = {q: n for q, n in count.items() if n < 4}
    assert not few, f"{name}: fewer than four wrong answers for {few}"


def test_the_corpus_test_catches_an_escape():
    """A wrong answer that passes every public test counts against the share, and a wrong
    first hint is reported (the check itself works)."""
    entry = {"question": "q1", "misconception": "the solution itself", "hint": "one probability",
             "code": "answer_q1 = prior * lime**3 / np.sum(prior * lime**3) + 0.0"}
    assert run_wrong("01_bayesian_learning", entry) == (False, False, None)


if __name__ == "__main__":  # a report: python tests/grading/test_wrong_answers.py [set ...]
    import sys
    for name in sys.argv[1:] or SETS:
        rows = report(name)
        print(f"{name}: {len(rows)} wrong answers, public {sum(r[1] for r in rows)}/{len(rows)}, "
              f"hidden {sum(r[2] for r in rows)}/{len(rows)}, "
              f"first hint fits {sum(fits(r[0], r[3]) for r in rows)}/{len(rows)}")
        for e, public, hidden, first in rows:
            if not (public and hidden) or not fits(e, first):
                print(f"    {e['question']} {e['misconception']!r}: public {public}, hidden {hidden}, "
                      f"first hint {first!r}, written {e['hint']!r}")


def _simple(x):
    """A fraction with a small denominator (0.2, 2/3, 0.75): shared by chance, it gives nothing away."""
    return abs(Fraction(x).limit_denominator(12) - Fraction(x)) <= 1e-9 * max(1.0, abs(x))


def _numbers(value):
    """The numbers of an expected value that could give an answer away (not integers,
    booleans or simple fractions)."""
    if isinstance(value, dict):  # an encoded approx(...): its value
        value = value.get("value", list(value.values()))
    flat = value if isinstance(value, (list, tuple)) else [value]
    out = []
    for x in flat:
        if isinstance(x, (list, tuple, np.ndarray, dict)):
            out += _numbers(x)
        elif isinstance(x, (int, float, np.number)) and not isinstance(x, (bool, np.bool_)) \
                and np.isfinite(x) and not _simple(float(x)):
            out.append(float(x))
    return out


def public_values_that_are_hidden_values(name):
    """[(public question, number, hidden question)]: a number expected by a public test
    that is a hidden expected number of another question of the set (to 4 digits)."""
    questions = read_source(ROOT / "exercises" / name).questions
    hidden = {q: _numbers([expected_value(t.expected) for t in question.hidden])
              for q, question in questions.items()}
    found = []
    for q, question in questions.items():
        for x in _numbers([expected_value(t.expected) for t in question.public]):
            found += [(q, x, p) for p, ys in hidden.items()
                      if p != q and any(np.isclose(x, y, rtol=5e-4, atol=1e-9) for y in ys)]
    return found


@pytest.mark.parametrize("name", ALL_SETS)
def test_no_public_value_is_another_questions_hidden_value(name):
    """A public test's expected number must not be another question's hidden answer
    (set 01 q11's public example was q9's hidden value)."""
    found = public_values_that_are_hidden_values(name)
    assert not found, f"{name}: public value = hidden value of another question: {found}"


def test_public_hidden_overlap_is_found():
    assert _numbers([0.5, 2, [0.3125, True], expected_value("approx([0.0875, 1, 2 / 3])")]) == [0.3125, 0.0875]
    questions = read_source(ROOT / "exercises" / "01_bayesian_learning").questions
    assert any(np.isclose(x, 95 / 1085) for x in _numbers([expected_value(t.expected)
                                                           for t in questions["q9"].hidden]))


def public_tests_without_rationale(name):
    """The public test lines of the set's value questions (a number or array, not a function
    or multiple choice) that lack a ``# why: ...`` comment line just above them: the
    author's reason why the test does not determine the answer."""
    _, _, answers, choices = solved(name)
    values = {q for q, targets in answers.items()
              if q not in choices and targets and all(kind == "value" for kind, _ in targets)}
    question, missing = None, []
    for cell in read_source(ROOT / "exercises" / name).notebook.cells:
        lines = cell.source.strip().split("\n")
        if lines[0].strip() == BEGIN_QUESTION:
            question = next(x.split(":", 1)[1].strip() for x in lines if x.startswith("name:"))
        elif lines[0].strip() == PUBLIC_TESTS and question in values:
            missing += [f"{question}: {line}" for before, line in zip(lines, lines[1:])
                        if line.strip() and not line.lstrip().startswith("#")
                        and not before.lstrip().startswith("# why:")]
    return missing


@pytest.mark.parametrize("name", SETS)
def test_value_questions_say_why_public_tests_do_not_give_the_answer(name):
    missing = public_tests_without_rationale(name)
    assert not missing, f"{name}: public tests without a '# why:' line above: {missing}"


# --- multiple choice that teaches ---------------------------------------------------

def multiple_choice(name):
    """{question: (key, {option: its text in the markdown})} of the set's multiple choice."""
    questions, namespace, answers, choices = solved(name)
    text = (ROOT / "exercises" / name / f"{name}.md").read_text()
    out = {}
    for q, options in choices.items():
        block = text[text.index(f"\nname: {q}\n"):]
        block = block[:block.index(END_QUESTION)]
        texts = dict(re.findall(r"^- \*\*(\w+)\*\* (.*)$", block, re.M))
        assert sorted(texts) == sorted(options), f"{name} {q}: options {sorted(texts)} in the text"
        out[q] = (str(namespace[answers[q][0][1]]), texts)
    return out


def restates(hint, key, key_text):
    return any(s in hint for s in (f"option {key}", f"({key})", f'"{key}"', f"**{key}**", key_text))


@pytest.mark.parametrize("name", ALL_SETS)
def test_every_wrong_option_shows_its_own_hint_first(name):
    """A wrong option fails a hidden test of its own whose hint (``option b: why b is
    tempting and wrong``) is the first the student reads after grading; no hint of the
    question restates the key."""
    questions, namespace, answers, _ = solved(name)
    for q, (key, texts) in multiple_choice(name).items():
        question, target = questions[q], answers[q][0][1]
        for option in texts:
            hint = first_hint(question, first_failure(question, {**namespace, target: option}))
            if option == key:
                assert hint is None, f"{name} {q}: the key fails {hint!r}"
            else:
                assert hint and hint.startswith(f"option {option}: "), f"{name} {q} {option}: {hint!r}"
        for t in question.tests:
            assert not restates(t.hint or "", key, texts[key]), f"{name} {q}: {t.hint!r} restates the key"


@pytest.mark.parametrize("name", ALL_SETS)
def test_options_give_nothing_away_by_their_numbers(name):
    """The key is not the only option sharing its numbers with the most other options
    (set 02 q5's key was the one option sharing a number with two others)."""
    for q, (key, texts) in multiple_choice(name).items():
        numbers = {o: set(re.findall(r"\d+(?:\.\d+)?", t)) for o, t in texts.items()}
        shared = {o: sum(bool(numbers[o] & numbers[p]) for p in texts if p != o) for o in texts}
        best = max(shared.values())
        assert not (best and shared[key] == best and list(shared.values()).count(best) == 1), \
            f"{name} {q}: only the key {key!r} shares numbers with {best} other options"


def test_restates_and_shared_numbers_are_found():
    assert restates("so option c is right", "c", "They agree") and restates("They agree more", "c", "They agree")
    assert not restates("option a: the data overwhelm any prior", "d", "stays at zero")


def test_check_says_only_that_a_valid_option_was_given(capsys):
    spec = {"exercise": "x", "questions": {"q4": {"points": 1, "choices": ["a", "b"], "tests": [
        ['(str(answer).strip().lower() in ["a", "b"]) == True', "True", "one letter"]]}}}
    exec('check("q4")', {"check": Checker(spec), "answer": "b"})
    out = capsys.readouterr().out
    assert out == "q4: a valid option, one of a, b; it is graded after you submit.\n"
    exec('check("q4")', {"check": Checker({**spec, "public_only": False}), "answer": "b"})
    assert "all 1 tests (public and hidden) passed" in capsys.readouterr().out  # instructor edition
