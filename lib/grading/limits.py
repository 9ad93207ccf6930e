"""The resource box of one submission: a cgroup and a seccomp filter (used by isolation).

* :class:`Cgroups`: one cgroup per submission holding its whole process tree, with a
  limit on the total memory (including the pages of its tmpfs folders), on the number
  of processes and an equal CPU share (``cpu.shares`` 1024 / ``cpu.weight`` 100), so a
  submission that starts many busy processes gets one submission's share of the CPU,
  not one process's share each. cgroup v2 when ``/sys/fs/cgroup`` is a v2 mount, the
  v1 controllers ``memory``, ``pids`` and ``cpu`` otherwise. Needs root and a writable
  hierarchy; ``Cgroups.missing`` says why not.
* :func:`seccomp_filter`: a seccomp program (classic BPF, the format ``bwrap --seccomp
  FD`` reads) at least as strict as Docker's default profile: no kernel keyring, no new
  namespaces or mounts, no io_uring, perf_event_open, userfaultfd, bpf or ptrace, and no
  internet, netlink or packet sockets (so no TCP buffers outside the cgroup).
"""
import atexit
import ctypes
import errno
import os
import secrets
import shlex
import struct
import time
from pathlib import Path

CGROUP_ROOT = Path("/sys/fs/cgroup")
V1 = ("memory", "pids", "cpu")

# --- seccomp --------------------------------------------------------------------------
# A classic BPF program is a list of 8-byte instructions struct sock_filter {u16 code;
# u8 jt; u8 jf; u32 k} (linux/filter.h), run on struct seccomp_data {int nr; u32 arch;
# u64 ip; u64 args[6]}: the call's number at offset 0, its architecture (AUDIT_ARCH_*)
# at 4, the low 32 bits of its first argument at 16 (little-endian machines).
LD_W_ABS, JEQ_K, JGE_K, JSET_K, RET_K = 0x20, 0x15, 0x35, 0x45, 0x06
RET_ALLOW, RET_ERRNO = 0x7FFF0000, 0x00050000  # SECCOMP_RET_ALLOW, SECCOMP_RET_ERRNO | errno
PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 38, 22, 2
X32 = 0x40000000  # x32 system calls are the x86_64 numbers with this bit set
#: AUDIT_ARCH of the machines the filter knows; calls of any other ABI (i386 or arm
#: compat, x32) are denied whole
ARCH = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}
#: Denied with EPERM, as Docker's default profile does: (x86_64, aarch64) numbers
DENIED = {
    "add_key": (248, 217), "request_key": (249, 218), "keyctl": (250, 219),  # kernel keyring
    "unshare": (272, 97), "setns": (308, 268),  # namespaces (clone's flags: below)
    "mount": (165, 40), "umount2": (166, 39), "pivot_root": (155, 41), "open_tree": (428, 428),
    "move_mount": (429, 429), "fsopen": (430, 430), "fsconfig": (431, 431),
    "fsmount": (432, 432), "fspick": (433, 433),
    "io_uring_setup": (425, 425), "io_uring_enter": (426, 426), "io_uring_register": (427, 427),
    "perf_event_open": (298, 241), "userfaultfd": (323, 282), "bpf": (321, 280),
    "ptrace": (101, 117), "process_vm_readv": (310, 270), "process_vm_writev": (311, 271),
    "kcmp": (312, 272), "open_by_handle_at": (304, 265), "kexec_load": (246, 104),
    "init_module": (175, 105), "finit_module": (313, 273), "delete_module": (176, 106),
    "acct": (163, 89), "swapon": (167, 224), "swapoff": (168, 225), "reboot": (169, 142),
    "sethostname": (170, 161), "setdomainname": (171, 162), "quotactl": (179, 60),
}
CLONE, CLONE3, SOCKET = (56, 220), (435, 435), (41, 198)
#: CLONE_NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET, NEWTIME: clone with
#: any of them is denied; clone3 (flags behind a pointer) gets ENOSYS, so that libc
#: falls back to clone, as under Docker
CLONE_NAMESPACES = 0x7E020080
#: socket() families denied, with the errno: AF_INET, AF_INET6, AF_PACKET, AF_NETLINK (the
#: kernel talks over unix sockets only: no TCP buffers, no loopback flood, no raw
#: packets). Netlink gets EINVAL, which libzmq takes as "no interface list" (it aborts
#: the kernel on EPERM from getifaddrs); ipykernel then only warns that its TCP pipe
#: for subprocess output is unavailable.
DENIED_FAMILIES = {2: errno.EPERM, 10: errno.EPERM, 17: errno.EPERM, 16: errno.EINVAL}


