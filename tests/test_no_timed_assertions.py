"""No chapter or exercise cell asserts a time: a reader on a slow Binder or Colab machine
must never get an AssertionError for being slow. Speed is measured in benchmarks/
(`make bench`), never asserted where a reader runs the code."""
import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = sorted((ROOT / "chapters").glob("*.md")) + sorted((ROOT / "exercises").glob("*/*.md"))
CELL = re.compile(r"^```\{code-cell\}[^\n]*\n(.*?)^```", re.S | re.M)
CLOCKS = re.compile(r"\b(perf_counter|perf_counter_ns|monotonic|process_time|timeit)\b|\btime\.time\(")
TIMED_NAME = re.compile(r"(^|_)(ms|secs?|seconds|elapsed|duration|latency)($|_)")


def timed_assertions(code):
    """The ``assert`` lines of ``code`` that test a clock reading or a value computed from
    one (a name assigned from a clock, or named like ``..._ms`` / ``elapsed``)."""
    lines = [line for line in code.splitlines() if not line.lstrip().startswith(("%", "!", ":"))]
    try:
        tree = ast.parse("\n".join(lines))
    except SyntaxError:  # not Python (a magic we did not strip): fall back to the lines
        return [line for line in lines if line.lstrip().startswith("assert") and CLOCKS.search(line)]
    timed = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and node.value is not None:
            if CLOCKS.search(ast.unparse(node.value)) or any(
                    isinstance(n, ast.Name) and n.id in timed for n in ast.walk(node.value)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                timed |= {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assert):
            names = {n.id for n in ast.walk(node.test) if isinstance(n, ast.Name)}
            if CLOCKS.search(ast.unparse(node.test)) or names & timed or any(TIMED_NAME.search(n) for n in names):
                found.append(ast.unparse(node))
    return found


@pytest.mark.parametrize("code", [
    "start = time.perf_counter()\nf()\ncallback_ms = 1000 * (time.perf_counter() - start)\nassert callback_ms < 1000",
    "t0 = time.time()\nf()\nassert time.time() - t0 < 2",
    "import timeit\nt = timeit.timeit(f, number=3)\nassert t < 0.5",
    "dsep_ms = measure()\nassert dsep_ms < 1000, 'slow'",
])
def test_the_check_finds_a_timed_assertion(code):
    assert len(timed_assertions(code)) == 1


@pytest.mark.parametrize("code", [
    "start = time.perf_counter()\nx = f()\nprint(f'{time.perf_counter() - start:.3f} s')\nassert x == 3",
    "assert np.isclose(post.sum(), 1) and plan['largest_factor_vars'] <= 6",
    "%matplotlib inline\nassert len(timeline) == 5",
])
def test_the_check_lets_untimed_assertions_and_printed_timings_pass(code):
    assert timed_assertions(code) == []


@pytest.mark.parametrize("page", PAGES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_no_cell_asserts_a_time(page):
    found = [a for cell in CELL.findall(page.read_text()) for a in timed_assertions(cell)]
    assert not found, f"{page.relative_to(ROOT)} asserts a time (move it to benchmarks/): {found}"
