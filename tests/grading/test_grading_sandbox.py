"""The grader on hostile, broken and honest submissions, from a checkout of mode 0700.

One batch of submissions (built from the released chapter 1 notebook) is graded with
short limits on 2 workers by a copy of the course that lives in a folder of mode 0700
(as in a container, where the checkout is under /root), then every question's score
and status of every submission is checked, and the gradebook. Separate short runs
check the regrade merge (--only, every other row byte for byte), the refusal and the
--unsafe-no-sandbox path, the resource box piece by piece (seccomp filter, reply caps,
CSV reading, cgroups) and, marked slow, a CPU hog next to an honest submission. Last,
the grader's command line runs as an unprivileged user (uid 65534, a Debian-Python venv
and a course copy it can read): one user namespace per submission, and the refusal when
that user may not create user namespaces. Issue 38: hidden inputs never come back
through names the student's code chose, test messages are capped, the grader never
parses a notebook (cell cap, parsing in the box: four ~100 MB notebooks on 2 workers),
results are saved per submission (killed mid-run, a rerun resumes), memory fails fast
(512/768/1024 MB), the box starts without capabilities under a Docker-like seccomp
filter, and the Gradescope package holds in an emulated Docker-default container.
"""
import csv
import io
import json
import os
import re
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import zipfile
from contextlib import redirect_stdout
from pathlib import Path

import nbformat
import pytest
from grading_helpers import (
    ANSWERS,
    FULL,
    NAME,
    NOBODY,
    PREDICTIVE,
    ROOT,
    SOURCE,
    add_cell,
    answered,
    needs_bwrap,  # noqa: F401 - fixture
    private_checkout,
    released,  # noqa: F401 - fixture
    run_in,
    world_readable_python,
)

from lib.grading import gradebook, isolation, limits
from lib.grading.grade import GradingRefused, grade
from lib.grading.gradebook import clean
from lib.grading.isolation import Sandbox, SandboxUnavailable
from lib.grading.source import read_source, release_all

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("grading_sandbox")]  # bubblewrap sandboxes, a Debian-Python venv, kernels

ZERO = {q: 0 for q in FULL}
MARK = f"grader-test-{secrets.token_hex(4)}"  # names of files and sockets on the host
SECRET = f"=SECRET-{secrets.token_hex(6)}"  # content of a root-only file
HOST_SOCKET = f"/tmp/{MARK}.sock"

CASES = {}  # entry name -> (maker(student, instructor) -> notebook | bytes | None, scores, statuses)


def case(name, scores=None, statuses=None):
    def register(make):
        CASES[name] = (make, {**FULL, **(scores or {})}, statuses or {})
        return make
    return register


def honest(s, i):
    return answered(s)


for name in ("correct.ipynb", "grades.csv.ipynb", "summary.csv.ipynb", "alice_smith.ipynb",
             "@SUM(A1).ipynb", "submissions.ipynb"):
    case(name)(honest)
case("alice smith.ipynb", ZERO, {q: "failed" for q in FULL})(lambda s, i: answered(
    s, q1="answer_q1 = prior", q3="answer_q3 = 3", q4='answer_q4 = "a"',
    q2="def predictive(data, prior=prior):\n    return 0.5 if len(data) == 0 else 0.65"))
case("blank.ipynb", ZERO, {q: "error" for q in FULL})(lambda s, i: nbformat.read(s, as_version=4))
case("raises.ipynb", {"q1": 0, "q2": 0}, {"q1": "error", "q2": "error"})(lambda s, i: answered(
    s, q1="answer_q1 = 1 / 0", q2=PREDICTIVE.format(pre="raise ValueError('no')")))
# a cell that never ends and ignores the interrupt: it waits (sleeps), since the limit is on
# time, not CPU; loop_in_function is the busy loop, and the CPU hog test the busy neighbours
case("loop_top_level.ipynb", {"q3": 0}, {"q3": "timeout"})(lambda s, i: answered(
    s, q3="import signal, time\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nwhile True:\n    time.sleep(0.1)"))
case("loop_in_function.ipynb", {"q2": 0}, {"q2": "timeout"})(lambda s, i: answered(
    s, q2=PREDICTIVE.format(pre="while len(data) > 1:\n        pass")))
case("sys_exit.ipynb", {"q2": 0}, {"q1": "passed", "q2": "error"})(lambda s, i: answered(
    s, q1=ANSWERS["q1"] + "\nimport sys\nsys.exit(0)", q2=PREDICTIVE.format(pre="import sys; sys.exit(3)")))
case("os_exit_top_level.ipynb", {"q3": 0}, {"q3": "error"})(lambda s, i: answered(
    s, q3="import os\nos._exit(1)"))
case("os_exit_in_function.ipynb", {"q2": 0}, {"q2": "error"})(lambda s, i: answered(
    s, q2=PREDICTIVE.format(pre="import os\n    if len(data) > 1: os._exit(0)")))
# exit() ends the kernel after the cell: recorded once, not replayed, the rest graded
case("exit_call.ipynb")(lambda s, i: add_cell(answered(s), "print('bye')\nexit()", "q2"))
case("print_100mb.ipynb")(lambda s, i: add_cell(answered(s), 'print("x" * 100_000_000)', "q2"))
case("huge_answer.ipynb", {"q1": 0}, {"q1": "error"})(lambda s, i: answered(
    s, q1="answer_q1 = 'x' * 25_000_000"))
case("too_much_memory.ipynb", {"q2": 0}, {"q2": "error"})(lambda s, i: add_cell(answered(
    s, q2=PREDICTIVE.format(pre="big = np.ones((30_000, 30_000))")),
    "try:\n    hog = bytearray(4 * 2**30)\nexcept MemoryError:\n    pass", "q1"))
case("as_students_write.ipynb")(lambda s, i: answered(
    s, q1="import pandas as pd\nanswer_q1 = pd.Series(prior * lime**3 / np.sum(prior * lime**3))",
    q3="from fractions import Fraction\nanswer_q3 = Fraction(8, 2)",
    q4='answer_q4 = np.str_("b")'))
case("many_processes.ipynb")(lambda s, i: add_cell(answered(s), (
    "import subprocess\nprocs = []\ntry:\n    for _ in range(300):\n"
    "        procs.append(subprocess.Popen(['sleep', '4321']))\nexcept OSError:\n    pass"), "q1"))
# a fork bomb that holds its processes for a while: submissions graded meanwhile (other
# uids, own process limits) are not affected; then it cleans up and answers right
BOMB = ("import os, time\nn = 0\ntry:\n    while n < 5000:\n        if os.fork() == 0:\n"
        "            time.sleep(60)\n            os._exit(0)\n        n += 1\nexcept OSError:\n    pass\n"
        "print(n, flush=True)\ntime.sleep(60)")
case("fork_bomb.ipynb")(lambda s, i: add_cell(answered(  # q3 right only if the limit held
    s, q3=f"answer_q3 = 4 if bomb_size < {isolation.NPROC} else 3"), (
    "import os, signal, subprocess, sys, time\n"
    f"bomb = subprocess.Popen([sys.executable, '-c', {BOMB!r}], stdout=subprocess.PIPE, start_new_session=True)\n"
    "bomb_size = int(bomb.stdout.readline())\ntime.sleep(2)\nos.killpg(bomb.pid, signal.SIGKILL)\nbomb.wait()"), "q1"))
case("monkeypatch.ipynb", {"q1": 0}, {"q1": "failed"})(lambda s, i: add_cell(answered(
    s, q1="answer_q1 = [0.2] * 5"), (
    "import math, numpy, lib.grading.checks\nnumpy.allclose = lambda *a, **k: True\n"
    "numpy.isclose = lambda *a, **k: True\nmath.isclose = lambda *a, **k: True\n"
    "lib.grading.checks.compare = lambda *a: True"), "q1"))
# reads the checkout's tests, the exercise source, a solutions/ folder, another checkout,
# the gradebook, other submissions and the grader's temporary folders
case("read_files.ipynb", {"q1": 0}, {"q1": "failed"})(lambda s, i: answered(s, q1=(
    "import glob, re\nanswer_q1 = [0.2] * 5\nfound = []\n"
    "for root in @ROOTS@:\n"
    "    for pattern in ('/tests/*/*.py', '/exercises/*/*.md', '/tests/grading/data/*/*.md', '/solutions/**/*.ipynb',\n"
    "                    '/*.ipynb', '/*/*.ipynb', '/submissions/*/*.json', '/grading-*/**'):\n"
    "        found += glob.glob(root + pattern, recursive=True)[:300]\n"
    "for p in found:\n    try:\n        text = open(p, errors='ignore').read(5_000_000)\n"
    "    except OSError:\n        continue\n"
    "    m = re.search(r'answer_q1[^\\[]{0,80}approx\\((\\[[^\\]]*\\])', text)\n"
    "    if m:\n        answer_q1 = eval(m.group(1))\n        break\n"
    "    if 'prior * lime**3 / np.sum(prior * lime**3)' in text:\n"
    "        answer_q1 = prior * lime**3 / np.sum(prior * lime**3)\n        break")))
