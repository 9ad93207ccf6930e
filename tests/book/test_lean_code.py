"""_ext/lean_code.py: a code block's tokens merged into runs of the same look.

The blocks are Pygments' own HTML of the course's code, with the site's highlighting
styles in light and dark mode (pygments.css as the theme writes it). That the classes
merged look the same under every stylesheet of a built page, and that the built pages
are merged: tests/browser/test_site.py.
"""
import html
import re
import sys
from pathlib import Path

import numpy as np
import pytest
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import PythonLexer

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "_ext"))
import lean_code  # noqa: E402

CSS = "\n".join(HtmlFormatter(style=f"a11y-high-contrast-{mode}").get_style_defs(f'html[data-theme="{mode}"] .highlight')
                for mode in lean_code.MODES)
CODE = [p.read_text() for p in sorted((ROOT / "lib" / "bn").glob("*.py"))[:4]] + [
    'x = f"{a!r:>10} and {b}"  # a comment\n>>> print(x)\n',
    "def f(a, *, b=1.5e-3):\n    '''doc'''\n    return [a ** 2 for _ in range(b)] or None\n",
]


def shape(look):
    """A look without its colours: what a space shows of it."""
    return look if look[0] == "own" else tuple(frozenset(d for d in mode if d[0] != "color") for mode in look)


def characters(inner, found):
    """Each character of a block's inside with its look (a space: what it shows of it)."""
    out = []
    for piece in re.split(r'(<span class="[\w-]+">[^<]*</span>)', inner):
        token = lean_code.TOKEN.fullmatch(piece)
        look = found.get(token.group(1), ("own", token.group(1))) if token else found[""]
        text = html.unescape(token.group(2) if token else piece)
        out += [(c, shape(look) if c.isspace() else look) for c in text]
    return out


@pytest.mark.parametrize("code", CODE)
def test_every_character_keeps_its_text_and_look_with_fewer_spans(code):
    found = lean_code.looks(CSS)
    block = lean_code.BLOCK.search(highlight(code, PythonLexer(), HtmlFormatter()))
    lean = lean_code.lean_block(block.group(2), found)
    assert characters(lean, found) == characters(block.group(2), found)
    assert lean.count("<span") < block.group(2).count("<span") / 1.5


# Looks the site's styles do not have: the same colour in light mode but not in dark, an
# italic class, a class with a background (a space shows it)
ODD = """html[data-theme="light"] .highlight { background: #fff; color: #111 }
html[data-theme="dark"] .highlight { background: #000; color: #eee }
html[data-theme="light"] .highlight .a { color: #111 }
html[data-theme="light"] .highlight .b { color: #111 }
html[data-theme="dark"] .highlight .b { color: #f00 }
html[data-theme="light"] .highlight .i { color: #111; font-style: italic }
html[data-theme="light"] .highlight .g { color: #111; background-color: #ff0 }"""


@pytest.mark.parametrize("seed", range(20))
def test_odd_looks_are_kept_apart(seed):
    rng = np.random.default_rng(seed)
    found = lean_code.looks(ODD)
    pieces = rng.choice(["a", "b", "i", "g", "zz", ""], size=40)
    texts = rng.choice(["x", " ", "  ", "y1", "&lt;", "\n"], size=40)
    inner = "".join(f'<span class="{c}">{t}</span>' if c else t for c, t in zip(pieces, texts))
    lean = lean_code.lean_block(inner, found)
    assert characters(lean, found) == characters(inner, found)
    assert lean.count("<span") < inner.count("<span")


def test_names_and_punctuation_look_like_plain_text_in_the_sites_styles():
    found = lean_code.looks(CSS)
    assert found["n"] == found["p"] == found[""] != found["k"]
    assert found["s2"] == found["si"]


def test_a_class_styled_by_another_stylesheet_is_never_merged_or_unwrapped(tmp_path):
    (tmp_path / "basic.css").write_text("div.highlight span.gp { user-select: none }\n.highlight .hll { x: y }\n"
                                        ".sig .k { color: red }  /* not in a code block */")
    styled = lean_code.styled_in_code_blocks([tmp_path / "basic.css"])
    assert styled == {"gp", "hll"}
    found = lean_code.looks(CSS, styled)
    inner = '<span class="gp">&gt;&gt;&gt; </span><span class="n">x</span><span class="go">1</span>'
    assert lean_code.lean_block(inner, found) == '<span class="gp">&gt;&gt;&gt; </span>x<span class="go">1</span>'


def test_blocks_with_other_markup_are_left_as_they_are():
    found = lean_code.looks(CSS)
    lined = '<span class="hll"><span class="n">x</span></span>'
    assert lean_code.lean_block(lined, found) is None
    page = f'<div class="highlight"><pre><span></span>{lined}</pre></div>'
    assert lean_code.lean_page(page, found) == page
    merged = lean_code.lean_page('<div class="highlight"><pre><span></span><span class="n">a</span>'
                                 '<span class="p">.</span><span class="n">b</span></pre></div>', found)
    assert merged == '<div class="highlight"><pre><span></span>a.b</pre></div>'
    assert lean_code.lean_page(merged, found) == merged  # a second build changes nothing
