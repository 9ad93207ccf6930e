"""Build one chapter alone, strictly, then validate it with nbval.

Used by ``make chapter CH=02_estimation`` while writing a chapter: much faster than
the whole book, and it does not touch ``_build/`` (it works in a temporary folder).
"""
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


def main(name):
    page = ROOT / "chapters" / f"{name.removesuffix('.md')}.md"
    if not page.exists():
        sys.exit(f"no chapter {page.relative_to(ROOT)}")
    with tempfile.TemporaryDirectory(prefix=f"book-{page.stem}-") as tmp:
        tmp = Path(tmp)
        for item in ["_config.yml", "references.bib", "logo.svg", "lib", "_static", "_ext"]:
            (tmp / item).symlink_to(ROOT / item)
        (tmp / "chapters").mkdir()
        (tmp / "chapters" / page.name).symlink_to(page)
        (tmp / "intro.md").write_text(f"# {page.stem}\n\n```{{bibliography}}\n:all:\n```\n")
        (tmp / "_toc.yml").write_text(
            "format: jb-book\nroot: intro\nparts:\n  - caption: Chapters\n    numbered: true\n"
            f"    chapters:\n      - file: chapters/{page.stem}\n"
        )
        build = [str(BIN / "jupyter-book"), "build", str(tmp), "-W", "-n", "--keep-going"]
        if subprocess.run(build).returncode:
            sys.exit(f"strict build of {page.name} failed")
        nb = tmp / f"{page.stem}.ipynb"
        subprocess.run([str(BIN / "jupytext"), "--quiet", "--to", "ipynb", "--output", str(nb), str(page)], check=True)
        test = [str(BIN / "python"), "-m", "pytest", "-q", "--nbval-lax", "-p", "no:cacheprovider", str(nb)]
        if subprocess.run(test).returncode:
            sys.exit(f"nbval of {page.name} failed")
        print(f"{page.name}: strict build and nbval passed")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python tools/build_one.py 01_bayesian_learning")
    main(sys.argv[1])
