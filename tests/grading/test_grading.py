"""Tests of lib.grading's format, answers and check(): parsing, hints, choices, release.

The sandboxed grader is tested in tests/grading/test_grading_sandbox.py (hostile and broken
submissions) and tests/grading/test_grading_autograder.py (the Gradescope package).
"""
import copy
import json
import os
import re
from fractions import Fraction

import jupytext
import nbformat
import numpy as np
import pandas as pd
import pytest
from grading_helpers import FULL, NAME, SOURCE, SOURCE_FILE, released  # noqa: F401 - fixture

from lib.grading import Checker, approx
from lib.grading.checks import compare, encode, evaluate, expected_value, judge, run_test, same
from lib.grading.grade import grade, score_question
from lib.grading.source import Test as T
from lib.grading.source import parse, read_source, release, release_all
from lib.notebooks.polls import SlicedNotebookClient

# --- the format ----------------------------------------------------------------------

def source_nb(*cells):
    """A notebook of raw/code cells given as ``("raw" | "code", source)``."""
    make = {"raw": nbformat.v4.new_raw_cell, "code": nbformat.v4.new_code_cell}
    return nbformat.v4.new_notebook(cells=[make[kind](src) for kind, src in cells])


GOOD = [("raw", "# BEGIN QUESTION\nname: q1\npoints: 1"), ("code", "x = 1  # SOLUTION"),
        ("code", "# TESTS\nx == 1"), ("code", "# HIDDEN TESTS\nx + 1 == 2"),
        ("raw", "# END QUESTION")]


def test_parse_reads_the_chapter_1_set():
    exercise = read_source(SOURCE)
    assert list(exercise.questions) == ["q1", "q2", "q3", "q4"]
    assert {q.name: q.points for q in exercise.questions.values()} == FULL
    assert all(q.public and q.hidden for q in exercise.questions.values())


@pytest.mark.parametrize("cells, message", [
    (GOOD[:-1], "no # END QUESTION"),
    (GOOD + [("raw", "# END QUESTION")], "cell 6 .*: # END QUESTION without"),
    ([GOOD[0], GOOD[0]] + GOOD[1:], "cell 2 .*: # BEGIN QUESTION inside question q1"),
    ([("raw", "# BEGIN QUESTION\nname: 1x\npoints: 1")] + GOOD[1:], "cell 1 .*: .*name"),
    ([("raw", "# BEGIN QUESTION\nname: q1\npoints: zero")] + GOOD[1:], "cell 1 .*: .*points"),
    ([GOOD[0], ("code", "# BEGIN SOLUTION\nx = 1")] + GOOD[2:], "cell 2 .*: # BEGIN SOLUTION without"),
    ([GOOD[0], ("code", "x = 1\n# END SOLUTION")] + GOOD[2:], "cell 2 .*: line 2: # END SOLUTION without"),
    ([GOOD[0], ("code", "print(1)  # SOLUTION")] + GOOD[2:], "cell 2 .*: line 1: `# SOLUTION`"),
    (GOOD[:2] + [("code", "# TESTS\nassert x == 1")] + GOOD[3:], "cell 3 .*: test line 1 is not"),
    (GOOD[:2] + [("code", "# TESTS\nx == 1 == 1")] + GOOD[3:], "cell 3 .*: test line 1 is not"),
    (GOOD[:2] + [("code", "# TESTS\nx == undefined_name")] + GOOD[3:], "cell 3 .*: expected value"),
    (GOOD[:3] + GOOD[4:], "cell 4 .*: question q1 needs a # TESTS and a # HIDDEN TESTS"),
    ([("code", "# TESTS\nx == 1")], "cell 1 .*: # TESTS outside a question"),
])
def test_malformed_markers_name_the_cell(cells, message):
    with pytest.raises(ValueError, match=message):
        parse(source_nb(*cells))


def test_compare_semantics():
    def same(got, exp):
        return compare(json.loads(json.dumps(encode(got))), json.loads(json.dumps(encode(exp))))

    assert same([0.1, 0.2], approx([0.1, 0.2001], atol=1e-3))
    assert not same([0.1, 0.2], approx([0.1, 0.21], atol=1e-3))
    assert same(__import__("numpy").array([1.0, 2.0]), [1, 2])
    assert not same([1.0, 2.0, 3.0], [1, 2])
    assert not same(1, True) and not same(True, 1) and same(True, True)
    assert same("b", "b") and not same("B", "b") and not same(None, 0)
    assert same({"a": 1.0}, {"a": 1}) and not same({"a": 1}, {"b": 1})
    assert not same(print, 1) and not same(..., 1)
    assert expected_value("approx(0.5, atol=0.1)")["$type"] == "approx"
    for hostile in ({"$type": "dict"}, {"$type": "approx"}, [[1, 2], [3]], "abc"):
        assert judge("x", {"value": hostile}, expected_value("[[1, 2], [3, 4]]"))[0] == "failed"
    assert judge("x", "not a result", 1.0)[0] == "error"


