"""Per-test CPU of `make test`, every process a test started included (a pytest plugin).

With ``CGPROF=NAME`` set (and this file importable: ``-p cgprof``), each test moves its
pytest process into the cpuacct cgroup ``/sys/fs/cgroup/cpuacct/NAME/STAGE.FILE.TEST``
before it runs (STAGE: unit, slow, browser, or other for `make nbval`'s read-back), so
every kernel, server, sandbox or browser it starts is counted there (a module's
fixtures with the test that made them); each test's start and end go to
``/tmp/NAME.tests``. Root and cgroup v1 with cpuacct; ``benchmarks/profile_tests.sh``
runs a fresh clone this way. ``.venv/bin/python benchmarks/cgprof.py NAME`` prints the
CPU per stage and per test, and each xdist worker's timeline by test file.
"""
import collections
import os
import re
import sys
import time
from pathlib import Path

import pytest

CGROUPS = Path("/sys/fs/cgroup/cpuacct")
NAME = os.environ.get("CGPROF")
STAGES = {"not slow and not browser": "unit", "slow and not browser": "slow"}


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    if not NAME:
        yield
        return
    stage = STAGES.get(item.config.option.markexpr) or ("browser" if "browser" in item.path.parts else "other")
    test = getattr(item, "originalname", None) or item.name
    group = CGROUPS / NAME / re.sub(r"[^\w.-]", "_", f"{stage}.{item.path.name}.{test}")[:200]
    group.mkdir(parents=True, exist_ok=True)
    (group / "cgroup.procs").write_text(str(os.getpid()))
    start = time.time()
    yield
    with open(f"/tmp/{NAME}.tests", "a") as log:
        log.write(f"{os.environ.get('PYTEST_XDIST_WORKER', 'main')} {start:.1f} {time.time():.1f} "
                  f"{stage} {item.nodeid}\n")


def report(name):
    cpu = {g.name: int((g / "cpuacct.usage").read_text()) / 1e9 for g in (CGROUPS / name).iterdir() if g.is_dir()}
    stages = collections.Counter()
    for group, seconds in cpu.items():
        stages[group.split(".")[0]] += seconds
    print(f"CPU {sum(cpu.values()):.0f} s: " + ", ".join(f"{s} {v:.0f}" for s, v in stages.most_common()))
    for group, seconds in sorted(cpu.items(), key=lambda kv: -kv[1])[:20]:
        print(f"{seconds:8.1f} s  {group}")
    rows = [line.split(maxsplit=4) for line in open(f"/tmp/{name}.tests")]
    t0 = min(float(r[1]) for r in rows)
    workers = collections.defaultdict(lambda: collections.defaultdict(lambda: [1e9, 0.0, 0.0]))
    for worker, start, end, stage, nodeid in rows:
        span = workers[f"{stage} {worker}"][nodeid.split("::")[0]]
        a, b = float(start) - t0, float(end) - t0
        span[:] = [min(span[0], a), max(span[1], b), span[2] + b - a]
    for worker, files in sorted(workers.items()):
        print(f"{worker}: {min(s[0] for s in files.values()):.0f} s to {max(s[1] for s in files.values()):.0f} s")
        if not worker.startswith("unit"):
            for path, (a, b, busy) in sorted(files.items(), key=lambda kv: kv[1][0]):
                print(f"    {path:45s} {a:5.0f} {b:5.0f}  busy {busy:5.0f}")


if __name__ == "__main__":
    report(sys.argv[1])
