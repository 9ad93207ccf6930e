"""Tests of lib.grading: the source format, release, check() and the sandboxed grader.

The robustness tests grade one batch of hostile and broken submissions, built from the
released chapter 1 notebook, with short time limits on 2 workers, and check every
question's score of every submission.
"""
import copy
import json
import os
import re
from pathlib import Path

import jupytext
import nbformat
import pytest
from nbclient import NotebookClient

from lib.grading import Checker, approx
from lib.grading.checks import compare, encode, expected_value, judge
from lib.grading.grade import ROOT, UNSHARE, grade, sandbox_prefix
from lib.grading.source import parse, read_source, release, release_all

SOURCE = ROOT / "tests" / "data" / "grading" / "01_bayesian_learning"  # a frozen copy of the set
SOURCE_FILE = SOURCE / "01_bayesian_learning.md"
NAME = "01_bayesian_learning"
FULL = {"q1": 2, "q2": 3, "q3": 2, "q4": 1}

PREDICTIVE = '''def predictive(data, prior=prior):
    """P(next candy is lime | data)."""
    {pre}
    data = np.asarray(data)
    joint = prior * lime ** data.sum() * (1 - lime) ** (len(data) - data.sum())
    return float(joint @ lime / joint.sum())'''
ANSWERS = {
    "q1": "answer_q1 = prior * lime**3 / np.sum(prior * lime**3)",
    "q2": PREDICTIVE.format(pre="pass"),
    "q3": "answer_q3 = 4",
    "q4": 'answer_q4 = "b"',
}
sandboxed = pytest.mark.skipif(sandbox_prefix() != UNSHARE, reason="needs root and unshare")


@pytest.fixture(scope="module")
def released(tmp_path_factory):
    """The student and the instructor notebooks of the chapter 1 set."""
    out = tmp_path_factory.mktemp("release")
    student = release_all(SOURCE, out / "student")[0]
    instructor = release_all(SOURCE, out / "instructor", instructor=True)[0]
    return student, instructor


def answered(student, **answers):
    """The student notebook with the correct answers, except ``answers`` (cell sources)."""
    nb = nbformat.read(student, as_version=4)
    for q, source in {**ANSWERS, **answers}.items():
        cells = [c for c in nb.cells if c.cell_type == "code"
                 and c.metadata.get("grading", {}).get("question") == q
                 and not c.source.startswith("check(")]
        cells[-1].source = source
    return nb


def add_cell(nb, source, before_question=None):
    """Insert a code cell at the end, or before the first cell of ``before_question``."""
    index = len(nb.cells)
    if before_question:
        index = next(i for i, c in enumerate(nb.cells)
                     if c.metadata.get("grading", {}).get("question") == before_question)
    nb.cells.insert(index, nbformat.v4.new_code_cell(source))
    return nb


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
        ["answer", "approx(0.5)"], ["f(1)", "2"]]}}})
    notebook = {"check": check, "answer": 0.5, "f": lambda x: x + 1}
    exec('check("q1")', notebook)
    assert "all 2 public tests passed" in capsys.readouterr().out
    notebook.update(answer=..., f=lambda x: 1 / 0)
    exec('check("q1")', notebook)
    out = capsys.readouterr().out
    assert "0 of 2" in out and "not answered yet" in out and "ZeroDivisionError" in out
    with pytest.raises(ValueError, match="unknown question 'q9'.*q1"):
        check("q9")


# --- release -------------------------------------------------------------------------

def secret_lines():
    """Solution lines and hidden tests of the source, as they appear in it."""
    exercise = read_source(SOURCE)
    secrets = [f"{a} == {e}" for q in exercise.questions.values() for a, e in q.hidden]
    secrets += [e for q in exercise.questions.values() for _, e in q.hidden if len(e) > 4]
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
    assert nb.cells[0].source.splitlines()[2] == "from lib.grading import Checker"
    assert not any(c.get("outputs") for c in nb.cells)


def execute(path):
    nb = nbformat.read(path, as_version=4)
    NotebookClient(nb, timeout=120, kernel_name="python3",
                   resources={"metadata": {"path": str(path.parent)}}).execute()
    return {c.source: "".join(o.get("text", "") for o in c.get("outputs", [])) for c in nb.cells}


def test_released_notebook_runs_headless_renamed_and_writes_nothing(released, tmp_path):
    student, instructor = released
    renamed = tmp_path / "my homework (copy).ipynb"
    renamed.write_bytes(student.read_bytes())
    before = sorted(os.listdir(tmp_path))
    outputs = execute(renamed)
    assert sorted(os.listdir(tmp_path)) == before
    assert "q1: 0 of 3 public tests passed" in outputs['check("q1")']
    assert "not answered yet" in outputs['check("q1")']
    assert "NotImplementedError: exercise" in outputs['check("q2")']
    solved = execute(instructor)
    for q in FULL:
        assert f"{q}: all " in solved[f'check("{q}")'] and "(public and hidden) passed" in solved[f'check("{q}")']


def test_release_is_deterministic(released, tmp_path):
    again = release_all(SOURCE, tmp_path)[0]
    assert again.read_text() == released[0].read_text()


