"""Grade a folder of submitted notebooks into a gradebook.

:func:`grade` runs every submission in its own :mod:`lib.grading.sandbox` subprocess
(``--workers`` at a time), compares the values it sends back with the expected values
of the source's tests in this process, and writes ``grades.csv``,
``NAME/results.json`` (Gradescope autograder shape) and ``NAME/feedback.txt``.
Used by instructors (book page "For instructors").
"""
import csv
import functools
import io
import json
import os
import pwd
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nbformat

from .checks import expected_value, judge
from .source import find_source, read_source

ROOT = Path(__file__).resolve().parents[2]  # the project: lib/ lives here
MAX_NOTEBOOK = 20 * 2**20  # bytes of a submitted notebook
MAX_REPORT = 20 * 2**20  # bytes of answers read back from a child
UNSHARE = ["unshare", "--net", "--mount", "--pid", "--fork", "--mount-proc", "--kill-child"]


@functools.cache
def sandbox_prefix():
    """The isolation the OS allows: full ``unshare``, network only, or nothing."""
    for prefix in (UNSHARE, ["unshare", "--net"]):
        try:
            if subprocess.run(prefix + ["true"], capture_output=True, timeout=20).returncode == 0:
                return prefix
        except (OSError, subprocess.SubprocessError):
            pass
    return []


def atomic_write(path, text):
    """Write ``text`` to ``path`` through a temporary file and ``os.replace``."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
        f.write(text)
    os.chmod(tmp, 0o644)
    os.replace(tmp, path)


def find_submissions(folder):
    """``[(name, path)]``: every file of ``folder`` and every sub-folder (one per student)."""
    entries = sorted(p for p in Path(folder).iterdir() if not p.name.startswith("."))
    named, seen = [], set()
    for path in entries:
        name = re.sub(r"[^\w.-]", "_", path.stem if path.is_file() else path.name) or "submission"
        unique, n = name, 1
        while unique in seen:
            n += 1
            unique = f"{name}-{n}"
        seen.add(unique)
        named.append((unique, path))
    return named


def read_submission(path, exercise):
    """The notebook's bytes, file name and parsed notebook; ``ValueError`` saying why not."""
    if path.is_dir():
        found = sorted(path.rglob("*.ipynb"))
        if len(found) != 1:
            raise ValueError(f"folder {path.name} holds {len(found)} notebooks, expected 1")
        path = found[0]
    if path.suffix != ".ipynb":
        raise ValueError(f"{path.name} is not a notebook (.ipynb)")
    if path.stat().st_size > MAX_NOTEBOOK:
        raise ValueError(f"{path.name} is larger than {MAX_NOTEBOOK >> 20} MB")
    data = path.read_bytes()
    try:
        nb = nbformat.reads(data.decode("utf-8"), as_version=4)
        cells = nb.cells
    except Exception as exc:  # noqa: BLE001 - any parse failure means unreadable
        raise ValueError(f"cannot read {path.name}: {type(exc).__name__}: {exc}"[:300]) from None
    if not isinstance(cells, list):
        raise ValueError(f"cannot read {path.name}: no list of cells")
    meta = nb.metadata.get("grading") if isinstance(nb.get("metadata"), dict) else None
    other = meta.get("exercise") if isinstance(meta, dict) else None
    if other is not None and other != exercise.name:
        raise ValueError(f"{path.name} is the notebook of exercise {other}, not {exercise.name}")
    return data, path.name


def hidden_paths(*paths):
    """Folders the student's code must not see: the given ones and the repository's sources."""
    keep = [Path(tempfile.gettempdir()).resolve(), ROOT / "lib", Path(sys.prefix).resolve()]
    found = set()
    for p in list(paths) + [ROOT / d for d in (".git", "_build", "_generated", "exercises")]:
        p = Path(p).resolve()
        if p.is_dir() and not any(k == p or k.is_relative_to(p) for k in keep):
            found.add(str(p))
    return sorted(found)


