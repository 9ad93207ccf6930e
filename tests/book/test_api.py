"""The reference page api.md and the examples it shows.

The page is laid out by ``_ext/libapi.py`` from the code (``__all__``, submodules,
``#:`` comments), so these tests check what the code cannot: that every public module
of ``lib`` is on the page, that the examples the page promises exist (every public name
of ``lib.bn``, every estimator's ``fit`` and ``predict``) and that ``make unit`` runs
them as doctests. The strict build of the page is part of ``make book``; the built page
is read back in tests/book/test_executed_notebooks.py.
"""
import importlib
import inspect
import pkgutil
import re
import sys
from pathlib import Path

import pytest

import lib
import lib.bn

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "_ext"))
import libapi  # noqa: E402

PAGE = (ROOT / "api.md").read_text()


def public_modules():
    return [m.name for m in pkgutil.iter_modules(lib.__path__, "lib.")
            if not m.name.split(".")[1].startswith("_")]


def estimators():
    """Public classes of lib with both fit and predict, where they are defined."""
    found = {}
    for info in pkgutil.walk_packages(lib.__path__, "lib."):
        if "._" in info.name or info.name.startswith("lib.grading"):
            continue
        for name, value in vars(importlib.import_module(info.name)).items():
            if (inspect.isclass(value) and not name.startswith("_") and value.__module__ == info.name
                    and callable(getattr(value, "fit", None)) and callable(getattr(value, "predict", None))):
                found[f"{info.name}.{name}"] = value
    return found


def test_every_public_module_of_lib_is_on_the_page_and_the_page_in_the_book():
    listed = re.findall(r"^```\{libapi\} (\S+)$", PAGE, re.MULTILINE)
    assert sorted(listed) == sorted(public_modules())
    assert re.search(r"^\s*- file: api$", (ROOT / "_toc.yml").read_text(), re.MULTILINE)


@pytest.mark.parametrize("name", lib.bn.__all__)
def test_every_public_name_of_lib_bn_has_an_example(name):
    assert ">>>" in (inspect.getdoc(getattr(lib.bn, name)) or ""), f"lib.bn.{name} has no >>> example"


@pytest.mark.parametrize("name", sorted(estimators()))
def test_every_estimator_shows_fit_and_predict(name):
    cls = estimators()[name]
    examples = "".join(inspect.getdoc(f) or "" for f in (cls, cls.fit, cls.predict))
    code = "\n".join(line for line in examples.splitlines() if line.lstrip().startswith((">>>", "...")))
    assert ".fit(" in code and ".predict(" in code, f"{name}: no example calls fit and predict"


def test_the_examples_run_as_doctests_in_make_unit():
    """The examples above are tested only because `make unit` collects lib's doctests."""
    rule = re.search(r"^unit:.*?(?=^\S)", (ROOT / "Makefile").read_text(), re.MULTILINE | re.DOTALL)
    assert "--doctest-modules lib" in rule.group(0)


def test_the_layout_documents_each_name_once_where_it_is_defined():
    text = "\n".join(libapi.rst("lib.bn"))
    # lib.bn.query is documented under the package, not again under lib.bn.inference
    assert text.count(".. autofunction:: query\n") == 1
    assert re.search(r"currentmodule:: lib\.bn\n\n\.\. autosummary::", text)
    # a name lib.bn re-exports from lib.errors is linked, not documented twice
    assert "autoexception:: ImpossibleEvidenceError" not in text
    assert "ImpossibleEvidenceError" in "\n".join(libapi.rst("lib.errors"))
    # a submodule's own public names (not exported by the package) get entries
    constraint = text[text.index(".. automodule:: lib.bn.constraint"):]
    assert ".. autoclass:: PCResult" in constraint.split(".. automodule::")[1]


def test_a_public_constant_without_a_doc_comment_is_refused(tmp_path, monkeypatch):
    (tmp_path / "libapi_probe.py").write_text(
        '__all__ = ["DOCUMENTED", "BARE"]\n#: Documented, as constants must be.\nDOCUMENTED = 1\nBARE = 2\n')
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ValueError, match="libapi_probe.BARE is public but has no '#:' comment"):
        libapi.rst("libapi_probe")
    (tmp_path / "libapi_probe.py").write_text('__all__ = ["DOCUMENTED"]\n#: Documented, as constants must be.\nDOCUMENTED = 1\n')
    sys.modules.pop("libapi_probe", None)
    assert ".. py:data:: DOCUMENTED" in libapi.rst("libapi_probe")


NAME_LIST = re.compile(r"^(?:\\?\*)*[A-Za-z_]\w*(\s*,\s*(?:\\?\*)*[A-Za-z_]\w*)*$")
FIELD = re.compile(r"^:(?:param|type|raises|ivar|vartype)\s+([^:]+):", re.MULTILINE)


def documented():
    """(qualified name, docstring) of every public function, class and public method or
    property of a class, in every module of lib (its public names as the page takes them,
    ``libapi.public_names``)."""
    found = {}
    for info in pkgutil.walk_packages(lib.__path__, "lib."):
        module = importlib.import_module(info.name)
        for name in libapi.public_names(module):
            obj = getattr(module, name)
            if not (inspect.isfunction(obj) or inspect.isclass(obj)):
                continue
            found[f"{obj.__module__}.{obj.__qualname__}"] = inspect.getdoc(obj)
            if inspect.isclass(obj):
                for attr, member in vars(obj).items():
                    if not attr.startswith("_") and (inspect.isfunction(member) or isinstance(member, property)):
                        found[f"{obj.__module__}.{obj.__qualname__}.{attr}"] = inspect.getdoc(member)
    return {name: doc for name, doc in found.items() if doc}


def test_napoleon_reads_every_section_as_written():
    """A numpy-style section (Parameters, Attributes, Raises, ...) runs to the next section
    header, so prose written after it becomes bogus entries on the API page ("Raises
    ``ValueError`` for unknown variables" shown as a parameter name, its markup raw). Every
    field napoleon makes names parameters, attributes or exceptions, nothing else."""
    from sphinx.ext.napoleon import Config
    from sphinx.ext.napoleon.docstring import NumpyDocstring
    config = Config(napoleon_use_param=True, napoleon_use_ivar=True)
    docs = documented()
    assert len(docs) > 100 and "lib.bn.inference.query" in docs
    bad = {name: fields for name, doc in docs.items()
           if (fields := [f for f in FIELD.findall(str(NumpyDocstring(doc, config))) if not NAME_LIST.match(f.strip())])}
    assert not bad, "prose read as fields (put it before the first section, or under its own header):\n" + "\n".join(
        f"{name}: {fields[:3]}" for name, fields in bad.items())
