"""Docs as tests (issue 35): every shell command that README.md, instructors.md,
how_to_use.md, exercises/README.md and CONTRIBUTING.md show runs here in a fresh clone,
or its document names the test that stands in for it; and what the documents say about
the code is true of the code.

A *command* is a line of a fenced ``bash``, ``sh``, ``shell`` or ``console`` block (lines
ending in ``\\`` joined, ``#`` comments dropped; in a ``console`` block only its ``$ ``
lines), a ``$ `` line anywhere, or an inline code span that starts with ``make `` or
``.venv/bin/``. Each command is either

* in ``RUN`` below: run here as the document writes it (``PLACEHOLDERS`` replaced) in a
  clone of the repository (its last commit: commit a change before testing it here) made
  by how_to_use.md's own ``git clone`` command, with the
  venv that runs these tests (the clone's ``.venv`` links to it; ``make`` is told the
  venv is installed, so nothing is installed again), and its effect checked; or
* in a section of ``WALKTHROUGHS``: the test named there runs that section's commands as
  written, in order, in a fresh clone; or
* marked in its document with ``<!-- stand-in: `CMD` -> tests/test_x.py::test_y -->``
  (or ``<!-- needs network: `CMD` -> ... -->`` when it needs a network or a hub): the
  marker covers every command of that file that starts with the words CMD, and each
  test it names (``path``, or ``path::test`` by function name) must exist.

Every ``make`` command, run or marked, is also expanded with ``make -n`` in the clone, so
a target or variable the Makefile lost fails here too.
"""
import ast
import fnmatch
import os
import re
import signal
import subprocess
import sys
import urllib.request
import zipfile
from pathlib import Path

import pytest
from documents import (
    GIT_CLONE,
    ROOT,
    commands,
    fresh_clone,
    lines,
    section,
    shell_env,
    substituted,
)

DOCS = ("README.md", "instructors.md", "how_to_use.md", "exercises/README.md", "CONTRIBUTING.md")
SETS = sorted(p.name for p in (ROOT / "exercises").iterdir() if (p / f"{p.name}.md").is_file())

MARKER = re.compile(r"<!--\s*(stand-in|needs [\w ,]+?):\s*`([^`]+)`\s*->\s*(.+?)\s*-->", re.S)



# Sections ("## heading") whose commands one test runs as written, in order, in a fresh clone.
WALKTHROUGHS = {("instructors.md", "The whole job, start to finish"):
                "tests/book/test_instructors_walkthrough.py::test_the_start_to_finish_section_runs_as_written"}


def walked(doc):
    """The commands of ``doc`` that a WALKTHROUGHS test runs."""
    return {c for (d, heading) in WALKTHROUGHS if d == doc
            for _, c in commands(section((ROOT / doc).read_text(), heading))}


def markers(text):
    """[(kind, command prefix, [test ids])] of a markdown text, outside fenced blocks."""
    prose = "\n".join(line for _, line, lang in lines(text) if lang is None)
    return [(kind, " ".join(cmd.split()), re.split(r"[,\s]+", tests.strip()))
            for kind, cmd, tests in MARKER.findall(prose)]


def starts_with(command, prefix):
    return command == prefix or command.startswith(prefix + " ")


