"""No chapter or exercise cell asserts a time: a reader on a slow Binder or Colab machine
must never get an AssertionError for being slow. Speed is measured in benchmarks/
(`make bench`), never asserted where a reader runs the code.

Nor does any test (tests/**/*.py): a test waits for a state, with a generous deadline that
only bounds a hang. In a test, a clock reading may be asserted only as the deadline of a
wait loop (inside a ``while``) or against a bound of at least a minute; a fixed pause
(``time.sleep``, ``page.wait_for_timeout``) is never followed by an assertion in the same
block; and no wait (``wait_for_*``, ``expect(...).to_*``) has a ``timeout=`` under 20 s."""
import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = sorted((ROOT / "chapters").glob("*.md")) + sorted((ROOT / "exercises").glob("*/*.md"))
TESTS = sorted((ROOT / "tests").rglob("*.py"))
PAUSES = {"sleep", "wait_for_timeout"}
MIN_WAIT_MS = 20_000
MIN_DEADLINE_S = 60
CELL = re.compile(r"^```\{code-cell\}[^\n]*\n(.*?)^```", re.S | re.M)
CLOCKS = re.compile(r"\b(perf_counter|perf_counter_ns|monotonic|process_time|timeit)\b|\btime\.time\(")
TIMED_NAME = re.compile(r"(^|_)(ms|secs?|seconds|elapsed|duration|latency)($|_)")


def timed_assertions(code, in_tests=False):
    """The ``assert`` lines of ``code`` that test a clock reading or a value computed from
    one (a name assigned from a clock, or named like ``..._ms`` / ``elapsed``). With
    ``in_tests``, those of a test: not the deadline of a wait loop or of at least a minute."""
    lines = [line for line in code.splitlines() if not line.lstrip().startswith(("%", "!", ":"))]
    try:
        tree = ast.parse("\n".join(lines))
    except SyntaxError:  # not Python (a magic we did not strip): fall back to the lines
        return [line for line in lines if line.lstrip().startswith("assert") and CLOCKS.search(line)]
    exempt = {id(n) for loop in ast.walk(tree) if isinstance(loop, ast.While) for n in ast.walk(loop)} if in_tests else set()
    found = []
    for scope in [tree, *(n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)))]:
        timed = set()
        for node in _own(scope):
            if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and node.value is not None:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target, value in _pairs(targets, node.value):
                    if CLOCKS.search(ast.unparse(value)) or any(
                            isinstance(n, ast.Name) and n.id in timed for n in ast.walk(value)):
                        timed |= {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
        for node in _own(scope):
            if isinstance(node, ast.Assert) and id(node) not in exempt:
                names = {n.id for n in ast.walk(node.test) if isinstance(n, ast.Name)}
                if CLOCKS.search(ast.unparse(node.test)) or names & timed or any(TIMED_NAME.search(n) for n in names):
                    if not (in_tests and _a_minute_or_more(node.test)):
                        found.append(ast.unparse(node))
    return found


def _own(scope):
    """The nodes of ``scope`` (a module or function) outside the functions defined in it."""
    todo = list(ast.iter_child_nodes(scope))
    while todo:
        node = todo.pop()
        yield node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            todo.extend(ast.iter_child_nodes(node))


def _pairs(targets, value):
    """(target, the part of ``value`` assigned to it): ``a, b = f(), g()`` pairs a with f()."""
    for target in targets:
        if isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple) and len(target.elts) == len(value.elts):
            yield from zip(target.elts, value.elts)
        else:
            yield target, value


def _a_minute_or_more(test):
    """Whether ``test`` compares with a number of seconds of at least MIN_DEADLINE_S."""
    return any(isinstance(n, ast.Compare) and any(
        isinstance(c, ast.Constant) and isinstance(c.value, (int, float)) and c.value >= MIN_DEADLINE_S
        for c in n.comparators) for n in ast.walk(test))