case("network.ipynb")(lambda s, i: answered(s, q4=(  # right only if the kernel sees no network device
    "import socket\ntry:\n    names = [n for _, n in socket.if_nameindex()]\nexcept OSError:  # netlink denied\n"
    "    names = ['lo']\nanswer_q4 = 'b' if names == ['lo'] else 'a'")))
# issue 38: 215 loopback connections filled and never read held 800 MB of kernel memory
# outside the cgroup; right only if internet sockets are refused
case("loopback_flood.ipynb")(lambda s, i: answered(s, q4=(
    "import socket\ntry:\n    srv = socket.socket()\n    srv.bind(('127.0.0.1', 0))\n    srv.listen(300)\n"
    "    conns = [socket.create_connection(srv.getsockname()) for _ in range(215)]\n"
    "    for c in conns:\n        c.setblocking(False)\n        try:\n            while True:\n"
    "                c.send(b'x' * 65536)\n        except BlockingIOError:\n            pass\n"
    "    answer_q4 = 'a'\nexcept PermissionError:\n    answer_q4 = 'b'")))
case("host_sockets.ipynb")(lambda s, i: answered(s, q4=(  # right only if no host socket answers
    "import socket\nreached = []\n"
    f"for addr in [{HOST_SOCKET!r}, '\\0{MARK}']:\n"
    "    s = socket.socket(socket.AF_UNIX)\n    s.settimeout(2)\n    try:\n"
    "        s.connect(addr)\n        reached.append(addr)\n    except OSError:\n        pass\n"
    "answer_q4 = 'a' if reached else 'b'")))
case("temp_files.ipynb")(lambda s, i: add_cell(answered(s), (
    f"for d in ('/tmp', '/var/tmp', '/dev/shm'):\n    open(d + '/{MARK}', 'w').write('left behind')"), "q1"))
case("write_output.ipynb")(lambda s, i: add_cell(answered(s), (
    "import pathlib\nfor name in ['grades.csv', 'evil.txt', 'submissions/correct/results.json']:\n"
    "    try:\n        pathlib.Path('@OUT@', name).write_text('{\"score\": 1000}')\n"
    "    except OSError:\n        pass"), "q1"))
case("delete_files.ipynb")(lambda s, i: add_cell(answered(s), (
    "import os, shutil\nfor f in os.listdir('.'):\n    os.remove(f)\n"
    "shutil.rmtree(os.environ['JUPYTER_RUNTIME_DIR'], ignore_errors=True)"), "q3"))
case("missing_cell.ipynb", {"q2": 0}, {"q2": "error"})(lambda s, i: nbformat.from_dict({
    **answered(s), "cells": [c for c in answered(s).cells if not c.source.startswith("def predictive")]}))
case("other_exercise.ipynb", ZERO, {q: "error" for q in FULL})(lambda s, i: nbformat.from_dict({
    **answered(s), "metadata": {"grading": {"exercise": "02_estimation"}}}))
case("not_json.ipynb", ZERO, {q: "error" for q in FULL})(lambda s, i: b"{this is not json")
case("=1+1.txt", ZERO, {q: "error" for q in FULL})(lambda s, i: b"my answers")
# entries that are not regular files: never read, each still a row
case("linked.ipynb", ZERO, {q: "error" for q in FULL})(lambda s, i: ("symlink", i))
case("secret.ipynb", ZERO, {q: "error" for q in FULL})(lambda s, i: ("symlink", "@SECRETFILE@"))
case("fifo.ipynb", ZERO, {q: "error" for q in FULL})(lambda s, i: ("fifo", None))
# folders: one notebook inside (checkpoints and hidden files ignored); a link is not read
case("folder")(lambda s, i: ("folder", answered(s)))
case("Alice_Smith", ZERO, {q: "error" for q in FULL})(lambda s, i: ("folder", nbformat.read(s, as_version=4)))
case("folder_link", ZERO, {q: "error" for q in FULL})(lambda s, i: ("folder_link", i))

# --- issue 23: one submission can never cost another its grade, the run or the host ---
# a file name with a record separator and an error message holding a forged CSV row
# (for the correct student): after a regrade with --only, no other row may change
FORGED = "\\x1ecorrect,correct.ipynb,0,0,0,0,0,forged\\x1e\\u2028alice_smith,x,0,0,0,0,0,forged\\x85"
case("forge\x1erow.ipynb")(lambda s, i: add_cell(answered(s), f"raise ValueError('{FORGED}')", "q1"))
# ANSI escape sequences in an error message (colours, a window title, a cursor move)
case("ansi.ipynb")(lambda s, i: add_cell(answered(s), (
    r"raise ValueError('\x1b[31mred\x1b[0m \x1b]0;title\x07 \x1b[2J\x9b1m done')"), "q1"))
# two child processes holding 900 MB each: right only if they could not hold more than the
# submission's memory (--memory-mb 1536) together
HOG = "b = b'x' * (900 * 2**20)\nprint('held', flush=True)\nimport time\ntime.sleep(60)"
case("memory_across_processes.ipynb")(lambda s, i: add_cell(answered(s, q3=(
    "answer_q3 = 4 if held * 900 < 1536 else 3")), (
    "import subprocess, sys, time\n"
    f"kids = [subprocess.Popen([sys.executable, '-S', '-c', {HOG!r}], stdout=subprocess.PIPE) for _ in range(2)]\n"
    "said = [k.stdout.readline() == b'held\\n' for k in kids]\ntime.sleep(1)\n"
    "held = sum(s and k.poll() is None for s, k in zip(said, kids))\n"
    "for k in kids:\n    k.kill()"), "q3"))
# fills its home with 100 MB files: right only if the home is capped (256 MB) well below
case("disk_fill.ipynb")(lambda s, i: answered(s, q4=(
    "import os\nwritten = 0\ntry:\n    for n in range(6):\n"
    "        with open(os.path.expanduser(f'~/fill{n}'), 'wb') as f:\n"
    "            for _ in range(100):\n                f.write(b'x' * 2**20)\n                written += 2**20\n"
    "except OSError:\n    pass\nanswer_q4 = 'b' if written < 300 * 2**20 else 'a'")))
# stores a key in its session keyring: right only if add_key is denied (EPERM)
ADD_KEY = {"x86_64": 248, "aarch64": 217}.get(os.uname().machine, 248)
case("keyring.ipynb")(lambda s, i: answered(s, q4=(
    "import ctypes\nlibc = ctypes.CDLL(None, use_errno=True)\n"
    f"r = libc.syscall({ADD_KEY}, b'user', b'grader-test', b'secret', 6, ctypes.c_long(-3))\n"
    "answer_q4 = 'b' if r == -1 and ctypes.get_errno() == 1 else 'a'")))
# replies with 6 MB of nested empty lists for q1 (a replaced send_values): q1 only scores
# 0, with a note; the other questions are graded
case("oversize_reply.ipynb", {"q1": 0}, {"q1": "error"})(lambda s, i: add_cell(answered(s), (
    "import lib.grading.checks as c\nfrom IPython.display import display\n_send = c.send_values\n"
    "def send(exprs, ns):\n    if 'answer_q1' in exprs[0]:\n"
    "        return display({c.MIME: [{'value': [[]] * 1_500_000}] * len(exprs)}, raw=True)\n"
    "    return _send(exprs, ns)\nc.send_values = send"), "q1"))
# replaces the function that evaluates tests: the public tests pass (first call of each
# question), on the hidden ones it raises their expressions: nothing of them is shown
case("leak_hidden.ipynb", ZERO, {q: "error" for q in FULL})(lambda s, i: add_cell(answered(s), (
    "import lib.grading.checks as c\n_send, calls = c.send_values, []\n"
    "def send(exprs, ns):\n    calls.append(exprs)\n    if len(calls) <= 4:\n        return _send(exprs, ns)\n"
    "    raise RuntimeError('stolen: ' + repr(calls))\nc.send_values = send"), "q1"))
# metadata of other JSON types: a list as a question id, a string or a list as metadata
case("odd_metadata.ipynb")(lambda s, i: _odd_metadata(answered(s)))
# the right answer as numpy extended precision
case("longdouble.ipynb")(lambda s, i: answered(s, q1=(
    "answer_q1 = np.asarray(prior * lime**3 / np.sum(prior * lime**3), dtype=np.longdouble)")))


