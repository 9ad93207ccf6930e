"""Claims are checked like numbers (CONTRIBUTING.md, "Claims").

A *claim* is a sentence of a chapter's prose that generalises (a universal, trend or
comparative word: "always", "never", "every", "widens", "farther", "at least as", ...)
or states a decimal number or a percentage. Each claim must be

* asserted: the code cell just before its markdown cell, or one of the two code cells
  after it, holds an ``assert`` (a hidden ``remove-cell`` assertion over the seeds or
  settings the sentence generalises to);
* glued: the numbers are a table glued by the code (a ``{glue:md}`` block, which is not
  prose and never reaches this scan);
* cited: the sentence carries a ``{cite}`` role (the claim is the cited work's); or
* a mathematical fact, marked by a MyST comment ``% claim: <reason>`` right above its
  paragraph, the reason saying in at least four words why it holds.

The test lists every claim that is none of these, with its file and line, so that a
reviewer reads them; it passes only when the list is empty.
"""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHAPTERS = sorted((ROOT / "chapters").glob("*.md"))

WORDS = re.compile(
    r"\b(always|never|every|everywhere|widen(?:s|ed|ing)?|narrow(?:s|ed|ing)|farther"
    r"|at least as|at most as|grows|shrinks|consistently|in general|generally"
    r"|outperform(?:s|ed)?|beats|for all|no matter|regardless of|invariably"
    r"|the more|the larger|the smaller|the fewer)\b",
    re.IGNORECASE,
)
NUMBER = re.compile(r"(?<![\w.\-])\d+\.\d+(?![\w.])|\b\d+(?:\.\d+)?\s?%")
ASSERTION = re.compile(r"^\s*assert\b|\bassert_\w+\(", re.MULTILINE)
MARK = re.compile(r"^%\s*claim:\s*(.*)$")


def cells(path):
    """The notebook's cells as (kind, first line number, lines, tags)."""
    out, kind, start, lines, tags = [], "markdown", 1, [], []
    text = path.read_text().splitlines()
    i = 0
    if text and text[0] == "---":  # the jupytext header
        i = text.index("---", 1) + 1
    while i < len(text):
        line = text[i]
        if line.startswith("```{code-cell}"):
            out.append((kind, start, lines, tags))
            j = text.index("```", i + 1)
            code = text[i + 1:j]
            ctags = [t for t in code if t.startswith(":tags:")]
            out.append(("code", i + 1, code, ctags))
            kind, start, lines, tags, i = "markdown", j + 2, [], [], j + 1
        elif line.startswith("+++"):
            out.append((kind, start, lines, tags))
            kind, start, lines, tags = "markdown", i + 2, [], [line]
        else:
            lines.append((i + 1, line))
        i += 1
    out.append((kind, start, lines, tags))
    return [c for c in out if c[0] == "code" or c[2]]


def prose(lines):
    """Paragraphs of visible prose: (line number, text, mark reason or None)."""
    paragraphs, current, mark, in_math, in_fence = [], [], None, False, 0

    def flush():
        nonlocal current, mark
        if current:
            paragraphs.append((current[0][0], " ".join(t for _, t in current), mark))
        current, mark = [], None

    for number, line in lines:
        stripped = line.strip()
        if in_math:
            in_math = not (stripped.startswith("$$") or stripped.endswith("$$"))
            continue
        if stripped.startswith("$$"):
            in_math = not (len(stripped) > 2 and stripped.endswith("$$"))
            flush()
            continue
        if stripped.startswith("```{math}") or stripped.startswith("```{literalinclude}"):
            in_fence = 1
            continue
        if in_fence:
            in_fence = 0 if stripped.startswith("```") else 1
            continue
        m = MARK.match(stripped)
        if m:
            flush()
            mark = m.group(1).strip()
            continue
        if (not stripped or stripped.startswith(("%", "```", "(", "<!--", ":name:",
                                                 ":label:", ":class:", ":width:",
                                                 ":align:", ":tags:", "#"))
                and not stripped.startswith(":alt:")):
            if stripped.startswith("#"):
                flush()
                current.append((number, stripped.lstrip("# ")))
                flush()
            elif not stripped:
                flush()
            continue
        if stripped.startswith(("* ", "- ", "1. ")) or re.match(r"\d+\. ", stripped):
            flush()
        current.append((number, stripped))
    flush()
    return paragraphs