def missing_test(test_id):
    """'' when ``path`` or ``path::name`` (a function or class of that file) exists, else why not."""
    path, _, name = test_id.partition("::")
    if not (path.startswith("tests/") and (ROOT / path).is_file()):
        return f"{test_id}: no file {path} under tests/"
    name = name.split("[")[0]
    names = {node.name for node in ast.walk(ast.parse((ROOT / path).read_text()))
             if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
    return "" if not name or name in names else f"{test_id}: no test {name} in {path}"


def _released(folder, sets=SETS):
    missing = [s for s in sets if not (folder / s / f"{s}.ipynb").is_file()]
    assert not missing, f"no released notebook in {folder} for {missing}"


def _check_clean(clone, home, out):
    assert not (clone / "_build").exists() and not (clone / "_generated").exists()


def _check_autograder(clone, home, out):
    with zipfile.ZipFile(clone / "autograder.zip") as z:
        assert {"setup.sh", "run_autograder"} <= set(z.namelist()), z.namelist()


# (document, command as written) -> check of its effect, called with (clone, home, stdout).
RUN = {
    ("instructors.md", "python -m lib.grading release exercises/ --out ~/course-release/"):
        lambda clone, home, out: _released(home / "course-release"),
    ("instructors.md", "python -m lib.grading release exercises/ --out ~/course-solutions/ --instructor"):
        lambda clone, home, out: _released(home / "course-solutions"),
    ("instructors.md", "python -m lib.grading autograder exercises/01_bayesian_learning --out autograder.zip"):
        _check_autograder,
    ("exercises/README.md", ".venv/bin/python -m lib.grading release exercises/NN_topic --out /tmp/rel"):
        lambda clone, home, out: _released(home.parent / "rel", ["01_bayesian_learning"]),
    ("exercises/README.md", ".venv/bin/python -m lib.grading release exercises/NN_topic --out /tmp/sol --instructor"):
        lambda clone, home, out: _released(home.parent / "sol", ["01_bayesian_learning"]),
    ("exercises/README.md", ".venv/bin/python tests/grading/test_mutation.py --mistakes NN_topic"):
        lambda clone, home, out: re.search(r"^01_bayesian_learning q1:\n    mistakes public 1: ", out, re.M),
    ("CONTRIBUTING.md", "make lint"): lambda clone, home, out: "All checks passed" in out,
    ("README.md", "make clean"): _check_clean,
}


@pytest.fixture(scope="module")
def clone(tmp_path_factory):
    return fresh_clone(tmp_path_factory.mktemp("docs"))


def documented():
    """{document: [(line, command)]}."""
    return {doc: commands((ROOT / doc).read_text()) for doc in DOCS}


def test_command_extraction():
    text = ("Run `make unit` or `make`; `lib/` is a path.\n\n<!-- stand-in: `make book` -> tests/book/test_book.py -->\n"
            "```bash\nmake book   # the site\npython -m x \\\n    --out y\n```\n\n"
            "```console\n$ make help\nhelp text\n```\n\n````\n```{literalinclude} x\n```\n````\n"
            "```python\nmake = 1\n```\n```text\n<!-- stand-in: `make x` -> tests/a.py -->\n```\n")
    assert commands(text) == [(1, "make unit"), (5, "make book"), (7, "python -m x --out y"), (11, "make help")]
    assert markers(text) == [("stand-in", "make book", ["tests/book/test_book.py"])]
    assert starts_with("make book EDITION=instructor", "make book") and not starts_with("make bookx", "make book")
    assert missing_test("tests/book/test_book.py::test_a_failing_cell_fails_the_strict_build") == ""
    assert missing_test("tests/book/test_book.py::test_nothing_like_this") != ""
    assert missing_test("tests/no_such_file.py") != ""


def test_every_command_is_run_here_or_marked_with_its_stand_in():
    missing = []
    for doc, found in documented().items():
        marks = markers((ROOT / doc).read_text())
        for line, command in found:
            if (doc, command) in RUN or (doc == "how_to_use.md" and command == GIT_CLONE) \
                    or command in walked(doc):
                continue
            if not any(starts_with(command, prefix) for _, prefix, _ in marks):
                missing.append(f"{doc}:{line}: `{command}` is neither run by tests/book/test_docs.py (RUN) nor "
                               f"marked: add <!-- stand-in: `{command}` -> tests/test_x.py::test_y --> "
                               f"next to it (CONTRIBUTING.md, 'Commands in the documents')")
    assert not missing, "\n".join(missing)


def test_every_marker_covers_a_command_and_names_existing_tests():
    bad = []
    for doc, found in documented().items():
        for _kind, prefix, tests in markers((ROOT / doc).read_text()):
            if not any(starts_with(command, prefix) for _, command in found):
                bad.append(f"{doc}: the marker for `{prefix}` covers no command of the file")
            bad += [f"{doc}: the marker for `{prefix}`: {why}" for why in map(missing_test, tests) if why]
    assert not bad, "\n".join(bad)


def test_every_walkthrough_section_has_commands_and_its_test():
    for (doc, heading), test in WALKTHROUGHS.items():
        assert len(walked(doc)) >= 3, f"{doc}, '{heading}': hardly any commands"
        assert missing_test(test) == "", missing_test(test)


def test_every_run_entry_is_still_in_its_document():
    gone = [key for key in RUN if key[1] not in {c for _, c in documented()[key[0]]}]
    assert not gone, f"commands of RUN no longer in their documents (remove them from RUN): {gone}"


def test_the_clone_is_how_to_use_mds_and_runs_the_checkouts_code(clone):
    assert (GIT_CLONE in {c for _, c in documented()["how_to_use.md"]})
    out = subprocess.run([".venv/bin/python", "-c", "import lib; print(lib.__file__)"], cwd=clone,
                         capture_output=True, text=True, check=True).stdout
    assert Path(out.strip()) == clone / "lib" / "__init__.py"


@pytest.mark.parametrize("doc, command", sorted(RUN))
def test_command_runs_in_a_fresh_clone(clone, doc, command):
    home = clone.parent / "home"
    if command == "make clean":
        (clone / "_build" / "html").mkdir(parents=True, exist_ok=True)
        (clone / "_generated").mkdir(exist_ok=True)
    out = subprocess.run(["bash", "-c", substituted(command, clone)], cwd=clone, env=shell_env(clone),
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, f"{doc}: `{command}` failed:\n{out.stdout[-3000:]}\n{out.stderr[-3000:]}"
    assert RUN[doc, command](clone, home, out.stdout) is not False, f"{doc}: `{command}`: {out.stdout[-3000:]}"


def test_every_make_command_expands_in_the_clone(clone):
    makes = sorted({c for found in documented().values() for _, c in found if c.split()[0] == "make"})
    assert "make book" in makes and "make test" in makes
    for command in makes:
        out = subprocess.run(["bash", "-c", substituted(command, clone).replace("make", "make -n", 1)],
                             cwd=clone, env=shell_env(clone), capture_output=True, text=True, timeout=120)
        assert out.returncode == 0, f"`{command}`: make -n fails in a fresh clone:\n{out.stdout}\n{out.stderr}"


def test_make_test_runs_every_stage_and_ci_runs_make_test(clone):
    """The stand-in of `make test` and its stages (`make lint`, `unit`, `slow`, `nbval`,
    `browser`, `book`): `make test` runs each of them (and CI runs `make test`)."""
    out = subprocess.run(["make", "-n", "test"], cwd=clone, env=shell_env(clone), capture_output=True,
                         text=True, timeout=120, check=True).stdout
    for stage in ("ruff check lib tests tools benchmarks _ext",              # lint
                  '-m "not slow and not browser"', "--doctest-modules lib",   # unit
                  '-m "slow and not browser"',                                # slow
                  "tools/execute_book.py", "jupyter-book build . -W -n",      # book
                  "tests/book/test_executed_notebooks.py",                         # nbval
                  "tests/browser"):                                           # browser
        assert stage in out, f"make test no longer runs {stage!r}"
    assert re.search(r"^make test$", (ROOT / ".ci" / "run").read_text(), re.M)


def test_make_refuses_an_older_python_by_name(tmp_path):
    """`make` on a Python older than pyproject.toml's requires-python stops before making
    .venv, saying what it needs and what it found (not a resolver error from pip)."""
    import tomllib

    floor = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["requires-python"]
    major, minor = map(int, re.fullmatch(r">=\s*(\d+)\.(\d+)", floor).groups())
    for name in ("Makefile", "pyproject.toml"):
        (tmp_path / name).write_bytes((ROOT / name).read_bytes())
    older = tmp_path / "python-older"  # this Python, telling the Makefile's check an older version
    older.write_text(f'#!/bin/bash\nexec {sys.executable} -c "import sys; sys.version_info = ({major}, {minor - 1}, 0); '
                     f"sys.version = '{major}.{minor - 1}.0'\n$2\"\n")
    older.chmod(0o755)
    out = subprocess.run(["make", "install", f"PYTHON={older}"], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert out.returncode != 0 and not (tmp_path / ".venv").exists()
    assert f"make needs Python {major}.{minor} or newer" in out.stderr and f"{major}.{minor - 1}.0" in out.stderr, out.stderr


def test_make_serve_serves_the_built_site(clone):
    site = clone / "_build" / "html"
    site.mkdir(parents=True, exist_ok=True)
    (site / "index.html").write_text("<title>the course</title>")
    with socket_port() as port:
        server = subprocess.Popen(["make", "serve", f"PORT={port}"], cwd=clone, env=shell_env(clone),
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    try:
        page = _wait_for(f"http://127.0.0.1:{port}/index.html", server)
        assert "<title>the course</title>" in page
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=60)


class socket_port:
    """A free TCP port on 127.0.0.1 (closed again on exit, for the server to take)."""
    def __enter__(self):
        import socket
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        return self.sock.getsockname()[1]

    def __exit__(self, *exc):
        self.sock.close()


def _wait_for(url, server, deadline=60):
    import time
    end = time.monotonic() + deadline  # only bounds a hang
    while True:
        try:
            with urllib.request.urlopen(url, timeout=5) as reply:
                return reply.read().decode()
        except OSError:
            assert server.poll() is None, f"make serve ended: {server.stderr.read().decode()}"
            assert time.monotonic() < end, f"nothing served at {url}"
            time.sleep(0.2)


# --- statements about the code -------------------------------------------------------

ARCHITECTURE_DOCS = ("CONTRIBUTING.md", "ARCHITECTURE.md")
PATH_SPAN = re.compile(r"`((?:lib|tests|tools|_ext|exercises|chapters|benchmarks|binder|_static|\.ci|\.github)"
                       r"/[\w./<>*-]*|[\w-]+\.(?:md|yml|toml|py|cfg))`")


def tracked_files():
    """The repository's files (committed, or new and not ignored)."""
    return subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                          capture_output=True, text=True, check=True).stdout.split()


def test_every_path_the_contributor_docs_name_exists():
    """A path in backticks in CONTRIBUTING.md or ARCHITECTURE.md (`lib/plots/`, `tools/x.py`)
    is a file or folder of the repository, or output the repository ignores (`git
    check-ignore`: `benchmarks/out/...`); one with a placeholder (`lib/<topic>.py`,
    `exercises/NN_topic/`) matches one; a bare file name (`plots.py`) is some file's name."""
    files = tracked_files()
    names = set(files) | {str(p) for f in files for p in Path(f).parents}
    missing = []
    for doc in ARCHITECTURE_DOCS:
        for path in PATH_SPAN.findall((ROOT / doc).read_text()):
            pattern = re.sub(r"<[^>]+>|NN_topic|NN", "*", path).rstrip("/")
            found = (pattern in names or any(fnmatch.fnmatch(n, pattern) for n in names) if "/" in path
                     else any(Path(f).name == path for f in files))
            if not found and subprocess.run(["git", "check-ignore", "-q", path], cwd=ROOT).returncode:
                missing.append(f"{doc}: `{path}`")
    assert not missing, f"paths named in the contributor docs that do not exist: {missing}"


def test_contributing_points_to_architecture_md():
    assert "ARCHITECTURE.md" in (ROOT / "CONTRIBUTING.md").read_text()
    assert (ROOT / "ARCHITECTURE.md").is_file()


def test_nothing_points_outside_the_repository_but_the_data_path():
    """Nothing of a clone may rely on the folder beside it, except the data path
    (`../shared/data`, BAYES_COURSE_DATA's default)."""
    tracked = tracked_files()
    bad = [f"{name}:{n}: {line.strip()}" for name in tracked if (ROOT / name).is_file()
           and name != "tests/book/test_docs.py"
           for n, line in enumerate((ROOT / name).read_text(errors="replace").splitlines(), 1)
           if re.search(r"\.\./shared(?!/data)", line) and "shared/data" not in line
           and not re.search(r"benchmarks/\w+\.sh$", name)]  # they link ../shared beside a clone, for its data
    assert not bad, f"pointers outside the repository: {bad}"


def test_the_commands_section_of_the_readme_counts_its_commands():
    text = (ROOT / "README.md").read_text()
    heading = re.search(r"^## (?:The )?(\w+) commands$", text, re.M | re.I)
    words = {"two": 2, "three": 3, "four": 4}
    assert heading, "README.md: the heading of its commands section ('## Three commands') is gone"
    block = text[heading.end():].split("```")[1]
    assert words[heading.group(1).lower()] == len(commands("```" + block + "```"))



def test_the_contributor_docs_name_no_seed_document():
    """Cite published works, never the course's source documents by file name (the rule
    tests/book/test_book.py applies to the book's pages, here for the documents it does not read)."""
    bad = [doc for doc in (*DOCS, "ARCHITECTURE.md") if re.search(r"\bseed00\d\b", (ROOT / doc).read_text())]
    assert not bad, f"documents that name a seed document: {bad}"
