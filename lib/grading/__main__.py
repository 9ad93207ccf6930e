"""Command line of the grading system: ``python -m lib.grading {release,grade} ...``."""
import argparse
import sys

# jsonschema (under nbformat) optionally imports rfc3987_syntax, which takes seconds to
# build a parser at import; notebooks need no IRI validation, so skip it.
sys.modules.setdefault("rfc3987_syntax", None)


def main(argv=None):
    """Parse the command line and run ``release`` or ``grade``; returns the exit code."""
    parser = argparse.ArgumentParser(prog="python -m lib.grading", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    rel = sub.add_parser("release", help="write the student (or instructor) notebooks")
    rel.add_argument("source", help="the exercises/ folder, or one exercise folder")
    rel.add_argument("--out", required=True, help="folder for NN_topic/NN_topic.ipynb")
    rel.add_argument("--instructor", action="store_true",
                     help="keep the solutions (the instructor edition of the book)")
    gr = sub.add_parser("grade", help="grade a folder of submitted notebooks")
    gr.add_argument("--source", required=True, help="the exercise folder, e.g. exercises/01_bayesian_learning")
    gr.add_argument("--submissions", required=True, help="folder of submissions (one .ipynb each)")
    gr.add_argument("--out", required=True, help="folder for grades.csv, NAME/results.json, NAME/feedback.txt")
    gr.add_argument("--workers", type=int, default=2, help="submissions graded in parallel")
    gr.add_argument("--cell-timeout", type=float, default=60, help="seconds per cell and per question")
    gr.add_argument("--timeout", type=float, default=300, help="seconds per submission in all")
    gr.add_argument("--memory-mb", type=int, default=2048, help="address-space limit of the kernel")
    args = parser.parse_args(argv)
    try:
        if args.command == "release":
            from .source import release_all

            for path in release_all(args.source, args.out, instructor=args.instructor):
                print(f"released {path}")
        else:
            from .grade import grade

            rows = grade(args.source, args.submissions, args.out, workers=args.workers,
                         cell_timeout=args.cell_timeout, timeout=args.timeout,
                         memory_mb=args.memory_mb)
            print(f"graded {len(rows)} submissions into {args.out}/grades.csv")
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
