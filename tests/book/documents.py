"""The documents' shell commands, read as a reader reads them, and a fresh clone to run them
in: shared by tests/book/test_docs.py and tests/book/test_instructors_walkthrough.py (a
helper module, not a test module)."""
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FENCE = re.compile(r"^\s*(`{3,}|~{3,})\s*([^`\s]*)[^`]*$")
SHELL_LANGS = {"bash", "sh", "shell", "console", "shell-session"}
INLINE = re.compile(r"(?<!`)`([^`\n]+)`(?!`)")
INLINE_COMMAND = re.compile(r"(make|\.venv/bin/\S+) +\S")
GIT_CLONE = "git clone <the repository> bayesian-learning && cd bayesian-learning"
# What each command's placeholders become here ("/tmp/" is a folder of this test's own).
PLACEHOLDERS = {"<the repository>": str(ROOT), "NN_topic": "01_bayesian_learning"}


def lines(text):
    """(line number, line, fence info or None) of a markdown text; the info string is the
    language of the fenced block the line is in ("" for a plain fence), the fence lines
    themselves are left out."""
    fence, lang = None, ""
    for number, line in enumerate(text.splitlines(), 1):
        opening = FENCE.match(line)
        if fence:
            if opening and opening.group(1)[0] == fence[0] and len(opening.group(1)) >= len(fence) \
                    and not opening.group(2):
                fence = None
            else:
                yield number, line, lang
        elif opening:
            fence, lang = opening.group(1), opening.group(2).lower()
        else:
            yield number, line, None


def commands(text):
    """[(line number, command)] of a markdown text (see the module's docstring)."""
    found, pending = [], ""
    for number, line, lang in lines(text):
        stripped = line.strip()
        if lang is not None:
            if lang in SHELL_LANGS and (lang != "console" or stripped.startswith("$ ")):
                code = re.sub(r"(^|\s)#.*", "", stripped.removeprefix("$ ")).strip()
                if code.endswith("\\"):
                    pending += code[:-1] + " "
                    continue
                code, pending = pending + code, ""
                if code:
                    found.append((number, " ".join(code.split())))
            continue
        if stripped.startswith("$ "):
            found.append((number, " ".join(stripped[2:].split())))
        prose = re.sub(r"<!--.*?-->", "", line)
        found += [(number, " ".join(span.split())) for span in INLINE.findall(prose)
                  if INLINE_COMMAND.match(span)]
    return found


def section(text, heading):
    """The text of the section ``## heading`` of a markdown text, up to the next ``## ``."""
    found = re.search(rf"^## {re.escape(heading)}\n(.*?)(?=^## |\Z)", text, re.M | re.S)
    assert found, f"no section '## {heading}'"
    return found.group(1)


def fresh_clone(where):
    """how_to_use.md's clone command run in the folder ``where``, its .venv the tests' venv."""
    command = GIT_CLONE
    for key, value in PLACEHOLDERS.items():
        command = command.replace(key, value)
    subprocess.run(["bash", "-c", command + " && git log -1 --format=%H"], cwd=where, check=True,
                   capture_output=True)
    repo = where / "bayesian-learning"
    (repo / ".venv").symlink_to(sys.prefix)
    (where / "home").mkdir()
    installed = where / "venv-installed"  # newer than the clone's pyproject.toml: make installs nothing
    installed.touch()
    return repo


def shell_env(clone):
    """A home of the test's own (for ``~``), the tests' venv first on PATH and for make, and
    the data and cache folders this checkout uses (the clone has no data beside it)."""
    from lib.datasets import cache_dir, find_newsgroups_archive

    archive = find_newsgroups_archive()
    data = {"BAYES_COURSE_DATA": str(archive.parent)} if archive else {}
    return {**os.environ, **data, "BAYES_COURSE_CACHE": str(cache_dir()), "HOME": str(clone.parent / "home"),
            "PATH": f"{sys.prefix}/bin:{os.environ['PATH']}",
            "MAKEFLAGS": f"VENV={sys.prefix} STAMP={clone.parent / 'venv-installed'}"}


def substituted(command, clone):
    for key, value in PLACEHOLDERS.items():
        command = command.replace(key, value)
    return command.replace("/tmp/", f"{clone.parent}/")