def _odd_metadata(nb):
    data = json.loads(nbformat.writes(nb))
    data["metadata"]["grading"] = ["not", "a", "dict"]
    code = [c for c in data["cells"] if c["cell_type"] == "code"]
    code[0]["metadata"] = {"grading": {"question": ["q1", "q2"]}}
    code[1]["metadata"] = "text"
    code[-1]["metadata"] = [1, 2]
    return json.dumps(data).encode()


SANDBOXED_ONLY = set(CASES)  # every case runs in the sandbox here (it is required)


def _write(subs, name, made, student):
    path = subs / name
    if isinstance(made, tuple):
        kind, arg = made
        if kind == "symlink":
            path.symlink_to(arg)
        elif kind == "fifo":
            os.mkfifo(path)
        elif kind == "folder":
            path.mkdir()
            nbformat.write(arg, path / "homework.ipynb")
            (path / ".ipynb_checkpoints").mkdir()
            shutil.copy(student, path / ".ipynb_checkpoints" / "homework-checkpoint.ipynb")
            (path / ".hidden.ipynb").write_bytes(student.read_bytes())
        elif kind == "folder_link":
            path.mkdir()
            (path / "homework.ipynb").symlink_to(arg)
        return
    path.write_bytes(made if isinstance(made, bytes) else nbformat.writes(made).encode())


def _host_sockets():
    """A unix socket on the host's /tmp and an abstract one, accepting forever."""
    servers = []
    for addr in (HOST_SOCKET, f"\0{MARK}"):
        srv = socket.socket(socket.AF_UNIX)
        srv.bind(addr)
        srv.listen(8)
        servers.append(srv)
        threading.Thread(target=lambda s=srv: [c.close() for c, _ in iter(s.accept, None)],
                         daemon=True).start()
    return servers


DRIVER = """
import json, sys
from lib.grading.grade import grade
results = grade(sys.argv[1], sys.argv[2], sys.argv[3], workers=2, cell_timeout=20, timeout=90,
                memory_mb=1536)
json.dump(results, open(sys.argv[4], "w"))
"""


@pytest.fixture(scope="module")
def batch(released, tmp_path_factory):
    """Grade every case in one batch from a private (0700) copy of the course."""
    if shutil.which("bwrap") is None:
        pytest.skip("bubblewrap (bwrap) is not installed: apt-get install bubblewrap")
    student, instructor = released
    work = tmp_path_factory.mktemp("private")
    checkout = private_checkout(work)
    solutions = release_all(checkout / SOURCE.relative_to(ROOT), checkout / "solutions", instructor=True)[0]
    secret_file = work / "root-only.txt"
    secret_file.write_text(SECRET + " do not show\n")
    os.chmod(secret_file, 0o600)
    subs, out = work / "submissions", work / "graded"
    subs.mkdir()
    (subs / ".DS_Store").write_text("ignored")
    roots = [str(checkout), str(ROOT), "/work/main", str(subs), str(out), "/tmp", str(work),
             str(Path(solutions).parent)]
    for name, (make, _, _) in CASES.items():
        made = make(student, solutions)
        if isinstance(made, tuple) and made[1] == "@SECRETFILE@":
            made = (made[0], secret_file)
        if not isinstance(made, (bytes, tuple)):
            made = nbformat.writes(made).replace("@OUT@", str(out)).replace("@ROOTS@", repr(roots))
            made = nbformat.reads(made, as_version=4)
        _write(subs, name, made, student)
    # the files the read_files case looks for exist and would give the answer away
    assert "prior * lime**3 / np.sum(prior * lime**3)" in (checkout / "tests" / "grading" / "grading_helpers.py").read_text()
    assert re.search(r"answer_q1[^\[]{0,80}approx\((\[[^\]]*\])", Path(solutions).read_text())
    servers = _host_sockets()
    try:
        proc = run_in(checkout, DRIVER, checkout / SOURCE.relative_to(ROOT), subs, out, work / "results.json")
    finally:
        for srv in servers:
            srv.close()
        os.unlink(HOST_SOCKET)
    assert proc.returncode == 0, proc.stderr[-3000:]
    results = json.loads((work / "results.json").read_text())
    return {"checkout": checkout, "subs": subs, "out": out, "stderr": proc.stderr,
            "results": {r["path"].split("/")[0]: r for r in results}}


@pytest.mark.parametrize("name", sorted(CASES))
def test_every_submission_gets_the_right_score(batch, name):
    _, scores, statuses = CASES[name]
    result = batch["results"][clean(name)]
    got = {t["name"]: t["score"] for t in result["tests"]}
    assert got == scores, result
    for q, status in statuses.items():
        assert next(t for t in result["tests"] if t["name"] == q)["status"] == status, result
    for t in result["tests"]:
        assert (t["status"] == "passed") == (t["score"] == t["max_score"])
    feedback = (batch["out"] / "submissions" / result["id"] / "feedback.txt").read_text()
    assert f"Total: {sum(scores.values())}/8" in feedback


def test_the_notes_say_why(batch):
    results = batch["results"]
    assert results["linked.ipynb"]["output"] == "linked.ipynb is a symbolic link: not read (submit the notebook file itself)"
    assert "a FIFO" in results["fifo.ipynb"]["output"]
    assert "holds 0 notebooks (1 more not read" in results["folder_link"]["output"]
    assert results["folder"]["path"] == "folder/homework.ipynb"
    assert "not a valid notebook" in results["not_json.ipynb"]["output"]
    assert "exercise 02_estimation" in results["other_exercise.ipynb"]["output"]
    assert "not a notebook" in results["=1+1.txt"]["output"]
    exit_note = results["exit_call.ipynb"]["output"]
    assert exit_note.count("ended the kernel (exit() or quit())") == 1, exit_note
    assert "too large to grade" in results["huge_answer.ipynb"]["tests"][0]["output"]
    assert results["blank.ipynb"]["tests"][1]["output"] == "not answered yet"
    oversize = results["oversize_reply.ipynb"]["tests"][0]["output"]
    assert oversize.startswith("not graded: its reply to the grader was too large (at most 4 MB"), oversize
    for t in results["leak_hidden.ipynb"]["tests"]:  # its name and the authors' hints only
        assert t["output"].startswith(f"{t['name']}: the hidden tests could not be evaluated "
                                      "(an error in the kernel)"), t
        assert "stolen" not in t["output"] and "predictive(" not in t["output"], t


def test_ids_are_unique_stable_and_cannot_collide_with_the_gradebook(batch):
    results = batch["results"]
    ids = [r["id"] for r in results.values()]
    assert len({i.lower() for i in ids}) == len(ids) == len(CASES)
    assert results["correct.ipynb"]["id"] == "correct"
    assert results["grades.csv.ipynb"]["id"] == "grades.csv"
    for name in ("alice smith.ipynb", "alice_smith.ipynb", "Alice_Smith"):  # sanitise alike
        assert results[name]["id"].startswith("alice_smith-") or results[name]["id"].startswith("Alice_Smith-")
    out = batch["out"]
    assert sorted(p.name for p in out.iterdir()) == ["grades.csv", "submissions", "summary.csv"]
    assert sorted(p.name for p in (out / "submissions").iterdir()) == sorted(ids)


