"""Grade a folder of submitted notebooks into a gradebook.

:func:`grade` first grades the instructor solution in the sandbox and refuses to go on
(:class:`GradingRefused`) unless it scores full marks. Then it runs every submission
in its own sandbox (:mod:`lib.grading.isolation`, ``--workers`` at a time), compares
the values each sends back with the expected values of the source's tests in this
process, and writes ``grades.csv`` and ``summary.csv`` (:mod:`lib.grading.gradebook`),
and per submission, as soon as it is graded, ``submissions/ID/results.json``
(Gradescope's fields), ``submissions/ID/feedback.txt`` and the state a rerun resumes from.
The grader never parses a submission: it counts its cells in the bytes (at most
:data:`MAX_CELLS`) and the sandbox parses it, within the submission's limits. Used by instructors (book page "For instructors").
"""
import hashlib
import json
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

import nbformat

from . import gradebook, notes
from .checks import cut, expected_value, hidden_summary, judge
from .intake import Submission, find_submissions, read_notebook
from .isolation import MAX_ITEMS, MAX_LINE, MAX_REPLY, ROOT, Sandbox
from .source import find_source, read_source, release

STATUS_RANK = {"timeout": 3, "error": 2, "unanswered": 1, "failed": 0}  # the worst one shows


class GradingRefused(ValueError):
    """The instructor solution does not score full marks in the sandbox: nothing graded."""


#: Cells of a submitted notebook, counted in its bytes before it is parsed.
MAX_CELLS = 5000


def check_size(data, filename):
    """``ValueError`` when the notebook bytes hold more than :data:`MAX_CELLS` cells: counted
    without parsing (``"cell_type"`` keys), so the grader never parses such a file."""
    if (cells := data.count(b'"cell_type"')) > MAX_CELLS:
        raise ValueError(f"{filename} has {cells} cells, more than {MAX_CELLS}: not read "
                         "(submit the exercise's notebook, with its cells only)")


def parse_notebook(data, filename, exercise):
    """The submitted notebook (bytes) stripped of outputs; ``ValueError`` if unusable.

    Run in the sandbox (:mod:`lib.grading.sandbox`, with the submission's memory and time
    limits), never in the grader's process. ``exercise`` is the exercise's name.
    Metadata of any JSON type is tolerated: a notebook's or a cell's metadata that is
    not an object is dropped before the notebook is read (which question a cell
    belongs to is decided in the sandbox, by names of this exercise only).
    """
    try:
        raw = json.loads(data.decode("utf-8"))
        for node in [raw, *(raw.get("cells") or [])] if isinstance(raw, dict) else []:
            if isinstance(node, dict) and not isinstance(node.get("metadata", {}), dict):
                node["metadata"] = {}
        nb = nbformat.reads(json.dumps(raw), as_version=4)
        cells = nb.cells
        if not isinstance(cells, list):
            raise TypeError("no list of cells")
    except Exception as exc:  # noqa: BLE001 - the reason only, never the content
        raise ValueError(f"cannot read {filename}: not a valid notebook file "
                         f"({type(exc).__name__})") from None
    meta = (nb.get("metadata") or {}).get("grading")
    other = meta.get("exercise") if isinstance(meta, dict) else None
    if other is not None and other != exercise:
        raise ValueError(f"{filename} is the notebook of exercise {str(other)[:60]}, not {exercise}")
    for cell in cells:
        if isinstance(cell, dict) and cell.get("cell_type") == "code":
            cell["outputs"] = []
    return nb


def _job(exercise, opts):
    """The sandbox's job: the public tests of every question, then the hidden ones."""
    questions = exercise.questions.values()
    return {"cell_timeout": opts["cell_timeout"], "memory_mb": opts["memory_mb"],
            "passes": [{q.name: [t.answer for t in q.public] for q in questions},
                       {q.name: [t.answer for t in q.hidden] for q in questions}]}


def _replies(question, events):
    """``(public reply, hidden reply)`` events of ``question`` (an empty "ok" when it has
    no such tests; None when none arrived)."""
    found = [None, None]
    for e in events:
        if e.get("question") == question.name and "cell" not in e and e.get("pass") in (0, 1):
            found[e["pass"]] = found[e["pass"]] or e
    for i, tests in enumerate((question.public, question.hidden)):
        if not tests:
            found[i] = {"status": "ok", "results": []}
    return found