def run_sandbox(data, filename, exercise, hide, extras, cell_timeout, timeout, memory_mb):
    """Run one notebook in a sandbox; returns ``(events, note)`` (note: why it stopped)."""
    prefix = sandbox_prefix()
    full = prefix == UNSHARE
    user = None
    if full and os.geteuid() == 0:
        nobody = pwd.getpwnam("nobody")
        user = [nobody.pw_uid, nobody.pw_gid]
    tmp = Path(tempfile.mkdtemp(prefix="grading-"))
    job = {"notebook": filename, "cell_timeout": cell_timeout, "memory_mb": memory_mb,
           "questions": {q.name: [t[0] for t in q.tests] for q in exercise.questions.values()},
           "hide": hide if full else [], "user": user, "stage": str(tmp / "stage")}
    try:
        (tmp / "stage").mkdir()
        # Other submissions run as the same user: they may enter tmp but not list it, so
        # random folder names keep each submission's files to itself.
        os.chmod(tmp, 0o711)
        work, home = tmp / f"work-{secrets.token_hex(8)}", tmp / f"home-{secrets.token_hex(8)}"
        for d in (work, home, home / "runtime"):
            d.mkdir()
            if user:
                os.chown(d, *user)
        for extra in extras:  # the exercise's data files, as released to students
            shutil.copy2(extra, work / extra.name)
        (work / filename).write_bytes(data)
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home),
               "LANG": "C.UTF-8", "PYTHONPATH": str(ROOT), "PYTHONDONTWRITEBYTECODE": "1",
               "JUPYTER_RUNTIME_DIR": str(home / "runtime"), "IPYTHONDIR": str(home / ".ipython"),
               "MPLCONFIGDIR": str(home / ".matplotlib"), "MPLBACKEND": "Agg",
               "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
               "PYDEVD_DISABLE_FILE_VALIDATION": "1", "JUPYTER_PLATFORM_DIRS": "1"}
        note = ""
        with open(tmp / "report.jsonl", "w+b") as report:
            proc = subprocess.Popen(prefix + [sys.executable, "-m", "lib.grading.sandbox"],
                                    cwd=work, env=env, stdin=subprocess.PIPE, stdout=report,
                                    stderr=subprocess.DEVNULL, start_new_session=True)
            try:
                proc.stdin.write(json.dumps(job).encode())
                proc.stdin.close()
                proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                note = f"stopped after {timeout:g} s (the time limit of a submission)"
            except OSError:
                pass
            finally:
                try:
                    os.killpg(proc.pid, 9)
                except OSError:
                    pass
                proc.wait()
            report.seek(0)
            text = report.read(MAX_REPORT).decode("utf-8", "replace")
        events = []
        for line in text.splitlines():
            try:
                event = json.loads(line)
            except (ValueError, RecursionError):
                continue
            if isinstance(event, dict):
                events.append(event)
        return events, note
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def score_question(question, expected, events, note):
    """Result of one question: a dict with name, score, max_score, status, output."""
    result = {"name": question.name, "score": 0, "max_score": question.points}
    answer = next((e for e in events if e.get("question") == question.name and "cell" not in e), None)
    cell = next((e for e in events if e.get("question") == question.name and "cell" in e), None)
    cell_note = f"cell {cell['cell']}: {cell.get('status')}, {cell.get('message')}" if cell else ""
    if answer is None:
        status = "timeout" if note.startswith("stopped after") else "error"
        message = f"not graded: {note or 'the notebook stopped before this question'}"
    elif answer.get("status") != "ok":
        status = "timeout" if answer.get("status") == "timeout" else "error"
        message = f"evaluating the tests: {answer.get('message')}"
    else:
        values = answer.get("results")
        if not isinstance(values, list) or len(values) != len(expected):
            values = [None] * len(expected)
        outcomes = [judge(t[0], v, e) for t, v, e in zip(question.tests, values, expected)]
        public, hidden = outcomes[: len(question.public)], outcomes[len(question.public):]
        if all(s == "passed" for s, _ in outcomes):
            result.update(score=question.points, status="passed",
                          output=f"all {len(outcomes)} tests passed")
            return result
        status = "error" if any(s == "error" for s, _ in outcomes) else "failed"
        bad_public = list(dict.fromkeys(m for s, m in public if s != "passed"))
        n_bad = sum(s != "passed" for s, _ in hidden)
        parts = [f"public tests: {'; '.join(bad_public) or 'all passed'}"]
        if n_bad:
            parts.append(f"hidden tests: {n_bad} of {len(hidden)} failed")
        message = ". ".join(parts)
    if cell:
        status = "timeout" if cell.get("status") == "timeout" else status
        message = f"{cell_note}. {message}"
    result.update(status=status, output=message[:500])
    return result


