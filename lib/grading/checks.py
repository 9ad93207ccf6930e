"""Tests of answers: evaluate, serialise as JSON data, compare.

A test is a pair of Python expressions written ``answer_expr == expected_expr`` in the
source notebook (see ``exercises/README.md``):

* ``answer_expr`` is evaluated in the student's namespace (in the student's kernel);
  its value is turned into plain JSON data by :func:`encode`.
* ``expected_expr`` is evaluated by the course, never by student code, in a small
  trusted namespace holding ``np``, ``math`` and :func:`approx`.
* :func:`compare` decides on the two pieces of data.

The self-check ``check("q1")`` (:class:`Checker`) and the grader use the same three
functions, so a public test behaves alike in the notebook and in the gradebook. The
grader runs :func:`send_values` in the student's kernel and compares in its own process.
"""
import ast
import builtins
import decimal
import json
import math
import numbers
import sys
from decimal import Decimal
from fractions import Fraction

import numpy as np

#: MIME type of the answers that :func:`send_values` displays for the grader.
MIME = "application/vnd.bayes-course.grading+json"
MAX_ITEMS = 100_000  # larger answers are not graded (a guard against huge values)
#: Bytes of one encoded answer (each test's value on its own).
MAX_ANSWER = 2 * 2**20
MAX_MESSAGE = 2000  # characters of what a test's message quotes from the kernel
STUB_MESSAGE = "exercise"  # the release's stub: raise NotImplementedError("exercise")
#: The course's precision rule (exercises/README.md): numbers are checked to 4 significant
#: digits (relative 5e-4); below 1e-9 a number counts as zero (rounding noise of a 0).
DEFAULT_RTOL, DEFAULT_ATOL = 5e-4, 1e-9


class Approx:
    """An expected value compared with a tolerance; made by :func:`approx`."""

    def __init__(self, value, rtol, atol):
        self.value, self.rtol, self.atol = value, rtol, atol

    def __repr__(self):
        return f"approx({self.value!r}, rtol={self.rtol}, atol={self.atol})"


def approx(value, *, rtol=DEFAULT_RTOL, atol=DEFAULT_ATOL):
    """Expected number or array ``value``, matched when ``np.allclose(got, value, rtol, atol)``.

    Use it on the right of a test: ``answer_q1 == approx([0.1, 0.2])``. Plain numbers on
    the right are compared with the defaults, the course's rule (4 significant digits,
    ``rtol=5e-4``); the exercise sets state no other tolerance (``tests/book/test_exercise_rules.py``).
    """
    return Approx(value, rtol, atol)


#: The names available to expected expressions (the right side of a test).
TRUSTED_NAMES = {"np": np, "math": math, "approx": approx}


def expected_value(expr):
    """Evaluate an expected expression in the trusted namespace and encode it."""
    return encode(eval(expr, dict(TRUSTED_NAMES)))  # noqa: S307 - course-authored code


def encode(value, _depth=0, _count=None):
    """Turn ``value`` into JSON-able data: numbers, strings, lists and tagged dicts.

    Answers are taken as students write them: numpy arrays and anything array-like
    (pandas Series and DataFrames, objects with ``__array__``) become nested lists of
    their values, tuples become lists, numpy scalars, ``Fraction`` and ``Decimal`` become
    Python numbers, sets sorted lists; ``...`` (an unanswered question) becomes
    ``{"$type": "ellipsis"}``; anything else (a function, an object) becomes
    ``{"$type": "object", ...}``, which matches nothing.
    """
    count = _count if _count is not None else [0]
    count[0] += 1
    if count[0] > MAX_ITEMS or _depth > 20:
        raise ValueError(f"the answer is too large to grade (more than {MAX_ITEMS} items)")
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, (numbers.Real, decimal.Decimal)):
        return float(value)
    if value is Ellipsis:
        return {"$type": "ellipsis"}
    if isinstance(value, Approx):
        return {"$type": "approx", "value": encode(value.value, _depth + 1, count),
                "rtol": float(value.rtol), "atol": float(value.atol)}
    if not isinstance(value, (list, tuple, dict, set, frozenset, np.ndarray)) and (
            hasattr(value, "__array__") or hasattr(value, "to_numpy")):
        try:  # pandas objects, xarray, torch tensors: their values, as an array
            value = np.asarray(value.to_numpy() if hasattr(value, "to_numpy") else value)
        except Exception:  # noqa: BLE001 - a broken array-like is just an object
            return {"$type": "object", "type": type(value).__name__}
    if isinstance(value, np.ndarray):
        if value.size > MAX_ITEMS:
            raise ValueError(f"the answer is too large to grade ({value.size} numbers, "
                             f"more than {MAX_ITEMS})")
        if value.dtype.kind not in "biuf":
            return encode(value.tolist(), _depth, count)
        if value.dtype.kind == "f" and value.dtype.itemsize > 8:  # longdouble: tolist keeps it
            value = value.astype(np.float64)
        value = value.tolist()  # numbers only: no per-item recursion needed
        count[0] += int(np.size(value))
        return value
    if isinstance(value, (set, frozenset)):
        items = [encode(v, _depth + 1, count) for v in value]
        try:
            return sorted(items)
        except TypeError:
            return sorted(items, key=json.dumps)
    if isinstance(value, (list, tuple)):
        return [encode(v, _depth + 1, count) for v in value]
    if isinstance(value, dict):
        return {"$type": "dict",
                "items": [[encode(k, _depth + 1, count), encode(v, _depth + 1, count)]
                          for k, v in value.items()]}
    return {"$type": "object", "type": type(value).__name__}


