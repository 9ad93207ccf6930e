"""What is wrong with a broken notebook, in a few words for the gradebook's ``note``.

* cells of the release that the student deleted (matched by the stable cell ids that
  :func:`lib.grading.source.release` gives and Jupyter keeps): ``check cell deleted``,
  ``import cell deleted (import numpy as np)``, ``cell deleted (prior = ...)``;
* the first cell that failed: ``cell 7 failed (SyntaxError: ...): answers after it that
  use its names could not be checked``, once, instead of a cascade: a later question
  whose test raised ``NameError`` for a name that cell defines says "not checked: cell 7
  failed" rather than the test's unrelated hint.
"""
import json
import re

DEFINES = re.compile(r"^\s*(?:def|class)\s+([A-Za-z_]\w*)|^([A-Za-z_]\w*)\s*(?:,\s*[A-Za-z_]\w*\s*)*=(?!=)"
                     r"|\bimport\s+[\w.]+\s+as\s+([A-Za-z_]\w*)|^\s*import\s+([A-Za-z_]\w*)", re.MULTILINE)
NAME_ERROR = re.compile(r"NameError: name '([A-Za-z_]\w*)' is not defined")


def cells_summary(cells, budget=2**18):
    """What the grader needs of a notebook's cells, sent by the sandbox (which parses the
    notebook: the grader never does): each cell's id and the start of a code cell's source,
    at most ``budget`` bytes of JSON-encoded source in all."""
    out = []
    for c in cells:
        c = c if isinstance(c, dict) else {}
        source = c.get("source") if c.get("cell_type") == "code" else ""
        keep = source[:1000] if isinstance(source, str) else ""
        if (budget := budget - len(json.dumps(keep))) < 0:
            keep = ""
        cid = c.get("id")
        out.append({"id": cid[:100] if isinstance(cid, str) else None, "source": keep})
    return out


def cells_sent(events):
    """The cells of :func:`cells_summary` from the sandbox's events ([] when none came)."""
    cells = next((e["cells"] for e in events if isinstance(e.get("cells"), list)), [])
    return [{"id": c.get("id"), "source": c.get("source")} for c in cells if isinstance(c, dict)]


def without_check_cells(events, cells):
    """``events`` without the failures of ``check("q")`` cells: the grader does not need
    them, and with the check cell deleted each would blame ``check`` (said once instead)."""
    def is_check(n):
        source = cells[n - 1].get("source", "") if isinstance(n, int) and 0 < n <= len(cells) else ""
        return isinstance(source, str) and re.fullmatch(r"\s*check\(\s*['\"]\w+['\"]\s*\)\s*", source)
    return [e for e in events if not ("cell" in e and is_check(e["cell"]))]


def defined_names(source):
    """Names a cell's source defines at top level (read by pattern: it may not parse)."""
    return {n for groups in DEFINES.findall(source) for n in groups if n}


def deleted_cells(cells, released):
    """Short descriptions of the released code cells missing from ``cells`` (by id; []
    when the submission keeps no ids of the release, as an old nbformat would not)."""
    ids = {c.get("id") for c in cells}
    code = [c for c in released.cells if c.cell_type == "code" and c.get("id")]
    if not ids & {c.id for c in code}:
        return []
    out = []
    for c in code:
        if c.id in ids or c.metadata.get("grading", {}).get("question"):
            continue  # answer cells: a missing answer shows in its question
        first = next((line.strip() for line in c.source.splitlines()
                      if line.strip() and not line.lstrip().startswith("#")), "")
        if "check = Checker(" in c.source:
            out.append("check cell deleted")
        elif c.id == "course-setup":
            out.append("set-up cell deleted")
        elif re.search(r"^\s*(import|from)\s", c.source, re.MULTILINE):
            out.append(f"import cell deleted ({first[:40]})")
        else:
            out.append(f"cell deleted ({first[:40]})")
    return out


def first_failed(events):
    """The event of the first cell that raised an error, or None."""
    return next((e for e in events if "cell" in e and e.get("status") == "error"), None)


def flag(cells, events, tests, released=None):
    """``(note words, tests)``: the words for the note, and ``tests`` (``score_question``
    results) with a NameError caused by the first failed cell reported as such."""
    words = deleted_cells(cells, released) if released is not None else []
    failed = first_failed(events)
    if failed is None:
        return words, tests
    n = failed["cell"]
    message = str(failed.get("message") or "").strip().splitlines()
    reason = message[-1][:80] if message else "an error"
    words.append(f"cell {n} failed ({reason}): answers after it that use its names could not be checked")
    source = cells[n - 1].get("source", "") if 0 < n <= len(cells) else ""
    names = defined_names(source if isinstance(source, str) else "")
    for t in tests:
        missing = set(NAME_ERROR.findall(t.get("output", ""))) & names
        if missing and t["score"] < t["max_score"]:
            t["output"] = (f"not checked: cell {n} failed, and this answer uses "
                           f"{', '.join(sorted(missing))} from it")
    return words, tests
