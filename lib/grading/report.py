"""The class report: ``report.html`` and ``report.csv`` from a graded folder's ``class.json``.

Per question: the mean score (of the students who were graded), the failures of each test
(public tests by their expression, hidden ones by number), and the misconceptions the
class hit first, ranked: for each student, the first public test of the question that did
not pass names, by its ``# hint:``, the misconception to re-teach
(``exercises/README.md``: every public test of a computed question names one). Also a
histogram of the totals (a PNG inside the page, with alt text), so the page reads offline.
``python -m lib.grading report grades/`` rewrites both from ``grades/class.json``.
"""
import base64
import csv
import html
import io
import json
from collections import Counter
from pathlib import Path

from . import gradebook


def first_misconceptions(questions, students):
    """``{question: [(hint, count), ...]}`` ranked: the hint of each student's first
    failing public test (students not graded, or with no failing public test, count none)."""
    ranked = {}
    for q, spec in questions.items():
        counts = Counter()
        for s in students:
            outcomes = (s.get("outcomes") or {}).get(q)
            if not outcomes:
                continue
            first = next((t for t, o in zip(spec["tests"], outcomes) if t["public"] and o != "passed"), None)
            if first and first["hint"]:
                counts[first["hint"]] += 1
        ranked[q] = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    return ranked


def test_failures(questions, students):
    """``{question: [(test label, failures), ...]}`` in the tests' order."""
    out = {}
    for q, spec in questions.items():
        counts = [0] * len(spec["tests"])
        for s in students:
            for i, o in enumerate((s.get("outcomes") or {}).get(q) or []):
                counts[i] += o != "passed"
        labels = [t["answer"] if t["public"] else f"hidden test {i + 1}" for i, t in enumerate(spec["tests"])]
        out[q] = list(zip(labels, counts))
    return out


def means(questions, students):
    """``{question or "total": (mean, count of graded students)}``."""
    out = {}
    for q in [*questions, "total"]:
        values = [s["total"] if q == "total" else s["scores"][q] for s in students]
        values = [v for v in values if v is not None]
        out[q] = (sum(values) / len(values) if values else 0.0, len(values))
    return out


def histogram_png(totals, top):
    """``(base64 PNG, alt text)`` of the histogram of ``totals`` (0..``top``)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    bins = np.arange(0, top + 2) - 0.5 if top <= 20 else np.linspace(0, top, 11)
    counts, edges = np.histogram(totals, bins=bins)
    fig, ax = plt.subplots(figsize=(6, 3), dpi=100)
    ax.bar((edges[:-1] + edges[1:]) / 2, counts, width=np.diff(edges) * 0.9, color="#3b6ea5")
    ax.set(xlabel="total points", ylabel="students", title="Distribution of totals")
    buf = io.BytesIO()
    fig.savefig(buf, format="png", bbox_inches="tight")
    plt.close(fig)
    parts = [f"{c} with {(lo + hi) / 2:g}" if top <= 20 else f"{c} from {lo:g} to {hi:g}"
             for c, lo, hi in zip(counts, edges[:-1], edges[1:]) if c]
    alt = (f"Histogram of the totals of {len(totals)} graded students out of {top} points: "
           + (", ".join(parts) if parts else "none graded") + ".")
    return base64.b64encode(buf.getvalue()).decode(), alt


def write_report(out):
    """Write ``out/report.html`` and ``out/report.csv`` from ``out/class.json``; returns
    the path of the page."""
    out = Path(out)
    path = out / "class.json"
    if not path.exists():
        raise ValueError(f"{path}: not found; grade with --roster first (it writes class.json)")
    data = json.loads(path.read_text(encoding="utf-8"))
    questions, students = data["questions"], data["students"]
    top = sum(q["points"] for q in questions.values())
    avg, fails, miscon = means(questions, students), test_failures(questions, students), \
        first_misconceptions(questions, students)
    rows = [["kind", "question", "name", "value", "count"]]
    rows += [["mean", q, "", round(m, 4), n] for q, (m, n) in avg.items()]
    rows += [["test failures", q, label, c, ""] for q, tests in fails.items() for label, c in tests]
    rows += [["first misconception", q, hint, c, ""] for q, hints in miscon.items() for hint, c in hints]
    late = [s for s in students if s.get("late_days") or s.get("lms_late")]
    rows += [["late", s["id"], "LMS: late" if s.get("lms_late") else "", s.get("late_days"), ""] for s in late]
    table = io.StringIO()
    csv.writer(table).writerows([[gradebook.cell(v) for v in r] for r in rows])
    gradebook.atomic_write(out / "report.csv", table.getvalue())
    graded = [s["total"] for s in students if s["total"] is not None]
    png, alt = histogram_png(graded, top)
    e = html.escape
    parts = [f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
             f"<title>Class report: {e(data['exercise'])}</title><style>body{{font-family:sans-serif;"
             "max-width:60em;margin:auto;padding:1em}table{border-collapse:collapse}td,th{border:1px solid #999;"
             "padding:.2em .5em;text-align:left}</style></head><body>",
             f"<h1>Class report: {e(data['exercise'])}</h1>",
             f"<p>{len(students)} students on the roster, {len(graded)} graded, "
             f"{len(students) - len(graded)} without a graded submission, {len(late)} late.</p>",
             "<h2>Means</h2><table><tr><th>question</th><th>mean</th><th>of</th><th>graded</th></tr>"]
    parts += [f"<tr><td>{e(q)}</td><td>{m:.2f}</td><td>{questions[q]['points'] if q in questions else top}"
              f"</td><td>{n}</td></tr>" for q, (m, n) in avg.items()]
    parts.append(f"</table><h2>Distribution</h2><img src='data:image/png;base64,{png}' alt='{e(alt)}'>")
    parts.append("<h2>What to re-teach: the first misconception of each student, per question</h2>")
    for q in questions:
        parts.append(f"<h3>{e(q)}</h3>")
        parts.append("<ol>" + "".join(f"<li>{c} student{'s' * (c != 1)}: {e(h)}</li>" for h, c in miscon[q])
                     + "</ol>" if miscon[q] else "<p>No named misconception hit.</p>")
        parts.append("<table><tr><th>test</th><th>failed</th></tr>" + "".join(
            f"<tr><td><code>{e(label)}</code></td><td>{c}</td></tr>" for label, c in fails[q]) + "</table>")
    if late:
        parts.append("<h2>Late</h2><ul>" + "".join(
            f"<li>{e(s['id'])}: " + (f"{s['late_days']} day(s) late" if s.get("late_days") else "")
            + (" (marked late by the LMS)" if s.get("lms_late") else "") + "</li>" for s in late) + "</ul>")
    parts.append("</body></html>\n")
    gradebook.atomic_write(out / "report.html", "\n".join(parts))
    return out / "report.html"
