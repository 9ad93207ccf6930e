"""The child process that runs one submission; started by :mod:`lib.grading.grade`.

Run as ``python -m lib.grading.sandbox`` in a temporary folder holding only the
submitted notebook (normally under ``unshare``: no network, own mount and process
namespaces). It reads a JSON job from stdin::

    {"notebook": "alice.ipynb", "questions": {"q1": ["answer_q1", ...]},
     "cell_timeout": 60, "memory_mb": 2048, "hide": ["/path/exercises", ...],
     "user": [65534, 65534]}

hides the ``hide`` folders (empty read-only tmpfs over each: only ever asked for inside
a private mount namespace), drops to ``user`` and sets resource limits, runs every code
cell on a fresh kernel (nbclient), then evaluates each question's test expressions in
the kernel (:func:`lib.grading.checks.send_values`). It writes JSON lines to stdout,
which the parent reads: ``{"cell": 3, "question": "q2", "status": "timeout",
"message": ...}`` for a cell that failed, ``{"question": "q1", "status": "ok",
"results": [...]}`` per question, and ``{"done": true}`` at the end. The values are
data; the expected values are never here.
"""
import json
import os
import resource
import subprocess
import sys
from pathlib import Path

# jsonschema (under nbformat) optionally imports rfc3987_syntax, which takes seconds to
# build a parser at import; notebooks need no IRI validation, so skip it.
sys.modules.setdefault("rfc3987_syntax", None)

import nbformat  # noqa: E402
from jupyter_core.utils import run_sync  # noqa: E402
from nbclient import NotebookClient  # noqa: E402
from nbclient.exceptions import CellTimeoutError, DeadKernelError  # noqa: E402

from .checks import MIME  # noqa: E402

MAX_RESTARTS = 6
NPROC = 1024  # processes (and threads) of the unprivileged user, across all workers


class GiveUp(Exception):
    """The kernel had to be restarted too often: stop grading this submission."""


class Kernel:
    """A kernel that outlives its cells' failures.

    A cell that times out or kills the kernel restarts it; the cells that ran fine
    before are replayed on the new kernel, so later cells see the same variables.
    """

    def __init__(self, timeout):
        self.timeout, self.done, self.restarts, self.client = timeout, [], 0, None
        self._start()

    def _start(self):
        self.client = NotebookClient(nbformat.v4.new_notebook(), timeout=self.timeout,
                                     kernel_name="python3", allow_errors=True,
                                     resources={"metadata": {"path": os.getcwd()}})
        self.client.km = self.client.create_kernel_manager()
        # Unix sockets, not TCP: the network namespace has no usable loopback.
        self.client.km.transport = "ipc"
        self.client.km.ip = os.path.join(os.environ.get("JUPYTER_RUNTIME_DIR", "."), "kernel")
        self.client.start_new_kernel()
        self.client.start_new_kernel_client()

    def stop(self):
        """Kill the kernel (no graceful shutdown: its state is of no further use)."""
        try:
            run_sync(self.client.km.shutdown_kernel)(now=True)
            self.client.kc.stop_channels()
        except Exception:  # noqa: BLE001 - a dead kernel may fail to shut down cleanly
            pass

    def _restart(self):
        self.restarts += 1
        if self.restarts > MAX_RESTARTS:
            raise GiveUp(f"gave up after {MAX_RESTARTS} kernel restarts")
        self.stop()
        self._start()
        done, self.done = self.done, []
        for source in done:
            self.run(source)

    def run(self, source):
        """Run one cell: ``("ok", outputs)`` or ``("error" | "timeout" | "dead", message)``."""
        cell = nbformat.v4.new_code_cell(source)
        self.client.nb.cells = [cell]
        try:
            self.client.execute_cell(cell, 0)
        except CellTimeoutError:
            self._restart()
            return "timeout", f"ran longer than {self.timeout:g} s"
        except DeadKernelError:
            self._restart()
            return "dead", "the kernel died (os._exit, a crash or the memory limit)"
        outputs, cell.outputs = cell.outputs, []
        for out in outputs:
            if out.get("output_type") == "error":
                return "error", f"{out.get('ename')}: {out.get('evalue')}"[:300]
        self.done.append(source)
        return "ok", outputs


def mount(*args):
    """Run ``mount`` (inside the child's private mount namespace); True on success."""
    return subprocess.run(["mount", *args], stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL, check=False).returncode == 0


def expose(path, stage):
    """Make ``path`` reachable by an unprivileged user (e.g. a Python under ``/root``).

    The first ancestor that others may not enter is covered with a tmpfs holding only
    the way down to ``path`` (bind-mounted from its original); the rest stays hidden.
    """
    path = Path(path).resolve()
    closed = next((p for p in reversed([path, *path.parents]) if not os.stat(p).st_mode & 0o001), None)
    if closed is None or closed == path:
        return
    rel = path.relative_to(closed)
    if mount("--bind", str(closed), stage) and mount("-t", "tmpfs", "-o", "mode=755", "exposed", str(closed)):
        (closed / rel).mkdir(parents=True, exist_ok=True)
        mount("--bind", str(Path(stage) / rel), str(closed / rel))
        subprocess.run(["umount", "-l", stage], check=False)


def confine(job):
    """Hide folders, set resource limits and drop privileges, as the job says."""
    for path in job.get("hide", []):
        mount("-t", "tmpfs", "-o", "ro,size=4k,mode=000", "hidden", path)
    if job.get("user") and os.geteuid() == 0:
        for prefix in {sys.base_prefix, sys.prefix}:
            expose(prefix, job["stage"])
    limit = job["memory_mb"] * 2**20
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    resource.setrlimit(resource.RLIMIT_FSIZE, (256 * 2**20, 256 * 2**20))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    if job.get("user") and os.geteuid() == 0:
        uid, gid = job["user"]
        os.setgroups([])
        os.setgid(gid)
        os.setuid(uid)
        resource.setrlimit(resource.RLIMIT_NPROC, (NPROC, NPROC))


def question_of(cell):
    """The question a released cell belongs to (``metadata.grading.question``), or None."""
    meta = cell.get("metadata", {}).get("grading", {})
    return meta.get("question") if isinstance(meta, dict) else None


def main():
    """Run the job read from stdin; report JSON lines on the original stdout."""
    job = json.load(sys.stdin)
    report = os.fdopen(os.dup(1), "w")  # the kernel inherits /dev/null, not this
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)

    def emit(**event):
        report.write(json.dumps(event) + "\n")
        report.flush()

    kernel = None
    try:
        confine(job)
        nb = nbformat.read(job["notebook"], as_version=4)
        kernel = Kernel(job["cell_timeout"])
        for i, cell in enumerate(nb.cells, start=1):
            if cell.get("cell_type") == "code" and isinstance(cell.get("source"), str):
                status, message = kernel.run(cell.source)
                if status != "ok":
                    emit(cell=i, question=question_of(cell), status=status, message=message)
        for name, exprs in job["questions"].items():
            code = (f"__import__('lib.grading.checks', fromlist=['send_values'])"
                    f".send_values({exprs!r}, globals())")
            status, outputs = kernel.run(code)
            if status != "ok":
                emit(question=name, status=status, message=outputs)
                continue
            data = [o["data"][MIME] for o in outputs if MIME in o.get("data", {})]
            if data:
                emit(question=name, status="ok", results=data[-1])
            else:
                emit(question=name, status="error", message="no answers received from the kernel")
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