def test_check_reports_and_never_raises(capsys):
    check = Checker({"exercise": "x", "questions": {"q1": {"points": 1, "tests": [
        ["answer", "approx(0.5)"], ["f(1)", "2", "f adds one"]]}}})
    notebook = {"check": check, "answer": 0.5, "f": lambda x: x + 1}
    exec('check("q1")', notebook)
    assert "all 2 public tests passed" in capsys.readouterr().out
    notebook.update(answer=0.25, f=lambda x: 1 / 0)
    exec('check("q1")', notebook)
    out = capsys.readouterr().out
    assert "0 of 2" in out and "ZeroDivisionError" in out and "Hint: f adds one" in out
    with pytest.raises(ValueError, match="unknown question 'q9'.*q1"):
        check("q9")


def _stub(x):
    raise NotImplementedError("exercise")


@pytest.mark.parametrize("answer, f", [(..., lambda x: x + 1), (0.5, _stub), (..., _stub)])
def test_check_on_an_unanswered_question_prints_one_line(capsys, answer, f):
    check = Checker({"exercise": "x", "questions": {"q1": {"points": 1, "tests": [
        ["answer", "approx(0.5)"], ["f(1)", "2"], ["f(2)", "3"]]}}})
    exec('check("q1")', {"check": check, "answer": answer, "f": f})
    out = capsys.readouterr().out
    assert out.count("\n") == 1 and out.startswith("q1: not answered yet")
    # a NotImplementedError of the student's own is an error, not "unanswered"
    assert run_test(("f(1)", "2"), {"f": lambda x: (_ for _ in ()).throw(NotImplementedError("mine"))})[0] == "error"


def test_hints_are_parsed_per_test_line():
    cells = [GOOD[0], GOOD[1], ("code", "# TESTS\nx == 1  # hint: x counts the limes\n"
                                        "(x\n + 0) == 1  # Hint:  spans two lines \nx * 2 == 2"),
             ("code", "# HIDDEN TESTS\nx + 1 == 2  # hint: add one # not a comment\nx == 1  # just a note"),
             GOOD[4]]
    q = parse(source_nb(*cells)).questions["q1"]
    assert q.public == [T("x", "1", "x counts the limes"), T("x\n + 0", "1", "spans two lines"),
                        T("x * 2", "2", None)]
    assert q.hidden == [T("x + 1", "2", "add one # not a comment"), T("x", "1", None)]
    spec = release(parse(source_nb(*cells))).cells[1].source
    assert "x counts the limes" in spec and "add one" not in spec  # hidden hints stay hidden


def test_choices_are_parsed_and_the_solution_must_be_one_of_them():
    header = ("raw", "# BEGIN QUESTION\nname: q1\npoints: 1\nchoices: a, b, c, d")
    body = [("code", 'answer = "c"  # SOLUTION'), ("code", '# TESTS\n(answer in list("abcd")) == True'),
            ("code", '# HIDDEN TESTS\nanswer.strip().lower() == "c"'), GOOD[4]]
    assert parse(source_nb(header, *body)).questions["q1"].choices == ["a", "b", "c", "d"]
    wrong = [("code", 'answer = "e"  # SOLUTION')] + body[1:]
    with pytest.raises(ValueError, match="cell 5 .*q1: the solution 'e' is not one of its choices a, b, c, d"):
        parse(source_nb(header, *wrong))
    bad_test = body[:2] + [("code", '# HIDDEN TESTS\nanswer == "z"')] + body[3:]
    with pytest.raises(ValueError, match="'z' is not one of its choices"):
        parse(source_nb(header, *bad_test))
    for bad in ("choices: a", "choices: a, a", "choices: a, , b"):
        with pytest.raises(ValueError, match="cell 1 .*choices"):
            parse(source_nb(("raw", f"# BEGIN QUESTION\nname: q1\npoints: 1\n{bad}"), *body))
    spec = release(parse(source_nb(header, *body))).cells[1].source
    assert "'choices': ['a', 'b', 'c', 'd']" in spec