# --- grading -------------------------------------------------------------------------

CASES = {}  # name -> (notebook or bytes, expected scores, expected statuses or None)


def case(name, scores=None, statuses=None):
    def register(make):
        CASES[name] = (make, {**FULL, **(scores or {})}, statuses or {})
        return make
    return register


case("correct")(lambda s: answered(s))
case("renamed_folder")(lambda s: answered(s))  # graded from a folder holding one notebook
case("wrong", {q: 0 for q in FULL}, {q: "failed" for q in FULL})(lambda s: answered(
    s, q1="answer_q1 = prior", q3="answer_q3 = 3", q4='answer_q4 = "a"',
    q2="def predictive(data, prior=prior):\n    return 0.5 if len(data) == 0 else 0.65"))
case("blank", {q: 0 for q in FULL}, {q: "error" for q in FULL})(
    lambda s: nbformat.read(s, as_version=4))
case("raises", {"q1": 0, "q2": 0}, {"q1": "error", "q2": "error"})(lambda s: answered(
    s, q1="answer_q1 = 1 / 0", q2=PREDICTIVE.format(pre="raise ValueError('no')")))
case("loop_top_level", {"q3": 0}, {"q3": "timeout"})(lambda s: answered(
    s, q3="import signal\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nwhile True:\n    pass"))
case("loop_in_function", {"q2": 0}, {"q2": "timeout"})(lambda s: answered(
    s, q2=PREDICTIVE.format(pre="while len(data) > 1:\n        pass")))
case("sys_exit", {"q2": 0}, {"q1": "passed", "q2": "error"})(lambda s: answered(
    s, q1=ANSWERS["q1"] + "\nimport sys\nsys.exit(0)",
    q2=PREDICTIVE.format(pre="import sys; sys.exit(3)")))
case("os_exit_top_level", {"q3": 0}, {"q3": "error"})(lambda s: answered(
    s, q3="import os\nos._exit(1)"))
case("os_exit_in_function", {"q2": 0}, {"q2": "error"})(lambda s: answered(
    s, q2=PREDICTIVE.format(pre="import os\n    if len(data) > 1: os._exit(0)")))
case("print_100mb")(lambda s: add_cell(answered(s), 'print("x" * 100_000_000)', "q2"))
case("too_much_memory", {"q2": 0}, {"q2": "error"})(lambda s: add_cell(answered(
    s, q2=PREDICTIVE.format(pre="big = np.ones((30_000, 30_000))")),
    "try:\n    hog = bytearray(4 * 2**30)\nexcept MemoryError:\n    pass", "q1"))
case("many_processes")(lambda s: add_cell(answered(s), (
    "import subprocess\nprocs = []\ntry:\n    for _ in range(300):\n"
    "        procs.append(subprocess.Popen(['sleep', '4321']))\nexcept OSError:\n    pass"), "q1"))
case("monkeypatch", {"q1": 0}, {"q1": "failed"})(lambda s: add_cell(answered(
    s, q1="answer_q1 = [0.2] * 5"), (
    "import math, numpy, lib.grading.checks\nnumpy.allclose = lambda *a, **k: True\n"
    "numpy.isclose = lambda *a, **k: True\nmath.isclose = lambda *a, **k: True\n"
    "lib.grading.checks.compare = lambda *a: True"), "q1"))
case("read_source", {"q1": 0}, {"q1": "failed"})(lambda s: answered(s, q1=(
    "import glob, pathlib, re\nanswer_q1 = [0.2] * 5\n"
    f"paths = [{str(SOURCE_FILE)!r}] + glob.glob({str(ROOT)!r} + '/**/*.md', recursive=True)\n"
    f"paths += glob.glob({str(ROOT)!r} + '/_generated/**/*.ipynb', recursive=True)\n"
    "for p in paths:\n    try:\n        text = pathlib.Path(p).read_text()\n"
    "    except OSError:\n        continue\n"
    "    m = re.search(r'answer_q1 == approx\\((\\[.*?\\])', text)\n"
    "    if m:\n        answer_q1 = eval(m.group(1))")))
case("network")(lambda s: answered(s, q4=(  # right only if the kernel sees no network device
    "import socket\nanswer_q4 = 'b' if [n for _, n in socket.if_nameindex()] == ['lo'] else 'a'")))
case("write_output")(lambda s: add_cell(answered(s), (  # @OUT@: the output folder
    "import pathlib\nfor name in ['grades.csv', 'evil.txt', 'correct/results.json']:\n"
    "    try:\n        pathlib.Path('@OUT@', name).write_text('{\"score\": 1000}')\n"
    "    except OSError:\n        pass"), "q1"))
case("delete_files")(lambda s: add_cell(answered(s), (
    "import os, shutil\nfor f in os.listdir('.'):\n    os.remove(f)\n"
    "shutil.rmtree(os.environ['JUPYTER_RUNTIME_DIR'], ignore_errors=True)"), "q3"))
