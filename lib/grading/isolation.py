"""The grader's side of the sandbox: an allow-listed view of the file system (bubblewrap).

Each submission runs :mod:`lib.grading.sandbox` under ``bwrap`` (Debian package
``bubblewrap``) with a fresh root that holds, read-only, only the system's ``/usr``
(libraries), the Python installation and its site-packages, the course's ``lib``
package and the exercise's data files; plus a private writable home and work folder
and private ``/tmp``, ``/var/tmp`` and ``/dev/shm``, all gone when it ends. No
network (own network namespace: no host sockets), own PID, IPC and UTS namespaces.
Nothing else of the host is visible: not the checkout, its tests or exercise sources,
other submissions, the gradebook or instructor files anywhere. Answers come back on
the child's stdout, a pipe.

* Run as root: bubblewrap needs no user namespace; the child drops to a uid of its
  own (one per concurrent submission, from a random range, so that the per-uid
  process limit of one submission never touches another).
* Run as another user: bubblewrap uses an unprivileged user namespace, one per
  submission, which also gives each its own process count.
* Neither possible (no ``bwrap``, no user namespaces): :class:`Sandbox` raises
  :class:`SandboxUnavailable`; ``unsafe=True`` (``--unsafe-no-sandbox``) runs the child
  as a plain subprocess instead.
"""
import json
import os
import queue
import random
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]  # the project: lib/ lives here
HOME, WORK = "/home/student", "/home/student/work"
DATA, CACHE = "/course-data", "/course-cache"  # where the shared data sets appear inside
NPROC = 256  # processes and threads of one submission
MAX_LINE = 64 * 2**20  # bytes of one report line (a question's answers)
MAX_STDERR = 4096
TMPFS = str(512 * 2**20)  # bytes of each private temporary folder


class SandboxUnavailable(ValueError):
    """The sandbox cannot start here; the message names the cause and the fix."""


def _python_paths():
    """Folders of the Python installation the kernel needs (prefixes, site-packages)."""
    paths = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix,
             sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    import site

    if site.ENABLE_USER_SITE and os.path.isdir(site.getusersitepackages()):
        paths.add(site.getusersitepackages())
    found = sorted({Path(p).resolve() for p in paths if p and os.path.isdir(p)})
    # keep the outermost folders only (a venv's site-packages lies inside the venv)
    return [p for p in found if not any(q != p and p.is_relative_to(q) for q in found)]


def _course_data():
    """Read-only binds ``[(host, inside)]`` of the course's public data, and the
    environment that points :mod:`lib.datasets` at them (inside, and on the host).

    The data sets that ship in ``lib/data/`` come with the ``lib`` bind; the
    20 Newsgroups archive where :mod:`lib.datasets` finds it (``$BAYES_COURSE_DATA``,
    ``../shared/data``, the cache) and the cache of its parsed posts. Public data only.
    """
    from lib.datasets import NEWSGROUPS_ARCHIVE, cache_dir, find_newsgroups_archive

    binds, env, host = [], {}, {}
    archive = find_newsgroups_archive()
    if archive is not None:
        binds.append((archive.resolve(), Path(DATA) / NEWSGROUPS_ARCHIVE))
        env["BAYES_COURSE_DATA"], host["BAYES_COURSE_DATA"] = DATA, str(archive.parent)
    if cache_dir().is_dir():
        binds.append((cache_dir().resolve(), Path(CACHE)))
        env["BAYES_COURSE_CACHE"], host["BAYES_COURSE_CACHE"] = CACHE, str(cache_dir())
    return binds, env, host


def _system_binds():
    """``/usr`` and the top-level links or folders into it, and the loader's ``/etc`` files."""
    args = ["--ro-bind", "/usr", "/usr"]
    for top in ("bin", "sbin", "lib", "lib32", "lib64", "libx32"):
        path = Path("/") / top
        if path.is_symlink():
            args += ["--symlink", os.readlink(path), str(path)]
        elif path.is_dir():
            args += ["--ro-bind", str(path), str(path)]
    for name in ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "alternatives", "localtime"):
        if os.path.exists(f"/etc/{name}"):
            args += ["--ro-bind", f"/etc/{name}", f"/etc/{name}"]
    return args