def score_question(question, expected, events, note):
    """Result of one question: name, score, max_score, status, output (never an expected
    value of a hidden test)."""
    result = {"name": question.name, "score": 0, "max_score": question.points}
    public, hidden = _replies(question, events)
    cell = next((e for e in events if e.get("question") == question.name and "cell" in e), None)
    if any(e.get("oversize") and e.get("question") == question.name for e in events):
        status, message = "error", (
            f"not graded: its reply to the grader was too large (at most {MAX_LINE >> 20} MB "
            f"and {MAX_ITEMS} items per question, {MAX_REPLY >> 20} MB per submission)")
    elif public is None or hidden is None:
        status = "timeout" if note.startswith("stopped after") else "error"
        too_big = any(e.get("oversize") for e in events)
        message = ("not graded: its answers were too large to receive" if too_big else
                   f"not graded: {note or 'the notebook stopped before this question'}")
    elif public.get("status") != "ok":
        status = "timeout" if public.get("status") == "timeout" else "error"
        message = f"evaluating the tests: {cut(public.get('message'))}"
    elif hidden.get("status") != "ok":  # only the hints: nothing that came from the kernel
        status = "timeout" if hidden.get("status") == "timeout" else "error"
        hints = list(dict.fromkeys(t.hint for t in question.hidden if t.hint))
        message = (f"{question.name}: the hidden tests could not be evaluated (" +
                   ("they ran too long" if status == "timeout" else "an error in the kernel")
                   + ")" + (". Hints: " + " ".join(hints) if hints else ""))
    else:
        values = [*_values(public, question.public), *_values(hidden, question.hidden)]
        outcomes = [judge(t.answer, v, e, t.hint, question.choices)
                    for t, v, e in zip(question.tests, values, expected)]
        public, hidden = outcomes[: len(question.public)], outcomes[len(question.public):]
        result["outcomes"] = [s for s, _ in outcomes]  # per test, in order (the class report)
        if all(s == "passed" for s, _ in outcomes):
            result.update(score=question.points, status="passed",
                          output=f"all {len(outcomes)} tests passed")
            return result
        status = max((s for s, _ in outcomes if s != "passed"), key=STATUS_RANK.get)
        if status == "unanswered":  # an error (no value to grade), said plainly
            status, message = "error", "not answered yet"
        else:
            bad_public = list(dict.fromkeys(m for s, m in public if s != "passed"))
            # every failed test's hint, whole and in the tests' order (no cut: hints are
            # the author's text, student messages are already capped by evaluate/short)
            parts = [f"public tests: {' '.join(_sentence(m) for m in bad_public) or 'all passed.'}"]
            n = len(question.public)
            hidden_text = hidden_summary(question.name, [
                (s, v, e, t.hint) for (s, _), t, v, e in
                zip(hidden, question.hidden, values[n:], expected[n:])], question.choices)
            message = " ".join(parts + ([_sentence(hidden_text)] if hidden_text else []))
    if cell:
        status = "timeout" if cell.get("status") == "timeout" else status
        message = f"cell {cell['cell']}: {cell.get('status')}, {str(cell.get('message'))[:300]}. {message}"
    result.update(status=status, output=message)
    return result


def _sentence(text):
    """``text`` ending with exactly one full stop (hints may or may not end with one)."""
    return text.rstrip().rstrip(".") + "."


def _values(reply, tests):
    values = reply.get("results")
    return values if isinstance(values, list) and len(values) == len(tests) else [None] * len(tests)