def test_gradebook(batch):
    out = batch["out"]
    text = (out / "grades.csv").read_text()
    assert not text.startswith("#")  # graded in the sandbox with cgroups: no warning
    # no control character and no ANSI sequence in any file written: one row per line
    for path in out.rglob("*"):
        if path.is_file():
            written = path.read_bytes().decode().replace("\r\n", "").replace("\n", "")
            assert not [c for c in written if not c.isprintable()], (path, written[:300])
    assert "forged" in text and (out / "grades.csv").read_bytes().count(b"\r\n") == 1 + len(CASES)
    ansi = (out / "submissions" / batch["results"]["ansi.ipynb"]["id"] / "feedback.txt").read_text()
    assert "ValueError: red   done" in ansi, ansi  # the sequences removed, the window title too
    rows = list(csv.reader(text.splitlines()))
    assert rows[0] == ["id", "path", "q1", "q2", "q3", "q4", "total", "note"]
    assert len(rows) == 1 + len(CASES)
    by_path = {row[1].lstrip("'"): row for row in rows[1:]}
    assert by_path["correct.ipynb"][:7] == ["correct", "correct.ipynb", "2", "3", "2", "1", "8"]
    assert by_path["alice_smith.ipynb"][6] == "8" and by_path["alice smith.ipynb"][6] == "0"
    for row in rows:  # nothing a spreadsheet would run as a formula
        for cell in row:
            assert not cell.startswith(("=", "+", "-", "@")), row
    assert by_path["=1+1.txt"][1] == "'=1+1.txt" and by_path["=1+1.txt"][7].startswith("'=1+1.txt")
    assert by_path["@SUM(A1).ipynb"][1] == "'@SUM(A1).ipynb"
    assert not (out / "evil.txt").exists() and not list(out.glob(".*"))
    summary = list(csv.reader((out / "summary.csv").read_text().splitlines()))
    assert summary[0] == ["kind", "name", "max_score", "mean", "count"]
    assert by_path["linked.ipynb"][2:7] == [""] * 5  # not read: blank, never a zero an LMS would import
    totals = [int(row[6]) for row in rows[1:] if row[6]]
    assert ["total", "total", "8", str(round(sum(totals) / len(totals), 4)), str(len(totals))] in summary
    q1 = [int(row[2]) for row in rows[1:] if row[2]]
    assert ["question", "q1", "2", str(round(sum(q1) / len(q1), 4)), str(len(q1))] in summary
    histogram = {row[1]: int(row[4]) for row in summary if row[0] == "histogram"}
    assert histogram == {str(k): totals.count(k) for k in range(9)}
    correct = json.loads((out / "submissions" / "correct" / "results.json").read_text())
    assert set(correct) <= {"score", "output", "tests"} and correct["score"] == 8
    for t in correct["tests"]:
        assert set(t) == {"name", "score", "max_score", "output", "visibility", "status"}
        assert t["status"] == "passed" and t["visibility"] == "visible"


def test_nothing_secret_reaches_any_output(batch):
    exercise = read_source(SOURCE)
    hidden = [t.expected for q in exercise.questions.values() for t in q.hidden if len(t.expected) > 4]
    hidden += [t.answer for q in exercise.questions.values() for t in q.hidden if "(" in t.answer]
    assert "predictive([1, 0, 1, 1])" in hidden
    for path in [*batch["out"].rglob("*"), Path(batch["out"] / "grades.csv")]:
        if path.is_file():
            text = path.read_text()
            assert SECRET not in text and "SECRET-" not in text, path
            for expected in hidden:
                assert expected not in text, (path, expected)
    assert SECRET not in batch["stderr"]


def test_nothing_outlives_its_submission(batch):
    for d in ("/tmp", "/var/tmp", "/dev/shm"):
        assert not os.path.exists(f"{d}/{MARK}")
    leftover = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if b"sleep\x004321" in cmd:
            leftover.append(pid)
    assert not leftover


def test_regrade_one_submission_merges_into_the_gradebook(batch, released):
    subs, out = batch["subs"], batch["out"]
    before = (out / "grades.csv").read_bytes()
    assert "forge\x1erow.ipynb" in os.listdir(subs) and b"forged" in before  # the hostile row is there
    nbformat.write(answered(released[0]), subs / "alice smith.ipynb")  # fixed after a complaint
    sid = batch["results"]["alice smith.ipynb"]["id"]
    proc = run_in(batch["checkout"], "import sys; from lib.grading.__main__ import main; sys.exit(main())",
                  "grade", "--source", batch["checkout"] / "exercises" / NAME, "--submissions", subs,
                  "--out", out, "--only", sid, "--no-progress")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "histogram of totals" in proc.stdout and "mean" in proc.stdout
    after = (out / "grades.csv").read_bytes()
    rows = {row[0]: row for row in csv.reader(after.decode().splitlines())}
    assert rows[sid][2:7] == ["2", "3", "2", "1", "8"]
    assert rows["correct"][2:7] == ["2", "3", "2", "1", "8"]
    # every other row byte for byte as before (csv.writer ends each row with CRLF)
    others = [[line for line in text.split(b"\r\n") if not line.startswith(sid.encode() + b",")]
              for text in (before, after)]
    assert others[0] == others[1] and len(others[0]) == len(CASES) + 1
    with pytest.raises(ValueError, match="--only 'nobody': no such submission"):
        grade(batch["checkout"] / "exercises" / NAME, subs, out, only="nobody")


# --- the resource box and the grader's limits, piece by piece --------------------------

SECCOMP_PROBE = """
import ctypes, json, os, socket, subprocess, sys, threading
from lib.grading.limits import CLONE, CLONE3, DENIED, SOCKET
i = ["x86_64", "aarch64"].index(os.uname().machine)
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
def errno_of(nr, *args):
    ctypes.set_errno(0)
    r = libc.syscall(nr, *(ctypes.c_long(a) for a in args))
    return ctypes.get_errno() if r == -1 else "allowed"
# each denied call with invalid arguments (it would fail harmlessly if allowed: not EPERM)
got = {name: errno_of(nrs[i], -1, -1, -1, -1, -1) for name, nrs in DENIED.items()}
got["unshare(CLONE_NEWUSER)"] = errno_of(DENIED["unshare"][i], 0x10000000)
got["clone(CLONE_NEWUSER | CLONE_FS)"] = errno_of(CLONE[i], 0x10000000 | 0x200 | 17, 0, 0, 0, 0)
got["clone3"] = errno_of(CLONE3[i], -1, 88)
for family in ("AF_INET", "AF_INET6", "AF_NETLINK", "AF_PACKET"):
    got[family] = errno_of(SOCKET[i], getattr(socket, family), 3 if family in ("AF_NETLINK", "AF_PACKET") else 1, 0)
# what the grading needs still works: threads, fork, subprocesses, unix sockets
t = threading.Thread(target=print)
t.start()
t.join()
ok = subprocess.run(["true"]).returncode == 0 and len(socket.socketpair()) == 2
caps = int(next(l for l in open("/proc/self/status") if l.startswith("CapEff")).split()[1], 16)
print(json.dumps({"errnos": got, "ok": ok, "caps": caps}))
"""


@needs_bwrap
@pytest.mark.skipif(os.uname().machine not in ("x86_64", "aarch64"), reason="call numbers known")
def test_the_box_starts_without_capabilities_and_denies_what_docker_denies(tmp_path):
    """A probe in the sandbox: every call of Docker's deny list fails with EPERM (clone3
    with ENOSYS, so libc uses clone), clone with namespace flags and internet, netlink and
    packet sockets too; threads, fork and unix sockets work; run as root, it holds only
    CAP_CHOWN, CAP_SETGID and CAP_SETUID (to drop to its own uid)."""
    import errno

    sandbox = Sandbox(1)
    fd = limits.filter_fd()
    try:
        proc = subprocess.run(sandbox.command([], [], fd) + [sys.executable, "-c", SECCOMP_PROBE],
                              cwd="/", env=sandbox.env(), capture_output=True, text=True,
                              timeout=120, pass_fds=[fd])
    finally:
        os.close(fd)
        sandbox.close()
    assert proc.returncode == 0, proc.stderr[-3000:]
    got = json.loads(proc.stdout.splitlines()[-1])
    expected = {name: errno.EPERM for name in got["errnos"]} | {"clone3": errno.ENOSYS,
                                                                 "AF_NETLINK": errno.EINVAL}
    assert got["errnos"] == expected and got["ok"], got
    assert got["caps"] == ((1 << 0 | 1 << 6 | 1 << 7) if os.geteuid() == 0 else 0), hex(got["caps"])


def test_replies_are_capped_before_they_are_parsed(monkeypatch):
    parsed = []
    monkeypatch.setattr(isolation.json, "loads", lambda line: parsed.append(line) or {"ok": True})
    nested = b'{"question": "q1", "status": "ok", "results": [{"value": [' + b"[], " * 450_000 + b"[]]}]}\n"
    lines = [b'{"question": "q0", "status": "ok"}\n', nested,  # too many items (1.8 MB)
             b'{"question": "q2", "results": "' + b"x" * (5 * 2**20) + b'"}\n',  # too long
             *[b'{"question": "q3", "x": "' + b"y" * (3 * 2**20) + b'"}\n'] * 6]  # 18 MB in all
    events = []
    isolation._read_events(io.BytesIO(b"".join(lines)), events)
    # q0 and five q3 lines parsed (15 MB in all), the rest refused unparsed
    assert [e.get("question") for e in events if e.get("oversize")] == ["q1", "q2", "q3"]
    assert len(parsed) == 1 + 5 and all(len(p) < isolation.MAX_LINE for p in parsed)


