"""What a failed test tells the student (issue 28): the tolerance in force as the test
states it, the kind of value expected, every failed test's hint, whole and punctuated once."""
import json
import re

from exercise_sets import replies

from lib.grading.checks import evaluate, expected_value, judge, run_test, same
from lib.grading.grade import score_question
from lib.grading.source import Question
from lib.grading.source import Test as SourceTest


def test_failure_states_the_tolerance_in_force_and_the_kind():
    status, msg = run_test(("x", "approx(0.5, rtol=5e-4)", "a hint"), {"x": 0.6})
    assert status == "failed"
    assert "(tolerance: relative 0.0005)" in msg and "expected a number" in msg, msg
    _, msg = run_test(("x", "approx([0.5, 0.5], atol=5e-5)"), {"x": [0.6, 0.4]})
    assert "(tolerance: absolute 5e-05)" in msg and "an array of shape (2,)" in msg, msg
    _, msg = run_test(("x", "0.25"), {"x": 0.3})  # a plain number: the course's rule
    assert "(tolerance: relative 0.0005)" in msg, msg
    _, msg = run_test(("x", "True"), {"x": False})  # exact: no tolerance
    assert "tolerance" not in msg and "expected a boolean" in msg, msg
    _, msg = run_test(("x", "approx([[1.0, 0.0]])"), {"x": [[1.0, 0.0, 0.0]]})
    assert "gave an array of shape (1, 3)" in msg and "expected an array of shape (1, 2)" in msg, msg


def test_hint_ends_with_one_full_stop():
    for hint in ("normalise.", "normalise"):
        _, msg = judge("x", evaluate("x", {"x": 2.0}), expected_value("1.0"), hint)
        assert msg.endswith("Hint: normalise.") and ".." not in msg, msg


def test_question_feedback_shows_every_hint_uncut():
    """Six public and two hidden failures with long hints: all eight hints, whole, once each."""
    hints = [f"hint number {i} " + "word " * 60 + "end." for i in range(8)]
    question = Question("q1", 2, public=[SourceTest(f"x + {i}", "0.0", hints[i]) for i in range(6)],
                        hidden=[SourceTest(f"x * {i}", "7.5", hints[6 + i]) for i in range(2)])
    expected = [json.loads(json.dumps(expected_value(t.expected))) for t in question.tests]
    values = [evaluate(t.answer, {"x": 1.0}) for t in question.tests]
    result = score_question(question, expected, replies(question, values), "")
    assert result["score"] == 0
    for i, hint in enumerate(hints):
        assert result["output"].count(hint) == 1, (i, result["output"])
    assert ".." not in result["output"].replace("...", "")
    assert "7.5" not in result["output"] and "x * 1" not in result["output"]  # nothing hidden


def test_the_course_rule_is_four_significant_digits_and_integers_exactly():
    """A value given to 4 significant digits passes, one given to 3 does not; an integer
    (a count, a size) on the right matches exactly."""
    assert same(0.1429, "1 / 7") and same(1429e-7, "1 / 7e3") and not same(0.143, "1 / 7")
    assert same([0.1316, 0.0001316], "approx([0.131579, 0.000131579])")
    assert same(10000.0, "10000") and not same(10005, "10000") and not same(9999, "10000")
    assert same(3e-17, "0.0") and not same(1e-6, "0.0")  # rounding noise of a zero only


def test_hidden_failures_say_what_they_checked_never_the_value():
    """A failed hidden test tells the kind of value it expected and the tolerance in force
    (exact for an integer), the kind the student gave, and its hint: never its expected
    value or its expression."""
    question = Question("q1", 2, public=[SourceTest("x", "\"a\"", None)], hidden=[
        SourceTest("f(3)", "approx([0.123456, 0.5])", "a hint."), SourceTest("g(2)", "17", None),
        SourceTest("h(1)", "0.987654", "another hint"), SourceTest("x", '"b"', None)])
    expected = [json.loads(json.dumps(expected_value(t.expected))) for t in question.tests]
    ns = {"x": "a", "f": lambda n: [0.1, 0.2, 0.3], "g": lambda n: 16, "h": lambda n: 1 / 0}
    values = [evaluate(t.answer, ns) for t in question.tests]
    out = score_question(question, expected, replies(question, values), "")["output"]
    assert ("q1: 4 of 4 hidden tests failed: hidden test 1 expected an array of shape (2,) "
            "(tolerance: relative 0.0005), got an array of shape (3,); hint: a hint. "
            "hidden test 2 expected an integer (tolerance: exact), got an integer. "
            "hidden test 3 expected a number (tolerance: relative 0.0005), got an error "
            "(ZeroDivisionError); hint: another hint. hidden test 4 expected a string, got a string."
            ) in out, out
    for secret in ("0.123456", "17", "0.987654", "f(3)", "g(2)", "h(1)", '"b"'):
        assert secret not in out, (secret, out)


def test_graded_submission_feedback_says_what_hidden_tests_checked(tmp_path):
    """Set 01 released, answered wrongly and graded as an instructor grades: the feedback of
    each failed hidden test names the kind and the tolerance, never the expected values."""
    import inspect
    from pathlib import Path

    import nbformat

    from lib.grading.grade import grade
    from lib.grading.source import read_source, release_all

    source = Path(__file__).resolve().parents[2] / "exercises" / "01_bayesian_learning"
    [path] = release_all(source, tmp_path / "rel", instructor=True)
    nb = nbformat.read(path, as_version=4)
    wrong = {"answer_q1 = prior * lime**3 / np.sum(prior * lime**3)":
             "answer_q1 = np.array([0.0, 0.1, 0.2, 0.7])",  # four bags: a shape error
             "return float(joint @ lime / joint.sum())": "return 1.1 * float(joint @ lime / joint.sum())",
             "if prior[4] / np.sum(prior * lime**n) > 0.5)": "if prior[4] / np.sum(prior * lime**n) > 0.6)"}
    for cell in nb.cells:
        for old, new in wrong.items():
            cell.source = cell.source.replace(old, new)
    assert sum(new in c.source for c in nb.cells for new in wrong.values()) == 3
    (tmp_path / "subs").mkdir()
    nbformat.write(nb, tmp_path / "subs" / "wrong.ipynb")
    unsafe = {"unsafe_no_sandbox": True} if "unsafe_no_sandbox" in inspect.signature(grade).parameters else {}
    grade(source, tmp_path / "subs", tmp_path / "out", workers=1, cell_timeout=120, timeout=600, **unsafe)
    text = (tmp_path / "out" / "submissions" / "wrong" / "feedback.txt").read_text()
    lines = {line.split(" ", 1)[0]: line for line in text.splitlines()}
    assert ("hidden test 1 expected an array of shape (5,) (tolerance: relative 0.0005), "
            "got an array of shape (4,)") in lines["q1"], text
    assert "hidden test 1 expected a number (tolerance: relative 0.0005), got a number" in lines["q2"], text
    assert "hidden test 1 expected an integer (tolerance: exact), got an integer" in lines["q3"], text
    assert "(0/2 points)" in lines["q1"] and "(0/3 points)" in lines["q2"] and "(2/2 points)" in lines["q5"]
    exercise = read_source(source)
    for q in ("q1", "q2", "q3"):
        for t in exercise.questions[q].hidden:
            assert t.hint in lines[q] and (t.answer.isidentifier() or t.answer not in lines[q]), (t, lines[q])
            for number in re.findall(r"\d+\.\d{4,}", t.expected):  # its values, not 0.0
                assert number not in lines[q], (number, lines[q])
