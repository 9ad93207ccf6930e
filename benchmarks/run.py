"""`make bench`: run every bench_*.py (each in a fresh process, ``--runs`` times) and
book_speed.py, then write benchmarks/results.md from their JSON output (benchmarks/out/).

Usage: python benchmarks/run.py [--runs 2] [--no-book] [--only bn,hmm] [--report-only]
"""
import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "out"
MODULES = ["naive_bayes", "em", "hmm", "bn", "density"]
MEM_TARGET = 1.5
CALLBACK_TARGET = 0.100
BOOK_TARGETS = {"clean make book": 300, "unchanged rebuild": 30}
GRADING_TARGET = 90


def run(script, *args):
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    subprocess.run([sys.executable, str(HERE / script), *args], env=env, check=True)


def ms(t):
    return f"{t * 1e3:.3g} ms" if t < 1 else f"{t:.3g} s"


def merge(runs):
    """One row per case: medians over runs of each run's median."""
    merged = {}
    for rows in runs:
        for r in rows:
            merged.setdefault(r["case"], []).append(r)
    out = []
    for rs in merged.values():
        r = dict(rs[-1])
        for key in ("lib", "peer", "mem_lib", "mem_peer"):
            r[key] = statistics.median(x[key] for x in rs)
        r["ratio"], r["runs"] = r["lib"] / r["peer"], len(rs)
        r["mem_ratio"] = r["mem_lib"] / max(r["mem_peer"], 1e-3)
        r["ratios"] = [x["lib"] / x["peer"] for x in rs]
        r["loads"] = [(x["load_before"], x["load_after"]) for x in rs if "load_before" in x]
        r["peer_impls"] = [x.get("peer_impl") for x in rs]
        out.append(r)
    return out