def _insn(code, k, jt=0, jf=0):
    return struct.pack("=HBBI", code, jt, jf, k)


def seccomp_filter(machine=None, denied=DENIED, families=DENIED_FAMILIES):
    """The seccomp program (bytes) of the sandbox: :data:`DENIED` calls, ``clone`` with
    :data:`CLONE_NAMESPACES` flags and sockets of :data:`DENIED_FAMILIES` fail with
    EPERM (netlink: EINVAL), ``clone3`` with ENOSYS, other ABIs than the machine's own
    with EPERM.

    Written as lines ``(code, k, target if true, target if false)`` with named targets
    ("deny", "enosys", "einval", "clone", "socket", None = the next line), resolved to the forward
    offsets classic BPF needs.
    """
    machine = machine or os.uname().machine
    if machine not in ARCH:
        raise ValueError(f"the seccomp filter knows x86_64 and aarch64, not {machine}")
    i = list(ARCH).index(machine)
    lines = [(LD_W_ABS, 4, None, None), (JEQ_K, ARCH[machine], None, "deny"), (LD_W_ABS, 0, None, None),
             (JGE_K, X32, "deny", None)]
    lines += [(JEQ_K, nrs[i], "deny", None) for nrs in denied.values()]
    lines += [(JEQ_K, CLONE3[i], "enosys", None), (JEQ_K, CLONE[i], "clone", None),
              (JEQ_K, SOCKET[i], "socket", None), (RET_K, RET_ALLOW, None, None)]
    labels = {"clone": len(lines)}
    lines += [(LD_W_ABS, 16, None, None), (JSET_K, CLONE_NAMESPACES, "deny", None),
              (RET_K, RET_ALLOW, None, None)]
    labels["socket"] = len(lines)
    lines += [(LD_W_ABS, 16, None, None)]
    lines += [(JEQ_K, f, "deny" if e == errno.EPERM else "einval", None) for f, e in families.items()]
    lines += [(RET_K, RET_ALLOW, None, None)]
    labels["deny"] = len(lines)
    lines.append((RET_K, RET_ERRNO | errno.EPERM, None, None))
    labels["enosys"] = len(lines)
    lines.append((RET_K, RET_ERRNO | errno.ENOSYS, None, None))
    labels["einval"] = len(lines)
    lines.append((RET_K, RET_ERRNO | errno.EINVAL, None, None))
    jump = lambda here, to: 0 if to is None else labels[to] - here - 1  # noqa: E731
    return b"".join(_insn(code, k, jump(n, t), jump(n, f)) for n, (code, k, t, f) in enumerate(lines))