def test_the_gradebook_is_plain_csv_its_warnings_beside_it_old_comments_read(tmp_path):
    rows = {"a": ["a", "a.ipynb\x1e#x", 1, 1, "# not a comment\nline\u2028two"],
            "b": ["b", "b.ipynb", 0, 0, "note"]}
    results = [{"id": k, "path": v[1], "score": v[3], "output": v[4],
                "tests": [{"score": v[2]}]} for k, v in rows.items()]
    gradebook.write(tmp_path, {"q1": 1}, results, warning="NOTE: first\nWARNING: second")
    text = (tmp_path / "grades.csv").read_bytes().decode()
    assert text.startswith("id,path,q1,total,note\r\n"), text
    assert (tmp_path / "warnings.txt").read_text() == "NOTE: first\nWARNING: second\n"
    read, comments = gradebook.read_grades(tmp_path / "grades.csv", ["id", "path", "q1", "total", "note"])
    assert comments == []
    assert read == {"a": ["a", "a.ipynb #x", 1, 1, "# not a comment line two"], "b": ["b", "b.ipynb", 0, 0, "note"]}
    gradebook.write(tmp_path, {"q1": 1}, results[1:], merge=True)
    assert (tmp_path / "grades.csv").read_bytes().decode() == text
    assert (tmp_path / "warnings.txt").read_text() == "NOTE: first\nWARNING: second\n"
    # a quoted cell over several lines (as an older grader wrote), one line of it
    # starting with '#' and others split by record separators: still one row
    (tmp_path / "grades.csv").write_bytes(
        ('# NOTE: first\nid,path,q1,total,note\r\na,a.ipynb,1,1,"x\n# y\x1eb,b.ipynb,0,0,forged\u2028"\r\n'
         'b,b.ipynb,0,0,note\r\n').encode())
    read, comments = gradebook.read_grades(tmp_path / "grades.csv", ["id", "path", "q1", "total", "note"])
    assert comments == ["NOTE: first"] and read["b"] == ["b", "b.ipynb", 0, 0, "note"]
    assert read["a"] == ["a", "a.ipynb", 1, 1, "x\n# y\x1eb,b.ipynb,0,0,forged\u2028"]


@pytest.mark.parametrize("version", [1, 2])
def test_cgroups_made_per_submission_with_the_limits(tmp_path, monkeypatch, version):
    if os.geteuid() != 0:
        pytest.skip("cgroups need root")
    for c in ("memory", "pids", "cpu") if version == 1 else ("",):  # a fake hierarchy
        (tmp_path / c / (limits._own_path(c) if c else "")).mkdir(parents=True, exist_ok=True)
        (tmp_path / c / "cgroup.procs").write_text("")
    if version == 2:
        (tmp_path / "cgroup.controllers").write_text("cpu memory pids")
        (tmp_path / "cgroup.subtree_control").write_text("")
    real_mkdir = Path.mkdir

    def mkdir(self, *a, **k):  # as the kernel does: a new cgroup comes with its files
        real_mkdir(self, *a, **k)
        for name in ("cgroup.procs", "memory.limit_in_bytes", "memory.memsw.limit_in_bytes", "pids.max",
                     "cpu.shares", "memory.max", "memory.swap.max", "cpu.weight", "cgroup.subtree_control"):
            (self / name).write_text("")
    monkeypatch.setattr(Path, "mkdir", mkdir)
    box = limits.Cgroups(768 * 2**20, 64, 2, root=tmp_path)
    assert box.missing == "" and box.version == version
    procs = box.create("sub-1")
    folders = [Path(p).parent for p in procs]
    values = {f.relative_to(tmp_path).parts[0] + "/" + name: (f / name).read_text() for f in folders for name in
              ("memory.limit_in_bytes", "pids.max", "cpu.shares", "memory.max", "cpu.weight")}
    if version == 1:
        assert len(folders) == 3 and all(f.name == "sub-1" for f in folders)
        assert values["memory/memory.limit_in_bytes"] == str(768 * 2**20)
        assert values["pids/pids.max"] == "64" and values["cpu/cpu.shares"] == "1024"
        assert (folders[2].parent / "cpu.shares").read_text() == "2048"  # the run: 2 workers' worth
    else:
        grading = folders[0].parent.name
        assert folders[0].parent.parent == tmp_path and grading.startswith("grading-")
        assert values[f"{grading}/memory.max"] == str(768 * 2**20)
        assert values[f"{grading}/pids.max"] == "64" and values[f"{grading}/cpu.weight"] == "100"
        assert (tmp_path / grading / "cgroup.subtree_control").read_text() == "+memory +pids +cpu"
        assert (tmp_path / grading / "cpu.weight").read_text() == "200"
    cmd = limits.join_command(procs, ["true"])
    assert cmd[:2] == ["/bin/sh", "-c"] and all(p in cmd[2] for p in procs)


def test_without_root_there_are_no_cgroups_and_the_run_says_so(monkeypatch):
    monkeypatch.setattr(limits.os, "geteuid", lambda: 1000)
    assert limits.Cgroups(2**30, 64).missing == "not root (cgroups need root)"


VICTIM_WORK = "work = sum(i * i for i in range(6_000_000))  # about 0.5 s of one core"
VICTIM_CELL_S, HOGS_S = 10, 20  # the victim's cell limit; how long the hogs run (longer)
# Busy processes, each in its own session, until the submission's process limit stops the
# loop: two stay until the grader removes them, the others end by themselves after HOGS_S.
# (the no-op `:` carries this run's MARK, so the check finds this test's hogs, not another run's)
HOG_LOOP = f"while :; do : {MARK}; done"
CPU_HOG = ("import subprocess\nhogs = [subprocess.Popen(['timeout', '150' if i < 2 else '%d', 'sh', '-c',"
           " %r], start_new_session=True) for i in range(120)]" % (HOGS_S, HOG_LOOP))


@pytest.mark.slow
@needs_bwrap
def test_a_cpu_hog_with_many_sessions_cannot_starve_its_neighbour(released, tmp_path):
    """About 120 busy processes, each in its own session, next to an honest submission
    whose q2 cell needs about 0.5 s of CPU: with one equal CPU share per submission it
    finishes well inside its 10 s cell limit (without, it gets about 1/120 of the
    machine while the hogs run, 20 s, times out and loses q2: checked by hand with the
    cpu controller left out (``limits.V1`` without "cpu"), 2026-11-29, the victim scored
    5 of 8; the same with 2 s, 30 s and 45 s on 2026-11-27, which burnt twice the CPU).
    The two hogs that outlive the hog's notebook are removed by the grader."""
    if os.geteuid() != 0:
        pytest.skip("CPU shares need cgroups, which need root (see instructors.md)")
    subs = tmp_path / "subs"
    subs.mkdir()
    nbformat.write(add_cell(answered(released[0]), CPU_HOG, "q1"), subs / "hog.ipynb")
    victim = answered(released[0], q2=VICTIM_WORK + "\n" + ANSWERS["q2"])  # a timeout costs q2
    nbformat.write(victim, subs / "victim.ipynb")
    results = grade(SOURCE, subs, tmp_path / "out", workers=2, cell_timeout=VICTIM_CELL_S, timeout=200)
    victim = next(r for r in results if r["id"] == "victim")
    assert victim["score"] == 8 and victim["output"] == "", victim
    assert not _processes(HOG_LOOP.encode())


# --- refusal and the unsafe mode -----------------------------------------------------------

def test_no_bubblewrap_refuses_and_names_the_fix(monkeypatch):
    monkeypatch.setattr(isolation.shutil, "which", lambda name: None)
    with pytest.raises(SandboxUnavailable, match="bubblewrap .* not installed.*apt-get install bubblewrap.*--unsafe-no-sandbox"):
        Sandbox(2)


def test_a_sandbox_that_cannot_start_refuses(monkeypatch, tmp_path):
    monkeypatch.setattr(isolation.shutil, "which", lambda name: "/bin/false")
    with pytest.raises(SandboxUnavailable, match="bwrap failed to start Python as root.*Fix:"):
        Sandbox(2)
    subs = tmp_path / "subs"
    subs.mkdir()
    with pytest.raises(SandboxUnavailable):
        grade(SOURCE, subs, tmp_path / "out")
    assert not (tmp_path / "out" / "grades.csv").exists()


@needs_bwrap
def test_a_solution_without_full_marks_refuses_to_grade(released, tmp_path):
    broken = tmp_path / NAME
    broken.mkdir()
    text = (SOURCE / f"{NAME}.md").read_text()
    assert "answer_q3 = 4  # SOLUTION" in text
    (broken / f"{NAME}.md").write_text(text.replace("answer_q3 = 4  # SOLUTION", "answer_q3 = 5  # SOLUTION"))
    subs = tmp_path / "subs"
    subs.mkdir()
    nbformat.write(answered(released[0]), subs / "honest.ipynb")
    with pytest.raises(GradingRefused, match=r"instructor solution of 01_bayesian_learning scores 6/8.*q3: failed"):
        grade(broken, subs, tmp_path / "out", workers=1)
    assert not (tmp_path / "out" / "grades.csv").exists()


