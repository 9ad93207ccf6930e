"""The child that runs one submission; started by :mod:`lib.grading.isolation`.

Run as ``python -m lib.grading.sandbox`` inside the sandbox (bubblewrap: a fresh root
holding only the interpreter, ``lib`` and the submission's private folder), with the
submitted notebook in its working folder. It reads a JSON job from stdin::

    {"notebook": "alice.ipynb", "exercise": "01_x", "shown": "alice/hw.ipynb", "passes": [{"q1": ["answer_q1", ...]}, {"q1": [...]}],
     "cell_timeout": 60, "memory_mb": 2048, "nproc": 256, "user": [uid, gid] or null}

sets resource limits, drops to ``user`` (when started as root), parses the notebook
(:func:`lib.grading.grade.parse_notebook`; one that is not a notebook of ``exercise``
is reported as ``{"unread": reason}`` with its ``shown`` name), runs every code cell
on a fresh kernel (nbclient), then evaluates each question's test expressions in the
kernel (:func:`lib.grading.checks.send_values`), one pass after the other (the public
tests of every question, then the hidden ones: no public test's output can carry what
a hidden test's expression showed the kernel). It reports JSON lines on the stdout
it inherited (a pipe to the grader, never a named file): ``{"cell": 3, "question":
"q2", "status": "timeout", "message": ...}`` once for a cell that failed,
``{"question": "q1", "status": "ok", "results": [...], "pass": 0}`` per question and pass, and
``{"done": true}`` at the end. The values are data; the expected values are never here.
"""
import ctypes
import json
import os
import resource
import signal
import sys

# jsonschema (under nbformat) optionally imports rfc3987_syntax, which takes seconds to
# build a parser at import; notebooks need no IRI validation, so skip it.
sys.modules.setdefault("rfc3987_syntax", None)

import nbformat  # noqa: E402
from jupyter_core.utils import run_sync  # noqa: E402
from nbclient.exceptions import CellTimeoutError, DeadKernelError  # noqa: E402

from lib.notebooks.polls import SlicedNotebookClient  # noqa: E402  (a missed wake-up costs 1 s, not a cell's limit)

from .checks import MIME  # noqa: E402

MAX_RESTARTS = 6
PR_SET_DUMPABLE = 4


class GiveUp(Exception):
    """The kernel had to be restarted too often: stop grading this submission."""


class Kernel:
    """A kernel that outlives its cells' failures.

    A cell that times out or ends the kernel (``os._exit``, ``exit()``, a crash) is
    reported once; the kernel is restarted and the cells that ran fine before are
    replayed on it (never the cell that ended it), so later cells see the same
    variables. A replayed cell that fails this time is dropped from the replay.
    """

    def __init__(self, timeout, memory_mb):
        self.timeout, self.done, self.restarts, self.client = timeout, [], 0, None
        self.memory_note = f"memory limit exceeded (the submission may use {memory_mb} MB)"
        self.reply = None
        self._start()

    def _start(self):
        self.client = SlicedNotebookClient(nbformat.v4.new_notebook(), timeout=self.timeout,
                                           kernel_name="python3", allow_errors=True,
                                           resources={"metadata": {"path": os.getcwd()}},
                                           extra_arguments=["--HistoryManager.hist_file=:memory:"])
        self.client.on_cell_executed = self._executed
        self.client.km = self.client.create_kernel_manager()
        # Unix sockets, not TCP: the network namespace has only its own loopback.
        self.client.km.transport = "ipc"
        self.client.km.ip = os.path.join(os.environ.get("JUPYTER_RUNTIME_DIR", "."), "kernel")
        self.client.start_new_kernel()
        self.process = self.client.km.provisioner.process  # its exit status tells an OOM kill
        self.client.start_new_kernel_client()

    def _executed(self, cell, cell_index, execute_reply):
        self.reply = execute_reply

    def stop(self):
        """Kill the kernel (no graceful shutdown: its state is of no further use)."""
        try:
            run_sync(self.client.km.shutdown_kernel)(now=True)
            self.client.kc.stop_channels()
        except Exception:  # noqa: BLE001 - a dead kernel may fail to shut down cleanly
            pass

    def _execute(self, source):
        """Run one cell: ``(status, outputs or message)``; status ok/error/timeout/dead/exit."""
        cell = nbformat.v4.new_code_cell(source)
        self.client.nb.cells, self.reply = [cell], None
        try:
            self.client.execute_cell(cell, 0)
        except CellTimeoutError:
            return "timeout", f"ran longer than {self.timeout:g} s"
        except DeadKernelError:
            try:
                killed = self.process.wait(timeout=5) == -signal.SIGKILL  # the OOM killer's signal
            except Exception:  # noqa: BLE001 - no status to read: say what it may have been
                killed = False
            return "dead", (f"the kernel was killed: {self.memory_note}" if killed else
                            "the kernel died (os._exit, a crash or the memory limit)")
        payload = ((self.reply or {}).get("content") or {}).get("payload") or []
        if any(p.get("source") == "ask_exit" and not p.get("keepkernel") for p in payload):
            return "exit", "the cell ended the kernel (exit() or quit()); it is not run again"
        outputs, cell.outputs = cell.outputs, []
        for out in outputs:
            if out.get("output_type") == "error":
                if out.get("ename") in ("MemoryError", "_ArrayMemoryError"):  # the data limit
                    return "error", f"MemoryError: {self.memory_note}"
                return "error", f"{out.get('ename')}: {out.get('evalue')}"[:300]
        return "ok", outputs

    def _restart(self):
        """A fresh kernel with the good cells replayed; a cell failing on replay is dropped."""
        while True:
            self.restarts += 1
            if self.restarts > MAX_RESTARTS:
                raise GiveUp(f"gave up after {MAX_RESTARTS} kernel restarts")
            self.stop()
            self._start()
            for source in list(self.done):
                status, _ = self._execute(source)
                if status != "ok":
                    self.done.remove(source)
                    if status != "error":  # the kernel is gone again: start over without it
                        break
            else:
                return

    def run(self, source):
        """Run one cell: ``("ok", outputs)`` or ``("error" | "timeout" | "dead" | "exit", message)``."""
        status, result = self._execute(source)
        if status in ("timeout", "dead", "exit"):
            self._restart()
        elif status == "ok":
            self.done.append(source)
        return status, result


