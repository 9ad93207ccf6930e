"""Display precision (issue 28, exercises/README.md "Precision"): a student who copies a
graded value from what the course displays (the set's widget readouts and printed lines,
the chapter's printed tables and outputs) to the digits it shows passes every test of the
question, or the question says "do not copy" the display.

For each question with a graded value (a number or an array of numbers):

* the set's displays: every cell of the set runs once (solutions in), with what it prints
  recorded, and every ``widgets.interact`` function is called over all its controls'
  values (sliders, selection sliders, toggle buttons, check boxes);
* the chapter's displays: the text outputs of ``chapters/NN_topic.md`` executed (read from
  the book build's ``jupyter_execute`` when ``BOOK_BUILD`` is set, else executed here with
  nbclient, hence the ``slow`` marker).

A display *shows* a value when every non-integer entry of the value appears in one output,
each as a number written with at least 2 significant digits that rounds the entry to
the decimals it shows. The copy (those numbers in place of the entries) must pass.
"""
import contextlib
import functools
import io
import itertools
import os
import re
import warnings
from html.parser import HTMLParser
from pathlib import Path
from unittest import mock

import numpy as np
import pytest
from exercise_sets import _map, caught, question_text, solution_cells, solved

from lib.grading.source import read_source, strip_solutions

ROOT = Path(__file__).resolve().parents[2]
SETS = sorted(p.name for p in (ROOT / "exercises").iterdir()
              if p.is_dir() and (p / f"{p.name}.md").is_file())
NUMBER = re.compile(r"(?<![\w.])-?\d+\.\d+(?:[eE]-?\d+)?(?![\w.])")
NOT_COPY = re.compile(r"do not copy|don't copy|not to copy", re.I)
ANSWER_LINE = re.compile(r"\banswer\w*\s*=(?!=)")
MAX_CALLS = 500  # widget settings called per interact (all of them in the sets today)


def _settings(control):
    """The values a widget control can take (None when it is not a control we know)."""
    import ipywidgets as widgets

    if isinstance(control, (widgets.IntSlider, widgets.IntRangeSlider)):
        return list(range(control.min, control.max + 1, control.step))
    if isinstance(control, widgets.FloatSlider):
        n = int(round((control.max - control.min) / control.step))
        return [control.min + i * control.step for i in range(n + 1)]
    if isinstance(control, (widgets.Checkbox, widgets.ToggleButton)):
        return [False, True]
    if hasattr(control, "options") and hasattr(control, "value"):
        return [o[1] if isinstance(o, tuple) and len(o) == 2 else o for o in control.options]
    return None


def _text_of_html(html):
    parts = []

    class Text(HTMLParser):
        def handle_data(self, data):
            parts.append(data)
    Text().feed(html)
    return " ".join(parts)


@functools.lru_cache(maxsize=None)
def set_displays(name):
    """{question or None: [text]}: what the set's cells print and what its widgets show
    at every setting, by the question they sit in (None outside questions)."""
    import ipywidgets as widgets

    exercise = read_source(ROOT / "exercises" / name)
    namespace, shown, question, calls = {"__name__": "__main__"}, {}, None, []

    def record(f, **controls):
        calls.append((question, f, controls))

    with mock.patch.object(widgets, "interact", record), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for meta, cell in solution_cells(exercise):
            question = meta and meta["name"]
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                exec(compile(strip_solutions(cell.source, keep=True), f"<{name}>", "exec"), namespace)  # noqa: S102
            shown.setdefault(question, []).append(out.getvalue())
        for where, f, controls in calls:
            names = list(controls)
            values = [_settings(c) if isinstance(c, widgets.Widget) else [c] for c in controls.values()]
            assert all(v is not None for v in values), f"{name}: a widget control of unknown kind"
            for combo in itertools.islice(itertools.product(*values), MAX_CALLS):
                out = io.StringIO()
                with contextlib.redirect_stdout(out):
                    f(**dict(zip(names, combo)))
                shown.setdefault(where, []).append(out.getvalue())
    return shown