def clean(text):
    text = re.sub(r"\$[^$]+\$", " ", text)  # inline maths
    text = re.sub(r"(\{cite(?::\w+)?\})?`[^`]+`", lambda m: m.group(0) if m.group(1) else " ",
                  text)  # inline code and roles' targets, except citations
    text = re.sub(r"\]\([^)]*\)", "]", text)  # link targets
    return text


def sentences(text):
    return [s for s in re.split(r"(?<=[.!?])\s+(?=[A-Z(*\[])", text) if s.strip()]


FIGURE_TEXT = re.compile(r"^:\s*(?:caption|alt):\s*(?P<text>.+)$")


def claims(path):
    """Every claim of a chapter: (line, sentence, how it is covered or None). Figure
    captions and alt text (options of a code cell) count as prose of that cell."""
    found = []
    all_cells = cells(path)
    for index, (kind, start, lines, tags) in enumerate(all_cells):
        if kind == "code":
            paragraphs = [(start + i, m.group("text"), None) for i, line in enumerate(lines)
                          if (m := FIGURE_TEXT.match(line.strip()))]
            window = [all_cells[index]]
        elif any("remove-cell" in t for t in tags):
            continue
        else:
            paragraphs, window = prose(lines), []
        before = [c for c in all_cells[:index] if c[0] == "code"][-1:]
        after = [c for c in all_cells[index + 1:] if c[0] == "code"][:2]
        asserted = any(ASSERTION.search("\n".join(c[2])) for c in before + window + after)
        for number, paragraph, mark in paragraphs:
            for sentence in sentences(paragraph):
                text = clean(sentence)
                if not (WORDS.search(text) or NUMBER.search(text)):
                    continue
                if "{cite" in sentence:
                    how = "cited"
                elif mark and len(mark.split()) >= 4:
                    how = "maths: " + mark
                elif asserted:
                    how = "asserted"
                else:
                    how = None
                found.append((number, sentence.strip(), how))
    return found


@pytest.mark.parametrize("path", CHAPTERS, ids=[p.stem for p in CHAPTERS])
def test_every_claim_is_asserted_cited_or_a_marked_fact(path):
    found = claims(path)
    missing = [f"{path.name}:{n}: {s[:160]}" for n, s, how in found if how is None]
    assert not missing, (
        f"{len(missing)} of {len(found)} claims in {path.name} are neither asserted nor "
        "cited nor marked (CONTRIBUTING.md, 'Claims'):\n" + "\n".join(missing))


def test_the_scan_finds_the_claims_it_must(tmp_path):
    """The scanner itself: a widening claim and a number with no assertion are listed;
    an assertion after, a citation or a maths mark covers them; code, maths (also a
    labelled equation) and comments are not prose; a figure caption is."""
    page = tmp_path / "page.md"
    page.write_text(
        "---\njupytext: {}\n---\n\n# Title\n\nThe gap widens with the vocabulary.\n\n"
        "% claim: theorem: probabilities of a partition sum to one\n"
        "Posteriors always sum to one.\n\nIt reached 0.879 {cite}`joachims1996`.\n\n"
        "$$\np \\le 0.5 \\text{ always}\n$$ (eq-x)\n\nAfter it, the error never grows.\n\n"
        "```{code-cell} ipython3\n:mystnb:\n:  figure:\n:    caption: The gap widens by 0.3.\nx = 0.25  # always\n```\n\n"
        "Accuracy was 89% on this split.\n\n"
        "```{code-cell} ipython3\n:tags: [remove-cell]\nassert acc > 0.88\n```\n")
    found = {s: how for _, s, how in claims(page)}
    assert found == {
        "The gap widens with the vocabulary.": "asserted",
        "Posteriors always sum to one.": "maths: theorem: probabilities of a partition sum to one",
        "It reached 0.879 {cite}`joachims1996`.": "cited",
        "After it, the error never grows.": "asserted",
        "The gap widens by 0.3.": "asserted",
        "Accuracy was 89% on this split.": "asserted",
    }
    page.write_text(page.read_text().replace("assert acc > 0.88", "acc"))
    missing = [s for _, s, how in claims(page) if how is None]
    assert missing == ["The gap widens with the vocabulary.", "After it, the error never grows.",
                       "The gap widens by 0.3.", "Accuracy was 89% on this split."]