def as_data(value):
    """``value`` encoded and passed through JSON, as the grader receives it.

    ``ValueError`` when the encoded answer is larger than :data:`MAX_ANSWER` bytes.
    """
    text = json.dumps(encode(value))
    if len(text) > MAX_ANSWER:
        raise ValueError(f"the answer is too large to grade ({len(text) / 2**20:.1f} MB "
                         f"as data; the limit is {MAX_ANSWER / 2**20:g} MB per answer)")
    return json.loads(text)


def _numbers(x):
    """``x`` as a float array if it is a number or a (nested) list of numbers, else None."""
    if isinstance(x, (dict, str)) or x is None:
        return None
    try:
        arr = np.asarray(x, dtype=float)
    except (TypeError, ValueError):
        return None
    return arr


def compare(got, expected):
    """True when the encoded answer ``got`` matches the encoded ``expected``.

    Numbers and (nested) lists of numbers compare with ``np.allclose`` (tolerance of
    :func:`approx`, default ``rtol=5e-4``) and must have the same shape; plain integers
    on the right (counts, sizes, indices) match exactly; strings,
    booleans and ``None`` compare exactly; lists element by element; dicts by items.
    """
    if isinstance(expected, dict) and expected.get("$type") == "approx":
        rtol, atol, expected = expected["rtol"], expected["atol"], expected["value"]
    else:
        rtol, atol = DEFAULT_RTOL, DEFAULT_ATOL
    if isinstance(expected, bool) or expected is None or isinstance(expected, str):
        return type(got) is type(expected) and got == expected
    if isinstance(expected, dict):
        if not isinstance(got, dict) or got.get("$type") != "dict" or expected.get("$type") != "dict":
            return False
        return len(got["items"]) == len(expected["items"]) and all(
            any(compare(gk, ek) and compare(gv, ev) for gk, gv in got["items"])
            for ek, ev in expected["items"])
    exp, arr = _numbers(expected), _numbers(got)
    if exp is not None:
        if arr is None or isinstance(got, bool) or arr.shape != exp.shape:
            return False
        if rtol == DEFAULT_RTOL and atol == DEFAULT_ATOL and np.asarray(expected).dtype.kind in "iu":
            return bool(np.array_equal(arr, exp))  # integers (counts, sizes, indices): exactly
        return bool(np.allclose(arr, exp, rtol=rtol, atol=atol, equal_nan=True))
    if isinstance(expected, list):
        return (isinstance(got, list) and len(got) == len(expected)
                and all(compare(g, e) for g, e in zip(got, expected)))
    return False


def _exact(value, depth=0):
    """Whether ``value`` is a ``Fraction`` or ``Decimal``, or a list or tuple holding one
    (among numbers only)."""
    if isinstance(value, (Fraction, Decimal)):
        return True
    if isinstance(value, (list, tuple)) and value and depth < 3:
        return (all(isinstance(v, (int, float, Fraction, Decimal, np.number, list, tuple)) for v in value)
                and any(_exact(v, depth + 1) for v in value))
    return False


