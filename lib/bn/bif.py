"""Reading Bayesian networks in the BIF format (Bayesian Interchange Format).

Chapter 6, section "Variable elimination" (the ALARM network) and section "Learning the
structure" (ASIA) load the networks of the bnlearn repository shipped in
``lib/data/networks/`` through :func:`read_bif`. The reader is strict: a file that does not
define every variable and every CPT row exactly once is refused with an error naming
the block, never read as some other network.
"""
import gzip
import re
import zlib
from pathlib import Path

import numpy as np

from .network import BayesNet

__all__ = ["read_bif"]

_VARIABLE = re.compile(r"variable\s+([^\s{]+)\s*\{\s*type\s+discrete\s*\[\s*(\d+)\s*\]\s*\{([^}]*)\}")
_BLOCK = re.compile(r"probability\s*\(\s*([^)|]+?)\s*(?:\|\s*([^)]*))?\)\s*\{([^}]*)\}")


def _numbers(text, where):
    try:
        return [float(v) for v in text.replace(",", " ").split()]
    except ValueError:
        raise ValueError(f"{where}: probabilities must be numbers, got {text.strip()!r}") from None


def _table(child, parents, variables, body, file):
    """The CPT of one probability block, shape (parent cards..., child card)."""
    where = f"{file}: probability block of {child!r}"
    shape = [len(variables[p]) for p in parents] + [len(variables[child])]
    table = np.full(shape, np.nan)
    for line in body.split(";"):
        line = line.strip()
        if not line:
            continue
        if line.startswith("table"):
            vals = _numbers(line[5:], where)
            if len(vals) != table.size:
                raise ValueError(f"{where}: 'table' has {len(vals)} numbers, expected {table.size}")
            # bnlearn's convention: the child's state varies slowest
            table = np.array(vals).reshape([shape[-1]] + shape[:-1]).transpose(
                list(range(1, len(shape))) + [0])
        elif line.startswith("("):
            if ")" not in line:
                raise ValueError(f"{where}: unclosed parenthesis in {line!r}")
            cfg, vals = line[1:].split(")", 1)
            labels = [s.strip() for s in cfg.split(",")]
            if len(labels) != len(parents):
                raise ValueError(f"{where}: row ({cfg}) names {len(labels)} parent state(s); "
                                 f"the block has {len(parents)} parents {parents}")
            key = []
            for p, s in zip(parents, labels):
                if s not in variables[p]:
                    raise ValueError(f"{where}: {s!r} is not a state of parent {p!r} "
                                     f"(states: {variables[p]})")
                key.append(variables[p].index(s))
            key = tuple(key)
            if not np.all(np.isnan(table[key])):
                raise ValueError(f"{where}: row ({cfg}) is given twice")
            row = _numbers(vals, where)
            if len(row) != shape[-1]:
                raise ValueError(f"{where}: row ({cfg}) has {len(row)} probabilities, "
                                 f"expected {shape[-1]}")
            table[key] = row
        elif line.startswith("default"):
            raise ValueError(f"{where}: BIF 'default' entries are not supported")
        else:
            raise ValueError(f"{where}: cannot read {line!r}")
    if np.any(np.isnan(table)):
        raise ValueError(f"{where} does not cover every parent configuration")
    return table


def read_bif(path):
    """Read a discrete network in the BIF format (``.bif`` or ``.bif.gz``), as
    published by the bnlearn repository (``lib/data/networks/``).

    Raises ``ValueError`` for a variable declared twice or with a wrong number of
    states, a probability block that is duplicated, names an undeclared variable or
    parent, or has a row naming too few or unknown parent states, a row given twice,
    a missing row, a wrong number of probabilities or rows that do not sum to one;
    and for a variable without a block (the network's own checks, such as cycles,
    follow).

    Used in: Chapter 6, section "Variable elimination" (the ALARM network) and the tests.

    Examples
    --------
    >>> from pathlib import Path
    >>> import lib
    >>> net = read_bif(Path(lib.__file__).parent / "data" / "networks" / "asia.bif.gz")
    >>> net.names
    ['asia', 'tub', 'smoke', 'lung', 'bronc', 'either', 'xray', 'dysp']
    """
    path = Path(path)
    opener = gzip.open if path.suffix == ".gz" else open
    try:
        with opener(path, "rt") as f:
            text = f.read()
    except (EOFError, gzip.BadGzipFile, zlib.error, UnicodeDecodeError) as e:
        raise ValueError(f"{path}: cannot read it as {'gzip-compressed ' if opener is gzip.open else ''}"
                         f"BIF text (truncated or corrupt file?): {e}") from None
    text = re.sub(r"//[^\n]*", "", text)
    variables = {}
    for m in _VARIABLE.finditer(text):
        name, k, states = m.group(1), int(m.group(2)), [s.strip() for s in m.group(3).split(",")]
        if name in variables:
            raise ValueError(f"{path.name}: variable {name!r} is declared twice")
        if len(states) != k:
            raise ValueError(f"{path.name}: variable {name!r} declares {k} states but lists {len(states)}")
        variables[name] = states
    if not variables:
        raise ValueError(f"{path.name}: no discrete variable declarations found (not a BIF file?)")
    specs = {}
    for m in _BLOCK.finditer(text):
        child = m.group(1).strip()
        parents = [p.strip() for p in m.group(2).split(",")] if m.group(2) else []
        if child not in variables:
            raise ValueError(f"{path.name}: probability block for undeclared variable {child!r}")
        undeclared = [p for p in parents if p not in variables]
        if undeclared:
            raise ValueError(f"{path.name}: probability block of {child!r} names undeclared "
                             f"parent(s) {undeclared}")
        if child in specs:
            raise ValueError(f"{path.name}: two probability blocks for {child!r}")
        specs[child] = (parents, _table(child, parents, variables, m.group(3), path.name))
    missing = [v for v in variables if v not in specs]
    if missing:
        raise ValueError(f"{path.name}: no probability block for {missing}")
    try:
        return BayesNet([(n, variables[n], specs[n][0], specs[n][1]) for n in variables])
    except ValueError as err:
        raise ValueError(f"{path.name}: {err}") from None