def test_unsafe_mode_says_so_and_still_grades_with_limits(released, tmp_path, monkeypatch, capfd):
    monkeypatch.setattr(isolation.shutil, "which", lambda name: None)
    subs = tmp_path / "subs"
    subs.mkdir()
    nbformat.write(answered(released[0]), subs / "honest.ipynb")
    # a cell that never ends (waiting, not burning a core for the 20 s)
    nbformat.write(add_cell(answered(released[0]), "import time\nwhile True:\n    time.sleep(0.1)", "q1"),
                   subs / "slow.ipynb")
    results = grade(SOURCE, subs, tmp_path / "out", workers=2, cell_timeout=60, timeout=20,
                    unsafe_no_sandbox=True)
    assert "WARNING: graded WITHOUT a sandbox" in capfd.readouterr().err
    assert (tmp_path / "out" / "warnings.txt").read_text().startswith(
        "WARNING: graded WITHOUT a sandbox (--unsafe-no-sandbox: bubblewrap")
    assert (tmp_path / "out" / "grades.csv").read_text().startswith("id,path,")
    by_id = {r["id"]: r for r in results}
    assert by_id["honest"]["score"] == 8, by_id["honest"]
    assert by_id["slow"]["score"] == 0 and "stopped after 20 s" in by_id["slow"]["output"]
    assert {t["status"] for t in by_id["slow"]["tests"]} == {"timeout"}


def _processes(marker):
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if marker in Path(f"/proc/{pid}/cmdline").read_bytes():
                found.append(pid)
        except OSError:
            pass
    return found


@needs_bwrap
def test_the_total_time_limit_ends_everything_in_the_sandbox(tmp_path):
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        "import subprocess, time\nsubprocess.Popen(['sleep', '4322'])\ntime.sleep(100)")])
    job = {"cell_timeout": 100, "memory_mb": 1024, "passes": [{"q1": ["1"]}, {"q1": []}]}
    start = time.monotonic()
    events, note = Sandbox(1).run(job, nbformat.writes(nb).encode(), "slow.ipynb", [], timeout=4)
    assert note == "stopped after 4 s (the time limit of a submission)"
    # (a limit that did not act: the cell's own 100 s sleep)
    assert time.monotonic() - start < 100 and not any(e.get("done") for e in events)
    deadline = time.monotonic() + 60  # the sandbox's processes end (the deadline only bounds a hang)
    while _processes(b"sleep\x004322"):
        assert time.monotonic() < deadline, "a process of the sandbox outlived its time limit"
        time.sleep(0.2)


# --- as a normal user: one user namespace per submission ---------------------------------

USERNS_Q4 = (  # right only if the kernel runs as uid 65534 in a user namespace of its own
    "import os\nmaps = open('/proc/self/uid_map').read().split()\n"
    "answer_q4 = 'b' if os.getuid() == 65534 and maps[::2] == ['65534', '1'] else 'a'")  # not '0 0 4294967295'
STEAL_Q1 = (  # the instructor source lies in the course copy the grader (nobody) reads
    # its exact path first, then every text file under the course, /var/tmp (where the
    # grading venv lies: 750 MB, which read whole ran past the 30 s cell limit in CI) and /tmp
    "import glob\nanswer_q1 = [0.2] * 5\n"
    "paths = [@COURSE@ + '/exercises/@NAME@/@NAME@.md'] + [p for root in (@COURSE@, '/var/tmp', '/tmp')\n"
    "         for p in glob.glob(root + '/**', recursive=True) if p.endswith(('.md', '.ipynb', '.py', '.txt', '.json'))]\n"
    "for p in paths:\n"
    "    try:\n        text = open(p, errors='ignore').read(5_000_000)\n    except OSError:\n        continue\n"
    "    if 'answer_q1 = prior * lime**3 / np.sum(prior * lime**3)' in text:\n"
    "        answer_q1 = prior * lime**3 / np.sum(prior * lime**3)\n        break")
NO_USERNS = ("echo 0 > /proc/sys/user/max_user_namespaces && "
             'exec setpriv --inh-caps=-all --ambient-caps=-all --bounding-set=-all "$@"')


