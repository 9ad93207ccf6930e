"""The resource box of one submission: a cgroup and a seccomp filter (used by isolation).

* :class:`Cgroups`: one cgroup per submission holding its whole process tree, with a
  limit on the total memory (including the pages of its tmpfs folders), on the number
  of processes and an equal CPU share (``cpu.shares`` 1024 / ``cpu.weight`` 100), so a
  submission that starts many busy processes gets one submission's share of the CPU,
  not one process's share each. cgroup v2 when ``/sys/fs/cgroup`` is a v2 mount, the
  v1 controllers ``memory``, ``pids`` and ``cpu`` otherwise. Needs root and a writable
  hierarchy; :attr:`Cgroups.missing` says why not.
* :func:`keyring_filter`: a seccomp program (classic BPF, the format ``bwrap --seccomp
  FD`` reads) that makes ``add_key``, ``request_key`` and ``keyctl`` fail with ``EPERM``
  (as Docker's default profile does), so no submission can store or read a kernel key.
"""
import atexit
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
# ...}: the system call's number at offset 0, its architecture (AUDIT_ARCH_*) at 4.
LD_W_ABS, JEQ_K, RET_K = 0x20, 0x15, 0x06  # BPF_LD|BPF_W|BPF_ABS, BPF_JMP|BPF_JEQ|BPF_K, BPF_RET|BPF_K
RET_ALLOW, RET_ERRNO = 0x7FFF0000, 0x00050000  # SECCOMP_RET_ALLOW, SECCOMP_RET_ERRNO | errno
X32 = 0x40000000  # x32 system calls are the x86_64 numbers with this bit set
#: add_key, request_key, keyctl per architecture (asm/unistd*.h), 32-bit compat ABIs too
KEYRING_CALLS = {
    0xC000003E: (248, 249, 250, X32 | 248, X32 | 249, X32 | 250),  # x86_64 and x32
    0x40000003: (286, 287, 288),  # i386 (also on x86_64 hosts)
    0xC00000B7: (217, 218, 219),  # aarch64
    0x40000028: (309, 310, 311),  # arm (also on aarch64 hosts)
}


def _insn(code, k, jt=0, jf=0):
    return struct.pack("=HBBI", code, jt, jf, k)


def keyring_filter():
    """The seccomp program (bytes) that denies the keyring system calls with EPERM.

    For each architecture: load the arch; if it differs, skip the block; else load the
    call's number, jump to the final "deny" on a keyring call, allow otherwise. Calls
    of an architecture not listed are allowed (they cannot reach a keyring call
    under another number: the kernel reports the arch of every call).
    """
    blocks = []
    for arch, calls in KEYRING_CALLS.items():
        block = [(LD_W_ABS, 4), ("arch", arch), (LD_W_ABS, 0)]
        block += [("call", nr) for nr in calls] + [(RET_K, RET_ALLOW)]
        blocks.append(block)
    program = [insn for block in blocks for insn in block] + [(RET_K, RET_ALLOW),
                                                              (RET_K, RET_ERRNO | errno.EPERM)]
    deny, out, pos = len(program) - 1, [], 0
    for block in blocks:
        for i, (code, k) in enumerate(block):
            here = pos + i
            if code == "arch":  # not this arch: jump past the rest of the block
                out.append(_insn(JEQ_K, k, 0, len(block) - i - 1))
            elif code == "call":  # a keyring call: jump to deny
                out.append(_insn(JEQ_K, k, deny - here - 1, 0))
            else:
                out.append(_insn(code, k))
        pos += len(block)
    out += [_insn(*program[-2]), _insn(*program[-1])]
    return b"".join(out)


def filter_fd():
    """A file descriptor (read position 0) holding :func:`keyring_filter`, for ``--seccomp``."""
    fd = os.memfd_create("grading-seccomp", 0)
    os.write(fd, keyring_filter())
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
    not as one); :attr:`missing` is ``""`` when it works, else
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

    def remove(self, procs):
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
