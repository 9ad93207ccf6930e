"""The environments the launch buttons give a reader, rebuilt offline for the tests.

* ``binder_python()``: a fresh venv made from ``binder/requirements.txt``, as repo2docker
  does (``pip install -r binder/requirements.txt`` from the repository root), plus nbval;
* ``colab_python(where)``: a venv with what Colab has preinstalled (its old ipykernel,
  jupyter_client, ipywidgets, IPython and classic notebook, numpy, scipy, matplotlib,
  pandas, scikit-learn), plus nbval, without the course: the notebook's own set-up cell must install it;
* ``run_notebooks()``: notebooks run by one ``pytest --nbval-lax`` in one of those venvs;
* ``launch_tree()``: the `notebooks` branch the buttons open (tools/export_notebooks.py);
* ``publish()`` / ``published_clone()``: that tree published with tools/publish_notebooks.sh
  (the workflow's own script) into a local bare repository, and a reader's clone of it;
* ``button_links()``: the launch links the theme's own code makes for a page;
* ``notebook_pages()``: the pages of ``_toc.yml`` that get launch buttons.

The venvs live in ``_build/`` and are made again only when their inputs change (key
file), so repeated test runs reuse them. Shared by tests/launch/test_binder.py,
tests/launch/test_launch.py and tests/browser/test_binder_session.py.
"""
import ast
import fcntl
import hashlib
import importlib.util
import os
import re
import shutil
import subprocess
import symtable
import sys
import tempfile
import tomllib
import venv
from pathlib import Path
from urllib.parse import parse_qs, urlsplit
from xml.etree import ElementTree

import nbformat
import yaml

ROOT = Path(__file__).resolve().parents[2]
ENV = ROOT / "_build" / "binder-venv"
COLAB_ENV = ROOT / "_build" / "colab-venv"
TREE = ROOT / "_build" / "launch-tree"
CONFIG = yaml.safe_load((ROOT / "_config.yml").read_text())
REPO_NAME = CONFIG["repository"]["url"].rstrip("/").split("/")[-1]  # nbgitpuller's folder name

# Colab's preinstalled versions of what the kernel and its front end use (2025 runtime),
# on this machine's Python. The set-up cell must leave every one of them as it is.
COLAB = ["ipykernel==6.17.1", "jupyter_client==7.4.9", "ipywidgets==7.7.1", "ipython==7.34.0",
         "notebook==6.5.7", "traitlets==5.7.1", "tornado==6.4.2", "numpy==2.0.2", "scipy==1.14.1",
         "matplotlib==3.10.0", "pandas==2.2.2", "numba==0.60.0",
         # scikit-learn too: the chapters' comparisons with it run there at Colab's version
         "scikit-learn==1.6.1", "joblib==1.4.2", "threadpoolctl==3.6.0"]

# A course JupyterHub (tests/launch/test_hub.py): the hub, JupyterLab as its single-user server,
# nbgitpuller for the launch links, jupyterlab-myst and ipywidgets' front end (README,
# "Launching the notebooks"); not the course library, which the set-up cell installs from
# the reader's clone. configurable-http-proxy comes from npm (.ci/run installs it).
HUB = ["jupyterhub==6.1.1", "jupyterlab>=4.4,<5", "nbgitpuller==1.3.0", "jupyterlab-myst>=2.4,<3",
       "ipywidgets>=8,<9", "ipykernel>=6.25,<7"]
HUB_ENV = ROOT / "_build" / "hub-venv"

# Where the kernels find the 20 Newsgroups archive (Chapter 5), as in the Makefile.
DATA = os.environ.get("BAYES_COURSE_DATA") or str((ROOT.parent / "shared" / "data").resolve())


