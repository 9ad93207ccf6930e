"""Sphinx extension of the course website: highlighted code with one element per run of
text that looks the same.

Pygments wraps every token of a code block in a ``<span>``: each name, comma and bracket.
With the theme's highlighting styles (``_static/pygments.css``: one style for light mode,
one for dark) most of them look exactly like the text around them (names and
punctuation are drawn in the block's own colour in both modes), and neighbours often
look alike (the string and the ``{x}`` of an f-string). Chapter 6's page carried 9,452
such elements, more than its formulas, prose and navigation together: every reader's
browser lays them out, and every accessibility check walks them.

When the build has finished (after the theme has written pygments.css), each page's code
blocks are rewritten: a run of tokens that look the same in both modes is one span, and
text that looks like the block's own is not wrapped. A token class that another
stylesheet styles inside a code block (the prompt ``gp``, which cannot be selected) is
never merged with another class. Text, order and the look of every character are kept
(tests/book/test_lean_code.py; that the merged classes look the same under every
stylesheet of the page: tests/browser/test_site.py).
"""
import re
from pathlib import Path

MODES = ("light", "dark")
# pygments.css as pydata-sphinx-theme writes it: one rule per mode and token class
RULE = re.compile(r'html\[data-theme="(light|dark)"\] \.highlight(?: \.([\w-]+))? \{([^}]*)\}')
BLOCK = re.compile(r'(<div class="highlight"><pre>(?:<span></span>)?)(.*?)(</pre></div>)', re.S)
TOKEN = re.compile(r'<span class="([\w-]+)">([^<]*)</span>')


def looks(css, styled_elsewhere=()):
    """``{class: look}``: each token class's look in pygments.css, as the declarations
    that apply to its text in light and in dark mode (the block's colour, then the
    class's own), and under ``""`` the look of text outside any span (the block's colour:
    ``_static/site.css`` has the code inherit it, where the theme would draw it in its own
    text colour). A class of ``styled_elsewhere`` gets a look of its own, equal to no
    other class's.

    >>> css = ('html[data-theme="light"] .highlight { background: #fff; color: #111 }\\n'
    ...        'html[data-theme="light"] .highlight .n { color: #111 }\\n'
    ...        'html[data-theme="light"] .highlight .p { color: #111 }\\n'
    ...        'html[data-theme="dark"] .highlight { color: #eee }\\n'
    ...        'html[data-theme="dark"] .highlight .k { color: #f0f; font-weight: bold }')
    >>> found = looks(css)
    >>> found["n"] == found["p"] == found[""], found["n"] == found["k"]
    (True, False)
    """
    rules = {}
    for mode, cls, body in RULE.findall(css):
        declarations = dict(tuple(part.strip() for part in d.split(":", 1)) for d in body.split(";") if ":" in d)
        rules.setdefault(cls, {}).setdefault(mode, {}).update(declarations)
    block = {mode: {"color": rules.get("", {}).get(mode, {}).get("color")} for mode in MODES}
    return {cls: ("own", cls) if cls in styled_elsewhere else
            tuple(frozenset({**block[m], **modes.get(m, {})}.items()) for m in MODES)
            for cls, modes in {**rules, "": {}}.items()}


def _colour_only(look):
    """Whether a look sets nothing but colours (which a space does not show)."""
    return look[0] != "own" and all(key == "color" for mode in look for key, _ in mode)


def lean_block(inner, found):
    """The inside of one ``<pre>`` (Pygments' flat spans and text) with each run of
    tokens of the same look (``found``: :func:`looks`) in one span, or in none when it
    looks like the block's own text, and each space between tokens that set only colours
    joined to the run before it; ``None`` when the block holds other markup (highlighted
    lines, line numbers, links), left as it is.

    >>> colour = lambda c: (frozenset({("color", c)}),) * 2
    >>> found = {"": colour("N"), "n": colour("N"), "p": colour("N"), "s2": colour("S"), "si": colour("S"),
    ...          "k": colour("K")}
    >>> lean_block('<span class="k">def</span> <span class="n">f</span><span class="p">(</span>'
    ...            '<span class="s2">"a</span><span class="si">{x}</span><span class="s2">"</span>)', found)
    '<span class="k">def </span>f(<span class="s2">"a{x}"</span>)'
    """
    bare, parts, end = found[""], [], 0
    for token in TOKEN.finditer(inner):
        parts += [(bare, None, inner[end:token.start()]),
                  (found.get(token.group(1), ("own", token.group(1))), token.group(1), token.group(2))]
        end = token.end()
    parts.append((bare, None, inner[end:]))
    if any("<" in text for _, _, text in parts):
        return None
    runs = []
    for look, cls, text in parts:
        if not text:
            continue
        if runs and (runs[-1][0] == look or (text.isspace() and _colour_only(runs[-1][0]) and _colour_only(look))):
            runs[-1][2] += text
        else:
            runs.append([look, cls, text])
    return "".join(text if look == bare else f'<span class="{cls}">{text}</span>' for look, cls, text in runs)


def styled_in_code_blocks(css_files):
    """Token classes that a stylesheet other than pygments.css names in a selector that
    reaches into a code block (one that names ``highlight``)."""
    names = set()
    for path in css_files:
        text = re.sub(r"/\*.*?\*/", "", path.read_text(encoding="utf-8", errors="replace"), flags=re.S)
        for selectors in re.findall(r"([^{}]+)\{", text):
            for selector in selectors.split(","):
                if "highlight" in selector:
                    names.update(re.findall(r"\.([\w-]+)", selector.split("highlight", 1)[1]))
    return names


def lean_page(text, found):
    """A page with each code block's inside rewritten by :func:`lean_block`."""
    def one(match):
        lean = lean_block(match.group(2), found)
        return match.group(0) if lean is None else match.group(1) + lean + match.group(3)
    return BLOCK.sub(one, text)


def site_looks(site):
    """:func:`looks` of a built site (its folder): from its ``_static/pygments.css``, with
    the classes its other stylesheets style in code blocks kept apart; ``None`` when it
    has no pygments.css."""
    pygments_css = Path(site) / "_static" / "pygments.css"
    if not pygments_css.is_file():
        return None
    others = [p for p in pygments_css.parent.rglob("*.css") if p != pygments_css]
    return looks(pygments_css.read_text(encoding="utf-8"), styled_in_code_blocks(others))


def _lean_pages(app, exception):
    if exception is not None or app.builder.format != "html":
        return
    found = site_looks(app.outdir)
    if found is None:
        return
    for page in Path(app.outdir).rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        lean = lean_page(text, found)
        if lean != text:
            page.write_text(lean, encoding="utf-8")


def setup(app):
    # after pydata-sphinx-theme has written pygments.css (build-finished, priority 500)
    app.connect("build-finished", _lean_pages, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