def grade_one(sub, exercise, expected, sandbox, extras, opts, data=None, path=None, released=None):
    """Grade one submission; never raises (a failure becomes the row's note). ``released``:
    the exercise's student notebook (which cells a submission deleted), made once per run
    by :func:`grade`; made here when not given."""
    start = time.monotonic()
    path, graded = path or sub.entry, True
    try:
        if data is None:
            data, path = read_notebook(sub)
        check_size(data, path)
        job = {**_job(exercise, opts), "exercise": exercise.name, "shown": path}
        events, note = sandbox.run(job, data, "submission.ipynb", extras, opts["timeout"])
        unread = next((e["unread"] for e in events if isinstance(e.get("unread"), str)), None)
        if unread:  # the sandbox could not read it as this exercise's notebook
            raise ValueError(unread[:1000])
        cells = notes.cells_sent(events)
        events = notes.without_check_cells(events, cells)
        note = note or next((e["fatal"] for e in events if "fatal" in e), "")
        loose = [f"cell {e['cell']}: {e.get('status')}, {e.get('message')}" for e in events
                 if "cell" in e and not (isinstance(e.get("question"), str)
                                         and e["question"] in exercise.questions)]
        note = "; ".join([note] * bool(note) + loose)[:1000]
        tests = [score_question(q, expected[q.name], events, note) for q in exercise.questions.values()]
        words, tests = notes.flag(cells, events, tests, released or release(exercise))
        failed = notes.first_failed(events)  # said once, in words: not again as a loose cell
        note = "; ".join(words + [p for p in note.split("; ") if p and not (
            failed and p.startswith(f"cell {failed['cell']}: error,"))])[:1000]
    except Exception as exc:  # noqa: BLE001 - no submission is ever dropped
        note = str(exc) if isinstance(exc, ValueError) else f"grader error: {type(exc).__name__}: {exc}"
        graded = False  # nothing ran: blank in the gradebook, never a zero
        tests = [{"name": q.name, "score": 0, "max_score": q.points, "status": "error",
                  "output": note} for q in exercise.questions.values()]
    public = " ".join(t.answer for q in exercise.questions.values() for t in q.public)
    hidden = [t.answer for q in exercise.questions.values() for t in q.hidden
              if not t.answer.isidentifier() and t.answer not in public]  # not a mere name
    for t in tests:
        t["output"] = _shown(t["output"], hidden)
    return {"id": sub.id, "submission": sub.id, "path": gradebook.clean(path),
            "score": sum(t["score"] for t in tests), "output": _shown(note, hidden), "graded": graded,
            "execution_time": round(time.monotonic() - start, 2), "tests": tests}


def _shown(text, hidden):
    """``text`` as it may be shown: control characters and ANSI sequences removed, and
    any hidden test's expression replaced (whatever student code put it there)."""
    text = gradebook.clean(text)
    for expr in sorted(hidden, key=len, reverse=True):
        text = text.replace(expr, "<a hidden test>")
    return text


def gradescope(result):
    """The result in Gradescope's documented ``results.json`` fields only."""
    return {"score": result["score"], "output": result["output"], "tests": [
        {"name": t["name"], "score": t["score"], "max_score": t["max_score"],
         "output": f"{t['status']}: {t['output']}", "visibility": "visible",
         "status": "passed" if t["score"] == t["max_score"] else "failed"}
        for t in result["tests"]]}


def feedback(result, exercise):
    """The short feedback text of one submission (no expected value of a hidden test)."""
    total = sum(q.points for q in exercise.questions.values())
    lines = [f"Exercise {exercise.name}, submission {result['id']} ({result['path']})"]
    if result["output"]:
        lines.append(f"Note: {result['output']}")
    for t in result["tests"]:
        lines.append(f"{t['name']} ({t['score']}/{t['max_score']} points): {t['status']}: {t['output']}")
    lines.append(f"Total: {result['score']}/{total}")
    return "\n".join(lines) + "\n"


#: In submissions/ID/, the result and the key of what it graded.
STATE = "grading-state.json"


def _run_key(source_file, sandbox, extras, opts):
    """What a saved result depends on besides the notebook: the source and its files, the
    box, the limits (a hash object, to be updated with the notebook)."""
    key = hashlib.sha256(json.dumps([sandbox.isolated, sorted(opts.items())]).encode())
    for path in [source_file, *extras]:
        key.update(path.name.encode() + b"\0" + path.read_bytes())
    return key


