"""tools/exec_cache.py: the execution cache keyed per notebook on the `lib` files it
imports. A change to one `lib` module re-executes only the notebooks that import it
(directly or through other `lib` modules), not every chapter."""
import re
import shutil
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
from exec_cache import imported_lib_modules, invalidate, notebook_key, stale_notebooks  # noqa: E402

CHAPTERS = sorted((ROOT / "chapters").glob("*.md"))


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    """A copy of lib/ and the chapters, to change a module without touching the checkout."""
    root = tmp_path_factory.mktemp("course")
    shutil.copytree(ROOT / "lib", root / "lib", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "chapters", root / "chapters")
    return root


def keys(root):
    return {nb.stem: notebook_key(root, nb) for nb in sorted((root / "chapters").glob("*.md"))}


def after_edit(root, module):
    """The chapters whose key changes when ``module`` (a path under root) is edited."""
    before = keys(root)
    path = root / module
    original = path.read_text()
    path.write_text(original + "\n# edited\n")
    try:
        return stale_notebooks(before, keys(root))
    finally:
        path.write_text(original)


def test_a_change_to_lib_hmm_re_executes_only_the_chapters_that_import_it(course):
    importers = [p.stem for p in CHAPTERS if re.search(r"\bfrom lib\.hmm\b|\bimport lib\.hmm\b|from lib import [^\n]*\bhmm\b",
                                                        p.read_text())]
    assert importers == ["08_hmm"]
    assert after_edit(course, "lib/hmm/fast.py") == importers  # lib.hmm imports its compiled recursions
    assert after_edit(course, "lib/hmm/__init__.py") == importers


def test_a_change_reaches_the_chapters_that_import_the_module_indirectly(course):
    """lib/_validation/core.py (the checking layer) is imported by the modules, not by the chapters."""
    assert "_validation" not in (ROOT / "chapters" / "01_bayesian_learning.md").read_text()
    stale = after_edit(course, "lib/_validation/core.py")
    assert "01_bayesian_learning" in stale and len(stale) >= 5


def test_a_change_to_one_chapters_plots_re_executes_that_chapter(course):
    assert after_edit(course, "lib/plots/bayes.py") == ["01_bayesian_learning"]


def test_a_change_to_the_shipped_data_re_executes_every_chapter(course):
    data = next(p for p in sorted((course / "lib" / "data").rglob("*.csv")))
    assert after_edit(course, data.relative_to(course)) == [p.stem for p in CHAPTERS]


def test_keys_do_not_change_without_an_edit(course):
    assert stale_notebooks(keys(course), keys(course)) == []


@pytest.mark.parametrize("code, modules", [
    ("from lib.hmm import viterbi", {"lib.hmm", "lib.hmm.viterbi"}),
    ("import lib.bayes as b\nimport numpy", {"lib.bayes"}),
    ("from lib import hmm, bn", {"lib", "lib.hmm", "lib.bn"}),
    ("%matplotlib inline\nfrom lib.em import (\n    em,\n)", {"lib.em", "lib.em.em"}),
    ("def f():\n    from lib.text import post_body", {"lib.text", "lib.text.post_body"}),
    ("import libfoo\nfrom library import x", set()),
])
def test_imported_lib_modules(code, modules):
    assert imported_lib_modules(code) == modules


def test_relative_imports_inside_lib():
    assert imported_lib_modules("from .fast import forward\nfrom ..bn import inference", "lib.hmm") == {
        "lib.hmm.fast", "lib.hmm.fast.forward", "lib.bn", "lib.bn.inference"}


def test_invalidate_drops_only_the_stale_records_of_a_jupyter_cache(tmp_path):
    from jupyter_cache import get_cache

    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "__init__.py").write_text("")
    (tmp_path / "lib" / "a.py").write_text("A = 1\n")
    (tmp_path / "lib" / "b.py").write_text("from .a import A\nB = A + 1\n")
    (tmp_path / "lib" / "c.py").write_text("C = 3\n")
    notebooks = {}
    for name, code in [("uses_b", "from lib.b import B"), ("uses_c", "from lib.c import C")]:
        nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(code)])
        notebooks[name] = tmp_path / f"{name}.ipynb"
        nbformat.write(nb, notebooks[name])
    build = tmp_path / "_build"
    cache = get_cache(build / ".jupyter_cache")

    def cached():
        return sorted(Path(r.uri).stem for r in cache.list_cache_records())

    def execute_all():  # what the book build does: one record per notebook it executes
        for path in notebooks.values():
            if Path(path).stem not in cached():
                cache.cache_notebook_file(str(path), check_validity=False)

    paths = [str(p) for p in notebooks.values()]
    assert len(invalidate(build, paths, root=tmp_path)) == 2  # first run: nothing recorded yet
    execute_all()
    assert invalidate(build, paths, root=tmp_path) == [] and cached() == ["uses_b", "uses_c"]
    (tmp_path / "lib" / "a.py").write_text("A = 2\n")  # reaches uses_b through lib.b
    assert invalidate(build, paths, root=tmp_path) == [str(notebooks["uses_b"].resolve())]
    assert cached() == ["uses_c"]
    execute_all()
    (tmp_path / "lib" / "c.py").write_text("C = 4\n")
    assert invalidate(build, paths, root=tmp_path) == [str(notebooks["uses_c"].resolve())]
    assert cached() == ["uses_b"]
