"""The book's execution cache, keyed per notebook on the `lib` code it imports.

myst-nb's cache (jupyter-cache, in ``_build/.jupyter_cache``) re-executes a notebook
when its own code changes, but it cannot see a change to `lib/`. This script gives each
chapter and exercise notebook a key: the contents of every `lib` file the notebook
imports, directly or through other `lib` modules (read with ``ast``: ``import lib.x``,
``from lib.x import y``, ``from lib import x`` and relative imports inside `lib`, at any
depth, function-level imports included). Before a build (``make prepare``) the notebooks
whose key changed lose their cache record (and are touched, so Sphinx reads them again);
the others keep theirs. A change to ``lib/hmm/`` re-executes the chapters that import
``lib.hmm``, not all nine. A change under ``lib/data/`` changes every key (data files are
read by path, not imported).

Usage: python tools/exec_cache.py BUILD_DIR NOTEBOOK...   (prints what it invalidated)
"""
import ast
import functools
import hashlib
import json
import sys
from pathlib import Path

from check_executed import source_code as notebook_code  # a notebook's code cells

ROOT = Path(__file__).resolve().parents[1]


def module_file(root, name):
    """The file of `lib` module ``name`` (``lib.hmm`` -> lib/hmm/__init__.py), or None."""
    base = Path(root, *name.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


@functools.lru_cache(maxsize=4096)  # keyed on the code itself: an edit is a new key
def imported_lib_modules(code, package=None):
    """The `lib` modules that ``code`` imports (dotted names; ``package``: the package the
    code lives in, for relative imports). Cells that are not Python (magics) are skipped."""
    lines = [line for line in code.splitlines() if not line.lstrip().startswith(("%", "!"))]
    try:
        tree = ast.parse("\n".join(lines))
    except SyntaxError:
        return set()
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name == "lib" or a.name.startswith("lib.")}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                if not package:
                    continue
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parts + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            if base == "lib" or base.startswith("lib."):
                found.add(base)
                found |= {f"{base}.{a.name}" for a in node.names}  # `from lib import hmm`: a module
    return frozenset(found)


def lib_closure(root, modules):
    """Every `lib` file that importing ``modules`` runs: the modules, their parent packages'
    ``__init__.py`` files, and what those import in turn (names that are not modules, such
    as functions in ``from lib.x import f``, are dropped)."""
    files, todo = set(), list(modules)
    while todo:
        name = todo.pop()
        parts = name.split(".")
        for i in range(1, len(parts) + 1):
            path = module_file(root, ".".join(parts[:i]))
            if path is None or path in files:
                continue
            files.add(path)
            dotted = ".".join(parts[:i])
            package = dotted if path.name == "__init__.py" else dotted.rpartition(".")[0]
            todo += imported_lib_modules(path.read_text(), package)
    return files


def notebook_key(root, notebook):
    """A hash of the `lib` files ``notebook`` runs (names and contents) and of lib/data."""
    modules = set().union(*[imported_lib_modules(c) for c in notebook_code(notebook)])
    files = sorted(lib_closure(root, modules))
    files += sorted(p for p in (Path(root) / "lib" / "data").rglob("*") if p.is_file())
    digest = hashlib.sha256()
    for path in files:
        digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:32]


def stale_notebooks(old_keys, new_keys):
    """The notebooks whose key changed or that have no recorded key (sorted)."""
    return sorted(nb for nb, key in new_keys.items() if old_keys.get(nb) != key)


def invalidate(build, notebooks, root=ROOT):
    """Drop the cache records of the notebooks whose `lib` key changed since the last call;
    record the new keys in ``build/.lib-keys.json``. Returns the stale notebooks."""
    build = Path(build)
    record = build / ".lib-keys.json"
    old = json.loads(record.read_text()) if record.exists() else {}
    new = {str(Path(nb).resolve()): notebook_key(root, nb) for nb in notebooks}
    stale = stale_notebooks(old, new)
    if stale and (build / ".jupyter_cache").exists():
        from jupyter_cache import get_cache

        cache = get_cache(build / ".jupyter_cache")
        for rec in cache.list_cache_records():
            if str(Path(rec.uri).resolve()) in stale:
                cache.remove_cache(rec.pk)
    for nb in stale:
        Path(nb).touch()  # Sphinx reads (and so myst-nb executes) only the pages it sees changed
    build.mkdir(parents=True, exist_ok=True)
    if stale:  # else the record holds these keys already
        record.write_text(json.dumps({**old, **new}, indent=1, sort_keys=True) + "\n")
    return stale


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__.split("Usage: ")[1])
    stale = invalidate(sys.argv[1], sys.argv[2:])
    names = [Path(nb).relative_to(ROOT) if Path(nb).is_relative_to(ROOT) else nb for nb in stale]
    print(f"execution cache: {len(stale)} of {len(sys.argv) - 2} notebooks to re-execute"
          + (": " + ", ".join(map(str, names)) if stale else ""))