def _by_value(value):
    """A ``Fraction``/``Decimal`` answer as a float, a list or tuple of them as a float array."""
    return float(value) if isinstance(value, (Fraction, Decimal)) else np.array(value, dtype=float)


def evaluate(expr, namespace):
    """Evaluate a student-side expression: ``{"value": data}`` or ``{"error": message}``.

    ``{"unanswered": name}`` when the expression uses a name still bound to ``...`` or
    calls the release's stub (``NotImplementedError("exercise")``). Never raises
    (except ``KeyboardInterrupt``): an exception in the student's code, even
    ``SystemExit``, becomes an error message.
    """
    try:
        exact = {}
        for node in ast.walk(ast.parse(expr, mode="eval")):
            if isinstance(node, ast.Name) and namespace.get(node.id, None) is Ellipsis:
                return {"unanswered": node.id}
            if isinstance(node, ast.Name) and node.id.startswith("answer_") and _exact(namespace.get(node.id)):
                exact[node.id] = _by_value(namespace[node.id])
        if namespace.get("np") is not np:  # the tests' numpy is the grader's, whatever the student did
            exact["np"] = np
        if exact:  # the test sees the answer's values as floats (np.round has no Fraction)
            namespace = {**namespace, **exact}
        return {"value": as_data(eval(expr, namespace))}  # noqa: S307 - the student's namespace
    except KeyboardInterrupt:
        raise
    except NotImplementedError as exc:
        if exc.args == (STUB_MESSAGE,):
            return {"unanswered": expr}
        return {"error": f"NotImplementedError: {exc}"[:300]}
    except BaseException as exc:  # noqa: BLE001 - report every failure of student code
        return {"error": f"{type(exc).__name__}: {exc}"[:300]}


def tolerance(expected):
    """The tolerance in force for an encoded expected value, as the test states it.

    ``"absolute 5e-05"`` when the test gives an ``atol`` (it dominates the default
    relative part), ``"relative 0.0005"`` otherwise (both when both were changed),
    ``"exact"`` for plain integers (counts, sizes, indices: :func:`compare` matches them
    exactly); ``None`` for strings, booleans, ``None`` and dicts, which match exactly.
    """
    if isinstance(expected, dict) and expected.get("$type") == "approx":
        rtol, atol = expected["rtol"], expected["atol"]
    elif _numbers(expected) is not None and not isinstance(expected, bool):
        if np.asarray(expected).dtype.kind in "iu":
            return "exact"
        rtol, atol = DEFAULT_RTOL, DEFAULT_ATOL
    else:
        return None
    if atol <= DEFAULT_ATOL:
        return f"relative {rtol:g}"
    return f"absolute {atol:g}" + (f" and relative {rtol:g}" if rtol != DEFAULT_RTOL else "")


#: The builtin exception names: a hidden test's error is told by one of these, or "an error".
BUILTIN_ERRORS = frozenset(name for name, value in vars(builtins).items()
                           if isinstance(value, type) and issubclass(value, BaseException))


def describe(data, choices=None):
    """The kind of an encoded value in fixed words, never a name or text the value holds.

    The one description of check and the grader (public and hidden tests alike): ``a
    number``, ``an integer``, ``NaN (a number)``, ``infinity (a number)``, ``minus infinity
    (a number)``, ``a boolean``, ``None``, ``a string`` (``an option`` when it is one of
    the question's ``choices``), ``an array of shape (2, 3)``, ``a list``, ``a dict``,
    ``an object`` or ```...```. A type name chosen by the student's code is never part
    of it, so a hidden test's input cannot come back through it.
    """
    if isinstance(data, dict) and data.get("$type") == "approx":
        data = data["value"]
    if isinstance(data, bool):
        return "a boolean"
    if data is None:
        return "None"
    if isinstance(data, str):
        options = {str(c).strip().lower() for c in choices or ()}
        return "an option" if data.strip().lower() in options else "a string"
    if isinstance(data, float) and not math.isfinite(data):
        return ("NaN" if math.isnan(data) else "infinity" if data > 0 else "minus infinity") + " (a number)"
    if isinstance(data, dict):
        return {"dict": "a dict", "ellipsis": "`...`"}.get(data.get("$type"), "an object")
    arr = _numbers(data)
    if arr is not None:
        if arr.ndim == 0:
            return "an integer" if isinstance(data, int) else "a number"
        ints = "of integers " if np.asarray(data).dtype.kind in "iu" else ""
        return f"an array {ints}of shape {tuple(arr.shape)}"
    return "a list" if isinstance(data, list) else "an object"