class Sandbox:
    """Runs one submission's child process at a time per call of :meth:`run` (thread-safe).

    ``Sandbox(workers)`` checks that the sandbox can start (raises
    :class:`SandboxUnavailable` with cause and fix otherwise); ``Sandbox(workers,
    unsafe=True)`` never raises and runs without isolation when it must
    (:attr:`warning` then says so).
    """

    def __init__(self, workers=2, unsafe=False, protect=()):
        self.root = os.geteuid() == 0
        self.bwrap = shutil.which("bwrap")
        self.python = _python_paths()
        self.data, self.data_env, self.host_data_env = _course_data()
        self.warning = ""
        base = random.randrange(1_000_000, 1_900_000_000 // 64) * 64  # unused uid range
        self.uids = queue.Queue()
        for n in range(max(1, workers) + 1):
            self.uids.put(base + n)
        cause = self._cause(protect)
        if cause and not unsafe:
            raise SandboxUnavailable(
                f"cannot isolate the submissions: {cause}. Fix: install bubblewrap "
                "(`apt-get install bubblewrap`) and grade as root, or as a user allowed to "
                "create user namespaces (sysctl kernel.unprivileged_userns_clone=1, "
                "user.max_user_namespaces > 0). To grade trusted notebooks without any "
                "isolation, pass --unsafe-no-sandbox.")
        self.isolated = not unsafe
        if unsafe:
            self.warning = ("WARNING: graded WITHOUT a sandbox (--unsafe-no-sandbox"
                            f"{': ' + cause if cause else ''}); student code could read "
                            "or change the host's files and other submissions")
            print(self.warning, file=sys.stderr)

    def _cause(self, protect):
        """Why the sandbox cannot run here (``""`` when it can)."""
        if not self.bwrap:
            return "bubblewrap (`bwrap`) is not installed"
        for shown in self.python + [Path("/usr")]:
            for secret in [ROOT, *map(Path, protect)]:
                secret = Path(secret).resolve()
                if secret == shown or secret.is_relative_to(shown):
                    return (f"{secret} lies inside {shown}, which the sandbox must show "
                            "(the Python installation); move it elsewhere")
        with tempfile.TemporaryDirectory(prefix="grading-probe-") as tmp:
            os.mkdir(Path(tmp) / "work")
            code = "import lib.grading"  # the rest (kernel, site-packages) is the self-test's job
            proc = subprocess.run(self.command(tmp, [], None) + [sys.executable, "-c", code],
                                  cwd="/", env=self.env(), capture_output=True, timeout=120)
        if proc.returncode:
            err = proc.stderr.decode("utf-8", "replace").strip().splitlines()
            detail = err[-1] if err else f"exit status {proc.returncode}"
            who = "root" if self.root else f"uid {os.geteuid()} (needs user namespaces)"
            return f"bwrap failed to start Python as {who}: {detail[:300]}"
        return ""

    def command(self, box, extras, user):
        """The ``bwrap`` command line for a private folder ``box`` (host path)."""
        args = [self.bwrap, "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts",
                "--unshare-cgroup-try", "--die-with-parent", "--new-session",
                "--hostname", "sandbox", "--tmpfs", "/", "--proc", "/proc", "--dev", "/dev"]
        for folder in ("/tmp", "/var/tmp", "/dev/shm"):
            args += ["--perms", "1777", "--size", TMPFS, "--tmpfs", folder]
        args += _system_binds()
        shown = [(p, p) for p in self.python] + [(ROOT / "lib", ROOT / "lib")] + self.data
        # the folders leading to them, enterable by the sandbox's user (bwrap makes 0700)
        for folder in sorted({str(p) for _, inside in shown for p in [*Path(inside).parents]
                              + [Path(HOME)] if str(p) != "/"}):
            args += ["--perms", "0755", "--dir", folder]
        for host, inside in shown:
            args += ["--ro-bind", str(host), str(inside)]
        args += ["--bind", str(box), HOME, "--chdir", WORK]
        for extra in extras:  # the exercise's data files, as released to students
            args += ["--ro-bind", str(extra), f"{WORK}/{Path(extra).name}"]
        for name in ("passwd", "group"):
            if (Path(box).parent / name).exists():
                args += ["--ro-bind", str(Path(box).parent / name), f"/etc/{name}"]
        if self.root:  # no user namespace: the child drops to its own uid itself
            args += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
        else:
            args += ["--unshare-user"]
        return args + ["--"]

    def env(self, home=HOME):
        return {**(self.data_env if home == HOME else self.host_data_env),
                "PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": home, "USER": "student",
                "LOGNAME": "student", "LANG": "C.UTF-8", "PYTHONPATH": str(ROOT),
                "PYTHONDONTWRITEBYTECODE": "1", "JUPYTER_RUNTIME_DIR": f"{home}/.runtime",
                "IPYTHONDIR": f"{home}/.ipython", "MPLCONFIGDIR": f"{home}/.config/mpl",
                "MPLBACKEND": "Agg", "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1",
                "MKL_NUM_THREADS": "1", "PYDEVD_DISABLE_FILE_VALIDATION": "1",
                "JUPYTER_PLATFORM_DIRS": "1"}

    def run(self, job, notebook, filename, extras, timeout):
        """Run ``job`` on the notebook bytes; returns ``(events, note)``.

        ``note`` says why the child stopped early (time limit, failure to start).
        """
        uid = self.uids.get()
        tmp = Path(tempfile.mkdtemp(prefix="grading-"))  # mode 0700: only the grader enters
        try:
            box = tmp / "home"
            (box / "work").mkdir(parents=True)
            (box / "work" / filename).write_bytes(notebook)
            user = [uid, uid] if self.isolated and self.root else None
            if user:
                (tmp / "passwd").write_text(f"root:x:0:0::/root:/bin/sh\nstudent:x:{uid}:{uid}::{HOME}:/bin/sh\n")
                (tmp / "group").write_text(f"root:x:0:\nstudent:x:{uid}:\n")
                for d in (box, box / "work"):
                    os.chown(d, uid, uid)
            if self.isolated:
                cmd, env, cwd = self.command(box, extras, user), self.env(), "/"
            else:
                for extra in extras:
                    shutil.copy2(extra, box / "work" / Path(extra).name)
                cmd, env, cwd = [], self.env(str(box)), box / "work"
            job = {**job, "notebook": filename, "user": user, "nproc": NPROC}
            return self._spawn(cmd + [sys.executable, "-m", "lib.grading.sandbox"], env, cwd, job, timeout)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
            self.uids.put(uid)

    @staticmethod
    def _spawn(cmd, env, cwd, job, timeout):
        proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                start_new_session=True)
        events, stderr = [], bytearray()
        readers = [threading.Thread(target=_read_events, args=(proc.stdout, events)),
                   threading.Thread(target=_read_capped, args=(proc.stderr, stderr))]
        for t in readers:
            t.start()
        note = ""
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
            for t in readers:
                t.join()
        if not note and not any(e.get("done") or "fatal" in e for e in events):
            err = stderr.decode("utf-8", "replace").strip().splitlines()
            note = "the grading process stopped unexpectedly" + (f": {err[-1][:300]}" if err else "")
        return events, note


def _read_events(stream, events):
    """Collect the JSON events of ``stream``; a line over :data:`MAX_LINE` bytes is skipped."""
    while True:
        line = stream.readline(MAX_LINE)
        if not line:
            return
        if not line.endswith(b"\n"):  # too long: drop the rest of it
            while line and not line.endswith(b"\n"):
                line = stream.readline(MAX_LINE)
            events.append({"oversize": True})
            continue
        try:
            event = json.loads(line)
        except (ValueError, RecursionError):
            continue
        if isinstance(event, dict):
            events.append(event)


def _read_capped(stream, buffer):
    while chunk := stream.read(65536):
        if len(buffer) < MAX_STDERR:
            buffer += chunk[: MAX_STDERR - len(buffer)]