def grade_and_save(sub, exercise, expected, sandbox, extras, opts, out, run_key, resume=True, released=None):
    """Grade one submission and write its files as soon as it is graded: ``results.json``,
    ``feedback.txt`` and :data:`STATE` (so a grader killed later loses nothing graded).

    With ``resume``, a submission whose saved state was graded from the same notebook
    bytes, source, box and limits (``run_key``) is not graded again: its saved result is
    returned.
    """
    folder = out / "submissions" / sub.id
    try:
        data, path = read_notebook(sub)
    except ValueError:  # grade_one says why, in the row
        data = path = None
    key = run_key.copy()
    key.update(json.dumps(path).encode() + b"\0")
    key.update(data or b"")  # not concatenated: no second copy of a 100 MB notebook
    key = key.hexdigest()
    if resume and data is not None:
        try:
            saved = json.loads((folder / STATE).read_text())
            if saved["key"] == key:
                return saved["result"]
        except (OSError, ValueError, KeyError, TypeError):
            pass
    result = grade_one(sub, exercise, expected, sandbox, extras, opts, data=data, path=path, released=released)
    folder.mkdir(parents=True, exist_ok=True)
    gradebook.atomic_write(folder / "results.json", json.dumps(gradescope(result), indent=1) + "\n")
    gradebook.atomic_write(folder / "feedback.txt", feedback(result, exercise))
    gradebook.atomic_write(folder / STATE, json.dumps({"key": key, "result": result}) + "\n")
    return result


_SELF_TESTS = {}  # one kernel run per process for each source, sandbox kind and limits


def self_test(exercise, sandbox, extras, opts):
    """Grade the instructor solution; :class:`GradingRefused` unless it scores full marks."""
    key = (hashlib.sha256(nbformat.writes(exercise.notebook).encode()).hexdigest(),
           sandbox.isolated, tuple(map(str, extras)), tuple(sorted(opts.items())))
    total = sum(q.points for q in exercise.questions.values())
    result = _SELF_TESTS.get(key)
    if result is None:
        payload = nbformat.writes(release(exercise, instructor=True)).encode()
        solution = Submission("instructor-solution", Path("."), "instructor solution")
        result = grade_one(solution, exercise, _expected(exercise), sandbox, extras, opts, data=payload)
        if result["score"] == total:
            _SELF_TESTS[key] = result
    if result["score"] != total:
        bad = "; ".join(f"{t['name']}: {t['status']}: {t['output'][:200]}"
                        for t in result["tests"] if t["score"] != t["max_score"])
        raise GradingRefused(
            f"refusing to grade: the instructor solution of {exercise.name} scores "
            f"{result['score']}/{total} in the sandbox, so honest students would lose points. "
            f"Cause: {result['output'] or bad}. Fix: if the sandbox failed to start, see the "
            "message above (install bubblewrap, grade as root or with user namespaces); "
            "if a question fails, fix the exercise's solution or tests (python -m "
            "lib.grading release ... --instructor, then run it), or raise --cell-timeout, "
            "--timeout or --memory-mb.")


# what every sandbox imports: its own child process, and the kernel with the notebooks' usual imports
WARM = "import lib.grading.sandbox, ipykernel.kernelapp, ipykernel.ipkernel, ipywidgets, matplotlib.pyplot"


def warm_bytecode():
    """Write Python's bytecode cache of what every sandbox imports, once per run, outside
    the sandboxes (where the installation is read-only and bytecode writing is off).

    Without it, where the cache is empty (``make install`` installs with ``--no-compile``;
    this machine sets PYTHONDONTWRITEBYTECODE), both Python processes of every submission
    compiled numpy, nbformat, jupyter_client, IPython, ... from source again: about 0.8 s
    of CPU of the 4.4 s a submission took (benchmarks/results.md, issue 37). Writes
    nothing where the installation is not writable; a failure here only costs that time.
    """
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    subprocess.run([sys.executable, "-c", WARM], cwd=ROOT, env=env, capture_output=True, timeout=600)


def _expected(exercise):
    return {q.name: [json.loads(json.dumps(expected_value(t.expected))) for t in q.tests]
            for q in exercise.questions.values()}


