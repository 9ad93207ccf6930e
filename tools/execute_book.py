"""Execute the book's notebooks side by side before Sphinx reads them (``make book``).

myst-nb executes a page while Sphinx reads it, one page after another. This script runs
the notebooks first, ``--jobs`` at a time. It executes every chapter and exercise
notebook that has no record in the book's execution cache (jupyter-cache in
``BUILD/.jupyter_cache``). It runs each one the way myst-nb would: a fresh kernel, the
notebook's folder as the working directory, and the timeout and ``allow_errors`` of
``_config.yml``, with a notebook's own ``execution`` metadata taking precedence. The
executed notebooks go into that cache. The build that follows then reads their outputs
and does not execute them again, so each notebook still runs once per build.

If a notebook fails, nothing of it is cached. Its error is printed and the script exits
with status 1, so ``make book`` stops.

Two kernel hazards of a loaded machine are avoided here:

* TCP port races, when other processes start kernels at the same moment (the test lines
  of ``make test``): two kernels can pick the same free port, and the loser cannot bind,
  does not exit, and its client waits out the start-up timeout (seen in 1 of about 240
  kernel starts, six processes starting kernels side by side). Kernels here use Unix
  sockets (``ipc``) in a private folder instead.
* Missed wake-ups in pyzmq's asyncio poll: a notebook of 2 s took 601 s (the book's
  cell timeout). Polls are cut into 1-s slices (:mod:`lib.notebooks.polls`).

Usage: python tools/execute_book.py BUILD_DIR NOTEBOOK... [--jobs N]
"""
import argparse
import asyncio
import os
import sys
import tempfile
import time
import traceback
from pathlib import Path

import nbformat
import yaml
from jupyter_cache import get_cache
from jupyter_cache.base import CacheBundleIn
from myst_nb.core.read import myst_nb_reader_plugin
from nbclient.exceptions import CellExecutionError, CellTimeoutError

from lib.notebooks.polls import SlicedNotebookClient
from lib.plots.interactive import STATIC_ENV  # set for the kernels, as _ext/static_frames.py does

ROOT = Path(__file__).resolve().parents[1]


def read_notebook(path):
    """The notebook of ``path`` as myst-nb reads it for its cache (MyST Markdown or .ipynb)."""
    if path.suffix == ".md":
        return myst_nb_reader_plugin(str(path))
    return nbformat.read(path, as_version=4)


def book_settings(config=ROOT / "_config.yml"):
    """``(timeout, allow_errors)`` of the book's ``execute`` settings."""
    execute = yaml.safe_load(Path(config).read_text()).get("execute", {})
    return execute.get("timeout", 30), execute.get("allow_errors", False)


async def execute(path, nb, timeout, allow_errors, sockets):
    """Run ``nb`` in a fresh kernel (Unix sockets under ``sockets``); its run time in s."""
    meta = nb.metadata.get("execution", {})
    client = SlicedNotebookClient(nb, timeout=meta.get("timeout", timeout),
                                  allow_errors=meta.get("allow_errors", allow_errors),
                                  record_timing=False,  # as myst-nb: cell metadata is part of the cache key
                                  shutdown_kernel="immediate",
                                  resources={"metadata": {"path": str(path.parent)}})
    km = client.km = client.create_kernel_manager()
    km.transport, km.ip = "ipc", os.path.join(sockets, "kernel")
    start = time.monotonic()
    try:
        await client.async_execute()
    finally:
        if km.has_kernel:
            await km.shutdown_kernel(now=True)
    return time.monotonic() - start


async def execute_all(build, paths, jobs, timeout, allow_errors):
    """Execute the uncached notebooks of ``paths``, ``jobs`` at a time; the failed ones."""
    cache = get_cache(str(Path(build) / ".jupyter_cache"))
    todo = []
    for path in paths:
        nb = read_notebook(path)
        try:
            cache.match_cache_notebook(nb)
        except KeyError:
            todo.append((path, nb))
    print(f"execute_book: {len(todo)} of {len(paths)} notebooks to execute, {jobs} at a time",
          flush=True)
    slots, failed = asyncio.Semaphore(jobs), []
    os.environ[STATIC_ENV] = "1"

    async def one(path, nb):
        async with slots:
            with tempfile.TemporaryDirectory(prefix="kernel-") as sockets:
                try:
                    seconds = await execute(path, nb, timeout, allow_errors, sockets)
                except Exception as error:  # noqa: BLE001 - reported with the notebook's name
                    failed.append(path)
                    cell_error = isinstance(error, (CellExecutionError, CellTimeoutError))  # the cell's own report
                    print(f"execute_book: {path} FAILED:\n{error if cell_error else traceback.format_exc()}", flush=True)
                    return
        cache.cache_notebook_bundle(CacheBundleIn(nb, str(path), data={"execution_seconds": seconds}),
                                    check_validity=False, overwrite=True)
        print(f"execute_book: {path} executed in {seconds:.1f} s", flush=True)

    # The biggest files first (the chapters; a rough guess at the longest runs): a short tail.
    todo.sort(key=lambda item: item[0].stat().st_size, reverse=True)
    await asyncio.gather(*(one(path, nb) for path, nb in todo))
    return failed


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("build")
    parser.add_argument("notebooks", nargs="+", type=Path)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                        help="notebooks executed at the same time (default: the CPU count)")
    parser.add_argument("--config", type=Path, default=ROOT / "_config.yml",
                        help="the book's _config.yml (its execute: timeout, allow_errors)")
    args = parser.parse_args(argv)
    if args.jobs < 1:
        parser.error(f"--jobs must be at least 1, got {args.jobs}")
    missing = [str(p) for p in args.notebooks if not p.is_file()]
    if missing:
        parser.error("no such notebook: " + ", ".join(missing))
    timeout, allow_errors = book_settings(args.config)
    start = time.monotonic()
    failed = asyncio.run(execute_all(args.build, [p.resolve() for p in args.notebooks],
                                     args.jobs, timeout, allow_errors))
    print(f"execute_book: done in {time.monotonic() - start:.1f} s", flush=True)
    if failed:
        sys.exit(f"execute_book: {len(failed)} notebook(s) failed: " + ", ".join(map(str, failed)))


if __name__ == "__main__":
    main()