# uv (the test extra's, beside this python) makes the venvs that stand for an environment
# other than the route's own build: Colab's preinstalled image, the hub's server, the
# lowest versions. It resolves as pip does (newest versions that fit), from pip's index
# when one is set in the environment, for a sixth of pip's CPU (benchmarks/results.md,
# round 10). Binder's venv is made by pip, as repo2docker makes it.
UV = Path(sys.executable).parent / "uv"
UV_ENV = {**os.environ, **{uv: os.environ[pip] for pip, uv in [("PIP_INDEX_URL", "UV_INDEX_URL"),
                                                                 ("PIP_EXTRA_INDEX_URL", "UV_EXTRA_INDEX_URL")]
                            if pip in os.environ}}


def _venv(where, key, install, installer="uv"):
    """A venv at ``where`` with ``install`` (pip's arguments) installed, made again only when
    ``key`` changes; ``installer``: "uv" (seeded with pip, which the notebooks' ``%pip`` and
    ``freeze`` use) or "pip"."""
    # `make test` runs its stages and pytest-xdist workers side by side: the first process
    # to need a venv makes it, the others wait on the lock and reuse it.
    where.parent.mkdir(parents=True, exist_ok=True)
    with open(where.parent / f".{where.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        stamp = where / ".env-key"
        if not stamp.exists() or stamp.read_text() != key:
            shutil.rmtree(where, ignore_errors=True)
            python = where / "bin" / "python"
            if installer == "uv":
                subprocess.run([UV, "venv", "--quiet", "--seed", "--python", sys.executable, where], check=True, env=UV_ENV)
                subprocess.run([UV, "pip", "install", "--quiet", "--python", python, *install], cwd=ROOT, check=True,
                               env=UV_ENV)
            else:
                venv.create(where, with_pip=True)
                # --no-compile: Python compiles only the modules that are imported, when they are
                # (the hub's venv: 14.7 s of CPU instead of 19.5 s, warm pip cache)
                subprocess.run([python, "-m", "pip", "install", "--quiet", "--no-compile",
                                "--disable-pip-version-check", *install], cwd=ROOT, check=True)
            stamp.write_text(key)
    return where / "bin" / "python"


def binder_python():
    install = ["-r", "binder/requirements.txt", NBVAL]
    key = hashlib.sha256(b"".join(p.read_bytes() for p in sorted((ROOT / "binder").iterdir()))
                         + (ROOT / "pyproject.toml").read_bytes() + " ".join(install).encode()).hexdigest()
    return _venv(ENV, key, install, installer="pip")


def colab_python(where):
    """A Colab-like venv at ``where``, without the course library: a layer over the venv
    of Colab's versions (made once, in _build, and never changed), which it sees through a
    ``.pth`` file; what pip installs there (the set-up cell's course library) goes into
    the layer's own site-packages. So the Colab route and the site's download
    (tests/book/test_executed_notebooks.py), run side by side by `make test`, each start from
    Colab's packages alone, and neither installs into the other's venv."""
    base = _venv(COLAB_ENV, " ".join([*COLAB, NBVAL]), [*COLAB, NBVAL])
    venv.create(where, symlinks=True)  # no pip of its own: the base's, which installs here

    def purelib(python):
        return subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                              capture_output=True, text=True, check=True).stdout.strip()

    Path(purelib(where / "bin" / "python"), "colab.pth").write_text(purelib(base) + "\n")
    return where / "bin" / "python"


def hub_python():
    """The hub's venv, with the course library uninstalled (each call)."""
    python = _venv(HUB_ENV, " ".join(HUB), HUB)
    subprocess.run([str(python), "-m", "pip", "uninstall", "--quiet", "--yes", "bayes-course-lib"],
                   capture_output=True, check=False)
    return python


def freeze(python):
    """``{name: version}`` of what a venv has installed (pip's own view)."""
    out = subprocess.run([str(python), "-m", "pip", "list", "--format=freeze", "--disable-pip-version-check"],
                         capture_output=True, text=True, check=True).stdout
    return dict(line.lower().replace("_", "-").split("==") for line in out.split() if "==" in line)