def test_choices_are_shown_when_a_multiple_choice_answer_fails(capsys):
    check = Checker({"exercise": "x", "questions": {"q4": {"points": 1, "choices": ["a", "b"], "tests": [
        ['(answer in ["a", "b"]) == True', "True"]]}}})
    exec('check("q4")', {"check": check, "answer": "e"})
    assert "one of 'a', 'b'" in capsys.readouterr().out


@pytest.mark.parametrize("value, expected", [
    (pd.Series([0.0, 0.0132, 0.2105, 0.3553, 0.4211]), "approx([0.0, 0.0132, 0.2105, 0.3553, 0.4211], atol=1e-4)"),
    (pd.DataFrame({"a": [1, 3], "b": [2, 4]}), "[[1, 2], [3, 4]]"),
    ((0.25, 0.75), "[0.25, 0.75]"),
    (Fraction(1, 3), "approx(0.333333, atol=1e-6)"),
    (np.float32(0.65), "approx(0.65)"),
    (np.int64(4), "4"),
    (np.array(4), "4"),
    (np.str_("b"), '"b"'),
    ({2, 1, 3}, "[1, 2, 3]"),
    (pd.Series({"h1": 0.5, "h2": 0.5}), "[0.5, 0.5]"),
])
def test_answers_as_students_write_them(value, expected):
    assert same(value, expected)
    # through the data the grader receives (JSON): the same verdict as check()
    result = json.loads(json.dumps(evaluate("v", {"v": value})))
    assert judge("v", result, json.loads(json.dumps(expected_value(expected))))[0] == "passed"


@pytest.mark.parametrize("value, expected", [
    (pd.Series([0.1, 0.2]), "[0.1, 0.2, 0.3]"), (Fraction(1, 3), "0.33"), (np.int64(4), "True"),
    (1 + 2j, "1"), (np.array([1 + 2j]), "[1]"), ("x" * 3_000_000, '"x"'), (None, "0"),
])
def test_wrong_or_unencodable_answers_do_not_match(value, expected):
    assert not same(value, expected)


def test_an_oversized_answer_is_an_error_of_that_test_only():
    result = evaluate("big", {"big": "x" * 25_000_000})
    assert "too large" in result["error"] and "MB" in result["error"]
    assert evaluate("small", {"small": 1.0}) == {"value": 1.0}


def test_hidden_failures_show_their_hint_never_the_expected_value():
    q = parse(source_nb(("raw", "# BEGIN QUESTION\nname: q1\npoints: 2"), ("code", "x = 1  # SOLUTION"),
                        ("code", "# TESTS\nx == 1"),
                        ("code", "# HIDDEN TESTS\nx + 1 == 2\nx * 987 == 987654  # hint: scale by 987\n"
                                 "x - 1 == 123456"), GOOD[4])).questions["q1"]
    expected = [expected_value(t.expected) for t in q.tests]
    def events(*values):  # the replies of the public pass, then of the hidden pass
        return [{"question": "q1", "status": "ok", "pass": 0, "results": [{"value": values[0]}]},
                {"question": "q1", "status": "ok", "pass": 1, "results": [{"value": v} for v in values[1:]]}]

    result = score_question(q, expected, events(1, 2, 5, 7), "")
    assert result["score"] == 0 and result["status"] == "failed"
    assert "q1: 2 of 3 hidden tests failed" in result["output"] and "scale by 987" in result["output"]
    assert "987654" not in result["output"] and "123456" not in result["output"]
    out = score_question(q, expected, events(1, 2, 987654, 0), "")["output"]
    assert "1 of 3 hidden tests failed" in out and "Hint" not in out and "123456" not in out
    assert score_question(q, expected, events(1, 2, 987654, 123456), "")["score"] == 2
    # the hidden pass failing in the kernel (say, a replaced evaluator raising the
    # expressions it was given): the question's name and the hints, nothing it said
    broken = events(1)[:1] + [{"question": "q1", "status": "error", "pass": 1,
                               "message": "Exception: ['x + 1', 'x * 987', 'x - 1']"}]
    result = score_question(q, expected, broken, "")
    assert result["score"] == 0 and result["status"] == "error"
    assert result["output"] == ("q1: the hidden tests could not be evaluated (an error in the kernel). "
                                "Hints: scale by 987")


# --- release -------------------------------------------------------------------------

