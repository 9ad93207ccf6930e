"""CPU seconds of each chapter executed as the book build executes it (the website's
static explorers, ``BAYES_COURSE_STATIC=1``), and of each explorer's frames.

Each chapter runs in one IPython shell (no kernel start-up); the frames are timed by
wrapping ``lib.plots.interactive.interactive_figure``. To compare two versions, run one
per core, each with its own ``lib`` first on the path::

    git worktree add /tmp/old <commit>
    PYTHONPATH=/tmp/old .venv/bin/python benchmarks/explorer_cpu.py /tmp/old/chapters/0*.md &
    PYTHONPATH=$PWD .venv/bin/python benchmarks/explorer_cpu.py chapters/0*.md; wait

(results.md, round 15).
"""
import contextlib
import io
import os
import sys
import time
from pathlib import Path

import jupytext
from IPython.core.interactiveshell import InteractiveShell

os.environ["BAYES_COURSE_STATIC"] = "1"
import lib.plots.interactive as interactive  # noqa: E402  (after the variable it reads)


def main(paths):
    figure = interactive.interactive_figure
    explorers = []

    def timed(plot, controls, **kwargs):
        start = time.process_time()
        box = figure(plot, controls, **kwargs)
        explorers.append((plot.__name__, len(box.frames), time.process_time() - start))
        return box

    interactive.interactive_figure = timed
    shell, total = InteractiveShell.instance(), 0.0
    for path in [Path(p).resolve() for p in paths]:
        os.chdir(path.parent)
        explorers.clear()
        start = time.process_time()
        with contextlib.redirect_stdout(io.StringIO()):  # what the chapter prints
            for cell in jupytext.read(path.name).cells:
                if cell.cell_type == "code" and not shell.run_cell(cell.source, silent=True).success:
                    sys.exit(f"{path}: a cell failed")
        spent = time.process_time() - start
        total += spent
        print(f"{path.stem}: {spent:.1f} s", *(f"  {name}: {n} frames, {s:.1f} s" for name, n, s in explorers), sep="\n")
    print(f"total: {total:.1f} s")


if __name__ == "__main__":
    main(sys.argv[1:])
