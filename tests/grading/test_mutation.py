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
import re

import pytest
from exercise_sets import (
    ROOT,
    SETS,
    mistakes,
    mutation_report,
    solved,
)

from lib.grading.checks import evaluate, expected_value, judge

PUBLIC_SHARE = 0.8


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


if __name__ == "__main__":  # a report: python tests/grading/test_mutation.py [--mistakes] [set ...]
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
