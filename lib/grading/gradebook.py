"""The gradebook: ``grades.csv`` (merged on a regrade), ``summary.csv`` and the summary text.

``grades.csv`` has the columns ``id, path, <questions>, total, note`` (one row per
submission, sorted by id). A first line starting with ``#`` is a comment saying the
grades were made without a sandbox. Text cells that a spreadsheet would take for a
formula (starting with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return) get a
leading ``'``. Files are written atomically (a temporary file, then ``os.replace``).
"""
import csv
import io
import math
import os
import tempfile
from pathlib import Path

FORMULA = ("=", "+", "-", "@", "\t", "\r")


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


def cell(value):
    """A CSV cell: numbers as they are, text neutralised against formulas."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value
    text = str(value).replace("\x00", "")
    return "'" + text if text.startswith(FORMULA) else text


def _number(text):
    value = float(text)
    return int(value) if value.is_integer() else value


def read_grades(path, columns):
    """``(rows by id, warning comment)`` of an existing grades.csv with these ``columns``."""
    lines = Path(path).read_text(encoding="utf-8").splitlines(keepends=True)
    comment = "".join(line[1:].strip() for line in lines if line.startswith("#"))
    reader = csv.reader(line for line in lines if not line.startswith("#"))
    header = next(reader, None)
    if header != columns:
        raise ValueError(f"{path}: its columns {header} are not those of this exercise "
                         f"{columns}; use another --out folder")
    rows = {}
    for row in reader:
        if len(row) == len(columns):
            rows[row[0]] = [row[0], row[1], *map(_number, row[2:-1]), row[-1]]
    return rows, comment


def write(out, points, results, merge=False, warning=""):
    """Write ``out/grades.csv`` (merged with the existing one when ``merge``) and
    ``out/summary.csv``; returns ``(rows, summary text)`` for the whole gradebook.

    ``points``: ``{question: points}`` in order; ``results``: as :func:`grade.grade_one`.
    """
    out, names = Path(out), list(points)
    columns = ["id", "path", *names, "total", "note"]
    rows, old_warning = {}, ""
    if merge and (out / "grades.csv").exists():
        rows, old_warning = read_grades(out / "grades.csv", columns)
    for r in results:
        rows[r["id"]] = [r["id"], r["path"], *(t["score"] for t in r["tests"]), r["score"], r["output"]]
    table = io.StringIO()
    for comment in dict.fromkeys(w for w in (warning, old_warning) if w):
        table.write(f"# {comment}\n")
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
        values = [row[2 + i] for row in rows]
        mean = sum(values) / len(values) if values else 0.0
        top = points.get(name, total_max)
        writer.writerow(["question" if name != "total" else "total", name, top, round(mean, 4), len(values)])
        lines.append(f"  {name:>10}: mean {mean:.2f} of {top}")
    totals = [row[-2] for row in rows]
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