def chapter_displays(name):
    """The text outputs of the executed chapter ``chapters/name.md`` (one string per output)."""
    import nbformat

    build = os.environ.get("BOOK_BUILD")
    executed = Path(build or "/nonexistent") / "jupyter_execute" / "chapters" / f"{name}.ipynb"
    if executed.is_file():
        nb = nbformat.read(executed, as_version=4)
    else:
        import jupytext

        from lib.notebooks.polls import SlicedNotebookClient

        nb = jupytext.read(ROOT / "chapters" / f"{name}.md")
        SlicedNotebookClient(nb, timeout=900, kernel_name="python3",
                             resources={"metadata": {"path": str(ROOT / "chapters")}}).execute()
    texts = []
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            if out.get("output_type") == "stream":
                texts.append(out.get("text", ""))
            data = out.get("data", {})
            if "text/plain" in data:
                texts.append(data["text/plain"])
            if "text/html" in data:
                texts.append(_text_of_html(data["text/html"]))
    return texts


def _decimals(number):
    mantissa, _, exp = number.lower().partition("e")
    return len(mantissa.split(".")[1]) - int(exp or 0)


def _significant(number):
    return len(number.lower().split("e")[0].replace("-", "").replace(".", "").lstrip("0"))


def copied(value, text):
    """``value`` as copied from ``text`` (its non-integer entries replaced by the numbers
    that show them), or None when ``text`` does not show every such entry."""
    found = [(float(n), _decimals(n)) for n in NUMBER.findall(text) if _significant(n) >= 2]
    if not found:
        return None
    flat = np.atleast_1d(np.asarray(value, dtype=float)).ravel().copy()
    entries = [i for i, v in enumerate(flat) if np.isfinite(v) and not float(v).is_integer()]
    if not entries:
        return None
    for i in entries:
        match = next((x for x, d in found if abs(x - flat[i]) <= 0.5 * 10.0 ** -d * (1 + 1e-9)), None)
        if match is None:
            return None
        flat[i] = match
    return flat.reshape(np.shape(value)) if np.ndim(value) else float(flat[0])


def display_failures(name, chapter):
    """[(question, where, copied value)]: copies of displayed graded values that fail a
    test of a question whose text does not say "do not copy"."""
    questions, namespace, answers, choices = solved(name)
    exercise = read_source(ROOT / "exercises" / name)
    shown = set_displays(name)
    texts = [("the set", t) for ts in shown.values() for t in ts] + [("the chapter", t) for t in chapter]
    bad = []
    for q, targets in answers.items():
        if q in choices or NOT_COPY.search(question_text(exercise, q)):
            continue
        for kind, target in targets:
            value = namespace[target]
            if kind != "value" or _map(value, lambda a: a) is None:
                continue
            for where, text in texts:
                copy = copied(value, text)
                if copy is None:
                    continue
                ns = dict(namespace)
                ns[target] = type(value)(copy) if isinstance(value, (list, tuple)) else copy
                if caught(questions[q].tests, ns):
                    bad.append((q, where, copy))
                    break
    return bad


def test_copied_match_rule():
    assert copied(np.array([0.0, 0.0131579, 0.210526]), "P = 0.0132 and 0.2105, 0.0") == pytest.approx(
        [0.0, 0.0132, 0.2105])
    assert copied(np.array([0.0131579, 0.5]), "0.0132 only") is None  # 0.5 not shown
    assert copied(0.0875, "P(d) = 0.09") is None  # one significant digit shows nothing
    assert copied(0.0875, "P(d) = 0.088") == 0.088 and copied(0.0875, "8.75e-2") == 0.0875
    assert copied(4.0, "4.00") is None  # integers are not copied numbers


@pytest.mark.parametrize("name", SETS)
def test_set_displays_copied_pass(name):
    """The set's own widget readouts and printed lines (fast: no chapter). And they never
    show an answer line to copy: widgets help to explore and confirm (exercises/README.md,
    "A widget to explore, not to copy"; how_to_use.md; instructors.md), so nothing the
    set's cells and widgets print, at any of the widgets' settings, assigns an answer."""
    bad = [b for b in display_failures(name, []) if b[1] == "the set"]
    assert not bad, f"{name}: copying the display fails (or the question must say 'do not copy'): {bad}"
    shown = [line for texts in set_displays(name).values() for text in texts for line in text.splitlines()]
    assert any(line.strip() for line in shown), f"{name}: the set's widgets print nothing"
    answer_lines = [line for line in shown if ANSWER_LINE.search(line)]
    assert not answer_lines, f"{name}: a display shows an answer line to copy: {answer_lines[:3]}"


@pytest.mark.slow
@pytest.mark.parametrize("name", SETS)
def test_chapter_displays_copied_pass(name):
    """The chapter's printed tables and outputs, executed (BOOK_BUILD's or here)."""
    bad = display_failures(name, chapter_displays(name))
    assert not bad, f"{name}: copying the display fails (or the question must say 'do not copy'): {bad}"