def grade_one(name, path, exercise, expected, hide, extras, opts):
    """Grade one submission; never raises (a failure becomes the row's note)."""
    start = time.monotonic()
    try:
        data, filename = read_submission(path, exercise)
        events, note = run_sandbox(data, filename, exercise, hide, extras, **opts)
        if not note and not any(e.get("done") for e in events):
            note = next((e["fatal"] for e in events if "fatal" in e),
                        "the grading process stopped unexpectedly")
        tests = [score_question(q, expected[q.name], events, note) for q in exercise.questions.values()]
    except Exception as exc:  # noqa: BLE001 - no submission is ever dropped
        note = str(exc) if isinstance(exc, ValueError) else f"grader error: {type(exc).__name__}: {exc}"
        tests = [{"name": q.name, "score": 0, "max_score": q.points, "status": "error",
                  "output": note} for q in exercise.questions.values()]
    return {"submission": name, "score": sum(t["score"] for t in tests), "output": note,
            "execution_time": round(time.monotonic() - start, 2), "tests": tests}


def feedback(result, exercise):
    """The short feedback text of one submission (public-test output only)."""
    total = sum(q.points for q in exercise.questions.values())
    lines = [f"Exercise {exercise.name}, submission {result['submission']}"]
    if result["output"]:
        lines.append(f"Note: {result['output']}")
    for t in result["tests"]:
        lines.append(f"{t['name']} ({t['score']}/{t['max_score']} points): {t['status']}: {t['output']}")
    lines.append(f"Total: {result['score']}/{total}")
    return "\n".join(lines) + "\n"


def grade(source, submissions, out, workers=2, cell_timeout=60, timeout=300, memory_mb=2048):
    """Grade every submission in ``submissions`` against the exercise ``source``.

    Writes ``out/grades.csv`` (atomically, at the end), ``out/NAME/results.json`` and
    ``out/NAME/feedback.txt``; returns the list of results (one per submission).
    """
    exercise = read_source(source)
    expected = {q.name: [json.loads(json.dumps(expected_value(t[1]))) for t in q.tests]
                for q in exercise.questions.values()}
    if not Path(submissions).is_dir():
        raise ValueError(f"{submissions}: not a folder of submissions")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    source_file = find_source(source)
    hide = hidden_paths(source_file.parent, submissions, out)
    extras = [p for p in source_file.parent.iterdir() if p.is_file() and p != source_file
              and p.name != "README.md"] if Path(source).is_dir() else []
    opts = {"cell_timeout": cell_timeout, "timeout": timeout, "memory_mb": memory_mb}
    subs = find_submissions(submissions)
    with ThreadPoolExecutor(max(1, workers)) as pool:
        results = list(pool.map(lambda s: grade_one(*s, exercise, expected, hide, extras, opts), subs))
    names = list(exercise.questions)
    table = io.StringIO()
    writer = csv.writer(table)
    writer.writerow(["submission", *names, "total", "note"])
    for r in results:
        (out / r["submission"]).mkdir(exist_ok=True)
        atomic_write(out / r["submission"] / "results.json", json.dumps(r, indent=1) + "\n")
        atomic_write(out / r["submission"] / "feedback.txt", feedback(r, exercise))
        writer.writerow([r["submission"], *(t["score"] for t in r["tests"]), r["score"], r["output"]])
    atomic_write(out / "grades.csv", table.getvalue())
    return results
