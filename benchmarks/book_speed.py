"""The book's own speed: each chapter's execution time and each interactive figure's
callback time; with ``--build``, also a clean and an unchanged ``make book``.

Chapters: every ``chapters/*.md`` is converted with jupytext and executed with nbclient
(a fresh kernel each, working folder ``chapters/``). One cell is put in front of the
chapter: it wraps ``lib.plots.interactive.interactive_figure`` so that every ``(plot, controls,
fixed)`` the chapter passes to it is recorded (the chapter's own ``from
lib.plots.interactive import interactive_figure`` then picks up the wrapper). One cell is put after the
chapter: it calls each recorded ``plot`` ``CALLS`` times, each time with the default
values except one control moved to another of its values (as a reader moving a
slider), and times ``plot(...)`` alone (the callback) and ``plot(...)`` plus the PNG
rendering that ``interactive_figure`` does (what the reader waits for).
The chapter's time is the sum of its own cells' execution times (nbclient's
per-cell timestamps), without kernel start-up and without the added cells.

``--build`` copies the working tree (without .venv, _build, .git) to a temporary
folder and runs ``make book`` there twice with this checkout's venv: a clean build,
then an unchanged rebuild. It never touches this checkout's ``_build``.
"""
import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from datetime import datetime
from pathlib import Path

import jupytext
import nbformat

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
OUT = HERE / "out"
CALLS = 5
BUILD_TIMEOUT = 600  # seconds; twice the clean-build target

BEFORE = """\
import lib.plots.interactive as _bench_widgets
_bench_calls = []
_bench_original = _bench_widgets.interactive_figure
def _bench_interactive_figure(plot, controls, frames=None, **fixed):
    _bench_calls.append((plot, controls, fixed))
    return _bench_original(plot, controls, frames=frames, **fixed)
_bench_widgets.interactive_figure = _bench_interactive_figure
"""

AFTER = """\
import json as _json, statistics as _st, time as _time
import numpy as _np, ipywidgets as _ipw, matplotlib.pyplot as _plt
from lib.plots.export import figure_png as _figure_png
import sys as _sys
_sys.path.insert(0, %(here)r)
from book_speed import matplotlib_share

def _bench_values(c):
    if hasattr(c, "_options_values"):
        return list(c._options_values)
    if isinstance(c, _ipw.FloatLogSlider):
        return [float(c.base ** e) for e in _np.linspace(c.min, c.max, 5)]
    if hasattr(c, "min") and hasattr(c, "max"):
        vals = _np.linspace(c.min, c.max, 5)
        return [int(round(v)) for v in vals] if isinstance(c.value, int) else [float(v) for v in vals]
    if isinstance(c.value, bool):
        return [True, False]
    return [c.value]

_bench_out = []
for _plot, _controls, _fixed in _bench_calls:
    _default = {k: c.value for k, c in _controls.items()}
    _moves = [(k, v) for k, c in _controls.items() for v in _bench_values(c) if v != c.value]
    _plain, _png = [], []
    for _i in range(%(calls)d):
        _kw = dict(_default)
        if _i and _moves:           # call 0: the default figure; then one control moved
            _k, _v = _moves[(_i - 1) * max(1, len(_moves) // %(calls)d) %% len(_moves)]
            _kw[_k] = _v
        _t0 = _time.perf_counter()
        _fig = _plot(**_kw, **_fixed)
        _t1 = _time.perf_counter()
        _figure_png(_fig)
        _t2 = _time.perf_counter()
        _plt.close(_fig)
        _plain.append(_t1 - _t0)
        _png.append(_t2 - _t0)
    _share = matplotlib_share(lambda: _plt.close(_plot(**_default, **_fixed)))
    _bench_out.append(dict(callback=f"{_plot.__module__}.{_plot.__name__}", calls=len(_plain),
                           median=_st.median(_plain), max=max(_plain),
                           median_png=_st.median(_png), max_png=max(_png), matplotlib=_share))
print("BENCH-JSON" + _json.dumps(_bench_out))
"""


def matplotlib_share(call, repeat=3):
    """Fraction of ``call()``'s time spent inside matplotlib (or PIL), by sampling: a
    thread looks at the calling thread's stack every 0.5 ms while ``call`` runs
    ``repeat`` times, and counts the samples with a matplotlib frame on the stack."""
    caller, hits, done = threading.get_ident(), [0, 0], threading.Event()

    def sample():
        while not done.is_set():
            frame = sys._current_frames().get(caller)
            inside = False
            while frame is not None and not inside:
                path = frame.f_code.co_filename
                inside = "/matplotlib/" in path or "/PIL/" in path
                frame = frame.f_back
            hits[inside] += 1
            time.sleep(0.0005)
    switch = sys.getswitchinterval()
    sys.setswitchinterval(0.0005)
    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    try:
        for _ in range(repeat):
            call()
    finally:
        done.set()
        sampler.join()
        sys.setswitchinterval(switch)
    return hits[1] / max(1, sum(hits))