def launch_tree(where=TREE):
    """Write the `notebooks` branch (chapters and exercises as .ipynb) into ``where``."""
    spec = importlib.util.spec_from_file_location("export_notebooks", ROOT / "tools" / "export_notebooks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.launch_tree(where)


def publish(tree, remote, branch=CONFIG["repository"]["branch"]):
    """Run tools/publish_notebooks.sh (what publish.yml runs) on ``tree``; the finished process."""
    return subprocess.run(["bash", str(ROOT / "tools" / "publish_notebooks.sh"), str(remote), branch],
                          cwd=ROOT, capture_output=True, text=True, env={**os.environ, "LAUNCH_TREE": str(tree)})


def published_clone(where):
    """Publish a fresh launch tree into a bare repository under ``where`` and clone its
    `notebooks` branch as a reader does; returns ``(remote, clone)``."""
    remote, clone = where / "origin" / REPO_NAME, where / "reader" / REPO_NAME  # like GitHub: .../REPO_NAME
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    result = publish(launch_tree(where / "launch-tree"), remote)
    assert result.returncode == 0, result.stderr
    subprocess.run(["git", "clone", "-q", "--branch", CONFIG["repository"]["branch"], str(remote), str(clone)],
                   check=True)
    return remote, clone


def notebook_pages():
    """The pages of ``_toc.yml`` that are notebooks (the theme gives only those launch buttons):
    chapters with a kernelspec in their header, and the released exercises."""
    def files(entries):
        for entry in entries:
            if "file" in entry:
                yield entry["file"]
            yield from files(entry.get("chapters", []) + entry.get("sections", []))

    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    pages = list(files([{"file": toc["root"]}] + [c for part in toc["parts"] for c in part["chapters"]]))
    return [page for page in pages if page.startswith("_generated/exercises/")
            or "kernelspec:" in (ROOT / f"{page}.md").read_text().split("\n---", 1)[0]]


def button_links(pagename, where, hub=""):
    """``{"Binder": url, "Colab": url, "JupyterHub": url}``: the launch buttons the theme
    (sphinx-book-theme's own code) makes for ``pagename`` from _config.yml, with the
    files the book build has (the page's source and the .ipynb that `make prepare` writes
    beside each chapter)."""
    from sphinx_book_theme.header_buttons.launch import add_launch_buttons

    source = f"{pagename}.md" if (ROOT / f"{pagename}.md").is_file() else f"{pagename}.ipynb"
    for name in {source, f"{pagename}.ipynb", f"jupyter_execute/{pagename}.ipynb"}:
        (where / name).parent.mkdir(parents=True, exist_ok=True)
        (where / name).write_text("{}")
    owner, repo = CONFIG["repository"]["url"].rstrip("/").split("/")[-2:]

    class App:  # the parts of a Sphinx application the theme reads
        config = {"html_theme_options": {"launch_buttons": {**CONFIG["launch_buttons"], "jupyterhub_url": hub},
                                         "repository_branch": CONFIG["repository"]["branch"],
                                         "path_to_docs": CONFIG["repository"]["path_to_book"]}}
        outdir = str(where / "html")
        env = type("Env", (), {"metadata": {pagename: {"kernelspec": {}}},
                               "doc2path": staticmethod(lambda name: str(where / source))})

    context = {"header_buttons": [], "pagename": pagename, "sourcename": source,
               "page_source_suffix": Path(source).suffix,
               "github_url": "https://github.com", "github_user": owner, "github_repo": repo}
    add_launch_buttons(App, pagename, "page.html", context, None)
    return {b["text"]: b.get("url") for group in context["header_buttons"] for b in group["buttons"]}


def named_notebook(route, url):
    """The path, inside the `notebooks` branch, of the notebook a launch link opens."""
    if route == "Colab":  # .../github/OWNER/REPO/blob/BRANCH/PATH
        return urlsplit(url).path.split(f"/blob/{CONFIG['repository']['branch']}/", 1)[1]
    urlpath = parse_qs(urlsplit(url).query)["urlpath"][0]
    path = urlpath.split("lab/tree/", 1)[1]
    return path.split("/", 1)[1] if route == "JupyterHub" else path  # the hub's names the clone folder


# The notebooks are executed as tests by pytest's nbval plugin, as the course's
# specification names it, run with the venv's own python (nbval installed there, in the
# version the test extra of pyproject.toml names): `--nbval-lax` runs every code cell in
# order in one fresh kernel of that venv (`--nbval-current-env`), started in the
# notebook's folder; a cell that raises fails, outputs are not compared. Each cell is one
# nbval test, so the report names the failing cell with its traceback. `-c /dev/null`:
# no pytest configuration of a checkout around the notebook applies.
# nbval's kernel client is jupyter_client's blocking one (no asyncio poll, the one that
# now and then missed a reply under nbclient: lib/notebooks/polls.py); a cell that hangs
# fails after 240 s, far more than any cell here takes.
NBVAL = next(d for d in tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["test"]
             if d.startswith("nbval"))


def run_notebooks(python, notebooks, **env):
    """``{notebook: None, or what failed}``: ``notebooks`` run top to bottom by one
    ``pytest --nbval-lax`` in ``python``'s venv, each in a fresh kernel of its own started
    in its own folder, in the order given (one pytest start for them all: on 2 cores a
    start costs about 3 s of CPU). A notebook passes only when nbval ran each of its code
    cells without error; a failure names the cell, with its traceback."""
    notebooks = [Path(n) for n in notebooks]
    root = Path(os.path.commonpath([n.parent for n in notebooks]))
    names = [str(n.relative_to(root)) for n in notebooks]
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "nbval.xml"
        result = subprocess.run([str(python), "-m", "pytest", "--nbval-lax", "--nbval-current-env",
                                 "--nbval-cell-timeout=240", "-c", os.devnull, "--rootdir", str(root),
                                 "-p", "no:cacheprovider", "-q", "--tb=short", "--color=no",
                                 "--continue-on-collection-errors", "--junitxml", str(report), *names],
                                cwd=root, capture_output=True, text=True,
                                env={**{k: v for k, v in os.environ.items() if k != "PYTEST_ADDOPTS"},  # not the outer run's
                                     "BAYES_COURSE_DATA": DATA, "PYDEVD_DISABLE_FILE_VALIDATION": "1", **env})
        cases = list(ElementTree.parse(report).getroot().iter("testcase")) if report.exists() else []
    output = re.sub(r"\x1b\[[0-9;]*m", "", result.stdout[-6000:] + result.stderr[-2000:])  # no colours
    failures = {}
    for notebook, name in zip(notebooks, names):
        try:
            cells = sum(c.cell_type == "code" for c in nbformat.read(notebook, as_version=4).cells)
        except Exception:  # noqa: BLE001 (not a notebook: nbval's report says why)
            cells = "unreadable"
        mine = [c for c in cases if c.get("classname") == name.replace("/", ".")]  # junit's class: the path
        outcome = {c: next((e for e in c if e.tag in ("failure", "error", "skipped")), None) for c in mine}
        failed = [(c, e) for c, e in outcome.items() if e is not None and e.tag != "skipped"]
        passed = [c for c, e in outcome.items() if e is None]
        if len(passed) == cells:
            failures[notebook] = None
            continue
        detail = "\n".join(f"{name}::{c.get('name')}\n{e.text or e.get('message', '')}"
                           for c, e in failed) if failed else output
        failures[notebook] = (f"nbval: {len(failed)} failed, {len(passed)} passed ({cells} code cells)\n"
                              + re.sub(r"\x1b\[[0-9;]*m", "", detail))
    return failures


# What a route runs of a notebook when the book build's execution stands for the rest
# (tests/launch/test_launch.py, tests/browser/test_widget_latency.py; CONTRIBUTING.md).
def _code(cell):
    """A code cell's source as Python (IPython magics and shell lines left out)."""
    return "\n".join(line for line in cell.source.splitlines() if not line.lstrip().startswith(("%", "!")))


def _modules(node):
    """The top-level modules an import statement names."""
    if isinstance(node, ast.ImportFrom):
        return {(node.module or "").split(".")[0]}
    return {alias.name.split(".")[0] for alias in node.names}


def _imports(cell):
    """``(top, nested)``: a code cell's import statements at its top level, and those inside
    a ``try``, ``if``, function or other block."""
    body = ast.parse(_code(cell)).body
    top = [node for node in body if isinstance(node, (ast.Import, ast.ImportFrom))]
    nested = [n for s in body if s not in top for n in ast.walk(s) if isinstance(n, (ast.Import, ast.ImportFrom))]
    return top, nested


def nested_modules(notebooks):
    """The top-level modules that ``notebooks`` import inside a block (a guarded import)."""
    return set().union(*(_modules(n) for path in notebooks
                         for cell in nbformat.read(path, as_version=4).cells[1:] if cell.cell_type == "code"
                         for n in _imports(cell)[1]))


def missing_modules(python, modules, **env):
    """Those of ``modules`` (top-level names) that ``python``'s venv cannot import."""
    script = "import importlib.util, sys; print(' '.join(m for m in sys.argv[1:] if importlib.util.find_spec(m) is None))"
    out = subprocess.run([str(python), "-c", script, *sorted(modules)], cwd="/", capture_output=True, text=True,
                         check=True, env={**os.environ, **env}).stdout
    return set(out.split())


def binder_imports(notebook, missing=None):
    """What the Binder route runs of ``notebook`` (a path, or a notebook read) besides its
    set-up cell: ``None`` when all of it runs (its code depends on what is installed: it
    imports, inside a ``try``, ``if`` or function, a module the Binder venv lacks, so it
    takes another branch there than in the book build; ``missing``: the top-level module
    names the venv lacks, None when not known, so that any guarded import counts), else
    the import statements of its code cells, guarded ones included (IPython magics and
    shell lines left out)."""
    nb = notebook if isinstance(notebook, nbformat.NotebookNode) else nbformat.read(notebook, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code[0].id == "course-setup", notebook
    statements = []
    for cell in code[1:]:
        top, nested = _imports(cell)
        if any(missing is None or _modules(node) & missing for node in nested):
            return None
        statements += [ast.unparse(node) for node in top + nested]
    return list(dict.fromkeys(statements))


def binder_runs(notebooks, missing=None):
    """What the Binder route runs for ``notebooks`` (which share one set-up cell), as
    ``[(notebook to run, the notebooks it stands for)]``: each notebook whose code depends
    on what is installed (:func:`binder_imports` with ``missing``), whole; then, for all
    the others, one notebook of the set-up cell and, in one cell, the import statements of
    them all (an import works in the venv or fails, whatever was imported before it), run
    in the first one's folder."""
    runs, statements, covered = [], [], []
    for path in notebooks:
        nb = nbformat.read(path, as_version=4)
        imports = binder_imports(nb, missing)
        if imports is None:
            runs.append((nb, [path]))
        else:
            statements += imports
            covered.append((path, nb))
    if covered:
        nb = covered[0][1]
        nb.cells = [nb.cells[0], nbformat.v4.new_code_cell("\n".join(dict.fromkeys(statements)))]
        runs.append((nb, [path for path, _ in covered]))
    return runs


# Methods that read an object and leave it as it was: a cell that only calls these on a
# name does not change it (``groups.index(g)``, ``model.predict(x)``). Any other method
# call on a name counts as a change (``rng.normal()``, ``data.sort()``, ``model.fit()``).
READING_METHODS = {"index", "count", "get", "keys", "values", "items", "copy", "startswith", "endswith",
                   "predict", "predict_proba", "predict_log_proba", "score", "decision_function",
                   "mean", "sum", "max", "min", "std", "var", "argmax", "argmin", "argsort", "nonzero",
                   "any", "all", "dot", "round", "reshape", "astype", "tolist", "toarray", "diagonal",
                   "ravel", "cumsum", "prod", "item", "format", "join", "split", "strip", "lower", "upper"}


def _names(code, modules=frozenset(), tree=None):
    """``(read, assigned, changed)``: the global names a cell's ``code`` reads (in its
    functions and comprehensions too), binds, and may change in place (a method called on it
    that is not one of READING_METHODS, an item or attribute set on it, or passed to a call
    made for its side effect: ``rng.shuffle(data)``). Names local to a function or a
    comprehension are none of these. A function called from a module of ``modules``
    (``np.arange``) changes no name. ``tree``: ``code`` parsed already, if it was."""
    table = symtable.symtable(code, "<cell>", "exec")
    read = {s.get_name() for s in table.get_symbols() if s.is_referenced()}
    assigned = {s.get_name() for s in table.get_symbols() if s.is_assigned() or s.is_imported() or s.is_namespace()}
    scopes = list(table.get_children())
    while scopes:  # functions, classes, lambdas, comprehensions
        scope = scopes.pop()
        scopes += scope.get_children()
        for symbol in scope.get_symbols():
            if symbol.is_global():
                read.add(symbol.get_name())
                if symbol.is_declared_global() and symbol.is_assigned():
                    assigned.add(symbol.get_name())
    changed = set()
    for node in ast.walk(tree or ast.parse(code)):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            call = node.value
            changed |= {a.id for a in [*call.args, *(k.value for k in call.keywords)] if isinstance(a, ast.Name)}
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name) \
                and node.func.value.id not in modules and node.func.attr not in READING_METHODS:
            changed.add(node.func.value.id)
        elif isinstance(node, (ast.Subscript, ast.Attribute)) and isinstance(node.ctx, ast.Store) \
                and isinstance(node.value, ast.Name):
            changed.add(node.value.id)
    return read, assigned, changed & (read | assigned)  # (a local name changes nothing global)


def widget_cells(notebook):
    """``{index: None or source}``: the cells the interactive figures need, in notebook order.

    Kept whole (None): the set-up cell, each figure cell and the cell after it, every cell
    that assigns or changes a name a kept cell after it reads (first importing it included:
    an import cell may also set things up, a style or print options). Of every other cell
    with imports only its top-level import statements are given (the source to run): its
    other lines (a check's loop, a comparison with a peer library, a guarded import) are not
    needed. Plain modules (``import numpy as np``) are not changed by calling their functions."""
    cells = nbformat.read(notebook, as_version=4).cells
    code = [i for i, c in enumerate(cells) if c.cell_type == "code"]
    figures = [k for k, i in enumerate(code) if "interactive_figure(" in cells[i].source]
    assert figures, f"{notebook}: no interactive figure"
    keep = {0} | {k for k in figures} | {k + 1 for k in figures if k + 1 < len(code)}
    trees = {}
    for k in range(max(keep) + 1):
        try:
            trees[k] = ast.parse(_code(cells[code[k]]))
        except SyntaxError:  # not plain Python: run it
            trees[k] = None
    modules = {(a.asname or a.name).split(".")[0] for tree in trees.values() if tree
               for node in ast.walk(tree) if isinstance(node, ast.Import) for a in node.names}
    first_import = {}  # name -> the first cell whose imports bind it
    for k, tree in sorted(trees.items(), reverse=True):
        for node in tree.body if tree else []:
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                first_import |= {(a.asname or a.name).split(".")[0]: k for a in node.names}
    out, needed = {}, set()
    for k in range(max(keep), -1, -1):
        tree = trees[k]
        if tree is None:
            out[k] = None
            continue
        read, assigned, changed = _names(_code(cells[code[k]]), modules, tree)
        top = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
        imported = {(a.asname or a.name).split(".")[0] for n in top for a in n.names}
        first = any(first_import[name] == k for name in imported & needed)
        if k in keep or first or (assigned - imported | changed) & needed:
            out[k] = None
            needed |= read | changed
        elif top:
            out[k] = "\n".join(ast.unparse(n) for n in top)
    return {code[k]: source for k, source in sorted(out.items())}
