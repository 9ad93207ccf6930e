"""Safe intake of a folder of submissions: stable ids, source paths, regular files only.

A submissions folder holds one entry per student: a notebook file, or a folder holding
one notebook (anywhere inside it). Hidden entries (``.name``) and
``.ipynb_checkpoints`` folders are ignored; every other entry becomes a row of the
gradebook, even when it cannot be read (the row says why). Only regular files are
read, opened without following symbolic links and without blocking (a FIFO or a
device is refused, never opened for reading); a symbolic link is never followed, so a
link to the instructor's notebook or to a root-only file reads nothing.
"""
import hashlib
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path

MAX_NOTEBOOK = 100 * 2**20  # bytes of a submitted notebook file (outputs included)
SAFE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,79}")


@dataclass
class Submission:
    """One entry of the submissions folder: its stable ``id`` and its ``path``."""

    id: str
    path: Path
    entry: str  # the entry's name in the submissions folder
    files: tuple = ()  # several entries read as one submission (Canvas: one file per upload)

    @property
    def source(self):
        """The path shown in the gradebook (relative to the submissions folder)."""
        return self.entry


def _base(entry):
    return entry.name[: -len(".ipynb")] if entry.name.lower().endswith(".ipynb") else entry.name


def find_submissions(folder, exclude=()):
    """The :class:`Submission` of every entry of ``folder``, sorted by name.

    An entry's id is its name (without ``.ipynb``) when that is a safe file name
    (letters, digits, ``_.-``) used by no other entry (ignoring case); otherwise a
    sanitised form plus 8 hex digits of a hash of the exact entry name, so that names
    that sanitise alike never share an id. ``exclude``: paths to skip (the output folder).
    """
    skip = {Path(p).resolve() for p in exclude}
    entries = sorted((e for e in os.scandir(folder) if not e.name.startswith(".")
                      and Path(e.path).resolve() not in skip), key=lambda e: e.name)
    counts = {}
    for e in entries:
        counts[_base(e).lower()] = counts.get(_base(e).lower(), 0) + 1
    subs = []
    for e in entries:
        base = _base(e)
        if SAFE_ID.fullmatch(base) and counts[base.lower()] == 1:
            sid = base
        else:
            clean = re.sub(r"[^A-Za-z0-9_.-]+", "_", base).strip("._-")[:60] or "submission"
            sid = f"{clean}-{hashlib.sha256(e.name.encode('utf-8', 'surrogateescape')).hexdigest()[:8]}"
        subs.append(Submission(sid, Path(e.path), e.name))
    return subs


def _kind(mode):
    for test, name in ((stat.S_ISLNK, "a symbolic link"), (stat.S_ISFIFO, "a FIFO"),
                       (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a device"),
                       (stat.S_ISBLK, "a device")):
        if test(mode):
            return name
    return "not a regular file"


def _notebooks(folder):
    """``(regular notebook files, skipped non-regular notebook names)`` under ``folder``."""
    found, skipped = [], []
    for dirpath, dirnames, filenames in os.walk(folder, followlinks=False):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for name in sorted(filenames):
            if name.startswith(".") or not name.lower().endswith(".ipynb"):
                continue
            path = Path(dirpath) / name
            mode = os.lstat(path).st_mode
            (found if stat.S_ISREG(mode) else skipped).append(path)
        skipped += [Path(dirpath) / d for d in dirnames
                    if d.lower().endswith(".ipynb") and os.path.islink(Path(dirpath) / d)]
    return found, skipped


def read_notebook(sub):
    """``(bytes, relative path)`` of the submission's notebook; ``ValueError`` saying why not.

    Messages name the entry and the reason only, never the file's content.
    """
    if sub.files:
        return _read_one_of(sub)
    mode = os.lstat(sub.path).st_mode
    path = sub.path
    if stat.S_ISDIR(mode):
        found, skipped = _notebooks(sub.path)
        others = sorted(f for f in os.listdir(sub.path) if not f.startswith("."))
        if not found and not skipped and others:
            raise ValueError(_not_a_notebook(f"{sub.entry}/{', '.join(others)}"))
        if len(found) != 1:
            extra = f" ({len(skipped)} more not read: not regular files)" if skipped else ""
            flag = "two notebooks in one folder: " if len(found) > 1 else ""
            raise ValueError(f"{flag}folder {sub.entry} holds {len(found)} notebooks{extra}, expected 1")
        path = found[0]
    elif not stat.S_ISREG(mode):
        raise ValueError(f"{sub.entry} is {_kind(mode)}: not read (submit the notebook file itself)")
    rel = str(Path(sub.entry) / path.relative_to(sub.path)) if path != sub.path else sub.entry
    if not path.name.lower().endswith(".ipynb"):
        raise ValueError(_not_a_notebook(rel))
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY)
    except OSError as exc:
        raise ValueError(f"{rel} cannot be opened ({exc.strerror})") from None
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise ValueError(f"{rel} is {_kind(st.st_mode)}: not read")
        if st.st_size > MAX_NOTEBOOK:
            raise ValueError(f"{rel} is larger than {MAX_NOTEBOOK >> 20} MB")
        return f.read(MAX_NOTEBOOK + 1), rel


def _not_a_notebook(name):
    kind = "a zip file" if str(name).lower().endswith(".zip") else "not a notebook"
    return f"{name} is {kind} (.ipynb expected): not graded, hand in the notebook itself"


def _read_one_of(sub):
    """The one notebook among ``sub.files`` (files, or folders searched like an entry)."""
    found = []
    for path in sub.files:
        if os.path.isdir(path) and not os.path.islink(path):
            found += _notebooks(path)[0]
        elif path.name.lower().endswith(".ipynb"):
            found.append(path)
    if len(found) > 1:
        raise ValueError(f"two notebooks in one submission ({', '.join(p.name for p in found)}): "
                         "not graded, hand in one")
    if not found:
        raise ValueError(_not_a_notebook(", ".join(Path(p).name for p in sub.files)))
    one = Submission(sub.id, found[0], found[0].name)
    return read_notebook(one)
