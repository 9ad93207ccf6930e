"""The student's side before submitting: check every question, and export the file to hand in.

In a released notebook (its first cells create ``check``)::

    check.all()                              # every question's public tests, one line each
    check.export("01_bayesian_learning.ipynb")

:func:`export` runs the saved notebook top to bottom in a fresh kernel (what the grader
does) and writes ``to_upload/<name>.ipynb`` beside it only when every cell the
release gave is still there and every cell runs; otherwise it writes nothing and says
what is missing or which cell failed. Save the notebook first: the file on disk is
what is exported.
"""
import io
import os
from concurrent.futures import ThreadPoolExecutor
from contextlib import redirect_stdout
from pathlib import Path

import nbformat

SETUP_ID = "course-setup"


def check_all(checker, namespace):
    """Run ``checker`` on every question with ``namespace``'s answers; print one line
    per question and return ``{question: first line of its report}``."""
    summary = {}
    for name in checker.questions:
        buf = io.StringIO()
        with redirect_stdout(buf):  # called from the namespace, as check("q1") is
            eval("_check(_name)", namespace, {"_check": checker, "_name": name})
        summary[name] = buf.getvalue().splitlines()[0] if buf.getvalue() else ""
        print(summary[name])
    return summary


def missing_cells(nb, questions):
    """What the release gave and ``nb`` lacks: the set-up and ``check`` cells, and for each
    of ``questions`` its answer cell and its ``check("q")`` cell."""
    code = [c for c in nb.cells if c.cell_type == "code"]
    missing = []
    if not any(c.get("id") == SETUP_ID for c in code):
        missing.append("the set-up cell (the first cell: it installs and imports the course library)")
    if not any("check = Checker(" in c.source for c in code):
        missing.append("the cell that creates check (check = Checker(...))")
    for q in questions:
        own = [c for c in code if c.metadata.get("grading", {}).get("question") == q]
        if not any(not c.source.strip().startswith("check(") for c in own):
            missing.append(f"the answer cell of {q}")
        if not any(c.source.strip() == f'check("{q}")' for c in own):
            missing.append(f'the cell check("{q}")')
    return missing


def _run(nb, folder, timeout):
    from lib.notebooks.polls import SlicedNotebookClient

    client = SlicedNotebookClient(nb, timeout=timeout, kernel_name="python3", allow_errors=False,
                            resources={"metadata": {"path": str(folder)}})
    client.execute()


def export(path, questions, timeout=600):
    """Run the notebook ``path`` in a fresh kernel and write ``to_upload/<name>.ipynb``.

    Returns the written path, or None after printing what is wrong (missing cells, the
    first failing cell and its error).
    """
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"{path}: no such notebook here (give the notebook's file name; "
                         f"this folder is {Path.cwd()})")
    nb = nbformat.read(path, as_version=4)
    missing = missing_cells(nb, questions)
    if missing:
        print(f"Not exported: {path.name} lacks " + "; ".join(missing)
              + ". Copy them back from a fresh copy of the released notebook.")
        return None
    try:  # in a thread: the kernel running this call has an event loop of its own
        with ThreadPoolExecutor(1) as pool:
            pool.submit(_run, nb, path.parent, timeout).result()
    except Exception as exc:  # noqa: BLE001 - CellExecutionError, a timeout, a dead kernel
        index = next((i for i, c in enumerate(nb.cells, start=1) for o in c.get("outputs", [])
                      if o.get("output_type") == "error"), None)
        what = f"cell {index} failed" if index else "the notebook did not run to the end"
        error = next((f"{o['ename']}: {o['evalue']}" for c in nb.cells for o in c.get("outputs", [])
                      if o.get("output_type") == "error"), type(exc).__name__)
        print(f"Not exported: {what} in a fresh kernel ({error}). Fix it, save, and export again.")
        return None
    out = path.parent / "to_upload" / path.name
    out.parent.mkdir(exist_ok=True)
    nbformat.write(nb, out)
    os.chmod(out, 0o644)
    print(f"Exported {out}: every cell ran top to bottom in a fresh kernel. Upload this file.")
    return out