def secret_lines():
    """Solution lines and hidden tests of the source, as they appear in it."""
    exercise = read_source(SOURCE)
    secrets = [f"{t.answer} == {t.expected}" for q in exercise.questions.values() for t in q.hidden]
    secrets += [t.expected for q in exercise.questions.values() for t in q.hidden if len(t.expected) > 4]
    for cell in exercise.notebook.cells:
        inside = False
        for line in cell.source.split("\n"):
            if "# BEGIN SOLUTION" in line or "# END SOLUTION" in line:
                inside = "BEGIN" in line
            elif inside or line.rstrip().endswith("# SOLUTION"):
                secrets.append(line.split("# SOLUTION")[0].strip())
    return [s for s in secrets if s]


def test_released_notebook_has_no_solution_or_hidden_test(released):
    student, instructor = released
    text = student.read_text()
    secrets = secret_lines()
    assert len(secrets) > 10
    for secret in secrets:
        assert secret not in text, secret
        assert json.dumps(secret)[1:-1] not in text, secret
    for word in ("SOLUTION", "HIDDEN", "BEGIN QUESTION", "0.796053", "0.2105"):
        assert word not in text
    assert 'raise NotImplementedError(\\"exercise\\")' in text
    assert "answer_q1 = ..." in text
    solved = instructor.read_text()
    assert "joint @ lime" in solved and "0.796053" in solved and "SOLUTION" not in solved
    nb = nbformat.read(student, as_version=4)
    nbformat.validate(nb)
    assert nb.metadata.grading == {"exercise": NAME, "edition": "student"}
    assert nb.cells[1].source.splitlines()[2] == "from lib.grading import Checker"
    assert not any(c.get("outputs") for c in nb.cells)


def execute(path):
    nb = nbformat.read(path, as_version=4)
    SlicedNotebookClient(nb, timeout=120, kernel_name="python3",
                         resources={"metadata": {"path": str(path.parent)}}).execute()
    return {c.source: "".join(o.get("text", "") for o in c.get("outputs", [])) for c in nb.cells}


@pytest.mark.slow
def test_released_notebook_runs_headless_renamed_and_writes_nothing(released, tmp_path):
    student, instructor = released
    renamed = tmp_path / "my homework (copy).ipynb"
    renamed.write_bytes(student.read_bytes())
    before = sorted(os.listdir(tmp_path))
    outputs = execute(renamed)
    assert sorted(os.listdir(tmp_path)) == before
    for q in FULL:  # an unanswered question: one short line, not a list of failures
        assert outputs[f'check("{q}")'].startswith(f"{q}: not answered yet")
        assert outputs[f'check("{q}")'].count("\n") == 1
    solved = execute(instructor)
    for q in FULL:
        assert f"{q}: all " in solved[f'check("{q}")'] and "(public and hidden) passed" in solved[f'check("{q}")']


def test_release_is_deterministic(released, tmp_path):
    again = release_all(SOURCE, tmp_path)[0]
    assert again.read_text() == released[0].read_text()


# --- more of the format --------------------------------------------------------------

def test_bad_source_is_a_value_error(tmp_path):
    with pytest.raises(ValueError, match="expected one source notebook"):
        grade(tmp_path, tmp_path, tmp_path / "out")
    (tmp_path / "x").mkdir()
    with pytest.raises(ValueError, match="no exercise folder"):
        release_all(tmp_path / "x", tmp_path / "out")


def test_release_keeps_cell_metadata_and_questions():
    exercise = read_source(SOURCE)
    nb = release(exercise)
    tagged = {c.metadata["grading"]["question"] for c in nb.cells if "grading" in c.metadata}
    assert tagged == set(FULL)
    assert [c.source for c in nb.cells if c.source.startswith("check(")] == [
        f'check("{q}")' for q in FULL]
    assert copy.deepcopy(nb) == release(exercise)
    assert re.search(r"'q2': \{'choices': None,\s*'points': 3", nb.cells[1].source)


def test_ipynb_source_releases_like_the_md_source(tmp_path):
    folder = tmp_path / NAME
    folder.mkdir()
    nbformat.write(jupytext.read(SOURCE_FILE), folder / f"{NAME}.ipynb")
    (folder / "data.csv").write_text("x\n1\n")
    [released] = release_all(folder, tmp_path / "out")
    assert nbformat.read(released, as_version=4) == release(read_source(SOURCE))
    assert (released.parent / "data.csv").exists()
