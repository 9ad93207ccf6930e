"""Sphinx extension of the course website: kernel-free interactive figures.

- Sets ``BAYES_COURSE_STATIC=1`` for the kernels the build starts, so that
  ``lib.plots.interactive.interactive_figure`` renders its frames and an HTML explorer instead
  of ipywidgets (see ``lib/plots/interactive.py``; a kernel run anywhere else stays live).
- Moves each explorer frame out of the page (the notebook output carries it as a
  ``data:`` URI, so the execution cache keeps the frames between builds) into
  ``_images/frames/<sha256>.png``; a page then loads only its default image and
  fetches the other frames when a reader first touches the explorer. The frames leave
  as soon as a page is read (into ``<doctrees>/frames``, copied to the site when the
  page is written): the pickled pages Sphinx loads again and again (a numbered
  reference loads its target's whole page) stay small (the doctrees 11 MB instead of
  53 MB; 1-3 s of the build's 36 s of CPU).
- Gives every figure drawn by ``lib.plots.export.figure_png`` a minimum display width at
  which its smallest text is still 9 CSS px (read from the PNG's text chunks), so that
  on a phone a figure too wide for the column scrolls in its box instead of shrinking
  its text below legibility.
- Drops the ipywidgets state script: no page shows a widget, so none needs it (the
  widget manager JavaScript itself is switched off by ``nb_ipywidgets_js: {}``).
- Page weight and JavaScript errors: includes each script once (sphinx-thebe's
  settings script came twice, a "THEBE_JS_URL has already been declared" error on every
  page), and removes pydata-sphinx-theme's ``fontawesome.js`` (1.5 MB, 0.54 MB gzip):
  it only turns the icons into SVG, and the theme's CSS already draws the same icons with
  the Font Awesome web fonts.
"""
import base64
import hashlib
import json
import os
import re
import shutil
from pathlib import Path

from PIL import Image

STATIC_ENV = "BAYES_COURSE_STATIC"  # the same name as lib.plots.interactive.STATIC_ENV
MIN_TEXT_CSS_PX = 9.0
IMG = re.compile(r'<img\b[^>]*?\bsrc="(?:\.\./)*_images/([^"/]+\.png)"[^>]*>')
FRAME = re.compile(r'data-src="data:image/png;base64,([A-Za-z0-9+/=\s]+)"')
FRAME_FILE = re.compile(r'data-src="(?:\.\./)*_images/frames/([0-9a-f]{32}\.png)"')


def min_css_width(path):
    """The narrowest display (CSS px) of a figure PNG at which its text is >= 9 px."""
    try:
        info = Image.open(path).text
        width, font_pt = json.loads(info["lib.css_width"]), json.loads(info["lib.min_font_pt"])
    except (OSError, KeyError, ValueError):
        return None
    if not font_pt:
        return None
    return int(-(-width * MIN_TEXT_CSS_PX // (font_pt * 96 / 72)))


def _image_sources(app):
    sources = {}
    for source, (_, unique) in app.env.images.items():
        sources[unique] = Path(app.srcdir, source)
    return sources


def _min_widths(app, body):
    sources = None

    def add(match):
        nonlocal sources
        tag = match.group(0)
        if "min-width" in tag:
            return tag
        if sources is None:
            sources = _image_sources(app)
        path = sources.get(match.group(1))
        width = min_css_width(path) if path else None
        if not width:
            return tag
        if 'style="' in tag:
            return tag.replace('style="', f'style="min-width: {width}px; ', 1)
        return tag.replace("<img ", f'<img style="min-width: {width}px" ', 1)

    return IMG.sub(add, body)


def _frames_to_files(text, folder, prefix):
    """``text`` with each frame's ``data:`` URI replaced by ``<prefix>_images/frames/<name>``,
    the frame written to ``folder/<name>`` (named by its content)."""
    def write(match):
        data = base64.b64decode(match.group(1))
        name = hashlib.sha256(data).hexdigest()[:32] + ".png"
        target = folder / name
        if not target.exists():
            folder.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        return f'data-src="{prefix}_images/frames/{name}"'

    return FRAME.sub(write, text)


def _frames_out_of_doctree(app, doctree):
    prefix = "../" * app.env.docname.count("/")
    for raw in doctree.findall(lambda node: node.tagname == "raw"):
        text = raw.astext()
        if 'data-src="data:' in text:
            raw.rawsource = text = _frames_to_files(text, Path(app.doctreedir) / "frames", prefix)
            raw[0] = type(raw[0])(text)  # (docutils' Text: this module imports no Sphinx or docutils)


def _move_frames(app, pagename, templatename, context, doctree):
    body = context.get("body")
    if body and "<img" in body:
        body = context["body"] = _min_widths(app, body)
    if body and "data-src=" in body:
        folder = Path(app.outdir) / "_images" / "frames"
        body = context["body"] = _frames_to_files(body, folder, "../" * pagename.count("/"))
        for name in set(FRAME_FILE.findall(body)):  # those the page's doctree sent ahead
            target = folder / name
            if not target.exists():
                folder.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(Path(app.doctreedir) / "frames" / name, target)
    scripts = context.get("script_files")
    if scripts:
        kept, seen = [], set()
        for script in scripts:
            attributes = getattr(script, "attributes", {})
            key = (str(getattr(script, "filename", script) or ""), str(attributes.get("body", "")))
            if "widget-state" in str(attributes.get("type", "")) or key in seen:
                continue
            seen.add(key)
            kept.append(script)
        scripts[:] = kept  # the builder's own list (the template reads it)


FONTAWESOME_JS = re.compile(r'[ \t]*<script defer src="[^"]*_static/scripts/fontawesome\.js[^"]*"></script>\n?')


def _drop_fontawesome_js(app, exception):
    if exception is not None or app.builder.format != "html":
        return
    for page in Path(app.outdir).rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        if "fontawesome.js" in text:
            page.write_text(FONTAWESOME_JS.sub("", text), encoding="utf-8")


def setup(app):
    os.environ[STATIC_ENV] = "1"
    app.connect("doctree-read", _frames_out_of_doctree)
    app.connect("html-page-context", _move_frames, priority=900)  # after the themes and thebe
    app.connect("build-finished", _drop_fontawesome_js)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
