"""The course's one notation (notation.md): the page is in the book, and the pages that
follow it do not slip back into the letters it retires.

Checked pages: every chapter and exercise set (read from the tree).
"""
import re
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
CHECKED = sorted(str(p.relative_to(ROOT)) for p in ROOT.glob("chapters/*.md")) + [
    str(p.relative_to(ROOT)) for p in sorted(ROOT.glob("exercises/*/*.md"))]

# Each pattern is a habit of a source that the notation page retires.
RETIRED = {
    # alpha as a normalising constant: "alpha P(...)", "alpha theta^...", "normalising constant alpha"
    "alpha as a normalising constant": re.compile(
        r"\\alpha\s*(?:\\,|\\;|\s)*(?:P\s*\(|\\theta\b|\\prod|\\sum)"
        r"|normali[sz]\w*\s+(?:constant|factor)\s+\$\\alpha\$|\$\\alpha\$\s+normali[sz]"),
    # alpha for observed counts (Mitchell's slides: alpha_1 ones, alpha_0 zeros)
    "alpha as an observed count": re.compile(r"\\alpha_0\b|\$\\alpha_1\$ ones|\\alpha_1 \+ \\alpha_0"),
    # the Beta prior in any spelling but Beta(a, b) / Beta(theta; a, b)
    "a Beta prior not written Beta(a, b)": re.compile(
        r"\\mathrm\{beta\}|\bbeta\[\s*[a-z]\s*,|\\Beta\([^()]*\)\(\\theta\)|\\beta_0\b"),
    # k as a count: "k free parameters", "k cherries", "k = 2 outcomes"
    "k as a count": re.compile(r"\$k\$ (?:free )?(?:parameters|cherries|limes|outcomes)"
                               r"|\$k = \d+\$ outcomes|k\}\{2\}\\log"),
    # candy bags described by their lime fraction first (theta is the cherry fraction)
    "bags by lime fraction": re.compile(r"0 ?%, 25 ?%, 50 ?%, 75 ?% and 100 ?% lime"),
}


def toc_files():
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    files = [toc["root"]]
    for part in toc["parts"]:
        files += [entry["file"] for entry in part["chapters"]]
    return files


def test_notation_page_is_in_the_book_before_the_first_chapter():
    files = toc_files()
    assert (ROOT / "notation.md").is_file() and "notation" in files
    assert files.index("notation") < files.index("chapters/01_bayesian_learning")


def test_notation_page_records_the_conventions():
    text = (ROOT / "notation.md").read_text()
    for convention in (r"\Beta(a, b)", r"\Beta(\theta; a, b)", "pseudo-counts only", "never a count",
                       r"\tfrac{d}{2}\log_2 N", "**cherry**"):
        assert convention in text, convention


@pytest.mark.parametrize("page", CHECKED)
@pytest.mark.parametrize("habit", sorted(RETIRED))
def test_checked_pages_do_not_use_retired_notation(page, habit):
    text = (ROOT / page).read_text()
    found = [m.group(0) for m in RETIRED[habit].finditer(text)]
    assert not found, f"{page} uses {habit}: {found[:3]} (see notation.md)"


@pytest.mark.parametrize("habit, example", [
    ("alpha as a normalising constant", r"$P(y \given x) = \alpha\, P(y) \prod_j P(x_j \given y)$"),
    ("alpha as a normalising constant", r"with normalising constant $\alpha$"),
    ("alpha as an observed count", r"$\alpha_1$ ones and $\alpha_0$ zeros"),
    ("a Beta prior not written Beta(a, b)", r"$\mathrm{beta}[a, b](\theta)$"),
    ("a Beta prior not written Beta(a, b)", r"P(\theta) = \Beta(\beta_1, \beta_0)(\theta)"),
    ("k as a count", r"a model with $k$ free parameters costs"),
    ("k as a count", r"$L(h) \approx \frac{k}{2}\log_2 N$"),
    ("bags by lime fraction", "contain 0%, 25%, 50%, 75% and 100% lime"),
])
def test_each_retired_habit_is_recognised(habit, example):
    # the patterns find what they are meant to find (the text the chapters used to have)
    assert RETIRED[habit].search(example)


def test_current_notation_is_not_flagged():
    ok = (r"$\Beta(\theta; a, b) \propto \theta^{a-1}(1-\theta)^{b-1}$, "
          r"$\Dir(\theta; \alpha_1 + N_1, \dots, \alpha_K + N_K)$, Laplace $(N_k + \alpha)/(N + \alpha K)$, "
          r"$\tfrac{d}{2}\log_2 N$, 100%, 75%, 50%, 25% and 0% cherry (0% to 100% lime)")
    assert not any(pattern.search(ok) for pattern in RETIRED.values())