def _seconds(stamp):
    return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()


def run_chapter(path):
    nb = jupytext.read(path)
    n_own = len(nb.cells)
    nb.cells.insert(0, nbformat.v4.new_code_cell(BEFORE))
    nb.cells.append(nbformat.v4.new_code_cell(AFTER % {"calls": CALLS, "here": str(HERE)}))
    sys.path.insert(0, str(ROOT))
    from lib.notebooks.polls import SlicedNotebookClient  # (as the book's pre-executor)
    t0 = time.perf_counter()
    SlicedNotebookClient(nb, timeout=1200, kernel_name="python3",
                         resources={"metadata": {"path": str(path.parent)}}).execute()
    wall = time.perf_counter() - t0
    own = [c for c in nb.cells[1:1 + n_own] if c.cell_type == "code"]
    cells = sum(_seconds(c.metadata.execution["shell.execute_reply"])
                - _seconds(c.metadata.execution["iopub.execute_input"]) for c in own)
    text = "".join(o.get("text", "") for o in nb.cells[-1].outputs if o.output_type == "stream")
    callbacks = json.loads(text.split("BENCH-JSON", 1)[1])
    row = dict(chapter=path.stem, seconds=cells, wall=wall, callbacks=callbacks)
    print(f"{path.stem:28s} {cells:7.1f} s (wall with kernel start and timing cells {wall:.1f} s)",
          flush=True)
    for cb in callbacks:
        print(f"    {cb['callback']:45s} median {cb['median'] * 1e3:7.1f} ms, "
              f"with PNG {cb['median_png'] * 1e3:7.1f} ms, {cb['matplotlib']:.0%} in matplotlib",
              flush=True)
    return row


def time_book_builds():
    env = dict(os.environ, BAYES_COURSE_DATA=os.environ.get(
        "BAYES_COURSE_DATA", str(ROOT.parent / "shared" / "data")))
    venv = os.environ.get("VENV", str(ROOT / ".venv"))
    with tempfile.TemporaryDirectory(prefix="benchbook-") as tmp:
        tree = Path(tmp) / "tree"
        shutil.copytree(ROOT, tree, symlinks=True, ignore=shutil.ignore_patterns(
            ".venv", "_build", ".git", "__pycache__", "_generated", "out"))
        times = {}
        for label in ("clean make book", "unchanged rebuild"):
            t0 = time.perf_counter()
            make = subprocess.Popen(["make", "-C", str(tree), "book", f"VENV={venv}"], env=env,
                                    stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                    start_new_session=True)
            try:
                log, code = make.communicate(timeout=BUILD_TIMEOUT)[0], make.returncode
            except subprocess.TimeoutExpired:         # stop make and everything it started
                os.killpg(make.pid, signal.SIGTERM)
                log, code = make.communicate()[0], "timeout"
            times[label] = time.perf_counter() - t0
            print(f"{label}: {times[label]:.1f} s (exit {code})", flush=True)
            if code:
                print(log[-3000:])
                times[label + " FAILED"] = code
        return times


def yardstick():
    """The machine's yardstick: median times to build a bare two-panel line plot
    (what any callback pays for matplotlib alone) and to render it to PNG."""
    from matplotlib.figure import Figure
    sys.path.insert(0, str(ROOT))
    from lib.plots.export import figure_png
    build, png = [], []
    for _ in range(5):
        t0 = time.perf_counter()
        fig = Figure(figsize=(9, 3.6), layout="constrained")
        for ax in fig.subplots(1, 2):
            ax.plot([1, 2, 3])
        t1 = time.perf_counter()
        figure_png(fig)
        build.append(t1 - t0)
        png.append(time.perf_counter() - t1)
    return dict(build=sorted(build)[2], png=sorted(png)[2])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", action="store_true", help="also time make book (clean, unchanged)")
    parser.add_argument("--only-build", action="store_true", help="time make book, run no chapter")
    parser.add_argument("chapters", nargs="*", help="chapter stems (default: all)")
    args = parser.parse_args()
    OUT.mkdir(exist_ok=True)
    if args.only_build:
        (OUT / "book_build.json").write_text(json.dumps(time_book_builds(), indent=1))
        return
    paths = sorted((ROOT / "chapters").glob("*.md"))
    if args.chapters:
        paths = [p for p in paths if p.stem in args.chapters]
    rows = [run_chapter(p) for p in paths]
    result = dict(chapters=rows, yardstick=yardstick())
    (OUT / "book_speed.json").write_text(json.dumps(result, indent=1))
    if args.build:
        (OUT / "book_build.json").write_text(json.dumps(time_book_builds(), indent=1))


if __name__ == "__main__":
    sys.exit(main())
