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
* ``fallback=True`` (the Gradescope autograder) and root, where bubblewrap cannot start
  (Docker's default profile: no CAP_SYS_ADMIN, no new namespaces or mounts): the child
  runs as a plain subprocess that drops to a uid of its own and puts itself under the
  seccomp filter, with the same rlimits (and cgroup, if one is writable); it can read
  only what every user may read, so the grader's files must be root's alone (mode
  0600/0700, as :func:`lib.grading.autograder.run_autograder` makes them).

The resource box (:mod:`lib.grading.limits`): each submission's process tree runs in a
cgroup of its own (total memory including its tmpfs pages, process count, an equal
CPU share) when the grader is root and the host has a writable cgroup hierarchy
(:attr:`Sandbox.warning` says so otherwise); its writable home and work folder and its
``/tmp``, ``/var/tmp``, ``/dev/shm`` are size-capped tmpfs; each submission of a run
gets a uid never used before in the run; it starts with no capability but those it
needs to drop to that uid (``--cap-drop ALL``), under a seccomp filter at least as strict
as Docker's default profile (:func:`lib.grading.limits.seccomp_filter`: no keyring, new
namespaces, mounts, io_uring, perf events, userfaultfd, bpf, ptrace, and no internet,
netlink or packet sockets: the kernel talks over unix sockets). The grader reads at most :data:`MAX_LINE` bytes of one question's reply and
:data:`MAX_REPLY` bytes of one submission's, before parsing any of it.
"""
import itertools
import json
import os
import random
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import threading
from pathlib import Path

from .limits import Cgroups, filter_fd, join_command

ROOT = Path(__file__).resolve().parents[2]  # the project: lib/ lives here
HOME, WORK = "/home/student", "/home/student/work"
DATA, CACHE = "/course-data", "/course-cache"  # where the shared data sets appear inside
NPROC = 256  # processes and threads of one submission
#: Bytes of one report line (a question's answers), read before parsing.
MAX_LINE = 4 * 2**20
MAX_ITEMS = 400_000  # JSON lists, objects and items ('[', '{', ',') of one report line
#: Bytes of all report lines of one submission.
MAX_REPLY = 16 * 2**20
MAX_STDERR = 4096
TMPFS = str(512 * 2**20)  # bytes of each private temporary folder
HOME_TMPFS = str(256 * 2**20)  # bytes of the writable home (and work folder) of a submission


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

    def __init__(self, workers=2, unsafe=False, protect=(), memory_mb=2048, fallback=False):
        self.root = os.geteuid() == 0
        self.bwrap = shutil.which("bwrap")
        self.python = _python_paths()
        self.data, self.data_env, self.host_data_env = _course_data()
        self.warnings = []
        base = random.randrange(1_000_000, 1_900_000_000 - 2**24)  # an unused uid range
        self._uids, self._lock = itertools.count(base), threading.Lock()  # one per submission
        cause = self._cause(protect)
        # where bubblewrap cannot start (a container without CAP_SYS_ADMIN) and we are root:
        # each submission runs as a uid of its own, under the same seccomp filter and limits
        self.fallback = bool(cause and fallback and self.root)
        if self.fallback:
            unsafe = False
            self.warnings.append(
                f"NOTE: bubblewrap cannot start here ({cause}); each submission runs as an "
                "unprivileged uid of its own, under the seccomp filter and the same limits: it "
                "sees the host's world-readable files, never those only root may read")
        elif cause and not unsafe:
            raise SandboxUnavailable(
                f"cannot isolate the submissions: {cause}. Fix: install bubblewrap "
                "(`apt-get install bubblewrap`) and grade as root, or as a user allowed to "
                "create user namespaces (sysctl kernel.unprivileged_userns_clone=1, "
                "user.max_user_namespaces > 0). To grade trusted notebooks without any "
                "isolation, pass --unsafe-no-sandbox.")
        self.isolated = not unsafe and not self.fallback
        if unsafe:
            self.warnings.append("WARNING: graded WITHOUT a sandbox (--unsafe-no-sandbox"
                                 f"{': ' + cause if cause else ''}); student code could read "
                                 "or change the host's files and other submissions")
        self.cgroups = Cgroups(memory_mb * 2**20, NPROC, workers)
        if self.cgroups.missing:
            self.warnings.append(
                f"NOTE: no cgroup per submission: {self.cgroups.missing}; memory is limited "
                "per process only, and a submission's processes share the CPU with the "
                "others' one by one (see 'What one submission can use' in instructors.md)")
        for warning in self.warnings:
            print(warning, file=sys.stderr)

    @property
    def warning(self):
        """What the gradebook's header says about this run's isolation (may be "")."""
        return "\n".join(self.warnings)

    def close(self):
        """Remove this run's cgroup folder."""
        self.cgroups.close()

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
        code = "import lib.grading"  # the rest (kernel, site-packages) is the self-test's job
        seccomp = filter_fd()
        try:
            proc = subprocess.run(self.command([], [], seccomp) + [sys.executable, "-c", code],
                                  cwd="/", env=self.env(), capture_output=True, timeout=120,
                                  pass_fds=[seccomp])
        finally:
            os.close(seccomp)
        if proc.returncode:
            err = proc.stderr.decode("utf-8", "replace").strip().splitlines()
            detail = err[-1] if err else f"exit status {proc.returncode}"
            who = "root" if self.root else f"uid {os.geteuid()} (needs user namespaces)"
            return f"bwrap failed to start Python as {who}: {detail[:300]}"
        return ""

    def command(self, extras, files, seccomp):
        """The ``bwrap`` command line: ``files`` ``[(fd, path inside, mode)]`` are copied
        in, ``seccomp`` is the file descriptor of the seccomp filter."""
        args = [self.bwrap, "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts",
                "--unshare-cgroup-try", "--die-with-parent", "--new-session",
                "--hostname", "sandbox", "--tmpfs", "/", "--proc", "/proc", "--dev", "/dev"]
        for folder in ("/tmp", "/var/tmp", "/dev/shm"):
            args += ["--perms", "1777", "--size", TMPFS, "--tmpfs", folder]
        args += _system_binds()
        shown = [(p, p) for p in self.python] + [(ROOT / "lib", ROOT / "lib")] + self.data
        # the folders leading to them, enterable by the sandbox's user (bwrap makes 0700)
        for folder in sorted({str(p) for _, inside in shown for p in [*Path(inside).parents]
                              + [Path(HOME).parent] if str(p) != "/"}):
            args += ["--perms", "0755", "--dir", folder]
        args += ["--perms", "0755", "--size", HOME_TMPFS, "--tmpfs", HOME,
                 "--perms", "0755", "--dir", WORK, "--chdir", WORK]
        for host, inside in shown:
            args += ["--ro-bind", str(host), str(inside)]
        for extra in extras:  # the exercise's data files, as released to students
            args += ["--ro-bind", str(extra), f"{WORK}/{Path(extra).name}"]
        for fd, inside, mode in files:
            args += ["--perms", mode, "--file", str(fd), inside]
        args += ["--seccomp", str(seccomp)]
        if self.root:  # no user namespace: the child drops to its own uid itself, with these only
            args += ["--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID",
                     "--cap-add", "CAP_CHOWN"]
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
        with self._lock:
            uid = next(self._uids)
        user = [uid, uid] if (self.isolated or self.fallback) and self.root else None
        job = {**job, "notebook": filename, "user": user, "nproc": NPROC, "seccomp": self.fallback}
        fds, tmp, procs = [], None, None
        try:
            if self.isolated:
                files = [(notebook, f"{WORK}/{filename}", "0644")]
                if user:
                    files += [(f"root:x:0:0::/root:/bin/sh\nstudent:x:{uid}:{uid}::{HOME}:/bin/sh\n".encode(),
                               "/etc/passwd", "0644"),
                              (f"root:x:0:\nstudent:x:{uid}:\n".encode(), "/etc/group", "0644")]
                inside = []
                for data, path, mode in files:
                    fds.append(_memfd(data))
                    inside.append((fds[-1], path, mode))
                fds.append(filter_fd())
                cmd, env, cwd = self.command(extras, inside, fds[-1]), self.env(), "/"
            else:  # mode 0700: only the grader enters (and the submission's uid, made its owner)
                tmp = Path(tempfile.mkdtemp(prefix="grading-"))
                (tmp / "work").mkdir()
                (tmp / "work" / filename).write_bytes(notebook)
                for extra in extras:
                    shutil.copy2(extra, tmp / "work" / Path(extra).name)
                cmd, env, cwd = [], self.env(str(tmp)), tmp / "work"
            cmd = cmd + [sys.executable, "-m", "lib.grading.sandbox"]
            procs = self.cgroups.create(f"submission-{uid}")
            if procs:
                cmd = join_command(procs, cmd)
            return self._spawn(cmd, env, cwd, job, timeout, fds)
        finally:
            if procs:
                self.cgroups.remove(procs)
            for fd in fds:
                os.close(fd)
            if tmp:
                shutil.rmtree(tmp, ignore_errors=True)

    @staticmethod
    def _spawn(cmd, env, cwd, job, timeout, fds=()):
        proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                start_new_session=True, pass_fds=fds)
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


