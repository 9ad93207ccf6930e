"""The shared benchmark harness: one function, :func:`compare`, times a ``lib`` call
against its peer (scikit-learn, hmmlearn, pgmpy) on the same inputs.

For every case:

1. both are called once (warm-up) and their answers compared: ``check(lib_out,
   peer_out)`` returns the largest absolute difference, which must be <= ``tol``
   (the case fails loudly otherwise: a fast wrong answer is not a result);
2. both are timed in the same process, interleaved (lib, peer, peer, lib, ...), ``reps``
   times; each timing is the mean of ``number`` back-to-back calls, ``number`` chosen so
   that one timing takes at least ``MIN_TIME`` seconds; the medians are reported;
3. peak memory of one call of each: ``tracemalloc``'s peak of the memory allocated
   *during* the call (inputs excluded). numpy, scipy.sparse and pandas buffers are
   traced (numpy reports its data allocations to tracemalloc); memory a C extension
   takes with plain ``malloc`` (BLAS work space, C++ vectors) is not.

Importing this module pins BLAS to one thread (``OPENBLAS_NUM_THREADS=1``, set before
numpy is imported) so that lib and peer run under the same conditions.
"""
import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import gc  # noqa: E402
import json  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import tracemalloc  # noqa: E402
import warnings  # noqa: E402
from pathlib import Path  # noqa: E402

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
OUT = HERE / "out"                   # one JSON file per script run (not committed)
sys.path.insert(0, str(ROOT))
warnings.filterwarnings("ignore")    # peers' convergence / deprecation chatter

REPS = int(os.environ.get("BENCH_REPS", 5))
MIN_TIME = 0.05
MEM_TARGET = 1.5


def _time(fn, number):
    gc.collect()
    t0 = time.perf_counter()
    for _ in range(number):
        fn()
    return (time.perf_counter() - t0) / number


def peak_mib(fn):
    """Peak MiB allocated during one call of ``fn`` (tracemalloc)."""
    gc.collect()
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()


def compare(case, lib, peer, check, tol, target, reps=REPS, note="", tol_text=None):
    """Check that ``lib()`` and ``peer()`` agree, then time both; returns a result row."""
    t0 = time.perf_counter()
    lib_out = lib()
    t_once = time.perf_counter() - t0
    diff = float(check(lib_out, peer()))
    assert diff <= tol, f"{case}: lib and peer differ by {diff:.3g} > tol {tol:g}"
    number = max(1, int(MIN_TIME / max(t_once, 1e-9)))
    t_lib, t_peer = [], []
    for r in range(reps):
        pair = [(lib, t_lib), (peer, t_peer)]
        for fn, out in (pair if r % 2 == 0 else pair[::-1]):
            out.append(_time(fn, number))
    row = dict(case=case, lib=statistics.median(t_lib), peer=statistics.median(t_peer),
               lib_all=t_lib, peer_all=t_peer, number=number, diff=diff, tol=tol_text or f"{tol:g}",
               mem_lib=peak_mib(lib), mem_peer=peak_mib(peer), target=target, note=note)
    with_ratios(row)
    print(f"{case:45s} lib {row['lib'] * 1e3:9.2f} ms  peer {row['peer'] * 1e3:9.2f} ms  "
          f"ratio {row['ratio']:5.2f} (<= {target})  diff {diff:.1e}  "
          f"mem {row['mem_lib']:.1f}/{row['mem_peer']:.1f} MiB", flush=True)
    return row



def with_ratios(row):
    """Add ``ratio`` (lib / peer time) and ``mem_ratio`` (peak memory) to a result row."""
    row["ratio"] = row["lib"] / row["peer"]
    row["mem_ratio"] = row["mem_lib"] / max(row["mem_peer"], 1e-3)
    return row


def main(module, cases):
    """Run ``cases()`` (a generator of rows) and save them to ``out/<module>.json``."""
    OUT.mkdir(exist_ok=True)
    rows = list(cases())
    (OUT / f"{module}.json").write_text(json.dumps(rows, indent=1))
    return rows