@pytest.fixture(scope="module")
def as_nobody(released):
    """Run the grader's command line as uid 65534 from a world-readable copy of the course.

    Yields ``grade(subs, *options, no_userns=False)`` -> (process, out folder); with
    ``no_userns`` the user is denied user namespaces (max_user_namespaces = 0 in a user
    namespace of its own, whose capabilities it then drops).
    """
    if os.geteuid() != 0 or not shutil.which("setpriv") or not shutil.which("unshare"):
        pytest.skip("needs root (CI runs as root) to switch to an unprivileged user")
    if shutil.which("bwrap") is None:
        pytest.skip("bubblewrap (bwrap) is not installed: apt-get install bubblewrap")
    python = world_readable_python()
    base = Path(tempfile.mkdtemp(prefix="grading-nobody-", dir="/tmp"))
    try:
        os.chmod(base, 0o755)
        course = base / "course"
        for name in ("lib", "exercises"):
            shutil.copytree(ROOT / name, course / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        shutil.copytree(SOURCE, course / "exercises" / NAME, dirs_exist_ok=True)
        subprocess.run(["chmod", "-R", "go+rX", str(course)], check=True)
        home = base / "home"
        home.mkdir(mode=0o700)
        os.chown(home, 65534, 65534)
        runs = []

        def grade_as_nobody(subs, *options, no_userns=False):
            out = home / f"graded-{len(runs)}"
            runs.append(out)
            subprocess.run(["chmod", "-R", "go+rX", str(subs)], check=True)
            wrap = ["unshare", "--user", "--map-current-user", "--keep-caps", "sh", "-c", NO_USERNS, "sh"] * no_userns
            cmd = NOBODY + wrap + [str(python), "-m", "lib.grading", "grade", "--source",
                                   str(course / "exercises" / NAME), "--submissions", str(subs),
                                   "--out", str(out), "--workers", "2", "--cell-timeout", "30",
                                   "--timeout", "120", "--no-progress", *options]
            env = {"PATH": "/usr/bin:/bin", "HOME": str(home), "TMPDIR": str(home), "LANG": "C.UTF-8",
                   "PYTHONPATH": str(course)}
            return subprocess.run(cmd, cwd=course, env=env, capture_output=True, text=True, timeout=600), out

        grade_as_nobody.course = course
        grade_as_nobody.base = base
        yield grade_as_nobody
    finally:
        shutil.rmtree(base, ignore_errors=True)


def _submissions(folder, notebooks):
    folder.mkdir(mode=0o755)
    for name, nb in notebooks.items():
        nbformat.write(nb, folder / name)
    return folder


def test_a_normal_user_grades_in_one_user_namespace_per_submission(as_nobody, released):
    student = released[0]
    blank = nbformat.read(student, as_version=4)
    steal = nbformat.read(student, as_version=4)  # blank but for q1, which steals
    [*_, cell] = [c for c in steal.cells if c.cell_type == "code" and not c.source.startswith("check(")
                  and c.metadata.get("grading", {}).get("question") == "q1"]
    cell.source = STEAL_Q1.replace("@COURSE@", repr(str(as_nobody.course))).replace("@NAME@", NAME)
    source = as_nobody.course / "exercises" / NAME / f"{NAME}.md"
    assert "answer_q1 = prior * lime**3 / np.sum(prior * lime**3)" in source.read_text()
    assert subprocess.run(NOBODY + ["/usr/bin/test", "-r", str(source)]).returncode == 0  # there to steal
    subs = _submissions(as_nobody.base / "subs", {
        "honest.ipynb": answered(student), "blank.ipynb": blank, "steal.ipynb": steal,
        "userns.ipynb": answered(student, q4=USERNS_Q4)})
    proc, out = as_nobody(subs)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "WARNING" not in proc.stderr, proc.stderr[-3000:]
    text = (out / "grades.csv").read_text()
    # isolated, but a normal user has no cgroups: said once on stderr and in warnings.txt
    assert (out / "warnings.txt").read_text().startswith(
        "NOTE: no cgroup per submission: not root (cgroups need root)"), text
    assert not text.startswith("#"), text  # the gradebook holds data only
    assert proc.stderr.count("NOTE: no cgroup per submission") == 1, proc.stderr[-3000:]
    rows = {row[0]: row for row in csv.reader(text.splitlines())}
    assert rows["id"] == ["id", "path", "q1", "q2", "q3", "q4", "total", "note"]
    assert rows["honest"][2:7] == ["2", "3", "2", "1", "8"], rows["honest"]
    assert rows["userns"][2:7] == ["2", "3", "2", "1", "8"], rows["userns"]
    assert rows["blank"][2:7] == ["0"] * 5, rows["blank"]
    assert rows["steal"][2:7] == ["0"] * 5, rows["steal"]
    steal_q1 = json.loads((out / "submissions" / "steal" / "results.json").read_text())["tests"][0]
    assert steal_q1["output"].startswith("failed: public tests: all passed"), steal_q1  # ran, found nothing
    assert os.stat(out / "grades.csv").st_uid == 65534


def test_a_normal_user_without_user_namespaces_is_refused_unless_unsafe(as_nobody, released):
    subs = _submissions(as_nobody.base / "subs-unsafe", {"honest.ipynb": answered(released[0])})
    proc, out = as_nobody(subs, no_userns=True)
    assert proc.returncode == 2, proc.stderr[-3000:]
    assert re.search(r"error: cannot isolate the submissions: bwrap failed to start Python as uid 65534 "
                     r"\(needs user namespaces\).*Fix:.*--unsafe-no-sandbox", proc.stderr), proc.stderr
    assert not (out / "grades.csv").exists()
    proc, out = as_nobody(subs, "--unsafe-no-sandbox", no_userns=True)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "WARNING: graded WITHOUT a sandbox (--unsafe-no-sandbox: bwrap failed" in proc.stderr
    text = (out / "grades.csv").read_text()
    assert (out / "warnings.txt").read_text().startswith("WARNING: graded WITHOUT a sandbox"), text
    assert ["honest", "honest.ipynb", "2", "3", "2", "1", "8"] in [r[:7] for r in csv.reader(text.splitlines())]


# --- issue 38: hidden inputs stay hidden, messages are capped, the grader's reads are boxed ---
def test_check_and_the_grader_describe_values_alike_in_fixed_words():
    """One description (checks.describe) for check and the grader: NaN, infinities, None, a
    string, an option; a student's type or exception name is never part of a hidden test's."""
    from lib.grading.checks import Checker, describe, what_was_checked
    from lib.grading.grade import score_question
    from lib.grading.source import Question
    from lib.grading.source import Test as SourceTest

    cases = {"float('nan')": "NaN (a number)", "float('inf')": "infinity (a number)",
             "-float('inf')": "minus infinity (a number)", "None": "None", "'z'": "a string",
             "' B'": "an option", "type('Mine', (), {})()": "an object"}
    question = Question("q1", 1, public=[SourceTest("x", "0.5", None)],
                        hidden=[SourceTest("x", "0.5", None)], choices=["a", "b"])
    for source, words in cases.items():
        value = eval(source)  # noqa: S307 - the test's own expressions
        assert describe(as_data_of(value), ["a", "b"]) == words
        seen = io.StringIO()
        checker = Checker({"exercise": NAME, "questions": {"q1": {
            "points": 1, "tests": [["x", "0.5", None]], "choices": ["a", "b"]}}})
        with redirect_stdout(seen):
            exec("check('q1')", {"check": checker, "x": value})  # noqa: S102
        assert f"gave {words}" in seen.getvalue(), seen.getvalue()
        replies = [{"question": "q1", "pass": p, "status": "ok", "results": [{"value": as_data_of(value)}]}
                   for p in (0, 1)]
        out = score_question(question, [0.5, 0.5], replies, "")["output"]
        assert f"gave {words}" in out and f"hidden test 1 expected a number (tolerance: relative " \
            f"0.0005), got {words}" in out, out
    # names the student's code chose: a type, an exception class, a forged reply
    for result in ({"value": {"$type": "object", "type": "HIDDEN_INPUT_1_1_1"}},
                   {"error": "LEAK_0p001: boom"}, {"value": ["HIDDEN_INPUT"]}):
        text = what_was_checked(result, 0.5)
        assert "HIDDEN" not in text and "LEAK" not in text, text
    assert what_was_checked({"error": "ZeroDivisionError: x"}, 0.5).endswith("got an error (ZeroDivisionError)")


def as_data_of(value):
    from lib.grading.checks import as_data

    return as_data(value)


HIDDEN_EXPRS = [t.answer for q in read_source(SOURCE).questions.values() for t in q.hidden]
PUBLIC_INPUT = "if len(data) > 1:\n        {}"
LEAK_PROBES = {  # right on the public inputs of q2, a leak of each hidden input otherwise
    "type_name": PUBLIC_INPUT.format("return type('HIDDEN_INPUT_' + '_'.join(map(str, data)), (), {})()"),
    "exception_name": PUBLIC_INPUT.format(
        "raise type('LEAK_' + '_'.join(map(str, data)), (Exception,), {})('HIDDEN_INPUT')"),
}
PATCHED_REPLY = (  # the hidden pass answered by the hex of each expression, as an object's type
    "import lib.grading.checks as c\nfrom IPython.display import display\n_send, calls = c.send_values, []\n"
    "def send(exprs, ns):\n    calls.append(exprs)\n    if len(calls) <= 4:\n        return _send(exprs, ns)\n"
    "    display({c.MIME: [{'value': {'$type': 'object', 'type': e.encode().hex()}} for e in exprs]}, raw=True)\n"
    "c.send_values = send")


@needs_bwrap
def test_hidden_inputs_never_come_back_through_names_the_student_chose(released, tmp_path):
    subs = tmp_path / "subs"
    subs.mkdir()
    for name, pre in LEAK_PROBES.items():
        nbformat.write(answered(released[0], q2=PREDICTIVE.format(pre=pre)), subs / f"{name}.ipynb")
    nbformat.write(add_cell(answered(released[0]), PATCHED_REPLY, "q1"), subs / "patched_reply.ipynb")
    results = {r["id"]: r for r in grade(SOURCE, subs, tmp_path / "out", workers=2, cell_timeout=20,
                                          timeout=90, memory_mb=1536)}
    for name in LEAK_PROBES:
        assert {t["name"]: t["score"] for t in results[name]["tests"]} == {**FULL, "q2": 0}, results[name]
    assert results["patched_reply"]["score"] == 0, results["patched_reply"]
    public = " ".join(t.answer for q in read_source(SOURCE).questions.values() for t in q.public)
    secret = ["HIDDEN_INPUT", "LEAK_", *(e.encode().hex() for e in HIDDEN_EXPRS),
              *(e for e in HIDDEN_EXPRS if not e.isidentifier() and e not in public)]
    files = [p for p in (tmp_path / "out").rglob("*") if p.is_file()]
    assert len(files) >= 8  # grades, summary, and results.json and feedback.txt of each probe
    for path in files:
        text = path.read_text()
        assert not [s for s in secret if s in text], (path, text[:3000])


def test_each_test_message_is_capped_like_a_cell_message():
    """Two public tests answered by 3.9 MB errors (a forged reply): a few KB of feedback,
    each message ending with "... (cut)"; the same for the kernel's error of a question."""
    from lib.grading.grade import feedback, gradescope, score_question
    from lib.grading.source import Question
    from lib.grading.source import Test as SourceTest

    question = Question("q1", 2, public=[SourceTest("x", "0.5", None), SourceTest("y", "0.5", None)])
    big = "ValueError: " + "x" * 3_900_000
    for reply in ({"status": "ok", "results": [{"error": big}, {"error": big}]},
                  {"status": "error", "message": big}, {"status": "ok", "results": [{"unanswered": big}] * 2}):
        tests = [score_question(question, [0.5, 0.5], [{"question": "q1", "pass": 0, **reply}], "")]
        result = {"id": "big", "path": "big.ipynb", "score": 0, "output": "", "tests": tests}
        exercise = read_source(SOURCE)
        for text in (json.dumps(gradescope(result)), feedback(result, exercise)):
            assert len(text) < 6000, len(text)
        assert "... (cut)" in tests[0]["output"] or tests[0]["output"] == "not answered yet", \
            tests[0]["output"][:300]


BIG_DRIVER = """
import json, sys
from lib.grading.grade import grade
results = grade(sys.argv[1], sys.argv[2], sys.argv[3], workers=2, cell_timeout=60, timeout=300,
                memory_mb=1536)
# VmHWM: this process's own peak (ru_maxrss would carry over the pytest worker's peak
# through fork and exec, which Linux keeps in the rusage of the exec'd program)
hwm = next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM:"))
print(json.dumps({"rss_mb": hwm / 1024,
                  "scores": {r["id"]: r["score"] for r in results},
                  "notes": {r["id"]: r["output"] for r in results}}))
"""


@needs_bwrap
def test_four_100_mb_notebooks_cost_the_grader_little_and_honest_ones_are_graded(released, tmp_path):
    """Two notebooks of 2 million empty raw cells (refused: too many cells, counted before
    parsing) and two with a 95 MB output (parsed in the box, outputs dropped, graded),
    next to two honest ones, on 2 workers: the grader's own peak memory stays under 500 MB."""
    subs = tmp_path / "subs"
    subs.mkdir()
    raw = json.loads(nbformat.writes(answered(released[0])))
    raw["cells"] += [{"cell_type": "raw", "metadata": {}, "source": ""}] * 2_000_000
    for n in (1, 2):
        (subs / f"raw_cells_{n}.ipynb").write_text(json.dumps(raw))
        nb = answered(released[0])
        nb.cells[-1].outputs = [nbformat.v4.new_output("stream", name="stdout", text="y" * 95_000_000)]
        nbformat.write(nb, subs / f"big_output_{n}.ipynb")
        nbformat.write(answered(released[0]), subs / f"honest_{n}.ipynb")
    assert all(p.stat().st_size > 90 * 2**20 for p in subs.glob("[rb]*.ipynb"))
    proc = run_in(ROOT, BIG_DRIVER, SOURCE, subs, tmp_path / "out")
    assert proc.returncode == 0, proc.stderr[-3000:]
    got = json.loads(proc.stdout.splitlines()[-1])
    assert got["scores"] == {"big_output_1": 8, "big_output_2": 8, "honest_1": 8, "honest_2": 8,
                             "raw_cells_1": 0, "raw_cells_2": 0}, got
    assert "cells, more than 5000: not read" in got["notes"]["raw_cells_1"], got["notes"]
    assert got["rss_mb"] < 500, got["rss_mb"]


SLEEPER = "import time\ntime.sleep(20)"


@needs_bwrap
def test_killed_mid_run_the_graded_stay_and_a_rerun_resumes(released, tmp_path, monkeypatch):
    subs, out = tmp_path / "subs", tmp_path / "out"
    subs.mkdir()
    for name in ("a_honest", "b_wrong"):
        nbformat.write(answered(released[0], q3="answer_q3 = 3" if "wrong" in name else ANSWERS["q3"]),
                       subs / f"{name}.ipynb")
    nbformat.write(add_cell(answered(released[0]), SLEEPER, "q1"), subs / "z_slow.ipynb")
    driver = ("import sys\nfrom lib.grading.grade import grade\n"
              "grade(sys.argv[1], sys.argv[2], sys.argv[3], workers=1, cell_timeout=60, timeout=120)")
    proc = subprocess.Popen([sys.executable, "-c", driver, SOURCE, subs, out], cwd=ROOT,
                            env=dict(os.environ, PYTHONPATH=str(ROOT)), stderr=subprocess.PIPE)
    finished = [out / "submissions" / n / "feedback.txt" for n in ("a_honest", "b_wrong")]
    deadline = time.monotonic() + 600  # bounds a hang only
    while not all(p.exists() for p in finished) and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.2)
    proc.kill()  # while z_slow sleeps in its sandbox
    proc.wait()
    for run_folder in Path("/sys/fs/cgroup").glob(f"**/grading-{proc.pid}-*"):  # left by the kill
        limits.Cgroups.remove([str(p) for p in run_folder.glob("*/cgroup.procs")] + [str(run_folder / "cgroup.procs")])
    assert "Total: 8/8" in finished[0].read_text() and "Total: 6/8" in finished[1].read_text()
    assert not (out / "submissions" / "z_slow").exists() and not (out / "grades.csv").exists()
    saved = [p.read_bytes() for p in finished]
    runs = []
    run = Sandbox.run
    monkeypatch.setattr(Sandbox, "run", lambda self, job, nb, *a: runs.append(nb) or run(self, job, nb, *a))
    results = grade(SOURCE, subs, out, workers=1, cell_timeout=60, timeout=120)
    assert {r["id"]: r["score"] for r in results} == {"a_honest": 8, "b_wrong": 6, "z_slow": 8}
    submitted = {p.read_bytes(): p.stem for p in subs.iterdir()}
    assert [submitted[nb] for nb in runs if nb in submitted] == ["z_slow"]  # not the two graded
    assert [p.read_bytes() for p in finished] == saved
    assert "b_wrong" in (out / "grades.csv").read_text()