def _called(node):
    """The name of the function a call statement calls, or None."""
    call = node.value.value if isinstance(node, ast.Expr) and isinstance(node.value, ast.Await) else \
        getattr(node, "value", None)
    if isinstance(call, ast.Call):
        return call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", None)
    return None


def _a_wait(func):
    """Whether ``func`` is a playwright wait (milliseconds): ``wait_for``, ``wait_for_*``
    (not the pause ``wait_for_timeout``) or an ``expect(...).to_*`` assertion."""
    return isinstance(func, ast.Attribute) and func.attr != "wait_for_timeout" and (
        func.attr == "wait_for" and ast.unparse(func.value) != "asyncio" or func.attr.startswith(("wait_for_", "to_")))


def timed_waits(code):
    """What in a test's ``code`` asserts a time by waiting: a fixed pause followed by an
    assertion in the same block, and a wait with a ``timeout=`` under MIN_WAIT_MS."""
    found = []
    for node in ast.walk(ast.parse(code)):
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if not isinstance(block, list):
                continue
            pauses = [i for i, stmt in enumerate(block) if _called(stmt) in PAUSES]
            if pauses and any(isinstance(stmt, ast.Assert) for stmt in block[pauses[0] + 1:]):
                found.append(f"line {block[pauses[0]].lineno}: a pause, then an assertion: {ast.unparse(block[pauses[0]])}")
        if isinstance(node, ast.Call) and _a_wait(node.func):
            for kw in node.keywords:
                if kw.arg == "timeout" and isinstance(kw.value, ast.Constant) and \
                        isinstance(kw.value.value, (int, float)) and kw.value.value < MIN_WAIT_MS:
                    found.append(f"line {node.lineno}: a wait of {kw.value.value} ms used as an assertion: "
                                 f"{ast.unparse(node)[:80]}")
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


@pytest.mark.parametrize("code", [
    # tests/browser/test_binder_session.py before: the figure asserted final 1 s after a drag
    "page.mouse.up()\npage.wait_for_timeout(1000)\nafter = figure_src(image)\nassert after == final",
    "time.sleep(0.5)\nassert not _processes(b'sleep')",
    "async def f():\n    await asyncio.sleep(1)\n    assert done",
    "page.wait_for_selector('#results li', timeout=2000)",
    "expect(page.locator('h1')).to_have_text('Title', timeout=5_000)",
    "page.locator('.done').wait_for(state='visible', timeout=3000)",
])
def test_the_check_finds_a_timed_wait_in_a_test(code):
    assert len(timed_waits(code)) == 1


@pytest.mark.parametrize("code", [
    "for k in range(10):\n    page.mouse.move(x + k, y)\n    page.wait_for_timeout(40)\nassert moved",
    "while not ready():\n    assert time.monotonic() < deadline, 'hang'\n    time.sleep(0.2)\nassert ready()",
    "page.wait_for_selector('#results li', timeout=20_000)\nassert page.locator('#results li').count()",
    "server.wait(timeout=5)\nurllib.request.urlopen(url, timeout=2)",
    "asyncio.run(asyncio.wait_for(get_msg(), timeout=10))",
])
def test_the_check_lets_waits_for_a_state_pass(code):
    assert timed_waits(code) == []


@pytest.mark.parametrize(("code", "found"), [
    ("start = time.monotonic()\nrun()\nassert time.monotonic() - start < 30", 1),
    ("start = time.monotonic()\nrun()\nassert time.monotonic() - start < 100", 0),  # the cell sleeps 100 s
    ("while changing():\n    assert time.monotonic() - start < limit, 'kept changing'", 0),
])
def test_a_clock_is_asserted_in_a_test_only_as_a_deadline(code, found):
    assert len(timed_assertions(code, in_tests=True)) == found


@pytest.mark.parametrize("path", TESTS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_test_asserts_a_time(path):
    code = path.read_text()
    found = timed_assertions(code, in_tests=True) + timed_waits(code)
    assert not found, f"{path.relative_to(ROOT)} asserts a time (wait for the state instead): {found}"
