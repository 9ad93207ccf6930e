"""What a failed test tells the student (issue 28): the tolerance in force as the test
states it, the kind of value expected, every failed test's hint, whole and punctuated once."""
import json

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


def replies(question, values):
    """The sandbox's two replies for ``question``: its public tests' values, then its hidden ones'."""
    n = len(question.public)
    return [{"question": question.name, "pass": 0, "status": "ok", "results": values[:n]},
            {"question": question.name, "pass": 1, "status": "ok", "results": values[n:]}]


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