def hmm_tables(rows):
    """Issue 17's HMM grid: one table per operation (N down, T across, ratio per cell),
    then every case with its peer implementation, memory and per-run ratios."""
    if not rows:
        return ["Not measured (run benchmarks/bench_hmm.py)."]
    lines = []
    first = rows[0]
    loads = first.get("loads")
    if loads:
        lines += ["Machine load averages (1, 5, 15 min) at the start / end of each run: " + "; ".join(
            f"run {k + 1}: {' '.join(f'{x:.2f}' for x in a)} / {' '.join(f'{x:.2f}' for x in b)}"
            for k, (a, b) in enumerate(loads)) + " (2 cores, shared with other work).", ""]
    costs = first.get("one_time")
    if costs:
        lines += [f"One-time costs, not in the timings (fresh process, empty numba cache): "
                  f"`import lib.hmm` {costs['import_s']:.2f} s CPU (numba's import included); "
                  f"compiling the loops on the first calls {costs['compile_s']:.2f} s; in a "
                  f"second process, loading them from numba's cache {costs['cache_load_s']:.2f} s "
                  f"(then {costs['warm_s'] * 1e3:.2f} ms for the same calls warm).", ""]

    def met(r):
        return r["ratio"] <= r["target"] and r["mem_ratio"] <= r.get("mem_target", MEM_TARGET)

    ops = {"forward": "forward pass (log-likelihood)", "viterbi": "Viterbi",
           "fit": "Baum-Welch, per iteration"}
    for op, title in ops.items():
        cells = {(r["N"], r["T"]): r for r in rows if r.get("op") == op}
        if not cells:
            continue
        Ts = sorted({T for _, T in cells})
        impls = sorted({cells[c]["peer_name"] for c in cells})
        lines += [f"**{title}**: ratio lib / peer (CPU time; per run if several), met?; "
                  f"peer: {' or '.join(impls)} (per cell below)", "",
                  "| N | " + " | ".join(f"T = {T:.0e}" for T in Ts) + " |", "|---|" + "---|" * len(Ts)]
        for n in sorted({n for n, _ in cells}):
            out = []
            for T in Ts:
                r = cells.get((n, T))
                if r is None:
                    out.append("—")
                    continue
                runs = " / ".join(f"{x:.2f}" for x in r["ratios"])
                out.append(f"**{r['ratio']:.2f}** ({runs}) ≤ {r['target']:g}: {'yes' if met(r) else 'NO'}")
            lines.append(f"| {n} | " + " | ".join(out) + " |")
        lines.append("")
    lines += ["Every case (times are medians of the per-run medians):", "",
              "| case | peer | lib | peer time | ratio (per run) | target | peak memory lib / peer (ratio ≤ 1.2) "
              "| reps | met? |", "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        runs = " / ".join(f"{x:.2f}" for x in r["ratios"])
        peer = r["peer_name"] if len(set(r["peer_impls"])) == 1 else (
            r["peer_name"].split(", implementation")[0] + ", implementation per run: "
            + " / ".join(map(repr, r["peer_impls"])))
        lines.append(f"| {r['case']} | {peer} | {ms(r['lib'])} | {ms(r['peer'])} "
                     f"| **{r['ratio']:.2f}** ({runs}) | ≤ {r['target']:g} "
                     f"| {r['mem_lib']:.2f} / {r['mem_peer']:.2f} MiB ({r['mem_ratio']:.2f}) "
                     f"| {r['reps']} | {'yes' if met(r) else 'NO'} |")
    notes = sorted({r["note"] for r in rows if r.get("note")})
    return lines + ["", "Notes:", ""] + [f"- {n}" for n in notes]


def widget_table():
    """Key press to new image in a live JupyterLab kernel (benchmarks/widget_latency.py)."""
    path = OUT / "widgets.json"
    if not path.exists():
        return ["Not measured (benchmarks/out/widgets.json is written by benchmarks/widget_latency.py)."]
    rows = json.loads(path.read_text())
    lines = ["| chapter | figure | median key press to new image (max; kernel's share) | runs | measured (load) "
             "| target | met? |",
             "|---|---|---|---|---|---|---|"]
    for r in rows:
        load = f" ({r['load']:.1f})" if "load" in r else ""
        lines.append(f"| {r['chapter']} | {r['figure']} | {r['median_ms']:.0f} ms ({r.get('max_ms', float('nan')):.0f}; "
                     f"{r.get('kernel_median_ms', float('nan')):.0f} ms) | {r['runs']} | {r.get('measured', '?')}{load} "
                     f"| ≤ {r['target_ms']:g} ms | {'yes' if r['median_ms'] <= r['target_ms'] else 'NO'} |")
    return lines


def kept_section(previous, title, measured):
    """``None`` if ``measured``; else the body of section ``title`` of the previous
    results.md, marked as not re-measured (so that `--only` keeps what it did not rerun)."""
    start = previous.find(f"\n## {title}\n")
    if measured or start < 0:
        return None
    end = previous.find("\n## ", start + 1)
    note = "(Kept from the previous results.md: not re-measured by this run.)"
    body = previous[start + len(title) + 5:end if end >= 0 else None].strip("\n").split("\n\n")
    kept = [p for p in body[1:] if p != note]           # (body[0]: the intro written below)
    if not kept or kept[0].startswith("Not measured"):
        return None
    return [note, "", *"\n\n".join(kept).splitlines()]


def module_table(rows):
    lines = ["| case | lib median | peer median | ratio lib/peer | max abs difference (tol) "
             "| peak memory lib / peer (ratio) | target | met? |",
             "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        t_ok, m_ok = r["ratio"] <= r["target"], r["mem_ratio"] <= MEM_TARGET
        met = "yes" if t_ok and m_ok else ", ".join(
            f"{what} no" for what, ok in (("time", t_ok), ("memory", m_ok)) if not ok)
        per_run = " / ".join(f"{x:.2f}" for x in r["ratios"]) if r["runs"] > 1 else ""
        lines.append(
            f"| {r['case']} | {ms(r['lib'])} | {ms(r['peer'])} | **{r['ratio']:.2f}**"
            f"{f' (runs: {per_run})' if per_run else ''} | {r['diff']:.1e} ({r['tol']}) "
            f"| {r['mem_lib']:.2f} / {r['mem_peer']:.2f} MiB ({r['mem_ratio']:.2f}) "
            f"| time <= {r['target']:g}, memory <= {MEM_TARGET:g} | {met} |")
    notes = [f"- {r['case']}: {r['note']}" for r in rows if r.get("note")]
    return lines + ["", "What the difference column measures:", ""] + notes


def book_tables():
    lines = []
    path = OUT / "book_speed.json"
    if path.exists():
        result = json.loads(path.read_text())
        chapters = result["chapters"]
        y = result["yardstick"]
        lines += [f"Yardstick on this machine at this load: building a bare two-panel line "
                  f"plot (matplotlib alone) takes {ms(y['build'])}, rendering it to PNG "
                  f"{ms(y['png'])}.", ""]
        lines += ["| chapter | execution (own cells) | wall incl. kernel start + timing cells |",
                  "|---|---|---|"]
        lines += [f"| {c['chapter']} | {c['seconds']:.1f} s | {c['wall']:.1f} s |" for c in chapters]
        total = sum(c["seconds"] for c in chapters)
        lines += [f"| **all chapters** | **{total:.1f} s** | |", "",
                  "| chapter | widget callback | median (max) of the callback | share of the callback "
                  "in matplotlib | median (max) incl. PNG rendering | target | met? |",
                  "|---|---|---|---|---|---|---|"]
        for c in chapters:
            for cb in c["callbacks"]:
                lines.append(
                    f"| {c['chapter']} | `{cb['callback']}` | {ms(cb['median'])} ({ms(cb['max'])}) "
                    f"| {cb['matplotlib']:.0%} "
                    f"| {ms(cb['median_png'])} ({ms(cb['max_png'])}) | callback median < 100 ms "
                    f"| {'yes' if cb['median'] < CALLBACK_TARGET else 'no'} |")
    path = OUT / "book_build.json"
    if path.exists():
        builds = json.loads(path.read_text())
        lines += ["", "| build | time | target | met? |", "|---|---|---|---|"]
        for label, limit in BOOK_TARGETS.items():
            if label in builds:
                t = builds[label]
                failed = " (build FAILED)" if f"{label} FAILED" in builds else ""
                lines.append(f"| {label} | {t:.0f} s{failed} | < {limit} s "
                             f"| {'yes' if t < limit and not failed else 'no'} |")
        lines.append("| `make test` | not measured (`book_speed.py --only-build` times "
                     "`make book` only, in a temporary copy of the tree) | < 20 min | ? |")
    return lines


def grading_table():
    path = OUT / "grading_speed.json"
    if not path.exists():
        return ["Not measured (run benchmarks/bench_grading.py)."]
    g = json.loads(path.read_text())
    return ["| submissions | workers | time | per submission | load average before / after "
            "| target | met? |", "|---|---|---|---|---|---|---|",
            f"| {g['submissions']} | {g['workers']} | {g['seconds']:.1f} s | {g['per_submission']:.2f} s "
            f"| {g['load_before'][0]:.1f} / {g['load_after'][0]:.1f} | < {GRADING_TARGET} s "
            f"| {'yes' if g['seconds'] < GRADING_TARGET else 'no'} |"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=1, help="runs of each bench script")
    parser.add_argument("--no-book", action="store_true", help="skip book_speed.py")
    parser.add_argument("--only", default="", help="comma-separated modules to (re)run")
    parser.add_argument("--report-only", action="store_true", help="only rewrite results.md")
    args = parser.parse_args()
    OUT.mkdir(exist_ok=True)
    modules = args.only.split(",") if args.only else MODULES
    if not args.report_only:
        for m in modules:
            for k in range(args.runs):
                run(f"bench_{m}.py")
                os.replace(OUT / f"{m}.json", OUT / f"{m}.run{k}.json")
            for old in OUT.glob(f"{m}.run*.json"):       # drop runs left from a longer series
                if int(old.stem.split("run")[-1]) >= args.runs:
                    old.unlink()
        if not args.no_book and not args.only:
            run("book_speed.py")
        if not args.only:
            run("bench_grading.py")
            run("widget_latency.py")  # browser: key press to new image -> out/widgets.json
    rows = []
    for m in MODULES:
        runs = [json.loads(p.read_text()) for p in sorted(OUT.glob(f"{m}.run*.json"))]
        rows += merge(runs) if runs else []

    hmm_rows = [r for r in rows if "op" in r]          # bench_hmm.py's rows: a section of their own
    rows = [r for r in rows if "op" not in r]
    previous = (HERE / "results.md").read_text() if (HERE / "results.md").exists() else ""
    book = kept_section(previous, "The book's own speed",
                        (OUT / "book_speed.json").exists() or (OUT / "book_build.json").exists())
    grading = kept_section(previous, "Grading speed", (OUT / "grading_speed.json").exists())
    now = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    text = [
        "# Benchmark results", "",
        f"Written by `make bench` (benchmarks/run.py) on {now}; {platform.python_version()}, "
        f"{os.cpu_count()} cores (load average {load:.1f} when written), "
        "OPENBLAS_NUM_THREADS=1.", "",
        "Each case: lib and peer are first checked to give the same answer (assert, "
        "tolerance in the table), then timed in the same process, interleaved, "
        "after a warm-up call; times are medians of 5 repetitions (each the mean of "
        "enough calls to last 50 ms), and with several runs of a script the median "
        "over runs. Ratio = lib time / peer time, lower is better. Peak memory: "
        "tracemalloc's peak of what one call allocates (numpy buffers are traced; "
        "plain malloc inside C extensions and BLAS work space are not).", "",
        "## lib against its peers", "", *module_table(rows), "",
        "## HMMs against hmmlearn (issue 17 grid)", "",
        "benchmarks/bench_hmm.py: CPU time (`time.process_time`), lib and hmmlearn interleaved, "
        "5 repetitions after a warm-up call (3 where one call takes seconds: N >= 32 at T = 1e6), "
        "each repetition the mean of enough calls to last 20 ms; answers compared first. "
        "The peer of each cell is hmmlearn's faster implementation there ('scaling' or 'log', "
        "both timed when close); Viterbi has only 'log'. Targets: ratio <= 1.0 where N <= 8 and "
        "T >= 1e4, <= 2.0 elsewhere, peak memory (tracemalloc, which sees numpy's, hmmlearn's "
        "and numba's allocations) <= 1.2x the peer's.", "", *hmm_tables(hmm_rows), "",
        "## Interactive figures in a live kernel", "", *widget_table(), "",
        "## The book's own speed", "",
        "Chapters executed one by one with nbclient after jupytext conversion "
        "(benchmarks/book_speed.py). Each interactive figure's callback (the `plot` "
        "passed to `lib.plots.interactive.interactive_figure`) is called 5 times, the default "
        "settings and then one control moved per call; the share spent inside matplotlib "
        "is sampled from the call stack (every 0.5 ms, 3 calls at the default settings). "
        "Chapter time: the sum of the chapter's own cells (nbclient timestamps).", "",
        *(book or book_tables()), "",
        "## Grading speed", "",
        "benchmarks/bench_grading.py: 50 honest submissions of the chapter 1 set graded "
        "in the sandbox with 2 workers, the whole `grade` call (probe and self-test "
        "included).", "", *(grading or grading_table()), ""]
    kept = previous.find("\n## The website")  # sections written by benchmarks/page_weight.py & co
    (HERE / "results.md").write_text("\n".join(text) + (previous[kept:] if kept >= 0 else ""))
    print(f"wrote {HERE / 'results.md'}")


if __name__ == "__main__":
    main()