@needs_bwrap
@pytest.mark.parametrize("memory_mb", [512, 768, 1024])
def test_memory_fails_fast_and_set_01_grades_in_512_to_1024_mb(tmp_path, memory_mb):
    """Set 01 (scipy in q11) grades its own solution to full marks (else grade refuses); a
    cell allocating 1 GB ends with "memory limit exceeded" (not the cell's time limit)."""
    source = ROOT / "exercises" / NAME
    [solved] = release_all(source, tmp_path / "rel", instructor=True)
    (tmp_path / "subs").mkdir()
    nbformat.write(add_cell(nbformat.read(solved, as_version=4), "hog = bytearray(2**30)", "q2"),
                   tmp_path / "subs" / "hog.ipynb")
    [result] = grade(source, tmp_path / "subs", tmp_path / "out", workers=1, cell_timeout=60,
                     timeout=300, memory_mb=memory_mb)
    total = sum(q.points for q in read_source(source).questions.values())
    assert result["score"] == total, result
    assert re.search(r"cell \d+(: error, | failed \()MemoryError: memory limit exceeded \(the submission may use "
                     rf"{memory_mb} MB\)", result["output"]), result["output"]


CONTAINER = """
import os, sys
from lib.grading.limits import DENIED, install_filter, seccomp_filter
install_filter(seccomp_filter(denied={k: DENIED[k] for k in sys.argv[1].split(",")}, families={}))
os.execvp(sys.argv[2], sys.argv[2:])
"""
#: what Docker's default profile denies that bubblewrap needs (its clone flags are denied too)
DOCKER_DENIES = "unshare,setns,mount,umount2,pivot_root,add_key,request_key,keyctl"
READ_HIDDEN = (  # right only if nothing of the exercise folder (solutions, hidden tests) can be read
    "import glob\nread = []\n"
    "for p in glob.glob('@AG@/source/**', recursive=True) + ['@AG@/source/course/exercise/"
    f"{NAME}/{NAME}.md']:\n"
    "    try:\n        read.append(open(p, errors='ignore').read(10**6))\n    except OSError:\n        pass\n"
    "answer_q4 = 'a' if any('answer_q3 = 4  # SOLUTION' in r or 'predictive([1, 1, 1])' in r for r in read) else 'b'")


@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("capsh"), reason="needs root and capsh")
@needs_bwrap
def test_gradescope_package_holds_where_bubblewrap_cannot_start(released, tmp_path):
    """Docker's default profile emulated (CAP_SYS_ADMIN dropped, a seccomp filter denying new
    namespaces and mounts): bwrap cannot start, the package grades set 01 right as an
    unprivileged uid per submission, and a probe cannot read the hidden tests."""
    from lib.grading.autograder import build

    python = world_readable_python()
    base = Path(tempfile.mkdtemp(prefix="grading-docker-", dir="/tmp"))
    try:
        os.chmod(base, 0o755)
        package = build(SOURCE, tmp_path / "autograder.zip")
        scores = {}
        for kind, nb in {"honest": answered(released[0]),
                         "probe": answered(released[0], q4=READ_HIDDEN.replace("@AG@", str(base / "probe")))}.items():
            root = base / kind
            with zipfile.ZipFile(package) as z:
                z.extractall(root / "source")
            (root / "submission").mkdir(parents=True)
            nbformat.write(nb, root / "submission" / "work.ipynb")
            subprocess.run(["chmod", "-R", "go+rX", str(root)], check=True)
            env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "AUTOGRADER_ROOT": str(root),
                   "AUTOGRADER_PYTHON": str(python), "PYTHONPATH": str(ROOT)}
            proc = subprocess.run([shutil.which("capsh"), "--drop=cap_sys_admin", "--", "-c", 'exec "$@"', "sh",
                                   str(python), "-c", CONTAINER, DOCKER_DENIES,
                                   "bash", str(root / "source" / "run_autograder")],
                                  env=env, capture_output=True, text=True, timeout=600)
            assert proc.returncode == 0, proc.stderr[-3000:]
            assert "bubblewrap cannot start here" in proc.stderr, proc.stderr[-3000:]  # the emulation held
            results = json.loads((root / "results" / "results.json").read_text())
            scores[kind] = {t["name"]: t["score"] for t in results["tests"]}
            assert not os.stat(root / "source" / "course" / "exercise" / NAME).st_mode & 0o077
        assert scores == {"honest": FULL, "probe": FULL}, scores
    finally:
        shutil.rmtree(base, ignore_errors=True)
