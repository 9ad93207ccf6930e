"""Interactive figures in a live kernel: median key press to new image, per chapter.

Runs tests/browser/test_widget_latency.py (JupyterLab from a venv made of binder/,
Debian's Chromium via playwright; see that file for what is measured) and prints the
medians it wrote to benchmarks/out/widgets.json: a list of ``{"chapter", "figure",
"control", "median_ms", "runs", "max_ms", "target_ms", "measured", "load"}``. A figure over
the target is reported with the machine load, not an error (the test asserts only that each
value draws its own image, never a time); the script fails only
when nothing was measured (no Chromium, no npm assets: run ``make browser-assets``).

Usage: python benchmarks/widget_latency.py [-k 01_bayesian]   (extra arguments go to pytest)
"""
import json
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
OUT = HERE / "out" / "widgets.json"


def main(args):
    started = time.time()
    env = dict(os.environ, BAYES_COURSE_DATA=os.environ.get("BAYES_COURSE_DATA", str(ROOT.parent / "shared" / "data")),
               LATENCY_PRESSES=os.environ.get("LATENCY_PRESSES", "10"))  # (`make test` presses 3 times)
    subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                    "tests/browser/test_widget_latency.py", *args], cwd=ROOT, env=env, check=False)
    if not OUT.exists() or OUT.stat().st_mtime < started:
        sys.exit(f"no latency measured ({OUT} not written): see the pytest output above")
    for e in json.loads(OUT.read_text()):
        met = "yes" if e["median_ms"] <= e["target_ms"] else "NO"
        print(f"{e['chapter']:26s} {e['figure']:24s} median {e['median_ms']:6.1f} ms over {e['runs']:2d} "
              f"presses (max {e['max_ms']:.0f} ms; target {e['target_ms']} ms: {met}; "
              f"load {e.get('load', '?')})")


if __name__ == "__main__":
    main(sys.argv[1:])