case("missing_cell", {"q2": 0}, {"q2": "error"})(lambda s: nbformat.from_dict({
    **answered(s), "cells": [c for c in answered(s).cells
                             if not c.source.startswith("def predictive")]}))
case("other_exercise", {q: 0 for q in FULL}, {q: "error" for q in FULL})(lambda s: nbformat.from_dict({
    **answered(s), "metadata": {"grading": {"exercise": "02_estimation"}}}))
case("not_json", {q: 0 for q in FULL}, {q: "error" for q in FULL})(lambda s: b"{this is not json")
case("not_a_notebook", {q: 0 for q in FULL}, {q: "error" for q in FULL})(lambda s: b"my answers")

NEEDS_SANDBOX = {"read_source", "write_output", "many_processes", "network"}


@pytest.fixture(scope="module")
def graded(released, tmp_path_factory):
    """Grade every case in one batch (2 workers, short limits)."""
    student = released[0]
    subs, out = tmp_path_factory.mktemp("submissions"), tmp_path_factory.mktemp("graded")
    for name, (make, _, _) in CASES.items():
        made = make(student)
        path = subs / name / "homework.ipynb" if name == "renamed_folder" else (
            subs / f"{name}.txt" if name == "not_a_notebook" else subs / f"{name}.ipynb")
        path.parent.mkdir(exist_ok=True)
        text = made if isinstance(made, bytes) else nbformat.writes(made).encode()
        path.write_bytes(text.replace(b"@OUT@", str(out).encode()))
    results = grade(SOURCE, subs, out, workers=2, cell_timeout=8, timeout=60, memory_mb=1536)
    return out, {r["submission"]: r for r in results}


@pytest.mark.parametrize("name", sorted(CASES))
def test_every_submission_gets_the_right_score(graded, name):
    if name in NEEDS_SANDBOX and sandbox_prefix() != UNSHARE:
        pytest.skip("needs root and unshare")
    out, results = graded
    _, scores, statuses = CASES[name]
    result = results[name]
    got = {t["name"]: t["score"] for t in result["tests"]}
    assert got == scores, result
    for q, status in statuses.items():
        assert next(t for t in result["tests"] if t["name"] == q)["status"] == status, result
    for t in result["tests"]:
        assert (t["status"] == "passed") == (t["score"] == t["max_score"])
    feedback = (out / name / "feedback.txt").read_text()
    assert f"Total: {sum(scores.values())}/8" in feedback


def test_gradebook(graded):
    out, results = graded
    rows = (out / "grades.csv").read_text().splitlines()
    assert rows[0] == "submission,q1,q2,q3,q4,total,note"
    assert sorted(r.split(",")[0] for r in rows[1:]) == sorted(CASES)
    assert "correct,2,3,2,1,8," in rows
    assert not list(out.glob(".*"))  # no temporary files left
    assert not (out / "evil.txt").exists()
    result = json.loads((out / "correct" / "results.json").read_text())
    assert result["score"] == 8 and len(result["tests"]) == 4
    assert set(result["tests"][0]) >= {"name", "score", "max_score", "status", "output"}
    assert "not valid JSON" in results["not_json"]["output"] or "cannot read" in results["not_json"]["output"]
    assert "exercise 02_estimation" in results["other_exercise"]["output"]
    assert "not a notebook" in results["not_a_notebook"]["output"]


def test_feedback_shows_public_output_only(graded):
    out, _ = graded
    exercise = read_source(SOURCE)
    for path in out.glob("*/*"):
        text = path.read_text()
        for q in exercise.questions.values():
            for answer, expected in q.hidden:
                if len(expected) > 4:
                    assert expected not in text, (path, expected)
    wrong = (out / "wrong" / "feedback.txt").read_text()
    assert "hidden tests: 5 of 5 failed" in wrong


@sandboxed
def test_no_process_outlives_its_submission(graded):
    leftover = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if b"sleep\x004321" in cmd:
            leftover.append(pid)
    assert not leftover


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
    assert re.search(r"'q2': \{'points': 3", nb.cells[0].source)


def test_total_time_limit_stops_a_submission(released, tmp_path):
    subs = tmp_path / "subs"
    subs.mkdir()
    nb = add_cell(answered(released[0]), "while True:\n    pass", "q1")
    nbformat.write(nb, subs / "slow.ipynb")
    [result] = grade(SOURCE, subs, tmp_path / "out", workers=1, cell_timeout=60, timeout=8)
    assert result["score"] == 0 and "stopped after 8 s" in result["output"]
    assert {t["status"] for t in result["tests"]} == {"timeout"}
    assert "slow,0,0,0,0,0,stopped after 8 s" in (tmp_path / "out" / "grades.csv").read_text()


def test_ipynb_source_releases_like_the_md_source(tmp_path):
    folder = tmp_path / NAME
    folder.mkdir()
    nbformat.write(jupytext.read(SOURCE_FILE), folder / f"{NAME}.ipynb")
    (folder / "data.csv").write_text("x\n1\n")
    [released] = release_all(folder, tmp_path / "out")
    assert nbformat.read(released, as_version=4) == release(read_source(SOURCE))
    assert (released.parent / "data.csv").exists()
