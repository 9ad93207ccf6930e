"""No control character (Unicode category Cc) but the newline in the text a reader sees:
the chapters, the exercise sets, the pages beside them and lib's code and docstrings.
A TAB or form feed in a page is almost always an escape that went wrong on the way in
("\\t" of "\\textit" or "\\to" written through a Python string turns into TAB + "extit"),
and MathJax then shows "extitsmoke o extitbronc" instead of the formula."""
import unicodedata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SOURCES = sorted([*ROOT.glob("*.md"), *(ROOT / "chapters").glob("*.md"),
                  *(ROOT / "exercises").rglob("*.md"), *(ROOT / "lib").rglob("*.py")])


def control_characters(text):
    """(line, column, character name) of each Cc character in ``text`` but newline."""
    return [(n, col, unicodedata.name(ch, f"U+{ord(ch):04X}"))
            for n, line in enumerate(text.split("\n"), 1)
            for col, ch in enumerate(line, 1) if unicodedata.category(ch) == "Cc"]


@pytest.mark.parametrize(("text", "found"), [
    ("$\\textit{a} \\to b$\n", []),
    ("$\textit{a} \to b$\n", [(1, 2, "U+0009"), (1, 12, "U+0009")]),
    ("ok\nwindows line\r\n", [(2, 13, "U+000D")]),
    ("page\x0cbreak \x85", [(1, 5, "U+000C"), (1, 12, "U+0085")]),
], ids=["clean", "tab", "cr", "formfeed-nel"])
def test_the_check_finds_each_control_character(text, found):
    assert control_characters(text) == found


def test_the_sources_are_found():
    names = {p.relative_to(ROOT).as_posix() for p in SOURCES}
    assert {"intro.md", "chapters/06_bayesian_networks.md", "exercises/README.md",
            "exercises/06_bayesian_networks/06_bayesian_networks.md", "lib/bn/constraint.py"} <= names


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_control_characters(path):
    found = control_characters(path.read_text(encoding="utf-8"))
    assert not found, (f"{path.relative_to(ROOT)}: control characters at (line, column, code) "
                       f"{found[:10]}; a TAB before 'extit' or 'o' is a lost '\\t' of \\textit or \\to")
