"""Command line of the grading system: ``python -m lib.grading {release,grade,autograder} ...``."""
import argparse
import sys

# jsonschema (under nbformat) optionally imports rfc3987_syntax, which takes seconds to
# build a parser at import; notebooks need no IRI validation, so skip it.
sys.modules.setdefault("rfc3987_syntax", None)

UNSAFE = ("grade without the sandbox when it cannot run here (no bubblewrap, no root and "
          "no user namespaces): student code then sees the host; trusted notebooks only")


def main(argv=None):
    """Parse the command line and run the subcommand; returns the exit code."""
    parser = argparse.ArgumentParser(prog="python -m lib.grading", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    rel = sub.add_parser("release", help="write the student (or instructor) notebooks")
    rel.add_argument("source", help="the exercises/ folder, or one exercise folder")
    rel.add_argument("--out", required=True, help="folder for NN_topic/NN_topic.ipynb")
    rel.add_argument("--instructor", action="store_true",
                     help="keep the solutions (the instructor edition of the book)")
    gr = sub.add_parser("grade", help="grade a folder of submitted notebooks")
    gr.add_argument("--source", required=True, help="the exercise folder, e.g. exercises/01_bayesian_learning")
    gr.add_argument("--submissions", required=True, help="folder of submissions (one .ipynb or one folder each)")
    gr.add_argument("--out", required=True, help="folder for grades.csv, summary.csv, submissions/ID/")
    gr.add_argument("--only", metavar="ID", help="regrade this submission only and merge it into grades.csv")
    gr.add_argument("--workers", type=int, default=2, help="submissions graded in parallel")
    gr.add_argument("--cell-timeout", type=float, default=60, help="seconds per cell and per question")
    gr.add_argument("--timeout", type=float, default=300, help="seconds per submission in all")
    gr.add_argument("--memory-mb", type=int, default=2048, help="memory of one submission (its cgroup; each process's data limit)")
    gr.add_argument("--unsafe-no-sandbox", action="store_true", help=UNSAFE)
    gr.add_argument("--no-progress", action="store_true", help="no progress bar")
    gr.add_argument("--roster", help="roster CSV (id,name[,email,canvas_id,moodle_id,sis_id,...]): "
                    "one row per student, LMS import files, feedback pages, class report")
    gr.add_argument("--layout", choices=["canvas", "moodle", "gradescope", "plain"],
                    help="the submissions folder's layout (default: detected)")
    gr.add_argument("--canvas-assignment", metavar="'NAME (ID)'",
                    help="the Canvas assignment column, e.g. 'Exercise 1 (12345)'")
    gr.add_argument("--deadline", help="ISO time, e.g. 2026-11-20T23:59 (local) or ...+01:00")
    gr.add_argument("--late-penalty", type=float, default=0, metavar="PERCENT",
                    help="percent of the total taken off per day (started) late")
    gr.add_argument("--late-cap", type=float, default=100, metavar="PERCENT", help="at most this percent")
    gr.add_argument("--extensions", help="CSV with columns id, days: extra days per student")
    rep = sub.add_parser("report", help="rewrite report.html and report.csv of a graded folder")
    rep.add_argument("out", help="the --out folder of a grade run with --roster, e.g. grades/")
    ag = sub.add_parser("autograder", help="write a Gradescope autograder zip for one exercise")
    ag.add_argument("source", help="the exercise folder, e.g. exercises/01_bayesian_learning")
    ag.add_argument("--out", required=True, help="the zip file to write, e.g. autograder.zip")
    run = sub.add_parser("run-autograder", help="(inside Gradescope) grade ROOT/submission")
    run.add_argument("--root", default="/autograder", help="Gradescope's folder (default /autograder)")
    run.add_argument("--source", required=True, help="the exercise folder inside the package")
    args = parser.parse_args(argv)
    try:
        if args.command == "release":
            from .source import release_all

            for path in release_all(args.source, args.out, instructor=args.instructor):
                print(f"released {path}")
        elif args.command == "grade":
            from .deadlines import Policy, parse_time, read_extensions
            from .grade import grade

            needs = [f"--{n.replace('_', '-')}" for n in ("layout", "canvas_assignment", "deadline", "extensions")
                     if getattr(args, n)]
            if needs and not args.roster:
                raise ValueError(f"{', '.join(needs)} need --roster (the class's CSV of students)")
            if (args.late_penalty or args.extensions) and not args.deadline:
                raise ValueError("--late-penalty and --extensions need --deadline")
            policy = Policy(parse_time(args.deadline) if args.deadline else None, args.late_penalty,
                            args.late_cap, read_extensions(args.extensions) if args.extensions else {})

            rows = grade(args.source, args.submissions, args.out, workers=args.workers,
                         cell_timeout=args.cell_timeout, timeout=args.timeout,
                         memory_mb=args.memory_mb, only=args.only,
                         unsafe_no_sandbox=args.unsafe_no_sandbox, progress=not args.no_progress,
                         roster=args.roster, layout=args.layout,
                         course={"canvas_assignment": args.canvas_assignment, "policy": policy})
            print(grade.last_summary)
            print(f"graded {len(rows)} submission(s) into {args.out}/grades.csv and summary.csv")
        elif args.command == "report":
            from .report import write_report

            print(f"wrote {write_report(args.out)} and report.csv")
        elif args.command == "autograder":
            from .autograder import build

            print(f"wrote {build(args.source, args.out)}")
        else:
            from .autograder import run_autograder

            result = run_autograder(args.root, args.source)
            print(f"score {result['score']}: {args.root}/results/results.json")
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