def _memfd(data):
    """A file descriptor (read position 0) holding ``data``, for ``bwrap --file``."""
    fd = os.memfd_create("grading-file", 0)
    os.write(fd, data)
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


def _read_events(stream, events):
    """Collect the JSON events of ``stream``, within limits checked before parsing.

    A line over :data:`MAX_LINE` bytes or with more than :data:`MAX_ITEMS` JSON items,
    or one that would take the lines kept over :data:`MAX_REPLY` bytes, is skipped
    unparsed (only its first 256 bytes are held); it
    becomes ``{"oversize": True, "question": ...}`` (the question named at its start).
    """
    total = 0
    while True:
        line = stream.readline(MAX_LINE)
        if not line:
            return
        size = len(line)
        while not line.endswith(b"\n") and (more := stream.readline(MAX_LINE)):  # drop the rest
            size += len(more)
            line = line[:256] + more[-1:]
        if (size > MAX_LINE or total + size > MAX_REPLY
                or sum(map(line.count, (b"[", b"{", b","))) > MAX_ITEMS):
            name = re.match(rb'\{"question": "([A-Za-z0-9_.-]{1,80})"', line)
            events.append({"oversize": True, "question": name and name.group(1).decode()})
            continue
        total += size  # what is parsed and kept; a refused line is not kept
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