def _gave(data, choices=None):
    """A public test's value: :func:`describe`, then the value itself when it adds to it."""
    text = describe(data, choices)
    if isinstance(data, dict) and data.get("$type") == "object":
        return f"{text} (of type {str(data.get('type'))[:60]})"
    if data is None or "(a number)" in text or text == "`...`":
        return text
    return f"{text} {short(data)}"


def short(data):
    """A short human-readable rendering of encoded data (at most 80 characters)."""
    if isinstance(data, dict) and data.get("$type") == "approx":
        text = short(data["value"])
    elif isinstance(data, dict) and data.get("$type") == "object":
        text = f"a {data.get('type')} object"
    elif isinstance(data, dict) and data.get("$type") == "dict":
        text = "{" + ", ".join(f"{short(k)}: {short(v)}" for k, v in data["items"]) + "}"
    else:
        text = json.dumps(data)
    return text if len(text) <= 80 else text[:77] + "..."


def cut(text, limit=MAX_MESSAGE):
    """``str(text)`` of at most ``limit`` characters, ending with "... (cut)" when cut."""
    text = str(text)
    return text if len(text) <= limit else text[:limit] + "... (cut)"


def judge(expr, result, expected, hint=None, choices=None):
    """Outcome of one test: ``("passed" | "failed" | "error" | "unanswered", message)``.

    ``result`` is what :func:`evaluate` returned (possibly through the grader's pipe:
    malformed data fails, it never crashes). The message of a failure ends with the
    test's ``hint`` when it has one; a string among ``choices`` is described as an option.
    """
    if not isinstance(result, dict) or not result.keys() & {"value", "error", "unanswered"}:
        return "error", f"`{expr}`: no answer received"
    if "unanswered" in result:
        return "unanswered", f"`{cut(result['unanswered'], 200)}` is not answered yet"
    if "error" in result:  # the kernel's text (evaluate caps it; a forged reply may not): cut
        status, message = "error", f"`{expr}` raised {cut(result['error'])}"
    else:
        got = result["value"]
        try:
            if compare(got, expected):
                return "passed", f"`{expr}` is right"
            tol = tolerance(expected)
            status, message = "failed", (
                f"`{expr}` gave {_gave(got, choices)}, expected {_gave(expected, choices)}"
                + (f" (tolerance: {tol})" if tol else ""))
        except Exception:  # noqa: BLE001
            status, message = "failed", f"`{expr}` gave a value that cannot be compared"
    return status, f"{message}. Hint: {hint.rstrip('.')}." if hint else message


def run_test(test, namespace, choices=None):
    """Run one test (``(answer, expected[, hint])`` sources) on ``namespace``, as check does."""
    answer, expected, hint = (tuple(test) + (getattr(test, "hint", None),))[:3]
    return judge(answer, evaluate(answer, namespace), expected_value(expected), hint, choices)


def same(value, expected):
    """True when ``value`` (a Python value) matches the expected expression ``expected``.

    The comparison of :func:`check <Checker>` and the grader: ``value`` is encoded as the
    student's kernel encodes it, ``expected`` (a test's right side, source text) as the
    course evaluates it. ``False`` when the value cannot be encoded (too large).
    """
    try:
        got = as_data(value)
    except ValueError:
        return False
    return compare(got, json.loads(json.dumps(expected_value(expected))))


def what_was_checked(result, expected, choices=None):
    """What a hidden test checked, without its expected value or expression:
    ``"expected a number (tolerance: relative 0.0005), got an array of shape (2,)"``.

    ``result`` is what :func:`evaluate` returned for the student: only the kind of its
    value is told (:func:`describe`, fixed words), or the name of the exception it
    raised when that is a builtin one (else "an error"): nothing the student's code chose.
    ``expected`` is the encoded expected value.
    """
    tol = tolerance(expected)
    text = f"expected {describe(expected, choices)}" + (f" (tolerance: {tol})" if tol else "")
    if isinstance(result, dict) and "value" in result:
        return f"{text}, got {describe(result['value'], choices)}"
    if isinstance(result, dict) and "error" in result:
        name = str(result["error"]).split(":", 1)[0]
        return f"{text}, got " + (f"an error ({name})" if name in BUILTIN_ERRORS else "an error")
    return f"{text}, got no value"


