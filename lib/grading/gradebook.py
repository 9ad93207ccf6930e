"""The gradebook: ``grades.csv`` (merged on a regrade), ``summary.csv`` and the summary text.

``grades.csv`` has the columns ``id, path, <questions>, total, note`` (one row per
submission, sorted by id; with a roster, one row per student). A submission that could
not be graded at all (no submission, not a notebook, two notebooks) has blank scores,
never 0, so that an LMS does not import a zero. The file is plain CSV, nothing else:
warnings of the run (graded without a sandbox or without cgroups) go to
``warnings.txt`` beside it (merged on a regrade; a first ``#`` line of an older
grades.csv is still read as one). Control characters and ANSI escape sequences are removed from every text
cell (:func:`clean`), so no cell can hold a line break. Text cells that a spreadsheet would take for a
formula (starting with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return) get a
leading ``'``. Files are written atomically (a temporary file, then ``os.replace``).
"""
import csv
import io
import math
import os
import re
import tempfile
from pathlib import Path

FORMULA = ("=", "+", "-", "@", "\t", "\r")
#: ANSI escape sequences: CSI (ESC [ or 0x9b ... final byte), OSC / DCS / PM / APC strings
#: (up to BEL or ESC \\), and two-character ESC sequences
ANSI = re.compile(r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]|(?:\x1b[\]PX^_]|[\x90\x9d\x9e\x9f])"
                  r"[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?|\x1b[ -~]?")


def atomic_write(path, text):
    """Write ``text`` to ``path`` through a temporary file and ``os.replace``."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.write(text)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def clean(text):
    """``text`` without ANSI escape sequences and control characters: a line or record
    separator of any kind (``\\n``, ``\\x1c``-``\\x1e``, ``\\x85``, ``\\u2028`` ...) becomes a
    space, any other character that is not printable is removed."""
    text = ANSI.sub("", str(text))
    return "".join(c if c.isprintable() else " " if c.isspace() else "" for c in text)


def cell(value):
    """A CSV cell: numbers as they are, text cleaned and neutralised against formulas."""
    if value is None:
        return ""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value
    text = clean(value)
    return "'" + text if text.startswith(FORMULA) else text


def _number(text):
    if text == "":
        return None
    value = float(text)
    return int(value) if value.is_integer() else value


def read_grades(path, columns):
    """``(rows by id, comment lines)`` of an existing grades.csv with these ``columns``,
    read by a CSV reader (comment lines only at the top)."""
    with open(path, encoding="utf-8", newline="") as f:
        text = f.read()
    comments = []
    while text.startswith("#"):
        line, _, text = text.partition("\n")
        comments.append(line[1:].strip())
    reader = csv.reader(io.StringIO(text, newline=""))
    header = next(reader, None)
    if header != columns:
        raise ValueError(f"{path}: its columns {header} are not those of this exercise "
                         f"{columns}; use another --out folder")
    rows = {}
    for row in reader:
        if len(row) == len(columns):
            rows[row[0]] = [row[0], row[1], *map(_number, row[2:-1]), row[-1]]
    return rows, comments


def write(out, points, results, merge=False, warning=""):
    """Write ``out/grades.csv`` (merged with the existing one when ``merge``) and
    ``out/summary.csv``; returns ``(rows, summary text)`` for the whole gradebook.

    ``points``: ``{question: points}`` in order; ``results``: as :func:`grade.grade_one`.
    """
    out, names = Path(out), list(points)
    columns = ["id", "path", *names, "total", "note"]
    rows, old_warnings = {}, []
    if merge and (out / "grades.csv").exists():
        rows, old_warnings = read_grades(out / "grades.csv", columns)
        if (out / "warnings.txt").exists():
            old_warnings += (out / "warnings.txt").read_text(encoding="utf-8").splitlines()
    for r in results:
        graded = r.get("graded", True)
        rows[r["id"]] = [r["id"], r["path"], *(t["score"] if graded else None for t in r["tests"]),
                         r["score"] if graded else None, r["output"]]
    warnings = list(dict.fromkeys(clean(w) for w in [*warning.splitlines(), *old_warnings] if w))
    if warnings:
        atomic_write(out / "warnings.txt", "".join(f"{w}\n" for w in warnings))
    elif (out / "warnings.txt").exists():
        os.unlink(out / "warnings.txt")
    table = io.StringIO()
    writer = csv.writer(table)
    writer.writerow(columns)
    ordered = [rows[k] for k in sorted(rows)]
    writer.writerows([cell(v) for v in row] for row in ordered)
    atomic_write(out / "grades.csv", table.getvalue())
    return ordered, summary(out, points, ordered)


def summary(out, points, rows):
    """Per-question means and a histogram of totals: ``out/summary.csv`` and a text."""
    names, total_max = list(points), sum(points.values())
    table = io.StringIO()
    writer = csv.writer(table)
    writer.writerow(["kind", "name", "max_score", "mean", "count"])
    lines = [f"{len(rows)} submissions"]
    for i, name in enumerate([*names, "total"]):
        values = [row[2 + i] for row in rows if row[2 + i] is not None]
        mean = sum(values) / len(values) if values else 0.0
        top = points.get(name, total_max)
        writer.writerow(["question" if name != "total" else "total", name, top, round(mean, 4), len(values)])
        lines.append(f"  {name:>10}: mean {mean:.2f} of {top}")
    totals = [row[-2] for row in rows if row[-2] is not None]
    lines.append("histogram of totals:")
    width = max(1, math.ceil(total_max / 10)) if total_max else 1
    for low in range(0, int(math.floor(total_max)) + 1, width):
        high = low + width
        last = high > total_max
        count = sum(low <= t < high or (last and t >= low) for t in totals)
        label = f"{low}" if width == 1 else f"{low}-{min(high, total_max) if last else high - 1}"
        writer.writerow(["histogram", label, "", "", count])
        lines.append(f"  {label:>7} | {'#' * count} {count}")
    atomic_write(Path(out) / "summary.csv", table.getvalue())
    return "\n".join(lines)