def confine(job):
    """Set resource limits and drop privileges, as the job says."""
    # The data segment (heap, anonymous memory), not the address space: an address-space
    # limit also counts the libraries' mappings and the threads' reserved arenas, and
    # made scipy's OpenBLAS fail to load at 768 MB. An allocation over it fails at once
    # (MemoryError), never a slow reclaim; the cgroup bounds all processes together.
    limit = job["memory_mb"] * 2**20
    resource.setrlimit(resource.RLIMIT_DATA, (limit, limit))
    resource.setrlimit(resource.RLIMIT_FSIZE, (256 * 2**20, 256 * 2**20))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    nproc = job.get("nproc", 256)
    resource.setrlimit(resource.RLIMIT_NPROC, (nproc, nproc))
    if job.get("user") and os.geteuid() == 0:
        uid, gid = job["user"]
        home = os.path.dirname(os.getcwd())  # the home and work tmpfs, the notebook: its own
        for path in (home, ".", job["notebook"]):
            os.chown(path, uid, gid)
        os.setgroups([])
        os.setgid(gid)
        os.setuid(uid)
    if job.get("seccomp"):  # no bubblewrap (a container's fallback): the filter bwrap sets
        from .limits import install_filter

        install_filter()
    os.makedirs(os.environ.get("JUPYTER_RUNTIME_DIR", "."), mode=0o700, exist_ok=True)
    # Not dumpable: the student's kernel (same uid) cannot open /proc/<this>/fd.
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    except (OSError, AttributeError):
        pass


def question_of(cell, questions):
    """The question a released cell belongs to (``metadata.grading.question`` when it
    names one of ``questions``), or None; metadata of any other shape is ignored."""
    meta = cell.get("metadata")
    meta = meta.get("grading") if isinstance(meta, dict) else None
    name = meta.get("question") if isinstance(meta, dict) else None
    return name if isinstance(name, str) and name in questions else None


def main():
    """Run the job read from stdin; report JSON lines on the original stdout."""
    job = json.load(sys.stdin)
    report = os.fdopen(os.dup(1), "w")  # not inheritable: the kernel gets /dev/null
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1):
        os.dup2(devnull, fd)

    def emit(**event):
        report.write(json.dumps(event) + "\n")
        report.flush()

    kernel = None
    try:
        confine(job)
        os.dup2(devnull, 2)
        from .grade import parse_notebook  # parsed here, in the box: never in the grader

        try:
            with open(job["notebook"], "rb") as f:
                nb = parse_notebook(f.read(), job.get("shown", job["notebook"]), job.get("exercise"))
        except ValueError as exc:
            emit(unread=str(exc))
            return
        from .notes import cells_summary

        emit(cells=cells_summary(nb.cells))
        kernel = Kernel(job["cell_timeout"], job["memory_mb"])
        questions = job["passes"][0]
        for i, cell in enumerate(nb.cells, start=1):
            if (isinstance(cell, dict) and cell.get("cell_type") == "code"
                    and isinstance(cell.get("source"), str)):
                status, message = kernel.run(cell["source"])
                if status != "ok":
                    emit(cell=i, question=question_of(cell, questions), status=status, message=message)
        for number, tests in enumerate(job["passes"]):
            for name, exprs in tests.items():
                if not exprs:
                    continue
                code = (f"__import__('lib.grading.checks', fromlist=['send_values'])"
                        f".send_values({exprs!r}, globals())")
                status, outputs = kernel.run(code)
                if status != "ok":
                    emit(question=name, status=status, message=outputs, **{"pass": number})
                    continue
                data = [o["data"][MIME] for o in outputs
                        if isinstance(o.get("data"), dict) and MIME in o["data"]]
                if data:
                    emit(question=name, status="ok", results=data[-1], **{"pass": number})
                else:
                    emit(question=name, status="error", message="no answers received from the kernel",
                         **{"pass": number})
        emit(done=True)
    except GiveUp as exc:
        emit(fatal=str(exc))
    except Exception as exc:  # noqa: BLE001 - report, the parent records it
        emit(fatal=f"{type(exc).__name__}: {exc}"[:300])
    finally:
        if kernel:
            kernel.stop()


if __name__ == "__main__":
    main()