def grade(source, submissions, out, workers=2, cell_timeout=60, timeout=300, memory_mb=2048,
          only=None, unsafe_no_sandbox=False, progress=False, roster=None, layout=None, course=None,
          fallback=False):
    """Grade every submission in ``submissions`` (or the one whose id is ``only``).

    Refuses (:class:`GradingRefused`, :class:`~lib.grading.isolation.SandboxUnavailable`,
    both ``ValueError``) rather than score anyone when the sandbox cannot run the
    instructor solution to full marks. With ``only`` the row is merged into the existing
    ``out/grades.csv``. Each submission's files are written as soon as it is graded; a
    rerun into the same ``out`` takes the submissions graded before from the same bytes,
    source and limits from there (:func:`grade_and_save`; ``only`` always grades its
    submission again). Returns the list of results (one per graded submission); the
    summary text is in ``grade.last_summary``. ``fallback``: where bubblewrap cannot
    start, run each submission as an unprivileged uid of its own rather than refuse
    (:class:`~lib.grading.isolation.Sandbox`; the Gradescope autograder's choice). With a
    ``roster`` CSV (:mod:`lib.grading.roster`) the entries are matched to its students
    (``layout``: ``canvas``, ``moodle``, ``gradescope``, ``plain`` or detected) and
    :mod:`lib.grading.lms` writes the rows of students without a submission, the LMS
    files, the feedback pages and the class report (``course``: the options of
    :func:`lib.grading.lms.write_all`).
    """
    exercise = read_source(source)
    source_file = find_source(source)
    if not Path(submissions).is_dir():
        raise ValueError(f"{submissions}: not a folder of submissions")
    out = Path(out)
    collected = None
    if roster is not None:
        from .roster import collect, read_roster

        collected = collect(submissions, read_roster(roster), exclude=[out], layout=layout)
        subs = collected.submissions
    else:
        subs = find_submissions(submissions, exclude=[out])
    if only is not None:
        chosen = [s for s in subs if only in (s.id, s.entry)]
        if not chosen:
            raise ValueError(f"--only {only!r}: no such submission in {submissions} "
                             f"(ids: {', '.join(s.id for s in subs[:10])}{', ...' if len(subs) > 10 else ''})")
        subs = chosen
    extras = sorted(p for p in source_file.parent.iterdir() if p.is_file() and not p.is_symlink()
                    and p != source_file and p.name != "README.md" and not p.name.startswith(".")
                    ) if Path(source).is_dir() else []
    sandbox = Sandbox(workers, unsafe=unsafe_no_sandbox, protect=[source_file.parent, submissions, out],
                      memory_mb=memory_mb, fallback=fallback)
    opts = {"cell_timeout": cell_timeout, "timeout": timeout, "memory_mb": memory_mb}
    results = []
    try:
        warm_bytecode()
        self_test(exercise, sandbox, extras, opts)
        out.mkdir(parents=True, exist_ok=True)
        expected, released = _expected(exercise), release(exercise)
        with ThreadPoolExecutor(max(1, workers)) as pool:
            run_key = _run_key(source_file, sandbox, extras, opts)
            futures = [pool.submit(grade_and_save, s, exercise, expected, sandbox, extras, opts, out,
                                   run_key, resume=only is None, released=released) for s in subs]
            done = as_completed(futures)
            if progress:
                from tqdm import tqdm

                done = tqdm(done, total=len(futures), desc=f"grading {exercise.name}",
                            unit="notebook", file=sys.stderr)
            for future in done:
                results.append(future.result())
    finally:
        sandbox.close()
    results.sort(key=lambda r: r["id"])
    if collected is not None:
        from .lms import with_roster

        results = with_roster(results, collected, exercise, only)
        for r in results:  # again, with the roster's words in the note
            if r.get("missing") or not r["output"].startswith("not on the roster"):
                continue
            folder = out / "submissions" / r["id"]
            gradebook.atomic_write(folder / "results.json", json.dumps(gradescope(r), indent=1) + "\n")
            gradebook.atomic_write(folder / "feedback.txt", feedback(r, exercise))
    points = {q.name: q.points for q in exercise.questions.values()}
    rows, grade.last_summary = gradebook.write(out, points, results, merge=only is not None,
                                               warning=sandbox.warning)
    if collected is not None:
        from .lms import write_all

        grade.last_summary += write_all(out, exercise, rows, collected, results, **(course or {}))
    return results


grade.last_summary = ""