def hidden_summary(question, outcomes, choices=None):
    """What a student may learn of failed hidden tests: for each, what it checked (the kind
    of value expected and the tolerance in force, :func:`what_was_checked`) and its hint.

    ``outcomes``: ``(status, result, expected, hint)`` per hidden test (``result`` from
    :func:`evaluate`, ``expected`` encoded). Never the expected values or the tests'
    expressions; only that an answer was too large, if so.
    """
    bad = [(i, result, expected, hint) for i, (status, result, expected, hint)
           in enumerate(outcomes, start=1) if status != "passed"]
    if not bad:
        return ""
    text = f"{question}: {len(bad)} of {len(outcomes)} hidden tests failed"
    if any(isinstance(r, dict) and "too large to grade" in str(r.get("error", "")) for _, r, _, _ in bad):
        text += f" (an answer is too large to grade: at most {MAX_ANSWER >> 20} MB each)"
    parts = [f"hidden test {i} {what_was_checked(result, expected, choices)}"
             + (f"; hint: {hint.rstrip().rstrip('.')}" if hint else "")
             for i, result, expected, hint in bad]
    return text + ": " + ". ".join(parts) + "."


def send_values(exprs, namespace):
    """Grader side, run in the student's kernel: evaluate ``exprs`` and display the data.

    The grader reads the display output of MIME type :data:`MIME` and compares the
    values in its own process, where the expected values are.
    """
    from IPython.display import display

    display({MIME: [evaluate(e, namespace) for e in exprs]}, raw=True)


class Checker:
    """The ``check`` function of a released notebook: runs one question's tests.

    Created by the first cell of every released notebook from the public tests
    (plus the hidden ones in the instructor edition), e.g.
    ``check = Checker({"exercise": "01_x", "questions": {"q1": {"points": 2,
    "tests": [["len(answer_q1)", "5", "hint text or None"]], "choices": None}}})``.
    """

    def __init__(self, spec):
        self.exercise = spec["exercise"]
        self.questions = spec["questions"]
        self.kind = "public tests" if spec.get("public_only", True) else "tests (public and hidden)"

    def __call__(self, name):
        """Run the tests of question ``name`` on the caller's variables; print a report.

        An unanswered question (``...`` or the stub) prints one "not answered yet" line.
        Never raises because of the student's answer; an unknown ``name`` is a
        ``ValueError``. Writes no file.
        """
        if name not in self.questions:
            raise ValueError(f"unknown question {name!r}: this notebook has "
                             f"{', '.join(self.questions)}")
        namespace = sys._getframe(1).f_globals
        question = self.questions[name]
        tests = question["tests"]
        outcomes = [run_test(test, namespace, question.get("choices")) for test in tests]
        if any(status == "unanswered" for status, _ in outcomes):
            print(f"{name}: not answered yet (replace the `...` or the "
                  f"`raise NotImplementedError` with your answer, run that cell, then this one).")
            return
        bad = list(dict.fromkeys(msg for status, msg in outcomes if status != "passed"))
        if question.get("choices") and bad:
            bad.append(f"the answer is one of {', '.join(map(repr, question['choices']))}")
        if not bad and question.get("choices") and self.kind == "public tests":
            # a valid option says nothing about the key: the hidden tests grade it
            print(f"{name}: a valid option, one of {', '.join(question['choices'])}; "
                  "it is graded after you submit.")
        elif not bad:
            print(f"{name}: all {len(tests)} {self.kind} passed.")
        else:
            passed = sum(status == "passed" for status, _ in outcomes)
            print(f"{name}: {passed} of {len(tests)} {self.kind} passed.")
            print("\n".join(f"  - {msg}" for msg in bad))

    def all(self):
        """Every question's public tests on the caller's variables, one line each
        (:func:`lib.grading.student.check_all`); returns ``{question: that line}``."""
        from .student import check_all

        return check_all(self, sys._getframe(1).f_globals)

    def export(self, path, timeout=600):
        """Run the saved notebook ``path`` in a fresh kernel; write the file to upload
        only if every cell is there and runs (:func:`lib.grading.student.export`)."""
        from .student import export

        return export(path, list(self.questions), timeout)