def install_filter(program=None):
    """Put this process (and what it starts) under ``program`` (:func:`seccomp_filter`),
    as bwrap does: no new privileges, then the filter; ``OSError`` if the kernel refuses."""
    program = program or seccomp_filter()

    class Program(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_char_p)]

    libc = ctypes.CDLL(None, use_errno=True)
    for args in ((PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0),
                 (PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(Program(len(program) // 8, program)), 0, 0)):
        if libc.prctl(*args) != 0:
            raise OSError(ctypes.get_errno(), "cannot install the seccomp filter")


def filter_fd():
    """A file descriptor (read position 0) holding :func:`seccomp_filter`, for ``--seccomp``."""
    fd = os.memfd_create("grading-seccomp", 0)
    os.write(fd, seccomp_filter())
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


# --- cgroups --------------------------------------------------------------------------

def _own_path(controller):
    """This process's cgroup path in the v1 hierarchy of ``controller`` ("" for v2)."""
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, names, path = line.split(":", 2)
        if controller in names.split(",") or (controller == "" and names == ""):
            return path.lstrip("/")
    return None


class Cgroups:
    """Per-submission cgroups under one folder of this run (made by the constructor).

    ``Cgroups(memory_bytes, nproc, workers)``: the run's folder gets the CPU weight of
    ``workers`` processes (on a shared host the run competes as that many processes,
    not as one); ``missing`` is ``""`` when it works, else
    why not (then :meth:`create` returns ``None``). :meth:`create` makes a submission's
    cgroup and returns the ``cgroup.procs`` files a process writes its pid into to
    join; :meth:`remove` kills what is left in it and removes it.
    """

    def __init__(self, memory_bytes, nproc, workers=1, root=CGROUP_ROOT):
        self.memory, self.nproc, self.root, self.parents = memory_bytes, nproc, Path(root), []
        self.version, self.missing = None, ""
        name = f"grading-{os.getpid()}-{secrets.token_hex(4)}"
        if os.geteuid() != 0:
            self.missing = "not root (cgroups need root)"
            return
        try:
            if (self.root / "cgroup.controllers").exists():  # v2 (unified) mount
                self.version = 2
                parent = self.root / name  # under the root: no processes there to move
                top = set((self.root / "cgroup.subtree_control").read_text().split())
                if not {"memory", "pids", "cpu"} <= top:
                    (self.root / "cgroup.subtree_control").write_text("+memory +pids +cpu")
                parent.mkdir()
                self.parents = [parent]
                (parent / "cgroup.subtree_control").write_text("+memory +pids +cpu")
                (parent / "cpu.weight").write_text(str(100 * max(1, workers)))
            else:
                self.version = 1
                for controller in V1:
                    own = _own_path(controller)
                    if own is None or not (self.root / controller / "cgroup.procs").exists():
                        raise OSError(f"the v1 controller {controller} is not mounted")
                    parent = self.root / controller / own / name
                    parent.mkdir()
                    self.parents.append(parent)
                    if controller == "cpu":
                        (parent / "cpu.shares").write_text(str(1024 * max(1, workers)))
            atexit.register(self.close)  # also when the owner never calls close()
        except OSError as exc:
            self.missing = f"no writable cgroup hierarchy ({exc.strerror or exc})"
            self.close()

    def _settings(self):
        if self.version == 2:
            return {"memory.max": self.memory, "memory.swap.max": 0, "pids.max": self.nproc,
                    "cpu.weight": 100}
        return {"memory.limit_in_bytes": self.memory, "memory.memsw.limit_in_bytes": self.memory,
                "pids.max": self.nproc, "cpu.shares": 1024}

    def create(self, name):
        """Make cgroup ``name`` with the limits; the ``cgroup.procs`` files to join, or None."""
        if self.missing:
            return None
        folders = [parent / name for parent in self.parents]
        for folder in folders:
            folder.mkdir()
        for key, value in self._settings().items():
            for folder in folders:
                if (folder / key).exists():
                    (folder / key).write_text(str(value))
        return [str(folder / "cgroup.procs") for folder in folders]

    @staticmethod
    def remove(procs):
        """Kill every process left in these cgroups and remove them."""
        for _ in range(100):
            alive = False
            for path in procs:
                for pid in Path(path).read_text().split():
                    alive = True
                    try:
                        os.kill(int(pid), 9)
                    except ProcessLookupError:
                        pass
            if not alive:
                break
            time.sleep(0.05)
        for path in procs:
            try:
                Path(path).parent.rmdir()
            except OSError:
                pass

    def close(self):
        for parent in self.parents:
            try:
                parent.rmdir()
            except OSError:
                pass


def join_command(procs, cmd):
    """``cmd`` started by a shell that first moves itself into the cgroups ``procs``."""
    joins = " && ".join(f"echo $$ > {shlex.quote(p)}" for p in procs)
    return ["/bin/sh", "-c", f'{joins} && exec "$@"', "sh", *cmd]
