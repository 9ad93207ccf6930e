"""The ``libapi`` directive of the reference page (api.md): one module or package of ``lib``.

``{libapi} lib.bn`` expands to what autodoc and autosummary need for it:

* the module's docstring and a summary table of its public names (``__all__``, or every
  public function and class defined in it when it has none);
* the entries of those names, documented under the name a reader imports
  (``lib.bn.query``, not ``lib.bn.inference.query``), with their ``>>>`` examples;
* for a package, each public submodule: its docstring (so that ``:mod:`` links resolve)
  and the entries of the names it defines that the package does not export.

The page therefore follows the code: a name added to ``__all__`` or a new submodule
appears without editing api.md, and tests/book/test_api.py checks that every public module
of ``lib`` is on the page.
"""
import importlib
import inspect
import pkgutil
import re

from docutils import nodes
from docutils.statemachine import StringList
from sphinx.util.docutils import SphinxDirective


def public_names(module):
    """``__all__``, or the public functions, classes and UPPER_CASE constants the module
    defines."""
    if hasattr(module, "__all__"):
        return list(module.__all__)
    source = inspect.getsource(module)
    return [name for name, value in vars(module).items() if not name.startswith("_") and (
        (inspect.isfunction(value) or inspect.isclass(value)) and value.__module__ == module.__name__
        or name.isupper() and re.search(rf"^#:.*\n{name}\s*[:=]", source, re.MULTILINE))]


def submodules(package):
    """The package's public submodules, in name order."""
    if not hasattr(package, "__path__"):
        return []
    return [importlib.import_module(m.name)
            for m in sorted(pkgutil.iter_modules(package.__path__, package.__name__ + "."),
                            key=lambda m: m.name)
            if not m.name.rsplit(".", 1)[1].startswith("_")]


def defined_in(value, module):
    """Is ``value`` defined in ``module`` (or, for a package, in one of its submodules)?
    Constants have no ``__module__``: they belong where they are listed."""
    home = (value.__module__ if inspect.isfunction(value) or inspect.isclass(value)
            else module.__name__)
    return home == module.__name__ or home.startswith(module.__name__ + ".")


def constant_doc(module, name):
    """The ``#:`` comment above a constant's assignment, in ``module`` or its submodules."""
    for source_module in [module] + submodules(module):
        found = re.search(rf"((?:^#:.*\n)+){name}\s*[:=]", inspect.getsource(source_module),
                          re.MULTILINE)
        if found:
            return " ".join(line[2:].strip() for line in found.group(1).splitlines())
    raise ValueError(f"{module.__name__}.{name} is public but has no '#:' comment to document it")


def entries(module, names):
    """autodoc directives for the ``names`` that ``module`` defines, documented under its
    name (names it imports from elsewhere are documented, and linked to, where they are
    defined)."""
    lines = [f".. currentmodule:: {module.__name__}", ""]
    for name in names:
        value = getattr(module, name)
        if not (inspect.isfunction(value) or inspect.isclass(value)):
            lines += [f".. py:data:: {name}", "", "   " + constant_doc(module, name), ""]
            continue
        if not defined_in(value, module):
            continue
        kind = ("autoexception" if inspect.isclass(value) and issubclass(value, BaseException)
                else "autoclass" if inspect.isclass(value)
                else "autofunction" if callable(value) else "autodata")
        lines += [f".. {kind}:: {name}"] + (["   :members:"] if kind == "autoclass" else []) + [""]
    return lines


def rst(name):
    """The reStructuredText the directive stands for."""
    module = importlib.import_module(name)
    names = public_names(module)
    lines = [f".. automodule:: {name}", ""]
    if names:
        lines += [f".. currentmodule:: {name}", "", ".. autosummary::", ""]
        lines += [f"   {n}" for n in names if callable(getattr(module, n))]
        lines += [""] + entries(module, names)
    exported = {id(getattr(module, n)) for n in names}
    for sub in submodules(module):
        lines += [f".. automodule:: {sub.__name__}", ""]
        lines += entries(sub, [n for n in public_names(sub) if id(getattr(sub, n)) not in exported])
    return lines


class LibAPI(SphinxDirective):
    """The directive, for a MyST page: its reStructuredText goes through MyST's
    ``eval-rst``, so that autodoc reads the docstrings as reStructuredText."""

    required_arguments = 1

    def run(self):
        node = nodes.container()
        text = ["````{eval-rst}", *rst(self.arguments[0]), "````"]
        self.state.nested_parse(StringList(text, "<libapi>"), self.content_offset, node)
        return node.children


def resolve_in_package(app, env, node, contnode):
    """A short name in a submodule's docstring (``:func:`query``` in ``lib.bn.inference``)
    links to the entry of its package (``lib.bn.query``), where the page documents it; a
    name imported from elsewhere links to where it is defined; failing both, a short name
    that only one entry of the page ends with links to that entry."""
    if node.get("refdomain") != "py":
        return None
    domain, target = env.get_domain("py"), node["reftarget"]
    module = node.get("py:module") or ""
    parts = module.split(".")
    candidates = [".".join(parts[:i]) + "." + target for i in range(len(parts) - 1, 0, -1)]
    value = _lookup(target, module)
    if getattr(value, "__module__", None) and getattr(value, "__qualname__", None):
        home = value.__module__.split(".")
        candidates += [".".join(home[:i]) + "." + value.__qualname__ for i in range(len(home), 0, -1)]
    ends = [name for name in domain.objects if name.endswith("." + target)]
    candidates += ends if len(ends) == 1 else []
    for name in candidates:
        if name in domain.objects:
            return domain.resolve_xref(env, node["refdoc"], app.builder, node["reftype"], name,
                                       node, contnode)
    return None


def _lookup(target, module):
    """The object a dotted ``target`` names, absolute or relative to ``module``."""
    for name in (target, f"{module}.{target}"):
        head, _, attr = name.rpartition(".")
        try:
            return getattr(importlib.import_module(head), attr)
        except (ImportError, AttributeError, ValueError):
            continue
    return None


def setup(app):
    app.add_directive("libapi", LibAPI)
    app.connect("missing-reference", resolve_in_package)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
