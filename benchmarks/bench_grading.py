"""Grading speed: 50 honest submissions of the chapter 1 set, ``--workers 2``, target < 90 s.

Each submission is the released student notebook with the instructor's answers filled
in (what a good student hands in). The time is the whole ``grade`` call as an
instructor runs it: the sandbox probe, the self-test of the instructor solution, 50
sandboxed kernels and the gradebook. Writes ``benchmarks/out/grading_speed.json``
(read by ``run.py``) and prints the result with the load average before and after.

Usage: python benchmarks/bench_grading.py [--n 50] [--workers 2]
"""
import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

import nbformat  # noqa: E402

from lib.grading.grade import grade  # noqa: E402
from lib.grading.source import read_source, release  # noqa: E402

SOURCE = ROOT / "exercises" / "01_bayesian_learning"
TARGET = 90.0


def honest_notebook():
    """The student notebook with every answer cell taken from the instructor edition."""
    exercise = read_source(SOURCE)
    student, solved = release(exercise), release(exercise, instructor=True)
    for mine, theirs in zip(student.cells[1:], solved.cells[1:]):
        mine.source = theirs.source
    return student


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=50)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    nb = honest_notebook()
    with tempfile.TemporaryDirectory(prefix="bench-grading-") as tmp:
        subs = Path(tmp) / "subs"
        subs.mkdir()
        for k in range(args.n):
            nbformat.write(nb, subs / f"student{k:03d}.ipynb")
        load_before = os.getloadavg()
        start = time.perf_counter()
        results = grade(SOURCE, subs, Path(tmp) / "out", workers=args.workers)
        seconds = time.perf_counter() - start
        load_after = os.getloadavg()
    full = sum(r["score"] == 8 for r in results)
    assert full == args.n, f"only {full} of {args.n} honest submissions got full marks"
    result = {"submissions": args.n, "workers": args.workers, "seconds": round(seconds, 1),
              "per_submission": round(seconds / args.n, 2), "target": TARGET,
              "load_before": [round(x, 2) for x in load_before],
              "load_after": [round(x, 2) for x in load_after], "cores": os.cpu_count()}
    (HERE / "out").mkdir(exist_ok=True)
    (HERE / "out" / "grading_speed.json").write_text(json.dumps(result, indent=1) + "\n")
    print(f"graded {args.n} honest submissions with {args.workers} workers in {seconds:.1f} s "
          f"(target < {TARGET:g} s: {'met' if seconds < TARGET else 'NOT met'}); load average "
          f"before {load_before[0]:.2f}, after {load_after[0]:.2f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
